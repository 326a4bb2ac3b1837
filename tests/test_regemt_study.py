"""The RegEMT chapter's analyses (mtbook.studies.regemt) on hand-made tables and synthetic rows.

Expected values are worked out by hand (Spearman of small permutations: [1, 2, 4, 3] against
[1, 2, 3, 4] is 1 - 6*2/60 = 0.8; [2, 1, 4, 3] is 0.6) or, for the orchestration over the
ensemble, by calling the underlying functions (evaluate, ablation, split_by_source) directly."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

pytest.importorskip("sklearn")

from conftest import make_mtme  # noqa: E402

from mtbook.studies.regemt import study  # noqa: E402
from mtlib.regemt.ensemble import split_by_source  # noqa: E402
from mtbook.studies.regemt.experiment import (REG_BASE, REGEMT, Evaluation, evaluate, metric_ablation,  # noqa: E402
                                             spearman_table)
from mtlib.significance import Comparison, Verdict, compare  # noqa: E402
from mtlib.regemt.scores import COMPOS_ROW  # noqa: E402
from mtbook.studies.regemt.study import Features, JudgedSet  # noqa: E402

UP = [1.0, 2.0, 3.0, 4.0]
DOWN = [4.0, 3.0, 2.0, 1.0]
SWAP_END = [1.0, 2.0, 4.0, 3.0]  # rho 0.8 with UP
SWAP_START = [2.0, 1.0, 3.0, 4.0]  # rho 0.8 with UP, 0.6 with SWAP_END


def fake_ev(spearman: dict, *, choice="linear", base_choice="linear", predictions=None, human=None, test=None):
    """An Evaluation with a hand-made table (no fit)."""
    table = pd.DataFrame({"spearman": pd.Series(spearman, dtype=float), "undefined": 0})
    return Evaluation(np.asarray(test if test is not None else []), predictions, human, table,
                      SimpleNamespace(choice=base_choice), SimpleNamespace(choice=choice))


def real_ev(columns: dict, human, choice="linear"):
    """An Evaluation whose table is computed from the given test-row columns (no fit)."""
    predictions = pd.DataFrame(columns)
    human = np.asarray(human, dtype=float)
    return Evaluation(np.arange(len(human)), predictions, human, spearman_table(predictions, human),
                      SimpleNamespace(choice="linear"), SimpleNamespace(choice=choice))


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


class ComposFeaturizer(FakeFeaturizer):
    """As FakeFeaturizer, with a ``Compos`` feature (the rows' ``good``) in both settings and the
    row-normalised one read from the rows' ``extra``."""

    def __call__(self, rows, setting):
        f = super().__call__(rows, setting)
        return Features(f.scores.assign(Compos=rows["good"]), f.lengths)

    def columns(self, rows, setting, columns):
        return pd.DataFrame({c: rows["extra" if c == COMPOS_ROW else c] for c in columns}, index=rows.index)


def synthetic_set(seed=0, lp="zh-en"):
    return study.judged_set(synthetic_rows(seed=seed, lp=lp), FakeFeaturizer(), extra=["extra"])


def assert_same_evaluation(got: Evaluation, want: Evaluation):
    np.testing.assert_array_equal(got.test, want.test)
    pd.testing.assert_frame_equal(got.table, want.table)
    pd.testing.assert_frame_equal(got.predictions, want.predictions)


# -- comparisons, the page's family and verdicts ----------------------------------------------------

def comparison(p: float, delta: float = 0.1, n_units: int = 30) -> Comparison:
    """A hand-made two-sided comparison with raw p ``p`` (no test run)."""
    return Comparison(0.3, 0.3 + delta, delta, p, "two-sided", 3 * n_units, n_units, "source", 0.5 ** (n_units - 1),
                      0.0, "spearman", 1000, 42)


def test_compare_columns_swaps_the_rows_of_a_source_together():
    # three sources of ten rows: B is the human order itself, A is noisy. Swapping rows, almost no permutation
    # reaches the difference; swapping sources, only 8 patterns exist, and "none" and "all" (2 of 8) reproduce it.
    rng = np.random.default_rng(3)
    human = np.arange(30.0)
    scores = pd.DataFrame({"A": human + rng.normal(scale=12, size=30), "B": human})
    sources = [f"s{i // 10}" for i in range(30)]
    by_source = study.compare_columns(scores, human, "A", "B", sources, n_permutations=1000, seed=1)
    by_row = study.compare_columns(scores, human, "A", "B", [f"r{i}" for i in range(30)], n_permutations=1000, seed=1)
    assert (by_source.unit, by_source.n_units, by_row.n_units, by_source.n) == ("source", 3, 30, 30)
    assert by_source.delta == by_row.delta > 0 and by_source.exact_floor == 0.25
    assert by_row.p < 0.01 and by_source.p >= 0.2  # at least the share of "swap none" or "swap all", about 1/4
    assert by_source == compare(scores["A"], scores["B"], human, "spearman", unit="source", clusters=sources,
                                n_permutations=1000, seed=1)
    # rows without a value are left out with their source labels
    gap = scores.assign(A=scores["A"].where(np.arange(30) != 4))
    assert study.compare_columns(gap, human, "A", "B", sources, n_permutations=50, seed=1).n == 29
    with pytest.raises(ValueError, match="29 sources"):
        study.compare_columns(scores, human, "A", "B", sources[:-1])


def test_fewer_than_three_sources_are_untested_and_stay_out_of_holm():
    human = np.arange(20.0)
    scores = pd.DataFrame({"A": -human, "B": human})
    two = study.compare_columns(scores, human, "A", "B", ["s0"] * 10 + ["s1"] * 10, n_permutations=100, seed=1)
    assert np.isnan(two.p) and two.verdict() is Verdict.UNTESTED and "2 source clusters" in two.reason
    table = pd.DataFrame({"row": ["r1", "r2"], "A": "A", "B": "B", "comparison": [two, comparison(0.01)]})
    rows, out = study.page_family({"t": table})
    assert [r.verdict.value for r in rows] == ["untested", "B better"]
    assert np.isnan(out["t"]["Holm p"].iloc[0]) and out["t"]["Holm p"].iloc[1] == 0.01  # a family of one test
    assert study.family_floor(rows)["tests"] == 1


def test_page_family_adjusts_every_table_together_and_holm_lifts_a_raw_p():
    first = pd.DataFrame({"row": ["r1", "r2"], "seed": [np.int64(7), np.int64(8)], "A": "BLEU", "B": REGEMT,
                          "comparison": [comparison(0.02), comparison(0.5)]})
    second = pd.DataFrame({"evaluation set": ["k"], "setting": ["source-based"], "A": "WMD-dec", "B": "WMD-cont",
                           "comparison": [comparison(0.03, delta=-0.2, n_units=12)]})
    rows, out = study.page_family({"best single": first, "context": second})
    # Holm over the three p-values 0.02, 0.03, 0.5: 0.02 * 3 = 0.06, max(0.03 * 2, 0.06) = 0.06, 0.5
    assert [r.p_holm for r in rows] == pytest.approx([0.06, 0.5, 0.06])
    assert out["best single"]["Holm p"].tolist() == pytest.approx([0.06, 0.5])
    assert out["best single"]["verdict"].tolist() == ["no difference shown"] * 2  # raw 0.02 < 0.05, Holm 0.06 is not
    assert out["context"]["verdict"].tolist() == ["no difference shown"]
    assert rows[0].setting == {"table": "best single", "row": "r1", "seed": 7}
    assert rows[2].setting == {"table": "context", "evaluation set": "k", "setting": "source-based"}
    assert (rows[2].a, rows[2].b, rows[2].stat) == ("WMD-dec", "WMD-cont", "Spearman ρ")
    assert "Holm p" not in first  # the tables given are left as they were
    assert study.family_floor(rows) == {"tests": 3, "units": 12, "exact": 0.5 ** 11, "resolution": 0.001,
                                        "holm_resolution": pytest.approx(0.003), "n_permutations": 1000}
    _, strong = study.page_family({"t": first.assign(comparison=[comparison(0.0), comparison(0.001, delta=-0.1)])})
    assert strong["t"]["verdict"].tolist() == ["B better", "A better"]  # 0 and 0.001 * 1 stay below 0.05
    assert study.family_floor([]) is None


def test_page_family_counts_a_test_that_two_tables_hold_once():
    # Table 1's row r1 and the split table's row on the same split are one test (the same Comparison of the same
    # columns): Holm over the 3 distinct p-values 0.01, 0.02, 0.5, not over 4
    same, other = comparison(0.01), comparison(0.02, delta=0.2)
    t1 = pd.DataFrame({"row": ["r1", "r2"], "seed": [42, 42], "A": "BLEU", "B": REGEMT, "comparison": [same, other]})
    splits = pd.DataFrame({"evaluation set": ["k", "k"], "setting": ["reference-based"] * 2,
                           "split": ["alphabetical", "seed 1"], "A": "BLEU", "B": REGEMT,
                           "comparison": [comparison(0.01), comparison(0.5)]})  # equal to `same`, not the object
    rows, out = study.page_family({"best single": t1, "splits": splits})
    assert len(rows) == 3 and study.family_floor(rows)["tests"] == 3
    # Holm: 0.01 * 3 = 0.03, max(0.02 * 2, 0.03) = 0.04, 0.5
    assert [r.p_holm for r in rows] == pytest.approx([0.03, 0.04, 0.5])
    assert out["splits"]["Holm p"].tolist() == pytest.approx([0.03, 0.5])  # the shared row: Table 1's Holm p
    assert out["splits"]["verdict"].tolist() == ["B better", "no difference shown"]
    assert out["splits"][study.SAME_TEST].fillna("").tolist() == ["best single", ""]
    assert out["best single"][study.SAME_TEST].isna().all()
    assert rows[0].setting == {"table": "best single", "row": "r1", "seed": 42, "also in": ["splits"]}
    assert "also in" not in rows[1].setting
    with_p = {name: t.assign(p=[c.p for c in t["comparison"]]) for name, t in out.items()}
    assert study.perm_test_counts(best=with_p["best single"], splits=with_p["splits"]) == {
        "best": 2, "splits": 1, "total": 3, "shared": {"splits": 1}}
    # the same p under other columns, or another outcome of the same columns, is another test
    renamed = splits.assign(A="METEOR")
    assert len(study.page_family({"best single": t1, "splits": renamed})[0]) == 4
    moved = splits.assign(comparison=[replace(same, corr_a=0.31), comparison(0.5)])
    assert len(study.page_family({"best single": t1, "splits": moved})[0]) == 4
    # untested comparisons are never merged (Holm leaves them out anyway)
    nan = Comparison(*[np.nan] * 4, "two-sided", 8, 2, "source", np.nan, np.nan, "spearman", 1000, 42, "2 sources")
    rows, out = study.page_family({"a": t1.assign(comparison=[nan, nan])})
    assert len(rows) == 2 and out["a"][study.SAME_TEST].isna().all()


def test_the_authors_split_rows_are_table_1s_tests_and_count_once():
    # the split table's rows on the page's own split repeat Table 1's tests of the same ensemble seed: the fits,
    # the test rows and the permutations are the same, so page_family sees one test each
    key = "t zh-en"
    data = {key: synthetic_set(0)}
    evs = {42: study.evaluate_sets(data, [key], seed=42)}
    t1 = study.versus_best(evs, [key], data, n_permutations=100, seed=42)
    splits = study.split_table(data, [key], split_seed=None, split_seeds=[3], seed=42, n_permutations=100)
    own = splits[splits["split"] == "alphabetical"]
    seed42 = t1[t1["seed"] == 42].set_index("row")
    code = {name: short for short, name in study.SETTING_NAME.items()}
    for _, r in own.iterrows():
        assert r["comparison"] == seed42.loc[study.row_label(key, code[r["setting"]], False), "comparison"]
    rows, out = study.page_family({"best single": t1, "splits": splits})
    assert len(rows) == len(t1) + len(splits) - len(own) == 4
    assert out["splits"][study.SAME_TEST].fillna("").tolist() == ["best single"] * 2 + [""] * 2
    counts = study.perm_test_counts(versus_best=out["best single"], splits=out["splits"])
    assert counts == {"versus_best": 2, "splits": 2, "total": 4, "shared": {"splits": 2}}


@pytest.mark.parametrize("p, p_holm, n, level, borderline", [
    # the page's MQM-ref zh-en under its worst seed: 2 of 5,000 draws (p 0.0004), Holm x 101 = 0.0404; the raw p's
    # binomial error sqrt(0.0004 * 0.9996 / 5000) = 0.000283, times 101 = 0.0286: 0.05 lies 0.34 errors away
    (0.0004, 0.0404, 5000, 0.05, True),
    # no draw reached it (p 0, counted as 1/5,000) and Holm x 122: 0.0244 with error 0.0244, about a single error away
    (0.0, 0.0244, 5000, 0.05, True),
    # the same at 20,000 draws: Holm 0.0061 with error 0.0061, 7 errors below 0.05
    (0.0, 0.0061, 20000, 0.05, False),
    # judged on its own (Holm p = raw p): 0.04 at 1,000 draws, error 0.0062, 1.6 errors; 0.03: 3.2 errors
    (0.04, 0.04, 1000, 0.05, True),
    (0.03, 0.03, 1000, 0.05, False),
    (0.06, 0.06, 1000, 0.05, True),  # either side of the level
    (0.2, 1.0, 1000, 0.05, False),  # capped at 1: far from the level
    (float("nan"), float("nan"), 1000, 0.05, False),  # untested
    (0.04, 0.04, 1000, 0.1, False),  # another level: 0.06 from it, 9.7 errors
])
def test_within_mc_error(p, p_holm, n, level, borderline):
    assert study.within_mc_error(p, p_holm, n, level=level) is borderline


def test_within_mc_error_by_hand_and_its_arguments():
    # 2 standard errors by definition: 0.05 - 2 * sqrt(0.04 * 0.96 / 1000) = 0.03761 is the edge at 1,000 draws
    edge = 0.05 - 2 * np.sqrt(0.04 * 0.96 / 1000)
    assert study.within_mc_error(0.04, 0.04, 1000, k=(0.05 - 0.04) / np.sqrt(0.04 * 0.96 / 1000))
    assert not study.within_mc_error(0.04, 0.04, 1000, k=0.99 * (0.05 - 0.04) / np.sqrt(0.04 * 0.96 / 1000))
    assert edge == pytest.approx(0.03761, abs=1e-5)
    with pytest.raises(ValueError, match="n_permutations must be positive"):
        study.within_mc_error(0.1, 0.1, 0)


def test_page_family_marks_a_holm_p_within_monte_carlo_error_as_borderline():
    # Holm over 0.0004 (x 2) and 0.5: 0.0008 far below 0.05 with 5,000 draws; with 40 draws a p of 1/40 x 2 = 0.05
    # sits on the level
    t = pd.DataFrame({"row": ["r1", "r2"], "A": "BLEU", "B": REGEMT,
                      "comparison": [replace(comparison(0.0004), n_permutations=5000), comparison(0.5)]})
    rows, out = study.page_family({"t": t})
    assert out["t"]["borderline"].tolist() == [False, False]
    coarse = t.assign(comparison=[replace(comparison(0.025), n_permutations=40), comparison(0.5)])
    rows, out = study.page_family({"t": coarse})
    assert out["t"]["Holm p"].tolist() == pytest.approx([0.05, 0.5]) and out["t"]["borderline"].tolist() == [True, False]
    assert study.family_borderline(rows) == {"n": 1, "significant": 0, "not_significant": 1}
    # the row's words and the tables mark it
    assert study.verdict_text(out["t"].iloc[0]) == "no difference shown (borderline)"
    assert study.verdict_text(out["t"].iloc[1]) == "no difference shown"
    vs = study.versus_best_rows(out["t"].assign(seed=[1, 1], best="BLEU", p=[0.025, 0.5], **{
        "best ρ": 0.3, "RegEMT ρ": 0.4, "difference": 0.1, "choice": "linear"}))
    assert vs["borderline"].tolist() == [1, 0]
    view = study.versus_view(vs, 40)
    assert view["verdict (Holm)"].tolist() == ["no difference shown (borderline)", "no difference shown"]
    two = study.versus_view(vs.assign(seeds=5, borderline=[2, 0]), 40)
    assert two["verdict (Holm)"].iloc[0] == "no difference shown (borderline under 2 of 5 seeds)"


@pytest.mark.parametrize("verdicts, words", [
    (["B better"] * 5, "better under every seed"),
    (["B better"] * 3 + ["no difference shown"] * 2, "better under 3 of 5 seeds"),
    (["B better", "A better", "no difference shown"], "better under 1 of 3 seeds, worse under 1 of 3 seeds"),
    (["A better", "A better", "untested"], "worse under every seed"),  # an untested seed does not count
    (["no difference shown", "tie"], "no difference shown"),
    (["tie", "tie"], "tie"),
    (["untested"], "untested"),
    (["B better"], "better"),  # one seed: its verdict alone
])
def test_seed_verdict(verdicts, words):
    assert study.seed_verdict(verdicts) == words


def test_by_metric_turns_table1_for_a_narrow_page():
    t = pd.DataFrame({REGEMT: [0.1, 0.2, 0.3], "BLEU": [0.4, 0.5, 0.6]},
                     index=["MQM-src zh-en", "MQM-ref en-de-X", "DA 2016-ref"])
    out = study.by_metric(t)
    assert list(out.index) == [REGEMT, "BLEU"]
    assert list(out.columns) == [("zh-en", "src"), ("en-de", "ref-X"), ("DA 2016-ref", "")]
    assert out.loc["BLEU", ("en-de", "ref-X")] == 0.5


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
    assert d.shown == {}  # no Compos feature: nothing shown beside the features


def test_row_normalised_compos_is_shown_beside_the_features_not_fitted_on():
    rows = synthetic_rows(n_sources=10, per_source=3)
    d = study.judged_set(rows, ComposFeaturizer(), extra=())
    assert set(d.shown) == {"ref", "src"}
    pd.testing.assert_series_equal(d.shown["ref"][COMPOS_ROW], rows["extra"].iloc[d.test].rename(COMPOS_ROW))
    # a pair without taggers (cs: none here) gets NaN, not a call to the tagger
    cs = rows.assign(lp=["zh-en"] * 15 + ["en-cs"] * 15)
    shown = study.compos_row(ComposFeaturizer(), cs, "ref")
    assert shown[COMPOS_ROW].iloc[:15].tolist() == cs["extra"].iloc[:15].tolist()
    assert shown[COMPOS_ROW].iloc[15:].isna().all()
    evs = study.evaluate_sets({"t zh-en": d}, ["t zh-en"], seed=42)
    ev = evs["t zh-en", "ref", False]
    assert list(ev.predictions.columns) == ["good", "noise", "Compos", REG_BASE, REGEMT, COMPOS_ROW]
    assert COMPOS_ROW not in ev.regemt.features and "Compos" in ev.regemt.features
    test = rows.iloc[d.test]
    assert ev.table.loc[COMPOS_ROW, "spearman"] == pytest.approx(test["extra"].corr(test["human"], method="spearman"))
    # shown columns never count as the best single metric, though here COMPOS_ROW is the best column
    assert ev.table.loc[COMPOS_ROW, "spearman"] > ev.table.loc["good", "spearman"]
    assert study.best_single(ev.table["spearman"])[0] == "good"
    with pytest.raises(ValueError, match="2 shown rows for 6 test rows"):
        study.with_shown(ev, d.shown["ref"].iloc[:2])
    assert study.with_shown(ev, None) is ev


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
                     fit_on=(o.ref.scores.iloc[o.train], o.ref.lengths.iloc[o.train], o.rows["human"].iloc[o.train],
                             o.rows["src"].iloc[o.train]), seed=42)
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
    evs = {("wmt21.news zh-en", "ref", False): fake_ev({"RegEMT": 0.6, "BLEU": 0.1}, choice="mlp", base_choice="mlp"),
           ("wmt21.news zh-en", "ref", True): fake_ev({"RegEMT": 0.2, "BLEU": 0.1}),
           ("wmt21.news zh-en", "src", False): fake_ev({"RegEMT": 0.5}),
           ("wmt21.tedtalks en-de", "ref", False): fake_ev({"RegEMT": 0.4, "BLEU": 0.3})}
    paper = {("MQM", "ref", "zh-en", "RegEMT"): 0.55, ("MQM", "ref", "zh-en-X", "BLEU"): 0.25,
             ("MQM", "src", "zh-en", "RegEMT"): 0.45, ("MQM", "ref", "en-de", "RegEMT"): 0.9}
    ours, theirs, choice, base_choice = study.table1(evs, ["wmt21.news zh-en", "wmt21.tedtalks en-de"], paper=paper,
                                                     order=["RegEMT", "Comet", "BLEU"])
    assert list(ours.index) == ["MQM-src zh-en", "MQM-ref zh-en", "MQM-ref zh-en-X", "MQM-ref en-de"]
    assert list(ours.columns) == ["RegEMT", "BLEU"] and ours.loc["MQM-ref zh-en-X", "RegEMT"] == 0.2
    assert theirs.loc["MQM-ref zh-en", "RegEMT"] == 0.55 and theirs.loc["MQM-ref zh-en-X", "BLEU"] == 0.25
    assert theirs.loc["MQM-ref en-de"].isna().all()  # TED: the paper has no such row
    assert choice == {"MQM-src zh-en": "linear", "MQM-ref zh-en": "mlp", "MQM-ref zh-en-X": "linear",
                      "MQM-ref en-de": "linear"}
    assert base_choice == choice  # Reg-base's own choice, per row


