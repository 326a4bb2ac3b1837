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


ZH_HYP = ["今天我们去散步。", "这只狗坐在地上。"]
ZH_REF = ["我们今天去公园散步。", "这只猫坐在垫子上。"]


@pytest.mark.parametrize("extra, tok", [([], "13a"), (["--lp", "en-zh"], "zh"), (["--lp", "de-en"], "13a"),
                                        (["--lp", "en-zh", "-o", "tokenize=13a"], "13a")])
def test_lp_picks_the_target_languages_tokeniser(tmp_path, capsys, extra, tok):
    import sacrebleu
    (tmp_path / "hyp.zh").write_text("\n".join(ZH_HYP) + "\n", encoding="utf-8")
    (tmp_path / "ref.zh").write_text("\n".join(ZH_REF) + "\n", encoding="utf-8")
    assert main(["--metric", "BLEU", "--hyp", str(tmp_path / "hyp.zh"), "--ref", str(tmp_path / "ref.zh"), *extra]) == 0
    score, signature = capsys.readouterr().out.strip().split("\t")
    assert f"|tok:{tok}|" in signature
    assert float(score) == pytest.approx(sacrebleu.corpus_bleu(ZH_HYP, [ZH_REF], tokenize=tok).score, abs=1e-6)


def test_bad_lp_and_missing_tokeniser(files, capsys, monkeypatch):
    base = ["--metric", "BLEU", "--hyp", str(files / "hyp.txt"), "--ref", str(files / "ref.txt")]
    assert main(base + ["--lp", "zh"]) == 2
    assert "language pair must look like 'en-zh'" in capsys.readouterr().err
    monkeypatch.setattr("sacrebleu.tokenizers.tokenizer_ja_mecab.MeCab", None)  # as without mecab
    assert main(base + ["--lp", "en-ja"]) == 2
    assert 'BLEU into \'ja\' needs the \'ja-mecab\' tokeniser, which needs mecab-python3 and ipadic: ' \
           'pip install "sacrebleu[ja]"' in capsys.readouterr().err
