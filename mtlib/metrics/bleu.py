"""BLEU through sacrebleu (corpus statistics; sentence level with effective order)."""

from __future__ import annotations

import numpy as np
from sacrebleu.metrics import BLEU as _SacreBLEU

from mtlib.metrics.base import SacrebleuMetric


class BLEU(SacrebleuMetric):
    """sacrebleu BLEU (default: 13a tokenisation, exp smoothing, mixed case), 0-100.

    Args:
        **options: passed to :class:`sacrebleu.metrics.BLEU` (``tokenize``, ``lowercase``,
            ``max_ngram_order``, ...), checked first.
    """

    name = "BLEU"
    higher_is_better = True
    _impl_class = _SacreBLEU
    _types = {"tokenize": (str, type(None)), "smooth_value": (int, float, type(None))}
    _minimum = {"max_ngram_order": 1, "smooth_value": 0}
    _choices = {"tokenize": set(_SacreBLEU.TOKENIZERS), "smooth_method": set(_SacreBLEU.SMOOTH_DEFAULTS)}
    _extra_signature = {"max_ngram_order": "n"}
    _no_effect = {"force": "only silences sacrebleu's warning about tokenised input",
                  "trg_lang": "only picks the default tokeniser, which the signature names"}

    def sentence_scores_from_stats(self, stats) -> np.ndarray:
        """sacrebleu's ``sentence_bleu`` (effective order) from each segment's statistics."""
        sent = _SacreBLEU(**{**self.options, "effective_order": True})
        return np.array([sent._compute_score_from_stats(row).score for row in np.asarray(stats)])
