"""mtlib.metaeval: WMT21–24 meta-evaluation. Every expected value below is worked out by hand from the
statistic's definition (the comment says how); the last tests compare with google-research/
mt-metrics-eval's own code on random data where a snapshot of its source is at hand."""

import ast
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from mtlib.metaeval import (acc_eq, assign_ranks, average_correlation, compare_metrics, metric_values, perm_both_stat,
                            soft_pairwise_accuracy, williams, williams_test)
from mtlib.significance import perm_both

# 3 systems × 2 segments; system 3 was not judged on segment 2
H = [[1, 4], [2, 3], [3, None]]
M = [[1, 2], [3, 1], [2, 5]]


# --- averaged correlations ------------------------------------------------------------------------

def test_average_correlation_by_item_system_and_pooled():
    # by item: segment 1 h (1,2,3) m (1,3,2): deviations (-1,0,1)·(-1,1,0) = 1 over √(2·2) -> 0.5;
    # segment 2 has two judged systems, h (4,3) m (2,1): r = +1. Mean 0.75.
    assert average_correlation(M, H, "pearson", average_by="item") == pytest.approx(0.75)
    # Kendall: segment 1 has 2 concordant pairs, 1 discordant -> 1/3; segment 2 -> 1. Mean 2/3.
    assert average_correlation(M, H, "kendall", average_by="item") == pytest.approx(2 / 3)
    # by system: (1,4)/(1,2) -> +1, (2,3)/(3,1) -> -1, system 3 has one judged item: left out. Mean 0.
    assert average_correlation(M, H, "pearson", average_by="sys") == pytest.approx(0.0, abs=1e-15)
    # pooled: h (1,4,2,3,3) m (1,2,3,1,2): Σ dh·dm = 0.6, Σ dh² = 5.2, Σ dm² = 2.8
    assert average_correlation(M, H, "pearson") == pytest.approx(0.6 / math.sqrt(5.2 * 2.8))
    # mappings are aligned on the human's keys
    human = {"b": [2, 3], "a": [1, 4], "c": [3, None]}
    metric = {"a": [1, 2], "c": [2, 5], "b": [3, 1]}
    assert average_correlation(metric, human, average_by="item") == pytest.approx(0.75)


def test_average_correlation_leaves_out_constant_groups_and_is_nan_without_any():
    # by system: system 1's human scores are constant (left out); system 2 gives -1
    assert average_correlation([[1, 2], [3, 1]], [[5, 5], [2, 3]], average_by="sys") == -1.0
    assert math.isnan(average_correlation([[1, 2], [3, 1]], [[5, 5], [2, 2]], average_by="sys"))
    assert math.isnan(average_correlation([1, 2, 3], [4, 4, 4]))  # constant human scores
    assert math.isnan(average_correlation([1, 2, 3], [None, 2, None]))  # a single judged item


def test_average_correlation_refuses_bad_input():
    with pytest.raises(ValueError, match="needs a systems × segments matrix"):
        average_correlation([1, 2, 3], [1, 2, 3], average_by="item")
    with pytest.raises(ValueError, match="unknown average_by"):
        average_correlation(M, H, average_by="segment")
    with pytest.raises(ValueError, match="NaN metric scores on judged items"):
        average_correlation([1, None, 3], [1, 2, 3])
    with pytest.raises(ValueError, match="shape"):
        average_correlation([1, 2], [1, 2, 3])


# --- acc-eq with tie calibration ------------------------------------------------------------------

def test_acc_eq_calibrates_epsilon_to_the_human_ties():
    # pairs (|Δm|, humans): (0,1) 1 tie; (2,3) 0.5 tie; (1,2) 2, (1,3) 2.5, (0,2) 3, (0,3) 3.5 ordered
    # the same way. Accuracy at ε = 0: 4/6; 0.5: 5/6; 1: 6/6; 2: 5/6; 2.5: 4/6; 3: 3/6; 3.5: 2/6.
    r = acc_eq([0, 1, 3, 3.5], [0, 0, 1, 1])
    assert (r.accuracy, r.epsilon, r.n_pairs, r.n_groups) == (1.0, 1.0, 6, 1)
    assert acc_eq([0, 1, 3, 3.5], [0, 0, 1, 1], epsilon=0).accuracy == pytest.approx(4 / 6)
    assert acc_eq([0, 1, 3, 3.5], [0, 0, 1, 1], epsilon=2.2).accuracy == pytest.approx(5 / 6)


