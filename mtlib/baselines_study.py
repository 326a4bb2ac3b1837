"""The WMT19 baselines chapter's sentences and comparisons, as tested functions.

The chapter (``notebooks/wmt19_baselines.ipynb``) scores and correlates in plain sight; the
functions here turn its tables into what it glues into the prose:

* beside the paper's Table 1: :func:`paper_verdict`, :func:`tokenisation_sentence`,
  :func:`negative_signs` and the bullets that hold them, :func:`what_matches`;
* which metric agrees best, and whether the difference is more than chance:
  :func:`pairwise_accuracy_table` (Kocmi et al. 2021), :func:`versus_best` (PERM-BOTH, one-sided,
  every metric against the highest one, with the verdict of :func:`comparison_verdict`),
  :func:`versus_best_sentence` and :func:`significance_summary`;
* the paper's Table 2 (:func:`table2_sentence`), the top-K curves (:func:`negative_turns`,
  :func:`full_range`), the bootstrap intervals (:func:`interval_widths`, :func:`interval_by_lp`,
  :func:`top_human_range`) and the summary (:func:`top_counts`, :func:`summary_repro`);
* what data the run used, in the words of a rerun on other data: :func:`top_of_all`,
  :func:`data_description`, :func:`data_line`, and Table 1 with or without the paper's columns
  (:func:`table1_display`).

Correlations are *oriented*: TER is negated before it reaches these functions, so a higher
value always means closer agreement with the human scores.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from mtlib.correlation import correlate, top_systems
from mtlib.prose import and_list, capitalised
from mtlib.report import max_abs_delta, wide_beside_paper
from mtlib.significance import p_text, pairwise_accuracy, perm_both_systems
from mtlib.testsets import newstest_name, sources_line, text_caveat

__all__ = ["P_LEVEL", "R_TIE", "TAU_TIE_PAIRS", "VERDICT_PHRASES", "STAT_METHODS", "STAT_NAMES", "signed_value", "paper_verdict",
           "tokenisation_sentence", "negative_signs", "what_matches", "top_counts",
           "pairwise_accuracy_table", "tie_margin", "comparison_verdict", "versus_best", "versus_best_sentence",
           "comparison_bullets", "significance_summary", "table2_sentence", "negative_turns", "full_range", "interval_widths",
           "interval_by_lp", "top_human_range", "summary_repro", "top_of_all", "data_description", "data_line",
           "table1_display", "top_ties"]

P_LEVEL = 0.05  # a "better" claim needs a PERM-BOTH p below this
R_TIE = 0.02  # "about as much as" in Pearson's r: within this much
TAU_TIE_PAIRS = 1.5  # "about as much as" in Kendall's tau: fewer swapped system pairs apart than this
STAT_METHODS = {"r": "pearson", "tau": "kendall", "rho": "spearman"}
# how a verdict of comparison_verdict reads after a p-value
VERDICT_PHRASES = {"better": "significant at 5%", "not significant": "not significant at 5%",
                   "about as much": "within the \"about as much\" margin, not significant at 5%",
                   "about as much, p < 0.05": "significant at 5%, but within the \"about as much\" margin",
                   "tied": "the same value", "not defined": "no test"}
STAT_NAMES = {"r": "Pearson $r$", "tau": "Kendall $\\tau$", "rho": "Spearman $\\rho$"}


# -- beside the paper's Table 1 ---------------------------------------------------------------

def signed_value(table1: pd.DataFrame, lp: str, subset: str, metric: str, stat: str = "r") -> float:
    """The oriented (signed) correlation of one row of the long Table 1 frame; NaN if absent."""
    row = table1[(table1.lp == lp) & (table1.subset == subset) & (table1.metric == metric) & (table1.stat == stat)]
    return float(row["value"].iloc[0]) if len(row) else float("nan")


def paper_verdict(table1: pd.DataFrame, metric: str, metrics: Sequence[str], test_set: str,
                  language_pairs: Sequence[str]) -> str:
    """Whether ``metric``'s rows reproduce the paper's printed values (``delta`` column of
    :func:`mtlib.report.beside_paper`): to all three decimals, up to the largest gap, not run, or
    nothing to compare with."""
    if metric not in metrics:
        return f"{metric} was not run"
    d = max_abs_delta(table1, metric=metric)
    if math.isnan(d):
        return f"the paper has no {metric} values for {test_set} {', '.join(language_pairs)} to compare with"
    if d == 0:
        return f"{metric} reproduces the paper's row to all three decimals in every setting"
    return f"{metric} differs from the paper by up to {d:.3f}"


def tokenisation_sentence(table1: pd.DataFrame, language_pairs: Sequence[str],
                          tests: Mapping[str, pd.DataFrame] | None = None, *, labels: Mapping[str, str] | None = None,
                          subset: str = "top30") -> str:
    """How far the two BLEU tokenisations' signed r lie apart on ``subset``, language pair by
    language pair, and (``tests``: lp -> :func:`versus_best` of the two) which is higher with the
    one-sided PERM-BOTH p-value of "the higher one correlates better"."""
    gaps = [(lp, abs(signed_value(table1, lp, subset, "BLEU") - signed_value(table1, lp, subset, "BLEU (intl)")))
            for lp in language_pairs]
    text = (" The two tokenisations' signed $r$ on the top 30% differ by " + ", ".join(f"{g:.3f} ({lp})" for lp, g in gaps)
            + "; these are differences of the unrounded values, which can differ by 0.001 from those of the rounded "
            "ones in the table.")
    if not tests:
        return text
    labels = labels or {}
    parts = []
    for lp, t in tests.items():
        other = t[t.metric != t.best].iloc[0]
        parts.append(f"{labels.get(other.best, other.best)} on {lp} ({p_text(other.p, t.attrs.get('n_permutations', 1000), nan='p not defined')}: "
                     f"{VERDICT_PHRASES[other.verdict]})")
    some = next(iter(tests.values())).attrs
    return text + (f" The higher signed $r$ belongs to {and_list(parts)} (PERM-BOTH, one-sided, "
                   f"{some.get('n_permutations', 1000):,} permutations, seed {some.get('seed')}).")


def negative_signs(table1: pd.DataFrame, metrics: Sequence[str]) -> str:
    """The bullet that names every negative oriented correlation (absolute values, as the paper
    prints, would hide it) by language pair and subset, and the most negative Kendall τ with every
    metric that ties with it at three decimals."""
    neg = table1[table1["value"] < 0]
    neg_list = []
    for (lp, subset), grp in neg.groupby(["lp", "subset"], sort=False):
        names = [f"{m}" + ("" if len(g) == 3 else f" ({', '.join(g['stat'])})")
                 for m, g in grp.groupby("metric", sort=False)]
        neg_list.append(f"{lp} {subset}: {', '.join(names)}")
    if not neg_list:
        return "* Every oriented correlation is positive in this run (no sign is hidden by absolute values)."
    text = ("* **Absolute values would hide a sign.** Oriented so that positive means agreement with humans, these "
            "correlations are negative: " + "; ".join(neg_list) + " (all three statistics unless named).")
    tau = neg[neg["stat"] == "tau"]
    if len(tau):
        v = tau["value"].min()
        tied = tau[tau["value"].round(3) == round(v, 3)]
        holders = [(f"all {len(g)} metrics" if len(g) == len(metrics) > 1 else ", ".join(g["metric"]))
                   + f" on {lp} ({subset})" for (lp, subset), g in tied.groupby(["lp", "subset"], sort=False)]
        text += (f" The most negative Kendall $\\tau$ is {v:.3f}, "
                 + (f"{holders[0]}" if len(tied) == 1 else "tied: " + "; ".join(holders) + " have it")
                 + f": {'that metric orders' if len(tied) == 1 else 'they order'} those systems mostly *against* the "
                 f"human order, which $|\\tau| = {abs(v):.3f}$ would read as agreement.")
    return text


def what_matches(table1: pd.DataFrame, metrics: Sequence[str], test_set: str, language_pairs: Sequence[str],
                 tokenisation_tests: Mapping[str, pd.DataFrame] | None = None) -> str:
    """The bullets under "What matches, and why": TER, the two BLEU tokenisations (with their
    PERM-BOTH test, :func:`tokenisation_sentence`), METEOR and chrF against the paper's Table 1,
    then the signs (:func:`negative_signs`)."""
    has_paper = bool(table1["paper"].notna().any())
    bullets = []
    if not has_paper:
        bullets.append(f"* The paper's Table 1 covers WMT19 en-de and de-en only; this run ({test_set}, "
                       f"{', '.join(language_pairs)}) has none of its rows, so nothing here is compared with it.")
    elif "TER" in metrics:
        bullets.append(f"* {capitalised(paper_verdict(table1, 'TER', metrics, test_set, language_pairs))}. TER is "
                       "sacrebleu's default (tercom tokens, case-insensitive).")
    if {"BLEU", "BLEU (intl)"} <= set(metrics) and has_paper:
        text = (f"* With sacrebleu's default `13a` tokenisation, {paper_verdict(table1, 'BLEU', metrics, test_set, language_pairs)}; "
                "with its `intl` tokeniser (Unicode punctuation and symbols split off), "
                f"{paper_verdict(table1, 'BLEU (intl)', metrics, test_set, language_pairs)}.")
        if max_abs_delta(table1, metric="BLEU (intl)") == 0 and max_abs_delta(table1, metric="BLEU") > 0:
            text += (" So the paper's BLEU is sacreBLEU with `tokenize=intl`, which the paper does not state; Table 2 "
                     "below checks it system by system.")
        bullets.append(text + tokenisation_sentence(table1, language_pairs, tokenisation_tests,
                                                    labels={"BLEU": "`13a`", "BLEU (intl)": "`intl`"}))
    if "METEOR" in metrics:
        verdict = capitalised(paper_verdict(table1, "METEOR", metrics, test_set, language_pairs)) + ". " if has_paper else ""
        bullets.append(f"* {verdict}The paper ran the Java METEOR 1.5 (paraphrase tables, language-specific "
                       "stemming and tuned weights for German, corpus-level aggregation); NLTK implements the original "
                       "METEOR with English WordNet and Porter stemming for every language, and we average sentence "
                       "scores. Treat our METEOR as a stand-in, not a reproduction.")
    if "chrF" in metrics:
        bullets.append("* chrF is not in the paper; it is a reference point for the later chapters.")
    bullets.append(negative_signs(table1, metrics))
    return "\n".join(bullets)


def top_counts(humans: Mapping[str, Mapping[str, float | None]], fraction: float) -> str:
    """How many systems the top ``fraction`` holds: ``6``, or the range ``4–6`` over language pairs."""
    n = sorted({len(top_systems(h, fraction=fraction)) for h in humans.values()})
    return "–".join(str(k) for k in dict.fromkeys([n[0], n[-1]]))


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


def tie_margin(stat: str, n: int) -> float:
    """The "about as much as" margin: ``R_TIE`` in r (and ρ); in τ, ``TAU_TIE_PAIRS`` swapped pairs
    of ``n`` systems (one swap moves τ by 2/C(n,2))."""
    if stat == "tau":
        return TAU_TIE_PAIRS * 4 / (n * (n - 1)) if n > 1 else math.inf
    return R_TIE


def comparison_verdict(gap: float, p: float, margin: float) -> str:
    """How the highest metric compares with another one ``gap`` below it, with the one-sided
    PERM-BOTH ``p`` of "the highest correlates better": ``tied`` (no gap), ``about as much`` (gap
    within ``margin``), ``about as much, p < 0.05`` (within the margin, yet significant),
    ``better`` (beyond the margin and p < ``P_LEVEL``), ``not significant`` (beyond it, p ≥
    ``P_LEVEL``) or ``not defined`` (NaN)."""
    if gap is None or math.isnan(gap):
        return "not defined"
    if abs(gap) < 1e-12:
        return "tied"
    if gap <= margin + 1e-12:
        return "about as much, p < 0.05" if not math.isnan(p) and p < P_LEVEL else "about as much"
    if math.isnan(p):
        return "not defined"
    return "better" if p < P_LEVEL else "not significant"


def versus_best(scores: Mapping[str, Mapping[str, float]], human: Mapping[str, float | None], stat: str = "r", *,
                systems: Sequence[str] | None = None, n_permutations: int = 1000, seed: int | None = None) -> pd.DataFrame:
    """Every metric against the one with the highest correlation (the first of equals, in the
    order of ``scores``), by PERM-BOTH (:func:`mtlib.significance.perm_both_systems`).

    Args:
        scores: metric -> system -> score, oriented (higher = better).
        stat: ``r``, ``tau`` or ``rho``.
        systems: the systems to use (None: every system with a human score).

    Returns:
        Columns ``metric``, ``value`` (the correlation), ``best``, ``gap`` (best's value − this
        one's), ``p`` (one-sided p of "best correlates better than this one"; NaN for the best and
        where a metric is constant or fewer than 3 systems), ``n`` (systems) and ``verdict``
        (:func:`comparison_verdict`; ``highest`` for the best). ``attrs``: ``n_permutations``, ``seed``.
    """
    method = STAT_METHODS[stat]
    corr = {m: correlate(s, human, method, systems=systems) for m, s in scores.items()}
    values = pd.Series({m: c.value for m, c in corr.items()}, dtype=float)
    if values.isna().all():
        best = next(iter(scores))
    else:
        best = values.index[int(np.nanargmax(values.to_numpy()))]
    rows = []
    for m, c in corr.items():
        gap, p = values[best] - c.value, math.nan
        if m != best:
            try:
                p = perm_both_systems(scores[m], scores[best], human, method, systems=systems,
                                      n_permutations=n_permutations, seed=seed).pvalue
            except ValueError:  # a constant metric or too few systems: no test
                pass
        verdict = "highest" if m == best else comparison_verdict(gap, p, tie_margin(stat, c.n))
        rows.append({"metric": m, "value": c.value, "best": best, "gap": gap, "p": p, "n": c.n, "verdict": verdict})
    df = pd.DataFrame(rows)
    df.attrs.update(n_permutations=n_permutations, seed=seed)
    return df


def versus_best_sentence(tests: pd.DataFrame, stat: str, label: str) -> str:
    """One sentence from :func:`versus_best`: the highest metric and, grouped by verdict, how it
    compares with each other one (signed values and p-values given)."""
    n_perm = tests.attrs.get("n_permutations", 1000)
    best = tests[tests.verdict == "highest"].iloc[0]
    name = STAT_NAMES[stat]
    if math.isnan(best.value):
        return f"{label}, {name}: no correlation is defined"

    def items(verdict, with_p=True):
        g = tests[tests.verdict == verdict]
        return [f"{r.metric} ({r.value:+.3f}" + (f", {p_text(r.p, n_perm, nan='p not defined')})" if with_p else ")") for r in g.itertuples()]

    tied = items("tied", with_p=False)
    if len(tied) == len(tests) - 1:
        return f"{label}, {name}: all {len(tests)} metrics have the same value ({best.value:+.3f}), so none is higher"
    head = (f"{label}, {name}: {best.metric} is highest ({best.value:+.3f})" if not tied else
            f"{label}, {name}: {best.metric} ties for the highest ({best.value:+.3f}) with "
            f"{and_list(list(tests.loc[tests.verdict == 'tied', 'metric']))}")
    margin = ("within 0.02 in $r$" if stat != "tau" else f"less than {TAU_TIE_PAIRS:g} swapped pairs apart in $\\tau$")
    parts = []
    if items("better"):
        parts.append(f"it correlates better than {and_list(items('better'))}")
    if items("not significant"):
        parts.append(f"it is above {and_list(items('not significant'))}, but not significantly at 5%")
    if items("about as much"):
        parts.append(f"it agrees about as much as {and_list(items('about as much'))}, {margin}")
    if items("about as much, p < 0.05"):
        close = items("about as much, p < 0.05")
        parts.append(f"it is {margin} of {and_list(close)}, which this chapter calls about as much, though the permutation "
                     f"test finds {'that small difference' if len(close) == 1 else 'those small differences'} "
                     "significant at 5%")
    if items("not defined"):
        parts.append(f"its comparison with {and_list(items('not defined'))} is not defined")
    return head + ("; " + "; ".join(parts) if parts else "")


def comparison_bullets(tests: pd.DataFrame, *, n_permutations: int = 1000) -> str:
    """One bullet (:func:`versus_best_sentence`) per language pair, subset and statistic of the
    stacked :func:`versus_best` frames (columns ``lp``, ``subset``, ``stat`` added), each labelled
    with its systems ("en-de, all 22 systems", "de-en, top 30% (4 systems)")."""
    bullets = []
    for (lp, subset, stat), g in tests.groupby(["lp", "subset", "stat"], sort=False):
        g = g.copy()
        g.attrs["n_permutations"] = n_permutations
        n = int(g["n"].max())
        label = f"{lp}, all {n} systems" if subset == "all" else f"{lp}, top 30% ({n} systems)"
        bullets.append(f"* {versus_best_sentence(g, stat, label)}.")
    return "\n".join(bullets)


def significance_summary(tests: pd.DataFrame) -> str:
    """How many of the comparisons with the highest metric (rows of :func:`versus_best` stacked
    with ``lp``, ``subset``, ``stat`` columns) are "better" claims, and how many are not
    significant or within the "about as much" margin."""
    others = tests[tests.verdict != "highest"]
    counts = others.verdict.value_counts()
    n_groups = len(tests.groupby(["lp", "subset", "stat"]))
    better, nonsig = int(counts.get("better", 0)), int(counts.get("not significant", 0))
    close = int(counts.get("about as much", 0) + counts.get("about as much, p < 0.05", 0))
    ties = int(counts.get("tied", 0))

    def verb(n, one, many):
        return f"{n} {one if n == 1 else many}"

    return (f"Of the {len(others)} comparisons of a metric with the highest one ({n_groups} settings: language pair, "
            f"systems and statistic), {verb(better, 'is', 'are')} significant at 5% and beyond the \"about as much\" "
            f"margin; {verb(nonsig, 'is', 'are')} not significant, {verb(close, 'lies', 'lie')} within the margin and "
            f"{verb(ties, 'is an exact tie', 'are exact ties')}")


# -- the paper's Table 2 and Figure 2 --------------------------------------------------------

def table2_sentence(table2: pd.DataFrame, higher_is_better: Mapping[str, bool], human: Mapping[str, float],
                    top: Sequence[str]) -> str:
    """Which of the Table 2 metrics equal the paper's printed scores (to four decimals), and, when
    they all put the same system first, where humans rank it and by how much.

    Args:
        table2: columns ``(metric, "ours")`` and ``(metric, "paper")`` per metric, rows ``top``.
        higher_is_better: metric -> orientation (TER: False), in the order of the table's metrics.
        human: system -> human score; top: the systems, best first by human score.
    """
    metrics = list(higher_is_better)
    equal = [m for m in metrics if (table2[(m, "ours")] - table2[(m, "paper")]).abs().max() < 5e-5]
    firsts = {m: table2[(m, "ours")].idxmax() if higher_is_better[m] else table2[(m, "ours")].idxmin()
              for m in metrics}
    human_rank = {s: i + 1 for i, s in enumerate(top)}
    text = (f"{' and '.join(equal)} equal the paper's printed scores to four decimals, so their ranks and "
            "$\\Sigma|\\Delta\\text{rank}|$ agree too." if equal else
            "None of our scores equals the paper's printed ones to four decimals.")
    if len(set(firsts.values())) == 1:
        s = next(iter(firsts.values()))
        k = human_rank[s]
        text += (f" All {len(firsts)} metrics of Table 2 ({', '.join(firsts)}) put {s} first; humans rank it "
                 f"number {k} of {len(top)}")
        above, below = [human[x] - human[s] for x in top[:k - 1]], [human[s] - human[x] for x in top[k:]]
        if above:
            text += (f", {min(above):.3f} to {max(above):.3f} below the {len(above)} system"
                     f"{'s' if len(above) != 1 else ''} they rank higher"
                     + (f" and within {max(below):.3f} of the {len(below)} they rank lower" if below else "")
                     + f". The {len(top)} human z-scores run from {human[top[0]]:.3f} to {human[top[-1]]:.3f} and "
                     "carry no interval here: the metrics order these strong systems differently from the human "
                     "scores, and this table cannot say which order is right")
        text += "."
    return text


def negative_turns(curves: pd.DataFrame, n_metrics: int) -> str:
    """Per language pair, the K (top systems by human score) at which metrics' τ is negative, and
    which metrics (``all N metrics`` when every one of ``n_metrics`` is)."""
    turns = []
    for lp, grp in curves.groupby("lp", sort=False):
        neg_k = [(int(k), list(g["metric"])) for k, g in grp[grp["value"] < 0].groupby("k")]
        turns.append(f"{lp}, " + ("; ".join(f"K = {k}: " + (f"all {len(ms)} metrics" if len(ms) == n_metrics > 1
                                                             else ", ".join(ms)) for k, ms in neg_k)
                                  or "no metric at any K"))
    return ". ".join(turns)


def full_range(curves: pd.DataFrame) -> str:
    """Whether every metric's τ over all systems (the largest K of each language pair) is positive,
    and its lowest and highest value with their metric and language pair."""
    full = curves[curves["k"] == curves.groupby("lp")["k"].transform("max")].reset_index(drop=True)
    lo, hi = full.loc[full["value"].idxmin()], full.loc[full["value"].idxmax()]
    return (("every metric's $\\tau$ is positive" if (full["value"] > 0).all() else
             "not every metric's $\\tau$ is positive")
            + f", from {lo['value']:.3f} ({lo['metric']}, {lo['lp']}) to {hi['value']:.3f} ({hi['metric']}, {hi['lp']})")


# -- bootstrap intervals and the summary -----------------------------------------------------

def _kendall(boot: pd.DataFrame, subset: str) -> pd.DataFrame:
    return boot[(boot.subset == subset) & (boot.method == "kendall")]


def interval_widths(boot: pd.DataFrame) -> dict:
    """Kendall intervals pooled over language pairs: ``top30_mean_width``, ``all_mean_width`` and
    ``top30_cover_zero`` ("k of n" top-30% intervals that contain zero)."""
    top_k, all_k = _kendall(boot, "top30"), _kendall(boot, "all")
    return {"top30_mean_width": float((top_k["high"] - top_k["low"]).mean()),
            "all_mean_width": float((all_k["high"] - all_k["low"]).mean()),
            "top30_cover_zero": f"{int(((top_k['low'] <= 0) & (top_k['high'] >= 0)).sum())} of {len(top_k)}"}


def interval_by_lp(boot: pd.DataFrame, *, short: bool = False) -> str:
    """The top-30% Kendall intervals language pair by language pair: mean width against all
    systems', how many contain zero (not in the ``short`` form) and which have zero width."""
    top_k, all_k = _kendall(boot, "top30"), _kendall(boot, "all")
    out = []
    for lp, g in top_k.groupby("lp", sort=False):
        width = g["high"] - g["low"]
        zero = list(g.loc[width < 1e-9, "metric"])
        w_all = float((all_k[all_k.lp == lp]["high"] - all_k[all_k.lp == lp]["low"]).mean())
        if short:
            out.append(f"{lp}: mean width {width.mean():.2f} against {w_all:.2f} over all systems"
                       + (f", and {len(zero)} of {len(g)} intervals of zero width" if zero else ""))
        else:
            out.append(f"{lp}: mean width {width.mean():.2f} (all systems: {w_all:.2f}), "
                       f"{int(((g['low'] <= 0) & (g['high'] >= 0)).sum())} of {len(g)} contain zero"
                       + (f", {len(zero)} of {len(g)} have zero width ({', '.join(zero)})" if zero else ""))
    return "; ".join(out)


