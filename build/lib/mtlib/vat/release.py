"""The variance-aware test sets the authors released (NLP2CT/Variance-Aware-MT-Test-Sets).

``vat-release/VAT_meta/wmtYY/bert-r_filter-std60.json`` under the data root holds, per
language pair, the 0-based line ids kept (BERTScore-R deviation, λ = 60). Loaded as a
subset of an evaluation set, any chapter can evaluate on "released VAT".
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from mtlib import paths
from mtlib.data import EvalSet

__all__ = ["RELEASE_FILE", "NotReleased", "release_folder", "read_ids_json", "released_ids", "released_subset"]

RELEASE_FILE = "bert-r_filter-std60.json"


class NotReleased(ValueError):
    """The release has no such test set or language pair (the release itself was found and read)."""


def release_folder(root: str | os.PathLike | None = None) -> Path:
    """``vat-release/`` under the data root."""
    path = paths.data_root(root) / "vat-release"
    if not path.is_dir():
        raise FileNotFoundError(f"{path} does not exist: the data root has no vat-release/ folder")
    return path


def read_ids_json(path: str | os.PathLike) -> dict[str, list[int]]:
    """``{lp: [ids]}`` from a file in the released format, checked: ids are ascending,
    unique, non-negative integers."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file of kept ids")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not valid JSON ({err})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected an object {{lp: [ids]}}, got {type(data).__name__}")
    out = {}
    for lp, ids in data.items():
        if not re.fullmatch(r"[a-z]{2,3}-[a-z]{2,3}", str(lp)):
            raise ValueError(f"{path}: {lp!r} is not a language pair like 'en-de'")
        if not isinstance(ids, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
            raise ValueError(f"{path}: {lp}: ids must be a list of integers")
        if ids != sorted(set(ids)) or (ids and ids[0] < 0):
            raise ValueError(f"{path}: {lp}: ids must be ascending, unique and >= 0")
        out[lp] = ids
    return out


def released_ids(test_set: str, lp: str, root: str | os.PathLike | None = None) -> list[int]:
    """The released kept ids of one evaluation set (``test_set`` as ``wmt19``).

    Raises:
        NotReleased: the release has no such test set or pair.
        FileNotFoundError: the data root has no release (a wrong root is not "not released").
        ValueError: a damaged file of ids.
    """
    path = release_folder(root) / "VAT_meta" / test_set / RELEASE_FILE
    if not path.parent.is_dir():
        years = sorted(p.name for p in (release_folder(root) / "VAT_meta").iterdir())
        raise NotReleased(f"no released VAT for test set {test_set!r}; released: {years}")
    ids = read_ids_json(path)
    if lp not in ids:
        raise NotReleased(f"{path}: no language pair {lp!r}; it has {sorted(ids)}")
    return ids[lp]


def released_subset(evs: EvalSet, root: str | os.PathLike | None = None) -> EvalSet:
    """``evs`` restricted to the released VAT ids (``evs`` must be the whole set)."""
    ids = released_ids(evs.test_set, evs.lp, root)
    if list(evs.segment_ids) != list(range(evs.n_segments)):
        raise ValueError(f"{evs.name}: released ids are line numbers of the whole set; pass the whole set, "
                         "not a subset")
    if ids and ids[-1] >= evs.n_segments:
        raise ValueError(f"{evs.name}: released id {ids[-1]} is beyond the set's {evs.n_segments} segments")
    return evs.select(ids)
