"""The frozen receipt schemas, one file per version (D-11), and the migration chain (D-13).

:func:`compiled_validator_for` (jsonschema-rs) decides validity; :func:`validator_for`
(python-jsonschema) only words a refusal, its ``format`` checks delegated to jsonschema-rs.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any, cast

import jsonschema_rs
import regress
from jsonschema import Draft202012Validator, FormatChecker, ValidationError, validators

from driftproof.receipt._migrations import MIGRATIONS
from driftproof.receipt._model import CURRENT_VERSION


def version_key(version: str) -> tuple[int, ...]:
    """A schema version of dotted whole numbers ("0.16.1") as numbers, for ordering versions."""
    return tuple(int(p) for p in version.split("."))


@cache
def known_versions() -> tuple[str, ...]:
    """Every frozen schema version, oldest first."""
    names = [
        p.name[len("receipt-") : -len(".schema.json")]
        for p in resources.files("driftproof.receipt").joinpath("schemas").iterdir()
        if p.name.startswith("receipt-") and p.name.endswith(".schema.json")
    ]
    return tuple(sorted(names, key=version_key))


def schema_bytes(version: str) -> bytes:
    """The frozen schema file of ``version``, byte for byte (served); KeyError if unknown."""
    if version not in known_versions():
        raise KeyError(version)
    return (
        resources.files("driftproof.receipt")
        .joinpath("schemas", f"receipt-{version}.schema.json")
        .read_bytes()
    )


@cache
def schema_for(version: str) -> dict[str, Any]:
    """The parsed frozen schema of ``version``; KeyError if unknown."""
    return cast(dict[str, Any], json.loads(schema_bytes(version)))


def _ecma_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
    """``pattern`` with ECMA-262 semantics (``re`` lets ``$`` match before a final newline)."""
    if not validator.is_type(instance, "string"):
        return
    if _ecma(pattern).find(instance) is None:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


_ecma = cache(regress.Regex)


_Validator: Any = cast(Any, validators).extend(Draft202012Validator, {"pattern": _ecma_pattern})

#: Every ``format`` a frozen receipt schema or an importer's schema uses, checked by
#: jsonschema-rs in both validators (python-jsonschema alone may skip ``date-time``).
FORMATS: tuple[str, ...] = ("date-time",)


@cache
def _format_validator(name: str) -> jsonschema_rs.Draft202012Validator:
    return jsonschema_rs.Draft202012Validator(
        {"format": name}, validate_formats=True, ignore_unknown_formats=False
    )


def format_checker() -> FormatChecker:
    """A format checker whose :data:`FORMATS` are jsonschema-rs's checks; non-strings pass."""
    checker = FormatChecker()
    for name in FORMATS:

        def check(value: Any, _name: str = name) -> bool:
            return not isinstance(value, str) or _format_validator(_name).is_valid(value)

        checker.checks(name)(check)
    return checker


@cache
def validator_for(version: str) -> Draft202012Validator:
    """The python-jsonschema validator of ``version``, which only words refusals; KeyError."""
    return cast(
        Draft202012Validator, _Validator(schema_for(version), format_checker=format_checker())
    )


@cache
def compiled_validator_for(
    version: str, part: str | None = None
) -> jsonschema_rs.Draft202012Validator:
    """The compiled (jsonschema-rs) draft 2020-12 validator of ``version``, which decides validity.

    Every ``format`` checked, ECMA-262 ``pattern``, ``$ref`` only inside the schema (no network).
    ``part`` names one of the schema's ``$defs`` (``case``) to validate that part alone. KeyError
    for an unknown version.
    """
    schema = schema_for(version)
    if part is not None:
        schema = {"$defs": schema["$defs"], "$ref": f"#/$defs/{part}"}
    return jsonschema_rs.Draft202012Validator(
        schema, validate_formats=True, ignore_unknown_formats=False, offline=True
    )


def migrate(document: dict[str, Any]) -> dict[str, Any]:
    """A schema-valid document of any known version in the current version's shape.

    The input is not mutated; the caller decides which version the model reports.
    """
    doc = document
    while doc["schema_version"] != CURRENT_VERSION:
        _next, step = MIGRATIONS[doc["schema_version"]]
        doc = step(doc)
    return doc
