"""mtlib: metrics and meta-evaluation for the MT-evaluation research book."""

from mtlib.bootstrap import bootstrap_correlations, resample_counts
from mtlib.correlation import (Correlation, correlate, correlation_curve, correlation_table,
                               segment_correlation, top_systems)
from mtlib.data import EvalSet, list_evalsets, load_evalset
from mtlib.examples import example_folder
from mtlib.metrics import METRICS, Metric, get_metric
from mtlib.plain_folder import load_folder
from mtlib.ranking import rank_agreement
from mtlib.report import beside_paper, wide_beside_paper
from mtlib.scoring import SystemStats, score_systems

from mtlib.version import __version__

__all__ = [
    "__version__", "EvalSet", "load_evalset", "load_folder", "example_folder", "list_evalsets", "METRICS", "Metric", "get_metric",
    "SystemStats", "score_systems", "Correlation", "correlate", "segment_correlation", "correlation_table",
    "correlation_curve", "top_systems", "rank_agreement", "bootstrap_correlations",
    "resample_counts", "beside_paper", "wide_beside_paper",
]
