"""Unit of every receipt field, and the meaning of those the current model does not hold.

The meaning of every field of the current version is the docstring under that field in the
receipt model (:mod:`driftproof.receipt._model`): one source, shown on the receipt
specification page. This module adds each field's unit, and the meaning of what the model has
no field for: array items, fields an older version had, and the second place a model is used
(``regrade.original_runner``). Paths are written as the page writes them (``.`` between
members, ``[]`` for an array's items, ``<arm>`` for ``with_skill``, ``baseline`` and
``control``). A test checks that every field of every frozen schema has a unit and a meaning.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Final

from pydantic import BaseModel

from driftproof.receipt._model import Receipt

__all__ = ["FIELD_DOCS", "FIELD_UNITS", "model_field_docs"]

_D = "cases[].arms.<arm>.draws[]"
_J = f"{_D}.judge_samples[]"
_C = f"{_D}.captured_files[]"
_ARMS = ("with_skill", "baseline", "control")

#: path → unit. "text" is free text; "id" a name from a fixed list or a source's identifier;
#: "sha256" 64 lowercase hex digits of a SHA-256 digest.
FIELD_UNITS: Final[dict[str, str]] = {
    "$schema": "URL",
    "schema_version": "version",
    "verification_level": "level",
    "run": "object",
    "run.model": "id",
    "run.provider": "id",
    "run.surface": "id",
    "run.harness": "object",
    "run.harness.name": "id",
    "run.harness.version": "version",
    "run.capture": "id",
    "run.preset": "id",
    "run.started_at": "RFC 3339 date-time",
    "run.finished_at": "RFC 3339 date-time",
    "run.runner": "object",
    "run.runner.name": "id",
    "run.runner.version": "version",
    "run.samples": "count",
    "run.generations_per_arm": "draws per arm",
    "run.judge_samples_per_generation": "judge samples per draw",
    "run.endpoint_attempts": "requests",
    "run.transcripts": "object",
    "run.transcripts.file": "path",
    "run.transcripts.sha256": "sha256",
    "run.transcripts.draws": "draws",
    "skill": "object",
    "skill.name": "text",
    "skill.sha256": "sha256",
    "skill.tokens": "tokens (estimate)",
    "suite": "object",
    "suite.name": "text",
    "suite.sha256": "sha256",
    "judge": "object",
    "judge.model": "id",
    "judge.provider": "id",
    "judge.surface": "id",
    "judge.service": "URL",
    "judge.sampling": "object",
    "judge.template_sha256": "sha256",
    "judge.scale": "object",
    "judge.scale.worst": "score",
    "judge.scale.best": "score",
    "judge.scale.step": "score",
    "judge.price": "object",
    "judge.price.input_usd_per_mtok": "USD per million tokens",
    "judge.price.output_usd_per_mtok": "USD per million tokens",
    "arms": "object",
    "arms.<arm>": "object",
    "arms.<arm>.label": "text",
    "arms.<arm>.instruction": "text",
    "arms.<arm>.system_prompt_sha256": "sha256",
    "band_source": "id",
    "cases": "array",
    "cases[]": "object",
    "cases[].id": "id",
    "cases[].prompt": "text",
    "cases[].prompt_sha256": "sha256",
    "cases[].rubric_sha256": "sha256",
    "cases[].threshold": "score",
    "cases[].category": "text",
    "cases[].arms": "object",
    "cases[].arms.<arm>": "object",
    "cases[].arms.<arm>.draws": "array",
    f"{_D}": "object",
    f"{_D}.index": "ordinal",
    f"{_D}.answer": "text",
    f"{_D}.answer_sha256": "sha256",
    f"{_D}.score": "score",
    f"{_D}.judge_samples": "array",
    f"{_J}": "object",
    f"{_J}.score": "score",
    f"{_J}.reply_sha256": "sha256",
    f"{_J}.reported_model": "id",
    f"{_J}.serving_model": "id",
    f"{_J}.invalid_reason": "text",
    f"{_D}.lost": "object",
    f"{_D}.lost.reason": "text",
    f"{_D}.tokens": "object",
    f"{_D}.tokens.input": "tokens",
    f"{_D}.tokens.output": "tokens",
    f"{_D}.tokens.counted_by": "id",
    f"{_D}.checks": "array",
    f"{_D}.checks[]": "object",
    f"{_D}.checks[].name": "text",
    f"{_D}.checks[].kind": "id",
    f"{_D}.checks[].pass": "true/false",
    f"{_D}.checks[].outcome": "id",
    f"{_D}.checks[].source_type": "id",
    f"{_D}.captured_files": "array",
    f"{_C}": "object",
    f"{_C}.path": "path",
    f"{_C}.bytes": "bytes",
    f"{_C}.status": "id",
    f"{_C}.reason": "text",
    f"{_D}.skill_fired": "true/false",
    f"{_D}.source_error": "text",
    f"{_D}.other_model_calls": "calls",
    f"{_D}.other_model_calls[]": "object",
    f"{_D}.other_model_calls[].model": "id",
    f"{_D}.other_model_calls[].input_tokens": "tokens",
    f"{_D}.other_model_calls[].output_tokens": "tokens",
    "cases[].arms.<arm>.generation": "object",
    "cases[].arms.<arm>.generation.sd": "score",
    "economics": "object",
    "economics.judge_overhead": "object",
    "economics.judge_overhead.input_tokens": "tokens",
    "economics.judge_overhead.output_tokens": "tokens",
    "economics.judge_overhead.usd": "USD",
    "economics.judge_overhead.judged_draws_counted": "draws",
    "economics.judge_overhead.judged_draws_missing_usage": "draws",
    "provenance": "object",
    "provenance.tool": "id",
    "provenance.tool_version": "version",
    "provenance.document": "path",
    "provenance.document_sha256": "sha256",
    "provenance.unrecorded": "array",
    "provenance.unrecorded[]": "text",
    "source_figures": "object",
    "uncertainty_unavailable": "id",
    "seal": "object",
    "seal.algorithm": "id",
    "seal.sha256": "sha256",
    "regrade": "object",
    "regrade.kind": "id",
    "regrade.original_seal": "sha256",
    "regrade.original_runner": "object",
    "regrade.original_runner.name": "id",
    "regrade.original_runner.version": "version",
    "regrade.runner_version": "version",
    "regrade.revised_suite_sha256": "sha256",
    "regrade.original_grader": "object",
    "regrade.answers_read": "answers",
    "regrade.answers_graded": "answers",
    "regrade.answers_carried": "answers",
    "regrade.logical_judge_calls": "judge calls",
    "regrade.runner_attempts": "requests",
    "regrade.judge_ids": "array",
    "regrade.judge_ids[]": "id",
    "run.started_at_offset": "UTC offset",
    "run.finished_at_offset": "UTC offset",
    "run.max_output_tokens": "tokens",
    "run.truncation": "id",
    "run.retry": "object",
    "run.retry.max_attempts": "attempts",
    "run.retry.max_wait_s": "seconds",
    "run.retry.backoff": "text",
    "run.batch": "object",
    "run.batch.provider": "id",
    "run.batch.batch_ids": "array",
    "run.batch.batch_ids[]": "id",
    "run.batch.file_ids": "array",
    "run.batch.file_ids[]": "id",
    "run.language": "language tag",
    "run.aa": "flag",
    "run.quality_margin": "score or pass rate",
    "judge.channel": "id",
    "judge.template_version": "version",
    "judge.max_output_tokens": "tokens",
    "judge.price.cache_read_usd_per_mtok": "USD per million tokens",
    "judge.price.cache_write_usd_per_mtok": "USD per million tokens",
    "judge.price.tier": "id",
    "arms.<arm>.recorded": "boolean",
    "arms.<arm>.service": "URL",
    "arms.<arm>.construction": "id",
    "arms.<arm>.skill_fired": "object",
    "arms.<arm>.skill_fired.fired": "draws",
    "arms.<arm>.skill_fired.observed": "draws",
    f"{_J}.reason": "text",
    f"{_D}.lost.kind": "id",
    f"{_D}.lost.error_class": "id",
    f"{_D}.lost.status": "HTTP status",
    f"{_D}.tokens.cache_read_input": "tokens",
    f"{_D}.tokens.cache_creation_input": "tokens",
    f"{_D}.tokens.reasoning_output": "tokens",
    f"{_D}.tokens.total": "tokens",
    f"{_D}.cost_usd": "USD",
    f"{_D}.stop_reason": "id",
    f"{_D}.refusal": "object",
    f"{_D}.refusal.text": "text",
    f"{_D}.refusal.category": "id",
    f"{_D}.over_budget": "boolean",
    f"{_D}.attempts": "array",
    f"{_D}.attempts[]": "object",
    f"{_D}.attempts[].error": "text",
    f"{_D}.attempts[].error_class": "id",
    f"{_D}.attempts[].status": "HTTP status",
    f"{_D}.attempts[].wait_s": "seconds",
    f"{_D}.harness_events": "array",
    f"{_D}.harness_events[]": "object",
    f"{_D}.harness_events[].type": "id",
    f"{_D}.harness_events[].subtype": "id",
    "economics.judge_overhead.cache_read_input_tokens": "tokens",
    "economics.judge_overhead.cache_creation_input_tokens": "tokens",
    "economics.judge_overhead.reasoning_output_tokens": "tokens",
    "provenance.partial": "boolean",
    "provenance.notes": "array",
    "provenance.notes[]": "text",
    "provenance.details": "object",
    "text_repairs": "array",
    "text_repairs[]": "object",
    "text_repairs[].pointer": "JSON pointer",
    "text_repairs[].replaced": "code points",
    "bounded_text": "array",
    "bounded_text[]": "object",
    "bounded_text[].pointer": "JSON pointer",
    "bounded_text[].sha256": "sha256",
    "bounded_text[].chars": "characters",
    "source_report": "object",
    "source_report.figures": "array",
    "source_report.figures[]": "object",
    "source_report.figures[].label": "text",
    "source_report.figures[].case": "id",
    "source_report.figures[].arm": "id",
    "source_report.figures[].value": "unit",
    "source_report.figures[].lower": "unit",
    "source_report.figures[].upper": "unit",
    "source_report.figures[].level": "fraction",
    "source_report.figures[].unit": "id",
    "source_report.figures[].reducer": "id",
    "source_report.figures[].printed": "text",
    "source_report.figures[].rounded": "true/false",
    "source_report.decision": "object",
    "source_report.decision.printed": "text",
    "source_report.decision.passed": "true/false",
    "source_report.decision.significant": "true/false",
    "source_report.decision.test": "text",
    "source_report.decision.p_value": "probability",
    "source_report.stages": "array",
    "source_report.stages[]": "object",
    "source_report.stages[].name": "text",
    "source_report.stages[].title": "text",
    "source_report.stages[].status": "id",
    "source_report.stages[].printed": "text",
    "source_report.reducers": "array",
    "source_report.reducers[]": "id",
    "source_report.source_repository": "id",
    "source_report.source_revision": "version",
    "source_report.evaluator_digest": "id",
    f"{_D}.tokens.answer_output": "tokens",
    f"{_D}.reasoning": "object",
    f"{_D}.reasoning.chars": "characters",
    f"{_D}.reasoning.sha256": "sha256",
    f"{_J}.ignored_members": "array",
    f"{_J}.ignored_members[]": "JSON pointer",
    "arms.<arm>.input_tokens_median": "tokens",
    "run.budget_param": "id",
}

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
    """Every field of ``model`` and the models it holds, by page path → its docstring
    (whitespace folded), in model order. A field without a docstring maps to ``""``."""
    out = {} if out is None else out
    for name, info in model.model_fields.items():
        member = info.alias or name
        segment = "<arm>" if member in _ARMS else member
        path = f"{prefix}.{segment}" if prefix else segment
        out.setdefault(path, " ".join((info.description or "").split()))
        inner, is_array = _nested(info.annotation)
        if inner is not None:
            model_field_docs(inner, path + ("[]" if is_array else ""), out)
    return out


def _field_docs() -> dict[str, tuple[str, str]]:
    meanings = {**model_field_docs(), **_OTHER_MEANINGS}
    return {path: (unit, meanings.get(path, "")) for path, unit in FIELD_UNITS.items()}


#: path → (unit, meaning): the units above with the model's docstrings.
FIELD_DOCS: Final[dict[str, tuple[str, str]]] = _field_docs()