def test_table1_order_puts_the_row_normalised_compos_beside_compos():
    assert study.table1_order(["RegEMT", "Comet", "Compos", "Reg-base"]) == [
        "RegEMT", "Comet", "Compos", COMPOS_ROW, "Reg-base"]
    assert study.table1_order(["BLEU", "RegEMT"]) == ["RegEMT", "BLEU", COMPOS_ROW]


def test_best_single_leaves_out_the_ensembles():
    ours = pd.DataFrame({"RegEMT": [0.5, 0.2], "Reg-base": [0.9, 0.1], "BLEU": [0.3, 0.3], "WMD": [0.4, np.nan],
                         COMPOS_ROW: [0.95, 0.0]}, index=["r1", "r2"])
    assert study.best_single(ours.loc["r1"]) == ("WMD", 0.4)
    assert study.best_single(ours.loc["r2"]) == ("BLEU", 0.3)


def test_mean_over_seeds_and_seed_table():
    t = {1: pd.DataFrame({REGEMT: [0.2, 0.5], REG_BASE: [0.1, 0.1], "BLEU": [0.3, np.nan]}, index=["a", "b"]),
         2: pd.DataFrame({REGEMT: [0.4, 0.3], REG_BASE: [0.1, 0.3], "BLEU": [0.3, np.nan]}, index=["a", "b"])}
    mean = study.mean_over_seeds(t)
    assert list(mean.index) == ["a", "b"] and list(mean.columns) == [REGEMT, REG_BASE, "BLEU"]
    assert mean[REGEMT].tolist() == pytest.approx([0.3, 0.4]) and np.isnan(mean.loc["b", "BLEU"])
    table = study.seed_table(t, {1: {"a": "mlp", "b": "linear"}, 2: {"a": "mlp", "b": "mlp"}},
                             {1: {"a": "linear", "b": "mlp"}, 2: {"a": "linear", "b": "linear"}})
    assert table.loc["a", ["RegEMT mean", "RegEMT low", "RegEMT high"]].tolist() == pytest.approx([0.3, 0.2, 0.4])
    assert table.loc["b", ["Reg-base low", "Reg-base high"]].tolist() == pytest.approx([0.1, 0.3])
    # RegEMT's and Reg-base's own regressor choices, each beside its ensemble
    assert list(table.columns) == ["RegEMT mean", "RegEMT low", "RegEMT high", "RegEMT MLP chosen", "Reg-base mean",
                                   "Reg-base low", "Reg-base high", "Reg-base MLP chosen", "seeds"]
    assert table["RegEMT MLP chosen"].tolist() == [2, 1] and table["Reg-base MLP chosen"].tolist() == [0, 1]
    assert (table["seeds"] == 2).all()
    assert [c for c in study.seed_table(t) if "MLP" in c or c == "seeds"] == []
    assert list(study.seed_view(table).columns)[3:5] == [("RegEMT", "MLP chosen"), ("Reg-base", "mean")]
    assert list(study.seed_view(table).columns)[-1] == ("seeds", "")
    with pytest.raises(ValueError, match="no tables to average"):
        study.mean_over_seeds({})


