"""Checks for notebook parameters, so a broken papermill override fails with a clear message."""

from __future__ import annotations

from typing import Any

__all__ = ["str_list", "evalset_keys", "positive_int", "fraction"]


def str_list(name: str, value: Any, *, allow_empty: bool = False) -> list[str]:
    """A non-empty list of strings (empty too with ``allow_empty``; a bare string is refused:
    it would iterate by character)."""
    if isinstance(value, str) or not isinstance(value, (list, tuple)) or not (value or allow_empty) \
            or not all(isinstance(v, str) for v in value):
        raise ValueError(f"parameter {name}: expected a {'' if allow_empty else 'non-empty '}list of strings such as "
                         f"['en-de'], got {value!r}")
    return list(value)


def evalset_keys(name: str, value: Any, *, allow_empty: bool = False) -> list[str]:
    """A non-empty list (empty too with ``allow_empty``) of evaluation-set keys ``"TESTSET LP"``
    (e.g. ``"wmt19 en-de"``)."""
    keys = str_list(name, value, allow_empty=allow_empty)
    bad = [k for k in keys if len(k.split()) != 2]
    if bad:
        raise ValueError(f"parameter {name}: expected 'TESTSET LP' strings such as 'wmt19 en-de', got {bad}")
    return keys


def positive_int(name: str, value: Any, *, allow_none: bool = False) -> int | None:
    """An integer >= 1 (or None when allowed)."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"parameter {name}: expected an integer >= 1{' or None' if allow_none else ''}, "
                         f"got {value!r}")
    return value


def fraction(name: str, value: Any) -> float:
    """A number in (0, 1]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise ValueError(f"parameter {name}: expected a number in (0, 1], got {value!r}")
    return float(value)