def test_acc_eq_takes_the_smallest_epsilon_of_equal_accuracy():
    # humans tie only (0,1); ε = 0.5 ties (2,3) wrongly, ε = 1 then ties (0,1) rightly: 5/6, 4/6, 5/6, ...
    r = acc_eq([0, 1, 3, 3.5], [0, 0, 1, 2])
    assert (r.accuracy, r.epsilon) == (pytest.approx(5 / 6), 0.0)


def test_acc_eq_by_item_pooled_and_by_system_with_a_missing_human_score():
    h, m = [[1, 5], [2, 5], [3, None]], [[0, 1], [1, 1.5], [3, 9]]
    # by item: segment 1, pairs |Δm| 1, 3, 2, all ordered right; segment 2, one pair tied by the
    # humans, |Δm| 0.5. ε = 0: (1 + 0)/2; ε = 0.5: (1 + 1)/2 = 1; ε = 1: (2/3 + 1)/2.
    r = acc_eq(m, h, average_by="item")
    assert (r.accuracy, r.epsilon, r.n_pairs, r.n_groups) == (1.0, 0.5, 4, 2)
    # pooled, 5 judged items, 10 pairs: 6 right at ε = 0 and at ε = 0.5 (the human tie gained, the
    # pair at |Δm| 0.5 lost); 4 at ε = 1, fewer beyond. One pair is a metric tie only: never right.
    r = acc_eq(m, h)
    assert (r.accuracy, r.epsilon, r.n_pairs) == (pytest.approx(0.6), 0.0, 10)
    assert acc_eq(m, h, epsilon=0.5).accuracy == pytest.approx(0.6)
    assert acc_eq(m, h, epsilon=1).accuracy == pytest.approx(0.4)
    # by system: one pair per judged system pair of segments, both right; system 3 has no pair
    r = acc_eq(m, h, average_by="sys")
    assert (r.accuracy, r.epsilon, r.n_pairs, r.n_groups) == (1.0, 0.0, 2, 2)


def test_acc_eq_edge_cases():
    # ties in both count as right at any ε: (0,1) tied by both, the others ordered right
    assert acc_eq([5, 5, 7], [1, 1, 2]) == acc_eq([5, 5, 7], [1, 1, 2], epsilon=0)
    assert acc_eq([5, 5, 7], [1, 1, 2]).accuracy == 1.0
    # a constant metric ties every pair: right only on the 1 human tie of 6 pairs, whatever ε
    r = acc_eq([2, 2, 2, 2], [1, 1, 2, 3])
    assert (r.accuracy, r.epsilon) == (pytest.approx(1 / 6), 0.0)
    # two items: one pair
    assert acc_eq([1, 2], [3, 4]).accuracy == 1.0
    r = acc_eq([1, 2, 3], [None, 2, None])  # one judged item: no pair
    assert math.isnan(r.accuracy) and r.n_pairs == 0
    with pytest.raises(ValueError, match="epsilon must be >= 0"):
        acc_eq([1, 2, 3], [1, 2, 3], epsilon=-1)


# --- soft pairwise accuracy -----------------------------------------------------------------------

def test_soft_pairwise_accuracy_from_exact_permutation_p_values():
    # Humans: A - B = (3, 1, 1) per segment, total 5; of the 8 sign patterns only (+,+,+) reaches 5:
    # p_human = 1/8. Metric: (1, 1, -1), total 1; patterns reaching 1: +++, ++-, +--, -+-: p = 4/8.
    # SPA = 1 - |1/8 - 4/8| = 0.625 (100,000 draws: Monte Carlo error about 0.002).
    human, metric = [[3, 1, 1], [0, 0, 0]], [[1, 1, 0], [0, 0, 1]]
    r = soft_pairwise_accuracy(metric, human, n_permutations=100_000, seed=1)
    assert r.value == pytest.approx(0.625, abs=0.01)
    assert (r.n_systems, r.n_segments, r.systems_left_out, r.segments_left_out) == (2, 3, 0, 0)
    # a constant metric: every draw reaches the observed 0, p = 1: SPA = 1 - (1 - 1/8) = 1/8
    assert soft_pairwise_accuracy([[0, 0, 0], [0, 0, 0]], human, n_permutations=100_000,
                                  seed=1).value == pytest.approx(0.125, abs=0.01)


