"""The receipt model and the frozen schema of the current version accept and refuse the same
fixtures (issue 18): a receipt built as the model fails at build time exactly where the schema
would refuse the written file."""

from __future__ import annotations

import json
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from receipt_docs import regrade_doc

from driftproof.receipt import CURRENT_VERSION, Receipt, known_versions
from driftproof.receipt._model import SchemaVersion
from driftproof.receipt._versions import compiled_validator_for, schema_for, validator_for

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
    except ValidationError as exc:
        by_model = False
        # a writer learns which field: every refusal carries its place in the receipt
        assert all(e["loc"] for e in exc.errors()), exc.errors()
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


#: Keywords of the frozen schema that bound a value (its range, pattern, uniqueness).
VALUE_RULES = (
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "uniqueItems",
)
#: Size bounds the model does not hold, by design: importers build the model first and bound
#: big text after (importers/_text.bound_document nulls an answer over the schema's maxLength
#: and records it in bounded_text), and the load edge holds them (check_json_bounds, schema).
SIZE_RULES = ("maxLength", "maxItems", "maxProperties")


def _branches(root: dict[str, Any], node: dict[str, Any]) -> list[dict[str, Any]]:
    """``node`` with its ``$ref`` resolved, and every ``anyOf`` branch under it."""
    while "$ref" in node:
        target: Any = root
        for part in node["$ref"][2:].split("/"):
            target = target[part]
        node = target
    return [node] + [b for sub in node.get("anyOf", []) for b in _branches(root, sub)]


Here = Callable[[str, list[dict[str, Any]], list[dict[str, Any]]], list[str]]


def _not_held(path: str, frozen: Any, model: Any, trees: tuple[Any, Any], here: Here) -> list[str]:
    """``here(path, frozen branches, model branches)`` at each place under ``frozen``, walking
    its members and items beside the model's (a member the model lacks fails the test)."""
    fb, mb = _branches(trees[0], frozen), _branches(trees[1], model)
    out = here(path, fb, mb)
    for f in fb:
        for name, sub in f.get("properties", {}).items():
            held = [m["properties"][name] for m in mb if name in m.get("properties", {})]
            assert held, f"{path}/{name}: a member the model does not have"
            out += _not_held(f"{path}/{name}", sub, held[0], trees, here)
        if "items" in f:
            items = [m["items"] for m in mb if "items" in m]
            out += _not_held(f"{path}/*", f["items"], items[0], trees, here)
    return out


def _rules_here(path: str, fb: list[dict[str, Any]], mb: list[dict[str, Any]]) -> list[str]:
    """Each keyword of VALUE_RULES + SIZE_RULES the model does not state with the same value
    at this place, as ``pointer keyword``."""
    return [
        f"{path} {kw}"
        for f in fb
        for kw in VALUE_RULES + SIZE_RULES
        if kw in f and not any(m.get(kw) == f[kw] for m in mb)
    ]


def test_the_model_states_every_value_rule_of_the_schema() -> None:
    # The fixtures exercise some rules; this walks them all: every pattern, range and
    # uniqueness rule of the frozen schema is in the model's own JSON Schema, at the same place
    # with the same value (its allOf rules are the fixtures' preset, aggregates and lost cases).
    frozen = schema_for(CURRENT_VERSION)
    model = Receipt.model_json_schema(mode="validation", by_alias=True)
    not_held = _not_held("", frozen, model, (frozen, model), _rules_here)
    assert [r for r in not_held if r.split(" ")[1] not in SIZE_RULES] == []
    assert any(r.endswith("/answer maxLength") for r in not_held)  # the walk reaches the draws


def test_a_regrade_names_each_judge_id_once() -> None:
    doc = _strict((FIXTURES / "valid-basic.json").read_text(encoding="utf-8"))
    doc["regrade"] = regrade_doc("judge", 2, 2, judge_ids=["judge-a", "judge-b"])
    assert validator_for(CURRENT_VERSION).is_valid(doc)
    Receipt.model_validate(doc)
    del doc["regrade"]["judge_ids"]  # optional: a rubric regrade's receipt names none
    assert validator_for(CURRENT_VERSION).is_valid(doc)
    regrade = Receipt.model_validate(doc).regrade
    assert regrade is not None and regrade.judge_ids is None
    doc["regrade"]["judge_ids"] = ["judge-a", "judge-b", "judge-a"]
    assert not validator_for(CURRENT_VERSION).is_valid(doc)
    with pytest.raises(ValidationError, match=r"expected unique judge ids, found \['judge-a'\]"):
        Receipt.model_validate(doc)


