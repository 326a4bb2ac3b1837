"""Token embeddings cached on disk, one SQLite file per (model identity, layer).

Each unique sentence is embedded once per model and layer and never again, across metrics,
notebooks and runs. The key is the SHA-256 of the exact text; the file name carries the
model identity (weights fingerprint), the layer and the tokenizer's length limit, so a hit
is exact. Every batch is committed as it is computed, so an interrupted job resumes.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from pathlib import Path

import numpy as np

__all__ = ["EmbeddingStore", "text_key"]


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


class EmbeddingStore:
    """Maps sentence -> (token ids, unit-normalised float32 token embeddings)."""

    def __init__(self, folder: Path, identity: str, layer: int, max_length: int) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        # Readable, but not injective ("org/my_model" and "org_my/model" read alike): the hash
        # of the exact identity makes the name unique.
        safe = re.sub(r"[^A-Za-z0-9_.@-]+", "_", identity)
        exact = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:12]
        self.path = folder / f"{safe}.{exact}.L{layer}.max{max_length}.sqlite"
        self._db = sqlite3.connect(self.path)
        self._db.execute("CREATE TABLE IF NOT EXISTS emb (key BLOB PRIMARY KEY, n INTEGER, d INTEGER, "
                         "ids BLOB, vec BLOB)")

    def get_many(self, texts: list[str]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        out = {}
        keys = {text_key(t): t for t in texts}
        items = list(keys.items())
        for start in range(0, len(items), 500):
            chunk = items[start:start + 500]
            rows = self._db.execute(
                f"SELECT key, n, d, ids, vec FROM emb WHERE key IN ({','.join('?' * len(chunk))})",
                [k for k, _ in chunk]).fetchall()
            for key, n, d, ids, vec in rows:
                out[keys[key]] = (np.frombuffer(ids, dtype=np.int32),
                                  np.frombuffer(vec, dtype=np.float32).reshape(n, d))
        return out

    def put_many(self, items: dict[str, tuple[np.ndarray, np.ndarray]]) -> None:
        with self._db:  # one transaction per batch
            self._db.executemany(
                "INSERT OR REPLACE INTO emb VALUES (?, ?, ?, ?, ?)",
                [(text_key(t), v.shape[0], v.shape[1], ids.astype(np.int32).tobytes(),
                  np.ascontiguousarray(v, dtype=np.float32).tobytes()) for t, (ids, v) in items.items()])

    def close(self) -> None:
        self._db.close()
