"""PERM-BOTH and pairwise accuracy against scipy and hand-computed cases."""

import math

import numpy as np
import pytest
from scipy import stats

from mtlib.correlation import row_correlations
from mtlib.significance import (Verdict, compare, compare_systems, holm, PermutationResult, min_pvalue, p_text, pairwise_accuracy, perm_both,
                                perm_both_systems, pooled_pairwise_accuracy)

RNG = np.random.default_rng(0)
HUMAN = RNG.normal(size=12)
GOOD = HUMAN + RNG.normal(scale=0.3, size=12)
NOISY = HUMAN + RNG.normal(scale=1.5, size=12)


@pytest.mark.parametrize("method, scipy_fn", [("pearson", stats.pearsonr), ("spearman", stats.spearmanr),
                                              ("kendall", stats.kendalltau)])
def test_row_correlations_equal_scipys(method, scipy_fn):
    x = np.round(RNG.normal(size=(5, 12)), 1)  # rounding makes ties, which tau-b and Spearman must handle
    x[2, :4] = x[2, 0]
    y = np.round(HUMAN, 1)
    want = [scipy_fn(row, y).statistic for row in x]
    assert row_correlations(x, y, method) == pytest.approx(want, abs=1e-12)
    assert np.isnan(row_correlations(np.ones((1, 12)), y, method)[0])  # constant row: undefined
    # 0.1 repeated has a mean that is not exactly 0.1: still constant, still undefined
    assert np.isnan(row_correlations(np.full((1, 7), 0.1), y[:7], method)[0])
    assert np.isnan(row_correlations(x[:, :7], np.full(7, 0.7), method)).all()
    with pytest.raises(ValueError, match="unknown correlation method"):
        row_correlations(x, y, "cosine")


def test_kendall_on_long_rows_uses_scipy():
    x, y = RNG.normal(size=(2, 2100)), RNG.normal(size=2100)
    assert row_correlations(x, y, "kendall") == pytest.approx([stats.kendalltau(r, y).statistic for r in x])


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall"])
def test_perm_both_matches_scipys_exact_paired_permutation_test(method):
    """With 8 items scipy enumerates all 256 swaps; our Monte Carlo p must lie near its exact p."""
    h, a, b = HUMAN[:8], NOISY[:8], GOOD[:8]
    za, zb = (a - a.mean()) / a.std(), (b - b.mean()) / b.std()

    def stat(x, y):
        return row_correlations(np.stack([y]), h, method)[0] - row_correlations(np.stack([x]), h, method)[0]

    exact = stats.permutation_test((za, zb), stat, permutation_type="samples", alternative="greater",
                                   vectorized=False, n_resamples=10_000)
    res = perm_both(a, b, h, method, n_permutations=40_000, seed=3)
    assert res.delta == pytest.approx(exact.statistic)
    assert res.pvalue == pytest.approx(exact.pvalue, abs=0.01)  # 4 standard errors of 40,000 draws at p = 0.5
    assert 0 < res.pvalue < 1


def test_perm_both_values_and_hand_cases():
    res = perm_both(NOISY, GOOD, HUMAN, "pearson", n_permutations=2000, seed=1)
    assert isinstance(res, PermutationResult) and res.n == 12 and res.n_permutations == 2000
    assert res.corr_a == pytest.approx(stats.pearsonr(NOISY, HUMAN).statistic)
    assert res.corr_b == pytest.approx(stats.pearsonr(GOOD, HUMAN).statistic)
    assert res.delta == pytest.approx(res.corr_b - res.corr_a) and res.delta > 0
    assert res.pvalue < 0.05  # GOOD tracks the humans far better
    reverse = perm_both(GOOD, NOISY, HUMAN, "pearson", n_permutations=2000, seed=1)
    assert reverse.pvalue > 0.95 and reverse.delta == pytest.approx(-res.delta)
    # the same metric twice: every swap leaves the difference at 0, so p is exactly 1
    assert perm_both(GOOD, GOOD, HUMAN, "kendall", n_permutations=50, seed=0).pvalue == 1.0
    # a metric rescaled is the same metric: z-scoring makes the swaps harmless too
    assert perm_both(GOOD, 100 * GOOD + 7, HUMAN, "pearson", n_permutations=50, seed=0).pvalue == 1.0
    # seeded
    again = perm_both(NOISY, GOOD, HUMAN, "pearson", n_permutations=2000, seed=1)
    assert again.pvalue == res.pvalue
    assert perm_both(NOISY, GOOD, HUMAN, "pearson", n_permutations=2000, seed=2).pvalue != res.pvalue


