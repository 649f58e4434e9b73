"""Rubric regrade: grade a receipt's kept answers under revised rubrics or criteria.

Method, "Receipts are an open format": no new answer is drawn, a lost draw stays lost, checks are
never run again and every refusal comes before any output; it seals a receipt (:class:`Regrade`).
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from driftproof import __version__
from driftproof.errors import RefusalError
from driftproof.outputs import same_path
from driftproof.receipt import (
    Judge,
    Provenance,
    Receipt,
    ReceiptBody,
    Regrade,
    TextRepair,
    build_receipt,
    cut_label,
    parse_receipt,
    write_receipt,
)
from driftproof.receipt._load import read_bounded
from driftproof.regrade.grader import Grader, refused
from driftproof.regrade.identity import (
    GraderSetting,
    aggregate_judge_ids,
    grader_setting_of,
    in_run_language,
    input_refusals,
    judge_setting,
    regraded_level,
    rubric_regrade_refusals,
    scale_refusals,
)
from driftproof.run.config import now
from driftproof.run.providers.base import Provider
from driftproof.run.scheduler import FatalRun, RetryPolicy
from driftproof.run.sealing import judge_doc, transcripts_file
from driftproof.run.suite import Suite
from driftproof.wording import dollars

#: Where judge sampling records its output-token budget (Anthropic, Responses, Chat Completions).
_MAX_TOKEN_KEYS = ("max_tokens", "max_output_tokens", "max_completion_tokens")
#: What a regrade carries from the original's run as it is.
_RUN_KEPT = ("model", "provider", "surface", "harness", "capture", "preset", "started_at")
#: The optional run members that say how the answers were made, carried as the original has them.
_RUN_MEMBERS_KEPT = tuple(
    "max_output_tokens truncation language aa quality_margin budget_param".split()
)
#: A judge call's output budget (tokens) when the original records none.
JUDGE_MAX_TOKENS = 1024


@dataclass(frozen=True)
class RegradeResult:
    """What a rubric regrade did: the receipt written and the counts it seals (:class:`Regrade`)."""

    receipt_path: Path
    answers_read: int
    answers_graded: int
    answers_carried: int
    logical_judge_calls: int
    runner_attempts: int
    #: Why graded answers got no score from the regrade: (cause, answers), commonest first.
    lost_causes: tuple[tuple[str, int], ...] = ()


class RegradeInterrupted(KeyboardInterrupt):
    """Ctrl-C during a regrade: nothing is written and no grade kept; its words say what was spent.

    A :class:`KeyboardInterrupt`, so a caller that does not know it still stops.
    """

    def __init__(self, grader: Grader, judge: Judge | None) -> None:
        """Word what ``grader`` had spent, priced at ``judge``'s recorded price when it has one."""
        oh = grader.overhead(judge)
        tin, tout, cost = oh["input_tokens"], oh["output_tokens"], oh["usd"]
        usd = "" if cost is None else f", about {dollars(cost, 4)} at the judge's recorded price"
        sent = f"{grader.replies:,} judge replies"
        if grader.judge.makes_endpoint_attempts:
            sent += f" ({grader.attempts.value:,} requests sent)"
        super().__init__(
            "nothing was written and no grade was kept (a regrade keeps no journal), so running "
            f"it again starts over; spent before the stop: {sent}, {tin:,} input and {tout:,} "
            f"output tokens reported{usd}"
        )


def _held_max_tokens(original: Receipt) -> int:
    """The output-token budget the original's judge recorded, else :data:`JUDGE_MAX_TOKENS`.

    Its own member, else (a receipt from before it) the budget its sampling sent.
    """
    if original.judge is not None and original.judge.max_output_tokens is not None:
        return original.judge.max_output_tokens
    held = (original.judge.sampling or {}) if original.judge is not None else {}
    given = (v for k in _MAX_TOKEN_KEYS if type(v := held.get(k)) is int)  # JSON: not a bool
    return next(given, JUDGE_MAX_TOKENS)