def test_soft_pairwise_accuracy_is_one_for_an_increasing_transform_and_leaves_out_missing_scores():
    rng = np.random.default_rng(0)
    human = rng.normal(size=(5, 30))
    assert soft_pairwise_accuracy(2 * human + 7, human).value == 1.0
    metric = human + rng.normal(size=human.shape)
    full = soft_pairwise_accuracy(metric, human)
    assert 0 < full.value < 1
    # a system without any human score, and a segment one system lacks: both left out, and counted
    h = np.vstack([human, np.full((1, 30), np.nan)]).astype(object)
    h[2, 7] = None
    m = np.vstack([metric, rng.normal(size=(1, 30))])
    r = soft_pairwise_accuracy(m, h)
    assert (r.n_systems, r.n_segments, r.systems_left_out, r.segments_left_out) == (5, 29, 1, 1)
    keep = np.arange(30) != 7
    assert r.value == soft_pairwise_accuracy(metric[:, keep], human[:, keep]).value
    assert math.isnan(soft_pairwise_accuracy([[1, 2]], [[1, 2]]).value)  # one system: no pair


# --- PERM-BOTH on any statistic, significance matrices, rank clusters --------------------------------

def test_perm_both_stat_on_a_correlation_is_perm_both():
    rng = np.random.default_rng(3)
    h = rng.normal(size=(4, 6))
    a, b = h + rng.normal(size=h.shape), h + 2 * rng.normal(size=h.shape)
    for average_by, groups in (("none", None), ("item", [np.arange(4) + 4 * k for k in range(6)])):
        mine = perm_both_stat(a, b, h, "pearson", average_by=average_by, n_permutations=300, seed=9)
        # by item, the items are taken segment by segment: perm_both gets them in that order
        flat = (lambda x: x.ravel()) if groups is None else (lambda x: x.T.ravel())
        ref = perm_both(flat(a), flat(b), flat(h), "pearson", groups=groups, n_permutations=300, seed=9)
        assert (mine.pvalue, mine.delta) == (ref.pvalue, pytest.approx(ref.delta, abs=1e-15))


def test_perm_both_on_pairwise_accuracy_three_systems():
    # human (1,2,3); B = the humans (accuracy 1), A reversed (0). z-scores ±1.2247 and 0: the middle
    # system never matters; swapping exactly one of systems 1 and 3 leaves both metrics tied on that
    # pair (accuracy 1/3 each, Δ 0), swapping both reverses (Δ -1). Δ >= 1 only if neither is swapped: p = 1/4.
    r = perm_both_stat([3, 2, 1], [1, 2, 3], [1, 2, 3], "accuracy", n_permutations=40_000, seed=2)
    assert (r.corr_a, r.corr_b, r.delta, r.n) == (0.0, 1.0, 1.0, 3)
    assert r.pvalue == pytest.approx(0.25, abs=0.01)


def test_system_statistics_from_segment_scores_take_each_systems_mean():
    # 3 systems x 2 segments; system means (2, 2, 0.5) against human system scores (3, 2, 1): the pair
    # (0, 1) is a metric tie but not a human one (wrong), (0, 2) and (1, 2) are ordered as the humans: 2/3.
    # A missing human score leaves its system (and its segment scores) out.
    m, h = [[1, 3], [2, 2], [0, 1]], [3, 2, 1]
    assert metric_values({"m": m}, h, "accuracy")["m"] == pytest.approx(2 / 3)
    assert metric_values({"m": m}, h, "pearson")["m"] == pytest.approx(np.corrcoef([2, 2, 0.5], h)[0, 1])
    assert metric_values({"m": m + [[9, 9]]}, h + [None], "accuracy")["m"] == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="without average_by or labels"):
        metric_values({"m": m}, h, "accuracy", labels=["x", "x", "y"])


