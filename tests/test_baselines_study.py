"""The WMT19 baselines chapter's findings and comparisons (data, not words), on small hand-computed tables."""

import math

import numpy as np
import pandas as pd
import pytest

from mtbook.studies import baselines as study

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

def test_signed_value_and_paper_matches():
    t = _table1({("top30", "BLEU", "r"): -0.25}, deltas={"BLEU": -0.133, "TER": 0.0})
    assert study.signed_value(t, "en-de", "top30", "BLEU") == -0.25
    assert math.isnan(study.signed_value(t, "de-en", "top30", "BLEU"))
    m = study.paper_matches(t, METRICS)
    assert m["TER"] == study.PaperMatch("TER", True, True, 0.0)
    assert m["BLEU"].max_delta == pytest.approx(0.133) and "METEOR" not in m
    assert study.reproduced(m) == ["TER", "BLEU (intl)"]
    assert study.paper_matches(_table1(paper=False), ["TER"])["TER"] == study.PaperMatch("TER", True, False, None)


def _tok(best, p, verdict, n_permutations=1000, seed=7):
    other = "BLEU (intl)" if best == "BLEU" else "BLEU"
    df = pd.DataFrame([dict(metric=best, best=best, p=np.nan, verdict="highest"),
                       dict(metric=other, best=best, p=p, verdict=verdict)])
    df.attrs.update(n_permutations=n_permutations, seed=seed)
    return df


def test_tokenisation_gaps_give_each_pair_its_p_value():
    t = pd.concat([_table1({("top30", "BLEU", "r"): 0.30, ("top30", "BLEU (intl)", "r"): 0.10}),
                   _table1({("top30", "BLEU", "r"): -0.50, ("top30", "BLEU (intl)", "r"): -0.45}).assign(lp="de-en")])
    gaps = study.tokenisation_gaps(t, ["en-de", "de-en"])
    assert [(g.lp, round(g.gap, 6), g.higher) for g in gaps] == [("en-de", 0.2, None), ("de-en", 0.05, None)]
    tests = {"en-de": _tok("BLEU", 0.01, "better"), "de-en": _tok("BLEU (intl)", float("nan"), "not defined")}
    en, de = study.tokenisation_gaps(t, ["en-de", "de-en"], tests)
    assert (en.higher, en.p, en.verdict) == ("BLEU", 0.01, study.Verdict.BETTER)
    assert (de.higher, de.p, de.verdict) == ("BLEU (intl)", None, study.Verdict.NOT_DEFINED)


def test_negative_signs_finds_each_negative_and_the_tied_most_negative_tau():
    assert study.negative_signs(_table1(), METRICS) == study.Negatives()
    neg = {("top30", m, s): -0.548 if s == "tau" else -0.2 for m in METRICS for s in ["r", "tau", "rho"]}
    neg[("top30", "TER", "r")] = 0.1  # TER negative in tau and rho only
    found = study.negative_signs(_table1(neg), METRICS)
    assert found.groups == [{"lp": "en-de", "subset": "top30", "metrics": [
        {"metric": "BLEU", "stats": []}, {"metric": "BLEU (intl)", "stats": []},
        {"metric": "TER", "stats": ["tau", "rho"]}]}]
    assert found.min_tau == -0.548 and found.n_tied == 3
    assert found.holders == [{"lp": "en-de", "subset": "top30", "metrics": METRICS, "all": True}]
    one = study.negative_signs(_table1({("all", "TER", "tau"): -0.1}), METRICS)
    assert one.n_tied == 1 and one.holders == [{"lp": "en-de", "subset": "all", "metrics": ["TER"], "all": False}]


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
    assert v(0.0, 1.0, 0.02) is study.Verdict.TIED
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


def test_comparison_groups_and_verdict_counts():
    a = _tests([("A", 1.0, np.nan, "highest"), ("B", 0.5, 0.01, "better")]).assign(lp="en-de", subset="all", stat="r")
    b = _tests([("A", 0.2, np.nan, "highest"), ("B", 0.2, 1.0, "tied"), ("C", 0.1, 0.3, "not significant"),
                ("D", 0.19, 0.3, "about as much")]).assign(lp="en-de", subset="top30", stat="tau", n=6)
    c = _tests([("A", -0.5, np.nan, "highest"), ("B", -0.5, 1.0, "tied")]).assign(lp="de-en", subset="all", stat="r")
    tests = pd.concat([a, b, c], ignore_index=True)
    first, second, third = study.comparison_groups(tests)
    assert (first.lp, first.subset, first.n, first.stat, first.best, first.value) == ("en-de", "all", 10, "r", "A", 1.0)
    assert first.by_verdict["better"] == [{"metric": "B", "value": 0.5, "p": 0.01}] and not first.all_tied
    assert second.n == 6 and [r["metric"] for r in second.by_verdict["tied"]] == ["B"]
    assert second.by_verdict["about as much"] == [{"metric": "D", "value": 0.19, "p": 0.3}]
    assert third.all_tied
    counts = study.verdict_counts(tests)
    assert counts == {"better": 1, "not significant": 1, "about as much": 1, "about as much, p < 0.05": 0,
                      "tied": 2, "not defined": 0, "comparisons": 5, "settings": 3, "within_margin": 1}


