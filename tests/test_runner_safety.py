"""``python -m mtbook`` as a careless user meets it (issue 35): it never writes over a source,
checks its destination before a kernel starts, leaves nothing partial after a full disk or Ctrl-C,
sees every edit of what a page shows, and says in one line what is wrong with a damaged file or a
name that is not a chapter.

The chapters here are toys in a repository made per test (``MTLIB_BOOK``), run on the python3
kernel in seconds; where a kernel must not start, papermill is replaced by a stub that records it.
"""

from __future__ import annotations

import errno
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import papermill
import pytest

from mtbook import runner as nbr
from mtbook.repository import find_repository

ROOT = Path(__file__).resolve().parents[1]
EDITED = "toy: its cells or outputs were edited after it was executed"


# -- a repository with toy chapters ------------------------------------------------------------
def _toy_cells() -> list:
    params = nbformat.v4.new_code_cell('profile = "small"\nx = 1\nseed = 1\nfolder = None')
    params.metadata["tags"] = ["parameters"]
    figure = nbformat.v4.new_code_cell("print('ran', x, seed, folder)")
    figure.metadata["mystnb"] = {"figure": {"caption": "The first caption.", "name": "fig-toy"}}
    return [params, figure,
            nbformat.v4.new_code_cell("from mtbook.findings import publish\npublish(x=x, share=x / 4)"),
            nbformat.v4.new_markdown_cell("x is {{ f.x }}, a share of {{ f.share | pct }}.")]


def _sleepy_cells() -> list:
    params = nbformat.v4.new_code_cell('profile = "small"')
    params.metadata["tags"] = ["parameters"]
    return [params, nbformat.v4.new_code_cell(
        "import os, time\nopen(os.environ['MTBOOK_TEST_MARK'], 'w').close()\ntime.sleep(120)")]


def make_repo(root: Path, chapters: dict[str, list]) -> Path:
    """A clone-like folder: _toc.yml, notebooks/ with the chapters and profiles.yml, book/."""
    (root / "notebooks").mkdir(parents=True)
    (root / "book").mkdir()
    (root / "_toc.yml").write_text("format: jb-book\nroot: intro\n")
    (root / "notebooks" / "profiles.yml").write_text(
        "".join(f"{name}:\n  small:\n    x: 1\n  full:\n    x: 1\n" if name == "toy" else
                f"{name}:\n  small: {{}}\n  full: {{}}\n" for name in chapters))
    for name, cells in chapters.items():
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nb.cells = cells
        nbformat.write(nb, root / "notebooks" / f"{name}.ipynb")
    return root


@pytest.fixture
def repo(tmp_path, monkeypatch):
    root = make_repo(tmp_path / "repo", {"toy": _toy_cells()})
    monkeypatch.setenv("MTLIB_BOOK", str(root))
    monkeypatch.setattr(tempfile, "tempdir", str(_fresh(tmp_path / "tmp")))  # what the runner leaves in /tmp
    return find_repository()


def _fresh(folder: Path) -> Path:
    folder.mkdir()
    return folder


@pytest.fixture
def no_kernel(monkeypatch):
    """papermill replaced: records each call (its parameters) and fails as a broken notebook
    would, before writing any output."""
    calls = []

    def execute_notebook(input_path, output_path, parameters=None, **kwargs):
        calls.append(parameters)
        raise RuntimeError("stub: no kernel in this test")

    monkeypatch.setattr(papermill, "execute_notebook", execute_notebook)
    return calls


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) if folder.exists() else []


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _book(repo) -> Path:
    """toy executed into the repository's book/ with the full profile."""
    return nbr.run_notebook("toy", "full", repo.book, notebook_dir=repo.notebooks, book_dir=repo.book)


