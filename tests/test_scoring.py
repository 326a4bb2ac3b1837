import numpy as np
import pytest

from mtlib.data import load_evalset
from mtlib.metrics import BLEU, TER
from mtlib.scoring import score_systems, stats_key

from conftest import SYSTEMS


def test_scores_and_cache(tiny_mtme, tmp_path, monkeypatch):
    evs = load_evalset("toy", "de-en", root=tiny_mtme)
    cache = tmp_path / "c"
    first = score_systems(evs, BLEU(), cache=cache)
    assert set(first) == set(SYSTEMS) and first["sysA"].shape[0] == 4
    assert first.system_scores()["sysA"] == pytest.approx(100.0)
    assert first.signature == f"{BLEU().signature}|refs:ref"
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
