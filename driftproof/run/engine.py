"""``driftproof run``: draw every arm of every case, judge every draw, seal a receipt.

Arms (method, "The core"; issue 5): ``with_skill`` (SKILL.md as the system prompt),
``baseline`` (the task alone) and, optionally, ``control`` (a fixed instruction such as
caveman's "Answer concisely." as the system prompt; D-16), whose delta against the skill is
reported beside the lift. With a control, the with-skill arm's system prompt is the control
followed by a blank line and SKILL.md, exactly as caveman builds its skill arm (seed 004:
``Answer concisely.\n\n{SKILL.md}``), so "skill − control" is what the skill adds on top of
the control. The receipt records each arm's construction (``bare``, ``skill``, ``control``,
``control_then_skill``), the control text (``arms.control.instruction``) and the language of
the prompts and the control (``run.language``, ``--lang``). Each draw is judged n = 5 times by
the fixed judge (2 with ``--quick``); a draw's score is the mean of its valid samples (D-1).

Level: TESTED for a full run on an API or CLI surface with a real judge; UNVERIFIED for the
stub and the simulated lane (either side), for ``--quick`` (preset ``quick``: first case only, 2 draws per arm, 2
judge samples, concurrency 4; method, "A smoke run gives no verdict") and for a run stopped
because another model gave an answer.

Economics (method, "What grading cost"): ``judge_overhead`` sums the usage the judge's
answered samples reported, each draw sent to the judge counted once, at the judge price
frozen in the receipt; draws none of whose samples reported usage are counted in
``judged_draws_missing_usage``. Retried attempts are not in it (a floor on what was billed).
Input tokens are as billed (uncached + cache read + cache creation), each part kept; each
part is priced at its own frozen price where the price table has one, else at the input
price (issue 13, "Usage as billed").

What the provider said (issue 13, items 2-5): every draw records the provider's stop reason,
its failed attempts (error, class, status, wait) and whether the reply ran over the output
budget. A truncated answer (``max_tokens``, ``length``, ``incomplete:max_output_tokens``) is
a lost draw of kind ``truncated``, "cut off at N output tokens", unless the suite declares
``"truncation": "accepted"``; a refusal is a lost draw of kind ``refusal`` with its text and
category kept. A lone UTF-16 surrogate in any reply becomes U+FFFD before anything is hashed
or journaled, and the receipt lists each substitution in ``text_repairs``.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from driftproof.receipt import (
    Receipt,
    draw_doc,
    judge_sample_doc,
    receipt_doc,
    sha256_text,
    validate_document,
    write_checked_receipt,
)
from driftproof.run import judge as J
from driftproof.run.capture import compose_answer
from driftproof.run.checks import run_checks
from driftproof.run.journal import Journal, journal_path
from driftproof.run.lost import lost_reason
from driftproof.run.providers._sdk import count
from driftproof.run.providers.base import Provider, Reply, repair_text
from driftproof.run.scheduler import (
    MAX_DRAWS,
    MIN_DRAWS,
    SETTLE,
    Counter,
    FatalRun,
    Halted,
    LostDraw,
    RetryPolicy,
    StopRun,
    run_cells,
    with_retries,
)
from driftproof.run.suite import Suite, SuiteCase, require_gradable

__all__ = ["ARMS", "RunConfig", "RunInterrupted", "RunResult", "arm_systems", "run_suite"]

ARMS = ("with_skill", "baseline", "control")
#: Receipt schema bounds (schema 0.14): answer characters, lost reason characters, files named per draw.
ANSWER_MAX, REASON_MAX, FILES_MAX = 1_048_576, 4_000, 10_000


@dataclass
class RunConfig:
    """Settings of one run (CLI options). Delays and timeouts are in seconds; prices in USD per
    million tokens."""

    model: str
    judge_model: str
    judge_price: tuple[float, ...] | None = None
    """(input, output[, cache read, cache write]) USD per million tokens."""
    min_draws: int = MIN_DRAWS
    max_draws: int = MAX_DRAWS
    judge_samples: int = 5
    concurrency: int = 8
    timeout: float = 300.0
    judge_timeout: float = 120.0
    retry_delays: tuple[float, ...] | None = None
    """A fixed wait schedule instead of :attr:`retry` (tests; hidden ``--retry-delays``)."""
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    max_tokens: int = 8192
    """Output budget of each answer call (``--max-output-tokens``)."""
    judge_max_tokens: int = 4096
    """Output budget of each judge call (``--judge-max-output-tokens``): room for a reasoning
    judge to think and still record its grade."""
    keep_transcripts: bool = False
    control: str | None = None
    language: str | None = None
    quick: bool = False
    settle: float = SETTLE
    truncation: str = "lost"
    """What a cut-off answer is: ``lost`` (default) or ``accepted``; a suite that declares
    ``"truncation": "accepted"`` sets it (:func:`run_suite`)."""

    batch: Any = None
    """``--batch``: a :class:`driftproof.run.batch_engine.BatchOptions`; ``None`` for interactive calls."""

    def policy(self) -> RetryPolicy:
        """The retry policy in force."""
        return RetryPolicy.fixed(self.retry_delays) if self.retry_delays is not None else self.retry

    @classmethod
    def quick_preset(cls, **kw: Any) -> RunConfig:
        """``--quick``: 2 draws per arm, 2 judge samples, concurrency 4, first case only."""
        return cls(
            **{
                **kw,
                "min_draws": 2,
                "max_draws": 2,
                "judge_samples": 2,
                "concurrency": 4,
                "quick": True,
            }
        )


@dataclass
class RunResult:
    receipt_path: Path
    document: dict[str, Any]
    transcripts_path: Path | None
    resumed_draws: int
    stopped: str | None = None
    quick_answers: dict[str, dict[str, str | None]] = field(default_factory=dict)
    receipt: Receipt | None = None
    """The receipt as read back from ``receipt_path`` (schema, seal and model checked)."""


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def judge_usd(
    price: tuple[float, ...] | None,
    inp: int,
    out: int,
    cache_read: int = 0,
    cache_creation: int = 0,
) -> float | None:
    """Grading cost in USD: uncached input, cache reads, cache writes and output, each at its
    frozen price per million tokens; a cache part with no price of its own is priced as input.
    ``None`` when no price is frozen."""
    if price is None:
        return None
    p_in, p_out = price[0], price[1]
    p_read = price[2] if len(price) > 2 and price[2] is not None else p_in
    p_write = price[3] if len(price) > 3 and price[3] is not None else p_in
    uncached = max(0, inp - cache_read - cache_creation)
    return (uncached * p_in + cache_read * p_read + cache_creation * p_write + out * p_out) / 1e6


class _Spend:
    def __init__(self, price: tuple[float, ...] | None) -> None:
        self.price, self.judge_in, self.judge_out, self.reported = price, 0, 0, 0.0
        self.cache_read = self.cache_creation = 0

    def add(self, rec: dict[str, Any]) -> None:
        u = rec.get("judge_usage") or {}
        self.judge_in += u.get("input", 0)
        self.judge_out += u.get("output", 0)
        self.cache_read += u.get("cache_read", 0)
        self.cache_creation += u.get("cache_creation", 0)
        self.reported += rec.get("generation_cost_usd") or 0.0

    def usd(self) -> float:
        judge = (
            judge_usd(
                self.price, self.judge_in, self.judge_out, self.cache_read, self.cache_creation
            )
            or 0.0
        )
        return judge + self.reported


def arm_systems(skill_text: str, control: str | None) -> dict[str, str | None]:
    """Each arm's system prompt: baseline none; with a control, the control alone and the
    control, a blank line and SKILL.md for the skill arm (seed 004); else SKILL.md alone."""
    if control is None:
        return {"with_skill": skill_text, "baseline": None}
    return {"with_skill": f"{control}\n\n{skill_text}", "baseline": None, "control": control}


#: How each arm's system prompt is built (receipt ``arms.<arm>.construction``, v0.15).
def _construction(arm: str, control: str | None) -> str:
    if arm == "baseline":
        return "bare"
    if arm == "control":
        return "control"
    return "skill" if control is None else "control_then_skill"


class RunInterrupted(KeyboardInterrupt):
    """The run was interrupted (Ctrl-C); every finished draw is kept in the journal. A
    :class:`KeyboardInterrupt`, so a caller that does not know it still stops as on Ctrl-C.

    Attributes:
        kept: finished draws in the journal (all sessions together).
        journal: the journal's path; running the same command again resumes from it.
    """

    def __init__(self, kept: int, journal: Path) -> None:
        super().__init__(f"interrupted: {kept} finished draws are kept in {journal}")
        self.kept, self.journal = kept, journal


def _count(v: Any) -> int | None:
    """A token count a harness reported, or ``None`` when it is not an integer a receipt can hold."""
    return count(v)


class _Drawer:
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
        spend: _Spend,
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
                lambda: self.provider.call(
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
            rec["draw"] = draw_doc(
                index,
                lost_reason=exc.reason[:REASON_MAX],
                lost_kind="error",
                lost_error_class=exc.error_class,
                lost_status=exc.status,
                attempts=attempts,
            )
        else:
            stop = self._draw(case, index, reply, rec, attempts)
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
        """``text`` with lone surrogates as U+FFFD; each substitution noted in ``rec["repairs"]``."""
        if text is None:
            return None
        fixed, n = repair_text(text)
        if n:
            rec.setdefault("repairs", []).append({"field": where, "replaced": n})
        return fixed

    def _draw(
        self,
        case: SuiteCase,
        index: int,
        reply: Reply,
        rec: dict[str, Any],
        attempts: list[dict[str, Any]],
    ) -> str | None:
        cfg = self.cfg
        reply.text = self._repaired(rec, "answer", reply.text) or ""
        if reply.raw is not None:
            reply.raw = repair_text(reply.raw)[0]
        tokens = None
        if reply.input_tokens is not None or reply.output_tokens is not None:
            tokens = {
                "input": reply.input_tokens,
                "output": reply.output_tokens,
                "counted_by": "provider",
                **{
                    k: v
                    for k, v in (
                        ("cache_read_input", reply.cache_read),
                        ("cache_creation_input", reply.cache_creation),
                        ("reasoning_output", reply.reasoning_output),
                    )
                    if v is not None
                },
            }
        over = (
            None
            if reply.output_tokens is None or not self.provider.sends_budget
            else reply.output_tokens > cfg.max_tokens
        )
        said = {
            "stop_reason": reply.stop_reason[:64] if reply.stop_reason else None,
            "over_budget": over,
            "attempts": attempts,
            "harness_events": reply.harness_events,
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
        if reply.handoff:
            reason = f"another model gave the answer: {reply.handoff}; the run stops"
            rec["draw"] = draw_doc(
                index,
                lost_reason=reason[:REASON_MAX],
                tokens=tokens,
                captured_files=files,
                other_model_calls=others,
                lost_kind="handoff",
                **said,
            )
            return reason
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
            rec["draw"] = draw_doc(
                index,
                answer=reply.text or None,
                lost_reason=reason[:REASON_MAX],
                tokens=tokens,
                other_model_calls=others,
                captured_files=files,
                lost_kind="refusal",
                refusal=refusal,
                **said,
            )
            return None
        if reply.truncated and cfg.truncation == "lost":
            n = reply.output_tokens
            reason = (
                (
                    f"cut off at {n} output tokens"
                    if n is not None
                    else f"cut off at the output budget of {cfg.max_tokens} tokens"
                )
                + f" (stop reason {reply.stop_reason}; budget {cfg.max_tokens}); the suite does not accept truncation"
            )
            rec["draw"] = draw_doc(
                index,
                answer=reply.text or None,
                lost_reason=reason[:REASON_MAX],
                tokens=tokens,
                other_model_calls=others,
                captured_files=files,
                lost_kind="truncated",
                **said,
            )
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
        elif reason is None and reply.text.strip():
            # the pointing rules read the reply's own prose; the files it left are shown beside it
            reason = lost_reason(
                reply.text, prompt=case.prompt, shown_files=[p for p, _ in reply.capture.shown]
            )
        if reason is not None:
            kind = kind or ("points_elsewhere" if "points at" in reason else "no_answer")
            rec["draw"] = draw_doc(
                index,
                answer=answer or None,
                lost_reason=reason[:REASON_MAX],
                tokens=tokens,
                other_model_calls=others,
                captured_files=files,
                lost_kind=kind,
                **said,
            )
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
        channel; usage (with its cache and reasoning parts) summed into ``rec["judge_usage"]``."""
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
        for k in range(cfg.judge_samples):
            try:
                jr = with_retries(
                    lambda: self.judge.call(
                        model=cfg.judge_model,
                        system=system,
                        prompt=user,
                        timeout=cfg.judge_timeout,
                        max_tokens=cfg.judge_max_tokens,
                        schema=schema,
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
            if jr.input_tokens is not None or jr.output_tokens is not None:
                usage["reported"] = True
                usage["input"] += jr.input_tokens or 0
                usage["output"] += jr.output_tokens or 0
                usage["cache_read"] += jr.cache_read or 0
                usage["cache_creation"] += jr.cache_creation or 0
                usage["reasoning"] += jr.reasoning_output or 0
            if jr.decision is None:
                jr.text = self._repaired(rec, f"judge_reply/{k}", jr.text) or ""
                reply = jr.text
            else:  # the decision is what is hashed and kept: made valid Unicode first, like an answer
                reply = self._repaired(rec, f"judge_reply/{k}", _canonical(jr.decision)) or ""
            v = _verdict(case, jr, cfg.judge_max_tokens)
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
                )
            )
            rec["transcript"]["judge_replies"].append(reply)
        rec["judge_usage"] = usage
        return samples


