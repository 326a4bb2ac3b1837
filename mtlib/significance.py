"""Is metric B's correlation with the humans really higher than metric A's?

Two tests that the WMT metrics tasks (2021 onwards) and google-research/mt-metrics-eval use
to decide such questions:

* :func:`perm_both`, the paired permutation test PERM-BOTH (Deutsch, Dror and Roth 2021, "A
  Statistical Analysis of Summarization Evaluation Metrics using Resampling Methods"): both
  metrics' scores are standardised (z-scores over the items used), then, in each permutation,
  every item's two scores are swapped with probability 1/2 and the difference of correlations
  recomputed. The one-sided p-value is the share of permutations whose difference is at least
  the observed one. Items are systems (system level) or (system, segment) pairs (segment
  level, optionally grouped by segment or by system and averaged, as mt-metrics-eval's
  ``average_by``).
* :func:`pairwise_accuracy`, the share of system pairs that the metric orders as the humans do
  (Kocmi et al. 2021, "To Ship or Not to Ship"), pooled over language pairs by counting pairs.

* :func:`compare` (and :func:`compare_systems`), the one way this project says "A beats B":
  PERM-BOTH, two-sided unless a direction was declared in advance, with the resampling unit
  named (systems, segments, or clusters of items such as all rows of one source sentence, which
  are swapped together), the floors below which no p can fall, and a verdict that calls a tie a
  tie. :func:`holm` adjusts a family of p-values (Holm 1979) for the number of tests run.

All are vectorised over permutations (one array operation per statistic, not a Python loop
per permutation), so that every WMT17–19 direction and metric pair can be tested in seconds.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import numpy as np

from mtlib.correlation import KENDALL_VARIANTS, METHODS, paired, row_correlations

__all__ = ["PermutationResult", "perm_both", "grouped_correlation", "perm_both_systems", "min_pvalue", "p_text",
           "pairwise_accuracy", "pooled_pairwise_accuracy", "AVERAGE_BY",
           "Comparison", "Verdict", "compare", "compare_systems", "holm", "ALPHA"]

ALPHA = 0.05  # the level at which the book calls a difference significant (after Holm, where it says so)

AVERAGE_BY = ("none", "item", "sys")  # mt-metrics-eval's names: pool, by segment, by system


@dataclass(frozen=True)
class PermutationResult:
    """The outcome of :func:`perm_both`.

    Attributes:
        corr_a, corr_b: each metric's correlation with the humans (on the raw scores; z-scoring
            leaves every coefficient unchanged).
        delta: ``corr_b - corr_a``.
        pvalue: one-sided p-value of "B correlates better than A" (share of permutations with a
            difference ≥ ``delta``); ``1 - pvalue`` is about that of the reverse claim.
        n_permutations: permutations drawn.
        n: items used (systems, or judged (system, segment) pairs).
        method: ``pearson``, ``spearman`` or ``kendall`` (Kendall's tau-b).
    """

    corr_a: float
    corr_b: float
    delta: float
    pvalue: float
    n_permutations: int
    n: int
    method: str


def _zscore(x: np.ndarray) -> np.ndarray:
    sd = x.std()
    return (x - x.mean()) / sd if sd > 0 else x - x.mean()


def grouped_correlation(x: np.ndarray, y: np.ndarray, groups: Sequence[np.ndarray] | None,
                        method: str) -> np.ndarray:
    """Row-wise correlation of ``x`` (k × n) with ``y``, or the mean over ``groups`` (index lists
    into the n columns) of each group's correlation, NaN groups left out (as mt-metrics-eval's
    ``AverageCorrelation``); NaN where no group has one."""
    if groups is None:
        return row_correlations(x, y, method)
    vals = np.stack([row_correlations(x[:, g], y[g], method) for g in groups], axis=1)
    with np.errstate(invalid="ignore"):
        counts = (~np.isnan(vals)).sum(axis=1)
        return np.where(counts > 0, np.nansum(vals, axis=1) / np.maximum(counts, 1), np.nan)


def _swaps(n_permutations: int, n: int, seed: int | None) -> np.ndarray:
    """PERM-BOTH's draws: one ``n_permutations × n`` uniform matrix, an item swapped below 1/2."""
    return np.random.default_rng(seed).random((n_permutations, n)) < 0.5


