"""Executes the book's notebooks with papermill and checks the executed copies.

Sources live in ``notebooks/*.ipynb`` and stay clean; executed copies are written to
``book/`` (full profile, committed) or to any other folder (small profile, for tests).
Each executed copy records, in ``metadata.mtlib``, the profile, its parameters, any
overrides, a hash of the source, what it ran with (a hash of every mtlib module the kernel
loaded and the versions of the libraries that shape numbers: :mod:`mtbook.provenance`) and a
hash of what it printed, so :func:`check_book` catches a stale, small-profile or overridden
copy in ``book/``, one whose code or libraries changed, and one edited after execution. A notebook is executed into a temporary folder
and moved into place only when it succeeds; ``book/`` takes only the full profile. Every write
goes to a temporary file in the destination folder, renamed into place, so a failed write (a full
disk, Ctrl-C) leaves no partial file; the destination is checked (not the sources' folder, not a
notebook the runner did not write, writable) before anything runs.

Usage::

    python -m mtbook run --profile full            # all notebooks into book/
    python -m mtbook run --profile small --out runs/small --only wmt19_baselines
    python -m mtbook check                         # is book/ up to date?
    python -m mtbook params own_data               # its parameters, defaults and profiles
    python -m mtbook html runs/small               # a run folder as HTML, not re-executed
    python -m mtbook run --profile small --out runs/mine --only own_data --html   # both at once

The repository is found explicitly (:func:`~mtbook.repository.find_repository`: the
current folder or a parent, or ``MTLIB_BOOK``); every function also takes its folders.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence, TextIO

import yaml

from mtbook import provenance, words
from mtbook.repository import find_repository

__all__ = ["render_words", "list_notebooks", "load_profiles", "source_hash", "code_hash", "words_hash", "executed_hash",
           "EXECUTED_HASH_VERSION", "read_notebook", "write_notebook", "load_yaml", "declared_parameters",
           "parameter_cell", "describe_parameters", "run_notebook", "run_all", "build_html", "output_problems",
           "check_book", "main"]

PROFILES_NAME = "profiles.yml"
# Chapters whose executed copy is known to be stale, each with the reason a reader is shown.
KNOWN_STALE_FILE = "known_stale.yml"
BOOK_PROFILE = "full"


class _Loader(yaml.SafeLoader):
    """YAML as the book reads it: plain values, and a date stays the text it was written as (a
    notebook's parameters travel as JSON, which has no dates: ``-p folder 2024-05-01`` names a
    folder, not a day)."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}


def load_yaml(text: str):
    """``text`` as YAML (:class:`_Loader`: a date stays text). Raises yaml.YAMLError."""
    return yaml.load(text, Loader=_Loader)  # noqa: S506 (a SafeLoader)


def _yaml_problem(err: yaml.YAMLError) -> str:
    """What is wrong and where, in one line (PyYAML's own message spans several)."""
    if isinstance(err, yaml.MarkedYAMLError):
        mark = err.problem_mark or err.context_mark
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        return f"{err.problem or err.context}{where}"
    return str(err).splitlines()[0] if str(err) else type(err).__name__


def _read_yaml(path: Path, what: str):
    """A YAML file of the book (``what`` says what it should hold); every problem is a ValueError
    that names the file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from err
    try:
        return load_yaml(text)
    except yaml.YAMLError as err:
        raise ValueError(f"{path}: not readable YAML: {_yaml_problem(err)}; it holds {what} "
                         "(plain YAML values, no tags such as !!python/…)") from err


def _json_problem(value) -> str | None:
    """Why a parameter value cannot reach a notebook (papermill passes parameters as JSON), or None."""
    try:
        json.dumps(value, allow_nan=True)
    except (TypeError, ValueError) as err:
        return str(err)
    return None


def list_notebooks(notebook_dir: Path | None = None) -> list[str]:
    """Names (stems) of the source notebooks (default: the repository's ``notebooks/``)."""
    notebook_dir = find_repository().notebooks if notebook_dir is None else Path(notebook_dir)
    return sorted(p.stem for p in notebook_dir.glob("*.ipynb"))


def load_profiles(path: Path | None = None) -> dict[str, dict[str, dict]]:
    """notebook -> profile -> parameters, from ``notebooks/profiles.yml``."""
    path = find_repository().profiles if path is None else path
    profiles = _read_yaml(path, "notebook -> profile -> parameters") or {}
    if not isinstance(profiles, dict):
        raise ValueError(f"{path}: expected a mapping notebook -> profile -> parameters")
    for name, own in profiles.items():
        if own is not None and not isinstance(own, dict):
            raise ValueError(f"{path}: {name}: expected a mapping profile -> parameters, got {own!r}")
        for profile, values in (own or {}).items():
            if values is not None and not isinstance(values, dict):
                raise ValueError(f"{path}: {name}.{profile}: expected a mapping parameter -> value, got {values!r}")
            for key, value in (values or {}).items():
                problem = _json_problem(value)
                if problem:
                    raise ValueError(f"{path}: {name}.{profile}.{key}: {value!r} cannot be a notebook parameter "
                                     f"({problem}); give a number, text, true/false, null or a list or mapping "
                                     "of those")
    return profiles


def _parameters(name: str, profile: str, profiles: dict) -> dict:
    if name not in profiles:
        raise ValueError(f"notebook {name!r} has no entry in {PROFILES_NAME}; "
                         f"notebooks there: {sorted(profiles)}")
    if profile not in profiles[name]:
        raise ValueError(f"unknown profile {profile!r} for notebook {name!r}; "
                         f"known: {sorted(profiles[name])}")
    return dict(profiles[name][profile] or {})


def source_hash(path: Path | dict, parameters: dict) -> str:
    """SHA-256 of the cells' types and sources plus the profile parameters (a path, or the
    notebook as read): how copies executed before the numbers and the words were told apart
    recorded their source (``source_sha256``)."""
    h = hashlib.sha256()
    for cell in _cells(path):
        src = cell["source"]
        h.update(cell["cell_type"].encode() + b"\x00" + ("".join(src) if isinstance(src, list) else src).encode())
        h.update(b"\x01")
    h.update(json.dumps(parameters, sort_keys=True).encode())
    return h.hexdigest()


def read_notebook(path: Path) -> dict:
    """A notebook file as JSON; a file that is not one (truncated, not JSON, no cells) is a
    ValueError that names it."""
    path = Path(path)
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as err:
        raise ValueError(f"{path} is not a readable notebook (not UTF-8: {err.reason} at byte {err.start})") from err
    except ValueError as err:  # JSONDecodeError
        raise ValueError(f"{path} is not a readable notebook ({type(err).__name__}: {err})") from err
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list) \
            or not all(isinstance(c, dict) and "cell_type" in c and "source" in c for c in nb["cells"]):
        raise ValueError(f"{path} is not a readable notebook (no list of cells with cell_type and source)")
    return nb


