"""The lift breakdown of one receipt (method, "Lift by case"; D-2, D-6, D-9).

Pure, reading only the recorded draw scores (``draws[].score``; judge samples never stand in);
lost draws are left out (D-9). Readings where the method leaves room: a *failed arm* (draws,
all lost) excludes its case, still listed; a draw judged with no valid sample is lost (D-1);
*missing draw evidence* is an arm with no draw or another draw with neither score nor lost
reason; *incomplete* is either anywhere; *fewer than 3 draws per arm* is under three planned or
recorded in an included arm; *no model is recorded* is no ``run.model``, and the ``stub``
provider is said to have answered, not a model. Carrier and leave-one-out tests use the D-3
tolerance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from driftproof.receipt import Receipt, _bounds
from driftproof.receipt._model import Case, CaseArm, Draw
from driftproof.receipt._seal import canonical_bytes
from driftproof.stats._breakdown_evidence import CHECKS, listed
from driftproof.stats.band import NO_VALID_SAMPLE, Band, arm_band, mean_delta, measured_band
from driftproof.stats.codes import VerdictCode
from driftproof.stats.moments import mean_of
from driftproof.stats.reading import lift_refusal
from driftproof.stats.verdict import case_verdict
from driftproof.wording import AA_NO_LIFT, COMPARED_ARMS, LEVELS, MIN_DRAWS_PER_ARM, TOLERANCE

#: Most draws one arm may record for the breakdown to be computed ("unsupported sizes"):
#: the lost-draw check visits at most (k_A + 1)·(k_B + 1) vertices per case (D-9).
MAX_DRAWS_PER_ARM = 1000
Label = Literal["helps", "hurts"]
#: D-6 inside one receipt: upward separation helps, downward hurts.
_LABELS: dict[VerdictCode, Label] = {VerdictCode.IMPROVED: "helps", VerdictCode.REGRESSED: "hurts"}


@dataclass(frozen=True)
class CaseLift:
    """One case's row of the breakdown.

    Attributes:
        with_skill, baseline: each arm's :class:`~driftproof.stats.band.Band` of its recorded
            draw scores (``sd`` ddof = 1, ``n`` draws with a score, ``lost`` draws marked lost).
        lift: with-skill mean minus baseline mean (None when an arm has no measured draw).
        included: False when a failed arm excluded the case (both arms together).
        note: why the case is excluded, or the missing draw evidence it shows.
        lift_without: the suite lift with this case removed (both arms), or None.
        lift_without_reason: why ``lift_without`` is unavailable.
        verdict: the D-6 verdict word (baseline band vs with-skill band) when labels are
            permitted for this case, else None.
        label: ``helps`` (upward separation) or ``hurts`` (downward), else None.
        label_withheld: why this case may carry no comparative label, or None.
        carrier: True when this case carries the positive measured lift.
    """

    case_id: str
    with_skill: Band
    baseline: Band
    lift: float | None
    included: bool
    note: str | None
    lift_without: float | None
    lift_without_reason: str | None
    verdict: VerdictCode | None
    label: Label | None
    label_withheld: str | None
    carrier: bool


@dataclass(frozen=True)
class Breakdown:
    """The lift breakdown of one receipt.

    Attributes:
        available: False when the receipt cannot supply a breakdown; ``reasons`` says why
            and ``cases`` is empty.
        reasons: why the breakdown is unavailable (empty when available).
        cases: one row per case, in receipt order, excluded cases included.
        suite_lift: equal-weight mean over included cases of each case's lift, or None.
        suite_lift_reason: why ``suite_lift`` (and every leave-one-out lift) is unavailable.
        excluded: ids of the cases excluded for a failed arm.
        helps / hurts: ids of the cases that separate upward / downward.
        carriers: ids of the cases that carry the positive measured lift.
        assertions_withheld: why the receipt carries no helps, hurts or carrier assertion.
        carrier_withheld: why no carrier is asserted either way (None when the carrier
            test was made; then an empty ``carriers`` means no case carries the lift).
    """

    available: bool
    reasons: tuple[str, ...]
    cases: tuple[CaseLift, ...]
    suite_lift: float | None
    suite_lift_reason: str | None
    excluded: tuple[str, ...]
    helps: tuple[str, ...]
    hurts: tuple[str, ...]
    carriers: tuple[str, ...]
    assertions_withheld: tuple[str, ...]
    carrier_withheld: str | None


def lift_breakdown(r: Receipt, *, size_bytes: int | None = None) -> Breakdown:
    """The method's lift breakdown of ``r`` ("Lift by case"; D-6, D-9).

    ``size_bytes`` is the file's size in bytes (default: its canonical JSON's). Never raises:
    a receipt it cannot break down gives ``available=False`` with the reasons; an A/A
    calibration (``run.aa``) is one, its arms' difference being noise, not a lift.
    """
    limit = _bounds.BREAKDOWN_MAX_BYTES
    size = size_bytes if size_bytes is not None else len(canonical_bytes(r.to_json_dict()))
    if size > limit:
        return _unavailable(
            f"the receipt is {size} bytes, over the lift breakdown's size limit of "
            f"{limit} bytes (BREAKDOWN_MAX_BYTES); its sheet and diff are unaffected"
        )
    single = lift_refusal(r) or (AA_NO_LIFT if r.run.aa else None)
    if single is not None:
        return _unavailable(single)
    for check in (*CHECKS, _unsupported_sizes):
        problems = check(r)
        if problems:
            return _unavailable(*listed(problems))
    return _compute(r)


def _unsupported_sizes(r: Receipt) -> list[str]:
    if not r.cases:
        return ["unsupported size: the receipt has no case"]
    limit = MAX_DRAWS_PER_ARM  # read at call time: tests lower it
    return [
        f"unsupported size at /cases/{i}/arms/{n}/draws: more than {limit} draws in one arm"
        for i, c in enumerate(r.cases)
        for n in COMPARED_ARMS
        if len(getattr(c.arms, n).draws) > limit
    ]


def _compute(r: Receipt) -> Breakdown:
    figures = [(c, _arm_figures(c.arms.with_skill), _arm_figures(c.arms.baseline)) for c in r.cases]
    failed = {c.id: _failed_arms(c) for c in r.cases}
    missing = {c.id: _missing_evidence(c) for c in r.cases}
    included = [(c, w, b) for c, w, b in figures if not failed[c.id]]
    lifts = {c.id: d for c, w, b in included if (d := mean_delta(b, w)) is not None}

    missing_included = [f"case {c.id}: {missing[c.id]}" for c, _, _ in included if missing[c.id]]
    if missing_included:
        suite_reason: str | None = (
            "missing draw evidence on an included case ("
            + "; ".join(listed(missing_included))
            + ")"
        )
    elif not included:
        suite_reason = "no case is included: every case has a failed arm"
    else:
        suite_reason = None
    suite = _mean([lifts[c.id] for c, _, _ in included]) if suite_reason is None else None

    withheld = _assertions_withheld(r, failed, missing, [(w, b) for _, w, b in included])
    case_withheld = {c.id: _labels_withheld(r, c) for c in r.cases}
    carrier_withheld = _carrier_withheld(withheld, suite_reason, included, case_withheld)

    ids = [c.id for c, _, _ in included]
    total = _exact_sum([lifts[k] for k in ids]) if suite_reason is None else None
    rows = []
    for c, w, b in figures:
        is_in = not failed[c.id]
        without, without_reason = _lift_without(c.id, is_in, ids, lifts, suite_reason, total)
        verdict: VerdictCode | None = None
        label: Label | None = None
        label_withheld = (withheld[0] if withheld else None) or (
            case_withheld[c.id] if is_in else "the case is excluded"
        )
        if label_withheld is None:
            verdict = _verdict(r, c)
            label = _LABELS.get(verdict)
        carrier = (
            carrier_withheld is None
            and suite is not None
            and suite > TOLERANCE
            and without is not None
            and without <= TOLERANCE
        )
        note = (
            _failed_note(failed[c.id])
            if failed[c.id]
            else (f"missing draw evidence: {missing[c.id]}" if missing[c.id] else None)
        )
        rows.append(
            CaseLift(
                c.id,
                w,
                b,
                lifts.get(c.id),
                is_in,
                note,
                without,
                without_reason,
                verdict,
                label,
                label_withheld,
                carrier,
            )
        )
    return Breakdown(
        available=True,
        reasons=(),
        cases=tuple(rows),
        suite_lift=suite,
        suite_lift_reason=suite_reason,
        excluded=tuple(c.id for c in r.cases if failed[c.id]),
        helps=tuple(x.case_id for x in rows if x.label == "helps"),
        hurts=tuple(x.case_id for x in rows if x.label == "hurts"),
        carriers=tuple(x.case_id for x in rows if x.carrier),
        assertions_withheld=withheld,
        carrier_withheld=carrier_withheld,
    )


def _arm_figures(arm: CaseArm) -> Band:
    """One arm's band of its recorded draw scores only (never judge samples in their place)."""
    scores = [d.score for d in arm.draws if not _lost(d) and d.score is not None]
    reasons = [d.lost.reason if d.lost else NO_VALID_SAMPLE for d in arm.draws if _lost(d)]
    gen_sd = arm.generation.sd if arm.generation is not None else None
    return measured_band(scores, len(arm.draws), reasons, "generation", gen_sd)


