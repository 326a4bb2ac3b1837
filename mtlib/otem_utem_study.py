"""The Otem/Utem chapter's comparisons of metrics with the human system scores, as sentences.

Correlations are *oriented*: ``signs`` turns each metric's correlation into agreement (``-1``
for Otem and Utem, where lower is better), so that "more" always means closer to the humans.
"""

from __future__ import annotations

from typing import Mapping

import pandas as pd

__all__ = ["versus_baseline", "without_lowest"]


def versus_baseline(table: pd.DataFrame, metric: str, signs: Mapping[str, int], *, baseline: str = "BLEU",
                    human: str = "human", r_tie: float = 0.02) -> str:
    """Whether ``metric`` agrees with the human score more than, less than or about as much as
    ``baseline``, on Pearson's r and on Kendall's τ. "About as much as": within ``r_tie`` in r,
    or less than two swapped pairs of systems apart in τ (one swap moves τ by 2/C(n,2))."""
    pair = 4 / (len(table) * (len(table) - 1))
    words = []
    for stat, method, tie in [("r", "pearson", r_tie), ("τ", "kendall", 1.5 * pair)]:
        gap = (signs[metric] * table[metric].corr(table[human], method=method)
               - signs[baseline] * table[baseline].corr(table[human], method=method))
        words.append(("about as much as" if abs(gap) <= tie else "more than" if gap > 0 else "less than", stat,
                      abs(gap)))
    if words[0][0] == words[1][0]:
        return (f"{metric} agrees with the human score {words[0][0]} {baseline} on both r and τ "
                f"(by {words[0][2]:.3f} and {words[1][2]:.3f})")
    return f"{metric} agrees with the human score " + " and ".join(
        f"{w} {baseline} on {st} (by {g:.3f})" for w, st, g in words)


def without_lowest(table: pd.DataFrame, metrics: Mapping[str, int], *, baseline: str = "BLEU",
                   human: str = "human") -> str:
    """How much the lowest-scored system weighs on Pearson's r: the sentence with each metric's
    r recomputed without it."""
    low2 = table[human].nsmallest(2)
    rest = table.drop(index=low2.index[0])
    return (f"The lowest-scored system, {low2.index[0]} (human z {low2.iloc[0]:.3f}, {baseline} "
            f"{table.loc[low2.index[0], baseline]:.2f}; the next lowest z is {low2.iloc[1]:.3f}), weighs on "
            "Pearson's r: without it r is " + ", ".join(f"{m} {rest[m].corr(rest[human]):+.3f}" for m in metrics))
