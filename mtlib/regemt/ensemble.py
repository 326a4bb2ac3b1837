"""The regressive ensemble: metric scores as features, human scores as the target (scikit-learn).

As the authors' code (``shared/papers/README.md``), but for the inner split of the model selection:

* features are standardised; infinite or missing values (an SCM or WMD with no known word,
  a pair without part-of-speech bigrams) are imputed by scikit-learn's ``IterativeImputer`` (seed
  42) — counted and reported, never dropped;
* the regressor is chosen among linear regression and an MLP (100 hidden units, ReLU, seed
  42) by R² on an inner 80/20 split of the training data, then refitted on all of it. The
  inner split is by source text (``inner_split="source"``, the default: 20% of the training
  sources, shuffled with the seed, validate), so that no validation row shares a source with a
  fitting row; ``inner_split="random"`` splits rows at random instead (scikit-learn's
  ``train_test_split``, the earlier default of mtlib), which lets the other translations of a
  validation source into the fit and so rewards a model that learns each source's level;
* train and test are split by unique source text, 80/20, so no source is on both sides (the
  authors order the sources alphabetically; ``seed`` shuffles them instead);
* the ablation repeatedly drops the feature with the highest |Spearman| to any other remaining
  feature, refits and re-evaluates.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

from mtlib import paths
from mtlib.version import library_versions

__all__ = ["INNER_SPLITS", "split_by_source", "inner_split_rows", "FittedEnsemble", "fit_ensemble", "ablation", "permutation_importance"]


def split_by_source(sources: Sequence[str], test_fraction: float = 0.2, seed: int | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Row indices (train, test) with every occurrence of a source text on one side.

    ``seed=None`` takes the last ``test_fraction`` of the unique sources in alphabetical order
    (the authors' split); an integer shuffles the unique sources with that seed first.
    """
    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction must lie in (0, 1), got {test_fraction}")
    unique = sorted(set(sources))
    if len(unique) < 2:
        raise ValueError(f"need at least 2 distinct source texts to split, got {len(unique)}")
    if seed is not None:
        unique = list(np.random.default_rng(seed).permutation(unique))
    n_test = max(1, int(round(test_fraction * len(unique))))
    test_sources = set(unique[len(unique) - n_test:])
    is_test = np.array([s in test_sources for s in sources])
    return np.flatnonzero(~is_test), np.flatnonzero(is_test)


INNER_SPLITS = ("source", "random")


def inner_split_rows(n_rows: int, *, groups: Sequence[str] | None = None, how: str = "source",
                     fraction: float = 0.2, seed: int = 42) -> tuple[np.ndarray, np.ndarray]:
    """Row positions (fit, validation) of the inner model selection.

    Args:
        n_rows: rows of the training data.
        groups: the source text of every row (needed for ``how="source"``).
        how: ``source`` (every row of a source on one side: :func:`split_by_source` with
            ``seed``) or ``random`` (rows at random, scikit-learn's ``train_test_split``).
        fraction: share of the validation side (of the sources, or of the rows).
        seed: the shuffle's seed.
    """
    if how not in INNER_SPLITS:
        raise ValueError(f"inner_split must be one of {list(INNER_SPLITS)}, got {how!r}")
    if how == "random":
        from sklearn.model_selection import train_test_split
        fit, val = train_test_split(np.arange(n_rows), test_size=fraction, random_state=seed)
        return np.asarray(fit), np.asarray(val)
    if groups is None:
        raise ValueError("inner_split='source' needs groups (the source text of every training row); "
                         "pass inner_split='random' for a split of rows at random")
    groups = list(groups)
    if len(groups) != n_rows:
        raise ValueError(f"groups has {len(groups)} entries for {n_rows} rows")
    return split_by_source(groups, test_fraction=fraction, seed=seed)


def _candidates(seed: int) -> dict:
    from sklearn.linear_model import LinearRegression
    from sklearn.neural_network import MLPRegressor
    return {"linear": LinearRegression(),
            "mlp": MLPRegressor(hidden_layer_sizes=(100,), activation="relu", random_state=seed, max_iter=1000)}


def _pipeline(model, seed: int):
    from sklearn.experimental import enable_iterative_imputer  # noqa: F401  (needed before the import below)
    from sklearn.impute import IterativeImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    return make_pipeline(IterativeImputer(random_state=seed), StandardScaler(), model)


