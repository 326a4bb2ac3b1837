"""The variance-aware test sets chapter's study functions (mtbook.studies.vat.study), on hand-made sets.

Expected values are computed here from the definitions (numpy/scipy on the hand-set scores),
never by the function under test."""

from __future__ import annotations

import dataclasses
import itertools
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from scipy import stats as sps  # noqa: E402

from conftest import REF, SYSTEMS, make_mtme  # noqa: E402
from mtlib import load_evalset  # noqa: E402
from mtlib.data import EvalSet  # noqa: E402
from mtlib.embeddings.matchstore import TokenMatches  # noqa: E402
from mtlib.metrics import BLEU  # noqa: E402
from mtlib.significance import compare_systems  # noqa: E402
from mtlib.vat import as_system_stats  # noqa: E402
from mtbook.studies.vat import figures as vf  # noqa: E402
from mtbook.studies.vat import study as vs  # noqa: E402


# -- fixtures --------------------------------------------------------------------------------------

def make_evs(n: int, systems, *, test_set="toy", lp="de-en", refs=None, human=None) -> EvalSet:
    refs = refs or {"ref": [f"r{i}" for i in range(n)]}
    outputs = {s: [f"{s}{i}" for i in range(n)] for s in systems}
    human = {("wmt-z", "sys"): dict(human)} if human is not None else {}
    return EvalSet(test_set, lp, [f"s{i}" for i in range(n)], refs, outputs, human, "ref",
                   segment_ids=list(range(n)))


def frame(values: dict) -> pd.DataFrame:
    df = pd.DataFrame(values)
    df.index.name = "segment"
    return df


def make_direction(scores: dict, human: dict, ids: dict, *, lp="de-en", test_set="toy", refs=None,
                   extra_frames=None) -> vs.Direction:
    """A Direction whose every metric has the same sentence scores ``scores`` (system -> list);
    system scores are their means."""
    n = len(next(iter(scores.values())))
    evs = make_evs(n, list(scores), test_set=test_set, lp=lp, refs=refs, human=human)
    frames = {m: frame(scores) for m in ("BLEU", "BERTS-P", "BERTS-R", "BERTS-F")}
    frames.update(extra_frames or {})
    stats = {m: as_system_stats(frames[m]) for m in ("BLEU", "BERTS-P", "BERTS-R", "BERTS-F")}
    std = frames["BERTS-R"].std(axis=1, ddof=1)
    return vs.Direction(evs, dict(human), frames, stats, std, dict(ids))


# Five systems, eight segments: hand-set sentence scores and human scores.
SCORES = {"A": [0.9, 0.8, 0.7, 0.9, 0.6, 0.8, 0.5, 0.9],
          "B": [0.7, 0.8, 0.6, 0.5, 0.6, 0.9, 0.4, 0.8],
          "C": [0.5, 0.8, 0.8, 0.6, 0.6, 0.4, 0.6, 0.7],
          "D": [0.6, 0.8, 0.5, 0.8, 0.6, 0.5, 0.2, 0.9],
          "E": [0.2, 0.8, 0.4, 0.3, 0.6, 0.6, 0.3, 0.6]}
HUMAN = {"A": 0.9, "B": 0.5, "C": 0.1, "D": 0.4, "E": -0.6}


def by_hand_r(ids=None, method="pearson", scores=SCORES, human=HUMAN):
    """Correlation of the systems' mean sentence score over ``ids`` with the human scores."""
    systems = [s for s in scores if human.get(s) is not None]
    x = [np.mean([scores[s][i] for i in (range(len(scores[s])) if ids is None else ids)]) for s in systems]
    y = [human[s] for s in systems]
    return {"pearson": sps.pearsonr, "kendall": sps.kendalltau, "spearman": sps.spearmanr}[method](x, y).statistic


class FakeScorer:
    """A scorer whose token matches are hand-set: one hypothesis and one reference token per
    pair, so sentence P = hyp_max and R = ref_max."""

    def __init__(self, p: dict, r: dict, *, bf=0.0, same_token=True):
        self.p, self.r, self.bf, self.same_token = p, r, bf, same_token
        self.signature = "BERTScore|fake"
        self.baseline_calls = []

    def match_systems(self, evs, systems=None, ref_name=None):
        systems = list(evs.mt_systems if systems is None else systems)
        hyp_id = 7 if self.same_token else 8
        return {s: [TokenMatches(np.array([hyp_id]), np.array([self.p[s][i]], np.float32), np.array([7]),
                                 np.array([self.r[s][i]], np.float32)) for i in range(evs.n_segments)]
                for s in systems}

    def estimate_baseline_evalset(self, evs, *, n_pairs, seed):
        self.baseline_calls.append((n_pairs, seed))
        return (0.0, 0.0, self.bf)


# -- loading ---------------------------------------------------------------------------------------

def test_other_precision_uses_the_encoders_precisions():
    assert vs.other_precision("fp32") == "bf16"
    assert vs.other_precision("bf16") == "fp32"
    with pytest.raises(ValueError, match="expected 'fp32' or 'bf16', got 'fp16'"):
        vs.other_precision("fp16")


def test_run_directions_in_order_and_checked():
    known = {"wmt18": ["de-en", "zh-en"], "wmt19": ["de-en", "en-de", "kk-en"]}
    assert vs.run_directions(known, ["wmt19", "wmt18"], ["de-en", "en-de"]) == [
        ("wmt19", "de-en"), ("wmt19", "en-de"), ("wmt18", "de-en")]
    assert vs.run_directions(known, ["wmt18"], "all") == [("wmt18", "de-en"), ("wmt18", "zh-en")]
    with pytest.raises(ValueError, match=r"test_sets: unknown \['wmt99'\]"):
        vs.run_directions(known, ["wmt99"], "all")
    with pytest.raises(ValueError, match=r"language_pairs: \['kk-en'\] in none of \['wmt18'\]"):
        vs.run_directions(known, ["wmt18"], ["kk-en"])


def test_run_sets_follow_the_run_unless_given():
    book = [(t, lp) for t in ("wmt17", "wmt18", "wmt19") for lp in ("de-en", "en-de", "zh-en")]
    assert vs.run_sets(book)._asdict() == {
        "precision_check": ["wmt19 de-en"], "ablation_test_set": "wmt19", "analysis_sets": ["wmt19 de-en", "wmt19 en-de"],
        "paraphrase_set": "wmt19 en-de"}
    run = vs.run_findings("small", ["wmt17", "wmt18"], "all", None, 60, 10, 20, 100, 1, "SIG", None,
                          vs.RunSets([], "wmt18", ["wmt17 de-en", "wmt18 zh-en", "wmt18 en-zh"], None), book)
    assert run["analyses"] == [{"test_set": "wmt17", "pairs": ["de-en"]}, {"test_set": "wmt18", "pairs": ["zh-en", "en-zh"]}]
    assert run["sets"]["ablation_test_set"] == "wmt18" and run["language_pairs"] == "all"
    # a WMT18 rerun analyses WMT18, not the book's WMT19
    assert vs.run_sets([("wmt18", "de-en"), ("wmt18", "en-de")])._asdict() == {
        "precision_check": ["wmt18 de-en"], "ablation_test_set": "wmt18",
        "analysis_sets": ["wmt18 de-en", "wmt18 en-de"], "paraphrase_set": "wmt18 en-de"}
    # neither of the paper's pairs: the first into English and the first out of it; no en-de, no Table 4
    got = vs.run_sets([("wmt18", "zh-en"), ("wmt18", "fi-en"), ("wmt18", "en-zh")])
    assert got.analysis_sets == ["wmt18 zh-en", "wmt18 en-zh"] and got.paraphrase_set is None
    assert vs.run_sets([("wmt17", "de-en")]).analysis_sets == ["wmt17 de-en"]
    given = vs.run_sets(book, precision_check=[], ablation_test_set="wmt18", analysis_sets=["wmt17 zh-en"],
                        paraphrase_set="wmt19 en-de")
    assert given._asdict() == {"precision_check": [], "ablation_test_set": "wmt18", "analysis_sets": ["wmt17 zh-en"],
                     "paraphrase_set": "wmt19 en-de"}
    with pytest.raises(ValueError, match="no directions"):
        vs.run_sets([])


def test_run_findings_name_the_text_caveats_and_the_bleu_tokenizers():
    sets = vs.run_sets([("wmt19", "de-en")])
    run = vs.run_findings("small", ["wmt18", "wmt19"], ["de-en", "en-zh"], 200, 60, 10, 20, 100, 1, "SIG", "SIG2", sets,
                          [("wmt18", "en-zh"), ("wmt19", "de-en")])
    assert run["caveats"] == [] and run["n_segments"] == 200 and run["second_signature"] == "SIG2"
    assert run["bleu_tokenize"] == {"en": "intl", "zh": "zh"}
    run = vs.run_findings("small", ["wmt17", "wmt19"], "all", None, 60, 10, 20, 100, 1, "SIG", None, sets,
                          [("wmt17", "de-en")])
    assert run["caveats"] == [{"test_set": "wmt17", "caveat": "lowercased and Moses-tokenised"}]


def test_the_bleu_tokenizer_follows_the_target_language():
    # the paper's BLEU: intl, and zh into Chinese (as the WMT metrics tasks)
    assert vs.bleu_tokenize("zh-en") == "intl" and vs.bleu_tokenize("de-en") == "intl"
    assert vs.bleu_tokenize("en-zh") == "zh" and vs.bleu_tokenize("en-de") == "intl"
    assert vs.PAPER_BLEU_TOKENIZE == "intl"


def write_release(root, test_set, ids):
    meta = root / "vat-release" / "VAT_meta" / test_set
    meta.mkdir(parents=True)
    (meta / "bert-r_filter-std60.json").write_text(json.dumps(ids))


def test_released_within_tells_missing_release_from_not_released(tmp_path):
    assert not vs.release_available(tmp_path)
    with pytest.raises(FileNotFoundError, match="no vat-release"):
        vs.released_within("toy", "de-en", 6, tmp_path)
    write_release(tmp_path, "toy", {"de-en": [0, 2, 5, 9]})
    assert vs.release_available(tmp_path)
    assert vs.released_within("toy", "de-en", 6, tmp_path) == [0, 2, 5]
    assert vs.released_within("toy", "en-de", 6, tmp_path) is None  # no such pair
    assert vs.released_within("wmt99", "de-en", 6, tmp_path) is None  # no such test set


