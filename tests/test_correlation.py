import math

import numpy as np
import pytest
from scipy import stats

from mtlib.correlation import correlate, correlation_curve, correlation_table, segment_correlation, top_systems
from mtbook.paper_results import DA_TABLE1, DA_TABLE2, DA_TABLE2_SUM_ABS_DELTA
from mtlib.ranking import rank_agreement

RNG = np.random.default_rng(7)
X = RNG.normal(size=12)
Y = X + RNG.normal(size=12)
NAMES = [f"s{i}" for i in range(12)]


@pytest.mark.parametrize("method, variant, scipy_fn", [
    ("pearson", "b", lambda x, y: stats.pearsonr(x, y)),
    ("spearman", "b", lambda x, y: stats.spearmanr(x, y)),
    ("kendall", "b", lambda x, y: stats.kendalltau(x, y, variant="b")),
    ("kendall", "c", lambda x, y: stats.kendalltau(x, y, variant="c")),
])
def test_parity_with_scipy(method, variant, scipy_fn):
    c = correlate(dict(zip(NAMES, X)), dict(zip(NAMES, Y)), method, variant=variant)
    ref = scipy_fn(X, Y)
    assert c.value == pytest.approx(ref.statistic, abs=1e-12)
    assert c.pvalue == pytest.approx(ref.pvalue, abs=1e-12)
    assert c.n == 12
    assert c.statistic == (f"kendall-{variant}" if method == "kendall" else method)


def test_kendall_hand_value():
    # 3 systems, pairs (1,2) (1,3) concordant, (2,3) discordant: tau = (2 - 1) / 3.
    c = correlate({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 3, "c": 2}, "kendall")
    assert c.value == pytest.approx(1 / 3)


def test_none_human_scores_dropped_in_tandem():
    metric = {"a": 1.0, "b": 2.0, "c": 3.0, "d": 100.0}
    human = {"a": 1.0, "b": 2.0, "c": 3.0, "d": None}
    c = correlate(metric, human, "pearson")
    assert c.n == 3 and c.value == pytest.approx(1.0)


def test_constant_input_gives_nan_not_exception():
    c = correlate({"a": 1.0, "b": 1.0, "c": 1.0}, {"a": 1.0, "b": 2.0, "c": 3.0}, "kendall")
    assert math.isnan(c.value)


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown correlation method 'cosine'"):
        correlate({"a": 1}, {"a": 1}, "cosine")
    with pytest.raises(ValueError, match="unknown Kendall variant 'a'"):
        correlate({"a": 1}, {"a": 1}, "kendall", variant="a")
    with pytest.raises(ValueError, match=r"no metric score for systems \['b'\]"):
        correlate({"a": 1}, {"a": 1, "b": 2})


@pytest.mark.parametrize("n, k", [(22, 6), (16, 4), (20, 6), (10, 3), (3, 0)])
def test_top_fraction_is_floor(n, k):
    human = {f"s{i:02d}": float(i) for i in range(n)}
    if k == 0:
        with pytest.raises(ValueError, match="k must be in 1.."):
            top_systems(human, fraction=0.3)
    else:
        assert top_systems(human, fraction=0.3) == [f"s{i:02d}" for i in range(n - 1, n - 1 - k, -1)]


def test_top_systems_skips_missing_and_breaks_ties_by_name():
    human = {"b": 1.0, "a": 1.0, "c": None, "d": 0.5}
    assert top_systems(human, 2) == ["a", "b"]
    with pytest.raises(ValueError, match="exactly one of k or fraction"):
        top_systems(human)


