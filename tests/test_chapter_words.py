"""The converted chapters' words: each Markdown template rendered over findings that the studies
compute from small hand-made tables, in the cases a rerun on other data meets (another test set,
one language pair, no METEOR, no Table 2, an undefined correlation, one reference)."""

import json
import re
import math
from pathlib import Path

import numpy as np
import pandas as pd

from mtbook import comparisons, findings, words
from mtbook.studies import baselines, otem_utem
from mtlib.significance import Comparison

ROOT = Path(__file__).resolve().parents[1]


def page(name: str, found: dict) -> str:
    """Every Markdown cell of ``notebooks/NAME.ipynb`` rendered over ``found`` (as the kernel
    would send it: plain JSON data), joined, whitespace collapsed."""
    nb = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))
    macros = words.chapter_macros(ROOT / "notebooks" / f"{name}.ipynb")
    data = json.loads(json.dumps(findings.as_data(found)))
    text = "\n".join(words.render_template("".join(c["source"]), data, where=f"{name} cell {i}", macros=macros)
                     for i, c in enumerate(nb["cells"]) if c["cell_type"] == "markdown")
    # a block tag that ends a line eats its newline: a bullet glued to the previous sentence
    assert not re.findall(r"[.)]\* \S.{0,40}", text), re.findall(r".{40}[.)]\* \S.{0,40}", text)
    return " ".join(text.split())


def _table1(test_set_has_paper: bool, metrics=("BLEU", "BLEU (intl)", "TER", "chrF")):
    rows = [dict(lp="de-en", subset=s, metric=m, stat=st, value=(-0.4 if s == "top30" else 0.9),
                 paper=(0.9 if test_set_has_paper else np.nan), delta=(0.0 if test_set_has_paper else np.nan))
            for s in ["all", "top30"] for m in metrics for st in ["r", "tau", "rho"]]
    return pd.DataFrame(rows)


def _baselines_settings(undefined: bool = False) -> list:
    """Ten systems: chrF agrees perfectly, BLEU the wrong way round, TER is chrF's copy (a tie);
    the top 3 systems alone: two comparisons that no p can make significant."""
    human = {f"s{i}": float(i) for i in range(10)}
    flat = {s: 1.0 for s in human}
    scores = ({"chrF": flat, "BLEU": flat} if undefined else
              {"chrF": dict(human), "BLEU": {s: -v for s, v in human.items()}, "TER": dict(human)})
    top = ["s9", "s8", "s7"]
    return [baselines.versus_highest(scores, human, "r", lp="de-en", subset="all", n_permutations=1000, seed=1),
            baselines.versus_highest({**scores, "BLEU": {"s9": 3.0, "s8": 1.0, "s7": 2.0},
                                      "TER": {"s9": 2.0, "s8": 3.0, "s7": 1.0}}, human, "tau", lp="de-en",
                                     subset="top30", systems=top, n_permutations=1000, seed=1)]


