"""chrF (and chrF++ with ``word_order=2``) through sacrebleu."""

from __future__ import annotations

from sacrebleu.metrics import CHRF as _SacreCHRF

from mtlib.metrics.base import SacrebleuMetric


class ChrF(SacrebleuMetric):
    """sacrebleu chrF (default: character 6-grams, beta 2), 0-100.

    Args:
        **kwargs: passed to :class:`sacrebleu.metrics.CHRF` (``word_order``, ``beta``, ...).
    """

    name = "chrF"
    higher_is_better = True

    def __init__(self, **kwargs) -> None:
        super().__init__(_SacreCHRF(**kwargs))
