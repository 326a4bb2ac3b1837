"""The difficulty-aware BERTScore chapter's analyses and findings, as tested functions.

The chapter (``notebooks/difficulty_aware_bertscore.ipynb``) scores each evaluation set once
(:func:`evalset_run`) and builds everything else from those runs:

* Table 1 beside the paper: :func:`correlations`, :func:`table1`, :func:`table_value`;
* how much the rescaling baseline ``b`` decides: :func:`baseline_curves`,
  :func:`bertscore_correlations`, :func:`verdict_over_range` (a :class:`RangeVerdict`),
  :func:`robustness`;
* the top-K curves (:func:`topk_curves`), Table 3's examples (:func:`example_rows`), the
  bootstrap comparison (:func:`bootstrap_gain`) and difficulty on a subword overlap F
  (:func:`overlap_comparison`, :func:`gain`);
* "B correlates better than A", tested the book's one way: :func:`family_tests` runs the
  two-sided PERM-BOTH of :func:`mtlib.significance.compare_systems` (systems swapped) for every
  pair of metrics and setting, :func:`page_family` adjusts all of the page's comparisons together
  (Holm, :func:`mtbook.comparisons.family`), :func:`floors` gives the smallest p that the
  systems allow and whether Holm leaves room for a significant one, :func:`family_display` and
  :func:`find` read the family;
* what the chapter's words quote, as plain data (the sentences are the chapter's Markdown
  templates and ``notebooks/difficulty_aware_bertscore.macros.j2``): :func:`baseline_findings`,
  :func:`raw_cosine_findings`, :func:`tie_findings`, :func:`table1_findings`,
  :func:`gap_findings`, :func:`comparison_rows`, :func:`versus_counts`, :func:`perm_counts`,
  :func:`robustness_findings`, :func:`table2_findings`, :func:`table3_findings`,
  :func:`difficulty_findings`, :func:`bootstrap_findings`, :func:`conclusion_findings`,
  :func:`other_sets`.

Subsets are named ``"all"`` (every system with a human score) and ``"top30"`` (the top
systems by human score; the chapter's ``top_fraction``). "DA-BERTScore" is the authors'
pipeline (similarities rescaled by ``b``, F of the mean DA-P and DA-R); "paper eqs., raw" is
equations (3)-(5) on raw cosines with the mean sentence F.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from mtlib.bertscore import TokenMatches, exact_matches, prf_system_stats
from mtlib.bootstrap import bootstrap_correlations
from mtlib.correlation import correlate, correlation_curve, correlation_table, top_systems
from mtlib.difficulty import (DifficultyIndex, da_baseline_curve, da_correlation_curve, da_system_stats,
                              token_difficulty)
from mtbook.paper_tables import beside_paper, max_abs_delta, wide_beside_paper
from mtlib.scoring import SystemStats
from mtbook.comparisons import Compared, family
from mtlib.significance import ALPHA, Comparison, Verdict, compare_systems

__all__ = ["DA", "DA_HELD", "DA_RAW", "PAPER_NAME", "HELD_APART", "HELD_APART_NOTE", "EvalsetRun", "da_pair",
           "held_apart_key", "evalset_run", "evalset_overview", "correlations", "table1", "table_value",
           "baseline_curves", "bertscore_correlations", "RangeVerdict", "verdict_over_range", "robustness",
           "topk_curves", "example_rows", "bootstrap_gain", "b_columns", "overlap_scores", "overlap_comparison",
           "gain", "ALPHA", "STAT_METHODS", "STAT_LABELS", "CLAIMS", "OVERLAP_CLAIMS", "PAPER_SETS", "metric_scores",
           "family_tests", "page_family", "family_display", "find", "p_cell", "table1_displays",
           "puts_first", "AUTHORS_MODEL",
           "baseline_findings", "raw_cosine_findings", "tie_findings", "table1_findings", "gap_findings",
           "comparison_rows", "versus_counts", "perm_counts", "robustness_findings", "table2_findings",
           "table3_findings", "difficulty_findings", "bootstrap_findings", "conclusion_findings", "other_sets",
           "authors_models", "PAPER_IMPLEMENTATION"]

DA = "DA-BERTScore"
DA_HELD = "DA-BERTScore (b held apart)"
DA_RAW = "DA-BERTScore (paper eqs., raw)"
# The chapter's metric names -> the paper's Table 1 rows they are compared with.
PAPER_NAME = {"BLEU (intl)": "BLEU", "TER": "TER", "METEOR": "METEOR", "BERTScore": "BERTScore",
              DA: DA, DA_HELD: DA, DA_RAW: DA}
# The held-apart baseline of an evaluation set comes from the other year of the same pair.
HELD_APART = {"wmt19": "wmt18", "wmt18": "wmt19"}


def da_pair(matches: Mapping[str, Sequence[TokenMatches]] | DifficultyIndex, top: Sequence[str],
            baseline_f: float | None = None, *, variant: str = "authors", signature: str = "") -> dict[str, SystemStats]:
    """DA-BERTScore over all systems (``"all"``) and over ``top`` (``"top30"``), the difficulty
    computed from exactly the systems scored, similarities rescaled by ``baseline_f``."""
    index = DifficultyIndex.of(matches)
    return {name: da_system_stats(index, index.difficulty(systems, baseline_f=baseline_f), systems=systems,
                                  variant=variant, baseline_f=baseline_f, signature=signature)
            for name, systems in {"all": None, "top30": list(top)}.items()}


@dataclass
class EvalsetRun:
    """One evaluation set scored for the chapter (built by :func:`evalset_run`)."""

    evs: Any
    human: dict[str, float | None]
    top: list[str]
    stats: dict[str, SystemStats]  # surface metrics and BERTScore
    matches: dict[str, list[TokenMatches]]
    index: DifficultyIndex  # the matches, flat, for DA-BERTScore at any b and subset
    baseline: tuple[float, float, float]  # in-set (P, R, F) of unrelated pairs; b = F
    held: tuple[float, float, float] | None  # the same from the held-apart set
    held_from: str | None
    d_all: list[np.ndarray]  # difficulty from all systems, rescaled by the in-set b
    d_top: list[np.ndarray]  # ... from the top systems
    da: dict[str, SystemStats]  # DA-BERTScore at the in-set b ("all", "top30")
    da_raw: dict[str, SystemStats]  # the paper's equations on raw cosines
    da_held: dict[str, SystemStats] | None  # DA-BERTScore at the held-apart b
    b_range: tuple[float, float]  # the plausible range of b

    @property
    def subsets(self) -> dict[str, list[str] | None]:
        return {"all": None, "top30": self.top}


def held_apart_key(key: str, available: Mapping[str, Sequence[str]]) -> str | None:
    """The evaluation set (``"TESTSET LP"``) whose text gives ``key``'s held-apart baseline: the
    other WMT year of the same pair (:data:`HELD_APART`), or None when it is not in ``available``
    (test set -> language pairs, as :func:`mtlib.data.list_evalsets`)."""
    test_set, lp = key.split()
    other = HELD_APART.get(test_set)
    return f"{other} {lp}" if other is not None and lp in available.get(other, []) else None


def evalset_run(evs, stats: Mapping[str, SystemStats], matches: Mapping[str, Sequence[TokenMatches]],
                baseline: Sequence[float], *, held: Sequence[float] | None = None, held_from: str | None = None,
                top_fraction: float = 0.3, signature: str = "", b_margin: float = 0.05) -> EvalsetRun:
    """Everything the chapter derives from one evaluation set's scores and token matches.

    Args:
        evs: the evaluation set (its ``human_sys()`` gives the human scores).
        stats: metric name -> statistics (surface metrics and ``"BERTScore"``).
        matches: system -> token matches.
        baseline: in-set (P, R, F) of unrelated pairs; ``b`` is the F.
        held: the same, estimated on ``held_from`` (None: no held-apart set).
        top_fraction: the share of top systems (by human score).
        signature: the BERTScore signature, recorded in DA-BERTScore's.
        b_margin: the plausible range of ``b`` is the estimates widened by this on each side
            (not below 0).
    """
    human = evs.human_sys()
    top = top_systems(human, fraction=top_fraction)
    bf = baseline[2]
    index = DifficultyIndex(matches)
    bs = [bf] + ([held[2]] if held is not None else [])
    return EvalsetRun(
        evs=evs, human=human, top=top, stats=dict(stats), matches=dict(matches), index=index, baseline=baseline,
        held=held, held_from=held_from, d_all=token_difficulty(index, baseline_f=bf),
        d_top=token_difficulty(index, top, baseline_f=bf),
        da=da_pair(index, top, bf, signature=signature),
        da_raw=da_pair(index, top, variant="paper", signature=signature),
        da_held=da_pair(index, top, held[2], signature=signature) if held is not None else None,
        b_range=(max(0.0, min(bs) - b_margin), max(bs) + b_margin))


def evalset_overview(runs: Mapping[str, EvalsetRun]) -> pd.DataFrame:
    """One row per evaluation set: its size, top systems and the two baseline estimates."""
    return pd.DataFrame([{"evaluation set": k, "segments": r.evs.n_segments, "MT systems": len(r.evs.mt_systems),
                          "top 30%": len(r.top), "b in-set (F)": r.baseline[2],
                          "b held apart (F)": r.held[2] if r.held is not None else float("nan"),
                          "held apart from": r.held_from or "–",
                          "plausible range of b": f"{r.b_range[0]:.3f}–{r.b_range[1]:.3f}"}
                         for k, r in runs.items()]).set_index("evaluation set")


def correlations(key: str, run: EvalsetRun) -> pd.DataFrame:
    """Table 1 rows of one evaluation set: every metric's r, tau, rho with the human scores
    (signed and oriented: lower-is-better metrics negated), over all systems and the top ones,
    DA-BERTScore with the difficulty of the systems ranked. Columns of
    :func:`mtlib.correlation.correlation_table` plus ``test_set`` and ``lp``."""
    parts = []
    for subset, systems in run.subsets.items():
        scores = {m: st.system_scores() for m, st in run.stats.items()}
        scores[DA] = run.da[subset].system_scores()
        if run.da_held is not None:
            scores[DA_HELD] = run.da_held[subset].system_scores()
        scores[DA_RAW] = run.da_raw[subset].system_scores()
        lower = [m for m, st in run.stats.items() if not st.metric.higher_is_better]
        parts.append(correlation_table(scores, run.human, {subset: systems}, lower_is_better=lower))
    test_set, lp = key.split()
    return pd.concat(parts, ignore_index=True).assign(test_set=test_set, lp=lp)


def table1(runs: Mapping[str, EvalsetRun], paper: pd.DataFrame, *, paper_test_set: str = "wmt19") -> pd.DataFrame:
    """Every run's :func:`correlations`, with the paper's value beside each row that it has
    (:func:`mtbook.paper_tables.beside_paper`; ``paper`` has columns lp, subset, metric, stat, paper,
    for ``paper_test_set``). Our metric names map to the paper's rows by :data:`PAPER_NAME`."""
    table = pd.concat([correlations(k, r) for k, r in runs.items()], ignore_index=True)
    table["paper_metric"] = table["metric"].map(PAPER_NAME)
    paper = paper.rename(columns={"metric": "paper_metric"}).assign(test_set=paper_test_set)
    return beside_paper(table, paper, on=["test_set", "lp", "subset", "paper_metric", "stat"])


