"""The RegEMT chapter's analyses: the evaluation sets and their features, the paper's tables,
the intervals, the splits, the ablation and the comparisons beyond the paper, and the sentences
that quote their numbers.

Everything here takes the chapter's data as arguments and draws its random numbers through the
seeded functions of :mod:`~mtlib.regemt.ensemble` and :mod:`~mtlib.regemt.experiment` (each call
its own generator), so the order of the calls does not change a number.

* :class:`Featurizer` — the scoring settings (encoder, Reg-base's length unit);
  :func:`judged_set` / :func:`load_mqm_sets` — rows, source split and features of a set;
* :func:`evaluate_sets` — every held-out evaluation, with the cross-lingual ("-X") fits;
  :func:`table1`, :func:`table1_bottom` — the paper's Table 1 beside ours;
* :func:`da_evaluations`, :func:`critical_evaluations` — the DA and critical-error rows;
* :func:`interval_table`, :func:`split_table`, :func:`combined_matrix`, :func:`ablations`,
  :func:`importance_table`, :func:`extra_table`, :func:`reg_base_table`, :func:`context_table`,
  :func:`compos_table` — one table per section, each with its ``*_summary`` sentence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from mtlib.data import STANDARD_REFERENCES
from mtlib.regemt import datasets
from mtlib.regemt.ensemble import ablation, permutation_importance, split_by_source
from mtlib.regemt.experiment import REG_BASE, REGEMT, Evaluation, evaluate, group_bootstrap, spearman_table
from mtlib.regemt.scores import COMPOS_ROW, EXTRA, Encoder, length_table, score_rows, undefined_counts

__all__ = ["SETTING_NAME", "Features", "Featurizer", "JudgedSet", "judged_set", "load_mqm_sets", "overview",
           "undefined_table", "other_pair", "evaluate_sets", "row_label", "paper_values", "against_paper", "table1",
           "best_single", "table1_sentences", "da_evaluations", "critical_evaluations", "mean_over_pairs",
           "table1_bottom", "no_value_table", "interval_table", "interval_summary", "split_table", "split_summary",
           "combined_matrix", "join_triangles", "mean_abs_offdiagonal", "table2_summary", "ablations",
           "ablation_summary", "importance_table", "importance_summary", "extra_table", "extra_summaries",
           "paired_difference", "reg_base_table", "reg_base_summary", "reg_base_vs_regemt", "context_table",
           "context_summary", "compos_table", "compos_summary", "conclusion"]

SETTING_NAME = {"ref": "reference-based", "src": "source-based"}


# -- the data and its features ------------------------------------------------------------------

@dataclass
class Features:
    """The features of one setting: every metric column and Reg-base's two lengths."""

    scores: pd.DataFrame
    lengths: pd.DataFrame


@dataclass(frozen=True)
class Featurizer:
    """The chapter's scoring settings: the encoder of the embedding metrics and Reg-base's
    length unit (``subword`` or ``char``)."""

    encoder: Encoder = Encoder()
    length_unit: str = "subword"

    def __call__(self, rows: pd.DataFrame, setting: str) -> Features:
        """Every metric column of ``setting`` (:func:`~mtlib.regemt.scores.score_rows`), then the lengths."""
        scores = score_rows(rows, setting, encoder=self.encoder)
        return Features(scores, self.lengths(rows, setting))

    def lengths(self, rows: pd.DataFrame, setting: str, unit: str | None = None) -> pd.DataFrame:
        """Reg-base's lengths, in ``unit`` (default: this featurizer's)."""
        return length_table(rows, setting, unit=unit or self.length_unit, encoder=self.encoder)

    def columns(self, rows: pd.DataFrame, setting: str, columns: Sequence[str]) -> pd.DataFrame:
        """The named metric columns only (e.g. :data:`~mtlib.regemt.scores.EXTRA`)."""
        return score_rows(rows, setting, encoder=self.encoder, columns=list(columns))


@dataclass
class JudgedSet:
    """One evaluation set: its rows, the positions of its training and test rows (split by
    source), the features of both settings and the extra reference-based columns."""

    rows: pd.DataFrame
    train: np.ndarray
    test: np.ndarray
    ref: Features
    src: Features
    extra: pd.DataFrame | None = None

    def features(self, setting: str) -> Features:
        if setting not in SETTING_NAME:
            raise ValueError(f"setting must be one of {sorted(SETTING_NAME)}, got {setting!r}")
        return self.ref if setting == "ref" else self.src


