"""The Otem/Utem chapter's analyses as tables and sentences: parameter checks, the human
translation among MT systems (the paper's Figure 2), agreement with MQM addition and omission
counts (Figures 3–4), and the metrics against BLEU on the human system scores (Table 1).

Correlations are *oriented*: ``signs`` turns each metric's score into "higher is better" (``-1``
for Otem and Utem, where lower is better), so that a larger correlation always means closer to
the humans. Every verdict that one metric agrees with the humans better or worse than another
rests on the paired permutation test PERM-BOTH (:mod:`mtlib.significance`): a "more"/"less" (or
"better"/"worse") verdict needs its one-sided p-value below ``alpha``.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from mtlib.data import load_evalset
from mtlib.mqm import MQM_ERROR_FILES
from mtbook.prose import and_list
from mtlib.significance import p_text, perm_both
from mtlib.testsets import source

__all__ = ["variant_paragraph", "data_line", "check_parameters", "ORIGINALS", "setting_label", "is_original", "human_standing", "fig2_summary", "fig2_verdict", "fig2_verdict_short",
           "mp_direction", "fig2_notes", "MQM_PAIRS", "agreement_lines", "error_totals", "mqm_tests",
           "mqm_verdicts", "mqm_summary", "versus_tests", "versus_table", "versus_sentence",
           "versus_baseline", "table_verdict", "correlations_text", "rank_moves", "rank_move_text", "median_ratio_text",
           "without_lowest"]

MQM_PAIRS = (("Addition", "OTEM-2"), ("Omission", "UTEM-4"))  # the error kind each metric should track


# -- parameters ---------------------------------------------------------------------------------

def check_parameters(human_translations: Sequence[tuple[str, ...]], mqm_sets: Sequence[tuple[str, str]],
                     table_set: tuple[str, str], table_refs: Sequence[str], *, root: Any = None) -> None:
    """Raise ValueError, naming the parameter, for a human translation that is not "TESTSET LP
    REFERENCE" or not a reference of its set, a Table 1 reference its set lacks, or an MQM set
    without error annotations. Nothing is scored before these checks."""
    bad = [" ".join(k) for k in human_translations if len(k) != 3]
    if bad:
        raise ValueError(f"parameter human_translations: expected strings such as 'wmt19 en-de refAR', got {bad}")
    for test_set, lp, ref in human_translations:
        refs = load_evalset(test_set, lp, root=root).refs
        if ref not in refs:
            raise ValueError(f"parameter human_translations: {test_set} {lp} has no reference {ref!r}; its "
                             f"references: {sorted(refs)}")
    table_evs_refs = load_evalset(*table_set, root=root).refs
    missing = [r for r in table_refs if r not in table_evs_refs]
    if missing:
        raise ValueError(f"parameter table_refs: {' '.join(table_set)} has no reference(s) {missing}; its "
                         f"references: {sorted(table_evs_refs)}")
    no_errors = [f"{t} {lp}" for t, lp in mqm_sets if (t, lp) not in MQM_ERROR_FILES]
    if no_errors:
        raise ValueError(f"parameter mqm_sets: no MQM error annotations for {no_errors}; available: "
                         f"{[' '.join(k) for k in MQM_ERROR_FILES]}")


# -- Figure 2: the human translation among the MT systems ----------------------------------------

ORIGINALS = (("wmt21.tedtalks", "zh-en", "refA"),)  # "human translations" that are the text the source came from


def setting_label(test_set: str, lp: str, human_ref: str, others: Sequence[str]) -> str:
    """"wmt19 en-de: refAR vs ref+refWMTp": a Figure 2 setting, the human translation and the
    references it is scored against."""
    return f"{test_set} {lp}: {human_ref} vs {'+'.join(others)}"


def is_original(setting: str) -> bool:
    """Whether a :func:`setting_label`'s human translation is one of :data:`ORIGINALS`."""
    return any(setting.startswith(f"{t} {lp}: {ref} vs ") for t, lp, ref in ORIGINALS)


