"""Scoring every system of an evaluation set, with segment statistics cached on disk.

The cache key is a SHA-256 of the metric signature, the hypotheses and the references,
so a hit is exact: any change of text or setting misses (STYLE.md, item 7). Each entry
(``stats/METRIC/KEY.npz``) also stores its key and a checksum of its statistics, and is
checked when read: a damaged or foreign file is recomputed, never used.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import warnings
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import numpy as np

from mtlib import paths
from mtlib.data import EvalSet
from mtlib.metrics import Metric
from mtlib.metrics.base import with_nrefs
from mtlib.metrics.languages import target_of

__all__ = ["SystemStats", "common_segment_count", "score_systems", "cached_segment_stats", "stats_key", "read_entry", "write_entry"]


def stats_key(metric: Metric, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> str:
    h = hashlib.sha256()
    # Length-prefixed fields: no two different inputs serialise to the same bytes.
    def field(data: bytes) -> None:
        h.update(len(data).to_bytes(8, "little") + data)

    field(metric.signature.encode())
    for stream in [hyps, *refs]:
        field(str(len(stream)).encode())
        for line in stream:
            field(line.encode("utf-8"))
    return h.hexdigest()


class SystemStats(dict):
    """system -> segment statistics (segments, n_stats) for one metric and reference set.

    Attributes:
        metric: the :class:`~mtlib.metrics.Metric` that produced them.
        signature: the metric signature after scoring (of :meth:`system_scores`).
        sentence_signature: the signature of :meth:`segment_scores` (BLEU's says ``eff:yes``).
        ref_names: the references used.
    """

    def __init__(self, metric: Metric, ref_names: list[str], data: dict[str, np.ndarray]):
        super().__init__(data)
        self.metric = metric
        self.ref_names = ref_names
        names, n = "+".join(ref_names), len(ref_names)
        self.signature = f"{with_nrefs(metric.signature, n)}|refs:{names}"
        self.sentence_signature = f"{with_nrefs(metric.sentence_signature, n)}|refs:{names}"

    def system_scores(self) -> dict[str, float]:
        """Corpus-level score per system."""
        return {s: self.metric.score_from_stats(st.sum(axis=0)) for s, st in self.items()}

    def segment_scores(self) -> dict[str, np.ndarray]:
        """Per-segment scores: the metric's sentence-level definition on each segment's statistics
        (BLEU: sacrebleu's ``sentence_bleu``, effective order; signed :attr:`sentence_signature`).
        The corpus formula on one segment would differ: BLEU gives a short segment 0 there."""
        return {s: np.asarray(self.metric.sentence_scores_from_stats(st), dtype=float) for s, st in self.items()}


def score_systems(evs: EvalSet, metric: Metric, systems: Iterable[str] | None = None,
                  ref_names: Sequence[str] | None = None, *, cache: bool | str | os.PathLike = True
                  ) -> SystemStats:
    """Segment statistics of every (MT) system against the given references.

    The metric is set up for the target language of ``evs.lp`` first
    (:meth:`~mtlib.metrics.Metric.for_target`: BLEU into Chinese tokenises with ``zh``, as WMT),
    and the result carries that metric and its signature.

    Args:
        evs: the evaluation set.
        metric: a metric instance (one set up for another target language raises ValueError).
        systems: systems to score (default: ``evs.mt_systems``).
        ref_names: references (default: ``[evs.std_ref]``).
        cache: True for the default cache folder, a folder, or False.

    Returns:
        A :class:`SystemStats`.
    """
    systems = list(evs.mt_systems if systems is None else systems)
    ref_names = [evs.std_ref] if ref_names is None else list(ref_names)
    unknown = [s for s in systems if s not in evs.outputs]
    if unknown:
        raise ValueError(f"{evs.name}: unknown systems {unknown}; known: {sorted(evs.outputs)}")
    unknown = [r for r in ref_names if r not in evs.refs]
    if unknown:
        raise ValueError(f"{evs.name}: unknown references {unknown}; known: {sorted(evs.refs)}")
    refs = [evs.refs[r] for r in ref_names]
    metric = metric.for_target(target_of(evs.lp))
    return SystemStats(metric, ref_names, {s: cached_segment_stats(metric, evs.outputs[s], refs, cache=cache)
                                           for s in systems})


def cached_segment_stats(metric: Metric, hyps: Sequence[str], refs: Sequence[Sequence[str]], *,
                         cache: bool | str | os.PathLike = True) -> np.ndarray:
    """``metric.segment_stats(hyps, refs)``, read from or written to the statistics cache
    (keyed by the metric's signature and every line of text)."""
    if not cache:
        return metric.segment_stats(hyps, refs)
    folder = (paths.cache_dir() if cache is True else Path(cache)) / "stats" / metric.name
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:  # a file of that name, permission denied
        raise paths.CacheFolderError(f"statistics cache folder {folder} cannot be created ({err.strerror or err}): "
                                     "make it a writable folder, or use another cache folder (MTLIB_CACHE, cache=)"
                                     ) from None
    key = stats_key(metric, hyps, refs)
    path = folder / f"{key}.npz"
    if path.exists():
        cached = read_entry(path, key, len(hyps))
        if cached is not None:
            return cached
    stats = metric.segment_stats(hyps, refs)
    write_entry(path, key, stats)
    return stats


def _checksum(stats: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(stats).tobytes()).hexdigest()


def _refuse_folder(path: Path) -> None:
    # mtlib writes only files here: a folder in an entry's place is someone else's, so it is
    # neither used nor deleted (a warning and a recomputation on every run would hide it).
    if path.is_dir():
        raise paths.CacheFolderError(f"statistics cache entry {path} is a folder, not a file; mtlib never makes one "
                                     "there and does not delete it: remove or move it (the entry is then "
                                     "recomputed), or score without the cache (cache=False)")


def write_entry(path: Path, key: str, stats: np.ndarray) -> None:
    """Writes a cache entry (statistics, their key and checksum) atomically.

    The temporary file has a unique name, so processes sharing a cache never collide, and
    an interrupted write leaves no entry behind. A folder at ``path`` raises
    :class:`~mtlib.paths.CacheFolderError` (it is not replaced).
    """
    _refuse_folder(path)
    stats = np.ascontiguousarray(stats, dtype=np.float64)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.stem + ".", suffix=".tmp")
    except OSError as err:  # a read-only folder given as cache=
        raise paths.CacheFolderError(f"statistics cache entry {path} cannot be written ({err.strerror or err}): "
                                     f"make {path.parent} writable, or use another cache folder (MTLIB_CACHE, "
                                     "cache=)") from None
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, stats=stats, key=np.array(key), sha256=np.array(_checksum(stats)))
        os.replace(tmp, path)
    except BaseException as err:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(err, OSError):  # a full disk, a quota
            raise paths.CacheFolderError(f"statistics cache entry {path} cannot be written ({err.strerror or err}); "
                                         "nothing was kept. Free space on its disk, or use another cache folder "
                                         "(MTLIB_CACHE, cache=)") from None
        raise


def read_entry(path: Path, key: str, n_segments: int) -> np.ndarray | None:
    """The statistics of a cache entry, or None, with a warning naming the file, when it is
    unreadable, truncated, written for another key, of the wrong shape or fails its checksum
    (the caller then recomputes and replaces it). A folder at ``path`` raises
    :class:`~mtlib.paths.CacheFolderError`: it cannot be replaced without deleting it."""
    _refuse_folder(path)
    try:
        with np.load(path, allow_pickle=False) as z:
            stats, stored_key, checksum = z["stats"], str(z["key"]), str(z["sha256"])
    except Exception as err:  # truncated zip, garbage bytes, missing arrays: all mean "corrupt"
        problem = f"unreadable ({type(err).__name__}: {err})"
    else:
        if stored_key != key:
            problem = f"written for another input (key {stored_key[:12]}…)"
        elif stats.dtype != np.float64 or stats.ndim != 2 or stats.shape[0] != n_segments:
            problem = f"of shape {stats.shape} and type {stats.dtype}, expected ({n_segments}, k) float64"
        elif _checksum(stats) != checksum:
            problem = "failing its checksum"
        else:
            return stats
    warnings.warn(f"statistics cache entry {path} is {problem}; recomputing and replacing it", stacklevel=3)
    return None


def common_segment_count(stats: Mapping[str, SystemStats]) -> int:
    """The number of segments that every system of every metric's statistics covers (metric ->
    :class:`SystemStats`); a ValueError names the counts when they differ (a paired analysis
    on other segments would compare different things)."""
    counts = {len(st) for ss in stats.values() for st in ss.values()}
    if len(counts) != 1:
        raise ValueError(f"all statistics must cover the same segments; segment counts {sorted(counts)}")
    return counts.pop()
