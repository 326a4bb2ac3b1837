import pytest

from mtlib.score_files import main


@pytest.fixture
def files(tmp_path):
    (tmp_path / "hyp.txt").write_text("a a b\nx y\n")
    (tmp_path / "ref.txt").write_text("a b c\nx y z\n")
    (tmp_path / "short.txt").write_text("a b c\n")
    return tmp_path


def test_corpus_score(files, capsys):
    assert main(["--metric", "Otem", "-o", "order=1", "-o", "tokenize=none",
                 "--hyp", str(files / "hyp.txt"), "--ref", str(files / "ref.txt")]) == 0
    score, signature = capsys.readouterr().out.strip().split("\t")
    # unigrams over-matched: 1 ("a") of 5 candidate unigrams; c = 5 < r = 6 -> LP 1
    assert float(score) == pytest.approx(0.2) and signature.startswith("Otem|n:1|tok:none")


def test_sentence_scores(files, capsys):
    assert main(["--metric", "Utem", "-o", "order=1", "--sentences",
                 "--hyp", str(files / "hyp.txt"), "--ref", str(files / "ref.txt")]) == 0
    assert len(capsys.readouterr().out.split()) == 2


@pytest.mark.parametrize("args, message", [
    (["--metric", "Otem", "--ref", "short.txt"], "short.txt: 1 lines, but .*hyp.txt has 2"),
    (["--metric", "Nope", "--ref", "ref.txt"], "unknown metric 'Nope'"),
    (["--metric", "Otem", "-o", "order=0", "--ref", "ref.txt"], "order must be an integer >= 1"),
    (["--metric", "Otem", "--ref", "missing.txt"], "no such file"),
])
def test_errors(files, capsys, args, message):
    args = [a if not a.endswith(".txt") else str(files / a) for a in args]
    assert main(args + ["--hyp", str(files / "hyp.txt")]) == 2
    assert pytest.importorskip("re").search(message, capsys.readouterr().err)
