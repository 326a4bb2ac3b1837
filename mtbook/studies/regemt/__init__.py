"""The RegEMT chapter: :mod:`~mtbook.studies.regemt.experiment` (the paper's evaluation protocol:
held-out Spearman of single metrics, Reg-base and RegEMT, cross-lingual fits, intervals by source)
and :mod:`~mtbook.studies.regemt.study` (the chapter's analyses and findings)."""
