"""The canonical receipt schema at ``/spec/receipt.schema.json`` (D-11, revised).

It dispatches on ``schema_version``: for each frozen version, a receipt naming it must validate
against that version's frozen schema (``$ref`` to its ``$id``), so a receipt of any version
validates against the canonical id and the frozen files stay byte for byte as published.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from driftproof.receipt._versions import known_versions, schema_for

#: The canonical schema's file name under ``/spec/``.
CANONICAL_FILE = "receipt.schema.json"


def version_id(version: str) -> str:
    """The ``$id`` of the frozen schema of ``version``; KeyError if unknown."""
    return str(schema_for(version)["$id"])


def canonical_id() -> str:
    """The canonical schema's ``$id``: ``https://<host>/spec/receipt.schema.json`` (D-11)."""
    newest = known_versions()[-1]
    return version_id(newest).removesuffix(f"{newest}/{CANONICAL_FILE}") + CANONICAL_FILE


@cache
def canonical_schema() -> dict[str, Any]:
    """The dispatching schema (draft 2020-12, D-11)."""
    versions = known_versions()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": canonical_id(),
        "title": "Driftproof receipt (any version)",
        "description": (
            "The canonical receipt schema. It dispatches on schema_version: a receipt must "
            "validate against the frozen schema of the version it names, each served at "
            "/spec/<version>/receipt.schema.json with that URL as its $id."
        ),
        "type": "object",
        "required": ["schema_version"],
        "properties": {"schema_version": {"enum": list(versions)}},
        "allOf": [
            {
                "if": {
                    "properties": {"schema_version": {"const": v}},
                    "required": ["schema_version"],
                },
                "then": {"$ref": version_id(v)},
            }
            for v in versions
        ],
    }


def canonical_schema_bytes() -> bytes:
    """:func:`canonical_schema` as served: indented JSON, sorted keys, one final newline."""
    return (json.dumps(canonical_schema(), indent=2, sort_keys=True) + "\n").encode("utf-8")
