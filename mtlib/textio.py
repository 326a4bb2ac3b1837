"""Reading segment files: one place that decides how text files become lines.

* Only line breaks (``\\n``) are removed; everything else stays byte-faithful (a ``\\r``
  stays, as in mt-metrics-eval).
* A UTF-8 byte-order mark at the very start is not text: it is removed, with a warning
  naming the file (some WMT17/18 system outputs start with one; left in, it would be part
  of segment 1 and lower its score).
* Bytes that are not UTF-8 raise ``ValueError`` naming the file, the line and the byte.
* A missing file, a folder and a file this process may not read raise ``FileNotFoundError``,
  ``IsADirectoryError`` and ``PermissionError`` naming the path (:func:`check_text_file`).
* Commands read ``-`` as standard input (:func:`read_input`), as sacreBLEU and Unix tools do.
* A command whose reader leaves early (``| head``) ends quietly (:func:`broken_pipe`).
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

__all__ = ["read_lines", "read_input", "check_text_file", "broken_pipe", "BOM", "STDIN"]

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


def _decode(data: bytes, path) -> list[str]:
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
