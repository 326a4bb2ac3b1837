"""What every chapter sets up before its first number: readable warnings and quiet libraries."""

from __future__ import annotations

import html
import logging
import warnings
from typing import Sequence

__all__ = ["quiet_setup", "shade_tokens"]


def quiet_setup() -> None:
    """Warnings as one readable line (``Category: message``, the data root's absolute path shown
    as ``<data root>``, no kernel file name or source line); tqdm's notebook-widget hint and
    sacreBLEU's informational logging silenced. Call once at the top of a chapter."""
    from mtlib import paths

    try:
        root = str(paths.data_root())
    except FileNotFoundError:
        root = None

    def one_line(message, category, *args, **kwargs):
        text = str(message)
        return f"{category.__name__}: {text.replace(root, '<data root>') if root else text}\n"

    warnings.filterwarnings("ignore", message="IProgress not found")
    warnings.formatwarning = one_line
    logging.getLogger("sacrebleu").setLevel(logging.ERROR)


def shade_tokens(tokenizer, ids: Sequence[int], weights: Sequence[float], *, full: float = 0.5,
                 bold_above: float = 0.2) -> str:
    """HTML of a tokenised sentence, each token shaded red by its weight (e.g. its difficulty):
    opaque at ``full`` and above, bold above ``bold_above``; the weight is the token's tooltip.
    Sentence-piece ("▁") and WordPiece ("##") marks are turned back into spaces and joins."""
    if len(ids) != len(weights):
        raise ValueError(f"shade_tokens: {len(ids)} token ids but {len(weights)} weights")
    spans = []
    for piece, w in zip(tokenizer.convert_ids_to_tokens([int(i) for i in ids]), weights):
        text = html.escape(piece.replace("▁", " ").replace("##", ""))
        weight = "bold" if w > bold_above else "normal"
        spans.append(f'<span style="background: rgba(220,50,32,{min(1.0, w / full):.2f}); '
                     f'font-weight:{weight}" title="d = {w:.3f}">{text}</span>')
    return "".join(spans)
