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
    in the subword pieces of ``tokenizer`` (``unit="subword"``: a Hugging Face tokenizer, called
    once on all texts; the lengths of its ``tokenize``)."""
    if len(translations) != len(others):
        raise ValueError(f"{len(translations)} translations but {len(others)} {other_name} lines")
    if unit == "char":
        return pd.DataFrame({"len translation": [len(t) for t in translations],
                             f"len {other_name}": [len(t) for t in others]})
    if unit != "subword":
        raise ValueError(f"unit must be 'char' or 'subword', got {unit!r}")
    if tokenizer is None:
        raise ValueError("unit='subword' needs a tokenizer (e.g. mtlib.embeddings.models.load_model(name).tokenizer)")

    def lengths(texts):  # len(tokenizer.tokenize(t)) for each text, in one call of the tokenizer
        texts = list(texts)
        return [len(ids) for ids in tokenizer(texts, add_special_tokens=False, verbose=False)["input_ids"]] if texts else []
    return pd.DataFrame({"len translation": lengths(translations), f"len {other_name}": lengths(others)})
