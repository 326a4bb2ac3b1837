"""chrF (and chrF++ with ``word_order=2``) through sacrebleu."""

from __future__ import annotations

from sacrebleu.metrics import CHRF as _SacreCHRF

from mtlib.metrics.base import SacrebleuMetric


class ChrF(SacrebleuMetric):
    """sacrebleu chrF (default: character 6-grams, beta 2), 0-100.

    Args:
        **options: passed to :class:`sacrebleu.metrics.CHRF` (``word_order``, ``beta``, ...),
            checked first.
    """

    name = "chrF"
    higher_is_better = True
    _impl_class = _SacreCHRF
    _types = {"beta": (int, float)}
    _minimum = {"char_order": 0, "word_order": 0, "beta": 0}
    _extra_signature = {"beta": "beta"}

    def __init__(self, **options) -> None:
        super().__init__(**options)
        if self.options["char_order"] + self.options["word_order"] < 1:
            raise ValueError(f"{self.name}: char_order + word_order must be >= 1, got {options}")
