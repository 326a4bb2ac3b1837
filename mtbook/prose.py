"""How the book writes lists and small numbers in the sentences its studies glue into pages."""

from __future__ import annotations

from typing import Iterable

import numpy as np

__all__ = ["and_list", "two_digits", "capitalised"]


def and_list(items: Iterable[str]) -> str:
    """"a", "a and b", "a, b and c" ("" for none)."""
    items = list(items)
    return " and ".join(items) if len(items) < 3 else f"{', '.join(items[:-1])} and {items[-1]}"


def two_digits(x: float) -> str:
    """``x`` with two significant digits and no exponent (0.00014, 0.020, 12): a small bound is
    not rounded down to a smaller one, as a fixed number of decimals would."""
    if x == 0 or not np.isfinite(x):
        return f"{x:g}"
    decimals = max(0, 1 - int(np.floor(np.log10(abs(x)))))
    return f"{x:.{decimals}f}"


def capitalised(text: str) -> str:
    """``text`` with its first letter upper case, for a glued clause that opens a sentence."""
    return text[:1].upper() + text[1:]
