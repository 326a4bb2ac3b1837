"""The metric interface: segment statistics first, corpus scores from summed statistics.

Resampling (bootstrap, top-K subsets, segment filters) then only re-aggregates the
statistics and never re-scores text (the design of sacrebleu's ``metrics/base.py``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
import inspect
import math
import warnings
from typing import Any, ClassVar, Collection, Sequence

import numpy as np

from mtlib.metrics.languages import check_lang, check_tokenizer_installed

__all__ = ["Metric", "MeanOverDefined", "SacrebleuMetric", "check_inputs", "check_option", "version_signature",
           "with_nrefs"]


def check_inputs(name: str, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> None:
    """Validates hypotheses and reference streams (sacrebleu's convention: a list of streams)."""
    if isinstance(hyps, str) or not isinstance(hyps, Sequence):
        raise TypeError(f"{name}: hyps must be a sequence of strings, got {type(hyps).__name__}")
    if len(hyps) == 0:
        raise ValueError(f"{name}: no hypotheses given (empty list)")
    if isinstance(refs, str) or not isinstance(refs, Sequence) or len(refs) == 0:
        raise ValueError(f"{name}: refs must be a non-empty list of reference streams")
    for i, stream in enumerate(refs):
        if isinstance(stream, str):
            raise TypeError(f"{name}: refs[{i}] is a string; refs must be a list of reference streams")
        if len(stream) != len(hyps):
            raise ValueError(f"{name}: reference stream {i} has {len(stream)} lines, hypotheses have {len(hyps)}")
    for i, h in enumerate(hyps):
        if not isinstance(h, str):
            raise TypeError(f"{name}: hyps[{i}] is {type(h).__name__}, expected str")
    for k, stream in enumerate(refs):
        for i, r in enumerate(stream):
            if not isinstance(r, str):
                raise TypeError(f"{name}: refs[{k}][{i}] is {type(r).__name__}, expected str")


class Metric(ABC):
    """A metric whose corpus score is a function of summed segment statistics.

    Subclasses set ``name`` and ``higher_is_better`` and implement
    :meth:`segment_stats` and :meth:`score_from_stats`.

    A metric whose settings depend on the target language (its tokeniser) sets
    ``language_dependent = True``, implements :meth:`language_defaults`, takes a ``target_lang``
    keyword and keeps the options its caller gave in ``explicit_options``: :meth:`for_target`
    rebuilds it from those, so that an option given explicitly always wins over the language's
    default.

    Attributes:
        target_lang: the target language the metric was set up for (None: not set up for one;
            :func:`mtlib.scoring.score_systems` sets it up for each data set's).
    """

    name: ClassVar[str]
    higher_is_better: ClassVar[bool] = True
    language_dependent: ClassVar[bool] = False
    target_lang: str | None = None

    @abstractmethod
    def segment_stats(self, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        """Returns an array of shape (segments, n_stats)."""

    @abstractmethod
    def score_from_stats(self, stats: np.ndarray) -> float:
        """Corpus score from statistics summed over segments (shape (n_stats,))."""

    @property
    @abstractmethod
    def signature(self) -> str:
        """Every setting that changes the number, with library versions."""

    @property
    def sentence_signature(self) -> str:
        """The signature of :meth:`sentence_scores` (the metric's own, unless its sentence-level
        definition differs from the corpus one, as BLEU's effective order)."""
        return self.signature

    @classmethod
    def language_defaults(cls, lang: str) -> dict[str, Any]:
        """The options that text in ``lang`` calls for (none for a language-independent metric)."""
        return {}

    def for_target(self, lang: str) -> "Metric":
        """This metric set up for target language ``lang``.

        Options given explicitly are kept; the others take ``lang``'s defaults
        (:mod:`mtlib.metrics.languages`). A language-independent metric, or one that ``lang``
        changes nothing in, returns itself.

        Raises:
            ValueError: the metric was set up for another target language (scoring data into
                ``lang`` with it would silently use the other language's tokeniser).
            MissingTokenizerError: ``lang``'s tokeniser needs packages that are not installed.
        """
        lang = check_lang(lang)
        if not self.language_dependent or self.target_lang == lang:
            return self
        if self.target_lang is not None:
            raise ValueError(f"{self.name} was set up for target language {self.target_lang!r} ({self.signature}) "
                             f"but the data are into {lang!r}: build it for {lang!r} "
                             f"(get_metric({self.name!r}, target_lang={lang!r})) or with no target language, "
                             "so that each data set picks its own")
        resolved = type(self)(target_lang=lang, **self.explicit_options)
        # Same signature = same numbers: keep this instance (and whatever the caller attached to it).
        return self if resolved.signature == self.signature else resolved

    def scores_from_stats(self, stats: np.ndarray) -> np.ndarray:
        """Vectorised :meth:`score_from_stats` over leading axes of ``stats`` (..., n_stats)."""
        flat = stats.reshape(-1, stats.shape[-1])
        return np.array([self.score_from_stats(row) for row in flat]).reshape(stats.shape[:-1])

    def corpus_score(self, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> float:
        return self.score_from_stats(self.segment_stats(hyps, refs).sum(axis=0))

    def sentence_scores(self, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        """Per-segment scores (the metric's sentence-level formula on each segment's statistics)."""
        return self.sentence_scores_from_stats(self.segment_stats(hyps, refs))

    def sentence_scores_from_stats(self, stats: np.ndarray) -> np.ndarray:
        """Sentence-level scores from per-segment statistics (segments, n_stats): the corpus
        formula per segment, unless the metric has its own sentence-level variant (BLEU)."""
        return self.scores_from_stats(stats)

    @classmethod
    def option_names(cls) -> list[str]:
        """The settings the constructor takes (the target language is not one: it only picks
        defaults of the settings, which the signature names)."""
        params = inspect.signature(cls.__init__).parameters
        return sorted(k for k, p in params.items()
                      if k not in ("self", "target_lang") and p.kind is not p.VAR_KEYWORD)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.signature})"


class MeanOverDefined(Metric):
    """A sentence-level metric that some pairs have no value for (a WMD with no known word, a
    text without part-of-speech bigrams). Statistics per segment: (value, 1, 0) where defined,
    (0, 0, 1) where not; the system score is the mean over the defined pairs, and the undefined
    ones stay counted in the statistics and appear as ``undefined_value`` per sentence.
    """

    undefined_value: ClassVar[float] = float("nan")

    @staticmethod
    def stats_row(value: float) -> tuple[float, float, float]:
        return (float(value), 1.0, 0.0) if np.isfinite(value) else (0.0, 0.0, 1.0)

    def warn_undefined(self, stats: np.ndarray, why: str) -> None:
        n = int(stats[:, 2].sum())
        if n:
            warnings.warn(f"{self.name}: {n} of {len(stats)} pairs {why}: no value ({self.undefined_value} per sentence; "
                          "left out of the system mean and counted)", stacklevel=3)

    def score_from_stats(self, stats):
        return float(stats[0] / stats[1]) if stats[1] else self.undefined_value

    def scores_from_stats(self, stats):
        stats = np.asarray(stats)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(stats[..., 1] > 0, stats[..., 0] / np.maximum(stats[..., 1], 1e-300), self.undefined_value)


def check_option(metric: str, name: str, value: Any, kind: type | tuple[type, ...], *,
                 minimum: float | None = None, maximum: float | None = None,
                 choices: Collection | None = None) -> Any:
    """One metric setting: its type (``bool`` is not an ``int``), bounds and allowed values.

    Raises:
        TypeError: ``value`` is not of ``kind``.
        ValueError: it lies below ``minimum`` or above ``maximum`` (both inclusive), or is not
            one of ``choices``.
    """
    kinds = kind if isinstance(kind, tuple) else (kind,)
    ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
    if not ok:
        names = " or ".join("None" if k is type(None) else k.__name__ for k in kinds)
        raise TypeError(f"{metric}: option {name} must be {names}, got {value!r}")
    if (minimum is not None or maximum is not None) and isinstance(value, float) and math.isnan(value):
        raise ValueError(f"{metric}: option {name} must be a number, got {value!r}")  # NaN passes every bound
    if minimum is not None and value is not None and value < minimum:
        raise ValueError(f"{metric}: option {name} must be >= {minimum}, got {value!r}")
    if maximum is not None and value is not None and value > maximum:
        raise ValueError(f"{metric}: option {name} must be <= {maximum}, got {value!r}")
    if choices is not None and value is not None and value not in choices:
        raise ValueError(f"{metric}: option {name}={value!r} is not valid; valid: {sorted(choices)}")
    return value


def version_signature(*libraries: str) -> str:
    """``mtlib:X`` and ``LIB:X`` for each named library whose code shapes the number."""
    from mtlib.version import library_versions
    return library_versions(*libraries)


def with_nrefs(signature: str, n_refs: int) -> str:
    """``signature`` of scores computed against ``n_refs`` references (``…|nrefs:2``, as
    sacreBLEU's ``nrefs:N``). A metric's own signature leaves it out: the number belongs to the
    data, and that signature keys the statistics cache, whose key hashes the references anyway."""
    return f"{signature}|nrefs:{n_refs}"


class SacrebleuMetric(Metric):
    """Adapter over a sacrebleu metric: its segment statistics and its score formula.

    Every constructor option of the sacrebleu class is checked (name, type, range, choices)
    before sacrebleu sees it, and every option that changes a number is in the signature:
    sacrebleu's own signature leaves some out (BLEU's n-gram order, chrF's beta), which
    subclasses add through ``_extra_signature``.

    Class attributes for subclasses:
        _impl_class: the sacrebleu metric class.
        _types: option -> accepted type(s) (default: the type of sacrebleu's default value).
        _minimum / _choices: lower bounds and allowed values of options.
        _extra_signature: option -> abbreviation, for options sacrebleu's signature omits.
        _no_effect: options that change no number, with the reason (kept out of the signature).

    Args:
        target_lang: the target language to set the metric up for (its :meth:`language_defaults`
            fill the options not given); None: sacrebleu's defaults.
        **options: sacrebleu's constructor options.
    """

    _impl_class: ClassVar[type]
    _types: ClassVar[dict[str, tuple[type, ...]]] = {}
    _minimum: ClassVar[dict[str, float]] = {}
    _choices: ClassVar[dict[str, Collection]] = {}
    _extra_signature: ClassVar[dict[str, str]] = {}
    _no_effect: ClassVar[dict[str, str]] = {}

    def __init__(self, *, target_lang: str | None = None, **options: Any) -> None:
        self.explicit_options = dict(options)  # what the caller set: for_target keeps it
        self.target_lang = None if target_lang is None else check_lang(target_lang)
        defaults = self.language_defaults(self.target_lang) if self.target_lang else {}
        self.options = self.resolved_options({**defaults, **options})
        # sacrebleu would fail later, with a RuntimeError that names neither metric nor language.
        check_tokenizer_installed(self.name, self.options.get("tokenize"), self.target_lang)
        self._impl = self._impl_class(**self.options)

    @classmethod
    def option_defaults(cls) -> dict[str, Any]:
        """sacrebleu's constructor options and their defaults (``references`` excluded)."""
        params = inspect.signature(cls._impl_class.__init__).parameters
        return {k: p.default for k, p in params.items() if k not in ("self", "references")}

    @classmethod
    def option_names(cls) -> list[str]:
        return sorted(cls.option_defaults())

    @classmethod
    def resolved_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        defaults = cls.option_defaults()
        unknown = sorted(set(options) - set(defaults))
        if unknown:
            raise ValueError(f"{cls.name}: unknown option(s) {unknown}; valid: {sorted(defaults)}")
        out = {**defaults, **options}
        for key, value in options.items():
            kind = cls._types.get(key, (type(defaults[key]),))
            check_option(cls.name, key, value, kind, minimum=cls._minimum.get(key),
                         choices=cls._choices.get(key))
        return out

    def segment_stats(self, hyps, refs):
        check_inputs(self.name, hyps, refs)
        stats = self._impl._extract_corpus_statistics(list(hyps), [list(r) for r in refs])
        return np.asarray(stats, dtype=np.float64)

    def score_from_stats(self, stats):
        # sacrebleu casts lengths with int(); our float64 sums of integer counts are exact.
        return float(self._impl._compute_score_from_stats(np.asarray(stats)).score)

    @property
    def signature(self) -> str:
        return self._signature_of(self._impl)

    def _signature_of(self, impl) -> str:
        # sacrebleu's own signature of ``impl`` without nrefs, which belongs to the data, not the
        # metric (SystemStats adds the references used).
        args = {**impl.__dict__, "num_refs": "?"}
        text = impl._SIGNATURE_TYPE(args).format().replace("nrefs:?|", "")
        extra = "".join(f"|{abbr}:{self.options[key]}" for key, abbr in self._extra_signature.items())
        return f"{self.name}|{text}{extra}|{version_signature()}"
