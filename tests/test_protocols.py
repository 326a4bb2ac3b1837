"""Scoring protocols of the target language: BLEU into Chinese is sacreBLEU's ``tokenize="zh"``
(as WMT and sacreBLEU's command line score it), TER's asian_support, Otem/Utem's tokeniser;
options given explicitly win; a missing Japanese/Korean tokeniser fails clearly."""

import numpy as np
import pandas as pd
import pytest
import sacrebleu
from sacrebleu.metrics import BLEU as SacreBLEU

from mtlib.cli import main as mtlib_main
from mtlib.data import load_evalset
from mtlib.metrics import BLEU, TER, ChrF, MissingTokenizerError, Otem, Utem, get_metric
from mtlib.metrics.languages import DEFAULT_TOKENIZER, TARGET_TOKENIZERS, target_of
from mtlib.plain_folder import load_folder
from mtlib.scoring import score_systems

from conftest import make_mtme, write_lines

# Unspaced Chinese: 13a keeps each sentence (up to its final full stop) one token.
REF_ZH = ["我们今天去公园散步。", "这只猫坐在垫子上。", "他喜欢读书和写字。", "天气很好。"]
SYS_ZH = {"sysA": ["我们今天去公园。", "猫坐在垫子上。", "他喜欢读书。", "天气很好。"],
          "sysB": ["今天我们去散步。", "这只狗坐在地上。", "他喜欢写字和读书。", "天气不错。"]}


def make_mtme_into(root, lp, refs, systems, test_set="toyx"):
    """An evaluation set in mt-metrics-eval's layout (no human scores)."""
    base = root / test_set
    write_lines(base / "sources" / f"{lp}.txt", [f"source {i}" for i in range(len(refs))])
    write_lines(base / "references" / f"{lp}.ref.txt", refs)
    write_lines(base / "system-outputs" / lp / "ref.txt", refs)
    for name, lines in systems.items():
        write_lines(base / "system-outputs" / lp / f"{name}.txt", lines)
    return root


@pytest.fixture
def en_zh(tmp_path):
    return load_evalset("toyx", "en-zh", root=make_mtme_into(tmp_path / "mtme", "en-zh", REF_ZH, SYS_ZH))


def zh_bleu(hyps, tokenize="zh"):
    return sacrebleu.corpus_bleu(hyps, [REF_ZH], tokenize=tokenize).score


def test_the_language_table_is_sacrebleus():
    # One table in mtlib; it must say what sacreBLEU's -l/trg_lang does.
    assert TARGET_TOKENIZERS == SacreBLEU._TOKENIZER_MAP
    assert DEFAULT_TOKENIZER == SacreBLEU.TOKENIZER_DEFAULT


def test_bleu_into_chinese_is_sacrebleus_zh():
    hyps = SYS_ZH["sysB"]
    for metric in (get_metric("BLEU", target_lang="zh"), BLEU().for_target("zh"), BLEU(target_lang="zh")):
        assert metric.corpus_score(hyps, [REF_ZH]) == pytest.approx(zh_bleu(hyps), abs=1e-12)
        assert "|tok:zh|" in metric.signature and metric.target_lang == "zh"
        want = [sacrebleu.sentence_bleu(h, [r], tokenize="zh").score for h, r in zip(hyps, REF_ZH)]
        np.testing.assert_allclose(metric.sentence_scores(hyps, [REF_ZH]), want, atol=1e-12)
    # 13a (the old default for every language) is another metric on these sentences.
    assert abs(zh_bleu(hyps) - zh_bleu(hyps, "13a")) > 10
    assert BLEU().corpus_score(hyps, [REF_ZH]) == pytest.approx(zh_bleu(hyps, "13a"), abs=1e-12)


