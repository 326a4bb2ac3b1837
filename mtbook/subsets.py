"""What a variance-aware subset is, and whether it beats a random subset of the same size.

The book's analysis of kept sets (the VAT and own-data chapters); selecting a set is
:mod:`mtlib.vat`.

* Set agreement: :func:`jaccard` and :func:`expected_jaccard` (two independent uniform
  random subsets of the given sizes, exactly, from the hypergeometric distribution).
* Evaluating on a subset: :func:`restrict` (a :class:`~mtlib.scoring.SystemStats` on some
  segments) and :func:`weighted_correlations` (system scores re-aggregated under many
  segment weightings at once: random subsets, bootstrap resamples, or both).
* :func:`random_subset_comparison`: the subset's correlation against the distribution over
  random subsets of the same size (percentile), the comparison the paper does not make.
* :func:`bootstrap_subset_difference`: paired bootstrap of "subset minus whole set".
* Segment properties: :func:`length_groups`, :func:`frequency_groups`, :func:`share_change`,
  :func:`edit_distances`.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

from mtlib.bootstrap import resample_counts
from mtlib.correlation import METHODS, correlation_with_p, paired, row_correlations
from mtlib.scoring import SystemStats, common_segment_count

__all__ = ["jaccard", "expected_jaccard", "restrict", "weighted_correlations", "random_subset_masks",
           "random_subset_comparison", "bootstrap_subset_difference", "length_groups", "frequency_groups",
           "share_change", "token_share_change", "edit_distances"]


def jaccard(a: Iterable[int], b: Iterable[int]) -> float:
    """|A ∩ B| / |A ∪ B| (1 for two empty sets)."""
    a, b = set(a), set(b)
    return len(a & b) / len(a | b) if a | b else 1.0


def expected_jaccard(n: int, size_a: int, size_b: int) -> float:
    """E[J] for two independent uniformly random subsets of sizes ``size_a`` and ``size_b``
    of ``n`` items: the overlap I is hypergeometric and J = I / (a + b - I)."""
    if not (0 <= size_a <= n and 0 <= size_b <= n):
        raise ValueError(f"subset sizes must lie in 0..{n}, got {size_a} and {size_b}")
    if size_a + size_b == 0:
        return 1.0
    i = np.arange(max(0, size_a + size_b - n), min(size_a, size_b) + 1)
    p = sps.hypergeom(n, size_a, size_b).pmf(i)
    return float(np.sum(p * i / (size_a + size_b - i)))


def restrict(ss: SystemStats, positions: Sequence[int]) -> SystemStats:
    """The same statistics on some segments only (positions into the rows)."""
    positions = np.asarray(positions, dtype=int)
    return SystemStats(ss.metric, ss.ref_names, {s: st[positions] for s, st in ss.items()})


def weighted_correlations(ss: SystemStats, human: Mapping[str, float | None], weights: np.ndarray,
                          method: str = "pearson", *, systems: Iterable[str] | None = None,
                          variant: str = "b") -> np.ndarray:
    """One correlation per row of ``weights`` (rows: weightings, columns: segments), each with
    every system's corpus score re-aggregated from its weighted segment statistics. Scores of
    lower-is-better metrics are negated, so positive means agreement with humans."""
    if method not in METHODS:
        raise ValueError(f"unknown correlation method {method!r}; valid: {list(METHODS)}")
    weights = np.atleast_2d(np.asarray(weights, dtype=float))
    sign = 1.0 if ss.metric.higher_is_better else -1.0
    point = {s: 0.0 for s in ss}
    kept, _, y = paired(point, human, systems)
    n = {len(ss[s]) for s in kept}
    if n != {weights.shape[1]}:
        raise ValueError(f"weights have {weights.shape[1]} columns, the statistics {sorted(n)} segments")
    scores = np.stack([sign * ss.metric.scores_from_stats(weights @ ss[s]) for s in kept], axis=1)
    if method != "kendall" or variant == "b":
        return row_correlations(scores, y, method)  # every weighting in one array operation
    return np.array([correlation_with_p(row, y, method, variant)[0] for row in scores])


def random_subset_masks(n: int, size: int, draws: int, seed: int | np.random.Generator | None) -> np.ndarray:
    """(draws, n) 0/1 rows, each a uniformly random subset of ``size`` of the ``n`` segments.

    Drawn by sorting uniform keys, not with ``rng.permuted``: the same subsets in law, but another
    random stream, which would move every published random-subset percentile at the same seed.
    Switch with the next change that re-draws the book's numbers anyway."""
    if not 0 < size <= n or draws < 1:
        raise ValueError(f"need 0 < size <= n and draws >= 1, got size={size}, n={n}, draws={draws}")
    order = np.argsort(np.random.default_rng(seed).random((draws, n)), axis=1)[:, :size]
    masks = np.zeros((draws, n))
    np.put_along_axis(masks, order, 1.0, axis=1)
    return masks


