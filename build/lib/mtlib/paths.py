"""Where data and caches live: the one place that resolves them.

The data root is the folder that holds ``mt-metrics-eval/`` (and, for later chapters,
``vat-release/`` and friends). It comes from, in order:

1. an explicit argument,
2. the environment variable ``MTLIB_DATA``,
3. ``../shared/data`` beside the current folder or its parent, when it exists (the book's
   repository root and its ``notebooks/`` folder both find it; where mtlib is installed
   plays no part).

An mt-metrics-eval folder can also be given directly with ``MTLIB_MTME`` (for example
the ``mt-metrics-eval-v2`` folder that :func:`mtlib.download.download_mtme` unpacks).
"""

from __future__ import annotations

import os
from pathlib import Path

DATA_ENV = "MTLIB_DATA"
MTME_ENV = "MTLIB_MTME"
CACHE_ENV = "MTLIB_CACHE"

def _default_data_candidates() -> list[Path]:
    # Notebooks run with cwd = notebooks/ or book/, tests and scripts from the repo root.
    candidates = [Path.cwd() / ".." / "shared" / "data", Path.cwd() / ".." / ".." / "shared" / "data"]
    return [c.resolve() for c in candidates]


def _given(root: str | os.PathLike | None, env: str, what: str) -> Path | None:
    """The folder named by the argument, else by the environment variable, else None."""
    if root is not None:
        path = Path(root).expanduser()
        if not path.is_dir():
            raise FileNotFoundError(f"{what} {path} does not exist")
        return path
    value = os.environ.get(env)
    if value:
        path = Path(value).expanduser()
        if not path.is_dir():
            raise FileNotFoundError(f"{env}={value} does not name an existing folder")
        return path
    return None


def data_root(root: str | os.PathLike | None = None) -> Path:
    """Returns the data root folder, or raises ``FileNotFoundError`` saying how to set it."""
    path = _given(root, DATA_ENV, "data root")
    if path is not None:
        return path
    for candidate in _default_data_candidates():
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"No data root found. Set {DATA_ENV} to the folder that holds mt-metrics-eval/ "
        f"(or {MTME_ENV} to an mt-metrics-eval folder itself), or pass root=... . "
        "Users with internet can fetch the official archive with "
        "`python -m mtlib.download` and point MTLIB_MTME at the folder it prints."
    )


def mtme_root(root: str | os.PathLike | None = None) -> Path:
    """Returns the mt-metrics-eval folder (holding ``wmt19/`` etc.)."""
    path = _given(root, MTME_ENV, "mt-metrics-eval folder")
    if path is not None:
        return path
    path = data_root() / "mt-metrics-eval"
    if not path.is_dir():
        raise FileNotFoundError(f"{path} does not exist: the data root has no mt-metrics-eval/ folder")
    return path


def extras_root(root: str | os.PathLike | None = None) -> Path:
    """The ``mt-metrics-eval-extras`` folder of the data root (released score files, MQM TSVs)."""
    path = data_root(root) / "mt-metrics-eval-extras"
    if not path.is_dir():
        raise FileNotFoundError(f"{path} does not exist: the data root has no mt-metrics-eval-extras/ folder")
    return path


def has_mtme_data() -> bool:
    """True when an mt-metrics-eval folder can be found (used to skip data tests).

    False only when none is configured and the default location is absent. A folder set
    explicitly (``MTLIB_DATA`` or ``MTLIB_MTME``) that is wrong raises ``FileNotFoundError``:
    a typo in the setting must not turn into silently skipped tests.
    """
    if os.environ.get(MTME_ENV) or os.environ.get(DATA_ENV):
        mtme_root()
        return True
    try:
        mtme_root()
    except FileNotFoundError:
        return False
    return True


class CacheFolderError(ValueError):
    """The cache folder (or a place in it) is not a folder or file mtlib can use, or cannot be
    created or written; the message names it and the remedy. A ValueError, so that every
    command reports it as ``error: …``."""


def cache_dir() -> Path:
    """Cache folder for downloads and computed statistics (``MTLIB_CACHE`` or ``~/.cache/mtlib``),
    created if needed; raises :class:`CacheFolderError` unless it is a writable folder."""
    env = os.environ.get(CACHE_ENV)
    path = Path(env).expanduser() if env else Path.home() / ".cache" / "mtlib"
    named = f"{CACHE_ENV}={env}" if env else f"the cache folder {path} (the default; {CACHE_ENV} is not set)"
    remedy = f"set {CACHE_ENV} to a writable folder"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # mkdir's answer when the name is taken by a file
        raise CacheFolderError(f"{named} names a file, not a folder: {remedy}") from None
    except NotADirectoryError:
        raise CacheFolderError(f"{named} cannot be created: a part of {path} is a file, not a folder; "
                               f"{remedy}") from None
    except OSError as err:  # permission denied, read-only file system
        raise CacheFolderError(f"{named} cannot be created ({err.strerror or err}): {remedy}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise CacheFolderError(f"{named} is not writable: make {path} writable, or {remedy}")
    return path