def _cells(source: Path | dict) -> list[dict]:
    return source["cells"] if isinstance(source, dict) else read_notebook(source)["cells"]


def _tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def code_hash(source: Path | dict, parameters: dict) -> str:
    """What makes a chapter's numbers, on its side of the notebook (a path, or the notebook as
    read): the code cells in order, which of them is the ``parameters`` cell (papermill injects
    after it), and the profile's parameters. Outputs, execution counts, other metadata and the
    Markdown cells do not count (saving in JupyterLab or rewording a sentence does not stale the
    numbers)."""
    h = hashlib.sha256()
    for cell in _cells(source):
        if cell["cell_type"] == "code":
            h.update(_joined(cell["source"]).encode() + (b"\x02" if "parameters" in _tags(cell) else b"") + b"\x01")
    h.update(json.dumps(parameters, sort_keys=True).encode())
    return h.hexdigest()


def words_hash(source: Path | dict, macros: str | None = None) -> str:
    """What words a chapter (a path, or the notebook as read, with ``macros`` then given): its
    Markdown cells (the templates), in their places among the code cells, every cell's metadata
    that the page shows (:func:`~mtbook.words.shown_metadata`: the tags that hide or show it, a
    figure's caption and name), the chapter's shared macros (``NAME.macros.j2``) and the code and
    library that render them (:func:`~mtbook.provenance.words_fingerprint`)."""
    h = hashlib.sha256()
    for cell in _cells(source):
        kind = b"md\x00" + _joined(cell["source"]).encode() if cell["cell_type"] == "markdown" else b"code\x00"
        shown = json.dumps(_joined(words.shown_metadata(cell)), sort_keys=True, ensure_ascii=False)
        h.update(kind + shown.encode("utf-8") + b"\x01")
    if macros is None and isinstance(source, dict):
        raise TypeError("words_hash of a notebook as read needs its macros")
    h.update(b"macros\x00" + (_macros(source) if macros is None else macros).encode())
    for rel, digest in provenance.words_fingerprint().items():
        h.update(f"{rel}:{digest}".encode())
    return h.hexdigest()


def _macros(notebook: Path) -> str:
    """The wording a chapter's cells share (:func:`mtbook.words.chapter_macros`)."""
    return words.chapter_macros(notebook)


def _joined(value):
    """nbformat stores multi-line text as a list of lines or as one string: hash either alike."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "".join(value)
    if isinstance(value, list):
        return [_joined(v) for v in value]
    if isinstance(value, dict):
        return {k: _joined(v) for k, v in value.items()}
    return value


# How executed_sha256 was computed (metadata.mtlib.executed_hash); a copy without it was stamped by
# version 1, which hashed each cell's type, source and outputs but not the cell's metadata.
EXECUTED_HASH_VERSION = 2
# Notebook metadata that is not on the page: the runner's own record and papermill's timings.
_NOT_SHOWN_NOTEBOOK = frozenset({"mtlib", "papermill"})


def executed_hash(nb: dict, version: int = EXECUTED_HASH_VERSION) -> str:
    """SHA-256 of what the book shows of an executed copy: every cell's type, source, outputs with
    their metadata (an image's size, a glued value's name) and the cell metadata that the page
    shows (:func:`~mtbook.words.shown_metadata`: tags such as ``remove-cell``, a figure's
    caption), and the notebook's metadata but the runner's record and papermill's timings. A copy
    edited by hand no longer matches the hash recorded when it was written. ``version=1``: the
    hash of copies stamped before (cells' type, source and outputs, without the cells' metadata),
    to tell an old stamp from a hand edit."""
    h = hashlib.sha256()
    for cell in nb["cells"]:
        outputs = [{k: _joined(v) for k, v in out.items() if k != "execution_count"} for out in cell.get("outputs", [])]
        part = {"type": cell["cell_type"], "source": _joined(cell["source"]), "outputs": outputs}
        if version > 1:
            part["metadata"] = _joined(words.shown_metadata(cell))
        h.update(json.dumps(part, sort_keys=True, ensure_ascii=False).encode("utf-8") + b"\x00")
    if version > 1:
        meta = {k: v for k, v in nb.get("metadata", {}).items() if k not in _NOT_SHOWN_NOTEBOOK}
        h.update(b"notebook\x00" + json.dumps(_joined(meta), sort_keys=True, ensure_ascii=False).encode("utf-8"))
    return h.hexdigest()


def _stamp(nb) -> None:
    """Records the hash of what the page shows, and how it was computed, in the copy's record."""
    nb["metadata"]["mtlib"]["executed_hash"] = EXECUTED_HASH_VERSION
    nb["metadata"]["mtlib"]["executed_sha256"] = executed_hash(nb)


# Appended to the copy papermill executes; the runner moves its answer into the metadata.
_PROVENANCE_CELL = "from mtbook.provenance import executed_with as _mtlib_executed_with\n_mtlib_executed_with();"


def _take_provenance(nb) -> dict:
    """Removes the appended provenance cell and returns its record."""
    from mtbook.provenance import MIME_TYPE

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


def parameter_cell(path: Path) -> list[dict]:
    """Each assignment of the notebook's ``parameters`` cell, in order: ``name``, its ``source``
    (the default as written) and the ``comment`` lines right above it (the notebooks document
    their parameters there, so that is what a reader of ``params`` needs)."""
    import ast

    entries, done = [], 0  # done: lines already shown with an earlier assignment
    lines, body = _parameter_lines(path)
    for node in body:
        first, last = node.lineno - 1, node.end_lineno
        above = first
        while above > done and lines[above - 1].lstrip().startswith("#"):
            above -= 1
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if names:
            entries.append({"name": names[0], "source": "\n".join(lines[first:last]),
                            "comment": "\n".join(lines[above:first])})
        done = last
    return entries


