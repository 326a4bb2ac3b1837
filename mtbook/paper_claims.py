"""What the papers say in words, not numbers, that a chapter checks its run against.

``paper_results`` holds the printed numbers; this module the qualitative findings, each with
the place in ``shared/papers/*.txt`` it paraphrases, in a form a study function can test
(which group should rise or fall). Kept apart from ``paper_results`` so that a new finding
does not make every chapter that quotes a number out of date.
"""

from __future__ import annotations

__all__ = ["VAT_SHARE_FINDINGS"]

# Zhan et al. 2021 (VAT), section 5, Figures 5-7: how the share of a group changes from the
# whole test set to the kept set. kind -> (group, sign of the change, {direction: other sign}).
VAT_SHARE_FINDINGS: dict[str, tuple[str, int, dict[str, int]]] = {
    # Figure 5: "VAT preserved more short sentences for most language pairs"; "some special
    # translation directions show the opposite trends, such as Chinese -> English and German -> English"
    "length": ("Short", +1, {"zh-en": -1, "de-en": -1}),
    # Figure 6: "VAT filtered the sentences which contain more frequent words"
    "freq": ("Frequent", -1, {}),
    # Figure 7: "VAT has more proper nouns than the original test sets"
    "pos": ("NNP", +1, {}),
}
# Figure 8 ("the preserved instances have moderate but not extreme difficulty") is checked by
# mtbook.studies.vat.study.difficulty_check: the middle of the difficulty scale kept more often than either end.
