"""Reg-base: the ensemble's length features (how long the translation and its reference or
source are).

The paper describes Reg-base with subword lengths; the authors' code uses character lengths
(``shared/papers/README.md``). Both are offered; the chapter states which it uses.
"""

from __future__ import annotations

from typing import Sequence

import pandas as pd

__all__ = ["length_features"]


def length_features(translations: Sequence[str], others: Sequence[str], *, unit: str = "char",
                    tokenizer=None, other_name: str = "reference") -> pd.DataFrame:
    """Columns ``len translation`` and ``len {other_name}`` in characters (``unit="char"``) or
    in the subword pieces of ``tokenizer`` (``unit="subword"``, a Hugging Face tokenizer)."""
    if len(translations) != len(others):
        raise ValueError(f"{len(translations)} translations but {len(others)} {other_name} lines")
    if unit == "char":
        def length(text):
            return len(text)
    elif unit == "subword":
        if tokenizer is None:
            raise ValueError("unit='subword' needs a tokenizer (e.g. mtlib.embeddings.models.load_model(name).tokenizer)")

        def length(text):
            return len(tokenizer.tokenize(text))
    else:
        raise ValueError(f"unit must be 'char' or 'subword', got {unit!r}")
    return pd.DataFrame({"len translation": [length(t) for t in translations],
                         f"len {other_name}": [length(t) for t in others]})
