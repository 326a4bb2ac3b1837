"""What every chapter sets up before its first number: readable warnings, quiet libraries, and a
check that no figure's text is too small to read on the page."""

from __future__ import annotations

import html
import logging
import math
import warnings
from typing import Sequence

__all__ = ["quiet_setup", "warning_line", "warning_note", "warning_text", "shade_tokens", "COLUMN_PX", "MIN_TEXT_PX",
           "FigureTextWarning", "smallest_text_px", "check_figure_text"]

COLUMN_PX = 688  # the text column of the book's pages in a 1,280 px window: wider figures are scaled down to it
MIN_TEXT_PX = 8  # the smallest figure text a reader can read there


class FigureTextWarning(UserWarning):
    """A figure's text would be smaller than :data:`MIN_TEXT_PX` on the page (the runner reports it)."""


def smallest_text_px(fig) -> tuple[float, str]:
    """(height in screen px, text) of the smallest visible text of ``fig`` as the page shows it:
    a point is ``dpi / 72`` px, and a figure wider than :data:`COLUMN_PX` is scaled down to it.
    ``(inf, "")`` for a figure without text."""
    import matplotlib.text

    fig.draw_without_rendering()  # tick labels get their text when drawn
    px_per_pt = min(fig.dpi, COLUMN_PX / fig.get_figwidth()) / 72
    texts = [t for t in fig.findobj(matplotlib.text.Text) if t.get_visible() and t.get_text().strip()]
    if not texts:
        return math.inf, ""
    smallest = min(texts, key=lambda t: t.get_fontsize())
    return smallest.get_fontsize() * px_per_pt, smallest.get_text()


def check_figure_text() -> None:
    """From now on every figure drawn for display warns (:class:`FigureTextWarning`) when its
    smallest text would show under :data:`MIN_TEXT_PX` px on the page."""
    from matplotlib.backend_bases import FigureCanvasBase

    original = FigureCanvasBase.print_figure
    if getattr(original, "_mtbook_checked", False):
        return

    def print_figure(self, *args, **kwargs):
        px, text = smallest_text_px(self.figure)
        if px < MIN_TEXT_PX:
            warnings.warn(f"figure text {text[:40]!r} would show {px:.1f} px high in the page's {COLUMN_PX} px "
                          f"column (at least {MIN_TEXT_PX}): enlarge its font or narrow the figure",
                          FigureTextWarning, stacklevel=2)
        return original(self, *args, **kwargs)

    print_figure._mtbook_checked = True
    FigureCanvasBase.print_figure = print_figure


def quiet_setup() -> None:
    """Warnings gathered into one readable note per cell; tqdm's notebook-widget hint and
    sacreBLEU's informational logging silenced. Call once at the top of a chapter.

    In a notebook, the warnings a cell raises are shown after it as one note (an HTML
    admonition: a bullet per distinct warning, ``Category: message``, the data root's absolute
    path shown as ``<data root>``) instead of a wall of stderr lines that a page cuts off at
    the column edge. Outside IPython each warning is printed as that one line."""
    warnings.filterwarnings("ignore", message="IProgress not found")
    warnings.simplefilter("always", FigureTextWarning)  # every small figure, not only the first
    check_figure_text()
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
