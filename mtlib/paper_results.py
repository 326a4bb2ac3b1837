"""Numbers printed in the papers, kept in one place so every chapter compares against the same.

Each table says where it comes from. Values are copied from ``shared/papers/*.txt``.
"""

from __future__ import annotations

import pandas as pd

__all__ = ["DA_TABLE1", "DA_TABLE2", "DA_TABLE2_SUM_ABS_DELTA", "DA_SYSTEM_NAMES", "da_table1_frame",
           "VAT_TABLE2", "VAT_TABLE3", "VAT_TABLE4", "VAT_DIRECTIONS", "vat_table2_frame", "vat_table3_frame"]

# Zhan, Liu, Wong, Chao 2021, "Difficulty-Aware Machine Translation Evaluation", ACL,
# Table 1: absolute system-level correlations with WMT19 DA z-scores, (|r|, |tau|, |rho|).
# "top30" = the floor(0.3 N) systems with the highest human score.
DA_TABLE1: dict[tuple[str, str], dict[str, tuple[float, float, float]]] = {
    ("en-de", "all"): {"BLEU": (0.952, 0.703, 0.873), "TER": (0.982, 0.711, 0.873),
                       "METEOR": (0.985, 0.746, 0.904), "BERTScore": (0.990, 0.772, 0.920),
                       "DA-BERTScore": (0.991, 0.798, 0.930)},
    ("en-de", "top30"): {"BLEU": (0.460, 0.200, 0.143), "TER": (0.598, 0.333, 0.486),
                         "METEOR": (0.065, 0.067, 0.143), "BERTScore": (0.204, 0.067, 0.143),
                         "DA-BERTScore": (0.974, 0.733, 0.886)},
    ("de-en", "all"): {"BLEU": (0.888, 0.622, 0.781), "TER": (0.797, 0.504, 0.675),
                       "METEOR": (0.886, 0.605, 0.792), "BERTScore": (0.949, 0.756, 0.890),
                       "DA-BERTScore": (0.951, 0.807, 0.932)},
    ("de-en", "top30"): {"BLEU": (0.808, 0.548, 0.632), "TER": (0.883, 0.548, 0.632),
                         "METEOR": (0.632, 0.548, 0.632), "BERTScore": (0.271, 0.183, 0.316),
                         "DA-BERTScore": (0.693, 0.548, 0.632)},
}

# Same paper, Table 2: the top-6 WMT19 en-de systems, metric scores and human z.
# Paper names -> names in the mt-metrics-eval layout.
DA_SYSTEM_NAMES = {
    "Facebook.6862": "Facebook_FAIR.6862",
    "Microsoft.sd.6974": "Microsoft-WMT19-sentence_document.6974",
    "Microsoft.dl.6808": "Microsoft-WMT19-document-level.6808",
    "MSRA.6926": "MSRA.MADL.6926",
    "UCAM.6731": "UCAM.6731",
    "NEU.6763": "NEU.6763",
}
# system (layout name) -> metric -> score as printed (BLEU and TER as fractions, not 0-100).
DA_TABLE2: dict[str, dict[str, float]] = {
    "Facebook_FAIR.6862": {"BLEU": 0.4364, "TER": 0.4692, "METEOR": 0.6077, "BERTScore": 0.7219,
                           "DA-BERTScore": 0.1555, "HUMAN": 0.347},
    "Microsoft-WMT19-sentence_document.6974": {"BLEU": 0.4477, "TER": 0.4583, "METEOR": 0.6056,
                                               "BERTScore": 0.7263, "DA-BERTScore": 0.1539, "HUMAN": 0.311},
    "Microsoft-WMT19-document-level.6808": {"BLEU": 0.4483, "TER": 0.4591, "METEOR": 0.6132,
                                            "BERTScore": 0.7260, "DA-BERTScore": 0.1544, "HUMAN": 0.296},
    "MSRA.MADL.6926": {"BLEU": 0.4603, "TER": 0.4504, "METEOR": 0.6187, "BERTScore": 0.7267,
                       "DA-BERTScore": 0.1525, "HUMAN": 0.214},
    "UCAM.6731": {"BLEU": 0.4413, "TER": 0.4636, "METEOR": 0.6047, "BERTScore": 0.7190,
                  "DA-BERTScore": 0.1519, "HUMAN": 0.213},
    "NEU.6763": {"BLEU": 0.4460, "TER": 0.4563, "METEOR": 0.6083, "BERTScore": 0.7229,
                 "DA-BERTScore": 0.1521, "HUMAN": 0.208},
}
# Table 2's sum of |delta rank| per metric.
DA_TABLE2_SUM_ABS_DELTA = {"BLEU": 12, "TER": 14, "METEOR": 14, "BERTScore": 10, "DA-BERTScore": 4}


def da_table1_frame() -> pd.DataFrame:
    """Table 1 as a long DataFrame: lp, subset, metric, stat (r/tau/rho), value."""
    rows = [{"lp": lp, "subset": subset, "metric": metric, "stat": stat, "paper": v}
            for (lp, subset), by_metric in DA_TABLE1.items()
            for metric, values in by_metric.items()
            for stat, v in zip(("r", "tau", "rho"), values)]
    return pd.DataFrame(rows)


