"""The WMT19 baselines chapter's analyses: numbers and verdicts as data.

The chapter (``notebooks/wmt19_baselines.ipynb``) scores and correlates in plain sight; the
functions here compute what its words quote, as plain data that the chapter publishes
(:func:`mtbook.findings.publish`) and its Markdown templates put into sentences:

* beside the paper's Table 1: :func:`paper_matches`, :func:`tokenisation_gaps`,
  :func:`negative_signs`, :func:`reproduced`;
* which metric agrees best, and whether the difference is more than chance:
  :func:`pairwise_accuracy_table` (Kocmi et al. 2021), :func:`versus_highest` (every metric
  against the highest one by the book's two-sided PERM-BOTH, :func:`mtlib.significance.compare`),
  :func:`page_family` (all of the page's comparisons as one family, Holm-adjusted together:
  :func:`mtbook.comparisons.family`), :func:`setting_words` and :func:`floors` (the smallest p
  that the systems allow);
* the paper's Table 2 (:func:`table2_findings`), the top-K curves (:func:`negative_turns`,
  :func:`full_range`), the bootstrap intervals (:func:`interval_widths`, :func:`intervals_by_lp`,
  :func:`top_human_ranges`);
* what data the run used, in the words of a rerun on other data: :func:`data_findings`,
  :func:`top_groups`, and Table 1 with or without the paper's columns (:func:`table1_display`).

Correlations are *oriented*: TER is negated before it reaches these functions, so a higher
value always means closer agreement with the human scores.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from mtlib.correlation import correlate, top_systems
from mtbook.paper_tables import max_abs_delta, wide_beside_paper
from mtbook.comparisons import Compared, family
from mtlib.significance import ALPHA, Comparison, Verdict, compare_systems, pairwise_accuracy
from mtbook.testsets import newstest_name, sources_line, text_caveat

__all__ = ["STAT_METHODS", "STAT_LABELS", "signed_value", "PaperMatch", "paper_matches", "reproduced",
           "TokenisationGap", "tokenisation_gaps", "Negatives", "negative_signs", "pairwise_accuracy_table",
           "Highest", "versus_highest", "family_tests", "page_family", "find", "SettingWords", "setting_words",
           "Table2Findings", "table2_findings", "negative_turns", "full_range",
           "interval_widths", "intervals_by_lp", "top_human_ranges", "TopGroup", "top_groups", "DataFindings",
           "data_findings", "table1_display"]

STAT_METHODS = {"r": "pearson", "tau": "kendall", "rho": "spearman"}
STAT_LABELS = {"r": "r", "tau": "τ", "rho": "ρ"}  # the statistic as a comparison prints it


# -- beside the paper's Table 1 ---------------------------------------------------------------

def signed_value(table1: pd.DataFrame, lp: str, subset: str, metric: str, stat: str = "r") -> float:
    """The oriented (signed) correlation of one row of the long Table 1 frame; NaN if absent."""
    row = table1[(table1.lp == lp) & (table1.subset == subset) & (table1.metric == metric) & (table1.stat == stat)]
    return float(row["value"].iloc[0]) if len(row) else float("nan")


@dataclass(frozen=True)
class PaperMatch:
    """Whether a metric's rows reproduce the paper's printed values: ``run`` (in this run),
    ``compared`` (the paper has values to compare with), ``max_delta`` (the largest |Δ| after
    rounding ours as printed; 0 = every row to all three decimals), and of the ``n_values``
    printed values compared, how many ours reproduce (``n_equal``)."""

    metric: str
    run: bool
    compared: bool
    max_delta: float | None
    n_values: int = 0
    n_equal: int = 0


def paper_matches(table1: pd.DataFrame, metrics: Sequence[str]) -> dict[str, PaperMatch]:
    """:class:`PaperMatch` of each metric of the run, from the ``delta`` column of
    :func:`mtbook.paper_tables.beside_paper`."""
    out = {}
    for m in metrics:
        d = max_abs_delta(table1, metric=m)
        deltas = table1.loc[table1.metric == m, "delta"].dropna()
        out[m] = PaperMatch(m, True, not math.isnan(d), None if math.isnan(d) else float(d), len(deltas),
                            int((deltas.abs() < 5e-7).sum()))
    return out


def reproduced(matches: Mapping[str, PaperMatch], order: Sequence[str] = ("TER", "BLEU (intl)", "BLEU")) -> list[str]:
    """The metrics (in ``order``) whose rows reproduce the paper's to all three decimals."""
    return [m for m in order if m in matches and matches[m].max_delta == 0]