def judged_set(rows: pd.DataFrame, featurize: Featurizer, *, split_seed: int | None = None,
               extra: Sequence[str] = EXTRA) -> JudgedSet:
    """Splits ``rows`` by source (:func:`~mtlib.regemt.ensemble.split_by_source`), then scores
    them reference-based, source-based and with the ``extra`` reference-based columns."""
    train, test = split_by_source(list(rows["src"]), seed=split_seed)
    return JudgedSet(rows, train, test, featurize(rows, "ref"), featurize(rows, "src"),
                     featurize.columns(rows, "ref", extra) if extra else None)


def load_mqm_sets(keys: Sequence[str], featurize: Featurizer, *, split_seed: int | None = None,
                  n_segments: int | None = None, root=None) -> dict[str, JudgedSet]:
    """``"TESTSET LP"`` -> its :func:`judged_set` of :func:`~mtlib.regemt.datasets.mqm_rows`."""
    out = {}
    for key in keys:
        test_set, lp = key.split()
        rows = datasets.mqm_rows(test_set, lp, root=root, n_segments=n_segments)
        out[key] = judged_set(rows, featurize, split_seed=split_seed)
    return out


def overview(data: Mapping[str, JudgedSet], references: Mapping[tuple[str, str], str] = STANDARD_REFERENCES
             ) -> pd.DataFrame:
    """Per evaluation set: rows, MT systems, segments, training and test rows, the reference."""
    return pd.DataFrame([{"evaluation set": k, "rows": len(d.rows), "MT systems": d.rows["system"].nunique(),
                          "segments": d.rows["segment"].nunique(), "train rows": len(d.train),
                          "test rows": len(d.test), "reference": references.get(tuple(k.split()), "–")}
                         for k, d in data.items()]).set_index("evaluation set")


def undefined_table(data: Mapping[str, JudgedSet]) -> pd.DataFrame:
    """Rows (evaluation set, setting name), columns the metrics that lack a value somewhere:
    the number of rows without one (NaN: the metric is not computed in that setting)."""
    table = pd.DataFrame({(k, SETTING_NAME[s]): undefined_counts(d.features(s).scores) for k, d in data.items()
                          for s in ("ref", "src")}).T
    return table.loc[:, table.fillna(0).any()]


# -- Table 1 --------------------------------------------------------------------------------------

def other_pair(key: str, keys: Sequence[str]) -> str | None:
    """The first other key of ``keys`` with the same test set (the "-X" rows fit there)."""
    test_set, _ = key.split()
    others = [k for k in keys if k.split()[0] == test_set and k != key]
    return others[0] if others else None


def evaluate_sets(data: Mapping[str, JudgedSet], keys: Sequence[str], more_keys: Sequence[str] = (), *,
                  seed: int = 42) -> dict[tuple[str, str, bool], Evaluation]:
    """(key, setting, cross-lingual?) -> :func:`~mtlib.regemt.experiment.evaluate` on the set's
    test rows: fitted on its training rows, and for ``keys`` with an :func:`other_pair` also on
    that pair's training rows (over the columns both have)."""
    out = {}
    for key in list(keys) + list(more_keys):
        d = data[key]
        for setting in ("src", "ref"):
            s = d.features(setting)
            out[key, setting, False] = evaluate(s.scores, s.lengths, d.rows["human"], d.rows["src"], test=d.test,
                                                seed=seed)
            other = other_pair(key, keys) if key in keys else None
            if other is not None:
                o = data[other]
                of = o.features(setting)
                cols = [c for c in s.scores.columns if c in of.scores.columns]
                fit_on = (of.scores.iloc[o.train][cols], of.lengths.iloc[o.train], o.rows["human"].iloc[o.train])
                out[key, setting, True] = evaluate(s.scores[cols], s.lengths, d.rows["human"], d.rows["src"],
                                                   test=d.test, fit_on=fit_on, seed=seed)
    return out


def row_label(key: str, setting: str, cross: bool) -> str:
    """Table 1's row name, e.g. ``MQM-ref zh-en-X``."""
    return f"MQM-{setting} {key.split()[1]}{'-X' if cross else ''}"


def paper_values(paper: Mapping[tuple[str, str, str, str], float], data: str, setting: str | None = None,
                 row: str | None = None) -> pd.Series:
    """column -> value of the paper's Table 1 (keys ``(data, setting, row, column)``) for one
    data block, optionally one setting and one row."""
    return pd.Series({c: v for (dd, st, r, c), v in paper.items()
                      if dd == data and (setting is None or st == setting) and (row is None or r == row)})


