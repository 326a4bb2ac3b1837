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
from mtlib.significance import min_pvalue, perm_both, perm_both_systems

SEED = 3
NOTEBOOK = Path(__file__).parents[1] / "notebooks" / "own_data.ipynb"


def render(marker: str, **found) -> str:
    """The chapter's Markdown cell that contains ``marker``, rendered over ``found`` (sent as the
    kernel sends findings: plain JSON data), whitespace collapsed."""
    cell = next("".join(c["source"]) for c in json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
                if c["cell_type"] == "markdown" and marker in "".join(c["source"]))
    data = json.loads(json.dumps(findings.as_data(found)))
    macros = NOTEBOOK.with_suffix(".macros.j2").read_text(encoding="utf-8")
    return " ".join(words.render_template(cell, data, macros=macros).split())


SUMMARY = "* Data: {{ s.label }}"


def summary(**found) -> str:
    """The closing summary (and the exercises below it) over ``found``; the analyses not given are absent."""
    base = dict(source={"label": "f", "lp": "de-en", "n_segments": 3, "n_systems": 3, "example": False},
                n_permutations=1000, n_resamples=200, alpha=ods.ALPHA, leaders=None, top_taus=None, bootstrap=None,
                segment=None, da_versus=None, random=None,
                ex1={"counts": [6, 4, 2, 0], "totals": [7, 6, 5, 4], "bleu": 35.9, "bertscore": None}, own_min_p3=0.125)
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
                    "n_systems": 3, "levels": ["seg", "sys"]}
    marker = "**This page** ran on"
    assert "**This page** ran on the example that ships with mtlib, `toy-de-en`" in render(
        marker, source=ods.source_findings(None, evs))
    assert render(marker, source=mine).endswith(
        "**This page** ran on the folder `/data/mine` (parameter `folder`, language pair de-en): 3 segments, 3 systems, "
        "human scores: seg, sys. The numbers below are this folder's; the exercises refer to the shipped example.")


