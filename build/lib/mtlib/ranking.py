"""Rank agreement between a metric and human judgement (the difficulty-aware paper's Table 2)."""

from __future__ import annotations

import math
from typing import Iterable, Mapping

import pandas as pd
from scipy.stats import rankdata

__all__ = ["rank_agreement"]


def rank_agreement(metric: Mapping[str, float], human: Mapping[str, float], systems: Iterable[str],
                   *, higher_is_better: bool = True) -> pd.DataFrame:
    """Ranks ``systems`` by metric and by human score.

    Ranks are 1 = best, ties share the minimum rank. ``delta = human_rank - metric_rank``:
    positive means the metric ranks the system higher (better) than humans do (the
    paper's up-arrow), negative lower (down-arrow).

    Returns:
        A DataFrame indexed by system with ``human``, ``human_rank``, ``metric``,
        ``metric_rank``, ``delta``, in human order; ``df.attrs["sum_abs_delta"]`` is
        the paper's sum of |delta rank|.
    """
    systems = list(systems)

    def absent(scores: Mapping[str, float], s: str) -> bool:  # None or NaN: not scored (NaN would rank as garbage)
        return s not in scores or scores[s] is None or math.isnan(scores[s])

    missing = [s for s in systems if absent(metric, s) or absent(human, s)]
    if missing:
        raise ValueError(f"rank_agreement: no metric or human score (None or NaN) for {missing}")
    m = pd.Series({s: float(metric[s]) for s in systems})
    h = pd.Series({s: float(human[s]) for s in systems})
    df = pd.DataFrame({
        "human": h,
        "human_rank": rankdata(-h.values, method="min").astype(int),
        "metric": m,
        "metric_rank": rankdata(-m.values if higher_is_better else m.values, method="min").astype(int),
    }, index=systems)
    df["delta"] = df["human_rank"] - df["metric_rank"]
    df = df.sort_values(["human_rank", "human"], ascending=[True, False])
    df.attrs["sum_abs_delta"] = int(df["delta"].abs().sum())
    return df
