"""The metric interface: segment statistics first, corpus scores from summed statistics.

Resampling (bootstrap, top-K subsets, segment filters) then only re-aggregates the
statistics and never re-scores text (the design of sacrebleu's ``metrics/base.py``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar, Sequence

import numpy as np

__all__ = ["Metric", "SacrebleuMetric", "check_inputs"]


def check_inputs(name: str, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> None:
    """Validates hypotheses and reference streams (sacrebleu's convention: a list of streams)."""
    if isinstance(hyps, str) or not isinstance(hyps, Sequence):
        raise TypeError(f"{name}: hyps must be a sequence of strings, got {type(hyps).__name__}")
    if len(hyps) == 0:
        raise ValueError(f"{name}: no hypotheses given (empty list)")
    if isinstance(refs, str) or not isinstance(refs, Sequence) or len(refs) == 0:
        raise ValueError(f"{name}: refs must be a non-empty list of reference streams")
    for i, stream in enumerate(refs):
        if isinstance(stream, str):
            raise TypeError(f"{name}: refs[{i}] is a string; refs must be a list of reference streams")
        if len(stream) != len(hyps):
            raise ValueError(f"{name}: reference stream {i} has {len(stream)} lines, hypotheses have {len(hyps)}")
    for i, h in enumerate(hyps):
        if not isinstance(h, str):
            raise TypeError(f"{name}: hyps[{i}] is {type(h).__name__}, expected str")


class Metric(ABC):
    """A metric whose corpus score is a function of summed segment statistics.

    Subclasses set ``name`` and ``higher_is_better`` and implement
    :meth:`segment_stats` and :meth:`score_from_stats`.
    """

    name: ClassVar[str]
    higher_is_better: ClassVar[bool] = True

    @abstractmethod
    def segment_stats(self, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        """Returns an array of shape (segments, n_stats)."""

    @abstractmethod
    def score_from_stats(self, stats: np.ndarray) -> float:
        """Corpus score from statistics summed over segments (shape (n_stats,))."""

    @property
    @abstractmethod
    def signature(self) -> str:
        """Every setting that changes the number, with library versions."""

    def scores_from_stats(self, stats: np.ndarray) -> np.ndarray:
        """Vectorised :meth:`score_from_stats` over leading axes of ``stats`` (..., n_stats)."""
        flat = stats.reshape(-1, stats.shape[-1])
        return np.array([self.score_from_stats(row) for row in flat]).reshape(stats.shape[:-1])

    def corpus_score(self, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> float:
        return self.score_from_stats(self.segment_stats(hyps, refs).sum(axis=0))

    def sentence_scores(self, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        """Per-segment scores (the corpus formula applied to each segment's statistics)."""
        return self.scores_from_stats(self.segment_stats(hyps, refs))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.signature})"


class SacrebleuMetric(Metric):
    """Adapter over a sacrebleu metric: its segment statistics and its score formula."""

    def __init__(self, impl) -> None:
        self._impl = impl

    def segment_stats(self, hyps, refs):
        check_inputs(self.name, hyps, refs)
        stats = self._impl._extract_corpus_statistics(list(hyps), [list(r) for r in refs])
        return np.asarray(stats, dtype=np.float64)

    def score_from_stats(self, stats):
        # sacrebleu casts lengths with int(); our float64 sums of integer counts are exact.
        return float(self._impl._compute_score_from_stats(np.asarray(stats)).score)

    @property
    def signature(self) -> str:
        # sacrebleu's own signature without nrefs, which belongs to the data, not the metric
        # (SystemStats adds the references used).
        args = {**self._impl.__dict__, "num_refs": "?"}
        text = self._impl._SIGNATURE_TYPE(args).format().replace("nrefs:?|", "")
        return f"{self.name}|{text}"