def human_standing(mp: pd.DataFrame) -> pd.DataFrame:
    """Where the human translation stands among the MT systems, per setting and metric.

    ``mp`` has one row per (setting, metric, system, n) with columns ``kind`` (``human`` or
    ``MT``) and ``mp`` (the mismatch proportion; larger is worse). Returns one row per
    (setting, metric), in ``mp``'s order: ``lowest`` and ``highest``, the fewest and most MT
    systems with a *larger* proportion than the human translation over n; ``systems``, the MT
    systems; ``standing``: "better than most" if more than half are worse at every n, "worse
    than most" if fewer than half are at every n, else "among"."""
    rows = []
    for (setting, metric), d in mp.groupby(["setting", "metric"], sort=False):
        human = d[d.kind == "human"].set_index("n")["mp"]
        mt = d[d.kind == "MT"].pivot(index="n", columns="system", values="mp")
        worse, n_mt = mt.gt(human, axis=0).sum(axis=1), mt.shape[1]
        standing = ("better than most" if worse.min() > n_mt / 2 else "worse than most" if worse.max() < n_mt / 2
                    else "among")
        rows.append({"setting": setting, "metric": metric, "lowest": int(worse.min()), "highest": int(worse.max()),
                     "systems": n_mt, "standing": standing})
    return pd.DataFrame(rows)


def _span(lowest: int, highest: int) -> str:
    return f"{lowest}" if lowest == highest else f"{lowest}–{highest}"


def fig2_summary(standing: pd.DataFrame) -> str:
    """Per setting, "METRIC LOWEST–HIGHEST of SYSTEMS" for each metric (:func:`human_standing`)."""
    return "; ".join(f"{setting}: " + ", ".join(f"{r.metric} {_span(r.lowest, r.highest)} of {r.systems}"
                                                 for r in d.itertuples())
                     for setting, d in standing.groupby("setting", sort=False))


def fig2_verdict(standing: pd.DataFrame) -> str:
    """The Figure 2 verdict: :func:`fig2_verdict_short`, then whether both metrics set the human
    translation ahead of most MT systems at every n in some tested setting (as the paper's
    Figure 2 set it apart from RNNSearch); originals are no test and count for neither."""
    tested = standing[[not is_original(s) for s in standing.setting]]
    ahead = [s for s, d in tested.groupby("setting", sort=False) if (d.standing == "better than most").all()]
    return fig2_verdict_short(standing) + ". " + (
        f"Both set it ahead of most MT systems at every $n$ only in {', '.join(ahead)}." if ahead else
        "So in no tested setting do both metrics set the human translation apart from (ahead of) these MT systems, "
        "as the paper's Figure 2 set it apart from RNNSearch.")


def _count(lowest: int, highest: int, systems: int) -> str:
    """"7–13 of 22" ("2 of 22" where the count is the same at every n)."""
    return f"{lowest} of {systems}" if lowest == highest else f"{lowest}–{highest} of {systems}"


def _by_n(lowest: int, highest: int, systems: int) -> str:
    """What the counts of MT systems behind the human translation over n say."""
    half = systems / 2
    if lowest > half:
        return "ahead of most MT systems at every $n$"
    if highest < half:
        return "behind most MT systems at every $n$"
    if lowest < half < highest:
        return "ahead of most MT systems at some $n$ and behind most at others, so the verdict changes with $n$"
    return "neither ahead of nor behind most MT systems at every $n$"  # exactly half at some n


def fig2_verdict_short(standing: pd.DataFrame) -> str:
    """The conclusion's Figure 2 line, from the counts of :func:`human_standing`: per metric,
    where the human translation stands over n (ahead of most MT systems at every n, behind most
    at every n, or ahead at some n and behind at others: the verdict changes with n), with the
    range of MT systems behind it in each setting. Settings whose "human translation" is an
    original (:func:`is_original`) are no test of the metrics: they are left out of the verdict
    and listed apart, labelled as such."""
    tested = standing[[not is_original(s) for s in standing.setting]]
    sentences = []
    for metric, d in tested.groupby("metric", sort=False):
        groups: dict[str, list[str]] = {}
        for r in d.itertuples():
            groups.setdefault(_by_n(r.lowest, r.highest, r.systems), []).append(
                f"{_count(r.lowest, r.highest, r.systems)} for {r.setting}")
        sentences.append(f"{metric}: the human translation is " + "; ".join(
            f"{phrase} (ahead of {', '.join(counts)})" for phrase, counts in groups.items()))
    originals = standing[[is_original(s) for s in standing.setting]]
    for setting, d in originals.groupby("setting", sort=False):
        sentences.append(f'Not a test of the metrics, the "human translation" being the original the source was '
                         f"translated from: {setting} (" + ", ".join(
                             f"{r.metric} ahead of {_count(r.lowest, r.highest, r.systems)}" for r in d.itertuples())
                         + ")")
    return ". ".join(sentences)