def test_correlation_curve_and_table():
    human = dict(zip(NAMES, Y))
    curve = correlation_curve({"m": dict(zip(NAMES, X))}, human)
    assert list(curve["k"]) == list(range(3, 13))
    full = curve.loc[curve["k"] == 12, "value"].item()
    assert full == pytest.approx(stats.kendalltau(X, Y).statistic)
    table = correlation_table({"m": dict(zip(NAMES, X))}, human, {"all": None, "top": top_systems(human, 5)})
    assert list(table["stat"][:3]) == ["r", "tau", "rho"] and set(table["n"]) == {12, 5}
    assert (table["abs"] == table["value"].abs()).all()
    flipped = correlation_table({"m": dict(zip(NAMES, X)), "err": {n: -x for n, x in zip(NAMES, X)}}, human,
                                {"all": None}, lower_is_better=["err"])
    by = flipped.set_index(["metric", "stat"])["value"]
    for stat in ("r", "tau", "rho"):  # an error count that falls as m rises agrees as much as m
        assert by[("err", stat)] == pytest.approx(by[("m", stat)])
    with pytest.raises(ValueError, match="lower_is_better names metrics not given"):
        correlation_table({"m": dict(zip(NAMES, X))}, human, {"all": None}, lower_is_better=["TER"])


def test_wide_beside_paper_keeps_the_sign():
    import pandas as pd

    from mtbook.paper_tables import beside_paper, wide_beside_paper
    ours = pd.DataFrame({"metric": ["A", "A"], "stat": ["r", "tau"], "value": [-0.5484, 0.9], "abs": [0.5484, 0.9]})
    paper = pd.DataFrame({"metric": ["A", "A"], "stat": ["r", "tau"], "paper": [0.548, 0.7]})
    wide = wide_beside_paper(beside_paper(ours, paper, on=["metric", "stat"]), ["metric"], ["r", "tau"])
    row = wide.loc["A"]
    assert row["r ours"] == -0.548 and row["|r| paper"] == 0.548 and row["Δ|r|"] == 0.0
    assert row["tau ours"] == 0.9 and row["Δ|tau|"] == pytest.approx(0.2)
    # a paper that prints r signed and |tau|: the signed difference for r
    wide = wide_beside_paper(beside_paper(ours, paper, on=["metric", "stat"]), ["metric"], ["r", "tau"],
                             absolute=["tau"])
    assert list(wide.columns) == ["r ours", "r paper", "Δr", "tau ours", "|tau| paper", "Δ|tau|"]
    assert wide.loc["A", "Δr"] == pytest.approx(-1.096) and wide.loc["A", "Δ|tau|"] == pytest.approx(0.2)
    with pytest.raises(ValueError, match="absolute: \\['rho'\\] not among the stats"):
        wide_beside_paper(beside_paper(ours, paper, on=["metric", "stat"]), ["metric"], ["r", "tau"], absolute=["rho"])


# The difficulty-aware paper's Table 2 (top-6 WMT19 en-de systems): the printed Δrank sums.
@pytest.mark.parametrize("metric", ["BLEU", "TER", "METEOR", "BERTScore", "DA-BERTScore"])
def test_rank_agreement_reproduces_paper_table2(metric):
    systems = list(DA_TABLE2)
    human = {s: v["HUMAN"] for s, v in DA_TABLE2.items()}
    scores = {s: v[metric] for s, v in DA_TABLE2.items()}
    ra = rank_agreement(scores, human, systems, higher_is_better=metric != "TER")
    assert ra.attrs["sum_abs_delta"] == DA_TABLE2_SUM_ABS_DELTA[metric]
    if metric == "BLEU":  # arrows printed in the paper: ↓5 ↓1 ↑1 ↑3 ✓0 ↑2
        assert list(ra["delta"]) == [-5, -1, 1, 3, 0, 2]


def test_paper_tables_agree_for_bleu_and_ter():
    # Table 2's BLEU and TER scores give Table 1's top-30% en-de correlations: a check of
    # our statistics against two tables of the same paper.
    human = {s: v["HUMAN"] for s, v in DA_TABLE2.items()}
    for metric in ["BLEU", "TER"]:
        scores = {s: v[metric] for s, v in DA_TABLE2.items()}
        got = tuple(round(abs(correlate(scores, human, m).value), 3) for m in ("pearson", "kendall", "spearman"))
        assert got == DA_TABLE1[("en-de", "top30")][metric]


def test_rank_agreement_rejects_missing_scores():
    with pytest.raises(ValueError, match="no metric or human score"):
        rank_agreement({"a": 1.0}, {"a": 1.0, "b": 2.0}, ["a", "b"])
    with pytest.raises(ValueError, match=r"no metric or human score \(None or NaN\) for \['b'\]"):
        rank_agreement({"a": 1.0, "b": 2.0}, {"a": 1.0, "b": float("nan")}, ["a", "b"])  # was ranked as garbage