def _baselines_findings(has_paper: bool, test_set: str, undefined: bool = False) -> dict:
    metrics = ["BLEU", "BLEU (intl)", "TER", "chrF"]
    table1 = _table1(has_paper)
    humans = {"de-en": {f"s{i}": float(i) for i in range(10)}}
    settings = _baselines_settings(undefined)
    family = baselines.page_family(settings)
    boot = pd.DataFrame([("de-en", s, m, "kendall", lo, hi) for s in ["all", "top30"] for m, lo, hi in
                         [("BLEU", 0.5, 0.7), ("TER", -0.2, 0.4)]], columns=["lp", "subset", "metric", "method", "low", "high"])
    curves = pd.DataFrame([("de-en", 3, "BLEU", -0.3), ("de-en", 10, "BLEU", 0.6)], columns=["lp", "k", "metric", "value"])
    evs = type("E", (), {"ref_systems": []})()
    return dict(data=baselines.data_findings(test_set, {"de-en": evs}, "wmt19"),
                top_groups=baselines.top_groups(humans, 0.3), matches=baselines.paper_matches(table1, metrics),
                has_paper=has_paper, tokenisation=baselines.tokenisation_gaps(table1, ["de-en"]),
                negatives=baselines.negative_signs(table1, metrics), n_permutations=1000, seed=1,
                comparisons=baselines.setting_words(settings, family), family=family,
                counts=comparisons.family_counts(family), floors=comparisons.family_floors(family, by=("lp", "subset")), table2=None,
                negative_turns=baselines.negative_turns(curves, 1), full_range=baselines.full_range(curves),
                widths=baselines.interval_widths(boot), intervals=baselines.intervals_by_lp(boot),
                top_human=baselines.top_human_ranges(humans, 0.3),
                reproduced=baselines.reproduced(baselines.paper_matches(table1, metrics)),
                accuracy=baselines.accuracy_findings(baselines.pairwise_accuracy_table(
                    {"de-en": {"chrF": humans["de-en"], "BLEU": {s: -v for s, v in humans["de-en"].items()}}},
                    humans, {"de-en": {"all": None}})),
                ex_bleu={"counts": [5, 3, 1, 0], "totals": [9, 7, 5, 3], "sys_len": 9, "ref_len": 11, "bp": 0.7788,
                         "score": 24.5}, ex_ter={"edits": 1.0, "ref_length": 6.0, "score": 16.7})


def _baselines_reads_well(found: dict) -> str:
    """The baselines page over ``found`` with its paragraphs kept: no paragraph (or bullet) over
    120 words, no sentence twice, a Conclusion of at most six bullets of at most ~50 words, each
    with a count and its denominator; returns the Conclusion."""
    nb = json.loads((ROOT / "notebooks" / "wmt19_baselines.ipynb").read_text(encoding="utf-8"))
    macros = words.chapter_macros(ROOT / "notebooks" / "wmt19_baselines.ipynb")
    data = json.loads(json.dumps(findings.as_data(found)))
    text = "\n\n".join(words.render_template("".join(c["source"]), data, macros=macros) for c in nb["cells"]
                       if c["cell_type"] == "markdown")
    prose = re.sub(r"(`{3,}).*?\1", "", text, flags=re.S)  # exercises, dropdowns and code: not the page's prose
    for par in re.split(r"\n\s*\n|\n(?=\* )", prose):
        if par.strip() and not par.lstrip().startswith("|"):
            assert len(par.split()) <= 120, par
    sentences = [s.strip() for s in re.split(r"(?<=[.;:])\s+", " ".join(prose.split())) if len(s.split()) >= 8]
    assert not {s for s in sentences if sentences.count(s) > 1}
    conclusion = text.split("## Conclusion")[1].split("## Rerunning")[0]
    bullets = [b for b in conclusion.split("\n") if b.startswith("* ")]
    assert 1 <= len(bullets) <= 6
    for b in bullets:
        assert len(b.split()) <= 55 and re.search(r"\d+ of [^.;]*?\d+|no row", b), b
    return " ".join(conclusion.split())


