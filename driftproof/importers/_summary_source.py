"""summary-json's schema check, and its ``summary.source``.

The source is the import a receipt exported to summary-json was made by.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator, validators

from driftproof.errors import ImportError_, Problem
from driftproof.importers import _declared as declared
from driftproof.importers._common import Where
from driftproof.importers._schema import package_json, schema_problems
from driftproof.receipt import Provenance, ReceiptBody
from driftproof.receipt._versions import format_checker
from driftproof.stats import band_source_of

#: The schema's validator, but an integer is written as one: 3.0 is refused where the receipt
#: keeps an integer (JSON Schema would take it, and the receipt model would then raise).
_Validator = validators.extend(
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _checker, value: type(value) is int
    ),
)


def schema() -> dict[str, Any]:
    """The frozen summary-json schema (format version 1)."""
    return package_json("summary-json-1.schema.json")


@cache
def _compiled() -> jsonschema_rs.Draft202012Validator:
    r"""The schema compiled (jsonschema-rs), accepting no file :data:`_Validator` refuses.

    Its ``\S`` is written as Python's: ECMA-262 counts U+FEFF, not U+001C-U+001F or U+0085, as
    space. Its ``integer`` takes 3.0, which :data:`_Validator` refuses (outside the cases only).
    """
    python_s = r"[^\s\x1c-\x1f\x85]|\ufeff"
    text = json.dumps(schema()).replace(json.dumps(r"\S"), json.dumps(python_s))
    return jsonschema_rs.Draft202012Validator(
        json.loads(text), validate_formats=True, ignore_unknown_formats=False, offline=True
    )


def source_problems(doc: Any, path: Path) -> list[Problem]:
    """Where parsed summary-json ``doc`` fails its schema: one problem per place, at most 20.

    ``date-time`` is jsonschema-rs's check, as for receipts. Cases :func:`_compiled` accepts
    are valid to :data:`_Validator` too, so only the first is checked again, with the rest.
    """
    validator = _Validator(schema(), format_checker=format_checker())
    checked = {**doc, "cases": doc["cases"][:1]} if _compiled().is_valid(doc) else doc
    return schema_problems(validator.iter_errors(checked), path, limit=20)


#: What ``driftproof export summary-json`` writes as ``summary.source``, within what a receipt's
#: provenance holds (notes: at most 50 of at most 1000 characters each).
SOURCE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["tool", "tool_version", "document_sha256", "harness_recorded", "notes"],
    "properties": {
        "tool": {"type": "string", "minLength": 1, "maxLength": 100},
        "tool_version": {"type": ["string", "null"], "maxLength": 200},
        "document_sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
        "harness_recorded": {"type": "boolean"},
        "band_source": {"enum": [None, "generation", "legacy"]},
        "notes": {
            "type": "array",
            "maxItems": 50,
            "items": {"type": "string", "maxLength": 1000},
        },
    },
}

#: The note for a ``summary.source`` another writer put there (format 1 leaves ``summary`` to it).
_NOT_OURS = (
    "the file's summary.source is not one driftproof export writes (an object of tool, "
    "tool_version, document_sha256, harness_recorded and notes), so it was not read"
)


def exported_from(doc: dict[str, Any], w: Where) -> dict[str, Any] | None:
    """The imported receipt a file was exported from, as ``summary.source`` says; else None.

    A source that is not an object holding each member the exporter writes is another
    writer's (format 1 leaves ``summary`` free-form): None, and :func:`provenance_of` says so.

    Raises:
        ImportError_: at ``/summary/source`` or a member of it, one problem per place: a member
            that is not what the exporter writes, a tool named ``driftproof`` (a receipt of a
            run has no source), or, where the harness is said not recorded, a ``harness`` other
            than the source's tool and version (the exporter writes those there).
    """
    src = (doc.get("summary") or {}).get("source")
    if not (isinstance(src, dict) and set(SOURCE_SCHEMA["required"]) <= src.keys()):
        return None
    sw = w / "summary" / "source"
    errors = Draft202012Validator(SOURCE_SCHEMA).iter_errors(src)
    problems = schema_problems(errors, w.file, prefix=("summary", "source"))
    if problems:
        raise ImportError_(f"{w.file}: /summary/source: not what the exporter writes", problems)
    if src["tool"].strip().lower() == "driftproof":
        raise (sw / "tool").fail(
            "expected the tool of an import; a receipt of a Driftproof run is exported with no "
            "source (null)"
        )
    harness = doc["harness"]
    same = (harness["name"], harness.get("version")) == (src["tool"], src["tool_version"])
    if not src["harness_recorded"] and not same:
        raise (w / "harness").fail(
            "expected the source's tool and version (summary.source says the harness was not "
            "recorded, and the exporter then names the tool here)"
        )
    return dict(src)


def band_source_of_file(origin: dict[str, Any] | None) -> Any:
    """The band source of the receipt a file is imported as, its draws holding a score.

    ``generation`` (a draw is an answer), but for a file exported from an imported receipt
    whose ``summary.source`` gives the band source that receipt recorded (none, or ``legacy``
    for one answer per arm): that one, so the round trip names the bands as the export's
    receipt did. :func:`check_band_source` then holds it to the file's draws.
    """
    return "generation" if origin is None or "band_source" not in origin else origin["band_source"]


def check_band_source(body: ReceiptBody, origin: dict[str, Any] | None, w: Where) -> None:
    """Refuse a band source from ``summary.source`` that the exporter writes for no such draws.

    ``body`` is the receipt the file is imported as. Its bands are read as one answer per arm
    (:func:`~driftproof.stats.band_source_of`: ``legacy``, or none recorded and at most one draw
    in each arm) only where that answer holds one score as its source gave it: the exporter
    refuses a receipt so read whose draws hold judge samples, and writes ``legacy`` for no arm
    of more than one draw.

    Raises:
        ImportError_: at ``/summary/source/band_source``: a band source other than
            ``generation`` with the file's draws read as one answer per arm while a draw holds
            judge scores, or ``legacy`` with an arm of more than one draw.
    """
    named = origin.get("band_source", "generation") if origin is not None else "generation"
    if named == "generation" or band_source_of(body) != "legacy":
        return
    arms = [a for c in body.cases for _, a in c.arms.named()]
    if any(d.judge_samples for a in arms for d in a.draws) or (
        named == "legacy" and any(len(a.draws) > 1 for a in arms)
    ):
        raise (w / "summary" / "source" / "band_source").fail(
            'expected "generation": this band source reads each arm as one answer scored as the '
            "source gave it, and an arm here holds more than one draw or a draw's judge scores"
        )


def provenance_of(
    doc: dict[str, Any], origin: dict[str, Any] | None, path: str, sha: str, unrecorded: list[str]
) -> Provenance:
    """The import's provenance: the harness's name, or summary-json for an exported import.

    A file exported from an imported receipt is imported by summary-json (the sha256 is this
    file's), with a note saying what the file claims, the first import's tool and document,
    then that import's notes as given (as many as a receipt holds beside the first note, the
    first note saying how many more the file gives).
    """
    if origin is None:
        harness = doc["harness"]
        foreign = (doc.get("summary") or {}).get("source") is not None
        return declared.provenance(
            harness["name"],
            harness.get("version"),
            path,
            sha,
            unrecorded,
            notes=[_NOT_OURS] if foreign else None,
        )
    tool = f"{origin['tool']} {origin['tool_version'] or ''}".strip()
    given, kept = origin["notes"], origin["notes"][: declared.MAX_NOTES - 1]
    head = (
        f"this file says it was exported from a receipt imported from {tool} (document sha256 "
        f"{origin['document_sha256']}), which nothing in it proves; the document sha256 above "
        "is this file's"
    )
    if len(kept) == 1:
        head += ". The note after this one is that import's, as the file gives it"
    elif kept:
        head += f". The {len(kept)} notes after this one are that import's, as the file gives them"
    if len(kept) < len(given):
        head += (
            f" (the file gives {len(given)}; a receipt holds {declared.MAX_NOTES} notes at most)"
        )
    return declared.provenance("summary-json", None, path, sha, unrecorded, notes=[head, *kept])
