"""Graded assignments: every solution passes its checks and the unanswered student notebook
fails them; a planted wrong answer fails the checks of its own question only, the visible
ones included; no check or hint gives the solution code away; a wrong answer gets the message
that says what to fix; grading stops an endless loop (and everything it started), grades a
folder into a CSV file, and names bad input. Malicious submissions: tests/test_grading_sandbox.py."""

import csv
import json
import os
import re

import nbformat
import pytest

from mtbook import assignments

otter = pytest.importorskip("otter", reason="otter-grader is not installed (the `teach` extra)")
pytestmark = pytest.mark.slow
NAMES = assignments.list_assignments()

# (assignment, solution code, a typical wrong answer in its place, the one question that must fail).
# A wrong answer to an early question must not fail the later questions that build on it.
PLANTED = [
    ("baselines", "p1 = 5 / 7", "p1 = 6 / 7", "q1"),  # clipped 'the' but not 'cat'
    ("baselines", "bp_golf = result.bp", "bp_golf = 1.0", "q2"),
    ("difficulty", "d = 1 - sim.mean(axis=0)", "d = sim.mean(axis=0)", "q1"),  # q2 and q3 use d
    ("difficulty", "/ sim.shape[1]", "/ d.sum()", "q2"),  # divided by the sum of the weights; q3 uses it
    ("variance", "scores.std(axis=1)", "scores.std(axis=1, ddof=0)", "q1"),  # q2 uses std
    ("variance", "np.percentile(std, 60)", "np.percentile(std, 40)", "q2"),  # q3 uses kept
    ("regemt", '(-1 if m == "TER" else 1)', "1", "q1"),  # TER not negated; q3 uses rho_single
    ("regemt", 'fit(train[X], train["human"])', 'fit(features[X], features["human"])', "q2"),  # saw the test rows
    ("otem_utem", "over_total = 2", "over_total = 3", "q1"),
    ("otem_utem", "max(otem, key=otem.get)", "min(otem, key=otem.get)", "q2"),
]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("assignments")
    return out, {b.name: b for b in assignments.build(out)}


def _answers(solution, plant=None):
    """The namespace of the solution notebook's code run here (otter's cells left out), with
    ``plant`` = (right, wrong) replaced in it."""
    ns = {}
    for cell in nbformat.read(solution, as_version=4).cells:
        if cell.cell_type == "code" and "otter" not in cell.source and "grader." not in cell.source:
            exec(cell.source.replace(*plant) if plant else cell.source, ns)
    return ns


def _failing(notebook, ns):
    """The questions whose checks in ``notebook`` fail on the answers in ``ns`` (the student
    notebook holds the visible checks, the solution notebook all of them)."""
    grader = otter.Notebook(str(notebook))
    questions = json.loads(notebook.read_text())["metadata"]["otter"]["tests"]
    return [q for q in questions if not grader.check(q, global_env=ns).passed_all]


def test_one_assignment_per_chapter():
    chapters = {"wmt19_baselines": "baselines", "difficulty_aware_bertscore": "difficulty",
                "variance_aware_test_sets": "variance", "regemt": "regemt", "otem_utem": "otem_utem"}
    assert sorted(chapters.values()) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_solution_passes_and_unanswered_student_fails(built, name):
    out, b = built
    solved = assignments.grade(name, b[name].solution, out)
    assert solved and all(q.passed and not q.messages for q in solved)
    student = nbformat.read(b[name].student, as_version=4)
    assert "# SOLUTION" not in json.dumps(student.cells) and "BEGIN SOLUTION" not in json.dumps(student.cells)
    blank = assignments.grade(name, b[name].student, out)
    assert [q.name for q in blank] == [q.name for q in solved]
    assert all(q.score == 0 and q.messages for q in blank)


def test_every_assignment_has_planted_wrong_answers():
    assert {name for name, *_ in PLANTED} == set(NAMES)


@pytest.mark.parametrize("name, right, wrong, question", PLANTED, ids=[f"{p[0]}:{p[2]}" for p in PLANTED])
def test_a_wrong_answer_fails_its_question_only(built, tmp_path, monkeypatch, name, right, wrong, question):
    _, b = built
    monkeypatch.chdir(tmp_path)  # otter's check writes its log into the current folder
    assert any(right in c.source for c in nbformat.read(b[name].solution, as_version=4).cells)
    ns = _answers(b[name].solution, (right, wrong))
    assert _failing(b[name].student, ns) == [question]  # what the student sees
    assert _failing(b[name].solution, ns) == [question]  # what the grader counts, hidden checks included


