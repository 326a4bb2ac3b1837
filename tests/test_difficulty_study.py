"""The difficulty-aware chapter's analyses (mtbook.studies.difficulty) on hand-made fixtures.

Three systems, one segment, reference "cat cute" (token ids 5, 6). A renders "cat" well, B
replaces it (id 7), C misses it; "cute" is perfect everywhere. Human scores A > B > C, so the
top 30% at ``top_fraction=0.67`` is [A, B]. Raw difficulty of "cat": 1 - (0.9+0.3+0.0)/3 = 0.6
over all systems, 1 - (0.9+0.3)/2 = 0.4 over the top two; "cute" has difficulty 0.
"""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from mtlib.bertscore import SentenceMean, TokenMatches
from mtbook.comparisons import family_floors
from mtbook.studies import difficulty as study
from mtbook.studies.difficulty import DA, DA_HELD, DA_RAW, da_pair
from mtlib.scoring import SystemStats
from mtlib.significance import Comparison, Verdict, compare_systems


def tm(hyp_ids, hyp_max, ref_ids, ref_max):
    return TokenMatches(np.array(hyp_ids), np.array(hyp_max, float), np.array(ref_ids), np.array(ref_max, float))


MATCHES = {"A": [tm([5, 6], [0.9, 1.0], [5, 6], [0.9, 1.0])],
           "B": [tm([7, 6], [0.3, 1.0], [5, 6], [0.3, 1.0])],
           "C": [tm([5, 6], [0.0, 1.0], [5, 6], [0.0, 1.0])]}
HUMAN = {"A": 3.0, "B": 2.0, "C": 1.0}


def sentence_stats(name, scores, higher=True):
    """One segment per system whose score is the system score."""
    metric = SentenceMean(name, column=0, signature=name)
    metric.higher_is_better = higher
    return SystemStats(metric, ["ref"], {s: np.array([[v, 1.0]]) for s, v in scores.items()})


class Evs:
    n_segments = 1
    mt_systems = ["A", "B", "C"]
    std_ref = "ref"
    refs = {"ref": ["the cat is cute"]}
    outputs = {"A": ["the cat is cute"], "B": ["the dog is cute"], "C": ["the is cute"]}

    def human_sys(self):
        return dict(HUMAN)


def make_run(baseline_f=0.0, held_f=None, bertscore=(0.3, 0.1, 0.2)):
    stats = {"TER": sentence_stats("TER", {"A": 1.0, "B": 2.0, "C": 3.0}, higher=False),
             "BERTScore": sentence_stats("BERTScore", dict(zip("ABC", bertscore)))}
    held = None if held_f is None else (0.0, 0.0, held_f)
    return study.evalset_run(Evs(), stats, MATCHES, (0.0, 0.0, baseline_f), held=held,
                             held_from=None if held_f is None else "wmt18 de-en", top_fraction=0.67)


def test_da_pair_difficulty_from_the_systems_scored():
    pair = study.da_pair(MATCHES, ["A", "B"], variant="paper")
    # A: R = P = d(cat) * 0.9 / 2 tokens; d = 0.6 over all, 0.4 over the top two.
    assert pair["all"].system_scores()["A"] == pytest.approx(0.6 * 0.9 / 2)
    assert pair["top30"].system_scores()["A"] == pytest.approx(0.4 * 0.9 / 2)
    assert set(pair["top30"]) == {"A", "B"}
    # b = 0.5: cat rescaled A 0.8, B -0.4, C -1.0 -> d = 1 - (-0.6/3) = 1.2; A's R = P = 1.2 * 0.8 / 2.
    assert study.da_pair(MATCHES, ["A", "B"], 0.5)["all"].system_scores()["A"] == pytest.approx(0.48)


def test_held_apart_key():
    available = {"wmt18": ["de-en"], "wmt19": ["de-en", "en-de"]}
    assert study.held_apart_key("wmt19 de-en", available) == "wmt18 de-en"
    assert study.held_apart_key("wmt19 en-de", available) is None  # wmt18 en-de not present
    assert study.held_apart_key("wmt20 de-en", available) is None  # no other year known


def test_evalset_run():
    r = make_run(baseline_f=0.5, held_f=0.3)
    assert r.top == ["A", "B"] and r.subsets == {"all": None, "top30": ["A", "B"]}
    assert r.b_range == pytest.approx((0.25, 0.55))  # estimates 0.3 and 0.5, widened by 0.05
    np.testing.assert_allclose(r.d_all[0], [1.2, 0.0])  # rescaled by the in-set b = 0.5
    np.testing.assert_allclose(r.d_top[0], [1 - (0.8 - 0.4) / 2, 0.0])
    assert r.da["all"].system_scores()["A"] == pytest.approx(0.48)
    assert r.da_raw["all"].system_scores()["A"] == pytest.approx(0.27)  # raw cosines, d = 0.6
    # held b = 0.3: cat rescaled A 6/7, B 0, C -3/7 -> d = 1 - 1/7; A's R = P = d * 6/7 / 2.
    assert r.da_held["all"].system_scores()["A"] == pytest.approx((6 / 7) * (6 / 7) / 2)
    assert make_run(baseline_f=0.02).b_range == pytest.approx((0.0, 0.07))  # not below 0
    assert make_run().da_held is None
    overview = study.evalset_overview({"wmt19 de-en": r}).loc["wmt19 de-en"]
    assert overview["top 30%"] == 2 and overview["held apart from"] == "wmt18 de-en"
    assert overview["plausible range of b"] == "0.250–0.550"


