"""Whether a test can say anything: the book's two rules, shared by the chapters that need them.

* :func:`within_mc_error` — a Holm-adjusted permutation p within Monte Carlo error of the level
  (a *borderline* result: another draw of the permutations could put it on the other side);
  :func:`borderline` of one family row, :func:`family_borderline` counts them.
* :func:`too_few` — too few marked errors (e.g. MQM additions) per system to test a correlation
  with them; :func:`error_rule` is the rule as data for the words.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from mtbook.comparisons import Compared
from mtlib.significance import ALPHA, Verdict

__all__ = ["within_mc_error", "borderline", "family_borderline", "MIN_ERRORS_PER_SYSTEM", "TOO_FEW", "too_few",
           "error_rule"]


def within_mc_error(p: float, p_holm: float, n_permutations: int, *, level: float = ALPHA, k: float = 2.0) -> bool:
    """Whether a Holm-adjusted ``p_holm`` lies within ``k`` Monte Carlo standard errors of
    ``level``, so that another draw of the permutations could put it on the other side.

    The raw ``p`` is a share of ``n_permutations`` draws, with the binomial standard error
    sqrt(p(1 − p)/n) (a p of 0, which no draw reached, counted as 1/n, as the family counts it);
    Holm multiplies the raw p by up to the family's size, and its error with it, so the adjusted
    p's standard error is taken as that error times ``p_holm / p``. (A p judged on its own:
    pass it as both.) False for an untested (NaN) p."""
    if n_permutations < 1:
        raise ValueError(f"within_mc_error: n_permutations must be positive, got {n_permutations}")
    if p != p or p_holm != p_holm:
        return False
    raw = max(p, 1 / n_permutations)
    se = np.sqrt(raw * (1 - raw) / n_permutations) * (p_holm / raw)
    return bool(abs(p_holm - level) <= k * se)


def borderline(r: Compared, alpha: float = ALPHA) -> bool:
    """:func:`within_mc_error` of one row of a family, on its Holm p."""
    return within_mc_error(r.p, r.p_holm, r.n_permutations, level=alpha)


def family_borderline(rows: Sequence[Compared], *, alpha: float = ALPHA) -> dict:
    """How many tests of the family are borderline (:func:`within_mc_error` of ``alpha``, on the
    Holm p): ``n``, of them called significant (``significant``) or not (``not_significant``)."""
    hits = [r for r in rows if borderline(r, alpha)]
    sig = sum(r.verdict in (Verdict.A_BETTER, Verdict.B_BETTER) for r in hits)
    return {"n": len(hits), "significant": sig, "not_significant": len(hits) - sig}


# The fewest marked errors per system, on average, for an MQM analysis to be tested. Error counts
# are small counts: a system expected to make 2 such errors on the segments makes anywhere from 0
# to 5 of them in 95% of Poisson draws (:func:`error_rule`), so below 2 per system the differences
# between systems that the correlation reads are mostly chance. (One per system would let WMT21 TED
# en-de's 13 additions over 13 systems through, with at most 2 errors per system.)
MIN_ERRORS_PER_SYSTEM = 2
TOO_FEW = "too few marked errors to test"  # the reason of an analysis left untested by :func:`too_few`


def too_few(total: float, systems: int, per_system: float = MIN_ERRORS_PER_SYSTEM) -> bool:
    """Whether ``total`` marked errors over ``systems`` systems are fewer than ``per_system`` per
    system on average: too few to test a correlation with them."""
    return total < per_system * systems


def error_rule(per_system: float = MIN_ERRORS_PER_SYSTEM, level: float = 0.95) -> dict:
    """The rule of :func:`too_few` as data for the page's words: ``per_system``, and the central
    ``level`` range of a Poisson count with that mean (``low``, ``high``): how far a system
    expected to make ``per_system`` errors can land by chance."""
    from scipy.stats import poisson
    low, high = poisson.interval(level, per_system)
    return {"per_system": per_system, "level": level, "low": int(low), "high": int(high)}