def mp_direction(mp: pd.DataFrame, metric: str = "Utem") -> str:
    """Per setting, whether ``metric``'s proportion "rises" or "falls" from the first to the last
    n, for the MT systems (median over them) and for the human translation."""
    def direction(d):
        med = d.groupby("n")["mp"].median()
        return "rises" if med.iloc[-1] > med.iloc[0] else "falls"

    d = mp[mp.metric == metric]
    return "; ".join(f"{s}: {direction(g[g.kind == 'MT'])} for the MT systems (median), "
                     f"{direction(g[g.kind == 'human'])} for the human translation"
                     for s, g in d.groupby("setting", sort=False))


def fig2_notes(human_translations: Sequence[tuple[str, ...]]) -> str:
    """Caveats on the human translations scored (TED zh-en ``refA`` is the talk's original)."""
    if ORIGINALS[0] in [tuple(x) for x in human_translations]:
        return ('For TED zh-en the "human translation" `refA` is the English original of the talk (the Chinese '
                "source was translated from it), so its distance to the other reference is no test of the metrics.")
    return ""


# -- PERM-BOTH --------------------------------------------------------------------------------------

def _oriented_test(base: Sequence[float], metric: Sequence[float], human: Sequence[float], method: str,
                   n_permutations: int, seed: int | None) -> tuple[float, float]:
    """(gap, p): oriented correlation of ``metric`` minus that of ``base`` with ``human``, and the
    one-sided PERM-BOTH p-value of the observed direction ("metric more" if gap ≥ 0, else
    "metric less"); (NaN, NaN) where no correlation is defined (a constant series)."""
    try:
        more = perm_both(base, metric, human, method, n_permutations=n_permutations, seed=seed)
        if math.isnan(more.delta):
            return math.nan, math.nan
        if more.delta >= 0:
            return more.delta, more.pvalue
        return more.delta, perm_both(metric, base, human, method, n_permutations=n_permutations, seed=seed).pvalue
    except ValueError:  # a constant metric or fewer than three judged items: no test
        return math.nan, math.nan


# -- Figures 3-4: agreement with MQM additions and omissions ----------------------------------------

def _row(ted_corr: pd.DataFrame, lp: str, signal: str, metric: str) -> pd.Series:
    return ted_corr[(ted_corr.lp == lp) & (ted_corr.errors == signal) & (ted_corr.metric == metric)].iloc[0]


def _agree(row: pd.Series) -> str:
    return f"{row['agreement r']:+.2f} [{row['low']:+.2f}, {row['high']:+.2f}]"


def agreement_lines(ted_corr: pd.DataFrame, *, pairs=MQM_PAIRS, baseline: str = "BLEU") -> str:
    """Per set, each metric's agreement r [interval] beside the baseline's, on its error kind.
    ``ted_corr``: rows (lp, errors, metric) with ``agreement r``, ``low``, ``high``."""
    return "; ".join(f"{lp}: " + ", ".join(
        f"{metric} {_agree(_row(ted_corr, lp, signal, metric))} vs {baseline} "
        f"{_agree(_row(ted_corr, lp, signal, baseline))} on {signal.lower()}s" for signal, metric in pairs)
        for lp in dict.fromkeys(ted_corr.lp))


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def error_totals(ted_corr: pd.DataFrame, *, baseline: str = "BLEU") -> str:
    """Per set, the errors of each kind counted (column ``errors counted``)."""
    return "; ".join(f"{lp}: " + ", ".join(
        _plural(int(_row(ted_corr, lp, e, baseline)['errors counted']), e.lower())
        for e in dict.fromkeys(ted_corr[ted_corr.lp == lp].errors)) for lp in dict.fromkeys(ted_corr.lp))


