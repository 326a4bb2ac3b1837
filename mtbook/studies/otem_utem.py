"""The Otem/Utem chapter's analyses as tables and findings (data the chapter's words quote):
parameter checks, the human translation among MT systems (the paper's Figure 2), agreement with
MQM addition and omission counts (Figures 3–4), and the metrics against BLEU on the human system
scores (Table 1).

Correlations are *oriented*: ``signs`` turns each metric's score into "higher is better" (``-1``
for Otem and Utem, where lower is better), so that a larger correlation always means closer to
the humans. Every claim that one metric agrees with the humans better or worse than another is
one comparison of the page's family (:func:`mtbook.comparisons.family`): the two-sided paired
permutation test PERM-BOTH (:func:`mtlib.significance.compare`, systems resampled), Holm-adjusted
over every test the page runs, its verdict taken on the adjusted p. An MQM analysis with fewer
than :data:`MIN_ERRORS_PER_SYSTEM` marked errors per system on average is not tested
(:func:`too_few`): it is shown, but counts neither way.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from mtlib.data import load_evalset
from mtlib.mqm import MQM_ERROR_FILES
from mtbook.comparisons import Compared
from mtbook.evidence import MIN_ERRORS_PER_SYSTEM, TOO_FEW, error_rule, too_few
from mtlib.significance import Comparison, Verdict, compare
from mtbook.testsets import source

__all__ = ["data_line", "check_parameters", "ORIGINALS", "setting_label", "is_original", "human_standing",
           "standing_by_setting", "Place", "place", "fig2_findings", "mp_directions", "has_original", "MQM_PAIRS",
           "agreements", "error_totals", "MIN_ERRORS_PER_SYSTEM", "TOO_FEW", "too_few", "error_rule", "mqm_tests", "error_ranges", "tests_frame", "mqm_findings", "mqm_summary",
           "TABLE_STATS", "versus_tests", "versus_findings", "family_floor", "correlations", "rank_moves",
           "biggest_move", "variant_findings", "median_ratio", "without_lowest", "label_boxes", "annotate_points"]

MQM_PAIRS = (("Addition", "OTEM-2"), ("Omission", "UTEM-4"))  # the error kind each metric should track


# -- parameters ---------------------------------------------------------------------------------

def check_parameters(human_translations: Sequence[tuple[str, ...]], mqm_sets: Sequence[tuple[str, str]],
                     table_set: tuple[str, str], table_refs: Sequence[str], *, root: Any = None) -> None:
    """Raise ValueError, naming the parameter, for a human translation that is not "TESTSET LP
    REFERENCE" or not a reference of its set, a Table 1 reference its set lacks, or an MQM set
    without error annotations. Nothing is scored before these checks."""
    bad = [" ".join(k) for k in human_translations if len(k) != 3]
    if bad:
        raise ValueError(f"parameter human_translations: expected strings such as 'wmt19 en-de refAR', got {bad}")
    for test_set, lp, ref in human_translations:
        refs = load_evalset(test_set, lp, root=root).refs
        if ref not in refs:
            raise ValueError(f"parameter human_translations: {test_set} {lp} has no reference {ref!r}; its "
                             f"references: {sorted(refs)}")
    table_evs_refs = load_evalset(*table_set, root=root).refs
    missing = [r for r in table_refs if r not in table_evs_refs]
    if missing:
        raise ValueError(f"parameter table_refs: {' '.join(table_set)} has no reference(s) {missing}; its "
                         f"references: {sorted(table_evs_refs)}")
    no_errors = [f"{t} {lp}" for t, lp in mqm_sets if (t, lp) not in MQM_ERROR_FILES]
    if no_errors:
        raise ValueError(f"parameter mqm_sets: no MQM error annotations for {no_errors}; available: "
                         f"{[' '.join(k) for k in MQM_ERROR_FILES]}")


# -- Figure 2: the human translation among the MT systems ----------------------------------------

ORIGINALS = (("wmt21.tedtalks", "zh-en", "refA"),)  # "human translations" that are the text the source came from


def setting_label(test_set: str, lp: str, human_ref: str, others: Sequence[str]) -> str:
    """"wmt19 en-de: refAR vs ref+refWMTp": a Figure 2 setting, the human translation and the
    references it is scored against."""
    return f"{test_set} {lp}: {human_ref} vs {'+'.join(others)}"


def is_original(setting: str) -> bool:
    """Whether a :func:`setting_label`'s human translation is one of :data:`ORIGINALS`."""
    return any(setting.startswith(f"{t} {lp}: {ref} vs ") for t, lp, ref in ORIGINALS)


