"""A warning at the top of every chapter listed in ``book/known_stale.yml``.

A chapter whose executed copy is older than the code (``python -m mtbook check``)
and cannot be re-executed yet is listed there with the reason; its page then says so before
the first paragraph, so that no reader takes its numbers for the current code's.
"""

from pathlib import Path

import yaml
from docutils import nodes

KNOWN_STALE = Path(__file__).resolve().parents[1] / "known_stale.yml"


def _add_banner(app, doctree):
    entries = yaml.safe_load(KNOWN_STALE.read_text(encoding="utf-8")) if KNOWN_STALE.exists() else {}
    name = app.env.docname.rpartition("/")[2]
    if not app.env.docname.startswith("book/") or name not in (entries or {}):
        return
    entry = entries[name]
    box = nodes.admonition(classes=["warning"])
    box += nodes.title(text="Not re-executed with the current code")
    box += nodes.paragraph(text=f"This page was executed with {entry['executed_with']}. {entry['reason']}")
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None:
        doctree.insert(0, box)
    else:
        section.insert(1, box)  # after the chapter's title


def setup(app):
    app.connect("doctree-read", _add_banner)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
