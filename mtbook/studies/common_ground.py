"""The common-ground chapter ("Which idea survives?"): the four papers' ideas on the same MQM sets,
meta-evaluated as the WMT metrics tasks of 2021–2024 do, as tables and findings.

Every set is one :class:`ScoredSet`: the MT systems with a human system score, the segments, the
human scores (on an MQM set systems × segments, NaN where not judged; on a DA set such as WMT19's,
one score per system) and each metric's segment scores, *oriented* (higher is better: TER, WMD, Otem
and Utem enter negated), so that every statistic reads "higher is closer to the humans".

* :func:`rankings` — each metric's soft pairwise accuracy (system level, Thompson et al. 2024)
  and acc-eq (segment level, grouped by item, Deutsch et al. 2023) on an MQM set, or pairwise
  accuracy (system level, Kocmi et al. 2021) on a DA set, with its rank cluster
  (:func:`mtlib.metaeval.compare_metrics`); :func:`plot_clusters` draws the system-level ones;
* one function per idea, each returning entries of the page's family
  (:func:`mtbook.comparisons.family`, Holm over the page): :func:`stat_test` (difficulty
  weighting: PERM-BOTH on SPA or acc-eq, two-sided), :func:`vat_test` (the VAT subset's ranking
  against random subsets of its size, one-sided as the idea claims), :func:`cross_set_test`
  (the ensemble against its best single feature on another set), :func:`error_tests` (Otem/Utem
  against BLEU/chrF on MQM additions/omissions, sources swapped whole);
* :func:`idea_verdict` and :func:`data_factor` — a verdict per idea and how much more data its
  closest test would need.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

from mtbook.comparisons import Compared
from mtbook.evidence import TOO_FEW, borderline, too_few
from mtlib.metaeval import MetricRanking, compare_metrics, metric_values, perm_both_stat
from mtlib.significance import ALPHA, Comparison, Verdict, compare

__all__ = ["STATISTICS", "SYSTEM_STATISTICS", "ScoredSet", "statistics_of", "mqm_selection", "scored_set", "restrict", "CONSTANT", "rankings", "constant_on_top",
           "no_better_than_constant", "untested", "ranking_frame", "transfer_pairs",
           "top_clusters", "plot_clusters", "stat_test", "statistic_values", "rank_tau", "vat_positions", "cluster_agreement",
           "vat_test", "cell_rows", "cross_set_test", "error_tests", "IdeaVerdict", "idea_verdict", "data_factor",
           "idea_summary"]

# the page's statistics on an MQM set: name -> (mtlib.metaeval statistic, average_by)
STATISTICS = {"SPA": ("spa", "none"), "acc-eq": ("acc_eq", "item")}
# on a set with human system scores only (WMT19 DA): pairwise accuracy of the systems' mean segment scores
SYSTEM_STATISTICS = {"pairwise accuracy": ("accuracy", "none")}
_ALL_STATISTICS = STATISTICS | SYSTEM_STATISTICS


@dataclass(frozen=True)
class ScoredSet:
    """One set, scored once: each of ``metrics`` is a systems × segments array (oriented, higher is
    better); ``human`` is one too on an MQM set (NaN where not judged), or a vector of system scores
    on a DA set. ``undefined``: per metric, the segment scores it could not give (an SCM or WMD with no
    word that has a vector on a side), set to that metric's lowest score on the set."""

    key: str
    systems: tuple[str, ...]
    segments: tuple[int, ...]  # line numbers of the segments in the set
    sources: tuple[str, ...]  # the source text of each segment
    human: np.ndarray
    metrics: dict[str, np.ndarray]
    undefined: dict[str, int] = dataclasses.field(default_factory=dict)


def statistics_of(s: ScoredSet) -> dict[str, tuple[str, str]]:
    """The page's statistics for ``s``: :data:`STATISTICS` with human segment scores,
    :data:`SYSTEM_STATISTICS` with human system scores only."""
    return STATISTICS if s.human.ndim == 2 else SYSTEM_STATISTICS


def mqm_selection(human_sys: Mapping[str, float | None], human_seg: Mapping[str, Sequence[float | None]],
                  n_segments: int | None = None) -> tuple[list[str], list[int]]:
    """The systems with an MQM system score and a segment score list, and the positions of the
    segments judged for at least one of them (the first ``n_segments`` of those; None: all)."""
    systems = [s for s, v in human_sys.items() if v is not None and s in human_seg]
    if len(systems) < 2:
        raise ValueError(f"need at least 2 systems with MQM system and segment scores, got {systems}")
    n = len(human_seg[systems[0]])
    judged = [i for i in range(n) if any(human_seg[s][i] is not None for s in systems)]
    return systems, judged if n_segments is None else judged[:n_segments]


