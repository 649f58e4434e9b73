"""A JSON integer too long to convert is named where it stands, not at a long float before it."""

import sys

import pytest

from driftproof._json import JSONFault, loads_strict


@pytest.mark.parametrize("allow_nan", [False, True])
def test_a_long_fraction_before_a_long_integer_is_not_named(allow_nan: bool) -> None:
    # "[1." then 5,000 fraction digits, ", ", then an integer of 5,000 digits: the integer's
    # first digit is character 1 + 2 + 5000 + 2 + 1 = 5006 of line 1
    text = "[1." + "2" * 5000 + ", " + "3" * 5000 + "]"
    with pytest.raises(JSONFault) as caught:
        loads_strict(text, allow_nan=allow_nan)
    limit = sys.get_int_max_str_digits()
    assert str(caught.value) == (
        f"expected an integer of at most {limit} digits (one of 5000 digits at line 1 column 5006)"
    )


def test_a_long_float_before_a_long_integer_is_not_named_when_nan_is_allowed() -> None:
    # 5,000 digits, ".5", ", ", then 5,000 digits: the integer starts at character
    # 1 + 5000 + 2 + 2 + 1 = 5006 (the float is read as infinity, as allow_nan asks)
    text = "[" + "1" * 5000 + ".5, " + "2" * 5000 + "]"
    with pytest.raises(JSONFault) as caught:
        loads_strict(text, allow_nan=True)
    assert str(caught.value).endswith("(one of 5000 digits at line 1 column 5006)")


def test_a_long_negative_integer_counts_its_digits_alone() -> None:
    text = '{"n": -' + "7" * 4400 + "}"  # the minus sign at character 7
    with pytest.raises(JSONFault) as caught:
        loads_strict(text)
    assert str(caught.value).endswith("(one of 4400 digits at line 1 column 7)")
