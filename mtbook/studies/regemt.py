"""The RegEMT chapter's analyses: the evaluation sets and their features, the paper's tables,
the intervals, the splits, the ablation and the comparisons beyond the paper, and the sentences
that quote their numbers.

Everything here takes the chapter's data as arguments and draws its random numbers through the
seeded functions of :mod:`~mtlib.regemt.ensemble` and :mod:`~mtlib.regemt.experiment` (each call
its own generator), so the order of the calls does not change a number.

* :class:`Featurizer` — the scoring settings (encoder, Reg-base's length unit);
  :func:`judged_set` / :func:`load_mqm_sets` — rows, source split and features of a set;
* :func:`evaluate_sets` — every held-out evaluation, with the cross-lingual ("-X") fits;
  :func:`table1`, :func:`table1_bottom` — the paper's Table 1 beside ours; :func:`mean_over_seeds`,
  :func:`seed_table` — its mean and range over ensemble seeds; :func:`versus_best` — RegEMT
  against the best single metric by PERM-BOTH (:func:`one_sided_p`, :func:`direction_verdict`);
* :func:`da_evaluations`, :func:`critical_evaluations` — the DA and critical-error rows;
* :func:`interval_table`, :func:`split_table`, :func:`combined_matrix`, :func:`ablations`,
  :func:`importance_table`, :func:`extra_table`, :func:`reg_base_table`, :func:`context_table`,
  :func:`compos_table`, :func:`level_table` — one table per section, each with its ``*_summary``
  sentence. A verdict "above"/"below" is significant only with a one-sided PERM-BOTH p below
  :data:`ALPHA`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

from mtlib.bootstrap import group_codes, group_resample_counts
from mtlib.correlation import resampled_spearman
from mtlib.data import STANDARD_REFERENCES
from mtlib.regemt import datasets
from mtlib.regemt.ensemble import ablation, permutation_importance, split_by_source
from mtlib.regemt.experiment import REG_BASE, REGEMT, Evaluation, evaluate, group_bootstrap, spearman_table
from mtlib.regemt.scores import (COMPOS_ROW, EXTRA, Encoder, columns_for, length_table, score_rows,
                                 undefined_counts)
from mtbook.prose import and_list
from mtlib.significance import p_text, perm_both

__all__ = ["SETTING_NAME", "ALPHA", "SHOWN_ONLY", "PAPER_CHOICE", "p_range", "one_sided_p",
           "direction_verdict", "Features", "Featurizer", "JudgedSet", "judged_set", "compos_row", "with_shown",
           "load_mqm_sets", "overview", "undefined_table", "other_pair", "evaluate_sets", "row_label", "paper_values",
           "against_paper", "table1", "table1_order", "best_single", "mean_over_seeds", "seed_table", "table1_seeds",
           "versus_best",
           "versus_best_rows", "table1_sentences", "da_evaluations", "critical_evaluations", "mean_over_pairs",
           "table1_bottom", "no_value_table", "interval_table", "interval_summary", "split_table", "split_summary",
           "combined_matrix", "join_triangles", "mean_abs_offdiagonal", "table2_summary", "ablations",
           "ablation_summary", "importance_table", "importance_summary", "extra_table", "extra_summaries",
           "paired_difference", "reg_base_table", "reg_base_da_table", "reg_base_summary", "reg_base_vs_regemt",
           "context_table", "context_summary", "compos_table", "compos_summary", "levels", "level_table",
           "level_summary", "conclusion"]

SETTING_NAME = {"ref": "reference-based", "src": "source-based"}
ALPHA = 0.05  # a one-sided PERM-BOTH p below this makes "above"/"below" significant
SHOWN_ONLY = (COMPOS_ROW,)  # columns shown beside the features, never fitted on nor picked as the best single metric
PAPER_CHOICE = ("the paper chose an MLP for the source-based zh-en pair only and linear regression in its other "
                "MQM rows")


def p_range(ps: Sequence[float], n_permutations: int = 1000) -> str:
    """One :func:`p_text`, or ``p = 0.010–0.240`` over several (NaN left out)."""
    ps = [p for p in ps if not np.isnan(p)]
    if not ps:
        return "not tested"
    low, high = min(ps), max(ps)
    if low == high:
        return p_text(low, n_permutations)
    return f"p = {low:.3f}–{high:.3f}" if low > 0 else f"p from < {1 / n_permutations:.3g} to {high:.3f}"


def one_sided_p(scores: pd.DataFrame, human: Sequence[float], better: str, worse: str, *, n_permutations: int = 1000,
                seed: int | None = 42) -> float:
    """One-sided PERM-BOTH p (Spearman, :func:`mtlib.significance.perm_both`) of "``better``
    correlates better with ``human`` than ``worse``", on the rows where both columns have a
    value; NaN where no test is possible (fewer than 3 such rows, a constant column)."""
    y = np.asarray(human, dtype=float)
    a, b = scores[worse].to_numpy(dtype=float), scores[better].to_numpy(dtype=float)
    ok = np.isfinite(a) & np.isfinite(b) & np.isfinite(y)
    try:
        return perm_both(a[ok], b[ok], y[ok], "spearman", n_permutations=n_permutations, seed=seed).pvalue
    except ValueError:
        return float("nan")


def direction_verdict(gap: float, ps: Sequence[float], *, alpha: float = ALPHA) -> str:
    """How one column compares with another ``gap`` (mean difference of ρ) apart, given the
    one-sided p-values of that direction (one per ensemble seed, or one): ``tied``,
    ``significantly above``/``below`` (every p < ``alpha``), ``above``/``below, significant under
    k of n seeds`` (some), ``above``/``below, not significantly`` (none, or no test)."""
    if gap is None or np.isnan(gap):
        return "not defined"
    if abs(gap) < 1e-12:
        return "tied"
    side = "above" if gap > 0 else "below"
    ps = [p for p in ps if not np.isnan(p)]
    k = sum(p < alpha for p in ps)
    if ps and k == len(ps):
        return f"significantly {side}"
    if k:
        return f"{side}, significant under {k} of {len(ps)} seeds"
    return f"{side}, not significantly"


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
    source), the features of both settings, the extra reference-based columns and, per
    setting, the test rows' columns shown beside the features (:data:`SHOWN_ONLY`: the
    row-normalised Compos where the set has Compos)."""

    rows: pd.DataFrame
    train: np.ndarray
    test: np.ndarray
    ref: Features
    src: Features
    extra: pd.DataFrame | None = None
    shown: dict[str, pd.DataFrame] = field(default_factory=dict)

    def features(self, setting: str) -> Features:
        if setting not in SETTING_NAME:
            raise ValueError(f"setting must be one of {sorted(SETTING_NAME)}, got {setting!r}")
        return self.ref if setting == "ref" else self.src


