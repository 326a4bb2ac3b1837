"""Shared fixtures: a tiny evaluation set in the mt-metrics-eval layout, made per test."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from mtlib import paths

SRC = ["Der Hund bellt.", "Es regnet.", "Ich sehe die Katze.", "Guten Morgen."]
REF = ["The dog barks.", "It is raining.", "I see the cat.", "Good morning."]
REF_B = ["The dog is barking.", "It rains.", "I can see the cat.", "Morning."]
SYSTEMS = {
    "sysA": ["The dog barks.", "It is raining.", "I see the cat.", "Good morning."],
    "sysB": ["The dog barked.", "It rains.", "I see a cat.", "Good morning!"],
    "sysC": ["Dog.", "Rain.", "Cat.", "Morning."],
}
HUMAN_SYS = {"sysA": 0.5, "sysB": 0.1, "sysC": -0.4, "ref": None, "refB": None}


def write_lines(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def make_mtme(root: Path, test_set: str = "toy", lp: str = "de-en") -> Path:
    """Writes a 4-segment evaluation set with 3 systems, 2 references and human scores."""
    base = root / test_set
    write_lines(base / "sources" / f"{lp}.txt", SRC)
    write_lines(base / "documents" / f"{lp}.docs", ["news doc1"] * 2 + ["news doc2"] * 2)
    write_lines(base / "references" / f"{lp}.ref.txt", REF)
    write_lines(base / "references" / f"{lp}.refB.txt", REF_B)
    outputs = {**SYSTEMS, "ref": REF, "refB": REF_B}
    for name, lines in outputs.items():
        write_lines(base / "system-outputs" / lp / f"{name}.txt", lines)
    write_lines(base / "human-scores" / f"{lp}.wmt-z.sys.score",
                [f"{s} {v}" for s, v in HUMAN_SYS.items()])
    seg = []
    for s in SYSTEMS:
        seg += [f"{s} {0.1 * i}" for i in range(len(SRC))]
    seg[1] = "sysA None"
    write_lines(base / "human-scores" / f"{lp}.wmt-z.seg.score", seg)
    return root


@pytest.fixture
def tiny_mtme(tmp_path) -> Path:
    return make_mtme(tmp_path / "mtme")


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    # Tests never read or write the user's cache.
    monkeypatch.setenv(paths.CACHE_ENV, str(tmp_path / "cache"))


requires_data = pytest.mark.skipif(not paths.has_mtme_data(),
                                   reason="shared WMT data not found (set MTLIB_DATA)")


@pytest.fixture(scope="session")
def built_book(tmp_path_factory) -> Path:
    """The book built once per test session with ``jupyter-book build -W -n``: its html folder."""
    import shutil
    import subprocess
    import sys

    from mtbook.repository import find_repository
    out = tmp_path_factory.mktemp("book")
    exe = shutil.which("jupyter-book") or str(Path(sys.executable).parent / "jupyter-book")
    result = subprocess.run([exe, "build", "-W", "-n", "--keep-going", "--path-output", str(out), str(find_repository().root)],
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return out / "_build" / "html"


# A glued value in a page's markdown: {glue:md}`name` or {glue:text}`name:format`
GLUE = re.compile(r"\{glue:(?:md|text)\}`([\w-]+)(?::[^`]*)?`")


def page_text(path) -> tuple[str, str]:
    """(markdown with glued values substituted, text of every output that is not a glue record)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    glued, outputs = {}, []
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            records = [k for k in data if k.startswith("application/papermill.record")]
            if records:
                glued[out["metadata"]["scrapbook"]["name"]] = str(data[records[0]])
                continue
            for kind in ("text/markdown", "text/html", "text/plain"):
                if kind in data:
                    text = "".join(data[kind])
                    if kind == "text/html":
                        text = html.unescape(re.sub(r"<style.*?</style>|<[^>]+>", " ", text, flags=re.S))
                    outputs.append(text)
                    break
            if out.get("output_type") == "stream":
                outputs.append("".join(out.get("text", "")))
    markdown = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    missing = sorted(set(GLUE.findall(markdown)) - set(glued))
    assert missing == [], f"glue names without a value: {missing}"
    return GLUE.sub(lambda m: glued[m.group(1)], markdown), "\n".join(outputs) + "\n" + "\n".join(glued.values())
