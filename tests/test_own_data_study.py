"""The own-data chapter's tables and sentences (mtbook.studies.own_data), on small hand-made cases."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

import mtlib
from mtbook import findings, words
from mtbook.studies import own_data as ods
from mtlib.data import EvalSet
from mtbook import comparisons
from mtlib.significance import ALPHA, Verdict, compare, compare_systems

SEED = 3
NOTEBOOK = Path(__file__).parents[1] / "notebooks" / "own_data.ipynb"


def render(marker: str, **found) -> str:
    """The chapter's Markdown cell that contains ``marker``, rendered over ``found`` (sent as the
    kernel sends findings: plain JSON data), whitespace collapsed."""
    cell = next("".join(c["source"]) for c in json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
                if c["cell_type"] == "markdown" and marker in "".join(c["source"]))
    data = json.loads(json.dumps(findings.as_data(found)))
    macros = words.chapter_macros(NOTEBOOK)
    return " ".join(words.render_template(cell, data, macros=macros).split())


SUMMARY = "* Data: {{ s.label }}"


def summary(**found) -> str:
    """The closing summary (and the exercises below it) over ``found``; the analyses not given are absent."""
    base = dict(source={"label": "f", "lp": "de-en", "n_segments": 3, "n_total": 3, "n_systems": 3, "example": False},
                n_permutations=1000, n_resamples=200, alpha=ALPHA, bootstrap=None, random=None,
                **ods.page_findings(None, None, None),
                ex1={"counts": [6, 4, 2, 0], "totals": [7, 6, 5, 4], "bleu": 35.9, "bertscore": None}, own_floor3=0.25)
    return render(SUMMARY, **(base | found))


def small_evalset(human=None):
    outputs = {"A": ["a b", "c d e", "f"], "B": ["a", "b", "c"], "C": ["one two three four", "x", "y z"]}
    return EvalSet("mine", "de-en", ["s1", "s2", "s3"], {"ref": ["a b", "c d", "e f"], "para": ["a", "c", "e"]},
                   outputs, human or {}, "ref")


SEG = {"A": [0.5, None, 0.1], "B": [None, None, 0.9]}  # C has no segment score


def test_the_page_names_the_data_it_ran_on():
    evs = small_evalset({("human", "sys"): {"A": 1.0, "B": 2.0, "C": None}, ("human", "seg"): SEG})
    assert ods.folder_label(None) == "the example toy-de-en"
    assert ods.folder_label("/data/my folder") == "the folder `/data/my folder`"
    mine = ods.source_findings("/data/mine", evs)
    assert mine == {"example": False, "label": "the folder `/data/mine`", "lp": "de-en", "n_segments": 3,
                    "n_total": 3, "n_systems": 3, "levels": ["seg", "sys"]}
    assert ods.source_findings("/data/mine", evs, 5)["n_total"] == 5
    marker = "**This page** ran on"
    assert "**This page** ran on the example that ships with mtlib, `toy-de-en`" in render(
        marker, source=ods.source_findings(None, evs))
    assert render(marker, source=mine).endswith(
        "**This page** ran on the folder `/data/mine` (parameter `folder`, language pair de-en): 3 segments, 3 systems, "
        "human scores: seg, sys. The numbers below are this folder's; the exercises refer to the shipped example.")
    cut = render(marker, source=ods.source_findings("/data/mine", evs, 5))
    assert (": the first 3 of its 5 segments (parameter `n_segments`; the system-level human scores are the "
            "folder's, over all segments), 3 systems") in cut


def data_sentence(label, evs, human, human_seg):
    source = {"label": label, "lp": evs.lp, "n_segments": evs.n_segments, "n_total": evs.n_segments, "n_systems": len(evs.mt_systems)}
    return render("(standard: `{{ d.std_ref }}`)", source=source, data=ods.data_findings(evs, human, human_seg),
                  no_top=None)


def test_data_sentence_names_systems_without_human_scores():
    evs = small_evalset({("human", "seg"): SEG})
    assert ods.data_findings(evs, None, SEG)["missing"] == [{"level": "segment", "covered": 2, "total": 3,
                                                             "systems": ["C"]}]
    head = "the folder `x` (de-en): 3 segments, 3 systems, references `ref`, `para` (standard: `ref`); human scores: seg."
    assert data_sentence("the folder `x`", evs, None, SEG) == head + (
        " Segment scores cover 2 of the 3 systems: C has none and is left out of the segment-level correlations.")
    assert data_sentence("the folder `x`", evs, None, {**SEG, "C": [1.0, None, None]}) == head
    assert data_sentence("the folder `x`", small_evalset(), None, None).endswith("human scores: none.")
    both = data_sentence("f", evs, {"A": 1.0, "B": None, "C": None}, {"B": SEG["B"]})
    assert both.endswith("seg. System scores cover 1 of the 3 systems: B, C have none and are left out of the "
                         "system-level correlations. Segment scores cover 1 of the 3 systems: A, C have none and are left "
                         "out of the segment-level correlations.")


def test_overview_counts_zero_judged_segments_for_a_system_without_segment_scores():
    evs = small_evalset()
    table = ods.overview_table(evs, {"A": 1.0, "B": 2.0, "C": None}, SEG)
    assert list(table.index) == ["B", "A", "C"]  # best human score first, the unscored last
    assert table["segments judged"].to_dict() == {"B": 1, "A": 2, "C": 0}
    # mean words: A (2 + 3 + 1) / 3, B 1, C (4 + 1 + 2) / 3
    assert table["mean words"].to_dict() == pytest.approx({"A": 2.0, "B": 1.0, "C": 7 / 3})
    assert math.isnan(table.loc["C", "human score"])
    bare = ods.overview_table(evs, None, None)
    assert list(bare.index) == ["A", "B", "C"] and bare[["human score", "segments judged"]].isna().all().all()


def test_top_subset_refuses_a_top_group_of_one():
    three = {"A": 3.0, "B": 2.0, "C": 1.0}
    top, why = ods.top_subset(three, 0.5)  # floor(0.5 * 3) = 1
    assert top is None and why == {"fraction": 0.5, "n": 3, "k": 1}
    evs = small_evalset()
    note = render("(standard: `{{ d.std_ref }}`)", source={"label": "f", "lp": "de-en", "n_segments": 3, "n_total": 3, "n_systems": 3},
                  data=ods.data_findings(evs, None, None), no_top=why)
    assert ("*`top_fraction` = 0.5 of the 3 systems with a human score keeps 1 system; a correlation needs at least "
            "two") in note
    assert ods.top_subset(three, 1.0) == (["A", "B", "C"], None)
    assert ods.top_subset({**three, "D": 0.0, "E": None}, 0.5) == (["A", "B"], None)  # 4 scored -> 2
    top, why = ods.top_subset({"A": 1.0, "B": None}, 0.5)
    assert top is None and why == {"fraction": 0.5, "n": 1, "k": 0}


def top_closeness(human, top):
    text = render("**Agreement with the human scores.**", closeness=ods.closeness(human, top))
    return text[text.index("In this folder") if "In this folder" in text else text.index("This folder"):-1]


def test_top_closeness_places_the_closest_pairs():
    human = {"a": 90.0, "b": 80.0, "c": 79.0, "d": 50.0, "e": None}
    assert ods.closeness(human, ["a", "b"])["pairs"][0] == {"a": "b", "b": "c", "va": 80.0, "vb": 79.0,
                                                            "where": "across"}
    assert top_closeness(human, ["a", "b"]) == (
        "In this folder the top 2 span human scores 90.0 to 80.0; the closest neighbours by human score are "
        "b and c (80.0, 79.0; across the top's boundary), then a and b (90.0, 80.0; both among the top)")
    assert top_closeness(human, ["a"]).endswith("then a and b (90.0, 80.0; across the top's boundary)")
    assert top_closeness(human, None) == (
        "In this folder (no top group) the closest neighbours by human score are b and c (80.0, 79.0), "
        "then a and b (90.0, 80.0)")
    # gaps 5, 1, 5: the tie between d-c and b-a goes to the pair whose upper name sorts first
    assert top_closeness({"a": 1.0, "b": 6.0, "c": 7.0, "d": 12.0}, ["d", "c"]).endswith(
        "c and b (7.0, 6.0; across the top's boundary), then b and a (6.0, 1.0; outside the top)")
    z = {"a": 0.146, "b": 0.136, "c": 0.086, "d": -0.05}  # z-scores (span < 10): 3 decimals
    assert top_closeness(z, ["a", "b"]) == (
        "In this folder the top 2 span human scores 0.146 to 0.136; the closest neighbours by human score are "
        "a and b (0.146, 0.136; both among the top), then b and c (0.136, 0.086; across the top's boundary)")
    assert top_closeness(None, None) == "This folder has no human system scores"
    assert top_closeness({"a": 1.0, "b": None}, None).startswith("This folder has fewer than two")


def floor_sentence(n):
    text = render("**Is the leader ahead by more than chance?**", floors=ods.floor(n), floor3=ods.floor(3))
    return text[text.index("cannot be small: ") + len("cannot be small: "):-1]


def test_floor_sentence():
    assert ods.floor(8) == {"n": 8, "exact": 0.5 ** 7, "alpha": 0.05} and ods.floor(2)["exact"] is None
    three = ("over three systems no two-sided p can fall below about 2^-2 = 0.25, so no test over three systems can "
             "find one metric significantly better than another (p < 0.05)")
    assert floor_sentence(8) == f"over the 8 systems here no two-sided p can fall below about 2^-7 = 0.00781; {three}"
    assert floor_sentence(3) == (
        "over the 3 systems here no two-sided p can fall below about 2^-2 = 0.25, so no test over the 3 systems here "
        "can find one metric significantly better than another (p < 0.05)")
    assert floor_sentence(2) == f"PERM-BOTH needs at least three systems: with 2 no difference is tested; {three}"
    # 16 systems: a floor to quote however few draws swap nothing (not "below 0.000")
    assert floor_sentence(16).startswith("over the 16 systems here no two-sided p can fall below about 2^-15 = 3.05e-05;")
    assert render("**Is the leader ahead by more than chance?**", floors=None, floor3=ods.floor(3)).endswith(
        "this folder has no human system scores, so nothing is tested.")


HUMAN4 = {"s1": 1.0, "s2": 2.0, "s3": 3.0, "s4": 4.0}
# X orders the systems as the humans; Y swaps s3 and s4 (tau = (5 - 1) / 6); Z is lower-is-better
# and reversed, so oriented it equals X's order (a tie with X on tau and rho)
SCORES4 = {"X": {"s1": 10.0, "s2": 20.0, "s3": 30.0, "s4": 41.0}, "Y": {"s1": 1.0, "s2": 2.0, "s3": 5.0, "s4": 4.0},
           "Z": {"s1": 9.0, "s2": 7.0, "s3": 3.0, "s4": 2.0}}


def test_leader_tests_finds_exact_ties_and_tests_the_lead_two_sided():
    table = mtlib.correlation_table(SCORES4, HUMAN4, {"all": None, "top": ["s4", "s3"]}, lower_is_better=["Z"])
    r, tau, rho = ods.leader_tests(table, SCORES4, HUMAN4, lower_is_better=["Z"], seed=SEED)
    assert (tau["leaders"], tau["value"], tau["next"], tau["n"]) == (["X", "Z"], 1.0, "Y", 4)  # X and Z tie exactly
    assert tau["next_value"] == pytest.approx(2 / 3)
    setting, a, b, stat, c = tau["entry"]
    assert (setting, a, b, stat) == ({"analysis": "leading metric", "level": "system", "systems": "all (4)"}, "Y", "X",
                                     "τ")
    assert c.p == compare_systems(SCORES4["Y"], SCORES4["X"], HUMAN4, "kendall", seed=SEED).p
    assert c.alternative == "two-sided" and c.exact_floor == 0.125 and c.p >= c.mc_floor
    # Pearson: X is not exactly linear (41), Z oriented (-9, -7, -3, -2) neither; who leads is the table's
    wide = table[table.subset == "all"].pivot_table(index="metric", columns="stat", values="value")
    assert r["leaders"] == [wide["r"].idxmax()]
    z = {s: -v for s, v in SCORES4["Z"].items()}  # the test sees Z oriented
    lead, nxt = r["leaders"][0], r["next"]
    expected = compare_systems(z if nxt == "Z" else SCORES4[nxt], z if lead == "Z" else SCORES4[lead], HUMAN4,
                               "pearson", seed=SEED).p
    assert r["entry"][-1].p == expected and r["note"] == ""
    frame = ods.leaders_frame([r, tau, rho])
    assert list(frame.index) == ["r", "tau", "rho"] and frame.loc["tau", "leaders"] == "X, Z"
    top = ods.leader_tests(table, SCORES4, HUMAN4, subset="top", systems=["s4", "s3"], lower_is_better=["Z"],
                           seed=SEED)[1]
    assert top["leaders"] == ["X", "Z"] and top["next"] == "Y"
    assert top["entry"][-1].verdict() is Verdict.UNTESTED and "at least 3 are needed" in top["entry"][-1].reason


def _comp(delta, p, n=8, method="pearson"):
    """A comparison as :func:`mtlib.significance.compare` returns it, made by hand."""
    from mtlib.significance import Comparison
    if math.isnan(p):
        return Comparison(*[math.nan] * 4, "two-sided", 2, 2, "system", math.nan, math.nan, method, 1000, 1,
                          "2 items with a human score; at least 3 are needed")
    return Comparison(0.5, 0.5 + delta, delta, p, "two-sided", n, n, "system", 0.5 ** (n - 1), 0.5 ** (n - 1), method,
                      1000, 1)


def _leader(stat, leaders, value, nxt, next_value, delta=0.1, p=0.01):
    entry = (None if nxt is None else
             ({"analysis": "leading metric", "level": "system", "systems": "all (8)"}, nxt, leaders[0],
              ods.STAT_LABELS[stat], _comp(delta, p)))
    return {"stat": stat, "leaders": leaders, "value": value, "next": nxt, "next_value": next_value, "n": 8,
            "note": "" if nxt else "no other metric", "entry": entry}


def _da(subset, stat, da, bs, delta, p, n):
    setting = {"analysis": "DA-BERTScore vs BERTScore", "level": "system", "systems": f"{subset} ({n})"}
    return {"subset": subset, "stat": stat, "n": n, "da": da, "bertscore": bs,
            "entry": (setting, "BERTScore", "DA-BERTScore", ods.STAT_LABELS[stat], _comp(delta, p, n))}


LEADERS = [_leader("r", ["A"], 0.9, "B", 0.8, p=0.004), _leader("tau", ["A", "B"], 0.5, None, math.nan),
           _leader("rho", ["B"], 0.7, "A", 0.6, p=0.3)]
DA = [_da("all", "r", 0.9, 0.8, 0.1, 0.004, 8), _da("all", "tau", 0.5, 0.7, -0.2, 0.3, 8),
      _da("all", "rho", 0.6, 0.6, 0.0, 1.0, 8), _da("top", "r", 0.95, 0.9, 0.05, math.nan, 2)]


def test_page_findings_adjust_every_test_of_the_page_together():
    found = ods.page_findings(LEADERS, None, DA)
    rows = found["comparisons"]
    # 6 comparisons (tau's leaders tie, with no next metric: nothing to test), one untested: Holm over 5 p's
    assert len(rows) == 6 and found["counts"]["tests"] == 5 and found["counts"]["untested"] == 1
    r_lead, rho_lead, da_r, da_tau, da_rho, da_top = rows
    # two raw p = 0.004 (< 5%): Holm multiplies the smaller ones by 5 and 4, 0.02 and 0.016 -> both 0.02, still below 5%
    assert r_lead.p_holm == pytest.approx(0.02) and da_r.p_holm == pytest.approx(0.02)
    assert r_lead.verdict is da_r.verdict is Verdict.B_BETTER
    assert da_rho.verdict is Verdict.TIE and da_top.verdict is Verdict.UNTESTED and da_tau.verdict is Verdict.NOT_SHOWN
    L = found["leaders"]
    assert [x["c"] for x in L["stats"]] == [r_lead, None, rho_lead]
    assert (L["agree"], L["n"], L["significant"]) == (False, 8, 1)
    D = found["da_versus"]
    assert [g["subset"] for g in D["groups"]] == ["all", "top"] and D["groups"][1]["rows"][0]["c"] is da_top
    assert {k: D[k] for k in ("n", "better", "worse", "tie", "not_shown", "untested", "split")} == {
        "n": 4, "better": 1, "worse": 0, "tie": 1, "not_shown": 1, "untested": 1, "split": True}
    assert found["segment"] is None and ods.page_findings(None, None, None)["comparisons"] == []
    # "split" reads each subset: higher on all systems' r and lower on the top's r is no split
    assert not ods.page_findings(None, None, [DA[0], _da("top", "r", 0.8, 0.9, -0.1, 0.3, 8)])["da_versus"]["split"]


def test_holm_lifts_a_raw_p_below_five_percent():
    # the leader's raw p = 0.02 alone would be significant; with the DA tests beside it, 5 x 0.02 = 0.1 is not
    leaders = [_leader("r", ["A"], 0.9, "B", 0.8, p=0.02)]
    alone = ods.page_findings(leaders, None, None)["comparisons"][0]
    assert alone.p_holm == 0.02 and alone.verdict is Verdict.B_BETTER
    da = [_da("all", s, 0.9, 0.8, 0.1, 0.5, 8) for s in ("r", "tau", "rho")] + [_da("top", "r", 0.9, 0.8, 0.1, 0.6, 8)]
    lifted = ods.page_findings(leaders, None, da)
    row = lifted["comparisons"][0]
    assert row.p == 0.02 and row.p_holm == pytest.approx(0.1) and row.verdict is Verdict.NOT_SHOWN
    assert lifted["counts"]["raw_significant"] == 1 and lifted["leaders"]["significant"] == 0


def test_leaders_sentence():
    def leaders_sentence(tests, **more):
        text = summary(**(ods.page_findings(tests, None, None) | more))
        return bullet(text, "* System level")

    assert leaders_sentence(LEADERS) == (
        "* System level, 8 systems: the highest $r$ is A's (+0.900), τ is A and B's (+0.500), ρ is B's (+0.700); "
        "the lead over the next metric is significant (Holm-adjusted) on 1 of 2 statistics.")
    alone = [_leader("r", ["A"], 0.9, None, math.nan)]
    assert leaders_sentence(alone).endswith("$r$ is A's (+0.900); no other metric to test it against.")
    # every p the words quote is in the table of all comparisons, raw and adjusted
    table = summary(**ods.page_findings(LEADERS, None, None))
    assert ("| leading metric | system | all (8) | B | A | $r$ | +0.500 | +0.600 | +0.100 | 0.004 | 0.008 | B better |"
            in table)
    assert "the page ran 2 such tests" in table and "(1 raw and 1 adjusted p-values are below 0.05)" in table


def bullet(text: str, start: str) -> str:
    """The summary's bullet that begins with ``start``."""
    rest = text[text.index(start):]
    ends = [i for i in (rest.find(" * ", 2), rest.find(" ## Exercises"), rest.find(" Every comparison"),
                        rest.find(" ```")) if i > 0]
    return rest[:min(ends)] if ends else rest


