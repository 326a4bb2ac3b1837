"""The paper's evaluation: single metrics, Reg-base and RegEMT on held-out rows, by Spearman.

* :func:`evaluate` — fit Reg-base (on the two length features) and RegEMT (on every metric
  column and the same two lengths, raw, as the authors' code appends them: Reg-base's *prediction*
  is no feature, so no in-sample fit enters RegEMT's model selection) on the training rows, then
  the Spearman correlation of every column and both ensembles with the human scores on the test
  rows. ``fit_on`` from another language pair gives the paper's cross-lingual "-X" rows.
* :func:`metric_ablation` — the paper's ablation over the metric columns, the two lengths kept
  in every step (the authors' ensemble always appends them), down to the lengths alone (Reg-base).
* :func:`spearman_table` — signed Spearman per column on given rows, with the number of rows a
  column has no value for (left out of its correlation, and counted).
* :func:`group_bootstrap` — percentile intervals by resampling the test *source texts* (all
  translations of a source move together, as the split keeps them); every resample's ρ at once
  (:func:`~mtlib.correlation.resampled_spearman`, equal to scipy's on the repeated rows to ~1e-15).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from mtlib.bootstrap import group_resample_counts
from mtlib.correlation import correlation_with_p, resampled_spearman
from mtlib.regemt.ensemble import FittedEnsemble, fit_ensemble, split_by_source

__all__ = ["Evaluation", "evaluate", "regemt_features", "metric_ablation", "spearman_table", "group_bootstrap",
           "REG_BASE", "REGEMT"]

REG_BASE, REGEMT = "Reg-base", "RegEMT"


def _spearman(x: np.ndarray, y: np.ndarray) -> tuple[float, int]:
    """Spearman's rho over the pairs where both are defined (NaN below three), and how many
    pairs were left out."""
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 3:
        return float("nan"), int((~ok).sum())
    return correlation_with_p(x[ok], y[ok], "spearman", "b")[0], int((~ok).sum())


def spearman_table(scores: pd.DataFrame, human: Sequence[float]) -> pd.DataFrame:
    """Rows: the columns of ``scores``; columns ``spearman`` (signed) and ``undefined``."""
    y = np.asarray(human, dtype=float)
    if len(scores) != len(y):
        raise ValueError(f"{len(scores)} score rows but {len(y)} human scores")
    out = {c: _spearman(scores[c].to_numpy(dtype=float), y) for c in scores.columns}
    return pd.DataFrame(out, index=["spearman", "undefined"]).T.astype({"undefined": int})


@dataclass
class Evaluation:
    """One setting on one test set.

    Attributes:
        test: positions of the test rows.
        predictions: per test row, every metric column plus ``Reg-base`` and ``RegEMT``.
        human: the test rows' human scores.
        table: :func:`spearman_table` of ``predictions``.
        reg_base, regemt: the fitted ensembles.
        lengths: the test rows' two lengths (with the metric columns of ``predictions``, RegEMT's
            features: :func:`regemt_features`).
    """

    test: np.ndarray
    predictions: pd.DataFrame
    human: np.ndarray
    table: pd.DataFrame
    reg_base: FittedEnsemble
    regemt: FittedEnsemble
    lengths: pd.DataFrame | None = None


def regemt_features(scores: pd.DataFrame, lengths: pd.DataFrame) -> pd.DataFrame:
    """RegEMT's features: the metric columns, then the two raw lengths (Reg-base's features), row
    by row (as the authors' ensemble appends the lengths to the metrics' scores)."""
    if len(scores) != len(lengths):
        raise ValueError(f"{len(scores)} score rows but {len(lengths)} length rows")
    clash = sorted(set(scores.columns) & set(lengths.columns))
    if clash:
        raise ValueError(f"columns {clash} are both metric scores and lengths")
    return scores.assign(**{c: lengths[c].to_numpy() for c in lengths.columns})


def _fit(scores: pd.DataFrame, lengths: pd.DataFrame, human: np.ndarray, sources: Sequence[str] | None, seed: int,
         inner_split: str, cache):
    reg_base = fit_ensemble(lengths, human, seed=seed, groups=sources, inner_split=inner_split, cache=cache)
    return reg_base, fit_ensemble(regemt_features(scores, lengths), human, seed=seed, groups=sources,
                                  inner_split=inner_split, cache=cache)


def evaluate(scores: pd.DataFrame, lengths: pd.DataFrame, human: Sequence[float], sources: Sequence[str], *,
             test: np.ndarray | None = None, fit_on: tuple | None = None, split_seed: int | None = None,
             seed: int = 42, inner_split: str = "source", cache: bool | str | os.PathLike = True) -> Evaluation:
    """Fits on the training rows (or on ``fit_on`` of another data set: the cross-lingual rows)
    and evaluates on the test rows.

    Args:
        scores, lengths, human, sources: the rows (from :mod:`mtlib.regemt.scores`).
        test: test row positions (default: the last 20% of the unique sources, alphabetically,
            as the authors split, or shuffled with ``split_seed``).
        fit_on: (scores, lengths, human, sources) to fit on instead of this set's training
            rows (its columns must include this set's; extra ones are ignored); the sources may
            be left out, (scores, lengths, human), only with ``inner_split="random"``.
        seed: the ensemble's seed (inner split, imputer, MLP).
        inner_split: the model selection's inner split, ``source`` or ``random``
            (:func:`~mtlib.regemt.ensemble.inner_split_rows`).
        cache: the fit cache of :func:`~mtlib.regemt.ensemble.fit_ensemble` (``False``: fit afresh).
    """
    y = np.asarray(human, dtype=float)
    if not (len(scores) == len(lengths) == len(y) == len(sources)):
        raise ValueError(f"rows differ in number: {len(scores)} scores, {len(lengths)} lengths, {len(y)} human, "
                         f"{len(sources)} sources")
    if test is None:
        train, test = split_by_source(list(sources), seed=split_seed)
    else:
        test = np.asarray(test)
        train = np.setdiff1d(np.arange(len(y)), test)
    if fit_on is None:
        src = list(sources)
        reg_base, regemt = _fit(scores.iloc[train], lengths.iloc[train], y[train], [src[i] for i in train], seed,
                                inner_split, cache)
    else:
        if len(fit_on) not in (3, 4) or (len(fit_on) == 3 and inner_split != "random"):
            raise ValueError(f"fit_on: expected (scores, lengths, human, sources) (the sources may be left out only "
                             f"with inner_split='random'), got {len(fit_on)} items with inner_split={inner_split!r}")
        f_scores, f_lengths, f_human = fit_on[:3]
        f_sources = list(fit_on[3]) if len(fit_on) == 4 else None
        missing = [c for c in scores.columns if c not in f_scores.columns]
        if missing:
            raise ValueError(f"the data fitted on lacks the columns {missing}")
        reg_base, regemt = _fit(f_scores[list(scores.columns)], f_lengths.set_axis(lengths.columns, axis=1),
                                np.asarray(f_human, dtype=float), f_sources, seed, inner_split, cache)
    t_scores, t_lengths = scores.iloc[test], lengths.iloc[test]
    base = reg_base.predict(t_lengths)
    full = regemt.predict(regemt_features(t_scores, t_lengths))
    predictions = t_scores.assign(**{REG_BASE: base, REGEMT: full})
    return Evaluation(np.asarray(test), predictions, y[test], spearman_table(predictions, y[test]), reg_base, regemt,
                      t_lengths)


def metric_ablation(scores: pd.DataFrame, lengths: pd.DataFrame, human: Sequence[float], train: np.ndarray,
                    test: np.ndarray, sources: Sequence[str], *, seed: int = 42, inner_split: str = "source",
                    cache: bool | str | os.PathLike = True) -> pd.DataFrame:
    """The paper's ablation of RegEMT: refit after repeatedly dropping the *metric* with the
    highest |Spearman| to any other remaining metric (on the training rows), the two lengths kept
    in every step, until only the lengths are left (that last fit is Reg-base's: the same
    features, rows and seed).

    Returns:
        One row per step: ``step``, ``dropped`` (the metric dropped before it), ``metrics`` (how
        many are left), ``remaining`` (their names), ``choice`` (the regressor) and ``spearman``
        (the refitted ensemble's test ρ).
    """
    y = np.asarray(human, dtype=float)
    src = list(sources)
    train, test = np.asarray(train), np.asarray(test)
    x_train, x_test = scores.iloc[train], scores.iloc[test]
    l_train, l_test = lengths.iloc[train], lengths.iloc[test]
    groups = [src[i] for i in train]
    remaining, rows, dropped = list(scores.columns), [], None
    while True:
        fitted = fit_ensemble(regemt_features(x_train[remaining], l_train), y[train], seed=seed, groups=groups,
                              inner_split=inner_split, cache=cache)
        rho = _spearman(fitted.predict(regemt_features(x_test[remaining], l_test)), y[test])[0]
        rows.append({"step": len(rows), "dropped": dropped, "metrics": len(remaining), "remaining": list(remaining),
                     "choice": fitted.choice, "spearman": rho})
        if not remaining:
            return pd.DataFrame(rows)
        if len(remaining) == 1:
            dropped = remaining.pop()
            continue
        corr = x_train[remaining].replace([np.inf, -np.inf], np.nan).corr(method="spearman").abs()
        corr = corr.mask(np.eye(len(remaining), dtype=bool))  # a metric's correlation with itself
        dropped = corr.max(axis=1).idxmax()
        remaining.remove(dropped)


def group_bootstrap(predictions: pd.DataFrame, human: Sequence[float], groups: Sequence[str], *,
                    n_resamples: int = 1000, seed: int = 0, level: float = 0.95) -> pd.DataFrame:
    """Percentile interval of each column's Spearman, resampling whole groups (source texts)
    with replacement; columns ``low``, ``high``."""
    y = np.asarray(human, dtype=float)
    if not len(predictions) == len(y) == len(groups):
        raise ValueError(f"group_bootstrap: {len(predictions)} prediction rows, {len(y)} human scores, "
                         f"{len(groups)} groups")
    counts, _ = group_resample_counts(groups, n_resamples, seed)
    x = predictions.to_numpy(dtype=float)
    draws = np.stack([resampled_spearman(x[:, j], y, counts) for j in range(x.shape[1])], axis=1)
    alpha = (1 - level) / 2
    return pd.DataFrame({"low": np.nanquantile(draws, alpha, axis=0), "high": np.nanquantile(draws, 1 - alpha, axis=0)},
                        index=predictions.columns)
