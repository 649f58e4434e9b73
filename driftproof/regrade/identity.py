"""Grader identity and the regrade refusals, one sentence each.

Method, "Receipts are an open format": a grader whose recorded setting differs from the
original's is refused, and so are kept answers, revised tasks and kept transcripts that cannot
be held to the original.
"""

from __future__ import annotations

import hashlib
import json
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from driftproof._json import open_file
from driftproof.errors import SuiteError
from driftproof.receipt import Case, Judge, JudgeSample, Receipt, sha256_text
from driftproof.receipt import _bounds as B
from driftproof.run.judge import SCALE, case_sha256s, same_model
from driftproof.run.suite import Suite, in_language, load_suite
from driftproof.run.suite_fields import SuiteCase
from driftproof.wording import draw_words


def _setting(words: str, at: str = "/judge", *, optional: bool = False) -> Any:
    """A compared setting, named ``words`` and pointed to at ``at`` in a refusal."""
    words_of = {"words": words, "at": at}
    return field(default=None, metadata=words_of) if optional else field(metadata=words_of)


@dataclass(frozen=True, kw_only=True)
class GraderSetting:
    """A grader's recorded setting; ``None`` = not recorded (then not compared).

    The fields are the compared settings, in the method's order. ``sampling``, ``isolation`` and
    ``routing`` are :func:`canonical_json`; ``answered_as`` is the sorted dated model ids the
    grader's replies reported.
    """

    model: str | None = _setting("model", "/judge/model")
    service: str | None = _setting("service", "/judge/provider")
    sampling: str | None = _setting("sampling", "/judge/sampling")
    instructions: str | None = _setting(
        "instructions (prompt template hash)", "/judge/template_sha256"
    )
    tool_version: str | None = _setting("tool version", optional=True)
    isolation: str | None = _setting("isolation", optional=True)
    address: str | None = _setting("address its calls use", "/judge/service")
    routing: str | None = _setting("routing settings handed to its calls", optional=True)
    code: str | None = _setting("code on the grading path", optional=True)
    answered_as: tuple[str, ...] | None = _setting("dated model it answered as", "/cases")


def canonical_json(value: Any) -> str | None:
    """``value`` as sorted compact JSON, so settings compare by value (``None``: not recorded)."""
    if value is None:
        return None
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _samples(receipt: Receipt, *, measured_only: bool) -> list[tuple[str, JudgeSample]]:
    """Every judge sample of the receipt's draws (measured only, if asked) with its pointer."""
    return [
        (f"{at}/judge_samples/{k}", s)
        for at, _, _, d in receipt.draws_at()
        if not (measured_only and d.lost is not None)
        for k, s in enumerate(d.judge_samples)
    ]


def grader_setting_of(receipt: Receipt, *, extra: dict[str, Any] | None = None) -> GraderSetting:
    """The original grader's recorded setting; a field the receipt does not record is ``None``.

    ``extra`` holds settings recorded outside the judge object, by field name.
    """
    extra = extra or {}
    samples = _samples(receipt, measured_only=False)
    reported = sorted({s.reported_model for _, s in samples if s.reported_model})
    return judge_setting(
        receipt.judge,
        tool_version=extra.get("tool_version"),
        isolation=canonical_json(extra.get("isolation")),
        routing=canonical_json(extra.get("routing")),
        code=extra.get("code"),
        answered_as=tuple(reported) or None,
    )


def judge_setting(j: Judge | None, **others: Any) -> GraderSetting:
    """The setting a receipt's judge object records (``None``: not recorded), ``others`` by name."""
    return GraderSetting(
        model=j.model if j else None,
        service=("/".join(x for x in (j.provider, j.surface) if x) or None) if j else None,
        sampling=canonical_json(j.sampling) if j else None,
        instructions=j.template_sha256 if j else None,
        address=j.service if j else None,
        **others,
    )


