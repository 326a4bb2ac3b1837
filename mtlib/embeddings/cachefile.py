"""Cache files that say what is wrong with them: the SQLite helpers shared by the match cache
(:mod:`mtlib.embeddings.matchstore`) and the embedding cache (:mod:`mtlib.embeddings.store`).

A file SQLite cannot read or write raises :class:`CacheFileError`, whose message names the file
and the remedy: deleting it only when SQLite finds it damaged, never when it is read-only or
locked (deleting a healthy cache would throw away hours of model time).
"""

from __future__ import annotations

import errno
import hashlib
import re
import sqlite3
import warnings
from pathlib import Path

__all__ = ["CacheFileError", "open_sqlite", "cache_error", "damaged", "is_damage", "cache_file_name", "make_folder",
           "ELSEWHERE"]


class CacheFileError(RuntimeError):
    """A cache file that SQLite cannot read or write; the message names it and says what to do."""


# Where else a cache can go, for a file that cannot be written (callers with another remedy pass theirs).
ELSEWHERE = "point MTLIB_CACHE (or the cache argument) at a writable folder"
# A cache file another process holds is waited for up to LOCK_WAIT s; after QUIET_WAIT s the wait is announced.
QUIET_WAIT, LOCK_WAIT = 5, 600


class _Patient:
    """A connection that says so (a warning naming the file) when another process's lock makes it wait."""

    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self._db, self.path = db, path
    __getattr__ = lambda self, name: getattr(self._db, name)  # close, commit, ...
    __enter__ = lambda self: self._db.__enter__()
    __exit__ = lambda self, *exc: self._db.__exit__(*exc)
    execute = lambda self, *args: self._patiently(self._db.execute, args)
    executemany = lambda self, *args: self._patiently(self._db.executemany, args)

    def _patiently(self, run, args):
        try:
            return run(*args)
        except sqlite3.OperationalError as err:
            if "database is locked" not in str(err):  # SQLITE_BUSY's message
                raise
        warnings.warn(f"cache file {self.path} is locked by another process (another mtlib run or merge writing "
                      f"it, or an sqlite3 shell); waiting up to {LOCK_WAIT} s for it", stacklevel=4)
        self._db.execute(f"PRAGMA busy_timeout = {LOCK_WAIT * 1000}")
        out = run(*args)
        self._db.execute(f"PRAGMA busy_timeout = {int(QUIET_WAIT * 1000)}")
        return out


def open_sqlite(path: Path, schema: str, elsewhere: str = ELSEWHERE) -> _Patient:
    """Opens (creating) a cache database shared by processes; failures raise CacheFileError
    (:func:`cache_error`: only a damaged file is advised to be deleted)."""
    try:
        db = _Patient(sqlite3.connect(path, timeout=QUIET_WAIT), path)  # waits for other writers, see above
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(schema)
        db.commit()
    except sqlite3.DatabaseError as err:
        raise cache_error(path, err, elsewhere) from err
    return db


def is_damage(err: Exception) -> bool:
    """Whether SQLite found the file's content broken (not a database, malformed), as opposed to
    a file it may not write or open, or one that is locked: only damage is cured by deleting it."""
    name = getattr(err, "sqlite_errorname", "") or ""  # Python >= 3.11; the message otherwise
    if name:
        return name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB"))
    text = str(err).lower()
    return isinstance(err, sqlite3.DatabaseError) and ("not a database" in text or "malformed" in text)


def _cannot_write(err: Exception) -> bool:
    if isinstance(err, OSError):
        return err.errno in (errno.EACCES, errno.EPERM, errno.EROFS)
    name = getattr(err, "sqlite_errorname", "") or ""
    if name:
        return name.startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_AUTH"))
    text = str(err).lower()
    return any(s in text for s in ("readonly", "read-only", "unable to open", "permission"))


def cache_error(path: Path, err: Exception, elsewhere: str = ELSEWHERE) -> CacheFileError:
    """The CacheFileError for ``err`` on cache file ``path``: deleting is advised for real damage only,
    never for a healthy file that is read-only, in a read-only folder, or locked."""
    if is_damage(err):
        return damaged(path, err)
    if path.is_dir() or re.search(r"no such (column|table)|has no column", str(err)):
        what = "a folder, not a file" if path.is_dir() else f"an SQLite file not laid out as mtlib's cache ({err})"
        return CacheFileError(f"cache file {path} is {what}; not mtlib's, so it is kept: move it away (a new cache "
                              f"file is then made there), or {elsewhere}")
    if _cannot_write(err) and not path.exists():
        return CacheFileError(f"cache file {path} cannot be created ({err}): make its folder {path.parent} "
                              f"writable, or {elsewhere}")
    if _cannot_write(err):  # even reading a write-ahead-logged file writes its -shm file beside it
        return CacheFileError(f"cache file {path} is read-only, or in a read-only folder ({err}); this is not "
                              f"damage, keep the file. Make it and its folder {path.parent} writable (SQLite "
                              f"writes {path.name}-wal and -shm beside it), or {elsewhere}")
    return CacheFileError(f"cache file {path} cannot be used now ({err}); nothing says it is damaged, keep the "
                          "file. Check the disk (free space, another process holding it) and run again")


def damaged(path: Path, err: Exception) -> CacheFileError:
    return CacheFileError(f"cache file {path} is damaged ({err}). Delete it (and any {path.name}-wal / -shm "
                          "beside it): what it held is recomputed on the next run")


def make_folder(folder: Path, elsewhere: str = ELSEWHERE) -> None:
    """``folder.mkdir(parents=True)``, a refusal reported as a CacheFileError naming the folder."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise CacheFileError(f"cache folder {folder} cannot be created ({err.strerror or err}): make its parent "
                             f"writable, or {elsewhere}") from err


def cache_file_name(identity: str, rest: str, exact: str | None = None) -> str:
    """A readable file name for a model identity plus the hash of the exact identity (``exact``,
    default ``identity``; e.g. with the library versions): the readable part is not injective
    ("org/my_model" and "org_my/model" read alike)."""
    safe = re.sub(r"[^A-Za-z0-9_.@-]+", "_", identity)
    exact = identity if exact is None else exact
    return f"{safe}.{hashlib.sha256(exact.encode('utf-8')).hexdigest()[:12]}.{rest}"