def test_correlations_and_table1_beside_the_paper():
    runs = {"wmt19 de-en": make_run(held_f=0.3)}
    rows = study.correlations("wmt19 de-en", runs["wmt19 de-en"])
    assert set(rows.metric) == {"TER", "BERTScore", DA, DA_HELD, DA_RAW}
    assert set(rows.test_set) == {"wmt19"} and set(rows.lp) == {"de-en"}
    tau = rows[(rows.stat == "tau") & (rows.subset == "all")].set_index("metric")["value"]
    # TER 1 < 2 < 3 is negated: it agrees with A > B > C; raw DA is A 0.27 > B 0.1125 > C 0.
    assert tau["TER"] == pytest.approx(1.0) and tau[DA_RAW] == pytest.approx(1.0)
    # BERTScore 0.3, 0.1, 0.2: pairs AB, AC agree, BC disagrees -> (2 - 1) / 3.
    assert tau["BERTScore"] == pytest.approx(1 / 3)
    assert len(rows[rows.subset == "top30"]) == 5 * 3

    paper = pd.DataFrame([{"lp": "de-en", "subset": "all", "metric": "BERTScore", "stat": "tau", "paper": 0.5},
                          {"lp": "de-en", "subset": "all", "metric": DA, "stat": "tau", "paper": 0.9}])
    t = study.table1(runs, paper)
    assert study.table_value(t, "wmt19 de-en", "all", "BERTScore", "tau", col="delta") == pytest.approx(0.333 - 0.5)
    # every DA variant is compared with the paper's one DA-BERTScore row
    for metric in (DA, DA_HELD, DA_RAW):
        assert study.table_value(t, "wmt19 de-en", "all", metric, "tau", col="paper") == 0.9
    assert np.isnan(study.table_value(t, "wmt19 de-en", "all", "TER", "tau", col="paper"))
    assert np.isnan(study.table_value(t, "wmt18 de-en", "all", "TER"))
    # the paper's table is WMT19: a WMT18 run gets no paper values
    t18 = study.table1({"wmt18 de-en": runs["wmt19 de-en"]}, paper)
    assert t18["paper"].isna().all()


def table_rows(rows):
    cols = ["test_set", "lp", "subset", "metric", "stat", "value", "paper", "delta"]
    return pd.DataFrame([dict(zip(cols, r)) for r in rows])


def test_table1_findings():
    t = table_rows([("wmt19", "de-en", "top30", "BERTScore", "r", 0.2, 0.271, -0.071),
                    ("wmt19", "de-en", "top30", DA, "r", 0.5, 0.693, -0.193),
                    ("wmt19", "de-en", "all", DA, "r", 0.9, 0.951, -0.051),
                    ("wmt19", "de-en", "all", DA_RAW, "r", -0.1, 0.951, -0.851),
                    ("wmt19", "de-en", "top30", DA_RAW, "r", 0.7, 0.693, 0.007),
                    ("wmt19", "de-en", "top30", DA_HELD, "r", 0.4, 0.693, -0.293),
                    ("wmt19", "de-en", "all", "TER", "r", 0.797, 0.797, 0.0),
                    ("wmt19", "de-en", "all", "TER", "tau", 0.504, 0.504, 0.0),
                    ("wmt19", "de-en", "all", "BLEU (intl)", "r", 0.9, 0.888, 0.012),
                    ("wmt19", "de-en", "all", "BLEU (intl)", "tau", 0.6, 0.622, -0.022),
                    ("wmt18", "de-en", "all", DA, "r", 0.8, np.nan, np.nan),
                    ("wmt18", "de-en", "all", DA_RAW, "r", 0.3, np.nan, np.nan),
                    ("wmt18", "de-en", "top30", DA, "r", 0.1, np.nan, np.nan),
                    ("wmt18", "de-en", "top30", "BERTScore", "r", -0.3, np.nan, np.nan),
                    ("wmt18", "de-en", "top30", DA_RAW, "r", 0.2, np.nan, np.nan)])
    runs = {"wmt19 de-en": SimpleNamespace(held=(0, 0, 0.3), human={"A": 1.0, "B": None}, top=["A"]),
            "wmt18 de-en": SimpleNamespace(held=None, human={"A": 1.0, "B": 2.0}, top=["B"])}
    s = study.table1_findings(t, runs, ["BLEU (intl)", "TER", "METEOR"])
    assert s["surface"] == [{"metric": "BLEU (intl)", "max_delta": pytest.approx(0.022), "n_values": 2, "n_equal": 0},
                            {"metric": "TER", "max_delta": 0.0, "n_values": 2, "n_equal": 2}]  # METEOR: no paper value
    s19, s18 = s["sets"]
    assert (s19["key"], s19["n_all"], s19["n_top"]) == ("wmt19 de-en", 1, 1)
    assert (s19["bs_top"], s19["da_top"], s19["raw_top"], s19["held_top"]) == (0.2, 0.5, 0.7, 0.4)
    assert (s19["da_all"], s19["raw_all"], s19["bs_all"]) == (0.9, -0.1, None)  # a missing value is None
    assert (s19["paper_bs_top"], s19["paper_da_top"]) == (0.271, 0.693)
    # the paper's values only where the paper has the set
    assert (s18["paper_bs_top"], s18["paper_da_top"], s18["held_top"]) == (None, None, None)
    assert (s18["bs_top"], s18["da_top"], s18["raw_all"]) == (-0.3, 0.1, 0.3)
    only18 = study.table1_findings(t[t.test_set == "wmt18"], {"wmt18 de-en": runs["wmt18 de-en"]}, ["TER"])
    assert only18["surface"] == []  # no WMT19 set: no row checked against the paper


def test_baseline_findings_and_ties():
    held = SimpleNamespace(held=(0, 0, 0.3), held_from="wmt18 de-en", baseline=(0, 0, 0.4), b_range=(0.25, 0.45))
    none = SimpleNamespace(held=None, held_from=None, baseline=(0, 0, 0.4), b_range=(0.35, 0.45))
    b = study.baseline_findings({"wmt19 de-en": held, "wmt17 de-en": none}, 0.05)
    assert b == {"margin": 0.05, "sets": [
        {"key": "wmt19 de-en", "held_from": "wmt18 de-en", "b": 0.4, "b_held": 0.3, "low": 0.25, "high": 0.45},
        {"key": "wmt17 de-en", "held_from": None, "b": 0.4, "b_held": None, "low": 0.35, "high": 0.45}]}
    tied = SimpleNamespace(human={"A": 0.3, "B": 0.3, "C": 0.1, "D": 0.0}, top=["A", "B", "C", "D"])
    apart = SimpleNamespace(human={"A": 0.3, "B": 0.2, "C": 0.1}, top=["A", "B", "C"])
    assert study.tie_findings({"wmt19 de-en": tied, "wmt17 de-en": apart}) == {
        "sets": [{"key": "wmt19 de-en", "n_top": 4, "n_tied": 2}], "paper_de_en": True}
    assert study.tie_findings({"wmt17 de-en": apart}) == {"sets": [], "paper_de_en": False}


