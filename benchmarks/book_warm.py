"""Benchmark: the whole book executed from warm caches, chapter by chapter, against issue 20's goal.

Issue 20 asks that ``mtbook run --profile full`` of all chapters together take at most ten
minutes once the caches (token matches, embeddings, metric statistics, fitted ensembles) are
warm. This script executes every chapter with the full profile into a scratch folder (never into
``book/``), prints each chapter's time and the total against the goal, and compares each executed
copy with the one in ``book/``: every glued value, every published finding, every displayed text
output (tables included) and the rendered words, so that a fast rerun is also shown to be the
same book.

Run it on a machine whose caches the book has filled, with the data root set, e.g.

    MTLIB_DATA=../shared/data python benchmarks/book_warm.py [--only regemt otem_utem]

On cold caches it measures a cold run instead (and says nothing about the goal's premise).
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from pathlib import Path

from mtbook.repository import find_repository
from mtbook.runner import list_notebooks, run_notebook

GOAL_SECONDS = 600.0
STYLER_ID = re.compile(r"T_[0-9a-f_]+")  # pandas Styler's random table ids


FINDINGS = "application/vnd.mtbook.findings+json"


def shown(path: Path) -> tuple[dict[str, str], list[str]]:
    """An executed notebook's glued values and published findings (by name), and its displayed
    text outputs and rendered Markdown cells, in order."""
    glued, outputs = {}, []
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] == "markdown":
            outputs.append("".join(cell["source"]))
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if FINDINGS in data:
                glued.update({f"finding {k}": json.dumps(v, sort_keys=True) for k, v in data[FINDINGS].items()})
            elif "scrapbook" in out.get("metadata", {}):
                glued[out["metadata"]["scrapbook"]["name"]] = json.dumps(data, sort_keys=True)
            elif out.get("output_type") == "stream":
                outputs.append("".join(out.get("text", "")))
            elif "image/png" not in data:
                kind = next((k for k in ("text/html", "text/markdown", "text/plain") if k in data), None)
                if kind is not None:
                    text = data[kind]
                    outputs.append(STYLER_ID.sub("T_", "".join(text) if isinstance(text, list) else text))
    return glued, outputs


def differences(new: Path, old: Path) -> list[str]:
    """What the new executed copy shows differently from the old one (empty: the same)."""
    (g_new, o_new), (g_old, o_old) = shown(new), shown(old)
    out = [f"glued {name!r} differs" for name in sorted(set(g_new) | set(g_old)) if g_new.get(name) != g_old.get(name)]
    if len(o_new) != len(o_old):
        out.append(f"{len(o_new)} displayed outputs, {len(o_old)} in book/")
    out += [f"displayed output {k + 1} differs" for k, (a, b) in enumerate(zip(o_new, o_old)) if a != b]
    return out


def main() -> None:
    repo = find_repository()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", default=None, help="chapters (default: all)")
    parser.add_argument("--profile", default="full")
    args = parser.parse_args()
    names = args.only or list_notebooks(repo.notebooks)
    times = {}
    with tempfile.TemporaryDirectory(prefix="mtlib-book-warm-") as scratch:
        for name in names:
            start = time.perf_counter()
            executed = run_notebook(name, args.profile, Path(scratch))
            times[name] = time.perf_counter() - start
            old = repo.book / f"{name}.ipynb"
            diff = differences(executed, old) if old.exists() else ["no copy in book/"]
            n_glued = len(shown(executed)[0])
            print(f"{name:28s} {times[name]:7.1f} s   vs book/: "
                  + (f"same ({n_glued} glued values and findings, every displayed output and word)" if not diff
                     else f"{len(diff)} differences: " + "; ".join(diff[:5])), flush=True)
    total = sum(times.values())
    verdict = ("only some chapters ran: not judged" if args.only else "met" if total <= GOAL_SECONDS else "NOT met")
    print(f"{'total':28s} {total:7.1f} s = {total / 60:.1f} min   (goal <= {GOAL_SECONDS / 60:.0f} min for all "
          f"chapters: {verdict})")


if __name__ == "__main__":
    main()
