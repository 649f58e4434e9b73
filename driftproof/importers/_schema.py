"""Source schemas (``importers/schemas/<format>.schema.json``, draft 2020-12).

Each gives the types of the members an importer reads; :func:`validate_source` turns a wrong
type into problems naming file and pointer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from driftproof._json import json_kind
from driftproof._json import pointer as _pointer_of
from driftproof.errors import ImportError_, Problem

#: At most this many schema problems are reported for one source document.
MAX_SCHEMA_PROBLEMS = 5
_JSON_TYPES = {
    "object": "an object",
    "array": "an array",
    "string": "a string",
    "number": "a number",
    "integer": "an integer",
    "boolean": "true or false",
    "null": "null",
}


@cache
def package_json(*parts: str) -> dict[str, Any]:
    """The JSON object in the package file ``driftproof/importers/<parts…>``."""
    text = resources.files("driftproof.importers").joinpath(*parts).read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def source_schema(name: str) -> dict[str, Any]:
    """The JSON Schema ``importers/schemas/<name>.schema.json``."""
    return package_json("schemas", f"{name}.schema.json")


@cache
def _source_validator(name: str, definition: str | None) -> Draft202012Validator:
    schema = source_schema(name)
    if definition is not None:
        # one document kind of a multi-document format: its $defs entry, in the whole file
        schema = {
            "$schema": schema.get("$schema"),
            "$defs": schema.get("$defs", {}),
            "$ref": f"#/$defs/{definition}",
        }
    return Draft202012Validator(schema)


def _expectation(error: Any) -> list[tuple[tuple[Any, ...], str]]:
    """(extra pointer parts, plain-words expectation) for one jsonschema error."""
    if error.validator == "type":
        kinds = error.validator_value
        kinds = kinds if isinstance(kinds, list) else [kinds]
        words = " or ".join(_JSON_TYPES.get(k) or str(k) for k in kinds)
        found = json_kind(error.instance)
        if _number_for_boolean(error):  # 0 or 1 written for false or true
            words = words.replace("true or false", "a boolean (true or false)")
            found = f"the number {error.instance}"
        return [((), f"expected {words}, found {found}")]
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = (m for m in error.validator_value if m not in error.instance)
        return [((m,), f"expected member {m!r}, found none") for m in missing]
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = error.schema.get("properties", {})
        patterns = list(error.schema.get("patternProperties") or ())
        extra = [
            k
            for k in error.instance
            if k not in known and not any(re.search(p, k) for p in patterns)
        ]
        if extra:
            return [((k,), "expected no member of this name: the format has none") for k in extra]
    said = _bound(error.validator, error.validator_value, error.instance)
    if said is not None:
        return [((), said)]
    found = json_kind(error.instance)
    return [
        ((), f"expected a value that fits the schema's {error.validator!r} rule, found {found}")
    ]


def _shown(value: Any) -> str:
    """``value`` as JSON when short; else its kind and size, never the value itself."""
    text = json.dumps(value, ensure_ascii=False)
    if len(text) <= 60:
        return text
    size = f" of {len(value):,} characters" if isinstance(value, str) else ""
    return f"{json_kind(value)}{size}"


def _bound(rule: str, limit: Any, value: Any) -> str | None:
    """A broken length, count, range, pattern or fixed value stated in plain words, or None.

    The limit is given with the size found; a long value is not echoed (:func:`_shown`).
    """
    sized = {"maxLength": ("at most", "character"), "minLength": ("at least", "character")}
    sized |= {"maxItems": ("at most", "item"), "minItems": ("at least", "item")}
    ranged = {"maximum": "at most", "minimum": "at least"}
    ranged |= {"exclusiveMaximum": "below", "exclusiveMinimum": "above"}
    if rule in sized and isinstance(value, str | list):
        bound, noun = sized[rule]
        plural = "" if limit == 1 else "s"
        return f"expected {bound} {limit:,} {noun}{plural}, found {len(value):,}"
    if rule in ranged:
        return f"expected a number {ranged[rule]} {limit}, found {_shown(value)}"
    if rule == "pattern" and limit == r"\S":
        return f"expected words, not a blank string, found {_shown(value)}"
    if rule == "pattern":
        return f"expected a string matching {limit!r}, found {_shown(value)}"
    if rule == "format":
        return f"expected a {limit} string, found {_shown(value)}"
    if rule == "const":
        return f"expected {_shown(limit)}, found {_shown(value)}"
    if rule == "enum":
        return f"expected one of {', '.join(map(_shown, limit))}, found {_shown(value)}"
    return None


def schema_problems(
    errors: Iterable[Any],
    file: str | Path,
    *,
    prefix: tuple[Any, ...] = (),
    member: str = "",
    limit: int = MAX_SCHEMA_PROBLEMS,
) -> list[Problem]:
    """At most ``limit`` jsonschema errors as problems in document order.

    Each names ``file`` (and its archive ``member``, if any), the pointer (``prefix`` + the
    error's path; a missing member is pointed at itself) and what was expected in plain words.
    A boolean written as 0 or 1, one producer's mistake wherever it recurs, is one problem, at
    its first place, counting the places after it.
    """
    ordered = sorted(
        errors,
        key=lambda e: [
            (0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in e.absolute_path
        ],
    )
    problems: list[Problem] = []
    first, again = None, 0  # a boolean written as 0 or 1: its problem's index; places after
    for e in ordered:
        if (written := _number_for_boolean(e)) and first is not None:
            again += 1  # the same mistake: said once, at its first place, with a count
            continue
        if len(problems) >= limit:  # a list of many wrong items: stop at the limit, not n * n
            if first is None:
                break
            continue
        first = len(problems) if written else first
        for extra, message in _expectation(e):
            at = _pointer_of(prefix + tuple(e.absolute_path) + extra)
            p = Problem(str(file), at, message, member)
            if p not in problems:
                problems.append(p)
    if first is not None and again:
        more = (
            f"{again:,} more {'place writes' if again == 1 else 'places write'} a boolean as 0 or 1"
        )
        problems[first] = replace(problems[first], message=f"{problems[first].message}; {more}")
    return problems[:limit]


def _number_for_boolean(error: Any) -> bool:
    """Whether jsonschema ``error`` is 0 or 1 where a boolean (true or false) belongs."""
    kinds = error.validator_value if error.validator == "type" else []
    boolean = "boolean" in (kinds if isinstance(kinds, list) else [kinds])
    return boolean and type(error.instance) in (int, float) and error.instance in (0, 1)


def validate_source(
    doc: Any,
    schema: str,
    file: str | Path,
    *,
    definition: str | None = None,
    prefix: tuple[Any, ...] = (),
    member: str = "",
) -> None:
    """Check a parsed source ``doc`` against schema ``schema`` before an importer walks it.

    ``definition`` checks against ``$defs/<definition>`` instead of the root; ``prefix`` goes
    before each problem's pointer; ``member`` names the archive member ``doc`` is.

    Raises:
        ImportError_: one problem per offending place (at most :data:`MAX_SCHEMA_PROBLEMS`, in
            document order), e.g. "expected an array, found a number".
    """
    errors = _source_validator(schema, definition).iter_errors(doc)
    if problems := schema_problems(errors, file, prefix=prefix, member=member):
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ImportError_(f"{problems[0]}{more}", problems)
