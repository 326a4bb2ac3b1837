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


def test_figure_text_is_measured_as_the_page_shows_it():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mtbook.chapter import COLUMN_PX, smallest_text_px

    fig, ax = plt.subplots(figsize=(6, 3), dpi=100)  # 600 px: shown at its own size
    ax.set_xlabel("x", fontsize=10)
    ax.tick_params(labelsize=7)
    px, text = smallest_text_px(fig)
    assert px == pytest.approx(7 * 100 / 72) and text  # the tick labels, once drawn
    fig.set_size_inches(COLUMN_PX / 100 * 2, 3)  # twice the column: scaled to half on the page
    assert smallest_text_px(fig)[0] == pytest.approx(7 * 100 / 72 / 2)
    plt.close(fig)
    empty = plt.figure()
    assert smallest_text_px(empty)[0] == float("inf")
    plt.close(empty)


def test_a_figure_with_unreadable_text_warns_when_drawn_and_the_runner_reports_it(tmp_path):
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mtbook import runner
    from mtbook.chapter import FigureTextWarning, check_figure_text

    check_figure_text()
    check_figure_text()  # installing twice wraps once
    wide, ax = plt.subplots(figsize=(16, 3), dpi=100)
    ax.annotate("0.44", (0.5, 0.5), fontsize=6)  # 6 pt at 43% scale: about 3.6 px
    with pytest.warns(FigureTextWarning, match=r"figure text '0.44' would show 3.6 px high"):
        wide.canvas.print_figure(io.BytesIO(), format="png")
    readable, ax = plt.subplots(figsize=(6, 3), dpi=100)
    ax.set_title("fine", fontsize=12)
    ax.tick_params(labelsize=9)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FigureTextWarning)
        readable.canvas.print_figure(io.BytesIO(), format="png")
    plt.close("all")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("plot()", outputs=[nbformat.v4.new_output(
        "display_data", data={"text/plain": "Note from this step:\n- FigureTextWarning: figure text '0.44' would show "
                                            "3.6 px high in the page's 688 px column"})])])
    path = tmp_path / "fig.ipynb"
    nbformat.write(nb, path)
    assert runner.output_problems(path) == [
        "fig.ipynb cell 0: FigureTextWarning: figure text '0.44' would show 3.6 px high in the page's 688 px column"]