def test_load_directions_scores_filters_and_reads_the_release(tiny_mtme, tmp_path):
    # tiny set: 4 segments, systems sysA, sysB, sysC; hand-set P and R per system and segment.
    p = {"sysA": [0.9, 0.8, 0.7, 0.6], "sysB": [0.5, 0.8, 0.6, 0.6], "sysC": [0.1, 0.8, 0.5, 0.6]}
    r = {"sysA": [0.9, 0.7, 0.9, 0.6], "sysB": [0.6, 0.7, 0.8, 0.6], "sysC": [0.3, 0.7, 0.4, 0.5]}
    r2 = {"sysA": [0.5, 0.5, 0.5, 0.9], "sysB": [0.5, 0.6, 0.5, 0.1], "sysC": [0.5, 0.7, 0.5, 0.5]}
    write_release(tmp_path, "toy", {"de-en": [1, 3, 7]})
    R, skipped = vs.load_directions([("toy", "de-en")], FakeScorer(p, r), 50, mtme_root=tiny_mtme,
                                    chrf_test_set="toy", second=FakeScorer(p, r2), release_root=tmp_path)
    assert skipped == [] and list(R) == ["toy de-en"]
    d = R["toy de-en"]
    np.testing.assert_allclose(d.frames["BERTS-R"].to_numpy(), np.array([r[s] for s in r]).T, rtol=1e-6)
    f = 2 * np.array([p[s] for s in p]) * np.array([r[s] for s in r]) / (np.array([p[s] for s in p]) + np.array([r[s] for s in r]))
    np.testing.assert_allclose(d.frames["BERTS-F"].to_numpy(), f.T, rtol=1e-6)
    bleu = np.array([BLEU().sentence_scores(SYSTEMS[s], [REF]) for s in ["sysA", "sysB", "sysC"]]).T
    np.testing.assert_allclose(d.frames["BLEU"].to_numpy(), bleu)
    assert "chrF" in d.frames
    # R deviation per segment (ddof 1): seg 0 .9 .6 .3 -> .3; seg 1 0; seg 2 .9 .8 .4 -> .2646; seg 3 .0577
    np.testing.assert_allclose(d.std.to_numpy(), [0.3, 0.0, np.sqrt(0.07), np.sqrt(1 / 300)], rtol=1e-5)
    # 50th percentile of (0, .0577, .2646, .3) = .161 -> keep segments 0 and 2
    assert d.ids["VAT (ours)"] == [0, 2]
    assert d.ids["VAT (released)"] == [1, 3]  # id 7 lies beyond the 4 segments
    # second encoder's R deviations: 0, .1, 0, .4 -> median .05 -> keep 1 and 3
    assert d.ids["VAT (second encoder)"] == [1, 3]
    assert d.stats["BERTS-R"].system_scores() == pytest.approx({s: np.mean(r[s]) for s in r}, rel=1e-6)
    assert (d.key, d.test_set, d.lp, d.n, d.n_systems, d.n_human) == ("toy de-en", "toy", "de-en", 4, 3, 3)
    overview = vs.overview_table(R)
    assert overview.loc["toy de-en"].tolist() == [4, 3, 3, 2, 2]
    # without the release, the released ids are None; without system-level human scores, a skip
    evs = load_evalset("toy", "de-en", tiny_mtme)
    assert vs.load_direction(evs, FakeScorer(p, r), 50, with_release=False).ids["VAT (released)"] is None
    evs = dataclasses.replace(evs, human={k: v for k, v in evs.human.items() if k[1] != "sys"})
    assert vs.load_direction(evs, FakeScorer(p, r), 50) is None
    no_sys = make_mtme(tmp_path / "no-sys")
    (no_sys / "toy" / "human-scores" / "de-en.wmt-z.sys.score").unlink()
    with pytest.raises(ValueError, match="no evaluation set with system-level human scores among toy de-en"):
        vs.load_directions([("toy", "de-en")], FakeScorer(p, r), 50, mtme_root=no_sys)


# -- agreement -------------------------------------------------------------------------------------

def brute_expected_jaccard(n, a, b):
    js = [len(set(x) & set(y)) / len(set(x) | set(y))
          for x in itertools.combinations(range(n), a) for y in itertools.combinations(range(n), b)]
    return np.mean(js)


def test_agreement_table_and_summary():
    R = {"t de-en": make_direction(SCORES, HUMAN, {"VAT (ours)": [0, 1, 2, 3], "VAT (released)": [2, 3, 4, 5],
                                                   "VAT (second encoder)": [0, 1, 2, 6]}),
         "t en-de": make_direction(SCORES, HUMAN, {"VAT (ours)": [0, 1, 2], "VAT (released)": None}, lp="en-de")}
    agree = vs.agreement_table(R)
    row = agree.loc["t de-en"]
    assert (row["segments"], row["ours"], row["released"], row["overlap"]) == (8, 4, 4, 2)
    assert row["Jaccard"] == pytest.approx(2 / 6)
    assert row["chance"] == pytest.approx(brute_expected_jaccard(8, 4, 4))
    assert row["Jaccard ours–second"] == pytest.approx(3 / 5)
    assert row["Jaccard second–released"] == pytest.approx(1 / 7)
    assert np.isnan(agree.loc["t en-de", "Jaccard"])
    chance = brute_expected_jaccard(8, 4, 4)
    found = vs.agreement_findings(agree)
    assert found["n_released"] == 1 and found["jaccard"] == pytest.approx(1 / 3) and found["chance"] == pytest.approx(chance)
    assert (found["low"], found["high"]) == pytest.approx((1 / 3, 1 / 3))
    assert found["second"] == pytest.approx(dict(n=1, ours_second=0.6, second_released=1 / 7, ours_released=1 / 3))
    none = vs.agreement_findings(vs.agreement_table({"t en-de": R["t en-de"]}))
    assert none["n_released"] == 0 and none["jaccard"] is None and none["second"] is None


def test_precision_check_table_and_summary():
    n = 8
    shifted = {s: [x + (0.01 if (i == 0 and s == "A") else 0.0) for i, x in enumerate(v)] for s, v in SCORES.items()}
    d = make_direction(SCORES, HUMAN, {"VAT (ours)": [0, 2, 3, 6], "VAT (released)": None})
    # The "other precision" scorer: P = R = the shifted scores, so F = them too.
    other = FakeScorer(shifted, shifted)
    # λ = 60: no two deviations tie at the threshold (float32 matches must not flip a segment)
    prec = vs.precision_check_table({"t de-en": d}, ["t de-en", "absent"], other, 60, "fp32", "bf16")
    assert list(prec.index) == ["t de-en"]
    std_o = pd.DataFrame(shifted).std(axis=1, ddof=1).to_numpy()
    ids_o = [i for i in range(n) if std_o[i] > np.percentile(std_o, 60)]
    assert ids_o == [0, 3, 5]
    assert prec.loc["t de-en", "Jaccard fp32–bf16"] == pytest.approx(
        len(set(ids_o) & {0, 2, 3, 6}) / len(set(ids_o) | {0, 2, 3, 6}))
    assert prec.loc["t de-en", "max |Δ sentence R|"] == pytest.approx(0.01, rel=1e-4)
    for m in ("BERTS-R", "BERTS-F"):
        assert prec.loc["t de-en", f"Δr {m} original"] == pytest.approx(
            by_hand_r(scores=shifted) - by_hand_r(), abs=1e-6)
        assert prec.loc["t de-en", f"Δr {m} VAT"] == pytest.approx(
            by_hand_r(ids_o, scores=shifted) - by_hand_r([0, 2, 3, 6]), abs=1e-6)
    # on the first 6 segments only: both precisions filter those six
    first6 = vs.precision_check_table({"t de-en": d}, ["t de-en"], other, 60, "fp32", "bf16", n_segments=6)
    std6, std6_o = pd.DataFrame(SCORES).iloc[:6].std(axis=1, ddof=1), pd.DataFrame(shifted).iloc[:6].std(axis=1, ddof=1)
    ids6, ids6_o = ([i for i in range(6) if s[i] > np.percentile(s, 60)] for s in (std6, std6_o))
    assert first6.loc["t de-en", "Jaccard fp32–bf16"] == pytest.approx(
        len(set(ids6) & set(ids6_o)) / len(set(ids6) | set(ids6_o)))
    six = list(range(6))
    assert first6.loc["t de-en", "Δr BERTS-R original"] == pytest.approx(
        by_hand_r(six, scores=shifted) - by_hand_r(six), abs=1e-6)
    assert first6.loc["t de-en", "Δr BERTS-F VAT"] == pytest.approx(
        by_hand_r(ids6_o, scores=shifted) - by_hand_r(ids6), abs=1e-6)
    # a limit above the set's size is the whole set
    assert vs.precision_check_table({"t de-en": d}, ["t de-en"], other, 60, "fp32", "bf16", n_segments=99).equals(prec)
    big = pd.DataFrame({"Jaccard fp32–bf16": [0.8, 0.9], "max |Δ sentence R|": [0.1, 0.2], "Δr BERTS-R original": [0.001, -0.02],
                        "Δr BERTS-F VAT": [0.003, 0.0]}, index=["a", "b"])
    found = vs.precision_findings(big, ["a", "b", "c"], 200, "fp32", "bf16")
    assert (found["low"], found["high"], found["same"], found["max_dr_text"]) == (0.8, 0.9, False, "0.020")
    assert found["sets"] == ["a", "b"] and found["asked"] == ["a", "b", "c"] and found["n_segments"] == 200
    assert vs.precision_findings(big.assign(**{"Jaccard fp32–bf16": [1.0, 1.0]}), ["a"], None, "fp32", "bf16")["same"]
    # two significant digits: a bound of 0.00014 is not printed as 0.0001
    small = big.assign(**{"Δr BERTS-F VAT": [0.00014, 0.0]}).iloc[:, [0, 1, 3]]
    assert vs.precision_findings(small, ["a"], None, "fp32", "bf16")["max_dr_text"] == "0.00014"
    empty = vs.precision_findings(vs.precision_check_table({}, ["x"], other, 50, "a", "b"), ["x"], None, "a", "b")
    assert empty["sets"] == [] and empty["max_dr"] is None


# -- Tables 2 and 3 ----------------------------------------------------------------------------------

def two_directions():
    other_scores = {s: v[::-1] for s, v in SCORES.items()}
    return {"t de-en": make_direction(SCORES, HUMAN, {"VAT (ours)": [0, 2, 3, 6], "VAT (released)": [0, 3, 5, 7]}),
            "t en-de": make_direction(other_scores, HUMAN, {"VAT (ours)": [1, 4, 5], "VAT (released)": None},
                                      lp="en-de")}