# -- the paper's Table 2 and Figure 2 --------------------------------------------------------

def _table2(ours_bleu, paper_bleu, ours_ter, paper_ter):
    top = ["s1", "s2", "s3"]
    return pd.DataFrame({("BLEU", "ours"): ours_bleu, ("BLEU", "paper"): paper_bleu,
                         ("TER", "ours"): ours_ter, ("TER", "paper"): paper_ter}, index=top), top


def test_table2_findings():
    human = {"s1": 0.30, "s2": 0.25, "s3": 0.10}
    t, top = _table2([0.30, 0.40, 0.20], [0.30, 0.40, 0.20], [0.60, 0.50, 0.70], [0.61, 0.50, 0.70])
    found = study.table2_findings(t, {"BLEU": True, "TER": False}, human, top)
    # both put s2 first (highest BLEU, lowest TER); humans rank it 2 of 3, 0.050 below s1, 0.150 above s3
    assert found.equal == ["BLEU"] and found.first == "s2" and found.human_rank == 2 and found.n_top == 3
    assert (found.n_above, found.n_below) == (1, 1)
    assert found.above_min == pytest.approx(0.05) and found.below_max == pytest.approx(0.15)
    assert (found.human_high, found.human_low) == (0.30, 0.10)
    t, top = _table2([0.5, 0.4, 0.2], [0.1, 0.1, 0.1], [0.6, 0.5, 0.7], [0.1, 0.1, 0.1])
    assert study.table2_findings(t, {"BLEU": True, "TER": False}, human, top) == study.Table2Findings([], ["BLEU", "TER"])
    t, top = _table2([0.5, 0.4, 0.2], [0.1, 0.1, 0.1], [0.4, 0.5, 0.7], [0.1, 0.1, 0.1])
    first = study.table2_findings(t, {"BLEU": True, "TER": False}, human, top)
    assert first.first == "s1" and first.human_rank == 1 and first.n_above == 0 and first.above_min is None


def _curves():
    rows = [("en-de", 3, "A", -0.3), ("en-de", 3, "B", -0.1), ("en-de", 4, "A", -0.2), ("en-de", 4, "B", 0.1),
            ("en-de", 5, "A", 0.6), ("en-de", 5, "B", 0.7), ("de-en", 3, "A", 0.3), ("de-en", 3, "B", 0.4),
            ("de-en", 4, "A", 0.5), ("de-en", 4, "B", 0.45)]
    return pd.DataFrame(rows, columns=["lp", "k", "metric", "value"])


def test_negative_turns_and_full_range():
    assert study.negative_turns(_curves(), 2) == [
        {"lp": "en-de", "turns": [{"k": 3, "metrics": ["A", "B"], "all": True}, {"k": 4, "metrics": ["A"], "all": False}]},
        {"lp": "de-en", "turns": []}]
    # all systems: en-de K = 5, de-en K = 4
    assert study.full_range(_curves()) == {"all_positive": True, "low": {"value": 0.45, "metric": "B", "lp": "de-en"},
                                           "high": {"value": 0.7, "metric": "B", "lp": "en-de"}}
    neg = _curves().assign(value=lambda d: d.value.where(~((d.k == 4) & (d.lp == "de-en") & (d.metric == "B")), -0.1))
    assert study.full_range(neg)["all_positive"] is False and study.full_range(neg)["low"]["value"] == -0.1


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
    assert (w["top30_cover_zero"], w["top30_n"]) == (2, 4)  # en-de A and de-en B (its high end is 0)
    en, de = study.intervals_by_lp(_boot())
    assert en["lp"] == "en-de" and en["width"] == pytest.approx(0.6) and en["width_all"] == pytest.approx(0.15)
    assert (en["cover_zero"], en["n"], en["zero_width"]) == (1, 2, [])
    assert de["width"] == pytest.approx(0.25) and (de["cover_zero"], de["zero_width"]) == (1, ["A"])


def test_top_human_ranges():
    humans = {"en-de": {f"s{i}": i / 10 for i in range(10)}, "de-en": {f"s{i}": -i / 100 for i in range(7)}}
    # top 30%: en-de 3 of 10 (0.9, 0.8, 0.7), de-en 2 of 7 (0.00, -0.01)
    assert study.top_human_ranges(humans, 0.3) == [{"lp": "en-de", "high": 0.9, "low": 0.7},
                                                   {"lp": "de-en", "high": 0.0, "low": -0.01}]


def test_top_groups_count_the_top_systems_that_share_a_human_score():
    humans = {"de-en": {"a": 0.4, "b": 0.3, "c": 0.3, "d": 0.1, "e": -0.2, "f": -0.5, "g": -0.6, "h": -0.9,
                        "i": -1.0, "j": -1.1, "k": -1.2, "l": -1.3, "m": -1.4, "n": None},
              "en-de": {"a": 0.3, "b": 0.2, "c": 0.1, "d": 0.0}}
    assert study.top_groups(humans, 0.3) == [study.TopGroup("de-en", 3, 13, 2), study.TopGroup("en-de", 1, 4, 0)]
    assert study.top_groups({"x": {"a": 1.0, "b": 1.0, "c": 0.0, "d": 0.0}}, 1.0) == [study.TopGroup("x", 4, 4, 4)]