def test_raw_cosine_findings():
    # best matches 0.5 and 0.9; token 2 is not in the reference (its best match 0.9)
    run = SimpleNamespace(matches={"S": [tm([1, 2], [0.5, 0.9], [1, 3], [0.5, 0.1])]})
    assert study.raw_cosine_findings({"k": run}) == {"threshold": 0.7, "below": 0.5, "below_absent": 0.0,
                                                     "median": pytest.approx(0.7), "median_absent": 0.9}


def test_baseline_curves_and_bertscore_correlations():
    runs = {"wmt19 de-en": make_run(baseline_f=0.25, held_f=0.5)}
    curves = study.baseline_curves(runs, [0.0, 0.5])
    d = curves[(curves.subset == "all") & (curves.method == "kendall")]
    # the grid, both estimates and the ends of the plausible range (0.20 and 0.55), once each
    assert list(d["b"]) == pytest.approx([0.0, 0.2, 0.25, 0.5, 0.55])
    assert d["value"].iloc[0] == pytest.approx(1.0)  # b = 0: raw DA orders A > B > C as humans do
    assert set(curves.evalset) == {"wmt19 de-en"} and len(curves) == 2 * 2 * 5
    bs = study.bertscore_correlations(runs)
    # BERTScore 0.3, 0.1, 0.2 against 3, 2, 1: centred (0.1, -0.1, 0) . (1, 0, -1) / (0.1414 * 1.414) = 0.5
    assert bs[("wmt19 de-en", "all", "pearson")] == pytest.approx(0.5)
    assert bs[("wmt19 de-en", "all", "kendall")] == pytest.approx(1 / 3)
    assert bs[("wmt19 de-en", "top30", "kendall")] == pytest.approx(1.0)  # A > B


def test_verdict_over_range():
    curve = pd.DataFrame({"b": [0.0, 0.1, 0.2, 0.3], "value": [0.1, 0.5, 0.6, 0.2]})
    above = study.verdict_over_range(curve, 0.4, (0.1, 0.2))
    assert above["verdict"] == study.RangeVerdict.ABOVE.value == "above"
    assert (above["da_min"], above["da_max"], above["b_low"], above["b_high"]) == (0.5, 0.6, 0.1, 0.2)
    assert study.verdict_over_range(curve, 0.4, (0.0, 0.2))["verdict"] == "depends on b"
    assert study.verdict_over_range(curve, 0.4, (0.3, 0.3))["verdict"] == "below"
    # the ends are included despite rounding
    assert study.verdict_over_range(curve, 0.4, (0.1 + 1e-12, 0.2 - 1e-12))["da_min"] == 0.5


def test_a_tie_at_every_b_is_a_tie_not_a_dependence_on_b():
    # e.g. Kendall's tau over four systems, 0.000 for both metrics at every b (referee finding)
    flat = pd.DataFrame({"b": [0.1, 0.2, 0.3], "value": [0.0, 0.0, 0.0]})
    assert study.verdict_over_range(flat, 0.0, (0.1, 0.3))["verdict"] == "tie"
    # equal at some b and above at others: the order depends on b
    touch = pd.DataFrame({"b": [0.1, 0.2], "value": [0.0, 0.5]})
    assert study.verdict_over_range(touch, 0.0, (0.1, 0.2))["verdict"] == "depends on b"


def test_robustness_and_its_findings():
    runs = {"k": SimpleNamespace(subsets={"all": None, "top30": ["A", "B"]}, b_range=(0.1, 0.2))}
    rows = [{"evalset": "k", "subset": sub, "method": m, "b": b, "value": v}
            for sub in ("all", "top30") for m in ("pearson", "kendall")
            for b, v in [(0.0, 0.9), (0.1, 0.5), (0.2, 0.6)]]
    bs = {("k", "all", "pearson"): 0.4, ("k", "all", "kendall"): 0.55,
          ("k", "top30", "pearson"): 0.7, ("k", "top30", "kendall"): 0.4}
    robust = study.robustness(runs, pd.DataFrame(rows), bs)
    assert list(robust.columns[:3]) == ["evalset", "subset", "method"]
    assert list(robust.verdict) == ["above", "depends on b", "below", "above"]
    s = study.robustness_findings(robust)
    assert s["counts"] == {"above": 2, "below": 1, "tie": 0, "depends on b": 1, "n": 4}
    assert s["top_r"] == [{"evalset": "k", "b_low": 0.1, "b_high": 0.2, "da_min": 0.5, "da_max": 0.6,
                           "bertscore": 0.7, "verdict": "below", "test": None}]


def test_topk_curves():
    curves = study.topk_curves({"k": make_run()})
    assert set(curves.k) == {3} and set(curves.evalset) == {"k"}
    got = curves.set_index("metric")["value"]
    # TER negated agrees fully; BERTScore (0.3, 0.1, 0.2) gets 1/3; DA at b = 0 orders A > B > C.
    assert got["TER"] == pytest.approx(1.0) and got["BERTScore"] == pytest.approx(1 / 3)
    assert got[DA] == pytest.approx(1.0)


def test_topk_findings_count_where_da_is_above_per_set():
    rows = [("a", k, m, v) for k, bs, da in [(3, 0.2, 0.5), (4, 0.4, 0.4), (6, 0.1, 0.0), (12, 0.3, 0.6)]
            for m, v in (("BERTScore", bs), (DA, da), ("TER", 0.9))]
    rows += [("b", 3, "BERTScore", 0.5), ("b", 3, DA, -0.5)]
    curves = pd.DataFrame(rows, columns=["evalset", "k", "metric", "value"])
    a, b = study.topk_findings(curves)
    # K <= 10: K = 3 above, 4 tied, 6 below; over all K, K = 12 adds one above
    assert a == {"evalset": "a", "competitive_k": 10, "competitive": {"n": 3, "above": 1, "below": 1, "level": 1},
                 "all": {"n": 4, "above": 2, "below": 1, "level": 1}, "k6": {"bertscore": 0.1, "da": 0.0},
                 "above_k": [3, 12]}
    assert b["k6"] is None and b["competitive"] == {"n": 1, "above": 0, "below": 1, "level": 0}


