"""The judged translations RegEMT is trained and tested on, as one table per language pair.

Every loader returns a :class:`pandas.DataFrame` with the columns ``lp, system, segment, src,
mt, ref, human`` — one row per judged translation, ``human`` oriented so that higher is better.

* :func:`mqm_rows` — segment-level MQM of newstest2021 and TED 2021 (mt-metrics-eval layout):
  the paper's MQM data is WMT20, whose text is not available here.
* :func:`da_rows` — WMT15/WMT16 segment-level DA (one MT output per segment, system unknown).
* :func:`critical_error_rows` — the MLQE-PE critical-error data (WMT21 QE task 3): no
  reference; ``human`` is minus the mean of the three annotators' error scores.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pandas as pd

from mtlib import paths
from mtlib.data import STANDARD_REFERENCES, load_evalset

__all__ = ["COLUMNS", "mqm_rows", "da_rows", "DA_LANGUAGE_PAIRS", "critical_error_rows",
           "CRITICAL_ERROR_PAIRS"]

COLUMNS = ["lp", "system", "segment", "src", "mt", "ref", "human"]
DA_LANGUAGE_PAIRS = {"wmt15": ["cs-en", "de-en", "en-ru", "fi-en", "ru-en"],
                     "wmt16": ["cs-en", "de-en", "en-ru", "fi-en", "ro-en", "ru-en", "tr-en"]}
CRITICAL_ERROR_PAIRS = ["en-cs", "en-de", "en-ja", "en-zh"]


def _frame(rows: list[dict], what: str) -> pd.DataFrame:
    if not rows:
        raise ValueError(f"{what}: no judged translations found")
    return pd.DataFrame(rows, columns=COLUMNS)


def mqm_rows(test_set: str, lp: str, ref: str | None = None, *, root: str | os.PathLike | None = None,
             n_segments: int | None = None) -> pd.DataFrame:
    """Every MT system's MQM-scored segments (human "systems" — the references — left out).

    Args:
        test_set, lp: e.g. ``wmt21.news``, ``zh-en``.
        ref: the reference for reference-based metrics (default: mt-metrics-eval's standard one,
            :data:`mtlib.data.STANDARD_REFERENCES`, else the first of the set's references).
        n_segments: keep the first N rated segments (for quick runs).
    """
    evs = load_evalset(test_set, lp, root=root)
    if ("mqm", "seg") not in evs.human_score_names:
        raise ValueError(f"{test_set} {lp} has no segment-level MQM scores (has {evs.human_score_names})")
    ref = ref or STANDARD_REFERENCES.get((test_set, lp)) or sorted(evs.refs)[0]
    if ref not in evs.refs:
        raise ValueError(f"{test_set} {lp}: unknown reference {ref!r}; available: {sorted(evs.refs)}")
    scores = evs.human_seg("mqm")
    rated = sorted({i for s in evs.mt_systems for i, v in enumerate(scores.get(s, [])) if v is not None})
    if n_segments is not None:
        rated = rated[:n_segments]
    rows = [{"lp": lp, "system": s, "segment": i, "src": evs.src[i], "mt": evs.outputs[s][i], "ref": evs.refs[ref][i],
             "human": scores[s][i]}
            for s in evs.mt_systems for i in rated if scores.get(s) and scores[s][i] is not None]
    return _frame(rows, f"{test_set} {lp} MQM")


def da_rows(year: str, lps: list[str] | None = None, *, root: str | os.PathLike | None = None,
            n_segments: int | None = None) -> pd.DataFrame:
    """WMT15/16 segment-level DA (``wmt-da-seg/{year}/{lp}.tsv``), ``human`` = DA z score."""
    if year not in DA_LANGUAGE_PAIRS:
        raise ValueError(f"unknown DA year {year!r}; available: {sorted(DA_LANGUAGE_PAIRS)}")
    lps = DA_LANGUAGE_PAIRS[year] if lps is None else lps
    unknown = sorted(set(lps) - set(DA_LANGUAGE_PAIRS[year]))
    if unknown:
        raise ValueError(f"{year} DA has no language pair(s) {unknown}; available: {DA_LANGUAGE_PAIRS[year]}")
    folder = paths.data_root(root) / "wmt-da-seg" / year
    frames = []
    for lp in lps:
        path = folder / f"{lp}.tsv"
        if not path.is_file():
            raise FileNotFoundError(f"missing DA file {path}")
        # no quoting in these files: fields hold literal quotes (see the data README)
        table = pd.read_csv(path, sep="\t", quoting=3, dtype={"src": str, "mt": str, "ref": str}, keep_default_na=False)
        if n_segments is not None:
            table = table.head(n_segments)
        frames.append(pd.DataFrame({"lp": lp, "system": "unknown", "segment": range(len(table)), "src": table["src"],
                                    "mt": table["mt"], "ref": table["ref"], "human": table["score"].astype(float)}))
    return pd.concat(frames, ignore_index=True)


def critical_error_rows(lp: str, split: str = "dev", *, root: str | os.PathLike | None = None,
                        n_segments: int | None = None) -> pd.DataFrame:
    """MLQE-PE critical-error data: ``human`` = −(mean of the three annotators' scores), so that
    higher is better as elsewhere; ``ref`` is empty (the data has none)."""
    if lp not in CRITICAL_ERROR_PAIRS:
        raise ValueError(f"no critical-error data for {lp!r}; available: {CRITICAL_ERROR_PAIRS}")
    if split not in ("train", "dev"):
        raise ValueError(f"split must be 'train' or 'dev' (the test labels are released separately), got {split!r}")
    path = Path(paths.data_root(root)) / "mlqe-pe-critical-errors" / "catastrophic_errors" / \
        f"{lp.replace('-', '')}_majority_{split}.tsv"
    if not path.is_file():
        raise FileNotFoundError(f"missing critical-error file {path}")
    table = pd.read_csv(path, sep="\t", quoting=3, header=None, names=["id", "src", "mt", "labels", "majority"],
                        dtype=str, keep_default_na=False)
    if n_segments is not None:
        table = table.head(n_segments)
    labels = table["labels"].map(ast.literal_eval)
    bad = [i for i, v in enumerate(labels) if not (isinstance(v, list) and len(v) == 3)]
    if bad:
        raise ValueError(f"{path}: rows {bad[:5]} do not hold three annotator scores")
    return pd.DataFrame({"lp": lp, "system": "unknown", "segment": table["id"].astype(int), "src": table["src"],
                         "mt": table["mt"], "ref": "", "human": -labels.map(lambda v: sum(v) / 3.0)})
