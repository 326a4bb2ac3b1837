"""mtlib: metrics and meta-evaluation for machine translation.

The everyday names below are loaded on first use (PEP 562), so that ``import mtlib.paths`` or
``mtlib --version`` does not pay for pandas, SciPy or torch::

    import mtlib
    evs = mtlib.load_evalset("wmt19", "de-en")
    stats = mtlib.score_systems(evs, mtlib.get_metric("chrF"))
    mtlib.correlate(stats.system_scores(), evs.human_sys())
"""

from __future__ import annotations

import importlib

from mtlib.version import __version__

# public name -> the module that defines it
_EXPORTS = {
    "bootstrap_correlations": "mtlib.bootstrap", "resample_counts": "mtlib.bootstrap",
    "Correlation": "mtlib.correlation", "correlate": "mtlib.correlation", "correlation_curve": "mtlib.correlation",
    "correlation_table": "mtlib.correlation", "segment_correlation": "mtlib.correlation",
    "top_systems": "mtlib.correlation",
    "EvalSet": "mtlib.data", "list_evalsets": "mtlib.data", "load_evalset": "mtlib.data",
    "example_folder": "mtlib.examples",
    "METRICS": "mtlib.metrics", "Metric": "mtlib.metrics", "get_metric": "mtlib.metrics",
    "load_folder": "mtlib.plain_folder",
    "rank_agreement": "mtlib.ranking",
    "SystemStats": "mtlib.scoring", "score_systems": "mtlib.scoring",
    "BERTScorer": "mtlib.bertscore",
    "PermutationResult": "mtlib.significance", "perm_both": "mtlib.significance",
    "perm_both_systems": "mtlib.significance", "pairwise_accuracy": "mtlib.significance",
    "compare": "mtlib.significance", "compare_systems": "mtlib.significance", "holm": "mtlib.significance",
    "Comparison": "mtlib.significance", "Verdict": "mtlib.significance",
    "average_correlation": "mtlib.metaeval", "acc_eq": "mtlib.metaeval", "TieCalibrated": "mtlib.metaeval",
    "soft_pairwise_accuracy": "mtlib.metaeval", "perm_both_stat": "mtlib.metaeval",
    "compare_metrics": "mtlib.metaeval", "MetricRanking": "mtlib.metaeval", "williams_test": "mtlib.metaeval",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'mtlib' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