def rubric_regrade(
    original_path: str | Path,
    revised: Suite,
    judge: Provider,
    *,
    judge_model: str,
    out: str | Path,
    judge_samples: int | None = None,
    retry_delays: tuple[float, ...] | None = None,
    plain: bool = False,
    replace: bool = False,
    judge_timeout: float = 120.0,
    judge_price: tuple[float, ...] | None = None,
) -> RegradeResult:
    """Grade the original receipt's kept answers under ``revised`` rubrics; write a sealed receipt.

    ``original_path`` was run with ``--keep-transcripts``; ``judge`` and ``judge_model`` must
    match its recorded grader. With ``plain=True`` the requested judge may differ, but each
    sample must report it (a mixed-model reply naming it as serving); the stub records
    UNVERIFIED. ``judge_samples`` per answer defaults to the original's per-generation count;
    ``retry_delays`` (a fixed schedule, else ``run``'s policy) and ``judge_timeout`` (each judge
    attempt's deadline) are in seconds; a judge call's output budget is the original's, else
    :data:`JUDGE_MAX_TOKENS`. ``replace`` (``--force``): an ``out`` that exists when the receipt
    is written is replaced; without it, one that appeared while the regrade went on is refused.
    ``judge_price`` (USD per million tokens, ``run``'s ``--judge-price`` order) is frozen into a
    plain judge regrade's receipt; a rubric regrade keeps the original's price.

    Raises:
        ReceiptError: the original cannot be read.
        RefusalError: any refusal reason (listed one per line), or ``out`` appeared while the
            regrade went on and ``replace`` is false; nothing is written.
        RegradeInterrupted: Ctrl-C; nothing is written, its words say what was spent.
    """
    original_path, out = Path(original_path), Path(out)
    for kept, what in (
        (original_path, "the original"),
        (transcripts_file(original_path), "the original's kept transcripts"),
    ):
        if same_path(out, kept):
            raise RefusalError(f"the regrade receipt must not overwrite {what} ({kept})")
    raw = read_bounded(original_path)  # one read: the bytes checked are the bytes hashed
    file = str(original_path)
    original = parse_receipt(raw, file)
    max_tokens = _held_max_tokens(original)
    setting = grader_setting_of(original)
    # the judge asked for, as run records its judge, at judge_price (not batched)
    asked = Judge.model_validate(judge_doc(judge, judge_model, max_tokens, judge_price, None))
    # tool version, isolation, routing and code are not recorded, so not compared;
    # answered_as is the original's, checked on every reply
    reasons = rubric_regrade_refusals(
        original, setting, judge_setting(asked, answered_as=setting.answered_as), original_path
    ) + scale_refusals(original, original_path)
    if plain:  # another judge may grade: of the grader refusals only aggregates-only applies
        reasons = [r for r in reasons if "the original carries aggregates" in r]
    if not reasons:  # the revised tasks as the original run read them: in its language
        revised, reasons = in_run_language(original, revised)
    if not reasons:
        reasons = input_refusals(original, revised, original_path)
    if reasons:
        raise RefusalError(f"{refused(plain)}: " + "; ".join(reasons))
    samples = judge_samples or original.run.judge_samples_per_generation or 5
    allowed = frozenset(setting.answered_as or ())
    retry = RetryPolicy() if retry_delays is None else RetryPolicy.fixed(retry_delays)
    grader = Grader(judge, judge_model, samples, max_tokens, retry, plain, allowed, judge_timeout)
    judge.start()
    try:
        cases = grader.cases(original, revised, file)
    except FatalRun as exc:
        raise RefusalError(f"{refused(plain, 'stopped')}: {exc}; nothing was written") from exc
    except KeyboardInterrupt:
        raise RegradeInterrupted(grader, None if plain else original.judge) from None
    finally:
        judge.close()
    document = (file, hashlib.sha256(raw).hexdigest())
    record = asked if plain else original.judge
    body = _regrade_body(original, revised, grader, cases, setting, record, document)
    _write(body, out, replace=replace)
    causes = tuple(sorted(grader.lost.items(), key=lambda kv: (-kv[1], kv[0])))
    return RegradeResult(out, **grader.counts(), lost_causes=causes)


def _write(body: ReceiptBody, out: Path, *, replace: bool) -> None:
    """Seal and write ``body`` to ``out``, replaced only when ``replace``.

    Raises:
        RefusalError: ``out`` appeared while the regrade went on and ``replace`` is false.
        ReceiptError, OSError: as :func:`write_receipt` raises them.
    """
    try:
        write_receipt(body, out, replace=replace)
    except FileExistsError:
        raise RefusalError(
            f"{out} appeared while the regrade went on; it was not replaced and the regrade's "
            "grades were not kept. Run the same command with --force to write over it, or "
            "choose another path"
        ) from None


def _regrade_body(
    o: Receipt,
    revised: Suite,
    grader: Grader,
    cases: list[dict[str, Any]],
    setting: GraderSetting,
    judge: Judge | None,
    document: tuple[str, str],
) -> ReceiptBody:
    """The unsealed regrade receipt; ``document`` is the original's path and sha256."""
    return build_receipt(
        level=regraded_level(o.verification_level, stub=grader.stub),
        skill_name=o.skill.name,
        skill_text=None,
        skill_sha256=o.skill.sha256,
        skill_token_count=o.skill.tokens,
        cases=cases,
        **{k: getattr(o.run, k) for k in _RUN_KEPT},
        finished_at=now(),
        generations_per_arm=o.run.generations_per_arm,
        judge_samples_per_generation=grader.samples,
        endpoint_attempts=grader.attempts.value,
        suite_name=cut_label(revised.name),
        suite_sha256=revised.sha256,
        judge=judge,
        arms=o.arms,
        band_source=o.band_source,
        # the retry policy is the regrade's own: its judge calls were made with it
        run_members={k: getattr(o.run, k) for k in _RUN_MEMBERS_KEPT}
        | {"retry": grader.retry.doc()},
        text_repairs=_text_repairs(o, grader),
        judge_overhead=grader.overhead(judge),
        provenance=Provenance(
            tool="driftproof regrade",
            tool_version=__version__,
            document=document[0],
            document_sha256=document[1],
            unrecorded=[],
        ),
        regrade=Regrade(
            kind="judge" if grader.plain else "rubric",
            original_seal=o.seal.sha256,
            original_runner=o.run.runner,
            runner_version=__version__,
            revised_suite_sha256=revised.sha256,
            original_grader={
                k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(setting).items()
            },
            **grader.counts(),
            judge_ids=aggregate_judge_ids(grader.identities),
        ),
    )


def _text_repairs(o: Receipt, grader: Grader) -> list[TextRepair] | None:
    """The regrade's text repairs: its judges' and the original's of the cases it carries.

    The original's repairs in the judge samples of a draw graded again no longer hold.
    """
    carried = [
        t
        for t in o.text_repairs or ()
        if t.pointer.startswith("/cases/")
        and t.pointer.partition("/judge_samples/")[0] not in grader.graded_at
    ]
    repairs = carried + grader.repairs
    return repairs[:100000] if repairs else None