def against_paper(ours: Mapping[str, pd.Series], paper: Mapping[str, pd.Series], order: Sequence[str]
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Our rows and the paper's as two tables with the same rows (ours) and columns (those of
    ``order`` that either has)."""
    table = pd.DataFrame(ours).T
    cols = [c for c in order if c in table.columns or any(c in p for p in paper.values())]
    return table.reindex(columns=cols), pd.DataFrame(paper).T.reindex(index=table.index, columns=cols)


def table1(evaluations: Mapping[tuple[str, str, bool], Evaluation], keys: Sequence[str], *,
           paper: Mapping[tuple[str, str, str, str], float], order: Sequence[str],
           paper_test_set: str = "wmt21.news") -> tuple[pd.DataFrame, pd.DataFrame, dict[str, str]]:
    """Table 1's MQM block for ``keys``: our test Spearman per row (:func:`row_label`), the
    paper's values (for ``paper_test_set`` only) and the regressor RegEMT chose per row."""
    ours, paper_rows, choice = {}, {}, {}
    for key in keys:
        test_set, lp = key.split()
        for setting in ("src", "ref"):
            for cross in (False, True):
                if (key, setting, cross) not in evaluations:
                    continue
                label = row_label(key, setting, cross)
                ours[label] = evaluations[key, setting, cross].table["spearman"]
                choice[label] = evaluations[key, setting, cross].regemt.choice
                if test_set == paper_test_set:
                    paper_rows[label] = paper_values(paper, "MQM", setting, lp + ("-X" if cross else ""))
    return (*against_paper(ours, paper_rows, order), choice)


def best_single(row: pd.Series) -> tuple[str, float]:
    """The highest metric of a row of correlations, the two ensembles left out."""
    singles = row.drop(labels=[REGEMT, REG_BASE], errors="ignore").dropna()
    return singles.idxmax(), singles.max()


def table1_sentences(ours: pd.DataFrame, paper: pd.DataFrame, choice: Mapping[str, str]) -> dict[str, str]:
    """``t1_wins`` (rows where RegEMT beats the best single metric), ``t1_lines`` (every row)
    and ``t1_regemt_delta`` (mean of |ours| minus the paper's RegEMT, or ``n/a``)."""
    lines, margins = [], []
    for label, row in ours.iterrows():
        name, value = best_single(row)
        if row[REGEMT] > value:
            margins.append(f"{label} by {row[REGEMT] - value:.3f}")
        lines.append(f"{label}: RegEMT {row[REGEMT]:.3f} ({choice[label]}), best single metric {name} {value:.3f}")
    both = ours[[REGEMT]].join(paper[[REGEMT]].rename(columns={REGEMT: REGEMT + " paper"})).dropna()
    return {"t1_wins": f"RegEMT is above the best single metric in {len(margins)} of {len(ours)} rows"
                       + (f" ({', '.join(margins)}; no interval here: see below)" if margins else ""),
            "t1_lines": "; ".join(lines),
            "t1_regemt_delta": f"{(both[REGEMT].abs() - both[REGEMT + ' paper']).mean():+.3f}" if len(both) else "n/a"}


def da_evaluations(train_rows: pd.DataFrame, test_rows: pd.DataFrame, featurize: Featurizer, *, seed: int = 42,
                   train_name: str = "wmt15", test_name: str = "wmt16"
                   ) -> tuple[dict[str, dict[str, Evaluation]], dict[str, pd.Series]]:
    """Per setting and test language pair: the ensembles fitted on all training rows (over the
    columns both years have), evaluated on every row of that pair; and per data set and setting
    the :func:`~mtlib.regemt.scores.undefined_counts`."""
    out, no_value = {}, {}
    for setting in ("ref", "src"):
        tr, te = featurize(train_rows, setting), featurize(test_rows, setting)
        no_value[f"{train_name} (train) {SETTING_NAME[setting]}"] = undefined_counts(tr.scores)
        no_value[f"{test_name} (test) {SETTING_NAME[setting]}"] = undefined_counts(te.scores)
        cols = [c for c in te.scores.columns if c in tr.scores.columns]
        per_lp = {}
        for lp, idx in test_rows.groupby("lp").indices.items():
            per_lp[lp] = evaluate(te.scores.iloc[idx][cols], te.lengths.iloc[idx], test_rows["human"].iloc[idx],
                                  test_rows["src"].iloc[idx], test=np.arange(len(idx)), seed=seed,
                                  fit_on=(tr.scores[cols], tr.lengths, train_rows["human"]))
        out[setting] = per_lp
    return out, no_value