def test_example_rows_and_table3_findings():
    run = study.EvalsetRun(
        evs=SimpleNamespace(std_ref="ref", refs={"ref": ["x y", "u v"]},
                            outputs={"M": ["m0", "m1"], "F": ["f0", "f1"]}),
        human={}, top=[], matches={"M": [tm([1], [1.0], [1, 2], [1.0, 0.0]), tm([3], [1.0], [3, 4], [1.0, 0.5])]},
        index=None,
        stats={"BERTScore": {"M": np.array([[0, 0, 0.9], [0, 0, 0.8]]), "F": np.array([[0, 0, 0.7], [0, 0, 0.85]])}},
        da={"top30": {"M": np.array([[0.2, 0.3, 1], [0.0, 0.0, 1]]), "F": np.array([[0.1, 0.1, 1], [0.1, 0.2, 1]])}},
        d_top=[np.array([0.1, 0.9]), np.array([0.0, 0.4])], baseline=(0, 0, 0), held=None, held_from=None,
        d_all=[], da_raw={}, da_held=None, b_range=(0, 0))
    rows = study.example_rows(run, ["not there", "u v"], {"MSRA": "M", "Facebook": "F"})
    assert len(rows) == 1 and rows[0]["example"] == 1 and rows[0]["segment"] == 1
    np.testing.assert_array_equal(rows[0]["ref_ids"], [3, 4])
    np.testing.assert_array_equal(rows[0]["difficulty"], [0.0, 0.4])
    assert rows[0]["systems"]["MSRA"] == {"output": "m1", "bertscore": 0.8, "da": 0.0}  # P + R = 0: F = 0
    assert rows[0]["systems"]["Facebook"]["da"] == pytest.approx(2 * 0.1 * 0.2 / 0.3)
    rows = study.example_rows(run, ["x y", "u v"], {"MSRA": "M", "Facebook": "F"})
    assert rows[0]["systems"]["MSRA"]["da"] == pytest.approx(0.24)  # 2 * 0.2 * 0.3 / 0.5
    # example 0: BERTScore prefers M (0.9 > 0.7), DA prefers M (0.24 > 0.1);
    # example 1: BERTScore prefers F (0.85 > 0.8), DA prefers F (0.133 > 0).
    t3 = study.table3_findings(rows, has_set=True)
    assert (t3["n"], t3["bs_prefers"], t3["da_prefers"]) == (2, 1, 1)


def test_bootstrap_gain_equals_one_bootstrap_per_baseline():
    """One call for BERTScore and every b gives each b's share and the in-set rows of one call
    per b (the same resamples at an integer seed)."""
    from mtlib.bootstrap import bootstrap_correlations
    rng = np.random.default_rng(0)
    systems, n_seg = [f"S{i}" for i in range(7)], 30
    refs = [rng.integers(0, 40, size=rng.integers(3, 8)) for _ in range(n_seg)]
    matches = {}
    for s in systems:
        q = rng.uniform(0.3, 1.0)
        matches[s] = [tm(h, np.clip(rng.normal(q, 0.2, len(h)), 0, 1), r, np.clip(rng.normal(q, 0.2, len(r)), 0, 1))
                      for r in refs for h in [rng.integers(0, 40, size=rng.integers(3, 8))]]
    human = {s: float(rng.normal()) for s in systems}

    class Many:
        n_segments, mt_systems, std_ref = n_seg, systems, "ref"
        refs, outputs = {"ref": ["x"] * n_seg}, {s: ["x"] * n_seg for s in systems}

        def human_sys(self):
            return dict(human)
    bs = SystemStats(SentenceMean("BERTScore", column=0, signature="BERTScore"), ["ref"],
                     {s: np.c_[rng.uniform(0, 1, n_seg), np.ones(n_seg)] for s in systems})
    r = study.evalset_run(Many(), {"BERTScore": bs}, matches, (0, 0, 0.3), held=(0, 0, 0.4), held_from="h",
                          top_fraction=0.5)
    boot, p = study.bootstrap_gain({"x": r}, n_resamples=200, seed=3)
    lo, hi = r.b_range
    for name, da_b in {"in-set": r.da, "held apart": r.da_held, "range low": da_pair(r.index, r.top, lo),
                       "range high": da_pair(r.index, r.top, hi)}.items():
        for subset, chosen in r.subsets.items():
            for method in ("pearson", "kendall"):
                b, samples = bootstrap_correlations({"BERTScore": bs, DA: da_b[subset]}, r.human, method,
                                                    systems=chosen, n_resamples=200, seed=3, return_samples=True)
                assert p.loc[("x", subset, method), name] == np.mean(samples[DA] > samples["BERTScore"])
                if name == "in-set":
                    rows = boot[(boot.subset == subset) & (boot.method == method)].set_index("metric")
                    pd.testing.assert_frame_equal(rows[b.columns], b.rename_axis("metric"), check_exact=True)
    assert 0 < p["in-set"].mean() < 1  # not a degenerate case


def test_bootstrap_gain():
    # One segment: every resample is the full data, so P(DA better) is 1 or 0 exactly.
    runs = {"x": make_run(held_f=0.1), "y": make_run()}
    boot, p = study.bootstrap_gain(runs, n_resamples=5, seed=1)
    assert len(boot) == 2 * 2 * 2 * 2  # runs x subsets x methods x (BERTScore, DA), in-set b only
    assert set(boot.metric) == {"BERTScore", DA}
    assert "stat:kendall-b|n:5|seed:1" in boot.attrs["signature"]  # the last bootstrap's
    assert list(p.columns) == ["in-set", "held apart", "range low", "range high", "min", "max"]
    # Kendall over all systems: DA orders A > B > C at every b tried, BERTScore has 1/3.
    assert (p.loc[("x", "all", "kendall"), ["in-set", "held apart", "range low", "range high"]] == 1.0).all()
    # Top two: both order A > B (tau 1 each); "better" is strict.
    assert p.loc[("y", "top30", "kendall"), "in-set"] == 0.0
    assert np.isnan(p.loc[("y", "all", "kendall"), "held apart"])  # no held-apart set
    # Pearson over all: raw DA (0.27, 0.1125, 0) is near-linear in the human scores (r 0.995 > 0.5).
    assert p.loc[("y", "all", "pearson"), "in-set"] == 1.0
    assert (p["min"] == p[["in-set", "held apart", "range low", "range high"]].min(axis=1)).all()