def judged_set(rows: pd.DataFrame, featurize: Featurizer, *, split_seed: int | None = None,
               extra: Sequence[str] = EXTRA) -> JudgedSet:
    """Splits ``rows`` by source (:func:`~mtlib.regemt.ensemble.split_by_source`), then scores
    them reference-based, source-based and with the ``extra`` reference-based columns."""
    train, test = split_by_source(list(rows["src"]), seed=split_seed)
    feats = {s: featurize(rows, s) for s in ("ref", "src")}
    shown = {s: compos_row(featurize, rows.iloc[test], s) for s, f in feats.items() if "Compos" in f.scores}
    return JudgedSet(rows, train, test, feats["ref"], feats["src"],
                     featurize.columns(rows, "ref", extra) if extra else None, shown)


def compos_row(featurize: Featurizer, rows: pd.DataFrame, setting: str) -> pd.DataFrame:
    """The row-normalised Compos (column :data:`~mtlib.regemt.scores.COMPOS_ROW`) of ``rows``,
    NaN for the language pairs without taggers."""
    parts = [featurize.columns(group, setting, [COMPOS_ROW]) if "Compos" in columns_for(setting, lp)
             else pd.DataFrame({COMPOS_ROW: np.nan}, index=group.index)
             for lp, group in rows.groupby("lp", sort=False)]
    return pd.concat(parts).loc[rows.index]


def with_shown(ev: Evaluation, shown: pd.DataFrame | None) -> Evaluation:
    """``ev`` with the ``shown`` columns (one row per test row, in order) added to its
    predictions and its table: displayed beside the features, never fitted on."""
    if shown is None or not len(shown.columns):
        return ev
    if len(shown) != len(ev.predictions):
        raise ValueError(f"{len(shown)} shown rows for {len(ev.predictions)} test rows")
    predictions = ev.predictions.assign(**{c: shown[c].to_numpy(dtype=float) for c in shown.columns})
    return replace(ev, predictions=predictions, table=spearman_table(predictions, ev.human))


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
                  seed: int = 42, inner_split: str = "source") -> dict[tuple[str, str, bool], Evaluation]:
    """(key, setting, cross-lingual?) -> :func:`~mtlib.regemt.experiment.evaluate` on the set's
    test rows: fitted on its training rows, and for ``keys`` with an :func:`other_pair` also on
    that pair's training rows (over the columns both have); the set's shown columns
    (:func:`with_shown`) are added to both."""
    out = {}
    for key in list(keys) + list(more_keys):
        d = data[key]
        for setting in ("src", "ref"):
            s = d.features(setting)
            out[key, setting, False] = with_shown(evaluate(s.scores, s.lengths, d.rows["human"], d.rows["src"],
                                                           test=d.test, seed=seed, inner_split=inner_split),
                                                  d.shown.get(setting))
            other = other_pair(key, keys) if key in keys else None
            if other is not None:
                o = data[other]
                of = o.features(setting)
                cols = [c for c in s.scores.columns if c in of.scores.columns]
                fit_on = (of.scores.iloc[o.train][cols], of.lengths.iloc[o.train], o.rows["human"].iloc[o.train],
                          o.rows["src"].iloc[o.train])
                out[key, setting, True] = with_shown(
                    evaluate(s.scores[cols], s.lengths, d.rows["human"], d.rows["src"], test=d.test, fit_on=fit_on,
                             seed=seed, inner_split=inner_split), d.shown.get(setting))
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


def table1_order(paper_columns: Sequence[str]) -> list[str]:
    """Table 1's columns: RegEMT first, then the paper's, with the row-normalised Compos
    (:data:`~mtlib.regemt.scores.COMPOS_ROW`) beside the total-normalised one."""
    order = [REGEMT] + [c for c in paper_columns if c != REGEMT]
    at = order.index("Compos") + 1 if "Compos" in order else len(order)
    return order[:at] + [COMPOS_ROW] + order[at:]


def best_single(row: pd.Series) -> tuple[str, float]:
    """The highest metric of a row of correlations, the two ensembles (and the columns only
    shown beside the features, :data:`SHOWN_ONLY`) left out."""
    singles = row.drop(labels=[REGEMT, REG_BASE, *SHOWN_ONLY], errors="ignore").dropna()
    return singles.idxmax(), singles.max()


def mean_over_seeds(tables: Mapping[int, pd.DataFrame]) -> pd.DataFrame:
    """The cell-wise mean of one table per ensemble seed (same rows and columns; only the
    ensembles' columns differ between seeds)."""
    frames = list(tables.values())
    if not frames:
        raise ValueError("no tables to average: give one per ensemble seed")
    return pd.concat(frames).groupby(level=0, sort=False).mean().reindex(index=frames[0].index,
                                                                          columns=frames[0].columns)


