"""One draw of ``driftproof run``: generation with retries, the lost-draw rules, the
deterministic checks and the n judge samples (split from :mod:`.engine`).

What the provider said (issue 13, items 2-5): every draw records the provider's stop reason,
its failed attempts and whether the reply ran over the output budget; a refusal is a lost draw
of kind ``refusal``; lone UTF-16 surrogates become U+FFFD before anything is hashed (D-1 for
a draw's score: the mean of its valid judge samples).

A finished answer (D-19): a reply is graded only when its lane's ending is complete
(:mod:`.endings`); any other ending is a lost draw of its class, the output budget's
(``truncated``) excepted when the suite accepts truncation; a Chat ``length`` is read against
the requested budget (:mod:`.endings`). Reasoning the lane kept apart is recorded by its length
and sha256 only, and never reaches a check or the judge; the draw's ``tokens.answer_output``
leaves it out. An answer that still holds a ``<think>`` or ``</think>`` tag after the leading
block was split off is lost as ``reasoning_mixed``, quoting the tag's position.

The skill reached the model: where the lane reports input tokens, a with-skill draw whose
reported input is below :data:`SKILL_REACHED_SHARE` of the skill's own size (o200k_base tokens)
is lost as ``prompt_dropped``; its reason quotes the skill's size as the receipt records it
(``skill.tokens``, ceil(characters / 4), D-14), the figure ``view`` shows. A reported 0 input
tokens (the prompt is never empty) is unrecorded, never 0. Every lost envelope keeps the usage
and cost it reported.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import threading
from collections.abc import Callable
from typing import Any

from driftproof.receipt import draw_doc, judge_sample_doc, sha256_text
from driftproof.run import judge as J
from driftproof.run.capture import compose_answer
from driftproof.run.checks import run_checks
from driftproof.run.config import ANSWER_MAX, FILES_MAX, REASON_MAX, RunConfig, Spend
from driftproof.run.endings import ending_reason
from driftproof.run.journal import Journal
from driftproof.run.lost import lost_reason
from driftproof.run.providers._sdk import count
from driftproof.run.providers.base import (
    AttemptError,
    DrawId,
    Provider,
    Reply,
    mixed_reasoning_at,
    repair_text,
)
from driftproof.run.scheduler import Counter, Halted, LostDraw, StopRun, with_retries
from driftproof.run.suite import SuiteCase

__all__ = ["Drawer", "SKILL_REACHED_SHARE", "canonical", "judge_verdict"]

#: A with-skill draw must report at least this share of the skill's own size as input tokens.
#: The skill is counted with o200k_base, not with the serving model's tokenizer, and current
#: large-vocabulary tokenizers encode the same English and Markdown within about 15% of
#: o200k_base (smaller vocabularies give more tokens, never fewer); the reported input also
#: holds the task and the chat template on top of the skill. A 20% margin leaves room for the
#: tokenizer and still catches a server that kept less than four fifths of the skill.
SKILL_REACHED_SHARE = 0.8


def _count(v: Any) -> int | None:
    """A token count a harness reported, or ``None`` when it is not an integer a receipt can
    hold."""
    return count(v)


def _attempts(lane: Provider, draw: DrawId, **call: Any) -> Callable[[], Reply]:
    """One attempt of ``lane.call(**call)`` per invocation, each identified by ``draw`` with
    its attempt number (from 0): what a seeded lane draws from, never a count of calls."""
    tries = itertools.count()
    return lambda: lane.call(**call, draw=dataclasses.replace(draw, attempt=next(tries)))


class Drawer:
    """Makes one draw: generation (with retries), lost-draw rules, checks, n judge samples."""

    def __init__(
        self,
        cases: dict[str, SuiteCase],
        systems: dict[str, str | None],
        cfg: RunConfig,
        provider: Provider,
        judge: Provider,
        journal: Journal,
        counter: Counter,
        sleep: Callable[[float], None],
        spend: Spend,
    ) -> None:
        self.cases, self.systems, self.cfg, self.provider, self.judge = (
            cases,
            systems,
            cfg,
            provider,
            judge,
        )
        self.journal, self.counter, self.sleep, self.spend = journal, counter, sleep, spend
        self.halt = threading.Event()
        #: the skill's own size in o200k_base tokens, for the skill-reached check; ``None``
        #: (no check) for the offline lanes
        self.skill_tokens: int | None = None
        #: the skill's size as the receipt records it (``skill.tokens``, ceil(characters / 4),
        #: D-14): the one figure a lost reason quotes, as ``view`` does
        self.skill_size: int | None = None

    def _attempt(self, lane: Provider) -> Callable[[], None]:
        def attempt() -> None:
            if self.halt.is_set():
                raise Halted()
            if lane.makes_endpoint_attempts:
                self.counter.add()

        return attempt

    def __call__(self, case_id: str, arm: str, index: int) -> float | None:
        case, cfg = self.cases[case_id], self.cfg
        rec: dict[str, Any] = {"case": case_id, "arm": arm, "index": index}
        stop = None
        attempts: list[dict[str, Any]] = []
        try:
            reply = with_retries(
                _attempts(
                    self.provider,
                    DrawId(case_id, arm, index),
                    model=cfg.model,
                    system=self.systems[arm],
                    prompt=case.prompt,
                    timeout=cfg.timeout,
                    max_tokens=cfg.max_tokens,
                ),
                policy=cfg.policy(),
                sleep=self.sleep,
                on_attempt=self._attempt(self.provider),
                attempts=attempts,
            )
        except LostDraw as exc:
            cause = exc.__cause__
            said_so = cause.reply if isinstance(cause, AttemptError) else None
            if said_so is not None:
                rec["generation_cost_usd"] = said_so.cost_usd
            rec["draw"] = draw_doc(
                index,
                lost_reason=exc.reason[:REASON_MAX],
                lost_kind=cause.kind if isinstance(cause, AttemptError) else "error",
                lost_error_class=exc.error_class,
                lost_status=exc.status,
                attempts=attempts,
                tokens=None if said_so is None else _tokens(said_so),
            )
        else:
            stop = self._draw(case, arm, index, reply, rec, attempts)
        if cfg.quick:
            rec["shown_answer"] = rec["draw"]["answer"] or (rec["draw"]["lost"] or {}).get("reason")
        if not cfg.keep_transcripts:
            rec["draw"]["answer"] = None
            rec.pop("transcript", None)
        self.journal.draw(rec)
        self.spend.add(rec)
        if stop:
            raise StopRun(stop)
        return rec["draw"]["score"]

    @staticmethod
    def _repaired(rec: dict[str, Any], where: str, text: str | None) -> str | None:
        """``text`` with lone surrogates as U+FFFD; each substitution noted in
        ``rec["repairs"]``."""
        if text is None:
            return None
        fixed, n = repair_text(text)
        if n:
            rec.setdefault("repairs", []).append({"field": where, "replaced": n})
        return fixed

    def _draw(
        self,
        case: SuiteCase,
        arm: str,
        index: int,
        reply: Reply,
        rec: dict[str, Any],
        attempts: list[dict[str, Any]],
    ) -> str | None:
        cfg = self.cfg
        reason: str | None  # why the draw is lost, when it is
        kind: str | None = None
        reply.text = self._repaired(rec, "answer", reply.text) or ""
        if reply.raw is not None:
            reply.raw = repair_text(reply.raw)[0]
        tokens = _tokens(reply)
        over = (
            None
            if reply.output_tokens is None or not self.provider.sends_budget
            else reply.output_tokens > cfg.max_tokens
        )
        thought = self._repaired(rec, "reasoning", reply.reasoning)
        said: dict[str, Any] = {
            "stop_reason": reply.stop_reason[:64] if reply.stop_reason else None,
            "over_budget": over,
            "attempts": attempts,
            "harness_events": reply.harness_events,
            "reasoning": None
            if thought is None
            else {"chars": len(thought), "sha256": sha256_text(thought)},
        }
        rec["generation_cost_usd"] = reply.cost_usd
        rec["transcript"] = {
            "raw": reply.raw,
            "other_models": reply.other_models,
            "judge_replies": [],
        }
        # Calls the harness made on other models are recorded beside the answer, with their tokens.
        others = [
            {
                "model": str(o.get("model"))[:200],
                "input_tokens": _count(o.get("input")),
                "output_tokens": _count(o.get("output")),
            }
            for o in reply.other_models
        ] or None
        files = reply.capture.files if reply.capture is not None else None

        def lose(kind: str, why: str, answer: str | None = None, **extra: Any) -> None:
            """The draw as lost, of ``kind``, saying ``why`` (``files`` read when called)."""
            rec["draw"] = draw_doc(
                index,
                answer=answer,
                lost_reason=why[:REASON_MAX],
                tokens=tokens,
                other_model_calls=others,
                captured_files=files,
                lost_kind=kind,
                **said,
                **extra,
            )

        if reply.handoff:
            reason = f"another model gave the answer: {reply.handoff}; the run stops"
            lose("handoff", reason)
            return reason
        if (
            arm == "with_skill"
            and self.skill_tokens
            and reply.input_tokens is not None
            and reply.input_tokens < SKILL_REACHED_SHARE * self.skill_tokens
        ):
            lose(
                "prompt_dropped",
                f"the server dropped part of the prompt (reported {reply.input_tokens:,} input "
                f"tokens; the skill alone is about {self.skill_size or self.skill_tokens:,})",
                reply.text or None,
            )
            return None
        if reply.refusal is not None:
            text = self._repaired(rec, "refusal", reply.refusal.get("text"))
            cat = reply.refusal.get("category")
            refusal = {
                "text": text[:65536] if text else None,
                "category": str(cat)[:200] if cat else None,
            }
            reason = (
                "the model refused"
                + (f" (category {refusal['category']})" if refusal["category"] else "")
                + (f": {text[:300]}" if text else "")
            )
            lose("refusal", reason, reply.text or None, refusal=refusal)
            return None
        ending = reply.ending_class(cfg.max_tokens)
        if ending == "truncated" and cfg.truncation == "lost":
            n, budget, e = reply.output_tokens, cfg.max_tokens, reply.ending
            if n is not None and n < budget:  # never "cut off at n" below the budget
                cut = f"by the output budget of {budget} tokens (stop reason {e}; "
                cut += f"{n} output tokens reported)"
            elif n is not None:
                cut = f"at {n} output tokens (stop reason {e}; budget {budget})"
            else:
                cut = f"at the output budget of {budget} tokens (stop reason {e}; budget {budget})"
            reason = f"cut off {cut}; the suite does not accept truncation"
            lose("truncated", reason, reply.text or None)
            return None
        if ending == "reasoning_mixed":
            at = mixed_reasoning_at(reply.text) or 0
            tag = "</think>" if reply.text.startswith("</think>", at) else "<think>"
            lose(
                ending,
                f"reasoning mixed into the answer: {tag} at character {at:,} of the answer"
                " (only a leading reasoning block is kept apart); reasoning is never graded",
                reply.text or None,
            )
            return None
        if ending not in (None, "truncated"):
            why = ending_reason(
                ending, reply.ending, output_tokens=reply.output_tokens, budget=cfg.max_tokens
            )
            lose(ending, why, reply.text or None)
            return None
        answer, reason, kind = reply.text, None, None
        if reply.capture is not None:
            cap = reply.capture
            if cap.error:
                reason, kind = cap.error, "capture_error"
            elif not reply.text.strip() and not cap.shown:
                named = ", ".join(f"{f['path']} ({f['reason']})" for f in cap.files) or "none"
                reason, kind = (
                    f"the reply is empty and no file it left can be shown; files: {named}",
                    "no_answer",
                )
            answer = compose_answer(reply.text, cap)
        if files is not None and len(files) > FILES_MAX:
            reason, kind = (
                f"the agent left {len(files)} files, more than a receipt can name ({FILES_MAX})",
                "too_large",
            )
            files = files[:FILES_MAX]
        if reason is None and len(answer) > ANSWER_MAX:
            reason, kind = (
                f"the answer is {len(answer)} characters, more than a receipt holds ({ANSWER_MAX})",
                "too_large",
            )
            answer = ""
        if reason is None and reply.capture is None:
            reason = lost_reason(answer, prompt=case.prompt)
        elif reason is None and reply.capture is not None and reply.text.strip():
            # the pointing rules read the reply's own prose; the files it left are shown beside it
            reason = lost_reason(
                reply.text, prompt=case.prompt, shown_files=[p for p, _ in reply.capture.shown]
            )
        if reason is not None:
            kind = kind or ("points_elsewhere" if "points at" in reason else "no_answer")
            lose(kind, reason, answer or None)
            return None
        samples = self._judge(case, answer, rec)
        valid = [x for x in samples if x["score"] is not None]
        lost = (
            None
            if valid
            else "no judge sample was valid: " + (samples[0]["invalid_reason"] or "")[:300]
        )
        rec["draw"] = draw_doc(
            index,
            answer=answer,
            judge_samples=samples,
            lost_reason=lost,
            tokens=tokens,
            other_model_calls=others,
            lost_kind="unscored" if lost else None,
            checks=run_checks(case.checks, answer),
            captured_files=files,
            **said,
        )
        return None

    def _judge(self, case: SuiteCase, answer: str, rec: dict[str, Any]) -> list[dict[str, Any]]:
        """n judge samples of one answer, each graded through the judge lane's structured
        channel; usage (with its cache and reasoning parts) summed into ``rec["judge_usage"]``,
        that of attempts that failed on a reply (a server abort, retried) included."""
        cfg = self.cfg
        samples: list[dict[str, Any]] = []
        usage = {
            "input": 0,
            "output": 0,
            "reported": False,
            "cache_read": 0,
            "cache_creation": 0,
            "reasoning": 0,
        }
        system, user = J.judge_prompt(case, answer)
        schema = J.decision_schema(case)

        def add(jr: Reply) -> None:
            """Sum the usage one judge reply reported (a 0 input is unrecorded, never 0)."""
            if jr.input_tokens == 0:  # a non-empty prompt: unrecorded, never 0
                jr.input_tokens = None
            if jr.input_tokens is not None or jr.output_tokens is not None:
                usage["reported"] = True
                usage["input"] += jr.input_tokens or 0
                usage["output"] += jr.output_tokens or 0
                usage["cache_read"] += jr.cache_read or 0
                usage["cache_creation"] += jr.cache_creation or 0
                usage["reasoning"] += jr.reasoning_output or 0

        def counted(attempt: Callable[[], Reply]) -> Callable[[], Reply]:
            """``attempt``, the usage of a reply it failed on (an abort) summed too."""

            def run() -> Reply:
                try:
                    return attempt()
                except AttemptError as exc:
                    if exc.reply is not None:
                        add(exc.reply)
                    raise

            return run

        for k in range(cfg.judge_samples):
            try:
                jr = with_retries(
                    counted(
                        _attempts(
                            self.judge,
                            DrawId(case.id, rec["arm"], rec["index"], sample=k),
                            model=cfg.judge_model,
                            system=system,
                            prompt=user,
                            timeout=cfg.judge_timeout,
                            max_tokens=cfg.judge_max_tokens,
                            schema=schema,
                        )
                    ),
                    policy=cfg.policy(),
                    sleep=self.sleep,
                    on_attempt=self._attempt(self.judge),
                )
            except LostDraw as exc:
                samples.append(
                    judge_sample_doc(None, invalid_reason=f"judge call failed: {exc.reason}"[:2000])
                )
                continue
            add(jr)
            if jr.decision is None:
                jr.text = self._repaired(rec, f"judge_reply/{k}", jr.text) or ""
                reply = jr.text
            else:  # the decision is hashed and kept: made valid Unicode first, like an answer
                reply = self._repaired(rec, f"judge_reply/{k}", canonical(jr.decision)) or ""
            v = judge_verdict(case, jr, cfg.judge_max_tokens)
            score, invalid = v.score, v.invalid_reason
            if jr.reported_model is not None and not J.same_model(
                cfg.judge_model, jr.reported_model
            ):
                score, invalid = (
                    None,
                    f"the reply reports model {jr.reported_model[:100]!r}, not the requested judge",
                )
            why = self._repaired(rec, f"judge_samples/{k}/reason", v.reason)
            samples.append(
                judge_sample_doc(
                    score,
                    reply=reply,
                    reported_model=jr.reported_model,
                    serving_model=jr.serving_model,
                    invalid_reason=invalid[:2000] if invalid else None,
                    reason=why[:4000] if why else None,
                    ignored_members=list(v.ignored) or None,
                )
            )
            rec["transcript"]["judge_replies"].append(reply)
        rec["judge_usage"] = usage
        return samples


def _tokens(reply: Reply) -> dict[str, Any] | None:
    """The draw's ``tokens`` from what the lane reported, ``None`` when it reported neither
    count. A reported 0 input tokens is unrecorded (the prompt is never empty).
    ``answer_output`` is the output less its reported reasoning tokens; unknown when the reply
    carried reasoning whose tokens were not reported apart, or were reported as 0, or reasoning
    mixed into its answer (D-19)."""
    if reply.input_tokens == 0:
        reply.input_tokens = None
    if reply.input_tokens is None and reply.output_tokens is None:
        return None
    out, thought = reply.output_tokens, reply.reasoning_output
    if (
        out is None
        or (reply.reasoning and not thought)
        or mixed_reasoning_at(reply.text) is not None
    ):
        # reasoning seen, its tokens not reported apart (or reported as none), or mixed into
        # the answer
        answer = None
    else:
        answer = max(0, out - (thought or 0))
    return {
        "input": reply.input_tokens,
        "output": out,
        "counted_by": "provider",
        **{
            k: v
            for k, v in (
                ("cache_read_input", reply.cache_read),
                ("cache_creation_input", reply.cache_creation),
                ("reasoning_output", thought),
                ("answer_output", answer),
            )
            if v is not None
        },
    }


def canonical(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def judge_verdict(case: SuiteCase, jr: Reply, budget: int) -> J.JudgeVerdict:
    """A judge reply as a verdict: invalid, saying why, when it was refused or its ending is
    not the complete ending of the judge's channel (D-19); else the structured decision when
    the lane returned one; the final verdict of free text when the lane has no structured
    channel; else invalid."""
    if jr.refusal is not None:
        return J.JudgeVerdict(
            None,
            "the judge refused: "
            + str(jr.refusal.get("text") or jr.refusal.get("category") or "")[:300],
        )
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
