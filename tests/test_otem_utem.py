import math

import numpy as np

import pytest

from mtlib.metrics.otem_utem import Otem, Utem, count_over, count_under, ngram_counts
# The paper's Section 1 example (Yang et al. 2018), lowercased as printed.
from mtbook.paper_results import OTEM_PEACE_CAND1 as CAND1, OTEM_PEACE_CAND2 as CAND2, OTEM_PEACE_REFS as REFS


def _per_ref_counts(cand, n=1):
    c = ngram_counts(cand.split(), n)
    return c, [ngram_counts(r.split(), n) for r in REFS]


def test_paper_peace_example():
    cand, refs = _per_ref_counts(CAND1)
    assert cand[("peace",)] == 2
    assert min(count_over(cand[("peace",)], r[("peace",)]) for r in refs) == 1  # "Count_over(peace) = 1"
    cand, refs = _per_ref_counts(CAND2)
    assert min(count_under(cand[("peace",)], r[("peace",)]) for r in refs) == 1  # "Count_under(peace) = 1"
    # Candidate 1 over-translates, Candidate 2 under-translates: the metrics see it.
    refs_streams = [[r] for r in REFS]
    otem = Otem(order=1, tokenize="none")
    utem = Utem(order=1, tokenize="none")
    assert otem.corpus_score([CAND1], refs_streams) > otem.corpus_score([CAND2], refs_streams)
    assert utem.corpus_score([CAND2], refs_streams) > utem.corpus_score([CAND1], refs_streams)


@pytest.mark.parametrize("cand, ref, over, under", [
    (3, 1, 2, 0),   # eq. (3) case 1 / eq. (6) otherwise
    (2, 0, 1, 0),   # eq. (3) case 2: absent from the reference, repeated
    (1, 0, 0, 0),   # absent once: not over-matched
    (1, 3, 0, 2),   # eq. (6): missed twice
    (0, 1, 0, 1),
])
def test_counts(cand, ref, over, under):
    assert count_over(cand, ref) == over and count_under(cand, ref) == under


def test_hand_computed_corpus_values():
    # cand "a a b" vs ref "a b c": unigrams over = 1 ("a" twice vs once) of 3; c = r = 3 -> LP = e^0.
    assert Otem(order=1, tokenize="none").corpus_score(["a a b"], [["a b c"]]) == pytest.approx(1 / 3)
    # Utem: under = 1 ("c" missed) of 3 reference unigrams; c = r -> LP = 1.
    assert Utem(order=1, tokenize="none").corpus_score(["a a b"], [["a b c"]]) == pytest.approx(1 / 3)
    # Short candidate "a" vs "a b c d": Utem mp1 = 3/4, LP = exp(1 - 1/4).
    assert Utem(order=1, tokenize="none").corpus_score(["a"], [["a b c d"]]) == pytest.approx(
        math.exp(0.75) * 0.75)
    # Long candidate "a a a a" vs "a b": Otem mp1 = 3/4, LP = exp(1 - 2/4).
    assert Otem(order=1, tokenize="none").corpus_score(["a a a a"], [["a b"]]) == pytest.approx(
        math.exp(0.5) * 0.75)


def test_multi_reference_rules():
    # Otem: "a" twice is fine for the second reference (which has it twice): minimum over refs = 0.
    assert Otem(order=1, tokenize="none").corpus_score(["a a"], [["a"], ["a a"]]) == 0.0
    # Utem: "c" is missed against ref 1 but ref 2 lacks it: minimum under-count 0; "b" missed in both.
    stats = Utem(order=1, tokenize="none").segment_stats(["a"], [["a b c"], ["a b"]])
    assert list(stats[0]) == [1, 2, 1, 3]  # c, closest r, under_1, max ref counts (a, b, c)


def test_zero_proportion_and_empty_hypothesis():
    assert Otem(order=2, tokenize="none").corpus_score(["a b c"], [["a b c"]]) == 0.0  # nothing over-matched
    assert Utem(order=1, tokenize="none").corpus_score([""], [["a b"]]) == pytest.approx(math.e)  # all missed, c = 0


@pytest.mark.parametrize("order, error", [(0, ValueError), (-1, ValueError), (1.5, TypeError), (True, TypeError)])
def test_bad_order(order, error):
    # A wrong type is a TypeError, as for every other option; a value below 1 a ValueError.
    with pytest.raises(error, match="order must be an integer >= 1"):
        Otem(order=order)


def test_bad_input_and_signature():
    with pytest.raises(ValueError, match="reference stream 0 has 1 lines, hypotheses have 2"):
        Utem().segment_stats(["a", "b"], [["a"]])
    with pytest.raises(ValueError, match="non-empty list of reference streams"):
        Otem().segment_stats(["a"], [])
    assert Otem().signature.startswith("Otem|n:2|tok:13a|case:mixed|weights:uniform|multiref:paper|mtlib:")
    assert Utem(tokenize="none", lowercase=True).signature.startswith("Utem|n:4|tok:none|case:lc")


