"""Bootstrap confidence intervals for system-level correlations, resampling segments; and the
draws for resampling whole groups (:func:`group_resample_counts`, e.g. all translations of a source).

Each resample draws the test set's segments with replacement (the same draw for every
system and every metric, so metrics are compared on identical resamples), re-aggregates
each system's segment statistics into a corpus score and recomputes the correlation with
the (fixed) system-level human scores. Percentile intervals.

The resamples' correlations are computed together (:func:`mtlib.correlation.row_correlations`),
which agree with scipy's one-by-one values to about 1e-15; Kendall's tau-c and resampled
human scores take scipy's function resample by resample.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from mtlib.correlation import METHODS, correlation_with_p, paired, row_correlations
from mtlib.scoring import SystemStats, common_segment_count

__all__ = ["resample_counts", "group_codes", "group_resample_counts", "bootstrap_correlations"]


def resample_counts(n_segments: int, n_resamples: int, seed: int | np.random.Generator | None) -> np.ndarray:
    """How often each segment is drawn in each resample: an (n_resamples, n_segments) array.

    Counted from explicit draws (``rng.integers``) rather than with ``rng.multinomial``: both
    give the same distribution, but from different random streams, so the switch would move
    every published interval at the same seed. Switch with the next change that re-draws the
    book's numbers anyway."""
    if n_segments < 1 or n_resamples < 1:
        raise ValueError(f"need n_segments >= 1 and n_resamples >= 1, got {n_segments}, {n_resamples}")
    return _count_draws(np.random.default_rng(seed).integers(0, n_segments, size=(n_resamples, n_segments)),
                        n_segments)


def _count_draws(picks: np.ndarray, n: int) -> np.ndarray:
    """How often each of ``0..n-1`` occurs in each row of ``picks``: (rows × n), int32."""
    rows = len(picks)
    return np.bincount((picks + n * np.arange(rows)[:, None]).ravel(),
                       minlength=rows * n).reshape(rows, n).astype(np.int32)


def group_codes(groups: Sequence[object]) -> tuple[np.ndarray, int]:
    """Each item's group number (groups numbered in order of first appearance) and the number
    of groups; a ValueError names items without a group (None/NaN)."""
    codes, uniques = pd.factorize(pd.Series(list(groups), dtype=object))
    if (codes < 0).any():
        raise ValueError(f"groups: {int((codes < 0).sum())} items have no group (None/NaN)")
    return codes, len(uniques)


def group_resample_counts(groups: Sequence[object], n_resamples: int, seed: int | np.random.Generator | None
                          ) -> tuple[np.ndarray, np.ndarray]:
    """Resamples of whole groups (e.g. all segments of one source text), drawn with replacement.

    Returns ``(item_counts, group_counts)``: how often each item (``n_resamples × len(groups)``)
    and each group (``n_resamples × n_groups``, numbered as :func:`group_codes` does) is drawn
    in each resample. The draws are those of one ``rng.integers(0, n_groups, n_groups)`` per
    resample, in order. A ValueError for items without a group, no group or no resample."""
    codes, g = group_codes(groups)
    if g < 1 or n_resamples < 1:
        raise ValueError(f"need at least one group and one resample, got {g} groups, {n_resamples} resamples")
    per_group = _count_draws(np.random.default_rng(seed).integers(0, g, size=(n_resamples, g)), g)
    return per_group[:, codes], per_group


def bootstrap_correlations(stats: Mapping[str, SystemStats], human: Mapping[str, float | None] | None,
                           method: str = "pearson", *, systems: Iterable[str] | None = None,
                           human_segments: Mapping[str, np.ndarray] | None = None,
                           n_resamples: int = 1000, seed: int | None = 0, alpha: float = 0.05,
                           variant: str = "b", return_samples: bool = False
                           ) -> pd.DataFrame | tuple[pd.DataFrame, dict[str, np.ndarray]]:
    """Correlation of each metric with humans, with a bootstrap percentile interval.

    Scores of lower-is-better metrics (TER) are negated first, so every value is oriented:
    positive means agreement with humans.

    Args:
        stats: metric name -> :class:`SystemStats` (all on the same segments).
        human: system -> human score (``None`` dropped); fixed across resamples.
        human_segments: instead of ``human``, per-system segment-level human values (e.g. error
            counts); the human system score is then their mean and is resampled together with
            the metric's segments.
        method: ``pearson``, ``spearman`` or ``kendall``.
        systems: restrict to these systems (e.g. the top 30%).
        n_resamples: bootstrap resamples.
        seed: integer seed (``None`` = fresh entropy; recorded in ``df.attrs["signature"]``).
        alpha: 1 - confidence level.

    Returns:
        DataFrame indexed by metric: ``value`` (full data), ``low``, ``high``, ``n``;
        ``df.attrs["signature"]`` names the procedure. With ``return_samples``, also
        metric -> resampled values (same resamples for every metric, for paired tests).
    """
    if method not in METHODS:
        raise ValueError(f"unknown correlation method {method!r}; valid: {list(METHODS)}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    n = common_segment_count(stats)
    systems = None if systems is None else list(systems)  # read once per metric
    if (human is None) == (human_segments is None):
        raise ValueError("give exactly one of human (system scores) and human_segments")
    if human_segments is not None:
        bad = {s: len(v) for s, v in human_segments.items() if len(v) != n}
        if bad:
            raise ValueError(f"human_segments must have {n} values per system; got {bad}")
        human = {s: float(np.mean(v)) for s, v in human_segments.items()}
    counts = resample_counts(n, n_resamples, seed)
    rows, samples = {}, {}
    for name, ss in stats.items():
        sign = 1.0 if ss.metric.higher_is_better else -1.0
        point = {s: sign * v for s, v in ss.system_scores().items()}
        kept, x, y = paired(point, human, systems)
        value = correlation_with_p(x, y, method, variant)[0]
        # (resamples, systems) corpus scores from re-weighted segment statistics
        boot = np.stack([sign * ss.metric.scores_from_stats(counts @ ss[s]) for s in kept], axis=1)
        if human_segments is None:
            hum = np.broadcast_to(y, boot.shape)
        else:
            hum = np.stack([counts @ np.asarray(human_segments[s], float) / n for s in kept], axis=1)
        if human_segments is None and (method != "kendall" or variant == "b"):
            vals = row_correlations(boot, y, method)  # every resample in one array operation
        else:
            vals = np.array([correlation_with_p(b, h, method, variant)[0] for b, h in zip(boot, hum)])
        samples[name] = vals
        lo, hi = np.nanpercentile(vals, [100 * alpha / 2, 100 * (1 - alpha / 2)])
        rows[name] = {"value": value, "low": lo, "high": hi, "n": len(kept)}
    df = pd.DataFrame.from_dict(rows, orient="index")
    stat = f"kendall-{variant}" if method == "kendall" else method
    human_part = "fixed" if human_segments is None else "resampled"
    df.attrs["signature"] = (f"bootstrap:segments|human:{human_part}|stat:{stat}|n:{n_resamples}|seed:{seed}|"
                             f"ci:{100 * (1 - alpha):g}%-percentile")
    return (df, samples) if return_samples else df