def rubric_regrade_refusals(
    original: Receipt,
    original_setting: GraderSetting,
    new_setting: GraderSetting,
    file: str | Path,
) -> list[str]:
    """Every reason a rubric regrade of ``original`` with ``new_setting`` must refuse.

    In order: aggregates only; no judge identity; anonymous judge replies; each compared
    setting that differs or is recorded on one side only. Each names ``file``, the original's
    path, and a JSON pointer in it.
    """
    if original.is_aggregates_only:
        return [
            f"{file}: /uncertainty_unavailable: the original carries aggregates only: there is "
            "no answer to grade"
        ]
    if original.judge is None:
        return [f"{file}: /judge: the original records no judge identity"]
    reasons: list[str] = []
    samples = _samples(original, measured_only=True)
    if not samples:
        reasons.append(
            f"{file}: /cases: the original records no judge samples, so no judge identity"
        )
    anonymous = [at for at, s in samples if not s.reported_model]
    if anonymous:
        reasons.append(
            f"{file}: {anonymous[0]}/reported_model: the original holds {len(anonymous)} "
            "anonymous judge replies (no reported model id)"
        )
    for f in fields(GraderSetting):
        a, b = getattr(original_setting, f.name), getattr(new_setting, f.name)
        if a is None and b is None:
            continue
        if a is None or b is None:
            side = "the original" if a is None else "the new grader"
            reasons.append(
                f"{file}: {f.metadata['at']}: grader {f.metadata['words']} is not recorded for "
                f"{side}, so it cannot be held to the original"
            )
        elif a != b:
            reasons.append(
                f"{file}: {f.metadata['at']}: grader {f.metadata['words']} differs: original "
                f"{_short(a)}, new {_short(b)}"
            )
    return reasons


def _short(v: Any) -> str:
    s = v if isinstance(v, str) else json.dumps(v)
    return s if len(s) <= 80 else s[:80] + "…"


@dataclass(frozen=True)
class SampleIdentity:
    """Who one returned judge sample said answered it: ids in reply order, dates kept."""

    reported_ids: tuple[str, ...]
    serving_id: str | None


def identity_bounds_problem(reported: Sequence[str | None], serving: str | None) -> str | None:
    """Why one reply's identity evidence is over the receipt's bounds, else ``None``.

    Checked before any id is copied; the message quotes no id, only sizes.
    """
    ids = [x for x in reported if x is not None]
    size = sum(len(x.encode("utf-8", "surrogatepass")) for x in [*ids, serving or ""])
    over = (len(x) for x in ids + ([serving] if serving else []) if len(x) > B.MODEL_ID_MAX_CHARS)
    for found, limit, words in (
        (len(ids), B.IDENTITY_MAX_IDS_PER_SAMPLE, "the reply reports {} model ids"),
        (size, B.IDENTITY_EVIDENCE_MAX_BYTES, "the reply's identity evidence is {} bytes"),
        (next(over, 0), B.MODEL_ID_MAX_CHARS, "a reported model id is {} characters"),
    ):
        if found > limit:
            return f"{words.format(found)}; the limit is {limit}"
    return None


def check_reply_identity(
    requested: str, sample: SampleIdentity, *, stub: bool = False
) -> str | None:
    """Why a returned judge sample cannot count for ``requested``, or ``None`` when it can.

    Anonymous replies never count; a mixed-model reply must name ``requested`` as serving it.
    The stub judge is exempt (its receipt records UNVERIFIED).
    """
    if stub:
        return None
    if not sample.reported_ids:
        return "anonymous judge reply: it reports no model id"
    distinct = list(dict.fromkeys(sample.reported_ids))
    if len(distinct) == 1:
        if same_model(requested, distinct[0]):
            return None
        return f"the reply reports {distinct[0]!r}, not the requested judge {requested!r}"
    if sample.serving_id is None or not same_model(requested, sample.serving_id):
        return (
            f"mixed-model reply ({', '.join(distinct)}) does not name the requested judge "
            f"{requested!r} as serving it"
        )
    return None


def aggregate_judge_ids(samples: Iterable[SampleIdentity]) -> list[str]:
    """Every reported and serving id across samples: unique, sorted in lexical order.

    Raises:
        ValueError: more distinct ids than ``_bounds.IDENTITY_MAX_DISTINCT_IDS``.
    """
    ids: set[str] = set()
    for s in samples:
        ids.update(s.reported_ids)
        if s.serving_id:
            ids.add(s.serving_id)
        if len(ids) > B.IDENTITY_MAX_DISTINCT_IDS:
            raise ValueError(f"more than {B.IDENTITY_MAX_DISTINCT_IDS} distinct judge ids")
    return sorted(ids)


def regraded_level(original_level: str, *, stub: bool) -> str:
    """The original's level, except UNVERIFIED for the stub judge (an UNVERIFIED one stays)."""
    return "UNVERIFIED" if stub else original_level


def in_run_language(original: Receipt, revised: Suite) -> tuple[Suite, list[str]]:
    """``revised`` with its prompts in the language the original ran in, as ``run`` read them.

    Returns the suite (``revised`` itself when the original records no language) and why it
    cannot be read in that language: one line per case with no prompt in it (empty: it can).
    """
    if original.run.language is None:
        return revised, []
    try:
        return in_language(revised, original.run.language, None)[0], []
    except SuiteError as exc:
        return revised, exc.lines()


