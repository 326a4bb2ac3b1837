"""Every page of the built book, loaded in a real headless browser (Debian's chromium, driven
by Playwright): maths is typeset by the bundled MathJax, every image loads, no script fails,
and no page requests anything from outside the book (it must work offline)."""

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


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


def _pages(html_dir):
    return sorted(p for p in html_dir.rglob("*.html") if "_static" not in p.parts and "_sources" not in p.parts)


def _page_problems(browser, page, name) -> tuple[list[str], int]:
    """What is wrong with one page as a reader's browser shows it, and how many formulas it typeset."""
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
        tab.evaluate("() => MathJax.startup.promise")
        raw = tab.evaluate("() => [...document.querySelectorAll('.math')].filter("
                           "m => !m.querySelector('mjx-container')).length")
        if raw:
            problems.append(f"{name}: {raw} of {n_math} formulas not typeset")
        typeset = n_math - raw
    broken = tab.evaluate("() => [...document.images].filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)")
    if broken:
        problems.append(f"{name}: images that did not load {broken[:3]}")
    tab.close()
    return problems, typeset


def test_every_page_renders_offline(built_book, browser):
    pages = _pages(built_book)
    assert {"intro.html", "own_data.html", "teaching.html", "regemt.html"} <= {p.name for p in pages}
    problems, typeset = [], 0
    for page in pages:
        found, n = _page_problems(browser, page, page.relative_to(built_book))
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
