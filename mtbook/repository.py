"""Where the book's repository is: found explicitly, never from where mtlib is installed.

In order: the environment variable ``MTLIB_BOOK``, else the current folder or the nearest of
its parents that holds ``_toc.yml`` and ``notebooks/profiles.yml`` (a clone of the book's
repository). An installed wheel therefore works for the metrics anywhere and for the book
tooling inside a clone, or anywhere with ``MTLIB_BOOK`` set.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["BOOK_ENV", "Repository", "find_repository", "is_repository"]

BOOK_ENV = "MTLIB_BOOK"
MARKERS = ("_toc.yml", "notebooks/profiles.yml")


@dataclass(frozen=True)
class Repository:
    """A clone of the book's repository and the folders the tooling reads and writes."""

    root: Path

    @property
    def notebooks(self) -> Path:
        """The notebook sources (``notebooks/``), executed by the runner."""
        return self.root / "notebooks"

    @property
    def book(self) -> Path:
        """The executed chapters the book renders (``book/``)."""
        return self.root / "book"

    @property
    def profiles(self) -> Path:
        """``notebooks/profiles.yml``: the parameters of each profile."""
        return self.notebooks / "profiles.yml"

    @property
    def assignments(self) -> Path:
        """The graded assignments' sources (``assignments/``)."""
        return self.root / "assignments"

    @property
    def build(self) -> Path:
        """Build outputs (``_build/``, not committed)."""
        return self.root / "_build"


def is_repository(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a clone of the book's repository."""
    return all((Path(path) / marker).is_file() for marker in MARKERS)


def find_repository(start: str | os.PathLike | None = None) -> Repository:
    """The book's repository: ``MTLIB_BOOK``, else ``start`` (default: the current folder) or
    its nearest parent that holds ``_toc.yml`` and ``notebooks/profiles.yml``.

    Raises:
        FileNotFoundError: ``MTLIB_BOOK`` names no such repository, or none was found; the
            message says how to point the tooling at one.
    """
    value = os.environ.get(BOOK_ENV)
    if value:
        root = Path(value).expanduser().resolve()
        if not is_repository(root):
            raise FileNotFoundError(f"{BOOK_ENV}={value} is not the book's repository (it must hold "
                                    f"{' and '.join(MARKERS)})")
        return Repository(root)
    here = Path(start if start is not None else Path.cwd()).resolve()
    for folder in [here, *here.parents]:
        if is_repository(folder):
            return Repository(folder)
    raise FileNotFoundError(f"no book repository at or above {here}: run the book tooling inside a clone of the "
                            f"book's repository (the folder with {' and '.join(MARKERS)}), or set {BOOK_ENV} to it")