def test_perm_both_drops_unjudged_items_and_groups():
    human = list(HUMAN)
    human[3] = None
    res = perm_both(NOISY, GOOD, human, "spearman", n_permutations=100, seed=0)
    keep = [i for i in range(12) if i != 3]
    assert res.n == 11 and res.corr_b == pytest.approx(stats.spearmanr(GOOD[keep], HUMAN[keep]).statistic)
    groups = [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11]]
    grouped = perm_both(NOISY, GOOD, HUMAN, "kendall", groups=groups, n_permutations=100, seed=0)
    assert grouped.corr_b == pytest.approx(np.mean([stats.kendalltau(GOOD[g], HUMAN[g]).statistic for g in groups]))
    with pytest.raises(ValueError, match="judged items only"):
        perm_both(NOISY, GOOD, human, "kendall", groups=groups)


def test_perm_both_refuses_bad_input():
    with pytest.raises(ValueError, match="12 scores of A, 11 of B and 12 human"):
        perm_both(NOISY, GOOD[:11], HUMAN)
    with pytest.raises(ValueError, match="unknown correlation method 'cosine'"):
        perm_both(NOISY, GOOD, HUMAN, "cosine")
    with pytest.raises(ValueError, match="tau-b only"):
        perm_both(NOISY, GOOD, HUMAN, "kendall", variant="c")
    with pytest.raises(ValueError, match="metric A is constant"):
        perm_both(np.ones(12), GOOD, HUMAN)
    with pytest.raises(ValueError, match="2 items with a human score"):
        perm_both([1, 2, 3], [3, 1, 2], [1, None, 2])
    with pytest.raises(ValueError, match="NaN metric scores"):
        perm_both([1, np.nan, 3, 4], [3, 1, 2, 4], [1, 2, 3, 4])
    with pytest.raises(ValueError, match="n_permutations must be positive"):
        perm_both(NOISY, GOOD, HUMAN, n_permutations=0)


def test_perm_both_systems_aligns_by_name():
    names = [f"s{i}" for i in range(12)]
    human = dict(zip(names, HUMAN))
    human["s3"] = None
    a, b = dict(zip(names, NOISY)), dict(zip(reversed(names), GOOD[::-1]))  # order does not matter
    res = perm_both_systems(a, b, human, "pearson", n_permutations=100, seed=0)
    keep = [i for i in range(12) if i != 3]
    assert res.n == 11 and res.corr_a == pytest.approx(stats.pearsonr(NOISY[keep], HUMAN[keep]).statistic)


def test_pairwise_accuracy_by_hand():
    human = {"A": 3.0, "B": 2.0, "C": 1.0, "D": None}
    assert pairwise_accuracy({"A": 0.9, "B": 0.5, "C": 0.1, "D": 0.0}, human) == (3, 3)
    assert pairwise_accuracy({"A": 0.1, "B": 0.5, "C": 0.9, "D": 0.0}, human) == (0, 3)
    # a metric tie (A = B) disagrees with a human difference; B > C and A > C agree
    assert pairwise_accuracy({"A": 0.5, "B": 0.5, "C": 0.1, "D": 0.0}, human) == (2, 3)
    # pooled: (3 + 0) agreeing of (3 + 1) pairs
    pooled = pooled_pairwise_accuracy([({"A": 0.9, "B": 0.5, "C": 0.1}, {"A": 3, "B": 2, "C": 1}),
                                       ({"X": 1.0, "Y": 2.0}, {"X": 2, "Y": 1})])
    assert pooled == pytest.approx(3 / 4)
    assert np.isnan(pooled_pairwise_accuracy([]))


# -- the floor of PERM-BOTH's p, and how a p-value is written --------------------------------------

def _powers(n):
    """1, 2, 4, ...: no z-score is 0, so every swap of a perfect metric B with its negation A
    lowers B's correlation and raises A's; only the draws that swap nothing reach the observed
    difference."""
    return 2.0 ** np.arange(n)


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7, 8])
def test_min_pvalue_is_the_p_of_the_extreme_case(n):
    h = _powers(n)
    for n_perm, seed in [(200, 1), (500, 7), (1000, 0)]:
        assert perm_both(-h, h, h, "pearson", n_permutations=n_perm, seed=seed).pvalue == min_pvalue(
            n, n_permutations=n_perm, seed=seed)