def mqm_tests(ted: Mapping[str, Mapping[str, Any]], signs: Mapping[str, int], *, pairs=MQM_PAIRS,
              baseline: str = "BLEU", n_permutations: int = 1000, seed: int | None = None) -> pd.DataFrame:
    """Each metric against the baseline on its error kind, per set: PERM-BOTH on Pearson's r.

    ``ted``: set name -> ``systems``, ``stats`` (metric name -> object with ``system_scores()``)
    and ``counts`` (error kind -> system -> errors per segment). The human score of a system is
    minus its errors per segment (fewer errors is better), so agreement r is positive when a
    metric calls the systems with more errors worse. Returns one row per (lp, errors, metric):
    ``agreement`` and ``BASELINE agreement`` (oriented r), ``gap`` (their difference), ``p``
    (one-sided p of the observed direction; NaN: not tested), ``fewest``/``most`` errors of
    one system."""
    rows = []
    for lp, t in ted.items():
        systems = list(t["systems"])
        for signal, metric in pairs:
            errors = {s: np.asarray(t["counts"][signal][s], float) for s in systems}
            human = [-errors[s].mean() for s in systems]
            x = {m: [signs[m] * t["stats"][m].system_scores()[s] for s in systems] for m in (metric, baseline)}
            gap, p = _oriented_test(x[baseline], x[metric], human, "pearson", n_permutations, seed)
            corr = {m: pd.Series(x[m]).corr(pd.Series(human)) for m in x}
            rows.append({"lp": lp, "errors": signal, "metric": metric, "agreement": corr[metric],
                         f"{baseline} agreement": corr[baseline], "gap": gap, "p": p,
                         "fewest": int(min(v.sum() for v in errors.values())),
                         "most": int(max(v.sum() for v in errors.values()))})
    return pd.DataFrame(rows)


def _sign_of(row: pd.Series) -> str:
    return "above zero" if row["low"] > 0 else "below zero" if row["high"] < 0 else "not distinguishable from zero"


def _signs(metric: str, m: pd.Series, b: pd.Series, baseline: str) -> str:
    if _sign_of(m) == _sign_of(b):
        return (f"neither {metric}'s agreement nor {baseline}'s is distinguishable from zero" if "not" in _sign_of(m)
                else f"both {metric}'s and {baseline}'s agreement intervals lie {_sign_of(m)}")
    return f"{metric}'s agreement is {_sign_of(m)}, {baseline}'s {_sign_of(b)}"


def _versus_mqm(test: pd.Series, baseline: str, alpha: float, n_permutations: int) -> str:
    metric, kind = test["metric"], test["errors"].lower() + "s"
    if math.isnan(test["p"]):
        return f"{metric} was not tested against {baseline} (no correlation is defined)"
    if test["p"] < alpha:
        return (f"{metric} tracks {kind} {'better' if test['gap'] > 0 else 'worse'} than {baseline} "
                f"({test['gap']:+.3f} in agreement r; PERM-BOTH {p_text(test['p'], n_permutations)})")
    return (f"{metric} is not shown to track {kind} better or worse than {baseline}: the difference in agreement r "
            f"({test['gap']:+.3f}) is not significant at {alpha:.0%} (PERM-BOTH {p_text(test['p'], n_permutations)})")


def mqm_verdicts(ted_corr: pd.DataFrame, tests: pd.DataFrame, *, baseline: str = "BLEU", few_errors: int = 5,
                 alpha: float = 0.05, n_permutations: int = 1000) -> str:
    """One bullet per :func:`mqm_tests` row: errors per system, where the metric's and the
    baseline's bootstrap intervals (``ted_corr``) lie against zero, the PERM-BOTH verdict
    against the baseline (p-values written for ``n_permutations``, as the tests ran), and a
    warning when no system has more than ``few_errors`` errors (with, after a significant p,
    the reminder that PERM-BOTH holds the error counts fixed)."""
    lines = []
    for t in tests.to_dict("records"):
        m = _row(ted_corr, t["lp"], t["errors"], t["metric"])
        b = _row(ted_corr, t["lp"], t["errors"], baseline)
        few = (f" With at most {t['most']} marked errors per system, r rests on a handful of events and means little "
               "here" + (" (PERM-BOTH holds the error counts fixed, so its p leaves their noise out)."
                         if t["p"] < alpha else "."))
        lines.append(f"* {t['lp']}, {t['errors'].lower()}s ({t['fewest']}–{t['most']} per system): "
                     f"{_signs(t['metric'], m, b, baseline)}; {_versus_mqm(pd.Series(t), baseline, alpha, n_permutations)}."
                     + (few if t["most"] <= few_errors else ""))
    return "\n".join(lines)


