"""Issue 35: every output of the `mtlib` command is whole or absent. A full disk (mocked: writes
fail with ENOSPC part-way; SQLite: a page limit) leaves nothing partial, says so naming the path,
and the rerun is not refused; Ctrl-C is one line; nonsense options are refused."""

import builtins
import errno
import io
import os
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from mtlib.embeddings.matchstore import MatchStore

from conftest import REF, write_lines

NOTHING_LEFT = "was not written, nothing partial was left"


def _mtlib(*argv):
    from mtlib.cli import main
    return main([str(a) for a in argv])


@pytest.fixture
def full_disk(monkeypatch):
    """``full_disk(folder, budget)``: files opened for writing under ``folder`` get ``budget``
    characters in all; the write that passes it writes what fits, then fails as on a full disk."""
    real_open = builtins.open

    def fill(folder: Path, budget: int):
        left = [budget]

        class Disk:
            def __init__(self, f):
                self._f = f

            def write(self, text):
                if len(text) > left[0]:
                    self._f.write(text[:left[0]])
                    self._f.flush()
                    left[0] = 0
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                left[0] -= len(text)
                return self._f.write(text)

            def __getattr__(self, name):
                return getattr(self._f, name)

            def __iter__(self):
                return iter(self._f)

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self._f.close()

        def fake_open(file, mode="r", *args, **kwargs):
            f = real_open(file, mode, *args, **kwargs)
            writing = isinstance(file, (str, os.PathLike)) and any(c in mode for c in "wxa")
            return Disk(f) if writing and Path(file).resolve().is_relative_to(folder.resolve()) else f

        monkeypatch.setattr(builtins, "open", fake_open)
        monkeypatch.setattr(io, "open", fake_open)  # Path.open, Path.write_text
    return fill


def _score(tiny_mtme, tmp_path, *extra):
    return _mtlib("score", "--test-set", "toy", "--mtme", tiny_mtme, "--metric", "BLEU", "--cache", tmp_path / "c",
                  "--no-progress", *extra)


# -- mtlib score --out ------------------------------------------------------------------------
def test_score_out_on_a_full_disk_leaves_nothing_and_the_rerun_works(tiny_mtme, tmp_path, capsys, full_disk):
    disk = tmp_path / "disk"
    disk.mkdir()
    out = disk / "scores.tsv"
    full_disk(disk, 100)  # the header and part of the first row
    assert _score(tiny_mtme, tmp_path, "--out", out) == 2
    assert list(disk.iterdir()) == []  # was: a cut-off TSV; and no temporary file either
    assert f"error: No space left on device; {out} {NOTHING_LEFT}" in capsys.readouterr().err
    full_disk(disk, 10 ** 6)
    assert _score(tiny_mtme, tmp_path, "--out", out) == 0  # was: "… exists; remove it"
    assert len(out.read_text().splitlines()) == 4


def test_score_out_never_overwrites_a_file_made_meanwhile(tiny_mtme, tmp_path, capsys, monkeypatch):
    out = tmp_path / "scores.tsv"
    import mtlib.scoring
    real = mtlib.scoring.score_systems

    def and_someone_writes_out(*args, **kwargs):
        if not out.exists():
            out.write_text("theirs\n")
        return real(*args, **kwargs)
    monkeypatch.setattr(mtlib.scoring, "score_systems", and_someone_writes_out)
    assert _score(tiny_mtme, tmp_path, "--out", out) == 2
    assert f"File exists; {out} {NOTHING_LEFT}" in capsys.readouterr().err
    assert out.read_text() == "theirs\n" and not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_more_shards_than_units_write_the_header(tiny_mtme, tmp_path, capsys):
    out = tmp_path / "s5.tsv"
    assert _score(tiny_mtme, tmp_path, "--shard", "5/6", "--out", out) == 0  # toy has 3 units
    assert out.read_text() == "test_set\tlp\tsystem\tsegments\tBLEU\tsignature\n"  # was "\n"
    assert _score(tiny_mtme, tmp_path, "--shard", "5/6") == 0
    assert capsys.readouterr().out == "test_set\tlp\tsystem\tsegments\tBLEU\tsignature\n"


@pytest.mark.parametrize("option, value", [("--chunk-pairs", "0"), ("--chunk-pairs", "-5"), ("--batch-tokens", "0")])
def test_chunk_pairs_and_batch_tokens_below_one_are_refused(tiny_mtme, tmp_path, capsys, option, value):
    assert _mtlib("score", "--test-set", "toy", "--mtme", tiny_mtme, "--cache", tmp_path / "c", "--no-progress",
                  option, value) == 2
    err = capsys.readouterr().err
    assert f"error: {option} must be >= 1, got {value}" in err
    assert "units" not in err and not (tmp_path / "c").exists()  # before anything is planned or scored


