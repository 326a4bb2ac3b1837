"""The WMT19 baselines chapter's sentences and comparisons, on small hand-computed tables."""

import math

import numpy as np
import pandas as pd
import pytest

from mtlib import baselines_study as study

METRICS = ["BLEU", "BLEU (intl)", "TER"]


def _table1(values=None, deltas=None, paper=True):
    """A long Table 1 frame: one lp (en-de), subsets all/top30, stats r/tau/rho."""
    rows = []
    for subset in ["all", "top30"]:
        for m in METRICS:
            for stat in ["r", "tau", "rho"]:
                v = (values or {}).get((subset, m, stat), 0.5)
                d = (deltas or {}).get(m, 0.0)
                rows.append(dict(lp="en-de", subset=subset, metric=m, stat=stat, value=v,
                                 paper=abs(v) if paper else np.nan, delta=d if paper else np.nan))
    return pd.DataFrame(rows)


# -- beside the paper's Table 1 ---------------------------------------------------------------

def test_signed_value_and_paper_verdict():
    t = _table1({("top30", "BLEU", "r"): -0.25}, deltas={"BLEU": -0.133, "TER": 0.0})
    assert study.signed_value(t, "en-de", "top30", "BLEU") == -0.25
    assert math.isnan(study.signed_value(t, "de-en", "top30", "BLEU"))
    assert study.paper_verdict(t, "TER", METRICS, "wmt19", ["en-de"]) == (
        "TER reproduces the paper's row to all three decimals in every setting")
    assert study.paper_verdict(t, "BLEU", METRICS, "wmt19", ["en-de"]) == "BLEU differs from the paper by up to 0.133"
    assert study.paper_verdict(t, "METEOR", METRICS, "wmt19", ["en-de"]) == "METEOR was not run"
    assert study.paper_verdict(_table1(paper=False), "TER", METRICS, "wmt18", ["en-de", "cs-en"]) == (
        "the paper has no TER values for wmt18 en-de, cs-en to compare with")


def _tok(best, p, verdict, n_permutations=1000, seed=7):
    other = "BLEU (intl)" if best == "BLEU" else "BLEU"
    df = pd.DataFrame([dict(metric=best, best=best, p=np.nan, verdict="highest"),
                       dict(metric=other, best=best, p=p, verdict=verdict)])
    df.attrs.update(n_permutations=n_permutations, seed=seed)
    return df


def test_tokenisation_sentence_gives_each_pair_its_p_value():
    t = pd.concat([_table1({("top30", "BLEU", "r"): 0.30, ("top30", "BLEU (intl)", "r"): 0.10}),
                   _table1({("top30", "BLEU", "r"): -0.50, ("top30", "BLEU (intl)", "r"): -0.45}).assign(lp="de-en")])
    base = ("The two tokenisations' signed $r$ on the top 30% differ by 0.200 (en-de), 0.050 (de-en); these are "
            "differences of the unrounded values, which can differ by 0.001 from those of the rounded ones in the table.")
    assert study.tokenisation_sentence(t, ["en-de", "de-en"]) == " " + base
    tests = {"en-de": _tok("BLEU", 0.01, "better"), "de-en": _tok("BLEU (intl)", 0.3, "not significant")}
    text = study.tokenisation_sentence(t, ["en-de", "de-en"], tests, labels={"BLEU": "`13a`", "BLEU (intl)": "`intl`"})
    assert text == (" " + base + " The higher signed $r$ belongs to `13a` on en-de (p = 0.010: significant at 5%) and "
                    "`intl` on de-en (p = 0.300: not significant at 5%) (PERM-BOTH, one-sided, 1,000 permutations, "
                    "seed 7).")


def test_negative_signs_names_each_negative_and_the_tied_most_negative_tau():
    assert study.negative_signs(_table1(), METRICS).startswith("* Every oriented correlation is positive")
    neg = {("top30", m, s): -0.548 if s == "tau" else -0.2 for m in METRICS for s in ["r", "tau", "rho"]}
    neg[("top30", "TER", "r")] = 0.1  # TER negative in tau and rho only
    text = study.negative_signs(_table1(neg), METRICS)
    assert text == ("* **Absolute values would hide a sign.** Oriented so that positive means agreement with humans, "
                    "these correlations are negative: en-de top30: BLEU, BLEU (intl), TER (tau, rho) (all three "
                    "statistics unless named). The most negative Kendall $\\tau$ is -0.548, tied: all 3 metrics on "
                    "en-de (top30) have it: they order those systems mostly *against* the human order, which "
                    "$|\\tau| = 0.548$ would read as agreement.")
    one = study.negative_signs(_table1({("all", "TER", "tau"): -0.1}), METRICS)
    assert one.endswith("TER on en-de (all): that metric orders those systems mostly *against* the human order, which "
                        "$|\\tau| = 0.100$ would read as agreement.")