def test_explicit_options_win_over_the_language():
    hyps = SYS_ZH["sysB"]
    explicit = get_metric("BLEU", target_lang="zh", tokenize="13a")
    assert "|tok:13a|" in explicit.signature
    assert explicit.corpus_score(hyps, [REF_ZH]) == pytest.approx(zh_bleu(hyps, "13a"), abs=1e-12)
    keep = BLEU(tokenize="13a", lowercase=True)
    assert keep.for_target("zh") is keep  # nothing to change: the same instance
    resolved = BLEU(lowercase=True).for_target("zh")
    assert "|tok:zh|" in resolved.signature and "case:lc" in resolved.signature
    assert TER(asian_support=False).for_target("zh").signature == TER().signature
    assert "tok:none" in Otem(tokenize="none").for_target("zh").signature


def test_score_systems_into_chinese_signs_tok_zh(en_zh, tmp_path):
    metric = BLEU()
    stats = score_systems(en_zh, metric, cache=tmp_path / "c")
    assert "|tok:zh|" in stats.signature and stats.signature.endswith("|refs:ref")
    assert stats.metric.target_lang == "zh" and stats.metric.signature == BLEU(tokenize="zh").signature
    for s, hyps in SYS_ZH.items():
        assert stats.system_scores()[s] == pytest.approx(zh_bleu(hyps), abs=1e-12)
    assert metric.target_lang is None  # the caller's metric is left as it was
    # an explicit tokeniser wins here too
    assert "|tok:13a|" in score_systems(en_zh, BLEU(tokenize="13a"), cache=False).signature


def test_plain_folder_into_chinese_is_scored_with_zh(tmp_path):
    folder = tmp_path / "mine"
    write_lines(folder / "references" / "ref.txt", REF_ZH)
    for name, lines in SYS_ZH.items():
        write_lines(folder / "systems" / f"{name}.txt", lines)
    stats = score_systems(load_folder(folder, "en-zh"), get_metric("BLEU"), cache=False)
    assert "|tok:zh|" in stats.signature
    assert stats.system_scores()["sysB"] == pytest.approx(zh_bleu(SYS_ZH["sysB"]), abs=1e-12)


def test_ter_into_cjk_uses_asian_support():
    hyps = SYS_ZH["sysB"]
    for lang in ("zh", "ja", "ko"):  # TER's asian_support needs no extra package
        assert "asian:yes" in TER().for_target(lang).signature
    assert "asian:no" in TER().for_target("de").signature
    # sacreBLEU splits CJK characters only when normalising (asian_support alone changes no number).
    for options in ({}, {"normalized": True}):
        ours = TER(**options).for_target("zh").corpus_score(hyps, [REF_ZH])
        assert ours == pytest.approx(sacrebleu.corpus_ter(hyps, [REF_ZH], asian_support=True, **options).score,
                                     abs=1e-12)
    assert ours < sacrebleu.corpus_ter(hyps, [REF_ZH], normalized=True).score - 10


@pytest.mark.parametrize("cls", [Otem, Utem])
def test_otem_utem_follow_the_target_language(cls):
    hyps = ["我们今天去去公园公园散步。", "这只猫猫猫坐在垫子上。", "他喜欢读书。", "天气很好好。"]  # over and under
    resolved = cls().for_target("zh")
    assert "|tok:zh|" in resolved.signature and "|tok:13a|" in cls().signature
    assert resolved.corpus_score(hyps, [REF_ZH]) == cls(tokenize="zh").corpus_score(hyps, [REF_ZH])
    assert resolved.corpus_score(hyps, [REF_ZH]) != cls().corpus_score(hyps, [REF_ZH])
    assert cls(order=3, lowercase=True, variant="authors").for_target("zh").signature == \
        cls(order=3, tokenize="zh", lowercase=True, variant="authors").signature


