import pytest

from mtlib import paths
from mtlib.data import list_evalsets, load_evalset

from conftest import HUMAN_SYS, REF, SRC, SYSTEMS, requires_data, write_lines


def test_load_tiny(tiny_mtme):
    evs = load_evalset("toy", "de-en", root=tiny_mtme)
    assert evs.src == SRC and evs.refs["ref"] == REF
    assert evs.mt_systems == sorted(SYSTEMS)
    assert evs.ref_systems == {"ref", "refB"}
    assert evs.std_ref == "ref"  # several references: "ref" when present
    assert evs.human_sys() == {s: HUMAN_SYS[s] for s in SYSTEMS}
    assert evs.human_seg()["sysA"][1] is None
    assert evs.docs == ["doc1", "doc1", "doc2", "doc2"]
    assert list_evalsets(tiny_mtme) == {"toy": ["de-en"]}
    assert evs.unread_human_files == []


def test_other_levels_are_listed_not_parsed(tiny_mtme):
    write_lines(tiny_mtme / "toy" / "human-scores" / "de-en.wmt-z.doc.score", ["sysA doc1 0.3"])
    evs = load_evalset("toy", "de-en", root=tiny_mtme)
    assert evs.unread_human_files == ["de-en.wmt-z.doc.score"]
    assert evs.select([0]).unread_human_files == ["de-en.wmt-z.doc.score"]


def test_select_and_head(tiny_mtme):
    evs = load_evalset("toy", "de-en", root=tiny_mtme)
    sub = evs.select([2, 0])
    assert sub.src == [SRC[2], SRC[0]] and sub.segment_ids == [2, 0]
    assert sub.human_seg()["sysB"] == [pytest.approx(0.2), 0.0]
    assert sub.human_sys() == evs.human_sys()
    assert evs.head(2).n_segments == 2 and evs.head(None) is evs and evs.head(99).n_segments == 4
    with pytest.raises(ValueError, match="out of range"):
        evs.select([4])
    with pytest.raises(ValueError, match="n must be"):
        evs.head(0)


def test_file_without_final_newline(tiny_mtme):
    path = tiny_mtme / "toy" / "system-outputs" / "de-en" / "sysC.txt"
    path.write_text("a\nb\n\nd", encoding="utf-8")  # empty third line, no final newline
    assert load_evalset("toy", "de-en", root=tiny_mtme).outputs["sysC"] == ["a", "b", "", "d"]


def test_unknown_test_set_and_lp(tiny_mtme):
    with pytest.raises(ValueError, match=r"unknown test set 'wmt99'; known: \['toy'\]"):
        load_evalset("wmt99", "de-en", root=tiny_mtme)
    with pytest.raises(ValueError, match=r"unknown language pair 'xx-yy' for toy; known: \['de-en'\]"):
        load_evalset("toy", "xx-yy", root=tiny_mtme)


def test_line_count_mismatch_names_file(tiny_mtme):
    write_lines(tiny_mtme / "toy" / "system-outputs" / "de-en" / "sysB.txt", ["only one"])
    with pytest.raises(ValueError, match=r"sysB\.txt: 1 lines, but the source has 4"):
        load_evalset("toy", "de-en", root=tiny_mtme)


@pytest.mark.parametrize("line, message", [
    ("sysX 0.1", "unknown system 'sysX'"),
    ("sysA", "expected 'SYSNAME SCORE'"),
    ("sysA abc", "neither a number nor None"),
])
def test_bad_human_scores(tiny_mtme, line, message):
    path = tiny_mtme / "toy" / "human-scores" / "de-en.wmt-z.sys.score"
    path.write_text(path.read_text() + line + "\n")
    with pytest.raises(ValueError, match=message):
        load_evalset("toy", "de-en", root=tiny_mtme)


def test_seg_block_of_wrong_length(tiny_mtme):
    path = tiny_mtme / "toy" / "human-scores" / "de-en.wmt-z.seg.score"
    path.write_text(path.read_text() + "sysC 0.5\n")
    with pytest.raises(ValueError, match=r"blocks must have 4 lines; got \{'sysC': 5\}"):
        load_evalset("toy", "de-en", root=tiny_mtme)


def test_unknown_std_ref(tiny_mtme):
    with pytest.raises(ValueError, match="unknown reference 'refZ'"):
        load_evalset("toy", "de-en", root=tiny_mtme, std_ref="refZ")


