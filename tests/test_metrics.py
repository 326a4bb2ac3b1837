import numpy as np
import pytest
import sacrebleu

from mtlib.metrics import BLEU, METEOR, TER, ChrF, get_metric
from mtlib.wordnet import _lexnames_text, wordnet_available

HYPS = ["The cat sat on the mat.", "A dog ran quickly!", "", "It is raining today, says Müller."]
REFS = [["The cat sat on a mat.", "The dog ran fast!", "Nothing here.", "It rains today, Müller says."]]
REFS2 = REFS + [["A cat was sitting on the mat.", "A dog ran quickly.", "Empty.", "Today it is raining."]]


@pytest.mark.parametrize("ours, theirs", [
    (BLEU(), sacrebleu.metrics.BLEU()),
    (BLEU(tokenize="intl"), sacrebleu.metrics.BLEU(tokenize="intl")),
    (ChrF(), sacrebleu.metrics.CHRF()),
    (ChrF(word_order=2), sacrebleu.metrics.CHRF(word_order=2)),
    (TER(), sacrebleu.metrics.TER()),
])
@pytest.mark.parametrize("refs", [REFS, REFS2], ids=["1ref", "2refs"])
def test_corpus_parity_with_sacrebleu(ours, theirs, refs):
    assert ours.corpus_score(HYPS, refs) == pytest.approx(theirs.corpus_score(HYPS, refs).score, abs=1e-12)


def test_sentence_bleu_parity():
    got = BLEU().sentence_scores(HYPS, REFS)
    want = [sacrebleu.sentence_bleu(h, [REFS[0][i]]).score for i, h in enumerate(HYPS)]
    np.testing.assert_allclose(got, want, atol=1e-12)


@pytest.mark.parametrize("hyp, ref, want", [
    ("a b c d", "a b c d", 0.0),          # identical: no edit
    ("a b c", "a b d", 100 / 3),          # one substitution over 3 reference words
    ("a b", "a b c d", 50.0),             # two deletions over 4
])
def test_ter_hand_values(hyp, ref, want):
    assert TER().corpus_score([hyp], [[ref]]) == pytest.approx(want)


def test_bleu_identical_is_100():
    assert BLEU().corpus_score(["the cat sat on the mat"], [["the cat sat on the mat"]]) == pytest.approx(100)


def test_signatures():
    v = "mtlib:" + __import__("mtlib").__version__
    assert BLEU().signature == f"BLEU|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0|n:4|{v}"
    assert BLEU(tokenize="intl").signature == f"BLEU|case:mixed|eff:no|tok:intl|smooth:exp|version:2.6.0|n:4|{v}"
    assert TER().signature == f"TER|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0|{v}"
    assert ChrF().signature == f"chrF|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0|beta:2|{v}"
    assert METEOR().signature.startswith("METEOR|wordnet:3.0|tok:13a-lc|alpha:0.9|beta:3.0|gamma:0.5|")


def test_registry():
    assert isinstance(get_metric("bleu"), BLEU) and isinstance(get_metric("TER"), TER)
    assert get_metric("BLEU", tokenize="intl").signature.count("tok:intl") == 1
    with pytest.raises(ValueError, match=r"unknown metric 'COMET'; valid: \['BLEU', 'Compositionality', 'METEOR', 'Otem', 'SCM', 'SCM-contextual', 'TER', 'Utem', 'WMD', 'WMD-contextual', 'chrF'\]"):
        get_metric("COMET")


@pytest.mark.parametrize("hyps, refs, err, message", [
    (["a", "b"], [["a"]], ValueError, "reference stream 0 has 1 lines, hypotheses have 2"),
    ([], [[]], ValueError, "no hypotheses"),
    (["a"], ["a"], TypeError, "refs\\[0\\] is a string"),
    ("a", [["a"]], TypeError, "hyps must be a sequence"),
    (["a"], [], ValueError, "non-empty list of reference streams"),
])
def test_bad_input(hyps, refs, err, message):
    with pytest.raises(err, match=message):
        BLEU().segment_stats(hyps, refs)


def test_stats_reaggregate_to_corpus_score():
    m = ChrF()
    st = m.segment_stats(HYPS, REFS)
    assert st.shape[0] == len(HYPS)
    assert m.score_from_stats(st[:2].sum(0)) == pytest.approx(m.corpus_score(HYPS[:2], [REFS[0][:2]]))
    np.testing.assert_allclose(m.scores_from_stats(st[None])[0], m.sentence_scores(HYPS, REFS))