def test_correlation_rows_and_table2():
    R = two_directions()
    corr = vs.correlation_rows(R)
    # de-en: 3 subsets, en-de: 2 (no released set); 4 metrics, 3 statistics each
    assert len(corr) == (3 + 2) * 4 * 3
    got = corr.set_index(["lp", "subset", "metric", "stat"])["value"]
    assert got[("de-en", "VAT (ours)", "BLEU", "r")] == pytest.approx(by_hand_r([0, 2, 3, 6]))
    assert got[("de-en", "original", "BERTS-R", "tau")] == pytest.approx(by_hand_r(None, "kendall"))
    rev = {s: v[::-1] for s, v in SCORES.items()}
    assert got[("en-de", "VAT (ours)", "BERTS-F", "rho")] == pytest.approx(by_hand_r([1, 4, 5], "spearman", rev))
    paper = pd.DataFrame([{"test_set": "toy", "metric": "BLEU", "subset": "original", "stat": "r", "paper": 0.5},
                          {"test_set": "toy", "metric": "BLEU", "subset": "VAT", "stat": "r", "paper": 0.6}])
    avg, wide = vs.table2(corr, paper, {"toy": 9})
    mean_orig = (by_hand_r() + by_hand_r(None, "pearson", rev)) / 2
    assert vs.averaged_value(avg, "toy", "BLEU", "original") == pytest.approx(mean_orig)
    assert np.isnan(vs.averaged_value(avg, "toy", "BLEU", "absent"))
    released = avg[(avg.subset == "VAT (released)")]
    assert set(released.directions) == {1}
    row = wide.loc[("toy", "BLEU", "original")]
    assert row["directions"] == "2 of 9"
    assert row["r ours"] == pytest.approx(round(mean_orig, 3))
    # the paper prints r and rho signed, |tau|: signed differences for r and rho
    assert row["r paper"] == 0.5 and row["Δr"] == pytest.approx(round(round(mean_orig, 3) - 0.5, 3))
    assert [c for c in wide.columns if "paper" in c] == ["r paper", "|tau| paper", "rho paper"]
    # both VAT rows compare with the paper's "+VAT"
    assert wide.loc[("toy", "BLEU", "VAT (released)"), "r paper"] == 0.6
    assert np.isnan(wide.loc[("toy", "BERTS-P", "original"), "r paper"])


def test_table2_gains_and_sentences():
    avg = pd.DataFrame({"test_set": ["x"] * 3 + ["y"] * 2, "metric": "BLEU", "stat": "r",
                        "subset": ["original", "VAT (ours)", "VAT (released)", "original", "VAT (ours)"],
                        "value": [0.5, 0.7, 0.4, 0.9, 0.8]})
    gains = vs.table2_gains(avg, ["BLEU"], ["r"])
    assert gains.ours.tolist() == pytest.approx([0.2, -0.1])
    assert gains.released.iloc[0] == pytest.approx(-0.1) and np.isnan(gains.released.iloc[1])
    paper = {("BLEU", "original", "x"): (0.5, 0.4, 0.3), ("BLEU", "VAT", "x"): (0.6, 0.3, 0.3),
             ("BLEU", "original", "y"): (0.1, 0.2, 0.3), ("BLEU", "VAT", "y"): (0.2, 0.3, 0.4)}
    pg = vs.paper_table2_gains(paper, ["BLEU"], ["x", "y"])
    assert pg.tolist() == pytest.approx([0.1, -0.1, 0.0, 0.1, 0.1, 0.1])
    assert pg.index[1] == ("x", "BLEU", "tau")
    # averages are compared as shown: 0.5004 and 0.4996 are both 0.500, no change
    near = vs.table2_gains(avg.assign(value=[0.5004, 0.4996, 0.4, 0.9, 0.8]), ["BLEU"], ["r"])
    assert near.ours.iloc[0] == 0
    assert vs.change_counts([0.2, -0.1, 0.0, np.nan]) == dict(up=1, down=1, same=1, n=3)
    wide = pd.DataFrame(columns=["directions", "Δr", "Δ|tau|", "Δrho"])
    found = vs.table2_findings(gains, pg, avg, wide, paper)
    assert found["ours"] == dict(up=1, down=1, same=0, n=2) and found["released"] == dict(up=0, down=1, same=0, n=1)
    assert found["paper"] == dict(up=4, down=1, same=1, n=6)
    assert found["mean"] == pytest.approx(dict(ours=0.05, released=-0.1, paper=0.05))
    assert found["per_set"] == [dict(test_set="x", ours=pytest.approx(0.2), released=pytest.approx(-0.1), paper=pytest.approx(0.0)),
                                dict(test_set="y", ours=pytest.approx(-0.1), released=None, paper=pytest.approx(0.1))]
    assert found["bleu"][1] == dict(test_set="y", whole=0.9, ours=0.8, released=None, paper_whole=0.1, paper_vat=0.2)
    # without released sets, no numbers for them
    no_release = vs.table2_findings(gains.assign(released=np.nan), pg, avg, wide, paper)
    assert no_release["released"] is None and no_release["mean"]["released"] is None
    # the paper's mean over the run's test sets only
    assert vs.table2_findings(gains[gains.test_set == "x"], pg, avg, wide, paper)["mean"]["paper"] == pytest.approx(0.0)


def test_table2_bleu_gap_summary():
    def corr_rows(t, r, tau, rho, n):  # n directions with the same value: the average is the value
        return [dict(test_set=t, lp=f"x{i}-en", metric="BLEU", subset="original", stat=k, value=v)
                for i in range(n) for k, v in [("r", r), ("tau", tau), ("rho", rho)]]
    corr = pd.DataFrame(corr_rows("wmt17", 0.923, 0.813, 0.917, 7) + corr_rows("wmt18", 0.8262, -0.707, 0.789, 14)
                        + corr_rows("wmt19", 0.911, 0.765, 0.879, 18))
    # rows the summary must pass over: BLEU on a VAT subset and another metric, both far from the paper's values
    corr = pd.concat([corr, pd.DataFrame(corr_rows("wmt19", 0.5, 0.5, 0.5, 18)).assign(subset="VAT (ours)"),
                      pd.DataFrame(corr_rows("wmt19", 0.5, 0.5, 0.5, 18)).assign(metric="BERTS-R")])
    paper = pd.DataFrame([dict(test_set=t, metric=m, subset=subset, stat=k, paper=v)
                          for t, values in [("wmt17", (0.910, 0.737, 0.865)), ("wmt18", (0.827, 0.727, 0.802)),
                                            ("wmt19", (0.912, 0.762, 0.878))]
                          for m, subset in [("BLEU", "original"), ("BLEU", "VAT"), ("BERTS-R", "original")]
                          for k, v in zip(["r", "tau", "rho"], values)])
    directions = {"wmt17": 14, "wmt18": 14, "wmt19": 18}
    _, wide = vs.table2(corr, paper, directions)
    # |tau| against the printed |tau|: -0.707 is 0.020 below 0.727; wmt19 within 0.01 everywhere
    def gap(wide, **kw):  # only the BLEU gaps: no gains
        gains = pd.DataFrame({"test_set": [], "ours": [], "released": []}, dtype=float)
        paper_gain = pd.Series([], dtype=float, index=pd.MultiIndex.from_arrays([[], [], []],
                                                                                names=["test_set", "metric", "stat"]))
        return vs.table2_findings(gains, paper_gain, pd.DataFrame({"test_set": []}), wide, {}, **kw)
    found = gap(wide)
    assert found["bleu_close"] == ["wmt19"]
    g17, g18, g19 = found["bleu_gap"]
    assert [(x["stat"], round(x["delta"], 3)) for x in g17["gaps"]] == [("r", 0.013), ("tau", 0.076), ("rho", 0.052)]
    assert (g17["directions"], g17["paper_directions"], g17["fewer"], g17["caveat"]) == (
        7, 14, True, "lowercased and Moses-tokenised")
    assert [(x["stat"], round(x["delta"], 3)) for x in g18["gaps"]] == [("tau", -0.02), ("rho", -0.013)]
    assert (g18["fewer"], g18["caveat"], g19["gaps"]) == (False, None, [])
    assert gap(wide, tolerance=0.1)["bleu_close"] == ["wmt17", "wmt18", "wmt19"]
    _, elsewhere = vs.table2(corr.assign(test_set="wmt99"), paper, directions)
    assert gap(elsewhere)["bleu_gap"] == []
    # a statistic the paper does not print is named, never counted as within the tolerance
    _, no_rho = vs.table2(corr, paper[~((paper.test_set == "wmt19") & (paper.stat == "rho"))], directions)
    found = gap(no_rho)
    assert found["bleu_gap"][2]["unprinted"] == ["rho"] and "wmt19" not in found["bleu_close"]
    # a test set without the paper's direction count: no "N of its ? directions"
    _, unknown = vs.table2(corr, paper, {"wmt18": 14, "wmt19": 18})
    assert gap(unknown)["bleu_gap"][0]["paper_directions"] is None and not gap(unknown)["bleu_gap"][0]["fewer"]