# Zhan, Liu, Wong, Chao 2021, "Variance-Aware Machine Translation Test Sets", NeurIPS Datasets
# and Benchmarks. Table 1: the number of directions per test set (all WMT directions with
# human scores; we have text for fewer, see the data README).
VAT_DIRECTIONS = {"wmt16": 7, "wmt17": 14, "wmt18": 14, "wmt19": 18, "wmt20": 17}

# Table 2: correlations averaged over each test set's directions, (r, |tau|, rho), for the
# original set and "+VAT". The text extraction interleaves rows (e.g. the BLEURT "+VAT" row
# with the BERTS-P row); these values were de-interleaved by column order and checked against
# each row having 15 values. COMET and BLEURT are left out: no offline checkpoints here.
_T2_YEARS = ["wmt16", "wmt17", "wmt18", "wmt19", "wmt20"]
_T2 = {
    ("BLEU", "original"): [.826, .645, .778, .910, .737, .865, .827, .727, .802, .912, .762, .878, .881, .675, .798],
    ("BLEU", "VAT"): [.880, .723, .837, .928, .754, .876, .827, .723, .796, .918, .786, .906, .879, .709, .828],
    ("BERTS-P", "original"): [.970, .848, .924, .951, .806, .909, .965, .866, .949, .953, .811, .911, .886, .699, .827],
    ("BERTS-P", "VAT"): [.976, .880, .948, .960, .820, .919, .978, .865, .949, .953, .827, .924, .897, .714, .842],
    ("BERTS-R", "original"): [.941, .831, .931, .974, .825, .926, .915, .843, .908, .961, .821, .924, .916, .742, .853],
    ("BERTS-R", "VAT"): [.953, .854, .943, .972, .826, .925, .953, .842, .911, .960, .834, .930, .920, .743, .856],
    ("BERTS-F", "original"): [.975, .881, .950, .970, .833, .927, .947, .846, .909, .963, .824, .924, .906, .728, .848],
    ("BERTS-F", "VAT"): [.979, .900, .964, .974, .842, .929, .969, .873, .942, .960, .823, .925, .914, .733, .850],
}
VAT_TABLE2: dict[tuple[str, str, str], tuple[float, float, float]] = {
    (metric, subset, year): tuple(values[3 * k: 3 * k + 3])
    for (metric, subset), values in _T2.items() for k, year in enumerate(_T2_YEARS)}

# Table 3: Pearson r per mainstream pair and test set, original and "+VAT". BERTS-P de-en
# T.17 (original) is missing from the text extraction (None).
_T3_COLUMNS = [(lp, ts) for lp in ["de-en", "en-de", "zh-en", "en-zh", "en-cs"] for ts in ["wmt17", "wmt18", "wmt19"]]
_T3 = {
    ("BLEU", "original"): [.928, .969, .888, .819, .980, .952, .869, .983, .900, .980, .947, .902, .956, .996, .987],
    ("BLEU", "VAT"): [.940, .975, .925, .845, .981, .952, .894, .986, .895, .980, .953, .925, .961, .994, .994],
    ("BERTS-P", "original"): [None, .998, .947, .798, .988, .984, .964, .981, .975, .970, .954, .881, .959, .994, .975],
    ("BERTS-P", "VAT"): [.964, .999, .952, .830, .989, .989, .977, .984, .982, .982, .959, .926, .968, .998, .984],
    ("BERTS-R", "original"): [.988, .997, .946, .909, .990, .991, .981, .990, .987, .994, .976, .940, .982, .997, .984],
    ("BERTS-R", "VAT"): [.989, .997, .950, .912, .990, .991, .978, .991, .987, .988, .980, .951, .984, .997, .989],
    ("BERTS-F", "original"): [.973, .999, .949, .859, .990, .990, .983, .988, .983, .992, .968, .925, .976, .997, .981],
    ("BERTS-F", "VAT"): [.981, .999, .952, .876, .989, .992, .988, .990, .986, .994, .972, .949, .979, .998, .987],
}
VAT_TABLE3: dict[tuple[str, str, str, str], float | None] = {
    (metric, subset, ts, lp): v for (metric, subset), values in _T3.items()
    for (lp, ts), v in zip(_T3_COLUMNS, values)}

# Table 4: mean edit distance between the en-de reference and its human paraphrase (WMT.p),
# on all segments, the filtered-out ones and the preserved (VAT) ones. The unit is not stated.
VAT_TABLE4 = {"wmt20": (30.35, 30.46, 30.18), "wmt19": (19.82, 20.25, 19.17), "wmt18": (20.02, 20.30, 19.72)}


def vat_table2_frame() -> pd.DataFrame:
    """Table 2 as a long DataFrame: test_set, metric, subset, stat (r/tau/rho), paper."""
    rows = [{"test_set": year, "metric": metric, "subset": subset, "stat": stat, "paper": v}
            for (metric, subset, year), values in VAT_TABLE2.items() for stat, v in zip(["r", "tau", "rho"], values)]
    return pd.DataFrame(rows)


def vat_table3_frame() -> pd.DataFrame:
    """Table 3 as a long DataFrame: test_set, lp, metric, subset, paper (Pearson r)."""
    rows = [{"test_set": ts, "lp": lp, "metric": metric, "subset": subset, "paper": v}
            for (metric, subset, ts, lp), v in VAT_TABLE3.items() if v is not None]
    return pd.DataFrame(rows)
