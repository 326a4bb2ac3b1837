import numpy as np
import pytest
import sacrebleu

from mtlib.data import load_evalset
from mtlib.metrics import BLEU, TER, ChrF
from mtlib.scoring import SystemStats, score_systems, stats_key

from conftest import SYSTEMS


def test_scores_and_cache(tiny_mtme, tmp_path, monkeypatch):
    evs = load_evalset("toy", "de-en", root=tiny_mtme)
    cache = tmp_path / "c"
    first = score_systems(evs, BLEU(), cache=cache)
    assert set(first) == set(SYSTEMS) and first["sysA"].shape[0] == 4
    assert first.system_scores()["sysA"] == pytest.approx(100.0)
    assert first.signature == f"{BLEU().signature}|nrefs:1|refs:ref"
    assert first.signature.startswith("BLEU|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0|n:4|mtlib:")

    metric = BLEU()
    monkeypatch.setattr(metric, "segment_stats", lambda *a: pytest.fail("cache miss on identical input"))
    again = score_systems(evs, metric, cache=cache)
    for s in SYSTEMS:
        np.testing.assert_array_equal(again[s], first[s])


def test_cache_key_is_exact(tiny_mtme):
    refs = [["a b"]]
    assert stats_key(BLEU(), ["a b"], refs) != stats_key(BLEU(), ["a b "], refs)
    assert stats_key(BLEU(), ["a b"], refs) != stats_key(BLEU(tokenize="intl"), ["a b"], refs)
    assert stats_key(BLEU(), ["a", "b"], [["a", "b"]]) != stats_key(BLEU(), ["a\x00b"], [["a\x00b"]])


def test_multi_reference_and_errors(tiny_mtme):
    evs = load_evalset("toy", "de-en", root=tiny_mtme)
    two = score_systems(evs, TER(), ref_names=["ref", "refB"], cache=False)
    assert two.signature.endswith("refs:ref+refB")
    assert two.system_scores()["sysC"] <= score_systems(evs, TER(), cache=False).system_scores()["sysC"]
    with pytest.raises(ValueError, match=r"unknown systems \['nope'\]"):
        score_systems(evs, TER(), systems=["nope"], cache=False)
    with pytest.raises(ValueError, match=r"unknown references \['refZ'\]"):
        score_systems(evs, TER(), ref_names=["refZ"], cache=False)


# Short segments: the corpus formula on one segment gives BLEU 0 where sentence_bleu (effective
# order) does not; chrF and TER have one definition, which must agree with sacrebleu's too.
SEG_HYPS = ["a b", "the cat sat on the mat", "ok", "", "The quick brown fox.", "x"]
SEG_REFS = [["a b c", "the cat sat on a mat", "ok", "something here", "A quick brown fox jumps.", ""],
            ["a b", "a cat sat on the mat", "okay", "", "The quick fox.", "x y"]]


@pytest.mark.parametrize("metric, sentence", [
    (BLEU(), sacrebleu.sentence_bleu), (ChrF(), sacrebleu.sentence_chrf), (TER(), sacrebleu.sentence_ter),
    (BLEU(lowercase=True, smooth_method="floor"), lambda h, r: sacrebleu.sentence_bleu(
        h, r, lowercase=True, smooth_method="floor")),
    (ChrF(word_order=2), lambda h, r: sacrebleu.sentence_chrf(h, r, word_order=2)),
], ids=["BLEU", "chrF", "TER", "BLEU-lc-floor", "chrF++"])
@pytest.mark.parametrize("n_refs", [1, 2])
def test_segment_scores_are_sacrebleus_sentence_scores(metric, sentence, n_refs):
    refs = SEG_REFS[:n_refs]
    stats = SystemStats(metric, ["ref"], {"s": metric.segment_stats(SEG_HYPS, refs)})
    want = [sentence(h, [r[i] for r in refs]).score for i, h in enumerate(SEG_HYPS)]
    np.testing.assert_allclose(stats.segment_scores()["s"], want, atol=1e-9)


def test_short_segments_are_not_scored_by_the_corpus_formula():
    # The issue's case: the corpus formula gave BLEU 0 to the two short segments.
    hyps, refs = ["a b", "the cat sat on the mat", "ok"], [["a b c", "the cat sat on a mat", "ok"]]
    stats = SystemStats(BLEU(), ["ref"], {"s": BLEU().segment_stats(hyps, refs)})
    got = stats.segment_scores()["s"]
    assert BLEU().scores_from_stats(stats["s"])[[0, 2]].tolist() == [0.0, 0.0]  # the old numbers
    assert got[0] > 0 and got[2] == pytest.approx(100)
    np.testing.assert_allclose(got, [sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(hyps, refs[0])])


def test_sentence_signature_says_what_was_computed(tiny_mtme):
    evs = load_evalset("toy", "de-en", root=tiny_mtme)
    bleu = score_systems(evs, BLEU(), cache=False)
    assert "|eff:no|" in bleu.signature and "|eff:yes|" in bleu.sentence_signature
    assert bleu.sentence_signature == bleu.signature.replace("|eff:no|", "|eff:yes|")
    chrf = score_systems(evs, ChrF(), cache=False)
    assert chrf.sentence_signature == chrf.signature
