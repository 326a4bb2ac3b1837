"""BLEU through sacrebleu (corpus statistics; sentence level with effective order)."""

from __future__ import annotations

from sacrebleu.metrics import BLEU as _SacreBLEU

from mtlib.metrics.base import SacrebleuMetric, check_inputs

import numpy as np


class BLEU(SacrebleuMetric):
    """sacrebleu BLEU (default: 13a tokenisation, exp smoothing, mixed case), 0-100.

    Args:
        **kwargs: passed to :class:`sacrebleu.metrics.BLEU` (``tokenize``, ``lowercase``, ...).
    """

    name = "BLEU"
    higher_is_better = True

    def __init__(self, **kwargs) -> None:
        super().__init__(_SacreBLEU(**kwargs))
        self._kwargs = kwargs

    def sentence_scores(self, hyps, refs) -> np.ndarray:
        """sacrebleu's ``sentence_bleu`` (effective order), one score per segment."""
        check_inputs(self.name, hyps, refs)
        sent = _SacreBLEU(**{**self._kwargs, "effective_order": True})
        return np.array([sent.sentence_score(h, [r[i] for r in refs]).score for i, h in enumerate(hyps)])