def test_baselines_words_on_the_papers_test_set():
    found = _baselines_findings(True, "wmt19")
    text = page("wmt19_baselines", found)
    assert "WMT19 newstest2019 sources, references and system outputs for de-en," in text
    assert "(in this run 3 of 10 for de-en)" in text
    assert "* TER reproduces the paper's row to all three decimals in every setting." in text
    assert "So the paper's BLEU is sacreBLEU" not in text  # both BLEUs reproduce it here: no claim which
    assert "* chrF is not in the paper" in text and "The paper ran the Java METEOR" not in text  # no METEOR here
    assert ("these correlations are negative: de-en top30: BLEU, BLEU (intl), TER, chrF (all three statistics "
            "unless named). The most negative Kendall $\\tau$ is -0.400, tied: all 4 metrics on de-en (top30)") in text
    # the book's words: chrF against BLEU is the page's one significant test; TER is chrF's copy, a tie
    assert ("* de-en, all 10 systems, Pearson $r$: chrF ties for the highest (+1.000) with TER; it correlates better "
            "than BLEU (-1.000; p = 0.004, Holm-adjusted = 0.016).") in text
    assert ("* de-en, top 30% (3 systems), Kendall $\\tau$: chrF is highest (+1.000); it is not shown to differ from "
            "BLEU (+0.333) and TER (+0.333).") in text
    assert "the page ran 4 such tests" in text and "(1 raw and 1 adjusted p-values are below 0.05)" in text
    assert "Two equal correlations are a tie, which counts as a test with p = 1" in text
    assert ("1/4 = 0.250 over de-en's top 3 systems. So none of the 2 comparisons over these systems can be "
            "significant.")  # no p can reach 0.05 over 3 systems, Holm or not in text
    assert "about as much" not in text and "margin" not in text
    # one language pair: its own accuracy; chrF orders all 45 pairs as the humans, BLEU none
    assert ("On de-en, all systems (45 system pairs): chrF orders the most pairs as the humans do (1.000), BLEU the "
            "fewest (0.000), 45 pairs apart.") in text
    assert ("Of the page's 4 comparisons, 1 shows one metric correlating better than another once the p-values are "
            "adjusted; 2 show no difference and 1 is an exact tie.") in text
    # every comparison in the dropdown table, with its raw and adjusted p
    assert "````{dropdown} All comparisons" in text
    assert "| de-en | all (10) | r | BLEU | chrF | +2.000 | 0.004 | 0.016 | B better |" in text
    assert "| de-en | all (10) | r | TER | chrF | +0.000 | 1.000 | 1.000 | tie |" in text
    assert "| de-en | top 30% (3) | τ | BLEU | chrF | +0.667 | " in text
    conclusion = _baselines_reads_well(found)
    assert ("**Table 1's TER, BLEU (intl) and BLEU rows are reproduced** to three decimals: TER in 6 of 6 printed values, BLEU (intl) in 6 of 6 and "
            "BLEU in 6 of 6.") in conclusion  # both BLEUs: no claim which
    assert "**Absolute values hide signs**: 12 of the run's 24 oriented correlations are negative" in conclusion
    assert ("**Metrics against one another**: 1 of the page's 4 PERM-BOTH tests is significant after Holm's "
            "adjustment (chrF above BLEU, de-en, all systems, r), against 1 on the raw p; 1 is an exact tie.") in conclusion
    assert "**The top 30% cannot rank these metrics**: none of its 2 comparisons can be significant" in conclusion
    assert "Data: wmt19 de-en from the WMT19 news and metrics tasks" in text
    assert "$p_1$ = 5/9, $p_2$ = 3/7" in text and "= 24.50" in text


def test_baselines_words_on_another_test_set_and_an_undefined_correlation():
    found = _baselines_findings(False, "wmt18", undefined=True)
    text = page("wmt19_baselines", found)
    assert ("* The paper's Table 1 covers WMT19 en-de and de-en only; this run (wmt18, de-en) has none of its rows"
            in text)
    assert "TER reproduces" not in text and "`13a` tokenisation" not in text
    assert "* de-en, all 10 systems, Pearson $r$: no correlation is defined." in text
    assert "the page ran 1 such tests" in text  # the constant metrics: untested, not in Holm's count
    assert "| de-en | all | r | BLEU | chrF | – | – | – | untested |" in text
    conclusion = _baselines_reads_well(found)
    assert ("* This run (wmt18, de-en) has no row that reproduces a printed number of the paper (the paper's Table 1 "
            "is WMT19 en-de and de-en).") in " ".join(conclusion.split()).replace("## Conclusion ", "* ") or \
        "This run (wmt18, de-en) has no row that reproduces a printed number of the paper" in conclusion
    assert "0 of the page's 1 PERM-BOTH tests are significant" in conclusion
    assert not re.search(r"\bnan\b", text)


