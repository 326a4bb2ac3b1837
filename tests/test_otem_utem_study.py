"""The Otem/Utem chapter's tables and sentences, on small cases whose answers are worked out by hand."""

import json
import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from mtbook.studies import otem_utem as study
from mtbook.studies.otem_utem import without_lowest
from mtbook import comparisons
from mtlib.significance import Comparison, Verdict, compare

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
    assert study.standing_by_setting(st)[1] == {"setting": "s2", "rows": [
        {"metric": "Otem", "lowest": 1, "highest": 2, "systems": 3}, {"metric": "Utem", "lowest": 1, "highest": 1,
                                                                      "systems": 3}]}


def test_exactly_half_worse_is_among():
    # Four MT systems, two of them worse than H at both n: neither more nor fewer than half.
    half = {("s", "Otem"): {"H": [0.2, 0.2], "A": [0.3, 0.3], "B": [0.4, 0.4], "C": [0.1, 0.1], "D": [0.2, 0.0]}}
    assert study.human_standing(_mp(half)).standing.tolist() == ["among"]


def test_place_says_what_the_counts_say():
    assert study.place(2, 2, 3) is study.Place.AHEAD and study.place(1, 1, 3) is study.Place.BEHIND
    assert study.place(1, 2, 3) is study.Place.CHANGES  # half is 1.5: the verdict flips with n
    assert study.place(2, 2, 4) is study.Place.NEITHER  # exactly half


def test_fig2_findings_group_the_settings_and_say_whether_both_metrics_set_it_ahead():
    st = study.human_standing(_mp(CURVES))
    found = study.fig2_findings(st)
    otem, utem = found["metrics"]
    assert otem == {"metric": "Otem", "groups": [
        {"place": "ahead", "counts": [{"lowest": 2, "highest": 2, "systems": 3, "setting": "s1"}]},
        {"place": "changes", "counts": [{"lowest": 1, "highest": 2, "systems": 3, "setting": "s2"}]}]}
    assert [g["place"] for g in utem["groups"]] == ["behind"] and len(utem["groups"][0]["counts"]) == 2
    assert found["originals"] == [] and found["ahead"] == []
    # Utem's human translation ahead in s1 too (H's proportions the smallest): both set it ahead there only.
    ahead = CURVES | {("s1", "Utem"): {"H": [0.1, 0.1], "A": [0.4, 0.7], "B": [0.3, 0.5], "C": [0.6, 0.5]}}
    assert study.fig2_findings(study.human_standing(_mp(ahead)))["ahead"] == ["s1"]


def test_fig2_findings_set_an_original_apart():
    # The same curves, s2 relabelled as TED zh-en with refA, the talk's original: out of the verdict, listed apart.
    ted = study.setting_label("wmt21.tedtalks", "zh-en", "refA", ["refB"])
    assert ted == "wmt21.tedtalks zh-en: refA vs refB"
    assert study.is_original(ted)
    assert not study.is_original(study.setting_label("wmt21.tedtalks", "zh-en", "refB", ["refA"]))
    assert not study.is_original(study.setting_label("wmt19", "en-de", "refAR", ["ref", "refWMTp"]))
    found = study.fig2_findings(study.human_standing(_mp(CURVES).replace({"setting": {"s2": ted}})))
    assert [c["setting"] for x in found["metrics"] for g in x["groups"] for c in g["counts"]] == ["s1", "s1"]
    assert [o["setting"] for o in found["originals"]] == [ted]


def test_mp_directions_compare_first_and_last_n():
    # Utem MT medians: n=1 median(0.4, 0.3, 0.6) = 0.4, n=2 median(0.7, 0.5, 0.5) = 0.5: rises; H 0.5 -> 0.6 rises.
    # Otem s1 MT medians 0.25 -> 0.2: falls; H 0.2 -> 0.1: falls.
    mp = _mp(CURVES)
    assert study.mp_directions(mp, "Utem") == [{"setting": "s1", "mt": "rises", "human": "rises"},
                                               {"setting": "s2", "mt": "rises", "human": "rises"}]
    assert study.mp_directions(mp[mp.setting == "s1"], "Otem") == [{"setting": "s1", "mt": "falls", "human": "falls"}]


def test_has_original_only_for_ted_zh_en_ref_a():
    assert study.has_original([("wmt21.tedtalks", "zh-en", "refA")])
    assert not study.has_original([("wmt19", "en-de", "refAR")])


