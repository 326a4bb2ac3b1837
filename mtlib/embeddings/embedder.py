"""Embedding sentences: de-duplicated, length-bucketed batches, optionally cached on disk."""

from __future__ import annotations

import os
import sys
import warnings
from functools import lru_cache
from itertools import chain
from pathlib import Path
from typing import Iterable

import numpy as np

from mtlib import paths
from mtlib.embeddings.models import LoadedModel, load_model
from mtlib.embeddings.store import EmbeddingStore
from mtlib.embeddings.tensors import to_numpy

__all__ = ["Embedder", "DEFAULT_BATCH_TOKENS", "shared_embedder"]

# Padded tokens per forward pass. CPU: 1,024 was fastest for e5-small on 2 cores (benchmarks/
# bertscore_speed.py; 8,192 and 32,768 were slower). GPU: large batches keep the device busy.
DEFAULT_BATCH_TOKENS = {"cpu": 1024, "cuda": 32768}


class Embedder:
    """Token embeddings of one model layer, unit-normalised, special tokens included.

    The model's weights are loaded at the first sentence that needs them, so a fully cached
    job never loads them.

    Args:
        model: offline short name, local folder or hub name (see :mod:`mtlib.embeddings.models`).
        layer: layer whose output is used (default: the model's default layer).
        device: torch device (default: ``cuda`` when available, else ``cpu``).
        precision: ``fp32`` (default) or ``bf16`` for the forward pass; named in every signature.
        cache: token-embedding cache: False (default; BERTScore uses the pair-level match
            cache instead), True (the mtlib cache folder) or a folder. When on, embeddings are
            rounded to float16, fresh ones too, so that cached and fresh results are equal.
        batch_tokens: padded tokens per forward pass (default per device:
            :data:`DEFAULT_BATCH_TOKENS`).
        progress: show a progress bar (default: when more than 2,000 sentences are missing).
    """

    def __init__(self, model: str, layer: int | None = None, *, device: str | None = None,
                 precision: str = "fp32", cache: bool | str | os.PathLike = False,
                 batch_tokens: int | None = None, progress: bool | None = None) -> None:
        self.loaded: LoadedModel = load_model(model, layer, device=device, precision=precision)
        self.device = self.loaded.device
        self.precision = precision
        self.batch_tokens = batch_tokens or DEFAULT_BATCH_TOKENS["cuda" if self.device.startswith("cuda") else "cpu"]
        self.progress = progress
        tok = self.loaded.tokenizer
        self.special_ids = {i for i in (tok.cls_token_id, tok.sep_token_id, tok.bos_token_id, tok.eos_token_id)
                            if i is not None}
        self.cls_sep_ids = {i for i in (tok.cls_token_id, tok.sep_token_id) if i is not None}
        self.store = None
        if cache:
            folder = paths.cache_dir() if cache is True else Path(cache)
            self.store = EmbeddingStore(Path(folder) / "embeddings", self.loaded.identity, self.loaded.layer,
                                        tok.model_max_length, precision)
        self.n_truncated = 0  # sentences cut to max_tokens, counted when they are tokenised
        self.n_computed = 0  # sentences embedded by the model in this object's life (for benchmarks)

    def close(self) -> None:
        """Closes the token-embedding cache file, if any; the embedder is not used afterwards."""
        if self.store is not None:
            self.store.close()

    @property
    def identity(self) -> str:
        return f"{self.loaded.identity}|L{self.loaded.layer}|{self.precision}"

    @property
    def max_tokens(self) -> int:
        """The model's length limit (special tokens included); longer sentences are truncated."""
        return int(self.loaded.tokenizer.model_max_length)

    def encode_ids(self, texts: list[str]) -> list[list[int]]:
        """Token ids as bert_score's ``sent_encode`` makes them (stripped text, special tokens, truncation).

        All texts go to the tokenizer in one call, with the ids of one ``encode`` per text (tested): a fast
        one's Rust backend directly, without transformers' per-text objects and the offsets. Truncation to
        :attr:`max_tokens` is what bert_score does too, but never silent here: a warning gives
        the number of sentences cut, and :attr:`n_truncated` counts them.
        """
        tok = self.loaded.tokenizer
        stripped = [t.strip() for t in texts]
        if not stripped:
            return []
        if getattr(tok, "is_fast", False):  # set as tokenizer(..., truncation=True) sets them, for every call
            tok.backend_tokenizer.no_padding()
            tok.backend_tokenizer.enable_truncation(self.max_tokens, direction=tok.truncation_side)
            encodings = tok.backend_tokenizer.encode_batch_fast(stripped)
            out = [e.ids for e in encodings]
            cut = sum(1 for e, ids in zip(encodings, out) if len(ids) == self.max_tokens and e.overflowing)
        else:
            out = tok(stripped, add_special_tokens=True, max_length=self.max_tokens, truncation=True)["input_ids"]
            room = self.max_tokens - tok.num_special_tokens_to_add()  # at most 2 tokens per UTF-8 byte: short texts fit
            long = [t for t in stripped if 2 * len(t.encode("utf-8")) > room]
            cut = sum(len(i) > room for i in tok(long, add_special_tokens=False, verbose=False)["input_ids"]) if long else 0
        if cut:
            self.n_truncated += cut
            warnings.warn(f"{cut} of {len(texts)} sentences exceed {self.loaded.name}'s limit of {self.max_tokens} "
                          "tokens and were truncated (as bert-score does): tokens after the limit are not scored",
                          stacklevel=2)
        return out

    def _batches(self, lengths: np.ndarray) -> list[np.ndarray]:
        """Indices sorted by length, grouped so that each batch pads to at most ``batch_tokens`` (or is one text)."""
        order, batches, start = np.argsort(lengths, kind="stable"), [], 0
        while start < len(order):
            n = lengths[order[start:start + self.batch_tokens // max(1, lengths[order[start]]) + 1]]
            batches.append(order[start:start + max(1, int(np.searchsorted(n * np.arange(1, len(n) + 1),
                                                                          self.batch_tokens, side="right")))])
            start += len(batches[-1])
        return batches

    def embed(self, texts: Iterable[str], *, on_device: bool = False) -> dict[str, tuple[np.ndarray, object]]:
        """text -> (token ids, (tokens, dim) unit-normalised float32 embeddings), each unique text once.

        The embeddings are NumPy arrays on the host, or with ``on_device=True`` float32 torch
        tensors left on the model's device (no copy to the host: for matching there in batches).
        """
        import torch

        unique = list(dict.fromkeys(texts))
        found, missing = {}, unique
        if self.store is not None:
            hits = self.store.get_many(missing)
            if on_device:
                hits = {t: (ids, torch.from_numpy(v).to(self.device)) for t, (ids, v) in hits.items()}
            found.update(hits)
            missing = [t for t in missing if t not in hits]
        if not missing:
            return found
        ids = self.encode_ids(missing)
        lengths = np.fromiter(map(len, ids), np.int64, len(ids))
        flat = np.fromiter(chain.from_iterable(ids), np.int32, int(lengths.sum()))  # every text's ids, one array
        starts = np.cumsum(lengths) - lengths
        show = self.progress if self.progress is not None else len(missing) > 2000
        bar = None
        if show:
            from tqdm import tqdm  # plain text bar: no widget dependency in notebooks
            bar = tqdm(total=len(missing), desc=f"embedding ({self.loaded.name} L{self.loaded.layer} "
                                                f"{self.precision})", unit="sent", file=sys.stderr)
        pad = self.loaded.tokenizer.pad_token_id or 0
        model = self.loaded.model
        for batch in self._batches(lengths):
            n = lengths[batch]
            valid = np.arange(n.max()) < n[:, None]  # padded into one array: each row's ids, then pad
            index = np.minimum(starts[batch, None] + np.arange(n.max()), len(flat) - 1)
            x = torch.from_numpy(np.where(valid, flat[index], pad).astype(np.int64))
            mask = torch.from_numpy(valid.astype(np.int64))
            with torch.inference_mode():
                hidden = model(input_ids=x.to(self.device), attention_mask=mask.to(self.device)).last_hidden_state
                hidden = torch.nn.functional.normalize(hidden.float(), dim=-1)
                if self.store is not None:  # what the cache would return, so hits equal misses
                    hidden = hidden.half().float()
                on_host = to_numpy(hidden) if self.store is not None or not on_device else None
            rows = hidden[torch.from_numpy(valid).to(hidden.device)].split(n.tolist()) if on_host is None else \
                [on_host[row, :k] for row, k in enumerate(n.tolist())]  # views of the batch's array
            new = {missing[i]: (flat[starts[i]:starts[i] + len(v)], v) for i, v in zip(batch.tolist(), rows)}
            if self.store is not None:
                self.store.put_many(new)
                if on_device:
                    new = {t: (i, hidden[row, :len(i)]) for row, (t, (i, _)) in enumerate(new.items())}
            found.update(new)
            self.n_computed += len(batch)
            if bar is not None:
                bar.update(len(batch))
        if bar is not None:
            bar.close()
        return found


@lru_cache(maxsize=4)
def shared_embedder(model: str, layer: int | None, precision: str):
    """One cached :class:`~mtlib.embeddings.embedder.Embedder` per setting, with the on-disk
    token-embedding store on (float16), so that BERTScore-style, contextual and
    decontextualized features of the same texts embed them once."""
    return Embedder(model, layer, precision=precision, cache=True)
