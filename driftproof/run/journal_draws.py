"""A journal's draw record: its shape (:class:`DrawRecord`), and what the receipt will hold.

A journal draw becomes a receipt draw as it stands (the seal may only mark it lost), so a draw the
receipt's schema or its consistency checks would refuse is refused when the journal is read,
naming the journal line, not later by the seal naming a receipt never written.
"""

from __future__ import annotations

import functools
from typing import Any, Literal

import jsonschema_rs
from pydantic import BaseModel, ConfigDict

from driftproof._json import pointer
from driftproof.receipt import Draw
from driftproof.receipt._model_base import Count, Positive
from driftproof.receipt._recompute import draw_score_problems, holds_its_judge_samples
from driftproof.receipt._versions import CURRENT_VERSION, compiled_validator_for
from driftproof.run.endings import (
    ENDING_TABLES,
    HARNESS_FINISHED,
    ending_reason,
    harness_ending,
    lost_class,
)


class Strict(BaseModel):
    """A journal record's model: strict types."""

    model_config = ConfigDict(strict=True)  # a member it does not name is not read


class _Usage(Strict):
    """What a draw's judge replies reported, summed."""

    reported: bool
    input: Count
    output: Count
    cache_read: Count = 0
    cache_creation: Count = 0
    reasoning: Count = 0


class _Repair(Strict):
    field: str
    replaced: Positive


class DrawRecord(Strict):
    """A finished draw as the drawer journals it: the receipt's draw and what sealing reads."""

    case: str
    arm: Literal["with_skill", "baseline", "control"]
    index: Count
    draw: Draw
    repairs: list[_Repair] | None = None
    judge_usage: _Usage | None = None
    generation_cost_usd: float | None = None  # as the lane reported it
    transcript: dict[str, Any] | None = None
    shown_answer: str | None = None


@functools.cache
def _draw_schema() -> jsonschema_rs.Draft202012Validator:
    return compiled_validator_for(CURRENT_VERSION, "draw")


def _ending_problem(draw: Draw, identity: dict[str, Any], lane: str | None) -> str | None:
    """Why the graded ``draw`` may not be graded on ``lane`` (D-19), else ``None``.

    Its recorded stop reason is read as the drawer reads the reply's ending (:func:`lost_class`,
    against the run's output budget in tokens): complete, or an output-budget cut the suite
    accepts (its ``truncation``).
    """
    if lane is None or draw.lost is not None:
        return None
    stop, budget = draw.stop_reason, identity.get("max_tokens")
    # a harness's reader makes its ending of the stop reason (codex records none, so a stop
    # reason there is an ending its table does not call complete)
    ending = harness_ending(lane, stop) if lane in HARNESS_FINISHED else stop
    out = draw.tokens.output if draw.tokens is not None else None
    cls = lost_class(lane, ending, output_tokens=out, budget=budget)
    if cls is None or (cls == "truncated" and identity.get("truncation") == "accepted"):
        return None
    why = ending_reason(cls, ending, output_tokens=out, budget=budget)
    complete = ", ".join(ENDING_TABLES[lane].complete)
    return (
        f"/stop_reason is no complete ending ({why}), yet the draw is graded (expected {complete})"
    )


def draw_problem(
    doc: dict[str, Any], draw: Draw, identity: dict[str, Any], lane: str | None
) -> str | None:
    """Why the receipt would refuse the journal draw ``doc`` (``draw`` as read), else ``None``.

    Args:
        doc: the draw record's ``draw`` member, as JSON.
        draw: ``doc`` as the receipt's model reads it.
        identity: the run's identity (its output budget, truncation, judge samples).
        lane: the answering lane's key in the endings table (``Provider.endings``); ``None``
            offline, where no ending is read.

    Returns:
        The member of ``doc`` at fault, as a JSON pointer into ``doc``, and what was expected
        and found: the receipt schema's first complaint, a score that is not the mean
        of the draw's valid judge samples (D-1), a judged draw without the run's judge samples
        per draw, or a graded draw whose stop reason is no complete ending on the lane (D-19).
    """
    judge_samples = identity.get("judge_samples")
    if (err := next(_draw_schema().iter_errors(doc), None)) is not None:
        msg = err.message if len(err.message) <= 200 else f"{err.message[:80]}…{err.message[-80:]}"
        return f"{pointer(err.instance_path)} does not fit a receipt's draw ({msg})"
    if found := next(draw_score_problems(draw, "/score"), None):
        return f"{found[0]} does not follow from its judge samples ({found[1]})"
    if judge_samples is not None and not holds_its_judge_samples(draw, judge_samples):
        return (
            f"/judge_samples holds {len(draw.judge_samples)} judge samples, expected "
            f"{judge_samples}, the judge samples per draw of this run"
        )
    return _ending_problem(draw, identity, lane)
