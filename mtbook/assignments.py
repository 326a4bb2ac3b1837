"""Graded assignments: student notebooks and their graders, built with otter-grader.

Each source in ``assignments/NAME.ipynb`` is one annotated notebook (otter-grader's format:
questions, solutions, and tests with a failure message each). ``build`` turns it into a
student notebook (solutions removed, visible checks kept) and an autograder; ``grade`` runs
the autograder on a submitted notebook and reports every question's points and, for a failed
check, the message that says what to fix; ``grade-all`` grades a folder of submissions into
a CSV file, one row a submission.

Why otter-grader: it works offline and on one machine (``otter assign`` and ``otter run``
need no server, database or container), builds both the student notebook and the grader from
one source notebook, and attaches a message to each check. nbgrader needs a course folder,
a database and its formgrader service for the same job.

Grading runs the students' code with your rights: ``grade`` executes each submitted notebook
as the user who runs it, on this machine, with no container, so a submission can read, change
or delete whatever that user can, and use the network. Grade in a throw-away container or
virtual machine, or as an unprivileged user who can read only the submissions and the built
graders; otter-grader's ``otter grade`` runs each submission in its own Docker container (the
isolated option). A submission that runs longer than ``--timeout`` seconds (an endless loop)
is stopped, with everything it started, and scores 0.

Usage::

    python -m mtbook.assignments build                     # every assignment into _build/assignments/
    python -m mtbook.assignments grade baselines SUBMISSION.ipynb
    python -m mtbook.assignments grade-all baselines SUBMISSIONS/ --csv scores.csv
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import numbers
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from mtbook.repository import find_repository

__all__ = ["Built", "QuestionResult", "DEFAULT_TIMEOUT", "list_assignments", "build", "grade", "grade_all",
           "fingerprint", "main"]

DEFAULT_TIMEOUT = 600.0  # seconds one submission may run: ours take about 10

RIGHTS_WARNING = ("Grading runs the submitted notebooks' code with your rights: as you, on this machine, "
                  "with your files and network. Grade in a throw-away container or virtual machine, or as "
                  "an unprivileged user; otter-grader's `otter grade` (Docker) is the isolated option.")


def source_folder() -> Path:
    """The repository's ``assignments/``."""
    return find_repository().assignments


def build_folder() -> Path:
    """Where assignments are built by default: the repository's ``_build/assignments/``."""
    return find_repository().build / "assignments"


@dataclass(frozen=True)
class Built:
    """One built assignment: the notebook students get, the solution, and the grader."""

    name: str
    student: Path
    solution: Path
    autograder: Path


@dataclass(frozen=True)
class QuestionResult:
    name: str
    score: float
    max_score: float
    messages: list[str]  # the failure messages of the checks that failed

    @property
    def passed(self) -> bool:
        return self.score == self.max_score


def list_assignments(source_dir: Path | None = None) -> list[str]:
    source_dir = source_folder() if source_dir is None else source_dir
    return sorted(p.stem for p in source_dir.glob("*.ipynb"))


def _check_names(names: Sequence[str], source_dir: Path | None) -> None:
    known = list_assignments(source_dir)
    unknown = [n for n in names if n not in known]
    if unknown:
        what = f"assignment {unknown[0]!r}" if len(unknown) == 1 else f"assignments {unknown}"
        raise ValueError(f"unknown {what}; assignments: {known}")


def fingerprint(value: Any, digits: int = 4) -> str:
    """A short hash of ``value``, its numbers rounded to ``digits`` decimals.

    A visible check compares an answer's fingerprint with the right answer's, so that it catches
    any wrong value without showing the right one in the student notebook. Numbers (int or
    float alike), strings, booleans, sequences, arrays, pandas Series (their values in order) and
    dicts (by key) are understood; anything else (``...``, ``None``) matches no answer."""
    return hashlib.sha256(_canonical(value, digits).encode()).hexdigest()[:12]


def _canonical(value: Any, digits: int) -> str:
    if isinstance(value, (str, bool, np.bool_)):
        return repr(value if isinstance(value, str) else bool(value))
    if isinstance(value, numbers.Real):
        return f"{float(value) + 0.0:.{digits}f}"  # + 0.0 turns -0.0 into 0.0
    if isinstance(value, dict):
        items = sorted((str(k), _canonical(v, digits)) for k, v in value.items())
        return "{" + ",".join(f"{k}:{v}" for k, v in items) + "}"
    if isinstance(value, (list, tuple)) or hasattr(value, "__array__"):
        return "[" + ",".join(_canonical(v, digits) for v in np.asarray(value).ravel().tolist()) + "]"
    return repr(value)