def test_table1_seeds_averages_table1_over_the_seeds():
    key = "wmt21.news zh-en"
    evs = {s: {(key, "ref", False): fake_ev({"RegEMT": r, "Reg-base": 0.1, "BLEU": 0.3}, choice=c, base_choice=b)}
           for s, r, c, b in [(1, 0.4, "mlp", "mlp"), (2, -0.6, "linear", "mlp")]}
    paper = {("MQM", "ref", "zh-en", "RegEMT"): 0.55, ("MQM", "ref", "zh-en", "BLEU"): 0.2}
    ours, theirs, seeds, delta = study.table1_seeds(evs, [key], paper=paper, order=["RegEMT", "Reg-base", "BLEU"])
    assert ours.loc["MQM-ref zh-en", "RegEMT"] == pytest.approx(-0.1) and ours.loc["MQM-ref zh-en", "BLEU"] == 0.3
    assert theirs.loc["MQM-ref zh-en", "RegEMT"] == 0.55
    assert seeds.loc["MQM-ref zh-en", "RegEMT MLP chosen"] == 1 and seeds.loc["MQM-ref zh-en", "RegEMT high"] == 0.4
    assert seeds.loc["MQM-ref zh-en", "Reg-base MLP chosen"] == 2
    # |rho| under each seed, then the mean: (0.4 + 0.6) / 2 - 0.55, not |(0.4 - 0.6) / 2| - 0.55
    assert delta.loc["MQM-ref zh-en", "RegEMT"] == pytest.approx(-0.05)
    assert delta.loc["MQM-ref zh-en", "BLEU"] == pytest.approx(0.1) and np.isnan(delta.loc["MQM-ref zh-en", "Reg-base"])