def held_truncation(r: Receipt) -> str:
    """What a cut-off answer was in ``r``'s run: before it was recorded, always ``lost``."""
    return r.run.truncation or "lost"


def input_refusals(original: Receipt, revised: Suite, file: str | Path) -> list[str]:
    """Why the kept answers, revised tasks or kept transcripts cannot be held to ``original``.

    Empty: they can. Each names its file (``file``: the original's path) and where in it.
    """
    total_bytes = 0  # as the archive holds them: UTF-8
    for at, case, name, d in original.draws_at():
        if d.lost is not None:
            continue
        where = f"{file}: {at}/answer: {draw_words(case.id, name, d.index, aa=original.run.aa)}"
        if d.answer is None:
            why = "the original kept no answer (run with --keep-transcripts to regrade)"
            return [f"{where}: {why}"]
        if len(d.answer) > B.ANSWER_MAX_CHARS:
            return [f"{where}: answer over {B.ANSWER_MAX_CHARS} characters"]
        total_bytes += len(d.answer.encode("utf-8"))  # its digest: held on reading (D-18)
    over = total_bytes > (most := B.ANSWERS_ARCHIVE_MAX_BYTES)
    reasons = (
        [f"{file}: /cases: the answers total {total_bytes} bytes (UTF-8); the limit is {most}"]
        if over
        else []
    )
    reasons += _revised_task_refusals(original, revised, file)
    return reasons + transcripts_refusals(original, Path(file))


def _revised_task_refusals(
    original: Receipt, revised: Suite, original_file: str | Path
) -> list[str]:
    """Why ``revised``'s tasks are not the original's, each naming the file and JSON pointer."""
    reasons: list[str] = []
    file, by_id = revised.path, {c.id: c for c in revised.cases}
    cases_at = revised.cases[0].pointer.rpartition("/")[0] if revised.cases else ""
    for ci, case in enumerate(original.cases):
        rc = by_id.get(case.id)
        if rc is None:
            reasons.append(
                f"{file}: {cases_at}: expected a case {case.id!r}, as the original answered it; "
                "the revised tasks have none"
            )
        elif case.prompt_sha256 is not None and sha256_text(rc.prompt) != case.prompt_sha256:
            reasons.append(
                f"{file}: {rc.pointer}/prompt: case {case.id}'s prompt differs from the "
                "original's; a new prompt needs a new run"
            )
        elif case.prompt_sha256 is None:
            reasons.append(
                f"{original_file}: /cases/{ci}/prompt_sha256: case {case.id}: the original "
                "records no prompt hash, so the revised task cannot be held to it"
            )
        elif rc.rubric is None and not rc.criteria:
            reasons.append(
                f"{file}: {rc.pointer}: expected a rubric or criteria for case {case.id}, as a "
                "regrade grades every kept answer against one; the revised task has neither"
            )
        else:
            reasons += _beside_the_rubric(case, rc, file)
    if revised.truncation != (truncation := held_truncation(original)):
        reasons.append(
            f"{file}: /truncation: expected {truncation!r}, as the original run read a cut-off "
            f"answer, found {revised.truncation!r}; its lost draws stay as they were, so this "
            "needs a new run"
        )
    extra = [c for c in revised.cases if c.id not in {o.id for o in original.cases}]
    if extra:
        reasons.append(
            f"{file}: {', '.join(c.pointer for c in extra[:5])}: the revised tasks add cases the "
            f"original never answered: {', '.join(c.id for c in extra[:5])}"
        )
    return reasons


def _beside_the_rubric(case: Case, rc: SuiteCase, file: str) -> list[str]:
    """Why revised case ``rc`` moved beyond its rubric, each naming the file and pointer.

    Its threshold, or its checks by name and kind (the original keeps their results, not their
    patterns, so a pattern edited under the same name is not seen).
    """
    out = []
    if rc.threshold != case.threshold:
        out.append(
            f"{file}: {rc.pointer}/threshold: expected {case.threshold}, the original's, found "
            f"{rc.threshold}; a regrade holds the original's threshold"
        )
    ran = {(k.name, k.kind) for _, a in case.arms.named() for d in a.draws for k in d.checks}
    if ran and {(k.name, k.kind) for k in rc.checks} != ran or (rc.checks and not ran):
        out.append(
            f"{file}: {rc.pointer}/checks: case {case.id}'s checks differ from those the original "
            "ran on its answers; checks run where the answer is made, so new checks need a new run"
        )
    return out