def critical_evaluations(rows_by_lp: Mapping[str, pd.DataFrame], featurize: Featurizer, *,
                         split_seed: int | None = None, seed: int = 42
                         ) -> tuple[dict[str, Evaluation], dict[str, pd.Series]]:
    """Per language pair, source-based, split by source as the MQM sets; and per pair the
    :func:`~mtlib.regemt.scores.undefined_counts`."""
    per_lp, no_value = {}, {}
    for lp, rows in rows_by_lp.items():
        f = featurize(rows, "src")
        no_value[f"critical errors {lp}"] = undefined_counts(f.scores)
        per_lp[lp] = evaluate(f.scores, f.lengths, rows["human"], rows["src"], split_seed=split_seed, seed=seed)
    return per_lp, no_value


def mean_over_pairs(per_lp: Mapping[str, Evaluation]) -> tuple[pd.DataFrame, pd.Series]:
    """The Spearman table per language pair (rows) and its mean over the pairs."""
    table = pd.DataFrame({lp: ev.table["spearman"] for lp, ev in per_lp.items()}).T
    return table, table.mean()


def table1_bottom(da: Mapping[str, Mapping[str, Evaluation]] | None, critical: Mapping[str, Evaluation] | None, *,
                  paper: Mapping[tuple[str, str, str, str], float], order: Sequence[str],
                  da_years: tuple[str, str] = ("wmt15", "wmt16")
                  ) -> tuple[pd.DataFrame | None, pd.DataFrame | None, dict[str, pd.DataFrame]]:
    """Table 1's DA rows (``DA 2016-ref``, ``-src``) and critical-error row (``critical-src``):
    our mean over the pairs, the paper's values (DA: for WMT15 -> WMT16 only) and the per-pair
    tables; (None, None, {}) when neither is given."""
    ours, paper_rows, per_pair = {}, {}, {}
    if da is not None:
        for setting in ("ref", "src"):
            label = f"DA 20{da_years[1][-2:]}-{setting}"
            per_pair[label], ours[label] = mean_over_pairs(da[setting])
            if tuple(da_years) == ("wmt15", "wmt16"):
                paper_rows[label] = paper_values(paper, "DA 2016", setting)
    if critical:
        per_pair["critical-src"], ours["critical-src"] = mean_over_pairs(critical)
        paper_rows["critical-src"] = paper_values(paper, "catastrophic")
    if not ours:
        return None, None, per_pair
    return (*against_paper(ours, paper_rows, order), per_pair)


def no_value_table(counts: Mapping[str, pd.Series]) -> pd.DataFrame:
    """Data set x metric counts of rows without a value, only the rows and columns with some."""
    table = pd.DataFrame(counts).T.fillna(0).astype(int)
    return table.loc[table.any(axis=1), table.any()]


# -- intervals and splits -------------------------------------------------------------------------

def interval_table(evaluations: Mapping[tuple[str, str, bool], Evaluation], data: Mapping[str, JudgedSet], *,
                   n_resamples: int = 1000, seed: int = 42) -> pd.DataFrame:
    """Per own-pair evaluation and column: ρ and its 95% interval from resampling the test
    sources (:func:`~mtlib.regemt.experiment.group_bootstrap`); columns ``evaluation set,
    setting, metric, rho, low, high``."""
    rows = []
    for (key, setting, cross), ev in evaluations.items():
        if cross:
            continue
        groups = data[key].rows["src"].iloc[ev.test]
        ci = group_bootstrap(ev.predictions, ev.human, groups, n_resamples=n_resamples, seed=seed)
        for metric in ev.predictions.columns:
            rows.append({"evaluation set": key, "setting": SETTING_NAME[setting], "metric": metric,
                         "rho": ev.table.loc[metric, "spearman"], "low": ci.loc[metric, "low"],
                         "high": ci.loc[metric, "high"]})
    return pd.DataFrame(rows)


def interval_summary(intervals: pd.DataFrame, keys: Sequence[str]) -> str:
    """RegEMT's interval against that of the best single metric, per key and setting."""
    parts = []
    for key in keys:
        for setting in ("ref", "src"):
            sub = intervals[(intervals["evaluation set"] == key)
                            & (intervals["setting"] == SETTING_NAME[setting])].set_index("metric")
            best = sub.drop(index=[REGEMT, REG_BASE], errors="ignore")["rho"].idxmax()
            r, b = sub.loc[REGEMT], sub.loc[best]
            parts.append(f"{key} {SETTING_NAME[setting]}: RegEMT {r.rho:.3f} [{r.low:.3f}, {r.high:.3f}] against "
                         f"{best} {b.rho:.3f} [{b.low:.3f}, {b.high:.3f}]")
    return "; ".join(parts)


