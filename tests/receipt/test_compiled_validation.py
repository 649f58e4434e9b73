"""The compiled validator (jsonschema-rs) decides, python-jsonschema only words.

Parity: every fixture of every frozen version and every committed receipt gets the same
outcome from both validators. Formats: ``date-time`` is really checked (python-jsonschema
alone skips it without the optional rfc3339-validator). Patterns keep ECMA-262 semantics.
A document only the compiled validator refuses is refused all the same.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from driftproof import errors
from driftproof.receipt import (
    _load,
    _messages,
    build_receipt,
    known_versions,
    read_receipt,
    write_receipt,
)
from driftproof.receipt._load import _parse_json
from driftproof.receipt._load import _validate as validate_document
from driftproof.receipt._versions import compiled_validator_for, validator_for

FIXTURES = Path(__file__).parent / "fixtures"
RECEIPTS = Path(__file__).resolve().parents[2] / "receipts"


def _documents() -> list[tuple[str, str, object]]:
    """(id, version whose schema applies, parsed document) for every fixture and committed receipt
    that parses as strict JSON (the duplicate-key and NaN fixtures stop before any schema)."""
    out = []
    for path in sorted(FIXTURES.glob("*/*.json")):
        if path.name == "expected.json":
            continue
        try:
            doc = _parse_json(path.read_bytes(), str(path))
        except errors.ReceiptError:
            continue
        out.append((f"{path.parent.name}/{path.name}", path.parent.name, doc))
    for path in sorted(RECEIPTS.rglob("*.json")):
        doc = json.loads(path.read_bytes())
        out.append((f"receipts/{path.name}", doc["schema_version"], doc))
    return out


DOCUMENTS = _documents()


def test_the_parity_set_covers_every_version_valid_and_invalid() -> None:
    versions = {v for _, v, _ in DOCUMENTS}
    assert versions == set(known_versions())
    names = [i for i, _, _ in DOCUMENTS]
    for v in known_versions():
        assert any(n.startswith(f"{v}/valid-") for n in names), v
        assert any(n.startswith(f"{v}/invalid-") for n in names), v
    assert any(n.startswith("receipts/") for n in names)


@pytest.mark.parametrize(("ident", "version", "doc"), DOCUMENTS, ids=[i for i, _, _ in DOCUMENTS])
def test_both_validators_give_the_same_outcome(ident: str, version: str, doc: object) -> None:
    compiled = compiled_validator_for(version).is_valid(doc)
    worded = next(iter(validator_for(version).iter_errors(doc)), None) is None
    assert compiled == worded, ident


def _valid(version: str) -> dict:
    return json.loads((FIXTURES / version / "valid-basic.json").read_bytes())


# Each breaks the calendar or the clock, not the shape: the schema's date-time pattern accepts
# them, so only a real ``format`` check can refuse them.
IMPOSSIBLE_TIMES = [
    "2026-13-45T25:61:61Z",
    "2026-02-30T10:00:00Z",
    "2026-04-31T00:00:00Z",
    "2026-01-01T24:00:00Z",
    "2026-01-01T10:60:00+01:00",
    "2026-01-01T10:00:00+25:00",
]


@pytest.mark.parametrize("version", known_versions())
@pytest.mark.parametrize("value", IMPOSSIBLE_TIMES)
def test_an_impossible_date_time_is_refused_in_every_version(version: str, value: str) -> None:
    doc = _valid(version)
    doc["run"]["started_at"] = value
    assert not compiled_validator_for(version).is_valid(doc)
    with pytest.raises(errors.ReceiptError) as info:
        validate_document(doc, "planted.json")
    assert info.value.problems[0].pointer == "/run/started_at"
    assert (
        "expected a valid date-time value (RFC 3339 date-time with an offset)"
        in info.value.lines()[0]
    )
    assert value in info.value.lines()[0]


@pytest.mark.parametrize(
    "value", ["2026-02-28T23:59:59Z", "2024-02-29T00:00:00.5+05:30", "2026-12-31T23:59:60Z"]
)
def test_a_real_date_time_passes_the_format_check(value: str) -> None:
    # 2024 is a leap year; RFC 3339 allows a leap second (section 5.7).
    for version in known_versions():
        doc = _valid(version)
        doc["run"]["started_at"] = value
        assert compiled_validator_for(version).is_valid(doc)
        assert not list(validator_for(version).iter_errors(doc))


@pytest.mark.parametrize("version", known_versions())
def test_pattern_dollar_does_not_match_before_a_final_newline(version: str) -> None:
    # ECMA-262: ``$`` without the m flag matches only at the very end;
    # Python's re would accept "c2\n".
    doc = _valid(version)
    doc["cases"][0]["id"] = "c2\n"
    assert not compiled_validator_for(version).is_valid(doc)
    with pytest.raises(errors.ReceiptError) as info:
        validate_document(doc, "planted.json")
    assert info.value.problems[0].pointer == "/cases/0/id"
    assert "text matching" in info.value.lines()[0]


def test_a_document_only_the_compiled_validator_refuses_is_refused_all_the_same(
    monkeypatch,
) -> None:
    from jsonschema import Draft202012Validator

    doc = _valid("0.16")
    doc["verification_level"] = "CERTAIN"
    # python-jsonschema made blind: it finds nothing wrong with anything
    monkeypatch.setattr(_messages, "validator_for", lambda version: Draft202012Validator({}))
    with pytest.raises(errors.ReceiptError) as info:
        validate_document(doc, "planted.json")
    lines = info.value.lines()
    assert lines[0].startswith(
        "planted.json: /verification_level: expected a value the schema's 'enum' rule accepts"
    )
    assert '"CERTAIN"' in lines[0] and "(schema 0.16)" in lines[0]


def test_validate_document_agrees_with_reading_the_file() -> None:
    for path in sorted(FIXTURES.glob("*/valid-*.json")):
        doc = json.loads(path.read_bytes())
        assert validate_document(copy.deepcopy(doc), str(path)) == read_receipt(path)
        assert doc == json.loads(path.read_bytes()), "validate_document must not mutate its input"


def test_write_receipt_validates_in_memory_and_never_reads_back(tmp_path, monkeypatch) -> None:
    doc = build_receipt(level="UNVERIFIED", skill_name="s", skill_text="skill", cases=[])
    out = tmp_path / "r.json"

    def no_parse(*a, **k):  # the file is never parsed back
        raise AssertionError("read back")

    monkeypatch.setattr(_load, "_parse_json", no_parse)
    r = write_receipt(doc, out)
    monkeypatch.undo()
    assert read_receipt(out) == r


def test_write_receipt_writes_nothing_when_the_receipt_is_invalid(tmp_path) -> None:
    doc = build_receipt(
        level="UNVERIFIED",
        skill_name="s",
        skill_text="skill",
        cases=[],
        started_at="2026-13-45T25:61:61Z",
    )
    out = tmp_path / "r.json"
    out.write_bytes(b"previous")
    with pytest.raises(errors.ReceiptError) as info:
        write_receipt(doc, out)
    assert info.value.problems[0].file == str(out)
    assert info.value.problems[0].pointer == "/run/started_at"
    assert out.read_bytes() == b"previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_an_arm_over_the_draws_limit_is_refused_before_the_slow_walk(tmp_path, monkeypatch) -> None:
    # Found: a receipt of 20,000 draws an arm (18 MB) took 42-56 s to say "expected at most 1000
    # items": python-jsonschema walked every draw to word the refusal. A size limit is found by
    # the compiled validator first and worded the same, the other places unwalked (the schema's
    # arm holds at most 1000 draws)
    from factories import case, make_receipt

    out = tmp_path / "big.json"
    out.write_text(json.dumps(make_receipt([case("c1", [0.5] * 1001, [0.5] * 3)])))

    def no_walk(version: str) -> None:
        raise AssertionError("python-jsonschema walked the document")

    monkeypatch.setattr(_messages, "validator_for", no_walk)
    with pytest.raises(errors.ReceiptError) as info:
        read_receipt(out)
    assert info.value.lines() == [
        f"{out}: /cases/0/arms/with_skill/draws: expected at most 1000 items, found 1001 "
        "(schema 0.16)"
    ]