def _parameter_lines(path: Path) -> tuple[list[str], list]:
    """The lines of the notebook's ``parameters`` cell and its parsed statements."""
    import ast

    cells = [c for c in _cells(path) if "parameters" in c.get("metadata", {}).get("tags", [])]
    if not cells:
        raise ValueError(f"{path}: no cell tagged 'parameters'")
    lines = _joined(cells[0]["source"]).splitlines()
    return lines, ast.parse("\n".join(lines)).body


def _number_defaults(path: Path) -> dict[str, str]:
    """``{name: default as written}`` of the parameters whose default is a number or true/false
    (``seed = 1``): a text given for one of them is a mistake that the runner can name before
    the kernel starts."""
    import ast

    out = {}
    for node in _parameter_lines(path)[1]:
        value = getattr(node, "value", None)
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub):
            value = value.operand
        if isinstance(value, ast.Constant) and isinstance(value.value, (int, float)):
            for target in targets:
                if isinstance(target, ast.Name):
                    out[target.id] = ast.unparse(node.value)
    return out


def _yaml_inline(value) -> str:
    """A value as ``-p NAME VALUE`` takes it (YAML, one line)."""
    text = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=10**6).strip()
    return text.removesuffix("\n...").strip()


def describe_parameters(name: str, notebook_dir: Path | None = None, profiles: dict | None = None) -> str:
    """The ``parameters`` cell of a notebook with each profile's value under each parameter it
    sets: what ``-p`` may override and what ``--profile`` already sets."""
    notebook_dir = find_repository().notebooks if notebook_dir is None else Path(notebook_dir)
    src = _chapter_source(name, notebook_dir)
    profiles = load_profiles(notebook_dir / PROFILES_NAME) if profiles is None else profiles
    own = profiles.get(name) or {}
    out = [f"{name}: the cell tagged 'parameters' of {src.parent.name}/{src.name}; under a parameter, "
           f"the value each profile of {PROFILES_NAME} gives it",
           f"override one: python -m mtbook run --profile {next(iter(own), BOOK_PROFILE)} --out runs/NAME "
           f"--only {name} -p PARAMETER YAML_VALUE", ""]
    width = max((len(p) for p in own), default=0)
    for entry in parameter_cell(src):
        if entry["comment"]:
            out.append(entry["comment"])
        out.append(entry["source"])
        if entry["name"] == "profile":
            out.append("    (set by --profile: " + ", ".join(own) + ")")
            continue
        out += [f"    {p + ':':<{width + 1}} {_yaml_inline(values[entry['name']])}"
                for p, values in own.items() if entry["name"] in (values or {})]
    return "\n".join(out)


def _chapter_source(name: str, notebook_dir: Path) -> Path:
    """``notebooks/NAME.ipynb`` of a chapter; anything but a chapter's name (a path such as
    ``../book/own_data``, a missing name) is refused with the chapters listed."""
    available = list_notebooks(notebook_dir)
    if name not in available:
        raise FileNotFoundError(f"no notebook {name!r} among the chapters in {notebook_dir}: give a chapter's name "
                                f"(not a path); chapters: {available}")
    return notebook_dir / f"{name}.ipynb"


def _check_parameters(name: str, src: Path, given: dict) -> None:
    read_notebook(src)  # a damaged source is named here, not deep inside papermill
    declared = declared_parameters(src)
    unknown = sorted(set(given) - set(declared))
    if unknown:
        raise ValueError(f"notebook {name!r} has no parameter(s) {unknown}; its parameters: {declared}")
    numbers = _number_defaults(src)
    for key, value in given.items():
        problem = _json_problem(value)
        if problem:
            raise ValueError(f"notebook {name!r}, parameter {key}: {value!r} cannot be passed to a notebook "
                             f"({problem}); give a number, text, true/false, null or a list or mapping of those")
        if key in numbers and isinstance(value, str):
            raise ValueError(f"notebook {name!r}, parameter {key}: expected a number like its default "
                             f"({key} = {numbers[key]}), got the text {value!r} (-p takes YAML: a date such as "
                             "2000-01-01 stays text, it is not a number)")


def _is_book(out_dir: Path, book_dir: Path) -> bool:
    return Path(out_dir).resolve() == Path(book_dir).resolve()


def _check_out_dir(out_dir: Path, book_dir: Path, notebook_dir: Path | None = None) -> None:
    out, book = Path(out_dir).resolve(), Path(book_dir).resolve()
    if out != book and out.is_relative_to(book):
        raise ValueError(f"refusing to write into {out_dir}, a folder inside book/: the book builds every notebook "
                         "under it. Write runs elsewhere (e.g. --out runs/NAME)")
    if notebook_dir is not None and out.is_relative_to(Path(notebook_dir).resolve()):
        raise ValueError(f"refusing to write into {out_dir}: it is the notebooks' source folder "
                         f"({Path(notebook_dir).name}/) or inside it, and an executed copy there would replace or "
                         "sit among the sources. Write runs elsewhere (e.g. --out runs/NAME)")


def _is_executed_copy(path: Path) -> bool:
    """Whether ``path`` is a notebook that this runner wrote (it carries the runner's record)."""
    try:
        return "mtlib" in read_notebook(path).get("metadata", {})
    except (OSError, ValueError):
        return False