def _split_name(seed: int | None) -> str:
    return "alphabetical" if seed is None else f"seed {seed}"


def split_table(data: Mapping[str, JudgedSet], keys: Sequence[str], *, split_seed: int | None = None,
                split_seeds: Sequence[int] = (), seed: int = 42) -> pd.DataFrame:
    """RegEMT, the best single metric and Reg-base on the test rows of ``split_seed``'s split
    and of each further seeded split, per key and setting."""
    rows = []
    for key in keys:
        d = data[key]
        for s in [split_seed] + [x for x in split_seeds if x != split_seed]:
            _, test = split_by_source(list(d.rows["src"]), seed=s)
            for setting in ("ref", "src"):
                f = d.features(setting)
                ev = evaluate(f.scores, f.lengths, d.rows["human"], d.rows["src"], test=test, seed=seed)
                name, value = best_single(ev.table["spearman"])
                rows.append({"evaluation set": key, "setting": SETTING_NAME[setting], "split": _split_name(s),
                             "RegEMT": ev.table.loc[REGEMT, "spearman"], "best single": value, "which": name,
                             "Reg-base": ev.table.loc[REG_BASE, "spearman"]})
    splits = pd.DataFrame(rows)
    splits["RegEMT − best single"] = splits["RegEMT"] - splits["best single"]
    return splits


def split_summary(splits: pd.DataFrame, split_seed: int | None = None) -> str:
    """How often RegEMT beats the best single metric on the chosen split and on the others,
    and whether the verdict moves (the shares of wins differ by 0.25 or more)."""
    first_split = _split_name(split_seed)
    chosen, others = splits[splits["split"] == first_split], splits[splits["split"] != first_split]
    gap = "RegEMT − best single"
    text = (f"On the split used above ({first_split}), RegEMT is above the best single metric in "
            f"{(chosen[gap] > 0).sum()} of {len(chosen)} (set, setting) combinations")
    if len(others):
        ties = int((others[gap].round(3) == 0).sum())  # equal to three decimals: not a win
        text += (f"; on {others['split'].nunique()} shuffled splits in {int((others[gap].round(3) > 0).sum())} of "
                 f"{len(others)}{f' ({ties} tied to three decimals)' if ties else ''}, by "
                 f"{others[gap].min():+.3f} to {others[gap].max():+.3f}")
        shares = ((chosen[gap] > 0).mean(), (others[gap] > 0).mean())
        text += (" — the held-out sources change the verdict" if abs(shares[0] - shares[1]) >= 0.25
                 else " — the verdict holds across splits")
    return text


# -- Table 2, the ablation and the importances -----------------------------------------------------

def combined_matrix(evaluations: Mapping[tuple[str, str, bool], Evaluation], key: str, names: Sequence[str]
                    ) -> pd.DataFrame:
    """Pairwise Spearman of ``names`` (``MQM`` = the human scores) on the test rows of ``key``:
    upper triangle reference-based, lower triangle source-based, 1 on the diagonal of the
    columns that exist, NaN elsewhere."""
    out = pd.DataFrame(np.nan, index=names, columns=names)
    for setting in ("ref", "src"):
        ev = evaluations[key, setting, False]
        frame = ev.predictions.assign(MQM=ev.human)
        keep = [n for n in names if n in frame.columns]
        corr = frame[keep].corr(method="spearman")
        for i, a in enumerate(names):
            for j, b in enumerate(names):
                if a in keep and b in keep and (i < j if setting == "ref" else i > j):
                    out.loc[a, b] = corr.loc[a, b]
    for n in names:
        out.loc[n, n] = 1.0 if n in evaluations[key, "ref", False].predictions.columns or n == "MQM" else np.nan
    return out


def join_triangles(upper: pd.DataFrame, lower: pd.DataFrame) -> pd.DataFrame:
    """``upper``'s upper triangle (diagonal included) and ``lower``'s strict lower triangle."""
    n = len(upper)
    return pd.DataFrame(np.where(np.triu(np.ones((n, n), bool)), upper, lower), index=upper.index,
                        columns=upper.columns)


def mean_abs_offdiagonal(matrix: pd.DataFrame, names: Sequence[str]) -> float:
    """Mean |value| over the off-diagonal cells among ``names`` (NaN cells left out)."""
    sub = matrix.loc[names, names].to_numpy()
    return np.nanmean(np.abs(sub[~np.eye(len(names), dtype=bool)]))


