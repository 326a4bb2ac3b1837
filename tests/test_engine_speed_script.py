"""Issue 36's GPU script, run on the CPU with its tiny profile: packed, carried and run as on a GPU machine."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import requires_data

pytest.importorskip("torch")
pytest.importorskip("bert_score")

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ["mtlib fp32, cold", "mtlib bf16, cold", "mtlib fp32, warm (cache filled)",
           "fp32 cold, pairwise: forward pass / outside it", "fp32 cold, batched: forward pass / outside it",
           "fp32 cold, pairwise: host CPU time outside the forward pass", "bert-score one call, batch 64 / 256 / 1024",
           "mtlib fp32 cold against bert-score's best", "max |F mtlib fp32 - F bert-score|", "forward only",
           "max |F bf16 - F fp32|"]


@requires_data
def test_gpu_script_packs_its_folder_and_prints_every_figure_with_its_goal(tmp_path):
    script = ROOT / "benchmarks" / "engine_gpu.py"
    env = {**os.environ, "MTLIB_CACHE": str(tmp_path / "cache"), "OMP_NUM_THREADS": "1"}
    carry = tmp_path / "carry"
    subprocess.run([sys.executable, str(script), "--pack", str(carry)], env=env, check=True, capture_output=True)
    assert (carry / ".gitignore").read_text() == "*\n"  # carried as an ignored path, never committed
    assert sorted(p.name for p in (carry / "e5-small-files").iterdir()) == ["config.json", "tokenizer.json",
                                                                            "tokenizer_config.json"]
    wmt19 = carry / "mt-metrics-eval" / "wmt19"
    assert sorted(p.name for p in wmt19.iterdir()) == ["documents", "human-scores", "references", "sources",
                                                       "system-outputs"]
    assert {p.name for p in (wmt19 / "system-outputs").iterdir()} == {"de-en"}  # only the files it reads
    assert all(p.name.startswith("de-en") for d in ("references", "sources") for p in (wmt19 / d).iterdir())

    # As on the GPU machine: the data root and the model files from the carried folder only.
    env.pop("MTLIB_DATA", None), env.pop("MTLIB_MTME", None)
    out = subprocess.run([sys.executable, str(script), "--carried", str(carry), "--profile", "tiny", "--device", "cpu"],
                         env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.splitlines()
    assert lines[0].startswith("WMT19 de-en: 16 systems x 20 segments = 320 pairs; profile tiny")
    for figure in FIGURES:
        assert [line for line in lines if line.startswith(figure) and "goal:" in line], figure
    parity = next(line for line in lines if line.startswith("max |F mtlib fp32 - F bert-score|"))
    assert parity.endswith("[met]"), parity
    assert "in all (goal: within 5 minutes on a GPU)" in lines[-1]