def _lost(d: Draw) -> bool:
    """A lost draw: recorded lost, or judged with no valid judge sample (D-1)."""
    samples = d.judge_samples
    return d.lost is not None or (
        d.score is None and bool(samples) and all(s.score is None for s in samples)
    )


def _mean(values: list[float]) -> float:
    mean = mean_of(values)
    assert mean is not None, "the breakdown averages non-empty lists only"
    return mean


def _failed_arms(c: Case) -> tuple[str, ...]:
    return tuple(
        n
        for n in COMPARED_ARMS
        if getattr(c.arms, n).draws and all(_lost(d) for d in getattr(c.arms, n).draws)
    )


def _failed_note(arms: tuple[str, ...]) -> str:
    names = " and ".join(a.replace("_", "-") for a in arms)
    plural = "s" if len(arms) > 1 else ""
    return f"excluded with both arms: the {names} arm{plural} failed (every draw lost)"


def _missing_evidence(c: Case) -> str | None:
    for n in COMPARED_ARMS:
        arm = getattr(c.arms, n)
        if not arm.draws:
            return f"the {n.replace('_', '-')} arm records no draw"
        for d in arm.draws:
            if not _lost(d) and d.score is None:
                return (
                    f"{n.replace('_', '-')} draw {d.number} has neither a score nor a lost "
                    "reason (judge samples are not read in place of a draw score)"
                )
    return None