def test_perm_both_from_segment_scores_swaps_single_segment_scores():
    # 3 systems x 2 segments = 6 cells, so all 2**6 swaps can be listed: the exact p of "B better than A"
    # on pairwise accuracy of system means is the share of swaps whose difference is at least the observed
    # one (both metrics z-scored over the cells first, as PERM-BOTH does).
    h = np.array([1.0, 2.0, 3.0])
    a = np.array([[3.0, 2.0], [2.0, 1.0], [1.0, 1.5]])  # means 2.5, 1.5, 1.25: reversed, accuracy 0
    b = np.array([[0.0, 1.0], [1.0, 2.0], [4.0, 3.0]])  # means 0.5, 1.5, 3.5: accuracy 1
    za, zb = ((x - x.mean()) / x.std() for x in (a, b))

    def acc(x):
        s = x.mean(axis=1)
        return np.mean([np.sign(s[i] - s[j]) == np.sign(h[i] - h[j]) for i, j in ((0, 1), (0, 2), (1, 2))])
    deltas = []
    for bits in range(64):
        swap = np.array([(bits >> k) & 1 for k in range(6)], bool).reshape(3, 2)
        deltas.append(acc(np.where(swap, za, zb)) - acc(np.where(swap, zb, za)))
    exact = np.mean(np.array(deltas) >= 1.0 - 1e-12)
    r = perm_both_stat(a, b, h, "accuracy", n_permutations=40_000, seed=5)
    assert (r.corr_a, r.corr_b, r.delta, r.n) == (0.0, 1.0, 1.0, 3)
    assert 0 < exact < 1 and r.pvalue == pytest.approx(exact, abs=4 * np.sqrt(exact * (1 - exact) / 40_000))
    # the swaps are of z-scored cells: with B on another scale (x10) the exact p stays 0.09375 (3/32 of the
    # 64 swaps reach Δ = 1), where raw scores would give 0.0625
    assert exact == pytest.approx(3 / 32)
    r10 = perm_both_stat(a, 10 * b, h, "accuracy", n_permutations=40_000, seed=5)
    assert r10.pvalue == pytest.approx(3 / 32, abs=4 * np.sqrt(3 / 32 * 29 / 32 / 40_000))
    same = perm_both_stat(a, a, h, "accuracy", n_permutations=500, seed=5, alternative="two-sided")
    assert (same.delta, same.pvalue) == (0.0, 1.0)
    with pytest.raises(ValueError, match="a correlation or 'accuracy'"):
        perm_both_stat(a, b, h, "acc_eq")
    with pytest.raises(ValueError, match="shape"):
        perm_both_stat(a, b, [1.0, 2.0], "accuracy")


def test_segment_scores_beside_system_scores_tie_equal_means_and_refuse_what_they_cannot_do():
    # systems 0 and 1 have equal means (0.35) summed in another order: a tie in every path, so accuracy
    # counts the pair wrong against unequal human scores, in metric_values and in perm_both_stat alike
    m, h = np.array([[0.2, 0.8, 0.2, 0.2], [0.2, 0.2, 0.8, 0.2], [0.9, 0.9, 0.9, 1.0]]), [1, 2, 3]
    assert metric_values({"m": m}, h, "accuracy")["m"] == pytest.approx(2 / 3)
    assert perm_both_stat(m, m[::-1].copy(), h, "accuracy", n_permutations=10, seed=1).corr_a == pytest.approx(2 / 3)
    # a system-level correlation of the means, also through average_correlation
    assert average_correlation(m, h) == pytest.approx(np.corrcoef(m.mean(axis=1), h)[0, 1])
    with pytest.raises(ValueError, match="different shapes"):  # a vector and a matrix of metric scores
        metric_values({"a": [1.0, 2.0, 3.0], "b": m}, h, "pearson")
    with pytest.raises(ValueError, match="not segment scores beside system scores"):
        williams_test(m, m[::-1].copy(), h)
    # an undefined statistic (constant system means) is not a difference: no p
    flat = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    r = perm_both_stat(flat, m[:, :2], h, "pearson", n_permutations=50, seed=1)
    assert math.isnan(r.corr_a) and math.isnan(r.pvalue)


