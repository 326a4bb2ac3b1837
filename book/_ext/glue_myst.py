"""Glued Markdown read as MyST, so that its $…$ maths and markup render as in the pages.

myst-nb's ``{glue:md}`` role and ``glue:md`` directive parse a glued value as CommonMark unless
each citation names a format (``{glue:md}`name:myst```); in CommonMark the maths of a sentence
that code wrote ("signed $r$") shows as raw dollars. This makes MyST the default for both; a
citation that names a format keeps it.
"""

from myst_nb.ext.glue.directives import PasteMarkdownDirective
from myst_nb.ext.glue.domain import NbGlueDomain
from myst_nb.ext.glue.roles import PasteMarkdownRole


class PasteMystRole(PasteMarkdownRole):
    def run(self):
        if ":" not in self.text:
            self.text = f"{self.text}:myst"
        return super().run()


class PasteMystDirective(PasteMarkdownDirective):
    def run(self):
        self.options.setdefault("format", "myst")
        return super().run()


def setup(app):
    NbGlueDomain.roles["md"] = PasteMystRole()
    NbGlueDomain.directives["md"] = PasteMystDirective
    return {"parallel_read_safe": True, "parallel_write_safe": True}