def table_value(table: pd.DataFrame, key: str, subset: str, metric: str, stat: str = "r",
                col: str = "value") -> float:
    """One number of :func:`table1` (``col``: ``value``, ``paper``, ``delta``...); NaN if absent."""
    row = table[(table.test_set + " " + table.lp == key) & (table.subset == subset)
                & (table.metric == metric) & (table.stat == stat)]
    return float(row[col].iloc[0]) if len(row) else float("nan")


def baseline_curves(runs: Mapping[str, EvalsetRun], grid: Sequence[float]) -> pd.DataFrame:
    """DA-BERTScore's Pearson and Kendall correlation as a function of ``b``
    (:func:`mtlib.difficulty.da_baseline_curve`) at the ``grid`` values, both estimates and the two
    ends of the plausible range, per
    evaluation set and subset. Columns ``b``, ``method``, ``value``, ``evalset``, ``subset``."""
    curves = []
    for key, r in runs.items():
        # the grid, both estimates and the ends of the plausible range (the robustness verdicts read them)
        bs = sorted(set(grid) | {r.baseline[2]} | ({r.held[2]} if r.held is not None else set()) | set(r.b_range))
        for subset, systems in r.subsets.items():
            curves.append(da_baseline_curve(r.index, r.human, bs, systems=systems).assign(evalset=key,
                                                                                          subset=subset))
    return pd.concat(curves, ignore_index=True)


