"""One way for every chapter to say "metric B beats metric A": a family of
:func:`mtlib.significance.compare` results, Holm-adjusted together, as data for the words.

A chapter runs its comparisons with :func:`mtlib.significance.compare` (two-sided PERM-BOTH,
the resampling unit named), gathers them here with what each one compares, and publishes
:func:`family`'s rows; ``notebooks/book.macros.j2`` words them the same way on every page
(``m.compared``, ``m.tests_note``). A result is called significant only on its Holm-adjusted p,
over every test the page ran, and the raw p stands beside it.
"""

from __future__ import annotations

from dataclasses import dataclass
import math
from typing import Iterable, Mapping, Sequence

import pandas as pd

from mtlib.significance import ALPHA, Comparison, Verdict, holm

__all__ = ["Compared", "family", "family_counts", "family_frame", "Floor", "family_floors"]


@dataclass(frozen=True)
class Compared:
    """One comparison of a family: ``b`` against ``a`` in ``setting`` (what a reader needs to
    tell the comparisons apart: evaluation set, systems, statistic ...), its raw and
    Holm-adjusted p and its verdict on the adjusted p (:class:`mtlib.significance.Verdict`)."""

    setting: dict
    a: str
    b: str
    stat: str
    corr_a: float
    corr_b: float
    delta: float
    p: float
    p_holm: float
    verdict: Verdict
    alternative: str
    n: int
    n_units: int
    unit: str
    exact_floor: float
    mc_floor: float
    n_permutations: int
    reason: str


def family(tests: Iterable[tuple[Mapping[str, str], str, str, str, Comparison]], *,
           alpha: float = ALPHA) -> list[Compared]:
    """Every ``(setting, a, b, stat, comparison)`` of a page as :class:`Compared`, the p-values
    Holm-adjusted over the whole family (untested ones left out of the count), each verdict
    taken on the adjusted p at ``alpha``.

    A p of 0 (no permutation reached the observed difference) enters the adjustment as
    ``1 / n_permutations``, the resolution of the draws: the true p may be that large, and a
    0 would stay 0 under any number of tests. So a family of m tests needs more than
    ``m / alpha`` permutations before anything in it can be called significant."""
    tests = list(tests)
    adjusted = holm([max(c.p, 1 / c.n_permutations) if c.p == 0 else c.p for *_, c in tests])
    return [Compared(dict(setting), a, b, stat, c.corr_a, c.corr_b, c.delta, c.p, q, c.verdict(alpha, q),
                     c.alternative, c.n, c.n_units, c.unit, c.exact_floor, c.mc_floor, c.n_permutations, c.reason)
            for (setting, a, b, stat, c), q in zip(tests, adjusted)]


def family_counts(rows: Iterable[Compared]) -> dict[str, int]:
    """How many comparisons the family holds (``tests``: those that could be tested), how many
    got each verdict (keys are :class:`~mtlib.significance.Verdict` values), and how many would
    be called significant on the raw p (``raw_significant``), for the sentence that says what
    the adjustment changed."""
    rows = list(rows)
    out = {v.value: sum(r.verdict is v for r in rows) for v in Verdict}
    out["comparisons"] = len(rows)
    out["tests"] = len(rows) - out[Verdict.UNTESTED.value]
    out["raw_significant"] = sum(r.verdict in (Verdict.NOT_SHOWN, Verdict.A_BETTER, Verdict.B_BETTER)
                                 and r.p < (ALPHA / 2 if r.alternative == "greater" else ALPHA) for r in rows)
    return out


def family_frame(rows: Iterable[Compared]) -> pd.DataFrame:
    """The family as a table for the page: the setting's columns, then A, B, the difference
    (B − A), p, Holm p, the verdict and the units resampled."""
    records = [{**r.setting, "A": r.a, "B": r.b, "stat": r.stat, "B − A": r.delta, "p": r.p, "Holm p": r.p_holm,
                "verdict": r.verdict.value, "units": f"{r.n_units} {r.unit}s" if r.n_units else "–"} for r in rows]
    return pd.DataFrame(records)


@dataclass(frozen=True)
class Floor:
    """The smallest p that a comparison over the ``n`` units of one group of a family (``setting``:
    the family's setting keys it was grouped by, e.g. language pair and subset) can reach:
    ``exact`` = 2^-(n-1) (two-sided: only "swap none" and "swap all" reproduce the observed
    difference) and ``mc``, that of the seeded draws. ``holm``: the least its Holm-adjusted p
    could be in this family (a p below ``alpha`` is multiplied by at least one plus the ``above``
    p-values of the family at or above ``alpha``); ``possible``: whether that is below
    ``alpha``; ``n_tests``: the family's tested comparisons in the group."""

    setting: dict
    n: int
    n_tests: int
    exact: float
    mc: float
    above: int
    holm: float
    possible: bool


def family_floors(rows: Sequence[Compared], by: Sequence[str], *, alpha: float = ALPHA) -> list[Floor]:
    """:class:`Floor` of each group of tested comparisons sharing the setting keys ``by``, in the
    family's order (a group without a tested comparison has no floor to speak of)."""
    above = sum(1 for r in rows if not math.isnan(r.p) and r.p >= alpha)
    groups: dict[tuple, list[Compared]] = {}
    for r in rows:
        if not math.isnan(r.p):
            groups.setdefault(tuple(r.setting[k] for k in by), []).append(r)
    out = []
    for key, mine in groups.items():
        n = max(r.n_units for r in mine)
        exact, mc = 0.5 ** (n - 1), min(r.mc_floor for r in mine)
        holm = min(1.0, min(exact, mc) * (1 + above))
        out.append(Floor(dict(zip(by, key)), n, len(mine), exact, mc, above, holm, holm < alpha))
    return out
