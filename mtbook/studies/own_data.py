"""The own-data chapter's tables and sentences, as tested functions.

The chapter (``notebooks/own_data.ipynb``) runs the book's analyses on a plain folder
(:func:`mtlib.load_folder`); these functions build what it shows and the sentences that quote
its numbers:

* the data: :func:`folder_label`, :func:`page_source`, :func:`data_sentence`,
  :func:`overview_table`, the top systems (:func:`top_subset`) and how close they are
  (:func:`top_closeness`);
* claims that one metric correlates better than another, each with PERM-BOTH's one-sided
  p-value (:mod:`mtlib.significance`): :func:`leader_tests` (system level),
  :func:`segment_leader_test` (segment level, pooled), :func:`da_comparison` (DA-BERTScore
  against BERTScore); :func:`mtlib.significance.min_pvalue` is the floor no test over ``n``
  systems can go below, so that a sentence can say when no difference can be significant
  (:func:`floor_sentence`);
* the closing summary, one bullet per analysis: :func:`leaders_sentence`,
  :func:`top_tau_sentence`, :func:`bootstrap_sentence`, :func:`segment_sentence`,
  :func:`da_sentence`, :func:`random_subset_sentence`.

Correlations are *oriented*: a lower-is-better metric (TER) is negated first, so that a higher
value always means closer agreement with the human scores. Metric values are compared after
rounding to 3 decimals, as printed: equal printed values are a tie, not a lead.
"""

from __future__ import annotations

import math
import os
from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from mtlib.correlation import top_systems
from mtlib.data import EvalSet
from mtlib.significance import min_pvalue, p_text, perm_both, perm_both_systems

__all__ = ["STAT_NAMES", "STAT_METHODS", "ALPHA", "folder_label", "page_source", "data_sentence", "overview_table",
           "top_subset", "top_closeness", "floor_sentence", "leader_tests",
           "leaders_sentence", "top_tau_sentence", "bootstrap_sentence", "segment_leader_test", "segment_sentence",
           "da_comparison", "da_sentence", "random_subset_sentence"]

STAT_NAMES = {"r": "$r$", "tau": "τ", "rho": "ρ"}
STAT_METHODS = {"r": "pearson", "tau": "kendall", "rho": "spearman"}
ALPHA = 0.05  # the level a "significant" difference is read at
METHOD_LABELS = {"pearson": "Pearson $r$", "kendall": "Kendall τ"}

EXAMPLE_SOURCE = (
    "the example that ships with mtlib, `toy-de-en` (`mtlib.example_folder()`): 40 German sentences written for "
    "this book, two English references, eight \"systems\" that are the reference damaged by seeded random edits "
    "(dropped, repeated and swapped words, synonyms) and **simulated** human scores that penalise the edits a "
    "reader would mind (drops, repeats, swaps) and barely notice synonyms. Its numbers show how the analyses "
    "work; they say nothing about real systems or metrics.")


# -- the data ---------------------------------------------------------------------------------

def folder_label(folder: str | os.PathLike | None) -> str:
    """How the page names its data: the shipped example (``folder`` None) or the folder given."""
    return "the example toy-de-en" if folder is None else f"the folder `{folder}`"


def page_source(folder: str | os.PathLike | None, evs: EvalSet) -> str:
    """What this page ran on, for the introduction: the shipped example's description, or the
    folder actually used with its size and human scores."""
    if folder is None:
        return EXAMPLE_SOURCE
    levels = ", ".join(level for _, level in evs.human_score_names) or "none"
    return (f"{folder_label(folder)} (parameter `folder`, language pair {evs.lp}): {evs.n_segments} segments, "
            f"{len(evs.mt_systems)} systems, human scores: {levels}. The numbers below are this folder's; the "
            "exercises refer to the shipped example.")


