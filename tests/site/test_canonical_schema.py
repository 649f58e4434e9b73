"""The canonical receipt schema (issue 15, item 7; D-11 revised; method, "served at its canonical
id (/spec/receipt.schema.json)"): a small schema whose $id is that URL, dispatching on
schema_version to the frozen per-version schemas, each at its own $id."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from site_fixtures import REPO

from driftproof.receipt import known_versions, schema_bytes
from driftproof.receipt._canonical import canonical_schema, canonical_schema_bytes

FIXTURES = REPO / "tests/receipt/fixtures"
CANONICAL = "https://driftproof.dev/spec/receipt.schema.json"


def _validator() -> Draft202012Validator:
    # Every schema is found by its own $id, as a reader that fetched the served files would.
    resources = [(CANONICAL, Resource.from_contents(json.loads(canonical_schema_bytes())))]
    for v in known_versions():
        doc = json.loads(schema_bytes(v))
        resources.append((doc["$id"], Resource.from_contents(doc)))
    return Draft202012Validator(
        json.loads(canonical_schema_bytes()), registry=Registry().with_resources(resources)
    )


def test_the_canonical_schema_has_the_canonical_id_and_refers_to_each_version_by_its_own() -> None:
    s = canonical_schema()
    assert s["$id"] == CANONICAL
    Draft202012Validator.check_schema(s)
    refs = [branch["then"]["$ref"] for branch in s["allOf"]]
    assert refs == [
        f"https://driftproof.dev/spec/{v}/receipt.schema.json" for v in known_versions()
    ]
    for v in known_versions():  # each frozen file's own $id is the URL it is served at
        assert (
            json.loads(schema_bytes(v))["$id"]
            == f"https://driftproof.dev/spec/{v}/receipt.schema.json"
        )


def _valid_fixtures() -> list[Path]:
    return sorted(p for p in FIXTURES.glob("*/valid-*.json"))


def test_every_valid_receipt_of_every_version_validates_against_the_canonical_id() -> None:
    validator = _validator()
    paths = _valid_fixtures()
    assert {p.parent.name for p in paths} == set(known_versions())  # a fixture of every version
    committed = sorted((REPO / "receipts").glob("*.json"))
    # every committed receipt of a kind (caveman, skill-creator, a few NVIDIA cards): the rest
    # share their shape
    sample = [p for p in committed if not p.name.startswith("nvidia-")] + [
        p for p in committed if p.name.startswith("nvidia-")
    ][:3]
    for p in paths + sample:
        errors = list(validator.iter_errors(json.loads(p.read_bytes())))
        assert errors == [], (p, errors[0].message if errors else "")


@pytest.mark.parametrize(
    "name", ["invalid-bad-level.json", "invalid-extra-member.json", "invalid-bad-sha256.json"]
)
def test_an_invalid_receipt_fails_against_the_canonical_id_as_against_its_own(name: str) -> None:
    doc = json.loads((FIXTURES / "0.14" / name).read_bytes())
    assert list(_validator().iter_errors(doc))


def test_an_unknown_or_missing_version_fails() -> None:
    doc = json.loads((FIXTURES / "0.14/valid-basic.json").read_bytes())
    doc["schema_version"] = "9.9"
    assert list(_validator().iter_errors(doc))
    del doc["schema_version"]
    assert list(_validator().iter_errors(doc))


def test_a_receipt_of_one_version_under_another_version_number_fails() -> None:
    # dispatching really selects: a 0.14 receipt relabelled 0.3.1 does not validate
    doc = json.loads((FIXTURES / "0.14/valid-basic.json").read_bytes())
    doc["schema_version"] = "0.3.1"
    assert list(_validator().iter_errors(doc))
