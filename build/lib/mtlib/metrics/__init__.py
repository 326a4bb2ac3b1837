"""Metric registry: notebooks and the CLI pick metrics by name."""

from __future__ import annotations

from mtlib.metrics.base import Metric
from mtlib.metrics.bleu import BLEU
from mtlib.metrics.chrf import ChrF
from mtlib.metrics.languages import MissingTokenizerError, check_lang
from mtlib.metrics.meteor import METEOR
from mtlib.metrics.otem_utem import Otem, Utem
from mtlib.metrics.ter import TER
from mtlib.metrics.compositionality import Compositionality
from mtlib.metrics.contextual import SCMContextual, WMDContextual
from mtlib.metrics.scm_wmd import SCM, WMD

__all__ = ["METRICS", "Metric", "MissingTokenizerError", "get_metric", "BLEU", "ChrF", "TER", "METEOR", "Otem", "Utem",
           "SCM", "WMD", "Compositionality", "SCMContextual", "WMDContextual"]

METRICS: dict[str, type[Metric]] = {"BLEU": BLEU, "chrF": ChrF, "TER": TER, "METEOR": METEOR,
                                     "Otem": Otem, "Utem": Utem, "SCM": SCM, "WMD": WMD,
                                     "Compositionality": Compositionality, "SCM-contextual": SCMContextual,
                                     "WMD-contextual": WMDContextual}


def get_metric(name: str, target_lang: str | None = None, **kwargs) -> Metric:
    """Instantiates a metric by registry name (case-insensitive).

    Args:
        name: a key of :data:`METRICS`, in any case.
        target_lang: the language of the hypotheses and references (``"zh"``): a
            language-dependent metric takes its defaults (BLEU's tokeniser, TER's asian_support)
            and then refuses data into another language; None leaves it open, and
            :func:`mtlib.scoring.score_systems` sets it up for each data set's language.
        **kwargs: options for the metric's constructor; an option given here wins over the
            target language's default.

    Raises:
        ValueError: unknown metric, option or language (TypeError: a wrong type of either).
        MissingTokenizerError: the language's tokeniser needs packages that are not installed.
    """
    by_lower = {k.lower(): v for k, v in METRICS.items()}
    if not isinstance(name, str) or name.lower() not in by_lower:
        raise ValueError(f"unknown metric {name!r}; valid: {sorted(METRICS)}")
    cls = by_lower[name.lower()]
    unknown = sorted(set(kwargs) - set(cls.option_names()))
    if unknown:
        raise ValueError(f"{cls.name}: unknown option(s) {unknown}; valid: {cls.option_names()}")
    if target_lang is None:
        return cls(**kwargs)
    target_lang = check_lang(target_lang)
    # Built for the language directly: the target is recorded even where it changes no default.
    return cls(target_lang=target_lang, **kwargs) if cls.language_dependent else cls(**kwargs)
