"""The book's one comparison vocabulary: a family of mtlib.significance.compare results,
Holm-adjusted together (mtbook.comparisons), worded by notebooks/book.macros.j2."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from mtbook import comparisons, findings, words
from mtlib.significance import Verdict, compare

ROOT = Path(__file__).resolve().parents[1]
MACROS = words.chapter_macros(ROOT / "notebooks" / "no_such_chapter.ipynb")  # the book's macros alone


def _family():
    rng = np.random.default_rng(5)
    h = rng.normal(size=16)
    good, noisy = h + rng.normal(scale=0.2, size=16), h + rng.normal(scale=2.0, size=16)
    tests = [({"lp": "de-en"}, "Noisy", "Good", "r", compare(noisy, good, h, n_permutations=2000, seed=1)),
             ({"lp": "de-en"}, "Good", "Good copy", "r", compare(good, good * 2, h, n_permutations=2000, seed=1)),
             ({"lp": "en-de"}, "Flat", "Good", "r", compare(np.ones(16), good, h, n_permutations=2000, seed=1)),
             ({"lp": "en-de"}, "Good", "Noisy", "r", compare(good, noisy, h, n_permutations=2000, seed=1))]
    return comparisons.family(tests)


def test_family_adjusts_over_the_tested_comparisons_and_judges_on_the_adjusted_p():
    rows = _family()
    better, tie, untested, worse = rows
    assert tie.verdict is Verdict.TIE and tie.p == 1.0
    assert untested.verdict is Verdict.UNTESTED and math.isnan(untested.p_holm) and "constant" in untested.reason
    # three tested p's (the tie's p = 1 counts): the smallest is multiplied by 3
    assert better.p_holm == pytest.approx(min(1.0, 3 * better.p)) and better.verdict is Verdict.B_BETTER
    assert worse.verdict is Verdict.A_BETTER and worse.delta == pytest.approx(-better.delta)
    counts = comparisons.family_counts(rows)
    assert counts["comparisons"] == 4 and counts["tests"] == 3 and counts["tie"] == 1 and counts["untested"] == 1
    assert counts["raw_significant"] == 2 and counts["B better"] == counts["A better"] == 1
    frame = comparisons.family_frame(rows)
    assert list(frame.columns[:4]) == ["lp", "A", "B", "stat"] and frame.loc[0, "units"] == "16 systems"


def test_a_raw_p_below_alpha_that_holm_lifts_above_it_is_not_called_significant():
    h = np.array([0.0, 1.0, 2.0, 3.0, 5.0, 6.5])
    one = compare(np.array([1.0, 0.0, 3.0, 2.0, 6.5, 5.0]), h, h, n_permutations=4000, seed=2)  # pairs swapped
    assert one.p < 0.05  # alone it would be significant
    rows = comparisons.family([({}, "A", "B", "r", one)] * 4)  # four such tests: 4p > 0.05
    assert all(r.p_holm > 0.05 and r.verdict is Verdict.NOT_SHOWN for r in rows)
    assert comparisons.family_counts(rows)["raw_significant"] == 4


def test_the_book_words_every_verdict():
    data = json.loads(json.dumps(findings.as_data({"rows": _family()})))
    text = words.render_template("{% for c in f.rows %}{{ m.compared(c) }}. {% endfor %}", data, macros=MACROS)
    assert "Good correlates better than Noisy (r " in text and ", Holm-adjusted p " in text
    assert "Good copy ties with Good (r " in text
    assert "Good could not be tested against Flat (metric A is constant on the 16 items; no correlation)" in text
    assert "Noisy correlates worse than Good" in text
    counts = comparisons.family_counts(_family())
    note = " ".join(words.render_template("{{ m.tests_note(f.c, 2000) }}", {"c": counts}, macros=MACROS).split())
    assert "two-sided, with 2,000 permutations that swap whole systems; the page ran 3 such tests" in note
    assert "multiply the smallest by m, the next by m − 1" in note
    assert "(2 raw and 2 adjusted p-values are below 0.05)" in note
    none = words.render_template("{{ m.tests_note(f.c, 2000) }}", {"c": {**counts, "tests": 0}}, macros=MACROS)
    assert none.startswith("No comparison on this page could be tested")


def test_a_p_of_zero_enters_holm_at_the_resolution_of_the_draws():
    h = np.arange(12.0)
    zero = compare(-h, h, h, n_permutations=100, seed=1)  # no draw reaches |delta|: p = 0
    assert zero.p == 0.0
    rows = comparisons.family([({}, "A", "B", "r", zero)] * 10)
    assert all(r.p_holm == pytest.approx(10 / 100) for r in rows)  # not 0: 100 draws cannot tell 1e-5 from 0.01
    assert all(r.verdict is Verdict.NOT_SHOWN for r in rows) and rows[0].p == 0.0  # the raw p is kept as drawn
    alone = comparisons.family([({}, "A", "B", "r", zero)])
    assert alone[0].p_holm == pytest.approx(0.01) and alone[0].verdict is Verdict.B_BETTER