def table2_summary(matrix: pd.DataFrame, ref_evaluation: Evaluation, paper_ref: pd.DataFrame) -> str:
    """Within-family mean |ρ| (static-vector metrics; contextual and decontextualized WMDs)
    of the reference-based test predictions and of the paper, and Reg-base against BLEU and
    METEOR; the families keep the metrics with a value in ``matrix``."""
    static = [n for n in ["SCM", "SCM-tf", "WMD", "WMD-tf"] if matrix.loc[n].notna().any()]
    context = [n for n in ["WMD-cont", "WMD-dec", "WMD-dec-tf"] if matrix.loc[n].notna().any()]
    corr = ref_evaluation.predictions.corr(method="spearman")
    return (f"Within the static-vector metrics the mean |ρ| is {mean_abs_offdiagonal(corr, static):.2f} "
            f"(paper {mean_abs_offdiagonal(paper_ref, static):.2f}); within the contextual and decontextualized "
            f"WMDs {mean_abs_offdiagonal(corr, context):.2f} (paper {mean_abs_offdiagonal(paper_ref, context):.2f}); "
            f"Reg-base against BLEU {corr.loc[REG_BASE, 'BLEU']:+.2f} and against METEOR "
            f"{corr.loc[REG_BASE, 'METEOR']:+.2f} (paper {paper_ref.loc['Reg-base', 'BLEU']:.2f} and "
            f"{paper_ref.loc['Reg-base', 'METEOR']:.2f})")


def ablations(data: Mapping[str, JudgedSet], evaluations: Mapping[tuple[str, str, bool], Evaluation],
              keys: Sequence[str], *, seed: int = 42) -> dict[tuple[str, str], pd.DataFrame]:
    """(key, setting) -> :func:`~mtlib.regemt.ensemble.ablation` over the metric columns and
    the fitted Reg-base's prediction, on the set's own split."""
    out = {}
    for key in keys:
        d = data[key]
        for setting in ("ref", "src"):
            s = d.features(setting)
            base = evaluations[key, setting, False].reg_base
            feats = s.scores.assign(**{REG_BASE: base.predict(s.lengths)})
            y = d.rows["human"].to_numpy()
            out[key, setting] = ablation(feats.iloc[d.train], y[d.train], feats.iloc[d.test], y[d.test], seed=seed)
    return out


def ablation_summary(steps_by_set: Mapping[tuple[str, str], pd.DataFrame]) -> str:
    """Per ablation: ρ with all features, the best ρ and how many features it had, and the last
    feature standing."""
    lines = []
    for (key, setting), steps in steps_by_set.items():
        full, peak = steps["spearman"].iloc[0], steps.loc[steps["spearman"].idxmax()]
        last = steps.iloc[-1]
        lines.append(f"{key} {SETTING_NAME[setting]}: all features {full:.3f}, best {peak['spearman']:.3f} with "
                     f"{peak['features']} left, last one standing {last['remaining'][0]} {last['spearman']:.3f}")
    return "; ".join(lines)


def importance_table(evaluations: Mapping[tuple[str, str, bool], Evaluation], key: str, *, n_repeats: int = 10,
                     seed: int = 42) -> pd.DataFrame:
    """Per feature, the drop in RegEMT's test ρ when it is shuffled, one column per setting
    name, sorted by the reference-based drop."""
    imp = {}
    for setting in ("ref", "src"):
        ev = evaluations[key, setting, False]
        imp[SETTING_NAME[setting]] = permutation_importance(ev.regemt, ev.predictions.drop(columns=[REGEMT]), ev.human,
                                                            n_repeats=n_repeats, seed=seed)["drop"]
    return pd.DataFrame(imp).sort_values("reference-based", ascending=False)


def importance_summary(imp: pd.DataFrame) -> str:
    """The largest and second-largest drop of each column."""
    parts = []
    for s in imp.columns:
        top = imp[s].idxmax()
        rest = imp[s].drop(top)
        parts.append(f"{s}: {top} ({imp[s].max():.3f}), then {rest.idxmax()} ({rest.max():.3f})")
    return "; ".join(parts)


# -- beyond the paper -------------------------------------------------------------------------------

def _with_extra(extra: Sequence[str]) -> str:
    return f"{REGEMT} + {', '.join(extra)}"


