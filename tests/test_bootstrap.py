import numpy as np
import pytest

from mtlib.bootstrap import bootstrap_correlations, resample_counts
from mtlib.data import load_evalset
from mtlib.metrics import BLEU, TER
from mtlib.scoring import score_systems


def test_resample_counts():
    c = resample_counts(50, 20, seed=0)
    assert c.shape == (20, 50) and (c.sum(axis=1) == 50).all()
    np.testing.assert_array_equal(c, resample_counts(50, 20, seed=0))  # seed 0 is a seed, not "none"
    assert not np.array_equal(c, resample_counts(50, 20, seed=1))
    with pytest.raises(ValueError, match="n_segments >= 1"):
        resample_counts(0, 5, seed=0)


def test_bootstrap_interval_brackets_point(tiny_mtme):
    evs = load_evalset("toy", "de-en", root=tiny_mtme)
    stats = {"BLEU": score_systems(evs, BLEU(), cache=False), "TER": score_systems(evs, TER(), cache=False)}
    df, samples = bootstrap_correlations(stats, evs.human_sys(), "pearson", n_resamples=200, seed=3,
                                         return_samples=True)
    assert list(df.index) == ["BLEU", "TER"] and (df["n"] == 3).all()
    assert (df["low"] <= df["value"] + 1e-9).all() and (df["value"] <= df["high"] + 1e-9).all()
    assert df.loc["TER", "value"] > 0  # TER is negated: agreement with humans is positive
    assert samples["BLEU"].shape == (200,)
    assert df.attrs["signature"] == "bootstrap:segments|human:fixed|stat:pearson|n:200|seed:3|ci:95%-percentile"
    again = bootstrap_correlations(stats, evs.human_sys(), "pearson", n_resamples=200, seed=3)
    assert again.equals(df)


def test_bootstrap_matches_direct_rescoring(tiny_mtme):
    # One resample by hand: re-scoring the drawn segments gives the same corpus score.
    evs = load_evalset("toy", "de-en", root=tiny_mtme)
    st = score_systems(evs, BLEU(), cache=False)
    counts = resample_counts(4, 1, seed=5)[0]
    ids = [i for i in range(4) for _ in range(counts[i])]
    hyps = [evs.outputs["sysB"][i] for i in ids]
    refs = [[evs.refs["ref"][i] for i in ids]]
    assert BLEU().score_from_stats(counts @ st["sysB"]) == pytest.approx(BLEU().corpus_score(hyps, refs))


def test_bootstrap_rejects_mismatched_segments(tiny_mtme):
    evs = load_evalset("toy", "de-en", root=tiny_mtme)
    a = score_systems(evs, BLEU(), cache=False)
    b = score_systems(evs.head(2), BLEU(), cache=False)
    with pytest.raises(ValueError, match="same segments"):
        bootstrap_correlations({"a": a, "b": b}, evs.human_sys())
    with pytest.raises(ValueError, match="alpha"):
        bootstrap_correlations({"a": a}, evs.human_sys(), alpha=1.5)


def test_bootstrap_with_segment_level_human(tiny_mtme):
    evs = load_evalset("toy", "de-en", root=tiny_mtme)
    stats = {"TER": score_systems(evs, TER(), cache=False)}
    human_segments = {"sysA": np.array([0, 0, 0, 0.0]), "sysB": np.array([1, 0, 1, 0.0]),
                      "sysC": np.array([2, 2, 1, 3.0])}
    df = bootstrap_correlations(stats, None, "pearson", human_segments=human_segments, n_resamples=100, seed=0)
    # point value: correlation with the per-system means (0, 0.5, 2)
    direct = bootstrap_correlations(stats, {"sysA": 0.0, "sysB": 0.5, "sysC": 2.0}, "pearson", n_resamples=10, seed=0)
    assert df.loc["TER", "value"] == pytest.approx(direct.loc["TER", "value"])
    assert "human:resampled" in df.attrs["signature"]
    with pytest.raises(ValueError, match="exactly one of human"):
        bootstrap_correlations(stats, {"sysA": 1.0}, human_segments=human_segments)
    with pytest.raises(ValueError, match="must have 4 values"):
        bootstrap_correlations(stats, None, human_segments={"sysA": np.zeros(3)})


@pytest.mark.parametrize("method", ["pearson", "kendall", "spearman"])
def test_resamples_computed_together_equal_scipy_one_by_one(method):
    from mtlib.bertscore import SentenceMean
    from mtlib.correlation import correlation_with_p
    from mtlib.scoring import SystemStats
    rng = np.random.default_rng(4)
    n_sys, n_seg = 9, 40
    data = {f"s{k}": np.column_stack([rng.normal(k / 3, 1, n_seg), np.ones(n_seg)]) for k in range(n_sys)}
    data["s0"][:, 0] = data["s1"][:, 0]  # two systems tie in every resample
    stats = {"M": SystemStats(SentenceMean("M", 0, "M"), ["ref"], data)}
    human = {f"s{k}": float(k + rng.normal()) for k in range(n_sys)}
    _, samples = bootstrap_correlations(stats, human, method, n_resamples=300, seed=2, return_samples=True)
    counts = resample_counts(n_seg, 300, seed=2)
    kept = sorted(human)
    y = np.array([human[s] for s in kept])
    want = [correlation_with_p(np.array([c @ data[s][:, 0] / n_seg for s in kept]), y, method, "b")[0]
            for c in counts]
    np.testing.assert_allclose(samples["M"], want, rtol=0, atol=1e-14)


def test_group_resample_counts_moves_groups_together_and_keeps_the_draw_order():
    from mtlib.bootstrap import group_resample_counts
    groups = ["b", "a", "b", "c", "a", "b"]
    items, per_group = group_resample_counts(groups, 25, 7)
    assert per_group.shape == (25, 3) and items.shape == (25, 6)
    assert (per_group.sum(axis=1) == 3).all()  # each resample draws as many groups as there are
    # every item carries its group's count (groups numbered in order of first appearance: b, a, c)
    assert (items[:, [0, 2, 5]] == per_group[:, [0]]).all() and (items[:, [1, 4]] == per_group[:, [1]]).all()
    rng = np.random.default_rng(7)  # the same draws as one rng.integers call per resample, in order
    expected = np.stack([np.bincount(rng.integers(0, 3, 3), minlength=3) for _ in range(25)])
    assert (per_group == expected).all()
    with pytest.raises(ValueError, match="1 items have no group"):
        group_resample_counts(["a", None, "b"], 5, 0)


def test_resample_counts_counts_the_draws_of_one_integers_call():
    rng = np.random.default_rng(11)
    draws = rng.integers(0, 17, size=(30, 17))
    expected = np.zeros((30, 17), dtype=np.int32)
    np.add.at(expected, (np.arange(30)[:, None], draws), 1)
    got = resample_counts(17, 30, 11)
    assert got.dtype == np.int32 and (got == expected).all()