def test_pairwise_accuracy_pools_language_pairs_by_counting_pairs():
    # lp x: 3 systems, all 3 pairs right; lp y: 2 systems, its pair wrong; cross-lp pairs do not count:
    # pooled 3/4 (the mean of the per-lp accuracies would be 1/2)
    human, metric, labels = [1, 2, 3, 1, 2], [10, 20, 30, 9, 1], ["x", "x", "x", "y", "y"]
    ranking = compare_metrics({"m": metric}, human, "accuracy", labels=labels)
    assert ranking.scores == (0.75,)
    # without labels all 10 pairs count: right are (0,1) (0,2) (1,2) (1,3) (2,3) (2,4); (0,3) and
    # (1,4) are human ties the metric orders, (0,4) and (3,4) reversed: 6/10
    assert compare_metrics({"m": metric}, human, "accuracy").scores == (0.6,)


def test_perm_both_on_acc_eq_swaps_pair_outcomes():
    # 3 items, 3 pairs. B = the humans: all right (ε 0); A reversed: all wrong at every ε. Swapping a
    # pair's outcome moves Δ by 2/3; Δ >= 1 only if no pair is swapped: p = 1/8.
    r = perm_both_stat([3, 2, 1], [1, 2, 3], [1, 2, 3], "acc_eq", n_permutations=40_000, seed=4)
    assert (r.corr_a, r.corr_b, r.delta) == (0.0, 1.0, 1.0)
    assert r.pvalue == pytest.approx(0.125, abs=0.01)
    # identical metrics: every permutation gives Δ 0 >= 0
    assert perm_both_stat([1, 2, 3], [1, 2, 3], [1, 2, 3], "acc_eq", n_permutations=50).pvalue == 1.0


def test_metric_values_in_one_batch_equal_each_metric_alone():
    rng = np.random.default_rng(0)
    human = rng.normal(size=(6, 30))
    human[5] = np.nan  # a system without human scores: left out
    human[0, 3] = np.nan  # a segment not judged for every system: left out of SPA, kept by acc-eq
    metrics = {k: human + rng.normal(scale=s, size=human.shape) for k, s in [("near", 0.3), ("far", 2.0), ("mid", 1.0)]}
    for k in metrics:
        metrics[k][5] = rng.normal(size=30)
    spa = metric_values(metrics, human, "spa")
    assert spa == {k: soft_pairwise_accuracy(m, human).value for k, m in metrics.items()}
    assert spa["near"] > spa["far"]
    eq = metric_values(metrics, human, "acc_eq", average_by="item")
    assert eq == pytest.approx({k: acc_eq(m, human, average_by="item").accuracy for k, m in metrics.items()}, abs=1e-15)


def test_perm_both_stat_two_sided_is_both_directions_on_one_seed():
    rng = np.random.default_rng(1)
    human = rng.normal(size=(5, 40))
    a, b = human + rng.normal(scale=1.5, size=human.shape), human + rng.normal(scale=1.0, size=human.shape)
    for stat, by in [("pearson", "none"), ("acc_eq", "item"), ("spa", "none")]:
        ab = perm_both_stat(a, b, human, stat, average_by=by, n_permutations=200, seed=3)
        ba = perm_both_stat(b, a, human, stat, average_by=by, n_permutations=200, seed=3)
        two = perm_both_stat(a, b, human, stat, average_by=by, n_permutations=200, seed=3, alternative="two-sided")
        assert two.pvalue == min(1.0, 2 * min(ab.pvalue, ba.pvalue)), stat
        assert (two.corr_a, two.corr_b, two.delta) == (ab.corr_a, ab.corr_b, ab.delta)
    assert perm_both_stat(a, a, human, "pearson", n_permutations=50, alternative="two-sided").pvalue == 1.0  # a tie
    with pytest.raises(ValueError, match="alternative must be"):
        perm_both_stat(a, b, human, "pearson", alternative="less")


