"""The WMT19 baselines chapter's findings and comparisons (data, not words), on small hand-computed tables:
the comparisons are one family, two-sided PERM-BOTH, Holm-adjusted together (mtbook.comparisons)."""

import math

import numpy as np
import pandas as pd
import pytest

from mtbook import comparisons
from mtbook.studies import baselines as study
from mtlib.significance import Verdict

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
    assert m["TER"] == study.PaperMatch("TER", True, True, 0.0, 6, 6)  # 6 printed values, all reproduced
    assert m["BLEU"].max_delta == pytest.approx(0.133) and (m["BLEU"].n_values, m["BLEU"].n_equal) == (6, 0)
    assert "METEOR" not in m
    assert study.reproduced(m) == ["TER", "BLEU (intl)"]
    assert study.paper_matches(_table1(paper=False), ["TER"])["TER"] == study.PaperMatch("TER", True, False, None, 0, 0)


def test_tokenisation_gaps_take_the_two_bleus_comparison_from_the_page_family():
    t = pd.concat([_table1({("top30", "BLEU", "r"): 0.30, ("top30", "BLEU (intl)", "r"): 0.10}),
                   _table1({("top30", "BLEU", "r"): -0.50, ("top30", "BLEU (intl)", "r"): -0.45}).assign(lp="de-en")])
    gaps = study.tokenisation_gaps(t, ["en-de", "de-en"])
    assert [(g.lp, round(g.gap, 6), g.higher, g.comparison) for g in gaps] == [("en-de", 0.2, None, None),
                                                                              ("de-en", 0.05, None, None)]
    human = {f"s{i}": float(i) for i in range(6)}
    bleus = {"BLEU": dict(human), "BLEU (intl)": {**human, "s0": 1.0, "s1": 0.0}}
    rows = study.page_family([study.versus_highest(bleus, human, "r", lp="en-de", subset="top30", seed=1)])
    en, de = study.tokenisation_gaps(t, ["en-de", "de-en"], rows)
    assert en.higher == "BLEU" and en.comparison == rows[0] and (en.comparison.a, en.comparison.b) == ("BLEU (intl)", "BLEU")
    assert de.comparison is None and de.higher is None  # no test of de-en in this family


def test_negative_signs_finds_each_negative_and_the_tied_most_negative_tau():
    assert study.negative_signs(_table1(), METRICS) == study.Negatives(n_values=18)
    neg = {("top30", m, s): -0.548 if s == "tau" else -0.2 for m in METRICS for s in ["r", "tau", "rho"]}
    neg[("top30", "TER", "r")] = 0.1  # TER negative in tau and rho only
    found = study.negative_signs(_table1(neg), METRICS)
    assert found.groups == [{"lp": "en-de", "subset": "top30", "metrics": [
        {"metric": "BLEU", "stats": []}, {"metric": "BLEU (intl)", "stats": []},
        {"metric": "TER", "stats": ["tau", "rho"]}]}]
    assert found.min_tau == -0.548 and found.n_tied == 3
    assert found.holders == [{"lp": "en-de", "subset": "top30", "metrics": METRICS, "all": True}]
    assert (found.n_negative, found.n_values) == (8, 18)
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


def test_versus_highest_compares_every_metric_with_the_highest_two_sided():
    human = {f"s{i}": float(i) for i in range(8)}
    scores = {"rev": {s: -v for s, v in human.items()}, "same": dict(human),
              "copy": dict(human), "flat": {s: 1.0 for s in human}}
    h = study.versus_highest(scores, human, "r", lp="en-de", subset="all", n_permutations=1000, seed=0)
    assert h.best == "same" and h.value == pytest.approx(1.0) and h.n == 8  # the first of the two equal highest
    assert math.isnan(h.values["flat"]) and h.values["rev"] == pytest.approx(-1.0)
    tests = {a: (b, c) for a, b, c in h.tests}
    assert list(tests) == ["rev", "copy", "flat"] and all(b == "same" for b, _ in tests.values())
    rev, copy, flat = tests["rev"][1], tests["copy"][1], tests["flat"][1]
    # r = 1 against r = -1: two-sided, only "swap none" and "swap all" of 2^8 patterns reach |delta|: p about 2/256
    assert rev.alternative == "two-sided" and rev.delta == pytest.approx(2.0) and rev.p < 0.02
    assert rev.exact_floor == 2 ** -7 and rev.verdict() is Verdict.B_BETTER
    assert copy.p == 1.0 and copy.verdict() is Verdict.TIE
    assert math.isnan(flat.p) and flat.verdict() is Verdict.UNTESTED and "constant" in flat.reason
    top = study.versus_highest({"a": scores["same"], "b": scores["rev"]}, human, "tau", systems=["s7", "s6", "s5"])
    assert (top.best, round(top.value, 6), top.n) == ("a", 1.0, 3)
    # three systems: no two-sided p below 2^-2 = 0.25, so nothing can be significant
    assert top.tests[0][2].exact_floor == 0.25 and top.tests[0][2].p >= 0.2
    none = study.versus_highest({"x": scores["flat"], "y": scores["flat"]}, human, "r")
    assert none.best == "x" and math.isnan(none.value) and none.tests[0][2].verdict() is Verdict.UNTESTED