def mqm_summary(ted_corr: pd.DataFrame, tests: pd.DataFrame, *, baseline: str = "BLEU", few_errors: int = 5,
                alpha: float = 0.05, n_permutations: int = 1000) -> str:
    """The conclusion's line: the analyses whose agreement interval lies above zero, and those
    where PERM-BOTH finds Otem or Utem better or worse than the baseline (p < ``alpha``; flagged
    where the metric's own bootstrap interval includes zero and where no system has more than
    ``few_errors`` errors)."""
    def label(t):
        return f"{t['metric']} on {t['lp']} {t['errors'].lower()}s"

    def tested_label(t):
        own = _row(ted_corr, t["lp"], t["errors"], t["metric"])
        zero = own["low"] <= 0 <= own["high"]
        few = t["most"] <= few_errors
        caveats = ([f"its own agreement interval [{own['low']:+.2f}, {own['high']:+.2f}] includes zero"] if zero else []) + (
            [("there are " if zero else "") + f"at most {t['most']} marked errors per system"] if few else [])
        return f"{label(t)} (PERM-BOTH {p_text(t['p'], n_permutations)}" + (f", but {' and '.join(caveats)}" if caveats else "") + ")"

    above = [label(t) + (f" (and {baseline}'s)" if _row(ted_corr, t["lp"], t["errors"], baseline)["low"] > 0 else "")
             for t in tests.to_dict("records") if _row(ted_corr, t["lp"], t["errors"], t["metric"])["low"] > 0]
    tested = tests[tests.p.notna()]
    sig = tested[tested.p < alpha]
    parts = [f"{word} than {baseline} for " + ", ".join(tested_label(t) for t in d.to_dict("records"))
             for word, d in [("better", sig[sig.gap > 0]), ("worse", sig[sig.gap < 0])] if len(d)]
    rest = tested[tested.p >= alpha]
    rest_p = (f"PERM-BOTH {p_text(rest.p.iloc[0], n_permutations)}" if len(rest) == 1 else
              f"PERM-BOTH p from {rest.p.min():.3f} to {rest.p.max():.3f}")
    if parts:
        versus = f"Otem or Utem tracks the errors significantly (at {alpha:.0%}) " + "; ".join(parts) + (
            f"; in the other {len(rest)} {'analysis' if len(rest) == 1 else 'analyses'} the difference from "
            f"{baseline} is not significant ({rest_p})" if len(rest) else "")
    elif len(rest):
        versus = (f"in no analysis does Otem or Utem track the errors significantly (at {alpha:.0%}) better or worse "
                  f"than {baseline} ({rest_p})")
    else:
        versus = f"no analysis was tested against {baseline}"
    untested = [label(t) for t in tests[tests.p.isna()].to_dict("records")]
    return ("the agreement interval lies above zero for " + (", ".join(above) or "no analysis") + "; " + versus
            + (f"; not tested: {', '.join(untested)}" if untested and len(tested) else ""))


# -- Table 1: the metrics against BLEU on the human system scores ---------------------------------

def versus_tests(table: pd.DataFrame, metric: str, signs: Mapping[str, int], *, baseline: str = "BLEU",
                 human: str = "human", r_tie: float = 0.02, n_permutations: int = 1000,
                 seed: int | None = None) -> pd.DataFrame:
    """``metric`` against ``baseline`` on Pearson's r and Kendall's τ (tau-b) with the human score.

    Returns one row per statistic (index ``r``, ``τ``): ``agreement`` and ``BASELINE agreement``,
    the oriented correlations; ``gap``, their difference; ``tie``, the "about as much as" margin
    (``r_tie`` in r; 1.5 swapped pairs of systems in τ, one swap moving τ by 2/C(n,2)); ``p``,
    the one-sided PERM-BOTH p-value of the observed direction (NaN: not tested)."""
    pair = 4 / (len(table) * (len(table) - 1))
    rows = {}
    for stat, method, tie in [("r", "pearson", r_tie), ("τ", "kendall", 1.5 * pair)]:
        m, b = (signs[c] * table[c].corr(table[human], method=method) for c in (metric, baseline))
        p = _oriented_test(signs[baseline] * table[baseline], signs[metric] * table[metric], table[human], method,
                           n_permutations, seed)[1]
        rows[stat] = {"agreement": m, f"{baseline} agreement": b, "gap": m - b, "tie": tie, "p": p}
    return pd.DataFrame.from_dict(rows, orient="index")


