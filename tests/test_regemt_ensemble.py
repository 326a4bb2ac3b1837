"""RegEMT's model selection: the inner validation split by source (the default) or by rows at
random, on synthetic rows whose sources carry a level of their own.

Expected values: the random split must reproduce scikit-learn's ``train_test_split`` of the
rows (the earlier behaviour, bit for bit); the by-source split must keep every source on one
side; on rows whose target is a per-source level that the features only *name* (a random code
per source, no rule a model could carry to a new source), the random split rewards the MLP for
memorising the sources and the by-source split does not."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

from mtlib.regemt.ensemble import INNER_SPLITS, fit_ensemble, inner_split_rows, split_by_source  # noqa: E402


def test_inner_split_by_source_keeps_sources_apart():
    groups = [f"s{i // 3}" for i in range(60)]  # 20 sources, 3 rows each
    fit, val = inner_split_rows(60, groups=groups, fraction=0.2, seed=7)
    assert sorted([*fit, *val]) == list(range(60))
    assert not {groups[i] for i in fit} & {groups[i] for i in val}
    assert len({groups[i] for i in val}) == 4  # 20% of the 20 sources
    # the same as split_by_source with the seed: the shuffle is part of the seed
    want = split_by_source(groups, test_fraction=0.2, seed=7)
    np.testing.assert_array_equal(fit, want[0]) and np.testing.assert_array_equal(val, want[1])


def test_inner_split_at_random_is_train_test_split_of_the_rows():
    from sklearn.model_selection import train_test_split
    fit, val = inner_split_rows(50, how="random", fraction=0.2, seed=42)
    want_fit, want_val = train_test_split(np.arange(50), test_size=0.2, random_state=42)
    np.testing.assert_array_equal(fit, want_fit) and np.testing.assert_array_equal(val, want_val)


@pytest.mark.parametrize("kwargs, message", [
    ({"how": "rows"}, r"inner_split must be one of \['source', 'random'\], got 'rows'"),
    ({}, "inner_split='source' needs groups"),
    ({"groups": ["a", "b"]}, "groups has 2 entries for 10 rows"),
])
def test_inner_split_refuses_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        inner_split_rows(10, **kwargs)
    assert INNER_SPLITS == ("source", "random")


def _linear_rows(n=200, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return pd.DataFrame({"x": x, "noise": rng.normal(size=n)}), 2 * x + rng.normal(scale=0.1, size=n)


def test_random_split_reproduces_the_earlier_fit():
    """The old selection, written out: train_test_split of the rows, both candidates fitted,
    the higher R² wins."""
    from sklearn.base import clone
    from sklearn.metrics import r2_score
    from sklearn.model_selection import train_test_split

    from mtlib.regemt import ensemble
    feats, y = _linear_rows()
    got = fit_ensemble(feats, y, inner_split="random", seed=3)
    x_fit, x_val, y_fit, y_val = train_test_split(feats.to_numpy(float), y, test_size=0.2, random_state=3)
    for name, model in ensemble._candidates(3).items():
        pipe = ensemble._pipeline(clone(model), 3).fit(x_fit, y_fit)
        assert got.inner_r2[name] == pytest.approx(r2_score(y_val, pipe.predict(x_val)), abs=1e-12)
    assert got.inner_split == "random" and got.choice == max(got.inner_r2, key=got.inner_r2.get)


def test_fit_ensemble_needs_the_sources_for_the_default_split():
    feats, y = _linear_rows()
    with pytest.raises(ValueError, match="needs groups"):
        fit_ensemble(feats, y)
    fitted = fit_ensemble(feats, y, groups=[f"s{i // 4}" for i in range(len(y))])
    assert fitted.inner_split == "source" and fitted.inner_r2["linear"] > 0.95


def _leaky_rows(n_sources=20, per_source=8, seed=0):
    """Every source has a level (the target, plus a little noise per translation); the features
    are a random code of the source (two numbers, unrelated to the level) and noise."""
    rng = np.random.default_rng(seed)
    level = rng.normal(size=n_sources)
    code = rng.normal(size=(n_sources, 2))
    src = np.repeat(np.arange(n_sources), per_source)
    feats = pd.DataFrame({"code 1": code[src, 0], "code 2": code[src, 1],
                          "noise": rng.normal(size=len(src))})
    return feats, level[src] + rng.normal(scale=0.05, size=len(src)), [f"s{k:02d}" for k in src]


def test_a_random_split_rewards_memorising_the_sources():
    feats, y, groups = _leaky_rows()
    by_rows = fit_ensemble(feats, y, inner_split="random")
    by_source = fit_ensemble(feats, y, groups=groups)
    # rows at random: the validation rows' sources are in the fit, the MLP looks them up
    assert by_rows.choice == "mlp" and by_rows.inner_r2["mlp"] > 0.5
    # held-out sources: their codes say nothing about their level
    assert by_source.inner_r2["mlp"] < 0.2 and by_source.inner_r2["linear"] < 0.2


def _fits_on_disk():
    from mtlib import paths
    return sorted((paths.cache_dir() / "fits").glob("*.pkl"))


def test_a_repeated_fit_is_read_from_the_cache(monkeypatch):
    """The second fit of the same rows is the first one read back (no scikit-learn fit runs:
    the candidates are made to fail), with the same predictions to the last bit; a changed
    input (the seed, one target value, a feature name) is a new entry."""
    from mtlib.regemt import ensemble
    feats, y = _linear_rows(n=80)
    groups = [f"s{i // 4}" for i in range(len(y))]
    first = fit_ensemble(feats, y, groups=groups, seed=5)
    assert len(_fits_on_disk()) == 1

    def no_fitting(seed):
        raise AssertionError("refitted instead of reading the cache")
    with monkeypatch.context() as patch:  # (undo() would also undo the test's own cache folder)
        patch.setattr(ensemble, "_candidates", no_fitting)
        again = fit_ensemble(feats, y, groups=groups, seed=5)
    assert (again.choice, again.inner_r2, again.features) == (first.choice, first.inner_r2, first.features)
    np.testing.assert_array_equal(again.predict(feats), first.predict(feats))

    changed_y, changed_x = y.copy(), feats.copy()
    changed_y[0] += 1e-12
    changed_x.iloc[3, 1] += 1e-12
    fit_ensemble(feats, y, groups=groups, seed=6)
    fit_ensemble(feats, changed_y, groups=groups, seed=5)
    fit_ensemble(changed_x, y, groups=groups, seed=5)
    fit_ensemble(feats.rename(columns={"noise": "other"}), y, groups=groups, seed=5)
    fit_ensemble(feats, y, groups=groups, seed=5, inner_fraction=0.3)  # other inner split rows
    fit_ensemble(feats, y, groups=[f"s{i // 5}" for i in range(len(y))], seed=5)  # other sources, other rows
    assert len(_fits_on_disk()) == 7


def test_no_cache_fits_afresh_and_writes_nothing(tmp_path):
    feats, y = _linear_rows(n=60)
    fitted = fit_ensemble(feats, y, inner_split="random", cache=False)
    assert _fits_on_disk() == []
    folder = tmp_path / "elsewhere"
    again = fit_ensemble(feats, y, inner_split="random", cache=folder)
    assert len(list((folder / "fits").glob("*.pkl"))) == 1
    np.testing.assert_array_equal(again.predict(feats), fitted.predict(feats))


@pytest.mark.parametrize("damage", [b"", b"not a pickle", "other key"])
def test_a_damaged_or_foreign_cache_entry_is_refitted_with_a_warning(damage):
    import pickle
    feats, y = _linear_rows(n=60)
    first = fit_ensemble(feats, y, inner_split="random")
    [entry] = _fits_on_disk()
    if damage == "other key":
        entry.write_bytes(pickle.dumps(("another key", first)))
    else:
        entry.write_bytes(damage)
    with pytest.warns(UserWarning, match=r"fit cache entry .* (is unreadable .*|was written for another fit); refitting"):
        again = fit_ensemble(feats, y, inner_split="random")
    np.testing.assert_array_equal(again.predict(feats), first.predict(feats))
    with open(entry, "rb") as f:  # replaced by the refit
        assert pickle.load(f)[0] != "another key"


def test_an_unwritable_cache_costs_a_warning_not_the_fit(tmp_path):
    feats, y = _linear_rows(n=60)
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache folder would be")
    with pytest.warns(UserWarning, match="fit cache entry .* could not be written"):
        fitted = fit_ensemble(feats, y, inner_split="random", cache=blocked)
    np.testing.assert_array_equal(fitted.predict(feats), fit_ensemble(feats, y, inner_split="random",
                                                                      cache=False).predict(feats))