def human_standing(mp: pd.DataFrame) -> pd.DataFrame:
    """Where the human translation stands among the MT systems, per setting and metric.

    ``mp`` has one row per (setting, metric, system, n) with columns ``kind`` (``human`` or
    ``MT``) and ``mp`` (the mismatch proportion; larger is worse). Returns one row per
    (setting, metric), in ``mp``'s order: ``lowest`` and ``highest``, the fewest and most MT
    systems with a *larger* proportion than the human translation over n; ``systems``, the MT
    systems; ``standing``: "better than most" if more than half are worse at every n, "worse
    than most" if fewer than half are at every n, else "among"."""
    rows = []
    for (setting, metric), d in mp.groupby(["setting", "metric"], sort=False):
        human = d[d.kind == "human"].set_index("n")["mp"]
        mt = d[d.kind == "MT"].pivot(index="n", columns="system", values="mp")
        worse, n_mt = mt.gt(human, axis=0).sum(axis=1), mt.shape[1]
        standing = ("better than most" if worse.min() > n_mt / 2 else "worse than most" if worse.max() < n_mt / 2
                    else "among")
        rows.append({"setting": setting, "metric": metric, "lowest": int(worse.min()), "highest": int(worse.max()),
                     "systems": n_mt, "standing": standing})
    return pd.DataFrame(rows)


def standing_by_setting(standing: pd.DataFrame) -> list[dict]:
    """:func:`human_standing` per setting: ``{setting, rows: [{metric, lowest, highest, systems}]}``."""
    return [{"setting": setting, "rows": [{"metric": r.metric, "lowest": r.lowest, "highest": r.highest,
                                           "systems": r.systems} for r in d.itertuples()]}
            for setting, d in standing.groupby("setting", sort=False)]


class Place(enum.StrEnum):
    """Where the human translation stands among the MT systems over n."""

    AHEAD = "ahead"  # ahead of most MT systems at every n
    BEHIND = "behind"  # behind most at every n
    CHANGES = "changes"  # ahead at some n, behind at others
    NEITHER = "neither"  # exactly half at some n


def place(lowest: int, highest: int, systems: int) -> Place:
    """:class:`Place` from the fewest and most MT systems behind the human translation over n."""
    half = systems / 2
    if lowest > half:
        return Place.AHEAD
    if highest < half:
        return Place.BEHIND
    if lowest < half < highest:
        return Place.CHANGES
    return Place.NEITHER


def fig2_findings(standing: pd.DataFrame) -> dict:
    """The Figure 2 verdict as data: per metric, the tested settings grouped by :class:`Place`
    (``{metric, groups: [{place, counts: [{lowest, highest, systems, setting}]}]}``); the settings
    whose "human translation" is an original (:func:`is_original`: no test of the metrics, listed
    apart); and the tested settings where both metrics set it ahead of most MT systems at every n
    (as the paper's Figure 2 set it apart from RNNSearch)."""
    original = [is_original(s) for s in standing.setting]
    tested, originals = standing[[not o for o in original]], standing[original]
    metrics = []
    for metric, d in tested.groupby("metric", sort=False):
        groups: dict[str, list[dict]] = {}
        for r in d.itertuples():
            groups.setdefault(place(r.lowest, r.highest, r.systems), []).append(
                {"lowest": r.lowest, "highest": r.highest, "systems": r.systems, "setting": r.setting})
        metrics.append({"metric": metric, "groups": [{"place": k, "counts": v} for k, v in groups.items()]})
    ahead = [s for s, d in tested.groupby("setting", sort=False) if (d.standing == "better than most").all()]
    return {"metrics": metrics, "originals": standing_by_setting(originals), "ahead": ahead}