def bertscore_correlations(runs: Mapping[str, EvalsetRun], methods: Sequence[str] = ("pearson", "kendall")
                           ) -> dict[tuple[str, str, str], float]:
    """BERTScore's correlation with humans, ``(evalset, subset, method) -> value``."""
    return {(key, subset, method): correlate(r.stats["BERTScore"].system_scores(), r.human, method,
                                             systems=systems).value
            for key, r in runs.items() for subset, systems in r.subsets.items() for method in methods}


class RangeVerdict(str, enum.Enum):
    """How DA-BERTScore's correlation stands against BERTScore's over the plausible range of ``b``."""

    ABOVE = "above"  # above BERTScore at every b evaluated in the range
    BELOW = "below"  # below at every b
    TIE = "tie"  # equal at every b (e.g. the same Kendall tau over a few systems)
    DEPENDS = "depends on b"  # above, below or equal at different b


def verdict_over_range(curves: pd.DataFrame, bertscore: float, b_range: tuple[float, float],
                       tol: float = 1e-12) -> dict[str, Any]:
    """Whether DA-BERTScore stays above (or below, or equal to) BERTScore for every ``b`` in ``b_range``.

    Args:
        curves: one evaluation set, subset and method of :func:`baseline_curves` (``b``, ``value``),
            which holds the range's end points.
        bertscore: BERTScore's correlation in the same setting.
        b_range: the plausible range of ``b`` (ends included).
        tol: differences within this of zero are a tie.

    Returns:
        ``b_low``, ``b_high``, ``da_min``, ``da_max`` (DA-BERTScore over the range),
        ``bertscore`` and ``verdict`` (a :class:`RangeVerdict` value).
    """
    lo, hi = b_range
    d = curves[(curves.b >= lo - 1e-9) & (curves.b <= hi + 1e-9)]
    diff = d["value"] - bertscore
    if len(diff) and (diff.abs() <= tol).all():
        word = RangeVerdict.TIE
    elif len(diff) and (diff > tol).all():
        word = RangeVerdict.ABOVE
    elif len(diff) and (diff < -tol).all():
        word = RangeVerdict.BELOW
    else:
        word = RangeVerdict.DEPENDS
    return dict(b_low=lo, b_high=hi, da_min=d["value"].min(), da_max=d["value"].max(), bertscore=bertscore,
                verdict=word.value)


def robustness(runs: Mapping[str, EvalsetRun], curves: pd.DataFrame,
               bertscore: Mapping[tuple[str, str, str], float],
               methods: Sequence[str] = ("pearson", "kendall")) -> pd.DataFrame:
    """:func:`verdict_over_range` for every evaluation set, subset and method, as rows with
    ``evalset``, ``subset``, ``method`` first."""
    rows = []
    for key, r in runs.items():
        for subset in r.subsets:
            for method in methods:
                d = curves[(curves.evalset == key) & (curves.subset == subset) & (curves.method == method)]
                rows.append(dict(evalset=key, subset=subset, method=method)
                            | verdict_over_range(d, bertscore[(key, subset, method)], r.b_range))
    return pd.DataFrame(rows)


def topk_curves(runs: Mapping[str, EvalsetRun], method: str = "kendall") -> pd.DataFrame:
    """The paper's Figure 2: every metric's correlation over the top-K systems, K = 3..N,
    scores oriented (lower-is-better negated); DA-BERTScore's difficulty recomputed from the
    top K at the in-set ``b``. Columns ``metric``, ``k``, ``value``, ``evalset``."""
    curves = []
    for key, r in runs.items():
        n = sum(v is not None for v in r.human.values())
        ks = list(range(3, n + 1))
        oriented = {m: {s: (v if st.metric.higher_is_better else -v) for s, v in st.system_scores().items()}
                    for m, st in r.stats.items()}
        c = correlation_curve(oriented, r.human, method, ks=ks)
        da_curve = da_correlation_curve(r.index, r.human, ks, method, variant="authors",
                                        baseline_f=r.baseline[2])
        curves.append(pd.concat([c, da_curve.assign(metric=DA)]).assign(evalset=key))
    return pd.concat(curves, ignore_index=True)


def example_rows(run: EvalsetRun, examples: Sequence[str], systems: Mapping[str, str]) -> list[dict[str, Any]]:
    """Table 3: for each example reference sentence found in the run (others are skipped), its
    token ids and top-30% difficulty, and per system (short name -> system) its output, its
    sentence BERTScore F and its sentence DA-BERTScore F (top-30% difficulty, in-set ``b``).

    Returns:
        Dicts with ``example`` (index in ``examples``), ``segment``, ``ref_ids``, ``difficulty``
        and ``systems`` (short name -> ``{"output", "bertscore", "da"}``).
    """
    refs = run.evs.refs[run.evs.std_ref]
    rows = []
    for n_ex, sentence in enumerate(examples):
        if sentence not in refs:
            continue
        i = refs.index(sentence)
        scores = {}
        for short, name in systems.items():
            p_da, r_da = run.da["top30"][name][i, :2]
            scores[short] = {"output": run.evs.outputs[name][i], "bertscore": run.stats["BERTScore"][name][i, 2],
                             "da": 2 * p_da * r_da / (p_da + r_da) if p_da + r_da else 0.0}
        first = next(iter(systems.values()))
        rows.append({"example": n_ex, "segment": i, "ref_ids": run.matches[first][i].ref_ids,
                     "difficulty": run.d_top[i], "systems": scores})
    return rows


