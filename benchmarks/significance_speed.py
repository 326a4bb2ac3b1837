"""Benchmark: PERM-BOTH for every WMT17–19 direction, metric pair and statistic.

Issue 21's goal: all 39 WMT17–19 directions × 4 metrics × 1,000 permutations "in well under a
minute on two cores". The test's cost depends only on the shapes (systems per direction, and
segments for the segment level), not on the scores, so the scores here are synthetic: each
metric is the human score plus noise of its own size. The number of systems with a human
score per direction is read from the data when it is there (else 15 for each of 39).

    python benchmarks/significance_speed.py [--permutations 1000] [--segments 2000]
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np

from mtlib.significance import perm_both

GOAL_SECONDS = 60.0


def system_counts() -> list[int]:
    """Systems with a system-level human score in each WMT17–19 direction (39 without the data)."""
    try:
        import mtlib
        known = mtlib.list_evalsets()
        counts = []
        for ts in ("wmt17", "wmt18", "wmt19"):
            for lp in known.get(ts, []):
                evs = mtlib.load_evalset(ts, lp).head(1)
                if any(level == "sys" for _, level in evs.human):
                    counts.append(sum(v is not None for v in evs.human_sys().values()))
        return counts or [15] * 39
    except (ImportError, FileNotFoundError, ValueError):
        return [15] * 39


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--permutations", type=int, default=1000)
    parser.add_argument("--segments", type=int, default=2000, help="segments per direction at segment level")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    counts = system_counts()
    metrics = 4
    pairs = list(itertools.combinations(range(metrics), 2))

    start = time.perf_counter()
    tests = 0
    for n in counts:
        human = rng.normal(size=n)
        scores = [human + rng.normal(scale=s, size=n) for s in (0.2, 0.4, 0.6, 0.8)]
        for (i, j), method in itertools.product(pairs, ("pearson", "kendall", "spearman")):
            perm_both(scores[i], scores[j], human, method, n_permutations=args.permutations, seed=tests)
            tests += 1
    sys_seconds = time.perf_counter() - start
    print(f"system level: {len(counts)} directions ({min(counts)}–{max(counts)} systems), {len(pairs)} metric pairs "
          f"of {metrics} metrics, 3 statistics, {args.permutations} permutations: {tests} tests in "
          f"{sys_seconds:.2f} s   (goal: well under {GOAL_SECONDS:.0f} s: {'met' if sys_seconds < GOAL_SECONDS else 'NOT met'})")

    n_sys = int(np.median(counts))
    n = n_sys * args.segments
    human = rng.normal(size=n)
    a, b = human + rng.normal(scale=1.0, size=n), human + rng.normal(scale=1.1, size=n)
    for method in ("pearson", "kendall"):
        start = time.perf_counter()
        perm_both(a, b, human, method, n_permutations=args.permutations, seed=0)
        print(f"segment level, one direction pooled ({n_sys} systems × {args.segments} segments = {n} items), "
              f"{method}: {time.perf_counter() - start:.2f} s")
    groups = [np.arange(k, n, args.segments) for k in range(args.segments)]  # grouped by segment ("item")
    start = time.perf_counter()
    perm_both(a, b, human, "kendall", groups=groups, n_permutations=args.permutations, seed=0)
    print(f"segment level grouped by segment (mt-metrics-eval's average_by='item'), kendall: "
          f"{time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
