"""Reading segment files: one place that decides how text files become lines.

* Only line breaks (``\\n``) are removed; everything else stays byte-faithful (a ``\\r``
  stays, as in mt-metrics-eval).
* A UTF-8 byte-order mark at the very start is not text: it is removed, with a warning
  naming the file (some WMT17/18 system outputs start with one; left in, it would be part
  of segment 1 and lower its score).
* Bytes that are not UTF-8 raise ``ValueError`` naming the file, the line and the byte.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

__all__ = ["read_lines", "BOM"]

BOM = "\ufeff"


def read_lines(path: str | os.PathLike) -> list[str]:
    """The lines of a UTF-8 text file, without their line breaks.

    Raises:
        FileNotFoundError: no such file.
        ValueError: the file is not valid UTF-8 (the message names the file and line).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise ValueError(f"{path}: not UTF-8 text (line {line}, byte {data[err.start]:#04x} at offset "
                         f"{err.start}); convert it, e.g. iconv -f latin1 -t utf-8") from None
    if text.startswith(BOM):
        warnings.warn(f"{path}: removed the UTF-8 byte-order mark at the start of the file", stacklevel=2)
        text = text[1:]
    lines = text.split("\n")
    if lines[-1] == "":  # the final newline (or an empty file)
        lines.pop()
    return lines