def test_abs_delta_takes_abs_per_pair_and_seed_before_the_mean():
    # two pairs of opposite sign: the paper's value is the mean of |rho| over the pairs, 0.2; the mean of the signed
    # values, 0.0, would make the metric look 0.2 weaker than the paper's
    per_pair = {"DA 2016-src": pd.DataFrame({"WMD-dec": [0.2, -0.2], "BERTScr": [0.3, 0.1]}, index=["cs-en", "fi-en"])}
    paper = pd.DataFrame({"WMD-dec": [0.2], "BERTScr": [0.25], "Comet": [0.8]}, index=["DA 2016-src"])
    mean_abs = study.mean_abs_over_pairs(per_pair)
    assert mean_abs.loc["DA 2016-src"].to_dict() == pytest.approx({"WMD-dec": 0.2, "BERTScr": 0.2})
    other_seed = {"DA 2016-src": pd.DataFrame({"WMD-dec": [0.4, 0.0], "BERTScr": [0.3, 0.1]}, index=["cs-en", "fi-en"])}
    delta = study.abs_delta([mean_abs, study.mean_abs_over_pairs(other_seed)], paper)
    assert list(delta.columns) == ["WMD-dec", "BERTScr", "Comet"]
    assert delta.loc["DA 2016-src", "WMD-dec"] == pytest.approx(0.0)  # mean over pairs and seeds of |rho|: 0.2
    assert delta.loc["DA 2016-src", "BERTScr"] == pytest.approx(-0.05) and np.isnan(delta.loc["DA 2016-src", "Comet"])
    with pytest.raises(ValueError, match="no tables"):
        study.abs_delta([], paper)


def test_versus_best_compares_by_source_per_seed_and_takes_the_familys_verdict():
    rng = np.random.default_rng(1)
    human = np.arange(40.0)
    best = human + rng.normal(scale=15, size=40)  # the best single metric, rho about 0.6
    key = "t zh-en"
    data = {key: JudgedSet(pd.DataFrame({"src": [f"s{i // 2}" for i in range(40)]}), np.arange(0), np.arange(40),
                           None, None)}

    def seed_evs(noise_seed):
        r = np.random.default_rng(noise_seed)
        return {(key, "src", False): real_ev({"A": best, "B": -best, REG_BASE: human, REGEMT: r.normal(size=40)},
                                             human),
                (key, "ref", False): real_ev({"A": best, REG_BASE: human, REGEMT: human + r.normal(size=40)},
                                             human, choice="mlp")}
    evs = {7: seed_evs(7), 8: seed_evs(8)}
    tests = study.versus_best(evs, [key], data, n_permutations=200, seed=5)
    assert tests[["row", "seed"]].values.tolist() == [["MQM-src zh-en", 7], ["MQM-ref zh-en", 7],
                                                      ["MQM-src zh-en", 8], ["MQM-ref zh-en", 8]]
    assert (tests["best"] == "A").all() and (tests["A"] == "A").all() and (tests["B"] == REGEMT).all()
    ev = evs[8][key, "ref", False]
    want = study.compare_columns(ev.predictions, human, "A", REGEMT, data[key].rows["src"], n_permutations=200, seed=5)
    assert tests["comparison"].iloc[3] == want and tests["p"].iloc[3] == want.p
    assert want.n_units == 20 and want.alternative == "two-sided"
    assert (tests["p"] < 0.05).all()
    _, tested = study.page_family({"best": tests})
    rows = study.versus_best_rows(tested["best"])
    assert list(rows.index) == ["MQM-src zh-en", "MQM-ref zh-en"]
    # source-based, RegEMT (noise) is below A with raw p 0.025 under both seeds; Holm over the 4 tests lifts it to 0.05
    assert rows.loc["MQM-src zh-en", ["p high", "Holm low"]].tolist() == [0.025, 0.05]
    assert rows["verdict"].tolist() == ["no difference shown", "better under every seed"]
    assert rows[["tested", "better", "worse"]].values.tolist() == [[2, 0, 0], [2, 2, 0]]
    assert (rows["Holm high"] >= rows["p high"]).all()
    assert rows["MLP chosen"].tolist() == [0, 2] and (rows["seeds"] == 2).all()
    assert rows.loc["MQM-ref zh-en", "RegEMT low"] <= rows.loc["MQM-ref zh-en", "RegEMT mean"]
    assert study.versus_best({}, [key], data).empty
    # against a named column (Reg-base): the same test, that column in place of the best single metric
    base = study.versus_best(evs, [key], data, n_permutations=200, seed=5, against=REG_BASE)
    assert (base["best"] == REG_BASE).all() and (base["A"] == REG_BASE).all()
    assert base["p"].iloc[3] == study.compare_columns(ev.predictions, human, REG_BASE, REGEMT, data[key].rows["src"],
                                                      n_permutations=200, seed=5).p
    # the further sets' rows are named with their test set, so they do not merge with Table 1's
    more = {s: e | {("u zh-en", k[1], k[2]): v for k, v in e.items()} for s, e in evs.items()}
    both = study.versus_reg_base(more, [key], data | {"u zh-en": data[key]}, ["u zh-en"], n_permutations=200, seed=5)
    assert both["row"].unique().tolist() == ["MQM-src zh-en", "MQM-ref zh-en", "MQM-src zh-en (u)", "MQM-ref zh-en (u)"]
    pd.testing.assert_frame_equal(both.iloc[:4].drop(columns="comparison"), base.drop(columns="comparison"))
    _, tested = study.page_family({"base": both})
    assert study.versus_best_rows(tested["base"]).loc["MQM-ref zh-en (u)", "verdict"] == "worse under every seed"


@pytest.mark.parametrize("gaps, verdicts, verdict", [
    ([0.0004, 0.0002], ["no difference shown"] * 2, "level at three decimals"),
    ([-0.0004, -0.0002], ["A better"] * 2, "level at three decimals; worse under every seed"),
    ([0.0004, 0.0002], ["B better", "no difference shown"], "level at three decimals; better under 1 of 2 seeds"),
    ([0.0006, 0.0006], ["no difference shown"] * 2, "no difference shown"),  # shown as +0.001: not level
])
def test_a_gap_shown_as_zero_is_level_in_the_table_as_in_the_findings(gaps, verdicts, verdict):
    tests = pd.DataFrame({"row": ["r", "r"], "seed": [1, 2], "best": ["A", "A"], "best ρ": [0.3, 0.3],
                          "RegEMT ρ": [0.3 + g for g in gaps], "difference": gaps, "p": [0.01, 0.3],
                          "Holm p": [0.02, 0.6], "verdict": verdicts, "choice": ["linear"] * 2})
    assert study.versus_best_rows(tests).loc["r", "verdict"] == verdict


def test_table1_findings():
    ours = pd.DataFrame({"RegEMT": [0.5, 0.2]}, index=["r1", "r2"])
    paper = pd.DataFrame({"RegEMT": [0.45, np.nan]}, index=["r1", "r2"])
    vs = pd.DataFrame({"best": ["WMD", "BLEU"], "best ρ": [0.4, 0.3], "RegEMT mean": [0.5, 0.2],
                       "RegEMT low": [0.45, 0.15], "RegEMT high": [0.55, 0.25], "difference": [0.1, -0.1],
                       "p low": [0.001, 0.2], "p high": [0.02, 0.3], "Holm low": [0.004, 1.0], "Holm high": [0.04, 1.0],
                       "MLP chosen": [1, 0], "seeds": [2, 2], "tested": [2, 2], "better": [2, 0], "worse": [0, 0],
                       "verdict": ["better under every seed", "no difference shown"]}, index=["r1", "r2"])
    delta = study.abs_delta([ours], paper)
    found = study.table1_findings(delta, vs)
    assert found == {"versus": {"n_seeds": 2, "n_rows": 2, "above": ["r1"], "level": [], "below": ["r2"],
                                "undefined": [], "some_seeds": [],
                                "sig_above": [{"row": "r1", "other": "WMD", "difference": 0.1, "p_low": 0.001,
                                               "p_high": 0.02, "holm_low": 0.004, "holm_high": 0.04, "borderline": 0}],
                                "sig_below": []},
                     "fits": 4, "mlp": 1, "always": 0, "never": 1, "inner_split": "source",
                     "regemt_delta": pytest.approx(0.05)}
    level = study.versus_findings(vs.assign(  # the verdict as versus_best_rows gives it
        difference=[0.1, 0.0004], verdict=["better under every seed", "level at three decimals"]))
    assert (level["above"], level["level"], level["below"]) == (["r1"], ["r2"], [])
    some = study.versus_findings(vs.assign(difference=[np.nan, -0.1], better=[0, 0], worse=[0, 1],
                                           verdict=["no difference shown", "worse under 1 of 2 seeds"]))
    assert some["undefined"] == ["r1"] and some["some_seeds"] == ["r2"] and some["sig_below"] == []
    assert some["sig_above"] == []
    worse = study.versus_findings(vs.assign(better=[0, 0], worse=[0, 2]))
    assert [r["row"] for r in worse["sig_below"]] == ["r2"]
    untested = study.versus_findings(vs.assign(tested=[0, 0], better=[0, 0]))
    assert untested["sig_above"] == [] and untested["sig_below"] == []
    one = study.table1_findings(delta.loc[["r2"]], vs.loc[["r2"]].assign(seeds=1), inner_split="random")
    marked = study.versus_findings(vs.assign(borderline=[1, 0]))
    assert marked["sig_above"][0]["borderline"] == 1
    assert one["versus"]["n_seeds"] == 1 and one["inner_split"] == "random" and one["regemt_delta"] is None


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
                    fit_on=(train[["good", "noise"]], FakeFeaturizer().lengths(train, "ref"), train["human"],
                            train["src"]))
    assert_same_evaluation(evs["ref"]["ro-en"], want)
    # one fit per ensemble seed, on the same scores; the first seed's is the single-seed call's
    by_seed, _ = study.da_evaluations(train, test, FakeFeaturizer(), seeds=[42, 7])
    assert list(by_seed) == [42, 7] and list(by_seed[7]) == ["ref", "src"]
    assert_same_evaluation(by_seed[42]["ref"]["ro-en"], want)
    assert list(evs["src"]["cs-en"].predictions.columns) == ["good", REG_BASE, REGEMT]

    crit_rows = {"en-de": synthetic_rows(seed=4, lp="en-de")}
    per_lp, crit_none = study.critical_evaluations(crit_rows, FakeFeaturizer(), split_seed=2, seed=42)
    r = crit_rows["en-de"]
    want = evaluate(r[["good"]], FakeFeaturizer().lengths(r, "src"), r["human"], r["src"], split_seed=2, seed=42)
    assert_same_evaluation(per_lp["en-de"], want)
    assert list(crit_none) == ["critical errors en-de"]
    crit_seeds, _ = study.critical_evaluations(crit_rows, FakeFeaturizer(), split_seed=2, seeds=[42, 7])
    assert list(crit_seeds) == [42, 7]
    assert_same_evaluation(crit_seeds[42]["en-de"], want)