# -- Ctrl-C ---------------------------------------------------------------------------------
def test_ctrl_c_is_one_line_and_exit_130(tiny_mtme, tmp_path, capsys, monkeypatch):
    import mtlib.scoring

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(mtlib.scoring, "score_systems", interrupt)
    out = tmp_path / "scores.tsv"
    assert _score(tiny_mtme, tmp_path, "--out", out) == 130  # was an 88-line traceback
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.splitlines()[-1] == ("interrupted: what was finished is kept in the caches (a rerun resumes there); "
                                    "no output is left half-written")
    assert not out.exists()


# -- mtlib vat --out ------------------------------------------------------------------------
@pytest.fixture
def plain(tmp_path):
    for name, lines in {"sysA": REF, "sysB": REF[::-1], "sysC": REF[1:] + REF[:1], "ref": REF}.items():
        write_lines(tmp_path / f"{name}.en", lines)
    return tmp_path


def _vat(plain, out):
    return _mtlib("vat", "--hyp", *(plain / f"{s}.en" for s in ("sysA", "sysB", "sysC")), "--ref", plain / "ref.en",
                  "--lp", "de-en", "--metric", "BLEU", "--out", out)


def test_vat_out_on_a_full_disk_leaves_nothing_and_the_rerun_works(plain, capsys, full_disk):
    disk = plain / "disk"
    disk.mkdir()
    full_disk(disk, 60)  # the ids file, then part of the kept references
    assert _vat(plain, disk / "vat") == 2
    assert list(disk.iterdir()) == []  # was: a half-written folder
    assert f"error: No space left on device; {disk / 'vat'} {NOTHING_LEFT}" in capsys.readouterr().err
    full_disk(disk, 10 ** 6)
    assert _vat(plain, disk / "vat") == 0
    assert sorted(p.name for p in (disk / "vat").iterdir()) == [
        "bleu_filter-std60.json", "std_files-deen.tsv", "vat_files-deen-ref.en"]
    assert (disk / "vat").stat().st_mode & 0o777 == 0o777 & ~_umask()  # not the temporary folder's 0700


def _umask():
    mask = os.umask(0o22)
    os.umask(mask)
    return mask


def test_vat_out_into_an_empty_folder_fills_it_and_a_full_one_is_refused(plain, capsys):
    (plain / "vat").mkdir()
    assert _vat(plain, plain / "vat") == 0
    assert len(list((plain / "vat").iterdir())) == 3
    assert _vat(plain, plain / "vat") == 2
    assert "exists and is not an empty folder (nothing is overwritten)" in capsys.readouterr().err
    (plain / "scratch").mkdir()
    (plain / "link").symlink_to(plain / "scratch")  # e.g. a link to a folder on another disk
    assert _vat(plain, plain / "link") == 0
    assert (plain / "link").is_symlink() and len(list((plain / "scratch").iterdir())) == 3


# -- mtlib merge ------------------------------------------------------------------------------
def _store(folder, n, start=0):
    from mtlib.bertscore import TokenMatches
    store = MatchStore(folder, "toy@1", 4, "fp32", 512, "v")
    m = TokenMatches(np.arange(40), np.full(40, 0.5, np.float32), np.arange(30), np.ones(30, np.float32))
    store.put_many([(i.to_bytes(32, "little"), m) for i in range(start, start + n)])
    store.close()
    return store.path


def _leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


@pytest.fixture
def small_disk(monkeypatch):
    """Match caches opened by merge may grow by one SQLite page: a full disk, as SQLite sees it."""
    real = MatchStore.open_file.__func__

    def tight(cls, path, elsewhere="x"):
        store = real(cls, path, elsewhere)
        store._db.execute(f"PRAGMA max_page_count = {store._db.execute('PRAGMA page_count').fetchone()[0] + 1}")
        return store
    monkeypatch.setattr(MatchStore, "open_file", classmethod(tight))


def test_merge_into_a_new_file_on_a_full_disk_leaves_nothing(tmp_path, capsys, small_disk):
    src = _store(tmp_path / "src" / "matches", 300)
    dest = tmp_path / "into" / "matches" / src.name
    assert _mtlib("merge", tmp_path / "src", "--into", tmp_path / "into") == 2
    assert list(dest.parent.iterdir()) == []  # was: an empty cache file
    err = capsys.readouterr().err
    assert f"error: database or disk is full; {dest} {NOTHING_LEFT}" in err and "keep the file" not in err


