"""The own-data chapter's tables and findings, as tested functions.

The chapter (``notebooks/own_data.ipynb``) runs the book's analyses on a plain folder
(:func:`mtlib.load_folder`); these functions build what it shows and, as plain data, what its
words quote (the chapter's Markdown templates put them into sentences):

* the data: :func:`folder_label`, :func:`source_findings`, :func:`data_findings`,
  :func:`overview_table`, the top systems (:func:`top_subset`) and how close they are
  (:func:`closeness`);
* claims that one metric correlates better than another: :func:`leader_tests` (system level),
  :func:`segment_leader_test` (segment level, pooled), :func:`da_comparison` (DA-BERTScore
  against BERTScore), each a two-sided PERM-BOTH test (:func:`mtlib.significance.compare`), and
  :func:`page_findings`, which Holm-adjusts them together as the page's one family
  (:func:`mtbook.comparisons.family`) and hands each part its rows; :func:`floor` is the p that
  no test over ``n`` systems can go below, so that the words can say when no difference can be
  significant;
* the closing summary's other findings: :func:`top_taus`, :func:`bootstrap_findings`,
  :func:`random_subset_findings`.

Correlations are *oriented*: a lower-is-better metric (TER) is negated first, so that a higher
value always means closer agreement with the human scores. Two equal correlations are a tie
(exactly equal, not equal once rounded), not a lead.
"""

from __future__ import annotations

import math
import os
from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from mtlib.correlation import top_systems
from mtlib.data import EvalSet
from mtbook import comparisons
from mtlib.significance import ALPHA, Verdict, compare, compare_systems

__all__ = ["STAT_METHODS", "STAT_LABELS", "folder_label", "source_findings", "data_findings", "overview_table",
           "top_subset", "closeness", "floor", "leader_tests", "leaders_frame", "top_taus", "bootstrap_findings",
           "segment_leader_test", "da_comparison", "page_findings", "random_subset_findings"]

STAT_METHODS = {"r": "pearson", "tau": "kendall", "rho": "spearman"}
STAT_LABELS = {"r": "$r$", "tau": "τ", "rho": "ρ"}  # as the page writes each statistic


# -- the data ---------------------------------------------------------------------------------

def folder_label(folder: str | os.PathLike | None) -> str:
    """How the page names its data: the shipped example (``folder`` None) or the folder given."""
    return "the example toy-de-en" if folder is None else f"the folder `{folder}`"


