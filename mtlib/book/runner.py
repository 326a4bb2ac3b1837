"""Executes the book's notebooks with papermill and checks the executed copies.

Sources live in ``notebooks/*.ipynb`` and stay clean; executed copies are written to
``book/`` (full profile, committed) or to any other folder (small profile, for tests).
Each executed copy records, in ``metadata.mtlib``, the profile, its parameters, any
overrides, a hash of the source, what it ran with (a hash of every mtlib module the kernel
loaded and the versions of the libraries that shape numbers: :mod:`mtlib.book.provenance`) and a
hash of what it printed, so :func:`check_book` catches a stale, small-profile or overridden
copy in ``book/``, one whose code or libraries changed, and one edited after execution. A notebook is executed into a temporary folder
and moved into place only when it succeeds; ``book/`` takes only the full profile.

Usage::

    python -m mtlib.book run --profile full            # all notebooks into book/
    python -m mtlib.book run --profile small --out runs/small --only wmt19_baselines
    python -m mtlib.book check                         # is book/ up to date?

The repository is found explicitly (:func:`~mtlib.book.repository.find_repository`: the
current folder or a parent, or ``MTLIB_BOOK``); every function also takes its folders.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Sequence

import yaml

from mtlib.book import provenance
from mtlib.book.repository import find_repository

__all__ = ["list_notebooks", "load_profiles", "source_hash", "executed_hash", "declared_parameters",
           "run_notebook", "run_all", "output_problems", "check_book", "main"]

PROFILES_NAME = "profiles.yml"
# Chapters whose executed copy is known to be stale, each with the reason a reader is shown.
KNOWN_STALE_FILE = "known_stale.yml"
BOOK_PROFILE = "full"


def list_notebooks(notebook_dir: Path | None = None) -> list[str]:
    """Names (stems) of the source notebooks (default: the repository's ``notebooks/``)."""
    notebook_dir = find_repository().notebooks if notebook_dir is None else Path(notebook_dir)
    return sorted(p.stem for p in notebook_dir.glob("*.ipynb"))


def load_profiles(path: Path | None = None) -> dict[str, dict[str, dict]]:
    """notebook -> profile -> parameters, from ``notebooks/profiles.yml``."""
    path = find_repository().profiles if path is None else path
    with open(path, encoding="utf-8") as f:
        profiles = yaml.safe_load(f) or {}
    if not isinstance(profiles, dict):
        raise ValueError(f"{path}: expected a mapping notebook -> profile -> parameters")
    return profiles


def _parameters(name: str, profile: str, profiles: dict) -> dict:
    if name not in profiles:
        raise ValueError(f"notebook {name!r} has no entry in {PROFILES_NAME}; "
                         f"notebooks there: {sorted(profiles)}")
    if profile not in profiles[name]:
        raise ValueError(f"unknown profile {profile!r} for notebook {name!r}; "
                         f"known: {sorted(profiles[name])}")
    return dict(profiles[name][profile] or {})


def source_hash(path: Path, parameters: dict) -> str:
    """SHA-256 of the cells' types and sources plus the profile parameters.

    Outputs, execution counts and metadata do not count: saving a notebook in
    JupyterLab does not make the book stale, editing a cell or a profile does.
    """
    nb = json.loads(path.read_text(encoding="utf-8"))
    h = hashlib.sha256()
    for cell in nb["cells"]:
        src = cell["source"]
        h.update(cell["cell_type"].encode() + b"\x00" + ("".join(src) if isinstance(src, list) else src).encode())
        h.update(b"\x01")
    h.update(json.dumps(parameters, sort_keys=True).encode())
    return h.hexdigest()


def _joined(value):
    """nbformat stores multi-line text as a list of lines or as one string: hash either alike."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "".join(value)
    if isinstance(value, list):
        return [_joined(v) for v in value]
    if isinstance(value, dict):
        return {k: _joined(v) for k, v in value.items()}
    return value


def executed_hash(nb: dict) -> str:
    """SHA-256 of every cell's type, source and outputs (what the book shows): an executed copy
    edited by hand no longer matches the hash recorded when it was written."""
    h = hashlib.sha256()
    for cell in nb["cells"]:
        part = {"type": cell["cell_type"], "source": _joined(cell["source"]),
                "outputs": [{k: _joined(v) for k, v in out.items() if k != "execution_count"}
                            for out in cell.get("outputs", [])]}
        h.update(json.dumps(part, sort_keys=True, ensure_ascii=False).encode("utf-8") + b"\x00")
    return h.hexdigest()


# Appended to the copy papermill executes; the runner moves its answer into the metadata.
_PROVENANCE_CELL = "from mtlib.book.provenance import executed_with as _mtlib_executed_with\n_mtlib_executed_with();"


def _take_provenance(nb) -> dict:
    """Removes the appended provenance cell and returns its record."""
    from mtlib.book.provenance import MIME_TYPE

    cell = nb.cells[-1]
    records = [o["data"][MIME_TYPE] for o in cell.get("outputs", []) if MIME_TYPE in o.get("data", {})]
    if cell.source != _PROVENANCE_CELL or len(records) != 1:
        raise RuntimeError("the executed notebook does not end with mtlib's provenance record")
    del nb.cells[-1]
    return dict(records[0])


# A tqdm progress bar as it reaches stderr ("embedding (…):  42%|████ | 1950/4640 [00:10<…, 190sent/s]").
_PROGRESS_BAR = re.compile(r"\d+%\|.*\| *[\d.]+[kMG]?/[\d.?]+[kMG]? \[")


def drop_progress_bars(nb) -> int:
    """Removes progress bars from stderr outputs (they report how long a cold cache took to
    fill, not what the chapter found, and differ between a cold and a warm run); returns how
    many outputs changed. Every other line of stderr, warnings included, stays."""
    changed = 0
    for cell in nb["cells"]:
        kept = []
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream" and out.get("name") == "stderr":
                text = "".join(out["text"]) if isinstance(out["text"], list) else out["text"]
                # What a terminal would show of each line: the part after its last carriage return.
                lines = [line.rsplit("\r", 1)[-1] for line in text.split("\n")]
                rest = "\n".join(line for line in lines if not _PROGRESS_BAR.search(line))
                if rest != text or not rest.strip():  # a bare newline is what a closed bar leaves
                    changed += 1
                    if not rest.strip():
                        continue
                    out["text"] = rest
            kept.append(out)
        if "outputs" in cell:
            cell["outputs"] = kept
    return changed


def _mark_cells(nb) -> None:
    for cell in nb.cells:
        tags = cell.metadata.setdefault("tags", [])
        # The injected values are recorded in metadata and shown by the notebook itself.
        if "injected-parameters" in tags and "remove-cell" not in tags:
            tags.append("remove-cell")
        if "parameters" in tags and "hide-cell" not in tags:
            tags.append("hide-cell")


def declared_parameters(path: Path) -> list[str]:
    """Names assigned in the notebook's ``parameters`` cell (what papermill may override)."""
    import papermill as pm
    return sorted(pm.inspect_notebook(str(path)))


def _check_parameters(name: str, src: Path, given: dict) -> None:
    declared = declared_parameters(src)
    unknown = sorted(set(given) - set(declared))
    if unknown:
        raise ValueError(f"notebook {name!r} has no parameter(s) {unknown}; its parameters: {declared}")


def _is_book(out_dir: Path, book_dir: Path) -> bool:
    return Path(out_dir).resolve() == Path(book_dir).resolve()


def _check_out_dir(out_dir: Path, book_dir: Path) -> None:
    out, book = Path(out_dir).resolve(), Path(book_dir).resolve()
    if out != book and out.is_relative_to(book):
        raise ValueError(f"refusing to write into {out_dir}, a folder inside book/: the book builds every notebook "
                         "under it. Write runs elsewhere (e.g. --out runs/NAME)")


def run_notebook(name: str, profile: str, out_dir: Path, *, notebook_dir: Path | None = None,
                 book_dir: Path | None = None, profiles: dict | None = None,
                 extra_parameters: dict | None = None, log_output: bool = False,
                 allow_book_overrides: bool = False) -> Path:
    """Executes one notebook with a profile; returns the executed copy's path.

    The notebook is executed into a temporary folder and moved into ``out_dir`` only when it
    ran to the end, so a failure never replaces an existing copy. ``book/`` takes only the
    full profile, and parameter overrides only with ``allow_book_overrides`` (the copy then
    records them and :func:`check_book` reports it as not the book's).

    Raises:
        ValueError: unknown notebook entry, profile or parameter (listing the valid ones), or
            a refused write into ``book/``.
        RuntimeError: execution failed; names the notebook and the partial copy, with the
            papermill error chained (the original traceback is kept).
    """
    notebook_dir, book_dir = _folders(notebook_dir, book_dir)
    job = _prepare(name, profile, Path(out_dir), notebook_dir, book_dir, profiles, extra_parameters,
                   allow_book_overrides)
    return _execute(job, log_output=log_output)


def _folders(notebook_dir: Path | None, book_dir: Path | None) -> tuple[Path, Path]:
    if notebook_dir is None or book_dir is None:
        repo = find_repository()
        notebook_dir = repo.notebooks if notebook_dir is None else notebook_dir
        book_dir = repo.book if book_dir is None else book_dir
    return Path(notebook_dir), Path(book_dir)


def _prepare(name: str, profile: str, out_dir: Path, notebook_dir: Path, book_dir: Path, profiles: dict | None,
             extra_parameters: dict | None, allow_book_overrides: bool) -> dict:
    """Every check of one run (notebook, profile, parameters, destination) before anything runs."""
    src = notebook_dir / f"{name}.ipynb"
    if not src.exists():
        raise FileNotFoundError(f"no notebook {src}; notebooks: {list_notebooks(notebook_dir)}")
    profiles = load_profiles(notebook_dir / PROFILES_NAME) if profiles is None else profiles
    params = _parameters(name, profile, profiles)
    extra = dict(extra_parameters or {})  # e.g. a data path: recorded, not hashed
    _check_parameters(name, src, {**params, **extra, "profile": profile})
    _check_out_dir(out_dir, book_dir)
    if _is_book(out_dir, book_dir):
        if profile != BOOK_PROFILE:
            raise ValueError(f"book/ takes only the {BOOK_PROFILE!r} profile, not {profile!r}: pass another out_dir")
        if extra and not allow_book_overrides:
            raise ValueError(f"refusing to write {name!r} into book/ with overrides {extra}: the published book "
                             f"is the {BOOK_PROFILE!r} profile as in {PROFILES_NAME}. Write elsewhere "
                             "(--out), or pass --allow-book-overrides (check then reports the copy)")
    return dict(name=name, profile=profile, out_dir=out_dir, notebook_dir=notebook_dir, src=src, params=params,
                extra=extra)


def _execute(job: dict, *, log_output: bool) -> Path:
    """Runs a prepared job (:func:`_prepare`) and writes the executed copy."""
    import nbformat
    import papermill as pm

    name, profile, out_dir, notebook_dir = job["name"], job["profile"], job["out_dir"], job["notebook_dir"]
    src, params, extra = job["src"], job["params"], job["extra"]
    work = Path(tempfile.mkdtemp(prefix=f"mtlib-{name}-"))
    partial = work / f"{name}.ipynb"
    to_run = work / f"{name}.source.ipynb"
    source_nb = nbformat.read(src, as_version=4)
    source_nb.cells.append(nbformat.v4.new_code_cell(_PROVENANCE_CELL))
    nbformat.write(source_nb, to_run)
    try:
        pm.execute_notebook(str(to_run), str(partial), parameters={**params, **extra, "profile": profile},
                            kernel_name="python3", cwd=str(notebook_dir), log_output=log_output,
                            progress_bar=False)
    except Exception as err:
        raise RuntimeError(f"notebook {name!r} failed with profile {profile!r} "
                           f"(partial output in {partial}; {out_dir} is unchanged): {err}") from err
    nb = nbformat.read(partial, as_version=4)
    ran_with = _take_provenance(nb)
    drop_progress_bars(nb)
    _mark_cells(nb)
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"{name}.ipynb"
    # papermill records absolute paths of this machine; keep them relative to the repository.
    root = notebook_dir.resolve().parent
    pm_meta = nb.metadata.get("papermill", {})
    pm_meta["input_path"], pm_meta["output_path"] = str(src), str(out)
    for key in ("input_path", "output_path"):
        path = Path(pm_meta[key]).resolve()
        pm_meta[key] = str(path.relative_to(root)) if path.is_relative_to(root) else path.name
    nb.metadata["mtlib"] = {"profile": profile, "parameters": params, "overrides": extra,
                            "source_sha256": source_hash(src, params), "ran_with": ran_with,
                            "executed_sha256": executed_hash(nb)}
    staged = out_dir / f".{name}.ipynb.{os.getpid()}.tmp"
    nbformat.write(nb, staged)
    os.replace(staged, out)  # atomic: readers see the old copy or the new one
    shutil.rmtree(work, ignore_errors=True)
    return out


def run_all(profile: str, out_dir: Path, only: Sequence[str] | None = None, *, notebook_dir: Path | None = None,
            book_dir: Path | None = None, profiles: dict | None = None, extra_parameters: dict | None = None,
            log_output: bool = False, allow_book_overrides: bool = False) -> list[Path]:
    """Runs the named notebooks (default: all); every run is checked before any starts."""
    notebook_dir, book_dir = _folders(notebook_dir, book_dir)
    available = list_notebooks(notebook_dir)
    names = list(only) if only else available
    unknown = [n for n in names if n not in available]
    if unknown:
        raise ValueError(f"unknown notebook(s) {unknown}; notebooks: {available}")
    profiles = profiles or load_profiles(notebook_dir / PROFILES_NAME)
    jobs = [_prepare(n, profile, Path(out_dir), notebook_dir, book_dir, profiles, extra_parameters,
                     allow_book_overrides) for n in names]
    return [_execute(job, log_output=log_output) for job in jobs]


def output_problems(path: Path) -> list[str]:
    """Error outputs, and figure cells (``mystnb.figure`` metadata) without an image."""
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    problems = []
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        outputs = cell.get("outputs", [])
        for out in outputs:
            if out.get("output_type") == "error":
                problems.append(f"{path.name} cell {i}: {out.get('ename')}: {out.get('evalue')}")
        figure = cell.get("metadata", {}).get("mystnb", {}).get("figure")
        if figure and not any("image/png" in o.get("data", {}) or "image/svg+xml" in o.get("data", {})
                              for o in outputs):
            problems.append(f"{path.name} cell {i}: figure {figure.get('name')!r} has no image output")
    return problems


def known_stale(book_dir: Path | None = None) -> dict[str, dict]:
    """``book/known_stale.yml``: chapter -> {executed_with, reason}, each shown on its page."""
    book_dir = find_repository().book if book_dir is None else book_dir
    path = Path(book_dir) / KNOWN_STALE_FILE
    if not path.exists():
        return {}
    entries = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    for name, entry in entries.items():
        if not isinstance(entry, dict) or set(entry) != {"executed_with", "reason"}:
            raise ValueError(f"{path}: entry {name!r} must have exactly the keys executed_with and reason")
    return entries


def _stale(problem: str) -> bool:
    """Problems that re-executing the chapter resolves (not a hand edit, profile or override)."""
    return ": stale: " in problem


def check_book(book_dir: Path | None = None, notebook_dir: Path | None = None) -> list[str]:
    """Problems that make ``book/`` out of date with ``notebooks/`` (empty list = fine).

    A chapter listed in ``book/known_stale.yml`` may be stale (its page says why); it is a
    problem if it is listed but current, so the list only holds what is true.
    """
    if book_dir is None or notebook_dir is None:
        repo = find_repository()
        book_dir = repo.book if book_dir is None else Path(book_dir)
        notebook_dir = repo.notebooks if notebook_dir is None else Path(notebook_dir)
    found, listed = _chapter_problems(book_dir, notebook_dir), known_stale(book_dir)
    problems = [p for p in found if not (_stale(p) and p.split(":")[0] in listed)]
    for name in listed:
        if name not in list_notebooks(notebook_dir):
            problems.append(f"{name}: listed in {KNOWN_STALE_FILE} but there is no such notebook")
        elif not any(_stale(p) and p.startswith(f"{name}:") for p in found):
            problems.append(f"{name}: listed in {KNOWN_STALE_FILE} but current: remove it from the list")
    return problems


def _chapter_problems(book_dir: Path, notebook_dir: Path) -> list[str]:
    profiles = load_profiles(notebook_dir / PROFILES_NAME)
    problems = []
    for name in list_notebooks(notebook_dir):
        executed = book_dir / f"{name}.ipynb"
        if not executed.exists():
            problems.append(f"{name}: not executed into {book_dir.name}/ (run: python -m mtlib.book run)")
            continue
        try:
            nb = json.loads(executed.read_text(encoding="utf-8"))
            meta = nb["metadata"].get("mtlib", {})
            executed_hash(nb)
        except (ValueError, KeyError, TypeError, AttributeError) as err:  # JSONDecodeError is a ValueError
            problems.append(f"{name}: {executed} is not a readable executed notebook ({type(err).__name__}: {err}); "
                            "re-run: python -m mtlib.book run --only " + name)
            continue
        if meta.get("profile") != BOOK_PROFILE:
            problems.append(f"{name}: executed with profile {meta.get('profile')!r}, the book needs {BOOK_PROFILE!r}")
            continue
        if meta.get("overrides"):
            problems.append(f"{name}: executed with parameter overrides {meta['overrides']}, not the "
                            f"{BOOK_PROFILE!r} profile alone")
            continue
        params = _parameters(name, BOOK_PROFILE, profiles)
        if meta.get("source_sha256") != source_hash(notebook_dir / f"{name}.ipynb", params):
            problems.append(f"{name}: stale: source or profile changed since it was executed")
            continue
        if "ran_with" not in meta or "executed_sha256" not in meta:
            problems.append(f"{name}: stale: executed before mtlib recorded the code it ran with")
            continue
        if meta["executed_sha256"] != executed_hash(nb):
            problems.append(f"{name}: its cells or outputs were edited after it was executed")
            continue
        moved = provenance.changes(meta["ran_with"])
        if moved:
            shown = "; ".join(moved[:6]) + (f"; and {len(moved) - 6} more" if len(moved) > 6 else "")
            problems.append(f"{name}: stale: what it ran with changed since it was executed ({shown})")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mtlib.book", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run", help="execute notebooks with a profile")
    run.add_argument("--profile", default=BOOK_PROFILE)
    run.add_argument("--out", type=Path, default=None, help=f"output folder (default: book/ for {BOOK_PROFILE!r})")
    run.add_argument("--only", nargs="*", help="notebook names (default: all)")
    run.add_argument("-p", "--param", nargs=2, action="append", default=[], metavar=("NAME", "YAML_VALUE"),
                     help="override a parameter, e.g. -p n_segments 50 (refused for book/ unless "
                          "--allow-book-overrides)")
    run.add_argument("--allow-book-overrides", action="store_true",
                     help="write overridden runs into book/ anyway (check then reports them)")
    sub.add_parser("check", help="report executed notebooks in book/ that are stale")
    args = parser.parse_args(argv)
    try:
        repo = find_repository()
    except FileNotFoundError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.cmd == "check":
        problems = check_book(repo.book, repo.notebooks)
        for name, entry in known_stale(repo.book).items():
            print(f"{name}: known stale (executed with {entry['executed_with']}; {KNOWN_STALE_FILE}): {entry['reason']}")
        print("\n".join(problems) if problems else "book/ is up to date" + (" but for the known stale chapters above"
                                                                             if known_stale(repo.book) else ""))
        return 1 if problems else 0
    out = args.out
    if out is None:
        if args.profile != BOOK_PROFILE:
            parser.error(f"--out is required for profile {args.profile!r}: only {BOOK_PROFILE!r} goes into book/")
        out = repo.book
    extra = {}
    for key, value in args.param:
        try:
            extra[key] = yaml.safe_load(value)
        except yaml.YAMLError as err:
            parser.error(f"-p {key} {value!r}: not valid YAML ({str(err).splitlines()[0]})")
    try:
        paths = run_all(args.profile, out, args.only, extra_parameters=extra, log_output=True,
                        allow_book_overrides=args.allow_book_overrides, notebook_dir=repo.notebooks,
                        book_dir=repo.book)
    except (ValueError, FileNotFoundError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except RuntimeError as err:  # a notebook failed: its name, the partial copy and the cell's error
        print(f"error: {err}", file=sys.stderr)
        if err.__cause__ is not None:
            print(f"caused by {type(err.__cause__).__name__}", file=sys.stderr)
        return 2
    for path in paths:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