@pytest.mark.parametrize("name", NAMES)
def test_visible_checks_pass_right_answers_computed_another_way(built, tmp_path, monkeypatch, name):
    # Another correct computation may differ in the last bits: the fingerprints round it away.
    import numpy as np

    _, b = built
    monkeypatch.chdir(tmp_path)
    ns = _answers(b[name].solution)
    lines = [line for c in nbformat.read(b[name].solution, as_version=4).cells if c.cell_type == "code"
             for line in c.source.splitlines() if line.endswith("# SOLUTION")]
    answers = {k for line in lines for k in re.match(r"([\w, ]+) = ", line).group(1).split(", ")}
    for factor in (1 + 1e-9, 1 - 1e-9):
        nudged = dict(ns)
        for k in answers:
            v = ns[k]
            if isinstance(v, dict) and all(isinstance(x, float) for x in v.values()):
                nudged[k] = {s: x * factor for s, x in v.items()}
            elif isinstance(v, float) or getattr(v, "dtype", None) == np.float64:
                nudged[k] = v * factor
        assert _failing(b[name].student, nudged) == []


def test_no_check_or_hint_gives_the_solution_away(built):
    _, b = built
    for name, item in b.items():
        solution = nbformat.read(item.solution, as_version=4)
        code = [line.split("  # SOLUTION")[0].split(" = ", 1)[-1].strip() for c in solution.cells
                if c.cell_type == "code" for line in c.source.splitlines() if line.endswith("# SOLUTION")]
        tests = solution.metadata["otter"]["tests"].values()
        hints = [case["failure_message"] for t in tests for s in t["suites"] for case in s["cases"]]
        student = nbformat.read(item.student, as_version=4)
        given = [c.source for c in solution.cells if c.cell_type == "code" and "# SOLUTION" not in c.source]
        seen = hints + [c.source for c in student.cells] + [
            case["code"] for t in student.metadata["otter"]["tests"].values() for s in t["suites"] for case in s["cases"]]
        for expr in code:
            if len(expr) > 12 and not any(expr in g for g in given):  # code, not a number or a given list
                assert not any(expr in text for text in seen), (name, expr)


def test_wrong_answer_gets_a_helpful_message(built, tmp_path):
    out, b = built
    nb = nbformat.read(b["baselines"].solution, as_version=4)
    cell = next(c for c in nb.cells if "p1 = 5 / 7" in c.source)
    cell.source = cell.source.replace("p1 = 5 / 7", "p1 = 6 / 7")  # clipped 'the' but forgot to clip 'cat'
    wrong = tmp_path / "wrong.ipynb"
    nbformat.write(nb, wrong)
    results = {q.name: q for q in assignments.grade("baselines", wrong, out)}
    assert results["q1"].score == 1 and results["q2"].passed and results["q3"].passed
    assert results["q1"].messages and "clip each count at the reference's count" in results["q1"].messages[0]


def _looping(b, tmp_path):
    """The baselines solution with an endless loop in a kernel it names (a name no other process
    has): the kernel runs in a sandbox, where it can write no file the test could read."""
    import uuid

    nb = nbformat.read(b["baselines"].solution, as_version=4)
    name = "loop" + uuid.uuid4().hex[:11]
    name_it = f"import ctypes\nctypes.CDLL(None).prctl(15, {name.encode()!r}, 0, 0, 0)\n"  # PR_SET_NAME
    nb.cells.insert(2, nbformat.v4.new_code_cell(name_it + "while True:\n    pass"))
    path = tmp_path / "loop.ipynb"
    nbformat.write(nb, path)
    return path, name


def _gone(name):
    """No live process is named ``name`` (those still alive are killed: no test leaves one)."""
    import psutil

    alive = [p for p in psutil.process_iter(["name", "status"])
             if p.info["name"] == name and p.info["status"] != psutil.STATUS_ZOMBIE]
    for p in alive:
        p.kill()
    return not alive


def test_an_endless_loop_times_out_and_its_kernel_is_killed(built, tmp_path, capsys):
    out, b = built
    loop, name = _looping(b, tmp_path)
    assert assignments.main(["grade", "baselines", str(loop), "--built", str(out), "--timeout", "15"]) == 2
    assert "error: grading loop.ipynb timed out after 15 s" in capsys.readouterr().err
    assert _gone(name)
    with pytest.raises(SystemExit):  # argparse: "--timeout: must be a positive number of seconds"
        assignments.main(["grade", "baselines", str(loop), "--timeout", "0"])


def test_a_folder_is_graded_into_a_csv_file(built, tmp_path, capsys):
    out, b = built
    folder = tmp_path / "submissions"
    folder.mkdir()
    (folder / "alice.ipynb").write_text(b["baselines"].solution.read_text())
    nb = nbformat.read(b["baselines"].solution, as_version=4)
    cell = next(c for c in nb.cells if "p2 = 3 / 6" in c.source)
    cell.source = cell.source.replace("p2 = 3 / 6", "p2 = 4 / 6")
    nbformat.write(nb, folder / "bob.ipynb")
    (folder / "carol.ipynb").write_text("not a notebook")
    scores = tmp_path / "scores.csv"
    args = ["grade-all", "baselines", str(folder), "--csv", str(scores), "--built", str(out)]
    assert assignments.main(args) == 0
    rows = list(csv.DictReader(scores.open()))
    assert [(r["file"], r["student"], r["status"]) for r in rows] == [
        ("alice.ipynb", "alice", "ok"), ("bob.ipynb", "bob", "ok"), ("carol.ipynb", "carol", "error")]
    assert {k: rows[0][k] for k in ("total", "max", "q1", "q2", "q3")} == {"total": "7", "max": "7", "q1": "2",
                                                                        "q2": "2", "q3": "3"}
    assert (rows[1]["total"], rows[1]["q1"]) == ("6", "1")
    assert rows[2]["total"] == "0" and "is not a Jupyter notebook" in rows[2]["reason"]
    assert "carol.ipynb: error:" in capsys.readouterr().out

    assert assignments.main(args) == 2  # an existing CSV file is kept
    assert "scores.csv exists: pass --force" in capsys.readouterr().err
    assert len(list(csv.DictReader(scores.open()))) == 3
    (folder / "alice.ipynb").unlink()
    (folder / "bob.ipynb").unlink()
    assert assignments.main(args + ["--force"]) == 0
    assert [r["file"] for r in csv.DictReader(scores.open())] == ["carol.ipynb"]


