"""Each chapter rerun on other data reads true of that run (issue 22).

A chapter's small profile is rerun on a test set the book does not use for it, and the
executed page, as a reader sees it (markdown with every glued value put in, and every output),
is checked for the book's own data named as data of the run, for ``nan``, and for the
sentences that the run must have. (The difficulty-aware and variance-aware chapters have
their own files: test_difficulty_rerun.py, test_vat_rerun.py.)
"""

import re

import pytest

from mtbook import runner as nbr

from conftest import page_text, requires_data


def found(patterns: list[str], text: str, flags=0) -> list[str]:
    """Each match of ``patterns`` in ``text`` with 60 characters around it."""
    return [f"{p!r}: …{text[max(0, m.start() - 60):m.end() + 60]}…" for p in patterns
            for m in re.finditer(p, text, flags=flags)]


def rerun_page(name: str, out_dir, parameters: dict) -> tuple[str, str]:
    """Runs chapter ``name``'s small profile with ``parameters`` into ``out_dir``, checks that it
    ran without an error output, and returns its page as (markdown with glue, outputs)."""
    out = nbr.run_notebook(name, "small", out_dir, extra_parameters=parameters)
    assert nbr.output_problems(out) == []
    return page_text(out)


def test_found_names_each_match_in_context():
    assert found([r"\bnan\b", "wmt19"], "r = nan on wmt19 de-en") == [
        "'\\\\bnan\\\\b': …r = nan on wmt19 de-en…", "'wmt19': …r = nan on wmt19 de-en…"]
    assert found([r"\bnan\b"], "the nano model") == []


@requires_data
@pytest.mark.data
@pytest.mark.slow
def test_baselines_rerun_on_wmt18(tmp_path):
    markdown, outputs = rerun_page("wmt19_baselines", tmp_path,
                                   {"test_set": "wmt18", "language_pairs": ["de-en"], "n_resamples": 100})
    # the book's WMT19 data as data of this run: in the outputs as run keys (lower case; "WMT19" in
    # capitals names the paper's data), in the prose as the book's old fixed sentences
    assert found([r"\bnan\b", r"newstest2019", r"of 22 for en-de|en-de has"], markdown + outputs) == []
    assert found([r"wmt19"], outputs) == []
    assert "WMT18 newstest2018 sources, references and system outputs for de-en" in markdown
    assert "highest human score\n(in this run 4 of 16 for de-en)" in markdown
    assert "Data: wmt18 de-en from the WMT18 news and metrics tasks (Bojar et al. 2018; Ma et al. 2018)" in markdown
    assert "Correlation with the human scores (wmt18, not in the paper, whose Table 1 is WMT19)" in outputs
    assert "|r| paper" not in outputs  # no empty paper columns
    assert "this run (wmt18, de-en) has no counterpart, so it is skipped" in outputs


@requires_data
@pytest.mark.data
@pytest.mark.slow
def test_otem_utem_rerun_on_ted_and_wmt18(tmp_path):
    markdown, outputs = rerun_page("otem_utem", tmp_path, {
        "human_translations": ["wmt21.tedtalks zh-en refB"], "mqm_sets": ["wmt21.tedtalks en-de"],
        "table_set": "wmt18 de-en", "table_refs": ["ref"], "n_resamples": 50})
    assert found([r"\bnan\b", r"WMT19's best", r"1 omissions", r"1\.0 times"], markdown + outputs) == []
    assert found([r"wmt19", r"refAR"], outputs) == []
    data = ("wmt21.tedtalks zh-en and en-de from the WMT21 metrics task, TED talks, expert MQM (Freitag et al. 2021); "
            "wmt18 de-en from the WMT18 news and metrics tasks (Bojar et al. 2018; Ma et al. 2018); the first 200 "
            "segments of each, or all of a shorter one")
    assert "The sets this page ran on are listed at the end of its Conclusion." in markdown
    assert f"Data: {data}. Paper: Yang et al. 2018." in markdown
    assert "With one reference, as in this run, the authors' script and the paper's equations give the same" in markdown
    assert "the 16 MT systems of wmt18 de-en" in markdown


def write_plain_folder(evs, folder, *, no_segment_scores=()) -> None:
    """An mt-metrics-eval evaluation set as a plain own-data folder (``mtlib.load_folder``'s
    layout): source, standard reference, MT systems, and the human scores that exist (none at
    the segment level for the systems ``no_segment_scores``)."""
    def write(path, lines):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")

    write(folder / "source.txt", evs.src)
    write(folder / "references" / "ref.txt", evs.refs[evs.std_ref])
    for system in evs.mt_systems:
        write(folder / "systems" / f"{system}.txt", evs.outputs[system])
    write(folder / "human-sys.tsv", ["system\tscore"] + [f"{s}\t{v}" for s, v in evs.human_sys().items()
                                                         if v is not None and s in evs.mt_systems])
    write(folder / "human-seg.tsv", ["system\tsegment\tscore"] + [
        f"{s}\t{i}\t{v}" for s, values in evs.human_seg().items() if s in evs.mt_systems and s not in no_segment_scores
        for i, v in enumerate(values, start=1) if v is not None])


@requires_data
@pytest.mark.data
@pytest.mark.slow
def test_own_data_rerun_on_real_wmt_files(tmp_path):
    import mtlib

    evs = mtlib.load_evalset("wmt17", "de-en").head(120)
    folder = tmp_path / "wmt17-de-en"
    write_plain_folder(evs, folder, no_segment_scores=["online-A.0"])  # as a folder may lack some
    markdown, outputs = rerun_page("own_data", tmp_path / "run", {
        "folder": str(folder), "language_pair": "de-en", "n_resamples": 50, "n_random": 50, "n_permutations": 200})
    assert found([r"\bnan\b", r"ships with mtlib", r"toy-de-en", r"fall below 0\.000"], markdown + outputs) == []
    assert f"the folder `{folder}` (parameter `folder`, language pair de-en): 120 segments, 11 systems" in markdown
    assert "MSRA" not in outputs and "RWTH-nmt-ensemble.4920" in outputs  # WMT names keep their dots
    assert ("Segment scores cover 10 of the 11 systems: online-A.0 has none and is left out of the segment-level "
            "correlations.") in markdown


@requires_data
@pytest.mark.data
@pytest.mark.slow
def test_regemt_rerun_on_the_ted_sets(tmp_path):
    markdown, outputs = rerun_page("regemt", tmp_path, {
        "mqm_sets": ["wmt21.tedtalks zh-en", "wmt21.tedtalks en-de"], "table2_set": "wmt21.tedtalks zh-en",
        "n_segments": 40, "da_train": None, "critical_pairs": [], "split_seeds": [1], "ensemble_seeds": [42],
        "n_resamples": 30, "n_repeats": 1, "n_permutations": 50})
    assert found([r"\bnan\b", r"n/a", r"we use the\s+newstest2021"], markdown + outputs) == []
    assert found([r"wmt21\.news"], outputs) == []
    assert "The paper has no RegEMT value for these sets, so no difference to it is measured." in markdown
    assert "MQM sets wmt21.tedtalks zh-en, wmt21.tedtalks en-de" in markdown  # the run settings, as words
    assert "DA: off" in markdown and "critical errors: off" in markdown