def test_bootstrap_findings():
    idx = pd.MultiIndex.from_tuples([("k", "all", "pearson"), ("k", "top30", "pearson"), ("k", "top30", "kendall")],
                                    names=["evalset", "subset", "method"])
    cols = {"held apart": [np.nan] * 3, "in-set": [0.97, 0.6, 0.02], "range high": [0.99, 0.7, 0.04],
            "range low": [0.96, 0.3, 0.01], "min": [0.96, 0.3, 0.01], "max": [0.99, 0.7, 0.04]}
    p3 = pd.DataFrame(cols, index=idx)
    # the settled settings, against the page's family: all r, DA-BERTScore worse after Holm (share >= 0.95
    # means DA above, so not confirmed); top tau, DA-BERTScore worse, confirmed (share <= 0.05)
    tests = [({"evalset": "k", "subset": "all", "n": 16}, "BERTScore", DA, "r", comparison(-0.2, 0.001)),
             ({"evalset": "k", "subset": "top30", "n": 8}, "BERTScore", DA, "τ", comparison(-0.5, 0.002, 8))]
    rows = study.page_family(tests)
    b = study.bootstrap_findings(p3, rows)
    assert b["b_values"] == ["in-set", "range high", "range low"]  # no held-apart estimate in this run
    assert b["top"] == [{"evalset": "k", "inset": 0.6, "min": 0.3, "max": 0.7}]
    assert b["n"] == 3 and [(s["subset"], s["stat"], s["up"], s["confirmed"]) for s in b["settled"]] == [
        ("all", "r", True, False), ("top30", "τ", False, True)]
    assert b["settled"][0]["test"]["p"] == 0.001 and b["settled"][0]["test"]["p_holm"] == 0.002
    assert b["settled"][0]["share"] == 0.97
    p4 = p3.assign(**{"held apart": [0.97, 0.5, 0.03]})
    assert study.bootstrap_findings(p4, rows)["b_values"][0] == "held apart"
    # a settled setting without a test
    assert study.bootstrap_findings(p3, [])["settled"][0]["test"] is None
    # confirmed only on the adjusted p: raw 0.03 twice, Holm 0.06 each, is not a confirmation
    lifted = study.page_family([(s, a, b_, st, comparison(c.delta, 0.03, c.n)) for s, a, b_, st, c in tests])
    assert [s["confirmed"] for s in study.bootstrap_findings(p3, lifted)["settled"]] == [False, False]


def test_overlap_comparison_and_gain():
    beyond = study.overlap_comparison({"k": make_run()}, "tok")
    tau = beyond[beyond.stat == "tau"].set_index(["subset", "metric"])["value"]
    # Exact token overlap F: A 1, B 0.5 ("cat" replaced), C 1 (same ids): against 3, 2, 1 the pair AC is
    # tied, AB agrees, BC disagrees -> tau_b 0. DA-Overlap: d(cat) = 1/3 -> A 1/6, B 0, C 1/6: same order.
    assert tau[("all", "Overlap F")] == pytest.approx(0.0)
    assert tau[("all", "DA-Overlap F")] == pytest.approx(0.0)
    assert tau[("top30", "Overlap F")] == pytest.approx(1.0)
    assert set(beyond.evalset) == {"k"}
    g = study.gain(beyond, "DA-Overlap F", "Overlap F", stat="tau")
    assert g[("k", "all")] == pytest.approx(0.0)
    hand = pd.DataFrame([{"evalset": "k", "subset": "all", "stat": "r", "metric": m, "value": v}
                         for m, v in [("A", 0.5), ("B", 0.2)]])
    assert study.gain(hand, "A", "B")[("k", "all")] == pytest.approx(0.3)


def test_conclusion_findings():
    t = table_rows([(ts, "de-en", sub, m, "r", v, np.nan, np.nan) for ts, sub, m, v in [
        ("wmt19", "all", "BERTScore", 0.9), ("wmt19", "all", DA, 0.8), ("wmt19", "all", DA_RAW, -0.2),
        ("wmt19", "top30", "BERTScore", 0.1), ("wmt19", "top30", DA, 0.6), ("wmt19", "top30", DA_RAW, 0.3),
        ("wmt18", "all", "BERTScore", 0.7), ("wmt18", "all", DA, 0.75), ("wmt18", "all", DA_RAW, 0.1),
        ("wmt18", "top30", "BERTScore", 0.5), ("wmt18", "top30", DA, 0.4), ("wmt18", "top30", DA_RAW, 0.0)]])
    beyond = pd.DataFrame([{"evalset": "k", "subset": sub, "stat": "r", "metric": m, "value": v}
                           for sub, m, v in [("all", "BERTScore", 0.5), ("all", DA, 0.6), ("all", "Overlap F", 0.3),
                                             ("all", "DA-Overlap F", 0.2), ("top30", "BERTScore", 0.5),
                                             ("top30", DA, 0.4), ("top30", "Overlap F", 0.1),
                                             ("top30", "DA-Overlap F", 0.2)]])
    s = study.conclusion_findings(t, beyond)
    assert s == {"n_sets": 2, "top_gain": 1, "da_below_bs": 1, "raw_negative": {"r": 1}, "n_settings": 2,
                 "gain_bs": 1, "gain_ov": 1}
    t2 = pd.concat([t, table_rows([("wmt19", "de-en", "all", DA_RAW, "tau", 0.05, np.nan, np.nan),
                                   ("wmt18", "de-en", "all", DA_RAW, "tau", 0.1, np.nan, np.nan)])])
    assert study.conclusion_findings(t2, beyond)["raw_negative"] == {"r": 1, "tau": 0}
    # an undefined BERTScore correlation counts as no gain, and does not break the counts
    undefined = t.assign(value=np.where(t.metric == "BERTScore", np.nan, t.value))
    assert study.conclusion_findings(undefined, beyond)["top_gain"] == 0


