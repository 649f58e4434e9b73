"""Rubric regrade: grade a receipt's kept answers under revised rubrics or criteria.

Method, "Receipts are an open format": no new answer is drawn; a lost draw stays lost;
checks are never run again (a check result is kept only for the answer it ran on);
logical judge calls are counted apart from runner attempts (retries and timeouts
included); the regrade writes a sealed receipt of its own whose seal covers the
original receipt's hash and the runner version, the answers read, the revised tasks,
the original grader, the answers graded and carried, and the calls made. The original's
capture mode and harness are kept, because the answers came from that harness.

Every refusal happens before any output is written: an aggregates-only or judgeless
original, anonymous judge replies, a grader whose recorded setting differs, an
original that kept no answers (run without ``--keep-transcripts``), answers whose text
no longer matches their sealed hash, a revised task whose prompt moved, answers over the
bounds, and a judge reply that answered as a model other than the original's.
"""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from driftproof import __version__
from driftproof.errors import RefusalError
from driftproof.receipt import (
    Judge,
    JudgeSample,
    Receipt,
    build_draw,
    build_judge_sample,
    build_receipt,
    read_receipt,
    sha256_text,
    write_receipt,
)
from driftproof.regrade.identity import (
    GraderSetting,
    SampleIdentity,
    _canon,
    aggregate_judge_ids,
    check_reply_identity,
    grader_setting_of,
    identity_bounds_problem,
    regraded_level,
    rubric_regrade_refusals,
)
from driftproof.regrade.refusals import (
    arms_of,
    input_refusals,
    same_path,
    transcripts_refusals,
)
from driftproof.run import judge as J
from driftproof.run.providers.base import Provider
from driftproof.run.scheduler import RETRY_DELAYS, Counter, FatalRun, LostDraw, with_retries
from driftproof.run.suite import Suite

__all__ = ["RegradeResult", "new_grader_setting", "rubric_regrade", "same_path"]


@dataclass(frozen=True)
class RegradeResult:
    """What a rubric regrade did.

    Attributes:
        receipt_path: the sealed regrade receipt written.
        answers_read / answers_graded / answers_carried: draws read from the original; draws
            sent to the grader; draws copied unchanged (lost draws stay lost).
        logical_judge_calls: judge samples requested (one per sample per graded answer).
        runner_attempts: API requests or CLI invocations made, retries and timeouts included.
    """

    receipt_path: Path
    answers_read: int
    answers_graded: int
    answers_carried: int
    logical_judge_calls: int
    runner_attempts: int


def new_grader_setting(
    judge: Provider, *, model: str, max_tokens: int, original: GraderSetting
) -> GraderSetting:
    """The setting the regrade's grader would run with, in the terms the original records.

    Settings the original did not record (tool version, isolation, routing, grading
    code) are not recorded here either, so they are not compared (method: some of a
    grader's setting is not recorded, and so not compared). ``answered_as`` is held to
    the original's and checked on every reply.
    """
    service = "/".join(x for x in (judge.name, judge.surface) if x) or None
    return GraderSetting(
        model=model,
        service=service,
        sampling=_canon(judge.sampling(max_tokens)),
        instructions=J.template_sha256(),
        tool_version=None,
        isolation=None,
        address=judge.service,
        routing=None,
        code=None,
        answered_as=original.answered_as,
    )