@dataclass(frozen=True)
class TokenisationGap:
    """How far the two BLEU tokenisations' signed r lie apart on one language pair (unrounded),
    which is higher, and the page's comparison of the two (a row of :func:`page_family`)."""

    lp: str
    gap: float
    higher: str | None = None
    comparison: Compared | None = None


def tokenisation_gaps(table1: pd.DataFrame, language_pairs: Sequence[str], rows: Sequence[Compared] | None = None, *,
                      subset: str = "top30") -> list[TokenisationGap]:
    """:class:`TokenisationGap` per language pair (``rows``: the page's family, holding the two
    BLEUs' comparison in Pearson's r on ``subset``, the higher as B; None for the gaps alone)."""
    out = []
    for lp in language_pairs:
        gap = abs(signed_value(table1, lp, subset, "BLEU") - signed_value(table1, lp, subset, "BLEU (intl)"))
        c = find(rows, lp, subset, "r", "BLEU", "BLEU (intl)") if rows else None
        out.append(TokenisationGap(lp, gap, None if c is None else c.b, c))
    return out


@dataclass(frozen=True)
class Negatives:
    """Every negative oriented correlation, by (lp, subset): ``groups`` of ``{lp, subset, metrics:
    [{metric, stats}]}`` (``stats`` empty when all three are negative); the most negative Kendall τ
    and every (lp, subset) whose metrics tie with it at three decimals (``holders``: ``{lp,
    subset, metrics, all}``, ``all`` when every metric of the run has it); ``n_negative`` of the
    ``n_values`` correlations are negative."""

    groups: list[dict] = field(default_factory=list)
    min_tau: float | None = None
    holders: list[dict] = field(default_factory=list)
    n_tied: int = 0
    n_negative: int = 0
    n_values: int = 0


def negative_signs(table1: pd.DataFrame, metrics: Sequence[str]) -> Negatives:
    """What absolute values (as the paper prints them) would hide: :class:`Negatives`."""
    neg = table1[table1["value"] < 0]
    groups = []
    for (lp, subset), grp in neg.groupby(["lp", "subset"], sort=False):
        groups.append({"lp": lp, "subset": subset,
                       "metrics": [{"metric": m, "stats": [] if len(g) == 3 else list(g["stat"])}
                                   for m, g in grp.groupby("metric", sort=False)]})
    tau = neg[neg["stat"] == "tau"]
    counts = {"n_negative": len(neg), "n_values": int(table1["value"].notna().sum())}
    if not len(tau):
        return Negatives(groups, **counts)
    v = float(tau["value"].min())
    tied = tau[tau["value"].round(3) == round(v, 3)]
    holders = [{"lp": lp, "subset": subset, "metrics": list(g["metric"]), "all": len(g) == len(metrics) > 1}
               for (lp, subset), g in tied.groupby(["lp", "subset"], sort=False)]
    return Negatives(groups, v, holders, len(tied), **counts)


# -- which metric agrees best ----------------------------------------------------------------

def pairwise_accuracy_table(oriented: Mapping[str, Mapping[str, Mapping[str, float]]],
                            humans: Mapping[str, Mapping[str, float | None]],
                            subsets: Mapping[str, Mapping[str, Sequence[str] | None]]) -> pd.DataFrame:
    """Pairwise ranking accuracy (Kocmi et al. 2021): the share of system pairs that each metric
    orders as the human scores do, per language pair and subset, and pooled over language pairs
    by counting pairs.

    Args:
        oriented: lp -> metric -> system -> score, oriented (TER negated).
        humans: lp -> system -> human score.
        subsets: lp -> subset name -> systems (None: every system with a human score).

    Returns:
        Rows: metrics; columns: (lp or ``pooled``, subset); ``attrs["pairs"]``: (lp, subset) -> pairs.
    """
    counts = {}  # (lp, subset) -> metric -> (agreeing pairs, pairs)
    for lp, by_metric in oriented.items():
        for subset, systems in subsets[lp].items():
            counts[(lp, subset)] = {m: pairwise_accuracy(s, humans[lp], systems=systems) for m, s in by_metric.items()}
    if len(oriented) > 1:
        for subset in dict.fromkeys(s for _, s in list(counts)):
            parts = [c for (lp, s), c in counts.items() if s == subset]
            counts[("pooled", subset)] = {m: tuple(int(sum(c[m][i] for c in parts if m in c)) for i in (0, 1))
                                          for m in dict.fromkeys(m for c in parts for m in c)}
    metrics = list(dict.fromkeys(m for by_metric in oriented.values() for m in by_metric))
    df = pd.DataFrame({col: {m: (a / n if n else np.nan) for m, (a, n) in c.items()} for col, c in counts.items()})
    df = df.reindex(metrics).rename_axis("metric")
    df.columns = pd.MultiIndex.from_tuples(list(counts), names=["lp", "subset"])
    df.attrs["pairs"] = {col: max(n for _, n in c.values()) for col, c in counts.items()}
    return df