def mp_directions(mp: pd.DataFrame, metric: str = "Utem") -> list[dict]:
    """Per setting, whether ``metric``'s proportion ``rises`` or ``falls`` from the first to the
    last n, for the MT systems (median over them) and for the human translation:
    ``{setting, mt, human}``."""
    def direction(d):
        med = d.groupby("n")["mp"].median()
        return "rises" if med.iloc[-1] > med.iloc[0] else "falls"

    d = mp[mp.metric == metric]
    return [{"setting": s, "mt": direction(g[g.kind == "MT"]), "human": direction(g[g.kind == "human"])}
            for s, g in d.groupby("setting", sort=False)]


def has_original(human_translations: Sequence[tuple[str, ...]]) -> bool:
    """Whether a human translation scored is an original (TED zh-en ``refA`` is the talk's English
    original, so its distance to the other reference is no test of the metrics)."""
    return any(tuple(x) in ORIGINALS for x in human_translations)


# -- PERM-BOTH, the book's comparisons ----------------------------------------------------------------

def _compare(base: Sequence[float], metric: Sequence[float], human: Sequence[float], method: str,
             n_permutations: int, seed: int | None) -> Comparison:
    """:func:`mtlib.significance.compare` of ``metric`` (B) against ``base`` (A), both oriented,
    two-sided, systems resampled; ``untested`` where the human scores are constant (no correlation
    is defined: every system has the same error rate)."""
    h = np.asarray(human, float)
    if len(h) >= 3 and np.ptp(h[~np.isnan(h)]) == 0:
        return Comparison(math.nan, math.nan, math.nan, math.nan, "two-sided", len(h), len(h), "system", math.nan,
                          math.nan, method, n_permutations, seed,
                          f"the human scores are constant on the {len(h)} systems; no correlation")
    return compare(base, metric, human, method, unit="system", n_permutations=n_permutations, seed=seed)


# -- Figures 3-4: agreement with MQM additions and omissions ----------------------------------------

def _row(ted_corr: pd.DataFrame, lp: str, signal: str, metric: str) -> pd.Series:
    return ted_corr[(ted_corr.lp == lp) & (ted_corr.errors == signal) & (ted_corr.metric == metric)].iloc[0]


def _interval(row: pd.Series) -> dict:
    return {"r": float(row["agreement r"]), "low": float(row["low"]), "high": float(row["high"])}


def agreements(ted_corr: pd.DataFrame, *, pairs=MQM_PAIRS, baseline: str = "BLEU") -> list[dict]:
    """Per set, each metric's agreement r with its interval beside the baseline's, on its error
    kind: ``{lp, pairs: [{errors, metric, own: {r, low, high}, baseline: {...}}]}``.
    ``ted_corr``: rows (lp, errors, metric) with ``agreement r``, ``low``, ``high``."""
    return [{"lp": lp, "pairs": [{"errors": signal, "metric": metric,
                                  "own": _interval(_row(ted_corr, lp, signal, metric)),
                                  "baseline": _interval(_row(ted_corr, lp, signal, baseline))}
                                 for signal, metric in pairs]}
            for lp in dict.fromkeys(ted_corr.lp)]


def error_totals(ted_corr: pd.DataFrame, *, baseline: str = "BLEU") -> list[dict]:
    """Per set, the errors of each kind counted: ``{lp, counts: [{errors, n}]}``."""
    return [{"lp": lp, "counts": [{"errors": e, "n": int(_row(ted_corr, lp, e, baseline)["errors counted"])}
                                  for e in dict.fromkeys(ted_corr[ted_corr.lp == lp].errors)]}
            for lp in dict.fromkeys(ted_corr.lp)]