def _prepare(a, b, human, method, groups, variant, n_permutations, who):
    """The judged items' scores as arrays, after the checks both tests share."""
    if method not in METHODS:
        raise ValueError(f"{who}: unknown correlation method {method!r}; valid: {list(METHODS)}")
    if method == "kendall" and variant != "b":
        raise ValueError(f"{who}: Kendall variant {variant!r} not supported (tau-b only; scipy offers "
                         f"{list(KENDALL_VARIANTS)})")
    if n_permutations < 1:
        raise ValueError(f"{who}: n_permutations must be positive, got {n_permutations}")
    a, b = np.asarray(a, float), np.asarray(b, float)
    h = np.array([math.nan if v is None else v for v in human], float)
    if not len(a) == len(b) == len(h):
        raise ValueError(f"{who}: {len(a)} scores of A, {len(b)} of B and {len(h)} human scores")
    keep = ~np.isnan(h)
    if groups is not None and not keep.all():
        raise ValueError(f"{who}: with groups, give judged items only (no None/NaN human score)")
    if len(h[keep]) < 3:
        raise ValueError(f"{who}: {int(keep.sum())} items with a human score; at least 3 are needed")
    if np.isnan(a[keep]).any() or np.isnan(b[keep]).any():
        raise ValueError(f"{who}: NaN metric scores on items with a human score")
    for name, sc in (("metric A", a[keep]), ("metric B", b[keep]), ("the human score", h[keep])):
        if np.ptp(sc) == 0:
            raise ValueError(f"{who}: {name} is constant on the {len(sc)} items; no correlation")
    return a, b, h, keep


def _permuted(a, b, h, method, groups, swap):
    """Observed (corr_a, corr_b) and the permuted differences, for a boolean swap matrix."""
    groups = None if groups is None else [np.asarray(g, int) for g in groups]
    za, zb = _zscore(a), _zscore(b)
    corr_a, corr_b = (float(v) for v in grouped_correlation(np.stack([za, zb]), h, groups, method))
    pa, pb = np.where(swap, zb, za), np.where(swap, za, zb)
    return corr_a, corr_b, grouped_correlation(pb, h, groups, method) - grouped_correlation(pa, h, groups, method)


def perm_both(a: Sequence[float], b: Sequence[float], human: Sequence[float | None], method: str = "pearson", *,
              groups: Sequence[Sequence[int]] | None = None, n_permutations: int = 1000,
              seed: int | None = None, variant: str = "b") -> PermutationResult:
    """PERM-BOTH test of "metric ``b`` correlates better with ``human`` than metric ``a``"
    (one-sided; :func:`compare` gives the two-sided test and a verdict).

    Args:
        a, b: the two metrics' scores of the same items, in the same order.
        human: the human scores of the items; ``None``/NaN items are left out of both metrics.
        method: ``pearson``, ``spearman`` or ``kendall`` (tau-b only: ``variant`` must be ``b``).
        groups: optional index lists into the items (after nothing is dropped: give judged
            items only when you group); the correlation is then the mean over groups (NaN
            groups left out), as mt-metrics-eval's ``average_by="item"``/``"sys"``.
        n_permutations: permutations (the WMT tasks use 1,000).
        seed: seeds the generator of the swaps (one draw of an n_permutations × n matrix).

    Raises ValueError for unequal lengths, an unknown method, fewer than 3 usable items or a
    metric that is constant on them.
    """
    a, b, h, keep = _prepare(a, b, human, method, groups, variant, n_permutations, "perm_both")
    a, b, h = a[keep], b[keep], h[keep]
    corr_a, corr_b, deltas = _permuted(a, b, h, method, groups, _swaps(n_permutations, len(h), seed))
    delta = corr_b - corr_a
    # the tolerance keeps an exact tie (e.g. the identity swap) counted under float noise
    p = float(np.mean(np.nan_to_num(deltas, nan=-np.inf) >= delta - 1e-12))
    return PermutationResult(corr_a, corr_b, delta, p, n_permutations, len(h), method)


def perm_both_systems(a: Mapping[str, float], b: Mapping[str, float], human: Mapping[str, float | None],
                      method: str = "pearson", *, systems: Iterable[str] | None = None, n_permutations: int = 1000,
                      seed: int | None = None) -> PermutationResult:
    """:func:`perm_both` at system level from ``{system: score}`` mappings (the systems of
    ``human`` with a score, or ``systems``), aligned as :func:`mtlib.correlation.correlate` does."""
    kept, xa, h = paired(a, human, systems)
    _, xb, _ = paired(b, human, kept)
    return perm_both(xa, xb, h, method, n_permutations=n_permutations, seed=seed)


def pairwise_accuracy(metric: Mapping[str, float], human: Mapping[str, float | None], *,
                      systems: Iterable[str] | None = None) -> tuple[int, int]:
    """(agreeing pairs, pairs): system pairs whose metric difference has the sign of the human
    difference (a tie agrees only with a tie, as mt-metrics-eval's ``Agreement``), over the
    systems with a human score (or ``systems``)."""
    kept, x, y = paired(metric, human, systems)
    i, j = np.triu_indices(len(kept), 1)
    return int((np.sign(x[i] - x[j]) == np.sign(y[i] - y[j])).sum()), len(i)


