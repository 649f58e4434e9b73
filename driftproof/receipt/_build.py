"""Builders of receipts at the current schema version, as the pydantic models.

Writers assemble receipts through these, so a wrong member fails where the receipt is built.
Every unknown is an explicit ``None`` (D-13); members 0.15 added are absent when ``None``.
Nested parts may be given as models or as JSON data; the model checks either.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict

from pydantic import BaseModel

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing.Unpack from Python 3.12

from driftproof import __version__
from driftproof.receipt._model import (
    CURRENT_VERSION,
    Case,
    Draw,
    JudgeSample,
    ReceiptBody,
    Regrade,
    TextRepair,
)

#: A nested part of a receipt: its model, or the same as plain JSON data.
Part = BaseModel | Mapping[str, Any]


def sha256_text(text: str) -> str:
    """Lowercase hex sha256 of ``text`` encoded as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def skill_tokens(skill_text: str) -> int:
    """ceil(characters / 4) of a SKILL.md text, characters not bytes (D-14): 0 for an empty one.

    A receipt's skill has at least 1, so :func:`build_receipt` refuses an empty ``skill_text``
    (every reader of a SKILL.md refuses an empty one first: no skill to measure).
    """
    return math.ceil(len(skill_text) / 4)


def _present(members: Mapping[str, Any]) -> dict[str, Any]:
    """The members that are not ``None``: 0.15 members are absent when unknown (D-13)."""
    return {k: v for k, v in members.items() if v is not None}


def build_judge_sample(
    score: float | None,
    *,
    reply: str | None = None,
    reported_model: str | None = None,
    serving_model: str | None = None,
    invalid_reason: str | None = None,
    reason: str | None = None,
    ignored_members: Sequence[str] | None = None,
) -> JudgeSample:
    """One judge sample; ``reply`` is hashed, never stored; ``reason`` is kept as untrusted text.

    Raises:
        pydantic.ValidationError: a value of the wrong type.
    """
    return JudgeSample(
        score=score,
        reply_sha256=sha256_text(reply) if reply is not None else None,
        reported_model=reported_model,
        serving_model=serving_model,
        invalid_reason=invalid_reason,
        reason=reason,
        ignored_members=None if ignored_members is None else list(ignored_members),
    )


class DrawMembers(TypedDict, total=False):
    """Keywords of :func:`build_draw` filling their member (``cost_usd`` in US dollars)."""

    tokens: Part | None
    captured_files: Sequence[Part] | None
    skill_fired: bool | None
    source_error: str | None
    stop_reason: str | None
    refusal: Part | None
    over_budget: bool | None
    attempts: Sequence[Part] | None
    harness_events: Sequence[Part] | None
    cost_usd: float | None
    reasoning: Part | None


def build_draw(
    index: int,
    *,
    answer: str | None = None,
    score: float | None = None,
    judge_samples: Sequence[JudgeSample | Mapping[str, Any]] | None = None,
    lost_reason: str | None = None,
    checks: Sequence[Part] | None = None,
    lost_kind: str | None = None,
    lost_error_class: str | None = None,
    lost_status: int | None = None,
    **members: Unpack[DrawMembers],
) -> Draw:
    """One draw.

    When ``score`` is None and judge samples are given, the score is their valid mean (D-1); a
    lost draw carries no score.

    Raises:
        pydantic.ValidationError: a member of the wrong type or shape, named by its path.
    """
    samples = [JudgeSample.model_validate(s) for s in judge_samples or ()]
    if score is None and samples and lost_reason is None:
        valid = [s.score for s in samples if s.score is not None]
        score = sum(valid) / len(valid) if valid else None
    lost = None
    if lost_reason is not None:
        lost = {"reason": lost_reason, "kind": lost_kind, "error_class": lost_error_class}
        lost = _present({**lost, "status": lost_status})
    given = {k: list(v) if isinstance(v, tuple) else v for k, v in members.items()}
    return Draw.model_validate(
        {
            **dict.fromkeys(DrawMembers.__annotations__),
            **given,
            "index": index,
            "answer": answer,
            "answer_sha256": sha256_text(answer) if answer is not None else None,
            "score": None if lost_reason is not None else score,
            "judge_samples": samples,
            "lost": lost,
            "checks": list(checks or []),
        }
    )


_UNRECORDED_ARM = {"label": None, "instruction": None, "system_prompt_sha256": None}


class Members(TypedDict, total=False):
    """Keywords of :func:`build_receipt` that fill the receipt member of their name.

    Unset is ``None``, unknown (D-13). The first eleven are members of ``run``.
    """

    model: str | None
    provider: str | None
    surface: str | None
    harness: Part | None
    capture: str | None
    preset: str | None
    started_at: str | None
    finished_at: str | None
    generations_per_arm: int | None
    judge_samples_per_generation: int | None
    endpoint_attempts: int | None
    judge: Part | None
    band_source: str | None
    provenance: Part | None
    source_figures: Part | None
    uncertainty_unavailable: str | None
    regrade: Regrade | Mapping[str, Any] | None
    source_report: Mapping[str, Any] | None


_RUN = tuple(Members.__annotations__)[:11]
_TOP = tuple(Members.__annotations__)[11:]


def build_receipt(
    *,
    level: str,
    skill_name: str,
    skill_text: str | None,
    cases: Sequence[Case | Mapping[str, Any]],
    suite_name: str | None = None,
    suite_sha256: str | None = None,
    arms: Part | None = None,
    judge_overhead: Part | None = None,
    skill_sha256: str | None = None,
    skill_token_count: int | None = None,
    run_members: Mapping[str, Any] | None = None,
    text_repairs: Sequence[TextRepair | Mapping[str, Any]] | None = None,
    **members: Unpack[Members],
) -> ReceiptBody:
    """A whole unsealed receipt at the current schema version.

    ``skill_text`` is hashed and counted (D-14); when ``None``, ``skill_sha256`` and
    ``skill_token_count`` are recorded as given. ``arms`` defaults to with_skill and baseline
    with nothing recorded; ``run_members`` are optional members of ``run``, ``None`` left out.

    Raises:
        pydantic.ValidationError: a member of the wrong type or shape, named by its path.
    """
    if skill_text is not None:
        skill_sha256, skill_token_count = sha256_text(skill_text), skill_tokens(skill_text)
    run = {k: members.get(k) for k in _RUN}
    return ReceiptBody.model_validate(
        {
            "schema_version": CURRENT_VERSION,
            "verification_level": level,
            "run": {
                **run,
                "runner": {"name": "driftproof", "version": __version__},
                **_present(run_members or {}),
            },
            "skill": {"name": skill_name, "sha256": skill_sha256, "tokens": skill_token_count},
            "suite": {"name": suite_name, "sha256": suite_sha256},
            "arms": arms
            if arms is not None
            else {"with_skill": _UNRECORDED_ARM, "baseline": _UNRECORDED_ARM},
            "cases": list(cases),
            "economics": {"judge_overhead": judge_overhead},
            "text_repairs": None if text_repairs is None else list(text_repairs),
            **{k: members.get(k) for k in _TOP},
        }
    )