def test_perm_both_stat_on_acc_eq_can_swap_whole_segments():
    rng = np.random.default_rng(2)
    human = np.round(rng.normal(size=(2, 30)))  # two systems: one pair per segment, so a segment is a pair
    a, b = human + rng.normal(scale=2.0, size=human.shape), human + rng.normal(scale=0.5, size=human.shape)
    pair = perm_both_stat(a, b, human, "acc_eq", average_by="item", n_permutations=300, seed=5)
    group = perm_both_stat(a, b, human, "acc_eq", average_by="item", n_permutations=300, seed=5, swap="group")
    assert (group.pvalue, group.delta) == (pair.pvalue, pair.delta)
    human, a, b = (np.vstack([x, x[:1] + 0.3]) for x in (human, a, b))  # three systems: three pairs per segment
    wide = perm_both_stat(a, b, human, "acc_eq", average_by="item", n_permutations=2000, seed=5, swap="group")
    narrow = perm_both_stat(a, b, human, "acc_eq", average_by="item", n_permutations=2000, seed=5)
    assert wide.delta == narrow.delta and wide.pvalue >= narrow.pvalue  # fewer, larger swaps: a wider null
    with pytest.raises(ValueError, match="swap must be"):
        perm_both_stat(a, b, human, "pearson", swap="group")


def test_perm_both_stat_refuses():
    with pytest.raises(ValueError, match="at least 3 are needed"):
        perm_both_stat([1, 2, 3], [3, 2, 1], [1, None, 2], "pearson")
    with pytest.raises(ValueError, match="unknown statistic"):
        perm_both_stat([1, 2, 3], [3, 2, 1], [1, 2, 3], "bleu")
    with pytest.raises(ValueError, match="'spa' takes no average_by"):
        perm_both_stat(M, M, [[1, 2], [2, 3], [3, 4]], "spa", average_by="item")
    with pytest.raises(ValueError, match="system-level"):
        perm_both_stat(M, M, [[1, 2], [2, 3], [3, 4]], "accuracy")
    with pytest.raises(ValueError, match="n_permutations must be positive"):
        perm_both_stat([1, 2, 3], [3, 2, 1], [1, 2, 3], n_permutations=0)


def test_assign_ranks_as_mt_metrics_eval():
    # metrics best first; p[k, i] = p of "k better than i"
    p = np.full((4, 4), np.nan)
    p[0, 1], p[0, 2], p[1, 2] = 0.2, 0.01, 0.3
    p[0, 3], p[1, 3], p[2, 3] = 0.001, 0.04, 0.5
    # 1 not beaten by 0 -> rank 1; 2 beaten by 0 -> rank 2, new cluster from 2; 3 is compared with the
    # cluster {2} only (p 0.5), so it stays in rank 2 although 0 and 1 beat it
    assert assign_ranks(p) == [1, 1, 2, 2]
    # at alpha 0.001 only 0 beats 3 (p = 0.001: p <= alpha counts), and 3 is still in 0's cluster
    assert assign_ranks(p, alpha=0.001) == [1, 1, 1, 2]
    p[0, 1] = 0.05
    # 0 beats 1 at exactly alpha: 1 opens rank 2; 2 is not beaten by 1 (0.3); 3 is, by 1 (0.04): rank 3
    assert assign_ranks(p) == [1, 2, 2, 3]
    assert assign_ranks(np.full((3, 3), np.nan)) == [1, 1, 1]  # untested never separates


def test_compare_metrics_sorts_tests_and_clusters():
    human = list(range(10))
    metrics = {"good": [0, 1, 2, 3, 5, 4, 6, 7, 8, 9], "reversed": human[::-1],
               "copy_b": [0, 2, 1, 3, 4, 5, 6, 7, 9, 8], "copy_a": [0, 2, 1, 3, 4, 5, 6, 7, 9, 8]}
    r = compare_metrics(metrics, human, "pearson", n_permutations=400, seed=1)
    assert r.names == ("good", "copy_a", "copy_b", "reversed")  # equal scores ordered by name
    assert r.scores[0] > r.scores[1] == r.scores[2] > r.scores[3]
    assert r.pvalues[1, 2] == 1.0  # identical metrics: every draw gives Δ 0
    assert r.pvalues[2, 3] < 0.01 and r.ranks == (1, 1, 1, 2)
    assert r.pvalues[0, 3] == perm_both_stat(metrics["reversed"], metrics["good"], human, "pearson",
                                             n_permutations=400, seed=1).pvalue
    assert np.isnan(r.pvalues[np.tril_indices(4)]).all()
    assert r.as_dict()["reversed"] == (r.scores[3], 2)