def _otem_findings(n_refs: int, with_original: bool) -> dict:
    st = pd.DataFrame([("s1", "Otem", 2, 2, 3, "better than most"), ("s1", "Utem", 1, 1, 3, "worse than most"),
                       ("wmt21.tedtalks zh-en: refA vs refB", "Otem", 1, 2, 3, "among")],
                      columns=["setting", "metric", "lowest", "highest", "systems", "standing"])
    st = st if with_original else st.iloc[:2]
    ted_corr = pd.DataFrame([("x", "Addition", "OTEM-2", 0.5, 0.1, 0.8, 13), ("x", "Addition", "BLEU", 0.1, -0.3, 0.4, 13)],
                            columns=["lp", "errors", "metric", "agreement r", "low", "high", "errors counted"])
    # the page's family: the MQM analysis untested (no correlation), Table 1's OTEM-2 better than BLEU on r and tau
    untested = Comparison(*[math.nan] * 4, "two-sided", 5, 5, "system", math.nan, math.nan, "pearson", 1000, 1,
                          "the human scores are constant on the 5 systems; no correlation")
    tested = [Comparison(0.7, 0.9, 0.2, 0.001, "two-sided", 16, 16, "system", 0.5 ** 15, 0.001, "pearson", 1000, 1),
              Comparison(0.4, 1.0, 0.6, 0.002, "two-sided", 16, 16, "system", 0.5 ** 15, 0.001, "kendall", 1000, 1)]
    rows = comparisons.family([({"analysis": "MQM additions", "data": "x"}, "BLEU", "OTEM-2", "agreement r", untested)]
                              + [({"analysis": "Table 1 human score", "data": "wmt19 en-de"}, "BLEU", "OTEM-2", stat, c)
                                 for stat, c in zip(["oriented r", "oriented τ"], tested)])
    ranges = [{"lp": "x", "errors": "Addition", "fewest": 1, "most": 3}]
    table = pd.DataFrame({"OTEM-2": [1.0, 2.0], "OTEM-2 (authors)": [2.0, 4.5], "UTEM-4": [10.0, 20.0],
                          "UTEM-4 (authors)": [30.0, 60.0]})
    return dict(data_line="wmt19 en-de from somewhere", has_original=with_original,
                standing=otem_utem.standing_by_setting(st), fig2=otem_utem.fig2_findings(st),
                utem_direction=[{"setting": "s1", "mt": "rises", "human": "falls"}], mqm_sets=["x"], n_permutations=1000,
                seed=1, agreements=[],
                errors=otem_utem.error_totals(ted_corr), mqm=otem_utem.mqm_findings(ted_corr, rows[:1], ranges),
                mqm_summary=otem_utem.mqm_summary(ted_corr, rows[:1], ranges), comparisons=rows,
                test_counts=comparisons.family_counts(rows), floor=otem_utem.family_floor(rows),
                table_desc={"n_systems": 2, "table_set": "wmt19 en-de", "refs": ["ref"] * n_refs},
                rho={"bleu_otem": -0.5, "bleu_utem": -0.25, "otem_utem": 0.1}, n_rank_gap=0,
                biggest_move={"system": "a", "places": 1}, variant=otem_utem.variant_findings(table, n_refs),
                n_table_systems=2, otem_iqr=[1.0, 2.0], r_human=[{"metric": "BLEU", "value": 0.9}],
                tau_human=[{"metric": "BLEU", "value": 0.8}],
                without_lowest={"system": "a", "z": -1.0, "baseline": 20.0, "next_z": -0.5,
                                "r": [{"metric": "BLEU", "value": 0.5}]},
                versus=otem_utem.versus_findings(rows[1:]), ex_otem_aab=1 / 3, ex_utem_aab=1 / 3, ex_utem_short=1.5878)


