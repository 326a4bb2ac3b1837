"""The chapters' set-up: warnings gathered into one note per cell, token shading."""

import warnings

import nbformat
import pytest

from mtbook.chapter import quiet_setup, warning_line, warning_note, warning_text


def test_warning_line_is_one_line_with_the_data_root_hidden(monkeypatch, tmp_path):
    monkeypatch.setenv("MTLIB_DATA", str(tmp_path))
    assert warning_line(f"{tmp_path}/wmt19/a.txt: removed\n  a byte-order mark", UserWarning) == (
        "UserWarning: <data root>/wmt19/a.txt: removed a byte-order mark")


def test_warning_note_lists_each_warning_once_and_escapes_it():
    note = warning_note(["UserWarning: a <b>", "UserWarning: c", "UserWarning: a <b>"])
    assert note.count("<li>") == 2 and "a &lt;b&gt;" in note and "(2 warnings)" in note
    assert note.startswith('<div class="admonition note mtlib-warnings">')
    assert "(" not in warning_note(["UserWarning: x"]).split("</p>")[0]  # one warning: no count
    assert warning_text(["UserWarning: a", "UserWarning: a", "RuntimeWarning: b"]) == (
        "Note from this step:\n- UserWarning: a\n- RuntimeWarning: b")


def test_outside_ipython_a_warning_is_one_line(monkeypatch):
    monkeypatch.setattr(warnings, "formatwarning", warnings.formatwarning)  # restored after the test
    with warnings.catch_warnings():
        quiet_setup()
        assert warnings.formatwarning("two\nlines", UserWarning, "kernel.py", 3) == "UserWarning: two lines\n"


def test_in_a_notebook_warnings_become_one_note_per_cell():
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import warnings\nfrom mtbook.chapter import quiet_setup\nquiet_setup()\nquiet_setup()\n"
                              "print(len(get_ipython().events.callbacks['post_run_cell']))"),
        nbformat.v4.new_code_cell("warnings.warn('first', UserWarning)\nwarnings.warn('second', RuntimeWarning)\n"
                                  "warnings.warn('first', UserWarning)\nprint('done')"),
        nbformat.v4.new_code_cell("1 + 1"),
        # a cell that puts the default showwarning back: the next cell's warnings are still gathered
        nbformat.v4.new_code_cell("warnings.showwarning = warnings._showwarning_orig"),
        nbformat.v4.new_code_cell("warnings.warn('third', UserWarning)"),
    ])
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    hooks = int(nb.cells[0].outputs[0].text)
    outputs = nb.cells[1].outputs
    assert not [o for o in outputs if o.output_type == "stream" and o.name == "stderr"]
    notes = [o for o in outputs if o.output_type == "display_data" and "mtlib-warnings" in o.data.get("text/html", "")]
    assert len(notes) == 1
    # quiet_setup() twice registers its hook once (the kernel may have hooks of its own)
    nb2 = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "from mtbook.chapter import quiet_setup\nquiet_setup()\nprint(len(get_ipython().events.callbacks['post_run_cell']))")])
    nbclient.NotebookClient(nb2, timeout=120, kernel_name="python3").execute()
    assert hooks == int(nb2.cells[0].outputs[0].text)
    html = notes[0].data["text/html"]
    assert "UserWarning: first" in html and "RuntimeWarning: second" in html and "(2 warnings)" in html
    assert not [o for o in nb.cells[2].outputs if o.output_type == "display_data"]
    assert notes[0].data["text/plain"].startswith("Note from this step:\n- UserWarning: first")
    last = nb.cells[4].outputs
    assert not [o for o in last if o.output_type == "stream" and o.name == "stderr"]
    assert "UserWarning: third" in last[0].data["text/html"]
