"""Metric registry: notebooks and the CLI pick metrics by name."""

from __future__ import annotations

from mtlib.metrics.base import Metric
from mtlib.metrics.bleu import BLEU
from mtlib.metrics.chrf import ChrF
from mtlib.metrics.meteor import METEOR
from mtlib.metrics.otem_utem import Otem, Utem
from mtlib.metrics.ter import TER

__all__ = ["METRICS", "Metric", "get_metric", "BLEU", "ChrF", "TER", "METEOR", "Otem", "Utem"]

METRICS: dict[str, type[Metric]] = {"BLEU": BLEU, "chrF": ChrF, "TER": TER, "METEOR": METEOR,
                                     "Otem": Otem, "Utem": Utem}


def get_metric(name: str, **kwargs) -> Metric:
    """Instantiates a metric by registry name (case-insensitive); kwargs go to its constructor."""
    by_lower = {k.lower(): v for k, v in METRICS.items()}
    if name.lower() not in by_lower:
        raise ValueError(f"unknown metric {name!r}; valid: {sorted(METRICS)}")
    return by_lower[name.lower()](**kwargs)