def test_top_tau_sentence_says_when_no_difference_can_be_significant():
    table = pd.DataFrame({"metric": ["A", "B", "A"], "subset": ["top", "top", "all"], "stat": ["tau"] * 3,
                          "value": [1 / 3, 1.0, 0.2]})

    def top_tau_sentence(top):
        return render("{% if f.top_taus %}", top_taus=ods.top_taus(table, top))

    assert top_tau_sentence(["s1", "s2", "s3", "s4"]) == (
        "Over the top 4 systems (the first table) Kendall's τ is A +0.333, B +1.000: with so few systems one swapped "
        "pair moves τ by 0.33, and no difference between metrics over 4 systems can be significant (p < 0.05): a "
        "two-sided PERM-BOTH p cannot fall below about 2^-3 = 0.125 there; the page does not test these differences.")
    assert top_tau_sentence(["s1", "s2"]).endswith(
        "one swapped pair moves τ by 2.00, and PERM-BOTH needs at least three systems, so no difference over 2 is "
        "tested.")
    assert "moves τ by 0.13, and a two-sided PERM-BOTH p over 6 systems cannot fall below about 2^-5 = 0.0312;" \
        in top_tau_sentence(list("abcdef"))


def test_bootstrap_sentence():
    def bootstrap_sentence(boot, n_resamples):
        return bullet(summary(bootstrap=ods.bootstrap_findings(boot), n_resamples=n_resamples), "* The bootstrap")

    boot = pd.DataFrame({"method": ["kendall", "kendall", "pearson"], "metric": ["A", "B", "A"],
                         "low": [-0.1, 0.0, -0.5], "high": [0.5, 0.4, 0.9]})
    # Pearson's rows are not read: Kendall's A (-0.1, 0.5) and B (0.0, 0.4) both include zero.
    assert bootstrap_sentence(boot, 200) == ("* The bootstrap intervals of Kendall's τ over all systems "
                                                 "(200 resamples) include zero for every metric.")
    assert bootstrap_sentence(boot.assign(low=[0.3, 0.2, -0.5]), 5) == (
        "* The bootstrap intervals of Kendall's τ over all systems (5 resamples) exclude zero for every metric "
        "(lowest lower bound +0.200, B).")
    assert bootstrap_sentence(boot.assign(low=[0.3, 0.0, -0.5]), 5) == (
        "* The bootstrap intervals of Kendall's τ over all systems (5 resamples) lie above zero for A (lowest lower "
        "bound +0.300) and include zero for B.")
    three = pd.DataFrame({"method": "kendall", "metric": ["A", "B", "C"], "low": [0.1, -0.6, -0.2],
                          "high": [0.9, -0.1, 0.3]})
    assert bootstrap_sentence(three, 5) == (
        "* The bootstrap intervals of Kendall's τ over all systems (5 resamples) lie above zero for A (lowest lower "
        "bound +0.100), lie below zero for B (highest upper bound -0.100) and include zero for C.")


