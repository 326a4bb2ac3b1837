"""An evaluation set from a plain folder of files: layout, human scores and every error."""

from __future__ import annotations

import pytest

from conftest import REF, REF_B, SRC, SYSTEMS, write_lines

import mtlib
from mtlib.plain_folder import load_folder


def make_folder(root, *, sys_scores="system\tscore\nsysA\t0.5\nsysB\t0.1\nsysC\t-0.4\n", seg_scores=None):
    write_lines(root / "source.txt", SRC)
    write_lines(root / "references" / "refB.txt", REF_B)
    write_lines(root / "references" / "ref.txt", REF)
    for name, lines in SYSTEMS.items():
        write_lines(root / "systems" / f"{name}.txt", lines)
    if sys_scores is not None:
        (root / "human-sys.tsv").write_text(sys_scores, encoding="utf-8")
    if seg_scores is not None:
        (root / "human-seg.csv").write_text(seg_scores, encoding="utf-8")
    return root


def test_folder_loads_with_human_scores(tmp_path):
    seg = "system,segment,score\nsysA,1,0.9\nsysA,4,0.2\nsysB,2,-1\n"
    evs = load_folder(make_folder(tmp_path / "mine", seg_scores=seg), "de-en")
    assert evs.name.startswith("mine") and evs.std_ref == "ref" and sorted(evs.refs) == ["ref", "refB"]
    assert evs.mt_systems == ["sysA", "sysB", "sysC"] and evs.src == SRC
    assert evs.human_sys() == {"sysA": 0.5, "sysB": 0.1, "sysC": -0.4}
    assert evs.human_seg() == {"sysA": [0.9, None, None, 0.2], "sysB": [None, -1.0, None, None]}
    bleu = mtlib.score_systems(evs, mtlib.get_metric("BLEU")).system_scores()
    assert bleu["sysA"] == pytest.approx(100.0)
    assert mtlib.correlate(bleu, evs.human_sys(), "pearson").value > 0.5


def test_folder_without_human_scores_or_source(tmp_path):
    root = make_folder(tmp_path / "bare", sys_scores=None)
    (root / "source.txt").unlink()
    evs = load_folder(root, "de-en", test_set="toy")
    assert evs.human == {} and evs.src == [""] * len(REF) and evs.name.startswith("toy")


@pytest.mark.parametrize("table, text, message", [
    ("sys_scores", "system\tscore\nsysZ\t1\n", r"human-sys.tsv, row 2: unknown system 'sysZ'"),
    ("sys_scores", "system\tscore\nsysA\t1\nsysA\t2\n", r"row 3: a second score for system 'sysA'"),
    ("sys_scores", "system\tscore\nsysA\tgood\n", r"row 2: score 'good' is not a number"),
    ("sys_scores", "name\tvalue\nsysA\t1\n", r"needs a header with the columns \['system', 'score'\]"),
    ("seg_scores", "system,segment,score\nsysA,5,1\n", r"human-seg.csv, row 2: segment 5 is outside lines 1..4"),
    ("seg_scores", "system,segment,score\nsysA,first,1\n", r"row 2: segment 'first' is not a line number"),
    ("seg_scores", "system,segment,score\nsysA,1,1\nsysA,1,2\n", r"row 3: a second score for system 'sysA', segment 1"),
])
def test_bad_human_scores_are_named(tmp_path, table, text, message):
    with pytest.raises(ValueError, match=message):
        load_folder(make_folder(tmp_path / "f", **{table: text}), "de-en")


def test_missing_parts_and_mismatched_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_folder(tmp_path / "nowhere", "de-en")
    root = make_folder(tmp_path / "f")
    write_lines(root / "systems" / "sysD.txt", ["one line"])
    with pytest.raises(ValueError, match="sysD.txt"):
        load_folder(root, "de-en")
    empty = tmp_path / "empty"
    (empty / "systems").mkdir(parents=True)
    with pytest.raises(FileNotFoundError, match="no system outputs"):
        load_folder(empty, "de-en")
    both = make_folder(tmp_path / "both")
    (both / "human-sys.csv").write_text("system,score\n", encoding="utf-8")
    with pytest.raises(ValueError, match="both human-sys.tsv and human-sys.csv exist"):
        load_folder(both, "de-en")


