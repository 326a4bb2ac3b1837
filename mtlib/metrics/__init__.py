"""Metric registry: notebooks and the CLI pick metrics by name."""

from __future__ import annotations

from mtlib.metrics.base import Metric
from mtlib.metrics.bleu import BLEU
from mtlib.metrics.chrf import ChrF
from mtlib.metrics.meteor import METEOR
from mtlib.metrics.otem_utem import Otem, Utem
from mtlib.metrics.ter import TER
from mtlib.regemt.compositionality import Compositionality
from mtlib.regemt.contextual import SCMContextual, WMDContextual
from mtlib.regemt.scm_wmd import SCM, WMD

__all__ = ["METRICS", "Metric", "get_metric", "BLEU", "ChrF", "TER", "METEOR", "Otem", "Utem", "SCM", "WMD", "Compositionality",
           "SCMContextual", "WMDContextual"]

METRICS: dict[str, type[Metric]] = {"BLEU": BLEU, "chrF": ChrF, "TER": TER, "METEOR": METEOR,
                                     "Otem": Otem, "Utem": Utem, "SCM": SCM, "WMD": WMD,
                                     "Compositionality": Compositionality, "SCM-contextual": SCMContextual,
                                     "WMD-contextual": WMDContextual}


def get_metric(name: str, **kwargs) -> Metric:
    """Instantiates a metric by registry name (case-insensitive); kwargs go to its constructor."""
    by_lower = {k.lower(): v for k, v in METRICS.items()}
    if not isinstance(name, str) or name.lower() not in by_lower:
        raise ValueError(f"unknown metric {name!r}; valid: {sorted(METRICS)}")
    cls = by_lower[name.lower()]
    unknown = sorted(set(kwargs) - set(cls.option_names()))
    if unknown:
        raise ValueError(f"{cls.name}: unknown option(s) {unknown}; valid: {cls.option_names()}")
    return cls(**kwargs)
