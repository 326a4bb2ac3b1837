"""RegEMT (Štefánik, Novotný and Sojka, WMT 2021): a regressive ensemble of surface, embedding
and syntactic metrics.

* :mod:`~mtlib.embeddings.vectors` — static word vectors and decontextualized ones;
* :mod:`~mtlib.metrics.scm_wmd` — soft cosine (``SCM``) and word mover's distance (``WMD``) over
  them; :mod:`~mtlib.metrics.contextual` — ``SCM-contextual`` and ``WMD-contextual`` over an
  encoder's token vectors; :mod:`~mtlib.metrics.compositionality` — the part-of-speech bigram
  distance (all registered metrics, usable reference- or source-based);
* :mod:`~mtlib.regemt.scores` — every metric for every judged translation (the features);
  :mod:`~mtlib.regemt.features` — Reg-base's lengths;
* :mod:`~mtlib.regemt.ensemble` — the regressor, the source-grouped split, the ablation and
  permutation importance (the paper's data and evaluation protocol are the book's:
  ``mtbook.studies.regemt.datasets`` and ``.experiment``).
"""
