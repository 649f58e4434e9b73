"""Unit of every receipt field, and the meaning of those the current model does not hold.

Meanings of current fields are the model's field docstrings; this adds units and the meanings
of array items, older versions' fields and ``regrade.original_runner``. Paths as the page
writes them (``.`` between members, ``[]`` for items, ``<arm>`` for each arm).
"""

from __future__ import annotations

import types
import typing
from typing import Any, Final

from pydantic import BaseModel

from driftproof.receipt._model import Receipt
from driftproof.wording import ARMS

_D = "cases[].arms.<arm>.draws[]"
_J = f"{_D}.judge_samples[]"
_C = f"{_D}.captured_files[]"

#: Units by the last member's name, first match wins, for a string, number or integer field
#: the table below does not name.
_SUFFIX_UNITS: Final = (
    ("version", "version"),
    ("_at", "RFC 3339 date-time"),
    ("_offset", "UTC offset"),
    ("_usd_per_mtok", "USD per million tokens"),
    ("usd", "USD"),
    ("tokens", "tokens"),
    ("_s", "seconds"),
    ("pointer", "JSON pointer"),
    ("chars", "characters"),
    ("model", "id"),
    ("name", "id"),
    ("provider", "id"),
    ("score", "score"),
    ("_ids[]", "id"),
)

#: path → unit, where the field's type and name do not give it (:func:`field_unit`).
FIELD_UNITS: Final[dict[str, str]] = {
    "$schema": "URL",
    "schema_version": "version",
    "verification_level": "level",
    "run.samples": "count",
    "run.generations_per_arm": "draws per arm",
    "run.judge_samples_per_generation": "judge samples per draw",
    "run.endpoint_attempts": "requests",
    "run.transcripts.file": "path",
    "run.transcripts.draws": "draws",
    **{f"{p}.name": "text" for p in ("skill", "suite")},
    "skill.tokens": "tokens (estimate)",
    "judge.service": "URL",
    **{f"judge.scale.{p}": "score" for p in ("worst", "best", "step")},
    "cases[].id": "id",
    "cases[].threshold": "score",
    f"{_D}.index": "ordinal",
    f"{_D}.checks[].name": "text",
    f"{_D}.checks[].source_type": "id",
    f"{_D}.captured_files[].path": "path",
    f"{_D}.captured_files[].bytes": "bytes",
    f"{_D}.other_model_calls": "calls",
    "cases[].arms.<arm>.generation.sd": "score",
    **{f"economics.judge_overhead.judged_draws_{p}": "draws" for p in ("counted", "missing_usage")},
    "provenance.tool": "id",
    "provenance.document": "path",
    **{f"regrade.answers_{p}": "answers" for p in ("read", "graded", "carried")},
    "regrade.logical_judge_calls": "judge calls",
    "regrade.runner_attempts": "requests",
    "run.retry.max_attempts": "attempts",
    "run.language": "language tag",
    "run.quality_margin": "score or pass rate",
    "arms.<arm>.service": "URL",
    **{f"arms.<arm>.skill_fired.{p}": "draws" for p in ("fired", "observed")},
    f"{_D}.lost.kind": "id",
    f"{_D}.lost.status": "HTTP status",
    f"{_D}.stop_reason": "id",
    f"{_D}.refusal.category": "id",
    f"{_D}.attempts[].status": "HTTP status",
    **{f"{_D}.harness_events[].{p}": "id" for p in ("type", "subtype")},
    "text_repairs[].replaced": "code points",
    "source_report.figures[].case": "id",
    **{f"source_report.figures[].{p}": "unit" for p in ("value", "lower", "upper")},
    "source_report.figures[].level": "fraction",
    "source_report.figures[].reducer": "id",
    "source_report.decision.p_value": "probability",
    "source_report.stages[].name": "text",
    "source_report.reducers[]": "id",
    "source_report.source_repository": "id",
    "source_report.source_revision": "version",
    "source_report.evaluator_digest": "id",
    f"{_D}.judge_samples[].ignored_members[]": "JSON pointer",
    "arms.<arm>.input_tokens_median": "tokens",
    **{f"source_figures.{p}": "id" for p in ("source", "commit")},
    **{f"source_figures.{p}": "path" for p in ("files[].path", "file")},
    **{f"source_figures.{p}": "git blob id" for p in ("files[].git_blob_sha1", "git_blob_sha1")},
    "source_figures.rows[].num": "count",
    **{f"source_figures.rows[].{f}.value": "as printed" for f in ("score", "baseline", "uplift")},
}


