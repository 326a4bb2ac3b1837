"""Numbers printed in the papers, kept in one place so every chapter compares against the same.

Each table says where it comes from. Values are copied from ``shared/papers/*.txt``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["DA_TABLE1", "DA_TABLE2", "DA_TABLE2_SUM_ABS_DELTA", "DA_SYSTEM_NAMES", "da_table1_frame",
           "VAT_TABLE2", "VAT_TABLE3", "VAT_TABLE4", "VAT_DIRECTIONS", "vat_table2_frame", "vat_table3_frame",
           "REGEMT_COLUMNS", "REGEMT_TABLE1", "REGEMT_TABLE2_ORDER", "REGEMT_SOURCE_CAPABLE", "regemt_table2"]

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


# -- RegEMT (Štefánik, Novotný, Sojka, WMT 2021) -------------------------------------------------
# Table 1: absolute Spearman with the gold scores, by row. Column order as printed; source-based
# rows have only the first ten columns. The text extraction labels the 18-value DA row "DA
# 2016-src" and the 10-value one "DA 2016-tgt"; only reference-based rows can have COMET, BLEU
# and METEOR values, so the 18-value row is read as reference-based and the other as
# source-based (the chapter says so).
REGEMT_COLUMNS = ["RegEMT", "Prism", "BERTScr", "WMD-cont", "WMD-dec", "WMD-dec-tf", "SCM-dec", "SCM-dec-tf",
                  "Compos", "Reg-base", "Comet", "SCM", "SCM-tf", "WMD", "WMD-tf", "BLEUrt", "BLEU", "METEOR"]
_R1 = {
    ("MQM", "src", "zh-en"): ".59 .36 .44 .44 .29 .17 .19 .13 .13 .34",
    ("MQM", "src", "zh-en-X"): ".49 .36 .44 .44 .29 .17 .19 .13 .13 .34",
    ("MQM", "src", "en-de"): ".36 .09 .14 .06 .04 .07 .03 .02 .23 .28",
    ("MQM", "src", "en-de-X"): ".31 .09 .14 .06 .04 .07 .04 .02 .23 .28",
    ("MQM", "ref", "zh-en"): ".62 .45 .45 .43 .27 .21 .10 .26 .01 .35 .51 .19 .35 .29 .27 .48 .25 .28",
    ("MQM", "ref", "zh-en-X"): ".62 .45 .45 .43 .27 .21 .09 .25 .01 .31 .51 .19 .35 .29 .27 .48 .25 .28",
    ("MQM", "ref", "en-de"): ".60 .32 .22 .25 .32 .28 .33 .18 .12 .27 .48 .06 .14 .13 .07 .10 .13 .20",
    ("MQM", "ref", "en-de-X"): ".38 .32 .22 .25 .32 .28 .34 .17 .12 .29 .48 .06 .14 .13 .07 .10 .13 .20",
    ("DA 2016", "ref", "mean"): ".84 .72 .74 .73 .57 .51 .37 .51 .29 .18 .82 .39 .45 .44 .42 .81 .42 .50",
    ("DA 2016", "src", "mean"): ".68 .70 .34 .25 .09 .10 .10 .24 .13 .04",
    ("catastrophic", "src", "mean"): ".29 .26 .13 .11 .12 .15 .13 .09 .10 .09",
}
REGEMT_TABLE1: dict[tuple[str, str, str, str], float] = {
    (data, setting, row, col): float(v)
    for (data, setting, row), values in _R1.items() for col, v in zip(REGEMT_COLUMNS, values.split())}

# Table 2 (zh-en): pairwise Spearman of the metrics and with MQM; upper triangle reference-based,
# lower triangle source-based (only the metrics that can be). Each printed row is the lower
# values (for the source-capable metrics before it), "1." and the upper values, as extracted.
REGEMT_TABLE2_ORDER = ["MQM", "RegEMT", "Comet", "Prism", "BERTScr", "WMD-cont", "WMD-dec", "WMD-dec-tf", "SCM-dec",
                       "SCM-dec-tf", "SCM", "SCM-tf", "WMD", "WMD-tf", "BLEUrt", "BLEU", "METEOR", "Compos",
                       "Reg-base"]
REGEMT_SOURCE_CAPABLE = ["MQM", "RegEMT", "Prism", "BERTScr", "WMD-cont", "WMD-dec", "WMD-dec-tf", "SCM-dec",
                         "SCM-dec-tf", "Compos", "Reg-base"]
_R2 = [
    "1. .62 .51 .45 .45 .43 .27 .21 .1 .26 .19 .35 .29 .27 .48 .25 .28 .01 .35",
    ".59 1. .56 .5 .44 .42 .25 .23 .4 .28 .15 .36 .3 .3 .55 .26 .32 .11 .51",
    "1. .79 .82 .82 .71 .61 .54 .62 .57 .64 .64 .6 .83 .64 .63 .44 .4",
    ".36 .5 1. .9 .9 .85 .77 .63 .71 .71 .77 .79 .77 .8 .81 .77 .54 .19",
    ".44 .48 .13 1. .13 .06 .01 .11 .1 .13 .04 .76 .73 .82 .77 .74 .56 .18",
    ".44 .5 .53 .88 1. .92 .8 .68 .69 .71 .74 .77 .73 .82 .81 .75 .58 .18",
    ".29 .42 .22 .4 .6 1. .89 .81 .7 .77 .72 .77 .77 .75 .81 .71 .66 .37",
    ".17 .3 .08 .12 .32 .69 1. .71 .66 .73 .71 .74 .8 .63 .74 .64 .6 .32",
    ".19 .26 .03 .21 .35 .71 .49 1. .51 .67 .49 .55 .58 .57 .61 .53 .65 .58",
    ".13 .26 .2 .32 .43 .47 .26 .29 1. .58 .72 .64 .61 .62 .62 .58 .48 .19",
    "1. .78 .9 .86 .54 .75 .74 .67 .37",
    "1. .85 .84 .6 .71 .72 .52 .13",
    "1. .94 .6 .81 .83 .6 .17",
    "1. .58 .78 .78 .58 .22",
    "1. .6 .58 .43 .11",
    "1. .85 .66 .27",
    "1. .56 .15",
    ".13 .11 .13 .06 .01 .11 .1 .13 .04 1. .52",
    ".34 .44 .37 .07 .07 .24 .19 .28 .02 .34 1.",
]


def regemt_table2() -> dict[str, pd.DataFrame]:
    """The paper's Table 2 as two symmetric matrices, ``ref`` (upper triangle) and ``src``
    (lower triangle), NaN where the paper has no value. Raises if a printed row does not have
    the number of values its position implies (so a bad transcription cannot pass)."""
    names = REGEMT_TABLE2_ORDER
    ref = pd.DataFrame(np.nan, index=names, columns=names)
    src = ref.copy()
    for i, (name, line) in enumerate(zip(names, _R2)):
        values = line.split()
        lower = [n for n in names[:i] if n in REGEMT_SOURCE_CAPABLE] if name in REGEMT_SOURCE_CAPABLE else []
        if len(values) != len(lower) + 1 + (len(names) - i - 1) or values[len(lower)] != "1.":
            raise ValueError(f"paper Table 2 row {name!r}: {len(values)} values do not fit its position")
        for other, v in zip(lower, values[:len(lower)]):
            src.loc[name, other] = src.loc[other, name] = float(v)
        for other, v in zip(names[i + 1:], values[len(lower) + 1:]):
            ref.loc[name, other] = ref.loc[other, name] = float(v)
        ref.loc[name, name] = 1.0
        if name in REGEMT_SOURCE_CAPABLE:
            src.loc[name, name] = 1.0
    return {"ref": ref, "src": src}


# -- Otem/Utem (Yang, Zhang, Qin, Zhang, Lin, Su, NLPCC 2018) -------------------------------------------
# Section 1's example, lowercased and tokenised as printed: four references and two candidates;
# candidate 1 repeats "peace" (over-translation), candidate 2 drops it (under-translation).
OTEM_PEACE_REFS = [
    "he urged that the united states maintain a clear notion of the peace in the middle east and play its due role in this so that the un resolutions can be actually implemented .",
    "he urged u.s. to adopt a clear position in the middle east peace process and play its role accordingly . This is necessary for a realistic execution of united nations ' resolutions .",
    "he called for us to make clear its views on mideast peace and play its role to ensure related un resolutions be enforced .",
    "he called on the us to have a clear cut opinion on the middle east peace , and play an important role on it and bring concrete implementation of relative un resolutions .",
]
OTEM_PEACE_CAND1 = "he called on the united states to have a clear view on peace in the middle east peace and play a role in this regard so that the relevant un resolutions can be effectively implemented ."
OTEM_PEACE_CAND2 = "he called on the united states to have a clear view on in the middle east and play a role in this regard so that the relevant un resolutions can be effectively implemented ."
