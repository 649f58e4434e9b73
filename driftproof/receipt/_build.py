"""Builders for receipt documents at the current schema version.

Writers (the runner, every importer, tests) assemble receipts through these so
that every field is present and every unknown is an explicit ``None`` (D-13).
They return plain JSON data; :func:`~driftproof.receipt.write_receipt` seals it.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

from driftproof import __version__
from driftproof.receipt._model import CURRENT_VERSION

__all__ = ["draw_doc", "judge_sample_doc", "receipt_doc", "sha256_text", "skill_tokens"]


def _present(members: dict[str, Any]) -> dict[str, Any]:
    """The members that are not ``None``: 0.15 members are absent when unknown (D-13)."""
    return {k: v for k, v in members.items() if v is not None}


def sha256_text(text: str) -> str:
    """Lowercase hex sha256 of ``text`` encoded as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def skill_tokens(skill_text: str) -> int:
    """ceil(characters / 4) of a SKILL.md text (D-14); at least 1.

    Args:
        skill_text: the SKILL.md content as text (characters, not bytes).
    """
    return max(1, math.ceil(len(skill_text) / 4))


def judge_sample_doc(
    score: float | None,
    *,
    reply: str | None = None,
    reported_model: str | None = None,
    serving_model: str | None = None,
    invalid_reason: str | None = None,
    reason: str | None = None,
) -> dict[str, Any]:
    """One judge sample; ``reply`` is hashed, never stored; ``reason`` is the grader's stated
    reason (v0.15), kept as untrusted text."""
    return {
        "score": score,
        "reply_sha256": sha256_text(reply) if reply is not None else None,
        "reported_model": reported_model,
        "serving_model": serving_model,
        "invalid_reason": invalid_reason,
        **({"reason": reason} if reason is not None else {}),
    }


def draw_doc(
    index: int,
    *,
    answer: str | None = None,
    score: float | None = None,
    judge_samples: list[dict[str, Any]] | None = None,
    lost_reason: str | None = None,
    tokens: dict[str, Any] | None = None,
    checks: list[dict[str, Any]] | None = None,
    captured_files: list[dict[str, Any]] | None = None,
    skill_fired: bool | None = None,
    source_error: str | None = None,
    other_model_calls: list[dict[str, Any]] | None = None,
    lost_kind: str | None = None,
    lost_error_class: str | None = None,
    lost_status: int | None = None,
    stop_reason: str | None = None,
    refusal: dict[str, Any] | None = None,
    over_budget: bool | None = None,
    attempts: list[dict[str, Any]] | None = None,
    harness_events: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """One draw. When ``score`` is None and judge samples are given, the score is their
    valid mean (D-1); a lost draw carries no score. ``other_model_calls`` (``{model,
    input_tokens, output_tokens}``) is written only when the harness reported such calls."""
    samples = list(judge_samples or [])
    if score is None and samples and lost_reason is None:
        valid = [s["score"] for s in samples if s["score"] is not None]
        score = sum(valid) / len(valid) if valid else None
    doc = {
        "index": index,
        "answer": answer,
        "answer_sha256": sha256_text(answer) if answer is not None else None,
        "score": None if lost_reason is not None else score,
        "judge_samples": samples,
        "lost": (
            _present(
                {
                    "reason": lost_reason,
                    "kind": lost_kind,
                    "error_class": lost_error_class,
                    "status": lost_status,
                }
            )
            if lost_reason is not None
            else None
        ),
        "tokens": tokens,
        "checks": list(checks or []),
        "captured_files": captured_files,
        "skill_fired": skill_fired,
        "source_error": source_error,
        # members 0.15 added are written only when known (absent reads as unknown, D-13)
        **_present(
            {
                "stop_reason": stop_reason,
                "refusal": refusal,
                "over_budget": over_budget,
                "attempts": attempts,
                "harness_events": harness_events,
            }
        ),
    }
    if other_model_calls:
        doc["other_model_calls"] = list(other_model_calls)
    return doc


def receipt_doc(
    *,
    level: str,
    skill_name: str,
    skill_text: str | None,
    cases: list[dict[str, Any]],
    model: str | None = None,
    provider: str | None = None,
    surface: str | None = None,
    harness: dict[str, Any] | None = None,
    capture: str | None = None,
    preset: str | None = None,
    started_at: str | None = None,
    finished_at: str | None = None,
    generations_per_arm: int | None = None,
    judge_samples_per_generation: int | None = None,
    endpoint_attempts: int | None = None,
    suite_name: str | None = None,
    suite_sha256: str | None = None,
    judge: dict[str, Any] | None = None,
    arms: dict[str, Any] | None = None,
    band_source: str | None = None,
    judge_overhead: dict[str, Any] | None = None,
    provenance: dict[str, Any] | None = None,
    source_figures: dict[str, Any] | None = None,
    uncertainty_unavailable: str | None = None,
    skill_sha256: str | None = None,
) -> dict[str, Any]:
    """A whole unsealed receipt document at the current schema version.

    Args:
        level: ``UNVERIFIED``, ``DECLARED`` or ``TESTED``.
        skill_text: SKILL.md text, hashed and counted (D-14); ``None`` when unknown.
        cases: case documents, each ``{"id", "prompt", "prompt_sha256", "rubric_sha256",
            "threshold", "arms": {"with_skill": {"draws", "generation"}, "baseline": …}}``.
        arms: arm specs; defaults to with_skill and baseline with nothing recorded.
    """
    if arms is None:
        arms = {
            "with_skill": {"label": None, "instruction": None, "system_prompt_sha256": None},
            "baseline": {"label": None, "instruction": None, "system_prompt_sha256": None},
        }
    if skill_text is not None:
        skill = {
            "name": skill_name,
            "sha256": sha256_text(skill_text),
            "tokens": skill_tokens(skill_text),
        }
    else:
        skill = {"name": skill_name, "sha256": skill_sha256, "tokens": None}
    return {
        "schema_version": CURRENT_VERSION,
        "verification_level": level,
        "run": {
            "model": model,
            "provider": provider,
            "surface": surface,
            "harness": harness,
            "capture": capture,
            "preset": preset,
            "started_at": started_at,
            "finished_at": finished_at,
            "runner": {"name": "driftproof", "version": __version__},
            "generations_per_arm": generations_per_arm,
            "judge_samples_per_generation": judge_samples_per_generation,
            "endpoint_attempts": endpoint_attempts,
        },
        "skill": skill,
        "suite": {"name": suite_name, "sha256": suite_sha256},
        "judge": judge,
        "arms": arms,
        "band_source": band_source,
        "cases": cases,
        "economics": {"judge_overhead": judge_overhead},
        "provenance": provenance,
        "source_figures": source_figures,
        "uncertainty_unavailable": uncertainty_unavailable,
    }
