"""The Otem/Utem chapter's tables and sentences, on small cases whose answers are worked out by hand."""

import json
import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from mtbook.studies import otem_utem as study
from mtbook.studies.otem_utem import versus_baseline, without_lowest
from mtlib.significance import perm_both

SIGNS = {"BLEU": 1, "OTEM": -1}
MQM_SIGNS = {"BLEU": 1, "OTEM-2": -1, "UTEM-4": -1}


def _table(otem):
    return pd.DataFrame({"human": [1.0, 2.0, 3.0, 4.0], "BLEU": [1.0, 2.0, 4.0, 3.0], "OTEM": otem},
                        index=list("abcd"))


# -- parameters ---------------------------------------------------------------------------------

def test_check_parameters_names_the_bad_parameter(tiny_mtme):
    ok = dict(human_translations=[("toy", "de-en", "refB")], mqm_sets=[("wmt21.tedtalks", "en-de")],
              table_set=("toy", "de-en"), table_refs=["ref"])
    study.check_parameters(**ok, root=tiny_mtme)  # all good: no error
    with pytest.raises(ValueError, match=r"human_translations: expected strings such as .*\['toy de-en'\]"):
        study.check_parameters(**(ok | {"human_translations": [("toy", "de-en")]}), root=tiny_mtme)
    with pytest.raises(ValueError, match=r"human_translations: toy de-en has no reference 'refZ'; its references: "
                                         r"\['ref', 'refB'\]"):
        study.check_parameters(**(ok | {"human_translations": [("toy", "de-en", "refZ")]}), root=tiny_mtme)
    with pytest.raises(ValueError, match=r"table_refs: toy de-en has no reference\(s\) \['refZ'\]"):
        study.check_parameters(**(ok | {"table_refs": ["ref", "refZ"]}), root=tiny_mtme)
    with pytest.raises(ValueError, match=r"mqm_sets: no MQM error annotations for \['toy de-en'\]"):
        study.check_parameters(**(ok | {"mqm_sets": [("toy", "de-en")]}), root=tiny_mtme)


# -- Figure 2 -----------------------------------------------------------------------------------

def _mp(curves):
    """curves: (setting, metric) -> {system: [mp_1, mp_2]}, the human translation named "H"."""
    return pd.DataFrame([{"setting": s, "metric": m, "system": sys, "kind": "human" if sys == "H" else "MT",
                          "n": n, "mp": v}
                         for (s, m), by_sys in curves.items() for sys, vals in by_sys.items()
                         for n, v in enumerate(vals, 1)])


# s1 Otem: MT systems worse than H (larger mp) at n=1: A, B; at n=2: A, C -> 2-2 of 3 > 1.5: better than most.
# Utem (both settings): one of three worse at each n -> 1-1 of 3 < 1.5: worse than most.
# s2 Otem: at n=1 A, C worse; at n=2 only B -> 1-2 of 3: among.
UTEM = {"H": [0.5, 0.6], "A": [0.4, 0.7], "B": [0.3, 0.5], "C": [0.6, 0.5]}
CURVES = {("s1", "Otem"): {"H": [0.2, 0.1], "A": [0.3, 0.2], "B": [0.25, 0.05], "C": [0.1, 0.3]},
          ("s1", "Utem"): UTEM,
          ("s2", "Otem"): {"H": [0.2, 0.2], "A": [0.3, 0.1], "B": [0.1, 0.3], "C": [0.25, 0.1]},
          ("s2", "Utem"): UTEM}


def test_human_standing_counts_the_mt_systems_worse_than_the_human_translation():
    st = study.human_standing(_mp(CURVES))
    assert st.values.tolist() == [["s1", "Otem", 2, 2, 3, "better than most"], ["s1", "Utem", 1, 1, 3, "worse than most"],
                                  ["s2", "Otem", 1, 2, 3, "among"], ["s2", "Utem", 1, 1, 3, "worse than most"]]
    assert study.fig2_summary(st) == "s1: Otem 2 of 3, Utem 1 of 3; s2: Otem 1–2 of 3, Utem 1 of 3"


def test_exactly_half_worse_is_among():
    # Four MT systems, two of them worse than H at both n: neither more nor fewer than half.
    half = {("s", "Otem"): {"H": [0.2, 0.2], "A": [0.3, 0.3], "B": [0.4, 0.4], "C": [0.1, 0.1], "D": [0.2, 0.0]}}
    assert study.human_standing(_mp(half)).standing.tolist() == ["among"]


