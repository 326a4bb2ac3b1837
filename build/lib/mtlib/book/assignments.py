"""Graded assignments: student notebooks and their graders, built with otter-grader.

Each source in ``assignments/NAME.ipynb`` is one annotated notebook (otter-grader's format:
questions, solutions, and tests with a failure message each). ``build`` turns it into a
student notebook (solutions removed, visible checks kept) and an autograder; ``grade`` runs
the autograder on a submitted notebook and reports every question's points and, for a failed
check, the message that says what to fix.

Why otter-grader: it works offline and on one machine (``otter assign`` and ``otter run``
need no server, database or container), builds both the student notebook and the grader from
one source notebook, and attaches a message to each check. nbgrader needs a course folder,
a database and its formgrader service for the same job.

Usage::

    python -m mtlib.book.assignments build                     # every assignment into _build/assignments/
    python -m mtlib.book.assignments grade baselines SUBMISSION.ipynb
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from mtlib.book.repository import find_repository

__all__ = ["Built", "QuestionResult", "list_assignments", "build", "grade", "main"]



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


def _check_names(names: Sequence[str], source_dir: Path) -> None:
    known = list_assignments(source_dir)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown assignment(s) {unknown}; assignments: {known}")


def _otter(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "otter", *args], cwd=cwd, capture_output=True, text=True)


def _built(name: str, folder: Path) -> Built:
    zips = sorted((folder / "autograder").glob(f"{name}-autograder_*.zip"))
    if not zips:
        raise FileNotFoundError(f"assignment {name!r} is not built in {folder}: run "
                                f"`python -m mtlib.book.assignments build --only {name}`")
    return Built(name, folder / "student" / f"{name}.ipynb", folder / "autograder" / f"{name}.ipynb", zips[-1])


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


def grade(name: str, submission: str | Path, built_dir: Path | None = None) -> list[QuestionResult]:
    """Runs assignment ``name``'s autograder (``otter run``, no container) on ``submission``."""
    built_dir = build_folder() if built_dir is None else Path(built_dir)
    grader = _built(name, built_dir / name)
    submission = Path(submission).resolve()
    if not submission.is_file():
        raise FileNotFoundError(f"submission {submission} does not exist")
    try:
        json.loads(submission.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"submission {submission} is not a Jupyter notebook ({e})") from None
    with tempfile.TemporaryDirectory(prefix=f"mtlib-grade-{name}-") as tmp:
        proc = _otter("run", "-a", str(grader.autograder), "-o", tmp, str(submission), cwd=Path(tmp))
        results = Path(tmp) / "results.json"
        if not results.is_file():
            raise RuntimeError(f"otter run wrote no results for {submission}:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
        tests = json.loads(results.read_text())["tests"]
    return [QuestionResult(t["name"], float(t["score"]), float(t["max_score"]), _messages(t.get("output", "")))
            for t in tests if t.get("max_score") is not None]


def _messages(output: str) -> list[str]:
    """The failure messages in otter's report of one question (lines "qN - k message: ...")."""
    return [line.split(" message: ", 1)[1].strip() for line in output.splitlines() if " message: " in line]


def _report(name: str, results: list[QuestionResult]) -> str:
    total, best = sum(r.score for r in results), sum(r.max_score for r in results)
    lines = [f"{name}: {round(total, 2):g} / {best:g} points"]
    for r in results:
        lines.append(f"  {r.name}: {round(r.score, 2):g} / {r.max_score:g}" + ("" if r.passed else "  ✗"))
        lines.extend(f"      - {m}" for m in r.messages)
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mtlib.book.assignments", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="build student notebooks and graders")
    b.add_argument("--out", type=Path, default=None, help="default: _build/assignments/ in the repository")
    b.add_argument("--only", nargs="+", metavar="NAME")
    g = sub.add_parser("grade", help="grade a submitted notebook")
    g.add_argument("name")
    g.add_argument("submission", type=Path)
    g.add_argument("--built", type=Path, default=None, help="where `build` wrote the graders (default: as build)")
    sub.add_parser("list", help="list the assignments")
    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            print("\n".join(list_assignments()))
        elif args.command == "build":
            for item in build(args.out, args.only):
                print(f"{item.name}: student notebook {item.student}\n{' ' * len(item.name)}  grader {item.autograder}")
        else:
            print(_report(args.name, grade(args.name, args.submission, args.built)))
    except (ValueError, FileNotFoundError, RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