def test_table3_and_its_sentences():
    corr = pd.DataFrame([
        dict(test_set="wmt19", lp="en-zh", metric="BLEU", subset="original", stat="r", value=0.40),
        dict(test_set="wmt19", lp="en-zh", metric="BLEU", subset="VAT (ours)", stat="r", value=0.50),
        dict(test_set="wmt19", lp="en-zh", metric="BLEU", subset="VAT (released)", stat="r", value=0.45),
        dict(test_set="wmt19", lp="de-en", metric="BLEU", subset="original", stat="r", value=-0.90),
        dict(test_set="wmt19", lp="de-en", metric="BLEU", subset="VAT (ours)", stat="r", value=-0.95),
        dict(test_set="wmt19", lp="de-en", metric="BLEU", subset="original", stat="tau", value=0.1),
        dict(test_set="wmt19", lp="kk-en", metric="BLEU", subset="original", stat="r", value=0.3)])
    paper = pd.DataFrame([dict(test_set="wmt19", lp="en-zh", metric="BLEU", subset="original", paper=0.45),
                          dict(test_set="wmt19", lp="en-zh", metric="BLEU", subset="VAT", paper=0.40),
                          dict(test_set="wmt19", lp="de-en", metric="BLEU", subset="original", paper=0.80),
                          dict(test_set="wmt19", lp="de-en", metric="BLEU", subset="VAT", paper=0.90)])
    t3, out = vs.table3(corr, paper, ["wmt19"])
    assert len(t3) == 5  # only Pearson r, only the paper's pairs
    assert list(out.index) == [("de-en", "wmt19", "BLEU"), ("en-zh", "wmt19", "BLEU")]  # the paper's pair order
    assert list(out.columns) == ["original", "paper", "Δ original", "VAT (ours)", "VAT (released)", "paper +VAT",
                                 "Δ VAT (ours)", "Δ VAT (released)"]
    assert out.loc[("en-zh", "wmt19", "BLEU")].tolist() == pytest.approx([0.40, 0.45, -0.05, 0.50, 0.45, 0.40,
                                                                          0.10, 0.05])
    assert out.loc[("de-en", "wmt19", "BLEU"), "Δ original"] == pytest.approx(-1.7)  # signed: -0.90 - 0.80
    assert np.isnan(out.loc[("de-en", "wmt19", "BLEU"), "VAT (released)"])
    # ours: en-zh +0.10 (up), de-en -0.05 (down); paper: en-zh down, de-en up
    found = vs.table3_findings(t3, paper)
    assert found["cells"] == 2 and found["ours"] == dict(up=1, down=1, same=0, n=2)
    assert found["ours_median"] == pytest.approx(0.025) and found["released_median"] == pytest.approx(0.05)
    assert found["released"] == dict(up=1, down=0, same=0, n=1) and found["paper"] == dict(up=1, down=1, same=0, n=2)
    assert found["bleu_zh"] == [dict(test_set="wmt19", value=0.4, paper=0.45)]
    # signed de-en -0.90 and en-zh 0.40 both lie beyond 0.01 of the paper; no text caveat on WMT19
    assert (found["bleu_n"], found["bleu_within"]) == (2, 0)
    assert [(b["lp"], b["caveat"]) for b in found["bleu_far"]] == [("de-en", None), ("en-zh", None)]
    assert vs.table3_findings(t3, paper, tolerance=2)["bleu_within"] == 2
    wmt17 = vs.table3_findings(t3.assign(test_set="wmt17"), paper)
    assert wmt17["bleu_far"][1]["caveat"] == "lowercased and Moses-tokenised"
    assert wmt17["caveats"] == [{"test_set": "wmt17", "caveat": "lowercased and Moses-tokenised"}]
    empty, none = vs.table3(corr[corr.lp == "kk-en"], paper, ["wmt19"])
    assert none is None and vs.table3_findings(empty, paper)["cells"] == 0
    bert = pd.DataFrame([dict(test_set="wmt19", lp=lp, metric=m, subset=sub, value=v, paper=pv, paper_subset="original")
                         for lp, m, v, pv in [("de-en", "BERTS-P", 0.912, 0.947), ("en-de", "BERTS-R", 0.9914, 0.990),
                                              ("zh-en", "BERTS-F", 0.9, np.nan), ("zh-en", "BLEU", 0.1, 0.9)]
                         for sub in ["original", "VAT (ours)"]])
    b = vs.table3_findings(bert, paper)["bert"]
    assert (b["below"], b["n"], b["median"]) == (1, 2, pytest.approx(-0.017))
    assert b["worst"] == dict(lp="de-en", test_set="wmt19", metric="BERTS-P", value=0.912, paper=0.947)
    # none below: no shortfall named; a cell without a correlation is left out
    assert vs.table3_findings(bert[bert.lp == "en-de"], paper)["bert"]["worst"] is None
    assert vs.table3_findings(bert.assign(value=[np.nan] * 7 + [0.1]), paper)["bert"] is None
    # the paper's missing cells by name; en-zh has two VAT subsets against one paper +VAT cell: named once
    paper17 = pd.concat([paper, paper.assign(test_set="wmt17")])
    gone = t3.assign(test_set="wmt17", paper=np.where(t3.lp == "en-zh", np.nan, t3.paper))
    assert vs.table3_findings(gone, paper17)["missing"] == [
        dict(subset="original", metric="BLEU", lp="en-zh", test_set="wmt17"),
        dict(subset="VAT", metric="BLEU", lp="en-zh", test_set="wmt17")]
    # a test set the paper's table does not have is said so, not called missing from its text
    other = vs.table3_findings(t3.assign(test_set="wmt21.news", paper=np.nan), paper)
    assert other["elsewhere"] == ["WMT21.NEWS de-en", "WMT21.NEWS en-zh"] and other["missing"] == []
    only_orig, _ = vs.table3(corr[corr.subset == "original"], paper, ["wmt19"])
    assert vs.table3_findings(only_orig, paper)["ours"]["n"] == 0


# -- λ and the filtering metric ---------------------------------------------------------------------

def test_direction_group():
    assert [vs.direction_group(lp) for lp in ["de-en", "en-de", "de-fr"]] == ["to English", "from English", "other"]


def test_lambda_sweep_against_random_subsets():
    R = two_directions()
    sweep = vs.lambda_sweep(R, ["t de-en"], [0, 50], ["BLEU"], draws=5, seed=3)
    assert sweep[["lp", "group", "lam", "metric"]].values.tolist() == [
        ["de-en", "to English", 0, "BLEU"], ["de-en", "to English", 50, "BLEU"]]
    assert sweep.vat.iloc[0] == pytest.approx(by_hand_r()) and sweep.random.iloc[0] == pytest.approx(by_hand_r())
    std = pd.DataFrame(SCORES).std(axis=1, ddof=1).to_numpy()
    kept = [i for i in range(8) if std[i] > np.percentile(std, 50)]
    assert sweep.vat.iloc[1] == pytest.approx(by_hand_r(kept))
    # five random subsets of the kept set's size, drawn from seed 3 as random_subset_masks does
    order = np.argsort(np.random.default_rng(3).random((5, 8)), axis=1)[:, :len(kept)]
    assert sweep.random.iloc[1] == pytest.approx(np.mean([by_hand_r(list(o)) for o in order]))


def test_lambda_summary_and_plots():
    sweep = pd.DataFrame({"lp": ["de-en", "en-de"] * 3, "group": ["to English", "from English"] * 3,
                          "lam": [0, 0, 50, 50, 60, 60], "metric": "BLEU",
                          "vat": [0.5, 0.7, 0.8, 0.8, 0.4, 0.6], "random": [0.5, 0.7, 0.4, 0.6, 0.3, 0.5]})
    found = vs.lambda_findings(sweep, 60, ["BLEU"])
    assert found["metrics"] == [dict(metric="BLEU", whole=pytest.approx(0.6), at=pytest.approx(0.5),
                                     random=pytest.approx(0.4), peak=pytest.approx(0.8), peak_lam=50)]
    assert vs.lambda_findings(sweep.iloc[:0], 60) == dict(metrics=[], groups=[], drop_percent=60)
    # to English: 0.4 at 60 is below the whole set's 0.5; from English: 0.6 below 0.7
    at50 = vs.lambda_findings(sweep, 50, ["BLEU"])["groups"]
    assert [(g["group"], g["directions"], g["above"]) for g in at50] == [("to English", 1, 1), ("from English", 1, 1)]
    assert at50[1]["metrics"] == [dict(metric="BLEU", whole=pytest.approx(0.7), at=pytest.approx(0.8),
                                       random=pytest.approx(0.6))]
    assert [g["above"] for g in vs.lambda_findings(sweep, 60, ["BLEU"])["groups"]] == [0, 0]
    # above the whole set but below the random subsets does not count
    above_whole = sweep.assign(random=[0.5, 0.7, 0.9, 0.9, 0.3, 0.5])
    assert vs.lambda_findings(above_whole, 50, ["BLEU"])["groups"][0]["above"] == 0
    assert vs.lambda_findings(sweep, 55, ["BLEU"]) == dict(
        metrics=[], groups=[dict(group="to English", directions=1, metrics=[], above=0),
                            dict(group="from English", directions=1, metrics=[], above=0)], drop_percent=55)
    assert vs.lambda_findings(sweep[sweep.group == "to English"].assign(group="other"), 60)["groups"] == []
    fig, ax = plt.subplots()
    vf.plot_lambda_sweep(ax, sweep, 60, ["BLEU"])
    solid, dashed = ax.lines[0], ax.lines[1]
    assert list(solid.get_xdata()) == [0, 50, 60] and list(solid.get_ydata()) == pytest.approx([0.6, 0.8, 0.5])
    assert list(dashed.get_ydata()) == pytest.approx([0.6, 0.5, 0.4])
    assert solid.get_label() == "BLEU, VAT" and dashed.get_label() == "BLEU, random"
    fig = vf.plot_lambda_groups(sweep, 60, ["BLEU"])
    assert [a.get_title() for a in fig.axes] == ["to English (1 directions)", "from English (1 directions)"]
    assert list(fig.axes[1].lines[0].get_ydata()) == pytest.approx([0.7, 0.8, 0.6])
    assert vf.plot_lambda_groups(sweep[sweep.group == "x"], 60) is None
    plt.close("all")


def test_filter_metric_correlations_and_summary():
    # BLEU sentence scores differ from the others, so the two filters keep different segments
    bleu = frame({s: [v[i] if i % 2 else 0.5 for i in range(8)] for s, v in SCORES.items()})
    d = make_direction(SCORES, HUMAN, {"VAT (ours)": [0], "VAT (released)": None}, extra_frames={"BLEU": bleu})
    d.stats["BLEU"] = as_system_stats(bleu)
    fig4 = vs.filter_metric_correlations({"t de-en": d}, ["t de-en"], 50, ["BLEU", "BERTS-R"], ["BERTS-P"],
                                         {"r": "pearson"})
    got = fig4.set_index("filter")["value"]
    std_r = pd.DataFrame(SCORES).std(axis=1, ddof=1).to_numpy()
    kept_r = [i for i in range(8) if std_r[i] > np.percentile(std_r, 50)]
    std_b = bleu.std(axis=1, ddof=1).to_numpy()
    kept_b = [i for i in range(8) if std_b[i] > np.percentile(std_b, 50)]
    assert kept_b != kept_r
    assert got["BERTS-R"] == pytest.approx(by_hand_r(kept_r))
    assert got["BLEU"] == pytest.approx(by_hand_r(kept_b))  # BLEU filters, BERTS-P evaluates
    assert got["none (whole set)"] == pytest.approx(by_hand_r())
    hand = pd.DataFrame({"filter": ["none (whole set)", "BLEU", "BERTS-R"] * 2, "stat": ["r"] * 3 + ["tau"] * 3,
                         "metric": "X", "value": [0.5, 0.7, 0.6, 0.3, 0.1, 0.2]})
    found = vs.filter_findings(hand, ["r", "tau"])
    assert found["stats"] == [dict(stat="r", best="BLEU", value=pytest.approx(0.7), whole=pytest.approx(0.5),
                                   chosen=pytest.approx(0.6)),
                              dict(stat="tau", best="BERTS-R", value=pytest.approx(0.2), whole=pytest.approx(0.3),
                                   chosen=pytest.approx(0.2))]
    assert (found["n_best"], found["n"], found["behind"]) == (1, 2, pytest.approx(0.1))
    assert vs.filter_findings(hand.assign(value=[0.5, 0.7, 0.6, 0.3, 0.25, 0.2]), ["r", "tau"])["n_best"] == 0
    assert vs.filter_findings(hand.iloc[:0]) is None
    fig = vf.plot_filter_metrics(fig4, ["BLEU", "BERTS-R"], ["BERTS-P"], ["r"])
    # one bar per filtering metric, its height the change from the whole set (bars start at 0)
    heights = sorted(p.get_height() for p in fig.axes[0].patches if p.get_width() > 0)
    assert heights == pytest.approx(sorted([by_hand_r(kept_b) - by_hand_r(), by_hand_r(kept_r) - by_hand_r()]))
    plt.close("all")