def _check_destination(name: str, out_dir: Path, notebook_dir: Path, *, book: bool = False) -> None:
    """Before anything runs: ``out_dir/NAME.ipynb`` can be written and replaces nothing but a copy
    this runner wrote (never a source, someone's notebook of the same name or a folder; in
    ``book/``, whose notebooks are all the runner's, a damaged copy too); the folder, or the
    nearest existing folder above it, is writable. Creates nothing."""
    out_dir = Path(out_dir)
    target = out_dir / f"{name}.ipynb"
    if out_dir.is_dir():  # the sources under another path (a bind mount, hard or symbolic links)
        held = [src.name for src in sorted(Path(notebook_dir).glob("*.ipynb"))
                if (out_dir / src.name).exists() and os.path.samefile(out_dir / src.name, src)]
        if held:
            raise ValueError(f"refusing to write into {out_dir}: it holds the source notebook(s) {held} (the sources' "
                             "folder under another path, or links to the sources), and an executed copy there would "
                             "replace or sit among them. Write runs elsewhere (e.g. --out runs/NAME)")
    if target.exists() or target.is_symlink():
        if target.is_dir():
            raise ValueError(f"refusing to write {target}: a folder of that name is there")
        if not book and not _is_executed_copy(target):
            raise ValueError(f"refusing to replace {target}: python -m mtbook run did not write it (it has no "
                             "runner's record: a source or someone's own notebook?). Move it away, or write runs "
                             "elsewhere (e.g. --out runs/NAME)")
    existing = out_dir
    while not existing.exists() and not existing.is_symlink() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise ValueError(f"cannot write into {out_dir}: {existing} is a file, not a folder")
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{name}.ipynb.probe-", dir=existing)
    except OSError as err:
        raise ValueError(f"cannot write into {out_dir}: {existing} is not writable ({err.strerror or err}); "
                         "nothing was run. Choose a writable --out") from err
    os.close(fd)
    os.unlink(probe)