# -- intervals and splits -------------------------------------------------------------------------

def test_interval_table_and_findings():
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
    found = study.interval_findings(table, ["k"])
    assert found[0] == {"set": "k", "setting": "reference-based",
                        "regemt": {"rho": 0.5, "low": pytest.approx(0.4), "high": pytest.approx(0.6)},
                        "best": {"name": "B", "rho": 0.375, "low": pytest.approx(0.275), "high": pytest.approx(0.475)},
                        "p": None, "p_holm": None, "verdict": None, "borderline": None, "difference": None}
    assert [x["setting"] for x in found] == ["reference-based", "source-based"]
    named = table.assign(**{"evaluation set": "t zh-en"})
    tests = pd.DataFrame({"row": ["MQM-ref zh-en", "MQM-ref zh-en", "MQM-src zh-en"], "seed": [1, 2, 2],
                          "p": [0.5, 0.0, 0.25], "Holm p": [1.0, 0.0, 0.5],
                          "verdict": ["no difference shown", "B better", "no difference shown"]})
    found = study.interval_findings(named, ["t zh-en"], tests, seed=2)
    assert [(x["p"], x["p_holm"], x["verdict"]) for x in found] == [(0.0, 0.0, "B better"),
                                                                    (0.25, 0.5, "no difference shown")]
    untested = study.interval_findings(named, ["t zh-en"], tests.assign(p=np.nan), seed=2)
    assert [x["verdict"] for x in untested] == [None, None]
    marked = study.interval_findings(named, ["t zh-en"], tests.assign(borderline=[False, True, False]), seed=2)
    assert [x["borderline"] for x in marked] == [True, False]
    # the paired difference of RegEMT and the best single metric, read on the same resamples
    diffs = pd.DataFrame({"evaluation set": "t zh-en", "setting": ["reference-based", "source-based"], "best": "B",
                          "difference": [0.125, -0.2], "low": [0.01, -0.3], "high": [0.3, 0.05]})
    paired = study.interval_findings(named, ["t zh-en"], differences=diffs)
    assert paired[0]["difference"] == {"rho": 0.125, "low": 0.01, "high": 0.3}
    assert study.interval_counts(paired) == {"n": 2, "above": 1, "below": 0}
    assert study.interval_counts(found) == {"n": 0, "above": 0, "below": 0}
    with pytest.raises(ValueError, match="against A, the intervals' best single metric is B"):
        study.interval_findings(named, ["t zh-en"], differences=diffs.assign(best="A"))


def test_interval_differences_are_paired_differences_on_the_intervals_resamples():
    data = {"t zh-en": synthetic_set(0)}
    evs = study.evaluate_sets(data, ["t zh-en"], seed=42)
    diffs = study.interval_differences(evs, data, ["t zh-en"], n_resamples=40, seed=3)
    assert diffs[["setting", "best"]].values.tolist() == [["reference-based", "good"], ["source-based", "good"]]
    ev, d = evs["t zh-en", "src", False], data["t zh-en"]
    want = study.paired_difference(ev, d.rows["src"].iloc[ev.test], REGEMT, "good", n_resamples=40, seed=3)
    assert diffs.iloc[1][["difference", "low", "high"]].tolist() == pytest.approx(list(want))
    # the same resamples as the intervals of each column: the difference on each resample is theirs
    ci = study.interval_table({("t zh-en", "src", False): ev}, data, n_resamples=40, seed=3).set_index("metric")
    assert diffs.iloc[1]["difference"] == pytest.approx(ci.loc[REGEMT, "rho"] - ci.loc["good", "rho"])


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
    ev = evaluate(d.src.scores, d.src.lengths, d.rows["human"], d.rows["src"], test=test, seed=42)
    want = study.compare_columns(ev.predictions, ev.human, "good", REGEMT, d.rows["src"].iloc[test], seed=42)
    assert (row["A"], row["B"], row["p"]) == ("good", REGEMT, want.p) and row["comparison"] == want
    assert want.n_units == 6  # the split's test sources, swapped as units
    # the chosen split comes first and is not repeated
    again = study.split_table(data, ["t zh-en"], split_seed=2, split_seeds=[1, 2], seed=42)
    assert again["split"].tolist() == ["seed 2"] * 2 + ["seed 1"] * 2


def test_split_findings():
    gap = "RegEMT − best single"
    splits = pd.DataFrame({"split": ["alphabetical"] * 2 + ["seed 1"] * 2 + ["seed 2"] * 2,
                           gap: [0.1, 0.2, -0.05, 0.0001, 0.02, -0.01],
                           "verdict": ["B better", "no difference shown", "A better", "no difference shown", "B better",
                                       "no difference shown"]})
    # chosen: 2 wins, 1 significant; others: 0.0001 rounds to 0 (a tie), one significant win of 4
    found = study.split_findings(splits)
    assert found == {"split": "alphabetical",
                     "chosen": {"n": 2, "above": 2, "sig_above": 1, "below": 0, "sig_below": 0, "ties": 0},
                     "others": {"n": 4, "above": 1, "sig_above": 1, "below": 2, "sig_below": 1, "ties": 1,
                                "splits": 2, "low": -0.05, "high": 0.02}}
    steady = pd.DataFrame({"split": ["seed 1", "seed 1", "seed 2", "seed 2"], gap: [0.1, -0.1, 0.2, -0.2],
                           "verdict": ["B better", "A better"] * 2})
    found = study.split_findings(steady, 1)
    assert found["split"] == "seed 1"
    assert (found["others"]["low"], found["others"]["high"]) == (-0.2, 0.2)
    only = study.split_findings(steady[steady["split"] == "seed 1"], 1)
    assert only["others"] is None
    assert only["chosen"] == {"n": 2, "above": 1, "sig_above": 1, "below": 1, "sig_below": 1, "ties": 0}


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


def test_table2_findings():
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
    found = study.table2_findings(matrix, fake_ev({}, predictions=preds), paper)
    assert found.pop("reg_base") == pytest.approx({"BLEU": -1.0, "METEOR": 0.8})
    assert found.pop("reg_base_paper") == {"BLEU": 0.19, "METEOR": 0.18}
    assert found == pytest.approx({"static": 1.0, "static_paper": 0.5, "context": (0.8 + 0.8 + 0.6) / 3,
                                   "context_paper": 0.9})


def test_ablations_drop_metrics_keep_the_lengths_and_end_at_reg_base():
    data = {"t zh-en": synthetic_set(0)}
    evs = study.evaluate_sets(data, ["t zh-en"], seed=42)
    got = study.ablations(data, ["t zh-en"], seed=42)
    assert list(got) == [("t zh-en", "ref"), ("t zh-en", "src")]
    d = data["t zh-en"]
    want = metric_ablation(d.ref.scores, d.ref.lengths, d.rows["human"], d.train, d.test, d.rows["src"], seed=42)
    pd.testing.assert_frame_equal(got["t zh-en", "ref"], want)
    steps = got["t zh-en", "ref"]
    # two metrics (good, noise), then one, then none: the lengths stay in every step, no Reg-base feature
    assert steps["metrics"].tolist() == [2, 1, 0] and steps["remaining"].iloc[0] == ["good", "noise"]
    assert not isinstance(steps["dropped"].iloc[0], str) and steps["remaining"].iloc[-1] == []
    assert steps["spearman"].iloc[0] == evs["t zh-en", "ref", False].table.loc[REGEMT, "spearman"]
    assert steps["spearman"].iloc[-1] == evs["t zh-en", "ref", False].table.loc[REG_BASE, "spearman"]


