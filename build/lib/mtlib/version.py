"""The package version: the one place it is written (pyproject reads it; signatures quote it).

Bump it whenever a change can alter a number: signatures carry it, so cached statistics of
an older version are never reused.
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
