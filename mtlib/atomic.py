"""Writing shared files safely when several processes use one cache.

Whatever another process may read is written under a unique temporary name and renamed into
place (a rename is atomic on one file system), and one-time builds run under a lock file, so
that simultaneous first uses neither collide nor see half-built results.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterator

from filelock import FileLock

__all__ = ["file_lock", "temporary_dir_beside"]


@contextlib.contextmanager
def file_lock(path: str | os.PathLike) -> Iterator[None]:
    """An exclusive lock on ``path`` (created if needed, with its folder), held inside the
    ``with``: the ``filelock`` package (fcntl on POSIX, msvcrt on Windows)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(path):
        yield


@contextlib.contextmanager
def temporary_dir_beside(target: str | os.PathLike) -> Iterator[Path]:
    """A fresh folder next to ``target`` (same file system, so it can be renamed onto it);
    removed on the way out unless it was renamed."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        yield tmp
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
