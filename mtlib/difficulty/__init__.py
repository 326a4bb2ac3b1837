"""Difficulty-aware BERTScore (Zhan et al., ACL 2021).

A reference token is hard when the systems fail to match it (eq. 2):
``d(t) = 1 - mean_k max_{h in h_k} sim(t, h)`` over exactly the systems given, so the
difficulty of "top 30%" is computed from the top systems only, as the paper does.

* Recall (eq. 3): ``DA-R = (1/|t|) sum_t d(t) max_h sim(t, h)`` (divided by the token count,
  not by the sum of weights).
* Precision (eq. 4): ``DA-P = (1/|h|) sum_h d(h) max_t sim(t, h)``, where a hypothesis token
  takes the difficulty of the identical reference token (by token id; the mean when the
  reference repeats it) and ``d(h) = 1`` for a token absent from the reference.
* F (eq. 5): harmonic mean.

Two system-level aggregations (the chapter says which it reports):

* ``"paper"``: mean of sentence DA-F (as the paper's equations read, like BERTScore).
* ``"authors"``: F of the mean DA-P and mean DA-R, as the authors' code does. Their code also
  rescales token similarities with bert_score's F baseline first (``baseline_f``); the offline
  models here have no published baseline, so the chapter estimates one
  (:meth:`mtlib.bertscore.BERTScorer.estimate_baseline`).
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from mtlib.bertscore import FOfMeans, SentenceMean, TokenMatches
from mtlib.difficulty.index import DifficultyIndex, rescaled as _rescaled
from mtlib.scoring import SystemStats

__all__ = ["DifficultyIndex", "token_difficulty", "da_precision_recall", "da_system_stats", "da_correlation_curve",
           "da_baseline_curve", "VARIANTS"]

VARIANTS = ("paper", "authors")


def token_difficulty(matches: Mapping[str, Sequence[TokenMatches]] | DifficultyIndex,
                     systems: Sequence[str] | None = None, *, baseline_f: float | None = None) -> list[np.ndarray]:
    """Per segment, the difficulty of each (non-special) reference token, from ``systems``.

    ``matches``: system -> token matches, or a :class:`DifficultyIndex` of them (build one to
    evaluate many subsets or baselines on one evaluation set)."""
    index = DifficultyIndex.of(matches)
    return index.split(index.difficulty(systems, baseline_f=baseline_f))


def da_precision_recall(m: TokenMatches, d: np.ndarray, *, baseline_f: float | None = None) -> tuple[float, float]:
    """Sentence DA-P and DA-R (eqs. 3-4) for one pair, given its reference difficulties.

    The definition pair by pair, as the equations read; :class:`DifficultyIndex` computes the
    same for whole evaluation sets at once (and is tested against this function)."""
    if len(d) != len(m.ref_ids):
        raise ValueError(f"difficulty has {len(d)} values for {len(m.ref_ids)} reference tokens")
    ref_max = _rescaled(m.ref_max, baseline_f)
    hyp_max = _rescaled(m.hyp_max, baseline_f)
    recall = float((d * ref_max).sum() / len(ref_max)) if len(ref_max) else 0.0
    by_id: dict[int, list[float]] = {}
    for t, dt in zip(m.ref_ids.tolist(), d.tolist()):
        by_id.setdefault(t, []).append(dt)
    d_h = np.array([np.mean(by_id[t]) if t in by_id else 1.0 for t in m.hyp_ids.tolist()])
    precision = float((d_h * hyp_max).sum() / len(hyp_max)) if len(hyp_max) else 0.0
    return precision, recall


def da_system_stats(matches: Mapping[str, Sequence[TokenMatches]] | DifficultyIndex,
                    difficulty: Sequence[np.ndarray] | np.ndarray, *, systems: Sequence[str] | None = None,
                    variant: str = "paper", baseline_f: float | None = None, signature: str = "",
                    ref_name: str = "ref") -> SystemStats:
    """DA-BERTScore statistics of every system in ``matches``, for correlations and bootstrap.

    Args:
        matches: system -> token matches (e.g. from :meth:`BERTScorer.match_systems`), or a
            :class:`DifficultyIndex` of them.
        difficulty: per segment reference-token difficulty (:func:`token_difficulty`), or the
            flat array :meth:`DifficultyIndex.difficulty` gives.
        systems: the systems scored (default: all in ``matches``).
        variant: ``"paper"`` (mean sentence F) or ``"authors"`` (F of mean P and mean R).
        signature: the BERTScore signature the matches came from.
    """
    if variant not in VARIANTS:
        raise ValueError(f"unknown DA variant {variant!r}; valid: {list(VARIANTS)}")
    index = DifficultyIndex.of(matches)
    data = index.stats_arrays(index.flatten(difficulty), systems, variant=variant, baseline_f=baseline_f)
    sig = f"DA-{signature or 'BERTScore'}|da:{variant}|bf:{'no' if baseline_f is None else f'{baseline_f:.6g}'}"
    metric = SentenceMean("DA-BERTScore", column=2, signature=sig) if variant == "paper" \
        else FOfMeans("DA-BERTScore", sig)
    return SystemStats(metric, [ref_name], data)


def da_correlation_curve(matches: Mapping[str, Sequence[TokenMatches]] | DifficultyIndex, human: Mapping[str, float | None],
                         ks: Sequence[int], method: str = "kendall", *, variant: str = "paper",
                         baseline_f: float | None = None) -> "pd.DataFrame":
    """Correlation of DA-BERTScore over the top-K systems, difficulty recomputed from those K.

    This is the paper's top-K protocol: the difficulty depends on which systems are evaluated.
    Returns columns ``k`` and ``value``.
    """
    import pandas as pd

    from mtlib.correlation import correlate, top_systems

    index = DifficultyIndex.of(matches)
    rows = []
    for k in ks:
        top = top_systems(human, k)
        d = index.difficulty(top, baseline_f=baseline_f)
        scores = da_system_stats(index, d, systems=top, variant=variant, baseline_f=baseline_f).system_scores()
        rows.append({"k": k, "value": correlate(scores, human, method, systems=top).value})
    return pd.DataFrame(rows)


def da_baseline_curve(matches: Mapping[str, Sequence[TokenMatches]] | DifficultyIndex, human: Mapping[str, float | None],
                      baselines: Sequence[float], *, systems: Sequence[str] | None = None,
                      methods: Sequence[str] = ("pearson", "kendall"), variant: str = "authors") -> "pd.DataFrame":
    """Correlation of DA-BERTScore with human scores as a function of the rescaling baseline.

    The authors' pipeline rescales token similarities by a baseline F value ``b`` before the
    difficulty is computed; with no published baseline for a model, ``b`` is a choice, and
    this curve shows how much a conclusion hangs on it. ``b = 0`` is no rescaling.

    Args:
        matches: system -> token matches, or a :class:`DifficultyIndex` of them.
        human: system -> human score.
        baselines: the values of ``b`` to evaluate.
        systems: the systems ranked, whose outputs also define the difficulty (default: all).
        methods: correlation methods (signed, as :func:`mtlib.correlation.correlate`).
        variant: the DA aggregation (:data:`VARIANTS`).

    Returns:
        Columns ``b``, ``method``, ``value``.
    """
    import pandas as pd

    from mtlib.correlation import correlate

    index = DifficultyIndex.of(matches)
    systems = index.systems if systems is None else list(systems)
    rows = []
    for b in baselines:
        bf = None if b == 0 else float(b)
        d = index.difficulty(systems, baseline_f=bf)
        scores = da_system_stats(index, d, systems=systems, variant=variant, baseline_f=bf).system_scores()
        for method in methods:
            rows.append({"b": float(b), "method": method,
                         "value": correlate(scores, human, method, systems=systems).value})
    return pd.DataFrame(rows)