def run_notebook(name: str, profile: str, out_dir: Path, *, notebook_dir: Path | None = None,
                 book_dir: Path | None = None, profiles: dict | None = None,
                 extra_parameters: dict | None = None, log_output: bool = False,
                 allow_book_overrides: bool = False, progress: TextIO | None = None) -> Path:
    """Executes one notebook with a profile; returns the executed copy's path.

    ``progress``: a stream that gets a line as each code cell starts (its number, the time so
    far and its first line), since a chapter may run for minutes without printing.

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
    return _execute(job, log_output=log_output, progress=progress)


def _folders(notebook_dir: Path | None, book_dir: Path | None) -> tuple[Path, Path]:
    if notebook_dir is None or book_dir is None:
        repo = find_repository()
        notebook_dir = repo.notebooks if notebook_dir is None else notebook_dir
        book_dir = repo.book if book_dir is None else book_dir
    return Path(notebook_dir), Path(book_dir)


def _prepare(name: str, profile: str, out_dir: Path, notebook_dir: Path, book_dir: Path, profiles: dict | None,
             extra_parameters: dict | None, allow_book_overrides: bool) -> dict:
    """Every check of one run (notebook, profile, parameters, destination) before anything runs."""
    src = _chapter_source(name, notebook_dir)
    profiles = load_profiles(notebook_dir / PROFILES_NAME) if profiles is None else profiles
    params = _parameters(name, profile, profiles)
    extra = dict(extra_parameters or {})  # e.g. a data path: recorded, not hashed
    _check_parameters(name, src, {**params, **extra, "profile": profile})
    _check_out_dir(out_dir, book_dir, notebook_dir)
    if _is_book(out_dir, book_dir):
        if profile != BOOK_PROFILE:
            raise ValueError(f"book/ takes only the {BOOK_PROFILE!r} profile, not {profile!r}: pass another out_dir")
        if extra and not allow_book_overrides:
            raise ValueError(f"refusing to write {name!r} into book/ with overrides {extra}: the published book "
                             f"is the {BOOK_PROFILE!r} profile as in {PROFILES_NAME}. Write elsewhere "
                             "(--out), or pass --allow-book-overrides (check then reports the copy)")
    _check_destination(name, out_dir, notebook_dir, book=_is_book(out_dir, book_dir))
    return dict(name=name, profile=profile, out_dir=out_dir, notebook_dir=notebook_dir, src=src, params=params,
                extra=extra)


def _minutes(seconds: float) -> str:
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"


def _progress_printer(name: str, stream: TextIO):
    """What the engine calls as a cell starts: a line per code cell, numbered among the code cells
    of the notebook papermill runs (the provenance cell the runner appends is not shown)."""
    start, number = time.monotonic(), {}  # cell index -> its number among the code cells

    def cell_started(nb, cell, index) -> None:
        if not number:
            code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source != _PROVENANCE_CELL]
            number.update({i: k + 1 for k, i in enumerate(code)})
        if index not in number:
            return
        first = next((line.strip() for line in cell.source.splitlines()
                      if line.strip() and not line.lstrip().startswith("#")), "")
        first = first if len(first) <= 60 else first[:59] + "…"
        print(f"{name} [{_minutes(time.monotonic() - start)}] cell {number[index]}/{len(number)}: {first}",
              file=stream, flush=True)

    return cell_started


def _engine():
    """papermill's nbclient engine with a hook as each cell starts, registered as ``mtlib``; a
    kernel interrupted mid-cell (Ctrl-C) is stopped at once (:class:`_client`)."""
    from papermill.engines import NBClientEngine, papermill_engines
    from papermill.utils import merge_kwargs, remove_args

    client = _client()

    class ProgressEngine(NBClientEngine):
        @classmethod
        def execute_managed_notebook(cls, nb_man, kernel_name, log_output=False, stdout_file=None, stderr_file=None,
                                     start_timeout=60, execution_timeout=None, cell_started=None, **kwargs):
            if cell_started is not None:
                papermill_start = nb_man.cell_start

                def cell_start(cell, cell_index=None, **kw):
                    cell_started(nb_man.nb, cell, cell_index)
                    return papermill_start(cell, cell_index, **kw)

                nb_man.cell_start = cell_start
            # as NBClientEngine does, with the client below
            kwargs = remove_args(["input_path"], **kwargs)
            final = merge_kwargs(remove_args(["timeout", "startup_timeout"], **kwargs),
                                 timeout=execution_timeout if execution_timeout else kwargs.get("timeout"),
                                 startup_timeout=start_timeout, kernel_name=kernel_name,
                                 log=logging.getLogger("papermill"), log_output=log_output, stdout_file=stdout_file,
                                 stderr_file=stderr_file)
            return client(nb_man, **final).execute()

    papermill_engines.register("mtlib", ProgressEngine)
    return "mtlib"


def _client():
    """papermill's notebook client, but a kernel still running a cell when the run stops (Ctrl-C
    sends SIGINT, which nbclient answers by shutting the kernel down) is killed at once: asked to
    shut down gracefully while busy, ipykernel prints a traceback of its closed sockets. A run that
    went through every cell (a failed cell included) shuts its kernel down gracefully as before."""
    from jupyter_core.utils import run_sync
    from papermill.clientwrap import PapermillNotebookClient

    class Client(PapermillNotebookClient):
        ran_through = False

        def papermill_execute_cells(self):
            super().papermill_execute_cells()
            self.ran_through = True

        async def _async_cleanup_kernel(self) -> None:
            if not self.ran_through:
                self.shutdown_kernel = "immediate"
            await super()._async_cleanup_kernel()

        _cleanup_kernel = run_sync(_async_cleanup_kernel)  # nbclient binds its own at class creation

    return Client


def write_notebook(nb, path: Path) -> None:
    """Writes ``nb`` to ``path`` through a temporary file in the same folder, renamed into place:
    a reader sees the old file or the new one, and a write that fails (a full disk, Ctrl-C) leaves
    no partial file behind.

    Raises:
        RuntimeError: the write failed; says that nothing partial was left and ``path`` is as it
            was (the OSError is chained).
    """
    import nbformat

    path = Path(path)
    staged = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(staged, "w", encoding="utf-8") as f:
            nbformat.write(nb, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(staged, path)  # atomic: readers see the old copy or the new one
    except BaseException as err:
        try:
            staged.unlink(missing_ok=True)
        except OSError:
            pass
        if isinstance(err, OSError):
            raise RuntimeError(f"could not write {path} ({err.strerror or err}): nothing partial was left behind "
                               f"and {path.name} in {path.parent} is as it was") from err
        raise


def _missing_folders(folder: Path) -> list[Path]:
    """``folder`` and its parents that do not exist yet, deepest first (what mkdir would make)."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def _execute(job: dict, *, log_output: bool, progress: TextIO | None = None) -> Path:
    """Runs a prepared job (:func:`_prepare`) and writes the executed copy. Whatever stops it (a
    failing cell, a full disk, Ctrl-C) leaves ``out_dir`` as it was and no temporary file behind;
    only a notebook whose cell failed keeps its partial output (named in the error) to read."""
    import nbformat
    import papermill as pm

    name, profile, out_dir, notebook_dir = job["name"], job["profile"], job["out_dir"], job["notebook_dir"]
    src, params, extra = job["src"], job["params"], job["extra"]
    try:
        work = Path(tempfile.mkdtemp(prefix=f"mtlib-{name}-"))
    except OSError as err:
        raise RuntimeError(f"notebook {name!r} was not run: no temporary folder could be made in "
                           f"{tempfile.gettempdir()} ({err.strerror or err}); {out_dir} is unchanged") from err
    keep = False  # the partial output of a failed cell is kept for its reader
    try:
        partial = work / f"{name}.ipynb"
        to_run = work / f"{name}.source.ipynb"
        source_nb = nbformat.read(src, as_version=4)
        # what ran: hashed as read now, so that an edit made during a long run is not recorded as run
        macros = _macros(src)
        ran_code, ran_words = code_hash(source_nb, params), words_hash(source_nb, macros)
        source_nb.cells.append(nbformat.v4.new_code_cell(_PROVENANCE_CELL))
        try:
            nbformat.write(source_nb, to_run)
        except OSError as err:
            raise RuntimeError(f"notebook {name!r} was not run: its copy to execute could not be written in {work} "
                               f"({err.strerror or err}); nothing was left behind and {out_dir} is unchanged") from err
        hook = {} if progress is None else {"cell_started": _progress_printer(name, progress)}
        started = time.monotonic()
        try:
            pm.execute_notebook(str(to_run), str(partial), parameters={**params, **extra, "profile": profile},
                                kernel_name="python3", cwd=str(notebook_dir), log_output=log_output,
                                progress_bar=False, engine_name=_engine(), **hook)
        except Exception as err:
            keep = partial.exists()
            where = f"partial output in {partial}" if keep else "it stopped before writing any output"
            raise RuntimeError(f"notebook {name!r} failed with profile {profile!r} "
                               f"({where}; {out_dir} is unchanged): {err}") from err
        if progress is not None:
            print(f"{name} [{_minutes(time.monotonic() - started)}] done", file=progress, flush=True)
        nb = nbformat.read(partial, as_version=4)
        ran_with = _take_provenance(nb)
        drop_progress_bars(nb)
        try:
            nb.cells = [nbformat.from_dict(c) for c in words.render_cells(source_nb.cells[:-1], nb.cells, name=name,
                                                                              macros=macros)]
        except ValueError as err:
            raise RuntimeError(f"notebook {name!r} ran, but its words could not be rendered ({out_dir} is "
                               f"unchanged): {err}") from err
        _mark_cells(nb)
        out = out_dir / f"{name}.ipynb"
        # papermill records absolute paths of this machine; keep them relative to the repository.
        root = notebook_dir.resolve().parent
        pm_meta = nb.metadata.get("papermill", {})
        pm_meta["input_path"], pm_meta["output_path"] = str(src), str(out)
        for key in ("input_path", "output_path"):
            path = Path(pm_meta[key]).resolve()
            pm_meta[key] = str(path.relative_to(root)) if path.is_relative_to(root) else path.name
        nb.metadata["mtlib"] = {"profile": profile, "parameters": params, "overrides": extra,
                                "code_sha256": ran_code, "words_sha256": ran_words, "ran_with": ran_with}
        _stamp(nb)
        made = _missing_folders(out_dir)
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
            write_notebook(nb, out)
        except (OSError, RuntimeError) as err:
            for folder in made:  # the folders this run made, if still empty
                try:
                    folder.rmdir()
                except OSError:
                    break
            cause = err if isinstance(err, OSError) else err.__cause__
            raise RuntimeError(f"notebook {name!r} ran, but its executed copy could not be written to {out} "
                               f"({getattr(cause, 'strerror', None) or cause}): nothing partial was left behind and "
                               f"{out_dir} is as it was; make room (or fix the folder) and run it again") from cause
        return out
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


def run_all(profile: str, out_dir: Path, only: Sequence[str] | None = None, *, notebook_dir: Path | None = None,
            book_dir: Path | None = None, profiles: dict | None = None, extra_parameters: dict | None = None,
            log_output: bool = False, allow_book_overrides: bool = False,
            progress: TextIO | None = None) -> list[Path]:
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
    return [_execute(job, log_output=log_output, progress=progress) for job in jobs]