def top_human_range(humans: Mapping[str, Mapping[str, float | None]], fraction: float) -> str:
    """The human scores of each language pair's top ``fraction`` of systems, highest to lowest."""
    ranges = []
    for lp, h in humans.items():
        top = top_systems(h, fraction=fraction)
        ranges.append(f"{lp}: {max(h[s] for s in top):.3f} to {min(h[s] for s in top):.3f}")
    return "; ".join(ranges)


def summary_repro(table1: pd.DataFrame, metrics: Sequence[str], test_set: str, language_pairs: Sequence[str],
                  paper_test_set: str) -> str:
    """The summary's first bullet: which of TER and the two BLEUs reproduce the paper's rows
    exactly, or that none does (and why, for another test set)."""
    repro = [m for m in ["TER", "BLEU (intl)", "BLEU"] if m in metrics and max_abs_delta(table1, metric=m) == 0]
    if repro:
        return (f"The meta-evaluation reproduces the paper's {' and '.join(repro)} rows **exactly** in this run"
                + (" (BLEU with sacreBLEU's `intl` tokenisation, which the paper does not state)"
                   if "BLEU (intl)" in repro else "") + ".")
    return (f"This run ({test_set}, {', '.join(language_pairs)}) has no row that reproduces a printed number of the paper"
            + (" (the paper's Table 1 is WMT19 en-de and de-en)." if test_set != paper_test_set else "."))


