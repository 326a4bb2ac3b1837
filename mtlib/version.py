"""The package version: the one place it is written (pyproject reads it; signatures quote it).

Bump it whenever a change can alter a number: signatures carry it, so cached statistics of
an older version are never reused.
"""

__version__ = "0.2.0"