def seed_table(tables: Mapping[int, pd.DataFrame], choices: Mapping[int, Mapping[str, str]] | None = None
               ) -> pd.DataFrame:
    """Per row of the tables (one per ensemble seed): mean, lowest and highest ρ of RegEMT and
    of Reg-base over the seeds and, given the regressors chosen (seed -> row -> ``linear`` or
    ``mlp``), in how many seeds RegEMT chose the MLP."""
    cols = {}
    for name in (REGEMT, REG_BASE):
        v = pd.DataFrame({s: t[name] for s, t in tables.items()})
        cols[f"{name} mean"], cols[f"{name} low"], cols[f"{name} high"] = v.mean(axis=1), v.min(axis=1), v.max(axis=1)
    out = pd.DataFrame(cols)
    if choices:
        out["MLP chosen"] = [sum(c[label] == "mlp" for c in choices.values()) for label in out.index]
        out["seeds"] = len(choices)
    return out


def table1_seeds(evaluations_by_seed: Mapping[int, Mapping[tuple[str, str, bool], Evaluation]], keys: Sequence[str],
                 *, paper: Mapping[tuple[str, str, str, str], float], order: Sequence[str],
                 paper_test_set: str = "wmt21.news") -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """:func:`table1` under each ensemble seed: ours as the mean over the seeds
    (:func:`mean_over_seeds`), the paper's values and the :func:`seed_table` (ranges and MLP
    choices)."""
    runs = {s: table1(e, keys, paper=paper, order=order, paper_test_set=paper_test_set)
            for s, e in evaluations_by_seed.items()}
    first = next(iter(runs.values()))
    return (mean_over_seeds({s: r[0] for s, r in runs.items()}), first[1],
            seed_table({s: r[0] for s, r in runs.items()}, {s: r[2] for s, r in runs.items()}))


def versus_best(evaluations_by_seed: Mapping[int, Mapping[tuple[str, str, bool], Evaluation]], keys: Sequence[str],
                *, n_permutations: int = 1000, seed: int | None = 42) -> pd.DataFrame:
    """RegEMT against the best single metric of each Table 1 row (:func:`best_single`: the
    same metric under every ensemble seed), per row and ensemble seed, with the one-sided
    PERM-BOTH p (:func:`one_sided_p`) of the direction of the row's mean difference over the
    seeds.

    Returns:
        Columns ``row``, ``seed``, ``best``, ``best ρ``, ``RegEMT ρ``, ``difference`` (RegEMT −
        best), ``tested`` (``RegEMT above`` or ``best above``), ``p``, ``n`` (test rows) and
        ``choice`` (RegEMT's regressor).
    """
    rows, evs = [], []
    for s, evaluations in evaluations_by_seed.items():
        for key in keys:
            for setting in ("src", "ref"):
                for cross in (False, True):
                    if (key, setting, cross) not in evaluations:
                        continue
                    ev = evaluations[key, setting, cross]
                    name, value = best_single(ev.table["spearman"])
                    rows.append({"row": row_label(key, setting, cross), "seed": s, "best": name, "best ρ": value,
                                 "RegEMT ρ": ev.table.loc[REGEMT, "spearman"], "n": len(ev.human),
                                 "choice": ev.regemt.choice})
                    evs.append(ev)
    out = pd.DataFrame(rows)
    if not len(out):
        return out
    out["difference"] = out["RegEMT ρ"] - out["best ρ"]
    above = out.groupby("row")["difference"].transform("mean") >= 0
    out["tested"] = np.where(above, "RegEMT above", "best above")
    out["p"] = [one_sided_p(ev.predictions, ev.human, *((REGEMT, b) if up else (b, REGEMT)),
                            n_permutations=n_permutations, seed=seed)
                for ev, b, up in zip(evs, out["best"], above)]
    return out[["row", "seed", "best", "best ρ", "RegEMT ρ", "difference", "tested", "p", "n", "choice"]]


def versus_best_rows(tests: pd.DataFrame, *, alpha: float = ALPHA) -> pd.DataFrame:
    """:func:`versus_best` per row: the best single metric and its ρ, RegEMT's mean, lowest and
    highest ρ over the seeds, the mean difference, the lowest and highest p, how many seeds
    chose the MLP, and the :func:`direction_verdict`."""
    out = []
    for row, g in tests.groupby("row", sort=False):
        gap = g["difference"].mean()
        out.append({"row": row, "best": g["best"].iloc[0], "best ρ": g["best ρ"].iloc[0],
                    "RegEMT mean": g["RegEMT ρ"].mean(), "RegEMT low": g["RegEMT ρ"].min(),
                    "RegEMT high": g["RegEMT ρ"].max(), "difference": gap, "p low": g["p"].min(),
                    "p high": g["p"].max(), "MLP chosen": int((g["choice"] == "mlp").sum()), "seeds": len(g),
                    "verdict": _shown_verdict(gap, direction_verdict(gap, list(g["p"]), alpha=alpha))})
    return pd.DataFrame(out).set_index("row")


def _shown_verdict(gap: float, verdict: str) -> str:
    """The verdict as the table shows the gap: one that rounds to +0.000 is level, not above or
    below, and only the significance is kept."""
    if gap != gap or round(gap, 3) != 0:
        return verdict
    if verdict.startswith("significantly"):
        return "level at three decimals, significantly different"
    if "significant under" in verdict:
        return "level at three decimals, significantly different under" + verdict.split("significant under")[1]
    return "level at three decimals, not significantly different"


def _seeds(n: int) -> str:
    return f"{n} ensemble seed{'s' if n != 1 else ''}"