def pooled_pairwise_accuracy(per_direction: Iterable[tuple[Mapping[str, float], Mapping[str, float | None]]]
                             ) -> float:
    """Pairwise accuracy pooled over directions ((metric, human) per direction): agreeing pairs
    over all pairs, as Kocmi et al. 2021 pool language pairs. NaN without any pair."""
    agree = total = 0
    for metric, human in per_direction:
        a, n = pairwise_accuracy(metric, human)
        agree, total = agree + a, total + n
    return agree / total if total else math.nan


def min_pvalue(n: int, *, n_permutations: int = 1000, seed: int | None = None) -> float:
    """The smallest p-value :func:`perm_both` can give over ``n`` items with ``n_permutations``
    draws of this ``seed``.

    A draw that swaps no item reproduces the observed difference, so it always counts towards
    p: no test can get below the share of such draws (about ``2**-n``: 1/8 over three systems,
    1/16 over four). Exact for a seed, since the draws are :func:`perm_both`'s own; with
    ``seed=None`` it is the expected share ``2**-n``. NaN below 3 items (no test).
    """
    if n_permutations < 1:
        raise ValueError(f"min_pvalue: n_permutations must be positive, got {n_permutations}")
    if n < 3:
        return math.nan
    if seed is None:
        return 0.5 ** n
    return float(np.mean(~_swaps(n_permutations, n, seed).any(axis=1)))


def p_text(p: float | None, n_permutations: int = 1000, *, nan: str = "not tested") -> str:
    """A p-value as the book writes it: ``p = 0.062`` (three decimals); ``p < 0.001``
    (``1/n_permutations``) when no draw reached the observed difference, or when p rounds to
    0.000; ``nan`` (default ``not tested``) for None/NaN."""
    if p is None or math.isnan(p):
        return nan
    if p == 0:
        return f"p < {1 / n_permutations:.3g}"
    return "p < 0.001" if p < 0.0005 else f"p = {p:.3f}"


class Verdict(str, enum.Enum):
    """What a comparison of metric A with metric B shows, at the level it was judged."""

    B_BETTER = "B better"  # B's correlation is higher and p < alpha
    A_BETTER = "A better"  # A's correlation is higher and p < alpha
    NOT_SHOWN = "no difference shown"  # the correlations differ, but p >= alpha
    TIE = "tie"  # the correlations are equal: there is nothing to test
    UNTESTED = "untested"  # no test was possible (fewer than 3 items, a constant metric)


@dataclass(frozen=True)
class Comparison:
    """The outcome of :func:`compare`: "does B correlate better with the humans than A?".

    ``delta = corr_b - corr_a``; ``p`` two-sided (a difference at least ``|delta|`` either way)
    unless ``alternative`` is ``greater`` (declared in advance); 1.0 for a tie, NaN (with the
    ``reason``) when untested. ``n`` items, ``n_units`` resampling units of kind ``unit``.
    ``exact_floor``: the smallest p any data could give over ``n_units`` units (two-sided
    ``2**-(n_units - 1)``: no swap and the full swap both reproduce ``|delta|``); ``mc_floor``: the
    smallest these seeded draws can give (their share of those two swap patterns).
    """

    corr_a: float
    corr_b: float
    delta: float
    p: float
    alternative: str
    n: int
    n_units: int
    unit: str
    exact_floor: float
    mc_floor: float
    method: str
    n_permutations: int
    seed: int | None
    reason: str = ""

    def verdict(self, alpha: float = ALPHA, p: float | None = None) -> Verdict:
        """The verdict at level ``alpha``, on ``p`` (e.g. Holm-adjusted) or this test's own. A
        one-sided test (declared in advance) is judged at ``alpha / 2``, so that it claims no
        more than the two-sided test at ``alpha`` would in the declared direction."""
        if math.isnan(self.p):
            return Verdict.UNTESTED
        if abs(self.delta) <= 1e-12:
            return Verdict.TIE
        p = self.p if p is None else p
        if p >= (alpha / 2 if self.alternative == "greater" else alpha):
            return Verdict.NOT_SHOWN
        if self.alternative == "greater" and self.delta < 0:
            return Verdict.NOT_SHOWN  # declared B better, observed A ahead: nothing shown
        return Verdict.B_BETTER if self.delta > 0 else Verdict.A_BETTER


ALTERNATIVES = ("two-sided", "greater")


