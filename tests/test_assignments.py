"""Graded assignments: every solution passes its checks, the unanswered student notebook
fails them, a wrong answer gets the message that says what to fix, and bad input is named."""

import json

import nbformat
import pytest

from mtlib.book import assignments

pytest.importorskip("otter", reason="otter-grader is not installed (the `teach` extra)")
pytestmark = pytest.mark.slow
NAMES = assignments.list_assignments()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("assignments")
    return out, {b.name: b for b in assignments.build(out)}


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


def test_wrong_answer_gets_a_helpful_message(built, tmp_path):
    out, b = built
    nb = nbformat.read(b["baselines"].solution, as_version=4)
    cell = next(c for c in nb.cells if "p1 = 5 / 7" in c.source)
    cell.source = cell.source.replace("p1 = 5 / 7", "p1 = 5 / 6")  # forgot to clip 'the' and 'cat'... partly
    wrong = tmp_path / "wrong.ipynb"
    nbformat.write(nb, wrong)
    results = {q.name: q for q in assignments.grade("baselines", wrong, out)}
    assert results["q1"].score < results["q1"].max_score and results["q2"].passed
    assert any("Clip each count at the reference's count" in m for m in results["q1"].messages)


def test_bad_input_is_named(built, tmp_path):
    out, _ = built
    with pytest.raises(ValueError, match=r"unknown assignment\(s\) \['nope'\]; assignments: \["):
        assignments.build(tmp_path, ["nope"])
    with pytest.raises(FileNotFoundError, match="submission .*missing.ipynb does not exist"):
        assignments.grade("baselines", tmp_path / "missing.ipynb", out)
    (tmp_path / "text.ipynb").write_text("not json")
    with pytest.raises(ValueError, match="is not a Jupyter notebook"):
        assignments.grade("baselines", tmp_path / "text.ipynb", out)
    with pytest.raises(FileNotFoundError, match="assignment 'baselines' is not built in"):
        assignments.grade("baselines", tmp_path / "text.ipynb", tmp_path / "empty")


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