def mqm_tests(ted: Mapping[str, Mapping[str, Any]], signs: Mapping[str, int], *, pairs=MQM_PAIRS,
              baseline: str = "BLEU", n_permutations: int = 1000, seed: int | None = None,
              per_system: float = MIN_ERRORS_PER_SYSTEM) -> list[tuple]:
    """Each metric against the baseline on its error kind, per set: PERM-BOTH on Pearson's r,
    two-sided, systems resampled (:func:`mtlib.significance.compare`).

    ``ted``: set name -> ``systems``, ``stats`` (metric name -> object with ``system_scores()``)
    and ``counts`` (error kind -> system -> errors per segment). The human score of a system is
    minus its errors per segment (fewer errors is better), so agreement r is positive when a
    metric calls the systems with more such errors worse. Returns the page family's entries
    (:func:`mtbook.comparisons.family`), one per (set, error kind): ``({"analysis": "MQM
    additions", "data": set}, baseline, metric, "agreement r", comparison)``; untested (reason
    :data:`TOO_FEW`, both correlations still given) where the experts marked fewer than
    ``per_system`` errors of that kind per system on average (:func:`too_few`), or where no
    correlation is defined (every system has the same error rate)."""
    entries = []
    for lp, t in ted.items():
        systems = list(t["systems"])
        for signal, metric in pairs:
            human = [-np.asarray(t["counts"][signal][s], float).mean() for s in systems]
            x = {m: [signs[m] * t["stats"][m].system_scores()[s] for s in systems] for m in (metric, baseline)}
            total = sum(float(np.sum(t["counts"][signal][s])) for s in systems)
            c = _compare(x[baseline], x[metric], human, "pearson", n_permutations, seed)
            if too_few(total, len(systems), per_system):  # shown with its correlations, not tested
                c = dataclasses.replace(c, p=math.nan, mc_floor=math.nan, reason=TOO_FEW)
            entries.append(({"analysis": f"MQM {signal.lower()}s", "data": lp}, baseline, metric, "agreement r", c))
    return entries


def error_ranges(ted: Mapping[str, Mapping[str, Any]], *, pairs=MQM_PAIRS) -> list[dict]:
    """The fewest and most errors of one system and the errors in all, per set and error kind of
    :func:`mqm_tests`, in its order: ``{lp, errors, fewest, most, total}``."""
    out = []
    for lp, t in ted.items():
        for signal, _ in pairs:
            totals = [float(np.sum(t["counts"][signal][s])) for s in t["systems"]]
            out.append({"lp": lp, "errors": signal, "fewest": int(min(totals)), "most": int(max(totals)),
                        "total": int(sum(totals))})
    return out


def tests_frame(entries: Sequence[tuple]) -> pd.DataFrame:
    """A part of the page's tests as a table before the family is adjusted: the setting, A, B,
    both correlations, B − A and the raw two-sided p (Holm p and verdict: the page's family)."""
    return pd.DataFrame([{**setting, "A": a, "B": b, "stat": stat, "corr A": c.corr_a, "corr B": c.corr_b,
                          "B − A": c.delta, "p": c.p} for setting, a, b, stat, c in entries])


def _sign_of(row: pd.Series) -> str:
    """Where a bootstrap interval lies: ``above`` or ``below`` zero, or ``zero`` (contains it)."""
    return "above" if row["low"] > 0 else "below" if row["high"] < 0 else "zero"


def _total(ted_corr: pd.DataFrame, lp: str, signal: str, baseline: str) -> int:
    return int(_row(ted_corr, lp, signal, baseline)["errors counted"])


def mqm_findings(ted_corr: pd.DataFrame, rows: Sequence[Compared], ranges: Sequence[Mapping], *,
                 baseline: str = "BLEU", per_system: float = MIN_ERRORS_PER_SYSTEM) -> list[dict]:
    """One finding per MQM comparison (``rows``: the page family's rows of :func:`mqm_tests`, in
    its order; ``ranges``: :func:`error_ranges`): its set, error kind, fewest and most errors of
    one system, the errors in all (``total``, from ``ted_corr``'s ``errors counted``) over the
    comparison's ``systems``, where the metric's and the baseline's bootstrap intervals
    (``ted_corr``) lie against zero (``own``, ``base``: ``above``/``below``/``zero``), the
    comparison ``c`` (raw and Holm p, verdict) and ``too_few`` (:func:`too_few`: not tested)."""
    out = []
    for c, r in zip(rows, ranges, strict=True):
        lp, signal, metric = r["lp"], r["errors"], c.b
        total = _total(ted_corr, lp, signal, baseline)
        out.append({"lp": lp, "errors": signal, "metric": metric, "fewest": r["fewest"], "most": r["most"],
                    "total": total, "systems": c.n_units, "own": _sign_of(_row(ted_corr, lp, signal, metric)),
                    "base": _sign_of(_row(ted_corr, lp, signal, baseline)), "c": c,
                    "too_few": too_few(total, c.n_units, per_system)})
    return out


