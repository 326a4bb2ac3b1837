"""System-level meta-evaluation: correlations, top-K selection, correlation-vs-K curves.

Speaks mt-metrics-eval's language: ``None`` gold scores are dropped together with the
metric scores of the same systems; a degenerate input (constant scores) gives NaN,
not an exception. Every statistic is scipy's, named in the result; :func:`row_correlations`
computes many at once (bootstrap resamples, permutations) by the same formulas, in one array
operation, agreeing with scipy's one-by-one values to about 1e-15.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

__all__ = ["Correlation", "correlate", "correlation_with_p", "row_correlations", "resampled_spearman", "paired", "segment_correlation", "top_systems", "correlation_curve",
           "correlation_table", "METHODS", "KENDALL_VARIANTS"]

METHODS = ("pearson", "spearman", "kendall")
KENDALL_VARIANTS = ("b", "c")  # what scipy.stats.kendalltau offers


@dataclass(frozen=True)
class Correlation:
    """One correlation coefficient.

    Attributes:
        method: ``pearson``, ``spearman`` or ``kendall``.
        variant: Kendall variant (``b`` or ``c``), else ``""``.
        value: the coefficient (NaN when undefined, e.g. constant input).
        pvalue: scipy's two-sided p-value.
        n: number of systems used.
    """

    method: str
    variant: str
    value: float
    pvalue: float
    n: int

    @property
    def statistic(self) -> str:
        """e.g. ``pearson`` or ``kendall-b``; names the scipy function and variant."""
        return f"{self.method}-{self.variant}" if self.variant else self.method

    def __float__(self) -> float:
        return self.value


def paired(metric: Mapping[str, float], human: Mapping[str, float | None],
           systems: Iterable[str] | None = None) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Aligns metric and human scores by system, dropping systems whose human score is None.

    Raises ``ValueError`` for a requested system that has no metric score.
    """
    names = sorted(human) if systems is None else list(systems)
    missing = [s for s in names if s not in metric]
    if missing:
        raise ValueError(f"no metric score for systems {missing}")
    missing_h = [s for s in names if s not in human]
    if missing_h:
        raise ValueError(f"no human score entry for systems {missing_h}")
    kept = [s for s in names if human[s] is not None and not math.isnan(human[s])]
    return kept, np.array([metric[s] for s in kept], float), np.array([human[s] for s in kept], float)


def correlation_with_p(x: np.ndarray, y: np.ndarray, method: str, variant: str) -> tuple[float, float]:
    """(coefficient, p-value) of two paired arrays; (nan, nan) below two pairs or for a constant side
    (the coefficient is undefined there, whatever scipy would warn)."""
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan, math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns on near-constant input; we return its NaN
        if method == "pearson":
            r = stats.pearsonr(x, y)
        elif method == "spearman":
            r = stats.spearmanr(x, y)
        else:
            r = stats.kendalltau(x, y, variant=variant)
    return float(r.statistic), float(r.pvalue)


def correlate(metric: Mapping[str, float], human: Mapping[str, float | None], method: str = "pearson",
              *, variant: str = "b", systems: Iterable[str] | None = None) -> Correlation:
    """Correlation between metric and human system scores.

    Args:
        metric: system -> metric score, oriented so that higher is better is *not*
            required (take ``abs`` as the papers do, or negate TER first).
        human: system -> human score; ``None`` entries are dropped in tandem.
        method: one of :data:`METHODS`.
        variant: Kendall variant, one of :data:`KENDALL_VARIANTS` (scipy's default is ``b``).
        systems: restrict to these systems (default: all systems in ``human``).
    """
    if method not in METHODS:
        raise ValueError(f"unknown correlation method {method!r}; valid: {list(METHODS)}")
    if method == "kendall" and variant not in KENDALL_VARIANTS:
        raise ValueError(f"unknown Kendall variant {variant!r}; valid: {list(KENDALL_VARIANTS)}")
    kept, x, y = paired(metric, human, systems)
    value, p = correlation_with_p(x, y, method, variant)
    return Correlation(method, variant if method == "kendall" else "", value, p, len(kept))


def _rank_rows(x: np.ndarray) -> np.ndarray:
    return stats.rankdata(x, axis=1)


