import pytest

from mtbook import params


@pytest.mark.parametrize("fn, args, ok", [
    (params.str_list, (["en-de"],), ["en-de"]),
    (params.positive_int, (5,), 5),
    (params.fraction, (0.3,), 0.3),
    (params.fraction, (1,), 1.0),
])
def test_accepts(fn, args, ok):
    assert fn("p", *args) == ok


@pytest.mark.parametrize("fn, value", [
    (params.str_list, "en-de"), (params.str_list, []), (params.str_list, [1]),
    (params.positive_int, 0), (params.positive_int, True), (params.positive_int, 2.0),
    (params.positive_int, None),
    (params.fraction, 0), (params.fraction, 1.5), (params.fraction, "0.3"),
])
def test_refuses_with_the_parameter_name(fn, value):
    with pytest.raises(ValueError, match="parameter p: expected"):
        fn("p", value)


def test_empty_list_only_when_allowed():
    assert params.evalset_keys("p", [], allow_empty=True) == []
    with pytest.raises(ValueError, match="parameter p: expected a non-empty list"):
        params.evalset_keys("p", [])
    with pytest.raises(ValueError, match="parameter p: expected 'TESTSET LP'"):
        params.evalset_keys("p", ["wmt19"], allow_empty=True)


def test_none_when_allowed():
    assert params.positive_int("p", None, allow_none=True) is None
