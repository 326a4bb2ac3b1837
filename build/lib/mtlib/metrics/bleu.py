"""BLEU through sacrebleu (corpus statistics; sentence level with effective order)."""

from __future__ import annotations

from typing import Any

import numpy as np
from sacrebleu.metrics import BLEU as _SacreBLEU

from mtlib.metrics.base import SacrebleuMetric, check_option
from mtlib.metrics.languages import check_lang, tokenizer_for


class BLEU(SacrebleuMetric):
    """sacrebleu BLEU (default: 13a tokenisation, exp smoothing, mixed case), 0-100.

    Into Chinese, Japanese and Korean the tokeniser is the target language's (``zh``,
    ``ja-mecab``, ``ko-mecab``, as sacrebleu's command line and WMT use) once the metric is set
    up for that language (``target_lang``, :meth:`for_target`, or
    :func:`mtlib.scoring.score_systems` from the data's language pair); an explicit
    ``tokenize`` always wins. sacrebleu's ``trg_lang`` is taken as the target language.

    Args:
        target_lang: the target language (None: not set up for one; 13a unless ``tokenize``).
        **options: passed to :class:`sacrebleu.metrics.BLEU` (``tokenize``, ``lowercase``,
            ``max_ngram_order``, ...), checked first.
    """

    name = "BLEU"
    higher_is_better = True
    language_dependent = True
    _impl_class = _SacreBLEU
    _types = {"tokenize": (str, type(None)), "smooth_value": (int, float, type(None))}
    _minimum = {"max_ngram_order": 1, "smooth_value": 0}
    _choices = {"tokenize": set(_SacreBLEU.TOKENIZERS), "smooth_method": set(_SacreBLEU.SMOOTH_DEFAULTS)}
    _extra_signature = {"max_ngram_order": "n"}
    _no_effect = {"force": "only silences sacrebleu's warning about tokenised input",
                  "trg_lang": "only picks the default tokeniser, which the signature names"}

    def __init__(self, *, target_lang: str | None = None, **options: Any) -> None:
        # sacrebleu's trg_lang picks the tokeniser as our target language does: one notion, so a
        # BLEU for trg_lang="zh" is one set up for Chinese (and refuses data into German).
        trg = options.get("trg_lang")
        if trg:
            trg = check_lang(check_option(self.name, "trg_lang", trg, str))
            if target_lang is not None and check_lang(target_lang) != trg:
                raise ValueError(f"{self.name}: trg_lang={trg!r} and target_lang={target_lang!r} disagree")
            target_lang = trg
        super().__init__(target_lang=target_lang, **options)

    @classmethod
    def language_defaults(cls, lang: str) -> dict[str, Any]:
        return {"tokenize": tokenizer_for(lang)}

    @property
    def _sentence_impl(self) -> _SacreBLEU:
        # sacrebleu's sentence_bleu: the same settings with effective order.
        if "_sentence" not in self.__dict__:
            self._sentence = _SacreBLEU(**{**self.options, "effective_order": True})
        return self._sentence

    def sentence_scores_from_stats(self, stats) -> np.ndarray:
        """sacrebleu's ``sentence_bleu`` (effective order) from each segment's statistics."""
        sent = self._sentence_impl
        return np.array([sent._compute_score_from_stats(row).score for row in np.asarray(stats)])

    @property
    def sentence_signature(self) -> str:
        """The signature sacrebleu's ``sentence_bleu`` gives these settings (``eff:yes``)."""
        return self._signature_of(self._sentence_impl)