def rubric_regrade(
    original_path: str | Path,
    revised: Suite,
    judge: Provider,
    *,
    judge_model: str,
    out: str | Path,
    judge_samples: int | None = None,
    timeout: float = 120.0,
    max_tokens: int = 1024,
    retry_delays: tuple[float, ...] = RETRY_DELAYS,
    sleep: Callable[[float], None] = time.sleep,
    plain: bool = False,
) -> RegradeResult:
    """Grade the original receipt's kept answers under ``revised`` rubrics; write a sealed receipt.

    With ``plain=True`` this is a plain judge regrade: the same tasks graded by the
    requested judge (which may differ from the original's). Then the grader-setting
    comparison does not apply, but every returned sample must report the requested judge
    identity (a mixed-model reply must name it as serving), anonymous replies refuse with
    no receipt written, the stub records UNVERIFIED, and the aggregate judge ids are
    sealed unique and sorted.

    Args:
        original_path: the original receipt (run with ``--keep-transcripts``).
        revised: the revised tasks (same cases and prompts; new rubric or criteria).
        judge: the grader lane; its recorded setting must equal the original's.
        judge_model: the grader model id (must equal the original's).
        out: where the regrade receipt goes (never the original's path).
        judge_samples: samples per answer; defaults to the original's per-generation count.

    Raises:
        ReceiptError: the original cannot be read.
        RefusalError: any refusal reason (listed one per line); nothing is written.
    """
    original_path, out = Path(original_path), Path(out)
    for kept, what in (
        (original_path, "the original"),
        (
            original_path.with_name(original_path.name + ".transcripts.jsonl"),
            "the original's kept transcripts",
        ),
    ):
        if same_path(out, kept):
            raise RefusalError(f"the regrade receipt must not overwrite {what} ({kept})")
    original = read_receipt(original_path)
    held = original.judge.sampling or {} if original.judge is not None else {}
    for key in (
        "max_tokens",
        "max_output_tokens",
        "max_completion_tokens",
    ):  # Anthropic, Responses, Chat
        if isinstance(held.get(key), int) and not isinstance(held.get(key), bool):
            max_tokens = held[key]  # the original's own setting, held
            break
    original_bytes = original_path.read_bytes()
    orig_setting = grader_setting_of(original)
    new_setting = new_grader_setting(
        judge, model=judge_model, max_tokens=max_tokens, original=orig_setting
    )
    reasons = rubric_regrade_refusals(original, orig_setting, new_setting)
    if plain:  # the judge may change; only what cannot be graded at all refuses here
        reasons = [r for r in reasons if r.startswith("the original carries aggregates")]
    if not reasons:
        reasons = input_refusals(original, revised) + transcripts_refusals(original, original_path)
    if reasons:
        raise RefusalError("rubric regrade refused:\n" + "\n".join(f"- {r}" for r in reasons))
    n = judge_samples or original.run.judge_samples_per_generation or 5
    stub = judge.name == "stub"
    allowed = set(orig_setting.answered_as or ())
    counter = Counter()
    identities: list[SampleIdentity] = []
    revised_by_id = {c.id: c for c in revised.cases}
    cases_out, read = [], 0
    graded = carried = logical = counted = missing = tin = tout = 0
    judge.start()
    try:
        for case in original.cases:
            rc = revised_by_id[case.id]
            arms_out: dict[str, Any] = {}
            for name, arm in arms_of(case):
                draws = []
                for d in arm.draws:
                    read += 1
                    if d.lost is not None:
                        carried += 1
                        draws.append(d)  # a lost draw stays lost
                        continue
                    samples: list[JudgeSample] = []
                    reported_usage = False
                    system, user = J.judge_prompt(rc, d.answer or "")
                    for _ in range(n):
                        logical += 1
                        try:
                            jr = with_retries(
                                functools.partial(
                                    judge.call,
                                    model=judge_model,
                                    system=system,
                                    prompt=user,
                                    timeout=timeout,
                                    max_tokens=max_tokens,
                                ),
                                delays=retry_delays,
                                sleep=sleep,
                                on_attempt=counter.add if judge.makes_endpoint_attempts else None,
                            )
                        except LostDraw as exc:
                            samples.append(
                                build_judge_sample(
                                    None, invalid_reason=f"judge call failed: {exc.reason}"[:2000]
                                )
                            )
                            continue
                        too_big = identity_bounds_problem([jr.reported_model], jr.serving_model)
                        if too_big is not None:
                            raise RefusalError(
                                f"rubric regrade refused: case {case.id} {name} "
                                f"draw {d.index}: {too_big}"
                            )
                        ident = SampleIdentity(
                            tuple(x for x in (jr.reported_model,) if x),
                            jr.serving_model,
                            sha256_text(jr.text),
                        )
                        why = check_reply_identity(judge_model, ident, stub=stub)
                        identities.append(ident)
                        if (
                            why is None
                            and not stub
                            and not plain
                            and jr.reported_model not in allowed
                        ):
                            why = (
                                f"the grader answered as {jr.reported_model!r}; "
                                f"the original answered as {', '.join(sorted(allowed))}"
                            )
                        if why is not None:
                            raise RefusalError(
                                f"rubric regrade refused: case {case.id} {name} "
                                f"draw {d.index}: {why}"
                            )
                        if jr.input_tokens is not None or jr.output_tokens is not None:
                            reported_usage = True
                            tin += jr.input_tokens or 0
                            tout += jr.output_tokens or 0
                        v = J.parse_reply(rc, jr.text)
                        samples.append(
                            build_judge_sample(
                                v.score,
                                reply=jr.text,
                                reported_model=jr.reported_model,
                                serving_model=jr.serving_model,
                                invalid_reason=v.invalid_reason,
                            )
                        )
                    graded += 1
                    counted, missing = (
                        (counted + 1, missing) if reported_usage else (counted, missing + 1)
                    )
                    valid = [s for s in samples if s.score is not None]
                    lost = None if valid else "no judge sample of the regrade was valid"
                    # Checks are carried, never run again: they belong to the answer they ran on.
                    draws.append(
                        build_draw(
                            d.index,
                            answer=d.answer,
                            judge_samples=samples,
                            lost_reason=lost,
                            tokens=d.tokens,
                            checks=d.checks,
                            captured_files=d.captured_files,
                            skill_fired=d.skill_fired,
                            source_error=d.source_error,
                        )
                    )
                arms_out[name] = {"draws": draws, "generation": None}
            cases_out.append(
                {
                    "id": case.id,
                    "prompt": case.prompt,
                    "prompt_sha256": case.prompt_sha256,
                    "rubric_sha256": J.rubric_sha256(rc),
                    "threshold": rc.threshold,
                    "arms": arms_out,
                }
            )
    except FatalRun as exc:
        raise RefusalError(f"rubric regrade stopped: {exc}; nothing was written") from exc
    finally:
        judge.close()
    o = original
    judge_doc: Judge | dict[str, Any] | None = o.judge
    price = o.judge.price if o.judge else None
    if plain:
        judge_doc = {
            "model": judge_model,
            "provider": judge.name,
            "surface": judge.surface,
            "service": judge.service,
            "sampling": judge.sampling(max_tokens),
            "template_sha256": J.template_identity()[0],
            "template_version": J.template_identity()[1],
            "scale": {"worst": J.SCALE[0], "best": J.SCALE[1], "step": J.SCALE[2]},
            "price": None,
        }
        price = None
    overhead = {
        "input_tokens": tin,
        "output_tokens": tout,
        "judged_draws_counted": counted,
        "judged_draws_missing_usage": missing,
        "usd": None
        if price is None
        else round((tin * price.input_usd_per_mtok + tout * price.output_usd_per_mtok) / 1e6, 10),
    }
    body = build_receipt(
        level=regraded_level(o.verification_level, stub=stub),
        skill_name=o.skill.name,
        skill_text=None,
        skill_sha256=o.skill.sha256,
        cases=cases_out,
        model=o.run.model,
        provider=o.run.provider,
        surface=o.run.surface,
        harness=o.run.harness,
        capture=o.run.capture,
        preset=o.run.preset,
        started_at=o.run.started_at,
        finished_at=datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z"),
        generations_per_arm=o.run.generations_per_arm,
        judge_samples_per_generation=n,
        endpoint_attempts=counter.value,
        suite_name=revised.name[:200],
        suite_sha256=revised.sha256,
        judge=judge_doc,
        arms=o.arms,
        band_source=o.band_source,
        judge_overhead=overhead,
        provenance={
            "tool": "driftproof regrade",
            "tool_version": __version__,
            "document": str(original_path),
            "document_sha256": hashlib.sha256(original_bytes).hexdigest(),
            "unrecorded": [],
        },
        skill_token_count=o.skill.tokens,
        regrade=_regrade_member(
            o,
            revised,
            orig_setting,
            plain=plain,
            identities=identities,
            runner_attempts=counter.value,
            counts=(read, graded, carried, logical),
        ),
    )
    write_receipt(body, out)
    return RegradeResult(Path(out), read, graded, carried, logical, counter.value)


def _regrade_member(
    o: Receipt,
    revised: Suite,
    orig_setting: GraderSetting,
    *,
    plain: bool,
    identities: list[SampleIdentity],
    runner_attempts: int,
    counts: tuple[int, int, int, int],
) -> dict[str, Any]:
    read, graded, carried, logical = counts
    return {
        "kind": "judge" if plain else "rubric",
        "original_seal": o.seal.sha256,
        "original_runner": o.run.runner,
        "runner_version": __version__,
        "revised_suite_sha256": revised.sha256,
        "original_grader": {
            k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(orig_setting).items()
        },
        "answers_read": read,
        "answers_graded": graded,
        "answers_carried": carried,
        "logical_judge_calls": logical,
        "runner_attempts": runner_attempts,
        "judge_ids": aggregate_judge_ids(identities),
    }