def data_sentence(label: str, evs: EvalSet, human: Mapping[str, float | None] | None,
                  human_seg: Mapping[str, Sequence[float | None]] | None) -> str:
    """The data in one sentence; names the systems without a human score at a level where others
    have one (they are left out of the correlations at that level)."""
    text = (f"{label} ({evs.lp}): {evs.n_segments} segments, {len(evs.mt_systems)} systems, references "
            f"{', '.join(f'`{r}`' for r in evs.refs)} (standard: `{evs.std_ref}`); human scores: "
            f"{', '.join(level for _, level in evs.human_score_names) or 'none'}.")
    for what, level, have in [("System", "system-level", human), ("Segment", "segment-level", human_seg)]:
        if have is None:
            continue
        missing = [s for s in evs.mt_systems if s not in have or have[s] is None]
        if missing:
            one = len(missing) == 1
            text += (f" {what} scores cover {len(evs.mt_systems) - len(missing)} of the {len(evs.mt_systems)} "
                     f"systems: {', '.join(missing)} {'has' if one else 'have'} none and {'is' if one else 'are'} "
                     f"left out of the {level} correlations.")
    return text


def overview_table(evs: EvalSet, human: Mapping[str, float | None] | None,
                   human_seg: Mapping[str, Sequence[float | None]] | None) -> pd.DataFrame:
    """One row per system, best human score first: ``human score`` (NaN: none), ``segments
    judged`` (0 for a system without segment scores; NaN when the folder has none) and ``mean
    words`` of the output."""
    judged = (pd.Series({s: sum(v is not None for v in human_seg.get(s, ())) for s in evs.mt_systems}, dtype=float)
              if human_seg else np.nan)
    table = pd.DataFrame({
        "human score": pd.Series({s: human.get(s) for s in evs.mt_systems}, dtype=float) if human else np.nan,
        "segments judged": judged,
        "mean words": pd.Series({s: np.mean([len(h.split()) for h in evs.outputs[s]]) for s in evs.mt_systems}),
    }, index=evs.mt_systems).rename_axis("system")
    return table.sort_values("human score", ascending=False, kind="stable")


def _scored(human: Mapping[str, float | None]) -> list[str]:
    return [s for s, v in human.items() if v is not None and not math.isnan(v)]


def top_subset(human: Mapping[str, float | None], fraction: float) -> tuple[list[str] | None, str | None]:
    """(the top ``fraction`` of the systems with a human score, best first; None) as
    :func:`mtlib.top_systems` counts them, or (None, a note saying why there is no top group)
    when that leaves fewer than two systems, over which no correlation is defined."""
    n = len(_scored(human))
    k = math.floor(fraction * n + 1e-9)
    if k >= 2:
        return top_systems(human, fraction=fraction), None
    return None, (f"*`top_fraction` = {fraction:g} of the {n} systems with a human score keeps {k} "
                  f"{'system' if k == 1 else 'systems'}; a correlation needs at least two, so every analysis "
                  "over the top systems is skipped (raise `top_fraction`, or add systems).*")


def top_closeness(human: Mapping[str, float | None] | None, top: Sequence[str] | None) -> str:
    """How close the systems are by human score: the span of the top group and the two closest
    neighbours (each said to be among, outside or across the top group). Scores are printed with
    1 decimal when they span 10 or more (0-100 scales), else with 3 (z-scores)."""
    if not human:
        return "This folder has no human system scores"  # the chapter's sentence adds the full stop
    scored = sorted((human[s], s) for s in _scored(human))[::-1]
    if len(scored) < 2:
        return "This folder has fewer than two systems with a human score"
    pairs = sorted((a[0] - b[0], a[1], b[1]) for a, b in zip(scored, scored[1:]))[:2]
    top_set = set(top or ())
    d = 1 if scored[0][0] - scored[-1][0] >= 10 else 3  # 0-100 scores: 1 decimal; z-scores: 3

    def fmt(s: str) -> str:
        return f"{human[s]:.{d}f}"

    def where(a: str, b: str) -> str:
        if not top:
            return ""
        return "; " + ("both among the top" if {a, b} <= top_set else "outside the top" if not {a, b} & top_set
                       else "across the top's boundary")

    head = (f"In this folder the top {len(top)} span human scores {fmt(top[0])} to {fmt(top[-1])}; "
            if top else "In this folder (no top group) ")
    return head + "the closest neighbours by human score are " + ", then ".join(
        f"{a} and {b} ({fmt(a)}, {fmt(b)}{where(a, b)})" for _, a, b in pairs)


# -- significance -------------------------------------------------------------------------------