# -- the page's comparisons: two-sided PERM-BOTH, one Holm family ------------------------------------

def _ranked(n=14):
    """n systems: OTEM = -human (oriented: perfect); BLEU follows the humans only in its halves' order."""
    human = np.arange(1.0, n + 1)
    bleu = np.r_[human[n // 2:], human[:n // 2]]  # the better half scored lower: r = -0.5 or so
    return pd.DataFrame({"human": human, "BLEU": bleu, "OTEM": -human}, index=[f"s{i}" for i in range(n)])


def test_versus_tests_orient_lower_is_better_metrics_and_test_two_sided():
    table = _ranked()
    entries = study.versus_tests(table, ["OTEM"], SIGNS, data="toy", n_permutations=1000, seed=7)
    assert [(e[0], e[1], e[2], e[3]) for e in entries] == [
        ({"analysis": "Table 1 human score", "data": "toy"}, "BLEU", "OTEM", "oriented r"),
        ({"analysis": "Table 1 human score", "data": "toy"}, "BLEU", "OTEM", "oriented τ")]
    r = entries[0][4]
    assert r.corr_b == pytest.approx(1.0) and r.delta == pytest.approx(1.0 - table.BLEU.corr(table.human))
    assert (r.alternative, r.unit, r.n_units) == ("two-sided", "system", 14)
    # the p of "OTEM (negated) and BLEU differ", either way
    assert r.p == compare(table.BLEU, -table.OTEM, table.human, "pearson", n_permutations=1000, seed=7).p < 0.05
    assert entries[1][4].corr_b == pytest.approx(1.0) and entries[1][4].method == "kendall"
    rows = comparisons.family(entries)
    assert [c.verdict for c in rows] == [Verdict.B_BETTER] * 2
    assert study.versus_findings(rows) == [{"metric": "OTEM", "same": True, "stats": rows}]
    # Read the wrong way round (OTEM as higher-is-better), it agrees less: BLEU (A) is better.
    wrong = comparisons.family(study.versus_tests(table, ["OTEM"], {"BLEU": 1, "OTEM": 1}, seed=7))
    assert wrong[0].delta < 0 and wrong[0].verdict is Verdict.A_BETTER


# h, a BLEU that swaps three pairs of neighbours, OTEM = -h (oriented: h) and UTEM = -BLEU (oriented: BLEU)
HOLM = pd.DataFrame({"human": [0.0, 1.0, 2.0, 3.0, 5.0, 6.5], "BLEU": [1.0, 0.0, 3.0, 2.0, 6.5, 5.0]},
                    index=list("abcdef")).assign(OTEM=lambda d: -d.human, UTEM=lambda d: -d.BLEU)


def test_holm_lifts_a_raw_p_below_five_percent_and_a_tie_is_an_exact_tie():
    entries = study.versus_tests(HOLM, ["OTEM", "UTEM"], SIGNS | {"UTEM": -1}, n_permutations=4000, seed=2)
    otem_r, otem_t, utem_r, utem_t = comparisons.family(entries)
    # OTEM ahead on r by 0.141 and on tau by 0.4, raw p = 0.0325 each (the floor of these draws: the perfect
    # metric is beaten only by the draws that swap nothing or everything, 2^-5 = 0.031 of them, exactly)
    assert otem_r.delta == pytest.approx(0.1407, abs=1e-4) and otem_t.delta == pytest.approx(0.4)
    assert otem_r.p == otem_t.p == otem_r.mc_floor == 0.0325 and otem_r.exact_floor == 0.5 ** 5
    # four tests (the ties' p = 1 count): 4 x 0.0325 = 0.13, above 5%: no difference shown
    assert otem_r.p_holm == otem_t.p_holm == pytest.approx(0.13)
    assert otem_r.verdict is otem_t.verdict is Verdict.NOT_SHOWN
    # UTEM = -BLEU: the same oriented scores, a tie on both statistics (p = 1), not a lead
    assert (utem_r.verdict, utem_r.p, utem_r.delta, utem_t.verdict) == (Verdict.TIE, 1.0, 0.0, Verdict.TIE)
    counts = comparisons.family_counts([otem_r, otem_t, utem_r, utem_t])
    assert (counts["tests"], counts["raw_significant"], counts["B better"], counts["tie"]) == (4, 2, 0, 2)
    otem, utem = study.versus_findings([otem_r, otem_t, utem_r, utem_t])
    assert otem["same"] and utem["same"] and utem["stats"] == [utem_r, utem_t]
    assert study.family_floor([otem_r, utem_r]) == {"n_units": 6, "unit": "system", "exact_floor": 0.5 ** 5}


def test_four_systems_cannot_reach_five_percent():
    # OTEM = -human: oriented r = tau = 1, BLEU r = 0.8: two-sided, no p can fall below 2^-3 = 0.125 over four systems
    [r, t] = comparisons.family(study.versus_tests(_table([-1.0, -2.0, -3.0, -4.0]), ["OTEM"], SIGNS, seed=1))
    assert r.exact_floor == 0.125 and r.p >= 0.1 and t.p >= 0.1
    assert r.verdict is t.verdict is Verdict.NOT_SHOWN
    assert study.family_floor([r, t])["exact_floor"] == 0.125
    assert study.family_floor([]) is None


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
    [entry] = study.mqm_tests(_ted([1, 2, 3, 4, 5], ADDITIONS), MQM_SIGNS, pairs=[("Addition", "OTEM-2")], seed=2)
    setting, a, b, stat, c = entry
    assert (setting, a, b, stat) == ({"analysis": "MQM additions", "data": "x"}, "BLEU", "OTEM-2", "agreement r")
    assert (c.corr_b, c.corr_a, c.delta) == pytest.approx((1.0, -1.0, 2.0))
    rates = np.array([0, 0.5, 1, 1.5, 2])
    assert c.p == compare([1, 2, 3, 4, 5], -rates, -rates, "pearson", seed=2).p and c.alternative == "two-sided"
    assert study.error_ranges(_ted([1, 2, 3, 4, 5], ADDITIONS), pairs=[("Addition", "OTEM-2")]) == [
        {"lp": "x", "errors": "Addition", "fewest": 0, "most": 4, "total": 10}]
    # Every system with the same error rate (two errors each, enough to test): no correlation, an untested
    # comparison (left out of Holm's count).
    [same] = study.mqm_tests(_ted([1, 2, 3, 4, 5], {s: [1, 1] for s in "abcde"}), MQM_SIGNS,
                             pairs=[("Addition", "OTEM-2")], seed=2)
    [row] = comparisons.family([same])
    assert row.verdict is Verdict.UNTESTED and math.isnan(row.p) and "human scores are constant" in row.reason


def test_too_few_marked_errors_are_shown_but_not_tested():
    # the rule: fewer than 2 per system on average; a Poisson count of mean 2 lands in 0..5 in 95% of draws
    assert study.MIN_ERRORS_PER_SYSTEM == 2
    assert study.too_few(25, 13) and not study.too_few(26, 13) and study.too_few(12, 13)
    assert study.too_few(13, 13)  # one per system on average (WMT21 TED en-de's additions) is not enough
    assert study.error_rule() == {"per_system": 2, "level": 0.95, "low": 0, "high": 5}
    # 9 errors over 5 systems (rates 0, 0.5, 0.5, 1, 2.5): below 10, so untested, its correlations still given
    thin = {"a": [0, 0], "b": [1, 0], "c": [0, 1], "d": [1, 1], "e": [3, 2]}
    [(setting, a, b, stat, c)] = study.mqm_tests(_ted([1, 2, 3, 4, 5], thin), MQM_SIGNS,
                                                 pairs=[("Addition", "OTEM-2")], seed=2)
    rates = np.array([0, 0.5, 0.5, 1, 2.5])
    assert c.corr_b == pytest.approx(1.0) and c.corr_a == pytest.approx(-np.corrcoef([1, 2, 3, 4, 5], rates)[0, 1])
    assert math.isnan(c.p) and c.reason == study.TOO_FEW == "too few marked errors to test"
    [row] = comparisons.family([(setting, a, b, stat, c)])
    assert row.verdict is Verdict.UNTESTED and comparisons.family_counts([row])["tests"] == 0
    # the same counts with a lower minimum: tested
    [(*_, tested)] = study.mqm_tests(_ted([1, 2, 3, 4, 5], thin), MQM_SIGNS, pairs=[("Addition", "OTEM-2")], seed=2,
                                     per_system=1)
    assert not math.isnan(tested.p) and tested.delta == pytest.approx(c.delta)


def _ted_corr():
    rows = [("x", "Addition", "OTEM-2", 0.5, 0.1, 0.8, 13), ("x", "Addition", "BLEU", 0.1, -0.3, 0.4, 13),
            ("x", "Omission", "UTEM-4", 0.6, 0.2, 0.9, 40), ("x", "Omission", "BLEU", 0.7, 0.3, 0.9, 40)]
    return pd.DataFrame(rows, columns=["lp", "errors", "metric", "agreement r", "low", "high", "errors counted"])


RANGES = [{"lp": "x", "errors": "Addition", "fewest": 1, "most": 3}, {"lp": "x", "errors": "Omission", "fewest": 6,
                                                                     "most": 9}]


def _rows(p_add=0.004, p_om=0.3, n_more=0):
    """The page family's two MQM rows, beside ``n_more`` other tests with p = 0.5."""
    def comp(delta, p):
        return Comparison(0.1, 0.1 + delta, delta, p, "two-sided", 5, 5, "system", 1 / 16, 0.06, "pearson", 1000, 1)
    entries = [({"analysis": "MQM additions", "data": "x"}, "BLEU", "OTEM-2", "agreement r", comp(0.4, p_add)),
               ({"analysis": "MQM omissions", "data": "x"}, "BLEU", "UTEM-4", "agreement r", comp(-0.1, p_om))]
    return comparisons.family(entries + [({}, "A", "B", "r", comp(0.2, 0.5))] * n_more)[:2]


def test_agreements_and_error_totals():
    [x] = study.agreements(_ted_corr())
    assert x["lp"] == "x" and x["pairs"][0] == {"errors": "Addition", "metric": "OTEM-2",
                                                "own": {"r": 0.5, "low": 0.1, "high": 0.8},
                                                "baseline": {"r": 0.1, "low": -0.3, "high": 0.4}}
    assert study.error_totals(_ted_corr()) == [{"lp": "x", "counts": [{"errors": "Addition", "n": 13},
                                                                      {"errors": "Omission", "n": 40}]}]


def test_mqm_findings_rest_on_the_holm_adjusted_p():
    rows = _rows()
    add, om = study.mqm_findings(_ted_corr(), rows, RANGES)
    assert add == {"lp": "x", "errors": "Addition", "metric": "OTEM-2", "fewest": 1, "most": 3, "total": 13,
                   "systems": 5, "own": "above", "base": "zero", "c": rows[0], "too_few": False}
    assert rows[0].p_holm == pytest.approx(0.008) and rows[0].verdict is Verdict.B_BETTER
    assert (om["own"], om["base"], om["c"].verdict, om["too_few"]) == ("above", "above", Verdict.NOT_SHOWN, False)
    # 13 additions over 5 systems are too few with a minimum of 3 per system
    assert study.mqm_findings(_ted_corr(), rows, RANGES, per_system=3)[0]["too_few"]
    # beside 18 more tests, 20 x 0.004 = 0.08: the raw p is below 5%, the adjusted one is not
    lifted = _rows(n_more=18)[0]
    assert lifted.p < 0.05 < lifted.p_holm and lifted.verdict is Verdict.NOT_SHOWN


def test_mqm_summary_counts_the_verdicts():
    rule = {"per_system": 2, "level": 0.95, "low": 0, "high": 5}
    assert study.mqm_summary(_ted_corr(), _rows(), RANGES) == {
        "n": 2, "tested": 2, "better": 1, "worse": 0, "above": 2, "above_both": 1, "too_few": [], "too_few_sets": [],
        "untested_other": 0, "rule": rule}
    s = study.mqm_summary(_ted_corr(), _rows(n_more=18), RANGES)
    assert (s["better"], s["worse"]) == (0, 0)
    untested = study.mqm_summary(_ted_corr(), _rows(p_om=math.nan), RANGES)
    assert (untested["tested"], untested["untested_other"]) == (1, 1)


def test_too_few_marked_errors_count_neither_way_in_the_summary():
    # with at least 3 errors per system required, the 13 additions over 5 systems are too few: even a "better"
    # verdict there does not count; the 40 omissions still do
    s = study.mqm_summary(_ted_corr(), _rows(), RANGES, per_system=3)
    assert (s["n"], s["tested"], s["better"], s["worse"], s["untested_other"]) == (2, 1, 0, 0, 0)
    assert s["too_few"] == [{"metric": "OTEM-2", "lp": "x", "errors": "Addition", "total": 13, "systems": 5}]
    assert s["too_few_sets"] == [{"lp": "x", "errors": ["Addition"]}] and s["rule"]["per_system"] == 3
    # both too few (at least 9 per system): nothing tested, nothing counted
    both = study.mqm_summary(_ted_corr(), _rows(), RANGES, per_system=9)
    assert (both["tested"], both["better"], both["untested_other"]) == (0, 0, 0)
    assert both["too_few_sets"] == [{"lp": "x", "errors": ["Addition", "Omission"]}]


def test_mqm_words_read_too_few_as_untested():
    # The page's MQM bullets and Conclusion rendered over findings with one analysis too thin to test.
    from mtbook import words
    from mtbook.findings import as_data
    root = Path(__file__).parents[1]
    cells = json.loads((root / "notebooks" / "otem_utem.ipynb").read_text())["cells"]
    macros = words.chapter_macros(root / "notebooks" / "otem_utem.ipynb")
    rows = _rows()
    found = as_data({"mqm": study.mqm_findings(_ted_corr(), rows, RANGES, per_system=3),
                     "mqm_summary": study.mqm_summary(_ted_corr(), rows, RANGES, per_system=3)})
    found = json.loads(json.dumps(found))
    bullets = next("".join(c["source"]) for c in cells if "{% for t in f.mqm %}" in "".join(c["source"]))
    bullets = bullets[bullets.index("{% set sign"):bullets.index("The comparison with the paper's")]
    text = " ".join(words.render_template(bullets, found, macros=macros).split())
    assert ("* x additions: 13 errors over 5 systems (1–3 per system), too few to test. OTEM-2's agreement r (+0.500) "
            "and BLEU's (+0.100) are shown only: OTEM-2's is above zero, BLEU's not distinguishable from zero.") in text
    assert "* x omissions (6–9 per system): both UTEM-4's and BLEU's agreement intervals lie above zero; UTEM-4 is not" in text
    conclusion = next("".join(c["source"]) for c in cells if "## Conclusion" in "".join(c["source"]))
    part = conclusion[conclusion.index("{% set s = f.mqm_summary %}"):conclusion.index("* Table 1,")]
    line = " ".join(words.render_template(part, found, macros=macros).split())
    # one denominator per claim: the analyses too thin to test of all, the verdicts of those tested
    assert line == ("* Figures 3–4: 1 of 2 MQM analyses (x additions) has too few errors to test; Otem or Utem tracks the "
                    "errors better than BLEU in 0, worse in 0 of the 1 tested (Holm-adjusted p < 0.05); its agreement "
                    "interval lies above zero in 2 of 2."), line
    assert len(line.split()) <= 50
    rule = next("".join(c["source"]) for c in cells if "**Too few marked errors to test.**" in "".join(c["source"]))
    rule = " ".join(words.render_template(rule, found | {"n_permutations": 1000, "seed": 1}, macros=macros).split())
    assert ("fewer than 3 errors of its kind per system on average is not tested. The cut-off of 3 is a convention, not "
            "derived from these data, and even at 3 a count is noisy: a system expected to make 3 such errors makes "
            "anywhere from 0 to 7 of them in 95% of Poisson draws") in rule
    # which analyses pass the rule and which do not, each with its errors over its systems
    assert ("In this run the analyses of x (40 omissions over 5 systems) pass; those of x (13 additions over 5 systems) "
            "do not.") in rule
    # the figure's rows: the thin one in a few columns, the other spread out
    assert ("**Reading the figure.** In the x additions row (1–3 per system) the experts marked so few errors that the "
            "points stand in a few columns") in rule


# -- Table 1 --------------------------------------------------------------------------------------

def test_rank_moves_ratio_and_correlations():
    table = pd.DataFrame({"human": [3.0, 2.0, 1.0], "BLEU": [30.0, 20.0, 10.0], "OTEM": [1.0, 3.0, 2.0],
                          "OTEM (authors)": [2.0, 12.0, 6.0]}, index=list("abc"))
    moves = study.rank_moves(table, "OTEM", SIGNS)  # BLEU ranks a, b, c = 1, 2, 3; OTEM (lower better) 1, 3, 2
    assert moves.tolist() == [0, 1, 1]
    assert study.biggest_move(moves) == {"system": "b", "places": 1}
    assert study.median_ratio(table, "OTEM (authors)", "OTEM") == 3.0  # ratios 2, 4, 3
    t = _table([-1.0, -2.0, -3.0, -4.0])
    assert [(c["metric"], round(c["value"], 3)) for c in study.correlations(t, SIGNS)] == [("BLEU", 0.8), ("OTEM", -1.0)]
    assert round(study.correlations(t, SIGNS, method="kendall")[0]["value"], 3) == 0.667


def test_without_lowest_drops_the_lowest_human_score():
    found = without_lowest(_table([-1.0, -2.0, -3.0, -4.0]), SIGNS)
    assert (found["system"], found["z"], found["baseline"], found["next_z"]) == ("a", 1.0, 1.0, 2.0)
    # Without a: human (2, 3, 4), BLEU (2, 4, 3): r = 0.5; OTEM = -human: r = -1.
    assert [(r["metric"], round(r["value"], 6)) for r in found["r"]] == [("BLEU", 0.5), ("OTEM", -1.0)]


def test_the_conclusion_claims_the_toy_values_to_the_precision_tested():
    # tests/test_otem_utem.py checks the authors' toy values with abs=5e-5: four decimals, not "exactly".
    root = Path(__file__).parents[1]
    assert "pytest.approx(otem1, abs=5e-5)" in (root / "tests" / "test_otem_utem.py").read_text()
    cells = json.loads((root / "notebooks" / "otem_utem.ipynb").read_text())["cells"]
    conclusion = next("".join(c["source"]) for c in cells if "## Conclusion" in "".join(c["source"]))
    assert "to the four decimals the authors report, their toy values (OTEM .1242" in conclusion
    assert "exactly" not in conclusion


def test_variant_findings_give_ratios_only_with_several_references():
    table = pd.DataFrame({"OTEM-2": [1.0, 2.0], "OTEM-2 (authors)": [2.0, 4.5], "UTEM-4": [10.0, 20.0],
                          "UTEM-4 (authors)": [30.0, 60.0]})
    assert study.variant_findings(table, 2) == {"n_refs": 2, "otem_ratio": 2.125, "utem_ratio": 3.0, "otem_gap": 2.5}
    assert study.variant_findings(table, 1) == {"n_refs": 1}


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




# -- Figures 3-4: labels --------------------------------------------------------------------------

def _free(boxes, points, bounds, marker=4.0):
    """No two boxes overlap, none covers a point, all lie within bounds."""
    def overlap(a, b):
        return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])
    marks = [(x - marker, y - marker, x + marker, y + marker) for x, y in points]
    return (not any(overlap(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
            and not any(overlap(a, m) for a in boxes for m in marks)
            and all(bounds[0] <= a[0] and bounds[1] <= a[1] and a[2] <= bounds[2] and a[3] <= bounds[3] for a in boxes))


def test_label_boxes_spread_a_crowded_column_without_overlaps():
    # a lone point: its label right of it, at its height
    [box] = study.label_boxes([(50, 50)], [(40, 10)], (0, 0, 200, 100))
    assert box == (56.0, 45.0, 96.0, 55.0)
    # at the right edge: the label goes left
    [box] = study.label_boxes([(195, 50)], [(40, 10)], (0, 0, 200, 100))
    assert box[2] <= 195 - 4 and box[1] == 45.0
    # six points 3 px apart in one column (as at 0 errors per 100 segments), and two near by
    points = [(20, 100 + 3 * i) for i in range(6)] + [(60, 104), (25, 40)]
    sizes = [(60, 12)] * len(points)
    bounds = (0, 0, 300, 200)
    boxes = study.label_boxes(points, sizes, bounds)
    assert _free(boxes, points, bounds)
    # each label as near its point as it can be: the top one at its own height
    assert (boxes[5][1] + boxes[5][3]) / 2 == 115


def test_annotate_points_leaves_no_two_labels_overlapping():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.text import Text
    fig, ax = plt.subplots(figsize=(5, 3.4))
    xs, ys = [0, 0, 0, 0, 0.19, 0.19, 0.38, 0.38], [3.2, 3.15, 2.85, 2.7, 3.2, 3.0, 3.1, 3.05]
    names = [f"metricsystem{i}" for i in range(len(xs))]
    ax.scatter(xs, ys)
    fig.tight_layout()
    study.annotate_points(ax, xs, ys, names, fontsize=9)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    texts = [Text.get_window_extent(t, renderer) for t in ax.texts]
    assert [t.get_text() for t in ax.texts] == names and all(t.get_fontsize() == 9 for t in ax.texts)
    assert not any(a.overlaps(b) for i, a in enumerate(texts) for b in texts[i + 1:])
    assert all(frame.x0 - 0.5 <= b.x0 and b.x1 <= frame.x1 + 0.5 and frame.y0 - 0.5 <= b.y0 and b.y1 <= frame.y1 + 0.5
               for b in texts)
    plt.close(fig)