def test_overlap_difficulty_comes_from_the_systems_ranked():
    # Reference tokens a (1), b (2). T1 and T3 render a, T2 and three low systems render b.
    # Top three (T1, T2, T3): d(a) = 1 - 2/3, d(b) = 1 - 1/3, so sentence DA-overlap F is
    # T1: R = (1/3)/2, P = 1/3 -> 2/9; T2: R = (2/3)/2, P = 2/3 -> 4/9; T3 as T1.
    # (Over all six systems the weights swap: d(a) = 2/3, d(b) = 1/3.)
    only = {"T1": [1], "T2": [2], "T3": [1], "L1": [2], "L2": [2], "L3": [2]}
    matches = {s: [tm([t], [0.5], [1, 2], [0.5, 0.0] if t == 1 else [0.0, 0.5])] for s, (t,) in only.items()}
    human = {"T1": 3.0, "T2": 2.9, "T3": 1.0, "L1": 0.0, "L2": -1.0, "L3": -2.0}
    evs = SimpleNamespace(human_sys=lambda: dict(human), std_ref="ref")
    stats = {"BERTScore": sentence_stats("BERTScore", human)}
    run = study.evalset_run(evs, stats, matches, (0, 0, 0.0), top_fraction=0.5)
    beyond = study.overlap_comparison({"k": run}, "tok")
    r = beyond[(beyond.stat == "r") & (beyond.subset == "top30")].set_index("metric")["value"]
    assert r["DA-Overlap F"] == pytest.approx(np.corrcoef([2 / 9, 4 / 9, 2 / 9], [3.0, 2.9, 1.0])[0, 1])
    r_all = beyond[(beyond.stat == "r") & (beyond.subset == "all")].set_index("metric")["value"]
    assert r_all["DA-Overlap F"] == pytest.approx(
        np.corrcoef([4 / 9, 2 / 9, 4 / 9, 2 / 9, 2 / 9, 2 / 9], list(human.values()))[0, 1])


# -- "A correlates better than B", tested (PERM-BOTH) ----------------------------------------

def powers(n):
    """Human scores 1, 2, 4, ... over ``n`` systems."""
    return {f"S{i}": float(2 ** i) for i in range(n)}


def comparison(delta, p, n=16, *, corr_a=0.5, mc=None, reason=""):
    """A hand-made two-sided :class:`mtlib.significance.Comparison` over ``n`` systems."""
    if p != p:  # untested
        return Comparison(np.nan, np.nan, np.nan, np.nan, "two-sided", 0, 0, "system", np.nan, np.nan, "pearson", 1000,
                          1, reason)
    return Comparison(corr_a, corr_a + delta, delta, p, "two-sided", n, n, "system", 0.5 ** (n - 1),
                      0.5 ** (n - 1) if mc is None else mc, "pearson", 1000, 1)


def hand_family():
    """One page's family, by hand: p = 0.01 and 0.03 below 5% on the raw p, a tie (p = 1, counted),
    an untested comparison (not counted) and two tests over four systems (floor 1/8)."""
    k = "wmt19 de-en"
    tests = [({"evalset": k, "subset": "all", "n": 16}, "BERTScore", DA, "r", comparison(-0.2, 0.01)),
             ({"evalset": k, "subset": "all", "n": 16}, "BERTScore", DA, "τ", comparison(0.1, 0.03)),
             ({"evalset": k, "subset": "all", "n": 16}, "TER", DA, "r", comparison(0.0, 1.0)),
             ({"evalset": k, "subset": "top30", "n": 2}, "BERTScore", DA, "r",
              comparison(0, np.nan, reason="2 items with a human score; at least 3 are needed")),
             ({"evalset": k, "subset": "top30", "n": 4}, "BERTScore", DA, "τ", comparison(0.4, 0.125, 4)),
             ({"evalset": k, "subset": "top30", "n": 4}, "TER", DA, "r", comparison(-0.3, 0.25, 4))]
    return study.page_family(tests)


def test_holm_lifts_a_raw_p_over_alpha_and_the_verdicts_follow():
    rows = hand_family()
    # five tested p's (the tie's p = 1 counts, the untested one does not): 0.01 x 5, 0.03 x 4 ...
    assert [r.p_holm for r in rows[:3]] == [pytest.approx(0.05), pytest.approx(0.12), 1.0]
    assert [r.verdict for r in rows] == [Verdict.NOT_SHOWN, Verdict.NOT_SHOWN, Verdict.TIE, Verdict.UNTESTED,
                                         Verdict.NOT_SHOWN, Verdict.NOT_SHOWN]
    assert np.isnan(rows[3].p_holm)
    # 0.01 alone would stay below 5% with one test fewer: a family of four tests
    four = study.page_family([(r.setting, r.a, r.b, r.stat, comparison(r.delta, r.p, r.n_units)) for r in rows[:3]]
                             + [(rows[4].setting, "BERTScore", DA, "τ", comparison(0.4, 0.125, 4))])
    assert four[0].p_holm == pytest.approx(0.04) and four[0].verdict is Verdict.A_BETTER
    assert four[1].p_holm == pytest.approx(0.09) and four[1].verdict is Verdict.NOT_SHOWN  # raw 0.03: lifted


def test_comparison_rows_are_plain_records_of_the_family():
    rows = hand_family()
    bs = study.comparison_rows(rows, "BERTScore", DA)
    assert [(x["subset"], x["verdict"]) for x in bs] == [("all", "no difference shown"), ("top30", "untested")]
    assert bs[0] == {"evalset": "wmt19 de-en", "subset": "all", "n": 16, "stat": "r", "a": "BERTScore", "b": DA,
                     "corr_a": 0.5, "corr_b": pytest.approx(0.3), "delta": pytest.approx(-0.2), "p": 0.01,
                     "p_holm": pytest.approx(0.05), "verdict": "no difference shown", "reason": "",
                     "n_permutations": 1000, "possible": True}
    untested = bs[1]
    assert untested["p"] is None and untested["p_holm"] is None and untested["n"] == 2  # NaN becomes None
    assert untested["reason"] == "2 items with a human score; at least 3 are needed" and not untested["possible"]
    tau = study.comparison_rows(rows, "BERTScore", DA, subsets=["top30"], stats=["tau"])
    assert [(x["stat"], x["n"], x["possible"]) for x in tau] == [("τ", 4, False)]  # 1/8 x 4 >= 5%
    tie = study.comparison_rows(rows, "TER", DA, subsets=["all"])[0]
    assert tie["verdict"] == "tie" and tie["p"] == 1.0
    assert study.comparison_rows(rows, DA, "BERTScore") == []  # A and B in the family's order


def test_floors_of_the_family():
    rows = hand_family()
    (all16, top4) = family_floors(rows, by=("evalset", "subset"))
    # four p's of 0.05 or more (0.03 < 0.05 is not one): a p below 5% is multiplied by at least 1 + 3
    assert (all16.setting, all16.n, all16.n_tests, all16.above) == ({"evalset": "wmt19 de-en", "subset": "all"}, 16, 3, 3)
    assert all16.exact == 0.5 ** 15 and all16.possible
    assert (top4.n, top4.n_tests, top4.exact, top4.holm, top4.possible) == (4, 2, 0.125, 0.5, False)
    # the seeded draws' floor counts where it is lower than the exact one
    low = study.page_family([({"evalset": "k", "subset": "top30", "n": 6}, "A", "B", "r",
                              comparison(0.3, 0.2, 6, mc=0.01))])
    (f,) = family_floors(low, by=("evalset", "subset"))
    assert (f.exact, f.mc, f.above, f.holm, f.possible) == (1 / 32, 0.01, 1, 0.02, True)