def field_unit(path: str, node: dict[str, Any]) -> str:
    """The unit of the field at ``path`` whose schema is ``node``.

    :data:`FIELD_UNITS` first, then the schema's type, then the member's name ("id": a name
    from a fixed list or a source's identifier). An object or an array has none of its own
    (its members do): the empty string.
    """
    kind = node.get("type")
    last = path.rsplit(".", 1)[-1]
    if path in FIELD_UNITS:
        return FIELD_UNITS[path]
    if node.get("pattern") == "^[0-9a-f]{64}$":
        return "sha256"
    if kind in ("object", "array"):
        return ""
    if "enum" in node or "const" in node:
        return "id"
    if kind == "boolean":
        return "true/false"
    unit = next((u for suffix, u in _SUFFIX_UNITS if last.endswith(suffix)), None)
    if unit is None and ".tokens." in path:
        unit = "tokens"
    return unit or ("text" if kind == "string" else str(kind or "value"))


#: path → meaning, for what is not a field of the current model (see the module docstring).
_OTHER_MEANINGS: Final[dict[str, str]] = {
    "run.samples": (
        "One count per arm that did not say whether it counted generations or judge samples; "
        "readers state both counts as unknown."
    ),
    "cases[]": "One case.",
    f"{_D}": "One draw: one answer and its judge samples.",
    f"{_J}": "One judge sample.",
    f"{_D}.checks[]": "One check result {name, kind, pass}.",
    f"{_C}": "One file the agent left.",
    f"{_D}.other_model_calls[]": "One call on another model.",
    "provenance.unrecorded[]": "One thing the source did not record.",
    "regrade.original_runner.name": "Its name.",
    "regrade.original_runner.version": "Its version.",
    "regrade.judge_ids[]": "One judge id, dates kept.",
    "run.batch.batch_ids[]": "One batch id, as the provider gave it.",
    "run.batch.file_ids[]": "One file id.",
    f"{_D}.attempts[]": "One failed attempt.",
    f"{_D}.harness_events[]": "One event.",
    "provenance.notes[]": "One note.",
    "text_repairs[]": "One repaired string.",
    "bounded_text[]": "One such text.",
    "source_report.reducers[]": "One reducer, as the source named it.",
    "source_report.figures[]": "One figure, as the source gave it.",
    "source_report.stages[]": "One stage, as the source printed it.",
    f"{_J}.ignored_members[]": "One member, as a JSON pointer into the decision.",
}


def _nested(annotation: Any) -> tuple[type[BaseModel] | None, bool]:
    """(the model a field holds, whether as an array's items), or ``(None, False)``."""
    args = typing.get_args(annotation)
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        return _nested(inner[0]) if len(inner) == 1 else (None, False)
    if origin is list:
        return _nested(args[0])[0], True
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation, False
    return None, False


def model_field_docs(
    model: type[BaseModel] = Receipt, prefix: str = "", out: dict[str, str] | None = None
) -> dict[str, str]:
    """Every field of ``model`` and the models it holds, by page path → its docstring.

    Whitespace is folded, the order is the model's; a field without a docstring maps to ``""``.
    """
    out = {} if out is None else out
    for name, info in model.model_fields.items():
        member = info.alias or name
        segment = "<arm>" if member in ARMS and prefix.endswith("arms") else member
        path = f"{prefix}.{segment}" if prefix else segment
        out.setdefault(path, " ".join((info.description or "").split()))
        inner, is_array = _nested(info.annotation)
        if inner is not None:
            model_field_docs(inner, path + ("[]" if is_array else ""), out)
    return out


#: page path → meaning: the model's docstrings, and the meanings above.
MEANINGS: Final[dict[str, str]] = {**model_field_docs(), **_OTHER_MEANINGS}
