"""The book's wording helpers."""

from mtbook.prose import and_list, two_digits


def test_and_list():
    assert [and_list(x) for x in ([], ["a"], ["a", "b"], iter(["a", "b", "c"]))] == ["", "a", "a and b", "a, b and c"]


def test_two_digits_keeps_two_significant_digits_without_an_exponent():
    assert [two_digits(x) for x in (0.00014, 0.02, 0.1234, 12.34, 0.0)] == ["0.00014", "0.020", "0.12", "12", "0"]
    assert two_digits(-0.000149) == "-0.00015"