def test_versus_counts_and_perm_counts():
    rows = hand_family()
    assert study.versus_counts(rows) == [
        {"other": "BERTScore", "n": 4, "above": 2, "below": 1, "tie": 0, "untested": 1, "better": 0, "worse": 0,
         "raw": 2, "few": 1},
        {"other": "TER", "n": 2, "above": 0, "below": 1, "tie": 1, "untested": 0, "better": 0, "worse": 0, "raw": 0,
         "few": 1}]
    assert study.versus_counts(rows, b="DA-Overlap F") == []
    assert study.perm_counts(rows) == {"n": 4, "sig": 0, "up": 0, "down": 0, "few": 1}
    # a family where the adjusted p stays below 5%: DA-BERTScore worse than BERTScore, counted as such
    one = study.page_family([({"evalset": "k", "subset": "all", "n": 16}, "BERTScore", DA, "r",
                              comparison(-0.2, 0.001))])
    assert study.perm_counts(one) == {"n": 1, "sig": 1, "up": 0, "down": 1, "few": 0}
    assert study.versus_counts(one)[0]["worse"] == 1


def test_family_tests_are_two_sided_over_runs_subsets_and_pairs():
    runs = {"wmt19 de-en": make_run()}
    tests = study.family_tests(runs, [("BERTScore", DA), ("TER", DA), ("METEOR", DA)], stats=("r", "tau"),
                               n_permutations=100, seed=1)
    assert len(tests) == 2 * 2 * 2  # METEOR is not in the run: left out
    by = {(s["subset"], a, stat): (s, b, c) for s, a, b, stat, c in tests}
    # all three systems: DA (b = 0) orders A > B > C (tau 1), BERTScore 0.3, 0.1, 0.2 gets 1/3
    setting, b, c = by[("all", "BERTScore", "τ")]
    assert setting == {"evalset": "wmt19 de-en", "subset": "all", "n": 3} and b == DA
    assert (c.corr_b, c.corr_a, c.alternative, c.n_units, c.unit) == (pytest.approx(1.0), pytest.approx(1 / 3),
                                                                      "two-sided", 3, "system")
    assert c.exact_floor == 0.25  # 2^-(3-1): swapping none or all reproduces the difference
    scores = study.metric_scores(runs["wmt19 de-en"], "all")
    same = compare_systems(scores["BERTScore"], scores[DA], HUMAN, "kendall", n_permutations=100, seed=1)
    assert c == same  # the library's test, nothing of the chapter's own
    assert by[("all", "TER", "τ")][2].p == 1.0  # TER (negated) orders them as humans do: a tie
    # the top two (A, B): fewer than three systems, untested with the reason
    top = by[("top30", "BERTScore", "r")]
    assert top[0]["n"] == 2 and np.isnan(top[2].p) and "at least 3 are needed" in top[2].reason
    rows = study.page_family(tests)
    assert {r.verdict for r in rows} == {Verdict.NOT_SHOWN, Verdict.TIE, Verdict.UNTESTED}
    extra = {("wmt19 de-en", "all"): {"X": {"A": 0.0, "B": 1.0, "C": 2.0}}}
    x = study.family_tests(runs, [("X", DA)], stats=("r",), subsets=("all",), extra=extra, n_permutations=100, seed=1)
    assert len(x) == 1 and x[0][4].corr_a == pytest.approx(-1.0) and x[0][4].delta > 0


def test_family_display_and_find():
    rows = hand_family()
    wide = study.family_display(rows)
    assert list(wide.columns.get_level_values(0).unique()) == ["r", "τ"]
    assert list(wide.columns.get_level_values(1)[:4]) == ["B − A", "p", "Holm p", "verdict"]
    assert wide.loc[("wmt19 de-en", "all", "BERTScore", 16), ("r", "Holm p")] == pytest.approx(0.05)
    assert wide.loc[("wmt19 de-en", "all", "TER", 16), ("r", "verdict")] == "tie"
    assert wide.loc[("wmt19 de-en", "top30", "BERTScore", 2), ("r", "verdict")] == "untested"
    assert study.find(rows, "wmt19 de-en", "all", "tau", "BERTScore", DA) is rows[1]
    assert study.find(rows, "wmt19 de-en", "all", "rho", "BERTScore", DA) is None


def test_metric_scores_orient_and_include_every_variant():
    r = make_run(held_f=0.3)
    scores = study.metric_scores(r, "top30")
    assert set(scores) == {"TER", "BERTScore", DA, DA_HELD, DA_RAW}
    assert scores["TER"] == {"A": -1.0, "B": -2.0, "C": -3.0}  # lower is better: negated
    assert set(scores[DA]) == {"A", "B"}  # difficulty of the top systems, their scores only
    assert DA_HELD not in study.metric_scores(make_run(), "all")


def test_robustness_findings_carry_the_test_at_the_in_set_b():
    robust = pd.DataFrame([dict(evalset="wmt19 de-en", subset="top30", method="pearson", b_low=0.2, b_high=0.4,
                                da_min=0.65, da_max=0.899, bertscore=-0.707, verdict="above")])
    (x,) = study.robustness_findings(robust, hand_family())["top_r"]
    assert x["test"]["n"] == 2 and x["test"]["verdict"] == "untested"  # top30, r
    assert study.robustness_findings(robust, [])["top_r"][0]["test"] is None


def test_overlap_scores_feed_the_overlap_tests():
    run = make_run()
    scores = study.overlap_scores(run, "tok")
    assert set(scores) == {"all", "top30"} and set(scores["top30"]["DA-Overlap F"]) == {"A", "B"}
    assert scores["all"]["Overlap F"] == pytest.approx({"A": 1.0, "B": 0.5, "C": 1.0})
    tests = study.family_tests({"k": run}, study.OVERLAP_CLAIMS, stats=("tau",), n_permutations=50, seed=1,
                               extra={("k", sub): sc for sub, sc in scores.items()})
    assert [(a, b) for _, a, b, _, _ in tests] == [("Overlap F", "DA-Overlap F")] * 2
    assert [c.p for *_, c in tests][0] == 1.0 and np.isnan(tests[1][4].p)  # a tie; two systems: untested