def _holm_case(seed=1):
    """Six systems: ``swapped`` orders every pair of neighbours the wrong way round, so only "swap
    none" and "swap all" reach its difference (raw p about 1/32 < 0.05); ``copy`` ties with the
    highest (p = 1, a test Holm counts); ``flat`` is constant: untested, not counted."""
    human = {f"s{i}": v for i, v in enumerate([0.0, 1.0, 2.0, 3.0, 5.0, 6.5])}
    scores = {"good": dict(human), "swapped": dict(zip(human, [1.0, 0.0, 3.0, 2.0, 6.5, 5.0])), "copy": dict(human),
              "flat": {s: 1.0 for s in human}}
    return study.versus_highest(scores, human, "r", lp="de-en", subset="all", n_permutations=4000, seed=seed)


def test_the_page_family_judges_on_the_holm_adjusted_p():
    h = _holm_case()
    rows = study.page_family([h])
    swapped, copy, flat = rows
    assert (swapped.a, swapped.b, swapped.stat, swapped.setting) == ("swapped", "good", "r", {"lp": "de-en", "subset": "all"})
    assert swapped.p == pytest.approx(0.03) and swapped.p < 0.05  # alone it would be significant
    assert swapped.p_holm == pytest.approx(2 * swapped.p) and swapped.p_holm > 0.05  # two tests: the tie counts
    assert swapped.verdict is Verdict.NOT_SHOWN
    assert copy.verdict is Verdict.TIE and copy.p == copy.p_holm == 1.0 and copy.delta == 0
    assert flat.verdict is Verdict.UNTESTED and math.isnan(flat.p_holm) and flat.n_units == 0
    counts = comparisons.family_counts(rows)
    assert (counts["comparisons"], counts["tests"], counts["raw_significant"]) == (3, 2, 1)
    assert (counts["no difference shown"], counts["tie"], counts["untested"], counts["B better"]) == (1, 1, 1, 0)
    # alone in its family (no tie beside it), the same p would be called significant
    alone = study.page_family([study.Highest(**{**vars(h), "tests": h.tests[:1]})])
    assert alone[0].p_holm == swapped.p and alone[0].verdict is Verdict.B_BETTER


def test_a_comparison_two_analyses_share_is_one_test():
    human = {f"s{i}": float(i) for i in range(6)}
    scores = {"BLEU": dict(human), "BLEU (intl)": {**human, "s0": 1.0, "s1": 0.0}, "TER": {**human, "s4": 9.0}}
    main = study.versus_highest(scores, human, "r", lp="en-de", subset="top30", seed=1)
    tok = study.versus_highest({m: scores[m] for m in ["BLEU", "BLEU (intl)"]}, human, "r", lp="en-de",
                               subset="top30", seed=1)
    tests = study.family_tests([main, tok])
    assert [(s["lp"], a, b, stat) for s, a, b, stat, _ in tests] == [("en-de", "BLEU (intl)", "BLEU", "r"),
                                                                     ("en-de", "TER", "BLEU", "r")]
    tau = study.versus_highest(scores, human, "tau", lp="en-de", subset="top30", seed=1)
    assert [stat for *_, stat, _ in study.family_tests([main, tau])] == ["r", "r", "τ", "τ"]  # another statistic: another test
    rows = study.page_family([main, tok])
    assert study.find(rows, "en-de", "top30", "r", "BLEU", "BLEU (intl)") is rows[0]
    assert study.find(rows, "en-de", "all", "r", "BLEU", "BLEU (intl)") is None