def floor_sentence(n: int, *, n_permutations: int = 1000, seed: int | None = None) -> str:
    """What the p-values of this folder's system-level tests can reach: the floor over its ``n``
    systems and over three (:func:`mtlib.significance.min_pvalue`), said plainly when no test can be significant."""
    def clause(k: int, floor: float, where: str) -> str:
        if floor == 0:  # no draw of this seed swaps nothing: the floor is below what the draws resolve
            return (f"over {where} the draws that swap nothing (about 2^-{k} = {0.5 ** k:.2g} of them) are too rare "
                    f"to set a floor with {n_permutations:,} permutations")
        text = f"over {where} no p can fall below {floor:.3f}"
        if floor >= ALPHA:
            text += f", so no test over {where} can find one metric significantly better than another (p < {ALPHA:g})"
        return text

    floor3 = min_pvalue(3, n_permutations=n_permutations, seed=seed)
    three = clause(3, floor3, "three systems")
    if n < 3:
        return f"PERM-BOTH needs at least three systems: with {n} no difference is tested; {three}"
    here = clause(n, min_pvalue(n, n_permutations=n_permutations, seed=seed), f"the {n} systems here")
    return here if n == 3 else f"{here}; {three}"


def _oriented(scores: Mapping[str, Mapping[str, float]], lower_is_better: Iterable[str]
              ) -> dict[str, dict[str, float]]:
    flip = set(lower_is_better)
    return {m: {s: (-v if m in flip else v) for s, v in sc.items()} for m, sc in scores.items()}


def _test(a: Mapping[str, float], b: Mapping[str, float], human: Mapping[str, float | None], method: str,
          systems: Sequence[str] | None, n_permutations: int, seed: int | None) -> tuple[float, str]:
    """(p of "b correlates better than a", "") or (NaN, why it was not tested)."""
    try:
        return perm_both_systems(a, b, human, method, systems=systems, n_permutations=n_permutations,
                                 seed=seed).pvalue, ""
    except ValueError as err:
        return math.nan, str(err).removeprefix("perm_both: ")


def leader_tests(table: pd.DataFrame, scores: Mapping[str, Mapping[str, float]], human: Mapping[str, float | None],
                 *, subset: str = "all", systems: Sequence[str] | None = None, lower_is_better: Iterable[str] = (),
                 n_permutations: int = 1000, seed: int | None = None) -> pd.DataFrame:
    """For each statistic, which metric leads and whether its lead over the next one holds.

    Args:
        table: :func:`mtlib.correlation_table` output (oriented values; rows of ``subset`` used).
        scores: metric -> system -> score, as given to ``correlation_table``.
        systems: the systems of ``subset`` (None: all with a human score).
        lower_is_better: metrics negated before the test, as in ``correlation_table``.

    Returns:
        One row per statistic (index ``r``, ``tau``, ``rho``): ``leaders`` (the metrics with the
        highest value to 3 decimals: more than one is a tie), ``value``, ``next`` (the best
        other metric; None when there is none), ``next value``, ``p`` (PERM-BOTH, one-sided, that
        the first leader correlates better than ``next``; NaN when not tested), ``note`` (why
        not), ``n`` (systems) and ``floor`` (:func:`mtlib.significance.min_pvalue` over them).
    """
    oriented = _oriented(scores, lower_is_better)
    n = len(systems) if systems is not None else len(_scored(human))
    floor = min_pvalue(n, n_permutations=n_permutations, seed=seed)
    wide = table[table.subset == subset].pivot_table(index="metric", columns="stat", values="value").round(3)
    rows = {}
    for stat, method in STAT_METHODS.items():
        col = wide[stat].dropna()
        leaders = list(col.index[col == col.max()]) if len(col) else []
        rest = col.drop(index=leaders).sort_values(ascending=False, kind="stable")
        row = {"leaders": leaders, "value": col.max() if len(col) else math.nan,
               "next": rest.index[0] if len(rest) else None, "next value": rest.iloc[0] if len(rest) else math.nan,
               "p": math.nan, "note": "no other metric" if len(col) else "undefined", "n": n, "floor": floor}
        if len(rest):
            row["p"], row["note"] = _test(oriented[row["next"]], oriented[leaders[0]], human, method, systems,
                                          n_permutations, seed)
        rows[stat] = row
    return pd.DataFrame.from_dict(rows, orient="index")


