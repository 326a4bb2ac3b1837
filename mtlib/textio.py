"""Reading segment files: one place that decides how text files become lines.

* Only line breaks (``\\n``) are removed; everything else stays byte-faithful (a ``\\r``
  stays, as in mt-metrics-eval).
* A UTF-8 byte-order mark at the very start is not text: it is removed, with a warning
  naming the file (some WMT17/18 system outputs start with one; left in, it would be part
  of segment 1 and lower its score).
* Bytes that are not UTF-8 raise ``ValueError`` naming the file, the line and the byte (UTF-16/32: the encoding).
* A missing file, a folder and a file this process may not read raise ``FileNotFoundError``,
  ``IsADirectoryError`` and ``PermissionError`` naming the path (:func:`check_text_file`).
* Commands read ``-`` as standard input (:func:`read_input`), as sacreBLEU and Unix tools do.
* A command whose reader leaves early (``| head``) ends quietly (:func:`broken_pipe`).
"""

from __future__ import annotations

import os
import sys
import unicodedata
import warnings
from pathlib import Path

__all__ = ["read_lines", "read_input", "check_text_file", "broken_pipe", "warn_unnormalised", "BOM", "STDIN"]

BOM = "\ufeff"
STDIN = "-"  # the file name of standard input on command lines


def _open(path: Path):
    """``path`` opened for reading (binary), or an error that names it and says what to do."""
    try:
        if path.is_dir():
            raise IsADirectoryError(f"{path}: is a folder, not a text file; give the file itself")
        if path.exists() and not path.is_file():
            raise ValueError(f"{path}: not a regular file (a device, pipe or socket); give a text file")
        return path.open("rb")
    except FileNotFoundError:
        raise FileNotFoundError(f"no such file: {path}") from None
    except PermissionError:
        raise PermissionError(f"{path}: permission denied, this process cannot read it; "
                              "check the permissions of the file and its folders (e.g. chmod u+r)") from None


def check_text_file(path: str | os.PathLike) -> Path:
    """``path`` as a :class:`Path` if it is a file this process can read (opened and closed),
    else the error :func:`read_lines` would raise, so that commands check before they work.

    Raises:
        FileNotFoundError, IsADirectoryError, PermissionError, ValueError: naming the path.
    """
    path = Path(path)
    _open(path).close()
    return path


def read_lines(path: str | os.PathLike) -> list[str]:
    """The lines of a UTF-8 text file, without their line breaks.

    Raises:
        FileNotFoundError: no such file.
        IsADirectoryError: the path is a folder.
        PermissionError: the file cannot be read (permissions).
        ValueError: the file is not valid UTF-8 (the message names the file and line), or
            not a regular file.
    """
    path = Path(path)
    with _open(path) as f:
        return _decode(f.read(), path)


def read_input(path: str | os.PathLike) -> list[str]:
    """:func:`read_lines`, except that ``-`` is standard input (read as UTF-8 bytes, with the
    same checks; its errors name it ``standard input``)."""
    if os.fspath(path) == STDIN:
        return _decode(sys.stdin.buffer.read(), "standard input")
    return read_lines(path)


def broken_pipe() -> int:
    """The reader of stdout left early (``mtlib files --sentences | head``): end quietly, as Python's
    documentation of SIGPIPE advises; stdout goes to devnull so that the flush at exit cannot fail."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 1


def warn_unnormalised(hyps: dict[str, list[str]], refs: dict[str, list[str]]) -> None:
    """Warns, naming the file, of text not in Unicode NFC against NFC text (file -> lines); normalises nothing."""
    h, r = ({k: sum(not unicodedata.is_normalized("NFC", s) for s in v) for k, v in d.items()} for d in (hyps, refs))
    for name, n, lines, other in ([(k, n, hyps[k], "the references") for k, n in h.items() if n and not any(r.values())]
                                  + [(k, n, refs[k], "hypotheses") for k, n in r.items() if n and not all(h.values())]):
        warnings.warn(f"{name}: {n} of {len(lines)} lines are not in Unicode NFC (e.g. accents as combining "
                      f"characters, NFD), but {other} are: scores differ from those of NFC text. Normalise the files "
                      "alike, e.g. uconv -x NFC, or Python's unicodedata.normalize('NFC', line)", stacklevel=3)


def _wide(data: bytes) -> str | None:
    """UTF-16/32, by a byte-order mark or by NUL bytes between the characters (a fifth of the first 4,000 bytes)."""
    boms = {b"\xff\xfe\0\0": "UTF-32", b"\0\0\xfe\xff": "UTF-32", b"\xff\xfe": "UTF-16", b"\xfe\xff": "UTF-16"}
    head, name = data[:4000], next((n for bom, n in boms.items() if data.startswith(bom)), None)
    if name or head.count(0) * 5 < len(head) or not head:
        return name
    return ("UTF-32" if head.count(0) * 3 > len(head) * 2 else "UTF-16") + ("LE" if head[0] else "BE")


def _decode(data: bytes, path) -> list[str]:
    if wide := _wide(data):
        raise ValueError(f"{path}: {wide} text, not UTF-8 (a byte-order mark or NUL bytes between the characters); "
                         f"convert it, e.g. iconv -f {wide} -t UTF-8")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise ValueError(f"{path}: not UTF-8 text (line {line}, byte {data[err.start]:#04x} at offset "
                         f"{err.start}); convert it, e.g. iconv -f latin1 -t utf-8") from None
    if text.startswith(BOM):
        warnings.warn(f"{path}: removed the UTF-8 byte-order mark at the start of the file", stacklevel=3)
        text = text[1:]
    lines = text.split("\n")
    if lines[-1] == "":  # the final newline (or an empty file)
        lines.pop()
    return lines