def _values(node: dict[str, Any]) -> frozenset[Any] | None:
    """The values an ``enum`` or ``const`` allows at ``node``, or None when it names neither."""
    if "enum" in node:
        return frozenset(node["enum"])
    return frozenset([node["const"]]) if "const" in node else None


def _enums_here(path: str, fb: list[dict[str, Any]], mb: list[dict[str, Any]]) -> list[str]:
    """The ``enum`` or ``const`` at this place that the model does not allow exactly."""
    held = {v for m in mb if (v := _values(m)) is not None}
    return [f"{path} {sorted(v)}" for f in fb if (v := _values(f)) is not None and v not in held]


def test_the_model_allows_every_listed_value_of_the_schema_and_no_other() -> None:
    # A value the frozen schema lists (a capture mode, a check kind, a file status) that the
    # model lacks refuses a valid receipt at write time; one the model adds lets a writer build
    # a receipt the schema refuses. schema_version is the exception by design: the model holds
    # every frozen version (D-11), each file's schema its own.
    frozen = schema_for(CURRENT_VERSION)
    model = Receipt.model_json_schema(mode="validation", by_alias=True)
    not_held = _not_held("", frozen, model, (frozen, model), _enums_here)
    assert not_held == [f"/schema_version ['{CURRENT_VERSION}']"]
    # the walk reaches the draws' files and the source report's stages
    assert {p for p in _listed("", frozen, frozen)} >= {
        "/cases/*/arms/with_skill/draws/*/captured_files/*/status",
        "/source_report/stages/*/status",
    }


def _listed(path: str, node: Any, root: Any) -> list[str]:
    """Every place under ``node`` (properties and items) that lists its allowed values."""
    out = []
    for f in _branches(root, node):
        out += [path] if _values(f) is not None else []
        for name, sub in f.get("properties", {}).items():
            out += _listed(f"{path}/{name}", sub, root)
        if "items" in f:
            out += _listed(f"{path}/*", f["items"], root)
    return out


@pytest.mark.parametrize(
    ("outcome", "passed", "accepted"),
    [
        ("error", True, False),  # the schema's $defs/check allOf: an errored check never passes
        ("error", False, True),
        ("pass", True, True),
        ("fail", False, True),
    ],
)
def test_an_errored_check_never_passes_in_model_and_schema(
    outcome: str, passed: bool, accepted: bool
) -> None:
    doc = _strict((FIXTURES / "valid-basic.json").read_text(encoding="utf-8"))
    check = doc["cases"][0]["arms"]["with_skill"]["draws"][0]["checks"][0]
    check.update(outcome=outcome, **{"pass": passed})
    assert validator_for(CURRENT_VERSION).is_valid(doc) is accepted
    if accepted:
        Receipt.model_validate(doc)
        return
    with pytest.raises(ValidationError, match="an errored check never passes") as info:
        Receipt.model_validate(doc)
    assert info.value.errors()[0]["loc"][:7] == (
        "cases",
        0,
        "arms",
        "with_skill",
        "draws",
        0,
        "checks",
    )


def _rules_added(path: str, model: Any, frozen: Any, trees: tuple[Any, Any]) -> list[str]:
    """Each keyword of VALUE_RULES + SIZE_RULES the model states under ``model`` that the
    frozen schema does not state with the same value at the same place, as ``pointer keyword``.
    A member the frozen schema does not name (inside its free-form objects) is not walked."""
    mb, fb = _branches(trees[0], model), _branches(trees[1], frozen)
    out = [
        f"{path} {kw}={m[kw]}"
        for m in mb
        for kw in VALUE_RULES + SIZE_RULES
        if kw in m and not any(f.get(kw) == m[kw] for f in fb)
    ]
    for m in mb:
        for name, sub in m.get("properties", {}).items():
            named = [f["properties"][name] for f in fb if name in f.get("properties", {})]
            out += _rules_added(f"{path}/{name}", sub, named[0], trees) if named else []
        if "items" in m and (items := [f["items"] for f in fb if "items" in f]):
            out += _rules_added(f"{path}/*", m["items"], items[0], trees)
    return out


def test_every_rule_the_model_states_is_the_schemas_at_the_same_place() -> None:
    # The model may leave a size bound to the load edge, never state one of its own: a model
    # stricter than the frozen schema refuses a receipt the schema accepts (a date-time of 64
    # characters), one looser lets a writer build a receipt the schema refuses.
    frozen = schema_for(CURRENT_VERSION)
    model = Receipt.model_json_schema(mode="validation", by_alias=True)
    assert _rules_added("", model, frozen, (model, frozen)) == []