def versus_table(table: pd.DataFrame, metrics: Sequence[str], signs: Mapping[str, int], *, baseline: str = "BLEU",
                 human: str = "human", n_permutations: int = 1000, seed: int | None = None) -> pd.DataFrame:
    """:func:`versus_tests` of each of ``metrics``, indexed by (metric, statistic)."""
    return pd.concat({m: versus_tests(table, m, signs, baseline=baseline, human=human, n_permutations=n_permutations,
                                      seed=seed) for m in metrics}, names=["metric", "statistic"])


def _word(gap: float, tie: float, p: float, alpha: float) -> str:
    if abs(gap) <= tie:
        return "about as much as"
    direction = "more than" if gap > 0 else "less than"
    return direction if math.isnan(p) or p < alpha else f"not significantly (at {alpha:.0%}) {direction}"


def _detail(gap: float, tie: float, p: float, alpha: float, metric: str, n_permutations: int) -> str:
    if abs(gap) <= tie and p < alpha:
        return (f"within the margin, though PERM-BOTH finds {metric} {'ahead' if gap > 0 else 'behind'} at "
                f"{alpha:.0%}: {p_text(p, n_permutations)}")
    return f"PERM-BOTH {p_text(p, n_permutations)}"


def versus_sentence(tests: pd.DataFrame, metric: str, *, baseline: str = "BLEU", alpha: float = 0.05,
                    n_permutations: int = 1000) -> str:
    """Whether ``metric`` agrees with the human score more than, less than or about as much as
    ``baseline``, per statistic of :func:`versus_tests`: "about as much as" within the tie margin
    (whatever p, but a p below ``alpha`` is named with the direction), "more"/"less" only with
    PERM-BOTH p < ``alpha``, else "not significantly (at 5%) more/less"; each with the size of
    the gap and its p-value ("not tested" where none; written for ``n_permutations``, as the
    tests ran)."""
    words = [(_word(r.gap, r.tie, r.p, alpha), stat, abs(r.gap), p_text(r.p, n_permutations),
              _detail(r.gap, r.tie, r.p, alpha, metric, n_permutations)) for stat, r in tests.iterrows()]
    plain = all(d == f"PERM-BOTH {p}" for *_, p, d in words)  # no tie with a significant p to name
    if words[0][0] == words[1][0] and plain:
        return (f"{metric} agrees with the human score {words[0][0]} {baseline} on both r and τ "
                f"(by {words[0][2]:.3f} and {words[1][2]:.3f}; PERM-BOTH {words[0][3]} and {words[1][3]})")
    return f"{metric} agrees with the human score " + " and ".join(
        f"{w} {baseline} on {st} (by {g:.3f}; {d})" for w, st, g, _, d in words)


def versus_baseline(table: pd.DataFrame, metric: str, signs: Mapping[str, int], *, baseline: str = "BLEU",
                    human: str = "human", r_tie: float = 0.02, n_permutations: int = 1000,
                    seed: int | None = None, alpha: float = 0.05) -> str:
    """:func:`versus_sentence` of :func:`versus_tests`."""
    return versus_sentence(versus_tests(table, metric, signs, baseline=baseline, human=human, r_tie=r_tie,
                                        n_permutations=n_permutations, seed=seed), metric, baseline=baseline,
                           alpha=alpha, n_permutations=n_permutations)


def table_verdict(versus: pd.DataFrame, *, baseline: str = "BLEU", alpha: float = 0.05,
                  n_permutations: int = 1000) -> str:
    """:func:`versus_sentence` of each metric of a :func:`versus_table`, joined by semicolons."""
    return "; ".join(versus_sentence(versus.loc[m], m, baseline=baseline, alpha=alpha, n_permutations=n_permutations)
                     for m in dict.fromkeys(versus.index.get_level_values(0)))


def correlations_text(table: pd.DataFrame, metrics: Sequence[str], *, human: str = "human",
                      method: str = "pearson") -> str:
    """"BLEU +0.970, OTEM-2 -0.757": each metric's (signed, not oriented) correlation with ``human``."""
    return ", ".join(f"{m} {table[m].corr(table[human], method=method):+.3f}" for m in metrics)


