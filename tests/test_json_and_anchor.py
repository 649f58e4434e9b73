"""The one strict JSON reader, the one JSON-pointer writer and the one slug helper (issue 18,
item 4). Expected values are worked out by hand from RFC 6901 and RFC 8259 and from the rules
the helpers' callers documented before they shared them."""

from __future__ import annotations

import pytest

from driftproof._anchor import slug, unique
from driftproof._json import JSONFault, escape, loads_strict, pointer
from driftproof.errors import Problem
from driftproof.render.escape import terminal_safe

# -- pointers (RFC 6901, section 3: "~" is written "~0" and "/" is written "~1") -------------


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        ((), ""),
        (("cases", 0, "id"), "/cases/0/id"),
        (("a/b",), "/a~1b"),
        (("m~n",), "/m~0n"),
        # "~1" in a name is "~" then "1": the "~" is escaped first, so it reads back as written
        (("~1",), "/~01"),
        (("",), "/"),
        (("samples/1_epoch_1.json", "scores"), "/samples~11_epoch_1.json/scores"),
    ],
)
def test_pointer_escapes_tilde_before_slash(parts: tuple[object, ...], expected: str) -> None:
    assert pointer(parts) == expected


def test_escape_of_one_token() -> None:
    assert escape("a/~b") == "a~1~0b"
    assert escape(3) == "3"


# -- strict JSON ----------------------------------------------------------------------------


def test_plain_document_parses() -> None:
    assert loads_strict('{"a": [1, 2.5, null, true], "b": "x"}') == {
        "a": [1, 2.5, None, True],
        "b": "x",
    }


def test_a_member_given_twice_is_refused_naming_it() -> None:
    with pytest.raises(JSONFault) as info:
        loads_strict('{"arms": {"caveman": 1, "caveman": 2}}')
    assert str(info.value) == 'expected unique member names, found "caveman" twice'
    assert info.value.whole


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_constants_are_refused_unless_allowed(constant: str) -> None:
    with pytest.raises(JSONFault) as info:
        loads_strict(f'{{"score": {constant}}}')
    # '{"score": ' is 10 characters: the constant starts at column 11
    assert str(info.value) == f"expected JSON: {constant} is not valid JSON at line 1 column 11"
    value = loads_strict(f'{{"score": {constant}}}', allow_nan=True)["score"]
    assert value != value if constant == "NaN" else abs(value) == float("inf")


def test_a_number_too_large_for_a_float_is_refused() -> None:
    # 1e400 is past the largest double (about 1.8e308): Python would read it as infinity
    with pytest.raises(JSONFault) as info:
        loads_strict('{"tokens": 1e400}')
    assert str(info.value) == (
        "expected JSON: number 1e400 is too large for a 64-bit float at line 1 column 12"
    )


def test_a_refused_constant_is_placed_past_strings_and_integers_that_look_like_one() -> None:
    # found: "NaN is not valid JSON" named no place, in a file of thousands of lines
    text = '{"note": "NaN 1e400 \\" NaN",\n "big": ' + "9" * 400 + ',\n "s": [1, -Infinity]}'
    with pytest.raises(JSONFault) as info:
        loads_strict(text)
    # line 3 is ' "s": [1, -Infinity]}': the minus sign is its 11th character
    assert str(info.value) == "expected JSON: -Infinity is not valid JSON at line 3 column 11"


def test_a_syntax_error_names_line_and_column_and_takes_a_lead() -> None:
    # line 2 is ` "b": }`: space, quote, b, quote, colon, space, then "}" in column 7
    with pytest.raises(JSONFault) as info:
        loads_strict('{"a": 1,\n "b": }')
    assert str(info.value) == "expected JSON: Expecting value at line 2 column 7"
    assert (
        info.value.worded("not valid JSON") == "not valid JSON: Expecting value at line 2 column 7"
    )


def test_a_byte_that_is_not_utf8_outside_a_string_is_named_by_offset() -> None:
    # bytes: {"a": <0xff> ... the bad byte is the 7th, offset 6
    text = b'{"a": \xff}'.decode("utf-8", errors="surrogateescape")
    with pytest.raises(JSONFault) as info:
        loads_strict(text)
    assert str(info.value) == "expected UTF-8 JSON, found an invalid byte at offset 6"
    assert info.value.offset == 6


def test_nesting_past_the_parser_limit_is_too_deep_not_a_crash() -> None:
    with pytest.raises(JSONFault) as info:
        loads_strict("[" * 100_000 + "]" * 100_000)
    assert info.value.too_deep


# -- slugs and unique names -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kwargs", "expected"),
    [
        ("case 1", {}, "case-1"),
        ("a<b>&c", {}, "a-b-c"),
        ("--x--", {}, "x"),
        ("", {}, "x"),
        ("<>", {}, "x"),
        ("v1.2_ok", {}, "v1.2_ok"),
        (".hidden.", {"strip": "-.", "empty": "case"}, "hidden"),
        ("...", {"strip": "-.", "empty": "case"}, "case"),
        ("é", {"strip": "-._", "empty": ""}, ""),
    ],
)
def test_slug(text: str, kwargs: dict[str, str], expected: str) -> None:
    assert slug(text, **kwargs) == expected


def test_unique_counts_from_two() -> None:
    used: set[str] = set()
    assert [unique("a", used) for _ in range(3)] == ["a", "a-2", "a-3"]
    assert used == {"a", "a-2", "a-3"}


def test_unique_folded_keeps_two_names_apart_that_differ_only_in_case() -> None:
    used: set[str] = set()
    assert unique("Case", used, fold=True) == "Case"
    assert unique("case", used, fold=True) == "case-2"
    assert used == {"case", "case-2"}


def test_a_key_in_quote_marks_prints_apart_from_a_blank_key_quoted() -> None:
    # found: a key written with quote marks around two spaces printed as the blank key of two
    # spaces does, /grades/"  ", and a key of two quote marks as the empty key, /a/""/b
    assert str(Problem("f", "/grades/  ", "m")) == 'f: /grades/"  ": m'
    assert str(Problem("f", '/grades/"  "', "m")) == 'f: /grades/"\\"  \\"": m'
    assert str(Problem("f", "/a//b", "m")) == 'f: /a/""/b: m'
    assert str(Problem("f", '/a/""/b', "m")) == 'f: /a/"\\"\\""/b: m'
    # a key with a quote mark past its first character cannot be taken for a quoted one
    assert str(Problem("f", '/a/say "hi"', "m")) == 'f: /a/say "hi": m'


def test_keys_that_differ_only_in_what_does_not_print_print_apart() -> None:
    # found: a key holding a zero-width space, one holding a byte-order mark and one holding the
    # six characters "\u200b" printed alike once the error line was made safe for a terminal, and
    # so did a key holding the text "\x1b" and one holding the escape character: every backslash
    # is doubled, a control is \xNN, every other character that does not print \uNNNN; RFC
    # 6901's ~0 and ~1 stay
    keys = {
        "/a\u200bb": "/a\\u200bb",
        "/a\ufeffb": "/a\\ufeffb",
        "/a\\u200bb": "/a\\\\u200bb",
        "/k\x1b": "/k\\x1b",
        "/k\\x1b": "/k\\\\x1b",
        "/n\u00a0b~1c~0": "/n\\u00a0b~1c~0",
        "/t\U000e0041": "/t\\U000e0041",
        '/"\u200b': '/"\\"\\u200b"',
    }
    printed = [terminal_safe(str(Problem("f", k, "m"))) for k in keys]
    assert printed == [f"f: {shown}: m" for shown in keys.values()]