# -- findings a rerun on other data must get right --------------------------------------------

def test_table1_displays_show_ours_without_the_paper_where_it_has_no_value():
    rows = [(ts, "de-en", "all", m, st, v, p, p and v - p) for ts, p in [("wmt19", 0.5), ("wmt17", np.nan)]
            for m in ("BERTScore", DA) for st, v in [("r", 0.9), ("tau", 0.7), ("rho", 0.8)]]
    t = table_rows(rows).assign(abs=lambda d: d.value.abs())
    both = study.table1_displays(t)
    assert len(both) == 2
    paper, caption = both[0]
    assert "|r| paper" in paper.columns and caption.startswith("Correlation with the WMT19 human z-scores")
    ours, caption = both[1]
    assert list(ours.columns) == ["r", "tau", "rho"] and ours.index.get_level_values("test_set").unique().tolist() == \
        ["wmt17"]
    assert caption == "Correlation with the human z-scores on wmt17 de-en (not in the paper): ours, signed and oriented"
    only17 = study.table1_displays(t[t.test_set == "wmt17"])
    assert len(only17) == 1 and "paper" not in " ".join(only17[0][0].columns)


def test_gap_findings():
    t = table_rows([("wmt19", "de-en", "all", "BLEU (intl)", "r", 0.5, 0.888, 0.365),
                    ("wmt19", "de-en", "all", "TER", "r", 0.5, 0.797, 0.0),
                    ("wmt19", "de-en", "all", "METEOR", "r", 0.6, 0.886, -0.286),
                    ("wmt19", "de-en", "all", "BERTScore", "r", 0.9, 0.949, -0.049),
                    ("wmt19", "de-en", "all", DA, "r", 0.951, 0.951, 0.0),
                    ("wmt17", "de-en", "all", "BERTScore", "r", 0.9, np.nan, np.nan)])
    g = study.gap_findings(t, n_segments=150)
    assert g["n_segments"] == 150 and g["top_sizes"] is None
    assert g["authors_models"] == [{"target": "en", "model": "roberta-large (layer 17)"}]
    by = {d["metric"]: d for d in g["deltas"]}
    assert list(by) == ["BLEU (intl)", "TER", "METEOR", "BERTScore", DA]
    assert by["BLEU (intl)"] == {"metric": "BLEU (intl)", "delta": pytest.approx(0.365), "own": True, "top": None,
                                 "all": pytest.approx(0.365)}
    assert by["METEOR"]["own"] is False and by[DA]["delta"] == 0.0
    assert study.gap_findings(t[t.test_set == "wmt17"], n_segments=None)["deltas"] == []
    top = pd.concat([t, table_rows([("wmt19", "de-en", "top30", "BLEU (intl)", "r", 0.1, 0.808, -0.708)])])
    g = study.gap_findings(top, n_segments=None, top_sizes=[4, 6])
    assert g["top_sizes"] == {"lo": 4, "hi": 6} and g["deltas"][0]["top"] == pytest.approx(0.708)
    # the model the authors' code would use follows the target languages of the paper's sets in the run
    assert study.authors_models(["en-de"]) == [{"target": "other", "model": "bert-base-multilingual-cased (layer 9)"}]
    assert [a["target"] for a in study.authors_models(["de-en", "en-de"])] == ["en", "other"]
    assert study.p_cell(0.0204, 200) == "0.020" and study.p_cell(0.0, 200) == "<0.005"
    assert study.p_cell(float("nan"), 200) == "–"


def test_table2_and_table3_findings():
    none = study.table2_findings(None, None)
    assert none == {"has_set": False, "da_first": None, "n_segments": None, "same": [], "differ": []}
    sums = {"DA-BERTScore": {"Σ|Δ| ours": 8, "Σ|Δ| paper": 4}, "BLEU (intl)": {"Σ|Δ| ours": 12, "Σ|Δ| paper": 12},
            "METEOR": {"Σ|Δ| ours": 8, "Σ|Δ| paper": 14}}
    t2 = study.table2_findings(sums, False, n_segments=150)
    assert t2["has_set"] and t2["da_first"] is False and t2["same"] == ["BLEU (intl)"]
    assert t2["differ"] == [{"metric": "DA-BERTScore", "ours": 8, "paper": 4}, {"metric": "METEOR", "ours": 8, "paper": 14}]
    assert study.table3_findings([], has_set=False) == {"has_set": False, "n": 0, "bs_prefers": 0, "da_prefers": 0,
                                                        "n_segments": None}
    rows = [{"systems": {"MSRA": {"bertscore": 0.9, "da": 0.1}, "Facebook": {"bertscore": 0.8, "da": 0.2}}},
            {"systems": {"MSRA": {"bertscore": 0.7, "da": 0.3}, "Facebook": {"bertscore": 0.8, "da": 0.2}}}]
    assert study.table3_findings(rows, has_set=True, n_segments=20) == {"has_set": True, "n": 2, "bs_prefers": 1,
                                                                        "da_prefers": 1, "n_segments": 20}


def test_difficulty_findings_and_other_sets():
    d = study.difficulty_findings([0.1, 0.2, 0.9], [0.0, 0.1, 0.5], "wmt19 en-de")
    assert d == {"key": "wmt19 en-de", "paper_key": "wmt19 en-de", "median": pytest.approx(0.2),
                 "mean_all": pytest.approx(0.4), "mean_top": pytest.approx(0.2), "easy": True, "shifted": True}
    d17 = study.difficulty_findings([0.6, 0.7], [0.8, 0.9], "wmt17 de-en")
    assert (d17["easy"], d17["shifted"], d17["median"]) == (False, False, pytest.approx(0.65))
    assert study.other_sets(["wmt19 de-en"]) == []
    assert study.other_sets(["wmt19 de-en", "wmt17 de-en"]) == ["wmt17 de-en"]


def test_puts_first():
    table2 = pd.DataFrame({("DA-BERTScore", "Δ"): [0, 1, -1], ("BLEU", "Δ"): [-2, 1, 1]})
    assert study.puts_first(table2, "DA-BERTScore") is True and study.puts_first(table2, "BLEU") is False