def data_sentence(label, evs, human, human_seg):
    source = {"label": label, "lp": evs.lp, "n_segments": evs.n_segments, "n_systems": len(evs.mt_systems)}
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
    note = render("(standard: `{{ d.std_ref }}`)", source={"label": "f", "lp": "de-en", "n_segments": 3, "n_systems": 3},
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


def floor_sentence(n, **kw):
    text = render("**Is the leader ahead by more than chance?**", floors=ods.floors(n, **kw))
    return text[text.index("cannot be small: ") + len("cannot be small: "):-1]


def test_floor_sentence():
    floor3, floor8 = (min_pvalue(n, n_permutations=500, seed=SEED) for n in (3, 8))
    three = (f"over three systems no p can fall below {floor3:.3f}, so no test over three systems can find one "
             "metric significantly better than another (p < 0.05)")
    assert floor_sentence(8, n_permutations=500, seed=SEED) == (
        f"over the 8 systems here no p can fall below {floor8:.3f}; {three}")
    assert floor_sentence(3, n_permutations=500, seed=SEED) == (
        f"over the 3 systems here no p can fall below {floor3:.3f}, so no test over the 3 systems here can find one "
        "metric significantly better than another (p < 0.05)")
    assert floor_sentence(2, n_permutations=500, seed=SEED) == (
        f"PERM-BOTH needs at least three systems: with 2 no difference is tested; {three}")
    # 16 systems and 500 draws: no draw swaps nothing, so there is no floor to quote (not "below 0.000")
    assert min_pvalue(16, n_permutations=500, seed=SEED) == 0
    assert floor_sentence(16, n_permutations=500, seed=SEED) == (
        f"over the 16 systems here the draws that swap nothing (about 2^-16 = 1.5e-05 of them) are too rare to set a "
        f"floor with 500 permutations; {three}")
    assert render("**Is the leader ahead by more than chance?**", floors=None).endswith(
        "this folder has no human system scores, so nothing is tested.")


HUMAN4 = {"s1": 1.0, "s2": 2.0, "s3": 3.0, "s4": 4.0}
# X orders the systems as the humans; Y swaps s3 and s4 (tau = (5 - 1) / 6); Z is lower-is-better
# and reversed, so oriented it equals X's order (a tie with X on tau and rho)
SCORES4 = {"X": {"s1": 10.0, "s2": 20.0, "s3": 30.0, "s4": 41.0}, "Y": {"s1": 1.0, "s2": 2.0, "s3": 5.0, "s4": 4.0},
           "Z": {"s1": 9.0, "s2": 7.0, "s3": 3.0, "s4": 2.0}}


def test_leader_tests_finds_leaders_ties_and_tests_the_lead():
    table = mtlib.correlation_table(SCORES4, HUMAN4, {"all": None, "top": ["s4", "s3"]}, lower_is_better=["Z"])
    tests = ods.leader_tests(table, SCORES4, HUMAN4, lower_is_better=["Z"], seed=SEED)
    assert tests.loc["tau", "leaders"] == ["X", "Z"] and tests.loc["tau", "value"] == 1.0
    assert tests.loc["tau", "next"] == "Y" and tests.loc["tau", "next value"] == pytest.approx(0.667)
    assert tests.loc["tau", "p"] == perm_both_systems(SCORES4["Y"], SCORES4["X"], HUMAN4, "kendall", seed=SEED).pvalue
    assert tests.loc["tau", "p"] >= min_pvalue(4, seed=SEED)
    assert (tests.n == 4).all() and (tests.floor == min_pvalue(4, seed=SEED)).all()
    # Pearson: X is not exactly linear (41), Z oriented (-9, -7, -3, -2) neither; who leads is the table's
    wide = table[table.subset == "all"].pivot_table(index="metric", columns="stat", values="value").round(3)
    assert tests.loc["r", "leaders"] == [wide["r"].idxmax()]
    z = {s: -v for s, v in SCORES4["Z"].items()}  # the test sees Z oriented
    lead, nxt = tests.loc["r", "leaders"][0], tests.loc["r", "next"]
    expected = perm_both_systems(z if nxt == "Z" else SCORES4[nxt], z if lead == "Z" else SCORES4[lead], HUMAN4,
                                 "pearson", seed=SEED).pvalue
    assert tests.loc["r", "p"] == expected and tests.loc["r", "note"] == ""
    top = ods.leader_tests(table, SCORES4, HUMAN4, subset="top", systems=["s4", "s3"], lower_is_better=["Z"],
                           seed=SEED)
    assert top.loc["tau", "leaders"] == ["X", "Z"] and top.loc["tau", "next"] == "Y"
    assert math.isnan(top.loc["tau", "p"]) and "at least 3 are needed" in top.loc["tau", "note"]


def test_leaders_sentence():
    tests = pd.DataFrame.from_dict({
        "r": {"leaders": ["A"], "value": 0.9, "next": "B", "next value": 0.8, "p": 0.0123, "note": ""},
        "tau": {"leaders": ["A", "B"], "value": 0.5, "next": None, "next value": math.nan, "p": math.nan,
                "note": "no other metric"},
        "rho": {"leaders": ["B"], "value": 0.7, "next": "A", "next value": 0.6, "p": math.nan,
                "note": "2 items with a human score; at least 3 are needed"}}, orient="index")
    def leaders_sentence(frame, n_permutations):
        text = summary(n_permutations=n_permutations, leaders=ods.leaders(frame.assign(**{c: frame.get(c, v) for c, v in
                                                                                       (("n", 8), ("floor", 0.004))})))
        return text[text.index("* System level"):text.index(" * These are") if " * These are" in text else
                    text.index(" ## Exercises")]

    assert leaders_sentence(tests, 1000) == (
        "* System level, all systems, the highest value of each statistic (p: PERM-BOTH, one-sided, that the leader "
        "correlates better than the next metric, 1000 permutations): $r$ A (+0.900; next B +0.800, p = 0.012); "
        "τ A and B (+0.500, tied); ρ B (+0.700; next A +0.600, not tested: 2 items with a human score; at least 3 "
        "are needed); the statistics disagree on which metric leads.")
    same = tests.assign(leaders=[["A"]] * 3)
    assert leaders_sentence(same, 1000).endswith("are needed).")
    # over three systems the sentence says that no lead can be significant; over eight it does not
    three = leaders_sentence(tests.assign(n=3, floor=0.128), 1000)
    assert three.endswith("which metric leads. No difference between metrics over 3 systems can be significant "
                          "(p < 0.05): PERM-BOTH's p cannot fall below 0.128 there (its unswapped draws alone).")
    assert leaders_sentence(tests.assign(n=8, floor=0.004), 1000).endswith("which metric leads.")


def bullet(text: str, start: str) -> str:
    """The summary's bullet that begins with ``start``."""
    rest = text[text.index(start):]
    ends = [i for i in (rest.find(" * ", 2), rest.find(" ## Exercises")) if i > 0]
    return rest[:min(ends)] if ends else rest


def test_top_tau_sentence_says_when_no_difference_can_be_significant():
    table = pd.DataFrame({"metric": ["A", "B", "A"], "subset": ["top", "top", "all"], "stat": ["tau"] * 3,
                          "value": [1 / 3, 1.0, 0.2]})
    def top_tau_sentence(table, top, floor):
        return bullet(summary(top_taus=ods.top_taus(table, top, floor)), "* Over the top")

    four = top_tau_sentence(table, ["s1", "s2", "s3", "s4"], 0.0651)
    assert four == ("* Over the top 4 systems Kendall's τ is A +0.333, B +1.000: with so few systems one swapped "
                    "pair moves τ by 0.33, and no difference between metrics over 4 systems can be significant "
                    "(p < 0.05): PERM-BOTH's p cannot fall below 0.065 there (its unswapped draws alone); these "
                    "differences are not tested.")
    assert top_tau_sentence(table, ["s1", "s2"], math.nan).endswith(
        "one swapped pair moves τ by 2.00, and PERM-BOTH needs at least three systems, so no difference over 2 is "
        "tested.")
    assert "moves τ by 0.13, and PERM-BOTH's p over 6 systems cannot fall below 0.014;" \
        in top_tau_sentence(table, list("abcdef"), 0.014)


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
    expected = perm_both([3, 1, 2, 0, 1, 0, 4, 2], [1, 2, 3, 9, 2.5, 7, 4, 0.5], h, "kendall", seed=SEED)
    assert (test["leaders"], test["next"], test["n"]) == (["M1"], "M2", 6)
    assert test["p"] == expected.pvalue and expected.corr_b == pytest.approx(1.0)
    assert ods.segment_leader_test(seg, human_seg, {"M1": 0.5, "M2": 0.5004})["next"] is None  # tied to 3 decimals
    seg_table = pd.DataFrame({"kendall": {"M1": 1.0, "M2": 0.2}})

    def segment_sentence(seg_table, test, n_permutations):
        return bullet(summary(segment=ods.segment_findings(seg_table, test), n_permutations=n_permutations),
                      "* Segment level")

    assert segment_sentence(seg_table, {**test, "p": 0.0}, 1000) == (
        "* Segment level (Kendall τ, pooled): M1 +1.000, M2 +0.200; M1 ahead of M2: PERM-BOTH (one-sided, over the "
        "6 judged pairs, 1000 permutations) p < 0.001.")
    assert segment_sentence(seg_table, {"leaders": ["M1"], "next": None, "p": math.nan, "n": 0, "note": ""},
                            1000).endswith("M2 +0.200.")


def test_da_comparison_tests_whichever_is_ahead():
    human = {"s1": 1.0, "s2": 2.0, "s3": 3.0, "s4": 4.0, "s5": None}
    bs = {"s1": 1.0, "s2": 3.0, "s3": 2.0, "s4": 4.0, "s5": 0.0}
    da = {"all": {"s1": 1.0, "s2": 2.0, "s3": 3.1, "s4": 3.0, "s5": 0.0}, "top": {"s3": 1.0, "s4": 2.0}}
    top = ["s4", "s3"]
    da_table = pd.concat([mtlib.correlation_table({"BERTScore": bs, "DA-BERTScore": da[sub]}, human,
                                                  {sub: None if sub == "all" else top}) for sub in da],
                         ignore_index=True)
    comp = ods.da_comparison(da_table, bs, da, human, top, seed=SEED).set_index(["subset", "stat"])
    # both have tau = 2/3 over all four judged systems: tied, not tested
    assert comp.loc[("all", "tau"), "ahead"] == "tied" and math.isnan(comp.loc[("all", "tau"), "p"])
    r_da, r_bs = comp.loc[("all", "r"), ["DA", "BERTScore"]]
    assert comp.loc[("all", "r"), "ahead"] == ("DA-BERTScore" if r_da > r_bs else "BERTScore")
    a, b = (bs, da["all"]) if r_da > r_bs else (da["all"], bs)
    assert comp.loc[("all", "r"), "p"] == perm_both_systems(a, b, human, "pearson", seed=SEED).pvalue
    assert comp.loc[("all", "r"), "n"] == 4 and comp.loc[("all", "r"), "floor"] == min_pvalue(4, seed=SEED)
    # top 2: both order s4 above s3 (tau = rho = r = 1): tied
    assert (comp.loc["top", "ahead"] == "tied").all() and (comp.loc["top", "n"] == 2).all()
    assert list(ods.da_comparison(da_table, bs, {"all": da["all"]}, human, None).subset.unique()) == ["all"]


def test_da_sentence():
    rows = [("all", "r", 0.9, 0.8, "DA-BERTScore", 0.02, 8, 0.004), ("all", "tau", 0.5, 0.7, "BERTScore", 0.3, 8, 0.004),
            ("all", "rho", 0.6, 0.6, "tied", math.nan, 8, 0.004),
            ("top", "r", 0.95, 0.9, "DA-BERTScore", 0.125, 4, 0.065), ("top", "tau", 1.0, 1.0, "tied", math.nan, 4, 0.065),
            ("top", "rho", 1.0, 1.0, "tied", math.nan, 4, 0.065)]
    comp = pd.DataFrame(rows, columns=["subset", "stat", "DA", "BERTScore", "ahead", "p", "n", "floor"])

    def da_sentence(comp, n_permutations):
        return bullet(summary(da_versus=ods.da_findings(comp), n_permutations=n_permutations), "* DA-BERTScore")

    assert da_sentence(comp, 1000) == (
        "* DA-BERTScore against BERTScore (DA-BERTScore first; p: PERM-BOTH, one-sided, that the one ahead correlates "
        "better, 1000 permutations): all systems: $r$ +0.900 vs +0.800, τ +0.500 vs +0.700, ρ +0.600 vs +0.600 "
        "(DA-BERTScore ahead on $r$ (p = 0.020); BERTScore ahead on τ (p = 0.300); tied on ρ); top 4: $r$ +0.950 vs "
        "+0.900, τ +1.000 vs +1.000, ρ +1.000 vs +1.000 (DA-BERTScore ahead on $r$ (p = 0.125); tied on τ, ρ). "
        "The statistics disagree on which of the two agrees better with the human scores. No difference between "
        "metrics over 4 systems can be significant (p < 0.05): PERM-BOTH's p cannot fall below 0.065 there (its "
        "unswapped draws alone).")
    only_all = da_sentence(comp[comp.subset == "all"].assign(ahead=["DA-BERTScore", "tied", "tied"]), 1000)
    assert only_all.endswith("(DA-BERTScore ahead on $r$ (p = 0.020); tied on τ, ρ).")


def test_random_subset_sentence():
    comp = pd.DataFrame({"metric": ["A", "A", "B", "B"], "method": ["pearson", "kendall"] * 2,
                         "selected": [0.5, 0.9, 0.1, 0.2], "random 2.5%": [0.0, 0.1, 0.2, 0.0],
                         "random 97.5%": [1.0, 1.0, 0.9, 0.8], "percentile": [71.2, 50.0, 1.0, 60.0]})

    def random_subset_sentence(comp, n_kept):
        return bullet(summary(random=ods.random_subset_findings(comp, n_kept)), "* On the")

    assert random_subset_sentence(comp, 16) == (
        "* On the 16 segments kept by variance, the kept set lies above most random subsets of the same size "
        "(percentile above 50, the criterion of the variance-aware section) for Pearson $r$: A (71); Kendall τ: B "
        "(60). It does not for Pearson $r$: B (1); Kendall τ: A (50). Outside the middle 95% of the random subsets: "
        "B (Pearson $r$).")
    inside = comp.assign(selected=0.5)
    assert random_subset_sentence(inside, 16).endswith(
        "No kept-set correlation lies outside the middle 95% of the random subsets.")


def test_the_bootstrap_paragraph_names_the_statistics_resampled():
    # The chapter bootstraps Pearson's r and Kendall's τ only: its paragraph says so, not "each correlation".
    cells = json.loads((Path(__file__).parents[1] / "notebooks" / "own_data.ipynb").read_text())["cells"]
    text = {c["cell_type"]: "".join(c["source"]) for c in cells if "How sure is that?" in "".join(c["source"])
            or "bootstrap_correlations(" in "".join(c["source"])}
    assert 'for method in ("pearson", "kendall")' in text["code"]
    assert "Pearson's $r$ and Kendall's τ" in text["markdown"] and "(not for\nSpearman's ρ)" in text["markdown"]
    assert "each correlation" not in text["markdown"]