def _exact_sum(values: list[float]) -> Fraction | None:
    """The exact sum of finite ``values``; ``None`` when one is not finite."""
    if not all(math.isfinite(v) for v in values):
        return None
    return sum(map(Fraction, values), Fraction(0))


def _lift_without(
    cid: str,
    is_in: bool,
    ids: list[str],
    lifts: dict[str, float],
    suite_reason: str | None,
    total: Fraction | None,
) -> tuple[float | None, str | None]:
    """The mean lift of the included cases ``ids`` but ``cid``: ``math.fsum(rest) / len(rest)``.

    ``total`` is the exact sum of the included lifts: that sum less this case's lift, rounded
    once, is what ``fsum`` returns for the rest, so a case costs one subtraction, not a sum over
    the suite. With ``total`` ``None`` (a lift that is not finite) the rest is summed.
    """
    if not is_in:
        return None, "the case is excluded"
    if suite_reason is not None:
        return None, suite_reason
    if len(ids) < 2:
        return None, "removing the only included case leaves no case"
    if total is None:
        return _mean([lifts[k] for k in ids if k != cid]), None
    return float(total - Fraction(lifts[cid])) / (len(ids) - 1), None


def _assertions_withheld(
    r: Receipt,
    failed: dict[str, tuple[str, ...]],
    missing: dict[str, str | None],
    included: list[tuple[Band, Band]],
) -> tuple[str, ...]:
    out = []
    if LEVELS.index(r.verification_level) < LEVELS.index("TESTED"):
        out.append(f"below TESTED ({r.verification_level})")
    if r.is_smoke:
        out.append(f"smoke run (preset {r.run.preset})")
    if any(failed.values()) or any(missing.values()):
        out.append(
            "incomplete: " + ("a failed arm" if any(failed.values()) else "missing draw evidence")
        )
    planned = r.run.generations_per_arm
    if (planned is not None and planned < MIN_DRAWS_PER_ARM) or any(
        a.drawn < MIN_DRAWS_PER_ARM for pair in included for a in pair
    ):
        out.append(f"fewer than {MIN_DRAWS_PER_ARM} draws per arm")
    if r.run.model is None or r.run.provider == "stub":
        out.append(
            "no model is recorded"
            if r.run.model is None
            else "the stub provider answered, not a model"
        )
    return tuple(out)


def _labels_withheld(r: Receipt, c: Case) -> str | None:
    """Why the case may carry no comparative label, or ``None`` (method, "Lift by case")."""
    if c.rubric_sha256 is None:
        return "no rubric hash is recorded for the case"
    if r.judge is None:
        return "no grader is recorded for the run"
    for n in COMPARED_ARMS:
        for d in getattr(c.arms, n).draws:
            if _lost(d):
                continue
            valid = [s for s in d.judge_samples if s.score is not None]
            if not valid:
                return f"{n.replace('_', '-')} draw {d.number} records no grader"
            for s in valid:
                if s.reported_model != r.judge.model or s.serving_model not in (
                    None,
                    r.judge.model,
                ):
                    return (
                        f"{n.replace('_', '-')} draw {d.number} was graded by another "
                        "or an unrecorded "
                        f"grader than the run's {r.judge.model}"
                    )
    return None


def _carrier_withheld(
    withheld: tuple[str, ...],
    suite_reason: str | None,
    included: list[tuple[Case, Band, Band]],
    case_withheld: dict[str, str | None],
) -> str | None:
    if withheld:
        return withheld[0]
    if suite_reason is not None:
        return "the suite lift is unavailable"
    if any(a.lost for _, w, b in included for a in (w, b)):
        return "lost draws prevent a carrier assertion"
    for c, _, _ in included:
        if case_withheld[c.id]:
            return f"case {c.id}: {case_withheld[c.id]}"
    if len(included) < 2:
        return "one included case: removing it leaves no lift to compare"
    return None


def _verdict(r: Receipt, c: Case) -> VerdictCode:
    assert r.judge is not None  # checked by _labels_withheld
    scale = (r.judge.scale.worst, r.judge.scale.best)
    # D-6: a = baseline band, b = with-skill band. Bands from draw scores only: legacy
    # judge samples cannot replace draw evidence ("Lift by case").
    a = arm_band(c.arms.baseline, "generation")
    b = arm_band(c.arms.with_skill, "generation")
    return case_verdict(a, b, case_id=c.id, scale=scale).verdict


def _unavailable(*reasons: str) -> Breakdown:
    return Breakdown(
        False, tuple(reasons), (), None, "the breakdown is unavailable", (), (), (), (), (), None
    )