def test_metric_ablation_drops_the_metric_most_correlated_with_another():
    rng = np.random.default_rng(5)
    n = 120
    human = rng.normal(size=n)
    a = human + rng.normal(scale=0.5, size=n)
    scores = pd.DataFrame({"a": a, "a2": a + rng.normal(scale=0.05, size=n), "b": rng.normal(size=n)})
    lengths = pd.DataFrame({"len translation": rng.integers(5, 30, n), "len reference": rng.integers(5, 30, n)})
    sources = [f"s{i // 3:03d}" for i in range(n)]
    train, test = split_by_source(sources)
    steps = metric_ablation(scores, lengths, human, train, test, sources, seed=1, cache=False)
    # a and a2 are near copies: one of them goes first; the last metric standing is the other
    assert steps["dropped"].iloc[1] in ("a", "a2") and steps["dropped"].tolist()[1:] != ["b"] * 3
    assert [len(r) for r in steps["remaining"]] == [3, 2, 1, 0] and set(steps["dropped"].iloc[1:]) == {"a", "a2", "b"}


def test_ablation_findings():
    steps = pd.DataFrame({"spearman": [0.5, 0.6, 0.4, 0.3], "metrics": [3, 2, 1, 0],
                          "remaining": [["a", "b", "c"], ["a", "c"], ["c"], []]})
    assert study.ablation_findings({("k", "ref"): steps, ("k", "src"): steps.iloc[:1]}) == [
        {"set": "k", "setting": "reference-based", "full": 0.5, "best": 0.6, "best_metrics": 2, "last": "c",
         "last_rho": 0.4, "lengths_rho": 0.3},
        {"set": "k", "setting": "source-based", "full": 0.5, "best": 0.5, "best_metrics": 3, "last": None,
         "last_rho": None, "lengths_rho": None}]


def test_importance_table_and_findings():
    data = {"t zh-en": synthetic_set(0)}
    evs = study.evaluate_sets(data, ["t zh-en"], seed=42)
    imp = study.importance_table(evs, "t zh-en", n_repeats=3, seed=42)
    assert list(imp.columns) == ["reference-based", "source-based"] and imp.index[0] == "good"
    assert imp["reference-based"].is_monotonic_decreasing and np.isnan(imp.loc["noise", "source-based"])
    # RegEMT's features: the metrics and the two lengths, never Reg-base's prediction
    assert set(imp.index) == {"good", "noise", "len translation", "len other"}
    hand = pd.DataFrame({"reference-based": [0.3, 0.1, 0.2], "source-based": [0.0, 0.5, 0.4]}, index=list("abc"))
    assert study.importance_findings(hand) == [
        {"setting": "reference-based", "first": "a", "first_drop": 0.3, "second": "c", "second_drop": 0.2},
        {"setting": "source-based", "first": "b", "first_drop": 0.5, "second": "c", "second_drop": 0.4}]


# -- beyond the paper -------------------------------------------------------------------------------

def test_extra_table_and_findings():
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
    found = study.extra_findings(hand)
    assert found["column"] == "DA-BERTScr" and found["negative"] == 1
    assert [(x["set"], round(x["value"], 9)) for x in found["gains"]] == [("a", 0.2), ("b", -0.1)]
    assert found["alone"] == [{"set": "a", "value": 0.1}, {"set": "b", "value": -0.2}]


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


def test_paired_difference_and_level_table_equal_their_definitions_resample_by_resample():
    rng = np.random.default_rng(2)
    sizes = [3, 1, 5, 2, 4, 3, 1, 6, 2, 3, 4, 5, 2, 3]  # sources of 1-2 rows have no within-source rho
    src = [f"s{k}" for k, size in enumerate(sizes) for _ in range(size)]
    n = len(src)
    human = np.round(rng.normal(size=n), 1)
    pred = pd.DataFrame({"a": np.round(human + rng.normal(size=n), 1), "b": rng.normal(size=n)})
    ev = fake_ev({"a": 0.0, "b": 0.0}, human=human, predictions=pred)
    codes, uniques = pd.factorize(pd.Series(src))
    members = [np.flatnonzero(codes == k) for k in range(len(uniques))]
    picks = np.random.default_rng(6).integers(0, len(members), (40, len(members)))
    diffs = []
    for pick in picks:
        idx = np.concatenate([members[k] for k in pick])
        diffs.append(spearmanr(pred["a"][idx], human[idx]).statistic - spearmanr(pred["b"][idx], human[idx]).statistic)
    _, low, high = study.paired_difference(ev, src, "a", "b", n_resamples=40, seed=6)
    assert (low, high) == pytest.approx(tuple(np.quantile(diffs, [0.025, 0.975])), abs=1e-13)
    with pytest.raises(ValueError, match=f"{n - 1} groups for {n} test rows"):
        study.paired_difference(ev, src[1:], "a", "b")
    # level_table: pooled, within (the mean over the drawn sources that have a rho, a source drawn
    # twice counting twice) and between on each resample of the sources, from the rows
    rows = pd.DataFrame({"src": src, "human": human, "DA-BERTScr": pred["a"]})
    d = JudgedSet(rows, np.arange(0), np.arange(n), Features(pd.DataFrame(index=rows.index), None), None,
                  extra=rows[["DA-BERTScr"]])
    lv = study.level_table({"k": d}, ["k"], n_resamples=40, seed=6).iloc[0]
    x = pred["a"].to_numpy()

    def rho(m):
        return spearmanr(x[m], human[m]).statistic if len(m) >= 3 and np.ptp(x[m]) and np.ptp(human[m]) else np.nan
    draws = []
    for pick in picks:
        idx = np.concatenate([members[k] for k in pick])
        means = [(x[members[k]].mean(), human[members[k]].mean()) for k in pick]
        draws.append((spearmanr(x[idx], human[idx]).statistic, np.nanmean([rho(members[k]) for k in pick]),
                      spearmanr(*np.array(means).T).statistic))
    low, high = np.nanquantile(np.array(draws), [0.025, 0.975], axis=0)
    got = lv[["pooled low", "within low", "between low"]].to_numpy(float), lv[["pooled high", "within high",
                                                                             "between high"]].to_numpy(float)
    assert np.allclose(got[0], low, rtol=0, atol=1e-13) and np.allclose(got[1], high, rtol=0, atol=1e-13)
    with pytest.raises(ValueError, match="1 items have no group"):
        study.levels([1.0, 2, 3], [1.0, 2, 3], ["a", None, "a"])