def source_findings(folder: str | os.PathLike | None, evs: EvalSet, n_total: int | None = None) -> dict:
    """What this page ran on: the shipped example (``example``) or the folder used, with its size
    (``n_total``: the folder's segments, when the run took only the first ``n_segments``) and the
    levels of its human scores."""
    return {"example": folder is None, "label": folder_label(folder), "lp": evs.lp, "n_segments": evs.n_segments,
            "n_total": n_total if n_total is not None else evs.n_segments,
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


# -- significance: one family of two-sided PERM-BOTH tests per page ----------------------------------

def floor(n: int) -> dict:
    """What a two-sided PERM-BOTH p over ``n`` systems can reach: ``exact``, 2^-(n-1) (no swap and
    the full swap both reproduce the observed difference; None under three systems, where nothing
    is tested), with ``alpha``, the level that a floor at or above it makes unreachable."""
    return {"n": n, "exact": 0.5 ** (n - 1) if n >= 3 else None, "alpha": ALPHA}


def _oriented(scores: Mapping[str, Mapping[str, float]], lower_is_better: Iterable[str]
              ) -> dict[str, dict[str, float]]:
    flip = set(lower_is_better)
    return {m: {s: (-v if m in flip else v) for s, v in sc.items()} for m, sc in scores.items()}


def _leaders(values: Mapping[str, float]) -> tuple[list[str], str | None]:
    """The metrics with the highest value (more than one: an exact tie) and the best other one."""
    col = pd.Series(values, dtype=float).dropna()
    if not len(col):
        return [], None
    top = list(col.index[col >= col.max() - 1e-12])
    rest = col.drop(index=top).sort_values(ascending=False, kind="stable")
    return top, (rest.index[0] if len(rest) else None)


def leader_tests(table: pd.DataFrame, scores: Mapping[str, Mapping[str, float]], human: Mapping[str, float | None],
                 *, subset: str = "all", systems: Sequence[str] | None = None, lower_is_better: Iterable[str] = (),
                 n_permutations: int = 1000, seed: int | None = None) -> list[dict]:
    """For each statistic, which metric leads and whether its lead over the next one holds.

    Args:
        table: :func:`mtlib.correlation_table` output (oriented values; rows of ``subset`` used).
        scores: metric -> system -> score, as given to ``correlation_table``.
        systems: the systems of ``subset`` (None: all with a human score).
        lower_is_better: metrics negated before the test, as in ``correlation_table``.

    Returns:
        One dict per statistic (``r``, ``tau``, ``rho``): ``leaders`` (the metrics with the
        highest value: more than one is an exact tie), ``value``, ``next`` (the best other metric;
        None when there is none), ``next_value``, ``n`` (systems), ``note`` (why nothing is
        tested) and ``entry``: the page family's entry (:func:`mtbook.comparisons.family`) of the
        two-sided PERM-BOTH test of the first leader (B) against ``next`` (A), or None.
    """
    oriented = _oriented(scores, lower_is_better)
    n = len(systems) if systems is not None else len(_scored(human))
    wide = table[table.subset == subset].pivot_table(index="metric", columns="stat", values="value")
    out = []
    for stat, method in STAT_METHODS.items():
        col = wide[stat].dropna() if stat in wide else pd.Series(dtype=float)
        leaders, nxt = _leaders(col.to_dict())
        entry = None
        if nxt is not None:
            entry = ({"analysis": "leading metric", "level": "system", "systems": f"{subset} ({n})"}, nxt, leaders[0],
                     STAT_LABELS[stat], compare_systems(oriented[nxt], oriented[leaders[0]], human, method,
                                                        systems=systems, n_permutations=n_permutations, seed=seed))
        out.append({"stat": stat, "leaders": leaders, "value": float(col.max()) if len(col) else math.nan,
                    "next": nxt, "next_value": float(col[nxt]) if nxt is not None else math.nan, "n": n,
                    "note": "" if nxt is not None else "no other metric" if len(col) else "undefined", "entry": entry})
    return out


def leaders_frame(tests: Sequence[Mapping]) -> pd.DataFrame:
    """:func:`leader_tests` as a table: leaders, value, next, next value and the raw two-sided p."""
    return pd.DataFrame({t["stat"]: {"leaders": ", ".join(t["leaders"]), "value": t["value"], "next": t["next"],
                                     "next value": t["next_value"],
                                     "p": t["entry"][-1].p if t["entry"] else math.nan, "n": t["n"]} for t in tests}
                        ).T


def top_taus(table: pd.DataFrame, top: Sequence[str]) -> dict:
    """Kendall's τ of each metric over the top systems, how much one swapped pair moves it
    (``step``) and what a two-sided PERM-BOTH p over them can reach (``floor``: :func:`floor`)."""
    k = len(top)
    t = table[(table.stat == "tau") & (table.subset == "top")].set_index("metric")["value"]
    return {"k": k, "taus": [{"metric": m, "value": float(v)} for m, v in t.items()], "step": 2 / (k * (k - 1) / 2),
            "floor": floor(k)}


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
    """PERM-BOTH at segment level, pooled over the judged (system, segment) pairs, two-sided, the
    pairs of one segment swapped together (``unit="segment"``: every system's translation of a
    segment shares its source and reference, so they are not independent): does the metric with
    the highest ``values`` correlate better than the next one?

    Args:
        seg_scores: metric -> system -> segment scores, oriented (higher = better).
        human_seg: system -> segment human scores (None: not judged); its systems are used.
        values: metric -> the pooled correlation shown (decides leader and next; equal values tie).

    Returns:
        ``{"taus", "leaders", "next", "note", "entry"}``: ``taus`` the ``values``, ``entry`` the
        page family's entry of the leader (B) against ``next`` (A), None without a next metric.
    """
    leaders, nxt = _leaders(values)
    out = {"taus": [{"metric": m, "value": float(v)} for m, v in values.items()], "leaders": leaders, "next": nxt,
           "note": "" if nxt else "no other metric", "entry": None}
    if nxt is None:
        return out
    systems = list(human_seg)
    a = np.concatenate([np.asarray(seg_scores[nxt][s], float) for s in systems])
    b = np.concatenate([np.asarray(seg_scores[leaders[0]][s], float) for s in systems])
    h = [v for s in systems for v in human_seg[s]]
    segment = [i for s in systems for i in range(len(human_seg[s]))]
    out["entry"] = ({"analysis": "leading metric", "level": "segment", "systems": f"all ({len(systems)})"}, nxt,
                    leaders[0], STAT_LABELS["tau" if method == "kendall" else "r"],
                    compare(a, b, h, method, unit="segment", clusters=segment, n_permutations=n_permutations,
                            seed=seed))
    return out


def da_comparison(da_table: pd.DataFrame, bertscore: Mapping[str, float], da: Mapping[str, Mapping[str, float]],
                  human: Mapping[str, float | None], top: Sequence[str] | None, *, n_permutations: int = 1000,
                  seed: int | None = None) -> list[dict]:
    """DA-BERTScore (B) against BERTScore (A) on each subset and statistic: two-sided PERM-BOTH.

    Args:
        da_table: ``correlation_table`` rows of ``BERTScore`` and ``DA-BERTScore`` per subset.
        bertscore: system -> BERTScore; da: subset (``all``, ``top``) -> system -> DA-BERTScore
            (its difficulty computed from that subset's systems).
        top: the top systems (None: no ``top`` subset).

    Returns:
        One dict per (subset, stat): ``subset``, ``stat``, ``n`` (systems), ``da`` and
        ``bertscore`` (the table's values) and ``entry`` (the page family's entry; an exact tie
        is a tie, and fewer than three systems leave it untested).
    """
    dv = da_table.set_index(["subset", "metric", "stat"])["value"]
    rows = []
    for subset, systems in [("all", None), ("top", top)]:
        if subset not in da or (subset == "top" and not top):
            continue
        n = len(systems) if systems is not None else len(_scored(human))
        for stat, method in STAT_METHODS.items():
            c = compare_systems(bertscore, da[subset], human, method, systems=systems, n_permutations=n_permutations,
                                seed=seed)
            setting = {"analysis": "DA-BERTScore vs BERTScore", "level": "system", "systems": f"{subset} ({n})"}
            rows.append({"subset": subset, "stat": stat, "n": n, "da": float(dv[(subset, "DA-BERTScore", stat)]),
                         "bertscore": float(dv[(subset, "BERTScore", stat)]),
                         "entry": (setting, "BERTScore", "DA-BERTScore", STAT_LABELS[stat], c)})
    return rows


def page_findings(leaders: Sequence[Mapping] | None, segment: Mapping | None,
                  da: Sequence[Mapping] | None) -> dict:
    """Every test of the page (:func:`leader_tests`, :func:`segment_leader_test`,
    :func:`da_comparison`; None: not run) as one family, Holm-adjusted together
    (:func:`mtbook.comparisons.family`), and what the words quote of each part, each test as its
    family row ``c`` (raw and Holm p, verdict on the adjusted p):

    * ``comparisons`` (the rows, in that order) and ``counts`` (:func:`mtbook.comparisons.family_counts`);
    * ``leaders``: ``{stats: [{stat, leaders, value, next, next_value, note, c}], agree, n, significant}``
      (``agree``: every statistic has the same leaders; ``significant``: statistics whose lead
      holds after adjustment);
    * ``segment``: ``{taus, leaders, next, note, c}``;
    * ``da_versus``: ``{groups: [{subset, n, rows: [{stat, da, bertscore, c}]}], better, worse, tie,
      not_shown, untested, n, split}`` (``split``: in some subset DA-BERTScore is higher on one
      statistic and lower on another).
    """
    parts = [("leaders", list(leaders or [])), ("segment", [segment] if segment else []), ("da", list(da or []))]
    entries = [x["entry"] for _, xs in parts for x in xs if x["entry"] is not None]
    rows = iter(comparisons.family(entries))
    with_rows = {name: [{**{k: v for k, v in x.items() if k != "entry"},
                         "c": next(rows) if x["entry"] is not None else None} for x in xs] for name, xs in parts}
    family_rows = [x["c"] for xs in with_rows.values() for x in xs if x["c"] is not None]
    out = {"comparisons": family_rows, "counts": comparisons.family_counts(family_rows),
           "leaders": None, "segment": with_rows["segment"][0] if segment else None, "da_versus": None}
    if leaders:
        stats = with_rows["leaders"]
        out["leaders"] = {"stats": stats, "agree": len({tuple(x["leaders"]) for x in stats}) == 1,
                          "n": int(stats[0]["n"]),
                          "significant": sum(x["c"] is not None and x["c"].verdict is Verdict.B_BETTER for x in stats)}
    if da:
        rows_ = with_rows["da"]
        groups = []
        for subset in dict.fromkeys(x["subset"] for x in rows_):
            g = [x for x in rows_ if x["subset"] == subset]
            groups.append({"subset": subset, "n": int(g[0]["n"]), "rows": g})
        verdicts = [x["c"].verdict for x in rows_]

        def split(g):  # DA-BERTScore higher on one statistic of the subset, lower on another
            deltas = [x["c"].delta for x in g["rows"] if not math.isnan(x["c"].delta)]
            return any(d > 1e-12 for d in deltas) and any(d < -1e-12 for d in deltas)

        out["da_versus"] = {"groups": groups, "n": len(rows_), "better": verdicts.count(Verdict.B_BETTER),
                            "worse": verdicts.count(Verdict.A_BETTER), "tie": verdicts.count(Verdict.TIE),
                            "not_shown": verdicts.count(Verdict.NOT_SHOWN),
                            "untested": verdicts.count(Verdict.UNTESTED), "split": any(split(g) for g in groups)}
    return out


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
