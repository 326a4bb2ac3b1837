"""Token embeddings cached on disk, one SQLite file per (model identity, layer, precision).

Optional since the pair-level match cache (:mod:`mtlib.embeddings.matchstore`) holds all that
BERTScore-family metrics need; it serves metrics that use the embeddings themselves (the
contextual WMD/SCM of the RegEMT chapter) on small sets. Embeddings are stored as float16
(unit vectors lose about 1e-3 per component; :class:`~mtlib.embeddings.embedder.Embedder`
rounds fresh embeddings the same way when this cache is on, so a hit equals a miss). The key
is the SHA-256 of the exact text; the file name carries the model identity, layer, precision
and length limit. Every batch is committed as it is computed, so an interrupted job resumes.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import numpy as np

from mtlib.embeddings.cachefile import cache_error, cache_file_name, make_folder, open_sqlite
from mtlib.version import engine_versions

__all__ = ["EmbeddingStore", "text_key"]


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


class EmbeddingStore:
    """Maps sentence -> (token ids, unit-normalised float16 token embeddings)."""

    def __init__(self, folder: Path, identity: str, layer: int, max_length: int, precision: str = "fp32") -> None:
        make_folder(folder)
        rest = f"L{layer}.{precision}.max{max_length}.f16.sqlite"
        self.path = folder / cache_file_name(identity, rest, exact=f"{identity}|{rest}|{engine_versions()}")
        self._db = open_sqlite(self.path, "CREATE TABLE IF NOT EXISTS emb (key BLOB PRIMARY KEY, n INTEGER, "
                                          "d INTEGER, ids BLOB, vec BLOB)")

    def get_many(self, texts: list[str]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        out = {}
        keys = {text_key(t): t for t in texts}
        items = list(keys.items())
        for start in range(0, len(items), 500):
            chunk = items[start:start + 500]
            try:
                rows = self._db.execute(
                    f"SELECT key, n, d, ids, vec FROM emb WHERE key IN ({','.join('?' * len(chunk))})",
                    [k for k, _ in chunk]).fetchall()
            except sqlite3.DatabaseError as err:
                raise cache_error(self.path, err) from err
            for key, n, d, ids, vec in rows:
                out[keys[key]] = (np.frombuffer(ids, dtype=np.int32),
                                  np.frombuffer(vec, dtype=np.float16).reshape(n, d).astype(np.float32))
        return out

    def put_many(self, items: dict[str, tuple[np.ndarray, np.ndarray]]) -> None:
        try:
            with self._db:  # one transaction per batch
                self._db.executemany(
                    "INSERT OR REPLACE INTO emb VALUES (?, ?, ?, ?, ?)",
                    [(text_key(t), v.shape[0], v.shape[1], ids.astype(np.int32).tobytes(),
                      np.ascontiguousarray(v, dtype=np.float16).tobytes()) for t, (ids, v) in items.items()])
        except sqlite3.DatabaseError as err:
            raise cache_error(self.path, err) from err

    def close(self) -> None:
        self._db.close()