def test_shipped_example_folder_loads():
    evs = mtlib.load_folder(mtlib.example_folder(), "de-en")
    assert (evs.n_segments, len(evs.mt_systems), list(evs.refs)) == (40, 8, ["ref", "paraphrase"])
    assert all(v is not None for v in evs.human_sys().values())
    assert all(len(v) == 40 for v in evs.human_seg().values())
    with pytest.raises(ValueError, match="unknown example folder 'toy'; examples: \\['toy-de-en'\\]"):
        mtlib.example_folder("toy")


def test_example_generator_reproduces_the_shipped_folder(tmp_path):
    from mtbook import toy_folder
    toy_folder.main(tmp_path)
    shipped = mtlib.example_folder()
    for path in sorted(p for p in tmp_path.rglob("*") if p.is_file()):
        assert path.read_bytes() == (shipped / path.relative_to(tmp_path)).read_bytes(), path.name


def test_names_keep_their_dots_and_colliding_names_are_refused(tmp_path):
    # WMT file names carry dots: only ".txt" is stripped, so these two stay two systems
    root = make_folder(tmp_path / "wmt", sys_scores="system\tscore\nMSRA.MASS.6942\t0.3\nMSRA.MASS.6996\t0.2\n")
    for name in ("sysA", "sysB", "sysC"):
        (root / "systems" / f"{name}.txt").rename(root / "systems" / f"{name}.v1.0.txt")
    write_lines(root / "systems" / "MSRA.MASS.6942.txt", SYSTEMS["sysA"])
    write_lines(root / "systems" / "MSRA.MASS.6996.txt", SYSTEMS["sysB"])
    (root / "references" / "refB.txt").rename(root / "references" / "refB.para.txt")
    evs = load_folder(root, "de-en")
    assert evs.mt_systems == ["MSRA.MASS.6942", "MSRA.MASS.6996", "sysA.v1.0", "sysB.v1.0", "sysC.v1.0"]
    assert list(evs.refs) == ["ref", "refB.para"] and evs.std_ref == "ref"
    assert evs.human_sys() == {"MSRA.MASS.6942": 0.3, "MSRA.MASS.6996": 0.2, "sysA.v1.0": None,
                               "sysB.v1.0": None, "sysC.v1.0": None}
    assert evs.outputs["MSRA.MASS.6996"] == SYSTEMS["sysB"]
    write_lines(root / "systems" / "ref.txt", REF)  # a system named like a reference
    with pytest.raises(ValueError, match=r"\['ref'\] name both a system \(systems/\) and a reference"):
        load_folder(root, "de-en")


def test_a_score_table_with_a_byte_order_mark_loads(tmp_path):
    # spreadsheet programs write a UTF-8 BOM (and CRLF line ends); the header is still "system"
    root = make_folder(tmp_path / "bom", sys_scores=None)
    (root / "human-sys.tsv").write_bytes("\ufeffsystem\tscore\r\nsysA\t0.5\r\nsysB\t0.1\r\n".encode("utf-8"))
    (root / "human-seg.csv").write_bytes("\ufeffsystem,segment,score\r\nsysC,2,0.7\r\n".encode("utf-8"))
    with pytest.warns(UserWarning) as caught:
        evs = load_folder(root, "de-en")
    assert sorted(str(w.message).split("/")[-1] for w in caught) == [
        "human-seg.csv: removed the UTF-8 byte-order mark at the start of the file",
        "human-sys.tsv: removed the UTF-8 byte-order mark at the start of the file"]
    assert evs.human_sys() == {"sysA": 0.5, "sysB": 0.1, "sysC": None}
    assert evs.human_seg() == {"sysC": [None, 0.7, None, None]}


@pytest.mark.parametrize("name", ["human-seg.tsv", "human-sys.tsv", "systems/sysB.txt"])
def test_a_file_that_is_not_utf8_is_named(tmp_path, name):
    root = make_folder(tmp_path / "latin1")
    texts = {"human-seg.tsv": "system\tsegment\tscore\nsysA\t1\t0.5\n# Müller\n",
             "human-sys.tsv": "system\tscore\nsysA\t0.5\n", "systems/sysB.txt": "\n".join(SYSTEMS["sysB"]) + "\n"}
    (root / name).write_bytes(texts[name].replace("\n", "é\n", 1).encode("latin-1"))
    with pytest.raises(ValueError, match=rf"{name}: not UTF-8 text \(line 1, byte 0xe9"):
        load_folder(root, "de-en")