def _otter(*args: str, cwd: Path, timeout: float | None = None) -> subprocess.CompletedProcess:
    """Runs otter; stopped after ``timeout`` seconds, or on any interruption, with every process it
    started: the notebook's kernel runs in a session of its own, which killing otter alone leaves
    running (and an endless loop spinning)."""
    proc = subprocess.Popen([sys.executable, "-m", "otter", *args], cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = proc.communicate(timeout=timeout)
    except BaseException as e:
        _kill_tree(proc.pid)
        proc.communicate()
        if isinstance(e, subprocess.TimeoutExpired):
            raise TimeoutError(f"timed out after {timeout:g} s") from None
        raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _kill_tree(pid: int) -> None:
    import psutil  # a dependency of ipykernel, which otter runs the notebooks with

    try:
        parent = psutil.Process(pid)
        procs = [parent, *parent.children(recursive=True)]
    except psutil.NoSuchProcess:
        return
    for p in procs:
        try:
            p.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(procs, timeout=10)


def _built(name: str, folder: Path) -> Built:
    zips = sorted((folder / "autograder").glob(f"{name}-autograder_*.zip"))
    if not zips:
        raise FileNotFoundError(f"assignment {name!r} is not built in {folder}: run "
                                f"`python -m mtbook.assignments build --only {name}`")
    return Built(name, folder / "student" / f"{name}.ipynb", folder / "autograder" / f"{name}.ipynb", zips[-1])


def _grader(name: str, built_dir: Path, source_dir: Path | None) -> Built:
    """The built grader of ``name``; an unknown name is named as such, not sent to be built."""
    try:
        return _built(name, built_dir / name)
    except FileNotFoundError:
        _check_names([name], source_dir)
        raise


def build(out_dir: Path | None = None, only: Sequence[str] | None = None, *,
          source_dir: Path | None = None) -> list[Built]:
    """Builds each assignment into ``out_dir/NAME/`` (``student/``, ``autograder/``).

    Each is built in a temporary folder and moved into place only when ``otter assign``
    succeeded, replacing that assignment's previous build (generated files only)."""
    out_dir = build_folder() if out_dir is None else Path(out_dir)
    source_dir = source_folder() if source_dir is None else Path(source_dir)
    names = list(only) if only else list_assignments(source_dir)
    _check_names(names, source_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    built = []
    for name in names:
        with tempfile.TemporaryDirectory(prefix=f"mtlib-assign-{name}-") as tmp:
            src = Path(tmp) / f"{name}.ipynb"
            shutil.copyfile(source_dir / f"{name}.ipynb", src)
            # otter assign runs the solution notebook against every check and fails if one fails.
            proc = _otter("assign", src.name, "dist", cwd=Path(tmp))
            if proc.returncode != 0:
                raise RuntimeError(f"otter assign failed for assignment {name!r}:\n{proc.stdout[-3000:]}"
                                   f"{proc.stderr[-3000:]}")
            target = out_dir / name
            if target.exists():
                shutil.rmtree(target)
            shutil.move(str(Path(tmp) / "dist"), target)
        built.append(_built(name, target))
    return built


def grade(name: str, submission: str | Path, built_dir: Path | None = None, *,
          timeout: float = DEFAULT_TIMEOUT, source_dir: Path | None = None) -> list[QuestionResult]:
    """Runs assignment ``name``'s autograder (``otter run``, no container) on ``submission``.

    It runs the submission's code with the caller's rights (see the module's docstring).
    Raises TimeoutError when grading takes over ``timeout`` seconds (the submission scores 0)."""
    built_dir = build_folder() if built_dir is None else Path(built_dir)
    grader = _grader(name, built_dir, source_dir)
    submission = Path(submission).resolve()
    if not submission.is_file():
        raise FileNotFoundError(f"submission {submission} does not exist")
    try:
        notebook = json.loads(submission.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"submission {submission} is not a Jupyter notebook ({e})") from None
    if not isinstance(notebook, dict) or "cells" not in notebook:
        raise ValueError(f"submission {submission} is not a Jupyter notebook (no cells)")
    with tempfile.TemporaryDirectory(prefix=f"mtlib-grade-{name}-") as tmp:
        try:
            proc = _otter("run", "-a", str(grader.autograder), "-o", tmp, str(submission), cwd=Path(tmp),
                          timeout=timeout)
        except TimeoutError as e:
            raise TimeoutError(f"grading {submission.name} {e} (an endless loop?); it scores 0") from None
        results = Path(tmp) / "results.json"
        if not results.is_file():
            raise RuntimeError(f"otter run wrote no results for {submission}:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
        tests = json.loads(results.read_text())["tests"]
    return [QuestionResult(t["name"], float(t["score"]), float(t["max_score"]), _messages(t.get("output", "")))
            for t in tests if t.get("max_score") is not None]


def _messages(output: str) -> list[str]:
    """The failure messages in otter's report of one question (lines "qN - k message: ...")."""
    return [line.split(" message: ", 1)[1].strip() for line in output.splitlines() if " message: " in line]


def _points(grader: Built) -> dict[str, float]:
    """Each question's points, from the solution notebook's tests (hidden ones included)."""
    tests = json.loads(grader.solution.read_text(encoding="utf-8"))["metadata"]["otter"]["tests"]
    return {q: float(t["points"]) for q, t in tests.items()}


def grade_all(name: str, folder: str | Path, csv_path: str | Path, built_dir: Path | None = None, *,
              timeout: float = DEFAULT_TIMEOUT, force: bool = False, source_dir: Path | None = None,
              on_row: Callable[[dict], None] | None = None) -> list[dict]:
    """Grades every file in ``folder`` (one a student, named ``STUDENT.ipynb``) into ``csv_path``.

    One row a file: file, student (the file's name without extension), total, max, each
    question's points, status (ok, timeout or error) and the reason. A broken submission gets
    its row, total 0, and the batch goes on; rows are written as they are graded. An existing
    ``csv_path`` is overwritten only with ``force``."""
    built_dir = build_folder() if built_dir is None else Path(built_dir)
    grader = _grader(name, built_dir, source_dir)
    folder, csv_path = Path(folder), Path(csv_path)
    if not folder.is_dir():
        raise FileNotFoundError(f"submissions folder {folder} does not exist")
    if csv_path.exists() and not force:
        raise FileExistsError(f"{csv_path} exists: pass --force to overwrite it")
    files = sorted(p for p in folder.iterdir()
                   if p.is_file() and not p.name.startswith(".") and p.resolve() != csv_path.resolve())
    if not files:
        raise FileNotFoundError(f"no submissions in {folder}")
    points = _points(grader)
    rows = []
    with open(csv_path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, ["file", "student", "total", "max", *points, "status", "reason"])
        writer.writeheader()
        for path in files:
            row = {"file": path.name, "student": path.stem, "total": "0", "max": f"{sum(points.values()):g}",
                   "status": "ok", "reason": ""}
            try:
                results = grade(name, path, built_dir, timeout=timeout)
                row.update({r.name: f"{round(r.score, 2):g}" for r in results},
                           total=f"{round(sum(r.score for r in results), 2):g}")
            except TimeoutError as e:
                row.update(status="timeout", reason=str(e))
            except (ValueError, FileNotFoundError, RuntimeError) as e:
                row.update(status="error", reason=str(e))
            writer.writerow(row)
            f.flush()
            rows.append(row)
            if on_row is not None:
                on_row(row)
    return rows


def _report(name: str, results: list[QuestionResult]) -> str:
    total, best = sum(r.score for r in results), sum(r.max_score for r in results)
    lines = [f"{name}: {round(total, 2):g} / {best:g} points"]
    for r in results:
        lines.append(f"  {r.name}: {round(r.score, 2):g} / {r.max_score:g}" + ("" if r.passed else "  ✗"))
        lines.extend(f"      - {m}" for m in r.messages)
    return "\n".join(lines)


def _seconds(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mtbook.assignments", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="build student notebooks and graders")
    b.add_argument("--out", type=Path, default=None, help="default: _build/assignments/ in the repository")
    b.add_argument("--only", nargs="+", metavar="NAME")
    g = sub.add_parser("grade", help="grade a submitted notebook (its code runs with your rights)",
                       description=RIGHTS_WARNING)
    g.add_argument("name")
    g.add_argument("submission", type=Path)
    ga = sub.add_parser("grade-all", help="grade a folder of submissions into a CSV file",
                        description="One row a file of FOLDER (name each STUDENT.ipynb). " + RIGHTS_WARNING)
    ga.add_argument("name")
    ga.add_argument("folder", type=Path)
    ga.add_argument("--csv", type=Path, required=True, help="the scores file to write")
    ga.add_argument("--force", action="store_true", help="overwrite an existing CSV file")
    for p in (g, ga):
        p.add_argument("--built", type=Path, default=None, help="where `build` wrote the graders (default: as build)")
        p.add_argument("--timeout", type=_seconds, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                       help=f"stop grading a submission after this long; it scores 0 (default: {DEFAULT_TIMEOUT:g})")
    sub.add_parser("list", help="list the assignments")
    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            print("\n".join(list_assignments()))
        elif args.command == "build":
            for item in build(args.out, args.only):
                print(f"{item.name}: student notebook {item.student}\n{' ' * len(item.name)}  grader {item.autograder}")
        elif args.command == "grade":
            print(_report(args.name, grade(args.name, args.submission, args.built, timeout=args.timeout)))
        else:
            def show(row: dict) -> None:
                print(f"{row['file']}: " + (f"{row['total']} / {row['max']}" if row["status"] == "ok"
                                            else f"{row['status']}: {row['reason']}"), flush=True)
            rows = grade_all(args.name, args.folder, args.csv, args.built, timeout=args.timeout, force=args.force,
                             on_row=show)
            print(f"{len(rows)} submissions graded into {args.csv}")
    except (ValueError, OSError, RuntimeError) as e:  # OSError: missing or existing files, TimeoutError
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
