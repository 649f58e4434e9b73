"""``driftproof stale``: does a receipt's result still stand against what would run today?

Per arm: ``still stands``, ``regrade only``, ``run again`` or ``unknown`` (not recorded or not
supplied; never read as current). Only ``run again`` outranks an unknown field the arm depends on:
such a field may itself mean running again, so ``regrade only`` cannot be decided past it. A
harness patch release is an advisory only (method, "Receipts are an open format").
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Literal

from packaging.version import InvalidVersion, Version

from driftproof.pages.words import judge_model
from driftproof.receipt import Receipt
from driftproof.wording import draw_words

#: Why a field recorded but not given today is unknown (said once per arm, beside the fields).
NOT_SUPPLIED = "not supplied for today, so not checked"

Status = Literal["still stands", "regrade only", "run again", "unknown"]
_RANK: dict[str, int] = {"still stands": 0, "regrade only": 1, "unknown": 2, "run again": 3}
Arms = tuple[str, ...]


@dataclass(frozen=True)
class Today:
    """What would run today; ``None`` is "not supplied", reported as unknown and not checked.

    Hashes are lowercase hex sha256; ``rubric_sha256`` and ``prompt_sha256`` map case id to hash.
    ``service`` and ``judge_service`` are base URLs as ``run`` records them.
    ``suite_unconfirmed``: the parts of today's suite beyond prompts and rubrics (checks,
    thresholds, added cases, ...) the receipt cannot confirm unchanged: while any is named, a
    moved suite hash is read as a whole, never case by case.
    """

    model: str | None = None
    harness_name: str | None = None
    harness_version: str | None = None
    capture: str | None = None
    skill_sha256: str | None = None
    suite_sha256: str | None = None
    judge_model: str | None = None
    service: str | None = None
    judge_service: str | None = None
    judge_template_sha256: str | None = None
    judge_template_version: str | None = None
    rubric_sha256: dict[str, str] | None = None
    prompt_sha256: dict[str, str] | None = None
    suite_unconfirmed: tuple[str, ...] = ()


@dataclass(frozen=True)
class Finding:
    """One compared field; ``effect`` applies to ``arms`` unless the finding is ``advisory``."""

    field: str
    recorded: str | None
    today: str | None
    effect: Status
    arms: tuple[str, ...]
    note: str
    advisory: bool = False


@dataclass(frozen=True)
class ArmStaleness:
    """The verdict for one arm, with the findings that decided it.

    ``reasons`` also names a moved field this arm does not hold (the skill, for an arm run without
    it: the control, and the baseline unless the run was an A/A), saying why the arm stands.
    """

    arm: str
    status: Status
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class StaleReport:
    """Per-arm statuses plus every finding (moved, unknown, advisory, current).

    ``simulated``: the receipt's answers or scores were drawn at random (no measurement stands);
    ``stub``: the offline stub made its answers, its grades or both (fixed stand-ins);
    ``aa``: an A/A calibration (``run --aa``), whose two arms are two runs with the skill.
    """

    arms: tuple[ArmStaleness, ...]
    findings: tuple[Finding, ...] = field(default_factory=tuple)
    simulated: bool = False
    stub: bool = False
    aa: bool = False


#: A harness version change by release kind → (effect, note, advisory); a kind not listed
#: (major, minor) means running again.
_HARNESS_CHANGE: dict[str, tuple[Status, str, bool]] = {
    "same": ("still stands", "unchanged", False),
    "patch": ("still stands", "a patch release of the same harness: advisory only", True),
    "unknown": ("unknown", "versions cannot be compared", False),
}

_VERSION_RE = re.compile(r"\d+(?:\.\d+)+(?:[-+.]?[0-9A-Za-z]+)*")


def parse_harness_version(printed: str) -> Version | None:
    """The first version in a harness's output (``"2.1.97 (Claude Code)"``), or ``None``."""
    for m in _VERSION_RE.finditer(printed):
        try:
            return Version(m.group(0))
        except InvalidVersion:
            continue
    return None


def harness_change(
    recorded: str, today: str
) -> Literal["same", "patch", "minor", "major", "unknown"]:
    """The release kind between two printed harness versions (unparsable: same text or unknown)."""
    a, b = parse_harness_version(recorded), parse_harness_version(today)
    if a is None or b is None:
        return "same" if recorded.strip() == today.strip() else "unknown"
    if a == b:
        return "same"
    if a.major != b.major:
        return "major"
    if a.minor != b.minor:
        return "minor"
    return "patch"


