"""Graded assignments: student notebooks and their graders, built with otter-grader.

Each source in ``assignments/NAME.ipynb`` is one annotated notebook (otter-grader's format:
questions, solutions, and tests with a failure message each). ``build`` turns it into a
student notebook (solutions removed, visible checks kept) and an autograder; ``grade`` runs
a submitted notebook and checks its answers, reporting every question's points and, for a
failed check, the message that says what to fix; ``grade-all`` grades a folder of
submissions into a CSV file, one row a submission.

Why otter-grader: it works offline and on one machine (``otter assign`` needs no server,
database or container), builds both the student notebook and the grader from one source
notebook, and attaches a message to each check. nbgrader needs a course folder, a database
and its formgrader service for the same job.

Grading takes student code for what it is, code we do not trust. Each submission's code
cells run in a sandbox (:mod:`mtbook.sandbox`: as root on Linux, a user id of its own, no
network, every file system read-only, the repository, the graders, the other submissions
and the scores out of sight, resource limits, everything it started killed at the end),
with one cell added by the grader that writes the values of the answers (numbers, strings,
booleans, lists, dicts, arrays, pandas Series: data, never objects or code) to a file.
Those values alone leave the sandbox. A separate, fresh process, which the submission
never touches, runs the solution notebook's given code, puts the submitted values in place
of the solution lines and runs every check, hidden ones included. A submission can therefore
get points only with right values: it cannot change a check, the fingerprint function,
another submission or the scores. A submission that runs longer than ``--timeout`` seconds
(an endless loop) is stopped, with everything it started, and scores 0. Where the sandbox
is not available (not root), the notebook runs as you in a temporary folder with the
resource limits only, with a warning: grade as root on a throw-away machine or container.

Usage::

    python -m mtbook.assignments build                     # every assignment into _build/assignments/
    python -m mtbook.assignments grade baselines SUBMISSION.ipynb
    python -m mtbook.assignments grade-all baselines SUBMISSIONS/ --csv scores.csv
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import csv
import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from mtbook import sandbox
from mtlib.fingerprint import fingerprint  # noqa: F401 - the checks' function, public here too
from mtbook.repository import find_repository, is_repository

__all__ = ["Built", "QuestionResult", "DEFAULT_TIMEOUT", "list_assignments", "build", "grade", "grade_all",
           "check_answers", "answer_names", "fingerprint", "main"]

DEFAULT_TIMEOUT = 600.0  # seconds one submission may run: ours take 5 to 17
ANSWERS = "answers.json"  # the file the grader's last cell writes in the sandbox
SANDBOX_WARNING = ("Each submission runs in a sandbox (as root on Linux: a user id of its own, no network, "
                   "read-only files, the repository, graders, other submissions and scores out of sight, "
                   "resource limits, everything it started killed at the end); only the values of its "
                   "answers leave it, and a separate process checks them. Not as root, the submission runs "
                   "with your rights (a warning says so).")


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


def _otter(*args: str, cwd: Path, timeout: float | None = None) -> subprocess.CompletedProcess:
    """Runs otter (``otter assign``, on our own solution notebooks); stopped after ``timeout``
    seconds, or on any interruption, with every process it started: the notebook's kernel runs
    in a session of its own, which killing otter alone leaves running."""
    proc = subprocess.Popen([sys.executable, "-m", "otter", *args], cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = _communicate(proc, timeout, "timed out")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _communicate(proc: subprocess.Popen, timeout: float, what: str) -> tuple[str, str]:
    """``proc``'s output; on a timeout or an interrupt its whole process tree is killed first
    (a timeout raises TimeoutError: "<what> after N s")."""
    try:
        return proc.communicate(timeout=timeout)
    except BaseException as e:
        _kill_tree(proc.pid)
        proc.communicate()
        if isinstance(e, subprocess.TimeoutExpired):
            raise TimeoutError(f"{what} after {timeout:g} s") from None
        raise


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


# --- the solution notebook: given code, solution cells, checks -----------------------------------

def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _is_otter_cell(source: str) -> bool:
    """otter's own cells: ``grader = otter.Notebook(...)`` and ``grader.check(...)``."""
    return "otter.Notebook(" in source or re.search(r"^\s*grader\.", source, re.M) is not None