def test_fig2_verdict_is_the_count_sentence_and_whether_both_metrics_set_it_ahead():
    st = study.human_standing(_mp(CURVES))
    assert study.fig2_verdict(st) == (study.fig2_verdict_short(st) + ". So in no tested setting do both metrics set "
                                      "the human translation apart from (ahead of) these MT systems, as the paper's "
                                      "Figure 2 set it apart from RNNSearch.")
    # Utem's human translation ahead in s1 too (H's proportions the smallest): both set it ahead there only.
    ahead = CURVES | {("s1", "Utem"): {"H": [0.1, 0.1], "A": [0.4, 0.7], "B": [0.3, 0.5], "C": [0.6, 0.5]}}
    assert study.fig2_verdict(study.human_standing(_mp(ahead))).endswith(
        "Both set it ahead of most MT systems at every $n$ only in s1.")


def test_fig2_verdict_short_says_what_the_counts_say():
    # s1 Otem: 2 of 3 MT systems behind H at both n; s2 Otem: 1 at n=1, 2 at n=2 (half is 1.5): the verdict flips.
    st = study.human_standing(_mp(CURVES))
    assert study.fig2_verdict_short(st) == (
        "Otem: the human translation is ahead of most MT systems at every $n$ (ahead of 2 of 3 for s1); ahead of most "
        "MT systems at some $n$ and behind most at others, so the verdict changes with $n$ (ahead of 1–2 of 3 for s2). "
        "Utem: the human translation is behind most MT systems at every $n$ (ahead of 1 of 3 for s1, 1 of 3 for s2)")
    # Exactly half at every n: neither ahead of nor behind most.
    half = {("s", "Otem"): {"H": [0.2, 0.2], "A": [0.3, 0.3], "B": [0.4, 0.4], "C": [0.1, 0.1], "D": [0.2, 0.0]}}
    assert study.fig2_verdict_short(study.human_standing(_mp(half))) == (
        "Otem: the human translation is neither ahead of nor behind most MT systems at every $n$ (ahead of 2 of 4 "
        "for s)")


def test_fig2_verdict_short_sets_an_original_apart():
    # The same curves, s2 relabelled as TED zh-en with refA, the talk's original: out of the verdict, labelled.
    ted = study.setting_label("wmt21.tedtalks", "zh-en", "refA", ["refB"])
    assert ted == "wmt21.tedtalks zh-en: refA vs refB"
    assert study.is_original(ted)
    assert not study.is_original(study.setting_label("wmt21.tedtalks", "zh-en", "refB", ["refA"]))
    assert not study.is_original(study.setting_label("wmt19", "en-de", "refAR", ["ref", "refWMTp"]))
    mp = _mp(CURVES).replace({"setting": {"s2": ted}})
    assert study.fig2_verdict_short(study.human_standing(mp)) == (
        "Otem: the human translation is ahead of most MT systems at every $n$ (ahead of 2 of 3 for s1). "
        "Utem: the human translation is behind most MT systems at every $n$ (ahead of 1 of 3 for s1). "
        'Not a test of the metrics, the "human translation" being the original the source was translated from: '
        "wmt21.tedtalks zh-en: refA vs refB (Otem ahead of 1–2 of 3, Utem ahead of 1 of 3)")


def test_mp_direction_compares_first_and_last_n():
    # Utem MT medians: n=1 median(0.4, 0.3, 0.6) = 0.4, n=2 median(0.7, 0.5, 0.5) = 0.5: rises; H 0.5 -> 0.6 rises.
    # Otem s1 MT medians 0.25 -> 0.2: falls; H 0.2 -> 0.1: falls.
    mp = _mp(CURVES)
    assert study.mp_direction(mp, "Utem") == ("s1: rises for the MT systems (median), rises for the human "
                                              "translation; s2: rises for the MT systems (median), rises for the "
                                              "human translation")
    assert study.mp_direction(mp[mp.setting == "s1"], "Otem") == ("s1: falls for the MT systems (median), falls "
                                                                  "for the human translation")


def test_fig2_notes_only_for_ted_zh_en_ref_a():
    assert "English original" in study.fig2_notes([("wmt21.tedtalks", "zh-en", "refA")])
    assert study.fig2_notes([("wmt19", "en-de", "refAR")]) == ""