def test_what_matches_with_and_without_the_paper():
    t = _table1(deltas={"BLEU": 0.05, "BLEU (intl)": 0.0, "TER": 0.0})
    text = study.what_matches(t, METRICS, "wmt19", ["en-de"])
    lines = text.split("\n")
    assert lines[0] == ("* TER reproduces the paper's row to all three decimals in every setting. TER is sacrebleu's "
                        "default (tercom tokens, case-insensitive).")
    assert lines[1].startswith("* With sacrebleu's default `13a` tokenisation, BLEU differs from the paper by up to "
                               "0.050; with its `intl` tokeniser")
    assert "So the paper's BLEU is sacreBLEU with `tokenize=intl`" in lines[1]
    assert lines[2].startswith("* Every oriented correlation is positive") and len(lines) == 3
    none = study.what_matches(_table1(paper=False), METRICS + ["METEOR", "chrF"], "wmt18", ["en-de"])
    assert none.split("\n")[0] == ("* The paper's Table 1 covers WMT19 en-de and de-en only; this run (wmt18, en-de) "
                                   "has none of its rows, so nothing here is compared with it.")
    assert "* The paper ran the Java METEOR 1.5" in none and "* chrF is not in the paper" in none
    assert "So the paper's BLEU" not in none and "TER reproduces" not in none


def test_top_counts():
    ten = {f"s{i}": float(i) for i in range(10)}
    twenty = {f"s{i}": float(i) for i in range(20)}
    assert study.top_counts({"a": ten, "b": twenty}, 0.3) == "3–6"
    assert study.top_counts({"a": ten, "b": dict(ten)}, 0.3) == "3"


# -- which metric agrees best ----------------------------------------------------------------

def test_pairwise_accuracy_table_counts_agreeing_pairs_and_pools_them():
    human = {"a": 3.0, "b": 2.0, "c": 1.0, "d": None}
    # good orders a > c > b: pairs (a,b) and (a,c) agree, (b,c) does not -> 2/3; top 2 (a, b): 1/1
    oriented = {"x": {"good": {"a": 9, "b": 1, "c": 5, "d": 0}, "flat": {"a": 1, "b": 1, "c": 1, "d": 1}},
                "y": {"good": {"p": 1, "q": 2}, "flat": {"p": 0, "q": 0}}}
    humans = {"x": human, "y": {"p": 1.0, "q": 2.0}}
    subsets = {"x": {"all": None, "top": ["a", "b"]}, "y": {"all": None, "top": ["p", "q"]}}
    acc = study.pairwise_accuracy_table(oriented, humans, subsets)
    assert list(acc.columns) == [("x", "all"), ("x", "top"), ("y", "all"), ("y", "top"), ("pooled", "all"),
                                 ("pooled", "top")]
    assert acc.loc["good", ("x", "all")] == pytest.approx(2 / 3)
    assert acc.loc["good", ("x", "top")] == 1.0
    assert acc.loc["flat", ("x", "all")] == 0.0  # a metric tie agrees only with a human tie
    assert acc.loc["good", ("pooled", "all")] == pytest.approx(3 / 4)  # (2 + 1) of (3 + 1) pairs
    assert acc.attrs["pairs"] == {("x", "all"): 3, ("x", "top"): 1, ("y", "all"): 1, ("y", "top"): 1,
                                  ("pooled", "all"): 4, ("pooled", "top"): 2}
    single = study.pairwise_accuracy_table({"x": oriented["x"]}, humans, subsets)
    assert [c[0] for c in single.columns] == ["x", "x"]  # no pooled column for one language pair


