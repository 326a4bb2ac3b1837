"""Every page of the built book, loaded in a real headless browser (Debian's chromium, driven
by Playwright) at 1,280 px: maths is typeset by the bundled MathJax, with no MathJax error and
no raw TeX ($r$, \\tau) or stray "$" left in the text, every image loads, no script fails, no
page requests anything from outside the book (it must work offline), no page scrolls sideways,
no table runs past the text column without its own scrollbar, and no warning output is shown.
And the reading rules: no paragraph over 120 words, no sentence said twice on a page, no
plumbing code (glue, display(Markdown(...)), publish) shown, a Conclusion of at most six shown
bullets of at most 60 words."""

import os
import shutil

import pytest

pytestmark = pytest.mark.slow
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the `test` extra)")
CHROMIUM = os.environ.get("MTLIB_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
if not CHROMIUM:
    pytest.skip("no chromium browser found (apt-get install chromium; or set MTLIB_CHROMIUM)", allow_module_level=True)

LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")
TIMEOUT_MS = 120_000  # a loaded 2-core CI machine can take over 30 s (the default) to typeset a large page
# Shown text outside code and typeset maths that still holds TeX ($…$, \(, \[, \cmd{, \tau …), tables
# past the text column without a scrolling box around them, and shown stderr or traceback output.
PAGE_RULES_JS = r"""() => {
  const skip = el => el.closest('pre, code, script, style, textarea, mjx-container');
  const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
  const raw = [];
  while (walker.nextNode()) {
    const el = walker.currentNode.parentElement;
    if (!el || skip(el) || !el.getClientRects().length) continue;
    const t = walker.currentNode.textContent;
    if (/\$[^$\s]([^$]*[^$\s])?\$|\\\(|\\\[|\\[a-zA-Z]+\{|\\(tau|rho|sigma|lambda|alpha|mu|Delta|frac|mathcal|sqrt|sum|times|le|ge)\b/.test(t)) raw.push(t.trim().slice(0, 80));
  }
  const column = document.querySelector('article.bd-article') || document.querySelector('main') || document.body
    || document.documentElement;
  const right = column.getBoundingClientRect().right;
  const tables = [];
  for (const t of column.querySelectorAll('table')) {
    let el = t.parentElement, scroller = null;
    for (; el && el !== column.parentElement; el = el.parentElement) {
      if (['auto', 'scroll'].includes(getComputedStyle(el).overflowX)) { scroller = el; break; }
    }
    const edge = (scroller || t).getBoundingClientRect().right;
    if (edge > right + 2) tables.push((t.caption ? t.caption.textContent : t.textContent).trim().slice(0, 60));
  }
  const warnings = [...document.querySelectorAll('.output.stderr, .output.traceback')]
    .filter(e => e.getClientRects().length).map(e => e.textContent.trim().slice(0, 80));
  for (const o of column.querySelectorAll('.cell_output pre, .output pre')) {
    if (o.getClientRects().length && !o.closest('.stderr, .traceback') && /\b\w*Warning: /.test(o.textContent)) warnings.push(o.textContent.trim().slice(0, 80));
  }
  // MathJax's own error boxes (e.g. "\tag not allowed in split environment"), and a "$" left
  // beside typeset maths (a formula whose delimiters did not pair up).
  const mathErrors = [...document.querySelectorAll('mjx-merror, [data-mjx-error]')]
    .map(e => (e.getAttribute('data-mjx-error') || e.textContent).trim().slice(0, 80));
  const dollars = [];
  for (const m of column.querySelectorAll('mjx-container')) {
    for (const side of [m.previousSibling, m.nextSibling]) {
      if (side && side.nodeType === Node.TEXT_NODE && /\$/.test(side.textContent)
          && !/\d/.test(side.textContent.replace(/\$/g, ''))) dollars.push(m.closest('p, li, div').textContent.trim().slice(0, 60));
    }
  }
  // Reading rules: paragraphs of at most 120 words; no sentence of eight or more words said twice
  // on a page; no code cell shown whose job is plumbing (glue, display(Markdown(...))).
  const words = t => t.split(/\s+/).filter(w => /\w/.test(w)).length;
  // (a bibliography's entries share their venue lines by nature: not prose)
  const prose = [...column.querySelectorAll('p, li')]
    .filter(e => !e.closest('pre, code, table, .cell_output, .output, .citation, .bibliography, dl.citation'));
  const long = prose.filter(e => e.tagName === 'P' && words(e.textContent) > 120)
    .map(e => `${words(e.textContent)} words: ${e.textContent.trim().slice(0, 60)}`);
  const seen = new Map(), repeated = [];
  for (const e of prose) {
    if (e.tagName === 'LI' && e.querySelector('p')) continue;  // its paragraphs are counted themselves
    for (const s of e.textContent.replace(/\s+/g, ' ').split(/(?<=[.;:!?])\s+(?=[A-Z*])/)) {
      const key = s.trim().toLowerCase();
      if (words(key) < 8) continue;
      seen.set(key, (seen.get(key) || 0) + 1);
      if (seen.get(key) === 2) repeated.push(s.trim().slice(0, 80));
    }
  }
  const plumbing = [...column.querySelectorAll('.cell_input pre, .cell .input_area pre')]
    .filter(e => e.getClientRects().length && /\bglue\(|display\(\s*Markdown\(|\bpublish\(/.test(e.textContent))
    .map(e => e.textContent.trim().slice(0, 60));
  // Code whose lines run past its box with no way to scroll to them: cut off for the reader.
  const cut = [...column.querySelectorAll('pre')].filter(e => e.getClientRects().length
      && e.scrollWidth > e.clientWidth + 2 && !['auto', 'scroll'].includes(getComputedStyle(e).overflowX))
    .map(e => e.textContent.trim().slice(0, 60));
  // A Conclusion is at most six shown bullets of about 50 words (60 at most); the rest is collapsed.
  const conclusion = [];
  for (const h of column.querySelectorAll('h2')) {
    if (!/^Conclusion/.test(h.textContent.trim())) continue;
    const section = h.closest('section') || h.parentElement;
    const bullets = [...section.querySelectorAll('li')].filter(li => li.closest('section') === section
      && !li.parentElement.closest('li, details, table') && li.getClientRects().length);
    if (bullets.length > 6) conclusion.push(`${bullets.length} bullets`);
    for (const li of bullets) if (words(li.textContent) > 60) conclusion.push(`${words(li.textContent)} words: ${li.textContent.trim().slice(0, 60)}`);
  }
  return {raw, tables, warnings, mathErrors, dollars, long, repeated, plumbing, cut, conclusion,
          width: document.documentElement.scrollWidth, view: window.innerWidth};
}"""


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


def _pages(html_dir):
    return sorted(p for p in html_dir.rglob("*.html") if "_static" not in p.parts and "_sources" not in p.parts)


def _evaluate(tab, script: str):
    """``tab.evaluate(script)``, run again once the page has loaded if a redirect page
    (index.html) navigated away while it ran: under load the refresh can land mid-check."""
    for attempt in range(3):
        try:
            return tab.evaluate(script)
        except sync_api.Error as error:
            if "Execution context was destroyed" not in str(error) or attempt == 2:
                raise
            tab.wait_for_load_state("load")


def _page_problems(browser, page, name, *, known_stale: bool = False) -> tuple[list[str], int]:
    """What is wrong with one page as a reader's browser shows it, and how many formulas it typeset.
    A page whose chapter is listed as known stale (its banner says it predates the current code)
    may still show the warning output of the code it was executed with."""
    tab = browser.new_page(viewport={"width": 1280, "height": 900})
    tab.set_default_timeout(TIMEOUT_MS)
    requests, errors, problems, typeset = [], [], [], 0
    tab.on("request", lambda r: requests.append(r.url))
    tab.on("pageerror", lambda e: errors.append(str(e)))
    # "load", not "networkidle": chromium can leave a file:// font request open for good under load;
    # every request is still recorded when it starts, and MathJax is awaited below.
    tab.goto(page.as_uri(), wait_until="load")
    outside = [u for u in requests if not u.startswith(LOCAL_SCHEMES)]
    if outside:
        problems.append(f"{name}: requests outside the book {outside[:3]}")
    if errors:
        problems.append(f"{name}: script errors {errors[:3]}")
    n_math = tab.locator(".math").count()
    if n_math:
        tab.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
        _evaluate(tab, "() => MathJax.startup.promise")
        raw = _evaluate(tab, "() => [...document.querySelectorAll('.math')].filter("
                           "m => !m.querySelector('mjx-container')).length")
        if raw:
            problems.append(f"{name}: {raw} of {n_math} formulas not typeset")
        typeset = n_math - raw
    broken = _evaluate(tab, "() => [...document.images].filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)")
    if broken:
        problems.append(f"{name}: images that did not load {broken[:3]}")
    tab.wait_for_load_state("load")  # a redirect page (index.html) has moved on to its target by now
    rules = _evaluate(tab, PAGE_RULES_JS)
    if rules["raw"]:
        problems.append(f"{name}: raw TeX in the text {rules['raw'][:3]}")
    if rules["width"] > rules["view"] + 1:
        problems.append(f"{name}: the page scrolls sideways ({rules['width']} px wide at {rules['view']} px)")
    if rules["tables"]:
        problems.append(f"{name}: tables past the text column without a scrollbar {rules['tables'][:3]}")
    if rules["mathErrors"]:
        problems.append(f"{name}: MathJax errors {rules['mathErrors'][:3]}")
    if rules["dollars"]:
        problems.append(f"{name}: a '$' beside typeset maths {rules['dollars'][:3]}")
    if rules["cut"]:
        problems.append(f"{name}: code cut at the right edge {rules['cut'][:3]}")
    if not known_stale:  # a known-stale page shows the code and words it was executed with (its banner says so)
        for key, what in [("warnings", "warning output shown"), ("long", "paragraphs over 120 words"),
                          ("repeated", "sentences said twice"), ("plumbing", "plumbing code shown"),
                          ("conclusion", "a Conclusion over six bullets of 60 words")]:
            if rules[key]:
                problems.append(f"{name}: {what} {rules[key][:3]}")
    tab.close()
    return problems, typeset


def test_every_page_renders_offline(built_book, browser):
    pages = _pages(built_book)
    assert {"intro.html", "own_data.html", "teaching.html", "regemt.html"} <= {p.name for p in pages}
    from mtbook.runner import known_stale
    stale = set(known_stale())
    problems, typeset = [], 0
    for page in pages:
        found, n = _page_problems(browser, page, page.relative_to(built_book), known_stale=page.stem in stale)
        problems += found
        typeset += n
    assert not problems, "\n".join(problems)
    assert typeset > 50  # the chapters have many formulas; zero would mean MathJax never ran


def test_the_checks_catch_a_broken_page(browser, tmp_path):
    page = tmp_path / "broken.html"
    page.write_text('<html><body><img src="missing.png"><img src="https://example.invalid/x.png">'
                    '<span class="math">\\(x^2\\)</span><script>const A = 1;</script><script>const A = 2;</script>'
                    '<script>window.MathJax = {startup: {promise: Promise.resolve()}};</script></body></html>')
    problems, typeset = _page_problems(browser, page, "broken.html")
    text = "\n".join(problems)
    assert "requests outside the book ['https://example.invalid/x.png']" in text
    assert "Identifier 'A' has already been declared" in text
    assert "1 of 1 formulas not typeset" in text and "images that did not load" in text and typeset == 0


def test_the_page_rules_catch_raw_tex_sideways_scroll_wide_tables_and_warnings(browser, tmp_path):
    wide = "<tr>" + "<td>column</td>" * 300 + "</tr>"
    page = tmp_path / "rules.html"
    page.write_text('<html><body><main><article class="bd-article" style="width: 600px">'
                    r"<p>The signed $r$ and its \tau.</p><p><code>$kept$ \tau</code></p>"
                    f"<table><caption>A wide table</caption>{wide}</table>"
                    f'<div style="overflow-x: auto"><table><caption>Scrolls</caption>{wide}</table></div>'
                    '<div class="output stderr"><pre>UserWarning: 13 of 2998 pairs are empty</pre></div>'
                    "</article></main></body></html>")
    text = "\n".join(_page_problems(browser, page, "rules.html")[0])
    assert r"raw TeX in the text ['The signed $r$ and its \\tau.']" in text  # code is left alone
    assert "the page scrolls sideways" in text
    assert "tables past the text column without a scrollbar ['A wide table']" in text  # 'Scrolls' is fine
    assert "warning output shown ['UserWarning: 13 of 2998 pairs are empty']" in text
    stale = "\n".join(_page_problems(browser, page, "rules.html", known_stale=True)[0])
    assert "warning output shown" not in stale and "the page scrolls sideways" in stale  # only that rule waits
    page.write_text('<html><body><main><article class="bd-article"><p>Costs $5 and $6; typeset text only.</p>'
                    "</article></main></body></html>")
    assert _page_problems(browser, page, "fine.html")[0] == []


def test_the_reading_rules_catch_long_paragraphs_repeats_plumbing_and_maths_errors(browser, tmp_path):
    said = "The metric ranks the two best systems the other way round from humans."
    long = " ".join(["word"] * 121)
    page = tmp_path / "reading.html"
    page.write_text('<html><body><main><article class="bd-article">'
                    f"<p>{long}.</p><p>{said} Then more.</p><ul><li>{said}</li></ul>"
                    "<p>The score <mjx-container>S</mjx-container>$ is stray.</p>"
                    '<p><mjx-container><mjx-merror data-mjx-error="\\tag not allowed in split environment">'
                    "x</mjx-merror></mjx-container></p>"
                    '<div class="cell"><div class="cell_input"><pre>glue("n", Markdown(text), display=False)</pre></div>'
                    '<div class="cell_output"><pre>/x.py:3: UserWarning: removed a byte-order mark</pre></div></div>'
                    "</article></main></body></html>")
    text = "\n".join(_page_problems(browser, page, "reading.html")[0])
    assert "paragraphs over 120 words ['121 words: word word" in text
    assert f"sentences said twice ['{said}']" in text
    assert "a '$' beside typeset maths ['The score S$ is stray.']" in text
    assert "MathJax errors [" in text and "tag not allowed in split environment" in text
    assert "plumbing code shown ['glue(\"n\", Markdown(text), display=False)']" in text
    assert "warning output shown ['/x.py:3: UserWarning: removed a byte-order mark']" in text
    bullet = " ".join(["claim"] * 61)
    page.write_text('<html><body><main><article class="bd-article"><section><h2>Conclusion</h2><ul>'
                    + f"<li>{bullet}</li>" + "<li>One short claim.</li>" * 6
                    + '</ul><details><ul>' + "<li>Collapsed.</li>" * 9 + "</ul></details></section>"
                    "<section><h2>Next</h2><ul>" + "<li>Elsewhere.</li>" * 9 + "</ul></section></article></main></body></html>")
    text = "\n".join(_page_problems(browser, page, "conclusion.html")[0])
    assert "a Conclusion over six bullets of 60 words ['7 bullets', '61 words: claim claim" in text
    page.write_text('<html><body><main><article class="bd-article" style="width: 400px">'
                    f'<pre style="overflow-x: hidden">{"x" * 300}</pre>'
                    f'<pre style="overflow-x: auto">{"y" * 300}</pre></article></main></body></html>')
    assert _page_problems(browser, page, "cut.html")[0] == [f"cut.html: code cut at the right edge ['{'x' * 60}']"]
    page.write_text('<html><body><main><article class="bd-article">'
                    "<p>The score <mjx-container>S</mjx-container>$ is stray.</p>"
                    '<p><mjx-container><mjx-merror data-mjx-error="bad">x</mjx-merror></mjx-container></p>'
                    f"<p>{long}.</p></article></main></body></html>")
    stale = "\n".join(_page_problems(browser, page, "reading.html", known_stale=True)[0])
    assert "MathJax errors" in stale and "paragraphs over" not in stale and "plumbing" not in stale
    short = " ".join(["word"] * 120)
    page.write_text('<html><body><main><article class="bd-article">'
                    f"<p>{short}.</p><p>Short sentences repeat. Short sentences repeat.</p>"
                    '<pre><code>glue("n", 1)</code></pre></article></main></body></html>')
    assert _page_problems(browser, page, "fine.html")[0] == []


def test_solutions_are_hidden_until_opened(built_book, browser):
    tab = browser.new_page(viewport={"width": 1280, "height": 900})
    tab.set_default_timeout(TIMEOUT_MS)
    tab.goto((built_book / "book" / "own_data.html").as_uri())
    solution = tab.locator("details.solution, div.solution").first
    assert solution.count() == 1
    body = solution.locator("p").last
    assert not body.is_visible()
    solution.locator("summary, .summary-title, .admonition-title").first.click()
    assert body.is_visible()
    tab.close()
