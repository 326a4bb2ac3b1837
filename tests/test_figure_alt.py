"""A figure's alt text (mtbook.words.figure_alt): its caption as plain text, written into the
executed copy with the words (no kernel), so it stales no number and keeps an alt of its own."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import nbformat
import pytest

from mtbook import provenance, words
from mtbook import runner as nbr

CAPTION = ("Mismatch proportions $mp_n$ of a human translation (red) and Kendall's $\\tau$ with "
           "$\\rho \\le 0.5$, see [the paper](https://example.org) and `mtlib`.")


def test_a_caption_becomes_plain_text():
    assert words.figure_alt(CAPTION) == ("Mismatch proportions mpₙ of a human translation (red) and Kendall's τ "
                                         "with ρ ≤ 0.5, see the paper and mtlib.")
    assert words.figure_alt("Top-K: $\\text{BLEU}_{\\mathrm{sent}}$, $\\frac{a}{b}$, $10^{-3}$, $$\\alpha_1$$") \
        == "Top-K: BLEU_sent, a/b, 10⁻³, α₁"
    assert words.figure_alt("costs 5\\$ each, *not* **much**, 100\\%") == "costs 5$ each, not much, 100%"
    assert words.figure_alt(["Two lines\n", "  of   caption."]) == "Two lines of caption."
    for caption in (CAPTION, "Spearman ρ with MQM."):
        assert "$" not in words.figure_alt(caption) and "\\" not in words.figure_alt(caption)


def test_a_long_caption_is_cut_at_a_word_boundary():
    caption = " ".join(f"word{i}" for i in range(100))  # 589 characters
    alt = words.figure_alt(caption)
    assert len(alt) <= words.ALT_LIMIT and alt.endswith("…")
    assert caption.startswith(alt[:-1]) and caption[len(alt) - 1] == " "  # whole words only
    assert len(alt) > words.ALT_LIMIT - 10
    opened = "A" * 120 + " " + " ".join(["x"] * 40) + " (the analysis of " + " ".join(["y"] * 60) + ")."
    assert words.figure_alt(opened).endswith("x…")  # no parenthesis left open
    assert words.figure_alt("short", limit=3) == "sh…"


def _figure(meta: dict) -> dict:
    return {"cell_type": "code", "metadata": meta, "source": "plot()", "outputs": [], "execution_count": None}


def test_render_cells_gives_each_figure_its_alt_text_and_keeps_one_given():
    source = [_figure({"mystnb": {"figure": {"caption": CAPTION, "name": "fig-a"}}}),
              _figure({"mystnb": {"figure": {"caption": "B.", "name": "fig-b"},
                                  "image": {"alt": "Mine.", "width": "80%"}}}),
              _figure({"mystnb": {"figure": {"caption": "C.", "name": "fig-c"}, "image": {"width": "50%"}}}),
              _figure({"mystnb": {"figure": {"name": "fig-d"}}}),
              _figure({"tags": ["hide-input"]}),
              {"cell_type": "markdown", "metadata": {}, "source": "Words."}]
    before = copy.deepcopy(source)
    executed = [dict(copy.deepcopy(c), metadata={"execution": {"t": 1}}) for c in source if c["cell_type"] == "code"]
    cells = words.render_cells(source, executed, name="toy")
    assert source == before  # the source is not changed
    image = [c["metadata"].get("mystnb", {}).get("image") for c in cells[:5]]
    assert image == [{"alt": words.figure_alt(CAPTION)}, {"alt": "Mine.", "width": "80%"},
                     {"width": "50%", "alt": "C."}, None, None]
    assert all(c["metadata"]["execution"] == {"t": 1} for c in cells[:5])
    assert cells[4]["metadata"]["tags"] == ["hide-input"]
    assert words.with_figure_alt({"mystnb": {"figure": {"caption": "X."}, "image": {"alt": ""}}}) \
        == {"mystnb": {"figure": {"caption": "X."}, "image": {"alt": ""}}}  # an empty alt given is kept


# -- what check and render make of copies rendered before alt texts ---------------------------
def _repo(root: Path, figure_meta: dict) -> tuple[Path, Path]:
    """notebooks/toy.ipynb and book/toy.ipynb as an older renderer left it: current numbers, no alt
    text, words stamped by another renderer; no kernel involved."""
    (root / "notebooks").mkdir(parents=True)
    (root / "book").mkdir()
    (root / "_toc.yml").write_text("format: jb-book\nroot: intro\n")
    (root / "notebooks" / "profiles.yml").write_text("toy:\n  small: {}\n  full: {}\n")
    params = nbformat.v4.new_code_cell('profile = "small"')
    params.metadata["tags"] = ["parameters"]
    figure = nbformat.v4.new_code_cell("plot()")
    figure.metadata.update(copy.deepcopy(figure_meta))
    src = nbformat.v4.new_notebook(cells=[params, figure, nbformat.v4.new_markdown_cell("Words.")])
    nbformat.write(src, root / "notebooks" / "toy.ipynb")
    book = copy.deepcopy(src)
    book.cells[0].metadata["tags"].append("hide-cell")
    book.cells[1].outputs = [nbformat.v4.new_output("display_data", data={"image/png": "iVBORw0KGgo=",
                                                                               "text/plain": "<Figure>"})]
    book.metadata["mtlib"] = {"profile": "full", "parameters": {}, "overrides": {},
                              "code_sha256": nbr.code_hash(src, {}), "words_sha256": "rendered by an older renderer",
                              "ran_with": {"hash": provenance.HASH, "code": {}, "libraries": {}}}
    book.metadata["mtlib"]["executed_hash"] = nbr.EXECUTED_HASH_VERSION  # stamped as the runner stamps
    book.metadata["mtlib"]["executed_sha256"] = nbr.executed_hash(book)
    nbformat.write(book, root / "book" / "toy.ipynb")
    return root / "book", root / "notebooks"


@pytest.mark.parametrize("given", [None, "An alt text of my own."])
def test_a_copy_without_alt_texts_is_stale_words_and_render_adds_them(tmp_path, given):
    meta = {"mystnb": {"figure": {"caption": CAPTION, "name": "fig-toy"}}}
    if given is not None:
        meta["mystnb"]["image"] = {"alt": given}
    book, notebooks = _repo(tmp_path, meta)
    [problem] = nbr.check_book(book, notebooks)
    assert problem.startswith("toy: stale words: ") and "python -m mtbook render --only toy" in problem
    assert nbr.render_words(book_dir=book, notebook_dir=notebooks) == ["toy"]
    assert nbr.check_book(book, notebooks) == []
    nb = json.loads((book / "toy.ipynb").read_text())
    figure = nb["cells"][1]
    assert figure["metadata"]["mystnb"]["image"] == {"alt": given or words.figure_alt(CAPTION)}
    assert figure["metadata"]["mystnb"]["figure"] == meta["mystnb"]["figure"]
    assert figure["outputs"][0]["data"]["image/png"] == "iVBORw0KGgo="
    assert nb["metadata"]["mtlib"]["code_sha256"] == nbr.code_hash(nbr.read_notebook(notebooks / "toy.ipynb"), {})
    # the alt text is on the page, so a hand edit of it is an edit, as a caption's is
    figure["metadata"]["mystnb"]["image"]["alt"] = "A forged alt text."
    (book / "toy.ipynb").write_text(json.dumps(nb))
    assert nbr.check_book(book, notebooks) == ["toy: its cells or outputs were edited after it was executed"]