# -- PERM-BOTH verdicts -----------------------------------------------------------------------------

def _versus(gap_r, p_r, gap_t, p_t, tie_t=0.5):
    return pd.DataFrame({"gap": [gap_r, gap_t], "tie": [0.02, tie_t], "p": [p_r, p_t]}, index=["r", "τ"])


def test_versus_sentence_needs_p_below_five_percent_for_more_or_less():
    assert study.versus_sentence(_versus(0.2, 0.01, 0.6, 0.02), "OTEM") == (
        "OTEM agrees with the human score more than BLEU on both r and τ (by 0.200 and 0.600; PERM-BOTH p = 0.010 "
        "and p = 0.020)")
    assert study.versus_sentence(_versus(-0.2, 0.2, 0.1, 0.001), "OTEM") == (
        "OTEM agrees with the human score not significantly (at 5%) less than BLEU on r (by 0.200; PERM-BOTH "
        "p = 0.200) and about as much as BLEU on τ (by 0.100; within the margin, though PERM-BOTH finds OTEM ahead "
        "at 5%: p = 0.001)")
    # Two ties, one of them with a significant p: each statistic in its own words.
    assert study.versus_sentence(_versus(-0.01, 0.03, 0.1, 0.5), "OTEM") == (
        "OTEM agrees with the human score about as much as BLEU on r (by 0.010; within the margin, though PERM-BOTH "
        "finds OTEM behind at 5%: p = 0.030) and about as much as BLEU on τ (by 0.100; PERM-BOTH p = 0.500)")
    # p = 0.05 is not below 5%; a missing p says the claim was not tested
    assert "not significantly (at 5%) more than BLEU on r" in study.versus_sentence(_versus(0.2, 0.05, 0, 1), "O")
    # no permutation reached the observed gap: the bound is 1 / the permutations that ran
    assert study.versus_sentence(_versus(0.2, 0.0, 0.6, 0.0), "O", n_permutations=200).endswith(
        "(by 0.200 and 0.600; PERM-BOTH p < 0.005 and p < 0.005)")
    assert study.mqm_verdicts(_ted_corr(), _tests(p_add=0.0), n_permutations=200).split("\n")[0].count("p < 0.005") == 1
    assert "(PERM-BOTH p < 0.005, but" in study.mqm_summary(_ted_corr(), _tests(p_add=0.0), n_permutations=200)
    assert study.versus_sentence(_versus(0.2, math.nan, 0.0, math.nan), "O") == (
        "O agrees with the human score more than BLEU on r (by 0.200; PERM-BOTH not tested) and about as much as "
        "BLEU on τ (by 0.000; PERM-BOTH not tested)")


def test_verdicts_per_statistic_with_ties_as_the_rule_sets_them():
    # OTEM = -human: oriented r = tau = 1. BLEU: r = 0.8, tau = 4/6. r: 0.2 apart (> 0.02), but with four systems
    # PERM-BOTH cannot reach 5% (the identity swap alone, 1 in 16, ties the observed gap): not significantly more;
    # tau: one swapped pair of four systems (1/3 < 1.5 pairs = 0.5): about as much.
    tests = study.versus_tests(_table([-1.0, -2.0, -3.0, -4.0]), "OTEM", SIGNS, seed=1)
    assert tests["gap"].round(6).tolist() == [0.2, round(1 / 3, 6)]
    assert tests["p"].min() > 0.05
    text = versus_baseline(_table([-1.0, -2.0, -3.0, -4.0]), "OTEM", SIGNS, seed=1)
    assert text.startswith("OTEM agrees with the human score not significantly (at 5%) more than BLEU on r (by 0.200; "
                           "PERM-BOTH p = ")
    assert "and about as much as BLEU on τ (by 0.333; PERM-BOTH p = " in text
    same = versus_baseline(_table([-1.0, -2.0, -4.0, -3.0]), "OTEM", SIGNS, seed=1)
    assert same.startswith("OTEM agrees with the human score about as much as BLEU on both r and τ (by 0.000 and 0.000")


