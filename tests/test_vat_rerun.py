"""The variance-aware chapter rerun on another test set reads true of that run (issue 22).

The small profile is rerun on WMT18 de-en and en-de with nothing else given: the sets of the
later sections (precision check, ablations, analyses, Table 4) must follow the run's data
instead of staying on the book's WMT19, and the executed page (markdown rendered over the
published findings, and every output) must not name WMT19 run keys, show ``nan``, or say that a
set of the run is missing.
"""

import re

import pytest

from mtbook import runner as nbr

from conftest import page_text, requires_data


def leftovers(markdown: str, outputs: str) -> list[str]:
    """The book's WMT19 data named as data of this run (run keys are lower case: "wmt19 de-en";
    "WMT19" in capitals names the paper's data), ``nan``, and sets said to be missing."""
    found = []
    for pattern, text in [(r"\bnan\b", markdown + outputs), (r"wmt19", outputs), (r"not in this run", outputs),
                          (r"WMT17's text", markdown)]:
        found += [f"{pattern!r}: …{text[max(0, m.start() - 60):m.end() + 60]}…" for m in re.finditer(pattern, text)]
    return found


def test_leftovers_catch_the_old_sentences():
    assert leftovers("", "*Analysis sets not in this run: ['wmt19 de-en'].*")
    assert leftovers("WMT17's text here is lowercased", "") and leftovers("", "wmt19 (ablations)")
    assert leftovers("Freitag et al. (2020) paraphrased the WMT19 en-de reference", "wmt18 de-en") == []


@requires_data
@pytest.mark.data
@pytest.mark.slow
def test_rerun_on_wmt18_follows_the_run(tmp_path):
    out = nbr.run_notebook("variance_aware_test_sets", "small", tmp_path,
                           extra_parameters={"test_sets": ["wmt18"], "language_pairs": ["de-en", "en-de"],
                                             "n_segments": 120, "n_random": 50, "n_resamples": 50,
                                             "baseline_pairs": 500})
    assert nbr.output_problems(out) == []
    markdown, outputs = page_text(out)
    markdown = " ".join(markdown.split())  # the templates wrap their lines where they like
    assert leftovers(markdown, outputs) == []
    assert "run on other sets here**: WMT18 (ablations) and WMT18 de-en and en-de (analyses)." in markdown
    assert "The text of WMT18 is as WMT released it (cased, untokenised)." in markdown
    assert "bf16 against fp32: overlap of the kept sets" in outputs  # the precision check ran, on wmt18 de-en
    assert "this run's ablation test set, WMT18, below" in markdown
    assert "No paraphrased reference `refWMTp` for wmt18 en-de in this data." in markdown
    assert "BLEU tokenized `intl` into de and `intl` into en." in markdown  # the paper's BLEU (intl; zh into Chinese)
    assert "UTF-8 byte-order mark" not in outputs  # the BOM warning is filtered; the data note says so


@requires_data
@pytest.mark.data
@pytest.mark.slow
def test_rerun_without_the_released_sets_says_so_and_shows_no_nan(tmp_path, monkeypatch):
    # A data root with mt-metrics-eval but no vat-release/: the released rows are left out, not nan
    from mtlib.paths import data_root
    root = tmp_path / "data"
    root.mkdir()
    (root / "mt-metrics-eval").symlink_to(data_root() / "mt-metrics-eval")
    monkeypatch.setenv("MTLIB_DATA", str(root))
    out = nbr.run_notebook("variance_aware_test_sets", "small", tmp_path / "run",
                           extra_parameters={"test_sets": ["wmt18"], "language_pairs": ["de-en"],
                                             "n_segments": 120, "n_random": 50, "n_resamples": 50,
                                             "baseline_pairs": 500})
    assert nbr.output_problems(out) == []
    markdown, outputs = page_text(out)
    markdown = " ".join(markdown.split())
    assert leftovers(markdown, outputs) == []
    assert "The data root has no `vat-release/` folder" in markdown
    assert "This run has no released set to compare with." in markdown
    assert not re.search(r"nan \(released\)|\(released\)[^.]{0,40}\bnan\b", markdown + outputs)
