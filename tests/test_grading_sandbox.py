"""Grading takes student code for what it is: each malicious submission below is stopped.

A forged equality object (or a replaced fingerprint function) scores nothing, because only
the answers' values leave the sandbox and a fresh process checks them; a submission cannot
rewrite another student's row (the CSV file is written by the grader once all ran, whole,
renamed into place), read the solutions, write outside its own folder, or leave a process
running; SIGTERM to the grader kills the submission's processes. Below the notebooks: the
sandbox itself (its user, files, network, processes, limits) and the answers' decoding."""

import csv
import json
import os
import signal
import subprocess
import sys
import time
import uuid
import warnings

import nbformat
import psutil
import pytest

from mtbook import assignments, sandbox

otter = pytest.importorskip("otter", reason="otter-grader is not installed (the `teach` extra)")

RIGHT = "p1 = 5 / 7\np2 = 3 / 6\n"  # question 1 of baselines, right: 2 points


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("built")
    return out, assignments.build(out, ["baselines"])[0]


@pytest.fixture
def isolated():
    why = sandbox.isolation()
    if why:
        pytest.skip(f"the sandbox is not available here ({why})")


def _submission(built, path, *cells):
    """The student notebook of baselines (every answer `...`) with ``cells`` added at its end."""
    nb = nbformat.read(built[1].student, as_version=4)
    nb.cells += [nbformat.v4.new_code_cell(c) for c in cells]
    nbformat.write(nb, path)
    return path


def _marker():
    return "mtg" + uuid.uuid4().hex[:10]  # a process name (at most 15 characters)


def _named(marker):
    """Live processes named ``marker``."""
    found = []
    for p in psutil.process_iter(["name", "status"]):
        if p.info["name"] == marker and p.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(p)
    return found


def _alive(procs, wait=15):
    """Those of ``procs`` still running after up to ``wait`` seconds."""
    psutil.wait_procs(procs, timeout=wait)
    alive = []
    for p in procs:
        try:
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                alive.append(p)
        except psutil.Error:
            pass
    return alive


def _kill(procs):
    for p in procs:
        try:
            p.kill()
        except psutil.Error:
            pass


def _background_cell(marker):
    """Starts two processes named ``marker`` that outlive the notebook: one in a session of its
    own, one a daemon (forked twice, its parent gone)."""
    sleeper = f"import ctypes, os, time; ctypes.CDLL(None).prctl(15, {marker.encode()!r}, 0, 0, 0); time.sleep(600)"
    daemon = f"import os; os.fork() and os._exit(0); os.setsid(); exec({sleeper!r})"
    return (f"import subprocess, sys\n"
            f"subprocess.Popen([sys.executable, '-c', {sleeper!r}], start_new_session=True)\n"
            f"subprocess.Popen([sys.executable, '-c', {daemon!r}]).wait()\n"
            f"import time; time.sleep(2)\n")


def _spinning_cell(marker):
    """Names the kernel ``marker`` and loops forever."""
    return f"import ctypes\nctypes.CDLL(None).prctl(15, {marker.encode()!r}, 0, 0, 0)\nwhile True:\n    pass\n"


# --- the malicious submissions ---------------------------------------------------------------------

FORGED = """\
class Anything:
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    def __hash__(self):
        return 0

class Liar(float):  # a number equal to every number
    def __eq__(self, other):
        return True
    __hash__ = float.__hash__

try:
    import mtlib.fingerprint
    mtlib.fingerprint.fingerprint = lambda *args, **kwargs: Anything()
except ImportError:
    pass
p1, p2 = Liar(0.1), Anything()
bleu_golf = bp_golf = r_chrf = tau_chrf = Anything()
"""


def test_a_forged_equality_object_scores_nothing(built, tmp_path):
    out, _ = built
    results = assignments.grade("baselines", _submission(built, tmp_path / "forger.ipynb", FORGED), out)
    assert [(r.name, r.score) for r in results] == [("q1", 0), ("q2", 0), ("q3", 0)]
    assert all(r.messages for r in results)