def test_merge_into_an_existing_file_on_a_full_disk_leaves_it_as_it_was(tmp_path, capsys, small_disk):
    src = _store(tmp_path / "src" / "matches", 300)
    dest = _store(tmp_path / "into" / "matches", 2, start=1000)
    assert _mtlib("merge", tmp_path / "src", "--into", tmp_path / "into") == 2
    err = capsys.readouterr().err
    assert f"error: cache file {dest} cannot be used now (database or disk is full)" in err
    assert f"(nothing of {src} was added: {dest} is as it was)" in err
    store = MatchStore.open_file(dest)
    assert len(store) == 2  # the merge is one transaction
    store.close()
    assert _leftovers(dest.parent) == []


@pytest.mark.parametrize("kind", ["text", "another table"])
def test_merge_of_a_non_cache_leaves_no_target_file(tmp_path, capsys, kind):
    bad = tmp_path / "src" / "matches" / "a.matches.sqlite"
    bad.parent.mkdir(parents=True)
    if kind == "text":
        bad.write_text("not a cache at all\n" * 100)
        says = f"cache file {bad} is damaged"
    else:
        with sqlite3.connect(bad) as db:
            db.execute("CREATE TABLE emb (key BLOB)")
        db.close()
        says = f"{bad} is an SQLite file but not a match cache (no table 'pairs')"
    assert _mtlib("merge", tmp_path / "src", "--into", tmp_path / "into") == 2
    assert list((tmp_path / "into" / "matches").iterdir()) == []  # was: an empty a.matches.sqlite
    err = capsys.readouterr().err
    assert f"error: {says}" in err and f"{tmp_path / 'into' / 'matches' / bad.name} {NOTHING_LEFT}" in err


def test_merge_of_a_wrong_columns_file_names_the_source(tmp_path, capsys):
    dest = _store(tmp_path / "into" / "matches", 2)
    bad = tmp_path / "src" / "matches" / dest.name
    bad.parent.mkdir(parents=True)
    with sqlite3.connect(bad) as db:
        db.execute("CREATE TABLE pairs (id INTEGER PRIMARY KEY, key BLOB, value BLOB)")
    db.close()
    assert _mtlib("merge", tmp_path / "src", "--into", tmp_path / "into") == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {bad} is not a match cache (its table 'pairs' has the columns ['id', 'key', "
                          "'value'], not key, data, crc): only match caches can be merged")
    assert str(dest) not in err  # was: "cache file <target> cannot be used now (no such column: data) …"


def test_merge_still_adds_to_new_and_existing_files(tmp_path, capsys):
    src = _store(tmp_path / "src" / "matches", 5)
    assert _mtlib("merge", tmp_path / "src", "--into", tmp_path / "new") == 0
    _store(tmp_path / "old" / "matches", 2, start=3)
    assert _mtlib("merge", tmp_path / "src", "--into", tmp_path / "old") == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [f"{src}: 5 new pairs -> {tmp_path / 'new' / 'matches' / src.name} (5 in all)",
                   f"{src}: 3 new pairs -> {tmp_path / 'old' / 'matches' / src.name} (5 in all)"]
    assert _leftovers(tmp_path / "new" / "matches") == [] == _leftovers(tmp_path / "old" / "matches")


# -- the helper -------------------------------------------------------------------------------
def test_write_atomically_all_or_nothing(tmp_path):
    from mtlib.atomic import write_atomically
    target = tmp_path / "out.txt"
    with pytest.raises(OSError, match=rf"boom; {target} {NOTHING_LEFT}"):
        with write_atomically(target) as tmp:
            tmp.write_text("half")
            raise ValueError("boom")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(KeyboardInterrupt):  # Ctrl-C passes through, after removing the temporary file
        with write_atomically(target) as tmp:
            tmp.write_text("half")
            raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []
    with write_atomically(target) as tmp:
        tmp.write_text("whole")
    assert target.read_text() == "whole" and list(tmp_path.iterdir()) == [target]
    with pytest.raises(OSError, match=rf"File exists; {target} {NOTHING_LEFT}"):
        with write_atomically(target) as tmp:
            tmp.write_text("other")
    assert target.read_text() == "whole" and list(tmp_path.iterdir()) == [target]
