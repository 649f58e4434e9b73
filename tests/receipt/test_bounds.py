"""Bounds checked before parsing further, with bounded diagnostics (issue 4, item 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from driftproof.errors import BoundsError
from driftproof.receipt import (
    BREAKDOWN_MAX_BYTES,
    _bounds,
    breakdown_size_ok,
    breakdown_unavailable_reason,
    check_json_bounds,
    parse_receipt,
    read_receipt,
)

FIXTURES = Path(__file__).parent / "fixtures"


def _problems(value: object, **limits: int) -> list[str]:
    with pytest.raises(BoundsError) as info:
        check_json_bounds(value, "f.json", **limits)
    return info.value.lines()


def test_limits_are_the_documented_numbers() -> None:
    assert _bounds.RECEIPT_MAX_BYTES == 268_435_456
    assert BREAKDOWN_MAX_BYTES == 67_108_864
    assert _bounds.JSON_SAFE_INTEGER == 9_007_199_254_740_991
    assert _bounds.ANSWER_MAX_CHARS == 1_048_576


def test_each_limit_names_the_pointer_and_the_limit() -> None:
    assert _problems({"a": [[["x"]]]}, max_depth=3) == [
        "f.json: /a/0/0: expected nesting of at most 3 levels"
    ]
    assert _problems({"s": "abcd"}, max_string_chars=3) == [
        "f.json: /s: expected a string of at most 3 characters, found 4"
    ]
    assert _problems({"l": [1, 2, 3]}, max_items=2) == [
        "f.json: /l: expected at most 2 items, found 3"
    ]
    assert _problems({"o": {"a": 1, "b": 2}}, max_members=1) == [
        "f.json: /o: expected at most 1 members, found 2"
    ]
    assert _problems({"n": 2**53}) == [
        "f.json: /n: expected an integer within ±9007199254740991 "
        "(RFC 8785 seals no larger), found one of 16 digits"
    ]
    assert _problems({"a/b~": "\ud800"}) == [
        "f.json: /a~1b~0: expected valid Unicode text, found a lone surrogate escape"
    ]
    (line,) = _problems({"k" * 2000: 1})
    assert line.startswith("f.json: expected member names of at most 1000 characters")
    assert len(line) < 200


def test_at_limit_is_accepted() -> None:
    check_json_bounds(
        {"s": "abc", "l": [1, 2], "n": 2**53 - 1, "deep": [[1]]},
        "f.json",
        max_string_chars=3,
        max_items=2,
        max_depth=3,
    )


def test_diagnostics_are_capped() -> None:
    lines = _problems({f"k{i}": "long" for i in range(50)}, max_string_chars=1)
    assert len(lines) == _bounds.MAX_PROBLEMS + 1
    assert lines[-1] == f"f.json: … and {50 - _bounds.MAX_PROBLEMS} more problems over the limits"
    one_over = _problems({f"k{i}": "long" for i in range(21)}, max_string_chars=1)
    assert one_over[-1] == "f.json: … and 1 more problem over the limits"  # one, not "problems"


def test_deep_json_text_is_refused_as_bounds_not_recursion() -> None:
    for depth in (65, 100_000):
        with pytest.raises(BoundsError):
            parse_receipt(("[" * depth + "]" * depth).encode(), "deep.json")


def test_oversized_file_is_refused_before_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = FIXTURES / "0.14" / "valid-basic.json"
    monkeypatch.setattr(_bounds, "RECEIPT_MAX_BYTES", src.stat().st_size - 1)
    with pytest.raises(
        BoundsError, match=r"valid-basic.json: expected at most \d+ bytes, found \d+"
    ):
        read_receipt(src)


def test_a_receipt_of_exactly_the_size_bound_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    # the bound is "at most" that many bytes: a file of exactly that size is read, from disk
    # and from memory alike; one byte more is refused
    src = FIXTURES / "0.16" / "valid-basic.json"
    size = src.stat().st_size
    monkeypatch.setattr(_bounds, "RECEIPT_MAX_BYTES", size)
    assert read_receipt(src).schema_version == "0.16"
    assert parse_receipt(src.read_bytes(), "r.json").schema_version == "0.16"
    with pytest.raises(BoundsError, match=rf"r.json: expected at most {size} bytes, found "):
        parse_receipt(src.read_bytes() + b" ", "r.json")


def test_breakdown_size_limit_keeps_sheet_and_diff(tmp_path: Path) -> None:
    assert breakdown_size_ok(BREAKDOWN_MAX_BYTES) and not breakdown_size_ok(BREAKDOWN_MAX_BYTES + 1)
    assert breakdown_size_ok(b"{}")
    p = tmp_path / "r.json"
    p.write_bytes(b"x" * 10)
    assert breakdown_size_ok(p) and breakdown_unavailable_reason(p) is None
    reason = breakdown_unavailable_reason(BREAKDOWN_MAX_BYTES + 1)
    assert reason == (
        "Breakdown unavailable: the receipt is 67108865 bytes, over the breakdown's size limit of "
        "67108864 bytes. Its sheet and its diff report are unaffected."
    )


def test_a_receipt_over_the_breakdown_limit_still_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    src = FIXTURES / "0.14" / "valid-basic.json"
    monkeypatch.setattr(_bounds, "BREAKDOWN_MAX_BYTES", 100)
    assert not _bounds.breakdown_size_ok(src)
    assert read_receipt(src).cases[0].id == "commit-1"


def test_long_answer_within_schema_reads_and_over_bound_is_refused() -> None:
    doc = json.loads((FIXTURES / "0.14" / "valid-basic.json").read_text())
    doc["cases"][0]["arms"]["with_skill"]["draws"][0]["answer"] = "a" * (
        _bounds.RECEIPT_MAX_STRING_CHARS + 1
    )
    with pytest.raises(
        BoundsError, match="/cases/0/arms/with_skill/draws/0/answer: expected a string of at most"
    ):
        parse_receipt(json.dumps(doc).encode(), "r.json")


# --- the plain pass (issue 19) -----------------------------------------------------------------
# check_json_bounds first asks _within whether a value is plainly inside every bound, and only
# walks with pointers when it is not. The plain pass must never accept what the walk refuses,
# nor send a value the walk accepts to the walk (which would only cost time): the two agree on
# every value of the exact JSON types, at any limits.

from hypothesis import example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_SAFE = _bounds.JSON_SAFE_INTEGER
_TEXT = st.text(alphabet=st.sampled_from(["a", "é", "\ud800", "\udfff", "😀", "\x00"]), max_size=6)
_SCALARS = (
    st.none()
    | st.booleans()
    | st.sampled_from([0, 1, -1, _SAFE, -_SAFE, _SAFE + 1, -_SAFE - 1, 2**64])
    | st.floats(allow_nan=True, allow_infinity=True)
    | _TEXT
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_TEXT, inner, max_size=5),
    max_leaves=25,
)
_LIMITS = st.fixed_dictionaries(
    {
        "max_depth": st.integers(1, 5),
        "max_string_chars": st.integers(0, 6),
        "max_items": st.integers(0, 5),
        "max_members": st.integers(0, 5),
        "max_key_chars": st.integers(0, 6),
    }
)


def _walk_accepts(value: object, limits: dict[str, int], monkeypatch: pytest.MonkeyPatch) -> bool:
    with monkeypatch.context() as m:
        m.setattr(_bounds, "_within", lambda *_a: False)  # the walk alone decides
        try:
            check_json_bounds(value, "f.json", **limits)
        except BoundsError:
            return False
    return True


_ROOMY = {
    "max_depth": 3,
    "max_string_chars": 4,
    "max_items": 4,
    "max_members": 4,
    "max_key_chars": 4,
}


@settings(max_examples=400, deadline=None)
@given(value=_VALUES, limits=_LIMITS)
@example(value=[float("inf")], limits=_ROOMY)
@example(value={"a": float("nan")}, limits=_ROOMY)
@example(value=[-_SAFE - 1], limits=_ROOMY)
@example(value=[_SAFE + 1], limits=_ROOMY)
@example(value=[[[[]]]], limits=_ROOMY)
@example(value={"\ud800": 1}, limits=_ROOMY)
@example(value=["\udfff"], limits=_ROOMY)
@example(value=["abcde"], limits=_ROOMY)
@example(value={"abcde": 1}, limits=_ROOMY)
@example(value=[1, 2, 3, 4, 5], limits=_ROOMY)
@example(value=dict.fromkeys("abcde", 1), limits=_ROOMY)
def test_plain_pass_agrees_with_the_walk(value: object, limits: dict[str, int]) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        walk = _walk_accepts(value, limits, monkeypatch)
    order = ("max_depth", "max_string_chars", "max_items", "max_members", "max_key_chars")
    assert _bounds._within(value, *(limits[k] for k in order)) is walk


def test_plain_pass_sends_other_types_to_the_walk() -> None:
    class Text(str):
        pass

    # a subclass of a JSON type is not plain: the walk decides (and accepts it)
    assert _bounds._within({"a": Text("x")}, 5, 10, 10, 10, 10) is False
    check_json_bounds({"a": Text("x")}, "f.json")
    assert _bounds._within({1: "x"}, 5, 10, 10, 10, 10) is False  # a name that is no string


def test_member_names_are_measured_one_by_one() -> None:
    # three names of 4 characters: 12 in all, over a limit of 5, yet each is within it
    check_json_bounds({"abcd": 1, "efgh": 2, "ijkl": 3}, "f.json", max_key_chars=5)
    assert _problems({"abcd": 1, "efghij": 2}, max_key_chars=5) == [
        'f.json: expected member names of at most 5 characters of valid Unicode, found "efghij"'
    ]
    # a high and a low surrogate in two names do not make one valid character
    halves = dict(zip(["\ud83d", "\ude00"], [1, 2], strict=True))
    assert _bounds._within(halves, 5, 10, 10, 10, 10) is False
