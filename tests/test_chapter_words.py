"""The converted chapters' words: each Markdown template rendered over findings that the studies
compute from small hand-made tables, in the cases a rerun on other data meets (another test set,
one language pair, no METEOR, no Table 2, an undefined correlation, one reference)."""

import json
import re
import math
from pathlib import Path

import numpy as np
import pandas as pd

from mtbook import findings, words
from mtbook.studies import baselines, otem_utem

ROOT = Path(__file__).resolve().parents[1]


def page(name: str, found: dict) -> str:
    """Every Markdown cell of ``notebooks/NAME.ipynb`` rendered over ``found`` (as the kernel
    would send it: plain JSON data), joined, whitespace collapsed."""
    nb = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))
    macros_file = ROOT / "notebooks" / f"{name}.macros.j2"
    macros = macros_file.read_text(encoding="utf-8") if macros_file.exists() else ""
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


def _baselines_findings(has_paper: bool, test_set: str, undefined: bool = False) -> dict:
    metrics = ["BLEU", "BLEU (intl)", "TER", "chrF"]
    table1 = _table1(has_paper)
    humans = {"de-en": {f"s{i}": float(i) for i in range(10)}}
    tests = pd.DataFrame([dict(metric="chrF", value=math.nan if undefined else 0.9, best="chrF", gap=0.0, p=math.nan,
                               n=10, verdict="highest"),
                          dict(metric="BLEU", value=0.85, best="chrF", gap=0.05, p=0.01, n=10, verdict="better")]
                         ).assign(lp="de-en", subset="all", stat="r")
    boot = pd.DataFrame([("de-en", s, m, "kendall", lo, hi) for s in ["all", "top30"] for m, lo, hi in
                         [("BLEU", 0.5, 0.7), ("TER", -0.2, 0.4)]], columns=["lp", "subset", "metric", "method", "low", "high"])
    curves = pd.DataFrame([("de-en", 3, "BLEU", -0.3), ("de-en", 10, "BLEU", 0.6)], columns=["lp", "k", "metric", "value"])
    evs = type("E", (), {"ref_systems": []})()
    return dict(data=baselines.data_findings(test_set, {"de-en": evs}, "wmt19"),
                top_groups=baselines.top_groups(humans, 0.3), matches=baselines.paper_matches(table1, metrics),
                has_paper=has_paper, tokenisation=baselines.tokenisation_gaps(table1, ["de-en"]),
                negatives=baselines.negative_signs(table1, metrics), n_permutations=1000, seed=1,
                comparisons=baselines.comparison_groups(tests), verdict_counts=baselines.verdict_counts(tests),
                margins={"r": baselines.R_TIE, "tau_pairs": baselines.TAU_TIE_PAIRS}, table2=None,
                negative_turns=baselines.negative_turns(curves, 1), full_range=baselines.full_range(curves),
                widths=baselines.interval_widths(boot), intervals=baselines.intervals_by_lp(boot),
                top_human=baselines.top_human_ranges(humans, 0.3),
                reproduced=baselines.reproduced(baselines.paper_matches(table1, metrics)),
                ex_bleu={"counts": [5, 3, 1, 0], "totals": [9, 7, 5, 3], "sys_len": 9, "ref_len": 11, "bp": 0.7788,
                         "score": 24.5}, ex_ter={"edits": 1.0, "ref_length": 6.0, "score": 16.7})


def test_baselines_words_on_the_papers_test_set():
    text = page("wmt19_baselines", _baselines_findings(True, "wmt19"))
    assert "WMT19 newstest2019 sources, references and system outputs for de-en," in text
    assert "(in this run 3 of 10 for de-en)" in text
    assert "* TER reproduces the paper's row to all three decimals in every setting." in text
    assert "So the paper's BLEU is sacreBLEU" not in text  # both BLEUs reproduce it here: no claim which
    assert "* chrF is not in the paper" in text and "The paper ran the Java METEOR" not in text  # no METEOR here
    assert ("these correlations are negative: de-en top30: BLEU, BLEU (intl), TER, chrF (all three statistics "
            "unless named). The most negative Kendall $\\tau$ is -0.400, tied: all 4 metrics on de-en (top30)") in text
    assert "* de-en, all 10 systems, Pearson $r$: chrF is highest (+0.900); it correlates better than BLEU (+0.850, p = 0.010)." in text
    assert "Of the 1 comparisons of a metric with the highest one (1 settings" in text
    assert "1 is significant at 5%" in text
    assert "The meta-evaluation reproduces the paper's TER and BLEU (intl) and BLEU rows **exactly**" in text
    assert "Data: wmt19 de-en from the WMT19 news and metrics tasks" in text
    assert "$p_1$ = 5/9, $p_2$ = 3/7" in text and "= 24.50" in text


