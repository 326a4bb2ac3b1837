"""Every work the book's text names as "Author et al. YEAR" or "Author and Author YEAR" is on the
References page (references.bib, which book/references.md lists in full)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# "Papineni et al. 2002", "Banerjee and Lavie 2005", "Deutsch, Dror and Roth 2021", "Zhan et al. (2021)";
# a bare "Name 2021" is often not a citation ("WMT 2021"), so only these forms count.
CITATION = re.compile(r"\b([A-Z][a-z]+)(?: et al\.|,? (?:[A-Z][a-z]+ )?and [A-Z][a-z]+),? \(?((?:19|20)\d\d)\b")


def cited(text: str) -> set[tuple[str, str]]:
    return set(CITATION.findall(text))


def bib_works() -> set[tuple[str, str]]:
    """(first author's surname, year) of every entry of references.bib."""
    bib = (ROOT / "references.bib").read_text(encoding="utf-8")
    works = set()
    for entry in bib.split("@")[1:]:
        author = re.search(r"author\s*=\s*\{([^,}]+)", entry)
        year = re.search(r"year\s*=\s*\{(\d{4})", entry)
        if author and year:
            works.add((author.group(1).strip(" {}"), year.group(1)))
    return works


def test_every_cited_work_is_in_the_references():
    sources = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "book").glob("*.md"))
    found = cited("\n".join(p.read_text(encoding="utf-8") for p in sources))
    assert len(found) >= 10  # the chapters cite many works; none found would mean the pattern broke
    missing = sorted(found - bib_works())
    assert not missing, f"cited in the text but not in references.bib: {missing}"


def test_the_check_finds_a_missing_work():
    text = "as Nobody et al. 1999, Banerjee and Lavie 2005 and Deutsch, Dror and Roth (2021) showed in WMT 2021"
    assert cited(text) == {("Nobody", "1999"), ("Banerjee", "2005"), ("Deutsch", "2021")}
    assert cited(text) - bib_works() == {("Nobody", "1999")}
