"""Meta-evaluation as the WMT metrics tasks of 2021–2024 do it: averaged correlations, acc-eq, soft pairwise
accuracy, PERM-BOTH on any of them into significance matrices and rank clusters, Williams' test; each
re-implements (vectorised) the google-research/mt-metrics-eval function its docstring names.

Scores: a vector (systems) or a systems × segments matrix, or ``{system: score or [segment scores]}``
aligned on the human's keys; segment scores beside human *system* scores (WMT19's DA) give a statistic of
the system means. A ``None``/NaN human score (not judged) leaves the item out. ``average_by``:
``none`` pools all judged items, ``item`` groups by segment (WMT23/24), ``sys`` by system; a grouped
statistic is the mean over the groups where it is defined (mt-metrics-eval's ``_Reshape``)."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
from scipy import stats

from mtlib.correlation import METHODS, row_correlations
from mtlib.significance import ALPHA, AVERAGE_BY, PermutationResult, grouped_correlation

__all__ = ["STATISTICS", "TieCalibrated", "SoftPairwise", "MetricRanking", "WilliamsResult", "average_correlation",
           "acc_eq", "soft_pairwise_accuracy", "metric_values", "perm_both_stat", "assign_ranks",
           "compare_metrics", "williams", "williams_test"]

STATISTICS = (*METHODS, "accuracy", "acc_eq", "spa")
_CHUNK = 4_000_000  # numbers held per block of permutations


def _array(x, systems: list | None = None) -> np.ndarray:
    if isinstance(x, Mapping):
        keys = list(x) if systems is None else systems
        if missing := [s for s in keys if s not in x]:
            raise ValueError(f"no metric scores for systems {missing}")
        x = [x[s] for s in keys]
    a = np.array(x, dtype=object)
    return np.where(np.equal(a, None), np.nan, a).astype(float)


def _pair(metric, human, who: str) -> tuple[np.ndarray, np.ndarray]:
    h = _array(human)
    m = _array(metric, list(human) if isinstance(human, Mapping) else None)
    from_segments = h.ndim == 1 and m.ndim == 2 and len(m) == len(h)  # system scores = segment means
    if (m.shape != h.shape and not from_segments) or h.ndim not in (1, 2):
        raise ValueError(f"{who}: metric scores of shape {m.shape}, human scores of shape {h.shape}; give a vector "
                         "(systems) or a systems × segments matrix of each, or a matrix of metric scores beside a "
                         "vector of human system scores")
    if np.isnan(m[~np.isnan(h)]).any():
        raise ValueError(f"{who}: NaN metric scores on judged items")
    return m, h


def average_correlation(metric, human, method: str = "pearson", *, average_by: str = "none") -> float:
    """Pearson, Spearman or Kendall's tau-b, pooled or averaged by item or system (mirrors
    ``stats.Correlation.Pearson/Spearman/Kendall(average_by)``: ``AverageCorrelation``, macro; groups
    of one item or with a constant side left out). NaN where no group has one (mt-metrics-eval: 0)."""
    if method not in METHODS:
        raise ValueError(f"unknown correlation method {method!r}; valid: {list(METHODS)}")
    (x,), _, groups, f = _setup([metric], human, method, average_by, None, "average_correlation")
    return float(f(x[None])[0]) if groups else math.nan


@dataclass(frozen=True)
class TieCalibrated:
    """:func:`acc_eq`: the accuracy, the metric tie threshold ε, the pairs and groups (with a pair) counted."""

    accuracy: float
    epsilon: float
    n_pairs: int
    n_groups: int


def _pairs(groups: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """All pairs inside each group, each weighted 1 / (its group's pairs × groups with a pair), and
    where each group's pairs start."""
    parts = [(g[i], g[j]) for g in groups for i, j in [np.triu_indices(len(g), 1)] if len(i)]
    if not parts:
        return np.zeros(0, int), np.zeros(0, int), np.zeros(0), np.zeros(0, int)
    w = np.concatenate([np.full(len(i), 1 / len(i)) for i, _ in parts]) / len(parts)
    starts = np.cumsum([0] + [len(i) for i, _ in parts[:-1]])
    return np.concatenate([i for i, _ in parts]), np.concatenate([j for _, j in parts]), w, starts


def _mean(right: np.ndarray, starts: np.ndarray) -> float:
    """The mean over groups of each group's share of pairs right (as mt-metrics-eval adds them up)."""
    return float(np.mean(np.add.reduceat(right.astype(float), starts) / np.diff(np.r_[starts, len(right)])))


def _outcomes(x, y, i, j, eps: float) -> np.ndarray:
    """Per pair: does the metric (a tie when |Δ| ≤ ε) order it as the humans do (ties exact)?"""
    dh, dm = y[i] - y[j], x[i] - x[j]
    tie = np.abs(dm) <= eps
    return np.where(dh == 0, tie, ~tie & (np.sign(dm) == np.sign(dh)))


def _calibrate(x, y, i, j, w) -> float:
    """The smallest ε in {0} ∪ {|Δmetric|} maximising the accuracy (within 1e-12). Raising ε past
    a pair's |Δ| makes it a metric tie: +1 if the humans tie it, −1 if it was ordered right; so the
    accuracy at every ε is one cumulative sum over the pairs sorted by |Δ|."""
    dh, dm = y[i] - y[j], x[i] - x[j]
    ordered = (dh != 0) & (np.sign(dm) == np.sign(dh))
    order = np.argsort(np.abs(dm), kind="stable")
    diffs, gains = np.abs(dm)[order], np.cumsum((w * ((dh == 0) - ordered.astype(float)))[order])
    eps = np.unique(np.r_[0.0, diffs])
    last = np.searchsorted(diffs, eps, side="right") - 1
    acc = w @ ordered + np.where(last >= 0, gains[np.maximum(last, 0)], 0.0)
    return float(eps[np.flatnonzero(acc >= acc.max() - 1e-12)[0]])


def acc_eq(metric, human, *, average_by: str = "none", epsilon: float | None = None) -> TieCalibrated:
    """acc-eq (Deutsch, Foster and Freitag 2023, "Ties Matter"): over all pairs of judged items in a
    group (``item``: systems on one segment, as WMT23/24), the share the metric gets right: a human
    tie only by a metric tie (|Δmetric| ≤ ε), any other pair by the same order; the mean over groups.
    ε is calibrated to maximise it unless given (mirrors ``stats.KendallWithTiesOpt("acc23",
    sample_rate=1.0)``, i.e. ``tau_optimization``; given: ``KendallVariants("acc23", epsilon)``)."""
    (x,), y, groups, _ = _setup([metric], human, "acc_eq", average_by, None, "acc_eq")
    i, j, w, starts = _pairs(groups)
    if not len(i):
        return TieCalibrated(math.nan, math.nan, 0, 0)
    if epsilon is None:
        epsilon = _calibrate(x, y, i, j, w)
    elif not epsilon >= 0:
        raise ValueError(f"acc_eq: epsilon must be >= 0, got {epsilon}")
    return TieCalibrated(_mean(_outcomes(x, y, i, j, epsilon), starts), float(epsilon), len(i), len(starts))


def _signs(n_permutations: int, n_segments: int, seed: int | None) -> np.ndarray:
    """``pce.compute_pairwise_p_values``'s ±1 draws (float32 uniforms, rounded: 0.5 to 0): same seed, same p."""
    return np.where(np.random.default_rng(seed).random((n_permutations, n_segments), dtype=np.float32) > 0.5,
                    1.0, -1.0)


def _pvalues(x: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """Score matrices (k × systems × segments) -> (k × system pairs i < j): the share of sign draws
    whose paired difference of totals reaches the observed one (one matrix product per block)."""
    k, n, s = x.shape
    i, j = np.triu_indices(n, 1)
    out, step = [], max(1, _CHUNK // (len(signs) * max(1, len(i))))
    for c in range(0, k, step):
        null = (signs @ x[c:c + step].reshape(-1, s).T).reshape(len(signs), -1, n)
        totals = x[c:c + step].sum(-1)
        observed = totals[:, i] - totals[:, j]
        out.append((null[..., i] - null[..., j] >= observed - 1e-9 * (1 + np.abs(observed))).mean(axis=0))
    return np.concatenate(out)


@dataclass(frozen=True)
class SoftPairwise:
    """:func:`soft_pairwise_accuracy`, the systems and segments used, and those left out."""

    value: float
    n_systems: int
    n_segments: int
    systems_left_out: int  # without any human score
    segments_left_out: int  # not judged for every system used


def _spa_cells(h: np.ndarray) -> np.ndarray:
    """``h`` with NaN outside (systems with a human score) × (segments judged for all of them)."""
    if h.ndim != 2:
        raise ValueError("soft pairwise accuracy needs systems × segments matrices")
    rows = ~np.isnan(h).all(axis=1)
    return np.where(rows[:, None] & ~np.isnan(h[rows]).any(axis=0), h, np.nan)


def soft_pairwise_accuracy(metric, human, *, n_permutations: int = 1000, seed: int | None = 4) -> SoftPairwise:
    """Soft pairwise accuracy (Thompson et al. 2024; WMT24 system level): 1 − mean over system pairs
    of |p_human − p_metric|, p the one-sided p of "system i better than j" from a paired permutation test
    over segments (``pce.compute_pairwise_p_values``, its draws included), the same draws for both (mirrors
    ``stats.PairwiseConfidenceError``: ``pce.compute_one_minus_pce``). Systems without a human
    score, then segments not judged for all others, are left out. NaN below 2 systems or 1 segment."""
    m, h = _pair(metric, human, "soft_pairwise_accuracy")
    cells = ~np.isnan(_spa_cells(h))
    rows, cols = cells.any(axis=1), cells.any(axis=0)
    h, m = h[rows][:, cols], m[rows][:, cols]
    value = math.nan
    if len(h) >= 2 and h.shape[1]:
        ph, pm = _pvalues(np.stack([h, m]), _signs(n_permutations, h.shape[1], seed))
        value = float(1 - np.abs(ph - pm).mean())
    return SoftPairwise(value, len(h), h.shape[1], int((~rows).sum()), int((~cols).sum()))


def _setup(metrics: list, human, statistic: str, average_by: str, labels, who: str):
    """Each metric's scores of the judged items, the humans', the groups (index lists into the
    items), and the statistic as a function of a (k × items) batch of metric scores."""
    if average_by not in AVERAGE_BY:
        raise ValueError(f"unknown average_by {average_by!r}; valid: {list(AVERAGE_BY)}")
    pairs = [_pair(m, human, who) for m in metrics]
    if len({m.shape for m, _ in pairs}) > 1:
        raise ValueError(f"{who}: metric scores of different shapes {sorted({m.shape for m, _ in pairs})}; give every "
                         "metric's scores of the same items")
    if pairs[0][0].ndim > pairs[0][1].ndim:
        return _setup_from_segments(pairs, statistic, average_by, labels)
    h = _spa_cells(pairs[0][1]) if statistic == "spa" else pairs[0][1]
    if h.ndim == 1 and average_by != "none":
        raise ValueError(f"average_by={average_by!r} needs a systems × segments matrix")
    idx, judged = np.arange(h.size).reshape(h.shape), ~np.isnan(h.ravel())
    rows = [r[judged[r]] for r in {"none": idx.reshape(1, -1), "sys": idx, "item": idx.T}[average_by]]
    keep, ends = np.concatenate([np.zeros(0, int), *rows]), np.cumsum([len(r) for r in rows])
    groups = [np.arange(e - len(r), e) for r, e in zip(rows, ends) if len(r)]
    xs, y = [x.ravel()[keep] for x, _ in pairs], h.ravel()[keep]
    if statistic in METHODS:
        return xs, y, groups, lambda b: grouped_correlation(b, y, None if average_by == "none" else groups, statistic)
    if statistic == "accuracy":  # stats.Agreement, pooled over labels as CompareMetricsWithGlobalAccuracy
        lab = np.zeros(len(h)) if labels is None else np.asarray(labels, object)
        if h.ndim != 1 or len(lab) != len(h):
            raise ValueError(f"accuracy is system-level: give one score and label per system ({len(lab)} labels)")
        i, j = np.triu_indices(len(y), 1)
        i, j = i[lab[keep][i] == lab[keep][j]], j[lab[keep][i] == lab[keep][j]]
        return xs, y, groups, lambda b: (np.sign(b[:, i] - b[:, j]) == np.sign(y[i] - y[j])).mean(axis=1)
    if statistic == "acc_eq":
        i, j, w, starts = _pairs(groups)
        return xs, y, groups, lambda b: np.array([_mean(_outcomes(x, y, i, j, _calibrate(x, y, i, j, w)), starts)
                                                  for x in b])
    if statistic == "spa":
        if average_by != "none":
            raise ValueError("statistic 'spa' takes no average_by")
        shape = int((~np.isnan(h)).any(axis=1).sum()), int((~np.isnan(h)).any(axis=0).sum())
        signs = _signs(1000, shape[1], 4)  # soft_pairwise_accuracy's defaults
        ph = _pvalues(y.reshape(1, *shape), signs)
        return xs, y, groups, lambda b: 1 - np.abs(_pvalues(b.reshape(-1, *shape), signs) - ph).mean(axis=-1)
    raise ValueError(f"unknown statistic {statistic!r}; valid: {list(STATISTICS)}")


def _snap_ties(s: np.ndarray, rel: float = 1e-12) -> np.ndarray:
    """Per row, values within ``rel`` × its largest |value| of the next smaller one set to the smallest of
    their run: means of equal scores summed in another order differ in the last bits, and must tie."""
    if s.size == 0:
        return s
    order = np.argsort(s, axis=1, kind="stable")
    v = np.take_along_axis(s, order, axis=1)
    tol = rel * np.abs(v).max(axis=1, keepdims=True)
    new = np.ones(v.shape, bool)
    new[:, 1:] = np.diff(v, axis=1) > tol
    first = np.maximum.accumulate(np.where(new, np.arange(v.shape[1]), 0), axis=1)
    out = np.empty_like(s)
    np.put_along_axis(out, order, np.take_along_axis(v, first, axis=1), axis=1)
    return out


def _setup_from_segments(pairs, statistic: str, average_by: str, labels):
    """:func:`_setup` for segment scores beside system scores: the items are the judged systems' cells (which
    PERM-BOTH swaps one by one, as Deutsch et al. at system level), the statistic that of the system means."""
    if statistic not in (*METHODS, "accuracy") or average_by != "none" or labels is not None:
        raise ValueError(f"segment scores beside human system scores: a correlation or 'accuracy', without average_by "
                         f"or labels; got {statistic!r} with average_by={average_by!r}, labels={labels!r}")
    judged = ~np.isnan(pairs[0][1])
    y, n_seg = pairs[0][1][judged], pairs[0][0].shape[1]
    i, j = np.triu_indices(len(y), 1)

    def f(b):  # means of equal scores summed in another order must tie
        s = _snap_ties(b.reshape(len(b), len(y), n_seg).mean(axis=-1))
        if statistic in METHODS:
            return grouped_correlation(s, y, None, statistic)
        return (np.sign(s[:, i] - s[:, j]) == np.sign(y[i] - y[j])).mean(axis=1)
    return [m[judged].ravel() for m, _ in pairs], y, [np.arange(len(y))], f


def metric_values(metrics: Mapping[str, object], human, statistic: str = "pearson", *, average_by: str = "none",
                  labels: Sequence | None = None) -> dict[str, float]:
    """Each metric's statistic on the same judged items, all in one batch: with ``spa`` one set of
    permutation draws and one matrix product for every metric (:func:`soft_pairwise_accuracy`'s values
    and draws), with ``acc_eq`` each metric's ε calibrated (:func:`acc_eq`'s values)."""
    xs, _, _, f = _setup(list(metrics.values()), human, statistic, average_by, labels, "metric_values")
    return dict(zip(metrics, (float(v) for v in f(np.stack(xs)))))


def perm_both_stat(a, b, human, statistic: str = "pearson", *, average_by: str = "none",
                   labels: Sequence | None = None, n_permutations: int = 1000,
                   seed: int | None = None, alternative: str = "greater", swap: str = "pair") -> PermutationResult:
    """PERM-BOTH: one-sided p of "``b`` scores better than ``a``" on a statistic of :data:`STATISTICS`
    (``corr_a``/``corr_b`` hold its values), as mt-metrics-eval's ``ComputeSigMatrix``. A correlation, ``accuracy``
    (system level; pairs inside one of ``labels``, e.g. language pairs, pooled) or ``spa``:
    ``stats.PermutationSigDiff``, both metrics z-scored over the judged items, each item's two scores swapped with
    probability 1/2 (:func:`mtlib.significance.perm_both`'s draws: same seed, same p for a correlation). ``acc_eq``:
    ``stats.PairwisePermutationSigDiff`` (WMT23/24), each metric's ε calibrated once, each pair's outcome (right or
    wrong) swapped between the metrics with probability 1/2. Segment scores beside human system scores: each cell
    swapped, the system means taken again. p is NaN where a statistic is undefined (e.g. a metric's system means all
    equal). ``alternative="two-sided"``: twice the smaller one-sided p on the same draws (capped at 1; 1 for a tie),
    the p that testing both directions with one seed gives, at half the cost. ``swap="group"`` (``acc_eq`` only):
    all pairs of one group (e.g. one segment, ``average_by="item"``) swapped together, for pairs that are not
    independent of one another."""
    if swap not in ("pair", "group") or (swap == "group" and statistic != "acc_eq"):
        raise ValueError(f"perm_both_stat: swap must be 'pair', or 'group' with acc_eq; got {swap!r} with {statistic!r}")
    if alternative not in ("greater", "two-sided"):
        raise ValueError(f"perm_both_stat: alternative must be 'greater' or 'two-sided', got {alternative!r}")
    if n_permutations < 1:
        raise ValueError(f"perm_both_stat: n_permutations must be positive, got {n_permutations}")
    (xa, xb), y, groups, f = _setup([a, b], human, statistic, average_by, labels, "perm_both_stat")
    if len(y) < 3:
        raise ValueError(f"perm_both_stat: {len(y)} items with a human score; at least 3 are needed")
    rng = np.random.default_rng(seed)
    if statistic == "acc_eq":
        i, j, w, starts = _pairs(groups)
        ca, cb = (_outcomes(x, y, i, j, _calibrate(x, y, i, j, w)) for x in (xa, xb))
        stat_a, stat_b, v, width = _mean(ca, starts), _mean(cb, starts), w * (cb.astype(float) - ca), len(i)
        if swap == "group":  # one sign per group: its pairs' contributions summed first
            v, width = np.add.reduceat(v, starts) if len(v) else v, len(starts)

        def draw(k: int) -> np.ndarray:
            return np.where(rng.random((k, width)) < 0.5, -1.0, 1.0) @ v
    else:
        za, zb = ((x - x.mean()) / (x.std() or 1.0) for x in (xa, xb))
        (stat_a, stat_b), width = f(np.stack([za, zb])), len(xa)  # items: len(y), or cells of segment scores

        def draw(k: int) -> np.ndarray:
            swap = rng.random((k, width)) < 0.5
            return f(np.where(swap, za, zb)) - f(np.where(swap, zb, za))
    size = max(1, _CHUNK // max(1, width))
    deltas = np.concatenate([draw(min(size, n_permutations - s)) for s in range(0, n_permutations, size)])
    delta = float(stat_b - stat_a)
    if not math.isfinite(delta):  # a statistic undefined on these items (e.g. constant system means): no test
        return PermutationResult(float(stat_a), float(stat_b), delta, math.nan, n_permutations, len(y), statistic)
    p = float(np.mean(np.nan_to_num(deltas, nan=-np.inf) >= delta - 1e-12))
    if alternative == "two-sided":  # the reverse claim's draws are these negated
        below = float(np.mean(np.nan_to_num(deltas, nan=np.inf) <= delta + 1e-12))
        p = 1.0 if abs(delta) <= 1e-12 else min(1.0, 2 * min(p, below))
    return PermutationResult(float(stat_a), float(stat_b), delta, p, n_permutations, len(y), statistic)


def assign_ranks(pvalues: np.ndarray, alpha: float = ALPHA) -> list[int]:
    """Rank clusters of metrics sorted best first (mirrors ``data.AssignRanks``): metric i opens a
    new cluster when one from the current cluster's first member to i − 1 beats it with p ≤
    ``alpha`` (``pvalues[k, i]``: p of "k better than i"), else joins it. NaN never separates."""
    p, ranks, rank, start = np.asarray(pvalues, float), [], 1, 0
    for i in range(len(p)):
        if (p[start:i, i] <= alpha).any():
            rank, start = rank + 1, i
        ranks.append(rank)
    return ranks


@dataclass(frozen=True)
class MetricRanking:
    """:func:`compare_metrics`: metrics best first, their statistic and rank cluster, and
    ``pvalues[i, j]`` (i < j; else NaN), the PERM-BOTH p of "metric i better than metric j"."""

    names: tuple[str, ...]
    scores: tuple[float, ...]
    ranks: tuple[int, ...]
    pvalues: np.ndarray
    statistic: str
    alpha: float

    def as_dict(self) -> dict[str, tuple[float, int]]:
        """``{metric: (score, rank)}``, best first, as ``CompareMetrics`` returns it."""
        return {n: (s, r) for n, s, r in zip(self.names, self.scores, self.ranks)}


def compare_metrics(metrics: Mapping[str, object], human, statistic: str = "pearson", *, average_by: str = "none",
                    labels: Sequence | None = None, n_permutations: int = 1000, seed: int | None = None,
                    alpha: float = ALPHA) -> MetricRanking:
    """Each metric's statistic, best first (ties by name), each tested against every lower one by
    :func:`perm_both_stat` (one seed: the same draws for every pair), clustered by
    :func:`assign_ranks` (mirrors ``data.CompareMetrics``; with ``accuracy``
    ``CompareMetricsWithGlobalAccuracy``, with ``spa`` ``CompareMetricsWithPairwiseConfidenceError``)."""
    scores = metric_values(metrics, human, statistic, average_by=average_by, labels=labels)
    names = sorted(scores, key=lambda k: (math.inf if math.isnan(scores[k]) else -scores[k], k))
    p = np.full((len(names), len(names)), math.nan)
    for i, j in itertools.combinations(range(len(names)), 2):
        p[i, j] = perm_both_stat(metrics[names[j]], metrics[names[i]], human, statistic, average_by=average_by,
                                 labels=labels, n_permutations=n_permutations, seed=seed).pvalue
    return MetricRanking(tuple(names), tuple(scores[k] for k in names), tuple(assign_ranks(p, alpha)), p,
                         statistic, alpha)


@dataclass(frozen=True)
class WilliamsResult:
    """:func:`williams_test`: r(human, A), r(human, B), r(A, B), Williams' t (n − 3 df), p, items."""

    corr_a: float
    corr_b: float
    corr_ab: float
    t: float
    p: float
    n: int


def williams(r_a: float, r_b: float, r_ab: float, n: int, *, alternative: str = "greater") -> tuple[float, float]:
    """Williams' test (Williams 1959; Graham and Baldwin 2014, eq. 3) of "A correlates better with the
    humans than B", r_a = r(human, A), r_b = r(human, B), r_ab = r(A, B) over n items:
    t = (r_a − r_b) √((n − 1)(1 + r_ab)) / √(2 (n − 1)/(n − 3) |R| + ((r_a + r_b)/2)² (1 − r_ab)³),
    |R| = 1 − r_a² − r_b² − r_ab² + 2 r_a r_b r_ab, n − 3 df. Returns (t, p), p = P(T ≥ t) (``greater``) or
    two-sided; ``stats.WilliamsTest`` gives P(T ≥ |t|), the same when r_a ≥ r_b. (nan, nan) for n ≤ 3 or an
    undefined correlation."""
    if alternative not in ("greater", "two-sided"):
        raise ValueError(f"williams: unknown alternative {alternative!r}")
    if n <= 3 or any(math.isnan(r) for r in (r_a, r_b, r_ab)):
        return math.nan, math.nan
    det = max(0.0, 1 - r_a ** 2 - r_b ** 2 - r_ab ** 2 + 2 * r_a * r_b * r_ab)  # |R| >= 0 but for rounding
    t = (r_a - r_b) * math.sqrt((n - 1) * (1 + r_ab)) / math.sqrt(
        2 * (n - 1) / (n - 3) * det + ((r_a + r_b) / 2) ** 2 * (1 - r_ab) ** 3)
    return float(t), float(stats.t.sf(t, n - 3) if alternative == "greater" else 2 * stats.t.sf(abs(t), n - 3))


def williams_test(a, b, human, method: str = "pearson", *, alternative: str = "greater") -> WilliamsResult:
    """:func:`williams` on scores (mirrors ``stats.WilliamsSigDiff``): correlations over the judged
    items (a matrix pooled), n counting them (mt-metrics-eval counts unjudged ones too). The test
    is Pearson's; other methods are plugged in as mt-metrics-eval allows."""
    if method not in METHODS:
        raise ValueError(f"unknown correlation method {method!r}; valid: {list(METHODS)}")
    (xa, xb), y, _, _ = _setup([a, b], human, method, "none", None, "williams_test")
    if len(xa) != len(y):
        raise ValueError("williams_test: give scores of the same items as the human scores (system scores beside "
                         "human system scores), not segment scores beside system scores")
    r_a, r_b = (float(r) for r in row_correlations(np.stack([xa, xb]), y, method))
    r_ab = float(row_correlations(xa[None], xb, method)[0])
    return WilliamsResult(r_a, r_b, r_ab, *williams(r_a, r_b, r_ab, len(y), alternative=alternative), len(y))
