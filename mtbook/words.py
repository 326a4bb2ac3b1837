"""Words beside the page: a chapter's Markdown cells rendered over its findings.

A chapter's code cells compute numbers and verdicts and hand them over as plain data
(:func:`mtbook.findings.publish`); its Markdown cells are the words, written as Jinja2 templates over that data
(``BLEU's $r$ is {{ f.bleu.r | num }}``). The runner renders the templates into the executed
copy after the kernel has finished (:func:`render_cells`), and renders them again, without a
kernel, when only the words changed (``python -m mtbook render``). So editing a sentence never
recomputes a number, and a number never reaches the page except through a published finding.

Templates see the findings as ``f`` and these filters: ``num`` (fixed decimals), ``signed``
(``+0.012``; never ``-0.000``), ``pct``, ``p`` (a p-value as the book writes it), ``count``
(``1,000``), ``and_list`` (``a, b and c``; ``and_sep`` writes the separator inside a loop:
``{{ loop | and_sep }}``), ``capitalised`` and ``plural``. A missing finding is an error that names it, never an empty
string.
"""

from __future__ import annotations

import copy
import math
from typing import Any, Mapping

from mtbook.findings import collect
from mtbook.prose import and_list, capitalised

__all__ = ["render_template", "render_cells", "is_template", "chapter_macros", "shown_metadata", "BOOK_MACROS"]

BOOK_MACROS = "book.macros.j2"  # wording every chapter shares, beside the notebooks

_TEMPLATE_MARKS = ("{{", "{%")

# Cell metadata that says how a cell ran or how an editor shows it, never what the book's page shows.
NOT_SHOWN = frozenset({"execution", "papermill", "ExecuteTime", "collapsed", "scrolled", "trusted", "editable",
                       "deletable", "jupyter"})


def shown_metadata(cell: Mapping) -> dict:
    """The cell's metadata that the page shows: its tags (``remove-cell``, ``hide-input``, ...), its
    figure's caption and name (``mystnb``) and anything else but :data:`NOT_SHOWN` (timings,
    collapsed in JupyterLab); empty tags count as none."""
    shown = {k: v for k, v in (cell.get("metadata") or {}).items() if k not in NOT_SHOWN}
    if not shown.get("tags", True):
        del shown["tags"]
    return shown


def is_template(text: str) -> bool:
    return any(mark in text for mark in _TEMPLATE_MARKS)


def _num(x: float | None, decimals: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{round(float(x), decimals) + 0.0:.{decimals}f}"


def _signed(x: float | None, decimals: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{round(float(x), decimals) + 0.0:+.{decimals}f}"


def _pct(x: float, decimals: int = 0) -> str:
    return f"{100 * float(x):.{decimals}f}%"


def _p(p: float | None, n_permutations: int = 1000, nan: str = "not tested") -> str:
    from mtlib.significance import p_text

    return p_text(p, n_permutations, nan=nan)


def _count(n: int) -> str:
    return f"{int(n):,}"


def _and_sep(loop) -> str:
    """What goes before an item of a list written "a, b and c": ``{{ loop | and_sep }}{{ item }}``."""
    return "" if loop.first else " and " if loop.last else ", "


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _environment():
    import jinja2

    # trim_blocks/lstrip_blocks: a line holding only a block tag leaves no blank line behind (a
    # block tag that ends a line of text eats that line's newline too: end such lines with text).
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=True,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters.update(num=_num, signed=_signed, pct=_pct, p=_p, count=_count, and_list=and_list, and_sep=_and_sep,
                       capitalised=capitalised, plural=_plural)
    return env


def chapter_macros(notebook) -> str:
    """The macros a chapter's templates see as ``m``: the book's (``notebooks/book.macros.j2``:
    how every page words a comparison) followed by the chapter's own ``NAME.macros.j2`` (a
    chapter macro of the same name wins). "" when neither exists."""
    from pathlib import Path

    notebook = Path(notebook)
    parts = [notebook.with_name(BOOK_MACROS), notebook.with_suffix(".macros.j2")]
    return "\n".join(p.read_text(encoding="utf-8") for p in parts if p.exists())


def render_template(text: str, findings: Mapping[str, Any], *, where: str = "template", macros: str = "") -> str:
    """One Markdown cell rendered over the findings (``f``) and the chapter's macros (``m``: the
    macros of its ``notebooks/NAME.macros.j2``, for wording that several cells share); a cell
    without template marks is returned as it is. Errors name the cell and the missing or broken
    part."""
    if not is_template(text):
        return text
    import jinja2

    try:
        env = _environment()
        shared = env.from_string(macros).make_module({"f": findings}) if macros else None
        return env.from_string(text).render(f=findings, m=shared)
    except jinja2.UndefinedError as err:
        raise ValueError(f"{where}: {err.message} (published findings: {sorted(findings)})") from err
    except jinja2.TemplateSyntaxError as err:
        raise ValueError(f"{where}, line {err.lineno}: {err.message}") from err


def render_cells(source_cells: list[Mapping], executed_cells: list[dict], *, name: str = "chapter",
                 macros: str = "") -> list[dict]:
    """The executed copy's cells with the source's words: each code cell as it was executed (with
    its outputs, and the source's metadata that the page shows, :func:`shown_metadata`: its tags
    and figure caption say how the page shows it, not what it computed), each Markdown cell
    of the source rendered over the findings that the executed cells published. Markdown cells may have been added, removed or edited since execution; the
    code cells must be the ones that ran (else re-execute). papermill's injected-parameters cell
    stays after the parameters cell."""
    executed_code = [c for c in executed_cells if c["cell_type"] == "code"]
    def is_injected(cell):
        return "injected-parameters" in cell.get("metadata", {}).get("tags", [])

    injected = [c for c in executed_code if is_injected(c)]
    ran = [c for c in executed_code if not is_injected(c)]
    source_code = [c for c in source_cells if c["cell_type"] == "code"]
    if [_text(c["source"]) for c in source_code] != [_text(c["source"]) for c in ran]:
        raise ValueError(f"{name}: the code cells differ from the ones that were executed: re-execute it")
    findings = collect(executed_cells)
    out, code = [], iter(ran)
    if not any("parameters" in c.get("metadata", {}).get("tags", []) for c in source_code):
        out += injected  # papermill injects at the top when no cell is tagged parameters
    for index, src in enumerate(source_cells):
        if src["cell_type"] == "code":
            cell = next(code)
            # how the page shows the cell (tags such as remove-input, a figure's caption) is presentation: the source's
            ran = {k: v for k, v in cell.get("metadata", {}).items() if k in NOT_SHOWN}
            cell["metadata"] = {**ran, **copy.deepcopy(shown_metadata(src))}
            out.append(cell)
            if "parameters" in cell.get("metadata", {}).get("tags", []):
                out += injected
            continue
        cell = {k: v for k, v in src.items() if k != "source"}
        cell["source"] = render_template(_text(src["source"]), findings, where=f"{name}, cell {index}", macros=macros)
        out.append(cell)
    return out


def _text(source: str | list[str]) -> str:
    return "".join(source) if isinstance(source, list) else source