def _executed_notebooks(folder: Path) -> list[Path]:
    """The notebooks in ``folder`` that this runner executed (they carry its record)."""
    found = []
    for path in sorted(folder.glob("*.ipynb")):
        try:
            if "mtlib" in json.loads(path.read_text(encoding="utf-8")).get("metadata", {}):
                found.append(path)
        except ValueError:
            continue
    return found


def build_html(folder: Path, *, repo_root: Path | None = None, progress: TextIO | None = None) -> Path:
    """Renders the executed notebooks of a run folder as HTML with the book's look, without
    executing them again; returns ``FOLDER/html/index.html``.

    An executed copy opened in JupyterLab shows its ``{glue:md}`` placeholders raw, and
    ``jupyter-book build`` on one notebook re-executes it. So this writes a small Jupyter Book
    project in a temporary folder (the repository's ``_config.yml`` with execution off and its
    local extensions, a ``_toc.yml`` of the run's notebooks, an index page of what ran with which
    profile and overrides), builds it and copies ``_build/html`` to ``FOLDER/html``.

    Raises:
        FileNotFoundError: no such folder, or no ``jupyter-book``.
        ValueError: ``folder`` is ``book/`` or holds no notebook executed by the runner, or
            ``FOLDER/html`` exists and is not an earlier build.
        RuntimeError: the build failed (the end of its output is in the message).
    """
    root = find_repository().root if repo_root is None else Path(repo_root)
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"no folder {folder}")
    if _is_book(folder, root / "book"):
        raise ValueError("book/ is the book itself: build it with jupyter-book build .")
    notebooks = _executed_notebooks(folder)
    if not notebooks:
        raise ValueError(f"{folder} holds no notebook executed by python -m mtbook run "
                         f"(execute one: python -m mtbook run --profile small --out {folder} --only NAME)")
    html = folder / "html"
    if html.exists() and not (html / ".buildinfo").exists():
        raise ValueError(f"{html} exists and is not an earlier HTML build: move it away first (nothing is overwritten)")
    exe = Path(sys.executable).parent / "jupyter-book"
    exe = str(exe) if exe.exists() else shutil.which("jupyter-book")
    if exe is None:
        raise FileNotFoundError("jupyter-book not found: install the book extra (pip install -e \".[book]\")")

    project = Path(tempfile.mkdtemp(prefix="mtlib-html-"))
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    config["title"] = f"{config.get('title', 'mtlib')}: run {folder.resolve().name}"
    config["execute"] = {"execute_notebooks": "off"}
    sphinx = config.setdefault("sphinx", {})
    sphinx["local_extensions"] = {ext: str((root / path).resolve())
                                  for ext, path in (sphinx.get("local_extensions") or {}).items()}
    if (root / "_static").is_dir():  # the book's look (long signatures wrap): Jupyter Book adds _static/*.css
        shutil.copytree(root / "_static", project / "_static")
    chapters = []
    for path in notebooks:
        shutil.copy2(path, project / path.name)
        chapters.append({"file": path.stem})
    cites = any("{cite" in "".join(_joined(c["source"])) for path in notebooks
                for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "markdown")
    if cites:  # sphinxcontrib-bibtex resolves citations against a bibliography page
        for bib in config.get("bibtex_bibfiles", []):
            shutil.copy2(root / bib, project / Path(bib).name)
        config["bibtex_bibfiles"] = [Path(b).name for b in config.get("bibtex_bibfiles", [])]
        (project / "references.md").write_text("# References\n\n```{bibliography}\n:filter: cited\n```\n",
                                               encoding="utf-8")
        chapters.append({"file": "references"})
    else:
        config.pop("bibtex_bibfiles", None)
    (project / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")
    (project / "_toc.yml").write_text(yaml.safe_dump({"format": "jb-book", "root": "index", "chapters": chapters},
                                                     sort_keys=False), encoding="utf-8")
    rows = []
    for path in notebooks:
        meta = json.loads(path.read_text(encoding="utf-8"))["metadata"]["mtlib"]
        overrides = ", ".join(f"`{k}: {_yaml_inline(v)}`" for k, v in (meta.get("overrides") or {}).items())
        rows.append(f"| {{doc}}`{path.stem}` | {meta.get('profile')} | {overrides or 'none'} |")
    (project / "index.md").write_text(
        f"# Run {folder.resolve().name}\n\nThe notebooks executed by `python -m mtbook run` into `{folder}`, "
        "shown as they ran (not re-executed). The published book is the `full` profile without overrides.\n\n"
        "| Chapter | Profile | Overrides |\n|---|---|---|\n" + "\n".join(rows) + "\n", encoding="utf-8")

    if progress is not None:
        print(f"building HTML of {len(notebooks)} notebook(s) in {project}", file=progress, flush=True)
    result = subprocess.run([exe, "build", str(project)], capture_output=True, text=True)
    built = project / "_build" / "html"
    if result.returncode != 0 or not (built / "index.html").exists():
        raise RuntimeError(f"jupyter-book build of {folder} failed (project kept in {project}):\n"
                           + (result.stdout + result.stderr)[-3000:])
    if html.exists():
        shutil.rmtree(html)
    shutil.copytree(built, html)
    shutil.rmtree(project, ignore_errors=True)
    return html / "index.html"


def output_problems(path: Path) -> list[str]:
    """Error outputs, figures whose text is too small to read on the page
    (:class:`mtbook.chapter.FigureTextWarning` in an output), and figure cells (``mystnb.figure``
    metadata) without an image."""
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    problems = []
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        outputs = cell.get("outputs", [])
        for out in outputs:
            if out.get("output_type") == "error":
                problems.append(f"{path.name} cell {i}: {out.get('ename')}: {out.get('evalue')}")
            text = _joined(out.get("text") or out.get("data", {}).get("text/plain") or "")
            if isinstance(text, str) and "FigureTextWarning:" in text:
                line = next(x for x in text.splitlines() if "FigureTextWarning:" in x)
                problems.append(f"{path.name} cell {i}: {line.strip().lstrip('- ')}")
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
    entries = _read_yaml(path, "chapter -> {executed_with, reason}") or {}
    if not isinstance(entries, dict):
        raise ValueError(f"{path}: expected a mapping chapter -> {{executed_with, reason}}, "
                         f"got {type(entries).__name__}")
    for name, entry in entries.items():
        if not isinstance(entry, dict) or set(entry) != {"executed_with", "reason"}:
            raise ValueError(f"{path}: entry {name!r} must have exactly the keys executed_with and reason")
    return entries


def _stale(problem: str) -> bool:
    """Problems that re-executing the chapter resolves (not a hand edit, profile or override)."""
    return ": stale numbers: " in problem


def _words_stale(problem: str) -> bool:
    """Problems that rendering the words again resolves, without a kernel."""
    return ": stale words: " in problem


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
        src = notebook_dir / f"{name}.ipynb"
        try:
            source_nb = read_notebook(src)
        except ValueError as err:
            problems.append(f"{name}: the source {err}; restore it (e.g. git checkout -- "
                            f"{src.parent.name}/{src.name}) to check its executed copy")
            continue
        except OSError as err:
            problems.append(f"{name}: the source {src} cannot be read ({err.strerror or err})")
            continue
        if not executed.exists():
            problems.append(f"{name}: not executed into {book_dir.name}/ (run: python -m mtbook run)")
            continue
        try:
            nb = json.loads(executed.read_text(encoding="utf-8"))
            meta = nb["metadata"].get("mtlib", {})
            executed_hash(nb)
        except (ValueError, KeyError, TypeError, AttributeError) as err:  # JSONDecodeError is a ValueError
            problems.append(f"{name}: {executed} is not a readable executed notebook ({type(err).__name__}: {err}); "
                            "re-run: python -m mtbook run --only " + name)
            continue
        if meta.get("profile") != BOOK_PROFILE:
            problems.append(f"{name}: executed with profile {meta.get('profile')!r}, the book needs {BOOK_PROFILE!r}")
            continue
        if meta.get("overrides"):
            problems.append(f"{name}: executed with parameter overrides {meta['overrides']}, not the "
                            f"{BOOK_PROFILE!r} profile alone")
            continue
        params = _parameters(name, BOOK_PROFILE, profiles)
        if "code_sha256" not in meta:  # a copy from before numbers and words were told apart
            if meta.get("source_sha256") != source_hash(source_nb, params):
                problems.append(f"{name}: stale numbers: source or profile changed since it was executed")
                continue
        elif meta["code_sha256"] != code_hash(source_nb, params):
            problems.append(f"{name}: stale numbers: its code cells or profile changed since it was executed "
                            f"(re-execute: python -m mtbook run --only {name})")
            continue
        if "ran_with" not in meta or "executed_sha256" not in meta:
            problems.append(f"{name}: stale numbers: executed before the code it ran with was recorded")
            continue
        version = meta.get("executed_hash", 1)
        if version not in (1, EXECUTED_HASH_VERSION) or meta["executed_sha256"] != executed_hash(nb, version):
            problems.append(f"{name}: its cells or outputs were edited after it was executed")
            continue
        moved = provenance.changes(meta["ran_with"])
        if moved:
            shown = "; ".join(moved[:6]) + (f"; and {len(moved) - 6} more" if len(moved) > 6 else "")
            problems.append(f"{name}: stale numbers: the code or libraries that compute them changed ({shown}; "
                            f"re-execute: python -m mtbook run --only {name})")
            continue
        if "code_sha256" in meta and version != EXECUTED_HASH_VERSION:
            # what version 1 covered is unchanged; rendering the words restamps the page, no kernel
            problems.append(f"{name}: stale words: stamped before the cells' metadata (figure captions, tags that "
                            f"hide or show) was hashed; the numbers are current (re-render and restamp, no kernel: "
                            f"python -m mtbook render --only {name})")
        elif "code_sha256" in meta and meta.get("words_sha256") != words_hash(source_nb, _macros(src)):
            problems.append(f"{name}: stale words: its Markdown or the code that renders it changed; the numbers "
                            f"are current (re-render, no kernel: python -m mtbook render --only {name})")
    return problems


def render_words(names: Sequence[str] | None = None, *, book_dir: Path | None = None,
                 notebook_dir: Path | None = None) -> list[str]:
    """Renders the source's words into each executed chapter whose numbers are current and whose
    words are not (default: every such chapter); returns the chapters rendered. No kernel runs:
    the findings are the ones the executed copy published. A chapter whose numbers are stale, or
    that was edited by hand, is refused with the reason."""
    import nbformat

    notebook_dir, book_dir = _folders(notebook_dir, book_dir)
    problems = _chapter_problems(book_dir, notebook_dir)
    available = list_notebooks(notebook_dir)
    unknown = sorted(set(names or []) - set(available))
    if unknown:
        raise ValueError(f"unknown notebook(s) {unknown}; notebooks: {available}")
    rendered = []
    for name in names or available:
        own = [p for p in problems if p.startswith(f"{name}:")]
        if not own:
            continue
        if not all(_words_stale(p) for p in own):
            if names:
                raise ValueError("cannot render only the words: " + "; ".join(own))
            continue
        path = book_dir / f"{name}.ipynb"
        nb = nbformat.read(path, as_version=4)
        src = notebook_dir / f"{name}.ipynb"
        source_nb, macros = nbformat.read(src, as_version=4), _macros(src)
        rendered_words = words_hash(source_nb, macros)
        nb.cells = [nbformat.from_dict(c) for c in words.render_cells(source_nb.cells, nb.cells, name=name,
                                                                      macros=macros)]
        _mark_cells(nb)
        nb.metadata["mtlib"]["words_sha256"] = rendered_words
        _stamp(nb)
        write_notebook(nb, path)
        rendered.append(name)
    return rendered


def _catalogue(repo) -> str:
    """The notebooks and their profiles, for ``run --help`` (what --only and --profile take)."""
    if repo is None:
        return "No book repository found here, so no notebooks to list (set MTLIB_BOOK or run in a clone)."
    try:
        profiles = load_profiles(repo.profiles)
    except (OSError, ValueError, yaml.YAMLError) as err:
        profiles = {}
        note = f"  ({PROFILES_NAME} unreadable: {err})\n"
    else:
        note = ""
    names = list_notebooks(repo.notebooks)
    width = max((len(n) for n in names), default=0)
    rows = [f"  {n:<{width}}  profiles: {', '.join(profiles.get(n) or {}) or 'none'}" for n in names]
    return (f"notebooks (--only) and their profiles (--profile; notebooks/{PROFILES_NAME}):\n" + note
            + "\n".join(rows) + "\n\nA notebook's parameters, their defaults and each profile's values: "
            "python -m mtbook params NAME")


def _parser(repo) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m mtbook", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run", help="execute notebooks with a profile", epilog=_catalogue(repo),
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("--profile", default=BOOK_PROFILE, help=f"a profile of {PROFILES_NAME} (default: %(default)s)")
    run.add_argument("--out", type=Path, default=None, help=f"output folder (default: book/ for {BOOK_PROFILE!r})")
    run.add_argument("--only", nargs="*", help="notebook names (default: all; listed below)")
    run.add_argument("-p", "--param", nargs=2, action="append", default=[], metavar=("NAME", "YAML_VALUE"),
                     help="override a parameter, e.g. -p n_segments 50 (refused for book/ unless "
                          "--allow-book-overrides)")
    run.add_argument("--allow-book-overrides", action="store_true",
                     help="write overridden runs into book/ anyway (check then reports them)")
    run.add_argument("--html", action="store_true",
                     help="then render the --out folder as HTML in OUT/html, as the html command does")
    shown = run.add_mutually_exclusive_group()
    shown.add_argument("--quiet", action="store_true",
                       help="no progress lines (by default, a line per cell when stderr is a terminal)")
    shown.add_argument("--progress", action="store_true", help="progress lines even when stderr is not a terminal")
    sub.add_parser("check", help="report chapters in book/ whose numbers or words are stale")
    render = sub.add_parser("render", help="render the sources' words into book/ where only the words changed "
                                           "(no kernel, seconds)")
    render.add_argument("--only", nargs="*", help="notebook names (default: every chapter whose words are stale)")
    params = sub.add_parser("params", help="a notebook's parameters: defaults, comments, profile values")
    params.add_argument("name", help="a notebook (python -m mtbook run --help lists them)")
    html = sub.add_parser("html", help="render a run folder as HTML with the book's look, without re-executing")
    html.add_argument("folder", type=Path, help="a folder that python -m mtbook run --out wrote")
    return parser


INTERRUPTED = 130  # the exit status of a command stopped by Ctrl-C (128 + SIGINT)
TERMINATED = 143  # and by SIGTERM (128 + 15)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the process is, so that it unwinds as Ctrl-C does (the kernel
    stopped, temporary files removed)."""


def _terminate(signum, frame):
    raise Terminated


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m mtbook``: the exit status (0 fine, 1 ``check`` found problems, 2 an error, 130
    interrupted, 143 terminated). Every error is one ``error: …`` line; Ctrl-C or SIGTERM stops
    with one line and leaves no partial file (each copy is written whole, or not at all)."""
    import threading

    handled = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if handled else None
    try:
        return _main(argv)
    except KeyboardInterrupt as err:
        how, code = ("terminated (SIGTERM)", TERMINATED) if isinstance(err, Terminated) else \
            ("interrupted (Ctrl-C)", INTERRUPTED)
        print(f"{how}: stopped; nothing partial was written (a notebook is written only whole, after it ran to "
              "the end; copies written before this one are complete)", file=sys.stderr)
        return code
    finally:
        if handled and previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _main(argv: Sequence[str] | None) -> int:
    try:
        repo, missing = find_repository(), None
    except FileNotFoundError as err:
        repo, missing = None, err
    parser = _parser(repo)
    args = parser.parse_args(argv)
    if repo is None:
        print(f"error: {missing}", file=sys.stderr)
        return 2
    if args.cmd == "check":
        try:
            problems, listed = check_book(repo.book, repo.notebooks), known_stale(repo.book)
        except (ValueError, OSError) as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
        for name, entry in listed.items():
            print(f"{name}: known stale (executed with {entry['executed_with']}; {KNOWN_STALE_FILE}): {entry['reason']}")
        print("\n".join(problems) if problems else "book/ is up to date" + (" but for the known stale chapters above"
                                                                             if listed else ""))
        return 1 if problems else 0
    try:
        if args.cmd == "render":
            done = render_words(args.only, book_dir=repo.book, notebook_dir=repo.notebooks)
            print("rendered " + ", ".join(done) if done else "no chapter has stale words only")
            return 0
        if args.cmd == "params":
            print(describe_parameters(args.name, repo.notebooks))
            return 0
        if args.cmd == "html":
            print(f"wrote {build_html(args.folder, repo_root=repo.root, progress=sys.stderr)}")
            return 0
    except (ValueError, OSError, RuntimeError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    out = args.out
    if out is None:
        if args.profile != BOOK_PROFILE:
            parser.error(f"--out is required for profile {args.profile!r}: only {BOOK_PROFILE!r} goes into book/")
        out = repo.book
    if args.html and _is_book(out, repo.book):
        parser.error("--html renders a run folder (--out); the book itself builds with: jupyter-book build .")
    extra = {}
    for key, value in args.param:
        try:
            extra[key] = load_yaml(value)  # a date stays text
        except yaml.YAMLError as err:
            parser.error(f"-p {key} {value!r}: not valid YAML ({_yaml_problem(err)})")
    progress = None if args.quiet else sys.stderr if args.progress or sys.stderr.isatty() else None
    try:
        paths = run_all(args.profile, out, args.only, extra_parameters=extra, log_output=not args.quiet,
                        allow_book_overrides=args.allow_book_overrides, notebook_dir=repo.notebooks,
                        book_dir=repo.book, progress=progress)
    except (ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except RuntimeError as err:  # a notebook failed: its name, the partial copy and the cell's error
        print(f"error: {err}", file=sys.stderr)
        if err.__cause__ is not None:
            print(f"caused by {type(err.__cause__).__name__}", file=sys.stderr)
        return 2
    for path in paths:
        print(f"wrote {path}")
    if args.html:
        try:
            print(f"wrote {build_html(out, repo_root=repo.root, progress=progress)}")
        except (ValueError, FileNotFoundError, RuntimeError) as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