def _is_solution_cell(cell: dict) -> bool:
    return ("otter_assign_solution_cell" in cell.get("metadata", {}).get("tags", [])
            or any(line.rstrip().endswith("# SOLUTION") for line in _source(cell).splitlines()))


def _assigned(source: str) -> list[str]:
    """The names a cell's top-level statements assign (``a = ``, ``a, b = ``, ``a += ``)."""
    names = []
    for node in ast.parse(source).body:
        targets = (node.targets if isinstance(node, ast.Assign) else
                   [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
        for target in targets:
            names += [n.id for n in ast.walk(target) if isinstance(n, ast.Name) and n.id not in names]
    return names


def answer_names(solution: str | Path) -> list[str]:
    """The answers of an assignment: the names its solution cells assign, in order."""
    nb = json.loads(Path(solution).read_text(encoding="utf-8"))
    names: list[str] = []
    for cell in nb["cells"]:
        if cell["cell_type"] == "code" and _is_solution_cell(cell):
            names += [n for n in _assigned(_source(cell)) if n not in names]
    return names


# --- answers as data: written in the sandbox, read in the checking process ------------------------

# The grader's last cell in the submission's notebook: the answers' values as JSON. It runs in
# the sandbox, so the submission may change what it writes; the checking process trusts nothing
# in it but plain data (_decode).
EXPORT_CELL = '''\
def _grader_export(names, path):
    # Added by the grader: writes the answers' values (plain data only) for the checks.
    import json, sys
    np, pd = sys.modules.get("numpy"), sys.modules.get("pandas")

    def plain(v, depth=0):
        if depth > 40:
            raise ValueError("nested too deeply")
        if v is None or isinstance(v, bool) or (np is not None and isinstance(v, np.bool_)):
            return None if v is None else bool(v)
        if isinstance(v, int) or (np is not None and isinstance(v, np.integer)):
            return int(v)
        if isinstance(v, float) or (np is not None and isinstance(v, np.floating)):
            return float(v)
        if isinstance(v, str):
            return str(v)
        if isinstance(v, (list, tuple, set, frozenset)):
            items = [plain(x, depth + 1) for x in v]
            return items if isinstance(v, list) else {"$" + type(v).__name__.replace("frozen", ""): items}
        if isinstance(v, dict):
            return {"$dict": [[plain(k, depth + 1), plain(x, depth + 1)] for k, x in v.items()]}
        if np is not None and isinstance(v, np.ndarray):
            if v.dtype.kind in "biufU":
                return {"$ndarray": v.tolist(), "dtype": v.dtype.str}
            if v.dtype.kind == "O":
                return {"$ndarray": plain(v.tolist(), depth + 1), "dtype": "O"}
        if pd is not None and isinstance(v, pd.Series):
            return {"$series": plain(v.to_numpy(), depth + 1), "index": plain(v.index.to_numpy(), depth + 1),
                    "name": plain(v.name, depth + 1)}
        if pd is not None and isinstance(v, pd.Index) and not isinstance(v, pd.MultiIndex):
            return {"$index": plain(v.to_numpy(), depth + 1)}
        raise TypeError(type(v).__name__)

    out = {}
    for name in names:
        if name in globals():
            try:
                out[name] = plain(globals()[name])
            except Exception:  # not plain data: the answer is missing, its checks fail
                pass
    with open(path, "w") as f:
        json.dump(out, f)
'''

_DTYPE = re.compile(r"[<>|=]?[biufU][0-9]{1,3}")


def _decode(value: Any, depth: int = 0) -> Any:
    """A submitted value rebuilt from JSON: None, bool, int, float, str, and lists, tuples, sets,
    dicts, numpy arrays (numbers, booleans, strings) and pandas Series and Index of them; nothing
    else. Raises ValueError (or TypeError) for anything else."""
    if depth > 40:
        raise ValueError("nested too deeply")
    if value is None or type(value) in (bool, int, float, str):
        return value
    if type(value) is list:
        return [_decode(v, depth + 1) for v in value]
    if type(value) is not dict or len(value) not in (1, 2, 3):
        raise ValueError("not an answer value")
    if set(value) == {"$tuple"}:
        return tuple(_decode(value["$tuple"], depth + 1))
    if set(value) == {"$set"}:
        return set(_decode(value["$set"], depth + 1))
    if set(value) == {"$dict"}:
        return {_decode(k, depth + 1): _decode(v, depth + 1) for k, v in _pairs(value["$dict"])}
    if set(value) == {"$ndarray", "dtype"} and type(value["dtype"]) is str:
        if value["dtype"] == "O":
            return np.array(_decode(value["$ndarray"], depth + 1), dtype=object)
        if not _DTYPE.fullmatch(value["dtype"]) or type(value["$ndarray"]) not in (list, bool, int, float, str):
            raise ValueError("not an array of numbers, booleans or strings")
        return np.array(_scalars(value["$ndarray"]), dtype=np.dtype(value["dtype"]))
    import pandas as pd

    if set(value) == {"$series", "index", "name"}:
        data, index = _decode(value["$series"], depth + 1), _decode(value["index"], depth + 1)
        return pd.Series(data, index=pd.Index(index), name=_decode(value["name"], depth + 1))
    if set(value) == {"$index"}:
        return pd.Index(_decode(value["$index"], depth + 1))
    raise ValueError("not an answer value")


def _pairs(items: Any) -> list[tuple[Any, Any]]:
    if type(items) is not list or not all(type(p) is list and len(p) == 2 for p in items):
        raise ValueError("not a list of pairs")
    return [(k, v) for k, v in items]


def _scalars(data: Any) -> Any:
    """``data`` if it is a number, boolean or string or nested lists of them."""
    if type(data) is list:
        return [_scalars(v) for v in data]
    if type(data) not in (bool, int, float, str):
        raise ValueError("an array holds only numbers, booleans or strings")
    return data


def _decode_answers(data: bytes | None, names: Sequence[str]) -> dict[str, Any]:
    """The answers among ``names`` that decode as plain data (the others are left out)."""
    try:
        raw = json.loads(data.decode("utf-8")) if data else {}
    except (ValueError, RecursionError):
        return {}
    answers = {}
    for name in names:
        if isinstance(raw, dict) and name in raw:
            try:
                answers[name] = _decode(raw[name])
            except (ValueError, TypeError, OverflowError, RecursionError):
                pass
    return answers


def check_answers(solution: str | Path, answers: dict[str, Any]) -> list[QuestionResult]:
    """Runs every check of the solution notebook (hidden ones included) on ``answers`` (name ->
    value): its given code cells run in order, each solution cell replaced by the answers it
    assigns (an answer not given is left undefined, so its checks fail with their messages).

    It executes the solution notebook's code: call it only in a fresh process (``grade`` does)."""
    from otter.test_files import OKTestFile

    nb = json.loads(Path(solution).read_text(encoding="utf-8"))
    env: dict[str, Any] = {"__name__": "__main__"}
    quiet = io.StringIO()
    for cell in nb["cells"]:
        source = _source(cell)
        if cell["cell_type"] != "code" or _is_otter_cell(source):
            continue
        if _is_solution_cell(cell):
            for name in _assigned(source):
                if name in answers:
                    env[name] = answers[name]
                else:
                    env.pop(name, None)
            continue
        try:
            with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
                exec(compile(source, "<given code>", "exec"), env)
        except Exception:  # noqa: BLE001 - given code that needs a missing answer; its checks fail
            pass
    results = []
    for name, spec in nb["metadata"]["otter"]["tests"].items():
        test = OKTestFile.from_spec(spec)
        with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
            test.run(env)
        messages = [r.test_case.failure_message for r in test.test_case_results
                    if not r.passed and r.test_case.failure_message]
        results.append(QuestionResult(name, float(test.score), float(test.possible), messages))
    return results


def _check_process(solution: str, answers_file: str, result_file: str) -> None:
    """The checking process (``grade`` starts it fresh for each submission): reads the submitted
    values as data, runs the checks, writes the results as JSON."""
    names = answer_names(solution)
    data = Path(answers_file).read_bytes() if Path(answers_file).is_file() else None
    results = check_answers(solution, _decode_answers(data, names))
    Path(result_file).write_text(json.dumps([asdict(r) for r in results]), encoding="utf-8")


# --- grading ---------------------------------------------------------------------------------------

def _read_submission(submission: Path) -> dict:
    if not submission.is_file():
        raise FileNotFoundError(f"submission {submission} does not exist")
    try:
        notebook = json.loads(submission.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"submission {submission} is not a Jupyter notebook ({e})") from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise ValueError(f"submission {submission} is not a Jupyter notebook (no cells)")
    return notebook


def _to_run(notebook: dict, names: list[str]) -> bytes:
    """What runs in the sandbox: the submission's code cells (sources only) and the grader's last
    cell, which writes the answers' values."""
    import nbformat

    cells = []
    for cell in notebook["cells"]:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get("source", "")
            source = "".join(source) if isinstance(source, list) else source
            if isinstance(source, str):
                cells.append(nbformat.v4.new_code_cell(source))
    cells.append(nbformat.v4.new_code_cell(f"{EXPORT_CELL}\n\n_grader_export({names!r}, {ANSWERS!r})\n"))
    nb = nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "language": "python",
                                                                        "display_name": "Python 3"}})
    return nbformat.writes(nb).encode()