def _pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of each row of ``x`` (k × n) with ``y`` (n); NaN for a constant row."""
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean()
    den = np.sqrt((xc ** 2).sum(axis=1) * (yc ** 2).sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, xc @ yc / np.where(den > 0, den, 1.0), np.nan)


def _kendall_b_rows(x: np.ndarray, y: np.ndarray, chunk_pairs: int = 2_000_000) -> np.ndarray:
    """Kendall's tau-b of each row of ``x`` with ``y`` from the signs of all pairs (chunks of
    rows keep memory near ``chunk_pairs`` pair signs)."""
    n = x.shape[1]
    i, j = np.triu_indices(n, 1)
    sy = np.sign(y[i] - y[j])
    ny = (sy != 0).sum()
    out = np.empty(x.shape[0])
    step = max(1, chunk_pairs // max(1, len(i)))
    for start in range(0, x.shape[0], step):
        sx = np.sign(x[start:start + step, i] - x[start:start + step, j])
        nx = (sx != 0).sum(axis=1)
        den = np.sqrt(nx * float(ny))
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start:start + step] = np.where(den > 0, (sx * sy).sum(axis=1) / np.where(den > 0, den, 1.0), np.nan)
    return out


def row_correlations(x: np.ndarray, y: np.ndarray, method: str = "pearson") -> np.ndarray:
    """The correlation of each row of ``x`` (k × n) with ``y`` (n): Pearson, Spearman (Pearson
    of average ranks) or Kendall's tau-b, as scipy computes them; NaN where undefined."""
    x, y = np.atleast_2d(np.asarray(x, float)), np.asarray(y, float)
    if method == "pearson":
        out = _pearson_rows(x, y)
    elif method == "spearman":
        out = _pearson_rows(_rank_rows(x), stats.rankdata(y))
    elif method == "kendall":
        out = (_kendall_b_rows(x, y) if x.shape[1] <= 2000
               else np.array([stats.kendalltau(row, y).statistic for row in x]))  # O(n log n) per row
    else:
        raise ValueError(f"unknown correlation method {method!r}; valid: {list(METHODS)}")
    # Undefined for a constant side, as in correlation_with_p: a row of equal values whose mean
    # is not exactly representable would otherwise leave tiny deviations and a spurious r.
    constant = (np.ptp(x, axis=1) == 0) if x.shape[1] else np.ones(len(x), bool)
    return np.where(constant | (x.shape[1] < 2) | (y.size == 0 or np.ptp(y) == 0), np.nan, out)


