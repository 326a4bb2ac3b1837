"""A short hash of an answer, for checks that tell whether a value is right without showing it.

The course assignments' visible checks (built by the book's ``mtbook.assignments``) compare
``fingerprint(answer)`` with the right answer's; it lives here so that a student who installs
only mtlib can run them.
"""

from __future__ import annotations

import hashlib
import numbers
from typing import Any

import numpy as np

__all__ = ["fingerprint"]


def fingerprint(value: Any, digits: int = 4) -> str:
    """A short hash of ``value``, its numbers rounded to ``digits`` decimals.

    A visible check compares an answer's fingerprint with the right answer's, so that it catches
    any wrong value without showing the right one in the student notebook. Numbers (int or
    float alike), strings, booleans, sequences, arrays, pandas Series (their values in order) and
    dicts (by key) are understood; anything else (``...``, ``None``) matches no answer."""
    return hashlib.sha256(_canonical(value, digits).encode()).hexdigest()[:12]


def _canonical(value: Any, digits: int) -> str:
    if isinstance(value, (str, bool, np.bool_)):
        return repr(value if isinstance(value, str) else bool(value))
    if isinstance(value, numbers.Real):
        return f"{float(value) + 0.0:.{digits}f}"  # + 0.0 turns -0.0 into 0.0
    if isinstance(value, dict):
        items = sorted((str(k), _canonical(v, digits)) for k, v in value.items())
        return "{" + ",".join(f"{k}:{v}" for k, v in items) + "}"
    if isinstance(value, (list, tuple)) or hasattr(value, "__array__"):
        return "[" + ",".join(_canonical(v, digits) for v in np.asarray(value).ravel().tolist()) + "]"
    return repr(value)