def _clean(features: pd.DataFrame) -> tuple[np.ndarray, dict[str, int]]:
    """Float matrix with ±inf turned into NaN (for the imputer), and per feature the count of
    values that will be imputed."""
    x = features.to_numpy(dtype=float, copy=True)
    bad = ~np.isfinite(x)
    x[bad] = np.nan
    return x, {c: int(n) for c, n in zip(features.columns, bad.sum(axis=0)) if n}


@dataclass
class FittedEnsemble:
    """A fitted ensemble.

    Attributes:
        features: feature names, in order.
        choice: the regressor chosen (``linear`` or ``mlp``).
        inner_r2: R² of each candidate on the inner validation split.
        pipeline: imputer, scaler and regressor, refitted on all training rows.
        imputed: feature -> number of missing or infinite training values imputed.
        inner_split: how the rows of the model selection were split (``source`` or ``random``).
    """

    features: list[str]
    choice: str
    inner_r2: dict[str, float]
    pipeline: object
    imputed: dict[str, int] = field(default_factory=dict)
    inner_split: str = "source"

    def predict(self, features: pd.DataFrame) -> np.ndarray:
        missing = [c for c in self.features if c not in features.columns]
        if missing:
            raise ValueError(f"features {missing} are missing; the ensemble was fitted on {self.features}")
        x, imputed = _clean(features[self.features])
        if imputed:
            warnings.warn(f"ensemble: imputing missing or infinite values {imputed}", stacklevel=2)
        return self.pipeline.predict(x)


# Bump when the candidates, the pipeline, the selection, _clean or FittedEnsemble's fields change:
# the key then changes with it. (Entries are pickles, read only from the user's own cache folder.)
FIT_VERSION = "1"


def _fit_key(x: np.ndarray, y: np.ndarray, names: Sequence[str], fit_rows: np.ndarray, val_rows: np.ndarray,
             seed: int, inner_split: str) -> str:
    digest = hashlib.sha256()
    digest.update(repr((FIT_VERSION, library_versions("sklearn", "numpy", "scipy"), list(names), x.shape, int(seed),
                        inner_split)).encode())
    for array in (x, y, fit_rows.astype(np.int64), val_rows.astype(np.int64)):
        digest.update(np.ascontiguousarray(array).tobytes())
        digest.update(b"|")
    return digest.hexdigest()


def _read_fit(path: Path, key: str) -> FittedEnsemble | None:
    if not path.is_file():
        return None
    try:
        with path.open("rb") as f:
            stored_key, fitted = pickle.load(f)
    except Exception as err:  # truncated or foreign file: refit and replace it
        warnings.warn(f"ensemble fit cache entry {path} is unreadable ({type(err).__name__}: {err}); refitting",
                      stacklevel=3)
        return None
    if stored_key != key or not isinstance(fitted, FittedEnsemble):
        warnings.warn(f"ensemble fit cache entry {path} was written for another fit; refitting", stacklevel=3)
        return None
    return fitted


