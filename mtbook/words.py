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

A figure's image gets its alt text here too (:func:`figure_alt`): a code cell with a caption
(``mystnb.figure.caption``) and no ``mystnb.image.alt`` of its own is given its caption as plain
text, so a screen reader hears what the figure shows instead of its file name.
"""

from __future__ import annotations

import copy
import math
import re
from typing import Any, Mapping

from mtbook.findings import collect
from mtbook.prose import and_list, capitalised

__all__ = ["render_template", "render_cells", "is_template", "chapter_macros", "shown_metadata", "figure_alt",
           "with_figure_alt", "BOOK_MACROS", "ALT_LIMIT"]

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


# -- a figure's alt text: its caption as plain text ----------------------------------------------
ALT_LIMIT = 250  # characters of alt text at most (a screen reader reads it whole; the caption is on the page)

# TeX commands in a caption's maths, as a reader says them: letters and relations as symbols, the
# rest (\log, \max, ...) as the command's name.
_TEX_SYMBOLS = {
    **{name: chr(code) for name, code in (
        ("alpha", 0x3B1), ("beta", 0x3B2), ("gamma", 0x3B3), ("delta", 0x3B4), ("epsilon", 0x3B5),
        ("varepsilon", 0x3B5), ("zeta", 0x3B6), ("eta", 0x3B7), ("theta", 0x3B8), ("vartheta", 0x3D1),
        ("iota", 0x3B9), ("kappa", 0x3BA), ("lambda", 0x3BB), ("mu", 0x3BC), ("nu", 0x3BD), ("xi", 0x3BE),
        ("pi", 0x3C0), ("rho", 0x3C1), ("sigma", 0x3C3), ("tau", 0x3C4), ("upsilon", 0x3C5), ("phi", 0x3C6),
        ("varphi", 0x3C6), ("chi", 0x3C7), ("psi", 0x3C8), ("omega", 0x3C9), ("Gamma", 0x393), ("Delta", 0x394),
        ("Theta", 0x398), ("Lambda", 0x39B), ("Xi", 0x39E), ("Pi", 0x3A0), ("Sigma", 0x3A3), ("Phi", 0x3A6),
        ("Psi", 0x3A8), ("Omega", 0x3A9))},
    "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠", "approx": "≈", "sim": "~",
    "pm": "±", "mp": "∓", "times": "×", "cdot": "·", "div": "÷", "infty": "∞", "in": "∈", "notin": "∉",
    "to": "→", "rightarrow": "→", "leftarrow": "←", "Rightarrow": "⇒", "mapsto": "↦", "sum": "Σ", "prod": "Π",
    "sqrt": "√", "partial": "∂", "ldots": "…", "dots": "…", "cdots": "…", "lvert": "|", "rvert": "|",
    "vert": "|", "mid": "|", "langle": "⟨", "rangle": "⟩", "left": "", "right": "", "big": "", "Big": "",
    "displaystyle": "", "hat": "", "bar": "", "tilde": "", "overline": "", "boldsymbol": "",
}
_SUBSCRIPT = dict(zip("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ"))
_SUPERSCRIPT = dict(zip("0123456789+-=()in", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁱⁿ"))
# $$…$$, $…$ as MyST's dollarmath reads it (no space inside the dollars, no digit after the closing
# one: "$5 and $6" is no maths), and \(…\)
_MATHS = re.compile(r"\$\$(.+?)\$\$|(?<![\\$])\$(?=[^\s$])(.+?)(?<=[^\s\\])\$(?!\d)|\\\((.+?)\\\)", re.DOTALL)


def _script(mark: str, body: str) -> str:
    """``_n`` / ``^{-3}`` as Unicode sub- or superscripts (a number, or one or two letters) where every
    character has one, else as written (``_sent``: a word reads better than small letters)."""
    table = _SUBSCRIPT if mark == "_" else _SUPERSCRIPT
    body = body.strip()
    short = len(body) <= 2 or all(ch in "0123456789+-=()" for ch in body)
    if body and short and all(ch in table for ch in body):
        return "".join(table[ch] for ch in body)
    return mark + body


def _plain_maths(tex: str) -> str:
    """TeX maths as plain text: ``\\tau`` -> τ, ``\\text{ref}`` -> ref, ``\\frac{a}{b}`` -> a/b, ``mp_n`` -> mpₙ."""
    text = tex
    for _ in range(4):  # nested groups, innermost first
        text = re.sub(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"\1/\2", text)
        text = re.sub(r"\\(?:text[a-z]*|math[a-z]*|operatorname\*?|mbox|emph)\s*\{([^{}]*)\}", r"\1", text)
    text = re.sub(r"\\(?:[,;:! ]|\\|q?quad(?![A-Za-z]))", " ", text)
    text = re.sub(r"\\([A-Za-z]+)", lambda m: _TEX_SYMBOLS.get(m.group(1), m.group(1)), text)
    text = re.sub(r"(?<!\\)([_^])(?:\{([^{}]*)\}|(\w))", lambda m: _script(m.group(1), m.group(2) or m.group(3)),
                  text)
    text = re.sub(r"(?<!\\)[{}]", "", text)
    return re.sub(r"\\(.)", r"\1", text).strip()  # \% \_ \{ \} ... as the character


def _plain_markdown(text: str) -> str:
    """A caption's Markdown as plain text: links and roles as their text, no code or emphasis marks."""
    text = re.sub(r"\{[\w:-]+\}`([^`]*)`", r"\1", text)             # {term}`word`, {cite}`key`
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)            # [text](target), ![alt](image)
    text = re.sub(r"`([^`]*)`", r"\1", text)
    text = re.sub(r"(\*\*|\*|~~)(?=\S)(.+?)(?<=\S)\1", r"\2", text)
    text = re.sub(r"(?<![\w\\])(__|_)(?=\S)(.+?)(?<=[^\s\\])\1(?!\w)", r"\2", text)
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)              # Markdown escapes: \* -> *