def table1_sentences(ours: pd.DataFrame, paper: pd.DataFrame, vs: pd.DataFrame, *, n_permutations: int = 1000,
                     alpha: float = ALPHA, inner_split: str = "source") -> dict[str, str]:
    """From Table 1 (``ours``: the mean over the seeds), the paper's values and
    :func:`versus_best_rows` (``vs``): ``t1_wins`` (rows where RegEMT is above the best single
    metric, and where significantly), ``t1_lines`` (every row), ``t1_choice`` (how often the
    MLP was chosen, beside the paper's choice) and ``t1_regemt_delta`` (the sentence on the mean
    of |ours| minus the paper's RegEMT, or that the paper has no value for these sets)."""
    n_seeds = int(vs["seeds"].max()) if len(vs) else 0
    shown = vs["difference"].round(3)  # as the table shows it: +0.000 is level, not above
    up, down, level = vs[shown > 0], vs[shown < 0], vs[shown == 0]
    sig_up = up[up["verdict"] == "significantly above"]
    sig_down = down[down["verdict"] == "significantly below"]

    def listed(rows):
        return "; ".join(f"{r} by {v.difference:+.3f}, {p_range([v['p low'], v['p high']], n_permutations)}"
                         for r, v in rows.iterrows())
    every = "under every seed" if n_seeds > 1 else ""
    wins = (f"Averaged over {_seeds(n_seeds)}, RegEMT is above the best single metric (Reg-base aside, which is "
            f"compared with RegEMT below) in {len(up)} of {len(vs)} rows, significantly (one-sided PERM-BOTH "
            f"p < {alpha:g}{' ' + every if every else ''}) in {len(sig_up)}"
            + (f" ({listed(sig_up)})" if len(sig_up) else "")
            + (f"; level with it at three decimals in {len(level)} ({', '.join(level.index)})" if len(level) else "")
            + f"; it is below it in {len(down)}, significantly in {len(sig_down)}"
            + (f" ({listed(sig_down)})" if len(sig_down) else ""))
    lines = []
    for r, v in vs.iterrows():
        verdict = v["verdict"]
        spread = ("" if n_seeds < 2 else "the same under every seed; "
                  if f"{v['RegEMT low']:.3f}" == f"{v['RegEMT high']:.3f}"
                  else f"{v['RegEMT low']:.3f}–{v['RegEMT high']:.3f} over the seeds; ")
        lines.append(f"{r}: RegEMT {v['RegEMT mean']:.3f} ({spread}MLP chosen in {v['MLP chosen']} of {v['seeds']}), "
                     f"best single metric {v['best']} {v['best ρ']:.3f}: {verdict} "
                     f"({p_range([v['p low'], v['p high']], n_permutations)})")
    fits, mlp = int(vs["seeds"].sum()), int(vs["MLP chosen"].sum())
    always, never = int((vs["MLP chosen"] == vs["seeds"]).sum()), int((vs["MLP chosen"] == 0).sum())
    how = "by source" if inner_split == "source" else "by rows at random"
    choice = (f"With the validation rows of the model selection split {how}, RegEMT chose the MLP in {mlp} of "
              f"{fits} fits ({len(vs)} rows × {_seeds(n_seeds)}): in every seed for {always} rows, in none for "
              f"{never}; {PAPER_CHOICE}")
    both = ours[[REGEMT]].join(paper[[REGEMT]].rename(columns={REGEMT: REGEMT + " paper"})).dropna()
    return {"t1_wins": wins, "t1_lines": "; ".join(lines), "t1_choice": choice,
            "t1_regemt_delta": (f"The mean of |ρ(RegEMT)| minus the paper's value is "
                                f"{(both[REGEMT].abs() - both[REGEMT + ' paper']).mean():+.3f}" if len(both) else
                                "The paper has no RegEMT value for these sets, so no difference to it is measured")}


def da_evaluations(train_rows: pd.DataFrame, test_rows: pd.DataFrame, featurize: Featurizer, *, seed: int = 42,
                   train_name: str = "wmt15", test_name: str = "wmt16", seeds: Sequence[int] | None = None,
                   inner_split: str = "source") -> tuple[dict, dict[str, pd.Series]]:
    """Per setting and test language pair: the ensembles fitted on all training rows (over the
    columns both years have), evaluated on every row of that pair (with the row-normalised
    Compos shown beside the features where the pair has Compos); and per data set and setting
    the :func:`~mtlib.regemt.scores.undefined_counts`. With ``seeds``, the evaluations are
    ``{seed: {setting: {pair: Evaluation}}}``, one fit per ensemble seed on the same scores."""
    out, no_value = {s: {} for s in (seeds or [seed])}, {}
    for setting in ("ref", "src"):
        tr, te = featurize(train_rows, setting), featurize(test_rows, setting)
        no_value[f"{train_name} (train) {SETTING_NAME[setting]}"] = undefined_counts(tr.scores)
        no_value[f"{test_name} (test) {SETTING_NAME[setting]}"] = undefined_counts(te.scores)
        cols = [c for c in te.scores.columns if c in tr.scores.columns]
        shown = compos_row(featurize, test_rows, setting) if "Compos" in cols else None
        for s in out:
            per_lp = {}
            for lp, idx in test_rows.groupby("lp").indices.items():
                ev = evaluate(te.scores.iloc[idx][cols], te.lengths.iloc[idx], test_rows["human"].iloc[idx],
                              test_rows["src"].iloc[idx], test=np.arange(len(idx)), seed=s, inner_split=inner_split,
                              fit_on=(tr.scores[cols], tr.lengths, train_rows["human"], train_rows["src"]))
                per_lp[lp] = with_shown(ev, None if shown is None else shown.iloc[idx])
            out[s][setting] = per_lp
    return (out if seeds else out[seed]), no_value