def stale_report(receipt: Receipt, today: Today) -> StaleReport:
    """Per arm ``receipt`` recorded, whether its result still stands against ``today``."""
    arms = tuple(a for a in receipt.arm_names if getattr(receipt.arms, a).recorded is not False)
    findings = _findings(receipt, today, arms)
    why = _ungradable(receipt)
    unkept = [why is not None and f.effect == "regrade only" for f in findings]
    if why is not None:  # no regrade can grade it: a moved grading means running again
        findings = [
            dataclasses.replace(f, effect="run again", note=f"{f.note.split(':')[0]}, but {why}")
            if u
            else f
            for f, u in zip(findings, unkept, strict=True)
        ]
    out = []
    for arm in arms:
        status: Status = "still stands"
        reasons = []
        # an arm's line names the first answer missing in that arm, where it lacks one
        arm_why = _ungradable(receipt, arm) or why
        for f, u in zip(findings, unkept, strict=True):
            moved = None not in (f.recorded, f.today) and f.recorded != f.today
            if arm not in f.arms and moved and f.field == "skill":  # the one field some arms hold
                reasons.append("skill: the skill changed, but this arm holds no skill text")
            if arm not in f.arms or f.advisory or f.effect == "still stands":
                continue
            reasons.append(
                f"{f.field}: {f.note.split(', but ')[0]}, but {arm_why}"
                if u
                else f"{f.field}: {f.note}"
            )
            if _RANK[f.effect] > _RANK[status]:
                status = f.effect
        out.append(ArmStaleness(arm, status, _said_once(reasons)))
    simulated, aa = receipt.is_simulated, bool(receipt.run.aa)
    return StaleReport(tuple(out), tuple(findings), simulated, receipt.is_stub, aa)


def _said_once(reasons: list[str]) -> tuple[str, ...]:
    """``field: why`` reasons with one why said once, after its fields: ``a and b: why``."""
    fields: dict[str, list[str]] = {}
    for reason in reasons:
        name, why = reason.split(": ", 1)
        fields.setdefault(why, []).append(name)
    return tuple(
        f"{', '.join(n[:-1])}{' and ' * (len(n) > 1)}{n[-1]}: {w}" for w, n in fields.items()
    )


def _ungradable(r: Receipt, arm_only: str | None = None) -> str | None:
    """Why ``r``'s answers cannot be graded again, as ``driftproof regrade`` refuses; else None.

    A missing answer is looked for in the arm named ``arm_only`` alone when given.
    """
    if r.is_aggregates_only:
        return "the receipt carries aggregates only, no answer to grade again"
    if all(d.lost is not None for c in r.cases for _, a in c.arms.named() for d in a.draws):
        return "every draw of the receipt was lost, and a regrade keeps a lost draw lost"
    for c in r.cases:
        for arm, a in c.arms.named():
            if arm_only not in (None, arm):
                continue
            draw = next((d for d in a.draws if d.lost is None and d.answer is None), None)
            if draw is not None:
                return (
                    "the receipt kept no answers to grade again (the first missing: "
                    f"{draw_words(c.id, arm, draw.index, aa=r.run.aa)}); run with "
                    "--keep-transcripts to keep them"
                )
    return None


def _finding(
    name: str, recorded: str | None, now: str | None, on_change: Status, arms: Arms, why: str
) -> Finding:
    """One field compared: unknown when either side is missing, else moved or unchanged."""
    if recorded is None:
        on_change, why = "unknown", "not recorded in the receipt"
    elif now is None:
        on_change, why = "unknown", NOT_SUPPLIED
    elif recorded == now:
        on_change, why = "still stands", "unchanged"
    return Finding(name, recorded, now, on_change, arms, why)


def _harness_version(recorded: str | None, now: str | None, arms: Arms) -> Finding:
    """The harness version compared by its release kind (a patch release is an advisory)."""
    if recorded is None or now is None:
        return _finding("harness version", recorded, now, "run again", arms, "")
    kind = harness_change(recorded, now)
    effect, note, advisory = _HARNESS_CHANGE.get(
        kind, ("run again", f"a new {kind} version of the harness means running again", False)
    )
    return Finding("harness version", recorded, now, effect, arms, note, advisory=advisory)


#: A field whose move is not unknown → (effect on the arms, why).
_MOVED: dict[str, tuple[Status, str]] = {
    "model": ("run again", "a different model would give different answers"),
    "harness": ("run again", "a different harness produces the answers"),
    "capture mode": ("run again", "a different capture mode would grade a different answer"),
    "skill": ("run again", "the skill changed"),
    "service": (
        "run again",
        "a different service answers: the same model name there may be another model or build",
    ),
    "judge": ("regrade only", "a different judge: the saved answers can be graded again"),
    "judge service": (
        "regrade only",
        "a different service grades: the saved answers can be graded again there",
    ),
    "judge prompt template": (
        "regrade only",
        "the judge's instructions changed: regrade the saved answers",
    ),
}