def transcripts_refusals(original: Receipt, original_path: Path) -> list[str]:
    """Why the kept transcripts beside the original are not the file it sealed (absent: none)."""
    kept = original.run.transcripts
    if kept is None:
        return []
    path = original_path.with_name(kept.file)
    if not path.is_file():  # stat alone: a named pipe is never opened
        if not (path.is_symlink() or path.exists()):
            return []
        mode = stat.S_IFMT(path.stat().st_mode) if path.exists() else -1
        kinds = {-1: "a link that leads nowhere", stat.S_IFDIR: "a folder"}
        kinds |= {stat.S_IFIFO: "a named pipe", stat.S_IFSOCK: "a socket"}
        found = kinds.get(mode, "a device")
        return [
            f"{path}: expected the kept transcripts, the file the original sealed (or nothing "
            f"there), found {found}"
        ]
    if path.stat().st_size > B.ANSWERS_ARCHIVE_MAX_BYTES:
        return [f"{path}: expected at most {B.ANSWERS_ARCHIVE_MAX_BYTES} bytes of kept transcripts"]
    if kept.draws > (most := B.ANSWERS_ARCHIVE_MAX_ENTRIES):
        return [
            f"{original_path}: /run/transcripts/draws: expected at most {most:,} answers in the "
            f"kept transcripts {path.name}, found {kept.draws:,}"
        ]
    with open_file(path) as fh:
        digest = hashlib.file_digest(fh, "sha256").hexdigest()
    if digest != kept.sha256:
        return [
            f"{original_path}: /run/transcripts/sha256: the kept transcripts {path.name} "
            "changed after the original sealed them "
            f"(sha256 {digest[:12]}…, sealed {kept.sha256[:12]}…)"
        ]
    return []


def today_suite(path: Path, r: Receipt) -> dict[str, Any]:
    """Today's suite for ``stale``'s ``Today``: hashes, and what the receipt cannot confirm.

    Its sha256 and each case's prompt and rubric sha256 (none without a rubric), read as
    ``run`` reads it (in the receipt's ``language`` when one is recorded) and hashed as ``run``
    records ``cases[]``.
    """
    suite, untranslated = in_run_language(r, load_suite(path))
    hashes = {c.id: case_sha256s(c) for c in suite.cases}
    recorded = {c.id: c for c in r.cases}
    asked = list(hashes)[:1] if r.run.preset == "quick" else list(hashes)  # quick: the first
    unconfirmed = {
        "its cases (today's are not the receipt's)": set(asked) != set(recorded),
        f"a case with no prompt in {r.run.language!r}": bool(untranslated),
        "a case run cannot grade today": any(
            c.refusal or (c.rubric is None and not c.criteria) for c in suite.cases
        ),
        "a case's threshold": any(
            c.id in recorded and c.threshold != recorded[c.id].threshold for c in suite.cases
        ),
        "its checks (the receipt keeps their results, not their patterns)": any(
            c.checks for c in suite.cases
        )
        or any(d.checks for c in r.cases for _, a in c.arms.named() for d in a.draws),
        "what a cut-off answer is (truncation)": held_truncation(r) != suite.truncation,
        # a control run in another language took the control's translation from the suite's
        # table (or the product's); the receipt keeps the text, not where it came from
        "the control's translation": r.arms.control is not None and r.run.language is not None,
    }
    return {
        "suite_sha256": suite.sha256,
        "prompt_sha256": {i: p for i, (p, _) in hashes.items()},
        "rubric_sha256": {i: rub for i, (_, rub) in hashes.items() if rub is not None},
        "suite_unconfirmed": tuple(k for k, moved in unconfirmed.items() if moved),
    }


def scale_refusals(original: Receipt, file: str | Path) -> list[str]:
    """Why the original's recorded judge scale is not the one this grader scores on.

    A rubric regrade records the original's judge, scale included, over its own grades.
    ``file``: the original's path, named with the scale's JSON pointer.
    """
    scale = original.judge.scale if original.judge is not None else None
    worst, best, step = SCALE
    if scale is None or ((scale.worst, scale.best) == (worst, best) and scale.step in (None, step)):
        return []
    held = "" if scale.step is None else f" in steps of {scale.step:g}"
    return [
        f"{file}: /judge/scale: grader scale differs: original {scale.worst:g} to "
        f"{scale.best:g}{held}, new {worst:g} to {best:g} in steps of {step:g}"
    ]