# The authors' test file (DeepLearnXMU/Otem-Utem test.py): one reference, whitespace tokens;
# its README reports OTEM(n=1) 0 / .1242 / 0 and UTEM(n=4) .2627 / 0 / .2977.
TOY_REF = "You should learn to use the computer ."
TOY = ["You should learn to use the car .", "You should learn to use the the computer .",
       "You should learn to use the ."]


@pytest.mark.parametrize("variant", ["paper", "authors"])
@pytest.mark.parametrize("i, otem1, utem4", [(0, 0.0, 0.2627), (1, 0.1242, 0.0), (2, 0.0, 0.2977)])
def test_authors_toy_values(variant, i, otem1, utem4):
    refs = [[TOY_REF]]
    assert Otem(order=1, tokenize="none", variant=variant).corpus_score([TOY[i]], refs) == pytest.approx(otem1, abs=5e-5)
    assert Utem(order=4, tokenize="none", variant=variant).corpus_score([TOY[i]], refs) == pytest.approx(utem4, abs=5e-5)


def test_variants_differ_only_with_several_references():
    # "a" twice: over-matched against ref 1 ("a" once) but not ref 2 ("a a").
    refs = [["a b"], ["a a"]]
    assert Otem(order=1, tokenize="none").segment_stats(["a a"], refs)[0, 2] == 0          # paper: min incl. 0
    assert Otem(order=1, tokenize="none", variant="authors").segment_stats(["a a"], refs)[0, 2] == 1
    # Utem per order: ref 1 misses {b}, ref 2 misses {c, d}: per n-gram min = 0, per order min = 1.
    refs = [["a b"], ["a c d"]]
    paper = Utem(order=1, tokenize="none").segment_stats(["a"], refs)[0]
    authors = Utem(order=1, tokenize="none", variant="authors").segment_stats(["a"], refs)[0]
    assert (paper[2], paper[3]) == (0, 4) and (authors[2], authors[3]) == (1, 3)
    with pytest.raises(ValueError, match="option variant='x' is not valid"):
        Utem(variant="x")


def test_proportions():
    m = Otem(order=2, tokenize="none")
    st = m.segment_stats(["a a b", ""], [["a b c", "x"]]).sum(axis=0)
    # unigrams: 1 over-matched of 3; bigrams ("a a", "a b"): none over-matched of 2
    np.testing.assert_allclose(m.proportions(st), [1 / 3, 0.0])
    assert np.isnan(Utem(order=2, tokenize="none").proportions(np.array([0, 0, 0, 0, 0, 0.0]))).all()


# mtlib.metrics.otem_utem tokenises with sacreBLEU's private _get_tokenizer (there is no public
# name -> tokenizer lookup). If sacreBLEU renames it or changes what it returns, these fail.
TOKENIZER_TEXTS = ["„Ich stehe genau hier“, sagte sie — 1.000 Soldaten (im Einsatz)!",
                   "我爱北京天安门。Hello, world: it's 3.5% more."]


@pytest.mark.parametrize("name", ["13a", "intl", "zh", "none"])
def test_private_sacrebleu_tokenizer_lookup_matches_bleu(name):
    from sacrebleu.metrics import BLEU as SacreBLEU
    from sacrebleu.metrics.bleu import _get_tokenizer

    public = SacreBLEU(tokenize=name).tokenizer  # what BLEU itself tokenises with
    private = _get_tokenizer(name)()
    assert type(private) is type(public)
    assert private.signature() == public.signature()
    for text in TOKENIZER_TEXTS:
        assert private(text) == public(text)
        # Otem's candidate length (column 0) is the number of BLEU tokens.
        assert Otem(order=1, tokenize=name).segment_stats([text], [[text]])[0, 0] == len(public(text).split())
    assert f"|tok:{public.signature()}|" in Utem(tokenize=name).signature


def test_tokenizer_lookup_classes_are_the_public_ones():
    from sacrebleu.metrics.bleu import _get_tokenizer
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
    from sacrebleu.tokenizers.tokenizer_intl import TokenizerV14International
    from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

    assert _get_tokenizer("13a") is Tokenizer13a
    assert _get_tokenizer("intl") is TokenizerV14International
    assert _get_tokenizer("zh") is TokenizerZh
    # the three really differ on these texts, so the comparisons above can fail
    tokens = {name: [cls()(t) for t in TOKENIZER_TEXTS]
              for name, cls in [("13a", Tokenizer13a), ("intl", TokenizerV14International), ("zh", TokenizerZh)]}
    assert tokens["13a"] != tokens["intl"] and tokens["13a"] != tokens["zh"]
