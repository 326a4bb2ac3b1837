"""The own-data chapter's tables and findings, as tested functions.

The chapter (``notebooks/own_data.ipynb``) runs the book's analyses on a plain folder
(:func:`mtlib.load_folder`); these functions build what it shows and, as plain data, what its
words quote (the chapter's Markdown templates put them into sentences):

* the data: :func:`folder_label`, :func:`source_findings`, :func:`data_findings`,
  :func:`overview_table`, the top systems (:func:`top_subset`) and how close they are
  (:func:`closeness`);
* claims that one metric correlates better than another, each with PERM-BOTH's one-sided
  p-value (:mod:`mtlib.significance`): :func:`leader_tests` (system level),
  :func:`segment_leader_test` (segment level, pooled), :func:`da_comparison` (DA-BERTScore
  against BERTScore); :func:`mtlib.significance.min_pvalue` is the floor no test over ``n``
  systems can go below, so that the words can say when no difference can be significant
  (:func:`floors`);
* the closing summary's findings, one per analysis: :func:`leaders`, :func:`top_taus`,
  :func:`bootstrap_findings`, :func:`segment_findings`, :func:`da_findings`,
  :func:`random_subset_findings`.

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
from mtlib.significance import min_pvalue, perm_both, perm_both_systems

__all__ = ["STAT_METHODS", "ALPHA", "folder_label", "source_findings", "data_findings", "overview_table",
           "top_subset", "closeness", "floors", "leader_tests", "leaders", "top_taus", "bootstrap_findings",
           "segment_leader_test", "segment_findings", "da_comparison", "da_findings", "random_subset_findings"]

STAT_METHODS = {"r": "pearson", "tau": "kendall", "rho": "spearman"}
ALPHA = 0.05  # the level a "significant" difference is read at


# -- the data ---------------------------------------------------------------------------------

def folder_label(folder: str | os.PathLike | None) -> str:
    """How the page names its data: the shipped example (``folder`` None) or the folder given."""
    return "the example toy-de-en" if folder is None else f"the folder `{folder}`"


def source_findings(folder: str | os.PathLike | None, evs: EvalSet) -> dict:
    """What this page ran on: the shipped example (``example``) or the folder used, with its size
    and the levels of its human scores."""
    return {"example": folder is None, "label": folder_label(folder), "lp": evs.lp, "n_segments": evs.n_segments,
            "n_systems": len(evs.mt_systems), "levels": [level for _, level in evs.human_score_names]}


def data_findings(evs: EvalSet, human: Mapping[str, float | None] | None,
                  human_seg: Mapping[str, Sequence[float | None]] | None) -> dict:
    """The data: references (the standard one named), the levels of human scores, and per level
    the systems without a human score where others have one (``missing``: ``{level, covered,
    total, systems}``; they are left out of the correlations at that level)."""
    missing = []
    for level, have in [("system", human), ("segment", human_seg)]:
        if have is None:
            continue
        gone = [s for s in evs.mt_systems if s not in have or have[s] is None]
        if gone:
            missing.append({"level": level, "covered": len(evs.mt_systems) - len(gone), "total": len(evs.mt_systems),
                            "systems": gone})
    return {"refs": list(evs.refs), "std_ref": evs.std_ref,
            "levels": [level for _, level in evs.human_score_names], "missing": missing}


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


def top_subset(human: Mapping[str, float | None], fraction: float) -> tuple[list[str] | None, dict | None]:
    """(the top ``fraction`` of the systems with a human score, best first; None) as
    :func:`mtlib.top_systems` counts them, or (None, why there is no top group: ``{fraction, n,
    k}``) when that leaves fewer than two systems, over which no correlation is defined."""
    n = len(_scored(human))
    k = math.floor(fraction * n + 1e-9)
    if k >= 2:
        return top_systems(human, fraction=fraction), None
    return None, {"fraction": fraction, "n": n, "k": k}


def closeness(human: Mapping[str, float | None] | None, top: Sequence[str] | None) -> dict:
    """How close the systems are by human score: the span of the top group and the two closest
    neighbours, each ``among`` the top, ``outside`` it or ``across`` its boundary (None without a
    top group). ``status``: ``none`` (no human scores), ``few`` (fewer than two) or ``ok``;
    ``decimals``: 1 when the scores span 10 or more (0-100 scales), else 3 (z-scores)."""
    if not human:
        return {"status": "none"}
    scored = sorted((human[s], s) for s in _scored(human))[::-1]
    if len(scored) < 2:
        return {"status": "few"}
    pairs = sorted((a[0] - b[0], a[1], b[1]) for a, b in zip(scored, scored[1:]))[:2]
    top_set = set(top or ())

    def where(a: str, b: str) -> str | None:
        if not top:
            return None
        return "among" if {a, b} <= top_set else "outside" if not {a, b} & top_set else "across"

    return {"status": "ok", "decimals": 1 if scored[0][0] - scored[-1][0] >= 10 else 3,
            "top": {"k": len(top), "high": float(human[top[0]]), "low": float(human[top[-1]])} if top else None,
            "pairs": [{"a": a, "b": b, "va": float(human[a]), "vb": float(human[b]), "where": where(a, b)}
                      for _, a, b in pairs]}


# -- significance -------------------------------------------------------------------------------

def floors(n: int, *, n_permutations: int = 1000, seed: int | None = None) -> dict:
    """What the p-values of this folder's system-level tests can reach: the floor over its ``n``
    systems (None under three) and over three (:func:`mtlib.significance.min_pvalue`), with the
    level ``alpha`` that a floor at or above it makes unreachable."""
    return {"n": n, "here": min_pvalue(n, n_permutations=n_permutations, seed=seed) if n >= 3 else None,
            "three": min_pvalue(3, n_permutations=n_permutations, seed=seed), "alpha": ALPHA,
            "n_permutations": n_permutations}


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


def leaders(tests: pd.DataFrame) -> dict:
    """The leader of each statistic over all systems (``tests``: :func:`leader_tests`) as data:
    ``stats`` (``{stat, leaders, value, next, next_value, p, note}``; ``p`` None when not tested),
    ``agree`` (every statistic has the same leaders), ``tested`` (some statistic has a next metric),
    ``n`` and ``floor``."""
    rows = [{"stat": stat, "leaders": list(row["leaders"]), "value": float(row["value"]),
             "next": row["next"] if isinstance(row["next"], str) else None,
             "next_value": float(row["next value"]), "p": None if math.isnan(row["p"]) else float(row["p"]),
             "note": row["note"]} for stat, row in tests.iterrows()]
    return {"stats": rows, "agree": len({tuple(r["leaders"]) for r in rows}) == 1,
            "tested": any(r["next"] for r in rows), "n": int(tests["n"].iloc[0]), "floor": float(tests["floor"].iloc[0])}


def top_taus(table: pd.DataFrame, top: Sequence[str], floor: float) -> dict:
    """Kendall's τ of each metric over the top systems, how much one swapped pair moves it
    (``step``) and the floor of PERM-BOTH's p over them (``floor``: :func:`mtlib.significance.min_pvalue`)."""
    k = len(top)
    t = table[(table.stat == "tau") & (table.subset == "top")].set_index("metric")["value"]
    return {"k": k, "taus": [{"metric": m, "value": float(v)} for m, v in t.items()], "step": 2 / (k * (k - 1) / 2),
            "floor": floor}