def leaders_sentence(tests: pd.DataFrame, n_permutations: int) -> str:
    """The leader of each statistic over all systems, with its lead over the next metric and
    PERM-BOTH's p of that lead (``tests``: :func:`leader_tests`); says so when no lead can be
    significant over so few systems."""
    def one(stat: str, row: pd.Series) -> str:
        ms = row["leaders"]
        text = f"{STAT_NAMES[stat]} {' and '.join(ms)} ({row['value']:+.3f}{', tied' if len(ms) > 1 else ''}"
        if not isinstance(row["next"], str):  # no other metric (None, or NaN in a frame)
            return text + ")"
        p = row["p"]
        test = p_text(p, n_permutations) if not math.isnan(p) else f"not tested: {row['note']}"
        return text + f"; next {row['next']} {row['next value']:+.3f}, {test})"

    best = [tuple(ms) for ms in tests["leaders"]]
    text = ("* System level, all systems, the highest value of each statistic (p: PERM-BOTH, one-sided, that the "
            f"leader correlates better than the next metric, {n_permutations} permutations): "
            + "; ".join(one(stat, row) for stat, row in tests.iterrows())
            + ("." if len(set(best)) == 1 else "; the statistics disagree on which metric leads."))
    if "n" in tests and tests["next"].map(lambda m: isinstance(m, str)).any():
        k, floor = int(tests["n"].iloc[0]), float(tests["floor"].iloc[0])
        if k < 3 or floor >= ALPHA:
            clause = _floor_clause(k, floor)
            text += f" {clause[0].upper()}{clause[1:]}."
    return text


def _floor_clause(k: int, floor: float) -> str:
    if k < 3:
        return f"PERM-BOTH needs at least three systems, so no difference over {k} is tested"
    if floor >= ALPHA:
        return (f"no difference between metrics over {k} systems can be significant (p < {ALPHA:g}): PERM-BOTH's "
                f"p cannot fall below {floor:.3f} there (its unswapped draws alone)")
    return f"PERM-BOTH's p over {k} systems cannot fall below {floor:.3f}"


def top_tau_sentence(table: pd.DataFrame, top: Sequence[str], floor: float) -> str:
    """Kendall's τ of each metric over the top systems, how much one swapped pair moves it, and
    whether any difference among them could be significant (``floor``: :func:`mtlib.significance.min_pvalue`
    over ``len(top)`` systems)."""
    k = len(top)
    t = table[(table.stat == "tau") & (table.subset == "top")].set_index("metric")["value"]
    return (f"* Over the top {k} systems Kendall's τ is " + ", ".join(f"{m} {v:+.3f}" for m, v in t.items())
            + f": with so few systems one swapped pair moves τ by {2 / (k * (k - 1) / 2):.2f}, and "
            + _floor_clause(k, floor) + ("." if k < 3 else "; these differences are not tested."))


def bootstrap_sentence(boot: pd.DataFrame, n_resamples: int) -> str:
    """Where the bootstrap intervals of Kendall's τ (over all systems) lie against zero: above
    it (with the lowest lower bound), below it (with the highest upper bound), or including it,
    naming the metrics ("every metric" where all are alike)."""
    kb = boot[boot.method == "kendall"].set_index("metric")
    above = [m for m in kb.index if kb.loc[m, "low"] > 0]
    below = [m for m in kb.index if kb.loc[m, "high"] < 0]
    wide = [m for m in kb.index if m not in above and m not in below]

    def which(ms):
        return "every metric" if len(ms) == len(kb) else ", ".join(ms)

    def bound(ms, col, pick):
        m = pick(ms, key=lambda x: kb.loc[x, col])
        return f"{kb.loc[m, col]:+.3f}" + ("" if len(ms) == 1 else f", {m}")

    if not wide and not below:
        clauses = [f"exclude zero for every metric (lowest lower bound {bound(above, 'low', min)})"]
    else:
        clauses = ([f"lie above zero for {which(above)} (lowest lower bound {bound(above, 'low', min)})"] if above
                   else []) + ([f"lie below zero for {which(below)} (highest upper bound {bound(below, 'high', max)})"]
                               if below else []) + ([f"include zero for {which(wide)}"] if wide else [])
    return (f"* The bootstrap intervals of Kendall's τ over all systems ({n_resamples} resamples) "
            + (", ".join(clauses[:-1]) + " and " if len(clauses) > 1 else "") + clauses[-1] + ".")


