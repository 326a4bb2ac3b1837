"""TER through sacrebleu (edits / reference words; lower is better)."""

from __future__ import annotations

from typing import Any

from sacrebleu.metrics import TER as _SacreTER

from mtlib.metrics.base import SacrebleuMetric
from mtlib.metrics.languages import asian_support_for


class TER(SacrebleuMetric):
    """sacrebleu TER (default: case-insensitive, tercom tokens, no normalisation), 0-100, lower is better.

    Set up for a Chinese, Japanese or Korean target (``target_lang``, :meth:`for_target`, or
    :func:`mtlib.scoring.score_systems` from the data's language pair), it uses
    ``asian_support=True`` unless ``asian_support`` was given. sacrebleu applies it only
    together with ``normalized`` (CJK characters split) or ``no_punct`` (CJK punctuation
    removed); with the defaults it changes no number, and the signature says ``asian:yes``.

    Args:
        target_lang: the target language (None: not set up for one).
        **options: passed to :class:`sacrebleu.metrics.TER` (``normalized``, ``case_sensitive``, ...),
            checked first.
    """

    name = "TER"
    higher_is_better = False
    language_dependent = True
    _impl_class = _SacreTER

    @classmethod
    def language_defaults(cls, lang: str) -> dict[str, Any]:
        return {"asian_support": asian_support_for(lang)}
