"""Generate mtlib/examples/toy-de-en: a tiny, made-up evaluation set in mtlib's plain-folder layout.

Everything here is written for this repository and released under CC0 1.0 (see
toy-de-en/LICENSE): the 40 German source sentences and their English references were
written by hand; the eight "systems" are the reference damaged by seeded random edits; the
"human" scores are *simulated* from those edits. The set exists so that the own-data chapter,
the tests and a reader without WMT data can run every analysis end to end. Its numbers show
how the methods work, never how real systems or real metrics behave.

The simulated judge penalises what a human would: dropped words (under-translation), repeated
words (over-translation) and swapped neighbours (word order), and barely notices a synonym,
which a surface metric such as BLEU counts as an error. Rerun to regenerate (deterministic):

    python -m mtbook.toy_folder
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

PAIRS = [
    ("Der Zug nach Berlin hat heute zwei Stunden Verspätung.", "The train to Berlin is two hours late today."),
    ("Meine Schwester arbeitet seit drei Jahren in einem großen Krankenhaus.",
     "My sister has worked in a big hospital for three years."),
    ("Das Museum ist am Montag geschlossen.", "The museum is closed on Monday."),
    ("Wir haben gestern Abend einen sehr guten Film gesehen.", "We watched a very good film last night."),
    ("Die Stadt plant eine neue Brücke über den Fluss.", "The city is planning a new bridge over the river."),
    ("Kannst du mir bitte das Salz geben?", "Can you please pass me the salt?"),
    ("Der Bäcker öffnet seinen Laden jeden Morgen um sechs Uhr.",
     "The baker opens his shop at six o'clock every morning."),
    ("Im Winter fällt in den Bergen viel Schnee.", "In winter a lot of snow falls in the mountains."),
    ("Die Kinder spielen nach der Schule im Park.", "The children play in the park after school."),
    ("Ich habe meinen Schlüssel im Büro vergessen.", "I forgot my key at the office."),
    ("Die Regierung will die Steuern im nächsten Jahr senken.", "The government wants to cut taxes next year."),
    ("Unser Hund schläft gern auf dem alten Sofa.", "Our dog likes to sleep on the old sofa."),
    ("Der Arzt sagt, dass ich mehr Wasser trinken soll.", "The doctor says that I should drink more water."),
    ("Das Konzert beginnt um acht Uhr und dauert zwei Stunden.",
     "The concert starts at eight o'clock and lasts two hours."),
    ("Sie hat das Buch in einer einzigen Nacht gelesen.", "She read the book in a single night."),
    ("Die Preise für Gemüse sind in diesem Sommer stark gestiegen.",
     "Vegetable prices have risen sharply this summer."),
    ("Mein Großvater erzählt gern Geschichten aus seiner Jugend.",
     "My grandfather likes to tell stories from his youth."),
    ("Der kleine Laden an der Ecke verkauft frisches Obst.", "The small shop on the corner sells fresh fruit."),
    ("Wegen des Sturms wurden viele Flüge abgesagt.", "Many flights were cancelled because of the storm."),
    ("Wir treffen uns morgen vor dem Bahnhof.", "We will meet tomorrow in front of the station."),
    ("Die Lehrerin erklärt die Aufgabe noch einmal langsam.", "The teacher explains the task again slowly."),
    ("Das Wasser im See ist im August warm genug zum Schwimmen.",
     "The water in the lake is warm enough for swimming in August."),
    ("Er repariert sein Fahrrad selbst.", "He repairs his bike himself."),
    ("Die Firma hat im letzten Quartal mehr Gewinn gemacht.", "The company made more profit in the last quarter."),
    ("Bitte schließen Sie das Fenster, es ist kalt.", "Please close the window, it is cold."),
    ("Die Straße ist wegen Bauarbeiten bis Freitag gesperrt.",
     "The street is closed until Friday because of construction work."),
    ("Ich koche am Wochenende gern für meine Freunde.", "I like to cook for my friends at the weekend."),
    ("Der Bürgermeister eröffnete die neue Bibliothek.", "The mayor opened the new library."),
    ("Die Katze sitzt auf dem Dach und schaut auf die Straße.",
     "The cat sits on the roof and looks at the street."),
    ("Nach dem Regen riecht der Wald besonders gut.", "After the rain the forest smells especially good."),
    ("Sie sprechen zu Hause Deutsch und Englisch.", "They speak German and English at home."),
    ("Das Spiel endete mit einem knappen Sieg für die Gäste.", "The game ended with a narrow win for the visitors."),
    ("Mein Bruder sucht eine größere Wohnung in der Nähe der Universität.",
     "My brother is looking for a bigger flat near the university."),
    ("Der Bus kommt alle zehn Minuten.", "The bus comes every ten minutes."),
    ("Die Ärzte arbeiten oft sehr lange.", "The doctors often work very long hours."),
    ("Wir haben im Garten Tomaten und Bohnen gepflanzt.", "We planted tomatoes and beans in the garden."),
    ("Der Film war lang, aber nie langweilig.", "The film was long, but never boring."),
    ("Die Polizei sucht Zeugen für den Unfall.", "The police are looking for witnesses to the accident."),
    ("Ich lerne seit einem Jahr Spanisch.", "I have been learning Spanish for a year."),
    ("Am Ende des Tages waren alle müde, aber glücklich.", "At the end of the day everyone was tired but happy."),
]

# Meaning-preserving substitutions: the simulated judge barely penalises them; BLEU does.
SYNONYMS = {
    "big": "large", "film": "movie", "shop": "store", "flat": "apartment", "bike": "bicycle",
    "sharply": "steeply", "cut": "lower", "small": "little", "narrow": "close", "starts": "begins",
    "street": "road", "youth": "childhood", "visitors": "guests", "especially": "particularly",
    "happy": "glad", "late": "delayed", "boring": "dull", "station": "railway station", "fresh": "freshly picked",
    "closed": "shut", "work": "labour", "witnesses": "eyewitnesses", "quarter": "three months",
}

# system -> per-word probabilities of (drop, repeat, swap with the next word, synonym)
SYSTEMS = {
    "alpha": (0.02, 0.01, 0.02, 0.30), "bravo": (0.03, 0.02, 0.03, 0.05), "charlie": (0.05, 0.02, 0.04, 0.20),
    "delta": (0.08, 0.03, 0.05, 0.10), "echo": (0.04, 0.10, 0.04, 0.10), "foxtrot": (0.12, 0.02, 0.08, 0.10),
    "golf": (0.15, 0.08, 0.10, 0.05), "hotel": (0.22, 0.05, 0.15, 0.10),
}
PENALTY = {"drop": 30.0, "repeat": 20.0, "swap": 15.0, "synonym": 2.0}  # points per edit, per 10 words
JUDGE_NOISE = 4.0  # standard deviation of the simulated judge's per-segment noise (points)
SEED = 2026


def _bare(word: str) -> str:
    return word.rstrip(".,?").lower()


def _synonym(word: str) -> str:
    """The word's listed synonym, keeping trailing punctuation."""
    bare = _bare(word)
    return SYNONYMS[bare] + word[len(bare):]


