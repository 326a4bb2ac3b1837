"""TER through sacrebleu (edits / reference words; lower is better)."""

from __future__ import annotations

from sacrebleu.metrics import TER as _SacreTER

from mtlib.metrics.base import SacrebleuMetric


class TER(SacrebleuMetric):
    """sacrebleu TER (default: case-insensitive, tercom tokens, no normalisation), 0-100, lower is better.

    Args:
        **options: passed to :class:`sacrebleu.metrics.TER` (``normalized``, ``case_sensitive``, ...),
            checked first.
    """

    name = "TER"
    higher_is_better = False
    _impl_class = _SacreTER

