"""A value of the wrong JSON kind is named in JSON's words, never by a Python type name."""

from __future__ import annotations

import json

import pytest

from driftproof._json import json_kind
from driftproof.errors import ReceiptError
from driftproof.receipt import parse_receipt


@pytest.mark.parametrize(
    "text,words",
    [
        ("null", "null"),
        ("true", "true"),
        ("false", "false"),
        ("3", "a number"),
        ("2.5", "a number"),
        ('"x"', "a string"),
        ("[1]", "an array"),
        ('{"a": 1}', "an object"),
    ],
)
def test_each_json_kind_in_words(text: str, words: str) -> None:
    assert json_kind(json.loads(text)) == words


def test_a_value_json_cannot_hold_is_not_named_by_its_type() -> None:
    assert json_kind(object()) == "a value of another kind"


@pytest.mark.parametrize("text,found", [("[]", "an array"), ("null", "null"), ("7", "a number")])
def test_a_receipt_that_is_not_an_object_says_what_it_is(text: str, found: str) -> None:
    with pytest.raises(ReceiptError) as info:
        parse_receipt(text.encode(), "r.json")
    assert f"expected a JSON object, found {found}" in str(info.value.problems[0])


def test_an_unterminated_string_is_placed_once() -> None:
    from driftproof._json import JSONFault, loads_strict

    with pytest.raises(JSONFault) as info:
        loads_strict('{"a": "x')
    assert str(info.value).endswith(": Unterminated string starting at line 1 column 7")