@pytest.mark.parametrize("lang, tokenizer, module, extra", [
    ("ja", "ja-mecab", "sacrebleu.tokenizers.tokenizer_ja_mecab", "ja"),
    ("ko", "ko-mecab", "sacrebleu.tokenizers.tokenizer_ko_mecab", "ko"),
])
@pytest.mark.parametrize("name", ["BLEU", "Otem", "Utem"])
def test_a_missing_mecab_tokeniser_is_named(monkeypatch, tmp_path, name, lang, tokenizer, module, extra):
    # What sacreBLEU sees without mecab (it then raises a bare RuntimeError when the tokeniser is built).
    monkeypatch.setattr(f"{module}.MeCab", None)
    pip = f'pip install "sacrebleu[{extra}]"'
    with pytest.raises(MissingTokenizerError, match=rf"{name} into '{lang}' needs the '{tokenizer}' tokeniser") as err:
        get_metric(name, target_lang=lang)
    assert pip in str(err.value) and isinstance(err.value, ImportError) and isinstance(err.value, ValueError)
    with pytest.raises(ImportError, match=rf"{name} needs the '{tokenizer}' tokeniser.*{pip}".replace("[", r"\[")):
        get_metric(name, tokenize=tokenizer)
    evs = load_evalset("toyx", f"en-{lang}", root=make_mtme_into(tmp_path / "m", f"en-{lang}", REF_ZH, SYS_ZH))
    with pytest.raises(MissingTokenizerError, match=f"into '{lang}'"):
        score_systems(evs, get_metric(name), cache=False)
    assert "asian:yes" in score_systems(evs, TER(), cache=False).signature  # TER needs no mecab


def test_a_metric_for_one_language_refuses_data_into_another(tiny_mtme, en_zh):
    zh = get_metric("BLEU", target_lang="zh")
    assert zh.for_target("zh") is zh
    with pytest.raises(ValueError, match=r"BLEU was set up for target language 'zh' .* but the data are into 'en'"):
        score_systems(load_evalset("toy", "de-en", root=tiny_mtme), zh, cache=False)
    with pytest.raises(ValueError, match="set up for target language 'de'"):
        score_systems(en_zh, get_metric("TER", target_lang="de"), cache=False)
    with pytest.raises(ValueError, match="set up for target language 'zh'"):
        Otem(target_lang="zh").for_target("ja")
    # sacreBLEU's trg_lang is the same notion
    with pytest.raises(ValueError, match="set up for target language 'zh'"):
        BLEU(trg_lang="zh").for_target("de")
    assert "|tok:zh|" in BLEU(trg_lang="zh").signature
    with pytest.raises(ValueError, match="trg_lang='zh' and target_lang='de' disagree"):
        BLEU(trg_lang="zh", target_lang="de")
    chrf = ChrF()
    assert chrf.for_target("zh") is chrf and get_metric("chrF", target_lang="zh").signature == chrf.signature


@pytest.mark.parametrize("lang, err, message", [
    ("en-zh", ValueError, "for a language pair 'en-zh' give its target 'zh'"),
    ("", ValueError, "language code"),
    (3, TypeError, "must be a string"),
])
def test_bad_target_languages(lang, err, message):
    with pytest.raises(err, match=message):
        BLEU().for_target(lang)
    with pytest.raises(err, match=message):
        get_metric("chrF", target_lang=lang)


def test_target_of_language_pairs():
    assert target_of("en-zh") == "zh" and target_of("de-EN") == "en"
    with pytest.raises(ValueError, match="language pair must look like 'en-zh'"):
        target_of("zh")


def test_mtlib_score_resolves_each_pairs_target_language(tmp_path):
    root = make_mtme_into(tmp_path / "mtme", "en-zh", REF_ZH, SYS_ZH, test_set="mix")
    make_mtme(tmp_path / "mtme", "mix", "de-en")
    out = tmp_path / "out.tsv"
    assert mtlib_main(["score", "--test-set", "mix", "--metric", "BLEU", "--mtme", str(root), "--cache",
                       str(tmp_path / "c"), "--no-progress", "--out", str(out)]) == 0
    got = pd.read_csv(out, sep="\t")
    zh, en = got[got.lp == "en-zh"].set_index("system"), got[got.lp == "de-en"]
    assert zh["signature"].str.contains("|tok:zh|", regex=False).all()
    assert en["signature"].str.contains("|tok:13a|", regex=False).all() and len(en) == 3
    assert zh.loc["sysB", "BLEU"] == pytest.approx(zh_bleu(SYS_ZH["sysB"]), abs=1e-6)