def test_compare_metrics_on_segment_statistics():
    rng = np.random.default_rng(5)
    human = np.round(rng.normal(size=(4, 12)), 1)
    metrics = {"close": human + 0.3 * rng.normal(size=human.shape), "far": rng.normal(size=human.shape)}
    r = compare_metrics(metrics, human, "acc_eq", average_by="item", n_permutations=200, seed=0)
    assert r.names[0] == "close" and r.scores[0] == acc_eq(metrics["close"], human, average_by="item").accuracy
    r = compare_metrics(metrics, human, "spa", n_permutations=20, seed=0)
    assert r.scores == tuple(soft_pairwise_accuracy(metrics[n], human).value for n in r.names)


# --- Williams -------------------------------------------------------------------------------------

def test_williams_by_hand():
    # Graham and Baldwin (2014), eq. 3, with r(h,A) 0.8, r(h,B) 0.6, r(A,B) 0.7, n = 20:
    # |R| = 1 - .64 - .36 - .49 + 2·.8·.6·.7 = 0.182; t = 0.2·√(19·1.7) / √(38/17·0.182 + 0.7²·0.3³)
    t_hand = 0.2 * math.sqrt(19 * 1.7) / math.sqrt(38 / 17 * 0.182 + 0.49 * 0.027)
    t, p = williams(0.8, 0.6, 0.7, 20)
    assert t == pytest.approx(t_hand) and t == pytest.approx(1.75380, abs=1e-5)
    assert p == pytest.approx(stats.t.sf(t_hand, 17))
    assert williams(0.8, 0.6, 0.7, 20, alternative="two-sided")[1] == pytest.approx(2 * p)
    t2, p2 = williams(0.6, 0.8, 0.7, 20)  # the other direction
    assert t2 == pytest.approx(-t) and p2 == pytest.approx(1 - p)
    assert williams(0.5, 0.5, 0.3, 10) == (0.0, 0.5)
    assert all(math.isnan(v) for v in williams(0.8, 0.6, 0.7, 3))  # n - 3 = 0 degrees of freedom


def test_williams_test_on_scores():
    human = [1, 2, 3, 4, 5, None]
    a, b = [1, 2, 3, 5, 4, 0], [2, 1, 4, 3, 5, 0]
    r = williams_test(a, b, human)
    assert r.n == 5  # the unjudged item is left out
    assert r.corr_a == pytest.approx(0.9) and r.corr_b == pytest.approx(0.8)  # 1 - 6Σd²/(n(n²-1)) on ranks 1..5
    assert r.corr_ab == pytest.approx(stats.pearsonr(a[:5], b[:5]).statistic)
    assert (r.t, r.p) == williams(r.corr_a, r.corr_b, r.corr_ab, 5)
    assert math.isnan(williams_test([1, 1, 1, 1], [1, 2, 3, 4], [1, 2, 3, 4]).p)  # constant metric


# --- agreement with mt-metrics-eval's own code ---------------------------------------------------

# a local git snapshot of google-research/mt-metrics-eval: MTME_GIT_DIR, else the tool library's mirror
# beside the project (../.mirror), as the data root sits beside it (../shared)
MTME_GIT = Path(os.environ.get("MTME_GIT_DIR") or Path(__file__).resolve().parents[2] / ".mirror"
                / "google-research+mt-metrics-eval" / "repo")


@pytest.fixture(scope="module")
def mtme(tmp_path_factory):
    """mt-metrics-eval's stats, pce and tau_optimization modules (numpy/scipy only), and AssignRanks
    lifted out of data.py (which imports apache_beam), from a local snapshot of its repository."""
    if not MTME_GIT.is_dir():
        pytest.skip("no snapshot of google-research/mt-metrics-eval (set MTME_GIT_DIR to its git directory)")
    root = tmp_path_factory.mktemp("mtme")
    (root / "mt_metrics_eval").mkdir()
    for name in ("__init__", "stats", "pce", "tau_optimization", "data"):
        text = subprocess.run(["git", f"--git-dir={MTME_GIT}", "show", f"HEAD:mt_metrics_eval/{name}.py"],
                              capture_output=True, text=True, check=True).stdout
        if name == "data":
            fn = next(n for n in ast.parse(text).body if getattr(n, "name", "") == "AssignRanks")
            text = ast.get_source_segment(text, fn)
        (root / "mt_metrics_eval" / f"{name}.py").write_text(text)
    sys.path.insert(0, str(root))
    try:
        from mt_metrics_eval import data, pce, stats as mstats  # noqa: PLC0415
        yield mstats, pce, data
    finally:
        sys.path.remove(str(root))
        for mod in [m for m in sys.modules if m.startswith("mt_metrics_eval")]:
            del sys.modules[mod]