def _weighted_midranks(x: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Average ranks of ``x``'s values (no NaN) in each sample that holds item i ``counts[b, i]``
    times (the rank scipy's ``rankdata`` gives every copy), and how many distinct values each sample has."""
    order = np.argsort(x, kind="stable")
    xs = x[order]
    first = np.r_[True, xs[1:] != xs[:-1]] if len(xs) else np.zeros(0, bool)
    weight = np.add.reduceat(counts[:, order], np.flatnonzero(first), axis=1) if len(xs) else counts[:, :0]
    below = np.cumsum(weight, axis=1) - weight  # copies of smaller values
    ranks = np.empty(counts.shape)
    ranks[:, order] = (below + (weight + 1) / 2)[:, np.cumsum(first) - 1]
    return ranks, (weight > 0).sum(axis=1)


def resampled_spearman(x: Sequence[float], y: Sequence[float], counts: np.ndarray) -> np.ndarray:
    """Spearman's ρ of ``x`` with ``y`` in each resample ``b`` of the items, item i taken
    ``counts[b, i]`` times: what scipy's ``spearmanr`` gives on the repeated items (to about
    1e-15), without building them. Pairs where a side is not finite are left out; NaN for
    fewer than three pairs or a constant side."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    counts = np.atleast_2d(np.asarray(counts))
    if counts.ndim != 2 or (counts < 0).any():
        raise ValueError(f"resampled_spearman: counts must be a (resamples × items) array of counts >= 0, got "
                         f"shape {counts.shape}")
    if not len(x) == len(y) == counts.shape[1]:
        raise ValueError(f"resampled_spearman: {len(x)} x values, {len(y)} y values, counts for {counts.shape[1]} items")
    ok = np.isfinite(x) & np.isfinite(y)
    x, y, w = x[ok], y[ok], counts[:, ok].astype(float)
    (rx, dx), (ry, dy) = _weighted_midranks(x, w), _weighted_midranks(y, w)
    total = w.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        cx = rx - ((w * rx).sum(axis=1) / total)[:, None]
        cy = ry - ((w * ry).sum(axis=1) / total)[:, None]
        r = (w * cx * cy).sum(axis=1) / np.sqrt((w * cx * cx).sum(axis=1) * (w * cy * cy).sum(axis=1))
    return np.where((total >= 3) & (dx > 1) & (dy > 1), np.clip(r, -1.0, 1.0), np.nan)


def segment_correlation(metric: Mapping[str, Sequence[float]], human: Mapping[str, Sequence[float | None]],
                        method: str = "kendall", *, variant: str = "b",
                        systems: Iterable[str] | None = None) -> Correlation:
    """Segment-level correlation pooled over every (system, segment) pair with a human score
    (WMT's "no grouping"): ``n`` counts the pairs used.

    Args:
        metric: system -> per-segment metric scores (oriented as you like; see :func:`correlate`).
        human: system -> per-segment human scores; ``None``/NaN entries (not judged) are dropped
            together with the metric's score of the same segment.
        systems: default: every system in ``human``.
    """
    if method not in METHODS:
        raise ValueError(f"unknown correlation method {method!r}; valid: {list(METHODS)}")
    systems = list(human if systems is None else systems)
    missing = [s for s in systems if s not in metric]
    if missing:
        raise ValueError(f"segment_correlation: no metric scores for systems {missing}")
    xs, ys = [], []
    for s in systems:
        m, h = np.asarray(metric[s], dtype=float), list(human[s])
        if len(m) != len(h):
            raise ValueError(f"segment_correlation: {s} has {len(m)} metric scores but {len(h)} human scores")
        judged = np.array([v is not None and not math.isnan(v) for v in h], dtype=bool)
        if np.isnan(m[judged]).any():
            raise ValueError(f"segment_correlation: {s} has NaN metric scores on judged segments")
        xs.append(m[judged])
        ys.append(np.array([v for v, j in zip(h, judged) if j], dtype=float))
    x, y = np.concatenate(xs), np.concatenate(ys)
    value, p = correlation_with_p(x, y, method, variant)
    return Correlation(method, variant if method == "kendall" else "", value, p, len(x))


def top_systems(human: Mapping[str, float | None], k: int | None = None, *,
                fraction: float | None = None) -> list[str]:
    """The ``k`` systems with the highest human score (ties broken by name), best first.

    With ``fraction``, ``k = floor(fraction * N)`` over the N systems that have a human
    score, as the difficulty-aware paper's "top 30%" (22 systems -> 6, 16 -> 4).
    """
    scored = sorted(((s, v) for s, v in human.items() if v is not None and not math.isnan(v)),
                    key=lambda sv: (-sv[1], sv[0]))
    if (k is None) == (fraction is None):
        raise ValueError("top_systems: give exactly one of k or fraction")
    if fraction is not None:
        if not 0 < fraction <= 1:
            raise ValueError(f"top_systems: fraction must be in (0, 1], got {fraction}")
        k = math.floor(fraction * len(scored) + 1e-9)  # 0.3 * 20 must be 6, not 5.999...
    if k is None or k < 1 or k > len(scored):
        raise ValueError(f"top_systems: k must be in 1..{len(scored)}, got {k}")
    return [s for s, _ in scored[:k]]


def correlation_curve(metrics: Mapping[str, Mapping[str, float]], human: Mapping[str, float | None],
                      method: str = "kendall", *, ks: Sequence[int] | None = None,
                      variant: str = "b") -> pd.DataFrame:
    """Correlation over the top-K systems by human score, for each K and each metric.

    Args:
        metrics: metric name -> (system -> score, oriented higher = better).
        human: system -> human score; ``None``/NaN (not judged) count for nothing.
        ks: the K values (default 3..N, N = the systems with a human score; K = 2 only ever
            gives +-1).

    Returns:
        A long DataFrame with columns ``metric``, ``k``, ``value``.
    """
    # N counts the systems top_systems can rank: a NaN human score is "not judged", as None.
    n = sum(v is not None and not math.isnan(v) for v in human.values())
    ks = list(range(3, n + 1)) if ks is None else list(ks)
    rows = []
    for k in ks:
        top = top_systems(human, k)
        for name, scores in metrics.items():
            rows.append({"metric": name, "k": k,
                         "value": correlate(scores, human, method, variant=variant, systems=top).value})
    return pd.DataFrame(rows)


_STAT_NAMES = {"pearson": "r", "kendall": "tau", "spearman": "rho"}


def correlation_table(metrics: Mapping[str, Mapping[str, float]], human: Mapping[str, float | None],
                      subsets: Mapping[str, Sequence[str] | None], *, variant: str = "b",
                      lower_is_better: Iterable[str] = ()) -> pd.DataFrame:
    """r, tau, rho of several metrics on several system subsets, as a long DataFrame.

    Args:
        metrics: metric name -> (system -> score).
        human: system -> human score.
        subsets: subset name -> systems (None = all scored systems).
        lower_is_better: metrics whose scores are negated first (e.g. TER), so that every
            ``value`` is oriented: positive means agreement with humans.

    Returns:
        Columns ``metric``, ``subset``, ``stat`` (r / tau / rho), ``value`` (signed),
        ``abs`` (|value|, as the papers print), ``n``, ``statistic`` (scipy name).
    """
    flip = set(lower_is_better)
    unknown = flip - set(metrics)
    if unknown:
        raise ValueError(f"lower_is_better names metrics not given: {sorted(unknown)}")
    metrics = {m: ({s: -v for s, v in sc.items()} if m in flip else sc) for m, sc in metrics.items()}
    rows = []
    for subset, systems in subsets.items():
        for name, scores in metrics.items():
            for method in ("pearson", "kendall", "spearman"):
                c = correlate(scores, human, method, variant=variant, systems=systems)
                rows.append({"metric": name, "subset": subset, "stat": _STAT_NAMES[method],
                             "value": c.value, "abs": abs(c.value), "n": c.n, "statistic": c.statistic})
    return pd.DataFrame(rows)