def test_min_pvalue_is_the_share_of_unswapped_draws_and_bounds_every_test():
    swaps = np.random.default_rng(7).random((1000, 3)) < 0.5
    unswapped = float(np.mean(~swaps.any(axis=1)))
    assert min_pvalue(3, seed=7) == unswapped == pytest.approx(1 / 8, abs=0.03)
    rng = np.random.default_rng(0)
    for method in ("pearson", "kendall", "spearman"):
        for _ in range(20):
            a, b, h = rng.normal(size=(3, 3))
            assert perm_both(a, b, h, method, seed=7).pvalue >= unswapped
    # Kendall over 3 systems stays above the floor (swapping the middle system keeps both orders)
    h = _powers(3)
    assert perm_both(-h, h, h, "kendall", seed=7).pvalue > unswapped + 0.05


def test_min_pvalue_near_two_to_the_minus_n():
    assert min_pvalue(4, n_permutations=100_000, seed=0) == pytest.approx(1 / 16, abs=0.003)
    assert min_pvalue(3, n_permutations=10) == 1 / 8  # seed None: the expectation
    assert np.isnan(min_pvalue(2, n_permutations=10, seed=1))  # no test below 3 items
    with pytest.raises(ValueError, match="n_permutations must be positive, got 0"):
        min_pvalue(4, n_permutations=0)


@pytest.mark.parametrize("p, n, nan, text", [
    (0.0456, 1000, "not tested", "p = 0.046"),
    (0.12345, 1000, "not tested", "p = 0.123"),
    (0.0, 1000, "not tested", "p < 0.001"),   # no draw reached the observed difference
    (0.0, 200, "not tested", "p < 0.005"),
    (0.0, 10_000, "not tested", "p < 0.0001"),
    (0.0003, 10_000, "not tested", "p < 0.001"),  # would round to 0.000
    (float("nan"), 200, "not tested", "not tested"),
    (None, 200, "not tested", "not tested"),
    (float("nan"), 1000, "p not defined", "p not defined"),
])
def test_p_text(p, n, nan, text):
    assert p_text(p, n, nan=nan) == text


# ---- compare: the one way the book says "A beats B" ----

def _exact_two_sided(a, b, h, method="pearson", clusters=None):
    """Every swap pattern of the units enumerated: the exact two-sided PERM-BOTH p."""
    import itertools

    za, zb = (a - a.mean()) / a.std(), (b - b.mean()) / b.std()
    labels = np.arange(len(h)) if clusters is None else np.unique(clusters, return_inverse=True)[1]
    k = labels.max() + 1
    obs = row_correlations(np.stack([zb]), h, method)[0] - row_correlations(np.stack([za]), h, method)[0]
    hits = 0
    for pattern in itertools.product([False, True], repeat=k):
        swap = np.array(pattern)[labels]
        pa, pb = np.where(swap, zb, za), np.where(swap, za, zb)
        d = row_correlations(np.stack([pb]), h, method)[0] - row_correlations(np.stack([pa]), h, method)[0]
        hits += abs(d) >= abs(obs) - 1e-12
    return hits / 2 ** k


@pytest.mark.parametrize("method", ["pearson", "kendall"])
def test_compare_is_two_sided_and_near_the_enumerated_p(method):
    h, a, b = HUMAN[:8], NOISY[:8], GOOD[:8]
    res = compare(a, b, h, method, n_permutations=40_000, seed=3)
    assert res.alternative == "two-sided" and res.unit == "system" and res.n == res.n_units == 8
    assert res.p == pytest.approx(_exact_two_sided(a, b, h, method), abs=0.01)
    # the same draws as perm_both: two-sided p counts both tails, so it is at least the one-sided p
    one = perm_both(a, b, h, method, n_permutations=40_000, seed=3)
    assert res.delta == pytest.approx(one.delta) and res.p >= one.pvalue
    swapped = compare(b, a, h, method, n_permutations=40_000, seed=3)
    assert swapped.delta == pytest.approx(-res.delta) and swapped.p == pytest.approx(res.p)


