"""The command line as a sacreBLEU user expects it: ``-`` for standard input, several metrics in
one call, ``--version``, ``nrefs`` in signatures, ``mtlib score`` on a plain folder, one error line
for a missing optional package, and quiet ends when the reader of stdout leaves early."""

import io
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from mtlib import cli
from mtlib.score_files import main as files_main
from mtlib.version import __version__

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "hyp.txt").write_text("a a b\nx y\n")
    (tmp_path / "ref.txt").write_text("a b c\nx y z\n")
    (tmp_path / "ref2.txt").write_text("a a b c\nx y\n")
    return tmp_path


def _stdin(monkeypatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8"))


# 1. "-" reads standard input ------------------------------------------------------------------
def test_dash_reads_the_hypothesis_or_a_reference_from_standard_input(files, capsys, monkeypatch):
    hyp, ref = str(files / "hyp.txt"), str(files / "ref.txt")
    assert files_main(["--metric", "BLEU", "--hyp", hyp, "--ref", ref]) == 0
    from_files = capsys.readouterr().out
    _stdin(monkeypatch, (files / "hyp.txt").read_text())
    assert files_main(["--metric", "BLEU", "--hyp", "-", "--ref", ref]) == 0
    assert capsys.readouterr().out == from_files
    _stdin(monkeypatch, (files / "ref.txt").read_text())
    assert files_main(["--metric", "BLEU", "--hyp", hyp, "--ref", "-"]) == 0
    assert capsys.readouterr().out == from_files


def test_dash_twice_and_a_short_standard_input_are_named(files, capsys, monkeypatch):
    _stdin(monkeypatch, "a a b\nx y\n")
    assert files_main(["--metric", "BLEU", "--hyp", "-", "--ref", "-"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --hyp and --ref: '-' (standard input) can be read only once") and err.count("\n") == 1
    _stdin(monkeypatch, "a a b\n")
    assert files_main(["--metric", "BLEU", "--hyp", "-", "--ref", str(files / "ref.txt")]) == 2
    assert "ref.txt: 2 lines, but standard input (-) has 1" in capsys.readouterr().err


# 2. several metrics in one call -------------------------------------------------------------
def test_several_metrics_print_one_line_each_in_the_order_given(files, capsys):
    base = ["--hyp", str(files / "hyp.txt"), "--ref", str(files / "ref.txt")]
    singles = []
    for name in ("TER", "BLEU", "chrF"):
        assert files_main(["--metric", name, *base]) == 0
        singles.append(capsys.readouterr().out)
    assert files_main(["--metric", "TER", "bleu", "--metric", "chrF", *base]) == 0  # nargs and repeated
    lines = capsys.readouterr().out.splitlines(keepends=True)
    assert lines == singles
    assert [line.split("\t")[1].split("|")[0] for line in lines] == ["TER", "BLEU", "chrF"]


def test_several_metrics_per_sentence_print_one_column_each(files, capsys):
    base = ["--sentences", "--hyp", str(files / "hyp.txt"), "--ref", str(files / "ref.txt")]
    columns = []
    for name in ("chrF", "Otem"):
        assert files_main(["--metric", name, *base]) == 0
        columns.append(capsys.readouterr().out.split())
    assert files_main(["--metric", "chrF", "Otem", *base]) == 0
    assert [line.split("\t") for line in capsys.readouterr().out.splitlines()] == [list(r) for r in zip(*columns)]


@pytest.mark.parametrize("metrics, message", [
    (["BLEU", "bleu"], "--metric: BLEU given more than once"),
    (["BLEU", "Nope"], "unknown metric 'Nope'"),
])
def test_several_metrics_errors(files, capsys, metrics, message):
    assert files_main(["--metric", *metrics, "--hyp", str(files / "hyp.txt"), "--ref", str(files / "ref.txt")]) == 2
    assert message in capsys.readouterr().err


# 3. --version -------------------------------------------------------------------------------
def test_version(capsys):
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out == f"mtlib {__version__}\n"
    with pytest.raises(SystemExit) as exit_:
        files_main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out == f"mtlib {__version__}\n"


# 4. nrefs in signatures ---------------------------------------------------------------------
def test_signatures_name_the_number_of_references(files, capsys, tiny_mtme):
    import sacrebleu

    from mtlib.data import load_evalset
    from mtlib.metrics import BLEU
    from mtlib.scoring import score_systems, stats_key
    base = ["--metric", "BLEU", "--hyp", str(files / "hyp.txt"), "--ref", str(files / "ref.txt")]
    assert files_main(base) == 0
    one = capsys.readouterr().out.strip().split("\t")[1]
    assert files_main(base + [str(files / "ref2.txt")]) == 0
    two = capsys.readouterr().out.strip().split("\t")[1]
    assert one.endswith("|nrefs:1") and two.endswith("|nrefs:2") and one.removesuffix("1") == two.removesuffix("2")
    theirs = sacrebleu.BLEU()
    theirs.corpus_score(["a b"], [["a b"]])
    assert "nrefs:1|" in str(theirs.get_signature())  # sacreBLEU's own name for it

    evs = load_evalset("toy", "de-en", root=tiny_mtme)
    stats = score_systems(evs, BLEU(), ref_names=["ref", "refB"], cache=False)
    assert stats.signature == f"{BLEU().signature}|nrefs:2|refs:ref+refB"
    assert stats.sentence_signature == f"{BLEU().sentence_signature}|nrefs:2|refs:ref+refB"
    # The metric's own signature, which keys the statistics cache, has no nrefs: keys are unchanged.
    assert "nrefs" not in BLEU().signature and stats_key(BLEU(), ["a"], [["a"]]) == stats_key(BLEU(), ["a"], [["a"]])


# 5. mtlib score on a plain folder -----------------------------------------------------------
def test_score_a_plain_folder_without_a_data_root(tmp_path, capsys, monkeypatch):
    import mtlib
    from mtlib.examples import EXAMPLES, example_folder
    for name in ("MTLIB_DATA", "MTLIB_MTME"):
        monkeypatch.setenv(name, "")  # as test_wheel: no data root anywhere
    folder = example_folder()
    args = ["score", "--folder", str(folder), "--lp", EXAMPLES[folder.name], "--metric", "chrF", "--no-progress"]
    assert cli.main(args) == 0
    got = pd.read_csv(io.StringIO(capsys.readouterr().out), sep="\t").set_index("system")
    want = mtlib.score_systems(mtlib.load_folder(folder, "de-en"), mtlib.get_metric("chrF"))
    assert sorted(got.index) == sorted(want.system_scores()) and len(got) == 8
    for system, score in want.system_scores().items():
        assert got.loc[system, "chrF"] == pytest.approx(score, abs=1e-6)
    assert (got["signature"] == want.signature).all() and (got["test_set"] == "toy-de-en").all()

    assert cli.main(args + ["--segments", "5", "--shard", "1/2", "--ref", "paraphrase", "--out",
                            str(tmp_path / "out.tsv")]) == 0
    out = pd.read_csv(tmp_path / "out.tsv", sep="\t")
    assert len(out) == 4 and (out["segments"] == 5).all() and out["signature"].str.endswith("|refs:paraphrase").all()


@pytest.mark.parametrize("extra, message", [
    ([], "--folder holds one language pair: give it with --lp, e.g. --lp de-en (got 'all')"),
    (["--lp", "de-en", "--ref", "nosuch"], "unknown reference 'nosuch' in"),
    (["--lp", "de-en", "--mtme", "x"], "--mtme is the folder of --test-set"),
])
def test_score_a_plain_folder_errors(capsys, extra, message):
    from mtlib.examples import example_folder
    assert cli.main(["score", "--folder", str(example_folder()), "--metric", "BLEU", "--no-progress", *extra]) == 2
    assert message in capsys.readouterr().err


# 6. an optional package that is not installed -----------------------------------------------
def _without(module: str, argv: list[str]) -> subprocess.CompletedProcess:
    """``mtlib ARGV`` in a process where ``module`` cannot be imported (as without its extra)."""
    code = f"import sys; sys.modules[{module!r}] = None; from mtlib.cli import main; sys.exit(main({argv!r}))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("metric, module, line", [
    ("BERTScore", "torch", 'error: BERTScore-F needs torch: pip install "mtlib[ml]"'),
    ("SCM", "gensim", 'error: SCM needs gensim: pip install "mtlib[nlp]"'),
    ("WMD", "gensim", 'error: WMD needs gensim: pip install "mtlib[nlp]"'),
])
def test_a_missing_extra_is_one_error_line(files, metric, module, line):
    got = _without(module, ["files", "--metric", metric, "--hyp", str(files / "hyp.txt"), "--ref", str(files / "ref.txt")])
    assert (got.returncode, got.stderr, got.stdout) == (2, line + "\n", "")


def test_mtlib_score_without_torch_is_one_error_line():
    from mtlib.examples import example_folder
    got = _without("torch", ["score", "--folder", str(example_folder()), "--lp", "de-en", "--no-progress"])
    assert got.returncode == 2 and got.stderr.splitlines()[-1] == 'error: BERTScore needs torch: pip install "mtlib[ml]"'
    assert "Traceback" not in got.stderr


def test_meteor_without_wordnet_is_one_error_line(files, capsys, monkeypatch):
    monkeypatch.setattr("mtlib.wordnet._nltk_has_wordnet", lambda: False)
    monkeypatch.setattr("mtlib.wordnet._source_dir", lambda: None)
    assert files_main(["--metric", "METEOR", "--hyp", str(files / "hyp.txt"), "--ref", str(files / "ref.txt")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: METEOR needs WordNet, which was not found. Install it with") and err.count("\n") == 1


# 7. the reader of stdout leaves early -------------------------------------------------------
def test_output_into_a_reader_that_leaves_early_ends_quietly(tmp_path):
    # Far more than a pipe holds (64 KiB), so that writing goes on after the reader has gone.
    (tmp_path / "hyp.txt").write_text("a b c\n" * 20000)
    (tmp_path / "ref.txt").write_text("a b d\n" * 20000)
    writer = subprocess.Popen([sys.executable, "-m", "mtlib", "files", "--metric", "chrF", "--sentences",
                               "--hyp", str(tmp_path / "hyp.txt"), "--ref", str(tmp_path / "ref.txt")],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    reader = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.readline()"], stdin=writer.stdout)
    writer.stdout.close()  # only the reader holds the pipe now
    assert reader.wait(timeout=300) == 0
    err = writer.stderr.read()
    assert writer.wait(timeout=300) == 1 and err == b""


# tqdm ---------------------------------------------------------------------------------------
def test_tqdm_is_a_declared_dependency():
    uses = [p for p in (ROOT / "mtlib").rglob("*.py") if re.search(r"^\s*(from|import) tqdm\b", p.read_text(), re.M)]
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert uses and any(re.match(r"tqdm\b", d) for d in declared)
