"""The chapters' studies: each module holds the analyses one chapter shows, built on mtlib.

* :mod:`~mtbook.studies.baselines` — surface metrics against WMT human scores;
* :mod:`~mtbook.studies.difficulty` — difficulty-aware BERTScore (Zhan et al., ACL 2021);
* :mod:`~mtbook.studies.vat.study` and :mod:`~mtbook.studies.vat.figures` — variance-aware test sets
  (Zhan et al., NeurIPS 2021);
* :mod:`~mtbook.studies.regemt` — RegEMT (Štefánik et al., WMT 2021);
* :mod:`~mtbook.studies.otem_utem` — Otem/Utem (Yang et al., NLPCC 2018);
* :mod:`~mtbook.studies.own_data` — the analyses above on a reader's own folder.

The studies never import one another: what two of them share lives in mtlib or in
:mod:`mtbook.prose`.
"""
