"""Writing shared files safely when several processes use one cache.

Whatever another process may read is written under a unique temporary name and renamed into
place (a rename is atomic on one file system), and one-time builds run under a lock file, so
that simultaneous first uses neither collide nor see half-built results.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterator

from filelock import FileLock

__all__ = ["file_lock", "temporary_dir_beside", "write_atomically"]


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


@contextlib.contextmanager
def write_atomically(path: str | os.PathLike, folder: bool = False) -> Iterator[Path]:
    """All or nothing: yields ``path``'s name inside a fresh temporary folder beside it (``folder``:
    that folder itself) to write into, moved onto ``path`` when the ``with`` ends without error
    (never over a file or a non-empty folder, even one made meanwhile); otherwise removed, and the
    error, re-raised as OSError, names ``path`` and says so."""
    path = Path(path).resolve() if folder and Path(path).is_symlink() else Path(path)  # a link to an empty folder
    with temporary_dir_beside(path) as tmp:
        try:
            yield tmp if folder else tmp / path.name
            if folder:
                mask = os.umask(0o22)
                os.umask(mask)
                tmp.chmod(0o777 & ~mask)  # as a folder made with mkdir (mkdtemp's is private)
                os.rename(tmp, path)  # replaces an empty folder only
            else:
                try:
                    os.link(tmp / path.name, path)  # refused if path exists
                except OSError as err:  # it exists; or a file system without hard links
                    if isinstance(err, FileExistsError) or os.path.lexists(path):
                        raise FileExistsError(errno.EEXIST, "File exists") from None
                    os.replace(tmp / path.name, path)
        except Exception as err:
            reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
            reason = reason.replace(str(tmp), str(path if folder else path.parent))
            raise OSError(f"{reason}; {path} was not written, nothing partial was left") from err
