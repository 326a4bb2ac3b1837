"""Difficulty and DA-BERTScore for many systems at once, without a Python loop per pair.

The chapter evaluates DA-BERTScore at dozens of rescaling baselines ``b`` and for every top-K
subset of systems; each evaluation recomputes the difficulty of every reference token and the
DA precision and recall of every (system, segment) pair. :class:`DifficultyIndex` lays one
evaluation set's token matches out in flat arrays once, so that each evaluation is a handful
of array operations over all tokens.

It computes exactly what the per-pair definitions do (:func:`mtlib.difficulty.da_precision_recall`
is the reference it is tested against): the same operations in the same precision, and each
sentence's sum grouped as NumPy groups it for the sentence alone, so the values agree to
the last bit (tested on random matches in tests/test_difficulty.py, and checked on WMT19 de-en's
cached matches by benchmarks/difficulty_sweep_speed.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from mtlib.bertscore import SentenceSums, TokenMatches, f_measure

__all__ = ["DifficultyIndex", "rescaled"]

_SEGMENT_SHIFT = np.int64(1) << 32  # token ids stay far below 2**32: (segment, id) in one int64


def rescaled(x: np.ndarray, baseline_f: float | None) -> np.ndarray:
    """Similarities rescaled by a baseline F value, ``(x - b) / (1 - b)`` (None: unchanged)."""
    return x if baseline_f is None else (x - baseline_f) / (1 - baseline_f)


def _concat(arrays: list[np.ndarray], dtype=None) -> np.ndarray:
    return np.concatenate(arrays) if arrays else np.zeros(0, dtype or np.float32)


@dataclass
class _System:
    """One system's matches, flat: its reference tokens in the shared layout, its hypothesis
    tokens in its own."""

    ref_max: np.ndarray
    ref_ids: np.ndarray
    hyp_max: np.ndarray
    hyp_ids: np.ndarray
    hyp_bounds: np.ndarray
    hyp_sums: SentenceSums
    # For DA-P (filled on first use): the reference tokens ordered by group of identical ids in
    # one sentence (in sentence order within a group), the groups' bounds in that order, and each
    # hypothesis token's group (-1: absent from the reference).
    ref_order: np.ndarray | None = None
    group_bounds: np.ndarray | None = None
    group_sums: SentenceSums | None = None
    hyp_group: np.ndarray | None = None


class DifficultyIndex:
    """One evaluation set's token matches (system -> one :class:`TokenMatches` per segment),
    flat, for :meth:`difficulty` and :meth:`stats_arrays` over any subset of its systems.

    Every system must cover the same segments with the same number of reference tokens (one
    reference, tokenised once).
    """

    def __init__(self, matches: Mapping[str, Sequence[TokenMatches]]):
        if not matches:
            raise ValueError("DifficultyIndex: no systems given")
        n = {len(ms) for ms in matches.values()}
        if len(n) != 1:
            raise ValueError(f"systems cover different numbers of segments {sorted(n)}")
        self.n_segments = n.pop()
        first = next(iter(matches))
        ref_len = np.array([len(m.ref_ids) for m in matches[first]], np.int64)
        self.ref_bounds = np.concatenate([[0], np.cumsum(ref_len)])
        self._ref_sums = SentenceSums(self.ref_bounds)
        self._one_token = self.ref_bounds[:-1][ref_len == 1]
        self._ref_segment = np.repeat(np.arange(self.n_segments, dtype=np.int64), ref_len)
        # Flat arrays hold one dtype; a mix (float32 from the cache, float64 elsewhere) would be
        # promoted and no longer equal the pair-by-pair values.
        dtypes = {np.asarray(x).dtype for ms in matches.values() for m in ms for x in (m.hyp_max, m.ref_max)}
        if len(dtypes) > 1:
            raise ValueError(f"token similarities come in several dtypes {sorted(map(str, dtypes))}; "
                             "give one evaluation set's matches in one dtype")
        self._systems: dict[str, _System] = {}
        for s, ms in matches.items():
            lengths = np.array([len(m.ref_ids) for m in ms], np.int64)
            if not np.array_equal(lengths, ref_len):
                i = int(np.flatnonzero(lengths != ref_len)[0])
                raise ValueError(f"segment {i}: system {s!r} has {lengths[i]} reference token(s), "
                                 f"{first!r} {ref_len[i]} (one reference, tokenised once, is required)")
            hyp_bounds = np.concatenate([[0], np.cumsum([len(m.hyp_ids) for m in ms], dtype=np.int64)])
            self._systems[s] = _System(
                ref_max=_concat([m.ref_max for m in ms]), ref_ids=_concat([m.ref_ids for m in ms], np.int64),
                hyp_max=_concat([m.hyp_max for m in ms]), hyp_ids=_concat([m.hyp_ids for m in ms], np.int64),
                hyp_bounds=hyp_bounds, hyp_sums=SentenceSums(hyp_bounds))

    @classmethod
    def of(cls, matches: "Mapping[str, Sequence[TokenMatches]] | DifficultyIndex") -> "DifficultyIndex":
        """``matches`` itself when it is an index already, else a new index of them: functions
        that take either build it once."""
        return matches if isinstance(matches, cls) else cls(matches)

    @property
    def systems(self) -> list[str]:
        return list(self._systems)

    def _chosen(self, systems: Sequence[str] | None) -> list[str]:
        chosen = self.systems if systems is None else list(systems)
        if not chosen:
            raise ValueError("no systems given")
        missing = [s for s in chosen if s not in self._systems]
        if missing:
            raise ValueError(f"no matches for systems {missing}")
        return chosen

    def difficulty(self, systems: Sequence[str] | None = None, *, baseline_f: float | None = None) -> np.ndarray:
        """Every reference token's difficulty (eq. 2) from ``systems`` (default: all), flat in
        segment order (:meth:`split` gives one array per segment)."""
        stacked = np.stack([rescaled(self._systems[s].ref_max, baseline_f) for s in self._chosen(systems)])
        d = 1.0 - stacked.mean(axis=0)
        if len(self._one_token):  # NumPy sums a one-token segment's (systems, 1) stack pairwise
            d[self._one_token] = 1.0 - np.ascontiguousarray(stacked[:, self._one_token].T).mean(axis=1)
        return d

    def split(self, flat: np.ndarray) -> list[np.ndarray]:
        """A flat per-reference-token array as one array per segment."""
        return np.split(flat, self.ref_bounds[1:-1]) if self.n_segments else []

    def flatten(self, difficulty: Sequence[np.ndarray] | np.ndarray) -> np.ndarray:
        """Per-segment difficulties (as :func:`mtlib.difficulty.token_difficulty` gives) as one
        flat array, checked against the reference token counts; a flat array (as
        :meth:`difficulty` gives) is checked and returned as it is."""
        if isinstance(difficulty, np.ndarray) and difficulty.ndim == 1 and difficulty.dtype != object:
            if len(difficulty) != self.ref_bounds[-1]:
                raise ValueError(f"flat difficulty has {len(difficulty)} values for {self.ref_bounds[-1]} "
                                 "reference tokens")
            return difficulty
        if len(difficulty) != self.n_segments:
            raise ValueError(f"{self.n_segments} segments but difficulty for {len(difficulty)}")
        lengths = np.diff(self.ref_bounds)
        for i, d in enumerate(difficulty):
            if len(d) != lengths[i]:
                raise ValueError(f"segment {i}: difficulty has {len(d)} values for {lengths[i]} reference tokens")
        return _concat([np.asarray(d) for d in difficulty])

    def _groups(self, sy: _System) -> _System:
        if sy.ref_order is None:
            ref_key = self._ref_segment * _SEGMENT_SHIFT + sy.ref_ids
            groups, ref_group, size = np.unique(ref_key, return_inverse=True, return_counts=True)
            sy.ref_order = np.argsort(ref_group, kind="stable")
            sy.group_bounds = np.concatenate([[0], np.cumsum(size)])
            sy.group_sums = SentenceSums(sy.group_bounds)
            hyp_segment = np.repeat(np.arange(self.n_segments, dtype=np.int64), np.diff(sy.hyp_bounds))
            hyp_key = hyp_segment * _SEGMENT_SHIFT + sy.hyp_ids
            at = np.minimum(np.searchsorted(groups, hyp_key), max(len(groups) - 1, 0))
            found = groups[at] == hyp_key if len(groups) else np.zeros(len(hyp_key), bool)
            sy.hyp_group = np.where(found, at, -1)
        return sy

    def precision_recall(self, system: str, difficulty: np.ndarray, *, baseline_f: float | None = None
                         ) -> np.ndarray:
        """(segments, 2) DA-P and DA-R of one system (eqs. 3-4), given the flat difficulty."""
        sy = self._groups(self._systems[system])
        ref_max = rescaled(sy.ref_max, baseline_f)
        hyp_max = rescaled(sy.hyp_max, baseline_f)
        ref_len = np.diff(self.ref_bounds)
        hyp_len = np.diff(sy.hyp_bounds)
        weighted = difficulty * ref_max
        recall = self._ref_sums(weighted) / np.maximum(ref_len, 1).astype(weighted.dtype)
        # A hypothesis token takes the mean difficulty of the identical reference tokens (in float64,
        # as the mean of a list of Python floats is), 1 if none.
        group_mean = (sy.group_sums(difficulty.astype(np.float64)[sy.ref_order])
                      / np.maximum(np.diff(sy.group_bounds), 1))
        d_h = np.where(sy.hyp_group >= 0, group_mean[np.maximum(sy.hyp_group, 0)], 1.0)
        precision = sy.hyp_sums(d_h * hyp_max) / np.maximum(hyp_len, 1)
        return np.column_stack([np.where(hyp_len > 0, precision, 0.0), np.where(ref_len > 0, recall, 0.0)])

    def stats_arrays(self, difficulty: np.ndarray, systems: Sequence[str] | None = None, *, variant: str,
                     baseline_f: float | None = None) -> dict[str, np.ndarray]:
        """system -> per-segment statistics: P, R, F, count (``"paper"``) or P, R, count
        (``"authors"``), as :func:`mtlib.difficulty.da_system_stats` wraps them."""
        out = {}
        for s in self._chosen(systems):
            pr = self.precision_recall(s, difficulty, baseline_f=baseline_f)
            ones = np.ones(len(pr))
            out[s] = (np.column_stack([pr, f_measure(pr[:, 0], pr[:, 1]), ones]) if variant == "paper"
                      else np.column_stack([pr, ones]))
        return out