# -- high: the sources are never an output -----------------------------------------------------
def test_out_at_the_sources_folder_is_refused_before_anything_runs(capsys, no_kernel):
    repo = find_repository(ROOT)
    before = _snapshot(repo.notebooks)
    code = nbr.main(["run", "--profile", "small", "--out", str(repo.notebooks), "--only", "own_data"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert "refusing to write into" in err and "notebooks' source folder" in err
    assert no_kernel == [] and _snapshot(repo.notebooks) == before


def test_out_at_any_folder_that_holds_a_source_is_refused(repo, tmp_path, capsys, no_kernel):
    before = _snapshot(repo.notebooks)
    (repo.notebooks / "sub").mkdir()
    linked = tmp_path / "linked"
    linked.symlink_to(repo.notebooks)  # the sources' folder under another name
    copies = tmp_path / "my-notebooks"  # someone's own notebook of the same name
    copies.mkdir()
    (copies / "toy.ipynb").write_bytes((repo.notebooks / "toy.ipynb").read_bytes())
    one_link = tmp_path / "one-link"  # a folder whose toy.ipynb is the source itself
    one_link.mkdir()
    (one_link / "toy.ipynb").symlink_to(repo.notebooks / "toy.ipynb")
    hard = tmp_path / "hard-link"  # the same file under another name: what a bind mount shows too
    hard.mkdir()
    os.link(repo.notebooks / "toy.ipynb", hard / "toy.ipynb")
    for out, message in [(repo.notebooks, "source folder"), (repo.notebooks / "sub", "source folder"),
                         (linked, "source folder"), (copies, "python -m mtbook run did not write it"),
                         (one_link, "it holds the source notebook(s) ['toy.ipynb']"),
                         (hard, "it holds the source notebook(s) ['toy.ipynb']")]:
        assert nbr.main(["run", "--profile", "small", "--out", str(out), "--only", "toy"]) == 2, out
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
    assert no_kernel == []
    assert (copies / "toy.ipynb").read_bytes() == (repo.notebooks / "toy.ipynb").read_bytes()
    (repo.notebooks / "sub").rmdir()
    assert _snapshot(repo.notebooks) == before


# -- high: a full disk leaves nothing partial --------------------------------------------------
class _FullDisk:
    """A file that takes half of what is written, then raises ENOSPC (what a full disk does)."""

    def __init__(self, real):
        self._real = real

    def write(self, text):
        self._real.write(text[: len(text) // 2])
        self._real.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __getattr__(self, name):
        return getattr(self._real, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._real.close()


def _full_disk_in(monkeypatch, folder: Path) -> None:
    """Every file opened for writing in ``folder`` (not below) fills the disk."""
    real_open = io.open

    def fake_open(file, mode="r", *args, **kwargs):
        f = real_open(file, mode, *args, **kwargs)
        if isinstance(file, (str, os.PathLike)) and Path(file).parent == folder and any(m in mode for m in "wax"):
            return _FullDisk(f)
        return f

    monkeypatch.setattr("builtins.open", fake_open)
    monkeypatch.setattr(io, "open", fake_open)


def test_a_full_disk_leaves_no_partial_copy_and_says_so(repo, tmp_path, monkeypatch, capsys):
    out = tmp_path / "runs"
    assert nbr.main(["run", "--profile", "small", "--out", str(out), "--only", "toy", "--quiet"]) == 0
    before = _snapshot(out)
    _full_disk_in(monkeypatch, out)
    code = nbr.main(["run", "--profile", "small", "--out", str(out), "--only", "toy", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: notebook 'toy' ran, but its executed copy could not be written"), err
    assert "No space left on device" in err and "nothing partial was left behind" in err
    assert _snapshot(out) == before  # the earlier copy, whole; no .toy.ipynb.PID.tmp beside it
    assert _files(Path(tempfile.gettempdir())) == []  # nor a work folder in the temporary folder


def test_a_full_disk_into_a_new_folder_leaves_no_folder(repo, tmp_path, monkeypatch, capsys):
    out = tmp_path / "runs" / "new"
    _full_disk_in(monkeypatch, out)
    assert nbr.main(["run", "--profile", "small", "--out", str(out), "--only", "toy", "--quiet"]) == 2
    assert "nothing partial was left behind" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_render_on_a_full_disk_leaves_the_page_as_it_was(repo, monkeypatch):
    out = _book(repo)
    src = json.loads((repo.notebooks / "toy.ipynb").read_text())
    src["cells"][-1]["source"] = "Reworded: {{ f.x }}."
    (repo.notebooks / "toy.ipynb").write_text(json.dumps(src))
    before = _snapshot(repo.book)
    _full_disk_in(monkeypatch, repo.book)
    with pytest.raises(RuntimeError, match="No space left on device.*nothing partial was left behind"):
        nbr.render_words(["toy"], book_dir=repo.book, notebook_dir=repo.notebooks)
    assert _snapshot(repo.book) == before and out.exists()


# -- medium: the destination is checked before a kernel starts ---------------------------------
def test_out_at_an_existing_file_is_refused_before_running(repo, tmp_path, capsys, no_kernel):
    afile = tmp_path / "results.txt"
    afile.write_text("mine\n")
    for out in (afile, afile / "sub"):
        assert nbr.main(["run", "--profile", "small", "--out", str(out), "--only", "toy"]) == 2
        err = capsys.readouterr().err
        assert "is a file, not a folder" in err and err.count("\n") == 1, err
    folder = tmp_path / "runs"
    (folder / "toy.ipynb").mkdir(parents=True)
    assert nbr.main(["run", "--profile", "small", "--out", str(folder), "--only", "toy"]) == 2
    assert "a folder of that name is there" in capsys.readouterr().err
    assert no_kernel == [] and afile.read_text() == "mine\n"


def test_out_at_a_read_only_folder_is_refused_before_running(repo, tmp_path, monkeypatch, capsys, no_kernel):
    locked = tmp_path / "locked"
    locked.mkdir()
    real_open, real_os_open = io.open, os.open

    def denied(file) -> bool:
        return isinstance(file, (str, os.PathLike)) and Path(file).is_relative_to(locked)

    def fake_open(file, mode="r", *args, **kwargs):
        if denied(file) and any(m in mode for m in "wax+"):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(file))
        return real_open(file, mode, *args, **kwargs)

    def fake_os_open(path, flags, *args, **kwargs):
        if denied(path) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real_os_open(path, flags, *args, **kwargs)

    monkeypatch.setattr("builtins.open", fake_open)
    monkeypatch.setattr(io, "open", fake_open)
    monkeypatch.setattr(os, "open", fake_os_open)
    for out in (locked, locked / "new" / "deeper"):
        assert nbr.main(["run", "--profile", "small", "--out", str(out), "--only", "toy"]) == 2
        err = capsys.readouterr().err
        assert f"{locked} is not writable (Permission denied); nothing was run" in err and err.count("\n") == 1, err
    assert no_kernel == [] and _files(locked) == []


# -- medium: check sees what the page shows ----------------------------------------------------
def test_check_sees_a_hand_edited_caption_or_a_hidden_cell(repo):
    out = _book(repo)
    assert nbr.check_book(repo.book, repo.notebooks) == []
    nb = json.loads(out.read_text())
    figure = next(c for c in nb["cells"] if "mystnb" in c["metadata"])
    for edit in (lambda cells: figure["metadata"]["mystnb"]["figure"].update(caption="A forged caption."),
                 lambda cells: figure["metadata"].setdefault("tags", []).append("remove-cell"),
                 lambda cells: figure["metadata"].update(tags=["remove-output"])):
        edited = json.loads(json.dumps(nb))
        figure = next(c for c in edited["cells"] if "mystnb" in c["metadata"])
        edit(edited["cells"])
        out.write_text(json.dumps(edited))
        assert nbr.check_book(repo.book, repo.notebooks) == [EDITED]
    edited = json.loads(json.dumps(nb))
    for cell in edited["cells"]:  # what JupyterLab records and the page does not show: no edit
        cell["metadata"]["collapsed"] = True
        cell["metadata"]["jupyter"] = {"outputs_hidden": True}
    out.write_text(json.dumps(edited))
    assert nbr.check_book(repo.book, repo.notebooks) == []


def test_a_caption_edited_in_the_source_is_rendered_onto_the_page(repo, monkeypatch):
    out = _book(repo)
    src = json.loads((repo.notebooks / "toy.ipynb").read_text())
    figure = next(c for c in src["cells"] if "mystnb" in c["metadata"])
    figure["metadata"]["mystnb"]["figure"]["caption"] = "A better caption."
    (repo.notebooks / "toy.ipynb").write_text(json.dumps(src))
    [problem] = nbr.check_book(repo.book, repo.notebooks)
    assert problem.startswith("toy: stale words:")
    monkeypatch.setattr(papermill, "execute_notebook", None)  # no kernel: render only
    assert nbr.render_words(book_dir=repo.book, notebook_dir=repo.notebooks) == ["toy"]
    assert nbr.check_book(repo.book, repo.notebooks) == []
    shown = [c["metadata"]["mystnb"]["figure"]["caption"] for c in json.loads(out.read_text())["cells"]
             if "mystnb" in c["metadata"]]
    assert shown == ["A better caption."]


def test_a_copy_stamped_by_the_older_hash_is_restamped_by_render_without_a_kernel(repo, monkeypatch):
    out = _book(repo)
    nb = json.loads(out.read_text())
    meta = nb["metadata"]["mtlib"]
    del meta["executed_hash"]  # as copies were stamped before cells' metadata was hashed
    meta["executed_sha256"] = nbr.executed_hash(nb, 1)
    out.write_text(json.dumps(nb))
    [problem] = nbr.check_book(repo.book, repo.notebooks)
    assert problem.startswith("toy: stale words: stamped before the cells' metadata") \
        and "python -m mtbook render --only toy" in problem
    monkeypatch.setattr(papermill, "execute_notebook", None)
    assert nbr.render_words(["toy"], book_dir=repo.book, notebook_dir=repo.notebooks) == ["toy"]
    assert nbr.check_book(repo.book, repo.notebooks) == []
    restamped = json.loads(out.read_text())
    assert restamped["metadata"]["mtlib"]["executed_hash"] == nbr.EXECUTED_HASH_VERSION
    assert [c["source"] for c in restamped["cells"]] == [c["source"] for c in nb["cells"]]
    assert [c.get("outputs") for c in restamped["cells"]] == [c.get("outputs") for c in nb["cells"]]
    next(c for c in nb["cells"] if c.get("outputs"))["outputs"] = []  # an old stamp never covers a hand edit
    out.write_text(json.dumps(nb))
    assert nbr.check_book(repo.book, repo.notebooks) == [EDITED]


def test_a_truncated_source_is_named_by_check(repo, capsys):
    _book(repo)
    src = repo.notebooks / "toy.ipynb"
    src.write_text(src.read_text()[:300])
    [problem] = nbr.check_book(repo.book, repo.notebooks)
    assert problem.startswith(f"toy: the source {src} is not a readable notebook (JSONDecodeError")
    assert nbr.main(["check"]) == 1
    assert "toy: the source" in capsys.readouterr().out
    with pytest.raises(ValueError, match="cannot render only the words: toy: the source"):
        nbr.render_words(["toy"], book_dir=repo.book, notebook_dir=repo.notebooks)
    assert nbr.main(["run", "--profile", "small", "--out", str(repo.root / "runs"), "--only", "toy"]) == 2
    assert f"{src} is not a readable notebook" in capsys.readouterr().err


# -- low: Ctrl-C -------------------------------------------------------------------------------
def _processes_mentioning(text: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if text.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.parametrize("signum, code, said", [(signal.SIGINT, 130, "interrupted (Ctrl-C)"),
                                                 (signal.SIGTERM, 143, "terminated (SIGTERM)")])
def test_ctrl_c_or_sigterm_is_one_line_and_leaves_nothing(tmp_path, signum, code, said):
    root = make_repo(tmp_path / "repo", {"sleepy": _sleepy_cells()})
    mark, tmp, out = tmp_path / "started", _fresh(tmp_path / "tmp"), tmp_path / "runs"
    # the kernel's connection file is made in TMPDIR, so its command line names this folder
    env = {**os.environ, "MTLIB_BOOK": str(root), "MTBOOK_TEST_MARK": str(mark), "TMPDIR": str(tmp),
           "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "mtbook", "run", "--profile", "small", "--out", str(out),
                             "--only", "sleepy", "--quiet"], env=env, cwd=tmp_path, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not mark.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert mark.exists(), proc.communicate(timeout=30)
        assert _processes_mentioning(str(tmp)), "the kernel should be running now"
        # Ctrl-C in a terminal signals the whole foreground group; a service manager sends SIGTERM
        os.killpg(proc.pid, signum) if signum == signal.SIGINT else proc.send_signal(signum)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == code, stderr
    # ipykernel 7 warns at every start that it talks over TCP without encryption: not the runner's words
    stderr = "".join(line for line in stderr.splitlines(keepends=True)
                     if not line.startswith("[IPKernelApp] WARNING | Kernel is running over TCP"))
    assert stderr.startswith(said) and stderr.count("\n") == 1, stderr
    assert "nothing partial was written" in stderr
    assert _files(out) == [] and _files(tmp) == []
    deadline = time.monotonic() + 10
    while _processes_mentioning(str(tmp)) and time.monotonic() < deadline:  # the kernel is gone too
        time.sleep(0.2)
    assert _processes_mentioning(str(tmp)) == []


def test_ctrl_c_in_process_is_caught_by_main(repo, tmp_path, monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(papermill, "execute_notebook", interrupted)
    out = tmp_path / "runs"
    try:
        code = nbr.main(["run", "--profile", "small", "--out", str(out), "--only", "toy"])
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C escaped main() as a traceback")
    assert code == 130
    assert capsys.readouterr().err.count("\n") == 1
    assert _files(out) == [] and _files(Path(tempfile.gettempdir())) == []


# -- low: -p with a date, and a failure before any output --------------------------------------
def test_a_date_for_a_number_is_refused_before_running(repo, tmp_path, capsys, no_kernel):
    out = tmp_path / "runs"
    assert nbr.main(["run", "--profile", "small", "--out", str(out), "--only", "toy",
                     "-p", "seed", "2000-01-01"]) == 2
    err = capsys.readouterr().err
    assert err == ("error: notebook 'toy', parameter seed: expected a number like its default (seed = 1), got the "
                   "text '2000-01-01' (-p takes YAML: a date such as 2000-01-01 stays text, it is not a number)\n")
    assert no_kernel == [] and _files(out) == []


def test_a_date_elsewhere_stays_the_text_typed_and_no_missing_file_is_named(repo, tmp_path, capsys, no_kernel):
    out = tmp_path / "runs"
    assert nbr.main(["run", "--profile", "small", "--out", str(out), "--only", "toy",
                     "-p", "folder", "2000-01-01"]) == 2
    [given] = no_kernel
    assert given["folder"] == "2000-01-01"  # a folder named by its day: text, as typed
    err = capsys.readouterr().err
    assert "failed with profile 'small' (it stopped before writing any output;" in err
    assert "partial output in" not in err  # never a file that does not exist
    assert _files(out) == [] and _files(Path(tempfile.gettempdir())) == []
    import datetime
    with pytest.raises(ValueError, match=r"parameter folder: datetime.date\(2000, 1, 1\) cannot be passed to a "
                                         r"notebook \(Object of type date is not JSON serializable\)"):
        nbr.run_notebook("toy", "small", out, extra_parameters={"folder": datetime.date(2000, 1, 1)})


# -- low: damaged YAML and names that are not chapters -----------------------------------------
@pytest.mark.parametrize("text, problem", [
    ("toy:\n  small:\n    x: !python/object:os.system 1\n", "could not determine a constructor for the tag"),
    ("toy:\n  small:\n    x: !!binary aGVsbG8=\n", "cannot be a notebook parameter"),
    ("toy: [small\n", "not readable YAML"),
    ("- toy\n", "expected a mapping notebook -> profile -> parameters"),
])
def test_a_damaged_profiles_file_is_one_error_line(repo, tmp_path, capsys, no_kernel, text, problem):
    (repo.notebooks / "profiles.yml").write_text(text)
    run = ["run", "--profile", "small", "--out", str(tmp_path / "o"), "--only", "toy"]
    for argv in (["check"], ["params", "toy"], run):
        assert nbr.main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith(f"error: {repo.notebooks / 'profiles.yml'}: ") and problem in err, err
        assert err.count("\n") == 1, err
    assert no_kernel == []


@pytest.mark.parametrize("text, problem", [
    ("toy:\n  executed_with: mtlib 0.1\n  reason: [unclosed\n", "not readable YAML"),
    ("toy:\n  executed_with: !foo x\n  reason: r\n", "could not determine a constructor for the tag '!foo'"),
    ("- toy\n", "expected a mapping chapter -> {executed_with, reason}, got list"),
])
def test_a_damaged_known_stale_file_is_one_error_line(repo, capsys, text, problem):
    _book(repo)
    (repo.book / "known_stale.yml").write_text(text)
    assert nbr.main(["check"]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"error: {repo.book / 'known_stale.yml'}: ") and problem in captured.err
    assert captured.err.count("\n") == 1 and captured.out == "", captured


def test_params_and_run_take_chapter_names_not_paths(repo, capsys, no_kernel):
    (repo.book / "toy.ipynb").write_bytes((repo.notebooks / "toy.ipynb").read_bytes())  # a notebook outside notebooks/
    assert nbr.main(["params", "../book/toy"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == (
        f"error: no notebook '../book/toy' among the chapters in {repo.notebooks}: give a chapter's name (not a path); "
        "chapters: ['toy']\n")
    with pytest.raises(FileNotFoundError, match="give a chapter's name"):
        nbr.run_notebook("../book/toy", "small", repo.root / "runs")
    assert nbr.main(["params", "toy"]) == 0 and "seed = 1" in capsys.readouterr().out
    assert no_kernel == []


def test_a_damaged_copy_in_book_is_replaced_by_a_run_as_check_advises(repo):
    out = _book(repo)
    out.write_text(out.read_text()[:200])
    [problem] = nbr.check_book(repo.book, repo.notebooks)
    assert "is not a readable executed notebook" in problem and "python -m mtbook run --only toy" in problem
    _book(repo)  # book/ holds only the runner's copies: a damaged one is replaced, not refused
    assert nbr.check_book(repo.book, repo.notebooks) == []
