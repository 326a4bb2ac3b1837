"""RegEMT (Štefánik, Novotný and Sojka, WMT 2021): a regressive ensemble of surface, embedding
and syntactic metrics.

So far: static word vectors (:mod:`mtlib.regemt.vectors`), the soft-cosine (SCM) and word
mover's distance (WMD) metrics over them (:mod:`mtlib.regemt.scm_wmd`) and the part-of-speech
bigram distance (:mod:`mtlib.regemt.compositionality`), registered as ``SCM``, ``WMD`` and
``Compositionality``; Reg-base's length features (:mod:`mtlib.regemt.features`); the ensemble,
its source-grouped split and the ablation (:mod:`mtlib.regemt.ensemble`); decontextualized
vectors for SCM/WMD (``SCM.over(decontextualized_vectors(texts, embedder))``). The contextual
and source-based variants and the chapter follow.
"""