@dataclass(frozen=True)
class Highest:
    """One setting (language pair, systems, statistic): every metric's correlation (``values``,
    oriented; NaN where none is defined), the highest one (``best``, the first of equals in the
    order of the scores; ``value`` NaN when no correlation is defined), and each other metric
    compared with it (``tests``: ``(metric, best, Comparison)``, :func:`mtlib.significance.compare`
    with the other metric as A and the highest as B)."""

    lp: str
    subset: str
    n: int
    stat: str
    best: str
    value: float
    values: dict[str, float]
    tests: list[tuple[str, str, Comparison]]


def versus_highest(scores: Mapping[str, Mapping[str, float]], human: Mapping[str, float | None], stat: str = "r", *,
                   lp: str = "", subset: str = "all", systems: Sequence[str] | None = None,
                   n_permutations: int = 1000, seed: int | None = None) -> Highest:
    """Every metric against the one with the highest correlation, by the book's two-sided
    PERM-BOTH (:func:`mtlib.significance.compare_systems`, systems swapped).

    Args:
        scores: metric -> system -> score, oriented (higher = better).
        stat: ``r``, ``tau`` or ``rho``; lp, subset: the setting's names.
        systems: the systems to use (None: every system with a human score).
    """
    method = STAT_METHODS[stat]
    corr = {m: correlate(s, human, method, systems=systems) for m, s in scores.items()}
    values = {m: float(c.value) for m, c in corr.items()}
    defined = [m for m, v in values.items() if not math.isnan(v)]
    best = max(defined, key=lambda m: values[m]) if defined else next(iter(scores))  # max: the first of equals
    tests = [(m, best, compare_systems(scores[m], scores[best], human, method, systems=systems,
                                       n_permutations=n_permutations, seed=seed)) for m in scores if m != best]
    return Highest(lp, subset, max((c.n for c in corr.values()), default=0), stat, best, values[best], values, tests)


def family_tests(settings: Sequence[Highest]) -> list[tuple[dict, str, str, str, Comparison]]:
    """The settings' comparisons as :func:`mtbook.comparisons.family` takes them (setting
    ``{lp, subset}``, A, B, the statistic as printed, the comparison), each pair of metrics of a
    setting once (a comparison that two analyses of the page share is one test)."""
    out, seen = [], set()
    for h in settings:
        for a, b, c in h.tests:
            key = (h.lp, h.subset, h.stat, frozenset((a, b)))
            if key not in seen:
                seen.add(key)
                out.append(({"lp": h.lp, "subset": h.subset}, a, b, STAT_LABELS[h.stat], c))
    return out


def page_family(settings: Sequence[Highest]) -> list[Compared]:
    """Every comparison of the page, Holm-adjusted together (:func:`mtbook.comparisons.family`)."""
    return family(family_tests(settings))


def find(rows: Sequence[Compared], lp: str, subset: str, stat: str, a: str, b: str) -> Compared | None:
    """The family's comparison of metrics ``a`` and ``b`` (either way round) in one setting."""
    for r in rows:
        if (r.setting.get("lp"), r.setting.get("subset"), r.stat) == (lp, subset, STAT_LABELS[stat]) \
                and {r.a, r.b} == {a, b}:
            return r
    return None


@dataclass(frozen=True)
class SettingWords:
    """One setting of :func:`versus_highest` for the words: the highest metric and its value
    (None: no correlation defined), whether every metric has that value (``all_tied``), and the
    family's rows of the setting by verdict (keys: :class:`mtlib.significance.Verdict` values)."""

    lp: str
    subset: str
    n: int
    stat: str
    best: str
    value: float | None
    all_tied: bool
    by_verdict: dict[str, list[Compared]]


def setting_words(settings: Sequence[Highest], rows: Sequence[Compared]) -> list[SettingWords]:
    """:class:`SettingWords` per setting, the verdicts read from the page's family ``rows``."""
    out = []
    for h in settings:
        mine = [find(rows, h.lp, h.subset, h.stat, a, b) for a, b, _ in h.tests]
        by_verdict = {v.value: [r for r in mine if r is not None and r.verdict is v] for v in Verdict}
        value = None if math.isnan(h.value) else h.value
        out.append(SettingWords(h.lp, h.subset, h.n, h.stat, h.best, value,
                                bool(mine) and len(by_verdict[Verdict.TIE.value]) == len(mine), by_verdict))
    return out