def figure_alt(caption: str | list[str], limit: int = ALT_LIMIT) -> str:
    """A figure's caption as alt text: plain text (maths without its ``$`` delimiters and TeX
    commands as symbols or words, no Markdown marks), on one line, at most ``limit`` characters,
    cut at a word boundary and ended with "…" when longer."""
    maths = []

    def hold(m) -> str:  # maths aside while the Markdown marks go, so that neither touches the other
        maths.append(_plain_maths(next(g for g in m.groups() if g is not None)))
        return f"\x00{len(maths) - 1}\x00"

    text = _plain_markdown(_MATHS.sub(hold, _text(caption).replace("\x00", "")))
    text = re.sub("\x00(\\d+)\x00", lambda m: maths[int(m.group(1))], text)
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    head = text[:limit - 1]  # room for the ellipsis
    if text[limit - 1] != " " and " " in head:  # the cut falls inside a word: leave the word out
        head = head[:head.rfind(" ")]
    opened = []  # a parenthesis the cut leaves open goes, with what it holds, if enough is left
    for i, ch in enumerate(head):
        if ch == "(":
            opened.append(i)
        elif ch == ")" and opened:
            opened.pop()
    if opened and opened[0] >= limit // 2:
        head = head[:opened[0]]
    return head.rstrip(" ,;:–—-(") + "…"


def with_figure_alt(metadata: dict) -> dict:
    """``metadata`` (a cell's, changed in place and returned) with ``mystnb.image.alt`` set from
    its figure's caption (:func:`figure_alt`) when it has a caption and no alt text of its own
    (an alt given in the source, even an empty one, is kept)."""
    mystnb = metadata.get("mystnb")
    figure = mystnb.get("figure") if isinstance(mystnb, dict) else None
    caption = figure.get("caption") if isinstance(figure, dict) else None
    if not caption or not isinstance(caption, (str, list)):
        return metadata
    image = mystnb.get("image", {})
    if not isinstance(image, dict) or "alt" in image:
        return metadata
    alt = figure_alt(caption)
    if alt:
        mystnb["image"] = {**image, "alt": alt}
    return metadata


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
    and figure caption say how the page shows it, not what it computed; a figure without alt text
    gets its caption's, :func:`with_figure_alt`), each Markdown cell
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
            # a figure without alt text gets its caption as plain text (words: no number changes)
            cell["metadata"] = {**ran, **with_figure_alt(copy.deepcopy(shown_metadata(src)))}
            out.append(cell)
            if "parameters" in cell.get("metadata", {}).get("tags", []):
                out += injected
            continue
        cell = {k: v for k, v in src.items() if k != "source"}
        cell["source"] = long_tables_as_lists(render_template(_text(src["source"]), findings,
                                                              where=f"{name}, cell {index}", macros=macros))
        out.append(cell)
    return out


_PIPE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_PIPE_RULE = re.compile(r"^\s*\|(\s*:?-+:?\s*\|)+\s*$")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_LIST_MARK = re.compile(r"^([-+*#>]|\d{1,9}[.)](\s|$))")


def long_tables_as_lists(text: str, limit: int = 120) -> str:
    """Every pipe table of more than ``limit`` words as a MyST ``list-table``, one row per block: a reader's
    paragraph limit counts a pipe table as one block (it cannot hold a blank line); the HTML is the same table."""
    lines, out, i = text.split("\n"), [], 0
    while i < len(lines):
        end = i + 2
        if _PIPE_ROW.match(lines[i]) and end <= len(lines) and _PIPE_RULE.match(lines[i + 1]):
            while end < len(lines) and _PIPE_ROW.match(lines[end]):
                end += 1
            rows = [lines[i], *lines[i + 2:end]]
            if len(" ".join(rows).split()) > limit:
                # a blank line first: right after a directive's opening line, ":::" would read as its options
                out += ([""] if out and out[-1].strip() else []) + [":::{list-table}", ":header-rows: 1", ""]
                for row in rows:
                    cells = [c.strip().replace("\\|", "|") for c in _CELL_SPLIT.split(row.strip()[1:-1])]
                    cells = [_LIST_MARK.sub(r"\\\1", c) if c else "&nbsp;" for c in cells]  # not a nested list
                    out += [("* - " if k == 0 else "  - ") + c for k, c in enumerate(cells)] + [""]
                out[-1] = ":::"
                i = end
                continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)


def _text(source: str | list[str]) -> str:
    return "".join(source) if isinstance(source, list) else source
