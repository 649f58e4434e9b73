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
    assert line.startswith("f.json: (document): expected member names of at most 1000 characters")
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
    assert (
        lines[-1]
        == f"f.json: (document): … and {50 - _bounds.MAX_PROBLEMS} more problems over the limits"
    )


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
        BoundsError, match=r"valid-basic.json: \(document\): expected at most \d+ bytes, found \d+"
    ):
        read_receipt(src)


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