def damage(words: list[str], probs: tuple[float, float, float, float], rng: np.random.Generator
           ) -> tuple[list[str], dict[str, int]]:
    p_drop, p_rep, p_swap, p_syn = probs
    out, edits = [], dict.fromkeys(PENALTY, 0)
    for w in words:
        if rng.random() < p_drop:
            edits["drop"] += 1
            continue
        if _bare(w) in SYNONYMS and rng.random() < p_syn:
            w = _synonym(w)
            edits["synonym"] += 1
        out.append(w)
        if rng.random() < p_rep:
            out.append(w.rstrip(".,?"))
            edits["repeat"] += 1
    for i in range(len(out) - 1):
        if rng.random() < p_swap:
            out[i], out[i + 1] = out[i + 1], out[i]
            edits["swap"] += 1
    return out or words[:1], edits


def main(folder: Path | None = None) -> None:
    """Writes the set into ``folder`` (default: the copy mtlib ships)."""
    if folder is None:
        from mtlib.examples import example_folder
        folder = example_folder()
    rng = np.random.default_rng(SEED)
    (folder / "references").mkdir(parents=True, exist_ok=True)
    (folder / "systems").mkdir(exist_ok=True)
    src = [s for s, _ in PAIRS]
    ref = [r for _, r in PAIRS]
    # A second reference: the first with every listed synonym substituted (a paraphrase).
    para = [" ".join(_synonym(w) if _bare(w) in SYNONYMS else w for w in r.split()) for r in ref]
    (folder / "source.txt").write_text("\n".join(src) + "\n", encoding="utf-8")
    (folder / "references" / "ref.txt").write_text("\n".join(ref) + "\n", encoding="utf-8")
    (folder / "references" / "paraphrase.txt").write_text("\n".join(para) + "\n", encoding="utf-8")
    seg_rows, sys_rows = [], []
    for name, probs in SYSTEMS.items():
        lines, scores = [], []
        for i, r in enumerate(ref):
            words, edits = damage(r.split(), probs, rng)
            lines.append(" ".join(words))
            loss = sum(PENALTY[k] * n for k, n in edits.items()) * 10 / len(r.split())
            scores.append(float(np.clip(100 - loss + rng.normal(0, JUDGE_NOISE), 0, 100)))
            seg_rows.append((name, i + 1, f"{scores[-1]:.1f}"))
        (folder / "systems" / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        sys_rows.append((name, f"{np.mean(scores):.2f}"))
    for file, header, rows in (("human-sys.tsv", ("system", "score"), sys_rows),
                               ("human-seg.tsv", ("system", "segment", "score"), seg_rows)):
        with open(folder / file, "w", encoding="utf-8", newline="") as f:
            w = csv.writer(f, delimiter="\t", lineterminator="\n")
            w.writerow(header)
            w.writerows(rows)


if __name__ == "__main__":
    main()