def test_segment_leader_test_pools_the_judged_pairs():
    human_seg = {"A": [1.0, 2.0, 3.0, None], "B": [2.5, None, 4.0, 0.5]}
    seg = {"M1": {"A": [1.0, 2.0, 3.0, 9.0], "B": [2.5, 7.0, 4.0, 0.5], "C": [0, 0, 0, 0]},
           "M2": {"A": [3.0, 1.0, 2.0, 0.0], "B": [1.0, 0.0, 4.0, 2.0], "C": [0, 0, 0, 0]}}
    test = ods.segment_leader_test(seg, human_seg, {"M1": 1.0, "M2": 0.2}, seed=SEED)
    h = [1.0, 2.0, 3.0, None, 2.5, None, 4.0, 0.5]
    # the pairs of one segment are swapped together: segments 0..3 of A, then of B
    expected = compare([3, 1, 2, 0, 1, 0, 4, 2], [1, 2, 3, 9, 2.5, 7, 4, 0.5], h, "kendall", unit="segment",
                       clusters=[0, 1, 2, 3, 0, 1, 2, 3], seed=SEED)
    setting, a, b, stat, c = test["entry"]
    assert (test["leaders"], a, b, stat, c.n, c.unit, c.n_units) == (["M1"], "M2", "M1", "τ", 6, "segment", 4)
    assert c.p == expected.p and c.corr_b == pytest.approx(1.0) and c.alternative == "two-sided"
    assert setting == {"analysis": "leading metric", "level": "segment", "systems": "all (2)"}
    # 0.5 and 0.5004 are not equal: 0.5004 leads (a tie is exact, not "equal to three decimals")
    assert ods.segment_leader_test(seg, human_seg, {"M1": 0.5, "M2": 0.5004})["next"] == "M1"
    assert ods.segment_leader_test(seg, human_seg, {"M1": 0.5, "M2": 0.5})["entry"] is None  # tied: nothing to test

    def segment_sentence(test):
        return bullet(summary(**ods.page_findings(None, test, None)), "* Segment level")

    # the shown values are the table's (here made up), the test's correlations its own
    assert segment_sentence(test) == (
        "* Segment level (Kendall τ, pooled): M1 +1.000, M2 +0.200; over the 6 judged pairs M1 is not shown to differ "
        f"from M2 (τ +1.000 vs +0.215; p = {c.p:.3f}, Holm-adjusted p = {c.p:.3f}).")
    no_next = {**test, "next": None, "entry": None}
    assert segment_sentence(no_next) == "* Segment level (Kendall τ, pooled): M1 +1.000, M2 +0.200."
    note = summary(**ods.page_findings(None, test, None))
    assert ("(at segment level, all systems' scores of one segment together: they share its source and reference); "
            "the page ran 1 such") in note


