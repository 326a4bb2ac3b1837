"""The variance-aware chapter: :mod:`~mtbook.studies.vat.study` (its analyses) and
:mod:`~mtbook.studies.vat.figures` (its figures)."""
