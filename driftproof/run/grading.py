"""The judge lane of a draw: its samples, their usage, and whether any is valid (D-19).

``run`` grades each answer here, and a regrade grades each kept answer through the same functions.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from driftproof.receipt import JudgeSample, build_judge_sample
from driftproof.receipt import _bounds as B
from driftproof.run import judge as J
from driftproof.run.config import RunConfig
from driftproof.run.providers.base import AttemptError, DrawId, Provider, Reply
from driftproof.run.reply_text import repaired
from driftproof.run.scheduler import LostDraw, attempts
from driftproof.run.suite import SuiteCase

#: The usage members summed over a draw's judge samples, and the reply attribute each reads.
_USAGE = (
    ("input", "input_tokens"),
    ("output", "output_tokens"),
    ("cache_read", "cache_read"),
    ("cache_creation", "cache_creation"),
    ("reasoning", "reasoning_output"),
)


class Usage:
    """The usage a draw's judge replies reported, summed (those of failed attempts included)."""

    def __init__(self) -> None:
        """Nothing reported yet."""
        self.doc: dict[str, Any] = {"input": 0, "output": 0, "reported": False}
        self.doc |= {"cache_read": 0, "cache_creation": 0, "reasoning": 0}

    def add(self, jr: Reply) -> None:
        """Sum one reply's usage; a reported 0 input is unrecorded (the prompt is never empty)."""
        if jr.input_tokens == 0:
            jr.input_tokens = None
        if jr.input_tokens is not None or jr.output_tokens is not None:
            self.doc["reported"] = True
            for key, attr in _USAGE:
                self.doc[key] += getattr(jr, attr) or 0

    def counted(self, attempt: Callable[[], Reply]) -> Callable[[], Reply]:
        """``attempt``, with the usage of a reply it failed on (a server abort) summed too."""

        def run() -> Reply:
            try:
                return attempt()
            except AttemptError as exc:
                if exc.reply is not None:
                    self.add(exc.reply)
                raise

        return run


def unscored(samples: list[JudgeSample]) -> str | None:
    """Why a draw is lost (kind ``unscored``): none of its judge ``samples`` is valid; else None."""
    if any(x.score is not None for x in samples):
        return None
    why = (samples[0].invalid_reason if samples else None) or ""
    return "no judge sample was valid: " + why[:300]


def failed_sample(exc: LostDraw) -> JudgeSample:
    """The invalid sample of a judge call that failed, its last error as the reason."""
    return build_judge_sample(None, invalid_reason=f"judge call failed: {exc.reason}"[:2000])


def judge_sample(
    case: SuiteCase, jr: Reply, k: int, rec: dict[str, Any], budget: int, model: str
) -> tuple[JudgeSample, str]:
    """Judge reply ``k`` of ``model`` as a sample, and its reply as kept (valid Unicode).

    ``budget``: the judge call's output budget (tokens); text repairs are noted in ``rec``.
    """
    if jr.decision is None:  # a copy: a batch's reply is read again by a later making
        jr = dataclasses.replace(jr, text=repaired(rec, f"judge_reply/{k}", jr.text) or "")
        reply = jr.text
    else:  # the decision is hashed and kept: made valid Unicode first, like an answer
        reply = repaired(rec, f"judge_reply/{k}", J.canonical(jr.decision)) or ""
    v = J.judge_verdict(case, jr, budget)
    score, invalid = v.score, v.invalid_reason
    if jr.reported_model is not None and not J.same_model(model, jr.reported_model):
        score = None
        invalid = f"the reply reports model {jr.reported_model[:100]!r}, not the requested judge"
    elif jr.handoff is not None:  # another model graded, whatever the reply names
        score, invalid = None, f"another model gave the grade: {jr.handoff}"
    why = repaired(rec, f"judge_samples/{k}/reason", v.reason)
    sample = build_judge_sample(
        score,
        reply=reply,
        reported_model=jr.reported_model,
        serving_model=jr.serving_model,
        invalid_reason=invalid[:2000] if invalid else None,
        reason=why[:4000] if why else None,
        ignored_members=list(v.ignored) or None,
    )
    return sample, reply


def grade(
    case: SuiteCase,
    answer: str,
    rec: dict[str, Any],
    judge: Provider,
    cfg: RunConfig,
    retried: Callable[[Provider, Callable[[], Reply]], Reply],
) -> list[JudgeSample]:
    """``cfg.judge_samples`` judge samples of one answer, invalid with why when a call failed.

    The replies go to ``rec``'s transcript, the summed usage to ``rec["judge_usage"]`` and text
    repairs to ``rec["repairs"]``; ``retried(judge, call)`` makes each sample's attempts.
    """
    samples: list[JudgeSample] = []
    usage = Usage()
    system, user = J.judge_prompt(case, answer)
    schema = J.decision_schema(case)
    for k in range(cfg.judge_samples):
        call = attempts(
            judge,
            DrawId(case.id, rec["arm"], rec["index"], sample=k),
            model=cfg.judge_model,
            system=system,
            prompt=user,
            timeout=cfg.judge_timeout,
            max_tokens=cfg.judge_max_tokens,
            schema=schema,
        )
        try:
            jr = retried(judge, usage.counted(call))
        except LostDraw as exc:
            samples.append(failed_sample(exc))
            continue
        usage.add(jr)
        sample, reply = judge_sample(case, jr, k, rec, cfg.judge_max_tokens, cfg.judge_model)
        samples.append(sample)  # the transcript keeps no reply over JUDGE_REPLY_MAX_CHARS
        rec["transcript"]["judge_replies"].append(
            reply if len(reply) <= B.JUDGE_REPLY_MAX_CHARS else None
        )
    rec["judge_usage"] = usage.doc
    return samples