# Runs in the sandbox, as its user: executes the notebook with a fresh kernel, going on after a
# failing cell (as otter does), so that the answers cell runs.
EXECUTOR = """\
import sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, kernel_name="python3", allow_errors=True, timeout=None,
               resources={"metadata": {"path": "."}}).execute()
"""


def _folders_to_hide(*folders: Path | None) -> list[str]:
    """What a submission must not see: the given folders, the book's repository (sources with
    the solutions, built graders), and the repository this package was loaded from."""
    hidden = [str(f) for f in folders if f is not None]
    with contextlib.suppress(FileNotFoundError):
        hidden.append(str(find_repository().root))
    here = Path(__file__).resolve().parents[1]
    if is_repository(here):
        hidden.append(str(here))
    return hidden


def _folders_to_keep() -> list[str]:
    """What a notebook needs besides Python and its site-packages: mtlib (an editable install
    lives in the repository, which is hidden) and its example data."""
    spec = importlib.util.find_spec("mtlib")
    return list(spec.submodule_search_locations or []) if spec else []


def _run_submission(name: str, submission: Path, notebook: dict, names: list[str], timeout: float,
                    hide: Sequence[Path | None]) -> bytes:
    try:
        result = sandbox.run([sys.executable, "-I", "-c", EXECUTOR, f"{name}.ipynb"],
                             {f"{name}.ipynb": _to_run(notebook, names)}, output=ANSWERS, timeout=timeout,
                             hide=_folders_to_hide(submission.parent, *hide), keep=_folders_to_keep())
    except TimeoutError as e:
        raise TimeoutError(f"grading {submission.name} {e} (an endless loop?); it scores 0") from None
    if result.output is None:
        last = [line for line in result.log.splitlines() if line.strip()][-3:]
        raise RuntimeError(f"{submission.name}: the notebook stopped before its answers were read (exit status "
                           f"{result.returncode}{': ' + ' / '.join(last) if last else ''})")
    return result.output