def bootstrap_gain(runs: Mapping[str, EvalsetRun], *, n_resamples: int, seed: int | None,
                   signature: str = "", methods: Sequence[str] = ("pearson", "kendall")
                   ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Bootstrap over segments of BERTScore against DA-BERTScore (the same resamples for both).

    For each evaluation set, subset and method, DA-BERTScore is evaluated at four values of
    ``b``: ``in-set``, ``held apart`` (when there is one) and both ends of the plausible range
    (``range low``, ``range high``), all on the same resamples (one draw for every ``b``, also
    when ``seed`` is None).

    Returns:
        ``boot``: the intervals at the in-set ``b`` (columns metric, value, low, high, n,
        evalset, subset, method; ``boot.attrs["signature"]`` is the last bootstrap's);
        ``p_better``: the share of resamples in which DA-BERTScore correlates better,
        indexed by (evalset, subset, method), one column per ``b`` and their ``min``, ``max``.
    """
    boot_rows, p_rows = [], []
    for key, r in runs.items():
        lo, hi = r.b_range
        da_by_b = {"in-set": r.da, "held apart": r.da_held,
                   "range low": da_pair(r.index, r.top, lo, signature=signature),
                   "range high": da_pair(r.index, r.top, hi, signature=signature)}
        tried = {b_name: da_b for b_name, da_b in da_by_b.items() if da_b is not None}
        for subset, systems in r.subsets.items():
            for method in methods:
                # one bootstrap for BERTScore and every b: the same resamples as one call per b
                b, samples = bootstrap_correlations(
                    {"BERTScore": r.stats["BERTScore"], **{name: da_b[subset] for name, da_b in tried.items()}},
                    r.human, method, systems=systems, n_resamples=n_resamples, seed=seed, return_samples=True)
                for b_name in tried:
                    better = float(np.mean(samples[b_name] > samples["BERTScore"]))
                    p_rows.append(dict(evalset=key, subset=subset, method=method, b=b_name, p=better))
                boot_rows.append(b.loc[["BERTScore", "in-set"]].rename(index={"in-set": DA}).rename_axis("metric")
                                 .reset_index().assign(evalset=key, subset=subset, method=method))
    boot = pd.concat(boot_rows, ignore_index=True)
    boot.attrs["signature"] = b.attrs["signature"]
    p_better = pd.DataFrame(p_rows).pivot_table(index=["evalset", "subset", "method"], columns="b", values="p",
                                                sort=False)
    p_better["min"], p_better["max"] = p_better.min(axis=1), p_better.max(axis=1)
    return boot, p_better


def b_columns(p_better: pd.DataFrame) -> list[str]:
    """The values of ``b`` at which :func:`bootstrap_gain` computed the share (a held-apart
    column only where some set has a held-apart estimate)."""
    return [c for c in p_better.columns if c not in ("min", "max") and p_better[c].notna().any()]


HELD_APART_NOTE = "the held-apart pairing covers only WMT18 and WMT19"


def overlap_comparison(runs: Mapping[str, EvalsetRun], subwords: str) -> pd.DataFrame:
    """Difficulty weighting on a second metric: a bag-of-subwords overlap F (exact token
    matches, :func:`mtlib.bertscore.exact_matches`) with and without difficulty weights (the
    paper's equations, difficulty from the systems ranked), beside BERTScore and DA-BERTScore.

    Args:
        subwords: the tokeniser's identity, recorded in the overlap F's signature.

    Returns:
        Signed correlations (:func:`mtlib.correlation.correlation_table`) with ``evalset``.
    """
    rows = []
    for key, r in runs.items():
        for subset, scores in overlap_scores(r, subwords).items():
            rows.append(correlation_table(scores, r.human, {subset: r.subsets[subset]}).assign(evalset=key))
    return pd.concat(rows, ignore_index=True)


def overlap_scores(run: EvalsetRun, subwords: str) -> dict[str, dict[str, dict[str, float]]]:
    """The system scores :func:`overlap_comparison` correlates, ``{subset: {metric: {system:
    score}}}``: BERTScore, DA-BERTScore, the subword overlap F and its difficulty-weighted
    version (difficulty from the subset's systems)."""
    exact = {s: exact_matches(m) for s, m in run.matches.items()}
    overlap = prf_system_stats("Overlap F", exact, "Overlap|subwords:" + subwords, [run.evs.std_ref])
    index = DifficultyIndex(exact)
    da_overlap = {subset: da_system_stats(index, index.difficulty(systems), systems=systems)
                  for subset, systems in {"all": None, "top30": run.top}.items()}
    return {subset: {"BERTScore": run.stats["BERTScore"].system_scores(), DA: run.da[subset].system_scores(),
                     "Overlap F": overlap.system_scores(), "DA-Overlap F": da_overlap[subset].system_scores()}
            for subset in run.subsets}


def gain(beyond: pd.DataFrame, metric_da: str, metric_base: str, stat: str = "r") -> pd.Series:
    """``metric_da`` minus ``metric_base`` per (evalset, subset), from :func:`overlap_comparison`."""
    g = beyond[beyond.stat == stat].pivot_table(index=["evalset", "subset"], columns="metric", values="value",
                                                aggfunc="first").reindex(columns=[metric_da, metric_base])
    return g[metric_da] - g[metric_base]  # NaN where a correlation is undefined


# -- "A correlates better than B", tested ------------------------------------------------------

STAT_METHODS = {"r": "pearson", "tau": "kendall", "rho": "spearman"}
STAT_LABELS = {"r": "r", "tau": "τ", "rho": "ρ"}  # the statistic as a comparison prints it
# The comparisons the chapter states, as (A, B): every other metric of Table 1 and the paper's
# equations on raw cosines against DA-BERTScore; the overlap F against its difficulty-weighted version.
CLAIMS = [("BERTScore", DA), ("BLEU (intl)", DA), ("TER", DA), ("METEOR", DA), (DA_RAW, DA)]
OVERLAP_CLAIMS = [("Overlap F", "DA-Overlap F")]
# The evaluation sets of the paper's Table 1.
PAPER_SETS = ("wmt19 en-de", "wmt19 de-en")


def metric_scores(run: EvalsetRun, subset: str) -> dict[str, dict[str, float]]:
    """Every metric's system scores for ``subset``, oriented so that higher is better (TER
    negated): the surface metrics and BERTScore, DA-BERTScore at the in-set and (when there is
    one) the held-apart ``b``, and the paper's equations on raw cosines, the DA variants with
    the difficulty of the subset's systems."""
    scores = {m: {s: (v if st.metric.higher_is_better else -v) for s, v in st.system_scores().items()}
              for m, st in run.stats.items()}
    scores[DA] = run.da[subset].system_scores()
    if run.da_held is not None:
        scores[DA_HELD] = run.da_held[subset].system_scores()
    scores[DA_RAW] = run.da_raw[subset].system_scores()
    return scores


def family_tests(runs: Mapping[str, EvalsetRun], pairs: Sequence[tuple[str, str]], *,
                 stats: Sequence[str] = ("r", "tau", "rho"), subsets: Sequence[str] = ("all", "top30"),
                 extra: Mapping[tuple[str, str], Mapping[str, Mapping[str, float]]] | None = None,
                 n_permutations: int = 1000, seed: int | None = None) -> list[tuple[dict, str, str, str, Comparison]]:
    """The book's two-sided PERM-BOTH (:func:`mtlib.significance.compare_systems`, systems
    swapped) for every evaluation set, subset, statistic and pair ``(A, B)``, as
    :func:`mtbook.comparisons.family` takes them: setting ``{evalset, subset, n}`` (``n``: the
    systems with a human score), A, B, the
    statistic as printed (:data:`STAT_LABELS`) and the comparison (``delta`` = B − A).

    Args:
        runs: the chapter's runs; scores from :func:`metric_scores`.
        pairs: ``(A, B)`` names; a pair with a name missing from a run (METEOR without WordNet,
            no held-apart set) is left out.
        extra: more scores per ``(evalset, subset)`` (e.g. :func:`overlap_scores`), oriented.
    """
    out = []
    for key, r in runs.items():
        for subset, systems in r.subsets.items():
            if subset not in subsets:
                continue
            scores = metric_scores(r, subset) | dict((extra or {}).get((key, subset), {}))
            n = sum(1 for s in (systems if systems is not None else r.human) if r.human.get(s) is not None)
            for a, b in pairs:
                if a not in scores or b not in scores:
                    continue
                for stat in stats:
                    c = compare_systems(scores[a], scores[b], r.human, STAT_METHODS[stat], systems=systems,
                                        n_permutations=n_permutations, seed=seed)
                    out.append(({"evalset": key, "subset": subset, "n": n}, a, b, STAT_LABELS[stat], c))
    return out


def page_family(tests: Sequence[tuple[dict, str, str, str, Comparison]]) -> list[Compared]:
    """Every comparison of the page (:func:`family_tests` of the Table 1 claims and of the
    overlap F, in one list), Holm-adjusted together (:func:`mtbook.comparisons.family`)."""
    return family(tests)


def _least_holm(row: Compared, above: int) -> float:
    """The least Holm-adjusted p that ``row`` could get in a family with ``above`` p-values at or
    above alpha: its floor times at least ``above + 1``."""
    return min(1.0, min(row.exact_floor, row.mc_floor) * (1 + above))


def _above(rows: Sequence[Compared], alpha: float = ALPHA) -> int:
    return sum(1 for r in rows if not math.isnan(r.p) and r.p >= alpha)


def family_display(rows: Sequence[Compared], b: str = DA) -> pd.DataFrame:
    """The page's comparisons with ``b`` as one table: per evaluation set, subset, other metric
    (A) and number of systems, for each statistic (columns ``(stat, value)``) ``B − A``, ``p``,
    ``Holm p`` and the verdict (``B better`` written as "DA-BERTScore better", ``A better`` as "other better")."""
    words = {Verdict.B_BETTER: "DA-BERTScore better", Verdict.A_BETTER: "other better"}
    records = [{"evalset": r.setting["evalset"], "subset": r.setting["subset"], "other": r.a,
                "n": r.setting["n"], "stat": r.stat, "B − A": r.delta, "p": r.p, "Holm p": r.p_holm,
                "verdict": words.get(r.verdict, r.verdict.value)} for r in rows if r.b == b]
    index, values = ["evalset", "subset", "other", "n"], ["B − A", "p", "Holm p", "verdict"]
    df = pd.DataFrame(records, columns=index + ["stat"] + values)
    wide = df.set_index(index + ["stat"])[values].unstack("stat").swaplevel(axis=1)
    stats = list(dict.fromkeys(df["stat"]))
    rows = pd.MultiIndex.from_frame(df[index].drop_duplicates())  # the family's order, not sorted
    return wide.reindex(index=rows, columns=pd.MultiIndex.from_product([stats, values], names=["stat", None]))


def find(rows: Sequence[Compared], evalset: str, subset: str, stat: str, a: str, b: str) -> Compared | None:
    """The family's comparison of B with A in one setting (``stat``: ``r``, ``tau`` or ``rho``)."""
    for r in rows:
        if (r.setting.get("evalset"), r.setting.get("subset"), r.stat, r.a, r.b) == (evalset, subset,
                                                                                   STAT_LABELS[stat], a, b):
            return r
    return None


# -- tables ---------------------------------------------------------------------------------

def table1_displays(table: pd.DataFrame, paper_sets: Sequence[str] = PAPER_SETS) -> list[tuple[pd.DataFrame, str]]:
    """The tables of Table 1's section, each with its caption: the paper's evaluation sets with
    the paper's values beside ours (:func:`mtbook.paper_tables.wide_beside_paper`), and the other sets
    of the run with ours alone (signed r, τ, ρ). A run without the paper's sets gets only the
    second."""
    key = table.test_set + " " + table.lp
    out = []
    ours = table[key.isin(paper_sets)]
    if len(ours):
        out.append((wide_beside_paper(ours, ["lp", "subset", "metric"], ["r", "tau", "rho"]),
                    "Correlation with the WMT19 human z-scores: ours signed and oriented, the paper's Table 1 "
                    "(absolute values) and Δ = |ours| − paper"))
    rest = table[~key.isin(paper_sets)]
    if len(rest):
        wide = rest.pivot_table(index=["test_set", "lp", "subset", "metric"], columns="stat", values="value",
                                aggfunc="first", sort=False)[["r", "tau", "rho"]]
        sets = ", ".join(dict.fromkeys(key[~key.isin(paper_sets)]))
        out.append((wide, f"Correlation with the human z-scores on {sets} (not in the paper): ours, signed and "
                          "oriented"))
    return out


# The authors' code's default encoder (bert_score 0.3.7) by target language: English or any other.
AUTHORS_MODEL = {"en": "roberta-large (layer 17)", "other": "bert-base-multilingual-cased (layer 9)"}


def p_cell(p: float, n_permutations: int) -> str:
    """A p-value for a table cell: ``0.020``, ``<0.005`` when no draw reached the observed
    difference, ``–`` when not tested."""
    if p is None or p != p:
        return "–"
    return f"<{1 / n_permutations:.3g}" if p == 0 else f"{p:.3f}"


def puts_first(table2: pd.DataFrame, metric: str) -> bool:
    """Whether ``metric`` ranks the humans' best system first: its ``(metric, "Δ")`` (human rank
    − metric rank) is 0 in the first row of the paper's Table 2 (rows in human order)."""
    return bool(table2[(metric, "Δ")].iloc[0] == 0)



# -- findings: what the chapter's words quote, as plain data --------------------------------------

def _num(x: Any) -> float | None:
    """A number for the page: None where it is missing or undefined (NaN)."""
    return None if x is None or x != x else float(x)


def baseline_findings(runs: Mapping[str, EvalsetRun], b_margin: float) -> dict[str, Any]:
    """The baseline estimates the page names: ``margin`` (the plausible range is the estimates
    widened by it on each side) and per evaluation set its ``held_from`` (None: no held-apart
    estimate), ``b`` (in-set), ``b_held``, ``low`` and ``high`` (the plausible range)."""
    return {"margin": b_margin,
            "sets": [{"key": k, "held_from": r.held_from if r.held is not None else None, "b": float(r.baseline[2]),
                      "b_held": float(r.held[2]) if r.held is not None else None,
                      "low": float(r.b_range[0]), "high": float(r.b_range[1])} for k, r in runs.items()]}


def raw_cosine_findings(runs: Mapping[str, EvalsetRun], threshold: float = 0.7) -> dict[str, float]:
    """How low raw cosines go: the share of hypothesis tokens whose best match is below
    ``threshold`` (``below``), the same over tokens absent from the reference
    (``below_absent``), and the medians (``median``, ``median_absent``)."""
    best, absent = [], []
    for r in runs.values():
        for ms in r.matches.values():
            for m in ms:
                best.append(m.hyp_max)
                absent.append(m.hyp_max[~np.isin(m.hyp_ids, m.ref_ids)])
    best, absent = np.concatenate(best), np.concatenate(absent)
    return {"threshold": threshold, "below": float(np.mean(best < threshold)),
            "below_absent": float(np.mean(absent < threshold)), "median": float(np.median(best)),
            "median_absent": float(np.median(absent))}


def tie_findings(runs: Mapping[str, EvalsetRun]) -> dict[str, Any]:
    """Where top systems share a human score (there ``τ_b`` and ``τ_a`` differ): per set with
    such a tie, ``key``, ``n_top`` and ``n_tied`` (systems sharing a score); ``paper_de_en``:
    whether the run has WMT19 de-en, whose printed τ (0.548) is a ``τ_b``."""
    sets = []
    for key, r in runs.items():
        tied = int(pd.Series({s: r.human[s] for s in r.top}).duplicated(keep=False).sum())
        if tied:
            sets.append({"key": key, "n_top": len(r.top), "n_tied": tied})
    return {"sets": sets, "paper_de_en": "wmt19 de-en" in runs}


def table1_findings(table: pd.DataFrame, runs: Mapping[str, EvalsetRun], surface: Sequence[str],
                    test_set: str = "wmt19") -> dict[str, Any]:
    """Table 1's numbers that the words quote.

    Returns:
        ``surface``: per surface metric with a paper value, its largest ``|Δ|`` (``max_delta``,
        0 where every printed value is reproduced), how many printed values it has (``n_values``)
        and how many it reproduces (``n_equal``); ``sets``: per evaluation set the signed
        ``r`` of BERTScore, DA-BERTScore, the paper's equations on raw cosines and (None where
        absent) DA-BERTScore at the held-apart ``b``, over all systems (``*_all``) and the top
        ones (``*_top``), the paper's printed ``|r|`` on the top 30% (None where the paper has
        no value) and the number of systems (``n_all``, ``n_top``).
    """
    deltas = {m: max_abs_delta(table, metric=m, test_set=test_set) for m in surface}

    def cell(key, subset, metric, col="value"):
        return _num(table_value(table, key, subset, metric, col=col))

    sets = []
    for key, r in runs.items():
        sets.append({"key": key, "n_all": sum(v is not None for v in r.human.values()), "n_top": len(r.top),
                     **{f"{name}_{sub}": cell(key, "all" if sub == "all" else "top30", metric)
                        for sub in ("all", "top")
                        for name, metric in [("bs", "BERTScore"), ("da", DA), ("raw", DA_RAW), ("held", DA_HELD)]},
                     "paper_bs_top": cell(key, "top30", "BERTScore", "paper"),
                     "paper_da_top": cell(key, "top30", DA, "paper")})
    def printed(m):
        d = table.loc[(table["metric"] == m) & (table["test_set"] == test_set), "delta"].dropna()
        return {"n_values": int(len(d)), "n_equal": int((d == 0).sum())}

    return {"surface": [{"metric": m, "max_delta": float(d), **printed(m)} for m, d in deltas.items() if d == d],
            "sets": sets}


def authors_models(lps: Sequence[str]) -> list[dict[str, str]]:
    """The authors' code's default encoder for the target languages of ``lps`` (``"de-en"``...):
    ``target`` ``"en"`` (roberta-large) or ``"other"`` (multilingual BERT) and the ``model``
    (:data:`AUTHORS_MODEL`), in order of first use."""
    targets = dict.fromkeys("en" if lp.split("-")[1] == "en" else "other" for lp in lps)
    return [{"target": t, "model": AUTHORS_MODEL[t]} for t in targets]


# The metrics whose implementation is the paper's (sacreBLEU): a gap cannot come from the implementation.
PAPER_IMPLEMENTATION = ("BLEU (intl)", "TER")


def gap_findings(table: pd.DataFrame, *, n_segments: int | None, top_sizes: Sequence[int] = (),
                 test_set: str = "wmt19") -> dict[str, Any]:
    """How far our Table 1 rows are from the paper's, per metric (the words name the likely
    reasons).

    Returns:
        ``deltas``: per metric with a paper value, ``metric``, ``delta`` (largest ``|Δ|``),
        ``own`` (its implementation is the paper's), ``top`` and ``all`` (the largest over the
        top 30% and over all systems); ``n_segments`` (None: all, as the paper);
        ``authors_models`` (:func:`authors_models` of the paper's pairs in the run); ``top_sizes``
        (``lo``, ``hi``: systems in the top 30% of the paper's sets; None without them).
    """
    lps = sorted(set(table.loc[(table.test_set == test_set) & table["paper"].notna(), "lp"]))
    deltas = []
    for m in dict.fromkeys(table.metric):
        d = max_abs_delta(table, metric=m, test_set=test_set)
        if d == d:
            deltas.append({"metric": m, "delta": float(d), "own": m in PAPER_IMPLEMENTATION,
                           "top": _num(max_abs_delta(table, metric=m, test_set=test_set, subset="top30")),
                           "all": _num(max_abs_delta(table, metric=m, test_set=test_set, subset="all"))})
    return {"deltas": deltas, "n_segments": n_segments, "authors_models": authors_models(lps),
            "top_sizes": {"lo": min(top_sizes), "hi": max(top_sizes)} if top_sizes else None}


def comparison_rows(rows: Sequence[Compared], a: str, b: str, *, subsets: Sequence[str] = ("all", "top30"),
                    stats: Sequence[str] = ("r",), alpha: float = ALPHA) -> list[dict[str, Any]]:
    """The family's comparisons of ``b`` with ``a`` (rows of :func:`page_family`) as records for
    the words: ``evalset``, ``subset``, ``n`` (systems), ``stat`` (as printed), ``a``, ``b``,
    ``corr_a``, ``corr_b``, ``delta`` (B − A), ``p`` (two-sided; None when untested), ``p_holm``
    (Holm-adjusted over the page), ``verdict`` (:class:`mtlib.significance.Verdict` value, on
    the adjusted p), ``reason`` (why untested), ``n_permutations`` and ``possible`` (whether any
    data over these systems could make it significant on this page)."""
    above = _above(rows, alpha)
    labels = [STAT_LABELS[s] for s in stats]
    return [{"evalset": r.setting["evalset"], "subset": r.setting["subset"], "n": int(r.setting["n"]),
             "stat": r.stat, "a": r.a, "b": r.b, "corr_a": _num(r.corr_a), "corr_b": _num(r.corr_b),
             "delta": _num(r.delta), "p": _num(r.p), "p_holm": _num(r.p_holm), "verdict": r.verdict.value,
             "reason": r.reason, "n_permutations": r.n_permutations,
             "possible": bool(not math.isnan(r.p) and _least_holm(r, above) < alpha)}
            for r in rows if (r.a, r.b) == (a, b) and r.setting["subset"] in subsets and r.stat in labels]


def versus_counts(rows: Sequence[Compared], b: str = DA, *, alpha: float = ALPHA) -> list[dict[str, Any]]:
    """How ``b`` fares against each other metric (A) over every setting (evaluation set,
    systems, statistic) of the family: ``other``, ``n`` (settings), ``above`` and ``below`` (B's
    correlation higher, lower), ``tie``, ``untested``, ``better`` and ``worse`` (B better, A
    better after Holm's adjustment), ``raw`` (p below alpha before it) and ``few`` (tested
    settings that no data could make significant on this page)."""
    above_alpha = _above(rows, alpha)
    out: dict[str, dict[str, Any]] = {}
    for r in rows:
        if r.b != b:
            continue
        tested = r.verdict not in (Verdict.TIE, Verdict.UNTESTED)
        c = out.setdefault(r.a, {"other": r.a, "n": 0, "above": 0, "below": 0, "tie": 0, "untested": 0,
                                 "better": 0, "worse": 0, "raw": 0, "few": 0})
        c["n"] += 1
        c["above"] += tested and r.delta > 0
        c["below"] += tested and r.delta < 0
        c["tie"] += r.verdict is Verdict.TIE
        c["untested"] += r.verdict is Verdict.UNTESTED
        c["better"] += r.verdict is Verdict.B_BETTER
        c["worse"] += r.verdict is Verdict.A_BETTER
        c["raw"] += tested and r.p < alpha
        c["few"] += not math.isnan(r.p) and _least_holm(r, above_alpha) >= alpha
    return list(out.values())


def perm_counts(rows: Sequence[Compared], a: str = "BERTScore", b: str = DA, stats: Sequence[str] = ("r", "tau"),
                *, alpha: float = ALPHA) -> dict[str, Any]:
    """In how many (evaluation set, systems, statistic) settings the family finds ``b`` and ``a``
    apart after Holm's adjustment (``sig`` of ``n``; ``up``: ``b`` better, ``down``: worse), and in
    how many no data could make a difference significant on this page (``few``)."""
    g = comparison_rows(rows, a, b, stats=stats, alpha=alpha)
    return {"n": len(g), "sig": sum(x["verdict"] in (Verdict.A_BETTER.value, Verdict.B_BETTER.value) for x in g),
            "up": sum(x["verdict"] == Verdict.B_BETTER.value for x in g),
            "down": sum(x["verdict"] == Verdict.A_BETTER.value for x in g),
            "few": sum(x["p"] is not None and not x["possible"] for x in g)}


def robustness_findings(robust: pd.DataFrame, rows: Sequence[Compared] | None = None) -> dict[str, Any]:
    """The robustness verdicts the words quote: ``top_r`` (top 30%, Pearson: per set the
    range ``b_low``–``b_high``, DA-BERTScore's ``da_min``/``da_max``, ``bertscore``, the
    ``verdict`` and, with the page's family ``rows``, its comparison of DA-BERTScore with
    BERTScore at the in-set ``b``, the only ``b`` tested: a :func:`comparison_rows` record or
    None) and ``counts`` (cases per verdict over every set, subset and statistic, with ``n``)."""
    top_r = robust[(robust.subset == "top30") & (robust.method == "pearson")]
    out = []
    for row in top_r.itertuples():
        test = None
        if rows is not None:
            found = comparison_rows([r for r in rows if r.setting["evalset"] == row.evalset], "BERTScore", DA,
                                    subsets=["top30"])
            test = found[0] if found else None
        out.append({"evalset": row.evalset, "b_low": float(row.b_low), "b_high": float(row.b_high),
                    "da_min": _num(row.da_min), "da_max": _num(row.da_max), "bertscore": _num(row.bertscore),
                    "verdict": row.verdict, "test": test})
    counts = {v.value: int((robust.verdict == v.value).sum()) for v in RangeVerdict}
    return {"top_r": out, "counts": counts | {"n": len(robust)}}


def table2_findings(sums: Mapping[str, Mapping[str, float]] | None, da_first: bool | None, *,
                    n_segments: int | None = None) -> dict[str, Any]:
    """The paper's Table 2 (the six best WMT19 en-de systems): ``has_set`` (the run has WMT19
    en-de), ``da_first`` (DA-BERTScore ranks Facebook's system first, as humans do), ``same``
    (metrics whose Σ|Δ| equals the paper's), ``differ`` (``metric``, ``ours``, ``paper``) and
    ``n_segments``."""
    sums = sums or {}
    return {"has_set": bool(sums), "da_first": da_first, "n_segments": n_segments,
            "same": [m for m, v in sums.items() if v["Σ|Δ| ours"] == v["Σ|Δ| paper"]],
            "differ": [{"metric": m, "ours": int(v["Σ|Δ| ours"]), "paper": int(v["Σ|Δ| paper"])}
                       for m, v in sums.items() if v["Σ|Δ| ours"] != v["Σ|Δ| paper"]]}


def table3_findings(rows: Sequence[Mapping[str, Any]], *, has_set: bool, n_segments: int | None = None,
                    bertscore_prefers: str = "MSRA", da_prefers: str = "Facebook") -> dict[str, Any]:
    """The paper's Table 3 (``rows``: :func:`example_rows`): ``has_set``, ``n`` (examples found
    among the segments scored), ``bs_prefers`` (in how many BERTScore prefers
    ``bertscore_prefers``), ``da_prefers`` (in how many DA-BERTScore prefers ``da_prefers``),
    ``n_segments``."""
    bs_wins = da_wins = 0
    for row in rows:
        s = row["systems"]
        (other,) = [k for k in s if k != bertscore_prefers]
        bs_wins += s[bertscore_prefers]["bertscore"] > s[other]["bertscore"]
        (other,) = [k for k in s if k != da_prefers]
        da_wins += s[da_prefers]["da"] > s[other]["da"]
    return {"has_set": has_set, "n": len(rows), "bs_prefers": int(bs_wins), "da_prefers": int(da_wins),
            "n_segments": n_segments}


def topk_findings(curves: pd.DataFrame, competitive: int = 10) -> list[dict[str, Any]]:
    """The paper's Figure 2 (``curves``: :func:`topk_curves`), per evaluation set: over the K up to
    ``competitive`` (the paper: "especially when ... K <= 10") and over all K, at how many K
    DA-BERTScore's correlation is above BERTScore's (``above``), below it (``below``), level with it
    (``level``), and the number of K (``n``); ``above_k``: the K where it is above; ``k6``: both at
    K = 6 (the paper's example), None when the set has fewer."""
    out = []
    for key, c in curves.groupby("evalset", sort=False):
        wide = c.pivot(index="k", columns="metric", values="value")  # an undefined τ stays NaN, uncounted
        diff = wide[DA] - wide["BERTScore"]
        counts = {name: {"n": int(d.notna().sum()), "above": int((d > 0).sum()), "below": int((d < 0).sum()),
                         "level": int((d == 0).sum())}
                  for name, d in (("competitive", diff[diff.index <= competitive]), ("all", diff))}
        k6 = ({"bertscore": float(wide.loc[6, "BERTScore"]), "da": float(wide.loc[6, DA])} if 6 in wide.index
              else None)
        out.append({"evalset": key, "competitive_k": competitive, **counts, "k6": k6,
                    "above_k": [int(k) for k in diff.index[diff > 0]]})
    return out


def difficulty_findings(d_all: Sequence[float], d_top: Sequence[float], key: str,
                        paper_key: str = "wmt19 en-de") -> dict[str, Any]:
    """What the difficulty histogram shows, beside the paper's Figure 3 (``paper_key``):
    ``median`` and ``mean_all`` (all systems), ``mean_top`` (top systems), ``easy`` (median
    below 0.5: most tokens easy) and ``shifted`` (the top systems' mean is lower)."""
    d_all, d_top = np.asarray(d_all, float), np.asarray(d_top, float)
    return {"key": key, "paper_key": paper_key, "median": float(np.median(d_all)),
            "mean_all": float(d_all.mean()), "mean_top": float(d_top.mean()),
            "easy": bool(np.median(d_all) < 0.5), "shifted": bool(d_top.mean() < d_all.mean())}


def bootstrap_findings(p_better: pd.DataFrame, rows: Sequence[Compared], a: str = "BERTScore",
                       b: str = DA) -> dict[str, Any]:
    """The bootstrap share P(DA better) and how the page's family reads the same settings.

    Returns:
        ``b_values`` (the ``b`` columns, :func:`b_columns`); ``top`` (top 30%, Pearson: per set
        ``inset``, ``min``, ``max``); ``n`` (settings) and ``settled``: the settings where the
        share stays >= 0.95 (``up``) or <= 0.05 for every ``b`` tried, each with the family's
        comparison of ``b`` with ``a`` at the in-set ``b`` (:func:`comparison_rows` record, None
        if not tested) and ``confirmed`` (its verdict, on the Holm-adjusted p, in the same
        direction).
    """
    stat_of = {v: k for k, v in STAT_METHODS.items()}
    top = [{"evalset": key, "inset": _num(row["in-set"]), "min": _num(row["min"]), "max": _num(row["max"])}
           for key, row in p_better.xs(("top30", "pearson"), level=("subset", "method")).iterrows()]
    settled = []
    for (key, subset, method), row in p_better[(p_better["min"] >= 0.95) | (p_better["max"] <= 0.05)].iterrows():
        up = bool(row["min"] >= 0.95)
        found = comparison_rows([r for r in rows if r.setting["evalset"] == key], a, b, subsets=[subset],
                                stats=[stat_of[method]])
        test = found[0] if found else None
        want = Verdict.B_BETTER if up else Verdict.A_BETTER
        settled.append({"evalset": key, "subset": subset, "stat": STAT_LABELS[stat_of[method]], "up": up,
                        "share": _num(row["in-set"]), "test": test,
                        "confirmed": bool(test is not None and test["verdict"] == want.value)})
    return {"b_values": b_columns(p_better), "top": top, "n": len(p_better), "settled": settled}


def conclusion_findings(table: pd.DataFrame, beyond: pd.DataFrame) -> dict[str, Any]:
    """The conclusion's counts over evaluation sets (``n_sets``; signed ``r`` unless named):
    ``top_gain`` (DA-BERTScore above BERTScore on the top 30%), ``da_below_bs`` (below it over
    all systems), ``raw_negative`` (the paper's equations on raw cosines correlate negatively
    over all systems, per statistic), and over (evaluation set, subset) settings (``n_settings``)
    ``gain_bs`` and ``gain_ov`` (difficulty weighting raises ``r`` over BERTScore, over the
    overlap F)."""
    g_bs, g_ov = gain(beyond, DA, "BERTScore"), gain(beyond, "DA-Overlap F", "Overlap F")
    signed = (table[(table.stat == "r")].pivot(index=["test_set", "lp", "subset"], columns="metric", values="value")
              .reindex(columns=[DA, "BERTScore"]))  # NaN (an undefined correlation) kept: it counts as no gain
    all_rows, top_rows = signed.xs("all", level="subset"), signed.xs("top30", level="subset")
    raw_negative = {st: int((v < 0).sum()) for st in ("r", "tau", "rho")
                    if len(v := table[(table.stat == st) & (table.subset == "all") & (table.metric == DA_RAW)].value)}
    return {"n_sets": len(all_rows), "top_gain": int((top_rows[DA] > top_rows["BERTScore"]).sum()),
            "da_below_bs": int((all_rows[DA] < all_rows["BERTScore"]).sum()), "raw_negative": raw_negative,
            "n_settings": len(g_bs), "gain_bs": int((g_bs > 0).sum()), "gain_ov": int((g_ov > 0).sum())}


def other_sets(evalsets: Sequence[str], paper_sets: Sequence[str] = PAPER_SETS) -> list[str]:
    """The sets of this run outside the paper's Table 1."""
    return [k for k in evalsets if k not in paper_sets]
