"""The RegEMT chapter's analyses: the evaluation sets and their features, the paper's tables,
the intervals, the splits, the ablation and the comparisons beyond the paper, and the findings
(plain data: numbers, counts, names) that the chapter's words quote.

Everything here takes the chapter's data as arguments and draws its random numbers through the
seeded functions of :mod:`~mtlib.regemt.ensemble` and :mod:`~mtbook.studies.regemt.experiment` (each call
its own generator), so the order of the calls does not change a number.

* :class:`Featurizer` — the scoring settings (encoder, Reg-base's length unit);
  :func:`judged_set` / :func:`load_mqm_sets` — rows, source split and features of a set;
* :func:`evaluate_sets` — every held-out evaluation, with the cross-lingual ("-X") fits;
  :func:`table1`, :func:`table1_bottom` — the paper's Table 1 beside ours, and :func:`abs_delta`
  the difference (|ρ| taken per seed and language pair before any mean); :func:`mean_over_seeds`,
  :func:`seed_table` — its mean and range over ensemble seeds, with each ensemble's regressor
  choices; :func:`versus_best` — RegEMT
  against the best single metric, and :func:`versus_reg_base` against Reg-base, per ensemble
  seed, counted by :func:`versus_findings`;
* :func:`da_evaluations`, :func:`critical_evaluations` — the DA and critical-error rows;
* :func:`interval_table`, :func:`interval_differences` (RegEMT − the best single metric, paired
  over the same resampled sources), :func:`split_table`, :func:`combined_matrix`, :func:`ablations`,
  :func:`importance_table`, :func:`extra_table`, :func:`reg_base_table`, :func:`context_table`,
  :func:`compos_table`, :func:`level_table` — one table per section, each with its ``*_findings``
  (the numbers its sentences quote; the sentences are the chapter's templates);
* :func:`compare_columns` — every comparison of two columns on the page: the book's two-sided
  PERM-BOTH (:func:`mtlib.significance.compare`, Spearman) with all test rows of one source
  swapped together; :func:`page_family` — all of them as one family, Holm-adjusted together
  (:func:`mtbook.comparisons.family`; a test two tables hold counted once), each table given
  its Holm p and verdict;
  :func:`seed_verdict` — the verdict of a row tested once per ensemble seed; :func:`family_floor`
  — how low its p-values can go; :func:`within_mc_error` — whether a Holm p lies within Monte
  Carlo error of the level (a *borderline* result), counted by :func:`family_borderline` (both from
  :mod:`mtbook.evidence`);
* :func:`by_metric`, :func:`seed_view`, :func:`versus_view`, :func:`split_view`,
  :func:`reg_base_view`, :func:`context_view`, :func:`level_view` and :func:`narrow` — the
  page's tables, narrow enough for its text column (numbers unchanged).
A difference is called significant only where the family's Holm-adjusted p is below
:data:`~mtlib.significance.ALPHA`.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass, field, replace
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

from mtlib.bootstrap import group_codes, group_resample_counts
from mtlib.correlation import resampled_spearman
from mtlib.data import STANDARD_REFERENCES
from mtbook.studies.regemt import datasets
from mtlib.regemt.ensemble import permutation_importance, split_by_source
from mtbook.studies.regemt.experiment import (REG_BASE, REGEMT, Evaluation, evaluate, group_bootstrap, metric_ablation,
                                             regemt_features, spearman_table)
from mtlib.regemt.scores import (COMPOS_ROW, EXTRA, Encoder, columns_for, length_table, score_rows,
                                 undefined_counts)
from mtbook.comparisons import Compared, family
from mtbook.evidence import borderline, family_borderline, within_mc_error
from mtlib.significance import ALPHA, Comparison, Verdict, compare

__all__ = ["SETTING_NAME", "ALPHA", "SHOWN_ONLY", "UNIT", "compare_columns", "page_family", "family_floor", "seed_verdict",
           "by_metric", "TABLE_STYLES", "narrow", "short_set", "p_cell", "p_span", "verdict_text", "seed_view",
           "versus_view", "split_view", "reg_base_view", "context_view", "level_view", "Features", "Featurizer", "JudgedSet", "judged_set", "compos_row", "with_shown",
           "load_mqm_sets", "overview", "undefined_table", "other_pair", "evaluate_sets", "row_label", "paper_values",
           "against_paper", "table1", "table1_order", "best_single", "mean_over_seeds", "seed_table", "table1_seeds",
           "versus_best", "versus_reg_base", "versus_best_rows", "versus_findings", "table1_findings", "abs_delta",
           "mean_abs_over_pairs", "within_mc_error", "family_borderline", "interval_differences", "interval_counts",
           "da_evaluations", "critical_evaluations", "mean_over_pairs", "table1_bottom", "no_value_table",
           "interval_table", "interval_findings", "split_table", "split_findings", "combined_matrix",
           "join_triangles", "mean_abs_offdiagonal", "table2_findings", "ablations", "ablation_findings",
           "importance_table", "importance_findings", "extra_table", "extra_findings", "paired_difference",
           "reg_base_table", "reg_base_da_table", "reg_base_findings", "reg_base_vs_regemt", "context_table",
           "context_findings", "compos_table", "compos_findings", "levels", "level_table", "level_findings",
           "perm_test_counts", "SAME_TEST", "BORDERLINE"]

SETTING_NAME = {"ref": "reference-based", "src": "source-based"}
SHOWN_ONLY = (COMPOS_ROW,)  # columns shown beside the features, never fitted on nor picked as the best single metric
UNIT = "source"  # what PERM-BOTH swaps: every test row translating one source sentence together
STAT = "Spearman ρ"
B_BETTER, A_BETTER = Verdict.B_BETTER.value, Verdict.A_BETTER.value


def compare_columns(scores: pd.DataFrame, human: Sequence[float], a: str, b: str, sources: Sequence[str], *,
                    n_permutations: int = 1000, seed: int | None = 42) -> Comparison:
    """Does column ``b`` correlate better with ``human`` than column ``a``? The book's two-sided
    PERM-BOTH on Spearman (:func:`mtlib.significance.compare`), swapping all rows of one source
    (``sources``: one text per row) together, on the rows where both columns and the human
    score have a value; an ``untested`` Comparison where no test is possible (fewer than 3
    sources or rows, a constant column)."""
    y = np.asarray(human, dtype=float)
    src = list(sources)
    if len(src) != len(y) or len(scores) != len(y):
        raise ValueError(f"compare_columns: {len(scores)} rows of scores, {len(y)} human scores, {len(src)} sources")
    xa, xb = scores[a].to_numpy(dtype=float), scores[b].to_numpy(dtype=float)
    ok = np.isfinite(xa) & np.isfinite(xb) & np.isfinite(y)
    return compare(xa[ok], xb[ok], y[ok], "spearman", unit=UNIT, clusters=[s for s, k in zip(src, ok) if k],
                   n_permutations=n_permutations, seed=seed)


def _tested(a: str, b: str, c: Comparison) -> dict:
    """The columns a table of tests keeps per comparison (B − A is the table's own difference)."""
    return {"A": a, "B": b, "p": c.p, "comparison": c}


FAMILY_SETTING = ("row", "seed", "evaluation set", "setting", "split", "data", "lengths")


def _plain(x):
    return x.item() if hasattr(x, "item") else x


SAME_TEST = "same test as"  # page_family's column: the table that already holds a row's test (missing: its own)


def _test_key(a: str, b: str, c: Comparison) -> tuple | None:
    """What makes two rows one test: the same columns A and B and the same outcome to the bit
    (correlations, p, rows, units, permutations and their seed: the same data, permuted alike).
    None for an untested comparison, which Holm leaves out anyway."""
    return None if c.p != c.p else (a, b, *astuple(c))


def page_family(tables: Mapping[str, pd.DataFrame], *, alpha: float = ALPHA
                ) -> tuple[list[Compared], dict[str, pd.DataFrame]]:
    """Every comparison of the page's tables (name -> a table with columns ``A``, ``B`` and
    ``comparison``, as :func:`versus_best`, :func:`split_table`, :func:`reg_base_table` and
    :func:`context_table` give them) as ONE family, Holm-adjusted together
    (:func:`mtbook.comparisons.family`; each comparison's setting: the table's name and its
    columns of :data:`FAMILY_SETTING`); and each table with the family's ``Holm p``, its
    ``verdict`` (a :class:`~mtlib.significance.Verdict` value, taken on the Holm p) and
    ``borderline`` (:func:`within_mc_error`: the Holm p within Monte Carlo error of ``alpha``) added.

    A test that two tables hold (the split table's rows on the page's own split are Table 1's
    tests of the same ensemble seed: :func:`_test_key`) enters the family ONCE, under the first
    table that holds it (its setting lists the other tables under ``also in``); every row holding it
    gets its Holm p and verdict, and column :data:`SAME_TEST` names, in a later row that holds
    it, the table where it was counted (missing in the row that counts it). The family returned
    holds each test once."""
    tests, first, where, same = [], {}, [], {}
    for name, t in tables.items():
        same[name] = []
        for _, r in t.iterrows():
            key = _test_key(r["A"], r["B"], r["comparison"])
            if key in first:
                at, owner = first[key]
                if name != owner and name not in tests[at][0].setdefault("also in", []):
                    tests[at][0]["also in"].append(name)
                where.append(at)
                same[name].append(owner)
                continue
            if key is not None:
                first[key] = (len(tests), name)
            where.append(len(tests))
            same[name].append(None)
            setting = {"table": name} | {c: _plain(r[c]) for c in FAMILY_SETTING if c in t.columns}
            tests.append((setting, r["A"], r["B"], STAT, r["comparison"]))
    rows = family(tests, alpha=alpha)
    out, at = {}, 0
    for name, t in tables.items():
        mine, at = [rows[i] for i in where[at:at + len(t)]], at + len(t)
        out[name] = t.assign(**{"Holm p": [r.p_holm for r in mine], "verdict": [r.verdict.value for r in mine],
                                "borderline": [borderline(r, alpha) for r in mine], SAME_TEST: same[name]})
    return rows, out


def family_floor(rows: Sequence[Compared]) -> dict | None:
    """How low a p of the page's family can go: ``tests`` (tested comparisons, the Holm
    family's size), the fewest sources of a tested comparison (``units``) and the exact
    two-sided floor over them, 2^-(units-1) (``exact``); the seeded draws' resolution
    1/n_permutations (``resolution``: the smallest p above zero they can give) and what Holm
    makes of it as the family's smallest p (``holm_resolution``: times the number of tests,
    capped at 1). None when nothing was tested."""
    tested = [r for r in rows if r.p == r.p]
    if not tested:
        return None
    units = min(r.n_units for r in tested)
    n_perm = max(r.n_permutations for r in tested)
    return {"tests": len(tested), "units": units, "exact": 0.5 ** (units - 1), "resolution": 1 / n_perm,
            "holm_resolution": min(1.0, len(tested) / n_perm), "n_permutations": n_perm}


def seed_verdict(verdicts: Sequence[str]) -> str:
    """The family's verdicts of one comparison made once per ensemble seed, in words for B (the
    ensemble): ``better under every seed``, ``better under k of n seeds`` (and/or ``worse ...``),
    or, where no seed shows a difference, ``no difference shown`` (``tie``, ``untested`` when
    every seed is one); one seed: its verdict alone."""
    tested = [v for v in verdicts if v != Verdict.UNTESTED.value]
    if not tested:
        return Verdict.UNTESTED.value
    n, better, worse = len(tested), tested.count(B_BETTER), tested.count(A_BETTER)

    def under(k):
        return "" if n == 1 else " under every seed" if k == n else f" under {k} of {n} seeds"
    parts = ([f"better{under(better)}"] if better else []) + ([f"worse{under(worse)}"] if worse else [])
    if parts:
        return ", ".join(parts)
    return Verdict.TIE.value if all(v == Verdict.TIE.value for v in tested) else Verdict.NOT_SHOWN.value


def by_metric(frame: pd.DataFrame) -> pd.DataFrame:
    """A Table 1-style frame (rows such as ``MQM-src zh-en-X``, columns the metrics) turned for a
    narrow page: the metrics as rows, the rows as columns under two levels (the pair, then the
    setting with its ``-X``); a row label of another form keeps it whole above an empty setting."""
    def label(r):
        head, _, pair = r.partition(" ")
        if not head.startswith("MQM-") or not pair:
            return (r, "")
        cross = pair.endswith("-X")
        return (pair.removesuffix("-X"), head.removeprefix("MQM-") + ("-X" if cross else ""))
    out = frame.T
    out.columns = pd.MultiIndex.from_tuples([label(r) for r in frame.index], names=["", ""])
    return out


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
    """``"TESTSET LP"`` -> its :func:`judged_set` of :func:`~mtbook.studies.regemt.datasets.mqm_rows`."""
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
    """(key, setting, cross-lingual?) -> :func:`~mtbook.studies.regemt.experiment.evaluate` on the set's
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
    paper's values (for ``paper_test_set`` only) and the regressor RegEMT chose per row, then the
    one Reg-base chose."""
    ours, paper_rows, choice, base_choice = {}, {}, {}, {}
    for key in keys:
        test_set, lp = key.split()
        for setting in ("src", "ref"):
            for cross in (False, True):
                if (key, setting, cross) not in evaluations:
                    continue
                label = row_label(key, setting, cross)
                ours[label] = evaluations[key, setting, cross].table["spearman"]
                choice[label] = evaluations[key, setting, cross].regemt.choice
                base_choice[label] = evaluations[key, setting, cross].reg_base.choice
                if test_set == paper_test_set:
                    paper_rows[label] = paper_values(paper, "MQM", setting, lp + ("-X" if cross else ""))
    return (*against_paper(ours, paper_rows, order), choice, base_choice)


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


def seed_table(tables: Mapping[int, pd.DataFrame], choices: Mapping[int, Mapping[str, str]] | None = None,
               base_choices: Mapping[int, Mapping[str, str]] | None = None) -> pd.DataFrame:
    """Per row of the tables (one per ensemble seed): mean, lowest and highest ρ of RegEMT and
    of Reg-base over the seeds and, given the regressors RegEMT chose (``choices``: seed -> row
    -> ``linear`` or ``mlp``) and those Reg-base chose (``base_choices``), in how many seeds each
    chose the MLP (column ``{name} MLP chosen``) and over how many seeds (``seeds``)."""
    cols = {}
    for name, chosen in ((REGEMT, choices), (REG_BASE, base_choices)):
        v = pd.DataFrame({s: t[name] for s, t in tables.items()})
        cols[f"{name} mean"], cols[f"{name} low"], cols[f"{name} high"] = v.mean(axis=1), v.min(axis=1), v.max(axis=1)
        if chosen:
            cols[f"{name} MLP chosen"] = pd.Series([sum(c[label] == "mlp" for c in chosen.values())
                                                    for label in v.index], index=v.index)
    out = pd.DataFrame(cols)
    if choices or base_choices:
        out["seeds"] = len(choices or base_choices)
    return out


def table1_seeds(evaluations_by_seed: Mapping[int, Mapping[tuple[str, str, bool], Evaluation]], keys: Sequence[str],
                 *, paper: Mapping[tuple[str, str, str, str], float], order: Sequence[str],
                 paper_test_set: str = "wmt21.news"
                 ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """:func:`table1` under each ensemble seed: ours as the mean over the seeds
    (:func:`mean_over_seeds`), the paper's values, the :func:`seed_table` (ranges and both
    ensembles' MLP choices) and the difference to the paper, :func:`abs_delta` (|ρ| per seed)."""
    runs = {s: table1(e, keys, paper=paper, order=order, paper_test_set=paper_test_set)
            for s, e in evaluations_by_seed.items()}
    first = next(iter(runs.values()))
    return (mean_over_seeds({s: r[0] for s, r in runs.items()}), first[1],
            seed_table({s: r[0] for s, r in runs.items()}, {s: r[2] for s, r in runs.items()},
                       {s: r[3] for s, r in runs.items()}),
            abs_delta([r[0] for r in runs.values()], first[1]))


def abs_delta(tables: Sequence[pd.DataFrame], paper: pd.DataFrame) -> pd.DataFrame:
    """Ours minus the paper's, cell by cell, as the mean of |ρ_ours| − |ρ_paper|: |ρ| is taken in
    each of ``tables`` (one per ensemble seed; for the DA and critical-error rows, the mean of |ρ|
    over the language pairs, :func:`mean_abs_over_pairs`) *before* the mean over them, never of a
    mean of signed values (the paper prints |ρ|, for those rows the mean of |ρ| over the pairs).
    Rows and columns: ``paper``'s; NaN where either has no value."""
    if not len(tables):
        raise ValueError("abs_delta: no tables (give one per ensemble seed)")
    mean_abs = mean_over_seeds({i: t.abs() for i, t in enumerate(tables)})
    return mean_abs.reindex(index=paper.index, columns=paper.columns) - paper.abs()


def mean_abs_over_pairs(per_pair: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Row (e.g. ``DA 2016-ref``) -> the mean over its language pairs of each column's |ρ|, from
    :func:`table1_bottom`'s per-pair tables (a pair per row, a metric per column)."""
    return pd.DataFrame({label: t.abs().mean() for label, t in per_pair.items()}).T


def versus_best(evaluations_by_seed: Mapping[int, Mapping[tuple[str, str, bool], Evaluation]], keys: Sequence[str],
                data: Mapping[str, JudgedSet], *, n_permutations: int = 1000, seed: int | None = 42,
                against: str | None = None) -> pd.DataFrame:
    """RegEMT against the best single metric of each Table 1 row (:func:`best_single`: the
    same metric under every ensemble seed), or against the column ``against`` (e.g. Reg-base),
    per row and ensemble seed, by :func:`compare_columns` (two-sided; the test rows' sources,
    read from ``data``, swapped as units).

    Returns:
        Columns ``row``, ``seed``, ``best``, ``best ρ``, ``RegEMT ρ``, ``difference`` (RegEMT −
        best), ``A`` (the other column), ``B`` (RegEMT), ``p`` (raw, two-sided), ``comparison``
        (the :class:`~mtlib.significance.Comparison`), ``n`` (test rows) and ``choice``
        (RegEMT's regressor).
    """
    rows = []
    for s, evaluations in evaluations_by_seed.items():
        for key in keys:
            for setting in ("src", "ref"):
                for cross in (False, True):
                    if (key, setting, cross) not in evaluations:
                        continue
                    ev = evaluations[key, setting, cross]
                    name, value = (best_single(ev.table["spearman"]) if against is None
                                   else (against, ev.table.loc[against, "spearman"]))
                    c = compare_columns(ev.predictions, ev.human, name, REGEMT, data[key].rows["src"].iloc[ev.test],
                                        n_permutations=n_permutations, seed=seed)
                    rows.append({"row": row_label(key, setting, cross), "seed": s, "best": name, "best ρ": value,
                                 "RegEMT ρ": ev.table.loc[REGEMT, "spearman"], "n": len(ev.human),
                                 "choice": ev.regemt.choice} | _tested(name, REGEMT, c))
    out = pd.DataFrame(rows)
    if not len(out):
        return out
    out["difference"] = out["RegEMT ρ"] - out["best ρ"]
    return out[["row", "seed", "best", "best ρ", "RegEMT ρ", "difference", "A", "B", "p", "comparison", "n",
                "choice"]]


def versus_reg_base(evaluations_by_seed: Mapping[int, Mapping[tuple[str, str, bool], Evaluation]],
                    keys: Sequence[str], data: Mapping[str, JudgedSet], more_keys: Sequence[str] = (), *,
                    n_permutations: int = 1000, seed: int | None = 42) -> pd.DataFrame:
    """RegEMT against Reg-base (:func:`versus_best` with ``against`` Reg-base) in every row of
    Table 1 (``keys``) and of the further sets (``more_keys``; their rows are named with their
    test set, e.g. ``MQM-ref zh-en (wmt21.tedtalks)``, as their labels repeat Table 1's)."""
    parts = [versus_best(evaluations_by_seed, keys, data, n_permutations=n_permutations, seed=seed,
                         against=REG_BASE)]
    for key in more_keys:
        t = versus_best(evaluations_by_seed, [key], data, n_permutations=n_permutations, seed=seed, against=REG_BASE)
        parts.append(t.assign(row=t["row"] + f" ({key.split()[0]})") if len(t) else t)
    parts = [t for t in parts if len(t)]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def versus_best_rows(tests: pd.DataFrame) -> pd.DataFrame:
    """:func:`versus_best`'s tests with the family's ``Holm p`` and ``verdict``
    (:func:`page_family`), per row: the best single metric (or the other column) and its mean ρ
    over the seeds (the same under every seed for a single metric), RegEMT's mean, lowest and
    highest ρ over the seeds, the mean difference, the lowest and highest raw and Holm p, how
    many seeds chose the MLP, how many seeds were tested (``tested``) and found RegEMT better
    (``better``) or worse (``worse``) after Holm, in how many the Holm p is within Monte Carlo
    error of the level (``borderline``: the family's column; 0 without it) and the
    :func:`seed_verdict`."""
    out = []
    for row, g in tests.groupby("row", sort=False):
        gap = g["difference"].mean()
        verdicts = list(g["verdict"])
        out.append({"row": row, "best": g["best"].iloc[0], "best ρ": g["best ρ"].mean(),
                    "RegEMT mean": g["RegEMT ρ"].mean(), "RegEMT low": g["RegEMT ρ"].min(),
                    "RegEMT high": g["RegEMT ρ"].max(), "difference": gap, "p low": g["p"].min(),
                    "p high": g["p"].max(), "Holm low": g["Holm p"].min(), "Holm high": g["Holm p"].max(),
                    "MLP chosen": int((g["choice"] == "mlp").sum()), "seeds": len(g),
                    "tested": sum(v != Verdict.UNTESTED.value for v in verdicts),
                    "better": verdicts.count(B_BETTER), "worse": verdicts.count(A_BETTER),
                    "borderline": int(g["borderline"].sum()) if "borderline" in g else 0,
                    "verdict": _shown_verdict(gap, seed_verdict(verdicts))})
    return pd.DataFrame(out).set_index("row")


def _shown_verdict(gap: float, verdict: str) -> str:
    """The verdict as the table shows the gap: one that rounds to +0.000 is level at three
    decimals, whatever the test says (a difference the test shows is kept beside it)."""
    if gap != gap or round(gap, 3) != 0:
        return verdict
    return "level at three decimals" + ("" if verdict in (Verdict.NOT_SHOWN.value, Verdict.TIE.value)
                                        else f"; {verdict}")


def versus_findings(vs: pd.DataFrame) -> dict:
    """:func:`versus_best_rows` as counts: over how many seeds, how many rows, which rows RegEMT
    is above, level with (the difference rounds to 0.000, as the table shows it) or below, and
    the rows where the family (after Holm) finds RegEMT better, or worse, under every tested
    seed (with their difference, raw and Holm p range and ``borderline``: under how many seeds
    the Holm p is within Monte Carlo error of the level; ``some_seeds``: under some seeds but
    not all); ``undefined``: rows without a difference (a NaN ρ)."""
    shown = vs["difference"].round(3) if len(vs) else pd.Series(dtype=float)
    up, down, level = vs[shown > 0], vs[shown < 0], vs[shown == 0]

    def rows(frame):
        return [{"row": r, "other": v["best"], "difference": v["difference"], "p_low": v["p low"],
                 "p_high": v["p high"], "holm_low": v["Holm low"], "holm_high": v["Holm high"],
                 "borderline": int(v.get("borderline", 0))} for r, v in frame.iterrows()]
    every = vs[(vs["tested"] > 0) & (vs["better"] == vs["tested"])] if len(vs) else vs
    never = vs[(vs["tested"] > 0) & (vs["worse"] == vs["tested"])] if len(vs) else vs
    some = [r for r, v in vs.iterrows() if (0 < v["better"] < v["tested"]) or (0 < v["worse"] < v["tested"])]
    return {"n_seeds": int(vs["seeds"].max()) if len(vs) else 0, "n_rows": len(vs),
            "above": list(up.index), "level": list(level.index), "below": list(down.index),
            "undefined": list(vs.index[shown.isna()]), "sig_above": rows(every), "sig_below": rows(never),
            "some_seeds": some}


def table1_findings(delta: pd.DataFrame, vs: pd.DataFrame, *, inner_split: str = "source") -> dict:
    """From Table 1's difference to the paper (``delta``: :func:`abs_delta`, |ρ| per seed) and
    :func:`versus_best_rows` (``vs``): ``versus`` (:func:`versus_findings`), how often RegEMT
    chose the MLP (``mlp`` of ``fits``; rows where every seed chose it, ``always``, and none,
    ``never``), ``inner_split`` and ``regemt_delta``, the mean over the rows of RegEMT's
    |ρ_ours| − |ρ_paper| (None when the paper has no value for these rows)."""
    gaps = delta[REGEMT].dropna() if REGEMT in delta else pd.Series(dtype=float)
    return {"versus": versus_findings(vs), "fits": int(vs["seeds"].sum()), "mlp": int(vs["MLP chosen"].sum()),
            "always": int((vs["MLP chosen"] == vs["seeds"]).sum()), "never": int((vs["MLP chosen"] == 0).sum()),
            "inner_split": inner_split, "regemt_delta": float(gaps.mean()) if len(gaps) else None}


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
    sources (:func:`~mtbook.studies.regemt.experiment.group_bootstrap`); columns ``evaluation set,
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


def interval_differences(evaluations: Mapping[tuple[str, str, bool], Evaluation], data: Mapping[str, JudgedSet],
                         keys: Sequence[str], *, n_resamples: int = 1000, seed: int = 42) -> pd.DataFrame:
    """Per key and setting (the own-pair evaluations): RegEMT minus the best single metric
    (:func:`best_single`) and the 95% interval of that difference, both columns read on the same
    resamples of the test sources (:func:`paired_difference`; with ``seed``, the resamples of
    :func:`interval_table`). Two overlapping intervals settle nothing; this one asks the question itself.
    Columns ``evaluation set, setting, best, difference, low, high``."""
    rows = []
    for key in keys:
        for setting in ("ref", "src"):
            ev = evaluations[key, setting, False]
            best = best_single(ev.table["spearman"])[0]
            point, low, high = paired_difference(ev, data[key].rows["src"].iloc[ev.test], REGEMT, best,
                                                 n_resamples=n_resamples, seed=seed)
            rows.append({"evaluation set": key, "setting": SETTING_NAME[setting], "best": best, "difference": point,
                         "low": low, "high": high})
    return pd.DataFrame(rows)


def interval_counts(items: Sequence[Mapping]) -> dict:
    """Of :func:`interval_findings`' items with a paired ``difference``: how many (``n``), and in
    how many its 95% interval lies wholly above zero (``above``) or below it (``below``)."""
    diffs = [x["difference"] for x in items if x.get("difference")]
    return {"n": len(diffs), "above": sum(d["low"] > 0 for d in diffs), "below": sum(d["high"] < 0 for d in diffs)}


def interval_findings(intervals: pd.DataFrame, keys: Sequence[str], tests: pd.DataFrame | None = None,
                      seed: int | None = None, differences: pd.DataFrame | None = None) -> list[dict]:
    """Per key and setting: RegEMT's ρ and interval and those of the best single metric; with
    :func:`versus_best`'s ``tests`` (with the family's ``Holm p``, ``verdict`` and
    ``borderline``), also the raw ``p``, ``p_holm``, ``verdict`` and ``borderline`` of ensemble
    seed ``seed`` (None without a test); with :func:`interval_differences`, the paired
    ``difference`` (RegEMT − best: ``rho``, ``low``, ``high``; None without it)."""
    out = []
    for key in keys:
        for setting in ("ref", "src"):
            sub = intervals[(intervals["evaluation set"] == key)
                            & (intervals["setting"] == SETTING_NAME[setting])].set_index("metric")
            best = sub.drop(index=[REGEMT, REG_BASE, *SHOWN_ONLY], errors="ignore")["rho"].idxmax()
            r, b = sub.loc[REGEMT], sub.loc[best]
            item = {"set": key, "setting": SETTING_NAME[setting],
                    "regemt": {"rho": r.rho, "low": r.low, "high": r.high},
                    "best": {"name": best, "rho": b.rho, "low": b.low, "high": b.high}, "p": None, "p_holm": None,
                    "verdict": None, "borderline": None, "difference": None}
            if tests is not None:
                t = tests[(tests["row"] == row_label(key, setting, False)) & (tests["seed"] == seed)]
                if len(t) and t["p"].iloc[0] == t["p"].iloc[0]:
                    item.update(p=t["p"].iloc[0], p_holm=t["Holm p"].iloc[0], verdict=t["verdict"].iloc[0],
                                borderline=bool(t["borderline"].iloc[0]) if "borderline" in t else False)
            if differences is not None:
                d = differences[(differences["evaluation set"] == key)
                                & (differences["setting"] == SETTING_NAME[setting])]
                if len(d):
                    if d["best"].iloc[0] != best:
                        raise ValueError(f"interval_findings: {key} {setting}: the paired difference is against "
                                         f"{d['best'].iloc[0]}, the intervals' best single metric is {best}")
                    item["difference"] = {"rho": d["difference"].iloc[0], "low": d["low"].iloc[0],
                                          "high": d["high"].iloc[0]}
            out.append(item)
    return out


def _split_name(seed: int | None) -> str:
    return "alphabetical" if seed is None else f"seed {seed}"


def split_table(data: Mapping[str, JudgedSet], keys: Sequence[str], *, split_seed: int | None = None,
                split_seeds: Sequence[int] = (), seed: int = 42, inner_split: str = "source",
                n_permutations: int = 1000) -> pd.DataFrame:
    """RegEMT, the best single metric and Reg-base on the test rows of ``split_seed``'s split
    and of each further seeded split, per key and setting, with :func:`compare_columns` of
    RegEMT (``B``) against the best single metric (``A``): raw two-sided ``p`` and the
    ``comparison``."""
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
                c = compare_columns(ev.predictions, ev.human, name, REGEMT, d.rows["src"].iloc[test],
                                    n_permutations=n_permutations, seed=seed)
                rows.append({"evaluation set": key, "setting": SETTING_NAME[setting], "split": _split_name(s),
                             "RegEMT": ev.table.loc[REGEMT, "spearman"], "best single": value, "which": name,
                             "Reg-base": ev.table.loc[REG_BASE, "spearman"]} | _tested(name, REGEMT, c))
    splits = pd.DataFrame(rows)
    splits.insert(splits.columns.get_loc("A"), "RegEMT − best single", splits["RegEMT"] - splits["best single"])
    return splits


def _wins(rows: pd.DataFrame, gap: str) -> dict:
    up, down = rows[rows[gap].round(3) > 0], rows[rows[gap].round(3) < 0]  # equal to three decimals: a tie
    return {"n": len(rows), "above": len(up), "sig_above": int((up["verdict"] == B_BETTER).sum()),
            "below": len(down), "sig_below": int((down["verdict"] == A_BETTER).sum()),
            "ties": len(rows) - len(up) - len(down)}


def split_findings(splits: pd.DataFrame, split_seed: int | None = None) -> dict:
    """How often RegEMT is above or below the best single metric, and how often the family's
    verdict (after Holm, :func:`page_family`) finds it better or worse, on the chosen split
    (``chosen``; its name ``split``) and on the others (``others``, with how many splits and the
    range of the difference; None without other splits)."""
    first_split = _split_name(split_seed)
    chosen, others = splits[splits["split"] == first_split], splits[splits["split"] != first_split]
    gap = "RegEMT − best single"
    out = {"split": first_split, "chosen": _wins(chosen, gap), "others": None}
    if len(others):
        out["others"] = _wins(others, gap) | {"splits": int(others["split"].nunique()),
                                              "low": others[gap].min(), "high": others[gap].max()}
    return out


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


def table2_findings(matrix: pd.DataFrame, ref_evaluation: Evaluation, paper_ref: pd.DataFrame) -> dict:
    """Within-family mean |ρ| (``static``: static-vector metrics; ``context``: contextual and
    decontextualized WMDs) of the reference-based test predictions and of the paper
    (``*_paper``), and Reg-base's ρ with BLEU and METEOR, ours (signed) and the paper's; the
    families keep the metrics with a value in ``matrix``."""
    static = [n for n in ["SCM", "SCM-tf", "WMD", "WMD-tf"] if matrix.loc[n].notna().any()]
    context = [n for n in ["WMD-cont", "WMD-dec", "WMD-dec-tf"] if matrix.loc[n].notna().any()]
    corr = ref_evaluation.predictions.corr(method="spearman")
    return {"static": mean_abs_offdiagonal(corr, static), "static_paper": mean_abs_offdiagonal(paper_ref, static),
            "context": mean_abs_offdiagonal(corr, context),
            "context_paper": mean_abs_offdiagonal(paper_ref, context),
            "reg_base": {"BLEU": corr.loc[REG_BASE, "BLEU"], "METEOR": corr.loc[REG_BASE, "METEOR"]},
            "reg_base_paper": {"BLEU": paper_ref.loc["Reg-base", "BLEU"], "METEOR": paper_ref.loc["Reg-base", "METEOR"]}}


def ablations(data: Mapping[str, JudgedSet], keys: Sequence[str], *, seed: int = 42, inner_split: str = "source"
              ) -> dict[tuple[str, str], pd.DataFrame]:
    """(key, setting) -> :func:`~mtbook.studies.regemt.experiment.metric_ablation` over the
    metric columns (the two lengths kept in every step), on the set's own split."""
    out = {}
    for key in keys:
        d = data[key]
        for setting in ("ref", "src"):
            s = d.features(setting)
            out[key, setting] = metric_ablation(s.scores, s.lengths, d.rows["human"], d.train, d.test, d.rows["src"],
                                                seed=seed, inner_split=inner_split)
    return out


def ablation_findings(steps_by_set: Mapping[tuple[str, str], pd.DataFrame]) -> list[dict]:
    """Per ablation (:func:`ablations`): ρ with every metric (``full``), the best ρ and how many
    metrics it had (``best_metrics``), the last metric standing (``last``) and its ρ, and the ρ
    of the lengths alone (``lengths_rho``, the last step: Reg-base's fit)."""
    out = []
    for (key, setting), steps in steps_by_set.items():
        peak, one = steps.loc[steps["spearman"].idxmax()], steps[steps["metrics"] == 1]
        alone = steps[steps["metrics"] == 0]
        out.append({"set": key, "setting": SETTING_NAME[setting], "full": steps["spearman"].iloc[0],
                    "best": peak["spearman"], "best_metrics": int(peak["metrics"]),
                    "last": one["remaining"].iloc[0][0] if len(one) else None,
                    "last_rho": one["spearman"].iloc[0] if len(one) else None,
                    "lengths_rho": alone["spearman"].iloc[0] if len(alone) else None})
    return out


def importance_table(evaluations: Mapping[tuple[str, str, bool], Evaluation], key: str, *, n_repeats: int = 10,
                     seed: int = 42) -> pd.DataFrame:
    """Per feature of RegEMT (the metric columns and the two lengths), the drop in its test ρ
    when that feature is shuffled, one column per setting name, sorted by the reference-based
    drop."""
    imp = {}
    for setting in ("ref", "src"):
        ev = evaluations[key, setting, False]
        features = regemt_features(ev.predictions, ev.lengths)
        imp[SETTING_NAME[setting]] = permutation_importance(ev.regemt, features, ev.human, n_repeats=n_repeats,
                                                            seed=seed)["drop"]
    return pd.DataFrame(imp).sort_values("reference-based", ascending=False)


def importance_findings(imp: pd.DataFrame) -> list[dict]:
    """Per column (setting): the feature with the largest drop and the one with the second largest."""
    out = []
    for s in imp.columns:
        top = imp[s].idxmax()
        rest = imp[s].drop(top)
        out.append({"setting": s, "first": top, "first_drop": imp[s].max(), "second": rest.idxmax(),
                    "second_drop": rest.max()})
    return out


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


def extra_findings(table: pd.DataFrame, extra: Sequence[str] = EXTRA) -> dict:
    """``gains`` (the extended ensemble's ρ minus RegEMT's, per set), ``column`` (the first extra
    column), ``alone`` (its ρ alone, per set) and in how many sets that is negative (``negative``)."""
    gain, alone = table.loc[_with_extra(extra)] - table.loc[REGEMT], table.loc[f"{extra[0]} alone"]
    return {"extra": list(extra), "gains": [{"set": k, "value": v} for k, v in gain.items()], "column": extra[0],
            "alone": [{"set": k, "value": v} for k, v in alone.items()], "negative": int((alone < 0).sum())}


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
    :func:`paired_difference` and its interval, and :func:`compare_columns` of Reg-base (``B``)
    against the other (``A``): raw two-sided ``p`` and the ``comparison``."""
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
        c = compare_columns(ev.predictions, ev.human, other, REG_BASE, groups, n_permutations=n_permutations,
                            seed=seed)
        rows.append({"data": data, "evaluation set": name, "lengths": unit, "against": other,
                     "Reg-base ρ": ev.table.loc[REG_BASE, "spearman"], "other ρ": ev.table.loc[other, "spearman"],
                     "difference": point, "low": low, "high": high} | _tested(other, REG_BASE, c))
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


def reg_base_findings(rb: pd.DataFrame, *, paper_da: pd.Series | None = None) -> dict:
    """Per block of comparisons (column ``data`` of :func:`reg_base_table` and
    :func:`reg_base_da_table`, with the family's ``verdict``, :func:`page_family`): how often
    Reg-base is above or below BLEU and METEOR, with the whole 95% interval on one side of zero
    (``*_ci``) and found better or worse by the family after Holm (``*_sig``); what one block's
    ``n`` comparisons are made of: ``n_sets`` sets (column ``evaluation set``, when present; else
    the block is one) × ``n_units`` length units (column ``lengths``) × ``n_others`` other metrics
    (column ``against``; both None without the column); and the sets where
    Reg-base is above both in every comparison, below both, or either way. ``paper_da``: the
    paper's DA row (column -> |ρ|), kept when it has Reg-base, BLEU and METEOR."""
    blocks = []
    for data, g in rb.groupby("data", sort=False):
        up, down = g[g["difference"] > 0], g[g["difference"] < 0]
        per = (list(g.groupby("evaluation set", sort=False)["difference"]) if "evaluation set" in g
               else [(data, g["difference"])])
        above = [k for k, d in per if (d > 0).all()]
        below = [k for k, d in per if (d < 0).all()]
        blocks.append({"data": data, "n": len(g), "up": len(up), "up_ci": int((g["low"] > 0).sum()),
                       "up_sig": int((up["verdict"] == B_BETTER).sum()), "down": len(down),
                       "down_ci": int((g["high"] < 0).sum()), "down_sig": int((down["verdict"] == A_BETTER).sum()),
                       "n_sets": len(per), "n_units": int(g["lengths"].nunique()) if "lengths" in g else None,
                       "n_others": int(g["against"].nunique()) if "against" in g else None, "above": above,
                       "below": below, "mixed": [k for k, _ in per if k not in above and k not in below]})
    paper = None
    if paper_da is not None and {REG_BASE, "BLEU", "METEOR"} <= set(paper_da.dropna().index):
        paper = {"Reg-base": paper_da[REG_BASE], "BLEU": paper_da["BLEU"], "METEOR": paper_da["METEOR"]}
    return {"blocks": blocks, "paper_da": paper}


def reg_base_vs_regemt(tables: Mapping[str, pd.DataFrame]) -> dict:
    """In how many rows of the Table 1 tables (name -> table; ensembles as the mean over the
    seeds) Reg-base is at or above RegEMT (``at_least`` of ``n``), those rows, and their names
    per table (``by_table``, the tables in the order given)."""
    rows = [{"table": name, "row": r, "regemt": v[REGEMT], "reg_base": v[REG_BASE]}
            for name, t in tables.items() for r, v in t.iterrows()]
    hits = [r for r in rows if r["reg_base"] >= r["regemt"]]
    by_table = [{"table": name, "rows": [r["row"] for r in hits if r["table"] == name]} for name in tables]
    return {"n": len(rows), "at_least": len(hits), "rows": hits, "by_table": [t for t in by_table if t["rows"]]}


def context_table(evaluations: Mapping[tuple[str, str, bool], Evaluation], data: Mapping[str, JudgedSet], *,
                  n_permutations: int = 1000, seed: int = 42) -> pd.DataFrame:
    """Test ρ of WMD over contextual, decontextualized and static vectors, per own-pair
    evaluation (NaN: no static WMD in that setting), and :func:`compare_columns` of WMD-cont
    (``B``) against WMD-dec (``A``): raw two-sided ``p`` and the ``comparison``."""
    rows = []
    for (key, setting, cross), ev in evaluations.items():
        if cross:
            continue
        t = ev.table["spearman"]
        c = compare_columns(ev.predictions, ev.human, "WMD-dec", "WMD-cont", data[key].rows["src"].iloc[ev.test],
                            n_permutations=n_permutations, seed=seed)
        rows.append({"evaluation set": key, "setting": SETTING_NAME[setting], "WMD-cont": t["WMD-cont"],
                     "WMD-dec": t["WMD-dec"], "WMD-dec-tf": t["WMD-dec-tf"], "WMD (static)": t.get("WMD", np.nan)}
                    | _tested("WMD-dec", "WMD-cont", c))
    return pd.DataFrame(rows)


def _who_wins(a: pd.Series, b: pd.Series) -> tuple[int, int]:
    return int((a > b).sum()), int((b > a).sum())


def context_findings(cd: pd.DataFrame, paper: Mapping[tuple[str, str, str, str], float] | None = None) -> dict:
    """How often WMD-cont is above WMD-dec and the reverse, how often the family finds it better
    or worse after Holm (column ``verdict``, :func:`page_family`), whether
    that is one direction in every setting (``direction``: ``WMD-cont``, ``WMD-dec`` or None),
    the differences WMD-dec minus WMD-cont, the paper's own MQM rows that are not cross-lingual
    (``paper``: Table 1's values, :func:`paper_values`; None without them) and how often
    WMD-dec-tf is above WMD-cont."""
    cont, dec, n = cd["WMD-cont"], cd["WMD-dec"], len(cd)
    c_wins, d_wins = _who_wins(cont, dec)
    direction = "WMD-cont" if c_wins == n else "WMD-dec" if d_wins == n else None
    diff = dec - cont
    out = {"n": n, "cont_above": c_wins, "dec_above": d_wins,
           "sig_cont": int(((cont > dec) & (cd["verdict"] == B_BETTER)).sum()),
           "sig_dec": int(((dec > cont) & (cd["verdict"] == A_BETTER)).sum()), "direction": direction,
           "diff_mean": diff.mean(), "diff_min": diff.min(), "diff_max": diff.max(),
           "dec_tf_above": int((cd["WMD-dec-tf"] > cont).sum()), "paper": None}
    if paper is not None:
        rows = [(st, r) for (dd, st, r, c) in paper if dd == "MQM" and c == "WMD-cont" and not r.endswith("-X")]
        pc = pd.Series({k: paper[("MQM", *k, "WMD-cont")] for k in rows})
        pd_ = pd.Series({k: paper[("MQM", *k, "WMD-dec")] for k in rows})
        pc_wins, pd_wins = _who_wins(pc, pd_)
        out["paper"] = {"n": len(rows), "cont_above": pc_wins, "dec_above": pd_wins,
                        "consistent": pc_wins == len(rows) or pd_wins == len(rows)}
    return out


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


def compos_findings(compos: pd.DataFrame) -> dict | None:
    """What row normalisation changes in :func:`compos_table`'s settings: the change of the
    signed ρ (lowest, highest, mean), in how many settings it rises, in how many |ρ| is larger,
    and how often each normalisation is negative; None when no setting has Compos."""
    if not len(compos):
        return None
    total, row = compos["total (authors' code)"], compos["row (paper's text)"]
    gain = row - total
    return {"n": len(gain), "low": gain.min(), "high": gain.max(), "mean": gain.mean(), "raised": int((gain > 0).sum()),
            "stronger": int((row.abs() > total.abs()).sum()), "total_negative": int((total < 0).sum()),
            "row_negative": int((row < 0).sum()), "column": COMPOS_ROW}


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


def level_findings(lv: pd.DataFrame, column: str = EXTRA[0]) -> dict:
    """Each set's three levels with intervals, and counts of what the intervals show, no more:
    in how many sets the pooled ρ is negative (``negative``) with its interval below zero
    (``negative_ci``); the between-source interval below zero (``between_below``) or above it
    (``between_above``); the within-source interval above zero (``within_above``, those sets in
    ``within_above_sets``), below zero (``within_below``) or spanning zero (``within_zero``)."""
    def level(r, name):
        return {"rho": r[name], "low": r[name + " low"], "high": r[name + " high"]}
    sets = [{"set": r["evaluation set"], "sources": int(r["sources"]), "pooled": level(r, "pooled"),
             "within": level(r, "within"), "between": level(r, "between")} for _, r in lv.iterrows()]
    above, below = lv["within low"] > 0, lv["within high"] < 0
    return {"column": column, "sets": sets, "n": len(lv), "negative": int((lv["pooled"] < 0).sum()),
            "negative_ci": int((lv["pooled high"] < 0).sum()), "between_below": int((lv["between high"] < 0).sum()),
            "between_above": int((lv["between low"] > 0).sum()), "within_above": int(above.sum()),
            "within_above_sets": list(lv.loc[above, "evaluation set"]), "within_below": int(below.sum()),
            "within_zero": int((~above & ~below).sum())}


def perm_test_counts(**tables: pd.DataFrame) -> dict:
    """How many PERM-BOTH tests the page ran: per table (name -> a table with a column ``p``,
    NaN where no test was possible, and, as :func:`page_family` returns it, the column
    :data:`SAME_TEST`), the tests it adds to the family; ``shared`` (name -> count, only the
    tables with any): its tested rows that an earlier table already holds, counted there; and
    the ``total`` (the size of the Holm family)."""
    counts, shared = {}, {}
    for name, t in tables.items():
        tested = t["p"].notna() if len(t) else pd.Series(dtype=bool)
        repeat = tested & t[SAME_TEST].notna() if SAME_TEST in t and len(t) else tested & False
        counts[name] = int((tested & ~repeat).sum())
        if repeat.any():
            shared[name] = int(repeat.sum())
    return counts | {"total": sum(counts.values()), "shared": shared}


# -- the page's tables, narrow enough for its text column ---------------------------------------------

TABLE_STYLES = [  # room between adjacent numbers; a table wider than the text column scrolls
    {"selector": "", "props": [("display", "block"), ("overflow-x", "auto"), ("max-width", "100%")]},
    {"selector": "th, td", "props": [("padding", "0.2em 0.5em"), ("font-size", "0.9em")]}]


def narrow(styler):
    """A pandas Styler with :data:`TABLE_STYLES` added."""
    return styler.set_table_styles(TABLE_STYLES, overwrite=False)


def short_set(key: str) -> str:
    """``wmt21.news zh-en`` -> ``news zh-en``."""
    return key.removeprefix("wmt21.")


def p_cell(p: float | None, n_permutations: int) -> str:
    """A p in a table cell: ``0.034``, ``< 0.001`` (no permutation reached it), ``–`` (untested)."""
    from mtlib.significance import p_text

    return p_text(p, n_permutations, nan="–").replace("p = ", "").replace("p ", "")


def p_span(low: float, high: float, n_permutations: int) -> str:
    """A p's range over the ensemble seeds: ``0.001 to 0.026``, or one value."""
    a, b = p_cell(low, n_permutations), p_cell(high, n_permutations)
    return a if a == b else f"{a} to {b}"


BORDERLINE = " (borderline)"  # a verdict whose Holm p lies within Monte Carlo error of the level


def verdict_text(row: Mapping) -> str:
    """The family's verdict of a row with columns ``A``, ``B`` and ``verdict``, with the names, and
    :data:`BORDERLINE` where the row's ``borderline`` is true (:func:`within_mc_error`)."""
    text = {B_BETTER: f"{row['B']} better", A_BETTER: f"{row['A']} better"}.get(row["verdict"], row["verdict"])
    return text + (BORDERLINE if row.get("borderline", False) in (True, 1) else "")


def _two_levels(c: str) -> tuple[str, str]:
    for stat in ("MLP chosen", "mean", "low", "high"):
        if c.endswith(" " + stat):
            return c[:-len(stat) - 1], stat
    return c, ""


def seed_view(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`seed_table` with its columns under two levels (ensemble, then mean/low/high/MLP chosen)."""
    out = table.copy()
    out.columns = pd.MultiIndex.from_tuples([_two_levels(c) for c in table.columns])
    return out


def versus_view(vs: pd.DataFrame, n_permutations: int, *, other: bool = True) -> pd.DataFrame:
    """:func:`versus_best_rows` for the page: the other column (with ``other``), its ρ, RegEMT's
    mean ρ, the mean difference ``Δ``, the raw and Holm p as their range over the seeds and the
    verdict after Holm (marked borderline under the seeds whose Holm p is within Monte Carlo
    error of the level, :func:`within_mc_error`)."""
    marks = vs["borderline"] if "borderline" in vs else pd.Series(0, index=vs.index)
    seeds = vs["seeds"] if "seeds" in vs else pd.Series(1, index=vs.index)

    def verdict(v, k, n):
        text = (REGEMT + " " + v) if v.startswith(("better", "worse")) else v
        return text + ("" if not k else BORDERLINE if n == 1 else f" (borderline under {k} of {n} seeds)")
    return pd.DataFrame(({"other": vs["best"]} if other else {}) | {
        "other ρ": vs["best ρ"], "RegEMT ρ": vs["RegEMT mean"], "Δ": vs["difference"],
        "p": [p_span(a, b, n_permutations) for a, b in zip(vs["p low"], vs["p high"])],
        "Holm p": [p_span(a, b, n_permutations) for a, b in zip(vs["Holm low"], vs["Holm high"])],
        "verdict (Holm)": [verdict(v, k, n) for v, k, n in zip(vs["verdict"], marks, seeds)]},
        index=vs.index)


def _tested_view(t: pd.DataFrame, columns: Sequence[str], n_permutations: int) -> pd.DataFrame:
    out = t.assign(**{"p": [p_cell(p, n_permutations) for p in t["p"]],
                      "Holm p": [p_cell(p, n_permutations) for p in t["Holm p"]],
                      "verdict (Holm)": [verdict_text(r) for _, r in t.iterrows()]})
    if "evaluation set" in t:
        data = t["data"] if "data" in t else pd.Series("MQM", index=t.index)
        out["set"] = [short_set(s) if d == "MQM" else f"{d} {s}" for d, s in zip(data, t["evaluation set"])]
    if "setting" in t:
        out["setting"] = t["setting"].map({name: short for short, name in SETTING_NAME.items()})
    return out[list(columns) + ["p", "Holm p", "verdict (Holm)"]]


def split_view(splits: pd.DataFrame, n_permutations: int) -> pd.DataFrame:
    """:func:`split_table` with the family's columns, for the page (short names, the alphabetical
    split as the authors'; Δ = RegEMT − best single)."""
    out = _tested_view(splits, ["set", "setting", "split", "RegEMT", "which", "best single", "Reg-base",
                                "RegEMT − best single"], n_permutations).rename(
        columns={"which": "best single", "best single": "its ρ", "RegEMT − best single": "Δ"})
    return out.assign(split=out["split"].replace({"alphabetical": "authors'"}))


def reg_base_view(rb: pd.DataFrame, n_permutations: int) -> pd.DataFrame:
    """:func:`reg_base_table` with the family's columns, for the page (Δ = Reg-base − other, its
    95% interval in one cell)."""
    t = rb.assign(**{"95% interval": [f"[{lo:+.3f}, {hi:+.3f}]" for lo, hi in zip(rb["low"], rb["high"])]})
    return _tested_view(t, ["set", "lengths", "against", "Reg-base ρ", "other ρ", "difference", "95% interval"],
                        n_permutations).rename(columns={"difference": "Δ"})


def context_view(cd: pd.DataFrame, n_permutations: int) -> pd.DataFrame:
    """:func:`context_table` with the family's columns, for the page."""
    return _tested_view(cd, ["set", "setting", "WMD-cont", "WMD-dec", "WMD-dec-tf", "WMD (static)"], n_permutations)


def level_view(lv: pd.DataFrame) -> pd.DataFrame:
    """:func:`level_table` for the page: each level's ρ and 95% interval in one cell."""
    def cell(level):
        return [f"{r:+.3f} [{lo:+.3f}, {hi:+.3f}]" for r, lo, hi in zip(lv[level], lv[level + " low"],
                                                                          lv[level + " high"])]
    return pd.DataFrame({"set": lv["evaluation set"].map(short_set), "sources": lv["sources"]}
                        | {level: cell(level) for level in ("pooled", "within", "between")})
