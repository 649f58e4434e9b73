"""The fixed judge grading one answer: n samples, each a verdict or invalid with its reason.

A sample is invalid when the judge refused, its ending is not its channel's complete one
(D-19), or it reports another model than the judge; a draw scores its valid samples (D-1).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Callable
from typing import Any

from driftproof.receipt import JudgeSample, build_judge_sample
from driftproof.run import judge as J
from driftproof.run.config import RunConfig
from driftproof.run.endings import ending_reason
from driftproof.run.providers.base import AttemptError, DrawId, Provider, Reply
from driftproof.run.reply_text import repair_text
from driftproof.run.scheduler import LostDraw
from driftproof.run.suite import SuiteCase

#: The usage members summed over a draw's judge samples, and the reply attribute each reads.
_USAGE = (
    ("input", "input_tokens"),
    ("output", "output_tokens"),
    ("cache_read", "cache_read"),
    ("cache_creation", "cache_creation"),
    ("reasoning", "reasoning_output"),
)


def attempts(lane: Provider, draw: DrawId, **call: Any) -> Callable[[], Reply]:
    """Attempts of ``lane.call(**call)``, each identified by ``draw`` and its number from 0."""
    tries = itertools.count()
    return lambda: lane.call(**call, draw=dataclasses.replace(draw, attempt=next(tries)))


def canonical(obj: Any) -> str:
    """``obj`` as compact JSON with sorted keys: how a structured decision is kept and hashed."""
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def judge_verdict(case: SuiteCase, jr: Reply, budget: int) -> J.JudgeVerdict:
    """A judge reply as a verdict; ``budget`` is the judge call's output budget (tokens).

    Invalid when the judge refused or its ending is not complete (D-19); else its structured
    decision, or the final verdict of free text where the lane has no structured channel.
    """
    if jr.refusal is not None:
        said = jr.refusal.get("text") or jr.refusal.get("category") or ""
        return J.JudgeVerdict(None, "the judge refused: " + str(said)[:300])
    ending = jr.ending_class(budget)
    if ending == "truncated":
        n = jr.output_tokens
        at = (
            f"by its output budget ({n} output tokens reported; budget {budget})"
            if n is not None and n < budget
            else f"at {n if n is not None else budget} output tokens (budget {budget})"
        )
        return J.JudgeVerdict(None, f"the judge was cut off {at} before it recorded a grade")
    if ending is not None:
        why = ending_reason(ending, jr.ending, output_tokens=jr.output_tokens, budget=budget)
        return J.JudgeVerdict(None, f"the judge's {why}")
    if jr.decision is not None:
        return J.parse_structured(case, jr.decision)
    if jr.channel in (None, "final_verdict"):
        return J.parse_reply(case, jr.text)
    return J.JudgeVerdict(None, f"the judge returned no {jr.channel} decision")


def repaired(rec: dict[str, Any], where: str, text: str | None) -> str | None:
    """``text`` with lone surrogates as U+FFFD, each substitution noted in ``rec["repairs"]``."""
    if text is None:
        return None
    fixed, n = repair_text(text)
    if n:
        rec.setdefault("repairs", []).append({"field": where, "replaced": n})
    return fixed


class _Usage:
    """The usage a draw's judge replies reported, summed (those of failed attempts included)."""

    def __init__(self) -> None:
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


def _sample(
    case: SuiteCase, jr: Reply, k: int, rec: dict[str, Any], budget: int, model: str
) -> tuple[JudgeSample, str]:
    """Judge reply ``k`` as a sample, and the reply text the transcript keeps."""
    if jr.decision is None:
        jr.text = repaired(rec, f"judge_reply/{k}", jr.text) or ""
        reply = jr.text
    else:  # the decision is hashed and kept: made valid Unicode first, like an answer
        reply = repaired(rec, f"judge_reply/{k}", canonical(jr.decision)) or ""
    v = judge_verdict(case, jr, budget)
    score, invalid = v.score, v.invalid_reason
    if jr.reported_model is not None and not J.same_model(model, jr.reported_model):
        score = None
        invalid = f"the reply reports model {jr.reported_model[:100]!r}, not the requested judge"
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
    usage = _Usage()
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
            failed = f"judge call failed: {exc.reason}"[:2000]
            samples.append(build_judge_sample(None, invalid_reason=failed))
            continue
        usage.add(jr)
        sample, reply = _sample(case, jr, k, rec, cfg.judge_max_tokens, cfg.judge_model)
        samples.append(sample)
        rec["transcript"]["judge_replies"].append(reply)
    rec["judge_usage"] = usage.doc
    return samples