def test_a_submission_cannot_rewrite_another_students_row(built, tmp_path):
    out, b = built
    folder, scores = tmp_path / "submissions", tmp_path / "scores.csv"
    folder.mkdir()
    (folder / "alice.ipynb").write_text(b.solution.read_text())
    rewrite = (f"import pathlib\nscores = pathlib.Path({str(scores)!r})\n"
               "try:\n"
               "    scores.write_text(scores.read_text().replace('alice.ipynb,alice,7,', 'alice.ipynb,alice,0,'))\n"
               "except OSError:\n"
               "    pass\n")
    _submission(built, folder / "mallory.ipynb", rewrite, RIGHT)
    seen = []

    def on_row(row):  # the CSV file is written once every submission ran
        seen.append((row["student"], scores.exists()))

    rows = assignments.grade_all("baselines", folder, scores, out, on_row=on_row)
    assert [(r["student"], r["total"]) for r in csv.DictReader(scores.open())] == [("alice", "7"), ("mallory", "2")]
    assert [(r["student"], r["total"]) for r in rows] == [("alice", "7"), ("mallory", "2")]
    assert seen == [("alice", False), ("mallory", False)]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left


def test_a_submission_cannot_read_the_solutions(built, tmp_path, isolated):
    out, b = built
    secrets = [str(b.solution), str(assignments.source_folder() / "baselines.ipynb")]
    steal = (f"import json\n"
             f"for path in {secrets!r}:\n"
             f"    try:\n"
             f"        nb = json.load(open(path))\n"
             f"    except OSError:\n"
             f"        continue\n"
             f"    for cell in nb['cells']:\n"
             f"        source = ''.join(cell['source'])\n"
             f"        if '# SOLUTION' in source:\n"
             f"            exec(source)\n")
    results = assignments.grade("baselines", _submission(built, tmp_path / "thief.ipynb", steal), out)
    assert sum(r.score for r in results) == 0


def test_a_submission_cannot_write_outside_its_folder(built, tmp_path, isolated):
    out, b = built
    folder = tmp_path / "submissions"
    folder.mkdir()
    (folder / "zoe.ipynb").write_text(b.solution.read_text())  # another student's, graded later
    name = f"planted-{uuid.uuid4().hex}"
    targets = [tmp_path / name, out / name, folder / name, folder / "zoe.ipynb",
               *(os.path.join(shared, name) for shared in sandbox.WRITABLE),  # the machine's shared memory folders
               os.path.expanduser(f"~/{name}"), assignments.source_folder() / name]
    write = (f"for path in {[str(t) for t in targets]!r}:\n"
             f"    try:\n"
             f"        open(path, 'w').write('{{}}')\n"
             f"    except OSError:\n"
             f"        pass\n")
    _submission(built, folder / "mallory.ipynb", write, RIGHT)
    planted = [str(t) for t in targets if str(t) != str(folder / "zoe.ipynb")]
    try:
        rows = assignments.grade_all("baselines", folder, tmp_path / "scores.csv", out)
        assert [(r["student"], r["total"]) for r in rows] == [("mallory", "2"), ("zoe", "7")]  # her code ran
        assert [t for t in planted if os.path.exists(t)] == []
        assert (folder / "zoe.ipynb").read_text() == b.solution.read_text()
    finally:
        for t in planted:  # what the old grader let it write
            if os.path.isfile(t):
                os.unlink(t)