def mqm_summary(ted_corr: pd.DataFrame, rows: Sequence[Compared], ranges: Sequence[Mapping], *,
                baseline: str = "BLEU", per_system: float = MIN_ERRORS_PER_SYSTEM) -> dict:
    """The conclusion's line on Figures 3–4 as counts: the analyses (``n``), those tested, those
    where Otem or Utem correlates ``better`` or ``worse`` than the baseline on the Holm-adjusted
    p, those whose agreement interval lies above zero (``above``; ``above_both``: the baseline's
    too); the analyses with too few marked errors to test (``too_few``: ``{metric, lp, errors,
    total, systems}``; ``too_few_sets``: the same per set, ``{lp, errors: [...]}``), which count
    neither way; ``untested_other``, those untested for another reason (no correlation); and
    ``rule``, :func:`error_rule`."""
    pairs = list(zip(rows, ranges, strict=True))
    above = [_row(ted_corr, r["lp"], r["errors"], c.b)["low"] > 0 for c, r in pairs]
    above_both = [a and _row(ted_corr, r["lp"], r["errors"], baseline)["low"] > 0 for a, (_, r) in zip(above, pairs)]
    totals = [_total(ted_corr, r["lp"], r["errors"], baseline) for _, r in pairs]
    thin = [too_few(t, c.n_units, per_system) for t, (c, _) in zip(totals, pairs)]
    counted = [c for (c, _), x in zip(pairs, thin) if not x]  # what counts toward better or worse
    few = [{"metric": c.b, "lp": r["lp"], "errors": r["errors"], "total": t, "systems": c.n_units}
           for (c, r), t, x in zip(pairs, totals, thin) if x]
    by_set: dict[str, list[str]] = {}
    for x in few:
        by_set.setdefault(x["lp"], []).append(x["errors"])
    tested = sum(c.verdict is not Verdict.UNTESTED for c in counted)
    return {"n": len(rows), "tested": tested,
            "better": sum(c.verdict is Verdict.B_BETTER for c in counted),
            "worse": sum(c.verdict is Verdict.A_BETTER for c in counted),
            "above": sum(above), "above_both": sum(above_both), "too_few": few,
            "too_few_sets": [{"lp": lp, "errors": e} for lp, e in by_set.items()],
            "untested_other": len(counted) - tested, "rule": error_rule(per_system)}


# -- Table 1: the metrics against BLEU on the human system scores ---------------------------------

TABLE_STATS = (("oriented r", "pearson"), ("oriented τ", "kendall"))


def versus_tests(table: pd.DataFrame, metrics: Sequence[str], signs: Mapping[str, int], *, data: str = "",
                 baseline: str = "BLEU", human: str = "human", n_permutations: int = 1000,
                 seed: int | None = None) -> list[tuple]:
    """Each of ``metrics`` against ``baseline`` on the human system score, on Pearson's r and
    Kendall's τ (tau-b), both oriented (``signs``): two-sided PERM-BOTH, systems resampled. Returns
    the page family's entries: ``({"analysis": "Table 1 human score", "data": data}, baseline,
    metric, "oriented r" or "oriented τ", comparison)``."""
    return [({"analysis": "Table 1 human score", "data": data}, baseline, m, stat,
             _compare(signs[baseline] * table[baseline], signs[m] * table[m], table[human], method, n_permutations,
                      seed))
            for m in metrics for stat, method in TABLE_STATS]


def versus_findings(rows: Sequence[Compared]) -> list[dict]:
    """The Table 1 comparisons (the page family's rows of :func:`versus_tests`) per metric:
    ``{metric, same, stats: [row, ...]}`` (``same``: every statistic has the same verdict)."""
    out: dict[str, list[Compared]] = {}
    for c in rows:
        out.setdefault(c.b, []).append(c)
    return [{"metric": m, "same": len({c.verdict for c in cs}) == 1, "stats": cs} for m, cs in out.items()]