# -- what the kept segments are like -------------------------------------------------------------------

class FakeToken:
    def __init__(self, tag):
        self.tag_ = tag


class FakeNLP:
    """Tags every word NNP if capitalised, else NN (enough to check which side is tagged)."""

    def pipe(self, texts, batch_size=1):
        for t in texts:
            yield [FakeToken("NNP" if w[0].isupper() else "NN") for w in t.split()]


def test_segment_properties_on_the_english_side(tiny_mtme):
    evs = load_evalset("toy", "de-en", tiny_mtme)
    to_en = vs.Direction(evs, {}, {}, {}, pd.Series(dtype=float), {})
    from_en = vs.Direction(EvalSet("toy", "en-de", list(REF), {"ref": ["Der Hund.", "Es.", "Ich.", "Gut."]}, {}, {},
                                   "ref"), {}, {}, {}, pd.Series(dtype=float), {})
    other = vs.Direction(EvalSet("toy", "de-fr", ["a"] * 3, {"ref": ["x y", "x", "z"]}, {}, {}, "ref"),
                         {}, {}, {}, pd.Series(dtype=float), {})
    props = vs.segment_properties({"a": to_en, "b": from_en, "c": other}, ["a", "b", "c", "missing"], FakeNLP())
    assert list(props) == ["a", "b", "c"]
    # reference words (wordfreq): 3, 3, 4, 2 -> by rank: seg 3, 0 short; 1 medium; 2 long
    assert list(props["a"]["length"]) == ["Short", "Medium", "Long", "Short"]
    assert props["a"]["english"] == "reference"
    assert props["a"]["tags"][0] == ["NNP", "NN", "NN"]  # "The dog barks."
    assert props["b"]["english"] == "source" and props["b"]["tags"][3] == ["NNP", "NN"]  # "Good morning."
    assert props["c"]["tags"] is None
    assert [len(s) for s in props["a"]["freq"]] == [3, 3, 4, 2]


def test_share_changes_summaries_and_top_moving():
    props = {"k": {"length": np.array(["Short", "Short", "Medium", "Long"], dtype=object),
                   "freq": [["Rare", "Frequent"], ["Frequent"], ["Middle"], ["Rare"]],
                   "tags": [["NNP", "NN"], ["NN"], ["VB"], ["NNP"]]},
             "m": {"length": np.array(["Short", "Long"], dtype=object), "freq": [["Rare"], ["Rare"]], "tags": None}}
    R = {"k": make_direction(SCORES, HUMAN, {"VAT (ours)": [0, 3], "VAT (released)": [1]}),
         "m": make_direction(SCORES, HUMAN, {"VAT (ours)": [1], "VAT (released)": None})}
    length = vs.share_changes(props, R, "length")
    ours_k = length[(length.evalset == "k") & (length.subset == "VAT (ours)")].set_index("group")
    # all: Short 2/4, Medium 1/4, Long 1/4; kept {0, 3}: Short 1/2, Long 1/2
    assert ours_k["change (pp)"].tolist() == pytest.approx([0.0, -25.0, 25.0])
    assert list(ours_k.index) == ["Short", "Medium", "Long"]
    freq = vs.share_changes(props, R, "freq")
    rel = freq[(freq.evalset == "k") & (freq.subset == "VAT (released)")].set_index("group")
    # tokens: Rare 2/5, Middle 1/5, Frequent 2/5; kept segment 1: Frequent only
    assert rel["change (pp)"].tolist() == pytest.approx([-40.0, -20.0, 60.0])
    pos = vs.share_changes(props, R, "pos")
    assert set(pos.evalset) == {"k"}  # "m" has no tags
    nnp = pos[(pos.subset == "VAT (ours)") & (pos.group == "NNP")].iloc[0]
    # NNP: 2 of 5 tokens; kept {0, 3}: 2 of 3
    assert (nnp["all %"], nnp["kept %"]) == pytest.approx((40.0, 200 / 3))
    with pytest.raises(ValueError, match="kind"):
        vs.share_changes(props, R, "colour")
    found = vs.share_findings(length, "Short", "Long", "Short", +1)
    # the released set beside ours: k's kept segment 1 is Short (Short 1/1 against 2/4, Long 0 against 1/4); m has none
    assert found["sets"] == [dict(evalset="k", low=pytest.approx(0.0), high=pytest.approx(25.0),
                                  released=dict(low=pytest.approx(50.0), high=pytest.approx(-25.0))),
                             dict(evalset="m", low=pytest.approx(-50.0), high=pytest.approx(50.0), released=None)]
    assert vs.share_findings(length.iloc[:0], "Short", "Long", "Short", +1)["sets"] == []
    assert vs.nnp_findings(pos) == [
        dict(evalset="k", subset="ours", all=pytest.approx(40.0), kept=pytest.approx(200 / 3), change=pytest.approx(80 / 3)),
        dict(evalset="k", subset="released", all=pytest.approx(40.0), kept=pytest.approx(0.0), change=pytest.approx(-40.0))]
    assert vs.nnp_findings(pos.iloc[:0]) == []
    # ours moves NNP by 26.7, NN by -40+... : NN 2/5 -> 1/3 (-6.7), VB 1/5 -> 0 (-20)
    top = vs.top_moving(pos, 1, always=["VB"])
    assert set(top.group) == {"NNP", "VB"}
    # punctuation is left out, however much it moves
    punct = pd.concat([pos, pos[pos.group == "NN"].assign(group=",", **{"change (pp)": 99.0})])
    assert set(vs.top_moving(punct, 1, always=[]).group) == {"NNP"}
    assert set(vs.top_moving(punct, 1, always=[], exclude=()).group) == {","}
    fig = vf.plot_share_change(length, "sentence length", "length third")
    assert fig.axes[0].get_title() == "sentence length" and fig.axes[0].get_xlabel() == "length third"
    plt.close("all")


def test_kept_by_difficulty_and_its_summary():
    mean = np.arange(10.0)  # 10th percentile 0.9, 90th 8.1: hardest {0}, easiest {9}, middle 1..8
    kept = np.array([True, False, True, True, False, False, False, False, False, True])
    assert vs.kept_by_difficulty(mean, kept) == pytest.approx((25.0, 100.0, 100.0))
    scores = {"A": list(np.arange(10.0)), "B": list(np.arange(10.0) + 1)}  # mean per segment: i + 0.5
    d = make_direction(scores, {"A": 1, "B": 0}, {"VAT (ours)": [0, 2, 3, 9], "VAT (released)": None})
    assert vs.difficulty_findings({"k": d}, ["k"]) == [
        dict(evalset="k", subset="ours", label="k (ours)", middle=pytest.approx(25.0), hardest=pytest.approx(100.0),
             easiest=pytest.approx(100.0), vs_hardest="less", vs_easiest="less", reading="against", as_paper=False)]
    assert vs.difficulty_findings({}, []) == []
    fig = vf.plot_kept_difficulty({"k": d}, ["k"])
    assert [a.get_title() for a in fig.axes if a.get_visible()] == ["k"]
    plt.close("all")


def test_the_released_set_is_analysed_beside_ours():
    scores = {"A": list(np.arange(10.0)), "B": list(np.arange(10.0) + 1)}  # hardest segment 0, easiest 9
    d = make_direction(scores, {"A": 1, "B": 0}, {"VAT (ours)": [0, 2, 3, 9], "VAT (released)": [2, 3, 4, 5]})
    assert vs.kept_sets(d) == ["VAT (ours)", "VAT (released)"]
    mean_r, kept = vs.mean_recall_and_kept(d, "VAT (released)")
    assert mean_r.tolist() == pytest.approx(list(np.arange(10.0) + 0.5)) and np.flatnonzero(kept).tolist() == [2, 3, 4, 5]
    ours, released = vs.difficulty_findings({"k": d}, ["k"])
    # released: 4 of the middle 8 kept (50%), neither end
    assert (released["label"], released["middle"], released["hardest"], released["easiest"]) == (
        "k (released)", pytest.approx(50.0), 0.0, 0.0)
    assert (released["reading"], released["as_paper"], ours["reading"]) == ("as paper", True, "against")
    fig = vf.plot_kept_difficulty({"k": d}, ["k"])
    assert [a.get_title() for a in fig.axes if a.get_visible()] == ["k, our VAT", "k, released VAT"]
    # a set without a released one beside it: its second panel stays empty
    alone = make_direction(scores, {"A": 1, "B": 0}, {"VAT (ours)": [2, 3], "VAT (released)": None})
    fig = vf.plot_kept_difficulty({"k": d, "m": alone}, ["k", "m"])
    assert [a.get_title() for a in fig.axes if a.get_visible()] == ["k, our VAT", "k, released VAT", "m"]
    plt.close("all")