def test_a_timeout_is_a_row_and_the_batch_goes_on(built, tmp_path):
    out, b = built
    folder = tmp_path / "submissions"
    folder.mkdir()
    loop, name = _looping(b, tmp_path)
    os.replace(loop, folder / "dave.ipynb")
    (folder / "erin.txt").write_text("my answers: 5/7 and 1/2")
    rows = assignments.grade_all("baselines", folder, tmp_path / "scores.csv", out, timeout=15)
    assert [(r["student"], r["status"], r["total"]) for r in rows] == [("dave", "timeout", "0"), ("erin", "error", "0")]
    assert "timed out after 15 s" in rows[0]["reason"] and _gone(name)


def test_bad_input_is_named(built, tmp_path, capsys):
    out, _ = built
    with pytest.raises(ValueError, match=r"unknown assignment 'nope'; assignments: \["):
        assignments.build(tmp_path, ["nope"])
    with pytest.raises(ValueError, match=r"unknown assignments \['nope', 'nix'\]; assignments: \["):
        assignments.build(tmp_path, ["nope", "nix"])
    assert assignments.main(["grade", "nosuch", "file.ipynb", "--built", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"error: unknown assignment 'nosuch'; assignments: {NAMES}" in err and "build" not in err
    with pytest.raises(FileNotFoundError, match="submission .*missing.ipynb does not exist"):
        assignments.grade("baselines", tmp_path / "missing.ipynb", out)
    (tmp_path / "text.ipynb").write_text("not json")
    with pytest.raises(ValueError, match="is not a Jupyter notebook"):
        assignments.grade("baselines", tmp_path / "text.ipynb", out)
    (tmp_path / "list.ipynb").write_text("[1, 2]")
    with pytest.raises(ValueError, match="is not a Jupyter notebook"):
        assignments.grade("baselines", tmp_path / "list.ipynb", out)
    with pytest.raises(FileNotFoundError, match="assignment 'baselines' is not built in .*build --only baselines"):
        assignments.grade("baselines", tmp_path / "text.ipynb", tmp_path / "empty")
    with pytest.raises(FileNotFoundError, match="submissions folder .* does not exist"):
        assignments.grade_all("baselines", tmp_path / "nowhere", tmp_path / "s.csv", out)


def test_the_grading_commands_say_how_submissions_run(capsys):
    for command in ("grade", "grade-all"):
        with pytest.raises(SystemExit):
            assignments.main([command, "--help"])
        help_text = " ".join(capsys.readouterr().out.split())
        assert "Each submission runs in a sandbox" in help_text and "--timeout SECONDS" in help_text
        assert "only the values of its answers leave it, and a separate process checks them" in help_text
        assert "Not as root, the submission runs with your rights" in help_text
    assert "code we do not trust" in assignments.__doc__ and "the notebook runs as you" in assignments.__doc__


def test_fingerprint_rounds_and_reads_common_types():
    import numpy as np
    import pandas as pd

    fp = assignments.fingerprint
    assert fp(2) == fp(2.0) == fp(np.int64(2)) == fp(2.00001) != fp(2.001)
    assert fp([0.5, 1]) == fp(np.array([0.5, 1.0])) == fp(pd.Series([0.5, 1.0], index=[7, 9])) != fp([1, 0.5])
    assert fp({"b": 1.0, "a": 2}) == fp({"a": 2.0, "b": 1}) and fp(-0.0) == fp(0.0)
    assert fp(True) == fp(np.bool_(True)) != fp(1) and fp("new") != fp("'new'")
    assert len({fp(...), fp(None), fp(0), fp("")}) == 4


def test_a_solution_that_fails_its_checks_stops_the_build(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    nb = nbformat.read(assignments.source_folder() / "otem_utem.ipynb", as_version=4)
    cell = next(c for c in nb.cells if "over_total = 2" in c.source)
    cell.source = cell.source.replace("over_total = 2", "over_total = 3")
    nbformat.write(nb, src / "otem_utem.ipynb")
    with pytest.raises(RuntimeError, match="otter assign failed for assignment 'otem_utem'"):
        assignments.build(tmp_path / "out", source_dir=src)
    assert not (tmp_path / "out" / "otem_utem").exists()