def critical_evaluations(rows_by_lp: Mapping[str, pd.DataFrame], featurize: Featurizer, *,
                         split_seed: int | None = None, seed: int = 42, seeds: Sequence[int] | None = None,
                         inner_split: str = "source") -> tuple[dict, dict[str, pd.Series]]:
    """Per language pair, source-based, split by source as the MQM sets (with the
    row-normalised Compos shown beside the features where the pair has Compos); and per pair
    the :func:`~mtlib.regemt.scores.undefined_counts`. With ``seeds``, the evaluations are
    ``{seed: {pair: Evaluation}}``."""
    out, no_value = {s: {} for s in (seeds or [seed])}, {}
    for lp, rows in rows_by_lp.items():
        f = featurize(rows, "src")
        no_value[f"critical errors {lp}"] = undefined_counts(f.scores)
        _, test = split_by_source(list(rows["src"]), seed=split_seed)
        shown = compos_row(featurize, rows.iloc[test], "src") if "Compos" in f.scores else None
        for s in out:
            out[s][lp] = with_shown(evaluate(f.scores, f.lengths, rows["human"], rows["src"], test=test, seed=s,
                                             inner_split=inner_split), shown)
    return (out if seeds else out[seed]), no_value


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


def interval_summary(intervals: pd.DataFrame, keys: Sequence[str], tests: pd.DataFrame | None = None,
                     seed: int | None = None, n_permutations: int = 1000) -> str:
    """RegEMT's interval against that of the best single metric, per key and setting; with
    :func:`versus_best`'s ``tests``, also the PERM-BOTH p of ensemble seed ``seed``."""
    parts = []
    for key in keys:
        for setting in ("ref", "src"):
            sub = intervals[(intervals["evaluation set"] == key)
                            & (intervals["setting"] == SETTING_NAME[setting])].set_index("metric")
            best = sub.drop(index=[REGEMT, REG_BASE, *SHOWN_ONLY], errors="ignore")["rho"].idxmax()
            r, b = sub.loc[REGEMT], sub.loc[best]
            text = (f"{key} {SETTING_NAME[setting]}: RegEMT {r.rho:.3f} [{r.low:.3f}, {r.high:.3f}] against "
                    f"{best} {b.rho:.3f} [{b.low:.3f}, {b.high:.3f}]")
            if tests is not None:
                t = tests[(tests["row"] == row_label(key, setting, False)) & (tests["seed"] == seed)]
                if len(t):
                    text += f" (PERM-BOTH, {t['tested'].iloc[0]}: {p_text(t['p'].iloc[0], n_permutations)})"
            parts.append(text)
    return "; ".join(parts)


def _split_name(seed: int | None) -> str:
    return "alphabetical" if seed is None else f"seed {seed}"


def split_table(data: Mapping[str, JudgedSet], keys: Sequence[str], *, split_seed: int | None = None,
                split_seeds: Sequence[int] = (), seed: int = 42, inner_split: str = "source",
                n_permutations: int = 1000) -> pd.DataFrame:
    """RegEMT, the best single metric and Reg-base on the test rows of ``split_seed``'s split
    and of each further seeded split, per key and setting, with the one-sided PERM-BOTH p
    (column ``p``) of the observed direction of RegEMT against the best single metric."""
    rows = []
    for key in keys:
        d = data[key]
        for s in [split_seed] + [x for x in split_seeds if x != split_seed]:
            _, test = split_by_source(list(d.rows["src"]), seed=s)
            for setting in ("ref", "src"):
                f = d.features(setting)
                ev = evaluate(f.scores, f.lengths, d.rows["human"], d.rows["src"], test=test, seed=seed,
                              inner_split=inner_split)
                name, value = best_single(ev.table["spearman"])
                regemt = ev.table.loc[REGEMT, "spearman"]
                order = (REGEMT, name) if regemt >= value else (name, REGEMT)
                rows.append({"evaluation set": key, "setting": SETTING_NAME[setting], "split": _split_name(s),
                             "RegEMT": regemt, "best single": value, "which": name,
                             "Reg-base": ev.table.loc[REG_BASE, "spearman"],
                             "p": one_sided_p(ev.predictions, ev.human, *order, n_permutations=n_permutations,
                                              seed=seed)})
    splits = pd.DataFrame(rows)
    splits.insert(len(splits.columns) - 1, "RegEMT − best single", splits["RegEMT"] - splits["best single"])
    return splits


def _wins(rows: pd.DataFrame, gap: str, alpha: float) -> str:
    up, down = rows[rows[gap].round(3) > 0], rows[rows[gap].round(3) < 0]  # equal to three decimals: a tie
    ties = len(rows) - len(up) - len(down)
    return (f"above in {len(up)} of {len(rows)} (significantly, PERM-BOTH p < {alpha:g}, in "
            f"{int((up['p'] < alpha).sum())}), below in {len(down)} (significantly in {int((down['p'] < alpha).sum())})"
            + (f", tied to three decimals in {ties}" if ties else ""))