def test_compare_floors_and_the_extreme_case():
    h = np.array([0.0, 1.0, 2.0, 3.0, 5.0])  # no item at the mean (swapping a zero z-score changes nothing)
    res = compare(-h, h, h, "pearson", n_permutations=20_000, seed=2)  # B perfect, A reversed: the extreme case
    assert res.exact_floor == 2 ** -4  # no swap and the full swap both reproduce |delta|
    assert res.p == pytest.approx(res.mc_floor) and res.mc_floor == pytest.approx(2 ** -4, abs=0.01)
    assert res.verdict(alpha=0.1) is Verdict.B_BETTER and res.verdict() is Verdict.NOT_SHOWN  # 1/16 > 0.05
    greater = compare(-h, h, h, "pearson", n_permutations=20_000, seed=2, alternative="greater")
    assert greater.exact_floor == 2 ** -5 and greater.p == pytest.approx(greater.mc_floor)
    # one-sided, declared in advance: judged at alpha / 2 (1/32 > 0.025: not shown; shown at alpha = 0.1)
    assert greater.verdict() is Verdict.NOT_SHOWN and greater.verdict(alpha=0.1) is Verdict.B_BETTER
    # declared "B better" in advance, but A is ahead: nothing is shown, however small the p of the other tail
    assert compare(h, -h, h, n_permutations=2000, seed=2, alternative="greater").verdict() is Verdict.NOT_SHOWN


def test_compare_calls_a_tie_a_tie_and_untestable_cases_untested():
    h = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    tie = compare(h * 2, h * 2 + 1, h, n_permutations=500, seed=1)
    assert tie.delta == 0 and tie.p == 1.0 and tie.verdict() is Verdict.TIE
    flat = compare(np.ones(5), h, h, n_permutations=500, seed=1)
    assert flat.verdict() is Verdict.UNTESTED and "constant" in flat.reason and math.isnan(flat.p)
    no_errors = compare(h, h[::-1], np.zeros(5), n_permutations=500, seed=1)  # e.g. no system has a marked error
    assert no_errors.verdict() is Verdict.UNTESTED and "the human score is constant" in no_errors.reason
    few = compare([1.0, 2.0], [2.0, 1.0], [1.0, 2.0], n_permutations=500, seed=1)
    assert few.verdict() is Verdict.UNTESTED and "at least 3" in few.reason
    with pytest.raises(ValueError, match="unknown alternative 'less'"):
        compare(h, h, h, alternative="less")
    with pytest.raises(ValueError, match="3 scores of A, 5 of B"):
        compare(h[:3], h, h)


def test_compare_by_cluster_swaps_each_cluster_whole():
    rng = np.random.default_rng(0)
    h = rng.normal(size=12)
    a, b = h + rng.normal(scale=1.0, size=12), h + rng.normal(scale=0.5, size=12)
    own = compare(a, b, h, n_permutations=3000, seed=4)
    singletons = compare(a, b, h, unit="segment", clusters=[f"s{i}" for i in range(12)], n_permutations=3000, seed=4)
    assert singletons.p == own.p and singletons.n_units == 12  # one item per cluster: the plain test
    sources = [i // 3 for i in range(12)]  # four sources of three rows each
    by_source = compare(a, b, h, unit="source", clusters=sources, n_permutations=20_000, seed=4)
    assert by_source.n == 12 and by_source.n_units == 4 and by_source.unit == "source"
    assert by_source.exact_floor == 2 ** -3
    assert by_source.p == pytest.approx(_exact_two_sided(a, b, h, clusters=np.array(sources)), abs=0.015)
    two = compare(a, b, h, unit="source", clusters=[i // 6 for i in range(12)], n_permutations=100, seed=4)
    assert two.verdict() is Verdict.UNTESTED and "2 source clusters" in two.reason


def test_compare_systems_aligns_by_name():
    human = {"s1": 1.0, "s2": 2.0, "s3": 3.0, "s4": 4.0, "ref": None}
    a = {"s1": 4.0, "s2": 1.0, "s3": 3.0, "s4": 2.0, "ref": 9.0}
    b = {"s4": 4.1, "s3": 2.9, "s2": 2.2, "s1": 0.8, "ref": 9.0}
    res = compare_systems(a, b, human, n_permutations=500, seed=1)
    assert res.n == 4 and res.corr_b > res.corr_a


def test_holm_by_hand_and_with_untested_entries():
    # m = 3 tested: sorted 0.01*3, 0.03*2, 0.04*1 -> 0.03, 0.06, then non-decreasing -> 0.06
    assert holm([0.01, 0.04, 0.03, math.nan])[:3] == pytest.approx([0.03, 0.06, 0.06])
    assert math.isnan(holm([0.01, 0.04, 0.03, math.nan])[3])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])  # capped at 1
    assert holm([0.02]) == [0.02] and holm([]) == []
    # never below the raw p, and a family of one is unchanged
    raw = [0.001, 0.2, 0.04, 0.011]
    assert all(adj >= p for adj, p in zip(holm(raw), raw))
