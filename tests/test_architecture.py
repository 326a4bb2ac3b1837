"""The house runs one way: every import goes to the same layer or one below, never in a circle,
and the chapters use mtlib's public names only (checked over grimp's import graph and the
notebooks' code). README's "Architecture" section describes these layers."""

import ast
import json
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]

# Bottom to top; a module belongs to the layer of its longest listed prefix.
LAYERS = [
    ("foundation", ["mtlib.version", "mtlib.paths", "mtlib.atomic", "mtlib.textio", "mtlib.download",
                    "mtlib.wordnet", "mtlib.examples", "mtlib.prose"]),
    ("data and storage", ["mtlib.data", "mtlib.testsets", "mtlib.plain_folder", "mtlib.mqm", "mtlib.embeddings.cachefile",
                          "mtlib.embeddings.matchstore", "mtlib.embeddings.store", "mtlib.embeddings.fingerprint"]),
    ("encoders", ["mtlib.embeddings"]),
    ("metrics", ["mtlib.metrics"]),
    ("scoring engine", ["mtlib.scoring", "mtlib.bertscore", "mtlib.batch"]),
    ("meta-evaluation", ["mtlib.correlation", "mtlib.significance", "mtlib.bootstrap", "mtlib.ranking", "mtlib.report"]),
    ("studies", ["mtlib.difficulty", "mtlib.vat", "mtlib.regemt", "mtlib.otem_utem_study", "mtlib.baselines_study",
                 "mtlib.own_data_study"]),
    ("command line and public face", ["mtlib.score_files", "mtlib.vat.cli", "mtlib.cli", "mtlib.__main__",
                                      "mtlib"]),
    ("book and course", ["mtlib.book"]),
]


def layer_of(module: str) -> int:
    best, best_len = None, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = index, len(prefix)
    return best


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph("mtlib")


def test_every_module_has_a_layer(graph):
    assert [m for m in sorted(graph.modules) if layer_of(m) is None] == []


def test_no_import_goes_up_a_layer(graph):
    upward = []
    for module in sorted(graph.modules):
        for imported in graph.find_modules_directly_imported_by(module):
            if layer_of(imported) > layer_of(module):
                lines = graph.get_import_details(importer=module, imported=imported)
                where = ", ".join(f"line {d['line_number']}" for d in lines)
                upward.append(f"{module} ({LAYERS[layer_of(module)][0]}) imports {imported} "
                              f"({LAYERS[layer_of(imported)][0]}) at {where}")
    assert upward == []


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


def test_the_layer_test_catches_an_upward_import():
    assert layer_of("mtlib.embeddings.matchstore") < layer_of("mtlib.bertscore")
    assert layer_of("mtlib.metrics.scm_wmd") < layer_of("mtlib.regemt.scores")
    assert layer_of("mtlib.vat.cli") > layer_of("mtlib.vat.filtering")
    assert layer_of("mtlib.book.runner") == len(LAYERS) - 1


def test_no_module_imports_a_private_name_of_another(graph):
    found = []
    for path in sorted((ROOT / "mtlib").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mtlib"):
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
                bound |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name.startswith("mtlib")}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mtlib"):
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