def split_summary(splits: pd.DataFrame, split_seed: int | None = None, *, alpha: float = ALPHA) -> str:
    """How often RegEMT is above or below the best single metric, and how often significantly,
    on the chosen split and on the others, and whether the verdict moves (the shares of
    significant wins differ by 0.25 or more)."""
    first_split = _split_name(split_seed)
    chosen, others = splits[splits["split"] == first_split], splits[splits["split"] != first_split]
    gap = "RegEMT − best single"
    text = (f"RegEMT against the best single metric, on the split used above ({first_split}), over {len(chosen)} "
            f"(set, setting) combinations: {_wins(chosen, gap, alpha)}")
    if len(others):
        text += (f"; on {others['split'].nunique()} shuffled splits: {_wins(others, gap, alpha)}, by "
                 f"{others[gap].min():+.3f} to {others[gap].max():+.3f}")

        def share(rows):
            return ((rows[gap].round(3) > 0) & (rows["p"] < alpha)).mean()
        text += (" — the held-out sources change the verdict" if abs(share(chosen) - share(others)) >= 0.25
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
              keys: Sequence[str], *, seed: int = 42, inner_split: str = "source"
              ) -> dict[tuple[str, str], pd.DataFrame]:
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
            out[key, setting] = ablation(feats.iloc[d.train], y[d.train], feats.iloc[d.test], y[d.test], seed=seed,
                                         groups=list(d.rows["src"].iloc[d.train]), inner_split=inner_split)
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
                keys: Sequence[str], *, extra: Sequence[str] = EXTRA, seed: int = 42, inner_split: str = "source"
                ) -> pd.DataFrame:
    """Test ρ (reference-based) of RegEMT, of RegEMT refitted with the ``extra`` columns and of
    each extra column alone; rows those ensembles, columns the keys."""
    rows = []
    for key in keys:
        d = data[key]
        s = d.ref
        ev = evaluate(s.scores.join(d.extra), s.lengths, d.rows["human"], d.rows["src"], test=d.test, seed=seed,
                      inner_split=inner_split)
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
    if len(groups) != len(ev.predictions):
        raise ValueError(f"paired_difference: {len(groups)} groups for {len(ev.predictions)} test rows")
    counts, _ = group_resample_counts(groups, n_resamples, seed)
    y = np.asarray(ev.human, dtype=float)
    draws = resampled_spearman(ev.predictions[a], y, counts) - resampled_spearman(ev.predictions[b], y, counts)
    point = ev.table.loc[a, "spearman"] - ev.table.loc[b, "spearman"]
    return point, *np.nanquantile(draws, [0.025, 0.975])


def reg_base_table(data: Mapping[str, JudgedSet], keys: Sequence[str], featurize: Featurizer, *,
                   n_resamples: int = 1000, seed: int = 42, inner_split: str = "source",
                   n_permutations: int = 1000) -> pd.DataFrame:
    """Reg-base (lengths in subword pieces and in characters) against BLEU and METEOR,
    reference-based, on the MQM sets (column ``data``: ``MQM``): both ρ, their
    :func:`paired_difference` and its interval, and the one-sided PERM-BOTH p of the observed
    direction (column ``p``)."""
    rows = []
    for key in keys:
        d = data[key]
        groups = d.rows["src"].iloc[d.test]
        for unit in ("subword", "char"):
            lengths = featurize.lengths(d.rows, "ref", unit)
            ev = evaluate(d.ref.scores, lengths, d.rows["human"], d.rows["src"], test=d.test, seed=seed,
                          inner_split=inner_split)
            rows += _versus_others(ev, groups, "MQM", key, unit, n_resamples=n_resamples,
                                   n_permutations=n_permutations, seed=seed)
    return pd.DataFrame(rows)


def _versus_others(ev: Evaluation, groups: Sequence[str], data: str, name: str, unit: str, *, n_resamples: int,
                   n_permutations: int, seed: int, others: Sequence[str] = ("BLEU", "METEOR")) -> list[dict]:
    rows = []
    for other in others:
        point, low, high = paired_difference(ev, groups, REG_BASE, other, n_resamples=n_resamples, seed=seed)
        order = (REG_BASE, other) if point >= 0 else (other, REG_BASE)
        rows.append({"data": data, "evaluation set": name, "lengths": unit, "against": other,
                     "Reg-base ρ": ev.table.loc[REG_BASE, "spearman"], "other ρ": ev.table.loc[other, "spearman"],
                     "difference": point, "low": low, "high": high,
                     "p": one_sided_p(ev.predictions, ev.human, *order, n_permutations=n_permutations, seed=seed)})
    return rows


def reg_base_da_table(da_ref: Mapping[str, Evaluation], test_rows: pd.DataFrame, *, data: str = "DA", unit: str,
                      n_resamples: int = 1000, n_permutations: int = 1000, seed: int = 42) -> pd.DataFrame:
    """:func:`reg_base_table`'s columns for the reference-based DA evaluations (pair ->
    Evaluation of :func:`da_evaluations`, whose test rows are ``test_rows``' rows of that pair,
    in order), resampling their source texts; ``unit``: the lengths the ensemble was fitted on."""
    rows, where = [], test_rows.groupby("lp").indices
    for lp, ev in da_ref.items():
        rows += _versus_others(ev, test_rows["src"].iloc[where[lp]], data, lp, unit, n_resamples=n_resamples,
                               n_permutations=n_permutations, seed=seed)
    return pd.DataFrame(rows)


def reg_base_summary(rb: pd.DataFrame, *, alpha: float = ALPHA, paper_da: pd.Series | None = None) -> str:
    """Per block of comparisons (column ``data`` of :func:`reg_base_table` and
    :func:`reg_base_da_table`): how often Reg-base is above or below BLEU and METEOR, with the
    whole 95% interval on one side of zero and with PERM-BOTH p < ``alpha``; then, set by set
    (column ``evaluation set``, when present), where Reg-base is above both in every comparison,
    where below both, and where the comparisons differ (with the paper's DA row, ``paper_da``:
    column -> |ρ|, when given)."""
    parts, verdicts = [], []
    for data, g in rb.groupby("data", sort=False):
        up, down = g[g["difference"] > 0], g[g["difference"] < 0]
        parts.append(f"on the {data} rows Reg-base is above the other metric in {len(up)} of {len(g)} comparisons "
                     f"(whole 95% interval above zero in {int((g['low'] > 0).sum())}, PERM-BOTH p < {alpha:g} in "
                     f"{int((up['p'] < alpha).sum())}) and below it in {len(down)} (interval below zero in "
                     f"{int((g['high'] < 0).sum())}, p < {alpha:g} in {int((down['p'] < alpha).sum())})")
        per = (list(g.groupby("evaluation set", sort=False)["difference"]) if "evaluation set" in g
               else [(data, g["difference"])])
        above = [k for k, d in per if (d > 0).all()]
        below = [k for k, d in per if (d < 0).all()]
        mixed = [k for k, _ in per if k not in above and k not in below]
        if len(above) == len(per):
            verdicts.append(f"on the {data} rows above both in every comparison")
        elif len(below) == len(per):
            verdicts.append(f"on the {data} rows below both in every comparison")
        else:
            verdicts.append(f"on the {data} rows above both in every comparison for {and_list(above) or 'no set'}"
                            + (f", below both for {and_list(below)}" if below else "")
                            + (f", either way for {and_list(mixed)}" if mixed else ""))
    verdict = "Reg-base against BLEU and METEOR: " + "; ".join(verdicts)
    if paper_da is not None and {REG_BASE, "BLEU", "METEOR"} <= set(paper_da.dropna().index):
        verdict += (f" (the paper's DA row, |ρ|: Reg-base {paper_da[REG_BASE]:.2f}, BLEU {paper_da['BLEU']:.2f}, "
                    f"METEOR {paper_da['METEOR']:.2f})")
    return "; ".join(parts) + ". " + verdict