def test_tie_margin_and_comparison_verdict():
    assert study.tie_margin("r", 4) == 0.02
    assert study.tie_margin("tau", 4) == pytest.approx(0.5)  # 1.5 pairs of C(4,2) = 6: 1.5 * 2/6
    assert study.tie_margin("tau", 6) == pytest.approx(0.2)
    v = study.comparison_verdict
    assert v(0.0, 1.0, 0.02) == "tied"
    assert v(0.02, 0.5, 0.02) == "about as much"  # the margin is inclusive
    assert v(0.01, 0.03, 0.02) == "about as much, p < 0.05"
    assert v(0.1, 0.049, 0.02) == "better"
    assert v(0.1, 0.05, 0.02) == "not significant"  # p must be below 0.05
    assert v(0.1, float("nan"), 0.02) == "not defined"
    assert v(float("nan"), 0.01, 0.02) == "not defined"


def test_versus_best_tests_every_metric_against_the_highest():
    human = {f"s{i}": float(i) for i in range(8)}
    scores = {"rev": {s: -v for s, v in human.items()}, "same": dict(human),
              "copy": dict(human), "flat": {s: 1.0 for s in human}}
    df = study.versus_best(scores, human, "r", n_permutations=1000, seed=0)
    assert list(df.metric) == ["rev", "same", "copy", "flat"]
    assert (df.best == "same").all()  # the first of the two equal highest
    row = df.set_index("metric")
    assert row.loc["same", "verdict"] == "highest" and math.isnan(row.loc["same", "p"])
    assert row.loc["rev", "value"] == pytest.approx(-1.0) and row.loc["rev", "gap"] == pytest.approx(2.0)
    # r = 1 against r = -1: only the identity swap of 2^8 reaches the observed gap, so p is about 1/256
    assert row.loc["rev", "p"] < 0.02 and row.loc["rev", "verdict"] == "better"
    assert row.loc["copy", "p"] == 1.0 and row.loc["copy", "verdict"] == "tied"
    assert math.isnan(row.loc["flat", "p"]) and row.loc["flat", "verdict"] == "not defined"  # constant: no test
    assert (df.n == 8).all() and df.attrs == {"n_permutations": 1000, "seed": 0}
    top = study.versus_best({"a": scores["same"], "b": scores["rev"]}, human, "tau", systems=["s7", "s6", "s5"])
    assert list(top.value.round(6)) == [1.0, -1.0] and (top.n == 3).all()
    # three systems: the observed order is one of 8 swap patterns, so p cannot be below about 1/8
    assert top.verdict.iloc[1] == "not significant" and top.p.iloc[1] > 0.05


def _tests(rows, stat="r"):
    df = pd.DataFrame([dict(metric=m, value=v, best="A", gap=1 - v if v == v else np.nan, p=p, n=10, verdict=w)
                       for m, v, p, w in rows])
    df.attrs.update(n_permutations=1000, seed=1)
    return df


def test_versus_best_sentence_groups_the_verdicts_and_gives_every_p():
    df = _tests([("A", 1.0, np.nan, "highest"), ("B", 0.5, 0.0, "better"), ("C", 0.6, 0.2, "not significant"),
                 ("D", 0.7, 0.3, "not significant"), ("E", 0.99, 0.4, "about as much"),
                 ("F", 0.985, 0.01, "about as much, p < 0.05"), ("G", np.nan, np.nan, "not defined")])
    assert study.versus_best_sentence(df, "r", "xx, all 10 systems") == (
        "xx, all 10 systems, Pearson $r$: A is highest (+1.000); it correlates better than B (+0.500, p < 0.001); "
        "it is above C (+0.600, p = 0.200) and D (+0.700, p = 0.300), but not significantly at 5%; it agrees about "
        "as much as E (+0.990, p = 0.400), within 0.02 in $r$; it is within 0.02 in $r$ of F (+0.985, p = 0.010), "
        "which this chapter calls about as much, though the permutation test finds that small difference "
        "significant at 5%; its comparison with G (+nan, p not defined) is not defined")
    tied = _tests([("A", -0.5, np.nan, "highest"), ("B (x)", -0.5, 1.0, "tied"), ("C", -0.9, 0.2, "not significant"),
                   ("D", -0.5, 0.5, "tied")])
    assert study.versus_best_sentence(tied, "tau", "yy") == (
        "yy, Kendall $\\tau$: A ties for the highest (-0.500) with B (x) and D; it is above C (-0.900, p = 0.200), but "
        "not significantly at 5%")
    assert "less than 1.5 swapped pairs apart in $\\tau$" in study.versus_best_sentence(
        _tests([("A", 0.5, np.nan, "highest"), ("B", 0.4, 0.5, "about as much")]), "tau", "zz")
    all_tied = _tests([("A", -0.5, np.nan, "highest"), ("B", -0.5, 1.0, "tied")])
    assert study.versus_best_sentence(all_tied, "tau", "yy") == (
        "yy, Kendall $\\tau$: all 2 metrics have the same value (-0.500), so none is higher")