def test_missing_data_root_says_how_to_set_it(tmp_path, monkeypatch):
    monkeypatch.delenv(paths.DATA_ENV, raising=False)
    monkeypatch.delenv(paths.MTME_ENV, raising=False)
    monkeypatch.setattr(paths, "_default_data_candidates", lambda: [tmp_path / "nothing"])
    with pytest.raises(FileNotFoundError, match="Set MTLIB_DATA"):
        load_evalset("wmt19", "en-de")
    monkeypatch.setenv(paths.DATA_ENV, str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError, match="MTLIB_DATA=.* does not name an existing folder"):
        paths.data_root()


def test_env_points_at_mtme(tiny_mtme, monkeypatch):
    monkeypatch.setenv(paths.MTME_ENV, str(tiny_mtme))
    assert load_evalset("toy", "de-en").n_segments == 4


@requires_data
@pytest.mark.data
def test_wmt19_en_de_spot_values():
    # Values from the data README ("en-de human z (checked)") and its counts table.
    evs = load_evalset("wmt19", "en-de")
    assert evs.n_segments == 1997 and len(evs.mt_systems) == 22 and len(evs.refs) == 7
    h = evs.human_sys()
    assert h["Facebook_FAIR.6862"] == 0.347 and h["NEU.6763"] == 0.208
    assert load_evalset("wmt21.tedtalks", "zh-en").std_ref == "refB"
    gu = load_evalset("wmt19", "gu-en").human_sys()
    assert gu["online-B.0"] is None and sum(v is not None for v in gu.values()) == 11


def test_independent_references_follow_the_derivation_table(tiny_mtme):
    from mtlib.data import EvalSet
    refs = {r: ["x"] for r in ["ref", "refAR", "refARp", "refWMTp", "refHQR", "refHQP", "refHQall"]}
    evs = EvalSet("wmt19", "en-de", ["s"], refs, {}, {}, "ref")
    # The data README: WMT.p paraphrases ref, AR.p paraphrases AR, HQ(R) selects from ref/AR,
    # HQ(P) from the two paraphrases, HQ(all) from all four.
    assert evs.independent_references("ref") == ["refAR", "refARp"]
    assert evs.independent_references("refAR") == ["ref", "refWMTp"]
    assert evs.independent_references("refHQall") == []
    with pytest.raises(ValueError, match="unknown reference 'nope'"):
        evs.independent_references("nope")
    # Sets without a derivation table: every other reference is independent.
    assert load_evalset("toy", "de-en", root=tiny_mtme).independent_references("ref") == ["refB"]


def test_evalset_from_files_names_a_folder_given_as_a_file(tmp_path):
    from mtlib.data import evalset_from_files
    (tmp_path / "ref.txt").write_text("a\n")
    (tmp_path / "sysA").mkdir()
    with pytest.raises(IsADirectoryError, match="hypothesis file .*sysA is a folder, not a text file"):
        evalset_from_files([tmp_path / "sysA"], [tmp_path / "ref.txt"], lp="de-en")


def test_evalset_from_files_keeps_dotted_system_names(tmp_path):
    from mtlib.data import evalset_from_files
    (tmp_path / "newstest2019.ref.txt").write_text("a\nb\n")
    for name in ("MSRA.MASS.6942", "MSRA.MASS.6996", "Baidu-system.6940"):
        (tmp_path / f"{name}.txt").write_text("a\nc\n")
    hyps = sorted(tmp_path.glob("[MB]*.txt"))
    evs = evalset_from_files(hyps, [tmp_path / "newstest2019.ref.txt"], lp="de-en")
    assert evs.mt_systems == ["Baidu-system.6940", "MSRA.MASS.6942", "MSRA.MASS.6996"]
    assert evs.std_ref == "newstest2019.ref"


def test_evalset_repr_is_a_summary_not_the_segments(tiny_mtme):
    evs = load_evalset("toy", "de-en", root=tiny_mtme)
    text = repr(evs)
    assert text.startswith("EvalSet('toy de-en': 4 segments, ")
    assert "standard 'ref'" in text and "(sys)" in text and "(seg)" in text
    assert SRC[0] not in text and len(text) < 400


def test_sources_line_groups_pairs_by_test_set_each_with_its_citation():
    from mtbook.testsets import source, sources_line
    assert source("wmt18", ["de-en"]) == "wmt18 de-en from the WMT18 news and metrics tasks (Bojar et al. 2018; Ma et al. 2018)"
    line = sources_line(["wmt19 en-de", "wmt18 de-en", "wmt19 de-en", "toy de-en"])
    assert line == ("wmt19 en-de and de-en from the WMT19 news and metrics tasks (Barrault et al. 2019; Ma et al. 2019); "
                    "wmt18 de-en from the WMT18 news and metrics tasks (Bojar et al. 2018; Ma et al. 2018); "
                    "toy de-en")  # no citation known
