"""MQM error annotations: the public table of annotated sets and the TSV reader."""

from __future__ import annotations

import pytest

from conftest import write_lines

from mtlib import mqm


def test_annotated_sets_are_public_and_read(tmp_path):
    assert set(mqm.MQM_ERROR_FILES) == {("wmt21.tedtalks", "en-de"), ("wmt21.tedtalks", "zh-en")}
    folder = tmp_path / "mt-metrics-eval-extras" / "wmt21.tedtalks"
    write_lines(folder / "mqm_ted_ende.tsv", ["system\tseg_id\tcategory\tseverity",
                                              'sysA\t1\tAccuracy/Omission\t"Major"', "ref\t2\tNo-error\tNo-error"])
    rows = mqm.load_mqm_rows("wmt21.tedtalks", "en-de", root=tmp_path)
    # no quoting: the quotes stay in the field
    assert [r["category"] for r in rows] == ["Accuracy/Omission", "No-error"] and rows[0]["severity"] == '"Major"'
    with pytest.raises(ValueError, match=r"no MQM error file for wmt19 en-de; available: \[\('wmt21.tedtalks'"):
        mqm.load_mqm_rows("wmt19", "en-de", root=tmp_path)