def _mask(n: int, positions: Sequence[int]) -> np.ndarray:
    mask = np.zeros(n)
    mask[np.asarray(positions, dtype=int)] = 1.0
    return mask


def random_subset_comparison(stats: Mapping[str, SystemStats], human: Mapping[str, float | None],
                             positions: Sequence[int], *, methods: Sequence[str] = ("pearson",),
                             draws: int = 1000, seed: int | None = 0) -> pd.DataFrame:
    """Where a subset's correlation falls among random subsets of the same size.

    The same random subsets serve every metric. Returns one row per (metric, method): the
    whole set's and the subset's correlation, the random subsets' mean and 2.5/97.5
    percentiles, and ``percentile``: the share of random subsets whose correlation is below
    the subset's (ties count half).
    """
    n = common_segment_count(stats)
    masks = random_subset_masks(n, len(positions), draws, seed)
    chosen = _mask(n, positions)[None]
    whole = np.ones((1, n))
    rows = []
    for name, ss in stats.items():
        for method in methods:
            rand = weighted_correlations(ss, human, masks, method)
            value = weighted_correlations(ss, human, chosen, method)[0]
            tie = np.abs(rand - value) <= 1e-12  # equal up to summation order
            below = np.mean((rand < value) & ~tie) + 0.5 * np.mean(tie)
            rows.append({"metric": name, "method": method,
                         "whole": weighted_correlations(ss, human, whole, method)[0], "selected": value,
                         "random mean": np.nanmean(rand), "random 2.5%": np.nanpercentile(rand, 2.5),
                         "random 97.5%": np.nanpercentile(rand, 97.5), "percentile": 100 * below})
    df = pd.DataFrame(rows)
    df.attrs["signature"] = f"random-subsets|size:{len(positions)}/{n}|draws:{draws}|seed:{seed}"
    return df


def bootstrap_subset_difference(stats: Mapping[str, SystemStats], human: Mapping[str, float | None],
                                positions: Sequence[int], *, method: str = "pearson",
                                n_resamples: int = 1000, seed: int | None = 0, alpha: float = 0.05) -> pd.DataFrame:
    """Paired bootstrap of (correlation on the subset) - (correlation on the whole set).

    Each resample draws the whole set's segments with replacement; the subset's statistics
    are the drawn segments that belong to it, so both correlations see the same draw.
    Returns per metric: ``whole``, ``selected`` (the subset's), ``difference``, its percentile
    interval (``low``, ``high``) and the share of resamples in which the subset correlates better.
    """
    n = common_segment_count(stats)
    counts = resample_counts(n, n_resamples, seed).astype(float)
    sub = counts * _mask(n, positions)[None]
    rows = {}
    for name, ss in stats.items():
        whole = weighted_correlations(ss, human, np.ones((1, n)), method)[0]
        part = weighted_correlations(ss, human, _mask(n, positions)[None], method)[0]
        diff = weighted_correlations(ss, human, sub, method) - weighted_correlations(ss, human, counts, method)
        lo, hi = np.nanpercentile(diff, [100 * alpha / 2, 100 * (1 - alpha / 2)])
        rows[name] = {"whole": whole, "selected": part, "difference": part - whole, "low": lo, "high": hi,
                      "P(selected better)": float(np.nanmean(diff > 0))}
    df = pd.DataFrame.from_dict(rows, orient="index")
    df.attrs["signature"] = (f"bootstrap:segments|paired subset-whole|stat:{method}|n:{n_resamples}|seed:{seed}|"
                             f"ci:{100 * (1 - alpha):g}%-percentile")
    return df


