"""Variance-aware test sets (Zhan, Liu, Wong and Chao, NeurIPS 2021 Datasets and Benchmarks).

Keep the test segments on which the systems' scores vary most:

* :mod:`mtlib.vat.filtering` — per-segment scores of every system with any segment-level
  metric, their standard deviation, the kept ids for a filtering percentage, and writing a
  filtered test set in the released format;
* :mod:`mtlib.vat.release` — the sets the authors released, as evaluation-set subsets;
* :mod:`mtlib.vat.cli` — ``mtlib vat`` on an evaluation set or on plain files.
"""

from mtlib.vat.filtering import (BERTSCORE_COLUMNS, VATSelection, as_system_stats, bertscore_segment_scores,
                                 check_drop_percent, kept_ids, segment_scores, segment_std, select, write_ids_json,
                                 write_vat_set)
from mtlib.vat.release import RELEASE_FILE, NotReleased, read_ids_json, release_folder, released_ids, released_subset

__all__ = ["BERTSCORE_COLUMNS", "VATSelection", "as_system_stats", "bertscore_segment_scores", "check_drop_percent",
           "kept_ids", "segment_scores", "segment_std", "select",
           "write_ids_json", "write_vat_set", "RELEASE_FILE", "NotReleased", "read_ids_json", "release_folder", "released_ids",
           "released_subset"]
