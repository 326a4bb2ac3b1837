"""The library works from a wheel, without the repository: built and installed into a fresh
virtual environment (the base dependencies only, at the versions of constraints.txt), it scores
the shipped example folder from a folder outside the repository, and the book tooling refuses
clearly until it is pointed at the repository."""

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """
import json, mtlib
from mtlib.examples import example_folder
evs = mtlib.load_folder(example_folder(), "de-en")
stats = mtlib.score_systems(evs, mtlib.get_metric("chrF"))
scores = stats.system_scores()
r = mtlib.correlate(scores, evs.human_sys())
print(json.dumps({"file": mtlib.__file__, "systems": len(scores), "r": r.value, "signature": stats.signature}))
"""


def _run(args, cwd, env=None, check=True):
    return subprocess.run(args, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True,
                          check=check, timeout=900)


@pytest.mark.slow
def test_wheel_scores_the_example_without_the_repository(tmp_path):
    # Built from a copy of what the wheel is made of: setuptools writes build/ beside the sources.
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "mtlib", source / "mtlib", ignore=shutil.ignore_patterns("__pycache__"))
    wheels = tmp_path / "wheels"
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(source)], cwd=tmp_path)
    (wheel,) = wheels.glob("mtlib-*.whl")
    venv.create(tmp_path / "venv", with_pip=True)
    python = tmp_path / "venv" / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "-q", "-c", str(ROOT / "constraints.txt"), str(wheel)], cwd=tmp_path)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    # No data root, cache or repository is found from here: only what the wheel ships.
    env = {"MTLIB_CACHE": str(tmp_path / "cache"), "MTLIB_DATA": "", "MTLIB_MTME": "", "MTLIB_BOOK": ""}

    got = json.loads(_run([str(python), "-c", SCRIPT], cwd=outside, env=env).stdout)
    assert str(tmp_path / "venv") in got["file"]  # the installed copy, not the repository's
    assert got["systems"] == 8 and -1 <= got["r"] <= 1 and "chrF" in got["signature"]

    example = json.loads(_run([str(python), "-c", "from mtlib.examples import example_folder; import json; "
                                                  "print(json.dumps(str(example_folder())))"], cwd=outside).stdout)
    system = sorted((Path(example) / "systems").iterdir())[0]
    reference = sorted((Path(example) / "references").iterdir())[0]
    cli = _run([str(tmp_path / "venv" / "bin" / "mtlib"), "files", "--metric", "BLEU", "--hyp", str(system),
                "--ref", str(reference), "--lp", "de-en"], cwd=outside, env=env)
    assert "BLEU" in cli.stdout

    book = _run([str(python), "-m", "mtbook", "check"], cwd=outside, env=env, check=False)
    assert book.returncode == 2 and "no book repository" in book.stderr and "MTLIB_BOOK" in book.stderr
    pointed = _run([str(python), "-m", "mtbook", "check"], cwd=outside, env={**env, "MTLIB_BOOK": str(ROOT)},
                   check=False)
    assert "no book repository" not in pointed.stderr and pointed.returncode in (0, 1), pointed.stderr