def segment_leader_test(seg_scores: Mapping[str, Mapping[str, Sequence[float]]],
                        human_seg: Mapping[str, Sequence[float | None]], values: Mapping[str, float], *,
                        method: str = "kendall", n_permutations: int = 1000, seed: int | None = None) -> dict:
    """PERM-BOTH at segment level, pooled over the judged (system, segment) pairs: does the metric
    with the highest ``values`` (to 3 decimals) correlate better than the next one?

    Args:
        seg_scores: metric -> system -> segment scores, oriented (higher = better).
        human_seg: system -> segment human scores (None: not judged); its systems are used.
        values: metric -> the pooled correlation shown (decides leader and next).

    Returns:
        ``{"leaders", "next", "p", "n", "note"}``; ``p`` NaN (with ``note``) when not tested.
    """
    col = pd.Series(values, dtype=float).round(3).dropna()
    leaders = list(col.index[col == col.max()])
    rest = col.drop(index=leaders).sort_values(ascending=False, kind="stable")
    out = {"leaders": leaders, "next": rest.index[0] if len(rest) else None, "p": math.nan, "n": 0,
           "note": "no other metric"}
    if out["next"] is None:
        return out
    systems = list(human_seg)
    a = np.concatenate([np.asarray(seg_scores[out["next"]][s], float) for s in systems])
    b = np.concatenate([np.asarray(seg_scores[leaders[0]][s], float) for s in systems])
    h = [v for s in systems for v in human_seg[s]]
    try:
        res = perm_both(a, b, h, method, n_permutations=n_permutations, seed=seed)
        out.update(p=res.pvalue, n=res.n, note="")
    except ValueError as err:
        out["note"] = str(err).removeprefix("perm_both: ")
    return out


def segment_sentence(seg_table: pd.DataFrame, test: Mapping, n_permutations: int) -> str:
    """Each metric's pooled segment-level Kendall τ and PERM-BOTH's p of the leader's lead."""
    text = "* Segment level (Kendall τ, pooled): " + ", ".join(f"{m} {v:+.3f}" for m, v in seg_table["kendall"].items())
    if not isinstance(test["next"], str):
        return text + "."
    lead = " and ".join(test["leaders"])
    if math.isnan(test["p"]):
        return text + f"; {lead} ahead of {test['next']}, not tested: {test['note']}."
    return text + (f"; {lead} ahead of {test['next']}: PERM-BOTH (one-sided, over the {test['n']} judged pairs, "
                   f"{n_permutations} permutations) {p_text(test['p'], n_permutations)}.")


def da_comparison(da_table: pd.DataFrame, bertscore: Mapping[str, float], da: Mapping[str, Mapping[str, float]],
                  human: Mapping[str, float | None], top: Sequence[str] | None, *, n_permutations: int = 1000,
                  seed: int | None = None) -> pd.DataFrame:
    """DA-BERTScore against BERTScore on each subset and statistic, with PERM-BOTH's one-sided p
    that the one ahead correlates better.

    Args:
        da_table: ``correlation_table`` rows of ``BERTScore`` and ``DA-BERTScore`` per subset.
        bertscore: system -> BERTScore; da: subset (``all``, ``top``) -> system -> DA-BERTScore
            (its difficulty computed from that subset's systems).
        top: the top systems (None: no ``top`` subset).

    Returns:
        Rows (subset, stat): ``DA``, ``BERTScore`` (values), ``ahead`` (``DA-BERTScore``,
        ``BERTScore`` or ``tied`` to 3 decimals), ``p`` (NaN when tied or not tested), ``note``,
        ``n`` (systems) and ``floor`` (:func:`mtlib.significance.min_pvalue` over them).
    """
    dv = da_table.set_index(["subset", "metric", "stat"])["value"]
    rows = []
    for subset, systems in [("all", None), ("top", top)]:
        if subset not in da or (subset == "top" and not top):
            continue
        n = len(systems) if systems is not None else len(_scored(human))
        floor = min_pvalue(n, n_permutations=n_permutations, seed=seed)
        for stat, method in STAT_METHODS.items():
            a, b = dv[(subset, "DA-BERTScore", stat)], dv[(subset, "BERTScore", stat)]
            ahead = "tied" if round(a, 3) == round(b, 3) else "DA-BERTScore" if a > b else "BERTScore"
            p, note = math.nan, "tied"
            if ahead != "tied":
                pair = (bertscore, da[subset]) if ahead == "DA-BERTScore" else (da[subset], bertscore)
                p, note = _test(*pair, human, method, systems, n_permutations, seed)
            rows.append({"subset": subset, "stat": stat, "DA": a, "BERTScore": b, "ahead": ahead, "p": p,
                         "note": note, "n": n, "floor": floor})
    return pd.DataFrame(rows)