def test_setting_words_group_each_setting_by_its_verdict():
    h = _holm_case()
    tied = study.versus_highest({"a": {"s0": 1.0, "s1": 2.0, "s2": 3.0}, "b": {"s0": 0.0, "s1": 5.0, "s2": 7.0}},
                                {"s0": 0.1, "s1": 0.2, "s2": 0.3}, "tau", lp="en-de", subset="top30", seed=1)
    undefined = study.versus_highest({"x": {"s0": 1.0, "s1": 1.0, "s2": 1.0}, "y": {"s0": 2.0, "s1": 2.0, "s2": 2.0}},
                                     {"s0": 0.1, "s1": 0.2, "s2": 0.3}, "r", lp="en-de", subset="all", seed=1)
    rows = study.page_family([h, tied, undefined])
    first, second, third = study.setting_words([h, tied, undefined], rows)
    assert (first.lp, first.subset, first.n, first.stat, first.best) == ("de-en", "all", 6, "r", "good")
    assert first.value == pytest.approx(1.0)
    assert [r.a for r in first.by_verdict["no difference shown"]] == ["swapped"]
    assert [r.a for r in first.by_verdict["tie"]] == ["copy"] and [r.a for r in first.by_verdict["untested"]] == ["flat"]
    assert not first.all_tied and first.by_verdict["B better"] == []
    assert second.all_tied and second.value == pytest.approx(1.0) and [r.a for r in second.by_verdict["tie"]] == ["b"]
    assert third.value is None and not third.all_tied and [r.a for r in third.by_verdict["untested"]] == ["y"]


def test_floors_say_where_no_comparison_can_be_significant():
    h = _holm_case()
    rows = study.page_family([h])
    (f,) = comparisons.family_floors(rows, by=("lp", "subset"))
    # six systems: 2^-5 = 0.031 two-sided; the draws' own floor (none or all swapped) is 0.030 with this seed
    assert (f.setting, f.n, f.n_tests, f.exact) == ({"lp": "de-en", "subset": "all"}, 6, 2, 1 / 32)
    assert f.mc == pytest.approx(0.03) and f.above == 1  # the tie's p = 1
    assert f.holm == pytest.approx(0.06) and not f.possible  # at least 2 x 0.03 once Holm counts the tie
    big = study.versus_highest({"good": {f"s{i}": float(i) for i in range(12)},
                                "bad": {f"s{i}": float(-i) for i in range(12)}}, {f"s{i}": float(i) for i in range(12)},
                               "r", lp="en-de", subset="all", seed=1)
    (g,) = comparisons.family_floors(study.page_family([big]), by=("lp", "subset"))
    assert g.exact == 2 ** -11 and g.possible and g.above == 0
    three = study.versus_highest({"a": {"s0": 1.0, "s1": 2.0, "s2": 3.0}, "b": {"s0": 3.0, "s1": 1.0, "s2": 2.0}},
                                 {"s0": 0.1, "s1": 0.2, "s2": 0.3}, "r", lp="en-de", subset="top30", seed=1)
    (t,) = comparisons.family_floors(study.page_family([three]), by=("lp", "subset"))
    assert t.exact == 0.25 and not t.possible  # above 0.05 before any adjustment
    flat = study.versus_highest({"x": {"s0": 1.0, "s1": 1.0, "s2": 1.0}, "y": {"s0": 2.0, "s1": 2.0, "s2": 2.0}},
                                {"s0": 0.1, "s1": 0.2, "s2": 0.3}, "r", lp="en-de", subset="all", seed=1)
    assert comparisons.family_floors(study.page_family([flat]), by=("lp", "subset")) == []  # nothing tested: no floor to speak of


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


def test_accuracy_findings_pool_name_ties_and_count_pairs():
    humans = {lp: {f"s{i}": float(i) for i in range(4)} for lp in ("de-en", "en-de")}  # 6 pairs each
    up = {f"s{i}": float(i) for i in range(4)}
    oriented = {lp: {"A": up, "B": dict(up), "C": {**up, "s0": 5.0}} for lp in humans}  # C misorders 3 of 6
    acc = study.accuracy_findings(study.pairwise_accuracy_table(oriented, humans, {lp: {"all": None} for lp in humans}))
    each = {"pairs": 6, "best": ["A", "B"], "best_value": 1.0, "worst": ["C"], "worst_value": 0.5, "spread": 3}
    assert acc == [{"where": "de-en", "subset": "all", **each}, {"where": "en-de", "subset": "all", **each},
                   {"where": "pooled", "subset": "all", "pairs": 12, "best": ["A", "B"], "best_value": 1.0,
                    "worst": ["C"], "worst_value": 0.5, "spread": 6}]
