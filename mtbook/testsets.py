"""What the book knows about the WMT test sets it reads, beyond their files: how to cite each,
and what is unusual about its text in the data root (``../shared/data/README.md``).

One place for these facts, so that every chapter's "Data:" line and caveat says the same. The
book's, not the library's: citations and caveats are words on a page.
"""

from __future__ import annotations

from typing import Sequence


__all__ = ["CITATION", "TEXT_CAVEAT", "citation", "newstest_name", "text_caveat", "source", "sources_line"]

# test set -> the tasks it comes from (news: system outputs and DA judgements; metrics: the
# packaged scores) and the papers to cite with it
CITATION = {"wmt17": "WMT17 news and metrics tasks (Bojar et al. 2017; Bojar, Graham and Kamran 2017)",
            "wmt18": "WMT18 news and metrics tasks (Bojar et al. 2018; Ma et al. 2018)",
            "wmt19": "WMT19 news and metrics tasks (Barrault et al. 2019; Ma et al. 2019)",
            "wmt21.news": "WMT21 metrics task, expert MQM (Freitag et al. 2021)",
            "wmt21.tedtalks": "WMT21 metrics task, TED talks, expert MQM (Freitag et al. 2021)"}
# test set -> how its text in the data root differs from what WMT released
TEXT_CAVEAT = {"wmt17": "lowercased and Moses-tokenised"}


def citation(test_set: str) -> str:
    """The tasks and papers of ``test_set`` ("WMT18 news and metrics tasks (Bojar et al. 2018;
    Ma et al. 2018)"); the test
    set's own name where the book has no citation for it."""
    return CITATION.get(test_set, test_set)


def newstest_name(test_set: str) -> str | None:
    """The WMT news test set of ``wmtYY`` (``newstest20YY``); None for other names."""
    year = test_set[3:] if test_set.startswith("wmt") else ""
    return f"newstest20{year}" if len(year) == 2 and year.isdigit() else None


def text_caveat(test_set: str) -> str | None:
    """How the text of ``test_set`` here differs from WMT's release (None: it does not)."""
    return TEXT_CAVEAT.get(test_set)


def source(test_set: str, language_pairs: Sequence[str]) -> str:
    """Language pairs of one test set and where they come from: "wmt18 de-en and en-de from the
    WMT18 news and metrics tasks (Bojar et al. 2018; Ma et al. 2018)" (without "from the …" for
    a test set the book has no citation for)."""
    where = f" from the {CITATION[test_set]}" if test_set in CITATION else ""
    return f"{test_set} {_and_list(language_pairs)}{where}"


def sources_line(evalsets: Sequence[str]) -> str:
    """The evaluation sets of a run ("TESTSET LP"), grouped by test set in order of first use,
    each with where it comes from (:func:`source`), joined by semicolons."""
    by_set: dict[str, list[str]] = {}
    for key in dict.fromkeys(evalsets):
        test_set, lp = key.split()
        by_set.setdefault(test_set, []).append(lp)
    return "; ".join(source(t, lps) for t, lps in by_set.items())


def _and_list(items: Sequence[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    items = list(items)
    return " and ".join(items) if len(items) < 3 else f"{', '.join(items[:-1])} and {items[-1]}"
