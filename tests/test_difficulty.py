import numpy as np
import pytest

from mtlib.bertscore import TokenMatches
from mtlib.difficulty import da_precision_recall, da_system_stats, token_difficulty


def tm(hyp_ids, hyp_max, ref_ids, ref_max):
    return TokenMatches(np.array(hyp_ids), np.array(hyp_max, float), np.array(ref_ids), np.array(ref_max, float))


# Reference "cat cute" (ids 5, 6). System A matches both well, B misses "cat" (the paper's Figure 1 idea).
A = [tm([5, 6], [0.9, 1.0], [5, 6], [0.9, 1.0])]
B = [tm([7, 6], [0.3, 1.0], [5, 6], [0.3, 1.0])]


def test_difficulty_is_one_minus_mean_best_similarity():
    d = token_difficulty({"A": A, "B": B})
    np.testing.assert_allclose(d[0], [1 - (0.9 + 0.3) / 2, 0.0])  # "cat" hard (0.4), "cute" easy (0)
    np.testing.assert_allclose(token_difficulty({"A": A, "B": B}, ["A"])[0], [0.1, 0.0])  # subset


def test_da_precision_recall_hand_values():
    d = np.array([0.4, 0.0])
    p, r = da_precision_recall(A[0], d)
    # R = (0.4*0.9 + 0*1.0) / 2 tokens; P: hyp tokens 5, 6 take d of the same reference ids.
    assert r == pytest.approx(0.18) and p == pytest.approx(0.18)
    p, r = da_precision_recall(B[0], d)
    # hyp token 7 is not in the reference: weight 1 -> P = (1*0.3 + 0*1.0) / 2
    assert r == pytest.approx(0.4 * 0.3 / 2) and p == pytest.approx(0.15)


def test_repeated_reference_token_takes_mean_difficulty():
    m = tm([5], [0.8], [5, 5], [0.8, 0.6])
    p, _ = da_precision_recall(m, np.array([0.2, 0.6]))
    assert p == pytest.approx(0.4 * 0.8)


def test_variants_and_errors():
    d = token_difficulty({"A": A, "B": B})
    paper = da_system_stats({"A": A, "B": B}, d, variant="paper")
    authors = da_system_stats({"A": A, "B": B}, d, variant="authors")
    assert paper.system_scores()["A"] == pytest.approx(0.18)  # one segment: both agree
    assert authors.system_scores()["A"] == pytest.approx(0.18)
    assert paper.system_scores()["A"] > paper.system_scores()["B"]
    with pytest.raises(ValueError, match="unknown DA variant"):
        da_system_stats({"A": A}, d, variant="x")
    with pytest.raises(ValueError, match="no matches for systems"):
        token_difficulty({"A": A}, ["Z"])
    with pytest.raises(ValueError, match="difficulty has 1 values for 2"):
        da_precision_recall(A[0], np.array([0.1]))


def test_authors_variant_is_f_of_means():
    two = [tm([1], [0.5], [1], [0.5]), tm([2, 3], [1.0, 0.2], [2], [1.0])]
    d = [np.array([0.5]), np.array([0.5])]
    stats = da_system_stats({"S": two}, d, variant="authors")
    p = np.mean([0.25, (0.5 * 1.0 + 1 * 0.2) / 2])
    r = np.mean([0.25, 0.5])
    assert stats.system_scores()["S"] == pytest.approx(2 * p * r / (p + r))


def test_exact_matches_give_token_overlap():
    from mtlib.bertscore import exact_matches, prf
    m = exact_matches([tm([5, 7, 7], [0.9, 0.2, 0.1], [5, 6], [0.9, 0.5])])[0]
    np.testing.assert_array_equal(m.hyp_max, [1, 0, 0])
    np.testing.assert_array_equal(m.ref_max, [1, 0])
    p, r, f = prf([m])[0]
    assert (p, r) == (pytest.approx(1 / 3), pytest.approx(1 / 2)) and f == pytest.approx(0.4)


def test_exact_matches_of_many_pairs_at_once_equal_one_lookup_per_pair():
    """One np.isin over (pair, token) keys must equal np.isin pair by pair: tokens of one pair
    never match another pair's, empty sides and repeated ids included."""
    from mtlib.bertscore import exact_matches
    rng = np.random.default_rng(3)
    pairs = []
    for n_h, n_r in [(0, 4), (3, 0), (0, 0), (1, 1)] + [tuple(rng.integers(0, 30, 2)) for _ in range(200)]:
        h, r = rng.integers(0, 12, n_h), rng.integers(0, 12, n_r)  # few ids: many repeats, many hits
        pairs.append(tm(h, rng.random(n_h), r, rng.random(n_r)))
    pairs.append(tm([2**31 + 5, 7], [0.1, 0.2], [2**31 + 5], [0.3]))  # a large id keeps its pair
    got = exact_matches(pairs)
    assert len(got) == len(pairs) and exact_matches([]) == []
    for m, g in zip(pairs, got):
        np.testing.assert_array_equal(g.hyp_max, np.isin(m.hyp_ids, m.ref_ids).astype(float))
        np.testing.assert_array_equal(g.ref_max, np.isin(m.ref_ids, m.hyp_ids).astype(float))
        assert g.hyp_max.dtype == np.float64 and g.hyp_ids is m.hyp_ids