def _canonical(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _verdict(case: SuiteCase, jr: Reply, budget: int) -> J.JudgeVerdict:
    """A judge reply as a verdict: the structured decision when the lane returned one; the
    final verdict of free text when the lane has no structured channel; else invalid, saying why."""
    if jr.refusal is not None:
        return J.JudgeVerdict(
            None,
            "the judge refused: "
            + str(jr.refusal.get("text") or jr.refusal.get("category") or "")[:300],
        )
    if jr.decision is not None:
        return J.parse_structured(case, jr.decision)
    if jr.truncated:
        n = jr.output_tokens
        return J.JudgeVerdict(
            None,
            f"the judge was cut off at {n if n is not None else budget} output tokens "
            f"(budget {budget}) before it recorded a grade",
        )
    if jr.channel in (None, "final_verdict"):
        return J.parse_reply(case, jr.text)
    return J.JudgeVerdict(None, f"the judge returned no {jr.channel} decision")


def run_suite(
    suite: Suite,
    *,
    skill_text: str,
    skill_name: str,
    cfg: RunConfig,
    provider: Provider,
    judge: Provider,
    out: str | Path,
    sleep: Callable[[float], None] = time.sleep,
    progress: Callable[..., None] | None = None,
    replace: bool = True,
) -> RunResult:
    """Run ``suite`` and write a sealed receipt to ``out`` (resuming its journal if one is there).

    With ``cfg.batch`` the draws go through the providers' batch APIs
    (:mod:`driftproof.run.batch_engine`, issue 17): same draws, same receipt, plus ``run.batch``
    and the judge's batch price tier.

    ``progress(done, total, spend_usd, phase="draws")`` is called after each draw, then with
    phase ``"sealing"`` while the receipt is assembled, checked and sealed, and ``"done"`` once
    it is written (issue 19: a bar never reads finished while work remains). With ``replace``
    false, a file that appeared at ``out`` while the run went on is not replaced:
    :class:`~driftproof.errors.RefusalError` names it and the journal is kept.

    Raises:
        SuiteError: a case cannot be graded (before any call).
        RefusalError: the journal belongs to another run or another harness version.
        ProviderError: the lane cannot start, or a fatal attempt error stopped the run (the
            journal is kept; run again to resume).
    """
    import dataclasses

    from driftproof.errors import ProviderError

    require_gradable(suite)
    if getattr(suite, "truncation", None) == "accepted":
        cfg = dataclasses.replace(cfg, truncation="accepted")
    out = Path(out)
    cases = list(suite.cases[:1] if cfg.quick else suite.cases)
    systems = arm_systems(skill_text, cfg.control)
    provider.keep_raw = judge.keep_raw = cfg.keep_transcripts
    harness_version = provider.start()
    judge.start()
    judge_doc = {
        "model": cfg.judge_model,
        "provider": judge.name,
        "surface": judge.surface,
        "service": judge.service,
        "sampling": judge.sampling(cfg.judge_max_tokens),
        "template_sha256": J.template_identity()[0],
        "scale": {"worst": J.SCALE[0], "best": J.SCALE[1], "step": J.SCALE[2]},
        "price": _price_doc(cfg.judge_price, tier="batch" if cfg.batch is not None else None),
        "channel": judge.channel,
        "template_version": J.template_identity()[1],
        "max_output_tokens": cfg.judge_max_tokens,
    }
    identity = {
        "suite_sha256": suite.sha256,
        "cases": [c.id for c in cases],
        "skill_sha256": sha256_text(skill_text),
        "model": cfg.model,
        "provider": provider.name,
        "surface": provider.surface,
        "capture": provider.capture,
        "service": provider.service,
        "judge": judge_doc,
        "min_draws": cfg.min_draws,
        "max_draws": cfg.max_draws,
        "settle": cfg.settle,
        "judge_samples": cfg.judge_samples,
        "control": cfg.control,
        "quick": cfg.quick,
        "keep_transcripts": cfg.keep_transcripts,
        "max_tokens": cfg.max_tokens,
        "truncation": cfg.truncation,
    }
    if (
        cfg.control is not None
    ):  # the skill arm is the control then SKILL.md (absent otherwise: older journals resume)
        identity["skill_arm"] = "control_then_skill"
    if cfg.language is not None:  # absent otherwise, so an older journal still resumes
        identity["language"] = cfg.language
        identity["prompts_sha256"] = sha256_text("\x1e".join(c.prompt for c in cases))
    batches = None
    if cfg.batch is not None:
        from driftproof.run.batch import batch_lane

        # a batched run and an interactive one never resume each other's journal
        identity["batch"] = True
        lanes = {"answer": batch_lane(provider), "judge": batch_lane(judge)}
    journal = Journal(
        journal_path(out), identity, started_at=_now(), harness_version=harness_version
    )
    counter = Counter(journal.attempts, journal.attempt)
    spend = _Spend(cfg.judge_price)
    for rec in journal.draws.values():
        spend.add(rec)
    resumed = len(journal.draws)
    drawer = _Drawer(
        {c.id: c for c in cases}, systems, cfg, provider, judge, journal, counter, sleep, spend
    )
    done = {k: v["draw"]["score"] for k, v in journal.draws.items()}
    cells = [(c.id, arm) for c in cases for arm in systems]
    stopped = None
    try:
        if cfg.batch is not None:
            from driftproof.run.batch_engine import BatchJournal, batch_journal_path, run_batched

            batches = BatchJournal(batch_journal_path(out), resumed_run=journal.resumed)
            run_batched(
                cells,
                done,
                drawer,
                lanes=lanes,
                journal=batches,
                opts=cfg.batch,
                finished=list(done),
                min_draws=cfg.min_draws,
                max_draws=cfg.max_draws,
                settle=cfg.settle,
                judge_samples=cfg.judge_samples,
                budget=cfg.policy().max_attempts,
                on_done=(lambda d, t: progress(d, t, spend.usd())) if progress else None,
            )
        else:
            run_cells(
                cells,
                done,
                drawer,
                concurrency=cfg.concurrency,
                min_draws=cfg.min_draws,
                max_draws=cfg.max_draws,
                settle=cfg.settle,
                on_done=(lambda d, t: progress(d, t, spend.usd())) if progress else None,
                halt=drawer.halt,
            )
    except FatalRun as exc:
        if batches is not None:
            batches.close()
        journal.close()
        raise ProviderError(
            f"the run stopped: {exc}; {len(journal.draws)} finished draws are kept in "
            f"{journal.path}; run the same command again to resume"
        ) from exc
    except StopRun as exc:
        stopped = str(exc)
    except KeyboardInterrupt as exc:
        if batches is not None:
            batches.close()
        journal.close()
        raise RunInterrupted(len(journal.draws), journal.path) from exc
    except BaseException:
        if batches is not None:
            batches.close()
        journal.close()
        raise
    finally:
        provider.close()
        judge.close()
    if progress:
        progress(len(journal.draws), len(journal.draws), spend.usd(), "sealing")
    attempts = counter.value + (batches.attempts() if batches is not None else 0)
    doc = _receipt(
        suite,
        cases,
        systems,
        skill_text,
        skill_name,
        cfg,
        provider,
        judge_doc,
        journal,
        attempts,
        harness_version,
        stopped,
    )
    if batches is not None:
        names = sorted({lanes["answer"].provider, lanes["judge"].provider})
        doc["run"]["batch"] = {
            "provider": ",".join(names),
            "batch_ids": list(batches.order),
            "file_ids": [
                b["file_id"]
                for b in (batches.batches[i] for i in batches.order)
                if b.get("file_id")
            ],
        }
    transcripts = None
    if cfg.keep_transcripts:
        # written first, so that the receipt's seal covers the transcripts' hash
        transcripts = _write_transcripts(out, journal)
        doc["run"]["transcripts"] = {
            "file": transcripts.name,
            "sha256": _file_sha256(transcripts),
            "draws": len(journal.draws),
        }
    try:
        receipt = _write_checked(doc, out, replace=replace)
    except BaseException:
        journal.close()  # kept on disk: no finished draw is lost
        raise
    if progress:
        progress(len(journal.draws), len(journal.draws), spend.usd(), "done")
    quick = _answers(journal, cases[0].id) if cfg.quick else {}
    journal.remove()
    if batches is not None:
        batches.remove()
    return RunResult(out, doc, transcripts, resumed, stopped, quick, receipt)


def _price_doc(price: tuple[float, ...] | None, tier: str | None = None) -> dict[str, Any] | None:
    if price is None:
        return None
    doc: dict[str, Any] = {"input_usd_per_mtok": price[0], "output_usd_per_mtok": price[1]}
    if tier is not None:  # ``batch`` for ``--batch`` (issue 17)
        doc["tier"] = tier
    if len(price) > 2 and price[2] is not None:
        doc["cache_read_usd_per_mtok"] = price[2]
    if len(price) > 3 and price[3] is not None:
        doc["cache_write_usd_per_mtok"] = price[3]
    return doc


def _receipt(
    suite: Suite,
    cases: list[SuiteCase],
    systems: dict[str, str | None],
    skill_text: str,
    skill_name: str,
    cfg: RunConfig,
    provider: Provider,
    judge_doc: dict[str, Any],
    journal: Journal,
    attempts: int,
    harness_version: str | None,
    stopped: str | None,
) -> dict[str, Any]:
    case_docs, counts = [], set()
    counted = missing = tin = tout = tcr = tcc = treason = 0
    repairs: list[dict[str, Any]] = []
    by_cell: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for (cid, a, _), r in journal.draws.items():
        by_cell.setdefault((cid, a), []).append(r)
    for ci, c in enumerate(cases):
        arms = {}
        for arm in systems:
            recs = sorted(by_cell.get((c.id, arm), []), key=lambda r: r["index"])
            draws = [r["draw"] for r in recs]
            for di, r in enumerate(recs):
                for fix in r.get("repairs") or ():
                    field_ = fix["field"]
                    if field_ == "answer" and draws[di]["answer"] is None:
                        field_ = "answer_sha256"  # the answer is not kept; its hash is of the repaired text
                    if field_.startswith("judge_reply/"):
                        field_ = f"judge_samples/{field_.split('/', 1)[1]}/reply_sha256"
                    elif field_ == "refusal":
                        field_ = "refusal/text"
                    repairs.append(
                        {
                            "pointer": f"/cases/{ci}/arms/{arm}/draws/{di}/{field_}",
                            "replaced": fix["replaced"],
                        }
                    )
            counts.add(len(draws))
            measured = [d["score"] for d in draws if d["score"] is not None]
            arms[arm] = {
                "draws": draws,
                "generation": {"sd": statistics.stdev(measured)} if len(measured) >= 2 else None,
            }
            for r in recs:
                u = r.get("judge_usage")
                if u is None:
                    continue
                if u["reported"]:
                    counted, tin, tout = counted + 1, tin + u["input"], tout + u["output"]
                    tcr += u.get("cache_read", 0)
                    tcc += u.get("cache_creation", 0)
                    treason += u.get("reasoning", 0)
                else:
                    missing += 1
        case_docs.append(
            {
                "id": c.id,
                "prompt": c.prompt,
                "prompt_sha256": sha256_text(c.prompt),
                "rubric_sha256": J.rubric_sha256(c),
                "threshold": c.threshold,
                "arms": arms,
            }
        )
    price = cfg.judge_price
    usd = judge_usd(price, tin, tout, tcr, tcc)
    overhead = {
        "input_tokens": tin,
        "output_tokens": tout,
        "judged_draws_counted": counted,
        "judged_draws_missing_usage": missing,
        "usd": None if usd is None else round(usd, 10),
        "cache_read_input_tokens": tcr,
        "cache_creation_input_tokens": tcc,
        "reasoning_output_tokens": treason,
    }
    arm_specs = {
        a: {
            "label": a,
            "instruction": systems[a] if a == "control" else None,
            "system_prompt_sha256": sha256_text(s) if s is not None else None,
            "service": provider.service,
            "construction": _construction(a, cfg.control),
        }
        for a, s in systems.items()
    }
    offline = ("stub", "simulated")
    unverified = (
        provider.name in offline
        or judge_doc["provider"] in offline
        or cfg.quick
        or stopped is not None
    )
    doc = receipt_doc(
        level="UNVERIFIED" if unverified else "TESTED",
        skill_name=skill_name,
        skill_text=skill_text,
        cases=case_docs,
        model=cfg.model,
        provider=provider.name,
        surface=provider.surface,
        harness={"name": provider.harness_name, "version": harness_version}
        if provider.harness_name
        else None,
        capture=provider.capture,
        preset="quick" if cfg.quick else None,
        started_at=journal.started_at,
        finished_at=_now(),
        generations_per_arm=counts.pop() if len(counts) == 1 else None,
        judge_samples_per_generation=cfg.judge_samples,
        endpoint_attempts=attempts,
        suite_name=suite.name[:200],
        suite_sha256=suite.sha256,
        judge=judge_doc,
        arms=arm_specs,
        band_source="generation",
        judge_overhead=overhead,
    )
    doc["run"].update(
        {
            "max_output_tokens": cfg.max_tokens if provider.sends_budget else None,
            "truncation": cfg.truncation,
            "retry": cfg.policy().doc(),
        }
    )
    if repairs:
        doc["text_repairs"] = repairs[:100000]
    if cfg.language is not None:
        doc["run"]["language"] = cfg.language
    return doc


def _write_checked(doc: dict[str, Any], out: Path, *, replace: bool = True) -> Receipt:
    """Seal the receipt and validate it once in memory (issue 19), then write it atomically.
    With ``replace`` false the move into place never replaces a file that appeared at ``out``
    while the run went on (issue 16); whatever was there and the journal are kept."""
    if replace:
        return write_checked_receipt(doc, out)
    from driftproof.errors import RefusalError
    from driftproof.receipt._seal import atomic_write, sealed_bytes

    sealed, data = sealed_bytes(doc, out)
    receipt = validate_document(sealed, str(out))
    tmp = out.with_name(f".{out.name}.unchecked")
    atomic_write(tmp, data)
    try:
        os.link(tmp, out)  # atomic: fails when out exists, never replaces it
    except FileExistsError:
        raise RefusalError(
            f"--out {out} appeared while the run went on; it was not replaced. The finished draws "
            f"are kept in {journal_path(out)}: run the same command with --force to write "
            "the receipt over it, or move that file away"
        ) from None
    except OSError:  # a file system without hard links: the check and the move are two steps
        if out.exists():
            raise RefusalError(
                f"--out {out} appeared while the run went on; it was not replaced"
            ) from None
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    return receipt


def _file_sha256(path: Path) -> str:
    import hashlib

    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _write_transcripts(out: Path, journal: Journal) -> Path:
    """``--keep-transcripts``: every answer with the judge's replies and the raw output, one JSON
    line per draw, beside the receipt, which seals the file's sha256 in ``run.transcripts``."""
    path = out.with_name(out.name + ".transcripts.jsonl")
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=".transcripts-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        for (cid, arm, idx), rec in sorted(journal.draws.items()):
            f.write(
                json.dumps(
                    {
                        "case": cid,
                        "arm": arm,
                        "index": idx,
                        "answer": rec["draw"]["answer"],
                        "answer_sha256": rec["draw"]["answer_sha256"],
                        **(rec.get("transcript") or {}),
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return path


def _answers(journal: Journal, case_id: str) -> dict[str, dict[str, str | None]]:
    out: dict[str, dict[str, str | None]] = {}
    order = {a: i for i, a in enumerate(ARMS)}
    for (cid, arm, idx), rec in sorted(
        journal.draws.items(), key=lambda kv: (order[kv[0][1]], kv[0][2])
    ):
        if cid == case_id:
            out.setdefault(arm, {})[str(idx)] = rec.get("shown_answer")
    return out
