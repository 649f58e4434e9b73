"""One draw of ``driftproof run``: generation with retries, the lost-draw rules, checks, judging.

A reply is graded only when its lane's ending is complete (D-19); a draw of an arm carrying the
skill (both arms of an A/A calibration) that reports too little input is lost as
``prompt_dropped`` (D-14); the arms of a case are compared when the
receipt is sealed (:mod:`driftproof.run.sealing`).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from driftproof.receipt import Draw, build_draw, sha256_text
from driftproof.receipt import _bounds as B
from driftproof.run import judge as J
from driftproof.run.capture import compose_answer
from driftproof.run.checks import run_checks
from driftproof.run.config import FILES_MAX, REASON_MAX, RunConfig, Spend
from driftproof.run.endings import HIDDEN_REASONING, ending_reason, hidden_cut
from driftproof.run.grading import grade, unscored
from driftproof.run.journal import Journal
from driftproof.run.lost import lost_reason
from driftproof.run.providers._sdk import count
from driftproof.run.providers.base import AttemptError, DrawId, Provider, Reply
from driftproof.run.reply_text import (
    mixed_reason,
    mixed_reasoning_at,
    repair_text,
    repaired,
    repaired_doc,
)
from driftproof.run.scheduler import Counter, Halted, LostDraw, StopRun, attempts, with_retries
from driftproof.run.suite import SuiteCase
from driftproof.tokens import SKILL_REACHED_SHARE

#: Why a with-skill draw's reported input is short of the skill: the two causes a count cannot
#: tell apart (a prompt cache's tokens left out: Ollama's ``prompt_eval_count``).
SHORT_INPUT = (
    "the server dropped part of the prompt, or counts only the prompt tokens it did not take "
    "from its cache"
)


@dataclass
class Loss:
    """Why a draw is lost: kind, reason, answer kept, extra members; ``stops`` ends the run."""

    kind: str
    reason: str
    answer: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    stops: bool = False


@dataclass(eq=False)
class Drawer:
    """Makes one draw: generation (with retries), lost-draw rules, checks, judge samples.

    ``skill_tokens`` is the skill's size in o200k_base tokens for the skill-reached check, the
    figure its reason quotes (``None``: no check); ``halt`` stops every further attempt.
    """

    cases: dict[str, SuiteCase]
    systems: dict[str, str | None]
    cfg: RunConfig
    provider: Provider
    judge: Provider
    journal: Journal
    counter: Counter
    sleep: Callable[[float], None]
    spend: Spend
    skill_tokens: int | None = None
    halt: threading.Event = field(default_factory=threading.Event)

    def retried(
        self, lane: Provider, call: Callable[[], Reply], tried: list[dict[str, Any]] | None = None
    ) -> Reply:
        """``call``'s attempts on ``lane``, counted, by the policy in force; ``tried``: the failed.

        Raises:
            LostDraw: the attempts failed; FatalRun: one failed fatally; Halted: the run halted.
        """

        def attempt() -> None:
            if self.halt.is_set():
                raise Halted()
            if lane.makes_endpoint_attempts:
                self.counter.add()

        def pause(seconds: float) -> None:  # a stop (Ctrl-C) cuts a retry's wait short
            self.halt.wait(seconds)

        sleep = pause if self.sleep is time.sleep else self.sleep  # tests give their own clock
        role = "judge" if lane is self.judge and lane is not self.provider else "answer"
        return with_retries(
            call,
            policy=self.cfg.policy(),
            sleep=sleep,
            on_attempt=attempt,
            attempts=tried,
            lane=role,
        )

    def __call__(self, case_id: str, arm: str, index: int) -> float | None:
        """Make draw ``index`` of ``case_id`` on ``arm``, journal it and return its score.

        Raises:
            StopRun: another model gave the answer (the draw is journaled first).
            FatalRun: a fatal attempt error (from the retries).
        """
        case, cfg = self.cases[case_id], self.cfg
        rec: dict[str, Any] = {"case": case_id, "arm": arm, "index": index}
        stop = None
        tried: list[dict[str, Any]] = []
        call = attempts(
            self.provider,
            DrawId(case_id, arm, index),
            model=cfg.model,
            system=self.systems[arm],
            prompt=case.prompt,
            timeout=cfg.timeout,
            max_tokens=cfg.max_tokens,
        )
        try:
            reply = self.retried(self.provider, call, tried)
        except LostDraw as exc:
            draw = self._failed(rec, index, exc, tried)
        else:
            draw, stop = self._draw(case, arm, index, reply, rec, tried)
        shown = draw.answer or (draw.lost.reason if draw.lost else None)
        if not cfg.keep_transcripts:
            draw = draw.model_copy(update={"answer": None})  # its sha256 is kept
            rec.pop("transcript", None)
        # the journal is JSON, its text valid Unicode: any member a reply filled (a stop reason,
        # a model, an error's words) may hold a lone surrogate, each recorded as repaired
        rec["draw"] = repaired_doc(rec, draw.model_dump(mode="json", by_alias=True))
        if cfg.quick:
            rec["shown_answer"] = shown
        self.journal.draw(rec)
        self.spend.add(rec)
        if stop:
            raise StopRun(stop)
        return draw.score

    @staticmethod
    def _failed(
        rec: dict[str, Any], index: int, exc: LostDraw, tried: list[dict[str, Any]]
    ) -> Draw:
        """The draw as lost because its attempts failed, with what a failed reply reported."""
        cause = exc.__cause__
        said_so = cause.reply if isinstance(cause, AttemptError) else None
        if said_so is not None:
            rec["generation_cost_usd"] = said_so.cost_usd
        return build_draw(
            index,
            lost_reason=exc.reason[:REASON_MAX],
            lost_kind=cause.kind if isinstance(cause, AttemptError) else "error",
            lost_error_class=exc.error_class,
            lost_status=exc.status,
            attempts=tried,
            tokens=None if said_so is None else _tokens(said_so),
        )

    def _draw(
        self,
        case: SuiteCase,
        arm: str,
        index: int,
        reply: Reply,
        rec: dict[str, Any],
        tried: list[dict[str, Any]],
    ) -> tuple[Draw, str | None]:
        """An answered call's draw (lost, or checked and judged), and why the run stops."""
        reply = dataclasses.replace(reply)  # a batch's reply is read again by a later making
        reply.text = repaired(rec, "answer", reply.text) or ""
        if reply.raw is not None:
            reply.raw = repair_text(reply.raw)[0]
        thought = repaired(rec, "reasoning", reply.reasoning)
        budget, sends = self.cfg.max_tokens, self.provider.sends_budget
        said: dict[str, Any] = {
            "stop_reason": reply.stop_reason[:64] if reply.stop_reason else None,
            "over_budget": None
            if reply.output_tokens is None or not sends
            else reply.output_tokens > budget,
            "attempts": tried,
            "harness_events": reply.harness_events,
            "reasoning": None
            if thought is None
            else {"chars": len(thought), "sha256": sha256_text(thought)},
            "tokens": _tokens(reply),
            # calls the harness made on other models, recorded beside the answer
            "other_model_calls": [
                {
                    "model": B.cut_label(str(o.get("model"))),
                    "input_tokens": count(o.get("input")),
                    "output_tokens": count(o.get("output")),
                }
                for o in reply.other_models
            ]
            or None,
        }
        rec["generation_cost_usd"] = reply.cost_usd
        rec["transcript"] = {
            "raw": reply.raw,
            "other_models": reply.other_models,
            "judge_replies": [],
        }
        files = reply.capture.files if reply.capture is not None else None
        loss = self._ending_loss(arm, reply, rec)
        answer = reply.text
        if loss is None:
            answer, files, loss = _answer_loss(case, reply, files)
        graded: dict[str, Any] = {}
        if loss is None:
            samples = grade(case, answer, rec, self.judge, self.cfg, self.retried)
            graded = {"judge_samples": samples, "checks": run_checks(case.checks, answer)}
            if (why := unscored(samples)) is not None:
                loss = Loss("unscored", why, answer)
        draw = build_draw(
            index,
            answer=answer if loss is None else loss.answer,
            lost_reason=None if loss is None else loss.reason[:REASON_MAX],
            lost_kind=None if loss is None else loss.kind,
            captured_files=files,
            **said,
            **graded,
            **(loss.extra if loss is not None else {}),
        )
        return draw, loss.reason if loss is not None and loss.stops else None

    def _ending_loss(self, arm: str, reply: Reply, rec: dict[str, Any]) -> Loss | None:
        """The loss before the answer is read (D-14, D-19; another model answering stops)."""
        shown = reply.text or None
        if handoff := reply.handoff or J.answered_by_other(self.cfg.model, reply):
            why = f"another model gave the answer: {handoff}; the run stops"
            return Loss("handoff", why, stops=True)
        if reply.unread:
            return Loss("no_answer", reply.unread)
        reported = reply.input_tokens
        carries = arm == "with_skill" or self.cfg.aa  # an A/A calibration's arms both carry it
        if carries and self.skill_tokens and reported is not None:
            if reported < SKILL_REACHED_SHARE * self.skill_tokens:
                why = f"{SHORT_INPUT} (reported {reported:,} input "
                why += f"tokens, fewer than {SKILL_REACHED_SHARE:.0%} of the skill's own "
                why += f"{self.skill_tokens:,} o200k_base tokens)"
                return Loss("prompt_dropped", why, shown)
        if reply.refusal is not None:
            return _refusal(reply, rec, shown)
        cfg = self.cfg
        ending = reply.ending_class(cfg.max_tokens)
        if ending == "truncated" and cfg.truncation == "lost":
            why = f"cut off {_cut(reply, cfg.max_tokens)}; the suite does not accept truncation"
            return Loss("truncated", why, shown)
        if ending == "reasoning_mixed":
            return Loss(ending, mixed_reason(reply.text), shown)
        if ending not in (None, "truncated"):
            out = reply.output_tokens
            why = ending_reason(ending, reply.ending, output_tokens=out, budget=cfg.max_tokens)
            return Loss(ending, why, shown)
        return None