def extra_table(data: Mapping[str, JudgedSet], evaluations: Mapping[tuple[str, str, bool], Evaluation],
                keys: Sequence[str], *, extra: Sequence[str] = EXTRA, seed: int = 42) -> pd.DataFrame:
    """Test ρ (reference-based) of RegEMT, of RegEMT refitted with the ``extra`` columns and of
    each extra column alone; rows those ensembles, columns the keys."""
    rows = []
    for key in keys:
        d = data[key]
        s = d.ref
        ev = evaluate(s.scores.join(d.extra), s.lengths, d.rows["human"], d.rows["src"], test=d.test, seed=seed)
        rows.append({"evaluation set": key, "ensemble": REGEMT,
                     "rho": evaluations[key, "ref", False].table.loc[REGEMT, "spearman"]})
        rows.append({"evaluation set": key, "ensemble": _with_extra(extra), "rho": ev.table.loc[REGEMT, "spearman"]})
        for c in extra:
            rows.append({"evaluation set": key, "ensemble": f"{c} alone", "rho": ev.table.loc[c, "spearman"]})
    return pd.DataFrame(rows).pivot(index="ensemble", columns="evaluation set", values="rho")


def extra_summaries(table: pd.DataFrame, extra: Sequence[str] = EXTRA) -> dict[str, str]:
    """``extra_summary`` (the gain of the extended ensemble per set) and ``dabert_summary``
    (the first extra column alone per set)."""
    gain = table.loc[_with_extra(extra)] - table.loc[REGEMT]
    return {"extra_summary": ", ".join(f"{k} {v:+.3f}" for k, v in gain.items()),
            "dabert_summary": ", ".join(f"{k} {v:+.3f}" for k, v in table.loc[f"{extra[0]} alone"].items())}


def paired_difference(ev: Evaluation, groups: Sequence[str], a: str, b: str, *, n_resamples: int = 1000,
                      seed: int = 42) -> tuple[float, float, float]:
    """ρ(a) − ρ(b) on the test rows and its 95% percentile interval, resampling the ``groups``
    (test sources) with replacement; both columns are read on the same resample."""
    pair = ev.predictions[[a, b]]
    rng = np.random.default_rng(seed)
    codes, uniques = pd.factorize(pd.Series(list(groups)))
    members = [np.flatnonzero(codes == k) for k in range(len(uniques))]
    y = np.asarray(ev.human)
    draws = []
    for _ in range(n_resamples):
        idx = np.concatenate([members[k] for k in rng.integers(0, len(members), len(members))])
        t = spearman_table(pair.iloc[idx], y[idx])["spearman"]
        draws.append(t[a] - t[b])
    point = ev.table.loc[a, "spearman"] - ev.table.loc[b, "spearman"]
    return point, *np.nanquantile(draws, [0.025, 0.975])


def reg_base_table(data: Mapping[str, JudgedSet], keys: Sequence[str], featurize: Featurizer, *,
                   n_resamples: int = 1000, seed: int = 42) -> pd.DataFrame:
    """Reg-base (lengths in subword pieces and in characters) against BLEU and METEOR,
    reference-based: both ρ, their :func:`paired_difference` and its interval."""
    rows = []
    for key in keys:
        d = data[key]
        groups = d.rows["src"].iloc[d.test]
        for unit in ("subword", "char"):
            lengths = featurize.lengths(d.rows, "ref", unit)
            ev = evaluate(d.ref.scores, lengths, d.rows["human"], d.rows["src"], test=d.test, seed=seed)
            for other in ("BLEU", "METEOR"):
                point, low, high = paired_difference(ev, groups, REG_BASE, other, n_resamples=n_resamples, seed=seed)
                rows.append({"evaluation set": key, "lengths": unit, "against": other,
                             "Reg-base ρ": ev.table.loc[REG_BASE, "spearman"],
                             "other ρ": ev.table.loc[other, "spearman"], "difference": point, "low": low, "high": high})
    return pd.DataFrame(rows)


def reg_base_summary(rb: pd.DataFrame) -> str:
    """How many comparisons of :func:`reg_base_table` are decided above zero, below, or not."""
    better = int((rb["low"] > 0).sum())
    worse = int((rb["high"] < 0).sum())
    return (f"on the MQM sets, Reg-base is above the other metric with the whole 95% interval above zero in "
            f"{better} of {len(rb)} comparisons, below it in {worse}, and undecided in {len(rb) - better - worse} "
            f"(point estimates below the other metric: {int((rb['difference'] < 0).sum())} of {len(rb)})")


def reg_base_vs_regemt(tables: Sequence[pd.DataFrame]) -> str:
    """In how many rows of the Table 1 tables Reg-base is at or above RegEMT."""
    rows = pd.concat(list(tables))
    at_least = int((rows[REG_BASE] >= rows[REGEMT]).sum())
    return (f"Reg-base alone is at or above the full ensemble in {at_least} of {len(rows)} MQM rows (Table 1 and "
            "the further sets, cross-lingual rows included)")