def test_comparison_bullets_and_significance_summary():
    a = _tests([("A", 1.0, np.nan, "highest"), ("B", 0.5, 0.01, "better")]).assign(lp="en-de", subset="all", stat="r")
    b = _tests([("A", 0.2, np.nan, "highest"), ("B", 0.2, 1.0, "tied"), ("C", 0.1, 0.3, "not significant"),
                ("D", 0.19, 0.3, "about as much")]).assign(lp="en-de", subset="top30", stat="tau", n=6)
    tests = pd.concat([a, b], ignore_index=True)
    bullets = study.comparison_bullets(tests).split("\n")
    assert bullets[0] == ("* en-de, all 10 systems, Pearson $r$: A is highest (+1.000); it correlates better than B "
                          "(+0.500, p = 0.010).")
    assert bullets[1].startswith("* en-de, top 30% (6 systems), Kendall $\\tau$: A ties for the highest (+0.200) with B")
    assert study.significance_summary(tests) == (
        "Of the 4 comparisons of a metric with the highest one (2 settings: language pair, systems and statistic), "
        "1 is significant at 5% and beyond the \"about as much\" margin; 1 is not significant, 1 lies within the "
        "margin and 1 is an exact tie")


# -- the paper's Table 2 and Figure 2 --------------------------------------------------------

def _table2(ours_bleu, paper_bleu, ours_ter, paper_ter):
    top = ["s1", "s2", "s3"]
    return pd.DataFrame({("BLEU", "ours"): ours_bleu, ("BLEU", "paper"): paper_bleu,
                         ("TER", "ours"): ours_ter, ("TER", "paper"): paper_ter}, index=top), top


def test_table2_sentence():
    human = {"s1": 0.30, "s2": 0.25, "s3": 0.10}
    t, top = _table2([0.30, 0.40, 0.20], [0.30, 0.40, 0.20], [0.60, 0.50, 0.70], [0.61, 0.50, 0.70])
    text = study.table2_sentence(t, {"BLEU": True, "TER": False}, human, top)
    # both put s2 first (highest BLEU, lowest TER); humans rank it 2 of 3, 0.050 below s1, 0.150 above s3
    assert text == ("BLEU equal the paper's printed scores to four decimals, so their ranks and "
                    "$\\Sigma|\\Delta\\text{rank}|$ agree too. All 2 metrics of Table 2 (BLEU, TER) put s2 first; "
                    "humans rank it number 2 of 3, 0.050 to 0.050 below the 1 system they rank higher and within "
                    "0.150 of the 1 they rank lower. The 3 human z-scores run from 0.300 to 0.100 and carry no "
                    "interval here: the metrics order these strong systems differently from the human scores, and "
                    "this table cannot say which order is right.")
    t, top = _table2([0.5, 0.4, 0.2], [0.1, 0.1, 0.1], [0.6, 0.5, 0.7], [0.1, 0.1, 0.1])
    assert study.table2_sentence(t, {"BLEU": True, "TER": False}, human, top) == (
        "None of our scores equals the paper's printed ones to four decimals.")  # s1 and s2 first: no common system
    t, top = _table2([0.5, 0.4, 0.2], [0.1, 0.1, 0.1], [0.4, 0.5, 0.7], [0.1, 0.1, 0.1])
    assert study.table2_sentence(t, {"BLEU": True, "TER": False}, human, top).endswith(
        "put s1 first; humans rank it number 1 of 3.")


def _curves():
    rows = [("en-de", 3, "A", -0.3), ("en-de", 3, "B", -0.1), ("en-de", 4, "A", -0.2), ("en-de", 4, "B", 0.1),
            ("en-de", 5, "A", 0.6), ("en-de", 5, "B", 0.7), ("de-en", 3, "A", 0.3), ("de-en", 3, "B", 0.4),
            ("de-en", 4, "A", 0.5), ("de-en", 4, "B", 0.45)]
    return pd.DataFrame(rows, columns=["lp", "k", "metric", "value"])