def test_paraphrase_table_and_summary():
    refs = {"ref": ["a b c d", "a b", "x y z w v u", "q"], "refWMTp": ["a b c e", "b a", "x y z w v u", "r s"]}
    scores = {s: v[:4] for s, v in SCORES.items()}
    d = make_direction(scores, HUMAN, {"VAT (ours)": [0, 2], "VAT (released)": None}, refs=refs)
    t4 = vs.paraphrase_table(d, (19.82, 20.25, 19.17))
    # word edits: 1, 2, 0, 2 (q -> r s: substitute + insert); kept {0, 2}
    w = t4.loc[("word", "VAT (ours)")]
    assert (w["all"], w["filtered out"], w["kept"]) == pytest.approx((1.25, 2.0, 0.5))
    # characters: "d"->"e" 1; "a b"->"b a" 2; 0; "q"->"r s" 3
    c = t4.loc[("char", "VAT (ours)")]
    assert (c["all"], c["kept"]) == pytest.approx((1.5, 0.5))
    pw = t4.loc[("word per reference word", "VAT (ours)")]
    # per reference word: 1/4, 2/2, 0/6, 2/1
    assert (pw["filtered out"], pw["kept"]) == pytest.approx(((1 + 2) / 2, 0.125))
    assert t4.loc[("paper (unit not stated)", "released")].tolist() == [19.82, 20.25, 19.17]
    found = vs.paraphrase_findings(t4)
    assert found["words"] == pytest.approx({"all": 1.25, "filtered out": 2.0, "kept": 0.5})
    assert found["per_word"]["kept"] == pytest.approx(0.125) and found["after"] == "remains"
    assert found["paper"] == pytest.approx({"all": 19.82, "filtered out": 20.25, "kept": 19.17})
    no_paper = vs.paraphrase_table(d)
    assert len(no_paper) == 3 and vs.paraphrase_findings(no_paper)["paper"] is None
    # the book's full run: 19.97 vs 15.56 edits (a 22% gap) but 0.914 vs 0.920 per word (under 1%)
    assert vs._gap_after((15.56 - 19.97) / 17.3, (0.914 - 0.920) / 0.917) == "mostly vanishes"
    assert vs._gap_after(-0.2, -0.15) == "remains" and vs._gap_after(-0.2, 0.0) == "vanishes"
    assert vs._gap_after(-0.2, 0.05) == "reverses"


# -- against chance and noise ----------------------------------------------------------------------------

def test_random_subset_table_stacks_the_kept_sets():
    R = two_directions()
    few = {s: v for s, v in HUMAN.items()}
    few.update({"D": None, "E": None})  # 3 human scores: left out
    R["t few"] = make_direction(SCORES, few, {"VAT (ours)": [0, 1], "VAT (released)": None})
    rand = vs.random_subset_table(R, 20, 4)
    assert rand.groupby(["evalset", "subset"]).size().to_dict() == {
        ("t de-en", "VAT (ours)"): 8, ("t de-en", "VAT (released)"): 8, ("t en-de", "VAT (ours)"): 8}
    row = rand[(rand.evalset == "t de-en") & (rand.subset == "VAT (ours)") & (rand.metric == "BLEU")
               & (rand.method == "pearson")].iloc[0]
    assert row["selected"] == pytest.approx(by_hand_r([0, 2, 3, 6]))
    assert row["whole"] == pytest.approx(by_hand_r()) and row["test_set"] == "toy"
    order = np.argsort(np.random.default_rng(4).random((20, 8)), axis=1)[:, :4]
    rand_r = np.array([by_hand_r(list(o)) for o in order])
    assert row["random mean"] == pytest.approx(rand_r.mean())
    assert row["percentile"] == pytest.approx(100 * ((rand_r < row["selected"] - 1e-12).mean()
                                                     + 0.5 * (np.abs(rand_r - row["selected"]) <= 1e-12).mean()))
    fig = vf.plot_random_percentiles(rand, ["BLEU", "BERTS-R"])
    assert [a.get_title() for a in fig.axes] == ["Pearson r", "Kendall τ"]
    assert [a.get_xlabel() for a in fig.axes] == ["evaluating metric"] * 2  # every axis titled
    assert fig.axes[0].get_ylabel() == "percentile"  # among random subsets: the caption says so
    plt.close("all")


def test_random_percentile_table_and_summary():
    rand = pd.DataFrame({"subset": "VAT (ours)", "method": ["pearson"] * 3 + ["kendall"], "metric": "BLEU",
                         "evalset": ["a", "b", "c", "a"], "percentile": [99.0, 50.0, 1.0, 80.0],
                         "selected": [0.9, 0.5, 0.1, 0.6], "random mean": [0.5, 0.5, 0.5, 0.5]})
    table = vs.random_percentile_table(rand)
    row = table.loc[("VAT (ours)", "pearson", "BLEU")]
    assert row.tolist() == pytest.approx([3, 50.0, 1, 1, 0.0, 0.0])
    # one outlying direction moves the mean gain, not the median: gains +0.4, -0.05, -0.05
    skewed = vs.random_percentile_table(rand.assign(selected=[0.9, 0.45, 0.45, 0.6]))
    assert skewed.loc[("VAT (ours)", "pearson", "BLEU"), ["mean_gain_over_random", "median_gain_over_random"]].tolist() \
        == pytest.approx([0.1, -0.05])
    [sv] = vs.verdicts(pd.DataFrame({"test_set": ["x"], "ours": [0.02], "released": [np.nan]}),
                       rand.assign(selected=[0.9, 0.45, 0.45, 0.6]),
                       pd.DataFrame({"subset": "VAT (ours)", "metric": "BLEU", "verdict": ["undecided"] * 3}))
    assert (sv.gain, sv.median_gain) == pytest.approx((0.1, -0.05))
    assert (sv.metrics[0].gain, sv.metrics[0].median_gain) == pytest.approx((0.1, -0.05))
    assert (sv.kendall["gain"], sv.kendall["median_gain"]) == pytest.approx((0.1, 0.1))
    boot = pd.DataFrame({"subset": "VAT (ours)", "metric": "BLEU", "verdict": ["VAT better", "undecided", "undecided"]})
    gains = pd.DataFrame({"test_set": ["x"], "ours": [0.02], "released": [np.nan]})
    v, = vs.verdicts(gains, rand, boot)
    assert (v.subset, v.name, v.directions, v.cases, v.median, v.above, v.below) == ("VAT (ours)", "our sets", 3, 3, 50.0, 1, 1)
    assert v.standing is vs.Standing.TYPICAL and v.chance == pytest.approx(0.075)
    assert v.kendall["median"] == 80.0 and v.kendall["standing"] == "above most" and v.kendall["above"] == 0
    assert [(x.metric, x.median) for x in v.metrics] == [("BLEU", 50.0)]
    both = pd.concat([rand, rand.assign(subset="VAT (released)", metric=["BLEU", "R", "R", "R"],
                                        percentile=[90.0, 10.0, 30.0, 5.0])])
    boot2 = pd.concat([boot, boot.assign(subset="VAT (released)")])
    ours, rel = vs.verdicts(gains.assign(released=[0.0]), both, boot2)
    assert rel.name == "the released sets" and rel.median == 30.0 and rel.standing is vs.Standing.BELOW_TYPICAL
    assert [(x.metric, x.median) for x in rel.metrics] == [("BLEU", 90.0), ("R", 20.0)]
    assert [x.metric for x in rel.hidden] == ["R"]  # below most under a pooled median that is not
    assert vs.verdicts(gains, rand.iloc[:0], boot) == []


def test_bootstrap_verdicts_counts_and_summary():
    R = two_directions()
    boot = vs.bootstrap_verdicts(R, 30, 2)
    # t de-en has both kept sets, t en-de only ours
    assert boot.groupby(["evalset", "subset"]).size().to_dict() == {
        ("t de-en", "VAT (ours)"): 4, ("t de-en", "VAT (released)"): 4, ("t en-de", "VAT (ours)"): 4}
    row = boot[(boot.evalset == "t de-en") & (boot.metric == "BLEU") & (boot.subset == "VAT (ours)")].iloc[0]
    assert row["difference"] == pytest.approx(by_hand_r([0, 2, 3, 6]) - by_hand_r())
    rel = R["t de-en"].ids["VAT (released)"]
    row = boot[(boot.evalset == "t de-en") & (boot.metric == "BLEU") & (boot.subset == "VAT (released)")].iloc[0]
    assert row["difference"] == pytest.approx(by_hand_r(rel) - by_hand_r())
    for _, b in boot.iterrows():
        want = "VAT better" if b.low > 0 else "VAT worse" if b.high < 0 else "undecided"
        assert b.verdict == want
    assert len(vs.bootstrap_verdicts(R, 30, 2, subsets=["VAT (ours)"])) == 8
    with pytest.raises(ValueError, match="at least 4 human scores"):
        vs.bootstrap_verdicts({}, 30, 2)
    hand = pd.DataFrame({"subset": ["VAT (ours)"] * 4 + ["VAT (released)"],
                         "metric": ["BLEU", "BLEU", "BLEU", "R", "R"],
                         "verdict": ["VAT better", "undecided", "VAT worse", "undecided", "VAT better"],
                         "low": [0.1, -0.2, -0.5, -0.1, 0.1], "high": [0.3, 0.2, -0.1, 0.3, 0.2]})
    counts = vs.verdict_counts(hand)
    assert list(counts.columns) == ["VAT better", "undecided", "VAT worse"]
    assert counts.loc[("VAT (ours)", "BLEU")].to_dict() == {"VAT better": 1, "VAT worse": 1, "undecided": 1}
    assert counts.loc[("VAT (ours)", "R")].to_dict() == {"VAT better": 0, "VAT worse": 0, "undecided": 1}
    assert counts.loc[("VAT (released)", "R")].to_dict() == {"VAT better": 1, "VAT worse": 0, "undecided": 0}
    # widths .2 .4 .4 .4 -> median .4
    assert vs.bootstrap_findings(hand) == [
        dict(subset="VAT (ours)", name="our sets", n=4, better=1, worse=1, undecided=2, width=pytest.approx(0.4)),
        dict(subset="VAT (released)", name="the released sets", n=1, better=1, worse=0, undecided=0,
             width=pytest.approx(0.1))]