def _moved(name: str, recorded: str | None, now: str | None, arms: Arms, more: str = "") -> Finding:
    effect, why = _MOVED[name]
    return _finding(name, recorded, now, effect, arms, why + more)


def _services(name: str, served: dict[str | None, list[str]], now: str | None) -> list[Finding]:
    """Each recorded service compared with ``now``; not given, an advisory naming each service."""
    if now is not None:
        return [_moved(name, s, now, tuple(arms)) for s, arms in served.items()]
    why = "not compared; a run today is served where its base URL option or environment points"
    return [
        Finding(name, s, None, "unknown", tuple(arms), why, advisory=True)
        for s, arms in served.items()
        if s is not None
    ]


def _findings(receipt: Receipt, today: Today, arms: Arms) -> list[Finding]:
    """Every field compared, in the report's order: what produced the answers, then grading."""
    run, h, judge = receipt.run, receipt.run.harness, receipt.judge
    out = [_moved("model", run.model, today.model, arms)]
    served: dict[str | None, list[str]] = {}  # each recorded service, for the arms it answered
    for arm in arms:
        served.setdefault(getattr(receipt.arms, arm).service, []).append(arm)
    out += _services("service", served, today.service)
    if run.surface == "cli" or h is not None or today.harness_name is not None:
        out += [
            _moved("harness", h.name if h else None, today.harness_name, arms),
            _harness_version(h.version if h else None, today.harness_version, arms),
            _moved("capture mode", run.capture, today.capture, arms),
        ]
    versions = ""
    recorded_version = judge.template_version if judge else None
    if recorded_version is not None or today.judge_template_version is not None:
        versions = (
            f" (template version {recorded_version or 'unknown'} recorded, "
            f"{today.judge_template_version or 'unknown'} today)"
        )
    # an A/A run's baseline arm is a second with-skill run: it holds the skill text too
    skilled = ("with_skill", "baseline") if run.aa else ("with_skill",)
    out += [
        _moved("skill", receipt.skill.sha256, today.skill_sha256, skilled),
        _moved("judge", judge_model(receipt), today.judge_model, arms),
        *_services(
            "judge service", {judge.service if judge else None: [*arms]}, today.judge_service
        ),
        _moved(
            "judge prompt template",
            judge.template_sha256 if judge else None,
            today.judge_template_sha256,
            arms,
            versions,
        ),
    ]
    return out + _suite_findings(receipt, today, arms)


#: Per case, each hash today may give: (part, field of the case and of :class:`Today`, effect
#: of a change, why).
_CASE_PARTS: tuple[tuple[str, str, Status, str], ...] = (
    ("prompt", "prompt_sha256", "run again", "the case's prompt changed"),
    (
        "rubric",
        "rubric_sha256",
        "regrade only",
        "the case's rubric changed: regrade the saved answers",
    ),
)


def _suite_findings(receipt: Receipt, today: Today, arms: Arms) -> list[Finding]:
    """The suite's findings: per case if its hash moved and both sides hash cases, else its hash."""
    suite = receipt.suite.sha256
    recorded = any(c.prompt_sha256 or c.rubric_sha256 for c in receipt.cases)
    given = today.prompt_sha256 is not None or today.rubric_sha256 is not None
    if not (recorded and given) or (suite is not None and suite == today.suite_sha256):
        why = "were given" if recorded else "are recorded"
        why = f"the suite changed and no per-case hashes {why} to tell prompts from rubrics"
        return [_finding("suite", suite, today.suite_sha256, "run again", arms, why)]
    if today.suite_unconfirmed:  # fail closed: a part the hashes do not cover may have moved
        why = (
            "the suite changed, and the receipt cannot confirm these parts of it unchanged: "
            + "; ".join(today.suite_unconfirmed)
        )
        return [_finding("suite", suite, today.suite_sha256, "run again", arms, why)]
    out = []
    for c in receipt.cases:
        for part, attr, effect, why in _CASE_PARTS:
            hashes = getattr(today, attr)
            if hashes is None:
                continue
            name, recorded, now = f"case {c.id} {part}", getattr(c, attr), hashes.get(c.id)
            if recorded is not None and now is None:
                why_not = "today's suite has no such case, so not checked"
                out.append(Finding(name, recorded, None, "unknown", arms, why_not))
            else:
                out.append(_finding(name, recorded, now, effect, arms, why))
    return out
