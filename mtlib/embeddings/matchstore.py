"""The pair-level match cache: what every BERTScore-family metric needs from the model.

For one (hypothesis, reference) pair BERTScore P/R/F (with or without idf, rescaled or not),
difficulty-aware BERTScore (both aggregations) and variance-aware filtering need only the
token ids of both sides and each token's best cosine similarity to the other side
(:class:`TokenMatches`). This cache keeps exactly that, so every one of them
is computed from it without loading the model.

* One SQLite file per (model identity, layer, precision, length limit): the file name says
  which, with a hash of the exact identity; the key is the SHA-256 of the exact pair.
* Values are stored exactly (3-byte ids, float32 similarities: 7 bytes per token), so a
  score read from the cache equals the score computed directly, to the last bit.
* Each row carries a CRC-32 of its value: a damaged row is recomputed, with a warning. A file
  SQLite cannot read or write raises :class:`CacheFileError`, which names the file and the
  remedy: deleting it only when SQLite finds it damaged, never when it is read-only or locked.
* Write-ahead logging and a long busy timeout let several processes (shards) share one file;
  every batch is committed as it is computed, so a killed run resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import sqlite3
import struct
import warnings
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from mtlib.embeddings.cachefile import (ELSEWHERE, CacheFileError, cache_error, cache_file_name, damaged, is_damage,
                                        make_folder, open_sqlite)

__all__ = ["MatchStore", "TokenMatches", "pair_key", "encode_matches", "encode_many", "decode_matches", "decode_many"]

_HEADER = struct.Struct("<HH")


@dataclass(frozen=True)
class TokenMatches:
    """Best cosine similarities of one (hypothesis, reference) pair, special tokens removed.

    Attributes:
        hyp_ids, ref_ids: token ids.
        hyp_max: for each hypothesis token, its best similarity to any reference token.
        ref_max: for each reference token, its best similarity to any hypothesis token.
    """

    hyp_ids: np.ndarray
    hyp_max: np.ndarray
    ref_ids: np.ndarray
    ref_max: np.ndarray


def pair_key(hyp: str, ref: str) -> bytes:
    h, r = hyp.encode("utf-8"), ref.encode("utf-8")
    return hashlib.sha256(len(h).to_bytes(8, "little") + h + r).digest()


def encode_matches(m) -> bytes:
    """``n_hyp, n_ref`` (uint16), ids (3-byte unsigned), then best similarities (float32, exact)."""
    return encode_many([m])[0]


def encode_many(matches: Sequence) -> list[bytes]:
    """:func:`encode_matches` of each: all ids and similarities converted at once, each value cut from them."""
    sides = [[x for m in matches for x in (m.hyp_ids, m.ref_ids)], [x for m in matches for x in (m.hyp_max, m.ref_max)]]
    n = np.fromiter(map(len, sides[0]), np.int64, len(sides[0])).reshape(-1, 2)  # tokens per pair and side
    if n.size and n.max() > 0xFFFF:
        raise ValueError("a sentence of more than 65,535 tokens cannot be cached")
    ids = np.concatenate([*sides[0], np.zeros(0, np.int64)])
    if ids.size and (ids.min() < 0 or ids.max() >= 1 << 24):
        raise ValueError("token ids must lie in 0..2**24-1 to be cached")
    heads = n.astype("<u2").tobytes()
    ids3 = ids.astype("<u4").view(np.uint8).reshape(-1, 4)[:, :3].tobytes()  # vocabularies stay below 16.7M
    sims = np.concatenate([*sides[1], np.zeros(0, "<f4")]).astype("<f4").tobytes()
    ends = np.cumsum(n.sum(axis=1)).tolist()
    return [heads[4 * i:4 * i + 4] + ids3[3 * a:3 * b] + sims[4 * a:4 * b]
            for i, (a, b) in enumerate(zip([0, *ends], ends))]


def _counts(data: bytes) -> tuple[int, int]:
    nh, nr = _HEADER.unpack_from(data)
    if len(data) != _HEADER.size + 7 * (nh + nr):
        raise ValueError(f"value of {len(data)} bytes for {nh} + {nr} tokens")
    return nh, nr


def decode_matches(data: bytes):
    return decode_many([data])[0]


def decode_many(values: Sequence[bytes]) -> list:
    """:func:`decode_matches` of each: the ids and similarities of all values joined, converted at once, then cut."""
    n = np.array([_counts(v) for v in values], np.int64).reshape(-1, 2)
    k = n.sum(axis=1).tolist()
    ids = np.zeros((sum(k), 4), np.uint8)
    ids[:, :3] = np.frombuffer(b"".join([v[4:4 + 3 * t] for v, t in zip(values, k)]), np.uint8).reshape(-1, 3)
    ids, sims = ids.view("<u4").ravel().astype(np.int32), np.frombuffer(b"".join(
        [v[4 + 3 * t:] for v, t in zip(values, k)]), "<f4")
    ends = np.cumsum(n.ravel()).tolist()
    return [TokenMatches(ids[a:b], sims[a:b], ids[b:c], sims[b:c])
            for a, b, c in zip([0, *ends[1::2]], ends[0::2], ends[1::2])]


class MatchStore:
    """Maps (hypothesis, reference) -> token matches for one model identity, layer and precision.

    Args:
        folder: the cache folder (a ``matches/`` file per model setting goes inside).
        identity: the model identity (weights fingerprint or hub revision).
        layer, precision, max_length: the other settings that change a number.
        versions: the versions of the code that computes the matches (mtlib, torch,
            transformers, tokenizers: :func:`mtlib.version.engine_versions`), hashed
            into the file name with the rest, so that other versions never share a file.
    """

    # Rows are appended in rowid order (full pages); the key index is small. Format 2: 3-byte ids.
    _SCHEMA = ("CREATE TABLE IF NOT EXISTS pairs (id INTEGER PRIMARY KEY, key BLOB UNIQUE NOT NULL, data BLOB, "
               "crc INTEGER)")
    FORMAT = 2

    def __init__(self, folder: Path, identity: str, layer: int, precision: str, max_length: int,
                 versions: str) -> None:
        folder = Path(folder)
        make_folder(folder)
        rest = f"L{layer}.{precision}.max{max_length}.v{self.FORMAT}"
        self.path = folder / cache_file_name(identity, rest + ".matches.sqlite", exact=f"{identity}|{rest}|{versions}")
        self._elsewhere = ELSEWHERE
        self._db = open_sqlite(self.path, self._SCHEMA)

    @classmethod
    def open_file(cls, path: str | Path, elsewhere: str = ELSEWHERE) -> "MatchStore":
        """Opens (creating) a match cache file by name, e.g. to merge a shard's file of the same name;
        ``elsewhere`` is the remedy named when it cannot be written (e.g. "choose another --into")."""
        store = cls.__new__(cls)
        store.path, store._elsewhere = Path(path), elsewhere
        make_folder(store.path.parent, elsewhere)
        store._db = open_sqlite(store.path, cls._SCHEMA, elsewhere)
        return store

    def _run(self, sql: str, args: Sequence = ()) -> list:
        try:
            return self._db.execute(sql, args).fetchall()
        except sqlite3.DatabaseError as err:
            raise cache_error(self.path, err, self._elsewhere) from err

    def get_many(self, keys: Sequence[bytes]) -> dict[bytes, object]:
        """key -> TokenMatches for the keys present (damaged rows are left out, with a warning)."""
        out = {}
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), 500):
            chunk = unique[start:start + 500]
            rows = self._run(f"SELECT key, data, crc FROM pairs WHERE key IN ({','.join('?' * len(chunk))})", chunk)
            for key, data, crc in rows:
                try:
                    if zlib.crc32(data) != crc:
                        raise ValueError("checksum mismatch")
                    _counts(data)
                    out[bytes(key)] = data
                except (ValueError, struct.error) as err:
                    warnings.warn(f"match cache {self.path}: a damaged entry ({err}) is recomputed", stacklevel=2)
        return dict(zip(out, decode_many(list(out.values()))))  # all values at once

    def put_many(self, items: Iterable[tuple[bytes, object]]) -> None:
        items = list(items)  # encoded all at once
        rows = [(key, data, zlib.crc32(data)) for (key, _), data in zip(items, encode_many([m for _, m in items]))]
        try:
            with self._db:  # one transaction per batch: a killed run keeps what it committed
                self._db.executemany("INSERT OR REPLACE INTO pairs (key, data, crc) VALUES (?, ?, ?)", rows)
        except sqlite3.DatabaseError as err:
            raise cache_error(self.path, err, self._elsewhere) from err

    def __len__(self) -> int:
        return int(self._run("SELECT COUNT(*) FROM pairs")[0][0])

    def bytes_per_pair(self) -> float:
        """Size on disk (after a checkpoint of the write-ahead log) per cached pair."""
        self._run("PRAGMA wal_checkpoint(TRUNCATE)")
        n = len(self)
        return self.path.stat().st_size / n if n else float("nan")

    def merge_from(self, other: str | Path) -> int:
        """Copies the pairs of another file of the same setting (e.g. a shard's); returns the rows added."""
        other = Path(other)
        if other.name != self.path.name:
            raise ValueError(f"{other} holds another model setting than {self.path.name}; only the same file "
                             "name can be merged")
        if not other.is_file():  # ATTACH would create an empty file there
            raise FileNotFoundError(f"match cache file {other} does not exist (or is not a file): nothing to merge")
        before = len(self)
        readable_elsewhere = "copy it into a writable folder and merge from there"
        try:
            self._db.execute("ATTACH DATABASE ? AS other", (str(other),))
        except sqlite3.DatabaseError as err:
            raise cache_error(other, err, readable_elsewhere) from err
        try:  # detached whatever happens, or the next merge finds "database other is already in use"
            try:  # reads the source first, so that what fails here is the source's
                tables = self._db.execute("SELECT name FROM other.sqlite_master WHERE type = 'table'").fetchall()
            except sqlite3.DatabaseError as err:
                raise cache_error(other, err, readable_elsewhere) from err
            if ("pairs",) not in tables:
                raise ValueError(f"{other} is an SQLite file but not a match cache (no table 'pairs'): "
                                 "only match caches can be merged")
            try:
                with self._db:
                    self._db.execute("INSERT OR IGNORE INTO pairs (key, data, crc) "
                                     "SELECT key, data, crc FROM other.pairs")
            except sqlite3.DatabaseError as err:  # a write refused is the target's; damage may be either's
                if not is_damage(err):
                    raise cache_error(self.path, err, self._elsewhere) from err
                culprit = self._damaged_of(other)
                if culprit is None:  # never advise deleting a file that passes the check
                    raise CacheFileError(f"merging {other} into {self.path} failed ({err}), yet both pass SQLite's "
                                         "quick check; keep both and run again") from err
                raise damaged(culprit, err) from err
        finally:
            self._db.execute("DETACH DATABASE other")
        return len(self) - before

    def _damaged_of(self, other: Path) -> Path | None:
        """Which of the attached source and this file fails SQLite's quick check (after a copy hit damage)."""
        for schema, path in (("other", other), ("main", self.path)):
            try:
                if self._db.execute(f"PRAGMA {schema}.quick_check(1)").fetchone()[0] != "ok":
                    return path
            except sqlite3.DatabaseError:
                return path
        return None

    def close(self) -> None:
        self._db.close()
