"""The receipt model and the frozen schema of the current version accept and refuse the same
fixtures (issue 18): a receipt built as the model fails at build time exactly where the schema
would refuse the written file."""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from driftproof.receipt import CURRENT_VERSION, Receipt, known_versions
from driftproof.receipt._model import SchemaVersion
from driftproof.receipt._versions import compiled_validator_for, validator_for

FIXTURES = Path(__file__).parent / "fixtures" / CURRENT_VERSION
#: Refused by the strict JSON parse before any schema or model sees them: not JSON documents.
NOT_JSON = {"invalid-nan.json", "invalid-duplicate-key.json"}


def _strict(text: str) -> Any:
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        if len({k for k, _ in items}) != len(items):
            raise ValueError("duplicate member")
        return dict(items)

    def constant(name: str) -> Any:
        raise ValueError(name)

    return json.loads(text, object_pairs_hook=pairs, parse_constant=constant)


def _fixtures() -> list[Path]:
    return sorted(p for p in FIXTURES.glob("*.json") if p.name != "expected.json")


def test_the_fixtures_that_are_not_json_are_refused_by_the_parse() -> None:
    refused = set()
    for path in _fixtures():
        try:
            _strict(path.read_text(encoding="utf-8"))
        except ValueError:
            refused.add(path.name)
    assert refused == NOT_JSON


@pytest.mark.parametrize(
    "path", [p for p in _fixtures() if p.name not in NOT_JSON], ids=lambda p: p.name
)
def test_model_and_schema_agree(path: Path) -> None:
    doc = _strict(path.read_text(encoding="utf-8"))
    by_schema = validator_for(CURRENT_VERSION).is_valid(doc)
    assert compiled_validator_for(CURRENT_VERSION).is_valid(doc) == by_schema
    try:
        Receipt.model_validate(doc)
        by_model = True
    except ValidationError:
        by_model = False
    assert by_model == by_schema, f"schema accepts: {by_schema}, model accepts: {by_model}"
    if path.name.startswith("valid-"):
        assert by_schema


def test_both_refuse_some_fixtures_and_accept_others() -> None:
    # The parity test cannot pass by both sides accepting (or refusing) everything.
    verdicts = {
        p.name: validator_for(CURRENT_VERSION).is_valid(_strict(p.read_text(encoding="utf-8")))
        for p in _fixtures()
        if p.name not in NOT_JSON
    }
    assert sum(verdicts.values()) >= 5
    assert len(verdicts) - sum(verdicts.values()) >= 20


def test_the_model_knows_every_frozen_version() -> None:
    assert typing.get_args(SchemaVersion) == known_versions()