def length_groups(texts: Sequence[str], tokenize: Callable[[str], list] = str.split) -> np.ndarray:
    """Short / Medium / Long by token count: thirds of the sentences by rank (ties broken by
    position, so each group holds a third)."""
    lengths = np.array([len(tokenize(t)) for t in texts])
    order = np.argsort(lengths, kind="stable")
    labels = np.empty(len(texts), dtype=object)
    for name, part in zip(["Short", "Medium", "Long"], np.array_split(order, 3)):
        labels[part] = name
    return labels


def share_change(labels: Sequence, positions: Sequence[int], order: Sequence | None = None) -> pd.DataFrame:
    """Share of each label among all items and among the kept ones, and the change in
    percentage points (kept - all)."""
    labels = np.asarray(labels, dtype=object)
    kept = labels[np.asarray(positions, dtype=int)]
    names = list(order) if order is not None else sorted(set(labels))
    all_counts, kept_counts = Counter(labels), Counter(kept)
    rows = [{"group": g, "all %": 100 * all_counts[g] / len(labels), "kept %": 100 * kept_counts[g] / max(len(kept), 1)}
            for g in names]
    df = pd.DataFrame(rows).set_index("group")
    df["change (pp)"] = df["kept %"] - df["all %"]
    return df


def token_share_change(token_labels: Sequence[Sequence], positions: Sequence[int],
                       order: Sequence | None = None) -> pd.DataFrame:
    """:func:`share_change` over tokens: ``token_labels[i]`` lists the labels of sentence i's tokens."""
    flat = [lab for sent in token_labels for lab in sent]
    owner = np.repeat(np.arange(len(token_labels)), [len(s) for s in token_labels])
    kept_tokens = np.flatnonzero(np.isin(owner, np.asarray(positions, dtype=int)))
    return share_change(flat, kept_tokens, order)


def frequency_groups(texts: Sequence[str], lang: str, bounds: tuple[float, float] = (20, 60)
                     ) -> tuple[list[list[str]], tuple[float, float]]:
    """Rare / Middle / Frequent label per word of each text, by its frequency in the language
    (the ``wordfreq`` package: large general-domain corpora, not the systems' training data).

    The boundaries are the ``bounds`` percentiles of the word frequencies over all word
    occurrences of ``texts`` (the paper's 20% / 60% / 100%), so on the whole set the groups
    hold about 20%, 40% and 40% of the words. Returns the labels and the two boundaries.
    """
    import wordfreq
    words = [wordfreq.tokenize(t, lang) for t in texts]
    # each distinct word looked up once (setdefault would evaluate the lookup every time)
    table = {w: wordfreq.word_frequency(w, lang) for w in {w for sent in words for w in sent}}
    freqs = [[table[w] for w in sent] for sent in words]
    flat = np.array([f for sent in freqs for f in sent])
    if flat.size == 0:
        raise ValueError("no words to group")
    lo, hi = np.percentile(flat, bounds)
    labels = [["Rare" if f <= lo else "Middle" if f <= hi else "Frequent" for f in sent] for sent in freqs]
    return labels, (float(lo), float(hi))


def edit_distances(a: Sequence[str], b: Sequence[str], unit: str = "word") -> np.ndarray:
    """Levenshtein distance of each line pair (``rapidfuzz``): over whitespace tokens
    (``unit="word"``) or characters (``"char"``)."""
    from rapidfuzz.distance import Levenshtein
    if len(a) != len(b):
        raise ValueError(f"need line pairs: {len(a)} and {len(b)} lines")
    if unit not in ("word", "char"):
        raise ValueError(f"unit must be 'word' or 'char', got {unit!r}")
    if unit == "word":
        return np.array([Levenshtein.distance(x.split(), y.split()) for x, y in zip(a, b)])
    return np.array([Levenshtein.distance(x, y) for x, y in zip(a, b)])