def test_da_curve_recomputes_difficulty_per_k():
    from mtlib.difficulty import da_correlation_curve
    rng = np.random.default_rng(0)
    matches, human = {}, {}
    for i in range(5):
        q = 0.5 + 0.1 * i  # better systems match the reference better
        matches[f"s{i}"] = [tm([1, 2, 3], rng.uniform(q - 0.05, q, 3), [1, 2, 4], rng.uniform(q - 0.05, q, 3))
                            for _ in range(4)]
        human[f"s{i}"] = float(i)
    curve = da_correlation_curve(matches, human, [3, 5])
    assert list(curve["k"]) == [3, 5] and (curve["value"] > 0).all()
    top3 = ["s4", "s3", "s2"]
    d3 = token_difficulty(matches, top3)
    want = da_system_stats({s: matches[s] for s in top3}, d3).system_scores()
    from mtlib.correlation import correlate
    assert curve["value"][0] == pytest.approx(correlate(want, human, "kendall", systems=top3).value)


def test_baseline_curve_is_the_correlation_at_each_b():
    from mtlib.correlation import correlate
    from mtlib.difficulty import da_baseline_curve
    rng = np.random.default_rng(0)
    systems = {f"s{k}": [tm([5, 6, 9], rng.uniform(0.5, 1, 3), [5, 6, 7], rng.uniform(0.5, 1, 3)) for _ in range(4)]
               for k in range(5)}
    human = {f"s{k}": float(v) for k, v in enumerate(rng.normal(size=5))}
    curve = da_baseline_curve(systems, human, [0.0, 0.4], systems=["s0", "s1", "s2", "s3"])
    assert list(curve["b"]) == [0.0, 0.0, 0.4, 0.4] and list(curve["method"]) == ["pearson", "kendall"] * 2
    for b, bf in [(0.0, None), (0.4, 0.4)]:  # b = 0 is no rescaling
        top = {s: systems[s] for s in ["s0", "s1", "s2", "s3"]}
        scores = da_system_stats(top, token_difficulty(top, baseline_f=bf), variant="authors",
                                 baseline_f=bf).system_scores()
        want = correlate(scores, human, "pearson", systems=list(top)).value
        assert curve[(curve.b == b) & (curve.method == "pearson")]["value"].item() == pytest.approx(want)


def _random_matches(seed: int, n_systems: int = 10, n_segments: int = 60) -> dict[str, list[TokenMatches]]:
    """float32 matches as the cache returns them: sentences of 0-150 tokens, small vocabularies
    (so tokens repeat, some more than eight times in one sentence), empty hypotheses and references,
    one-token references, and more than eight systems (NumPy sums eight or more values pairwise)."""
    rng = np.random.default_rng(seed)
    ref_ids = [rng.integers(0, 12, rng.choice([0, 1, 3, 9, 40, 150])) for _ in range(n_segments)]
    out = {}
    for s in range(n_systems):
        out[f"s{s}"] = [TokenMatches(h := rng.integers(0, 20, rng.choice([0, 1, 5, 17, 60])),
                                     rng.uniform(0.2, 1, len(h)).astype(np.float32),
                                     r, rng.uniform(0.2, 1, len(r)).astype(np.float32)) for r in ref_ids]
    return out


@pytest.mark.parametrize("baseline_f", [None, 0.3, np.float64(0.4123)])
def test_index_equals_the_pair_by_pair_definition_to_the_last_bit(baseline_f):
    from mtlib.difficulty import DifficultyIndex
    matches = _random_matches(1)
    index = DifficultyIndex(matches)
    for systems in [None, ["s2", "s0"]]:
        chosen = list(matches if systems is None else systems)
        # eq. 2 segment by segment, as the definition reads
        rescale = (lambda x: x) if baseline_f is None else (lambda x: (x - baseline_f) / (1 - baseline_f))
        want_d = [1.0 - np.stack([rescale(matches[s][i].ref_max) for s in chosen]).mean(axis=0)
                  for i in range(60)]
        got_d = token_difficulty(index, systems, baseline_f=baseline_f)
        for g, w in zip(got_d, want_d):
            np.testing.assert_array_equal(g, w)
        stats = index.stats_arrays(index.flatten(got_d), systems, variant="authors", baseline_f=baseline_f)
        for s in chosen:
            want = np.array([da_precision_recall(m, d, baseline_f=baseline_f) for m, d in zip(matches[s], want_d)])
            np.testing.assert_array_equal(stats[s][:, :2], want)


def test_index_errors_name_the_problem():
    from mtlib.difficulty import DifficultyIndex
    with pytest.raises(ValueError, match="different numbers of segments"):
        DifficultyIndex({"A": A, "B": A + B})
    with pytest.raises(ValueError, match=r"system 'B' has 1 reference token\(s\), 'A' 2"):
        DifficultyIndex({"A": A, "B": [tm([7], [0.3], [5], [0.3])]})
    mixed = TokenMatches(np.array([5]), np.array([0.9], np.float32), np.array([5, 6]), np.array([0.9, 1.0]))
    with pytest.raises(ValueError, match="several dtypes"):
        DifficultyIndex({"A": A, "B": [mixed]})
    index = DifficultyIndex({"A": A, "B": B})
    with pytest.raises(ValueError, match="no matches for systems"):
        index.difficulty(["zz"])
    with pytest.raises(ValueError, match="flat difficulty has 1 values for 2"):
        index.flatten(np.zeros(1))
    with pytest.raises(ValueError, match="1 segments but difficulty for 2"):
        index.flatten([np.zeros(2), np.zeros(2)])
    with pytest.raises(ValueError, match="segment 0: difficulty has 3 values for 2"):
        index.flatten([np.zeros(3)])
