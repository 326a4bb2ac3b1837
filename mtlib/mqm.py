"""MQM error annotations (google/wmt-mqm-human-evaluation TSVs) aligned with an EvalSet.

The WMT21 TED files list one row per error span (or ``No-error``) with the rater's category
and severity. Counting the rows of one category per (system, segment) gives a human signal
for a specific error type, e.g. ``Accuracy/Addition`` (over-translation) and
``Accuracy/Omission`` (under-translation).
"""

from __future__ import annotations

import csv
import os

import numpy as np

from mtlib import paths
from mtlib.data import EvalSet

__all__ = ["MQM_ERROR_FILES", "load_mqm_rows", "error_counts"]

# (test set, language pair) -> the MQM error TSV of that set (in the extras folder); the sets
# with error annotations are its keys.
MQM_ERROR_FILES = {("wmt21.tedtalks", "en-de"): "mqm_ted_ende.tsv", ("wmt21.tedtalks", "zh-en"): "mqm_ted_zhen.tsv"}
_NAME_MAP = {"ref": "refA"}  # the TSV's name for the first reference; refB keeps its name


def load_mqm_rows(test_set: str, lp: str, root: str | os.PathLike | None = None) -> list[dict[str, str]]:
    """All rows of the MQM TSV of an evaluation set, as dicts (no quoting: fields hold quotes)."""
    if (test_set, lp) not in MQM_ERROR_FILES:
        raise ValueError(f"no MQM error file for {test_set} {lp}; available: {sorted(MQM_ERROR_FILES)}")
    path = paths.extras_root(root) / test_set / MQM_ERROR_FILES[(test_set, lp)]
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def _segment_lines(test_set: str, lp: str, root) -> dict[str, int]:
    path = paths.extras_root(root) / test_set / f"{lp}.segment_map.tsv"
    with open(path, encoding="utf-8", newline="") as f:
        return {row["google_seg_id"]: int(row["line"]) - 1 for row in csv.DictReader(f, delimiter="\t")}


def error_counts(evs: EvalSet, category: str, *, root: str | os.PathLike | None = None
                 ) -> dict[str, np.ndarray]:
    """Per system, the number of ``category`` errors in each segment of ``evs`` (its lines).

    Systems are named as in the EvalSet (the TSV's ``ref`` is ``refA``); a TSV system or
    segment unknown to the EvalSet raises ``ValueError``.
    """
    rows = load_mqm_rows(evs.test_set, evs.lp, root)
    if not any(r["category"] == category for r in rows):
        cats = sorted({r["category"] for r in rows})
        raise ValueError(f"no {category!r} errors in {evs.name}; categories: {cats}")
    line_of = _segment_lines(evs.test_set, evs.lp, root)
    position = {line: i for i, line in enumerate(evs.segment_ids)}
    counts: dict[str, np.ndarray] = {}
    for r in rows:
        name = _NAME_MAP.get(r["system"], r["system"])
        if name not in evs.outputs:
            raise ValueError(f"MQM system {r['system']!r} is not in {evs.name}'s outputs")
        if r["seg_id"] not in line_of:
            raise ValueError(f"MQM segment id {r['seg_id']} of {evs.name} is not in the segment map")
        counts.setdefault(name, np.zeros(evs.n_segments))
        i = position.get(line_of[r["seg_id"]])
        if i is not None and r["category"] == category:
            counts[name][i] += 1
    return counts