def _ranked(n=14):
    """n systems: OTEM = -human (oriented: perfect); BLEU follows the humans only in its halves' order."""
    human = np.arange(1.0, n + 1)
    bleu = np.r_[human[n // 2:], human[:n // 2]]  # the better half scored lower: r = -0.5 or so
    return pd.DataFrame({"human": human, "BLEU": bleu, "OTEM": -human}, index=[f"s{i}" for i in range(n)])


def test_versus_tests_orient_lower_is_better_metrics():
    table = _ranked()
    tests = study.versus_tests(table, "OTEM", SIGNS, n_permutations=1000, seed=7)
    assert tests.loc["r", "agreement"] == pytest.approx(1.0)
    assert tests.loc["r", "gap"] == pytest.approx(1.0 - table.BLEU.corr(table.human))
    # p of "OTEM (negated) correlates better than BLEU", the direction observed
    expected = perm_both(table.BLEU, -table.OTEM, table.human, "pearson", n_permutations=1000, seed=7).pvalue
    assert tests.loc["r", "p"] == expected < 0.05
    assert versus_baseline(table, "OTEM", SIGNS, seed=7).startswith(
        "OTEM agrees with the human score more than BLEU on both r and τ")
    # Read the wrong way round (OTEM as higher-is-better), it agrees less, and the p is that of "less".
    wrong = study.versus_tests(table, "OTEM", {"BLEU": 1, "OTEM": 1}, seed=7)
    assert wrong.loc["r", "gap"] < 0
    assert wrong.loc["r", "p"] == perm_both(table.OTEM, table.BLEU, table.human, "pearson", seed=7).pvalue < 0.05
    assert versus_baseline(table, "OTEM", {"BLEU": 1, "OTEM": 1}, seed=7).startswith(
        "OTEM agrees with the human score less than BLEU on both r and τ")


def test_versus_table_and_table_verdict():
    table = _ranked().assign(UTEM=lambda d: -d.BLEU)
    versus = study.versus_table(table, ["OTEM", "UTEM"], SIGNS | {"UTEM": -1}, seed=3)
    assert versus.index.tolist() == [("OTEM", "r"), ("OTEM", "τ"), ("UTEM", "r"), ("UTEM", "τ")]
    assert versus.loc[("UTEM", "r"), "gap"] == 0  # UTEM = -BLEU: the same agreement once oriented
    verdict = study.table_verdict(versus)
    assert verdict.startswith("OTEM agrees with the human score more than BLEU on both r and τ")
    assert "; UTEM agrees with the human score about as much as BLEU on both r and τ (by 0.000 and 0.000" in verdict


# -- Figures 3-4: MQM errors ------------------------------------------------------------------------

def _ted(bleu, additions):
    systems = list("abcde")
    scores = {"OTEM-2": {s: float(np.mean(additions[s])) for s in systems},  # OTEM-2 = the addition rate
              "BLEU": dict(zip(systems, bleu))}
    return {"x": {"systems": systems, "stats": {m: SimpleNamespace(system_scores=lambda v=v: v) for m, v in scores.items()},
                  "counts": {"Addition": additions}}}


ADDITIONS = {"a": [0, 0], "b": [1, 0], "c": [1, 1], "d": [2, 1], "e": [2, 2]}  # rates 0, 0.5, 1, 1.5, 2


def test_mqm_tests_orient_errors_and_metrics():
    # BLEU rises with the errors: agreement -1; OTEM-2 rises with them too, which is agreement +1.
    tests = study.mqm_tests(_ted([1, 2, 3, 4, 5], ADDITIONS), MQM_SIGNS, pairs=[("Addition", "OTEM-2")], seed=2)
    t = tests.iloc[0]
    assert (t.lp, t.errors, t.metric, t.fewest, t.most) == ("x", "Addition", "OTEM-2", 0, 4)
    assert (t.agreement, t["BLEU agreement"], t.gap) == pytest.approx((1.0, -1.0, 2.0))
    rates = np.array([0, 0.5, 1, 1.5, 2])
    assert t.p == perm_both([1, 2, 3, 4, 5], -rates, -rates, "pearson", seed=2).pvalue
    # No system with an error: no correlation, no test.
    none = study.mqm_tests(_ted([1, 2, 3, 4, 5], {s: [0, 0] for s in "abcde"}), MQM_SIGNS,
                           pairs=[("Addition", "OTEM-2")], seed=2)
    assert math.isnan(none.p.iloc[0])


def _ted_corr():
    rows = [("x", "Addition", "OTEM-2", 0.5, 0.1, 0.8, 13), ("x", "Addition", "BLEU", 0.1, -0.3, 0.4, 13),
            ("x", "Omission", "UTEM-4", 0.6, 0.2, 0.9, 40), ("x", "Omission", "BLEU", 0.7, 0.3, 0.9, 40)]
    return pd.DataFrame(rows, columns=["lp", "errors", "metric", "agreement r", "low", "high", "errors counted"])


def _tests(p_add=0.01, p_om=0.3):
    return pd.DataFrame([("x", "Addition", "OTEM-2", 0.4, p_add, 1, 3), ("x", "Omission", "UTEM-4", -0.1, p_om, 6, 9)],
                        columns=["lp", "errors", "metric", "gap", "p", "fewest", "most"])


def test_agreement_lines_and_error_totals():
    assert study.agreement_lines(_ted_corr()) == ("x: OTEM-2 +0.50 [+0.10, +0.80] vs BLEU +0.10 [-0.30, +0.40] on "
                                                  "additions, UTEM-4 +0.60 [+0.20, +0.90] vs BLEU +0.70 [+0.30, +0.90] "
                                                  "on omissions")
    assert study.error_totals(_ted_corr()) == "x: 13 additions, 40 omissions"


def test_mqm_verdicts_rest_on_perm_both():
    lines = study.mqm_verdicts(_ted_corr(), _tests()).split("\n")
    assert lines[0] == ("* x, additions (1–3 per system): OTEM-2's agreement is above zero, BLEU's not distinguishable "
                        "from zero; OTEM-2 tracks additions better than BLEU (+0.400 in agreement r; PERM-BOTH "
                        "p = 0.010). With at most 3 marked errors per system, r rests on a handful of events and "
                        "means little here (PERM-BOTH holds the error counts fixed, so its p leaves their noise out).")
    assert lines[1] == ("* x, omissions (6–9 per system): both UTEM-4's and BLEU's agreement intervals lie above zero; "
                        "UTEM-4 is not shown to track omissions better or worse than BLEU: the difference in "
                        "agreement r (-0.100) is not significant at 5% (PERM-BOTH p = 0.300).")
    assert "UTEM-4 was not tested against BLEU" in study.mqm_verdicts(_ted_corr(), _tests(p_om=math.nan))
    assert study.mqm_verdicts(_ted_corr(), _tests(p_add=0.2)).split("\n")[0].endswith(
        "(PERM-BOTH p = 0.200). With at most 3 marked errors per system, r rests on a handful of events and means "
        "little here.")


def test_mqm_summary():
    assert study.mqm_summary(_ted_corr(), _tests()) == (
        "the agreement interval lies above zero for OTEM-2 on x additions, UTEM-4 on x omissions (and BLEU's); "
        "Otem or Utem tracks the errors significantly (at 5%) better than BLEU for OTEM-2 on x additions "
        "(PERM-BOTH p = 0.010, but at most 3 marked errors per system); in the other 1 analysis the difference from BLEU is not significant "
        "(PERM-BOTH p = 0.300)")
    # OTEM-2's own interval including zero is said beside its significant p; with more errors, alone.
    zero = _ted_corr().assign(low=lambda d: d.low.where(d.metric != "OTEM-2", -0.2))
    assert ("better than BLEU for OTEM-2 on x additions (PERM-BOTH p = 0.010, but its own agreement interval "
            "[-0.20, +0.80] includes zero and there are at most 3 marked errors per system); in the other"
            in study.mqm_summary(zero, _tests()))
    assert ("better than BLEU for OTEM-2 on x additions (PERM-BOTH p = 0.010, but its own agreement interval "
            "[-0.20, +0.80] includes zero); in the other" in study.mqm_summary(zero, _tests(), few_errors=2))
    assert "x additions (PERM-BOTH p = 0.010); in the other" in study.mqm_summary(_ted_corr(), _tests(), few_errors=2)
    assert study.mqm_summary(_ted_corr(), _tests(p_add=0.2)).endswith(
        "in no analysis does Otem or Utem track the errors significantly (at 5%) better or worse than BLEU "
        "(PERM-BOTH p from 0.200 to 0.300)")


# -- Table 1 --------------------------------------------------------------------------------------

def test_rank_moves_ratio_and_correlations():
    table = pd.DataFrame({"human": [3.0, 2.0, 1.0], "BLEU": [30.0, 20.0, 10.0], "OTEM": [1.0, 3.0, 2.0],
                          "OTEM (authors)": [2.0, 12.0, 6.0]}, index=list("abc"))
    moves = study.rank_moves(table, "OTEM", SIGNS)  # BLEU ranks a, b, c = 1, 2, 3; OTEM (lower better) 1, 3, 2
    assert moves.tolist() == [0, 1, 1]
    assert study.rank_move_text(moves) == "the largest move: b, 1 places"
    assert study.median_ratio_text(table, "OTEM (authors)", "OTEM") == "3.0 times"  # ratios 2, 4, 3
    t = _table([-1.0, -2.0, -3.0, -4.0])
    assert study.correlations_text(t, SIGNS) == "BLEU +0.800, OTEM -1.000"
    assert study.correlations_text(t, SIGNS, method="kendall") == "BLEU +0.667, OTEM -1.000"


def test_without_lowest_drops_the_lowest_human_score():
    text = without_lowest(_table([-1.0, -2.0, -3.0, -4.0]), SIGNS)
    assert text.startswith("The lowest-scored system, a (human z 1.000, BLEU 1.00; the next lowest z is 2.000)")
    # Without a: human (2, 3, 4), BLEU (2, 4, 3): r = 0.5; OTEM = -human: r = -1.
    assert text.endswith("without it r is BLEU +0.500, OTEM -1.000")


def test_the_conclusion_claims_the_toy_values_to_the_precision_tested():
    # tests/test_otem_utem.py checks the authors' toy values with abs=5e-5: four decimals, not "exactly".
    root = Path(__file__).parents[1]
    assert "pytest.approx(otem1, abs=5e-5)" in (root / "tests" / "test_otem_utem.py").read_text()
    cells = json.loads((root / "notebooks" / "otem_utem.ipynb").read_text())["cells"]
    conclusion = next("".join(c["source"]) for c in cells if "## Conclusion" in "".join(c["source"]))
    assert "to the four decimals the authors report, their toy values (OTEM .1242" in conclusion
    assert "exactly" not in conclusion


def test_variant_paragraph_quotes_ratios_only_with_several_references():
    table = pd.DataFrame({"OTEM-2": [1.0, 2.0], "OTEM-2 (authors)": [2.0, 4.5], "UTEM-4": [10.0, 20.0],
                          "UTEM-4 (authors)": [30.0, 60.0]})
    assert study.variant_paragraph(table, 2).startswith(
        "With 2 references the authors' variant makes OTEM-2 2.1 times as large (median over systems; the largest "
        "difference is 2.50 points) and UTEM-4 3.0 times as large: for Otem,")
    one = study.variant_paragraph(table, 1)
    assert one.startswith("With one reference, as in this run, the authors' script and the paper's equations give "
                          "the same numbers") and "times" not in one


def test_data_line_names_each_set_once_with_its_citation():
    line = study.data_line([("wmt19", "en-de", "refAR"), ("wmt21.tedtalks", "zh-en", "refA")],
                           [("wmt21.tedtalks", "en-de"), ("wmt21.tedtalks", "zh-en")], ("wmt19", "en-de"),
                           ["ref", "refAR"], 300)
    assert line == ("wmt19 en-de from the WMT19 news and metrics tasks (Barrault et al. 2019; Ma et al. 2019) "
                    "with the references of Freitag et al. (2020); wmt21.tedtalks zh-en and en-de from the WMT21 metrics "
                    "task, TED talks, expert MQM (Freitag et al. 2021); the first 300 segments of each, or all of a "
                    "shorter one")
    other = study.data_line([("wmt21.tedtalks", "zh-en", "refB")], [("wmt21.tedtalks", "en-de")], ("wmt18", "de-en"),
                            ["ref"], None)
    assert other == ("wmt21.tedtalks zh-en and en-de from the WMT21 metrics task, TED talks, expert MQM (Freitag et "
                     "al. 2021); wmt18 de-en from the WMT18 news and metrics tasks (Bojar et al. 2018; Ma et al. "
                     "2018); all segments of each")


def test_error_totals_count_in_words():
    one = _ted_corr().assign(**{"errors counted": [1, 1, 2, 2]})
    assert study.error_totals(one) == "x: 1 addition, 2 omissions"