def scored_set(key: str, systems: Sequence[str], segments: Sequence[int], sources: Sequence[str],
               human: Mapping[str, Sequence[float | None] | float | None],
               metrics: Mapping[str, Mapping[str, Sequence[float]]], signs: Mapping[str, int]) -> ScoredSet:
    """A :class:`ScoredSet` from per-system lists (``human``: system -> segment scores, or system ->
    system score for a DA set; ``metrics``: name -> system -> segment scores; ``signs``: name -> +1
    or −1, the orientation). A metric's undefined segment scores (NaN, or an infinite WMD) take its
    lowest oriented score on the set, counted in ``undefined``: a pair with nothing to compare is
    scored as the worst translation, not dropped from one metric only."""
    def matrix(per_system, what):
        m = np.array([[math.nan if v is None else v for v in per_system[s]] for s in systems], float)
        if m.shape != (len(systems), len(segments)):
            raise ValueError(f"{key}: {what} has shape {m.shape}, expected {(len(systems), len(segments))}")
        return m

    if len(sources) != len(segments):
        raise ValueError(f"{key}: {len(sources)} sources for {len(segments)} segments")
    missing = [m for m in metrics if m not in signs]
    if missing:
        raise ValueError(f"{key}: no orientation (sign) for metrics {missing}")
    if any(s not in human for s in systems):
        raise ValueError(f"{key}: no human score for systems {[s for s in systems if s not in human]}")
    if all(v is None or np.ndim(v) == 0 for v in human.values()):
        h = np.array([math.nan if human[s] is None else human[s] for s in systems], float)
    else:
        h = matrix(human, "the human scores")
    oriented, undefined = {}, {}
    for m, v in metrics.items():
        x = signs[m] * matrix(v, m)
        bad = ~np.isfinite(x)
        if bad.all():
            raise ValueError(f"{key}: metric {m} has no defined score")
        if bad.any():
            x[bad], undefined[m] = x[~bad].min(), int(bad.sum())
        oriented[m] = x
    return ScoredSet(key, tuple(systems), tuple(segments), tuple(sources), h, oriented, undefined)


def restrict(s: ScoredSet, positions: Sequence[int]) -> ScoredSet:
    """``s`` on the segments at ``positions`` (e.g. a VAT subset)."""
    p = list(positions)
    return ScoredSet(s.key, s.systems, tuple(s.segments[i] for i in p), tuple(s.sources[i] for i in p),
                     s.human if s.human.ndim == 1 else s.human[:, p], {m: x[:, p] for m, x in s.metrics.items()},
                     s.undefined)


# -- the table at the top ---------------------------------------------------------------------------

CONSTANT = "constant (ties all)"  # a metric that gives every translation the same score: the floor of each statistic


def rankings(s: ScoredSet, *, n_permutations: int = 1000, seed: int | None = None,
             metrics: Sequence[str] | None = None) -> dict[str, MetricRanking]:
    """Per statistic of ``s`` (:func:`statistics_of`), the metrics best first with their rank clusters; on
    acc-eq with :data:`CONSTANT` among them: acc-eq credits a metric for every pair the humans tie, so
    a metric whose calibrated ε ties nearly everything scores what a constant does (the human tie
    share). (Not on SPA, where a constant's one-sided p-values are all 1 and its value would hang on
    the order the systems are listed in.)"""
    names = list(s.metrics) if metrics is None else list(metrics)
    scores = {m: s.metrics[m] for m in names}
    return {label: compare_metrics(scores | ({CONSTANT: np.zeros_like(s.human)} if stat == "acc_eq" else {}), s.human,
                                   stat, average_by=by, n_permutations=n_permutations, seed=seed)
            for label, (stat, by) in statistics_of(s).items()}


def constant_on_top(r: MetricRanking) -> bool:
    """Whether :data:`CONSTANT` shares the top cluster: no metric is shown better than scoring every
    translation the same, so the statistic cannot rank the metrics on this set."""
    return dict(zip(r.names, r.ranks)).get(CONSTANT) == 1