def test_correlation_curve_counts_only_systems_with_a_human_score():
    human = dict(zip(NAMES, Y))
    human[NAMES[0]], human[NAMES[1]] = float("nan"), None  # not judged: top_systems leaves them out
    curve = correlation_curve({"m": dict(zip(NAMES, X))}, human)  # K = 12 here raised "k must be in 1..10"
    assert list(curve["k"]) == list(range(3, 11))
    full = curve.loc[curve["k"] == 10, "value"].item()
    assert full == pytest.approx(stats.kendalltau(X[2:], Y[2:]).statistic)


def test_segment_correlation_pools_judged_pairs_only():
    metric = {"a": [0.1, 0.5, 0.9], "b": [0.2, 0.4, float("nan")]}
    human = {"a": [1.0, 2.0, 4.0], "b": [1.5, None, None]}  # b's last two segments not judged
    c = segment_correlation(metric, human, "pearson")
    assert c.n == 4
    assert c.value == pytest.approx(stats.pearsonr([0.1, 0.5, 0.9, 0.2], [1.0, 2.0, 4.0, 1.5]).statistic)
    assert segment_correlation(metric, human, "kendall").value == pytest.approx(
        stats.kendalltau([0.1, 0.5, 0.9, 0.2], [1.0, 2.0, 4.0, 1.5]).statistic)


@pytest.mark.parametrize("metric, human, message", [
    ({"a": [0.1, 0.2]}, {"a": [1.0, 2.0], "b": [1.0, 2.0]}, "no metric scores for systems \\['b'\\]"),
    ({"a": [0.1, 0.2]}, {"a": [1.0, 2.0, 3.0]}, "a has 2 metric scores but 3 human scores"),
    ({"a": [0.1, float("nan")]}, {"a": [1.0, 2.0]}, "a has NaN metric scores on judged segments"),
])
def test_segment_correlation_errors_name_the_problem(metric, human, message):
    with pytest.raises(ValueError, match=message):
        segment_correlation(metric, human)


def test_resampled_spearman_equals_scipy_on_the_repeated_items():
    from mtlib.correlation import resampled_spearman
    rng = np.random.default_rng(5)
    n = 40
    x = np.round(rng.normal(size=n), 1)  # ties within x
    y = np.round(rng.normal(size=n), 1)
    x[[3, 17]] = np.nan  # left out pair by pair
    y[8] = np.inf
    counts = rng.integers(0, 3, size=(60, n))
    counts[:5] = 0
    counts[0, [0, 1]] = 2  # four pairs of two distinct items: defined
    counts[1, [0]] = 1  # one pair
    counts[2, [0, 1, 2]] = 1
    counts[2, 3] = 5  # three pairs, and a NaN x drawn five times (left out)
    counts[3, [0, 1]] = 1  # exactly two pairs
    counts[4, [0, 1, 3, 8]] = (1, 1, 4, 2)  # two pairs, and six left out
    got = resampled_spearman(x, y, counts)
    for b, c in enumerate(counts):
        xx, yy = np.repeat(x, c), np.repeat(y, c)
        ok = np.isfinite(xx) & np.isfinite(yy)
        xx, yy = xx[ok], yy[ok]
        if len(xx) < 3 or np.ptp(xx) == 0 or np.ptp(yy) == 0:
            assert math.isnan(got[b]), b
        else:
            assert got[b] == pytest.approx(stats.spearmanr(xx, yy).statistic, abs=1e-13), b
    assert not math.isnan(got[0]) and not math.isnan(got[2])
    assert math.isnan(got[1]) and math.isnan(got[3]) and math.isnan(got[4])
    constant = resampled_spearman(np.ones(n), y, counts)
    assert np.isnan(constant).all()
    with pytest.raises(ValueError, match="40 x values, 39 y values"):
        resampled_spearman(x, y[:-1], counts)
    with pytest.raises(ValueError, match="counts >= 0"):
        resampled_spearman(x, y, -counts)