def _check_in_fresh_process(solution: Path, answers: bytes, timeout: float) -> list[QuestionResult]:
    with tempfile.TemporaryDirectory(prefix="mtlib-check-") as tmp:
        answers_file, result_file = Path(tmp) / ANSWERS, Path(tmp) / "results.json"
        answers_file.write_bytes(answers)
        code = "import sys, mtbook.assignments as a; a._check_process(*sys.argv[1:])"
        proc = subprocess.Popen([sys.executable, "-c", code, str(solution), str(answers_file), str(result_file)],
                                cwd=tmp, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env={**os.environ, "MPLBACKEND": "Agg"})
        _, err = _communicate(proc, timeout, "checking the answers timed out")
        if proc.returncode != 0 or not result_file.is_file():
            raise RuntimeError(f"checking the answers failed (exit status {proc.returncode}): {err[-3000:]}")
        return [QuestionResult(**r) for r in json.loads(result_file.read_text(encoding="utf-8"))]


def grade(name: str, submission: str | Path, built_dir: Path | None = None, *,
          timeout: float = DEFAULT_TIMEOUT, source_dir: Path | None = None,
          hide: Sequence[Path] = ()) -> list[QuestionResult]:
    """Grades ``submission`` against assignment ``name``'s built solution and checks.

    Its code cells run in a sandbox (:mod:`mtbook.sandbox`; ``hide``: more folders it must
    not see); only the values of its answers come out, and a fresh process checks them.
    Raises TimeoutError when the submission runs over ``timeout`` seconds (it scores 0)."""
    built_dir = build_folder() if built_dir is None else Path(built_dir)
    grader = _grader(name, built_dir, source_dir)
    submission = Path(submission).resolve()
    notebook = _read_submission(submission)
    names = answer_names(grader.solution)
    answers = _run_submission(name, submission, notebook, names, timeout,
                              [built_dir.resolve(), None if source_dir is None else Path(source_dir).resolve(),
                               *map(Path, hide)])
    return _check_in_fresh_process(grader.solution, answers, timeout)


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
    its row, total 0, and the batch goes on. The CSV file is written once every submission has
    been graded, from the checks' results, to a temporary file in its folder renamed into place:
    an interrupted batch leaves no CSV file (and an existing one as it was). An existing
    ``csv_path`` is overwritten only with ``force``. No submission sees the folder of the CSV
    file or the other submissions."""
    built_dir = build_folder() if built_dir is None else Path(built_dir)
    grader = _grader(name, built_dir, source_dir)
    folder, csv_path = Path(folder), Path(csv_path)
    if not folder.is_dir():
        raise FileNotFoundError(f"submissions folder {folder} does not exist")
    if csv_path.is_dir():
        raise IsADirectoryError(f"{csv_path} is a folder, not a CSV file")
    if csv_path.exists() and not force:
        raise FileExistsError(f"{csv_path} exists: pass --force to overwrite it")
    csv_folder = csv_path.resolve().parent
    if not csv_folder.is_dir() or not os.access(csv_folder, os.W_OK):
        raise PermissionError(f"cannot write {csv_path}: its folder {csv_folder} does not exist or is not writable")
    files = sorted(p for p in folder.iterdir()
                   if p.is_file() and not p.name.startswith(".") and p.resolve() != csv_path.resolve())
    if not files:
        raise FileNotFoundError(f"no submissions in {folder}")
    points = _points(grader)
    rows = []
    for path in files:
        row = {"file": path.name, "student": path.stem, "total": "0", "max": f"{sum(points.values()):g}",
               "status": "ok", "reason": ""}
        try:
            results = grade(name, path, built_dir, timeout=timeout, source_dir=source_dir, hide=[csv_folder])
            row.update({r.name: f"{round(r.score, 2):g}" for r in results},
                       total=f"{round(sum(r.score for r in results), 2):g}")
        except TimeoutError as e:
            row.update(status="timeout", reason=str(e))
        except (ValueError, FileNotFoundError, RuntimeError) as e:
            row.update(status="error", reason=str(e))
        rows.append(row)
        if on_row is not None:
            on_row(row)
    _write_csv(csv_path, ["file", "student", "total", "max", *points, "status", "reason"], rows)
    return rows


def _write_csv(path: Path, columns: list[str], rows: list[dict]) -> None:
    """Writes the CSV file whole or not at all: a temporary file in its folder, renamed into place."""
    fd, tmp = tempfile.mkstemp(dir=path.resolve().parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, columns)
            writer.writeheader()
            writer.writerows(rows)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(e, OSError):
            raise OSError(f"cannot write {path} ({e.strerror or e}); nothing was written") from None
        raise


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
    g = sub.add_parser("grade", help="grade a submitted notebook (in a sandbox)", description=SANDBOX_WARNING)
    g.add_argument("name")
    g.add_argument("submission", type=Path)
    ga = sub.add_parser("grade-all", help="grade a folder of submissions into a CSV file",
                        description="One row a file of FOLDER (name each STUDENT.ipynb); the CSV file is written "
                                    "when all are graded. " + SANDBOX_WARNING)
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
        with sandbox.signals_interrupt(), warnings.catch_warnings():  # SIGTERM, SIGHUP: the sandbox in progress
            warnings.simplefilter("once", sandbox.SandboxWarning)  # is killed on the way out
            warnings.showwarning = lambda message, *_, **__: print(f"warning: {message}", file=sys.stderr)
            return _command(args)
    except KeyboardInterrupt as e:
        signum = getattr(e, "signum", 2)
        what = "no CSV file was written" if args.command == "grade-all" else "nothing was graded"
        print(f"error: interrupted ({'SIGINT' if signum == 2 else str(e)}); the submission's processes were killed "
              f"and {what}", file=sys.stderr)
        return 128 + signum
    except (ValueError, OSError, RuntimeError) as e:  # OSError: missing or existing files, TimeoutError
        print(f"error: {e}", file=sys.stderr)
        return 2


def _command(args: argparse.Namespace) -> int:
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