def compare(a: Sequence[float], b: Sequence[float], human: Sequence[float | None], method: str = "pearson", *,
            unit: str = "system", clusters: Sequence[object] | None = None,
            groups: Sequence[Sequence[int]] | None = None, n_permutations: int = 1000, seed: int | None = None,
            alternative: str = "two-sided") -> Comparison:
    """Does metric ``b`` correlate better with ``human`` than metric ``a``? PERM-BOTH
    (:func:`perm_both`'s draws), two-sided by default, with the resampling unit stated.

    Args:
        a, b, human, method, groups, n_permutations, seed: as :func:`perm_both`.
        unit: what the items are (``system`` or ``segment``), or, with ``clusters``, what the
            clusters are (``source``: every row translating one source sentence).
        clusters: one label per item; items of one label are swapped together, so that items
            that are not independent (the rows of one source) are resampled as one unit.
        alternative: ``two-sided`` (the default), or ``greater`` ("B better" declared before
            looking at the data; one-sided p).

    A comparison that cannot be tested (fewer than 3 judged items or units, a metric constant on
    them) returns an ``untested`` Comparison with the reason, rather than raising: a family of
    comparisons goes on. Unequal lengths, an unknown method or alternative still raise.
    """
    if alternative not in ALTERNATIVES:
        raise ValueError(f"compare: unknown alternative {alternative!r}; valid: {list(ALTERNATIVES)}")
    if clusters is not None and len(clusters) != len(a):
        raise ValueError(f"compare: {len(clusters)} cluster labels for {len(a)} items")
    if clusters is not None and groups is not None:
        raise ValueError("compare: give clusters or groups, not both")

    def untested(reason: str, n: int = 0, n_units: int = 0) -> Comparison:
        return Comparison(math.nan, math.nan, math.nan, math.nan, alternative, n, n_units, unit, math.nan, math.nan,
                          method, n_permutations, seed, reason)

    try:
        a, b, h, keep = _prepare(a, b, human, method, groups, "b", n_permutations, "compare")
    except ValueError as err:
        if "at least 3 are needed" in str(err) or "is constant" in str(err):
            return untested(str(err).removeprefix("compare: "))
        raise
    a, b, h = a[keep], b[keep], h[keep]
    if clusters is None:
        index, n_units = np.arange(len(h)), len(h)
    else:
        # units numbered in order of first appearance: one item per cluster is the plain test, draw for draw
        first: dict = {}
        index = np.array([first.setdefault(c, len(first)) for c, k in zip(clusters, keep) if k], int)
        n_units = len(first)
        if n_units < 3:
            return untested(f"{n_units} {unit} clusters; at least 3 are needed", len(h), n_units)
    unit_swaps = _swaps(n_permutations, n_units, seed)
    corr_a, corr_b, deltas = _permuted(a, b, h, method, groups, unit_swaps[:, index])
    delta = corr_b - corr_a
    deltas = np.nan_to_num(deltas, nan=-np.inf if alternative == "greater" else 0.0)
    none, every = ~unit_swaps.any(axis=1), unit_swaps.all(axis=1)
    if abs(delta) <= 1e-12:
        p = 1.0
    elif alternative == "greater":
        p = float(np.mean(deltas >= delta - 1e-12))
    else:
        p = float(np.mean(np.abs(deltas) >= abs(delta) - 1e-12))
    if alternative == "greater":
        exact, mc = 0.5 ** n_units, float(np.mean(none))
    else:
        exact, mc = 0.5 ** (n_units - 1), float(np.mean(none | every))
    return Comparison(corr_a, corr_b, delta, p, alternative, len(h), n_units, unit, exact, mc, method,
                      n_permutations, seed)


def compare_systems(a: Mapping[str, float], b: Mapping[str, float], human: Mapping[str, float | None],
                    method: str = "pearson", *, systems: Iterable[str] | None = None, n_permutations: int = 1000,
                    seed: int | None = None, alternative: str = "two-sided") -> Comparison:
    """:func:`compare` at system level from ``{system: score}`` mappings (the systems of
    ``human`` with a score, or ``systems``), aligned as :func:`mtlib.correlation.correlate` does."""
    kept, xa, h = paired(a, human, systems)
    _, xb, _ = paired(b, human, kept)
    return compare(xa, xb, h, method, unit="system", n_permutations=n_permutations, seed=seed,
                   alternative=alternative)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment (Holm 1979) of a family of p-values, in their order: the
    i-th smallest of the m tested p's is multiplied by m - i + 1, then made non-decreasing and
    capped at 1. NaN (untested) entries stay NaN and do not count towards m. Rejecting where the
    adjusted p < alpha keeps the chance of any false "better" in the family at most alpha."""
    p = np.asarray(pvalues, float)
    out = np.full(len(p), math.nan)
    tested = np.flatnonzero(~np.isnan(p))
    m = len(tested)
    if not m:
        return out.tolist()
    order = tested[np.argsort(p[tested], kind="stable")]
    adjusted = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    out[order] = adjusted
    return out.tolist()