def test_stability_table_and_summary():
    bleu = frame({s: [v[i] if i % 2 else 0.5 for i in range(8)] for s, v in SCORES.items()})
    d = make_direction(SCORES, HUMAN, {"VAT (ours)": [0, 3, 6, 7], "VAT (released)": None},
                       extra_frames={"BLEU": bleu, "chrF": frame(SCORES)})
    stab = vs.stability_table({"k": d}, ["k"], 50, 5, halves=3)
    std_b = bleu.std(axis=1, ddof=1).to_numpy()
    kept_b = {i for i in range(8) if std_b[i] > np.percentile(std_b, 50)}
    ours = {0, 3, 6, 7}
    assert stab.loc["k", "vs BLEU-filtered"] == pytest.approx(len(kept_b & ours) / len(kept_b | ours))
    std_r = pd.DataFrame(SCORES).std(axis=1, ddof=1).to_numpy()
    kept_r = {i for i in range(8) if std_r[i] > np.percentile(std_r, 50)}
    assert stab.loc["k", "vs chrF-filtered"] == pytest.approx(len(kept_r & ours) / len(kept_r | ours))
    rng = np.random.default_rng(5)
    half = []
    for _ in range(3):
        pick = list(rng.choice(list(SCORES), size=2, replace=False))
        s = pd.DataFrame(SCORES)[pick].std(axis=1, ddof=1).to_numpy()
        kept = {i for i in range(8) if s[i] > np.percentile(s, 50)}
        half.append(len(kept & ours) / len(kept | ours))
    assert stab.loc["k", "vs half of the systems (mean of 3)"] == pytest.approx(np.mean(half))
    assert stab.loc["k", "chance"] == pytest.approx(brute_expected_jaccard(8, 4, 4))
    hand = pd.DataFrame({"vs BLEU-filtered": [0.2, 0.4], "vs BERTS-F-filtered": [0.8, 0.9],
                         "vs half of the systems (mean of 20)": [0.5, 0.6], "chance": [0.25, 0.25]})
    assert vs.stability_findings(hand) == dict(n=2, berts_f=pytest.approx(0.85), bleu=pytest.approx(0.3),
                                               half=pytest.approx(0.55), chance=pytest.approx(0.25))
    assert len(vs.stability_table({"k": d}, [], 50, 5)) == 0
    assert vs.stability_findings(pd.DataFrame()) is None


# -- DA-BERTScore on VAT ---------------------------------------------------------------------------------

def test_da_bertscore_rows_by_hand():
    systems = ["A", "B", "C", "D", "E", "F", "G"]
    rng = np.random.default_rng(0)
    p = {s: list(np.round(rng.uniform(0.4, 0.95, 6), 2)) for s in systems}
    r = {s: list(np.round(rng.uniform(0.4, 0.95, 6), 2)) for s in systems}
    human = {s: h for s, h in zip(systems, [0.9, 0.1, 0.5, -0.2, 0.3, 0.7, -0.5])}
    f = {s: [2 * a * b / (a + b) for a, b in zip(p[s], r[s])] for s in systems}
    d = make_direction(f, human, {"VAT (ours)": [0, 2, 5], "VAT (released)": None})
    scorer = FakeScorer({s: np.float32(p[s]).tolist() for s in systems}, {s: np.float32(r[s]).tolist() for s in systems},
                        bf=0.2)
    da = vs.da_bertscore_rows({"k": d}, ["k", "absent"], scorer, 500, 9)
    assert scorer.baseline_calls == [(500, 9)]
    # one reference token per segment, the same id as the hypothesis token: with b = 0.2,
    # difficulty d_i = 1 - mean_s (r_si - b) / (1 - b) over the group's systems;
    # DA-R = d_i (r_si - b)/(1 - b), DA-P = d_i (p_si - b)/(1 - b); system score F(mean DA-P, mean DA-R)
    P = np.array([np.float32(p[s]) for s in systems], float)
    Rr = np.array([np.float32(r[s]) for s in systems], float)

    def da_scores(group, ids):
        idx = [systems.index(s) for s in group]
        resc_r, resc_p = (Rr[idx] - 0.2) / 0.8, (P[idx] - 0.2) / 0.8
        diff = 1 - resc_r.mean(axis=0)
        mp, mr = (diff * resc_p)[:, ids].mean(axis=1), (diff * resc_r)[:, ids].mean(axis=1)
        return dict(zip(group, 2 * mp * mr / (mp + mr)))

    top = ["A", "F"]  # floor(0.3 * 7) = 2 best by human score
    got = da.set_index(["systems", "subset", "metric", "stat"])["value"]
    for group, members in [("all", systems), ("top30", top)]:
        for subset, ids in [("original", list(range(6))), ("VAT (ours)", [0, 2, 5])]:
            scores = da_scores(members, ids)
            x, y = [scores[s] for s in members], [human[s] for s in members]
            assert got[(group, subset, "DA-BERTScore", "r")] == pytest.approx(sps.pearsonr(x, y).statistic, abs=1e-5)
            bs = [np.mean([f[s][i] for i in ids]) for s in members]
            assert got[(group, subset, "BERTS-F", "tau")] == pytest.approx(sps.kendalltau(bs, y).statistic)
    assert "VAT (released)" not in set(da.subset)
    # p: PERM-BOTH of DA-BERTScore against BERTS-F over the group's systems, the same seed
    for group, members in [("all", systems), ("top30", top)]:
        for subset, ids in [("original", list(range(6))), ("VAT (ours)", [0, 2, 5])]:
            rows = da[(da.systems == group) & (da.subset == subset) & (da.stat == "r")]
            bs = {s: np.mean([f[s][i] for i in ids]) for s in members}
            if group == "top30":  # two systems: too few to test
                assert rows.p.isna().all()
                continue
            want = compare_systems(bs, da_scores(members, ids), human, "pearson", systems=members,
                                   n_permutations=1000, seed=9)  # two-sided, the book's one comparison
            assert rows.p.tolist() == pytest.approx([want.p, want.p], abs=1e-6)
            assert (rows.n_systems == len(members)).all()
            assert (rows.floor == want.mc_floor).all() and want.exact_floor == 2.0 ** -(len(members) - 1)
    wide = vs.da_table(da)
    assert wide.shape == (4, 4)  # (all, top30) × (BERTS-F, DA) rows; (r, tau) × (original, VAT) columns
    hand = pd.DataFrame({"evalset": "k", "systems": "all", "stat": "r",
                         "subset": ["original", "original", "VAT (ours)", "VAT (ours)"],
                         "metric": ["BERTS-F", "DA-BERTScore"] * 2, "value": [0.5, 0.6, 0.7, 0.65]})
    found = vs.da_findings(hand)
    assert found["rows"] == [dict(evalset="k", systems="all", whole=pytest.approx(0.1), whole_p=None,
                                  vat=pytest.approx(-0.05), vat_p=None)]
    assert found["tested"] == 0
    assert vs.da_findings(hand.assign(p=[0.2, 0.2, np.nan, np.nan]))["rows"][0]["whole_p"] == pytest.approx(0.2)
    assert vs.da_findings(hand.iloc[:0])["rows"] == []
    tested = hand.assign(p=[0.2, 0.2, 0.01, 0.01])
    found = vs.da_findings(tested)
    assert (found["tested"], found["significant"], found["p_min"], found["p_max"]) == (2, 1, 0.01, 0.2)
    # Holm over the 2 tests: 0.01 × 2 = 0.02 and 0.2 × 1, made non-decreasing
    assert (found["holm_significant"], found["holm_min"]) == (1, pytest.approx(0.02))
    # p equal to alpha is not below it
    assert vs.da_findings(hand.assign(p=[0.05, 0.05, 0.5, 0.5]))["significant"] == 0
    # a group too small to reach alpha is named with its smallest attainable p
    floored = vs.da_findings(tested.assign(n_systems=4, floor=0.0625))
    assert floored["blind"] == [dict(evalset="k", systems="all", n=4)] and floored["blind_floor"] == 0.0625
    assert vs.da_findings(tested.assign(n_systems=4, floor=0.001))["blind"] == []
    assert vs.da_findings(tested.assign(p=np.nan))["tested"] == 0


# -- the conclusion ------------------------------------------------------------------------------------------

def verdict_inputs(percentiles, verdicts, ours, kendall=None, kendall_gain=0.0, subset="VAT (ours)"):
    gains = pd.DataFrame({"test_set": ["wmt17", "wmt18", "wmt18"], "ours": ours, "released": [0.1, -0.1, 0.2]})
    rand = pd.DataFrame({"subset": subset, "method": "pearson", "metric": ["BLEU", "BLEU", "R"], "evalset": ["a", "b", "c"],
                         "percentile": percentiles, "selected": 0.5, "random mean": 0.5})
    if kendall is not None:
        rand = pd.concat([rand, rand.assign(method="kendall", percentile=kendall, selected=0.5 + kendall_gain)],
                         ignore_index=True)
    boot = pd.DataFrame({"subset": subset, "verdict": verdicts})
    return gains.set_index("test_set")["ours" if subset == "VAT (ours)" else "released"], rand, boot


def test_standing_at_its_thresholds():
    S = vs.Standing
    t = vs.STANDING_THRESHOLDS
    assert (t["above_most"], t["above_typical"], t["below_typical"], t["below_most"]) == (75, 60, 40, 25)
    cases = {100: S.ABOVE_MOST, 75: S.ABOVE_MOST, 74.9: S.ABOVE_TYPICAL, 60: S.ABOVE_TYPICAL, 59.9: S.TYPICAL,
             40.1: S.TYPICAL, 40: S.BELOW_TYPICAL, 38: S.BELOW_TYPICAL, 25.1: S.BELOW_TYPICAL, 25: S.BELOW_MOST,
             0: S.BELOW_MOST, 83: S.ABOVE_MOST}
    assert {x: vs.standing(x) for x in cases} == cases


def test_band_at_its_thresholds():
    B = vs.Band
    # 156 cases: chance 3.9 a side, three times that 11.7: 12 counts, 11 does not
    assert vs.band(12, 11, 156) is B.UP and vs.band(11, 12, 156) is B.DOWN and vs.band(11, 11, 156) is B.CHANCE
    # the book's numbers: 61 above and 14 below is mostly up (61 >= 2 * 14); 45 and 39 both ways
    assert vs.band(61, 14, 156) is B.MOSTLY_UP and vs.band(45, 39, 156) is B.BOTH_WAYS
    assert vs.band(24, 12, 156) is B.MOSTLY_UP and vs.band(23, 12, 156) is B.BOTH_WAYS
    assert vs.band(12, 24, 156) is B.MOSTLY_DOWN
    # few cases: at least MIN_BAND_CASES a side, however small chance's share
    assert vs.band(3, 3, 9) is B.BOTH_WAYS and vs.band(2, 2, 8) is B.CHANCE and vs.MIN_BAND_CASES == 3


