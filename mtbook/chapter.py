"""What every chapter sets up before its first number: readable warnings and quiet libraries."""

from __future__ import annotations

import html
import logging
import warnings
from typing import Sequence

__all__ = ["quiet_setup", "warning_line", "warning_note", "warning_text", "shade_tokens"]


def quiet_setup() -> None:
    """Warnings gathered into one readable note per cell; tqdm's notebook-widget hint and
    sacreBLEU's informational logging silenced. Call once at the top of a chapter.

    In a notebook, the warnings a cell raises are shown after it as one note (an HTML
    admonition: a bullet per distinct warning, ``Category: message``, the data root's absolute
    path shown as ``<data root>``) instead of a wall of stderr lines that a page cuts off at
    the column edge. Outside IPython each warning is printed as that one line."""
    warnings.filterwarnings("ignore", message="IProgress not found")
    warnings.formatwarning = lambda message, category, *args, **kwargs: warning_line(message, category) + "\n"
    logging.getLogger("sacrebleu").setLevel(logging.ERROR)
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None or getattr(shell, "_mtlib_warning_note", False):
        return
    shell._mtlib_warning_note = True
    gathered: list[str] = []

    def gather(message, category, filename, lineno, file=None, line=None):
        gathered.append(warning_line(message, category))

    def install(*_):
        # before every cell: code that restores warnings.showwarning (a library, a test's
        # catch_warnings) must not send the next cell's warnings back to stderr
        warnings.showwarning = gather

    def show_note(*_):
        if gathered:
            from IPython.display import display
            display({"text/html": warning_note(gathered), "text/plain": warning_text(gathered)}, raw=True)
            gathered.clear()

    install()
    shell.events.register("pre_run_cell", install)
    shell.events.register("post_run_cell", show_note)


def warning_line(message, category: type[Warning]) -> str:
    """``Category: message`` on one line, the data root's absolute path as ``<data root>``."""
    from mtlib import paths
    try:
        root = str(paths.data_root())
    except FileNotFoundError:
        root = None
    text = " ".join(str(message).split())
    return f"{category.__name__}: {text.replace(root, '<data root>') if root else text}"


def warning_note(lines: Sequence[str]) -> str:
    """One HTML note (the theme's admonition) listing each distinct warning once, in order."""
    distinct = list(dict.fromkeys(lines))
    items = "".join(f"<li>{html.escape(x)}</li>" for x in distinct)
    title = "Note from this step" + (f" ({len(distinct)} warnings)" if len(distinct) > 1 else "")
    return (f'<div class="admonition note mtlib-warnings"><p class="admonition-title">{title}</p>'
            f"<ul>{items}</ul></div>")


def warning_text(lines: Sequence[str]) -> str:
    """The note of :func:`warning_note` as plain text, for readers of the notebook that show no HTML."""
    return "Note from this step:\n" + "\n".join(f"- {x}" for x in dict.fromkeys(lines))


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