def family_floor(rows: Sequence[Compared]) -> dict | None:
    """The tested comparison over the fewest units, for the sentence on what the page's p-values
    can reach: ``{n_units, unit, exact_floor}`` (``exact_floor``: 2^-(n-1), below which no
    two-sided p can fall over n units); None when nothing was tested."""
    tested = [c for c in rows if c.verdict is not Verdict.UNTESTED]
    if not tested:
        return None
    c = min(tested, key=lambda c: c.n_units)
    return {"n_units": c.n_units, "unit": c.unit, "exact_floor": c.exact_floor}


def correlations(table: pd.DataFrame, metrics: Sequence[str], *, human: str = "human",
                 method: str = "pearson") -> list[dict]:
    """Each metric's (signed, not oriented) correlation with ``human``: ``{metric, value}``."""
    return [{"metric": m, "value": float(table[m].corr(table[human], method=method))} for m in metrics]


def rank_moves(table: pd.DataFrame, metric: str, signs: Mapping[str, int], *, baseline: str = "BLEU") -> pd.Series:
    """Places each system moves between the ``baseline`` and the ``metric`` ranking (rank 1 the
    best by each metric's orientation; ties share the average rank)."""
    def rank(m):
        return (signs[m] * table[m]).rank(ascending=False)

    return (rank(baseline) - rank(metric)).abs()


def biggest_move(moves: pd.Series) -> dict:
    """The first system with the largest move, and how many places: ``{system, places}``."""
    mover = moves.idxmax()
    return {"system": mover, "places": int(moves[mover])}


def variant_findings(table: pd.DataFrame, n_refs: int) -> dict:
    """How the authors' script differs from the paper's equations on this run's Table 1 (columns
    ``OTEM-2``, ``OTEM-2 (authors)``, ``UTEM-4``, ``UTEM-4 (authors)``): with one reference they
    cannot differ (no ratios); with several, the median ratios and the largest OTEM-2 gap."""
    if n_refs < 2:
        return {"n_refs": n_refs}
    return {"n_refs": n_refs, "otem_ratio": median_ratio(table, "OTEM-2 (authors)", "OTEM-2"),
            "utem_ratio": median_ratio(table, "UTEM-4 (authors)", "UTEM-4"),
            "otem_gap": float((table["OTEM-2"] - table["OTEM-2 (authors)"]).abs().max())}


def data_line(human_translations: Sequence[tuple[str, ...]], mqm_sets: Sequence[tuple[str, str]],
              table_set: tuple[str, str], table_refs: Sequence[str], n_segments: int | None) -> str:
    """The "Data:" line: the test sets and pairs this run used, in order of use, each with what
    to cite for it (Freitag et al. 2020 too where its WMT19 references are used), and how many
    segments."""
    used = dict.fromkeys(k[:2] for k in [*human_translations, *mqm_sets, table_set])  # (test set, pair)
    sets = {t: [lp for t2, lp in used if t2 == t] for t, _ in used}
    refs = {r for *_, r in human_translations} | set(table_refs if table_set[0] == "wmt19" else [])
    freitag = bool(refs & {"refAR", "refARp", "refWMTp"})
    segments = ("all segments of each" if n_segments is None
                else f"the first {n_segments:,} segments of each, or all of a shorter one")
    freitag_part = " with the references of Freitag et al. (2020)"
    return "; ".join(source(t, lps) + (freitag_part if t == "wmt19" and freitag else "")
                     for t, lps in sets.items()) + f"; {segments}"


def median_ratio(table: pd.DataFrame, numerator: str, denominator: str) -> float:
    """The median over systems of ``numerator`` / ``denominator``."""
    return float((table[numerator] / table[denominator]).median())


def without_lowest(table: pd.DataFrame, metrics: Mapping[str, int], *, baseline: str = "BLEU",
                   human: str = "human") -> dict:
    """How much the lowest-scored system weighs on Pearson's r: that system, its human z and
    baseline score, the next lowest z, and each metric's r recomputed without it."""
    low2 = table[human].nsmallest(2)
    rest = table.drop(index=low2.index[0])
    return {"system": low2.index[0], "z": float(low2.iloc[0]), "baseline": float(table.loc[low2.index[0], baseline]),
            "next_z": float(low2.iloc[1]),
            "r": [{"metric": m, "value": float(rest[m].corr(rest[human]))} for m in metrics]}


