"""The house runs one way. import-linter checks the contracts of ``.importlinter`` (mtlib never
imports the book package ``mtbook``; each package's layers; the chapters' studies independent of
one another), and a planted copy shows that each contract fails when broken. grimp's import graph
adds what import-linter does not check: no circle of imports, no private name imported across
modules, and chapters that use public names only. README's "Architecture" section describes the
layers."""

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def lint_imports(cwd: Path, pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run([str(LINT_IMPORTS), "--config", str(ROOT / ".importlinter"), "--no-cache"],
                          cwd=cwd, env=env, capture_output=True, text=True)


def broken_contracts(output: str) -> list[str]:
    return sorted(set(re.findall(r"^(.+?) BROKEN$", output, flags=re.M)))


def test_import_contracts_are_kept():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "5 kept, 0 broken" in result.stdout


# one planted import per contract, and the contract it must break (and no other)
PLANTS = {
    "mtlib/metrics/bleu.py": ("import mtbook.prose", "mtlib (the wheel) never imports the book package"),
    "mtlib/paths.py": ("import mtlib.scoring", "mtlib's layers"),
    "mtlib/embeddings/cachefile.py": ("import mtlib.embeddings.models", "inside mtlib.embeddings"),
    "mtbook/params.py": ("import mtbook.runner", "the book's layers"),
    "mtbook/studies/otem_utem.py": ("import mtbook.studies.regemt", "the chapters' studies are independent"),
}


@pytest.mark.parametrize("rel", PLANTS, ids=lambda rel: rel.split("/")[-1])
def test_a_planted_import_breaks_its_contract(tmp_path, rel):
    # A copy of both packages' code with one import planted, checked with the real contracts.
    for package in ("mtlib", "mtbook"):
        shutil.copytree(ROOT / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("*.egg-info", "__pycache__", "toy-de-en", "*.toml"))
    line, contract = PLANTS[rel]
    path = tmp_path / rel
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}  # planted\n", encoding="utf-8")
    result = lint_imports(tmp_path, pythonpath=tmp_path)
    assert result.returncode != 0
    broken = broken_contracts(result.stdout)
    assert len(broken) == 1 and broken[0].startswith(contract), result.stdout[-3000:]


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph("mtlib", "mtbook")


def test_no_import_circle(graph):
    # Tarjan's strongly connected components over module-level edges (lazy imports included).
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    index, low, stack, on_stack, circles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for m in sorted(edges):
        if m not in index:
            visit(m)
    assert circles == []


def test_no_module_imports_a_private_name_of_another(graph):
    found = []
    for path in sorted([*(ROOT / "mtlib").rglob("*.py"), *(ROOT / "mtbook").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(("mtlib", "mtbook")):
                found += [f"{path.relative_to(ROOT)}: {node.module}.{a.name}" for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
    assert found == []


def _notebook_code(path: Path) -> list[str]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in nb["cells"] if c["cell_type"] == "code"]


NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def private_uses(sources: list[str]) -> list[str]:
    """Private mtlib names a notebook's code uses: imported (``from mtlib.x import _y``, a module
    path with a ``_part``) or reached as an attribute of a name bound to mtlib (``rd._FILES``)."""
    bound, found = set(), []
    trees = [ast.parse(source) for source in sources]
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                bound |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name.startswith(("mtlib", "mtbook"))}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(("mtlib", "mtbook")):
                bound |= {a.asname or a.name for a in node.names}
                found += [f"from {node.module} import {a.name}" for a in node.names if a.name.startswith("_")]
                if any(part.startswith("_") for part in node.module.split(".")):
                    found.append(f"from {node.module} import ...")
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                root = node.value
                while isinstance(root, ast.Attribute):
                    root = root.value
                if isinstance(root, ast.Name) and root.id in bound:
                    found.append(ast.unparse(node))
    return found


def test_private_uses_are_found():
    assert private_uses(["from mtlib.mqm import _FILES, load"]) == ["from mtlib.mqm import _FILES"]
    assert private_uses(["from mtlib.regemt import scores as s", "s._metric('BLEU')"]) == ["s._metric"]
    assert private_uses(["import mtlib", "x = mtlib.vat._frame"]) == ["mtlib.vat._frame"]
    assert private_uses(["import pandas as pd", "pd._libs", "from mtlib import correlate"]) == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_chapters_use_public_names_only(path):
    assert private_uses(_notebook_code(path)) == []


MAX_CODE_LINES = 300


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_chapters_are_lectures_not_programs(path):
    # Analyses live in tested mtlib functions; a chapter keeps parameters, calls, tables,
    # figures and prose. Every non-blank line counts, comments included.
    lines = [line for source in _notebook_code(path) for line in source.splitlines() if line.strip()]
    assert len(lines) <= MAX_CODE_LINES, f"{path.name}: {len(lines)} lines of code"