def reg_base_vs_regemt(tables: Sequence[pd.DataFrame]) -> str:
    """In how many rows of the Table 1 tables Reg-base is at or above RegEMT."""
    rows = pd.concat(list(tables))
    at_least = int((rows[REG_BASE] >= rows[REGEMT]).sum())
    return (f"Reg-base alone is at or above the full ensemble in {at_least} of {len(rows)} MQM rows (Table 1 and "
            "the further sets, cross-lingual rows included)")


def context_table(evaluations: Mapping[tuple[str, str, bool], Evaluation], *, n_permutations: int = 1000,
                  seed: int = 42) -> pd.DataFrame:
    """Test ρ of WMD over contextual, decontextualized and static vectors, per own-pair
    evaluation (NaN: no static WMD in that setting), and the one-sided PERM-BOTH p (column
    ``p``) of the observed direction of WMD-cont against WMD-dec."""
    rows = []
    for (key, setting, cross), ev in evaluations.items():
        if cross:
            continue
        t = ev.table["spearman"]
        order = ("WMD-cont", "WMD-dec") if t["WMD-cont"] >= t["WMD-dec"] else ("WMD-dec", "WMD-cont")
        rows.append({"evaluation set": key, "setting": SETTING_NAME[setting], "WMD-cont": t["WMD-cont"],
                     "WMD-dec": t["WMD-dec"], "WMD-dec-tf": t["WMD-dec-tf"], "WMD (static)": t.get("WMD", np.nan),
                     "p": one_sided_p(ev.predictions, ev.human, *order, n_permutations=n_permutations, seed=seed)})
    return pd.DataFrame(rows)


def _who_wins(a: pd.Series, b: pd.Series) -> tuple[int, int]:
    return int((a > b).sum()), int((b > a).sum())


def context_summary(cd: pd.DataFrame, paper: Mapping[tuple[str, str, str, str], float] | None = None, *,
                    alpha: float = ALPHA) -> str:
    """How often WMD-cont is above WMD-dec and the reverse, how often significantly, whether
    that is one consistent direction, the differences, the paper's own MQM rows (``paper``:
    Table 1's values, :func:`paper_values`) and WMD-dec-tf."""
    cont, dec, n = cd["WMD-cont"], cd["WMD-dec"], len(cd)
    c_wins, d_wins = _who_wins(cont, dec)
    sig_c, sig_d = int(((cont > dec) & (cd["p"] < alpha)).sum()), int(((dec > cont) & (cd["p"] < alpha)).sum())
    if c_wins == n:
        direction = "WMD-cont is ahead in every setting"
    elif d_wins == n:
        direction = "WMD-dec is ahead in every setting"
    else:
        direction = "no consistent direction"
    diff = dec - cont
    text = (f"WMD-cont is above WMD-dec in {c_wins} of {n} MQM settings (significantly, PERM-BOTH p < {alpha:g}, in "
            f"{sig_c}) and below it in {d_wins} (significantly in {sig_d}): {direction} (WMD-dec minus WMD-cont: mean "
            f"{diff.mean():+.3f}, from {diff.min():+.3f} to {diff.max():+.3f})")
    if paper is not None:
        rows = [(st, r) for (dd, st, r, c) in paper if dd == "MQM" and c == "WMD-cont" and not r.endswith("-X")]
        pc = pd.Series({k: paper[("MQM", *k, "WMD-cont")] for k in rows})
        pd_ = pd.Series({k: paper[("MQM", *k, "WMD-dec")] for k in rows})
        pc_wins, pd_wins = _who_wins(pc, pd_)
        consistent = pc_wins == len(rows) or pd_wins == len(rows)
        text += (f". The paper's Table 1 (|ρ|) has WMD-cont above WMD-dec in {pc_wins} of the {len(rows)} MQM rows "
                 f"that are not cross-lingual (its -X rows repeat the single metrics) "
                 f"and below in {pd_wins}: {'a consistent' if consistent else 'no consistent'} direction, "
                 + ("as ours" if consistent == (direction != "no consistent direction") else "unlike ours"))
    return text + (f"; WMD-dec-tf is above WMD-cont in {int((cd['WMD-dec-tf'] > cont).sum())} of our {n} settings")


def compos_table(data: Mapping[str, JudgedSet], keys: Sequence[str], featurize: Featurizer) -> pd.DataFrame:
    """Test ρ of Compos normalised by the total count (the features) and per row (the set's
    shown column, or scored here), per key and setting that has Compos."""
    rows = []
    for key in keys:
        d = data[key]
        for setting in ("ref", "src"):
            if "Compos" not in d.features(setting).scores:
                continue
            test_rows = d.rows.iloc[d.test]
            human = test_rows["human"]
            shown = d.shown.get(setting)
            by_row = (shown if shown is not None else featurize.columns(test_rows, setting, [COMPOS_ROW]))[COMPOS_ROW]
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
            f"normalisation (Table 1 shows the row-normalised one as {COMPOS_ROW}, for comparison; the ensemble does "
            f"not use it)")