def test_a_background_process_does_not_survive_grading(built, tmp_path):
    out, _ = built
    marker = _marker()
    try:
        results = assignments.grade("baselines", _submission(built, tmp_path / "bg.ipynb", _background_cell(marker),
                                                             RIGHT), out)
        assert results[0].score == 2  # the cell ran
        assert _named(marker) == []
    finally:
        _kill(_named(marker))


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_to_the_grader_kills_the_submission(built, tmp_path, signum):
    out, _ = built
    marker = _marker()
    loop = _submission(built, tmp_path / "loop.ipynb", _background_cell(marker), _spinning_cell(marker))
    grader = subprocess.Popen([sys.executable, "-m", "mtbook.assignments", "grade", "baselines", str(loop),
                               "--built", str(out), "--timeout", "300"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        while len(_named(marker)) < 3 and time.monotonic() < deadline:  # the kernel spins, two in the background
            assert grader.poll() is None, grader.communicate()
            time.sleep(0.5)
        started = psutil.Process(grader.pid).children(recursive=True) + _named(marker)
        assert len(_named(marker)) == 3
        grader.send_signal(signum)
        _, err = grader.communicate(timeout=60)
        assert grader.returncode == 128 + signum
        assert "error: interrupted" in err and "the submission's processes were killed" in err
        assert _alive(started) == []
    finally:
        _kill(_named(marker))
        try:
            os.killpg(grader.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        grader.communicate()


# --- the CSV file: whole or nothing -------------------------------------------------------------

def _fake_grade(scores):
    def grade(name, path, built_dir=None, **kwargs):
        return [assignments.QuestionResult("q1", scores[path.stem], 2.0, [])]
    return grade


def test_an_interrupted_batch_leaves_no_csv_file(built, tmp_path, monkeypatch):
    out, _ = built
    folder = tmp_path / "submissions"
    folder.mkdir()
    for student in ("alice", "bob"):
        (folder / f"{student}.ipynb").write_text("{}")
    monkeypatch.setattr(assignments, "grade", _fake_grade({"alice": 2.0, "bob": 1.0}))

    def interrupt(row):
        if row["student"] == "bob":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        assignments.grade_all("baselines", folder, tmp_path / "scores.csv", out, on_row=interrupt)
    assert not (tmp_path / "scores.csv").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_full_disk_leaves_no_partial_csv_file(built, tmp_path, monkeypatch):
    import errno

    out, _ = built
    folder = tmp_path / "submissions"
    folder.mkdir()
    (folder / "alice.ipynb").write_text("{}")
    scores = tmp_path / "scores.csv"
    scores.write_text("the previous scores\n")
    monkeypatch.setattr(assignments, "grade", _fake_grade({"alice": 2.0}))

    def full(self, rows):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(csv.DictWriter, "writerows", full)
    with pytest.raises(OSError, match=r"cannot write .*scores.csv \(No space left on device\); nothing was written"):
        assignments.grade_all("baselines", folder, scores, out, force=True)
    assert scores.read_text() == "the previous scores\n"  # the old file is kept
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


# --- the sandbox itself ----------------------------------------------------------------------------

PROBE = r"""
import json, os, resource, socket, subprocess
seen = {}
def attempt(key, action):
    try:
        seen[key] = repr(action())
    except Exception as e:
        seen[key] = "refused: " + type(e).__name__
secret = os.environ["SECRET"]
attempt("read secret", lambda: open(secret).read())
attempt("write /etc", lambda: open("/etc/planted", "w"))
attempt("write next to the secret", lambda: open(secret + ".planted", "w"))
attempt("write here", lambda: open("mine.txt", "w").write("mine"))
attempt("network", lambda: socket.create_connection(("192.0.2.1", 80), timeout=2))
seen["uid"] = os.getuid()
seen["processes"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
seen["limits"] = [resource.getrlimit(r)[0] for r in (resource.RLIMIT_AS, resource.RLIMIT_NPROC, resource.RLIMIT_NOFILE)]
subprocess.Popen(["sleep", "600"], start_new_session=True)
json.dump(seen, open("out.json", "w"))
"""


def test_the_sandbox_isolates_the_command(tmp_path, isolated):
    secret = tmp_path / "hidden" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("the solution")
    limits = sandbox.Limits(memory=2 << 30, processes=100, open_files=200)
    result = sandbox.run([sys.executable, "-c", PROBE], {}, output="out.json", timeout=60, hide=[secret.parent],
                         env={"SECRET": str(secret)}, limits=limits)
    seen = json.loads(result.output)
    assert result.isolated and result.returncode == 0
    assert seen["uid"] != 0 and seen["processes"] == [1, 2]  # the namespace's first process and the probe
    assert seen["write here"] == "4"
    assert {k: v for k, v in seen.items() if v.__class__ is str and k != "write here"} == {
        "read secret": "refused: FileNotFoundError", "write /etc": "refused: OSError",
        "write next to the secret": "refused: FileNotFoundError", "network": "refused: OSError"}
    assert seen["limits"] == [2 << 30, 100, 200]
    assert not (secret.parent / "secret.txt.planted").exists() and not os.path.exists("/etc/planted")
    assert [p for p in psutil.process_iter(["uids"]) if p.info["uids"] and p.info["uids"].real == seen["uid"]] == []


def test_a_killed_grader_takes_its_sandbox_along(tmp_path, isolated):
    # SIGKILL cannot be caught: the parent-death signal kills the launcher, and the namespace with it.
    marker = _marker()
    code = (f"import sys; from mtbook import sandbox\n"
            f"sandbox.run([sys.executable, '-c', {_background_cell(marker) + 'time.sleep(600)'!r}], {{}}, "
            f"output='out', timeout=600)\n")
    caller = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len(_named(marker)) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        started = _named(marker)
        assert len(started) == 2
        caller.kill()
        caller.wait()
        assert _alive(started) == []
    finally:
        _kill(_named(marker))


def test_without_isolation_it_warns_and_still_kills_what_the_command_left(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox, "_isolation", "forced by a test")
    marker = _marker()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = sandbox.run([sys.executable, "-c", _background_cell(marker) + "open('out', 'w').write('done')"], {},
                             output="out", timeout=60)
    try:
        assert result.output == b"done" and not result.isolated
        assert [str(w.message) for w in caught if issubclass(w.category, sandbox.SandboxWarning)] == [
            "the sandbox is not available (forced by a test): the submitted code runs with your rights, in a "
            "temporary folder with resource limits only"]
        assert _named(marker) == []
    finally:
        _kill(_named(marker))


# --- the answers: values, never objects --------------------------------------------------------

def test_answers_travel_as_plain_values(tmp_path):
    import numpy as np
    import pandas as pd

    class Sneaky(float):
        def __eq__(self, other):
            return True

    values = {"f": np.float64(0.25), "i": np.int64(3), "b": np.bool_(True), "s": np.str_("golf"), "n": None,
              "lst": [1, 2.5, "x"], "tup": (1, 2), "st": {"a", "b"}, "d": {"golf": 1.5, 2: [1]},
              "arr": np.array([[1.0, 2.0], [3.0, 4.0]]), "words": np.array(["a", "b"]),
              "series": pd.Series([0.5, 1.5], index=[3, 7], name="std"), "index": pd.Index([4, 9]),
              "sneaky": Sneaky(0.1), "obj": object(), "func": len}
    ns = {**values}
    exec(assignments.EXPORT_CELL, ns)
    ns["_grader_export"](list(values) + ["missing"], str(tmp_path / "answers.json"))
    got = assignments._decode_answers((tmp_path / "answers.json").read_bytes(), list(values) + ["missing"])
    assert set(got) == set(values) - {"obj", "func"}  # not plain data: left out, so their checks fail
    assert type(got["sneaky"]) is float and got["sneaky"] == 0.1 and got["sneaky"] != 0.2
    assert (got["f"], got["i"], got["b"], got["s"], got["n"]) == (0.25, 3, True, "golf", None)
    assert got["lst"] == [1, 2.5, "x"] and got["tup"] == (1, 2) and got["st"] == {"a", "b"}
    assert got["d"] == {"golf": 1.5, 2: [1]}
    assert got["arr"].dtype == np.float64 and got["arr"].tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert got["words"].tolist() == ["a", "b"]
    pd.testing.assert_series_equal(got["series"], values["series"])
    assert got["index"].tolist() == [4, 9]


@pytest.mark.parametrize("raw", [
    b"not json", b"[1, 2]", b'{"x": {"$object": "os.system"}}', b'{"x": {"$ndarray": [1], "dtype": "V8"}}',
    b'{"x": {"$ndarray": [1], "dtype": "O", "extra": 1}}', b'{"x": {"$ndarray": [{"$dict": []}], "dtype": "<f8"}}',
    b'{"x": {"$dict": [[[1], 2]]}}', b'{"x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    b'{"x": 1' + b"0" * 5000 + b"}",
], ids=["text", "list", "object", "void dtype", "extra key", "dict in a float array", "list key", "deep", "huge int"])
def test_anything_but_plain_data_is_left_out(raw):
    assert assignments._decode_answers(raw, ["x"]) == {}