def no_better_than_constant(s: ScoredSet, r: MetricRanking, *, n_permutations: int = 1000, seed: int | None = None,
                            alpha: float = ALPHA) -> bool:
    """Whether acc-eq's best metric (``r``: the acc-eq ranking, :func:`rankings`) is not shown better
    than :data:`CONSTANT`: one-sided PERM-BOTH swapping whole segments (the pairs of one segment
    share its scores), p ≥ ``alpha``. Then acc-eq cannot rank the metrics on this set: whatever they
    score, tying every pair scores as well. (WMT's clusters swap single pairs, which can part metrics
    that differ in the fourth decimal.)"""
    best = next(n for n in r.names if n != CONSTANT)
    res = perm_both_stat(np.zeros_like(s.human), s.metrics[best], s.human, "acc_eq", average_by="item",
                         n_permutations=n_permutations, seed=seed, swap="group")
    return res.pvalue >= alpha


def untested(c: Comparison, reason: str) -> Comparison:
    """``c`` with its p withdrawn (shown, not tested, counted by no family), for ``reason``."""
    return dataclasses.replace(c, p=math.nan, mc_floor=math.nan, reason=reason)


def ranking_frame(ranks: Mapping[str, Mapping[str, MetricRanking]], decimals: int = 3) -> pd.DataFrame:
    """The top table: one row per metric, one column per (set, statistic) holding "value (cluster)"
    (cluster 1 is the top; "–" where the metric was not scored on that set)."""
    cols = {}
    for key, by_stat in ranks.items():
        for label, r in by_stat.items():
            cols[(key, label)] = pd.Series([f"{s:.{decimals}f} ({k})" for s, k in zip(r.scores, r.ranks)], index=r.names)
    order = list(dict.fromkeys(n for by_stat in ranks.values() for r in by_stat.values() for n in r.names))
    return pd.DataFrame(cols).reindex(order).fillna("–")


def transfer_pairs(keys: Sequence[str]) -> list[tuple[str, str]]:
    """(train, test) for every two sets ("TESTSET LP") of one language pair from different test
    sets, both ways, in the order of ``keys``."""
    split = [k.split() for k in keys]
    return [(" ".join(a), " ".join(b)) for a in split for b in split if a[1] == b[1] and a[0] != b[0]]


def top_clusters(ranks: Mapping[str, Mapping[str, MetricRanking]]) -> list[dict]:
    """Per statistic, each metric's count of sets where it is in the top cluster, out of the sets
    where it was scored (highest share first, then more sets, then by name), the metrics with the
    highest share (``leaders``, :data:`CONSTANT` left out), the sets where :data:`CONSTANT` is on top
    (``constant_on_top``), and per set the top cluster's size: ``{stat, metrics: [{metric, top, of}],
    leaders, constant_on_top, sizes: [{key, size, of}]}``."""
    out = []
    for label in [k for k in _ALL_STATISTICS if any(k in b for b in ranks.values())]:
        top: dict[str, list[int]] = {}
        for by_stat in [b for b in ranks.values() if label in b]:
            r = by_stat[label]
            for name, rank in zip(r.names, r.ranks):
                top.setdefault(name, []).append(int(rank == 1))
        rows = [{"metric": m, "top": sum(v), "of": len(v)} for m, v in top.items()]
        sizes = [{"key": k, "size": sum(x == 1 for x in b[label].ranks), "of": len(b[label].ranks)}
                 for k, b in ranks.items() if label in b]
        rows = sorted(rows, key=lambda x: (-x["top"] / x["of"], -x["of"], x["metric"]))
        real = [x for x in rows if x["metric"] != CONSTANT]
        leaders = [x for x in real if x["top"] * real[0]["of"] == real[0]["top"] * x["of"]] if real else []
        out.append({"stat": label, "metrics": rows, "leaders": leaders, "sizes": sizes,
                    "constant_on_top": [k for k, b in ranks.items() if label in b and constant_on_top(b[label])]})
    return out