def _spearman_or_nan(x: np.ndarray, y: np.ndarray) -> float:
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(sps.spearmanr(x, y).statistic)


def _per_group(x: np.ndarray, y: np.ndarray, groups: Sequence[str]):
    """Rows with both values, their group codes, and per group its within-group ρ and its means."""
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    codes = group_codes([g for g, keep in zip(groups, ok) if keep])[0]
    members = [np.flatnonzero(codes == k) for k in range(codes.max() + 1)] if len(codes) else []
    within = np.array([_spearman_or_nan(x[m], y[m]) for m in members])
    means = np.array([[x[m].mean(), y[m].mean()] for m in members]).reshape(-1, 2)
    return x, y, codes, within, means


def _levels_of(x, y, within, means):
    valid = within[~np.isnan(within)]
    return (_spearman_or_nan(x, y), float(valid.mean()) if len(valid) else float("nan"),
            _spearman_or_nan(means[:, 0], means[:, 1]), len(valid))


def levels(x: Sequence[float], y: Sequence[float], groups: Sequence[str]) -> tuple[float, float, float, int]:
    """Spearman of ``x`` with ``y`` at three levels: ``pooled`` (all rows), ``within`` (the mean
    over the groups of the ρ among a group's rows; groups with fewer than 3 rows or a constant
    side left out) and ``between`` (ρ of the group means); and the number of groups with a
    within-group ρ. Rows where ``x`` or ``y`` has no value are left out first."""
    x, y, _, within, means = _per_group(np.asarray(x, float), np.asarray(y, float), groups)
    return _levels_of(x, y, within, means)


def level_table(data: Mapping[str, JudgedSet], keys: Sequence[str], column: str = EXTRA[0], *,
                n_resamples: int = 1000, seed: int = 42, level: float = 0.95) -> pd.DataFrame:
    """:func:`levels` of ``column`` (an extra or a feature column) with the human scores on each
    set's test rows, the groups being the source texts, with percentile intervals from
    resampling the sources with replacement (all rows of a source together; a source drawn
    twice counts twice at every level)."""
    out = []
    for key in keys:
        d = data[key]
        frame = d.extra if d.extra is not None and column in d.extra else d.ref.scores
        x, y, codes, within, means = _per_group(frame[column].iloc[d.test].to_numpy(dtype=float),
                                                d.rows["human"].iloc[d.test].to_numpy(dtype=float),
                                                d.rows["src"].iloc[d.test])
        row_counts, source_counts = group_resample_counts(codes, n_resamples, seed)
        valid = ~np.isnan(within)  # a source drawn k times counts k times in the mean of within-source ρ
        with np.errstate(invalid="ignore", divide="ignore"):
            within_draws = ((source_counts[:, valid] * within[valid]).sum(axis=1)
                            / source_counts[:, valid].sum(axis=1))
        draws = np.stack([resampled_spearman(x, y, row_counts), within_draws,
                          resampled_spearman(means[:, 0], means[:, 1], source_counts)], axis=1)
        low, high = np.nanquantile(draws, [(1 - level) / 2, (1 + level) / 2], axis=0)
        pooled, within_mean, between, n = _levels_of(x, y, within, means)
        out.append({"evaluation set": key, "sources": n, "pooled": pooled, "pooled low": low[0],
                    "pooled high": high[0], "within": within_mean, "within low": low[1], "within high": high[1],
                    "between": between, "between low": low[2], "between high": high[2]})
    return pd.DataFrame(out)


def level_summary(lv: pd.DataFrame, column: str = EXTRA[0]) -> str:
    """Each set's three levels with intervals, and in how many sets the level explanation
    (ρ above zero within a source, below zero between sources, both intervals clear of zero)
    is supported, contradicted (the within-source interval below zero) or undecided."""
    def ci(r, name):
        return f"{r[name]:+.3f} [{r[name + ' low']:+.3f}, {r[name + ' high']:+.3f}]"
    lines = [f"{r['evaluation set']}: all test rows {ci(r, 'pooled')}, within a source {ci(r, 'within')} "
             f"(mean over {r['sources']} sources), between sources {ci(r, 'between')}" for _, r in lv.iterrows()]
    supported = int(((lv["within low"] > 0) & (lv["between high"] < 0)).sum())
    against = int((lv["within high"] < 0).sum())
    return (f"{column} alone, Spearman ρ with MQM (95% intervals from resampling the test sources): "
            + "; ".join(lines) + f". The level explanation is supported in {supported} of {len(lv)} sets, contradicted "
            f"(negative within a source too) in {against} and undecided in {len(lv) - supported - against}")


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def conclusion(keys: Sequence[str], said: Mapping[str, str]) -> str:
    """The chapter's conclusion from its sentences (``t1_wins``, ``t1_choice``,
    ``t1_regemt_delta``, ``split_summary``, ``rb_summary``, ``regbase_vs_regemt``,
    ``cd_summary``, ``level_summary``)."""
    return " ".join([
        f"With an offline multilingual encoder, on the MQM sets {', '.join(keys)} (the paper's were WMT20's), in "
        f"Table 1's MQM block: {_lower_first(said['t1_wins'])}. {said['t1_choice']}. {said['t1_regemt_delta']}.",
        f"{said['split_summary']}.",
        f"Against BLEU and METEOR: {said['rb_summary']}. {said['regbase_vs_regemt']}.",
        f"Contextual against decontextualized vectors: {said['cd_summary']}.",
        f"DA-BERTScore's negative segment-level ρ: {said['level_summary']}.",
        "COMET, Prism and BLEURT are missing here (in the paper, COMET is the best single metric of every "
        "reference-based row and Prism of the source-based DA and critical-error rows), so our RegEMT is the paper's "
        "ensemble without some of its best features; the intervals and p-values above say how far each number can "
        "be trusted."])