def test_baselines_words_on_another_test_set_and_an_undefined_correlation():
    text = page("wmt19_baselines", _baselines_findings(False, "wmt18", undefined=True))
    assert ("* The paper's Table 1 covers WMT19 en-de and de-en only; this run (wmt18, de-en) has none of its rows"
            in text)
    assert "TER reproduces" not in text and "`13a` tokenisation" not in text
    assert "* de-en, all 10 systems, Pearson $r$: no correlation is defined." in text
    assert ("This run (wmt18, de-en) has no row that reproduces a printed number of the paper (the paper's Table 1 "
            "is WMT19 en-de and de-en).") in text
    assert not re.search(r"\bnan\b", text)


def _otem_findings(n_refs: int, with_original: bool) -> dict:
    st = pd.DataFrame([("s1", "Otem", 2, 2, 3, "better than most"), ("s1", "Utem", 1, 1, 3, "worse than most"),
                       ("wmt21.tedtalks zh-en: refA vs refB", "Otem", 1, 2, 3, "among")],
                      columns=["setting", "metric", "lowest", "highest", "systems", "standing"])
    st = st if with_original else st.iloc[:2]
    ted_corr = pd.DataFrame([("x", "Addition", "OTEM-2", 0.5, 0.1, 0.8, 13), ("x", "Addition", "BLEU", 0.1, -0.3, 0.4, 13)],
                            columns=["lp", "errors", "metric", "agreement r", "low", "high", "errors counted"])
    tests = pd.DataFrame([("x", "Addition", "OTEM-2", 0.4, math.nan, 1, 3)],
                         columns=["lp", "errors", "metric", "gap", "p", "fewest", "most"])
    versus = pd.concat({"OTEM-2": pd.DataFrame({"gap": [0.2, 0.6], "tie": [0.02, 0.5], "p": [0.01, 0.02]},
                                               index=["r", "τ"])}, names=["metric", "statistic"])
    table = pd.DataFrame({"OTEM-2": [1.0, 2.0], "OTEM-2 (authors)": [2.0, 4.5], "UTEM-4": [10.0, 20.0],
                          "UTEM-4 (authors)": [30.0, 60.0]})
    return dict(data_line="wmt19 en-de from somewhere", has_original=with_original,
                standing=otem_utem.standing_by_setting(st), fig2=otem_utem.fig2_findings(st),
                utem_direction=[{"setting": "s1", "mt": "rises", "human": "falls"}], mqm_sets=["x"], n_permutations=1000,
                seed=1, agreements=[],
                errors=otem_utem.error_totals(ted_corr), mqm=otem_utem.mqm_findings(ted_corr, tests),
                mqm_summary=otem_utem.mqm_summary(ted_corr, tests),
                table_desc={"n_systems": 2, "table_set": "wmt19 en-de", "refs": ["ref"] * n_refs},
                rho={"bleu_otem": -0.5, "bleu_utem": -0.25, "otem_utem": 0.1}, n_rank_gap=0,
                biggest_move={"system": "a", "places": 1}, variant=otem_utem.variant_findings(table, n_refs),
                n_table_systems=2, otem_iqr=[1.0, 2.0], r_human=[{"metric": "BLEU", "value": 0.9}],
                tau_human=[{"metric": "BLEU", "value": 0.8}],
                without_lowest={"system": "a", "z": -1.0, "baseline": 20.0, "next_z": -0.5,
                                "r": [{"metric": "BLEU", "value": 0.5}]},
                versus=otem_utem.versus_findings(versus), ex_otem_aab=1 / 3, ex_utem_aab=1 / 3, ex_utem_short=1.5878)


def test_otem_utem_words_with_one_reference_an_original_and_an_untested_analysis():
    text = page("otem_utem", _otem_findings(1, True))
    assert "For TED zh-en the \"human translation\" `refA` is the English original" in text
    assert ("Otem: the human translation is ahead of most MT systems at every $n$ (ahead of 2 of 3 for s1). Utem: the "
            "human translation is behind most MT systems at every $n$ (ahead of 1 of 3 for s1). Not a test of the "
            "metrics, the \"human translation\" being the original the source was translated from: wmt21.tedtalks "
            "zh-en: refA vs refB (Otem ahead of 1–2 of 3)") in text
    assert "* x, additions (1–3 per system): " in text and "OTEM-2 was not tested against BLEU (no correlation is defined)" in text
    assert "no analysis was tested against BLEU" in text
    assert "With one reference, as in this run, the authors' script and the paper's equations give the same numbers" in text
    assert "scored against 1 reference (`ref`)" in text
    assert ("OTEM-2 agrees with the human score more than BLEU on both r and τ (by 0.200 and 0.600; PERM-BOTH "
            "p = 0.010 and p = 0.020)") in text
    assert not re.search(r"\bnan\b", text)


def test_otem_utem_words_with_several_references_and_no_original():
    text = page("otem_utem", _otem_findings(2, False))
    assert "English original" not in text and "Not a test of the metrics" not in text
    assert ("With 2 references the authors' variant makes OTEM-2 2.1 times as large (median over systems; the largest "
            "difference is 2.50 points) and UTEM-4 3.0 times as large") in text
    assert "scored against 2 references (`ref`, `ref`)" in text
