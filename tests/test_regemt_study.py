"""The RegEMT chapter's analyses (mtlib.regemt.study) on hand-made tables and synthetic rows.

Expected values are worked out by hand (Spearman of small permutations: [1, 2, 4, 3] against
[1, 2, 3, 4] is 1 - 6*2/60 = 0.8; [2, 1, 4, 3] is 0.6) or, for the orchestration over the
ensemble, by calling the underlying functions (evaluate, ablation, split_by_source) directly."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

from conftest import make_mtme  # noqa: E402

from mtlib.regemt import study  # noqa: E402
from mtlib.regemt.ensemble import ablation, split_by_source  # noqa: E402
from mtlib.regemt.experiment import REG_BASE, REGEMT, Evaluation, evaluate  # noqa: E402
from mtlib.regemt.study import Features, JudgedSet  # noqa: E402

UP = [1.0, 2.0, 3.0, 4.0]
DOWN = [4.0, 3.0, 2.0, 1.0]
SWAP_END = [1.0, 2.0, 4.0, 3.0]  # rho 0.8 with UP
SWAP_START = [2.0, 1.0, 3.0, 4.0]  # rho 0.8 with UP, 0.6 with SWAP_END


def fake_ev(spearman: dict, *, choice="linear", predictions=None, human=None, test=None):
    """An Evaluation with a hand-made table (no fit)."""
    table = pd.DataFrame({"spearman": pd.Series(spearman, dtype=float), "undefined": 0})
    return Evaluation(np.asarray(test if test is not None else []), predictions, human, table, None,
                      SimpleNamespace(choice=choice))


def synthetic_rows(n_sources=30, per_source=4, seed=0, lp="zh-en"):
    """Judged rows whose columns ``good`` (human + noise) and ``noise`` the fake featurizer reads."""
    rng = np.random.default_rng(seed)
    n = n_sources * per_source
    human = rng.normal(size=n)
    return pd.DataFrame({"lp": lp, "system": [f"sys{i % per_source}" for i in range(n)],
                         "segment": [i // per_source for i in range(n)],
                         "src": [f"source {i // per_source:03d}" for i in range(n)],
                         "mt": ["x" * int(k) for k in rng.integers(3, 30, n)],
                         "ref": ["y" * int(k) for k in rng.integers(3, 30, n)], "human": human,
                         "good": human + rng.normal(scale=0.3, size=n), "noise": rng.normal(size=n),
                         "extra": human + rng.normal(scale=0.1, size=n)})


class FakeFeaturizer:
    """Scores are the rows' own columns (reference-based: good and noise; source-based: good);
    lengths count characters, or half of them for unit "subword"."""

    def __call__(self, rows, setting):
        return Features(self.columns(rows, setting, ["good", "noise"] if setting == "ref" else ["good"]),
                        self.lengths(rows, setting))

    def lengths(self, rows, setting, unit="char"):
        div = 1 if unit == "char" else 2
        return pd.DataFrame({"len translation": rows["mt"].str.len() // div,
                             "len other": rows["ref" if setting == "ref" else "src"].str.len() // div})

    def columns(self, rows, setting, columns):
        return rows[list(columns)].copy()


def synthetic_set(seed=0, lp="zh-en"):
    return study.judged_set(synthetic_rows(seed=seed, lp=lp), FakeFeaturizer(), extra=["extra"])


def assert_same_evaluation(got: Evaluation, want: Evaluation):
    np.testing.assert_array_equal(got.test, want.test)
    pd.testing.assert_frame_equal(got.table, want.table)
    pd.testing.assert_frame_equal(got.predictions, want.predictions)


# -- the data ---------------------------------------------------------------------------------------

def test_judged_set_splits_by_source_and_scores_both_settings():
    rows = synthetic_rows(n_sources=10, per_source=2)
    d = study.judged_set(rows, FakeFeaturizer(), extra=["extra"])
    # alphabetical: the last 20% of the 10 sources are source 008 and source 009, rows 16..19
    assert list(d.test) == [16, 17, 18, 19] and list(d.train) == list(range(16))
    assert list(d.ref.scores.columns) == ["good", "noise"] and list(d.src.scores.columns) == ["good"]
    assert d.features("src") is d.src and list(d.extra.columns) == ["extra"]
    assert d.ref.lengths["len translation"].tolist() == rows["mt"].str.len().tolist()
    shuffled = study.judged_set(rows, FakeFeaturizer(), split_seed=3, extra=())
    assert list(shuffled.test) == list(split_by_source(list(rows["src"]), seed=3)[1]) and shuffled.extra is None
    with pytest.raises(ValueError, match="setting must be one of"):
        d.features("mt")


def test_load_mqm_sets_reads_each_key(tmp_path):
    root = make_mtme(tmp_path / "mtme")
    base = root / "toy" / "human-scores"
    (base / "de-en.mqm.seg.score").write_text((base / "de-en.wmt-z.seg.score").read_text())

    class Scores(FakeFeaturizer):
        def columns(self, rows, setting, columns):
            return pd.DataFrame({c: rows["mt"].str.len() for c in columns}, index=rows.index)
    data = study.load_mqm_sets(["toy de-en"], Scores(), n_segments=2, root=root)
    d = data["toy de-en"]
    # segments 0 and 1 rated; sysA's segment 1 is None: 5 rows, 2 sources, the last one is the test source
    assert len(d.rows) == 5 and set(d.rows["src"].iloc[d.test]) == {"Es regnet."}
    assert list(d.extra.columns) == ["DA-BERTScr", "Otem", "Utem"]


def test_overview_and_undefined_table():
    rows = pd.DataFrame({"system": ["a", "b", "a"], "segment": [0, 0, 1]})
    ref = Features(pd.DataFrame({"X": [1.0, np.nan, np.nan], "Y": [1.0, 2.0, 3.0]}), None)
    src = Features(pd.DataFrame({"X": [1.0, 2.0, np.nan]}), None)
    data = {"wmt21.news zh-en": JudgedSet(rows, np.array([0, 1]), np.array([2]), ref, src),
            "toy de-en": JudgedSet(rows, np.array([0]), np.array([1, 2]), src, src)}
    ov = study.overview(data)
    assert ov.loc["wmt21.news zh-en"].tolist() == [3, 2, 2, 2, 1, "refA"]
    assert ov.loc["toy de-en", "reference"] == "–" and ov.loc["toy de-en", "test rows"] == 2
    und = study.undefined_table(data)
    # Y never lacks a value: dropped; Y is not computed source-based, but that is no column
    assert list(und.columns) == ["X"]
    assert und["X"].tolist() == [2, 1, 1, 1]
    assert list(und.index) == [("wmt21.news zh-en", "reference-based"), ("wmt21.news zh-en", "source-based"),
                               ("toy de-en", "reference-based"), ("toy de-en", "source-based")]


# -- Table 1 ------------------------------------------------------------------------------------------

def test_other_pair_and_row_label():
    keys = ["wmt21.news zh-en", "wmt21.news en-de", "wmt21.tedtalks zh-en"]
    assert study.other_pair("wmt21.news zh-en", keys) == "wmt21.news en-de"
    assert study.other_pair("wmt21.news en-de", keys) == "wmt21.news zh-en"
    assert study.other_pair("wmt21.tedtalks zh-en", keys) is None
    assert study.row_label("wmt21.news zh-en", "ref", True) == "MQM-ref zh-en-X"
    assert study.row_label("wmt21.news en-de", "src", False) == "MQM-src en-de"


def test_evaluate_sets_fits_own_and_other_pair():
    data = {"t zh-en": synthetic_set(0), "t en-de": synthetic_set(1, "en-de"), "u zh-en": synthetic_set(2)}
    data["t en-de"].ref.scores = data["t en-de"].ref.scores[["good"]]  # the other pair lacks "noise"
    got = study.evaluate_sets(data, ["t zh-en", "t en-de"], ["u zh-en"], seed=42)
    assert list(got) == [("t zh-en", "src", False), ("t zh-en", "src", True), ("t zh-en", "ref", False),
                         ("t zh-en", "ref", True), ("t en-de", "src", False), ("t en-de", "src", True),
                         ("t en-de", "ref", False), ("t en-de", "ref", True), ("u zh-en", "src", False),
                         ("u zh-en", "ref", False)]
    d, o = data["t zh-en"], data["t en-de"]
    own = evaluate(d.ref.scores, d.ref.lengths, d.rows["human"], d.rows["src"], test=d.test, seed=42)
    assert_same_evaluation(got["t zh-en", "ref", False], own)
    # cross-lingual: only the column both pairs have, fitted on the other pair's training rows
    cross = evaluate(d.ref.scores[["good"]], d.ref.lengths, d.rows["human"], d.rows["src"], test=d.test,
                     fit_on=(o.ref.scores.iloc[o.train], o.ref.lengths.iloc[o.train], o.rows["human"].iloc[o.train]),
                     seed=42)
    assert_same_evaluation(got["t zh-en", "ref", True], cross)
    assert "noise" not in got["t zh-en", "ref", True].predictions


def test_paper_values_and_against_paper():
    paper = {("MQM", "ref", "zh-en", "RegEMT"): 0.5, ("MQM", "ref", "zh-en", "BLEU"): 0.2,
             ("MQM", "ref", "zh-en-X", "RegEMT"): 0.3, ("MQM", "src", "zh-en", "RegEMT"): 0.4,
             ("DA 2016", "ref", "cs-en", "BLEU"): 0.7}
    assert study.paper_values(paper, "MQM", "ref", "zh-en").to_dict() == {"RegEMT": 0.5, "BLEU": 0.2}
    assert study.paper_values(paper, "DA 2016").to_dict() == {"BLEU": 0.7}
    ours, theirs = study.against_paper({"r1": pd.Series({"RegEMT": 0.6, "WMD": 0.1})},
                                       {"r1": pd.Series({"RegEMT": 0.5, "BLEU": 0.2})},
                                       ["RegEMT", "Comet", "BLEU", "WMD"])
    assert list(ours.columns) == list(theirs.columns) == ["RegEMT", "BLEU", "WMD"]
    assert ours.loc["r1", "RegEMT"] == 0.6 and np.isnan(ours.loc["r1", "BLEU"])
    assert theirs.loc["r1", "BLEU"] == 0.2 and np.isnan(theirs.loc["r1", "WMD"])


def test_table1_rows_labels_and_paper():
    evs = {("wmt21.news zh-en", "ref", False): fake_ev({"RegEMT": 0.6, "BLEU": 0.1}, choice="mlp"),
           ("wmt21.news zh-en", "ref", True): fake_ev({"RegEMT": 0.2, "BLEU": 0.1}),
           ("wmt21.news zh-en", "src", False): fake_ev({"RegEMT": 0.5}),
           ("wmt21.tedtalks en-de", "ref", False): fake_ev({"RegEMT": 0.4, "BLEU": 0.3})}
    paper = {("MQM", "ref", "zh-en", "RegEMT"): 0.55, ("MQM", "ref", "zh-en-X", "BLEU"): 0.25,
             ("MQM", "src", "zh-en", "RegEMT"): 0.45, ("MQM", "ref", "en-de", "RegEMT"): 0.9}
    ours, theirs, choice = study.table1(evs, ["wmt21.news zh-en", "wmt21.tedtalks en-de"], paper=paper,
                                        order=["RegEMT", "Comet", "BLEU"])
    assert list(ours.index) == ["MQM-src zh-en", "MQM-ref zh-en", "MQM-ref zh-en-X", "MQM-ref en-de"]
    assert list(ours.columns) == ["RegEMT", "BLEU"] and ours.loc["MQM-ref zh-en-X", "RegEMT"] == 0.2
    assert theirs.loc["MQM-ref zh-en", "RegEMT"] == 0.55 and theirs.loc["MQM-ref zh-en-X", "BLEU"] == 0.25
    assert theirs.loc["MQM-ref en-de"].isna().all()  # TED: the paper has no such row
    assert choice == {"MQM-src zh-en": "linear", "MQM-ref zh-en": "mlp", "MQM-ref zh-en-X": "linear",
                      "MQM-ref en-de": "linear"}


def test_best_single_and_table1_sentences():
    ours = pd.DataFrame({"RegEMT": [0.5, 0.2], "Reg-base": [0.9, 0.1], "BLEU": [0.3, 0.3], "WMD": [0.4, np.nan]},
                        index=["r1", "r2"])
    assert study.best_single(ours.loc["r1"]) == ("WMD", 0.4)
    paper = pd.DataFrame({"RegEMT": [0.45, np.nan]}, index=["r1", "r2"])
    said = study.table1_sentences(ours, paper, {"r1": "mlp", "r2": "linear"})
    assert said == {
        "t1_wins": "RegEMT is above the best single metric in 1 of 2 rows (r1 by 0.100; no interval here: see below)",
        "t1_lines": "r1: RegEMT 0.500 (mlp), best single metric WMD 0.400; "
                    "r2: RegEMT 0.200 (linear), best single metric BLEU 0.300",
        "t1_regemt_delta": "+0.050"}
    none = study.table1_sentences(ours.loc[["r2"]], paper.loc[["r2"]], {"r2": "linear"})
    assert none["t1_wins"] == "RegEMT is above the best single metric in 0 of 1 rows"
    assert none["t1_regemt_delta"] == "n/a"


def test_mean_over_pairs_and_table1_bottom():
    da = {"ref": {"cs-en": fake_ev({"RegEMT": 0.2, "BLEU": 0.4}), "de-en": fake_ev({"RegEMT": 0.4, "BLEU": 0.0})},
          "src": {"cs-en": fake_ev({"RegEMT": 0.1})}}
    crit = {"en-de": fake_ev({"RegEMT": 0.3, "BERTScr": 0.5})}
    per_lp, mean = study.mean_over_pairs(da["ref"])
    assert list(per_lp.index) == ["cs-en", "de-en"] and mean.to_dict() == pytest.approx({"RegEMT": 0.3, "BLEU": 0.2})
    paper = {("DA 2016", "ref", "mean", "BLEU"): 0.35, ("DA 2016", "src", "mean", "RegEMT"): 0.15,
             ("catastrophic", "src", "mean", "BERTScr"): 0.13}
    order = ["RegEMT", "BERTScr", "BLEU", "Comet"]
    ours, theirs, per_pair = study.table1_bottom(da, crit, paper=paper, order=order)
    assert list(ours.index) == ["DA 2016-ref", "DA 2016-src", "critical-src"] == list(per_pair)
    assert list(ours.columns) == ["RegEMT", "BERTScr", "BLEU"]
    assert ours.loc["DA 2016-ref", "RegEMT"] == pytest.approx(0.3) and ours.loc["critical-src", "BERTScr"] == 0.5
    assert theirs.loc["DA 2016-ref", "BLEU"] == 0.35 and theirs.loc["critical-src", "BERTScr"] == 0.13
    other_years, theirs2, _ = study.table1_bottom(da, None, paper=paper, order=order, da_years=("wmt15", "wmt17"))
    assert list(other_years.index) == ["DA 2017-ref", "DA 2017-src"] and theirs2.isna().all().all()
    assert study.table1_bottom(None, {}, paper=paper, order=order) == (None, None, {})


def test_no_value_table_keeps_rows_and_columns_with_counts():
    counts = {"a": pd.Series({"X": 0, "Y": 2}), "b": pd.Series({"X": 0}), "c": pd.Series({"Y": 1, "Z": 0})}
    table = study.no_value_table(counts)
    assert table.to_dict() == {"Y": {"a": 2, "c": 1}} and table["Y"].dtype == int


def test_da_and_critical_evaluations_fit_where_they_should():
    train = pd.concat([synthetic_rows(seed=0, lp="cs-en"), synthetic_rows(seed=1, lp="de-en")], ignore_index=True)
    train.loc[3, "noise"] = np.nan
    test = pd.concat([synthetic_rows(n_sources=15, seed=2, lp="ro-en"), synthetic_rows(n_sources=15, seed=3, lp="cs-en")],
                     ignore_index=True)
    evs, no_value = study.da_evaluations(train, test, FakeFeaturizer(), seed=42)
    assert list(no_value) == ["wmt15 (train) reference-based", "wmt16 (test) reference-based",
                              "wmt15 (train) source-based", "wmt16 (test) source-based"]
    assert no_value["wmt15 (train) reference-based"]["noise"] == 1 and no_value["wmt16 (test) reference-based"].sum() == 0
    assert list(evs) == ["ref", "src"] and list(evs["ref"]) == ["cs-en", "ro-en"]
    rows = test[test["lp"] == "ro-en"]
    want = evaluate(rows[["good", "noise"]], FakeFeaturizer().lengths(rows, "ref"), rows["human"], rows["src"],
                    test=np.arange(len(rows)), seed=42,
                    fit_on=(train[["good", "noise"]], FakeFeaturizer().lengths(train, "ref"), train["human"]))
    assert_same_evaluation(evs["ref"]["ro-en"], want)
    assert list(evs["src"]["cs-en"].predictions.columns) == ["good", REG_BASE, REGEMT]

    crit_rows = {"en-de": synthetic_rows(seed=4, lp="en-de")}
    per_lp, crit_none = study.critical_evaluations(crit_rows, FakeFeaturizer(), split_seed=2, seed=42)
    r = crit_rows["en-de"]
    want = evaluate(r[["good"]], FakeFeaturizer().lengths(r, "src"), r["human"], r["src"], split_seed=2, seed=42)
    assert_same_evaluation(per_lp["en-de"], want)
    assert list(crit_none) == ["critical errors en-de"]


# -- intervals and splits -------------------------------------------------------------------------

def test_interval_table_and_summary():
    human = np.array(UP * 3)
    predictions = pd.DataFrame({"A": human, "B": -human, REGEMT: human, REG_BASE: human})
    rows = pd.DataFrame({"src": [f"s{i}" for i in range(12)]})
    data = {"k": JudgedSet(rows, np.arange(0), np.arange(12), None, None)}
    ev = fake_ev({"A": 1.0, "B": -1.0, REGEMT: 1.0, REG_BASE: 1.0}, predictions=predictions, human=human,
                 test=np.arange(12))
    intervals = study.interval_table({("k", "ref", False): ev, ("k", "ref", True): ev}, data, n_resamples=20, seed=1)
    # a column monotone in the human scores has rho 1 on every resample: the interval is a point
    assert len(intervals) == 4 and intervals["setting"].unique().tolist() == ["reference-based"]
    a = intervals.set_index("metric").loc["A"]
    assert (a["rho"], a["low"], a["high"]) == pytest.approx((1.0, 1.0, 1.0))
    assert intervals.set_index("metric").loc["B", "high"] == pytest.approx(-1.0)
    table = pd.DataFrame([
        {"evaluation set": "k", "setting": s, "metric": m, "rho": r, "low": r - 0.1, "high": r + 0.1}
        for s in ("reference-based", "source-based")
        for m, r in [(REGEMT, 0.5), (REG_BASE, 0.9), ("A", 0.25), ("B", 0.375)]])
    assert study.interval_summary(table, ["k"]) == (
        "k reference-based: RegEMT 0.500 [0.400, 0.600] against B 0.375 [0.275, 0.475]; "
        "k source-based: RegEMT 0.500 [0.400, 0.600] against B 0.375 [0.275, 0.475]")


def test_split_table_evaluates_every_split():
    data = {"t zh-en": synthetic_set(0)}
    splits = study.split_table(data, ["t zh-en"], split_seed=None, split_seeds=[1, 2], seed=42)
    assert splits["split"].tolist() == ["alphabetical"] * 2 + ["seed 1"] * 2 + ["seed 2"] * 2
    assert splits["setting"].tolist() == ["reference-based", "source-based"] * 3
    assert (splits["which"] == "good").all()
    d = data["t zh-en"]
    _, test = split_by_source(list(d.rows["src"]), seed=1)
    want = evaluate(d.src.scores, d.src.lengths, d.rows["human"], d.rows["src"], test=test, seed=42).table
    row = splits.iloc[3]
    assert row["RegEMT"] == want.loc[REGEMT, "spearman"] and row["Reg-base"] == want.loc[REG_BASE, "spearman"]
    assert row["best single"] == want.loc["good", "spearman"]
    assert row["RegEMT − best single"] == pytest.approx(row["RegEMT"] - row["best single"])
    # the chosen split comes first and is not repeated
    again = study.split_table(data, ["t zh-en"], split_seed=2, split_seeds=[1, 2], seed=42)
    assert again["split"].tolist() == ["seed 2"] * 2 + ["seed 1"] * 2


def test_split_summary():
    gap = "RegEMT − best single"
    splits = pd.DataFrame({"split": ["alphabetical"] * 2 + ["seed 1"] * 2 + ["seed 2"] * 2,
                           gap: [0.1, 0.2, -0.05, 0.0001, 0.02, -0.01]})
    # chosen: 2 of 2 wins (share 1); others: 0.02 wins, 0.0001 rounds to 0 (tie) -> 1 of 4 (share 2/4)
    assert study.split_summary(splits) == (
        "On the split used above (alphabetical), RegEMT is above the best single metric in 2 of 2 (set, setting) "
        "combinations; on 2 shuffled splits in 1 of 4 (1 tied to three decimals), by -0.050 to +0.020 — the "
        "held-out sources change the verdict")
    steady = pd.DataFrame({"split": ["seed 1", "seed 1", "seed 2", "seed 2"], gap: [0.1, -0.1, 0.2, -0.2]})
    assert study.split_summary(steady, 1) == (
        "On the split used above (seed 1), RegEMT is above the best single metric in 1 of 2 (set, setting) "
        "combinations; on 1 shuffled splits in 1 of 2, by -0.200 to +0.200 — the verdict holds across splits")
    only = steady[steady["split"] == "seed 1"]
    assert study.split_summary(only, 1).endswith("in 1 of 2 (set, setting) combinations")


# -- Table 2, ablation, importances -------------------------------------------------------------------

def test_combined_matrix_takes_upper_from_ref_and_lower_from_src():
    names = ["MQM", REGEMT, "A", "B", "C"]
    ref = fake_ev({}, predictions=pd.DataFrame({REGEMT: SWAP_END, "A": UP, "B": DOWN}), human=np.array(UP))
    src = fake_ev({}, predictions=pd.DataFrame({REGEMT: UP, "A": SWAP_START, "C": SWAP_END}), human=np.array(UP))
    m = study.combined_matrix({("k", "ref", False): ref, ("k", "src", False): src}, "k", names)
    assert m.loc["MQM", REGEMT] == pytest.approx(0.8) and m.loc["MQM", "B"] == pytest.approx(-1.0)
    assert m.loc[REGEMT, "B"] == pytest.approx(-0.8) and m.loc["A", "B"] == pytest.approx(-1.0)
    assert np.isnan(m.loc["A", "C"])  # C is not reference-based
    assert m.loc[REGEMT, "MQM"] == pytest.approx(1.0) and m.loc["A", REGEMT] == pytest.approx(0.8)
    assert m.loc["C", "A"] == pytest.approx(0.6) and np.isnan(m.loc["B", "A"])  # B is not source-based
    assert [m.loc[n, n] for n in names[:4]] == [1.0] * 4 and np.isnan(m.loc["C", "C"])


def test_join_triangles_and_mean_abs_offdiagonal():
    upper = pd.DataFrame(np.arange(9.0).reshape(3, 3), index=list("abc"), columns=list("abc"))
    lower = -upper
    joined = study.join_triangles(upper, lower)
    assert joined.to_numpy().tolist() == [[0, 1, 2], [-3, 4, 5], [-6, -7, 8]]
    assert list(joined.index) == list("abc")
    m = pd.DataFrame([[1.0, -0.5, np.nan], [-0.5, 1.0, 0.2], [np.nan, 0.2, 1.0]], index=list("abc"),
                     columns=list("abc"))
    assert study.mean_abs_offdiagonal(m, list("abc")) == pytest.approx((0.5 + 0.5 + 0.2 + 0.2) / 4)
    assert study.mean_abs_offdiagonal(m, ["a", "b"]) == pytest.approx(0.5)


def test_table2_summary():
    names = ["SCM", "SCM-tf", "WMD", "WMD-tf", "WMD-cont", "WMD-dec", "WMD-dec-tf", "Reg-base", "BLEU", "METEOR"]
    matrix = pd.DataFrame(0.0, index=names, columns=names)
    matrix.loc["WMD-tf"] = np.nan  # no value: left out of its family
    preds = pd.DataFrame({"SCM": UP, "SCM-tf": UP, "WMD": DOWN, "WMD-tf": SWAP_END, "WMD-cont": UP,
                          "WMD-dec": SWAP_END, "WMD-dec-tf": SWAP_START, "Reg-base": UP, "BLEU": DOWN,
                          "METEOR": SWAP_END})
    paper = pd.DataFrame(0.5, index=names, columns=names)
    paper.loc["WMD-cont":"WMD-dec-tf", "WMD-cont":"WMD-dec-tf"] = 0.9
    paper.loc["Reg-base", "BLEU"], paper.loc["Reg-base", "METEOR"] = 0.19, 0.18
    # static family SCM, SCM-tf, WMD: |rho| 1 everywhere; contextual: 0.8, 0.8 and 0.6 -> 0.73
    assert study.table2_summary(matrix, fake_ev({}, predictions=preds), paper) == (
        "Within the static-vector metrics the mean |ρ| is 1.00 (paper 0.50); within the contextual and "
        "decontextualized WMDs 0.73 (paper 0.90); Reg-base against BLEU -1.00 and against METEOR +0.80 "
        "(paper 0.19 and 0.18)")


def test_ablations_use_the_fitted_reg_base_and_the_own_split():
    data = {"t zh-en": synthetic_set(0)}
    evs = study.evaluate_sets(data, ["t zh-en"], seed=42)
    got = study.ablations(data, evs, ["t zh-en"], seed=42)
    assert list(got) == [("t zh-en", "ref"), ("t zh-en", "src")]
    d = data["t zh-en"]
    feats = d.src.scores.assign(**{REG_BASE: evs["t zh-en", "src", False].reg_base.predict(d.src.lengths)})
    y = d.rows["human"].to_numpy()
    want = ablation(feats.iloc[d.train], y[d.train], feats.iloc[d.test], y[d.test], seed=42)
    pd.testing.assert_frame_equal(got["t zh-en", "src"], want)


def test_ablation_summary():
    steps = pd.DataFrame({"spearman": [0.5, 0.6, 0.4], "features": [3, 2, 1],
                          "remaining": [["a", "b", "c"], ["a", "c"], ["c"]]})
    assert study.ablation_summary({("k", "ref"): steps, ("k", "src"): steps.iloc[:1]}) == (
        "k reference-based: all features 0.500, best 0.600 with 2 left, last one standing c 0.400; "
        "k source-based: all features 0.500, best 0.500 with 3 left, last one standing a 0.500")


def test_importance_table_and_summary():
    data = {"t zh-en": synthetic_set(0)}
    evs = study.evaluate_sets(data, ["t zh-en"], seed=42)
    imp = study.importance_table(evs, "t zh-en", n_repeats=3, seed=42)
    assert list(imp.columns) == ["reference-based", "source-based"] and imp.index[0] == "good"
    assert imp["reference-based"].is_monotonic_decreasing and np.isnan(imp.loc["noise", "source-based"])
    hand = pd.DataFrame({"reference-based": [0.3, 0.1, 0.2], "source-based": [0.0, 0.5, 0.4]}, index=list("abc"))
    assert study.importance_summary(hand) == ("reference-based: a (0.300), then c (0.200); "
                                              "source-based: b (0.500), then c (0.400)")


# -- beyond the paper -------------------------------------------------------------------------------

def test_extra_table_and_summaries():
    data = {"t zh-en": synthetic_set(0)}
    evs = study.evaluate_sets(data, ["t zh-en"], seed=42)
    table = study.extra_table(data, evs, ["t zh-en"], extra=["extra"], seed=42)
    d = data["t zh-en"]
    assert sorted(table.index) == ["RegEMT", "RegEMT + extra", "extra alone"]
    assert table.loc["RegEMT", "t zh-en"] == evs["t zh-en", "ref", False].table.loc[REGEMT, "spearman"]
    test = d.rows.iloc[d.test]
    assert table.loc["extra alone", "t zh-en"] == pytest.approx(test["extra"].corr(test["human"], method="spearman"))
    hand = pd.DataFrame({"a": [0.5, 0.7, 0.1, 0.0, 0.0], "b": [0.4, 0.3, -0.2, 0.0, 0.0]},
                        index=["RegEMT", "RegEMT + DA-BERTScr, Otem, Utem", "DA-BERTScr alone", "Otem alone",
                               "Utem alone"])
    assert study.extra_summaries(hand) == {"extra_summary": "a +0.200, b -0.100", "dabert_summary": "a +0.100, b -0.200"}


def test_paired_difference_on_certain_and_single_group_cases():
    human = np.array(UP * 3)
    ev = fake_ev({"a": 1.0, "b": -1.0, "c": 0.8}, human=human,
                 predictions=pd.DataFrame({"a": human, "b": -human, "c": SWAP_END * 3}))
    groups = [f"s{i}" for i in range(12)]
    # a has rho 1 and b rho -1 on every resample: the difference is 2 on each
    assert study.paired_difference(ev, groups, "a", "b", n_resamples=30, seed=3) == pytest.approx((2.0, 2.0, 2.0))
    # one group: every resample is the whole test set; the point is read from the table
    point, low, high = study.paired_difference(ev, ["g"] * 12, "c", "a", n_resamples=10, seed=3)
    assert point == pytest.approx(-0.2) and low == high
    assert low == pytest.approx(pd.Series(SWAP_END * 3).corr(pd.Series(human), method="spearman") - 1)


def test_reg_base_table_and_sentences():
    rows = synthetic_rows(seed=5).rename(columns={"good": "BLEU", "noise": "METEOR"})
    d = JudgedSet(rows, *split_by_source(list(rows["src"])), Features(rows[["BLEU", "METEOR"]], None), None)
    rb = study.reg_base_table({"k": d}, ["k"], FakeFeaturizer(), n_resamples=20, seed=42)
    assert rb[["lengths", "against"]].values.tolist() == [["subword", "BLEU"], ["subword", "METEOR"],
                                                          ["char", "BLEU"], ["char", "METEOR"]]
    test = rows.iloc[d.test]
    assert rb.loc[0, "other ρ"] == pytest.approx(test["BLEU"].corr(test["human"], method="spearman"))
    np.testing.assert_allclose(rb["difference"], rb["Reg-base ρ"] - rb["other ρ"])
    assert (rb["low"] <= rb["high"]).all()
    hand = pd.DataFrame({"difference": [0.2, -0.1, 0.05, -0.3], "low": [0.1, -0.2, -0.1, -0.4],
                         "high": [0.3, 0.1, 0.2, -0.2]})
    assert study.reg_base_summary(hand) == (
        "on the MQM sets, Reg-base is above the other metric with the whole 95% interval above zero in 1 of 4 "
        "comparisons, below it in 1, and undecided in 2 (point estimates below the other metric: 2 of 4)")
    t1 = pd.DataFrame({REGEMT: [0.5, 0.2], REG_BASE: [0.5, 0.1]})
    t2 = pd.DataFrame({REGEMT: [0.1], REG_BASE: [0.3]})
    assert study.reg_base_vs_regemt([t1, t2]) == (
        "Reg-base alone is at or above the full ensemble in 2 of 3 MQM rows (Table 1 and the further sets, "
        "cross-lingual rows included)")


def test_context_table_and_summary():
    cols = {"WMD-cont": 0.3, "WMD-dec": 0.4, "WMD-dec-tf": 0.2}
    evs = {("k", "ref", False): fake_ev({**cols, "WMD": 0.1}), ("k", "ref", True): fake_ev(cols),
           ("k", "src", False): fake_ev({"WMD-cont": 0.5, "WMD-dec": 0.2, "WMD-dec-tf": 0.6})}
    cd = study.context_table(evs)
    assert cd["setting"].tolist() == ["reference-based", "source-based"]
    assert cd["WMD (static)"].iloc[0] == 0.1 and np.isnan(cd["WMD (static)"].iloc[1])
    # differences dec - cont: +0.1 and -0.3 -> mean -0.1
    assert study.context_summary(cd) == (
        "WMD-dec is above WMD-cont in 1 of 2 MQM settings (mean difference -0.100, from -0.300 to +0.100; the "
        "differences are not tested here); WMD-dec-tf is above WMD-cont in 1 of them")


def test_compos_table_and_summary():
    rows = pd.DataFrame({"src": list("abcdef"), "human": [9.0, 9.0] + UP, "row": [0.0, 0.0] + DOWN})
    scores = pd.DataFrame({"Compos": [0.0, 0.0] + SWAP_END})
    d = JudgedSet(rows, np.array([0, 1]), np.array([2, 3, 4, 5]), Features(scores, None),
                  Features(pd.DataFrame({"BERTScr": np.zeros(6)}), None))

    class RowNormalised(FakeFeaturizer):
        def columns(self, rows, setting, columns):
            return pd.DataFrame({c: rows["row"] for c in columns})
    table = study.compos_table({"k": d}, ["k"], RowNormalised())
    assert table.to_dict("records") == [{"evaluation set": "k", "setting": "reference-based",
                                         "total (authors' code)": pytest.approx(0.8),
                                         "row (paper's text)": pytest.approx(-1.0)}]
    hand = pd.DataFrame({"total (authors' code)": [0.2, -0.1], "row (paper's text)": [0.1, 0.3]})
    # gains -0.1 and +0.4; |row| > |total| in the second
    assert study.compos_summary(hand) == (
        "Row normalisation changes Compos's signed ρ by -0.100 to +0.400 (mean +0.150) over these 2 settings and "
        "raises it in 1; by |ρ| it is stronger in 1. The total-normalised Compos is negative (a closer tag pattern "
        "going with a worse MQM score) in 1 settings, the row-normalised one in 0. The ensemble's numbers above use "
        "the authors' normalisation; it was not refitted with the other")
    assert study.compos_summary(table.iloc[:0]).startswith("No evaluation set of this run has part-of-speech taggers")


def test_conclusion_quotes_the_sentences():
    said = {"t1_wins": "W", "t1_regemt_delta": "+0.1", "split_summary": "S", "rb_summary": "R",
            "regbase_vs_regemt": "V", "cd_summary": "C"}
    text = study.conclusion(["a b", "c d"], said)
    assert text.startswith("With an offline multilingual encoder, on the MQM sets a b, c d (the paper's were "
                           "WMT20's): W of Table 1's MQM block; the mean of |ρ(RegEMT)| minus the paper's value is "
                           "+0.1. S. Against BLEU and METEOR: R. V. Contextual against decontextualized vectors: C. ")
    assert text.endswith("the intervals above say how far each number can be trusted.")
