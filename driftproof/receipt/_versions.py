"""The frozen receipt schemas, one file per version (D-11), and the migration chain (D-13).

:func:`compiled_validator_for` (jsonschema-rs) decides validity; :func:`validator_for`
(python-jsonschema) only words a refusal, its ``format`` checks delegated to jsonschema-rs.

Each migration step takes a document valid against its own frozen schema and returns a new one
in the next version's shape, never mutating the input; a field the older version did not
establish becomes ``None`` (unknown), never a default (D-13).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any, cast, overload

import jsonschema_rs
import regress
from jsonschema import Draft202012Validator, FormatChecker, ValidationError, validators

from driftproof.receipt._model import CURRENT_VERSION

#: The folder of the frozen schema files, ``receipt-<version>.schema.json``.
_SCHEMAS = resources.files("driftproof.receipt").joinpath("schemas")


def version_key(version: str) -> tuple[int, ...]:
    """A schema version of dotted whole numbers ("0.16.1") as numbers, for ordering versions."""
    return tuple(int(p) for p in version.split("."))


@cache
def known_versions() -> tuple[str, ...]:
    """Every frozen schema version, oldest first."""
    names = [
        p.name[len("receipt-") : -len(".schema.json")]
        for p in _SCHEMAS.iterdir()
        if p.name.startswith("receipt-") and p.name.endswith(".schema.json")
    ]
    return tuple(sorted(names, key=version_key))


def schema_bytes(version: str) -> bytes:
    """The frozen schema file of ``version``, byte for byte (served); KeyError if unknown."""
    if version not in known_versions():
        raise KeyError(version)
    return _SCHEMAS.joinpath(f"receipt-{version}.schema.json").read_bytes()


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


Doc = dict[str, Any]


@overload
def _unknown(part: Doc, *names: str) -> Doc: ...
@overload
def _unknown(part: None, *names: str) -> None: ...
def _unknown(part: Doc | None, *names: str) -> Doc | None:
    """A copy of ``part`` with ``names`` set to ``None``, unknown (D-13); ``None`` stays so."""
    return None if part is None else {**part, **dict.fromkeys(names)}


def _map_draws(
    doc: Doc, fn: Callable[[Doc], Doc], arm_fn: Callable[[Doc], Doc] | None = None
) -> list[Doc]:
    """New ``cases`` list with ``fn`` applied to every draw (and ``arm_fn`` to every arm)."""
    cases = []
    for case in doc["cases"]:
        arms = {}
        for name, arm in case["arms"].items():
            new_arm = {**arm, "draws": [fn(dict(d)) for d in arm["draws"]]}
            arms[name] = arm_fn(new_arm) if arm_fn else new_arm
        cases.append({**case, "arms": arms})
    return cases


def v0_3_1_to_v0_10(doc: Doc) -> Doc:
    """0.3.1 → 0.10: ``run.capture``, ``run.harness`` and ``captured_files`` not recorded."""
    return {
        **doc,
        "schema_version": "0.10",
        "run": _unknown(doc["run"], "capture", "harness"),
        "cases": _map_draws(doc, lambda d: _unknown(d, "captured_files")),
    }


def v0_10_to_v0_11(doc: Doc) -> Doc:
    """0.10 → 0.11: no preset was recorded (``run.preset`` is ``None``)."""
    return {**doc, "schema_version": "0.11", "run": _unknown(doc["run"], "preset")}


def v0_11_to_v0_13(doc: Doc) -> Doc:
    """0.11 → 0.13: no printed source figures and no aggregates-only mark."""
    return {**_unknown(doc, "source_figures", "uncertainty_unavailable"), "schema_version": "0.13"}


def _band_source(doc: Doc) -> str | None:
    counts = [len(arm["draws"]) for case in doc["cases"] for arm in case["arms"].values()]
    if not counts:
        return None
    if all(n == 1 for n in counts):
        return "legacy"
    if all(n >= 2 for n in counts):
        return "generation"
    return None


def v0_13_to_v0_14(doc: Doc) -> Doc:
    """0.13 → 0.14: separate counts unknown, old judge-overhead counting stated honestly.

    ``run.samples`` did not say what it counted, so both new counts are ``None``. Cost before
    0.14 counted one draw per case (method, "What grading cost"): ``judged_draws_counted`` is
    the cases holding a draw. ``band_source``: one draw in every arm ``legacy``, two or more
    ``generation``, else ``None``.
    """
    run = _unknown(
        {k: v for k, v in doc["run"].items() if k != "samples"},
        "generations_per_arm",
        "judge_samples_per_generation",
        "endpoint_attempts",
    )
    overhead = doc["economics"]["judge_overhead"]
    if overhead is not None:
        with_draws = sum(1 for c in doc["cases"] if any(a["draws"] for a in c["arms"].values()))
        overhead = {
            **overhead,
            "judged_draws_counted": with_draws,
            "judged_draws_missing_usage": None,
        }
    return {
        **doc,
        "schema_version": "0.14",
        "run": run,
        "band_source": _band_source(doc),
        "cases": _map_draws(
            doc,
            lambda d: _unknown(d, "skill_fired", "source_error"),
            lambda a: _unknown(a, "generation"),
        ),
        "economics": {**doc["economics"], "judge_overhead": overhead},
        "provenance": None,
    }


def _v15_draw(d: Doc) -> Doc:
    return {
        **_unknown(d, "stop_reason", "refusal", "over_budget", "attempts", "harness_events"),
        "lost": _unknown(d["lost"], "kind", "error_class", "status"),
        "tokens": _unknown(
            d["tokens"], "cache_read_input", "cache_creation_input", "reasoning_output", "total"
        ),
        "judge_samples": [_unknown(s, "reason") for s in d["judge_samples"]],
    }


def v0_14_to_v0_15(doc: Doc) -> Doc:
    """0.14 → 0.15: every field 0.15 added is unknown (``None``); both arms are recorded."""
    judge = doc["judge"]
    if judge is not None:
        judge = {
            **_unknown(judge, "channel", "template_version", "max_output_tokens"),
            "price": _unknown(
                judge["price"], "cache_read_usd_per_mtok", "cache_write_usd_per_mtok", "tier"
            ),
        }
    arms = {
        name: {**_unknown(spec, "service", "construction", "skill_fired"), "recorded": True}
        for name, spec in doc["arms"].items()
        if spec is not None
    }
    overhead = _unknown(
        doc["economics"]["judge_overhead"],
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
        "reasoning_output_tokens",
    )
    run = _unknown(
        doc["run"],
        "started_at_offset",
        "finished_at_offset",
        "max_output_tokens",
        "truncation",
        "retry",
        "batch",
        "language",
    )
    return {
        **_unknown(doc, "text_repairs", "bounded_text"),
        "schema_version": "0.15",
        "run": run,
        "judge": judge,
        "arms": {**doc["arms"], **arms},
        "cases": _map_draws(doc, _v15_draw),
        "economics": {**doc["economics"], "judge_overhead": overhead},
        "provenance": _unknown(doc["provenance"], "partial", "notes", "details"),
    }


def v0_15_to_v0_16(doc: Doc) -> Doc:
    """0.15 → 0.16: every member 0.16 added is optional and unknown when absent (D-13)."""
    return {**doc, "schema_version": "0.16"}


#: Ordered migrations: version → (next version, pure one-step function), walked by ``migrate``.
MIGRATIONS: dict[str, tuple[str, Callable[[Doc], Doc]]] = {
    "0.3.1": ("0.10", v0_3_1_to_v0_10),
    "0.10": ("0.11", v0_10_to_v0_11),
    "0.11": ("0.13", v0_11_to_v0_13),
    "0.13": ("0.14", v0_13_to_v0_14),
    "0.14": ("0.15", v0_14_to_v0_15),
    "0.15": ("0.16", v0_15_to_v0_16),
}


def migrate(document: dict[str, Any]) -> dict[str, Any]:
    """A schema-valid document of any known version in the current version's shape.

    The input is not mutated; the caller decides which version the model reports.
    """
    doc = document
    while doc["schema_version"] != CURRENT_VERSION:
        _next, step = MIGRATIONS[doc["schema_version"]]
        doc = step(doc)
    return doc