# -- the paper's Table 2 and Figure 2 --------------------------------------------------------

@dataclass(frozen=True)
class Table2Findings:
    """Which Table 2 metrics equal the paper's printed scores (to four decimals); when every metric
    puts the same system first (``first``), its human rank and how far its human score lies from
    the systems above (``above_min``, ``above_max``) and below it (``below_max``)."""

    equal: list[str]
    metrics: list[str]
    first: str | None = None
    human_rank: int | None = None
    n_top: int = 0
    n_above: int = 0
    above_min: float | None = None
    above_max: float | None = None
    n_below: int = 0
    below_max: float | None = None
    human_high: float | None = None
    human_low: float | None = None


def accuracy_findings(accuracy: pd.DataFrame) -> list[dict[str, Any]]:
    """The pairwise-accuracy table (:func:`pairwise_accuracy_table`) in a few numbers, per column
    (language pair, or ``pooled`` over them, and subset): ``where`` (``pooled`` or the language
    pair), ``pairs``, the ``best`` and ``worst`` metrics (ties: every metric at that value) with
    their accuracy, and ``spread`` (best minus worst, in system pairs)."""
    out = []
    for (lp, subset) in accuracy.columns:
        col, pairs = accuracy[(lp, subset)].dropna(), accuracy.attrs["pairs"][(lp, subset)]
        if col.empty:
            continue
        hi, lo = col.max(), col.min()
        out.append({"where": lp, "subset": subset, "pairs": int(pairs), "best": list(col.index[col == hi]),
                    "best_value": float(hi), "worst": list(col.index[col == lo]), "worst_value": float(lo),
                    "spread": int(round((hi - lo) * pairs))})
    return out


def table2_findings(table2: pd.DataFrame, higher_is_better: Mapping[str, bool], human: Mapping[str, float],
                    top: Sequence[str]) -> Table2Findings:
    """:class:`Table2Findings` of the Table 2 beside the paper's.

    Args:
        table2: columns ``(metric, "ours")`` and ``(metric, "paper")`` per metric, rows ``top``.
        higher_is_better: metric -> orientation (TER: False), in the order of the table's metrics.
        human: system -> human score; top: the systems, best first by human score.
    """
    metrics = list(higher_is_better)
    equal = [m for m in metrics if (table2[(m, "ours")] - table2[(m, "paper")]).abs().max() < 5e-5]
    firsts = {m: table2[(m, "ours")].idxmax() if higher_is_better[m] else table2[(m, "ours")].idxmin()
              for m in metrics}
    if len(set(firsts.values())) != 1:
        return Table2Findings(equal, metrics)
    s = next(iter(firsts.values()))
    k = list(top).index(s) + 1
    above, below = [human[x] - human[s] for x in top[:k - 1]], [human[s] - human[x] for x in top[k:]]
    return Table2Findings(equal, metrics, s, k, len(top), len(above), min(above, default=None),
                          max(above, default=None), len(below), max(below, default=None),
                          float(human[top[0]]), float(human[top[-1]]))


def negative_turns(curves: pd.DataFrame, n_metrics: int) -> list[dict]:
    """Per language pair, each K (top systems by human score) at which metrics' τ is negative:
    ``{lp, turns: [{k, metrics, all}]}`` (``all`` when every one of ``n_metrics`` is)."""
    out = []
    for lp, grp in curves.groupby("lp", sort=False):
        out.append({"lp": lp, "turns": [{"k": int(k), "metrics": list(g["metric"]),
                                         "all": len(g) == n_metrics > 1}
                                        for k, g in grp[grp["value"] < 0].groupby("k")]})
    return out


def full_range(curves: pd.DataFrame) -> dict:
    """Every metric's τ over all systems (the largest K of each language pair): ``all_positive``,
    and the lowest and highest value with their metric and language pair."""
    full = curves[curves["k"] == curves.groupby("lp")["k"].transform("max")].reset_index(drop=True)
    lo, hi = full.loc[full["value"].idxmin()], full.loc[full["value"].idxmax()]
    return {"all_positive": bool((full["value"] > 0).all()),
            "low": {"value": float(lo["value"]), "metric": lo["metric"], "lp": lo["lp"]},
            "high": {"value": float(hi["value"]), "metric": hi["metric"], "lp": hi["lp"]}}


# -- bootstrap intervals ---------------------------------------------------------------------

def _kendall(boot: pd.DataFrame, subset: str) -> pd.DataFrame:
    return boot[(boot.subset == subset) & (boot.method == "kendall")]


