"""Putting our numbers beside a paper's printed table: the helpers every chapter uses (the book's,
not the library's: a metric user has no paper to match)."""

from __future__ import annotations

from typing import Sequence

import pandas as pd

__all__ = ["beside_paper", "wide_beside_paper", "max_abs_delta"]


def beside_paper(ours: pd.DataFrame, paper: pd.DataFrame, on: Sequence[str], *,
                 ours_col: str = "abs", paper_col: str = "paper", decimals: int = 3) -> pd.DataFrame:
    """Adds the paper's value and ``delta = ours - paper`` to each of our rows.

    Our value is rounded to the paper's precision first. Our rows without a paper value
    keep NaN in ``paper`` and ``delta``; several of our rows may share one paper row
    (e.g. two BLEU tokenisations compared with the paper's one BLEU).
    """
    right = paper[list(on) + [paper_col]].rename(columns={paper_col: "paper"})
    if right.duplicated(list(on)).any():
        raise ValueError(f"paper table has duplicate rows for keys {list(on)}")
    df = ours.merge(right, on=list(on), how="left", validate="many_to_one")
    df["ours"] = df[ours_col].round(decimals)
    df["delta"] = (df["ours"] - df["paper"]).round(decimals)
    return df


def wide_beside_paper(df: pd.DataFrame, index: Sequence[str], stats: Sequence[str],
                      stat_col: str = "stat", decimals: int = 3,
                      absolute: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per ``index``, and for each stat the column ``s ours`` (signed) with the paper's
    value beside it: ``|s| paper`` and ``Δ|s|`` (= |ours| − paper) for the stats the paper
    prints as absolute values (``absolute``; default: all of them), else ``s paper`` and ``Δs``
    (= ours − paper, both signed).

    Ours keep their sign (positive = agreement), so a negative correlation is never mistaken
    for a good one; ``Δ|s|`` is a reproduction check of the printed number only: compare
    metrics with the signed column. Rows keep their first-seen order. Raises ``ValueError`` on
    duplicate rows rather than averaging them, and on an ``absolute`` stat not in ``stats``.
    """
    absolute = list(stats if absolute is None else absolute)
    if set(absolute) - set(stats):
        raise ValueError(f"absolute: {sorted(set(absolute) - set(stats))} not among the stats {list(stats)}")
    keys = list(index) + [stat_col]
    if df.duplicated(keys).any():
        raise ValueError(f"duplicate rows for {keys}")
    wide = df.set_index(keys)[["value", "paper", "delta"]].unstack(stat_col)
    columns = {}
    for s in stats:
        ours = wide[("value", s)].round(decimals)
        columns[f"{s} ours"] = ours
        if s in absolute:
            columns[f"|{s}| paper"] = wide[("paper", s)]
            columns[f"Δ|{s}|"] = wide[("delta", s)]
        else:
            columns[f"{s} paper"] = wide[("paper", s)]
            columns[f"Δ{s}"] = (ours - wide[("paper", s)]).round(decimals)
    order = df[list(index)].drop_duplicates()
    rows = (pd.Index(order.iloc[:, 0], name=index[0]) if len(index) == 1
            else pd.MultiIndex.from_frame(order))
    return pd.DataFrame(columns).reindex(rows)


def max_abs_delta(table: pd.DataFrame, **where) -> float:
    """The largest ``|delta|`` (ours − paper) over the rows of ``table`` (from :func:`beside_paper`)
    whose columns equal the given values, e.g. ``max_abs_delta(t, metric="BLEU", test_set="wmt19")``;
    NaN when none of those rows has a paper value (0.0 means every printed value is reproduced)."""
    unknown = sorted(set(where) - set(table.columns))
    if unknown:
        raise ValueError(f"max_abs_delta: no column(s) {unknown}; columns: {list(table.columns)}")
    mask = pd.Series(True, index=table.index)
    for column, value in where.items():
        mask &= table[column] == value
    d = table.loc[mask, "delta"].abs()
    return float(d.max()) if d.notna().any() else float("nan")