def bootstrap_findings(boot: pd.DataFrame) -> dict:
    """Where the bootstrap intervals of Kendall's τ (over all systems) lie against zero: the
    metrics whose interval lies ``above`` it (with the lowest lower bound and its metric),
    ``below`` it (with the highest upper bound) or includes it (``wide``)."""
    kb = boot[boot.method == "kendall"].set_index("metric")
    above = [m for m in kb.index if kb.loc[m, "low"] > 0]
    below = [m for m in kb.index if kb.loc[m, "high"] < 0]

    def bound(ms, col, pick):
        if not ms:
            return None
        m = pick(ms, key=lambda x: kb.loc[x, col])
        return {"value": float(kb.loc[m, col]), "metric": m}

    return {"n": len(kb), "above": above, "below": below, "wide": [m for m in kb.index if m not in above + below],
            "lowest_low": bound(above, "low", min), "highest_high": bound(below, "high", max)}


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


def segment_findings(seg_table: pd.DataFrame, test: Mapping) -> dict:
    """Each metric's pooled segment-level Kendall τ, and the leader's test (:func:`segment_leader_test`)."""
    return {"taus": [{"metric": m, "value": float(v)} for m, v in seg_table["kendall"].items()],
            "leaders": list(test["leaders"]), "next": test["next"] if isinstance(test["next"], str) else None,
            "p": None if math.isnan(test["p"]) else float(test["p"]), "n": int(test["n"]), "note": test["note"]}


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


def da_findings(comparison: pd.DataFrame) -> dict:
    """DA-BERTScore against BERTScore (:func:`da_comparison`) per subset: ``{subset, n, rows:
    [{stat, da, bertscore, ahead, p}], order}`` (``order``: the distinct ``ahead`` values in
    order, each with its statistics), ``split`` (the statistics disagree on which is ahead) and
    the floors of the subsets where one is ahead (``floors``: ``{k, floor}``)."""
    groups, split, floors_ = [], False, []
    for subset, g in comparison.groupby("subset", sort=False):
        rows = [{"stat": r.stat, "da": float(r.DA), "bertscore": float(r.BERTScore), "ahead": r.ahead,
                 "p": None if math.isnan(r.p) else float(r.p)} for r in g.itertuples()]
        split |= {"DA-BERTScore", "BERTScore"} <= {r["ahead"] for r in rows}
        order = [{"ahead": w, "rows": [r for r in rows if r["ahead"] == w]} for w in dict.fromkeys(g.ahead)]
        groups.append({"subset": subset, "n": int(g.n.iloc[0]), "rows": rows, "order": order})
        if (g.ahead != "tied").any():
            floors_.append({"k": int(g.n.iloc[0]), "floor": float(g.floor.iloc[0])})
    return {"groups": groups, "split": split, "floors": floors_}


def random_subset_findings(comparison: pd.DataFrame, n_kept: int) -> dict:
    """Where the variance-aware kept set falls among random subsets of the same size, per method:
    the metrics above most of them (percentile above 50) and the others, each ``{metric,
    percentile}``, and those outside their middle 95% (``outside``: ``{metric, method}``)."""
    def pick(g, above):
        return [{"metric": r.metric, "percentile": float(r.percentile)} for r in g.itertuples()
                if (r.percentile > 50) == above]

    methods = [{"method": m, "above": pick(g, True), "below": pick(g, False)}
               for m, g in comparison.groupby("method", sort=False)]
    out = comparison[(comparison["selected"] < comparison["random 2.5%"])
                     | (comparison["selected"] > comparison["random 97.5%"])]
    return {"n_kept": n_kept, "methods": methods,
            "outside": [{"metric": r.metric, "method": r.method} for r in out.itertuples()]}
