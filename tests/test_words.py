"""Findings as data, words as templates (mtbook.words)."""

import dataclasses
import enum
import json

import numpy as np
import pytest

from mtbook import findings, words


class Verdict(enum.Enum):
    BETTER = "better"
    TIE = "tie"


@dataclasses.dataclass
class Comparison:
    a: str
    b: str
    gap: float
    verdict: Verdict


def _published(**found) -> dict:
    return {"output_type": "display_data", "metadata": {},
            "data": {findings.MIME_TYPE: json.loads(json.dumps(findings.as_data(found)))}}


def test_findings_become_plain_data():
    data = findings.as_data({"c": Comparison("BLEU", "chrF", np.float64(0.25), Verdict.TIE), "n": np.int64(3),
                          "xs": np.array([1.0, 2.0]), ("lp", 1): (1, 2)})
    assert data == {"c": {"a": "BLEU", "b": "chrF", "gap": 0.25, "verdict": "tie"}, "n": 3, "xs": [1.0, 2.0],
                    "('lp', 1)": [1, 2]}
    assert type(data["n"]) is int
    with pytest.raises(TypeError, match="object is not plain data"):
        findings.as_data({"x": object()})
    # JSON has no NaN (a kernel would send the string "nan"): undefined numbers travel as None
    assert findings.as_data({"x": float("nan"), "y": [np.float64("inf"), 1.5]}) == {"x": None, "y": [None, 1.5]}


def test_filters_write_numbers_as_the_book_does():
    f = {"r": 0.12345, "z": -0.0001, "share": 0.4, "p": 0.0, "n": 1, "names": ["BLEU", "TER", "chrF"]}
    text = ("{{ f.r | num }} {{ f.r | num(2) }} {{ f.z | signed }} {{ f.r | signed }} {{ f.share | pct }} "
            "{{ f.p | p }} {{ f.n | plural('system') }} {{ 2 | plural('system') }} {{ f.names | and_list }} "
            "{{ 'bleu wins' | capitalised }}")
    assert words.render_template(text, f) == \
        "0.123 0.12 +0.000 +0.123 40% p < 0.001 1 system 2 systems BLEU, TER and chrF Bleu wins"


def test_a_missing_finding_is_an_error_that_names_it():
    with pytest.raises(ValueError, match=r"cell 3: 'dict object' has no attribute 'gap'.*published findings: \['r'\]"):
        words.render_template("{{ f.gap }}", {"r": 1}, where="cell 3")
    with pytest.raises(ValueError, match="line 1"):
        words.render_template("{% if f.r %}no end", {"r": 1})
    assert words.render_template("$\\tau$ has no template marks", {}) == "$\\tau$ has no template marks"


def test_a_finding_published_twice_is_refused():
    cells = [{"cell_type": "code", "outputs": [_published(r=1)]}, {"cell_type": "code", "outputs": [_published(r=2)]}]
    with pytest.raises(ValueError, match=r"finding\(s\) \['r'\] published twice \(again in cell 1\)"):
        findings.collect(cells)


def test_render_cells_keeps_code_and_outputs_and_renders_words():
    source = [{"cell_type": "code", "metadata": {"tags": ["parameters"]}, "source": "x = 1"},
              {"cell_type": "markdown", "metadata": {}, "source": "New: {{ f.r | num(1) }}"},
              {"cell_type": "code", "metadata": {}, "source": "publish(r=x)"}]
    injected = {"cell_type": "code", "metadata": {"tags": ["injected-parameters"]}, "source": "x = 1", "outputs": []}
    executed = [dict(source[0], outputs=[]), injected, dict(source[2], outputs=[_published(r=1)])]
    cells = words.render_cells(source, executed, name="toy")
    assert [c["source"] for c in cells] == ["x = 1", "x = 1", "New: 1.0", "publish(r=x)"]
    assert cells[1] is injected and cells[3]["outputs"] == executed[2]["outputs"]
    source[2]["source"] = "publish(r=2 * x)"
    with pytest.raises(ValueError, match="toy: the code cells differ from the ones that were executed"):
        words.render_cells(source, executed, name="toy")


def test_a_chapters_macros_are_shared_by_its_cells():
    macros = "{% macro pair(x) %}{{ x.a }} and {{ x.b | num(1) }}{% endmacro %}"
    assert words.render_template("Both: {{ m.pair(f.x) }}.", {"x": {"a": "A", "b": 2}}, macros=macros) == \
        "Both: A and 2.0."
    with pytest.raises(ValueError, match="has no attribute 'nope'"):
        words.render_template("{{ m.nope(1) }}", {}, macros=macros)


def test_the_book_macros_come_first_and_a_chapter_macro_of_the_same_name_wins(tmp_path):
    (tmp_path / "book.macros.j2").write_text("{% macro who() %}book{% endmacro %}{% macro shared() %}S{% endmacro %}")
    (tmp_path / "ch.macros.j2").write_text("{% macro who() %}chapter{% endmacro %}")
    macros = words.chapter_macros(tmp_path / "ch.ipynb")
    assert words.render_template("{{ m.who() }} {{ m.shared() }}", {}, macros=macros) == "chapter S"
    assert words.chapter_macros(tmp_path / "other.ipynb").startswith("{% macro who() %}book")
    assert words.chapter_macros(tmp_path / "sub" / "x.ipynb") == ""