def rank_moves(table: pd.DataFrame, metric: str, signs: Mapping[str, int], *, baseline: str = "BLEU") -> pd.Series:
    """Places each system moves between the ``baseline`` and the ``metric`` ranking (rank 1 the
    best by each metric's orientation; ties share the average rank)."""
    def rank(m):
        return (signs[m] * table[m]).rank(ascending=False)

    return (rank(baseline) - rank(metric)).abs()


def rank_move_text(moves: pd.Series) -> str:
    """"the largest move: SYSTEM, N places" (the first system with the largest move)."""
    mover = moves.idxmax()
    return f"the largest move: {mover}, {int(moves[mover])} places"


def variant_paragraph(table: pd.DataFrame, n_refs: int) -> str:
    """How the authors' script differs from the paper's equations on this run's Table 1 (columns
    ``OTEM-2``, ``OTEM-2 (authors)``, ``UTEM-4``, ``UTEM-4 (authors)``): with one reference they
    cannot differ, and the paragraph says so instead of quoting ratios of 1."""
    rules = ("for Otem, the script lets one over-matching reference count where the paper needs all of them; for "
             "Utem, it takes the minimum of each reference's *total* under-count, where equation (5) takes the "
             "minimum per n-gram, so that an n-gram costs nothing as soon as one reference has it no more often "
             "than the candidate, or not at all")
    if n_refs < 2:
        return (f"With one reference, as in this run, the authors' script and the paper's equations give the same "
                f"numbers; they differ only with several references ({rules}).")
    gap = float((table["OTEM-2"] - table["OTEM-2 (authors)"]).abs().max())
    return (f"With {n_refs} references the authors' variant makes OTEM-2 "
            f"{median_ratio_text(table, 'OTEM-2 (authors)', 'OTEM-2')} as large (median over systems; the largest "
            f"difference is {gap:.2f} points) and UTEM-4 {median_ratio_text(table, 'UTEM-4 (authors)', 'UTEM-4')} as "
            f"large: {rules}.")


def data_line(human_translations: Sequence[tuple[str, ...]], mqm_sets: Sequence[tuple[str, str]],
              table_set: tuple[str, str], table_refs: Sequence[str], n_segments: int | None) -> str:
    """The "Data:" line: the test sets and pairs this run used, in order of use, each with what
    to cite for it (Freitag et al. 2020 too where its WMT19 references are used), and how many
    segments."""
    used = dict.fromkeys(k[:2] for k in [*human_translations, *mqm_sets, table_set])  # (test set, pair)
    sets = {t: [lp for t2, lp in used if t2 == t] for t, _ in used}
    refs = {r for *_, r in human_translations} | set(table_refs if table_set[0] == "wmt19" else [])
    freitag = bool(refs & {"refAR", "refARp", "refWMTp"})
    segments = ("all segments of each" if n_segments is None
                else f"the first {n_segments:,} segments of each, or all of a shorter one")
    freitag_part = " with the references of Freitag et al. (2020)"
    return "; ".join(source(t, lps) + (freitag_part if t == "wmt19" and freitag else "")
                     for t, lps in sets.items()) + f"; {segments}"


def median_ratio_text(table: pd.DataFrame, numerator: str, denominator: str) -> str:
    """"9.6 times": the median over systems of ``numerator`` / ``denominator``."""
    return f"{float((table[numerator] / table[denominator]).median()):.1f} times"


def without_lowest(table: pd.DataFrame, metrics: Mapping[str, int], *, baseline: str = "BLEU",
                   human: str = "human") -> str:
    """How much the lowest-scored system weighs on Pearson's r: the sentence with each metric's
    r recomputed without it."""
    low2 = table[human].nsmallest(2)
    rest = table.drop(index=low2.index[0])
    return (f"The lowest-scored system, {low2.index[0]} (human z {low2.iloc[0]:.3f}, {baseline} "
            f"{table.loc[low2.index[0], baseline]:.2f}; the next lowest z is {low2.iloc[1]:.3f}), weighs on "
            "Pearson's r: without it r is " + ", ".join(f"{m} {rest[m].corr(rest[human]):+.3f}" for m in metrics))