def _write_fit(path: Path, key: str, fitted: FittedEnsemble) -> None:
    """Stores a fit; a cache that cannot be written costs a warning, never the fit itself."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # A unique temporary name and a rename: processes sharing the cache never see half a file.
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.stem + ".", suffix=".tmp")
        os.fchmod(fd, 0o644)  # mkstemp's 0600 would hide the entry from others sharing the folder
        with os.fdopen(fd, "wb") as f:
            pickle.dump((key, fitted), f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except OSError as err:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        warnings.warn(f"ensemble fit cache entry {path} could not be written ({err.strerror or err}); the fit is "
                      "used but not kept (use a writable MTLIB_CACHE, or cache=False)", stacklevel=3)
    except BaseException:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise


def fit_ensemble(features: pd.DataFrame, target: Sequence[float], *, seed: int = 42,
                 inner_fraction: float = 0.2, groups: Sequence[str] | None = None,
                 inner_split: str = "source", cache: bool | str | os.PathLike = True) -> FittedEnsemble:
    """Chooses the regressor by R² on an inner split of the training rows
    (:func:`inner_split_rows`: by the source texts ``groups``, or rows at random with
    ``inner_split="random"``), then refits it on all of them. ``seed`` seeds the split, the
    imputer and the MLP. ``cache``: read and write the fit cache (``True``: under
    ``MTLIB_CACHE``; a folder; ``False``: fit afresh)."""
    from sklearn.base import clone
    from sklearn.metrics import r2_score
    y = np.asarray(target, dtype=float)
    if len(features) != len(y):
        raise ValueError(f"{len(features)} feature rows but {len(y)} targets")
    if not np.isfinite(y).all():
        raise ValueError(f"the target has {int((~np.isfinite(y)).sum())} missing or infinite values; remove those rows first")
    if features.shape[1] == 0 or len(y) < 10:
        raise ValueError(f"need at least one feature and 10 rows, got {features.shape[1]} and {len(y)}")
    x, imputed = _clean(features)
    if imputed:
        warnings.warn(f"ensemble: imputing missing or infinite training values {imputed}", stacklevel=2)
    fit_rows, val_rows = inner_split_rows(len(y), groups=groups, how=inner_split, fraction=inner_fraction, seed=seed)
    path = key = None
    if cache:
        key = _fit_key(x, y, features.columns, fit_rows, val_rows, seed, inner_split)
        try:
            folder = paths.cache_dir() if cache is True else Path(cache)
        except paths.CacheFolderError as err:
            warnings.warn(f"ensemble fits are not cached: {err}", stacklevel=2)
        else:
            path = folder / "fits" / f"{key}.pkl"
    if path is not None:
        cached = _read_fit(path, key)
        if cached is not None:
            return cached
    x_fit, x_val, y_fit, y_val = x[fit_rows], x[val_rows], y[fit_rows], y[val_rows]
    scores = {}
    with warnings.catch_warnings():
        # The MLP's and the imputer's iteration caps (scikit-learn's defaults, as the authors ran
        # them) are part of the method; their convergence notices would repeat for every fit.
        warnings.filterwarnings("ignore", message=".*(did not converge|Maximum iterations|Early stopping criterion).*")
        for name, model in _candidates(seed).items():
            pipe = _pipeline(clone(model), seed).fit(x_fit, y_fit)
            scores[name] = float(r2_score(y_val, pipe.predict(x_val)))
        choice = max(scores, key=scores.get)
        final = _pipeline(clone(_candidates(seed)[choice]), seed).fit(x, y)
    fitted = FittedEnsemble(list(features.columns), choice, scores, final, imputed, inner_split)
    if path is not None:
        _write_fit(path, key, fitted)
    return fitted


def ablation(train: pd.DataFrame, y_train: Sequence[float], test: pd.DataFrame, y_test: Sequence[float], *,
             seed: int = 42, groups: Sequence[str] | None = None, inner_split: str = "source",
             cache: bool | str | os.PathLike = True) -> pd.DataFrame:
    """Refits after repeatedly dropping the feature with the highest |Spearman| to any other
    remaining feature (on the training rows); one row per step: the feature dropped, the
    features left and the test Spearman of the ensemble. ``groups`` (the training rows' source
    texts), ``inner_split`` and ``cache`` go to :func:`fit_ensemble`."""
    remaining = list(train.columns)
    rows = []
    dropped = None
    while remaining:
        fitted = fit_ensemble(train[remaining], y_train, seed=seed, groups=groups, inner_split=inner_split, cache=cache)
        rho = sps.spearmanr(fitted.predict(test[remaining]), y_test).statistic
        rows.append({"step": len(rows), "dropped": dropped, "features": len(remaining), "remaining": list(remaining),
                     "choice": fitted.choice, "spearman": float(rho)})
        if len(remaining) == 1:
            break
        corr = train[remaining].replace([np.inf, -np.inf], np.nan).corr(method="spearman").abs()
        corr = corr.mask(np.eye(len(remaining), dtype=bool))  # a feature's correlation with itself
        dropped = corr.max(axis=1).idxmax()
        remaining.remove(dropped)
    return pd.DataFrame(rows)


def permutation_importance(fitted: FittedEnsemble, features: pd.DataFrame, target: Sequence[float], *,
                           n_repeats: int = 20, seed: int = 0) -> pd.DataFrame:
    """How much the ensemble's Spearman with ``target`` drops when one feature's values are
    shuffled (scikit-learn's permutation importance); columns ``drop`` (mean) and ``std``."""
    from sklearn.inspection import permutation_importance as sklearn_permutation_importance
    x, _ = _clean(features[fitted.features])

    def spearman(estimator, x_, y_):
        return sps.spearmanr(estimator.predict(x_), y_).statistic
    result = sklearn_permutation_importance(fitted.pipeline, x, np.asarray(target, dtype=float), scoring=spearman,
                                            n_repeats=n_repeats, random_state=seed)
    return pd.DataFrame({"drop": result.importances_mean, "std": result.importances_std},
                        index=fitted.features).sort_values("drop", ascending=False)