def test_verdicts_and_the_claim():
    C = vs.Claim
    v = vs.set_verdict("VAT (ours)", *verdict_inputs([99.0, 80.0, 90.0], ["VAT better", "VAT better", "undecided"],
                                                     [0.3, 0.3, -0.2], kendall=[90.0, 80.0, 85.0]))
    assert (v.median, v.standing, v.above, v.below, v.cases, v.directions) == (90.0, vs.Standing.ABOVE_MOST, 1, 0, 3, 3)
    assert (v.better, v.worse, v.undecided, v.n_boot) == (2, 0, 1, 3)
    assert v.table2_mean == pytest.approx(0.4 / 3)
    assert v.table2_per_set == [dict(test_set="WMT17", change=pytest.approx(0.3)),
                                dict(test_set="WMT18", change=pytest.approx(0.05))]
    assert v.kendall["median"] == 85.0 and v.claim is C.SUPPORTED
    # the same in Pearson r; Kendall's tau near random in the median but ahead on average and in the tails: mixed
    v = vs.set_verdict("VAT (ours)", *verdict_inputs([99.0, 80.0, 90.0], ["VAT better", "VAT better", "undecided"],
                                                     [0.3, 0.3, -0.2], kendall=[98.0, 50.0, 40.0], kendall_gain=0.02))
    assert v.kendall["gain"] == pytest.approx(0.02) and (v.kendall["above"], v.kendall["below"]) == (1, 0)
    assert v.kendall["median_gain"] == pytest.approx(0.02) and v.claim is C.SUPPORTED_R_TAU_MIXED
    # ... but not when one outlying direction carries the mean gain and the median gain is not positive
    gain, rand, boot = verdict_inputs([99.0, 80.0, 90.0], ["VAT better", "VAT better", "undecided"], [0.3, 0.3, -0.2],
                                      kendall=[98.0, 50.0, 40.0])
    rand.loc[rand.method == "kendall", "selected"] = [0.7, 0.49, 0.49]
    v = vs.set_verdict("VAT (ours)", gain, rand, boot)
    assert v.kendall["gain"] == pytest.approx(0.06) and v.kendall["median_gain"] == pytest.approx(-0.01)
    assert v.claim is C.SUPPORTED_R_ONLY
    # ... and without that: for Pearson's r only
    v = vs.set_verdict("VAT (ours)", *verdict_inputs([99.0, 80.0, 90.0], ["VAT better", "VAT better", "undecided"],
                                                     [0.3, 0.3, -0.2], kendall=[60.0, 50.0, 1.0], kendall_gain=-0.01))
    assert v.claim is C.SUPPORTED_R_ONLY
    # a median of 75 is above most, but not with more bootstrap "worse" than "better"
    v = vs.set_verdict("VAT (ours)", *verdict_inputs([75.0, 75.0, 75.0], ["VAT worse", "VAT worse", "VAT better"],
                                                     [0.3, 0.3, -0.2]))
    assert v.standing is vs.Standing.ABOVE_MOST and v.claim is C.NOT_SUPPORTED
    # the mean change below 0.01 in size, up on one test set and down on the other (each by at least 0.005)
    v = vs.set_verdict("VAT (ours)", *verdict_inputs([99.0, 1.0, 50.0], ["undecided"] * 3, [0.25, 0.25, -0.485]))
    assert v.table2_mean == pytest.approx(0.005) and (v.rising, v.falling) == (["WMT17"], ["WMT18"])
    assert v.claim is C.NOT_SUPPORTED_SPLIT and v.standing is vs.Standing.TYPICAL
    # every test set up by at least 0.005 but the mean below 0.01: about the same, with no split
    v = vs.set_verdict("VAT (ours)", *verdict_inputs([50.0, 40.0, 20.0], ["undecided"] * 3, [0.006, 0.006, 0.007]))
    assert v.claim is C.NOT_SUPPORTED_SAME and v.falling == []
    # exactly 0.005 counts as rising; the mean exactly 0.01 is not "about the same"
    v = vs.set_verdict("VAT (ours)", *verdict_inputs([50.0, 40.0, 20.0], ["undecided"] * 3, [0.005, -0.005, -0.005]))
    assert (v.rising, v.falling, v.claim) == (["WMT17"], ["WMT18"], C.NOT_SUPPORTED_SPLIT)
    v = vs.set_verdict("VAT (ours)", *verdict_inputs([50.0, 40.0, 20.0], ["undecided"] * 3, [0.01, 0.01, 0.01]))
    assert v.claim is C.NOT_SUPPORTED
    # a metric below most random subsets while the pooled median is not: named, with its bootstrap "worse" count
    gain, rand, _ = verdict_inputs([50.0, 40.0, 20.0], ["undecided"] * 3, [0.0, 0.0, 0.0])
    rand = rand.assign(metric=["BLEU", "R", "R"], percentile=[50.0, 10.0, 20.0])
    rand = pd.concat([rand, rand.assign(percentile=[60.0, 5.0, 40.0], evalset=["d", "e", "f"])])
    boot = pd.DataFrame({"subset": "VAT (ours)", "metric": ["R", "R", "R", "BLEU"],
                         "verdict": ["VAT worse", "VAT worse", "undecided", "VAT worse"]})
    v = vs.set_verdict("VAT (ours)", gain, rand, boot)
    assert v.standing is vs.Standing.BELOW_TYPICAL
    assert [(x.metric, x.median, x.worse, x.n) for x in v.hidden] == [("R", 15.0, 2, 3)]
    # verdicts: one per kept set with random and bootstrap rows, ours first
    g, r_ours, b_ours = verdict_inputs([10.0, 20.0, 1.0], ["VAT worse"] * 3, [0.0, 0.0, -0.5])
    _, r_rel, b_rel = verdict_inputs([80.0, 90.0, 95.0], ["VAT better", "undecided", "undecided"], [0.0, 0.0, -0.5],
                                     subset="VAT (released)")
    gains = pd.DataFrame({"test_set": ["wmt17", "wmt18", "wmt18"], "ours": [0.0, 0.0, -0.5], "released": [0.1, -0.1, 0.2]})
    ours, rel = vs.verdicts(gains, pd.concat([r_ours, r_rel]), pd.concat([b_ours, b_rel]))
    assert (ours.name, ours.standing, ours.claim) == ("our sets", vs.Standing.BELOW_MOST, C.NOT_SUPPORTED)
    assert (rel.name, rel.median, rel.claim) == ("the released sets", 90.0, C.SUPPORTED)
    assert rel.table2_mean == pytest.approx(0.2 / 3)
    # as the page gets it: enums as their values
    from mtbook.findings import as_data
    data = as_data(rel)
    assert data["standing"] == "above most" and data["band"] == "chance" and data["claim"] == "supported"


def test_share_and_difficulty_checks_against_the_paper():
    df = pd.DataFrame({"evalset": ["t de-en", "t de-en", "t en-de", "t en-de", "t en-de"],
                       "subset": ["VAT (ours)", "VAT (released)", "VAT (ours)", "VAT (released)", "VAT (ours)"],
                       "group": ["Short", "Short", "Short", "Short", "Long"],
                       "change (pp)": [2.0, -1.0, 3.0, 0.0, -9.0]})
    # short sentences up, except in de-en (down); a change of 0 agrees with neither direction: a tie
    assert vs.share_check(df, "Short", +1, {"de-en": -1}) == dict(
        agree=["t de-en (released)", "t en-de (ours)"], general=["t de-en (ours)"], exception_lps=["de-en"],
        against=[], same=["t en-de (released)"])
    assert vs.share_check(df, "Short", +1) == dict(agree=["t de-en (ours)", "t en-de (ours)"], general=[],
                                                   exception_lps=[], against=["t de-en (released)"],
                                                   same=["t en-de (released)"])
    assert vs.share_check(df, "Long", -1)["agree"] == ["t en-de (ours)"]
    assert vs.share_check(df, "Long", +1)["against"] == ["t en-de (ours)"]
    assert vs.share_check(df, "NNP", +1) == dict(agree=[], general=[], exception_lps=[], against=[], same=[])
    assert vs.share_check(df.iloc[:0], "NNP", +1)["agree"] == []
    # a change shown as +0.0 pp (one decimal) is a tie, not a direction; one of 0.06 shows as +0.1, a direction
    tiny = df.assign(**{"change (pp)": [0.04, -0.04, 0.06, -0.06, 0.0]})
    assert vs.share_check(tiny, "Short", +1) == dict(agree=["t en-de (ours)"], general=[], exception_lps=[],
                                                     against=["t en-de (released)"],
                                                     same=["t de-en (ours)", "t de-en (released)"])
    # shown as shares instead (10.0% -> 10.0%, though the change is 0.08 pp): a tie too
    shares = pd.DataFrame({"evalset": ["t de-en"] * 2, "subset": ["VAT (ours)", "VAT (released)"], "group": "NNP",
                           "all %": [10.01, 10.01], "kept %": [10.04, 10.2], "change (pp)": [0.03, 0.19]})
    assert vs.share_check(shares, "NNP", +1, shares=True) == dict(agree=["t de-en (released)"], general=[],
                                                                  exception_lps=[], against=[],
                                                                  same=["t de-en (ours)"])
    scores = {"A": list(np.arange(10.0)), "B": list(np.arange(10.0) + 1)}  # hardest segment 0, easiest 9
    middle = make_direction(scores, {"A": 1, "B": 0}, {"VAT (ours)": [2, 3, 4, 5], "VAT (released)": None})
    ends = make_direction(scores, {"A": 1, "B": 0}, {"VAT (ours)": [0, 9, 4], "VAT (released)": None})
    assert [(d["as_paper"], d["reading"]) for d in vs.difficulty_findings({"m": middle, "e": ends}, ["m", "e"])] == [
        (True, "as paper"), (False, "against")]


def test_difficulty_check_compares_the_percentages_as_shown(monkeypatch):
    scores = {"A": list(np.arange(10.0)), "B": list(np.arange(10.0) + 1)}
    d = make_direction(scores, {"A": 1, "B": 0}, {"VAT (ours)": [2, 3], "VAT (released)": None})
    # 40.7% of the middle against 40.6% of the hardest reads as 41% against 41%: a tie, neither "more" nor "less"
    monkeypatch.setattr(vs, "kept_by_difficulty", lambda *_: (40.7, 40.6, 10.0))
    [x] = vs.difficulty_findings({"k": d}, ["k"])
    assert (x["as_paper"], x["reading"], x["vs_hardest"], x["vs_easiest"]) == (False, "tie", "same", "more")
    monkeypatch.setattr(vs, "kept_by_difficulty", lambda *_: (41.6, 40.5, 10.0))
    [x] = vs.difficulty_findings({"k": d}, ["k"])
    assert x["as_paper"] and x["reading"] == "as paper"
    # 41.4% against 41.6%: 41% against 42%, less often than the hardest
    monkeypatch.setattr(vs, "kept_by_difficulty", lambda *_: (41.4, 41.6, 41.4))
    [x] = vs.difficulty_findings({"k": d}, ["k"])
    assert (x["reading"], x["vs_hardest"], x["vs_easiest"]) == ("against", "less", "same")
