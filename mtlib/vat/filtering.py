"""Variance-aware filtering: keep the segments whose scores vary most across systems.

As in the authors' code (``shared/papers/README.md``): score every segment of every MT
system (reference "systems" excluded), take per segment the standard deviation of the
systems' scores (pandas ``std``, ddof=1: the paper's equation (1) divides by k, which
changes no ranking), and keep the segments whose deviation lies strictly above the
λ-th percentile (λ = 60 in the release: about 40% kept). Kept ids are 0-based line numbers
of the original test set.

Any segment-level metric can filter: ``BERTScore-P``/``-R``/``-F`` (the release used R) from
the match cache, or any registered metric (``BLEU`` is sacrebleu's ``sentence_bleu`` with
effective order, as the authors used; ``chrF`` sentence chrF). Baseline rescaling of
BERTScore is an affine map with the same constants for every segment of a language pair,
so it scales every deviation alike and keeps the same segments; it is not applied here.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from mtlib.bertscore import PRF_COLUMNS as BERTSCORE_COLUMNS, prf
from mtlib.data import EvalSet
from mtlib.metrics.base import with_nrefs

__all__ = ["BERTSCORE_COLUMNS", "VATSelection", "segment_scores", "segment_std", "kept_ids", "select", "check_drop_percent",
           "bertscore_segment_scores", "as_system_stats",
           "write_vat_set", "write_ids_json", "metric_label"]

# The paper's names (BERTS-R) and lower-case spellings are accepted too.
_ALIASES = {"berts-p": "BERTScore-P", "berts-r": "BERTScore-R", "berts-f": "BERTScore-F"}


def metric_label(name: str) -> str:
    """The canonical name of a filtering metric: ``BERTScore-P/R/F`` or a registered metric."""
    from mtlib.metrics import METRICS
    if not isinstance(name, str):
        raise TypeError(f"metric must be a string, got {name!r}")
    low = name.lower()
    known = {k.lower(): k for k in [*BERTSCORE_COLUMNS, *METRICS]}
    if low in _ALIASES:
        return _ALIASES[low]
    if low not in known:
        raise ValueError(f"unknown filtering metric {name!r}; valid: {sorted(BERTSCORE_COLUMNS) + sorted(METRICS)} "
                         "(BERTS-P/R/F are accepted for BERTScore-P/R/F)")
    return known[low]


def segment_scores(evs: EvalSet, metric: str = "BERTScore-R", systems: Sequence[str] | None = None, *,
                   scorer=None, model: str | None = None, layer: int | None = None, precision: str = "fp32",
                   ref_name: str | None = None, cache: bool | str | os.PathLike = True,
                   options: Mapping | None = None) -> pd.DataFrame:
    """Sentence-level scores of every system: a frame with one row per segment (index: the
    0-based segment ids of ``evs``) and one column per system.

    Args:
        evs: the evaluation set (or a subset of one).
        metric: ``BERTScore-P``/``-R``/``-F`` (or ``BERTS-R`` …) or a registered metric name.
        systems: default: every MT system (references scored as systems are left out).
        scorer: a :class:`~mtlib.bertscore.BERTScorer` to use (BERTScore only); else one is
            built from ``model``/``layer``/``precision`` (``model=None``: the papers' model for
            the target language, which needs internet).
        ref_name: reference (default: the standard one).
        cache: statistics / match cache (True: the mtlib cache folder).
        options: options of a registered metric (e.g. ``{"tokenize": "intl"}``); the metric is
            set up for the target language of ``evs.lp`` (BLEU into Chinese: ``tok:zh``), and an
            option given here wins over that language's default.

    The frame's ``attrs["signature"]`` names the metric with every setting, as its sentence
    scores were computed (BLEU: sacrebleu's ``sentence_bleu`` signature, ``eff:yes``).
    """
    label = metric_label(metric)
    systems = list(evs.mt_systems if systems is None else systems)
    if len(systems) < 2:
        raise ValueError(f"{evs.name}: variance-aware filtering needs at least 2 systems, got {systems}")
    unknown = [s for s in systems if s not in evs.outputs]
    if unknown:
        raise ValueError(f"{evs.name}: unknown systems {unknown}; known: {sorted(evs.outputs)}")
    ref_name = ref_name or evs.std_ref
    if label in BERTSCORE_COLUMNS:
        if options:
            raise ValueError(f"{label}: options are set on the scorer (model, layer, precision), got {dict(options)}")
        if scorer is None:
            from mtlib.bertscore import BERTScorer
            scorer = BERTScorer(model, layer, lang=evs.lp.split("-")[1], precision=precision, cache=cache)
        return bertscore_segment_scores(evs, scorer, systems, ref_name)[label]
    from mtlib.metrics import get_metric
    from mtlib.metrics.languages import target_of
    from mtlib.scoring import score_systems
    # Set up for this set's target language (BLEU into Chinese tokenises with zh); explicit options win.
    m = get_metric(label, target_lang=target_of(evs.lp), **dict(options or {}))
    stats = score_systems(evs, m, systems, [ref_name], cache=cache)
    data = stats.segment_scores()  # the sentence-level definition (BLEU: sentence_bleu, eff:yes)
    signature = with_nrefs(f"{stats.metric.sentence_signature}|sentence", 1)
    return _frame(evs, data, systems, label, f"{signature}|refs:{ref_name}")


def bertscore_segment_scores(evs: EvalSet, scorer, systems: Sequence[str] | None = None,
                             ref_name: str | None = None, *, matches: Mapping | None = None) -> dict[str, pd.DataFrame]:
    """Sentence BERTScore P, R and F of every system at once (one pass over the matches):
    ``{"BERTScore-P": frame, "BERTScore-R": …, "BERTScore-F": …}``, frames as :func:`segment_scores`.
    ``matches`` (from ``scorer.match_systems``) are used when given."""
    systems = list(evs.mt_systems if systems is None else systems)
    ref_name = ref_name or evs.std_ref
    if matches is None:
        matches = scorer.match_systems(evs, systems, ref_name)
    scores = {s: prf(matches[s]) for s in systems}
    return {label: _frame(evs, {s: scores[s][:, column] for s in systems}, systems, label,
                          f"{with_nrefs(f'{label}|{scorer.signature}', 1)}|refs:{ref_name}")
            for label, column in BERTSCORE_COLUMNS.items()}


def _frame(evs: EvalSet, data: Mapping[str, np.ndarray], systems: Sequence[str], label: str,
           signature: str) -> pd.DataFrame:
    frame = pd.DataFrame(data, index=pd.Index(evs.segment_ids, name="segment"), columns=list(systems))
    frame.attrs["signature"] = signature
    frame.attrs["metric"] = label
    return frame


def as_system_stats(scores: pd.DataFrame):
    """Sentence scores as :class:`~mtlib.scoring.SystemStats` whose system score is the mean
    sentence score (BERTScore's system level), ready for correlations, subsets and bootstrap."""
    from mtlib.bertscore import SentenceMean
    from mtlib.scoring import SystemStats
    label = scores.attrs.get("metric", "score")
    # The frame's signature (the sentence scores' own: BLEU's says eff:yes) ends in its references
    # (nrefs:1|refs:NAME), which SystemStats adds back: split them off, so they are not named twice.
    signature, _, ref = scores.attrs.get("signature", label).rpartition("|refs:")
    signature = signature.removesuffix("|nrefs:1")
    metric = SentenceMean(label, 0, signature or ref)
    ref = ref if signature else "?"
    return SystemStats(metric, [ref], {s: np.column_stack([scores[s].to_numpy(), np.ones(len(scores))])
                                       for s in scores.columns})


def segment_std(scores: pd.DataFrame, *, ddof: int = 1) -> pd.Series:
    """Per-segment standard deviation of the systems' scores (pandas ``std``, ddof=1 by default).

    A missing score is an error, not skipped: the deviation of a segment must rest on every system.
    """
    if scores.shape[1] < ddof + 1:
        raise ValueError(f"need at least {ddof + 1} systems for a standard deviation with ddof={ddof}, "
                         f"got {scores.shape[1]}")
    bad = scores.isna()
    if bad.any().any():
        system = bad.any().idxmax()
        raise ValueError(f"missing scores for system {system!r} at segments "
                         f"{list(scores.index[bad[system]])[:5]}; score every segment before filtering")
    return scores.std(axis=1, ddof=ddof).rename("std")


def check_drop_percent(drop_percent: float) -> float:
    """λ as a float, checked: a number in [0, 100) (TypeError for a non-number, ValueError out of
    range). The one check of λ: :func:`kept_ids`, :func:`select`, ``mtlib vat`` and the chapter use it."""
    if isinstance(drop_percent, bool) or not isinstance(drop_percent, (int, float)) or math.isnan(drop_percent):
        raise TypeError(f"drop_percent must be a number in [0, 100), got {drop_percent!r}")
    if not 0 <= drop_percent < 100:
        raise ValueError(f"drop_percent must lie in [0, 100), got {drop_percent}")
    return float(drop_percent)


def kept_ids(std: pd.Series, drop_percent: float = 60) -> list[int]:
    """Ids (the series' index) of the segments whose deviation is strictly above the
    ``drop_percent``-th percentile (linear interpolation, as pandas ``quantile``).

    ``drop_percent=0`` keeps every segment (the strict rule would drop the least varying one).
    Ties at the threshold are all dropped, so a set with many equal deviations keeps fewer
    than ``100 - drop_percent`` percent.
    """
    drop_percent = check_drop_percent(drop_percent)
    if len(std) == 0:
        raise ValueError("no segments to filter")
    if drop_percent == 0:
        return [int(i) for i in std.index]
    threshold = float(np.percentile(std.to_numpy(), drop_percent))
    return [int(i) for i in std.index[std.to_numpy() > threshold]]


@dataclass(frozen=True)
class VATSelection:
    """The outcome of filtering one evaluation set.

    Attributes:
        name: the evaluation set (``wmt19 en-de``).
        metric: the filtering metric's label; signature: with every setting.
        drop_percent: λ.
        std: per-segment deviation (index: 0-based segment ids).
        ids: the kept segment ids, ascending.
    """

    name: str
    metric: str
    signature: str
    drop_percent: float
    std: pd.Series
    ids: list[int]

    @property
    def fraction_kept(self) -> float:
        return len(self.ids) / len(self.std)


def select(evs: EvalSet, scores: pd.DataFrame | None = None, drop_percent: float = 60, **score_args) -> VATSelection:
    """Filters ``evs``: scores (given, or computed by :func:`segment_scores` with ``score_args``),
    their deviation and the kept ids."""
    drop_percent = check_drop_percent(drop_percent)
    if scores is None:
        scores = segment_scores(evs, **score_args)
    elif score_args:
        raise ValueError(f"give scores or scoring arguments, not both: {sorted(score_args)}")
    if list(scores.index) != list(evs.segment_ids):
        raise ValueError(f"{evs.name}: the scores cover segments {list(scores.index)[:3]}…, "
                         f"the set {list(evs.segment_ids)[:3]}…; they must be the same")
    std = segment_std(scores)
    return VATSelection(evs.name, scores.attrs.get("metric", "?"), scores.attrs.get("signature", "?"), drop_percent,
                        std, kept_ids(std, drop_percent))


def _refuse_existing(path: Path) -> None:
    if path.exists():
        raise FileExistsError(f"{path} exists; choose another folder or delete it (nothing is overwritten)")


def write_ids_json(path: str | os.PathLike, ids_by_lp: Mapping[str, Sequence[int]]) -> Path:
    """Kept ids in the released format, ``{lp: [0-based ids]}``; refuses to overwrite."""
    path = Path(path)
    _refuse_existing(path)
    for lp, ids in ids_by_lp.items():
        if list(ids) != sorted(set(int(i) for i in ids)):
            raise ValueError(f"{lp}: ids must be ascending and unique")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({lp: [int(i) for i in ids] for lp, ids in ids_by_lp.items()}) + "\n", encoding="utf-8")
    return path


def write_vat_set(folder: str | os.PathLike, evs: EvalSet, ids: Sequence[int], *, ref_name: str | None = None
                  ) -> list[Path]:
    """Writes the kept source and reference lines as the release names them
    (``vat_{test set}-{xxyy}-src.{xx}``, ``…-ref.{yy}``; no source file for a set without a
    source, such as plain files given without one); refuses to overwrite. ``ids`` are
    positions in the original set (``evs.segment_ids``)."""
    folder = Path(folder)
    src_lang, tgt_lang = evs.lp.split("-")
    stem = f"vat_{evs.test_set}-{src_lang}{tgt_lang}"
    position = {seg: k for k, seg in enumerate(evs.segment_ids)}
    missing = [i for i in ids if i not in position]
    if missing:
        raise ValueError(f"{evs.name}: ids not in the set: {missing[:5]}")
    ref = evs.refs[ref_name or evs.std_ref]
    files = {folder / f"{stem}-src.{src_lang}": [evs.src[position[i]] for i in ids]} if any(evs.src) else {}
    files[folder / f"{stem}-ref.{tgt_lang}"] = [ref[position[i]] for i in ids]
    for path in files:
        _refuse_existing(path)
    folder.mkdir(parents=True, exist_ok=True)
    for path, lines in files.items():
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return list(files)