def _refusal(reply: Reply, rec: dict[str, Any], shown: str | None) -> Loss:
    """A refusal as a lost draw, its text (made valid Unicode) and category kept."""
    said = reply.refusal or {}
    text = repaired(rec, "refusal", said.get("text"))
    cat = said.get("category")
    refusal = {
        "text": B.cut_label(text, 65536) if text else None,
        "category": B.cut_label(str(cat)) if cat else None,
    }
    why = "the model refused"
    why += f" (category {refusal['category']})" if refusal["category"] else ""
    why += f": {text[:300]}" if text else ""
    return Loss("refusal", why, shown, {"refusal": refusal})


def _cut(reply: Reply, budget: int) -> str:
    """Where the output budget cut an answer off, never "at n" below the budget."""
    n, e = reply.output_tokens, reply.ending
    if n is not None and n < budget:
        return (
            f"by the output budget of {budget} tokens (stop reason {e}; {n} output tokens "
            + "reported)"
        )
    if n is not None:
        said = f"at {n} output tokens (stop reason {e}; budget {budget})"
        if n == budget and hidden_cut(reply.lane, e):
            return said + ", the budget exactly, though the server called the answer finished"
        return said
    return f"at the output budget of {budget} tokens (stop reason {e}; budget {budget})"


def _answer_loss(
    case: SuiteCase, reply: Reply, files: list[dict[str, Any]] | None
) -> tuple[str, list[dict[str, Any]] | None, Loss | None]:
    """The answer graded, the files named, and the loss its content makes, else ``None``."""
    answer, reason, kind = reply.text, None, None
    cap = reply.capture
    if cap is not None:
        if cap.error:
            reason, kind = cap.error, "capture_error"
        elif not reply.text.strip() and not cap.shown:
            named = ", ".join(f"{f['path']} ({f['reason']})" for f in cap.files) or "none"
            reason = f"the reply is empty and no file it left can be shown; files: {named}"
            kind = "no_answer"
        answer = compose_answer(reply.text, cap)
    if files is not None and len(files) > FILES_MAX:
        reason = f"the agent left {len(files)} files, more than a receipt can name ({FILES_MAX})"
        kind, files = "too_large", files[:FILES_MAX]
    if reason is None and len(answer) > B.ANSWER_MAX_CHARS:
        held = B.ANSWER_MAX_CHARS
        reason = f"the answer is {len(answer)} characters, more than a receipt holds ({held})"
        kind, answer = "too_large", ""
    if reason is None and cap is None:
        reason = lost_reason(answer, prompt=case.prompt)
    elif reason is None and cap is not None and reply.text.strip():
        # the pointing rules read the reply's own prose; the files it left are shown beside it
        shown_files = [p for p, _ in cap.shown]
        reason = lost_reason(reply.text, prompt=case.prompt, shown_files=shown_files)
    if reason is None:
        return answer, files, None
    kind = kind or ("points_elsewhere" if "points at" in reason else "no_answer")
    return answer, files, Loss(kind, reason, answer or None)


def _tokens(reply: Reply) -> dict[str, Any] | None:
    """The draw's ``tokens`` (D-19); ``None`` if unreported.

    No answer count when the output's reasoning part is unknown (reasoning given, an empty one
    too, or a lane in :data:`HIDDEN_REASONING`, and no count of it) or larger than the output.
    """
    if reply.input_tokens == 0:
        reply.input_tokens = None
    if reply.input_tokens is None and reply.output_tokens is None:
        return None
    out, thought = reply.output_tokens, reply.reasoning_output
    reasoned = reply.reasoning is not None or reply.lane in HIDDEN_REASONING  # or may have
    unknown = out is None or (reasoned and not thought) or (thought or 0) > out
    mixed = mixed_reasoning_at(reply.text) is not None
    answer = None if unknown or mixed else max(0, (out or 0) - (thought or 0))
    parts = (
        ("cache_read_input", reply.cache_read),
        ("cache_creation_input", reply.cache_creation),
        ("reasoning_output", thought),
        ("answer_output", answer),
    )
    doc = {"input": reply.input_tokens, "output": out, "counted_by": "provider"}
    return doc | {k: v for k, v in parts if v is not None}
