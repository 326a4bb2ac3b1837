"""The difficulty-aware BERTScore chapter's analyses, as tested functions.

The chapter (``notebooks/difficulty_aware_bertscore.ipynb``) scores each evaluation set once
(:func:`evalset_run`) and builds everything else from those runs:

* Table 1 beside the paper: :func:`correlations`, :func:`table1`, :func:`table_value`;
* how much the rescaling baseline ``b`` decides: :func:`baseline_curves`,
  :func:`bertscore_correlations`, :func:`verdict_over_range`, :func:`robustness`;
* the top-K curves (:func:`topk_curves`), Table 3's examples (:func:`example_rows`), the
  bootstrap comparison (:func:`bootstrap_gain`) and difficulty on a subword overlap F
  (:func:`overlap_comparison`, :func:`gain`);
* the sentences that quote the numbers: ``*_sentences`` functions return
  ``{glue name: markdown text}``.

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
from mtlib.difficulty import da_baseline_curve, da_correlation_curve, da_system_stats, token_difficulty
from mtlib.report import beside_paper, max_abs_delta
from mtlib.scoring import SystemStats

__all__ = ["DA", "DA_HELD", "DA_RAW", "PAPER_NAME", "HELD_APART", "EvalsetRun", "da_pair", "held_apart_key",
           "evalset_run", "evalset_overview", "correlations", "table1", "table_value", "table1_sentences",
           "raw_cosine_sentence", "baseline_curves", "bertscore_correlations", "verdict_over_range", "robustness",
           "robustness_sentences", "topk_curves", "example_rows", "example_sentences", "bootstrap_gain",
           "bootstrap_sentences", "overlap_comparison", "gain", "conclusion_sentences"]

DA = "DA-BERTScore"
DA_HELD = "DA-BERTScore (b held apart)"
DA_RAW = "DA-BERTScore (paper eqs., raw)"
# The chapter's metric names -> the paper's Table 1 rows they are compared with.
PAPER_NAME = {"BLEU (intl)": "BLEU", "TER": "TER", "METEOR": "METEOR", "BERTScore": "BERTScore",
              DA: DA, DA_HELD: DA, DA_RAW: DA}
# The held-apart baseline of an evaluation set comes from the other year of the same pair.
HELD_APART = {"wmt19": "wmt18", "wmt18": "wmt19"}


def da_pair(matches: Mapping[str, Sequence[TokenMatches]], top: Sequence[str], baseline_f: float | None = None,
            *, variant: str = "authors", signature: str = "") -> dict[str, SystemStats]:
    """DA-BERTScore over all systems (``"all"``) and over ``top`` (``"top30"``), the difficulty
    computed from exactly the systems scored, similarities rescaled by ``baseline_f``."""
    top_matches = {s: matches[s] for s in top}
    return {"all": da_system_stats(matches, token_difficulty(matches, baseline_f=baseline_f), variant=variant,
                                   baseline_f=baseline_f, signature=signature),
            "top30": da_system_stats(top_matches, token_difficulty(top_matches, baseline_f=baseline_f),
                                     variant=variant, baseline_f=baseline_f, signature=signature)}


@dataclass
class EvalsetRun:
    """One evaluation set scored for the chapter (built by :func:`evalset_run`)."""

    evs: Any
    human: dict[str, float | None]
    top: list[str]
    stats: dict[str, SystemStats]  # surface metrics and BERTScore
    matches: dict[str, list[TokenMatches]]
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
    top_matches = {s: matches[s] for s in top}
    bs = [bf] + ([held[2]] if held is not None else [])
    return EvalsetRun(
        evs=evs, human=human, top=top, stats=dict(stats), matches=dict(matches), baseline=baseline, held=held,
        held_from=held_from, d_all=token_difficulty(matches, baseline_f=bf),
        d_top=token_difficulty(top_matches, baseline_f=bf),
        da=da_pair(matches, top, bf, signature=signature),
        da_raw=da_pair(matches, top, variant="paper", signature=signature),
        da_held=da_pair(matches, top, held[2], signature=signature) if held is not None else None,
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
    gains = [f"{key}: top-30% $r$ of BERTScore {cell(key, 'top30', 'BERTScore'):+.3f} → DA-BERTScore "
             f"{cell(key, 'top30', DA):+.3f} (paper $|r|$: {cell(key, 'top30', 'BERTScore', 'paper'):.3f} → "
             f"{cell(key, 'top30', DA, 'paper'):.3f})" for key in runs if key.startswith("wmt19")]
    raw = [f"{key}: all systems {cell(key, 'all', DA_RAW):+.3f} raw vs {cell(key, 'all', DA):+.3f} "
           f"rescaled, top 30% {cell(key, 'top30', DA_RAW):+.3f} raw vs {cell(key, 'top30', DA):+.3f} "
           "rescaled" for key in runs]
    held = [f"{key}: top 30% {cell(key, 'top30', DA):+.3f} in-set vs {cell(key, 'top30', DA_HELD):+.3f} "
            "held apart" for key, r in runs.items() if r.held is not None]
    return {"surface_verdict": "; ".join(verdicts) if verdicts else "no WMT19 set in this run",
            "top30_gain": "; ".join(gains) if gains else "no WMT19 set in this run",
            "raw_vs_rescaled": "; ".join(raw),
            "held_vs_inset": "; ".join(held) if held else "no held-apart set in this run"}


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
            curves.append(da_baseline_curve(r.matches, r.human, bs, systems=systems).assign(evalset=key,
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


def robustness_sentences(robust: pd.DataFrame) -> dict[str, str]:
    """``b_verdicts`` (top 30%, Pearson: DA-BERTScore's range against BERTScore, and the
    verdict) and ``b_n_depends`` (in how many settings the verdict depends on ``b``)."""
    top_r = robust[(robust.subset == "top30") & (robust.method == "pearson")]
    n_dep = int((robust.verdict.str.contains("depends")).sum())
    return {"b_verdicts": "; ".join(
                f"{row.evalset}: DA-BERTScore $r$ from {row.da_min:+.3f} to {row.da_max:+.3f} against BERTScore's "
                f"{row.bertscore:+.3f}, so {row.verdict}" for row in top_r.itertuples()),
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
        da_curve = da_correlation_curve(r.matches, r.human, ks, method, variant="authors",
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
    (``range low``, ``range high``).

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
                   "range low": da_pair(r.matches, r.top, lo, signature=signature),
                   "range high": da_pair(r.matches, r.top, hi, signature=signature)}
        for subset, systems in r.subsets.items():
            for method in methods:
                for b_name, da_b in da_by_b.items():
                    if da_b is None:
                        continue
                    b, samples = bootstrap_correlations(
                        {"BERTScore": r.stats["BERTScore"], DA: da_b[subset]}, r.human, method, systems=systems,
                        n_resamples=n_resamples, seed=seed, return_samples=True)
                    better = float(np.mean(samples[DA] > samples["BERTScore"]))
                    p_rows.append(dict(evalset=key, subset=subset, method=method, b=b_name, p=better))
                    if b_name == "in-set":
                        boot_rows.append(b.rename_axis("metric").reset_index().assign(
                            evalset=key, subset=subset, method=method))
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
    return {"boot_top": "; ".join(
                f"{key}: {row['in-set']:.2f} at the in-set $b$, from {row['min']:.2f} to {row['max']:.2f} across "
                "the four" for key, row in top_p.iterrows()),
            "boot_settled": f"{n_settle} of {len(p_better)}"}


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
        exact = {s: exact_matches(m) for s, m in r.matches.items()}
        overlap = prf_system_stats("Overlap F", exact, "Overlap|subwords:" + subwords, [r.evs.std_ref])
        da_overlap = {"all": da_system_stats(exact, token_difficulty(exact)),
                      "top30": da_system_stats({s: exact[s] for s in r.top}, token_difficulty(exact, r.top))}
        for subset, systems in r.subsets.items():
            scores = {"BERTScore": r.stats["BERTScore"].system_scores(), DA: r.da[subset].system_scores(),
                      "Overlap F": overlap.system_scores(), "DA-Overlap F": da_overlap[subset].system_scores()}
            rows.append(correlation_table(scores, r.human, {subset: systems}).assign(evalset=key))
    return pd.concat(rows, ignore_index=True)


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
            "n_da_below_bs": f"{int((all_rows[DA] < all_rows['BERTScore']).sum())} of {len(all_rows)}",
            "top30_signed": "; ".join(f"{ts} {lp}: BERTScore {row['BERTScore']:+.3f} → DA-BERTScore {row[DA]:+.3f}"
                                      for (ts, lp), row in top_rows.iterrows()),
            "all_signed": "; ".join(
                f"{ts} {lp}: BERTScore {row['BERTScore']:+.3f}, DA-BERTScore {row[DA]:+.3f}, raw {row[DA_RAW]:+.3f}"
                for (ts, lp), row in all_rows.iterrows()),
            "n_top_gain": f"{int((top_rows[DA] > top_rows['BERTScore']).sum())} of {len(top_rows)}"}
