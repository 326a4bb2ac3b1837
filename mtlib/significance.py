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

Both are vectorised over permutations (one array operation per statistic, not a Python loop
per permutation), so that every WMT17–19 direction and metric pair can be tested in seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import numpy as np

from mtlib.correlation import KENDALL_VARIANTS, METHODS, paired, row_correlations

__all__ = ["PermutationResult", "perm_both", "perm_both_systems", "min_pvalue", "p_text",
           "pairwise_accuracy", "pooled_pairwise_accuracy", "AVERAGE_BY"]

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


def _grouped(x: np.ndarray, y: np.ndarray, groups: Sequence[np.ndarray] | None, method: str) -> np.ndarray:
    """Row-wise correlation, or the mean over groups of columns (NaN groups left out)."""
    if groups is None:
        return row_correlations(x, y, method)
    vals = np.stack([row_correlations(x[:, g], y[g], method) for g in groups], axis=1)
    with np.errstate(invalid="ignore"):
        counts = (~np.isnan(vals)).sum(axis=1)
        return np.where(counts > 0, np.nansum(vals, axis=1) / np.maximum(counts, 1), np.nan)


def _swaps(n_permutations: int, n: int, seed: int | None) -> np.ndarray:
    """PERM-BOTH's draws: one ``n_permutations × n`` uniform matrix, an item swapped below 1/2."""
    return np.random.default_rng(seed).random((n_permutations, n)) < 0.5


def perm_both(a: Sequence[float], b: Sequence[float], human: Sequence[float | None], method: str = "pearson", *,
              groups: Sequence[Sequence[int]] | None = None, n_permutations: int = 1000,
              seed: int | None = None, variant: str = "b") -> PermutationResult:
    """PERM-BOTH test of "metric ``b`` correlates better with ``human`` than metric ``a``".

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
    if method not in METHODS:
        raise ValueError(f"perm_both: unknown correlation method {method!r}; valid: {list(METHODS)}")
    if method == "kendall" and variant != "b":
        raise ValueError(f"perm_both: Kendall variant {variant!r} not supported (tau-b only; scipy offers "
                         f"{list(KENDALL_VARIANTS)})")
    if n_permutations < 1:
        raise ValueError(f"perm_both: n_permutations must be positive, got {n_permutations}")
    a, b = np.asarray(a, float), np.asarray(b, float)
    h = np.array([math.nan if v is None else v for v in human], float)
    if not len(a) == len(b) == len(h):
        raise ValueError(f"perm_both: {len(a)} scores of A, {len(b)} of B and {len(h)} human scores")
    keep = ~np.isnan(h)
    if groups is not None and not keep.all():
        raise ValueError("perm_both: with groups, give judged items only (no None/NaN human score)")
    a, b, h = a[keep], b[keep], h[keep]
    if len(h) < 3:
        raise ValueError(f"perm_both: {len(h)} items with a human score; at least 3 are needed")
    if np.isnan(a).any() or np.isnan(b).any():
        raise ValueError("perm_both: NaN metric scores on items with a human score")
    for name, s in (("A", a), ("B", b)):
        if np.ptp(s) == 0:
            raise ValueError(f"perm_both: metric {name} is constant on the {len(s)} items; no correlation")
    groups = None if groups is None else [np.asarray(g, int) for g in groups]
    za, zb = _zscore(a), _zscore(b)
    corr_a, corr_b = (float(v) for v in _grouped(np.stack([za, zb]), h, groups, method))
    delta = corr_b - corr_a
    swap = _swaps(n_permutations, len(h), seed)
    pa, pb = np.where(swap, zb, za), np.where(swap, za, zb)
    deltas = _grouped(pb, h, groups, method) - _grouped(pa, h, groups, method)
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