def interval_widths(boot: pd.DataFrame) -> dict:
    """Kendall intervals pooled over language pairs: ``top30_mean_width``, ``all_mean_width``, and
    how many top-30% intervals contain zero (``top30_cover_zero`` of ``top30_n``)."""
    top_k, all_k = _kendall(boot, "top30"), _kendall(boot, "all")
    return {"top30_mean_width": float((top_k["high"] - top_k["low"]).mean()),
            "all_mean_width": float((all_k["high"] - all_k["low"]).mean()),
            "top30_cover_zero": int(((top_k["low"] <= 0) & (top_k["high"] >= 0)).sum()), "top30_n": len(top_k)}


def intervals_by_lp(boot: pd.DataFrame) -> list[dict]:
    """The top-30% Kendall intervals language pair by language pair: ``{lp, width, width_all, n,
    cover_zero, zero_width}`` (mean widths, how many contain zero, the metrics of zero width)."""
    top_k, all_k = _kendall(boot, "top30"), _kendall(boot, "all")
    out = []
    for lp, g in top_k.groupby("lp", sort=False):
        width = g["high"] - g["low"]
        mine = all_k[all_k.lp == lp]
        out.append({"lp": lp, "width": float(width.mean()), "width_all": float((mine["high"] - mine["low"]).mean()),
                    "n": len(g), "cover_zero": int(((g["low"] <= 0) & (g["high"] >= 0)).sum()),
                    "zero_width": list(g.loc[width < 1e-9, "metric"])})
    return out


def top_human_ranges(humans: Mapping[str, Mapping[str, float | None]], fraction: float) -> list[dict]:
    """The human scores of each language pair's top ``fraction`` of systems: ``{lp, high, low}``."""
    out = []
    for lp, h in humans.items():
        top = top_systems(h, fraction=fraction)
        out.append({"lp": lp, "high": float(max(h[s] for s in top)), "low": float(min(h[s] for s in top))})
    return out


# -- the run's data, as a rerun on other data must describe it ---------------------------------------

@dataclass(frozen=True)
class TopGroup:
    """A language pair's top ``fraction`` of systems: ``top`` of ``systems`` with a human score,
    and ``shared``, how many of them share their human score with another top system."""

    lp: str
    top: int
    systems: int
    shared: int


def top_groups(humans: Mapping[str, Mapping[str, float | None]], fraction: float) -> list[TopGroup]:
    """:class:`TopGroup` per language pair."""
    out = []
    for lp, h in humans.items():
        top = top_systems(h, fraction=fraction)
        counts = Counter(h[s] for s in top)
        out.append(TopGroup(lp, len(top), sum(v is not None for v in h.values()),
                            sum(c for c in counts.values() if c > 1)))
    return out


@dataclass(frozen=True)
class DataFindings:
    """What the run's data is: test set, its news test set name, language pairs, the references
    the layout lists as systems (``{lp, n}``), how its text differs from WMT's release, and
    where the data comes from (the citation line)."""

    test_set: str
    newstest: str | None
    language_pairs: list[str]
    refs_as_systems: list[dict]
    caveat: str | None
    sources: str
    paper_test_set: str


def data_findings(test_set: str, evalsets: Mapping[str, object], paper_test_set: str) -> DataFindings:
    """:class:`DataFindings` of the run (``evalsets``: language pair -> :class:`mtlib.data.EvalSet`)."""
    return DataFindings(test_set, newstest_name(test_set), list(evalsets),
                        [{"lp": lp, "n": len(evs.ref_systems)} for lp, evs in evalsets.items() if evs.ref_systems],
                        text_caveat(test_set), sources_line([f"{test_set} {lp}" for lp in evalsets]), paper_test_set)


def table1_display(table1: pd.DataFrame, test_set: str, paper_test_set: str) -> tuple[pd.DataFrame, str]:
    """Table 1 as the chapter shows it, with its caption: beside the paper's columns on the
    paper's test set; ours alone (signed, oriented r, τ, ρ) on any other, whose caption says why."""
    if test_set == paper_test_set:
        return (wide_beside_paper(table1, ["lp", "subset", "metric"], ["r", "tau", "rho"]),
                f"Correlation with the human scores ({test_set}): ours signed and oriented, the paper's Table 1 "
                "(absolute values) and Δ = |ours| − paper where the paper has the setting")
    wide = table1.pivot_table(index=["lp", "subset", "metric"], columns="stat", values="value", aggfunc="first",
                              sort=False)[["r", "tau", "rho"]]
    return wide, (f"Correlation with the human scores ({test_set}, not in the paper, whose Table 1 is "
                  f"{paper_test_set.upper()}): ours, signed and oriented")