def test_negative_turns_and_full_range():
    assert study.negative_turns(_curves(), 2) == "en-de, K = 3: all 2 metrics; K = 4: A. de-en, no metric at any K"
    # all systems: en-de K = 5, de-en K = 4
    assert study.full_range(_curves()) == ("every metric's $\\tau$ is positive, from 0.450 (B, de-en) to 0.700 "
                                           "(B, en-de)")
    neg = _curves().assign(value=lambda d: d.value.where(~((d.k == 4) & (d.lp == "de-en") & (d.metric == "B")), -0.1))
    assert study.full_range(neg).startswith("not every metric's $\\tau$ is positive, from -0.100 (B, de-en)")


# -- bootstrap intervals and the summary -----------------------------------------------------

def _boot():
    rows = [("en-de", "top30", "A", -0.4, 0.4), ("en-de", "top30", "B", 0.2, 0.6),
            ("en-de", "all", "A", 0.5, 0.6), ("en-de", "all", "B", 0.5, 0.7),
            ("de-en", "top30", "A", -0.5, -0.5), ("de-en", "top30", "B", -0.5, 0.0),
            ("de-en", "all", "A", 0.4, 0.5), ("de-en", "all", "B", 0.4, 0.5)]
    df = pd.DataFrame(rows, columns=["lp", "subset", "metric", "low", "high"]).assign(method="kendall")
    return pd.concat([df, df.assign(method="pearson", low=-1.0, high=1.0)], ignore_index=True)


def test_interval_widths_and_by_lp():
    w = study.interval_widths(_boot())
    assert w["top30_mean_width"] == pytest.approx((0.8 + 0.4 + 0.0 + 0.5) / 4)
    assert w["all_mean_width"] == pytest.approx((0.1 + 0.2 + 0.1 + 0.1) / 4)
    assert w["top30_cover_zero"] == "2 of 4"  # en-de A and de-en B (its high end is 0)
    assert study.interval_by_lp(_boot()) == (
        "en-de: mean width 0.60 (all systems: 0.15), 1 of 2 contain zero; de-en: mean width 0.25 (all systems: 0.10), "
        "1 of 2 contain zero, 1 of 2 have zero width (A)")
    assert study.interval_by_lp(_boot(), short=True) == (
        "en-de: mean width 0.60 against 0.15 over all systems; de-en: mean width 0.25 against 0.10 over all systems, "
        "and 1 of 2 intervals of zero width")


def test_top_human_range_and_summary_repro():
    humans = {"en-de": {f"s{i}": i / 10 for i in range(10)}, "de-en": {f"s{i}": -i / 100 for i in range(7)}}
    # top 30%: en-de 3 of 10 (0.9, 0.8, 0.7), de-en 2 of 7 (0.00, -0.01)
    assert study.top_human_range(humans, 0.3) == "en-de: 0.900 to 0.700; de-en: 0.000 to -0.010"
    t = _table1(deltas={"BLEU": 0.05, "BLEU (intl)": 0.0, "TER": 0.0})
    assert study.summary_repro(t, METRICS, "wmt19", ["en-de"], "wmt19") == (
        "The meta-evaluation reproduces the paper's TER and BLEU (intl) rows **exactly** in this run (BLEU with "
        "sacreBLEU's `intl` tokenisation, which the paper does not state).")
    assert study.summary_repro(t, ["BLEU"], "wmt19", ["en-de"], "wmt19") == (
        "This run (wmt19, en-de) has no row that reproduces a printed number of the paper.")
    assert study.summary_repro(_table1(paper=False), METRICS, "wmt18", ["en-de"], "wmt19") == (
        "This run (wmt18, en-de) has no row that reproduces a printed number of the paper (the paper's Table 1 is "
        "WMT19 en-de and de-en).")


def test_top_ties_names_the_pairs_whose_top_systems_share_a_human_score():
    humans = {"de-en": {"a": 0.4, "b": 0.3, "c": 0.3, "d": 0.1, "e": -0.2, "f": -0.5, "g": -0.6, "h": -0.9,
                        "i": -1.0, "j": -1.1, "k": -1.2, "l": -1.3, "m": -1.4, "n": None},
              "en-de": {"a": 0.3, "b": 0.2, "c": 0.1, "d": 0.0}}
    assert study.top_ties(humans, 0.3) == "de-en's top 3 systems include two with the same human score"
    assert study.top_ties({"x": {"a": 1.0, "b": 1.0, "c": 0.0, "d": 0.0}}, 1.0) == (
        "x's top 4 systems include 4 that share their human score with another")
    assert study.top_ties({"en-de": humans["en-de"]}, 1.0) == "no top group of this run has tied human scores"