def test_otem_utem_words_with_one_reference_an_original_and_an_untested_analysis():
    text = page("otem_utem", _otem_findings(1, True))
    assert "For TED zh-en the \"human translation\" `refA` is the English original" in text
    assert ("**Verdict:** * Otem: the human translation is ahead of most MT systems at every $n$ (ahead of 2 of 3 for "
            "s1). * Utem: the human translation is behind most MT systems at every $n$ (ahead of 1 of 3 for s1). * Not a "
            "test of the metrics, the \"human translation\" being the original the source was translated from: "
            "wmt21.tedtalks zh-en: refA vs refB (Otem ahead of 1–2 of 3). So in no tested setting") in text
    assert ("* x additions (1–3 per system): " in text and "OTEM-2 could not be tested against BLEU (the human scores "
            "are constant on the 5 systems; no correlation)." in text)
    assert ("* Figures 3–4: 1 of 1 MQM analyses could not be tested; Otem's or Utem's agreement interval lies above zero "
            "in") in text
    assert "With one reference, as in this run, the authors' script and the paper's equations give the same numbers" in text
    assert "scored against 1 reference (`ref`)" in text
    # Table 1: each comparison with its raw and Holm-adjusted p (two tests: 2 x 0.001, then 0.002), in the body ...
    assert ("OTEM-2 correlates better than BLEU on both r (+0.900 vs +0.700; p = 0.001, Holm-adjusted p = 0.002) "
            "and τ (+1.000 vs +0.400; p = 0.002, Holm-adjusted p = 0.002).") in text
    # ... and in the conclusion, shorter; every p in the words is in the table of all comparisons
    assert ("* Table 1, human score of 2 systems: OTEM-2 correlates better than BLEU on r and τ (Holm-adjusted "
            "p = 0.002 and p = 0.002).") in text
    assert ("| MQM additions | x | BLEU | OTEM-2 | agreement r | – | – | – | not tested | not tested | untested (the "
            "human scores are constant on the 5 systems; no correlation) |") in text
    assert ("| Table 1 human score | wmt19 en-de | BLEU | OTEM-2 | oriented r | +0.700 | +0.900 | +0.200 | 0.001 | "
            "0.002 | B better |") in text
    assert "the page ran 2 such tests" in text and "(2 raw and 2 adjusted p-values are below 0.05)" in text
    assert "The fewest systems in a comparison are 16: over them no two-sided p can fall below 2^-15 = 3.05e-05" in text
    assert ("* Of this page's 2 PERM-BOTH tests (3 comparisons, 1 untested), 2 have a raw p below 0.05 and 2 keep it "
            "after Holm's adjustment.") in text
    assert "about as much as" not in text and "one-sided" not in text
    assert not re.search(r"\bnan\b", text)


def test_otem_utem_words_with_several_references_and_no_original():
    text = page("otem_utem", _otem_findings(2, False))
    assert "English original" not in text and "Not a test of the metrics" not in text
    assert ("With 2 references the authors' variant makes OTEM-2 2.1 times as large (median over systems; the largest "
            "difference is 2.50 points) and UTEM-4 3.0 times as large") in text
    assert "scored against 2 references (`ref`, `ref`)" in text
    # the Conclusion: at most six bullets of at most ~50 words
    bullets = text.split("## Conclusion")[1].split(" Data: ")[0].split(" * ")[1:]
    assert 3 <= len(bullets) <= 6 and all(len(b.split()) <= 55 for b in bullets), bullets


def test_a_long_pipe_table_becomes_a_list_table_of_one_block_per_row():
    """The book's paragraph limit counts a pipe table as one block; over 120 words it is written as a list-table
    (same HTML table), its cells kept as written (escaped pipes unescaped, a leading minus not read as a list)."""
    rows = "".join(f"| d{i} | -0.{i} | a\\|b {'w ' * 12}|\n" for i in range(10))
    text = "```{dropdown} All\n| set | delta | note |\n|:--|--:|:--|\n" + rows + "```"
    out = words.long_tables_as_lists(text)
    assert out.startswith("```{dropdown} All\n\n:::{list-table}\n:header-rows: 1\n\n* - set\n  - delta\n  - note\n\n")
    assert "* - d3\n  - \\-0.3\n  - a|b w" in out and out.endswith("\n:::\n```")
    assert max(len(b.split()) for b in out.split("\n\n")) <= 120
    short = "| a | b |\n|---|---|\n| 1 | 2 |"
    assert words.long_tables_as_lists(short) == short  # short tables stay pipe tables