def da_sentence(comparison: pd.DataFrame, n_permutations: int) -> str:
    """DA-BERTScore against BERTScore per subset and statistic, who is ahead with PERM-BOTH's p,
    whether the statistics disagree, and where no difference can be significant."""
    parts, split, floors = [], False, []
    for subset, g in comparison.groupby("subset", sort=False):
        label = "all systems" if subset == "all" else f"top {g.n.iloc[0]}"
        who = dict(zip(g.stat, g.ahead))
        split |= {"DA-BERTScore", "BERTScore"} <= set(who.values())
        verdict = "; ".join(
            (w if w == "tied" else w + " ahead") + " on " + ", ".join(
                STAT_NAMES[r.stat] + ("" if w == "tied" else f" ({p_text(r.p, n_permutations)})")
                for r in g[g.ahead == w].itertuples())
            for w in dict.fromkeys(g.ahead))
        parts.append(f"{label}: " + ", ".join(f"{STAT_NAMES[r.stat]} {r.DA:+.3f} vs {r.BERTScore:+.3f}"
                                             for r in g.itertuples()) + f" ({verdict})")
        if (g.ahead != "tied").any():
            floors.append((int(g.n.iloc[0]), float(g.floor.iloc[0])))
    text = ("* DA-BERTScore against BERTScore (DA-BERTScore first; p: PERM-BOTH, one-sided, that the one ahead "
            f"correlates better, {n_permutations} permutations): " + "; ".join(parts) + ".")
    if split:
        text += " The statistics disagree on which of the two agrees better with the human scores."
    for k, floor in floors:
        if k < 3 or floor >= ALPHA:
            clause = _floor_clause(k, floor)
            text += f" {clause[0].upper()}{clause[1:]}."
    return text


def random_subset_sentence(comparison: pd.DataFrame, n_kept: int) -> str:
    """Where the variance-aware kept set falls among random subsets of the same size, per method
    (percentile above 50: above most of them) and whether any lies outside their middle 95%."""
    above = {m: [f"{r.metric} ({r.percentile:.0f})" for r in g.itertuples() if r.percentile > 50]
             for m, g in comparison.groupby("method", sort=False)}
    below = {m: [f"{r.metric} ({r.percentile:.0f})" for r in g.itertuples() if r.percentile <= 50]
             for m, g in comparison.groupby("method", sort=False)}
    out = comparison[(comparison["selected"] < comparison["random 2.5%"])
                     | (comparison["selected"] > comparison["random 97.5%"])]
    label = METHOD_LABELS
    return (f"* On the {n_kept} segments kept by variance, the kept set lies above most random subsets "
            "of the same size (percentile above 50, the criterion of the variance-aware section) for "
            + "; ".join(f"{label.get(m, m)}: {', '.join(v) or 'no metric'}" for m, v in above.items())
            + ". It does not for " + "; ".join(f"{label.get(m, m)}: {', '.join(v) or 'no metric'}"
                                                for m, v in below.items())
            + ". " + ("No kept-set correlation lies outside the middle 95% of the random subsets." if out.empty else
                      "Outside the middle 95% of the random subsets: " + ", ".join(
                          f"{r.metric} ({label.get(r.method, r.method)})" for r in out.itertuples()) + "."))