def test_da_comparison_tests_dabertscore_against_bertscore():
    human = {"s1": 1.0, "s2": 2.0, "s3": 3.0, "s4": 4.0, "s5": None}
    bs = {"s1": 1.0, "s2": 3.0, "s3": 2.0, "s4": 4.0, "s5": 0.0}
    da = {"all": {"s1": 1.0, "s2": 2.0, "s3": 3.1, "s4": 3.0, "s5": 0.0}, "top": {"s3": 1.0, "s4": 2.0}}
    top = ["s4", "s3"]
    da_table = pd.concat([mtlib.correlation_table({"BERTScore": bs, "DA-BERTScore": da[sub]}, human,
                                                  {sub: None if sub == "all" else top}) for sub in da],
                         ignore_index=True)
    rows = ods.da_comparison(da_table, bs, da, human, top, seed=SEED)
    assert [(x["subset"], x["stat"], x["n"]) for x in rows] == [("all", "r", 4), ("all", "tau", 4), ("all", "rho", 4),
                                                                ("top", "r", 2), ("top", "tau", 2), ("top", "rho", 2)]
    family = ods.page_findings(None, None, rows)["comparisons"]
    # both have tau = 2/3 over all four judged systems: an exact tie, p = 1
    assert family[1].verdict is Verdict.TIE and family[1].p == 1.0 and rows[1]["da"] == rows[1]["bertscore"]
    assert family[0].p == compare_systems(bs, da["all"], human, "pearson", seed=SEED).p
    assert family[0].exact_floor == 0.125  # four systems: 2^-3, no p below 5%
    # top 2: fewer than three systems, untested
    assert [c.verdict for c in family[3:]] == [Verdict.UNTESTED] * 3
    assert [x["subset"] for x in ods.da_comparison(da_table, bs, {"all": da["all"]}, human, None)] == ["all"] * 3