def test_reg_base_table_and_findings():
    rows = synthetic_rows(seed=5).rename(columns={"good": "BLEU", "noise": "METEOR"})
    d = JudgedSet(rows, *split_by_source(list(rows["src"])), Features(rows[["BLEU", "METEOR"]], None), None)
    rb = study.reg_base_table({"k": d}, ["k"], FakeFeaturizer(), n_resamples=20, seed=42)
    assert rb[["lengths", "against"]].values.tolist() == [["subword", "BLEU"], ["subword", "METEOR"],
                                                          ["char", "BLEU"], ["char", "METEOR"]]
    test = rows.iloc[d.test]
    assert rb.loc[0, "other ρ"] == pytest.approx(test["BLEU"].corr(test["human"], method="spearman"))
    np.testing.assert_allclose(rb["difference"], rb["Reg-base ρ"] - rb["other ρ"])
    assert (rb["low"] <= rb["high"]).all() and (rb["data"] == "MQM").all()
    ev = evaluate(d.ref.scores, FakeFeaturizer().lengths(rows, "ref", "char"), rows["human"], rows["src"], test=d.test,
                  seed=42)
    want = study.compare_columns(ev.predictions, ev.human, "BLEU", REG_BASE, rows["src"].iloc[d.test], seed=42)
    assert (rb.loc[2, "A"], rb.loc[2, "B"], rb.loc[2, "p"]) == ("BLEU", REG_BASE, want.p)
    hand = pd.DataFrame({"data": ["MQM"] * 4 + ["DA 2016"] * 2, "difference": [0.2, -0.1, 0.05, 0.3, -0.2, -0.1],
                         "low": [0.1, -0.2, -0.1, 0.1, -0.3, -0.2], "high": [0.3, 0.1, 0.2, 0.5, -0.1, 0.05],
                         "verdict": ["B better", "no difference shown", "no difference shown", "B better", "A better",
                                     "no difference shown"]})
    paper_da = pd.Series({REG_BASE: 0.18, "BLEU": 0.42, "METEOR": 0.5, "Comet": 0.82})
    found = study.reg_base_findings(hand, paper_da=paper_da)
    assert found == {"blocks": [
        {"data": "MQM", "n": 4, "up": 3, "up_ci": 2, "up_sig": 2, "down": 1, "down_ci": 0, "down_sig": 0,
         "n_sets": 1, "n_units": None, "n_others": None, "above": [], "below": [], "mixed": ["MQM"]},
        {"data": "DA 2016", "n": 2, "up": 0, "up_ci": 0, "up_sig": 0, "down": 2, "down_ci": 1, "down_sig": 1,
         "n_sets": 1, "n_units": None, "n_others": None, "above": [], "below": ["DA 2016"], "mixed": []}],
        "paper_da": {"Reg-base": 0.18, "BLEU": 0.42, "METEOR": 0.5}}
    assert study.reg_base_findings(hand.drop(index=1))["blocks"][0]["above"] == ["MQM"]
    assert study.reg_base_findings(hand, paper_da=paper_da.drop("BLEU"))["paper_da"] is None
    # set by set where the table names the sets
    sets = study.reg_base_findings(hand.iloc[:4].assign(**{"evaluation set": ["a", "a", "b", "b"]}))["blocks"][0]
    assert (sets["n_sets"], sets["above"], sets["below"], sets["mixed"]) == (2, ["b"], [], ["a"])
    # what the comparisons are made of: 2 sets x 2 length units x 1 other metric = 4 (not 4 sets)
    made = study.reg_base_findings(hand.iloc[:4].assign(**{"evaluation set": ["a", "a", "b", "b"],
                                                           "lengths": ["subword", "char"] * 2, "against": "BLEU"}))
    assert {k: made["blocks"][0][k] for k in ("n", "n_sets", "n_units", "n_others")} == {
        "n": 4, "n_sets": 2, "n_units": 2, "n_others": 1}
    t1 = pd.DataFrame({REGEMT: [0.5, 0.2], REG_BASE: [0.5, 0.1]}, index=["r1", "r2"])
    t2 = pd.DataFrame({REGEMT: [0.1], REG_BASE: [0.3]}, index=["r1"])
    assert study.reg_base_vs_regemt({"Table 1": t1, "further sets": t2}) == {
        "n": 3, "at_least": 2, "rows": [{"table": "Table 1", "row": "r1", "regemt": 0.5, "reg_base": 0.5},
                                        {"table": "further sets", "row": "r1", "regemt": 0.1, "reg_base": 0.3}],
        "by_table": [{"table": "Table 1", "rows": ["r1"]}, {"table": "further sets", "rows": ["r1"]}]}


def test_reg_base_da_table_resamples_each_pairs_sources():
    train = synthetic_rows(seed=0, lp="cs-en").rename(columns={"good": "BLEU", "noise": "METEOR"})
    test = pd.concat([synthetic_rows(n_sources=15, seed=2, lp="ro-en"), synthetic_rows(n_sources=15, seed=3, lp="cs-en")],
                     ignore_index=True).rename(columns={"good": "BLEU", "noise": "METEOR"})
    where = test.groupby("lp").indices
    lengths = FakeFeaturizer().lengths
    evs = {lp: evaluate(test.iloc[idx][["BLEU", "METEOR"]], lengths(test.iloc[idx], "ref"), test["human"].iloc[idx],
                        test["src"].iloc[idx], test=np.arange(len(idx)), seed=42,
                        fit_on=(train[["BLEU", "METEOR"]], lengths(train, "ref"), train["human"], train["src"]))
           for lp, idx in where.items()}
    rb = study.reg_base_da_table(evs, test, data="DA 2016", unit="subword", n_resamples=20, n_permutations=50, seed=1)
    assert rb[["data", "evaluation set", "lengths", "against"]].values.tolist() == [
        ["DA 2016", "cs-en", "subword", "BLEU"], ["DA 2016", "cs-en", "subword", "METEOR"],
        ["DA 2016", "ro-en", "subword", "BLEU"], ["DA 2016", "ro-en", "subword", "METEOR"]]
    groups = test["src"].iloc[where["ro-en"]]
    point, low, high = study.paired_difference(evs["ro-en"], groups, REG_BASE, "METEOR", n_resamples=20, seed=1)
    assert rb.loc[3, ["difference", "low", "high"]].tolist() == pytest.approx([point, low, high])


def test_context_table_and_findings():
    human = np.array(UP * 3)
    ref = real_ev({"WMD-cont": SWAP_END * 3, "WMD-dec": human, "WMD-dec-tf": SWAP_START * 3, "WMD": DOWN * 3}, human)
    src = real_ev({"WMD-cont": human, "WMD-dec": DOWN * 3, "WMD-dec-tf": human}, human)
    evs = {("k", "ref", False): ref, ("k", "ref", True): ref, ("k", "src", False): src}
    data = {"k": JudgedSet(pd.DataFrame({"src": [f"s{i % 6}" for i in range(12)]}), np.arange(0), np.arange(12), None,
                           None)}
    cd = study.context_table(evs, data, n_permutations=100, seed=3)
    assert cd["setting"].tolist() == ["reference-based", "source-based"]
    assert cd["WMD (static)"].iloc[0] == pytest.approx(-1.0) and np.isnan(cd["WMD (static)"].iloc[1])
    # reference-based: WMD-cont (B) against WMD-dec (A), two-sided, the six test sources swapped as units
    want = study.compare_columns(ref.predictions, human, "WMD-dec", "WMD-cont", data["k"].rows["src"], n_permutations=100,
                                 seed=3)
    assert cd["p"].iloc[0] == want.p and want.n_units == 6 and want.delta == pytest.approx(0.8 - 1.0)
    hand = pd.DataFrame({"WMD-cont": [0.3, 0.5], "WMD-dec": [0.4, 0.2], "WMD-dec-tf": [0.2, 0.6],
                         "verdict": ["no difference shown", "B better"]})
    paper = {("MQM", "ref", "zh-en", "WMD-cont"): 0.43, ("MQM", "ref", "zh-en", "WMD-dec"): 0.27,
             ("MQM", "ref", "en-de", "WMD-cont"): 0.25, ("MQM", "ref", "en-de", "WMD-dec"): 0.32,
             ("MQM", "ref", "en-de-X", "WMD-cont"): 0.25, ("MQM", "ref", "en-de-X", "WMD-dec"): 0.32,
             ("MQM", "ref", "en-de", "BLEU"): 0.1}
    # differences dec - cont: +0.1 and -0.3 -> mean -0.1; the paper's "-X" rows repeat its own rows: left out
    assert study.context_findings(hand, paper) == {
        "n": 2, "cont_above": 1, "dec_above": 1, "sig_cont": 1, "sig_dec": 0, "direction": None,
        "diff_mean": pytest.approx(-0.1), "diff_min": pytest.approx(-0.3), "diff_max": pytest.approx(0.1),
        "dec_tf_above": 1, "paper": {"n": 2, "cont_above": 1, "dec_above": 1, "consistent": False}}
    ahead = study.context_findings(hand.assign(**{"WMD-dec": [0.1, 0.2],
                                                  "verdict": ["B better", "no difference shown"]}), paper)
    assert (ahead["direction"], ahead["cont_above"], ahead["sig_cont"]) == ("WMD-cont", 2, 1)
    behind = study.context_findings(hand.assign(**{"WMD-dec": [0.9, 0.9]}))
    assert behind["direction"] == "WMD-dec" and behind["paper"] is None


def test_compos_table_and_findings():
    rows = pd.DataFrame({"src": list("abcdef"), "human": [9.0, 9.0] + UP, "row": [0.0, 0.0] + DOWN})
    scores = pd.DataFrame({"Compos": [0.0, 0.0] + SWAP_END})
    d = JudgedSet(rows, np.array([0, 1]), np.array([2, 3, 4, 5]), Features(scores, None),
                  Features(pd.DataFrame({"BERTScr": np.zeros(6)}), None))

    class RowNormalised(FakeFeaturizer):
        def columns(self, rows, setting, columns):
            return pd.DataFrame({c: rows["row"] for c in columns})
    table = study.compos_table({"k": d}, ["k"], RowNormalised())
    # the set's shown column, when it has one, is read instead of scoring again
    shown = JudgedSet(rows, d.train, d.test, d.ref, d.src, shown={"ref": pd.DataFrame({COMPOS_ROW: DOWN})})
    pd.testing.assert_frame_equal(study.compos_table({"k": shown}, ["k"], FakeFeaturizer()), table)
    assert table.to_dict("records") == [{"evaluation set": "k", "setting": "reference-based",
                                         "total (authors' code)": pytest.approx(0.8),
                                         "row (paper's text)": pytest.approx(-1.0)}]
    hand = pd.DataFrame({"total (authors' code)": [0.2, -0.1], "row (paper's text)": [0.1, 0.3]})
    # gains -0.1 and +0.4; |row| > |total| in the second
    assert study.compos_findings(hand) == pytest.approx({
        "n": 2, "low": -0.1, "high": 0.4, "mean": 0.15, "raised": 1, "stronger": 1, "total_negative": 1,
        "row_negative": 0, "column": COMPOS_ROW})
    assert study.compos_findings(table.iloc[:0]) is None