def test_lexnames_table():
    lines = _lexnames_text().splitlines()
    # lexnames(5WN): 45 files, 00 adj.all (3) ... 44 adj.ppl (3); nouns are 1, verbs 2.
    assert len(lines) == 45
    assert lines[0] == "00\tadj.all\t3" and lines[3] == "03\tnoun.Tops\t1"
    assert lines[29] == "29\tverb.body\t2" and lines[44] == "44\tadj.ppl\t3"


@pytest.mark.skipif(not wordnet_available(), reason="WordNet not installed (apt-get install wordnet-base wordnet-sense-index)")
def test_meteor_parity_with_nltk_and_hand_value():
    from nltk.corpus import wordnet
    from nltk.translate.meteor_score import meteor_score

    m = METEOR()
    # Identical 4-token sentence: P = R = 1, one chunk: penalty 0.5 * (1/4)^3, score 1 - 0.0078125.
    assert m.corpus_score(["a b c d"], [["a b c d"]]) == pytest.approx(1 - 0.5 * (1 / 4) ** 3)
    got = m.sentence_scores(HYPS, REFS2)
    tok = sacrebleu.tokenizers.tokenizer_13a.Tokenizer13a()
    want = [meteor_score([tok(r[i].lower()).split() for r in REFS2], tok(h.lower()).split(), wordnet=wordnet)
            for i, h in enumerate(HYPS)]
    np.testing.assert_allclose(got, want)
    assert m.corpus_score(HYPS, REFS2) == pytest.approx(np.mean(want))


def test_sentence_signature_is_the_one_sentence_bleu_gives():
    theirs = sacrebleu.metrics.BLEU(effective_order=True)
    theirs.sentence_score(HYPS[0], [REFS[0][0]])
    sacre = str(theirs.get_signature()).replace("nrefs:1|", "")
    assert "eff:yes" in sacre
    for ours in (BLEU(), BLEU(tokenize="zh", lowercase=True)):
        assert ours.sentence_signature == ours.signature.replace("|eff:no|", "|eff:yes|")
    assert BLEU().sentence_signature.startswith(f"BLEU|{sacre}|n:4|mtlib:")
    for m in (ChrF(), TER()):  # one definition: the same signature
        assert m.sentence_signature == m.signature


@pytest.mark.parametrize("kwargs, message", [
    ({"alpha": 5}, "alpha must be <= 1"), ({"gamma": 1.5}, "gamma must be <= 1"),
    ({"alpha": -0.1}, "alpha must be >= 0"), ({"beta": -1}, "beta must be >= 0"),
    ({"alpha": float("nan")}, "alpha must be a number"),
])
def test_meteor_parameters_stay_where_the_formula_is_a_score(kwargs, message):
    # NLTK's formula with alpha = 5 gives negative scores; no WordNet is needed to refuse it.
    with pytest.raises(ValueError, match=message):
        METEOR(**kwargs)
    with pytest.raises(ValueError, match=message):
        get_metric("METEOR", **kwargs)


def test_meteor_bounds_are_inclusive():
    for alpha, beta, gamma in ((0, 0, 0), (1, 10, 1), (1.0, 3, 0.5)):
        assert METEOR(alpha=alpha, beta=beta, gamma=gamma).alpha == alpha


@pytest.mark.parametrize("name", ["Otem", "Utem"])
@pytest.mark.parametrize("order, err", [("4", TypeError), (2.5, TypeError), (True, TypeError), (None, TypeError),
                                        (0, ValueError), (-1, ValueError)])
def test_otem_utem_order_type_and_value_errors(name, order, err):
    # A wrong type is a TypeError as for every other option; a value below 1 stays a ValueError.
    with pytest.raises(err, match=f"{name}: n-gram order must be an integer >= 1"):
        get_metric(name, order=order)


def test_check_option_maximum():
    from mtlib.metrics.base import check_option
    assert check_option("M", "x", 1, (int, float), minimum=0, maximum=1) == 1
    with pytest.raises(ValueError, match="M: option x must be <= 1, got 1.01"):
        check_option("M", "x", 1.01, (int, float), maximum=1)