# -- the run's data, as a rerun on other data must describe it ---------------------------------------

def top_of_all(humans: Mapping[str, Mapping[str, float | None]], fraction: float) -> str:
    """"6 of 22 for en-de, 4 of 16 for de-en": the top ``fraction`` of each language pair's
    systems with a human score."""
    return ", ".join(f"{len(top_systems(h, fraction=fraction))} of {sum(v is not None for v in h.values())} for {lp}"
                     for lp, h in humans.items())


def data_description(test_set: str, evalsets: Mapping[str, object]) -> str:
    """The Data section's paragraph for the run's test set and language pairs (``evalsets``:
    language pair -> :class:`mtlib.data.EvalSet`): which files, which human scores, which
    systems, and how the text differs from WMT's release where it does."""
    name = newstest_name(test_set)
    refs_as_systems = [f"{lp} has {len(evs.ref_systems)}" for lp, evs in evalsets.items() if evs.ref_systems]
    caveat = text_caveat(test_set)
    return (f"{test_set.upper()} {name + ' ' if name else ''}sources, references and system outputs for "
            f"{and_list(list(evalsets))}, with the official system-level DA z-scores, in google-research/mt-metrics-eval's "
            f"layout (the README of the data root, `../shared/data/README.md` on the book's machines, gives the "
            f"provenance). Every MT system with a human score is used; the references that the layout also lists as "
            f"\"systems\" ({'; '.join(refs_as_systems) or 'none in this run'}) are not."
            + (f" This copy of {test_set.upper()}'s text is {caveat}, which changes BLEU's, TER's and chrF's numbers."
               if caveat else ""))


def data_line(test_set: str, language_pairs: Sequence[str]) -> str:
    """The summary's "Data:" line: the run's sets and the task and paper to cite with them."""
    return f"Data: {sources_line([f'{test_set} {lp}' for lp in language_pairs])}; cite them when reusing these numbers"


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


def top_ties(humans: Mapping[str, Mapping[str, float | None]], fraction: float) -> str:
    """Which language pairs' top ``fraction`` of systems hold tied human scores ("de-en's top 4
    systems include two with the same human score"), or that none does."""
    parts = []
    for lp, h in humans.items():
        top = top_systems(h, fraction=fraction)
        counts = Counter(h[s] for s in top)
        shared = sum(c for c in counts.values() if c > 1)  # systems whose human score another top system has too
        if shared:
            parts.append(f"{lp}'s top {len(top)} systems include "
                         + ("two with the same human score" if shared == 2 else
                            f"{shared} that share their human score with another"))
    return and_list(parts) if parts else "no top group of this run has tied human scores"