def plot_clusters(ranks: Mapping[str, Mapping[str, MetricRanking]], *, columns: int = 3):
    """One panel per set: each metric's system-level statistic (SPA on an MQM set, pairwise accuracy
    on a DA set), best at the top, a filled dot for the top cluster and an open one below it.
    (matplotlib is imported here, so the study runs without it.)"""
    import matplotlib.pyplot as plt

    panels = [(k, label, b[label]) for k, b in ranks.items() for label in ("SPA", *SYSTEM_STATISTICS) if label in b]
    rows = -(-len(panels) // columns)
    height = max(len(r.names) for _, _, r in panels) * 0.24 + 1.0
    fig, axes = plt.subplots(rows, columns, figsize=(9, height * rows), squeeze=False)
    for ax, (key, label, r) in zip(axes.ravel(), panels):
        y = np.arange(len(r.names))[::-1]
        top = np.array(r.ranks) == 1
        ax.scatter(np.array(r.scores)[top], y[top], color="C0", zorder=3, label="top cluster")
        ax.scatter(np.array(r.scores)[~top], y[~top], facecolors="white", edgecolors="C0", zorder=3, label="below it")
        ax.set_yticks(y, r.names, fontsize=9)
        ax.tick_params(axis="x", labelsize=9)
        ax.grid(axis="x", color="0.9")
        ax.set_title(f"{key}\n{label}", fontsize=10)
    for ax in axes.ravel()[len(panels):]:
        ax.set_visible(False)
    axes[0, 0].legend(fontsize=9, loc="lower right")
    fig.tight_layout()
    return fig


# -- one test of a page statistic: difficulty weighting -------------------------------------------

def stat_test(a: np.ndarray, b: np.ndarray, human: np.ndarray, label: str, *, n_permutations: int = 1000,
              seed: int | None = None) -> Comparison:
    """Is ``b`` better than ``a`` on the page statistic ``label`` (:data:`STATISTICS`, or
    :data:`SYSTEM_STATISTICS` with ``human`` a vector of system scores)? PERM-BOTH
    (:func:`mtlib.metaeval.perm_both_stat`), two-sided: twice the smaller of the two one-sided p's,
    both directions on the same draws (capped at 1); 1.0 for a tie. Its units: segments (acc-eq,
    swapped whole) or single segment scores."""
    stat, by = _ALL_STATISTICS[label]
    ab = perm_both_stat(a, b, human, stat, average_by=by, n_permutations=n_permutations, seed=seed,
                        alternative="two-sided", swap="group" if stat == "acc_eq" else "pair")
    p = ab.pvalue
    unit = "segment" if stat == "acc_eq" else "segment score"
    n_units = (_segments_with_a_pair(human) if stat == "acc_eq" else
               int(np.isfinite(human).sum()) * np.shape(a)[1] if np.ndim(human) == 1 else ab.n)
    return Comparison(ab.corr_a, ab.corr_b, ab.delta, p, "two-sided", ab.n, n_units, unit, 0.5 ** (n_units - 1),
                      1 / n_permutations, label, n_permutations, seed)


def _segments_with_a_pair(human: np.ndarray) -> int:
    return int(((~np.isnan(human)).sum(axis=0) >= 2).sum())


# -- VAT as a cheaper test set ----------------------------------------------------------------------

def statistic_values(s: ScoredSet, label: str, metrics: Sequence[str] | None = None) -> dict[str, float]:
    """Each metric's page statistic ``label`` on ``s`` (SPA with its 1,000 seeded draws; acc-eq
    grouped by item, its ε calibrated; pairwise accuracy of the systems' mean segment scores)."""
    names = list(s.metrics) if metrics is None else list(metrics)
    stat, by = statistics_of(s)[label]
    return metric_values({m: s.metrics[m] for m in names}, s.human, stat, average_by=by)


def rank_tau(whole: Mapping[str, float], part: Mapping[str, float]) -> float:
    """Kendall's τ-b between the metrics' values on the whole set and on a subset (1: same order)."""
    names = list(whole)
    return float(sps.kendalltau([whole[m] for m in names], [part[m] for m in names]).statistic)


def vat_positions(scores: np.ndarray, drop_percent: float = 60) -> list[int]:
    """The positions VAT keeps: segments whose standard deviation over the systems (``scores``:
    systems × segments, e.g. sentence BERTScore-R) lies above the ``drop_percent``-th percentile
    (:func:`mtlib.vat.filtering.kept_ids`)."""
    from mtlib.vat.filtering import kept_ids, segment_std

    frame = pd.DataFrame(np.asarray(scores, float).T)
    return kept_ids(segment_std(frame), drop_percent)


def cluster_agreement(whole: MetricRanking, part: MetricRanking) -> float:
    """The share of metric pairs that both rankings separate (different clusters) or both keep together."""
    a, b = dict(zip(whole.names, whole.ranks)), dict(zip(part.names, part.ranks))
    names = sorted(a)
    pairs = [(x, y) for i, x in enumerate(names) for y in names[i + 1:]]
    return float(np.mean([(a[x] == a[y]) == (b[x] == b[y]) for x, y in pairs])) if pairs else math.nan


def vat_test(s: ScoredSet, kept: Sequence[int], label: str, *, n_random: int = 1000,
             seed: int | None = None) -> tuple[Comparison, dict]:
    """Is the ranking of the metrics on the VAT subset ``kept`` closer to the whole set's (Kendall
    τ of :func:`rank_tau`) than on random subsets of the same size? One-sided, as the idea claims:
    p = (1 + random subsets with τ ≥ VAT's) / (1 + ``n_random``). As a Comparison: A is the median
    random subset, B the VAT subset, units the random subsets. Also returns ``{tau_vat,
    tau_median, tau_low, tau_high (5th and 95th percentiles), share_below, best_p}`` (``best_p``: the p a
    VAT subset would get with τ = 1, the same ranking as the whole set: the test's floor here)."""
    from mtbook.subsets import random_subset_masks

    whole = statistic_values(s, label)
    tau_vat = rank_tau(whole, statistic_values(restrict(s, kept), label))
    masks = random_subset_masks(len(s.segments), len(kept), n_random, seed)
    taus = np.array([rank_tau(whole, statistic_values(restrict(s, np.flatnonzero(m)), label)) for m in masks])
    taus = np.nan_to_num(taus, nan=-np.inf)
    med = float(np.median(taus))
    p = float((1 + (taus >= tau_vat - 1e-12).sum()) / (1 + n_random))
    c = Comparison(med, tau_vat, tau_vat - med, p, "greater", n_random, n_random, "random subset", 1 / (1 + n_random),
                   1 / (1 + n_random), "kendall", n_random, seed)
    return c, {"tau_vat": tau_vat, "tau_median": med, "tau_low": float(np.quantile(taus, 0.05)),
               "tau_high": float(np.quantile(taus, 0.95)), "share_below": float((taus < tau_vat - 1e-12).mean()),
               "best_p": float((1 + (taus >= 1 - 1e-12).sum()) / (1 + n_random))}


# -- the ensemble across sets -------------------------------------------------------------------------

def cell_rows(s: ScoredSet, features: Sequence[str]) -> tuple[pd.DataFrame, np.ndarray, list[str]]:
    """The judged (system, segment) cells as rows: the features, the human score, each row's source."""
    i, j = np.nonzero(~np.isnan(s.human))
    x = pd.DataFrame({f: s.metrics[f][i, j] for f in features})
    return x, s.human[i, j], [s.sources[k] for k in j]


def cross_set_test(train: ScoredSet, test: ScoredSet, features: Sequence[str], *, seed: int = 42,
                   n_permutations: int = 1000, perm_seed: int | None = None,
                   cache: bool = True) -> tuple[Comparison, dict]:
    """The regressive ensemble (:func:`mtlib.regemt.ensemble.fit_ensemble`, inner split by source)
    fitted on every judged cell of ``train`` and tested on ``test`` against the single feature with
    the highest Spearman on ``train`` (chosen without looking at ``test``): PERM-BOTH on Spearman,
    two-sided, the rows of one source swapped together. Returns the comparison and ``{best,
    best_train, choice}``."""
    from mtlib.regemt.ensemble import fit_ensemble

    x_fit, y_fit, src_fit = cell_rows(train, features)
    x_test, y_test, src_test = cell_rows(test, features)
    train_r = {f: float(sps.spearmanr(x_fit[f], y_fit).statistic) for f in features}
    best = max(train_r, key=lambda f: (train_r[f], f))
    fitted = fit_ensemble(x_fit, y_fit, seed=seed, groups=src_fit, cache=cache)
    c = compare(x_test[best].to_numpy(), fitted.predict(x_test), y_test, "spearman", unit="source", clusters=src_test,
                n_permutations=n_permutations, seed=perm_seed)
    return c, {"best": best, "best_train": train_r[best], "choice": fitted.choice}


# -- Otem/Utem on the MQM error categories ------------------------------------------------------------

def error_tests(s: ScoredSet, counts: Mapping[str, np.ndarray], pairs: Sequence[tuple[str, str]],
                bases: Sequence[str], *, n_permutations: int = 1000, seed: int | None = None) -> list[tuple]:
    """Per (error kind, metric) of ``pairs`` and base of ``bases``: does the metric track the kind's
    segment counts (``counts``: kind -> systems × segments) better than the base? Pearson's r with
    minus the count over the judged cells, two-sided PERM-BOTH, all rows of one segment swapped
    together. A kind with too few marked errors on the judged cells (:func:`mtbook.evidence.too_few`,
    the Otem/Utem chapter's rule) is shown with both correlations but untested (reason
    :data:`~mtbook.evidence.TOO_FEW`). Returns family entries ``({"idea", "data", "errors", "marked"},
    base, metric, "r", comparison)``."""
    i, j = np.nonzero(~np.isnan(s.human))
    out = []
    for kind, metric in pairs:
        marked = np.asarray(counts[kind], float)[i, j]
        thin = too_few(float(marked.sum()), len(s.systems))
        for base in bases:
            c = compare(s.metrics[base][i, j], s.metrics[metric][i, j], -marked, "pearson", unit="segment",
                        clusters=j, n_permutations=n_permutations, seed=seed)
            if thin and not math.isnan(c.p):  # shown with its correlations, not tested
                c = dataclasses.replace(c, p=math.nan, mc_floor=math.nan, reason=TOO_FEW)
            out.append(({"idea": "Otem/Utem", "data": s.key, "errors": kind, "marked": int(marked.sum())}, base,
                        metric, "r", c))
    return out


# -- verdicts -----------------------------------------------------------------------------------------

class IdeaVerdict(str, enum.Enum):
    """What the page's tests say of an idea, on the Holm-adjusted p."""

    HELPS = "helps"  # better than its base somewhere, worse nowhere
    HURTS = "does not help"  # worse than its base somewhere, better nowhere
    MIXED = "mixed"  # better in some tests, worse in others
    CANNOT_TELL = "cannot tell"  # no test significant
    UNTESTED = "untested"  # nothing could be tested


def data_factor(p: float, n_tests: int, *, alpha: float = ALPHA, one_sided: bool = False) -> float:
    """How many times the data a test's observed difference would need for its p to pass Holm's
    strictest threshold on a page of ``n_tests`` tests (alpha / n_tests; halved when one-sided, as
    the verdict judges it), if the difference stayed as observed and its z grew as √n:
    (z_needed / z_observed)². 1.0 when p already passes it; inf when p is 1 (no difference)."""
    if math.isnan(p) or n_tests < 1:
        return math.nan
    level = alpha / n_tests / (2 if one_sided else 1)
    if p <= level:
        return 1.0
    z_obs = sps.norm.isf(p if one_sided else p / 2)
    if z_obs <= 0:
        return math.inf
    return float((sps.norm.isf(level if one_sided else level / 2) / z_obs) ** 2)


def idea_verdict(rows: Sequence[Compared]) -> IdeaVerdict:
    """:class:`IdeaVerdict` from an idea's rows of the page family."""
    verdicts = [r.verdict for r in rows]
    better, worse = Verdict.B_BETTER in verdicts, Verdict.A_BETTER in verdicts
    if all(v is Verdict.UNTESTED for v in verdicts):
        return IdeaVerdict.UNTESTED
    if better and worse:
        return IdeaVerdict.MIXED
    return IdeaVerdict.HELPS if better else IdeaVerdict.HURTS if worse else IdeaVerdict.CANNOT_TELL


def idea_summary(rows: Sequence[Compared], n_tests: int, *, alpha: float = ALPHA) -> dict:
    """An idea's verdict as data: ``verdict``, ``n`` (its tests), ``tested``, ``better``, ``worse``,
    ``closest`` (its tested row with the smallest raw p), ``limited`` (no permutation reached the
    closest row's difference: more permutations, not more data, would sharpen its p) and ``factor``
    (:func:`data_factor` of that row over the page's ``n_tests``; NaN where limited, or where its
    units are random subsets, whose number sets the p's resolution, not the evidence)."""
    tested = [r for r in rows if r.verdict is not Verdict.UNTESTED]
    closest = min(tested, key=lambda r: (r.p, -abs(r.delta))) if tested else None
    limited = bool(closest is not None and closest.p == 0)
    factor = math.nan
    if closest is not None and not limited and closest.unit != "random subset":
        factor = data_factor(closest.p, n_tests, alpha=alpha, one_sided=closest.alternative == "greater")
    return {"verdict": idea_verdict(rows), "n": len(rows), "tested": len(tested),
            "better": sum(r.verdict is Verdict.B_BETTER for r in rows),
            "worse": sum(r.verdict is Verdict.A_BETTER for r in rows), "closest": closest, "limited": limited,
            "factor": factor, "borderline": sum(borderline(r, alpha) for r in rows
                                                if r.verdict in (Verdict.A_BETTER, Verdict.B_BETTER))}
