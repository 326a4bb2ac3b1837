"""RegEMT (Štefánik, Novotný and Sojka, WMT 2021): a regressive ensemble of surface, embedding
and syntactic metrics.

So far: static word vectors (:mod:`mtlib.regemt.vectors`) and the soft-cosine (SCM) and word
mover's distance (WMD) metrics over them (:mod:`mtlib.regemt.scm_wmd`), registered as ``SCM``
and ``WMD``. The contextual variants, the part-of-speech metric and the ensemble follow.
"""
