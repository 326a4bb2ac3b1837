"""Numbers printed in the papers, kept in one place so every chapter compares against the same.

Each table says where it comes from. Values are copied from ``shared/papers/*.txt``.
"""

from __future__ import annotations

import pandas as pd

__all__ = ["DA_TABLE1", "DA_TABLE2", "DA_TABLE2_SUM_ABS_DELTA", "DA_SYSTEM_NAMES", "da_table1_frame"]

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
