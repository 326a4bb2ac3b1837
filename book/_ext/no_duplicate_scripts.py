"""Drops repeated <script> entries from every page.

sphinx-thebe (loaded by Jupyter Book even with thebe off) adds its inline configuration
script once per read of the sources, so a page can carry ``const THEBE_JS_URL = ...`` twice;
the second copy throws "Identifier 'THEBE_JS_URL' has already been declared" in the browser.
"""


def _dedupe(app, pagename, templatename, context, doctree):
    seen, kept = set(), []
    for script in context.get("script_files", []):
        # The copies differ only in filename None vs "" (an inline script either way).
        key = (getattr(script, "filename", script) or "", repr(sorted(getattr(script, "attributes", {}).items())))
        if key not in seen:
            seen.add(key)
            kept.append(script)
    if "script_files" in context:
        context["script_files"][:] = kept


def setup(app):
    app.connect("html-page-context", _dedupe, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
