"""Otem and Utem: over- and under-translation metrics (Yang et al., NLPCC 2018).

Both are ``LP * exp(sum_n w_n log mp_n)`` with uniform weights ``w_n = 1/N`` (eq. 1), where
``mp_n`` is a corpus-level proportion of mismatched n-grams; lower is better.

* Otem (eqs. 2-4): ``mp_n`` = over-matched candidate n-grams / candidate n-grams.
  An n-gram is over-matched ``cand - ref`` times when ``cand > ref > 0`` and ``cand - 1``
  times when it is absent from the reference and ``cand > 1``; with several references
  the minimum over references counts. ``LP = 1`` if ``c < r`` else ``exp(1 - r/c)``.
* Utem (eqs. 5-7): ``mp_n`` = under-matched reference n-grams / reference n-grams, with
  ``under = max(ref - cand, 0)``; with several references each n-gram keeps its minimum
  under-count and its maximum reference count. ``LP = 1`` if ``c > r`` else ``exp(1 - c/r)``.

``variant="authors"`` follows the authors' current script (``metric.py`` of
DeepLearnXMU/Otem-Utem) where it differs from the paper, for multiple references only:
Otem takes the minimum over the references in which the n-gram *is* over-matched (so one
reference with an excess is enough), and Utem takes, per order, the minimum over references
of the summed under-counts and the maximum of the summed reference counts, instead of per
n-gram. (Their older multi-reference script also sums Otem's denominator over references;
that is not implemented.) With one reference both variants agree.

``c`` and ``r`` are corpus sums of candidate lengths and, per segment, the reference length
closest to the candidate (ties to the shorter, as BLEU). Where the paper leaves a case
open, this module decides and says so: an order with no candidate (Otem) or reference
(Utem) n-grams, or with no mismatch, has ``mp_n = 0`` and so a score of 0 (the authors'
script also collapses a zero proportion to 0).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Sequence

import numpy as np
from sacrebleu.metrics import BLEU as _SacreBLEU
# sacreBLEU's private name -> tokenizer-class lookup, the one its BLEU uses: Otem and Utem then
# split text exactly as BLEU(tokenize=name) does, for every tokeniser name BLEU accepts, and
# import only the tokeniser asked for (ja-mecab, ko-mecab and spm need optional packages).
# sacreBLEU has no public lookup; tests/test_otem_utem.py fails if this one changes behaviour.
from sacrebleu.metrics.bleu import _get_tokenizer

from mtlib.metrics.base import Metric, check_inputs, check_option, version_signature
from mtlib.metrics.languages import DEFAULT_TOKENIZER, check_lang, check_tokenizer_installed, tokenizer_for

__all__ = ["Otem", "Utem", "ngram_counts", "count_over", "count_under", "VARIANTS"]

VARIANTS = ("paper", "authors")


def ngram_counts(tokens: Sequence[str], n: int) -> Counter:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def count_over(cand: int, ref: int) -> int:
    """Eq. (3): how many times an n-gram seen ``cand`` times is over-matched."""
    if cand > ref > 0:
        return cand - ref
    if ref == 0 and cand > 1:
        return cand - 1
    return 0


def count_under(cand: int, ref: int) -> int:
    """Eq. (6): how many times a reference n-gram seen ``ref`` times is missed."""
    return ref - cand if ref > cand else 0


def _closest_ref_length(c: int, ref_lengths: Sequence[int]) -> int:
    return min(ref_lengths, key=lambda r: (abs(r - c), r))


class _OverUnder(Metric):
    """Shared by Otem and Utem.

    Args:
        order: the n-gram order N (an int >= 1).
        tokenize: a sacrebleu tokeniser, or ``none`` (whitespace tokens, the authors' script).
            None: the target language's, as BLEU's (``13a`` unless it is ``zh``, ``ja`` or ``ko``;
            ``13a`` without a target language).
        lowercase: lowercase before tokenising.
        variant: ``paper`` or ``authors`` (see the module docstring).
        target_lang: the target language (None: not set up for one).
    """

    higher_is_better = False
    language_dependent = True

    def __init__(self, order: int, tokenize: str | None = None, lowercase: bool = False,
                 variant: str = "paper", *, target_lang: str | None = None) -> None:
        # A wrong type is a TypeError, a wrong value a ValueError, as for every other option.
        if isinstance(order, bool) or not isinstance(order, int):
            raise TypeError(f"{self.name}: n-gram order must be an integer >= 1, got {order!r}")
        if order < 1:
            raise ValueError(f"{self.name}: n-gram order must be an integer >= 1, got {order!r}")
        check_option(self.name, "variant", variant, str, choices=VARIANTS)
        check_option(self.name, "tokenize", tokenize, (str, type(None)), choices=set(_SacreBLEU.TOKENIZERS))
        check_option(self.name, "lowercase", lowercase, bool)
        # What the caller set: for_target keeps it, and a tokenize given here wins over the language's.
        self.explicit_options = {"order": order, "lowercase": lowercase, "variant": variant,
                                 **({} if tokenize is None else {"tokenize": tokenize})}
        self.target_lang = None if target_lang is None else check_lang(target_lang)
        if tokenize is None:
            tokenize = self.language_defaults(self.target_lang)["tokenize"] if self.target_lang else DEFAULT_TOKENIZER
        check_tokenizer_installed(self.name, tokenize, self.target_lang)
        self.variant = variant
        self.order = order
        self.tokenize = tokenize
        self.lowercase = lowercase
        # "none" = whitespace tokens (the authors' script); otherwise a sacrebleu tokenizer.
        self._tok = _get_tokenizer(tokenize)()

    @classmethod
    def language_defaults(cls, lang: str) -> dict:
        return {"tokenize": tokenizer_for(lang)}

    def _tokens(self, text: str) -> list[str]:
        return self._tok(text.lower() if self.lowercase else text).split()

    def segment_stats(self, hyps, refs) -> np.ndarray:
        """Columns: c, r, then mismatched counts for n = 1..N, then totals for n = 1..N."""
        check_inputs(self.name, hyps, refs)
        out = np.zeros((len(hyps), 2 + 2 * self.order))
        for i, h in enumerate(hyps):
            cand = self._tokens(h)
            seg_refs = [self._tokens(r[i]) for r in refs]
            out[i, 0] = len(cand)
            out[i, 1] = _closest_ref_length(len(cand), [len(r) for r in seg_refs])
            for n in range(1, self.order + 1):
                counts = self._counts if self.variant == "paper" else self._counts_authors
                mism, total = counts(ngram_counts(cand, n), [ngram_counts(r, n) for r in seg_refs])
                out[i, 1 + n] = mism
                out[i, 1 + self.order + n] = total
        return out

    def proportions(self, stats: np.ndarray) -> np.ndarray:
        """The mismatch proportions mp_1..mp_N from summed statistics (NaN where undefined)."""
        mism, total = stats[2:2 + self.order], stats[2 + self.order:]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(total > 0, mism / np.where(total > 0, total, 1), np.nan)

    def score_from_stats(self, stats: np.ndarray) -> float:
        c, r = float(stats[0]), float(stats[1])
        mism, total = stats[2:2 + self.order], stats[2 + self.order:]
        if (total <= 0).any() or (mism <= 0).any():
            return 0.0
        log_mp = float(np.mean(np.log(mism / total)))
        return self._length_penalty(c, r) * math.exp(log_mp)

    @property
    def signature(self) -> str:
        # sacrebleu's name of the tokeniser, with its version where it has one (ja-mecab-0.996-IPA).
        return (f"{self.name}|n:{self.order}|tok:{self._tok.signature()}|case:{'lc' if self.lowercase else 'mixed'}|"
                f"weights:uniform|multiref:{self.variant}|{version_signature('sacrebleu')}")


class Otem(_OverUnder):
    """Over-translation evaluation metric (default order 2, as the paper reports OTEM-2)."""

    name = "Otem"

    def __init__(self, order: int = 2, tokenize: str | None = None, lowercase: bool = False,
                 variant: str = "paper", *, target_lang: str | None = None) -> None:
        super().__init__(order, tokenize, lowercase, variant, target_lang=target_lang)

    @staticmethod
    def _counts(cand: Counter, refs: list[Counter]) -> tuple[int, int]:
        over = sum(min(count_over(k, ref[g]) for ref in refs) for g, k in cand.items())
        return over, sum(cand.values())

    @staticmethod
    def _counts_authors(cand: Counter, refs: list[Counter]) -> tuple[int, int]:
        over = 0
        for g, k in cand.items():
            positive = [c for c in (count_over(k, ref[g]) for ref in refs) if c > 0]
            over += min(positive) if positive else 0
        return over, sum(cand.values())

    @staticmethod
    def _length_penalty(c: float, r: float) -> float:
        return 1.0 if c < r else math.exp(1 - r / c)


class Utem(_OverUnder):
    """Under-translation evaluation metric (default order 4, as the paper reports UTEM-4)."""

    name = "Utem"

    def __init__(self, order: int = 4, tokenize: str | None = None, lowercase: bool = False,
                 variant: str = "paper", *, target_lang: str | None = None) -> None:
        super().__init__(order, tokenize, lowercase, variant, target_lang=target_lang)

    @staticmethod
    def _counts(cand: Counter, refs: list[Counter]) -> tuple[int, int]:
        grams = set().union(*refs)
        under = sum(min(count_under(cand[g], ref[g]) for ref in refs) for g in grams)
        return under, sum(max(ref[g] for ref in refs) for g in grams)

    @staticmethod
    def _counts_authors(cand: Counter, refs: list[Counter]) -> tuple[int, int]:
        under = min(sum(count_under(cand[g], c) for g, c in ref.items()) for ref in refs)
        return under, max(sum(ref.values()) for ref in refs)

    @staticmethod
    def _length_penalty(c: float, r: float) -> float:
        if c > r:
            return 1.0
        return math.exp(1 - c / r) if r > 0 else 1.0
