"""Your own systems: an evaluation set from a plain folder of text files.

The layout (every text file one segment per line, UTF-8; all the same number of lines)::

    FOLDER/
      source.txt                  the source segments (optional)
      references/NAME.txt         one or more references; "ref" is the standard one when
                                  present, else the first in alphabetical order
      systems/NAME.txt            one output file per system
      human-sys.tsv  (or .csv)    optional: columns system, score
      human-seg.tsv  (or .csv)    optional: columns system, segment (1-based line), score

Names are the file names without ``.txt`` and nothing more: ``MSRA.MASS.6942.txt`` is the
system ``MSRA.MASS.6942`` (WMT names carry dots), and a system and a reference of the same name
are refused. Human scores are optional, and a system may lack one (it is then missing, never
guessed); a score for an unknown system or line, a repeated one, or one that is not a number is
an error that names the file and row. Every file is read by :func:`mtlib.textio.read_lines`: a
UTF-8 byte-order mark at the start (as spreadsheet programs write) is removed with a warning,
and a file that is not UTF-8 is an error that names it.
"""

from __future__ import annotations

import csv
import io
import math
import os
from pathlib import Path

from mtlib.data import EvalSet
from mtlib.textio import read_lines, warn_unnormalised

__all__ = ["load_folder", "HUMAN_NAME"]

HUMAN_NAME = "human"  # the name of the human scores in EvalSet.human: ("human", "sys"), ("human", "seg")


def _table(folder: Path, stem: str) -> tuple[Path, list[dict[str, str]]] | None:
    found = [folder / f"{stem}{ext}" for ext in (".tsv", ".csv") if (folder / f"{stem}{ext}").is_file()]
    if not found:
        return None
    if len(found) > 1:
        raise ValueError(f"{folder}: both {found[0].name} and {found[1].name} exist; keep one")
    path = found[0]
    text = "\n".join(read_lines(path))  # UTF-8 checked (the error names the file), a BOM removed
    rows = list(csv.DictReader(io.StringIO(text, newline=""), delimiter="\t" if path.suffix == ".tsv" else ","))
    return path, rows


def _named_files(paths: list[Path], what: str) -> dict[str, list[str]]:
    """name (the file name without ``.txt``) -> lines, for the ``.txt`` files of one folder."""
    out = {}
    for path in paths:
        name = path.name[:-len(".txt")]
        if not name:
            raise ValueError(f"{path}: a {what} file needs a name before .txt")
        out[name] = read_lines(path)
    return out


def _number(path: Path, row: int, value: str | None) -> float:
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{path}, row {row}: score {value!r} is not a number") from None
    if not math.isfinite(x):
        raise ValueError(f"{path}, row {row}: score {value!r} is not finite")
    return x


def _columns(path: Path, rows: list[dict[str, str]], needed: list[str]) -> None:
    have = list(rows[0]) if rows else []
    missing = [c for c in needed if c not in have]
    if missing or not rows:
        raise ValueError(f"{path}: needs a header with the columns {needed} and at least one row; "
                         f"found columns {have} and {len(rows)} rows")


def load_folder(folder: str | os.PathLike, lp: str, *, test_set: str | None = None) -> EvalSet:
    """The evaluation set in ``folder`` (layout in the module docstring) for language pair
    ``lp``; ``test_set`` names it (default: the folder's name)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"folder {folder} does not exist")
    systems = sorted((folder / "systems").glob("*.txt")) if (folder / "systems").is_dir() else []
    refs = sorted((folder / "references").glob("*.txt")) if (folder / "references").is_dir() else []
    if not systems:
        raise FileNotFoundError(f"{folder}: no system outputs (systems/NAME.txt)")
    if not refs:
        raise FileNotFoundError(f"{folder}: no references (references/NAME.txt)")
    if len(lp.split("-")) != 2 or not all(lp.split("-")):
        raise ValueError(f"lp must look like 'en-de', got {lp!r}")
    outputs, references = _named_files(systems, "system"), _named_files(refs, "reference")
    clash = sorted(set(outputs) & set(references))
    if clash:
        raise ValueError(f"{folder}: {clash} name both a system (systems/) and a reference (references/); "
                         "rename one of them")
    std_ref = min(references, key=lambda r: (r != "ref", r))  # "ref", else the first by name
    n = len(references[std_ref])
    if n == 0:
        raise ValueError(f"{folder / 'references' / (std_ref + '.txt')}: empty reference file")
    source = folder / "source.txt"
    src = read_lines(source) if source.is_file() else [""] * n
    for sub, named in (("systems", outputs), ("references", references)):
        for name, lines in named.items():
            if len(lines) != n:
                raise ValueError(f"{folder / sub / (name + '.txt')}: {len(lines)} lines, but the standard "
                                 f"reference {std_ref}.txt has {n}")
    if len(src) != n:
        raise ValueError(f"{source}: {len(src)} lines, but the standard reference {std_ref}.txt has {n}")
    references = {r: references[r] for r in sorted(references, key=lambda r: (r != "ref", r))}
    warn_unnormalised({str(folder / "systems" / f"{s}.txt"): v for s, v in outputs.items()},
                      {str(folder / "references" / f"{r}.txt"): v for r, v in references.items()})
    evs = EvalSet(test_set or folder.name, lp, src, references, outputs, {}, std_ref, [], list(range(n)), [])

    sys_table = _table(folder, "human-sys")
    if sys_table is not None:
        path, rows = sys_table
        _columns(path, rows, ["system", "score"])
        scores: dict[str, float | None] = {s: None for s in evs.outputs}
        seen = set()
        for i, r in enumerate(rows, 2):
            s = r["system"]
            if s not in evs.outputs:
                raise ValueError(f"{path}, row {i}: unknown system {s!r}; systems: {sorted(evs.outputs)}")
            if s in seen:
                raise ValueError(f"{path}, row {i}: a second score for system {s!r}")
            seen.add(s)
            scores[s] = _number(path, i, r["score"])
        evs.human[(HUMAN_NAME, "sys")] = scores

    seg_table = _table(folder, "human-seg")
    if seg_table is not None:
        path, rows = seg_table
        _columns(path, rows, ["system", "segment", "score"])
        seg: dict[str, list[float | None]] = {s: [None] * n for s in evs.outputs}
        for i, r in enumerate(rows, 2):
            s = r["system"]
            if s not in evs.outputs:
                raise ValueError(f"{path}, row {i}: unknown system {s!r}; systems: {sorted(evs.outputs)}")
            try:
                line = int(r["segment"])
            except (TypeError, ValueError):
                raise ValueError(f"{path}, row {i}: segment {r['segment']!r} is not a line number") from None
            if not 1 <= line <= n:
                raise ValueError(f"{path}, row {i}: segment {line} is outside lines 1..{n}")
            if seg[s][line - 1] is not None:
                raise ValueError(f"{path}, row {i}: a second score for system {s!r}, segment {line}")
            seg[s][line - 1] = _number(path, i, r["score"])
        evs.human[(HUMAN_NAME, "seg")] = {s: v for s, v in seg.items() if any(x is not None for x in v)}
    return evs