def _random_sets(seed: int, n: int):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        n_sys, n_seg = int(rng.integers(2, 7)), int(rng.integers(1, 12))
        h = rng.integers(0, 4, (n_sys, n_seg)).astype(float)  # many human ties
        m = np.round(rng.normal(size=(n_sys, n_seg)), 1)  # and metric ties
        hl = [[None if rng.random() < 0.2 else float(v) for v in row] for row in h]
        yield n_sys, hl, m


def test_correlations_and_acc_eq_agree_with_mt_metrics_eval(mtme):
    mstats, _, _ = mtme
    for n_sys, hl, m in _random_sets(0, 40):
        gold, met = [v for row in hl for v in row], list(m.ravel())
        corr = mstats.Correlation(n_sys, gold, met)
        for avg in ("none", "item", "sys"):
            for method, ref in (("pearson", corr.Pearson), ("spearman", corr.Spearman), ("kendall", corr.Kendall)):
                mine = average_correlation(m, hl, method, average_by=avg)
                assert (0.0 if math.isnan(mine) else mine) == pytest.approx(ref(average_by=avg)[0], abs=1e-14)
            mine = acc_eq(m, hl, average_by=avg)
            if not mine.n_pairs:  # no pair at all: NaN here, a ZeroDivisionError there
                continue
            ref, eps, _ = mstats.KendallWithTiesOpt(gold, met, "acc23", n_sys, avg, sample_rate=1.0)
            # the same maximum; at mt-metrics-eval's ε the same accuracy. Its ε can be a larger one of
            # equal accuracy (its running sum drifts by an ulp); ours is the smallest.
            assert mine.accuracy == pytest.approx(ref, abs=1e-14)
            assert mine.epsilon <= eps + 1e-15
            assert acc_eq(m, hl, average_by=avg, epsilon=eps).accuracy == pytest.approx(ref, abs=1e-14)
            for e in (0.0, 0.25):
                fixed = mstats.AverageCorrelation(mstats.KendallVariants, n_sys, avg, variant="acc23", epsilon=e)
                assert acc_eq(m, hl, average_by=avg, epsilon=e).accuracy == pytest.approx(fixed(gold, met)[0],
                                                                                          abs=1e-14)


def test_soft_pairwise_accuracy_williams_and_ranks_agree_with_mt_metrics_eval(mtme):
    mstats, pce, data = mtme
    rng = np.random.default_rng(1)
    for k in range(8):
        n_sys, n_seg = int(rng.integers(2, 9)), int(rng.integers(20, 60))
        h = rng.normal(size=(n_sys, n_seg))
        m = h + rng.normal(size=h.shape)
        if k % 2:  # integer scores: many exact ties between a permuted and the observed difference
            h, m = np.round(3 * h), np.round(3 * m)
        ref = mstats.PairwiseConfidenceError(list(h.ravel()), list(m.ravel()), n_sys)[0]
        # the same draws: the same p-values. (With scores like 0.1 steps, a permuted difference that
        # equals the observed one is decided by mt-metrics-eval's float32 rounding; here it counts.)
        assert soft_pairwise_accuracy(m, h).value == ref
        x = rng.normal(size=(3, 25)) + rng.normal(size=25)  # human, A, B: correlated
        c = np.corrcoef(x)
        r = (c[0, 1], c[0, 2], c[1, 2])
        assert williams(*r, 25)[1] == pytest.approx(mstats.WilliamsTest(*r, 25) if r[0] >= r[1]
                                                    else 1 - mstats.WilliamsTest(*r, 25), abs=1e-14)
        p = np.triu(rng.uniform(0, 0.2, (n_sys, n_sys)), 1)
        assert assign_ranks(p) == data.AssignRanks(p, 0.05)