def context_table(evaluations: Mapping[tuple[str, str, bool], Evaluation]) -> pd.DataFrame:
    """Test ρ of WMD over contextual, decontextualized and static vectors, per own-pair
    evaluation (NaN: no static WMD in that setting)."""
    rows = []
    for (key, setting, cross), ev in evaluations.items():
        if cross:
            continue
        t = ev.table["spearman"]
        rows.append({"evaluation set": key, "setting": SETTING_NAME[setting], "WMD-cont": t["WMD-cont"],
                     "WMD-dec": t["WMD-dec"], "WMD-dec-tf": t["WMD-dec-tf"], "WMD (static)": t.get("WMD", np.nan)})
    return pd.DataFrame(rows)


def context_summary(cd: pd.DataFrame) -> str:
    """How often WMD-dec (and WMD-dec-tf) is above WMD-cont, and the differences."""
    dec_wins = int((cd["WMD-dec"] > cd["WMD-cont"]).sum())
    diff = cd["WMD-dec"] - cd["WMD-cont"]
    return (f"WMD-dec is above WMD-cont in {dec_wins} of {len(cd)} MQM settings (mean difference "
            f"{diff.mean():+.3f}, from {diff.min():+.3f} to {diff.max():+.3f}; the differences are not tested here); "
            f"WMD-dec-tf is above WMD-cont in {int((cd['WMD-dec-tf'] > cd['WMD-cont']).sum())} of them")


def compos_table(data: Mapping[str, JudgedSet], keys: Sequence[str], featurize: Featurizer) -> pd.DataFrame:
    """Test ρ of Compos normalised by the total count (the features) and per row (scored here),
    per key and setting that has Compos."""
    rows = []
    for key in keys:
        d = data[key]
        for setting in ("ref", "src"):
            if "Compos" not in d.features(setting).scores:
                continue
            test_rows = d.rows.iloc[d.test]
            human = test_rows["human"]
            by_row = featurize.columns(test_rows, setting, [COMPOS_ROW])[COMPOS_ROW]
            by_total = d.features(setting).scores["Compos"].iloc[d.test]
            rows.append({"evaluation set": key, "setting": SETTING_NAME[setting],
                         "total (authors' code)": by_total.corr(human, method="spearman"),
                         "row (paper's text)": by_row.corr(human, method="spearman")})
    return pd.DataFrame(rows)


def compos_summary(compos: pd.DataFrame) -> str:
    """What row normalisation changes in :func:`compos_table`'s settings."""
    if not len(compos):
        return "No evaluation set of this run has part-of-speech taggers for both sides: Compos is not computed"
    total, row = compos["total (authors' code)"], compos["row (paper's text)"]
    gain = row - total
    return (f"Row normalisation changes Compos's signed ρ by {gain.min():+.3f} to {gain.max():+.3f} "
            f"(mean {gain.mean():+.3f}) over these {len(gain)} settings and raises it in {int((gain > 0).sum())}; "
            f"by |ρ| it is stronger in {int((row.abs() > total.abs()).sum())}. The total-normalised Compos is negative "
            f"(a closer tag pattern going with a worse MQM score) in {int((total < 0).sum())} settings, the "
            f"row-normalised one in {int((row < 0).sum())}. The ensemble's numbers above use the authors' "
            "normalisation; it was not refitted with the other")


def conclusion(keys: Sequence[str], said: Mapping[str, str]) -> str:
    """The chapter's conclusion from its sentences (``t1_wins``, ``t1_regemt_delta``,
    ``split_summary``, ``rb_summary``, ``regbase_vs_regemt``, ``cd_summary``)."""
    return " ".join([
        f"With an offline multilingual encoder, on the MQM sets {', '.join(keys)} (the paper's were WMT20's): "
        f"{said['t1_wins']} of Table 1's "
        f"MQM block; the mean of |ρ(RegEMT)| minus the paper's value is {said['t1_regemt_delta']}.",
        f"{said['split_summary']}.",
        f"Against BLEU and METEOR: {said['rb_summary']}. {said['regbase_vs_regemt']}.",
        f"Contextual against decontextualized vectors: {said['cd_summary']}.",
        "COMET, Prism and BLEURT — the paper's strongest inputs — are missing here, so our RegEMT is the paper's "
        "ensemble without its best features; the intervals above say how far each number can be trusted."])
