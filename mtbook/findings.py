"""Findings: what a chapter's words quote, handed over as plain data.

A chapter's code cells :func:`publish` their numbers and verdicts (dataclasses, enums, mappings,
numbers); the runner :func:`collect` s them from the executed copy, and :mod:`mtbook.words`
renders the chapter's Markdown over them. This module decides what data reaches the page, so it
counts with the code that computes the numbers (a change here stales the numbers, not the words).
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
from typing import Any, Iterable, Mapping

__all__ = ["MIME_TYPE", "publish", "as_data", "collect"]

MIME_TYPE = "application/vnd.mtbook.findings+json"


def as_data(value: Any) -> Any:
    """``value`` as JSON-ready data: dataclasses and mappings as dicts (keys as strings), enums
    as their values, tuples, sets and arrays as lists, numpy scalars as Python numbers, NaN and
    infinities as None (the notebook's message channel would send them as the string "nan")."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: as_data(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return as_data(value.value)
    if isinstance(value, Mapping):
        return {str(k): as_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [as_data(v) for v in value]
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):  # numpy arrays and scalars
        return as_data(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return None  # JSON has no NaN: a missing or undefined number is None (templates test "is none")
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    raise TypeError(f"publish: {type(value).__name__} is not plain data (give numbers, strings, lists, "
                    "mappings or dataclasses)")


def publish(**findings: Any) -> None:
    """Hands ``findings`` (name=value) to the chapter's templates: displayed as data the page does
    not show (tag the cell ``remove-cell``), collected by the runner in cell order."""
    from IPython.display import display

    display({MIME_TYPE: as_data(findings)}, raw=True)


def collect(cells: Iterable[Mapping]) -> dict[str, Any]:
    """Every finding published in the executed cells, by name. A name published twice is an
    error (a later cell silently overwriting an earlier number is how pages go wrong)."""
    found: dict[str, Any] = {}
    for index, cell in enumerate(cells):
        for out in cell.get("outputs", []):
            data = out.get("data", {}).get(MIME_TYPE)
            if data is None:
                continue
            if isinstance(data, str):
                data = json.loads(data)
            twice = sorted(set(found) & set(data))
            if twice:
                raise ValueError(f"finding(s) {twice} published twice (again in cell {index})")
            found.update(data)
    return found