def test_levels_by_hand():
    # three sources; within each, x ranks the translations as y does (rho 1); between sources the
    # source with the highest x has the lowest y (means: x 11, 1, 6 against y 1, 11, 6: rho -1)
    x = [10, 11, 12, 0, 1, 2, 5, 6, 7, np.nan]
    y = [0, 1, 2, 10, 11, 12, 5, 6, 7, 3]
    g = ["a"] * 3 + ["b"] * 3 + ["c"] * 4
    pooled, within, between, n = study.levels(x, y, g)
    assert pooled == pytest.approx(spearmanr(x[:9], y[:9]).statistic)  # the row without x left out
    assert (within, between, n) == pytest.approx((1.0, -1.0, 3))
    # a source with fewer than 3 valued rows has no within-source rho and is not counted
    assert study.levels(x[:8], y[:8], g[:8])[3] == 2


def test_level_table_and_findings():
    rows = pd.DataFrame({"src": [f"s{i // 3}" for i in range(30)], "human": np.tile([0.0, 1.0, 2.0], 10)
                         + np.repeat(np.arange(10.0), 3)})
    rows["DA-BERTScr"] = rows["human"] - 2 * np.repeat(np.arange(10.0), 3)  # right within, wrong between sources
    d = JudgedSet(rows, np.arange(0), np.arange(30), Features(pd.DataFrame(index=rows.index), None), None,
                  extra=rows[["DA-BERTScr"]])
    lv = study.level_table({"k": d}, ["k"], n_resamples=50, seed=3)
    point = study.levels(rows["DA-BERTScr"], rows["human"], rows["src"])
    r = lv.iloc[0]
    assert (r["pooled"], r["within"], r["between"], r["sources"]) == pytest.approx(point)
    assert (r["within"], r["between"]) == pytest.approx((1.0, -1.0))
    assert (r["within low"], r["within high"], r["between high"]) == pytest.approx((1.0, 1.0, -1.0))
    hand = pd.DataFrame({"evaluation set": ["a", "b"], "sources": [10, 12], "pooled": [-0.3, -0.2],
                         "pooled low": [-0.4, -0.3], "pooled high": [-0.2, -0.1], "within": [0.2, -0.1],
                         "within low": [0.1, -0.2], "within high": [0.3, -0.05], "between": [-0.5, -0.4],
                         "between low": [-0.7, -0.6], "between high": [-0.3, 0.1]})
    found = study.level_findings(hand)
    # a: within-source interval above zero, between-source below; b: within below zero, between spans zero
    assert (found["column"], found["n"], found["negative"], found["negative_ci"]) == ("DA-BERTScr", 2, 2, 2)
    assert (found["within_above"], found["within_above_sets"], found["within_below"], found["within_zero"]) == (
        1, ["a"], 1, 0)
    assert (found["between_below"], found["between_above"]) == (1, 0)
    spans = study.level_findings(hand.assign(**{"within low": -0.1, "within high": 0.1}))
    assert (spans["within_above"], spans["within_above_sets"], spans["within_below"], spans["within_zero"]) == (
        0, [], 0, 2)
    assert not {"supported", "against", "undecided"} & set(found)  # counts of intervals, not of an explanation
    assert found["sets"][0] == {"set": "a", "sources": 10, "pooled": {"rho": -0.3, "low": -0.4, "high": -0.2},
                                "within": {"rho": 0.2, "low": 0.1, "high": 0.3},
                                "between": {"rho": -0.5, "low": -0.7, "high": -0.3}}


def test_perm_test_counts_count_the_p_values_of_each_table():
    assert study.perm_test_counts(a=pd.DataFrame({"p": [0.1, np.nan, 0.0]}), b=pd.DataFrame()) == {
        "a": 2, "b": 0, "total": 2, "shared": {}}
    # a row whose test an earlier table holds (page_family's column) is counted there, not again
    shared = pd.DataFrame({"p": [0.1, 0.2, np.nan], study.SAME_TEST: ["a", None, "a"]})
    assert study.perm_test_counts(a=pd.DataFrame({"p": [0.1, np.nan, 0.0]}), b=shared) == {
        "a": 2, "b": 1, "total": 3, "shared": {"b": 1}}


# -- the page's narrow tables ---------------------------------------------------------------------------

def test_p_cells_and_verdicts_as_the_tables_show_them():
    assert (study.p_cell(0.0, 1000), study.p_cell(0.0342, 1000), study.p_cell(np.nan, 1000)) == ("< 0.001", "0.034", "–")
    assert study.p_span(0.0, 0.026, 1000) == "< 0.001 to 0.026" and study.p_span(0.5, 0.5, 1000) == "0.500"
    row = {"A": "BLEU", "B": REG_BASE}
    assert [study.verdict_text(row | {"verdict": v}) for v in ("B better", "A better", "no difference shown")] == [
        "Reg-base better", "BLEU better", "no difference shown"]
    assert study.short_set("wmt21.news zh-en") == "news zh-en"
    seeds = study.seed_view(pd.DataFrame({"RegEMT mean": [0.5], "RegEMT low": [0.4], "MLP chosen": [1]}, index=["r"]))
    assert list(seeds.columns) == [("RegEMT", "mean"), ("RegEMT", "low"), ("MLP chosen", "")]
    styled = study.narrow(pd.DataFrame({"a": [1.0]}).style).to_html()
    assert "overflow-x: auto" in styled and "padding: 0.2em 0.5em" in styled


def test_the_views_keep_every_number_and_add_holm_beside_p():
    vs = pd.DataFrame({"best": ["BLEU"], "best ρ": [0.3], "RegEMT mean": [0.4], "difference": [0.1], "p low": [0.0],
                       "p high": [0.02], "Holm low": [0.0], "Holm high": [0.4], "verdict": ["better under 2 of 5 seeds"]},
                      index=["MQM-src zh-en"])
    view = study.versus_view(vs, 1000)
    assert view.loc["MQM-src zh-en"].tolist() == ["BLEU", 0.3, 0.4, 0.1, "< 0.001 to 0.020", "< 0.001 to 0.400",
                                                  "RegEMT better under 2 of 5 seeds"]
    assert "other" not in study.versus_view(vs, 1000, other=False)
    rb = pd.DataFrame({"data": ["MQM", "DA 2016"], "evaluation set": ["wmt21.tedtalks en-de", "cs-en"],
                       "lengths": "subword", "against": "BLEU", "Reg-base ρ": [0.2, 0.1], "other ρ": [0.1, 0.3],
                       "difference": [0.1, -0.2], "low": [-0.01, -0.3], "high": [0.2, -0.1], "A": "BLEU", "B": REG_BASE,
                       "p": [0.004, 0.0], "Holm p": [0.3, 0.0], "verdict": ["no difference shown", "A better"]})
    view = study.reg_base_view(rb, 1000)
    assert view["set"].tolist() == ["tedtalks en-de", "DA 2016 cs-en"]
    assert view.iloc[0][["Δ", "95% interval", "p", "Holm p", "verdict (Holm)"]].tolist() == [
        0.1, "[-0.010, +0.200]", "0.004", "0.300", "no difference shown"]
    assert view.iloc[1]["verdict (Holm)"] == "BLEU better"
    cd = pd.DataFrame({"evaluation set": ["wmt21.news zh-en"], "setting": ["source-based"], "WMD-cont": [0.3],
                       "WMD-dec": [0.2], "WMD-dec-tf": [0.1], "WMD (static)": [np.nan], "A": "WMD-dec", "B": "WMD-cont",
                       "p": [0.0], "Holm p": [0.0], "verdict": ["B better"]})
    assert study.context_view(cd, 1000).iloc[0].tolist()[:3] == ["news zh-en", "src", 0.3]
    splits = pd.DataFrame({"evaluation set": ["wmt21.news zh-en"], "setting": ["reference-based"], "split": ["seed 1"],
                           "RegEMT": [0.5], "best single": [0.4], "which": ["BERTScr"], "Reg-base": [0.3],
                           "RegEMT − best single": [0.1], "A": "BERTScr", "B": REGEMT, "p": [0.01], "Holm p": [0.5],
                           "verdict": ["no difference shown"]})
    assert list(study.split_view(splits, 1000).columns) == ["set", "setting", "split", "RegEMT", "best single", "its ρ",
                                                            "Reg-base", "Δ", "p", "Holm p", "verdict (Holm)"]
    assert study.split_view(splits.assign(split="alphabetical"), 1000)["split"].tolist() == ["authors'"]
    lv = pd.DataFrame([{"evaluation set": "wmt21.news zh-en", "sources": 9, "pooled": -0.3, "pooled low": -0.4,
                        "pooled high": -0.2, "within": 0.1, "within low": -0.1, "within high": 0.3, "between": -0.5,
                        "between low": -0.7, "between high": -0.3}])
    assert study.level_view(lv).iloc[0].tolist() == ["news zh-en", 9, "-0.300 [-0.400, -0.200]",
                                                     "+0.100 [-0.100, +0.300]", "-0.500 [-0.700, -0.300]"]
