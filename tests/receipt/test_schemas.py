"""The frozen schema files (D-11), the model against the current one, and the public API."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import driftproof.receipt as receipt
from driftproof.receipt import (
    CURRENT_VERSION,
    Receipt,
    _bounds,
    known_versions,
    schema_bytes,
)
from driftproof.receipt._versions import schema_for


def test_public_api_all_equals_the_sorted_public_names() -> None:
    # httpx's test: __all__ lists exactly the public names, sorted.
    public = sorted(
        n
        for n in dir(receipt)
        if not n.startswith("_")
        and n not in {"annotations"}
        and not isinstance(getattr(receipt, n), type(receipt))
    )
    assert receipt.__all__ == sorted(receipt.__all__)
    assert receipt.__all__ == public


@pytest.mark.parametrize("version", known_versions())
def test_each_schema_is_draft_2020_12_with_its_canonical_id(version: str) -> None:
    s = schema_for(version)
    Draft202012Validator.check_schema(s)
    assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert s["$id"] == f"https://driftproof.dev/spec/{version}/receipt.schema.json"
    assert s["properties"]["schema_version"] == {"const": version}
    assert json.loads(schema_bytes(version)) == s


def test_current_version_is_the_newest() -> None:
    assert known_versions()[-1] == CURRENT_VERSION == "0.16"


def _walk(node: Any):
    if isinstance(node, dict):
        yield node
        for v in node.values():
            yield from _walk(v)
    elif isinstance(node, list):
        for v in node:
            yield from _walk(v)


@pytest.mark.parametrize("version", known_versions())
def test_schema_limits_sit_inside_the_reader_bounds(version: str) -> None:
    for node in _walk(schema_for(version)):
        assert node.get("maxLength", 0) <= _bounds.RECEIPT_MAX_STRING_CHARS
        assert node.get("maxItems", 0) <= _bounds.RECEIPT_MAX_ITEMS
    draw = schema_for(version)["$defs"]["draw"]["properties"]
    assert draw["answer"]["anyOf"][0]["maxLength"] == _bounds.ANSWER_MAX_CHARS
    assert draw["judge_samples"]["maxItems"] == _bounds.JUDGE_SAMPLES_MAX_PER_ANSWER
    sample = schema_for(version)["$defs"]["judge_sample"]["properties"]
    assert sample["reported_model"]["anyOf"][0]["maxLength"] == _bounds.MODEL_ID_MAX_CHARS


def test_fields_are_added_at_the_versions_the_method_dates() -> None:
    def run_fields(v: str) -> set[str]:
        return set(schema_for(v)["properties"]["run"]["properties"])

    top = {v: set(schema_for(v)["properties"]) for v in known_versions()}
    check = schema_for("0.3.1")["$defs"]["check"]
    assert set(check["properties"]) == {"name", "kind", "pass"}  # v0.3.1
    assert "tokens" in schema_for("0.3.1")["properties"]["skill"]["properties"]  # v0.3.1
    assert {"capture", "harness"} & run_fields("0.3.1") == set()
    assert {"capture", "harness"} <= run_fields("0.10")  # v0.10
    assert "preset" not in run_fields("0.10") and "preset" in run_fields("0.11")  # v0.11
    assert "allOf" in schema_for("0.11") and "allOf" not in schema_for("0.10")
    assert {"source_figures", "uncertainty_unavailable"} & top["0.11"] == set()
    assert {"source_figures", "uncertainty_unavailable"} <= top["0.13"]  # v0.13
    for v in ("0.3.1", "0.10", "0.11", "0.13"):
        assert "samples" in run_fields(v)
        assert {"generations_per_arm", "judge_samples_per_generation"} & run_fields(v) == set()
        assert {"band_source", "provenance"} & top[v] == set()
    assert {"generations_per_arm", "judge_samples_per_generation"} <= run_fields("0.14")
    assert {"band_source", "provenance"} <= top["0.14"]
    # v0.15: stop reasons, services, budgets, grading channel, skill-fired rate, batch ids,
    # judge-template identity; none existed before
    draw = {v: set(schema_for(v)["$defs"]["draw"]["properties"]) for v in known_versions()}
    judge = {v: set(schema_for(v)["$defs"]["judge"]["properties"]) for v in known_versions()}
    arm = {v: set(schema_for(v)["$defs"]["arm_spec"]["properties"]) for v in known_versions()}
    assert {"stop_reason", "refusal", "attempts"} <= draw["0.15"]
    assert {"stop_reason", "refusal", "attempts"} & draw["0.14"] == set()
    assert {"channel", "template_version", "max_output_tokens"} <= judge["0.15"]
    assert {"channel", "template_version", "max_output_tokens"} & judge["0.14"] == set()
    assert {"service", "recorded", "skill_fired", "construction"} <= arm["0.15"]
    assert {"service", "recorded", "skill_fired", "construction"} & arm["0.14"] == set()
    assert {"max_output_tokens", "batch", "retry", "language"} <= run_fields("0.15")
    assert {"max_output_tokens", "batch", "retry", "language"} & run_fields("0.14") == set()


# --- the pydantic model against the committed 0.14 file (STYLE-EXAMPLES 9) ----------


def _resolve(root: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        target: Any = root
        for part in node["$ref"][2:].split("/"):
            target = target[part]
        node = target
    return node


def _object(root: dict[str, Any], node: dict[str, Any]) -> dict[str, Any] | None:
    """The object schema inside ``node`` (through $ref and a nullable anyOf), or None."""
    node = _resolve(root, node)
    if "anyOf" in node:
        objs = [o for o in (_object(root, b) for b in node["anyOf"]) if o is not None]
        return objs[0] if objs else None
    return node if "properties" in node else None


def _items(root: dict[str, Any], node: dict[str, Any]) -> dict[str, Any] | None:
    node = _resolve(root, node)
    if "anyOf" in node:
        for b in node["anyOf"]:
            found = _items(root, b)
            if found is not None:
                return found
        return None
    return node.get("items")


def _compare(
    gen_root: dict[str, Any],
    gen: dict[str, Any],
    frozen_root: dict[str, Any],
    frozen: dict[str, Any],
    where: str,
    seen: list[str],
) -> None:
    g, f = _object(gen_root, gen), _object(frozen_root, frozen)
    if g is None or f is None:
        gi, fi = _items(gen_root, gen), _items(frozen_root, frozen)
        if gi is not None and fi is not None:
            _compare(gen_root, gi, frozen_root, fi, where + "[]", seen)
        return
    assert set(g["properties"]) == set(f["properties"]), where
    assert set(g.get("required", [])) == set(f.get("required", [])), where
    seen.append(where)
    for name in g["properties"]:
        _compare(
            gen_root,
            g["properties"][name],
            frozen_root,
            f["properties"][name],
            f"{where}/{name}",
            seen,
        )


def test_model_and_committed_current_schema_have_the_same_fields_everywhere() -> None:
    generated = Receipt.model_json_schema(by_alias=True)
    frozen = schema_for(CURRENT_VERSION)
    seen: list[str] = []
    _compare(generated, generated, frozen, frozen, "", seen)
    # The walk reached the deep objects, so the comparison was not vacuous.
    assert {
        "/run/harness",
        "/cases[]/arms/with_skill/draws[]/judge_samples[]",
        "/cases[]/arms/with_skill/draws[]/captured_files[]",
        "/economics/judge_overhead",
    } <= set(seen)


#: sha256 of every published schema file: frozen, never edited (D-11). 0.16, the current
#: version, was frozen when the last field of its round landed (endings and reasoning, input
#: token medians, A/A marks, the margin, source reports with reducers, caveman's cost and
#: category): a field after it needs 0.17 and a migration.
FROZEN = {
    "0.3.1": "f3721be3c4ab9b03ae5bcc48b51535583aec1013df894b10519ecef4183dfeca",
    "0.10": "d55b63ad8ce92d7db51054f64625d63a58f8148179528b64a58534f4aea55093",
    "0.11": "2b4d0a90c3c998d3f3acee139d3baf2021127b7427115d3ec9d07fd95a201ea4",
    "0.13": "ceaa1e3f3d7390244b77e6fa6850e3c8f8a0d412e6ed783054d091e17fa72671",
    "0.15": "f2007140c78e0b7b9843d116642bda62490a178f8af896763f7a75c0a3436ea9",
    "0.14": "c44d25bd189c1ad6531152aca199ff453e249cd0fd6c46145e97fe6e2cff25f9",
    "0.16": "134cdec7b8905f6ab9efea747b34e360066bc28906fe39e30ed0e6335389cdc0",
}


def test_published_schema_files_are_frozen_byte_for_byte() -> None:
    import hashlib

    assert {v: hashlib.sha256(schema_bytes(v)).hexdigest() for v in FROZEN} == FROZEN
    assert set(FROZEN) == set(known_versions())  # the current version (0.16) is frozen too