# -- Figures 3-4: point labels that do not overlap ---------------------------------------------------

def _overlap(a: Sequence[float], b: Sequence[float]) -> float:
    """The area two boxes ``(x0, y0, x1, y1)`` share (0 when they only touch)."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def label_boxes(points: Sequence[Sequence[float]], sizes: Sequence[Sequence[float]], bounds: Sequence[float], *,
                gap: float = 2.0, marker: float = 4.0, max_steps: int = 15) -> list[tuple[float, float, float, float]]:
    """Where to put one label per point so that no two labels overlap, none covers a point and
    all stay within ``bounds``: a box ``(x0, y0, x1, y1)`` per point, in its order.

    ``points``: ``(x, y)`` in pixels (y up); ``sizes``: each label's ``(width, height)``;
    ``bounds``: ``(x0, y0, x1, y1)`` of the axes; ``marker``: a point's half-width. Greedy, top
    point first: each label takes the first free place among right of its point, then left of it,
    each at vertical shifts of 0, +1, −1, +2, −2, … label heights (up to ``max_steps``); where
    none is free, the place that overlaps least."""
    pts = [(float(x), float(y)) for x, y in points]
    markers = [(x - marker, y - marker, x + marker, y + marker) for x, y in pts]
    placed: list[tuple[float, float, float, float]] = []
    out: dict[int, tuple[float, float, float, float]] = {}
    for i in sorted(range(len(pts)), key=lambda i: (-pts[i][1], pts[i][0])):
        (x, y), (w, h) = pts[i], sizes[i]
        best, best_cost = None, math.inf
        for k in range(max_steps + 1):
            for dy in ([0.0] if k == 0 else [k * (h + gap), -k * (h + gap)]):
                for side in (1, -1):
                    x0 = x + marker + gap if side > 0 else x - marker - gap - w
                    box = (x0, y + dy - h / 2, x0 + w, y + dy + h / 2)
                    inside = (box[0] >= bounds[0] and box[1] >= bounds[1] and box[2] <= bounds[2]
                              and box[3] <= bounds[3])
                    pad = (box[0] - gap / 2, box[1] - gap / 2, box[2] + gap / 2, box[3] + gap / 2)
                    cost = (sum(_overlap(pad, b) for b in placed) + sum(_overlap(box, m) for m in markers)
                            + (0.0 if inside else w * h))
                    if cost < best_cost:
                        best, best_cost = box, cost
                    if cost == 0:
                        break
                if best_cost == 0:
                    break
            if best_cost == 0:
                break
        placed.append(best)
        out[i] = best
    return [out[i] for i in range(len(pts))]


def annotate_points(ax, xs: Sequence[float], ys: Sequence[float], labels: Sequence[str], *, fontsize: float = 9,
                    color: str = "0.3") -> None:
    """Label the points ``(xs, ys)`` of ``ax`` with ``labels`` where :func:`label_boxes` puts
    them, a thin line to the point from a label moved off its point's height. Call it once the
    figure's layout is final (after ``tight_layout``): the places are computed in pixels."""
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    points = ax.transData.transform(np.c_[np.asarray(xs, float), np.asarray(ys, float)])
    sizes = []
    for s in labels:
        t = ax.text(0, 0, s, fontsize=fontsize)
        bb = t.get_window_extent(renderer)
        sizes.append((bb.width, bb.height))
        t.remove()
    frame = ax.get_window_extent(renderer)
    boxes = label_boxes(points, sizes, (frame.x0, frame.y0, frame.x1, frame.y1))
    to_points = 72 / fig.dpi
    for (px, py), box, s, x, y, (_, h) in zip(points, boxes, labels, xs, ys, sizes):
        moved = abs((box[1] + box[3]) / 2 - py) > h / 2
        ax.annotate(s, (x, y), xytext=((box[0] - px) * to_points, (box[1] - py) * to_points),
                    textcoords="offset points", ha="left", va="bottom", fontsize=fontsize, color=color,
                    arrowprops=dict(arrowstyle="-", color="0.6", lw=0.6, shrinkA=0, shrinkB=3) if moved else None)