def test_da_sentences():
    found = ods.page_findings(None, None, DA)
    D = found["da_versus"]
    text = render("**Does DA-BERTScore agree better?**", da_versus=D)
    assert ("* all 8 systems: DA-BERTScore correlates better than BERTScore ($r$ +0.600 vs +0.500; p = 0.004, "
            "Holm-adjusted p = 0.012); DA-BERTScore is not shown to differ from BERTScore (τ +0.300 vs +0.500; "
            "p = 0.300, Holm-adjusted p = 0.600); DA-BERTScore ties with BERTScore (ρ +0.500 both).") in text
    assert ("* the top 2: DA-BERTScore could not be tested against BERTScore (2 items with a human score; at least 3 "
            "are needed).") in text
    assert text.endswith("The statistics disagree on which of the two correlates higher with the human scores.")
    assert bullet(summary(**found), "* DA-BERTScore") == (
        "* DA-BERTScore against BERTScore over all 8 systems and the top 2: of 4 comparisons it correlates better in "
        "1 and worse in 0 (Holm-adjusted p < 0.05); 1 show no difference, 1 tie exactly, 1 could not be tested.")
    tests_note = summary(**found)
    assert "the page ran 3 such tests" in tests_note and "1 comparison was not tested" in tests_note


def test_random_subset_sentence():
    comp = pd.DataFrame({"metric": ["A", "A", "B", "B"], "method": ["pearson", "kendall"] * 2,
                         "selected": [0.5, 0.9, 0.1, 0.2], "random 2.5%": [0.0, 0.1, 0.2, 0.0],
                         "random 97.5%": [1.0, 1.0, 0.9, 0.8], "percentile": [71.2, 50.0, 1.0, 60.0]})

    def random_subset_sentence(comp, n_kept):
        return bullet(summary(random=ods.random_subset_findings(comp, n_kept)), "* On the")

    assert random_subset_sentence(comp, 16) == (
        "* On the 16 segments kept by variance, the kept set lies above most random subsets of its size (percentile "
        "above 50) for 1 of 2 metrics on Pearson $r$ (A); 1 of 2 metrics on Kendall τ (B); 1 of 4 kept-set "
        "correlations lie outside the random subsets' middle 95%.")
    inside = comp.assign(selected=0.5)
    assert random_subset_sentence(inside, 16).endswith("; 0 of 4 kept-set correlations lie outside the random "
                                                       "subsets' middle 95%.")


def test_the_bootstrap_paragraph_names_the_statistics_resampled():
    # The chapter bootstraps Pearson's r and Kendall's τ only: its paragraph says so, not "each correlation".
    cells = json.loads((Path(__file__).parents[1] / "notebooks" / "own_data.ipynb").read_text())["cells"]
    text = {c["cell_type"]: "".join(c["source"]) for c in cells if "How sure is that?" in "".join(c["source"])
            or "bootstrap_correlations(" in "".join(c["source"])}
    assert 'for method in ("pearson", "kendall")' in text["code"]
    assert "Pearson's $r$ and Kendall's τ" in text["markdown"] and "(not for\nSpearman's ρ)" in text["markdown"]
    assert "each correlation" not in text["markdown"]
