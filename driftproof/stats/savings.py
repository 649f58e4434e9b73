"""Output-token savings of a skill arm against a reference arm (Report 001; D-16).

The arithmetic is caveman's ``evals/measure.py`` (commit 2144a12): per case 1 − skill ÷
reference tokens; across cases median, mean, min, max and ``statistics.stdev`` (n − 1); the
reference arms' own line 1 − Σcontrol ÷ Σbaseline. Savings are fractions (0.25 = 25% fewer
tokens; negative: the skill's answer was longer). A degenerate input gets no number (D-13): a
case whose reference has 0 tokens gets no saving and is listed in ``undefined`` (caveman counts
0.0), and one case gives no stdev (caveman prints 0).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from driftproof.receipt import Receipt
from driftproof.receipt._model import Case, Draw
from driftproof.wording import numeral

Reference = Literal["control", "baseline"]


@dataclass(frozen=True)
class Savings:
    """Savings of the skill arm against one reference arm, across cases.

    Attributes:
        reference_label: the source's name for the reference arm (e.g. ``__terse__``), if recorded.
        per_case: (case id, saving or None) in case order; None where the reference had 0 tokens.
        n: cases with a saving (the figures below are over these).
        undefined: ids of cases whose reference answer had 0 tokens (no saving).
        median, mean, min, max: of the per-case savings (fractions).
        stdev: sample standard deviation (``statistics.stdev``); None when n < 2.
        skill_tokens: total output tokens of the skill arm over all cases.
        reference_tokens: total output tokens of the reference arm over all cases.
    """

    reference: Reference
    reference_label: str | None
    per_case: tuple[tuple[str, float | None], ...]
    n: int
    undefined: tuple[str, ...]
    median: float | None
    mean: float | None
    min: float | None
    max: float | None
    stdev: float | None
    skill_tokens: int
    reference_tokens: int

    @property
    def of_totals(self) -> float | None:
        """1 − skill_tokens ÷ reference_tokens over all cases; None when the reference's is 0."""
        return 1 - self.skill_tokens / self.reference_tokens if self.reference_tokens else None


@dataclass(frozen=True)
class ArmSavings:
    """One skill arm's output-token savings (one receipt).

    Attributes:
        skill: the skill's name (``skill.name``).
        arm_label: the source's name for the skill arm (e.g. ``caveman``), if recorded.
        counted_by: who counted the tokens (``o200k_base``, ``provider`` or ``source``).
        vs_control: against the control arm (the honest delta); None when the receipt has none.
        vs_baseline: against the baseline arm.
        control_vs_baseline: 1 − Σcontrol ÷ Σbaseline, what the terse instruction alone saves
            (a ratio of totals, as caveman prints it); None without a control arm or when
            the baseline total is 0.
        baseline_tokens: total baseline output tokens.
        control_tokens: total control output tokens; None without a control arm.
    """

    skill: str
    arm_label: str | None
    counted_by: str
    vs_control: Savings | None
    vs_baseline: Savings
    control_vs_baseline: float | None
    baseline_tokens: int
    control_tokens: int | None


def savings(
    case_ids: Sequence[str],
    skill_tokens: Sequence[int],
    reference_tokens: Sequence[int],
    *,
    reference: Reference,
    reference_label: str | None = None,
) -> Savings:
    """Per-case savings 1 − skill ÷ reference output tokens and their summary.

    Raises:
        ValueError: the three sequences differ in length, are empty, or hold a negative count.
    """
    if not (len(case_ids) == len(skill_tokens) == len(reference_tokens)) or not case_ids:
        raise ValueError(
            "savings need one skill and one reference count per case, and at least one case"
        )
    if any(t < 0 for t in (*skill_tokens, *reference_tokens)):
        raise ValueError("token counts must be non-negative")
    per_case = tuple(
        (cid, 1 - s / r if r else None)
        for cid, s, r in zip(case_ids, skill_tokens, reference_tokens, strict=True)
    )
    values = [v for _, v in per_case if v is not None]
    return Savings(
        reference=reference,
        reference_label=reference_label,
        per_case=per_case,
        n=len(values),
        undefined=tuple(cid for cid, v in per_case if v is None),
        median=statistics.median(values) if values else None,
        mean=statistics.mean(values) if values else None,
        min=min(values) if values else None,
        max=max(values) if values else None,
        stdev=statistics.stdev(values) if len(values) > 1 else None,
        skill_tokens=sum(skill_tokens),
        reference_tokens=sum(reference_tokens),
    )


def token_savings(receipts: Sequence[Receipt]) -> list[ArmSavings]:
    """Each receipt's skill arm against its control and baseline arms.

    Raises:
        ValueError: a receipt has no cases, an arm of a case does not have exactly one draw
            with an output token count (caveman's imports: one call per prompt × arm), or the
            counts come from different counters; the message names the skill, case and arm.
    """
    return [_arm_savings(r) for r in receipts]


def _one_draw(case: Case, name: str) -> Draw | None:
    """The one draw of ``case``'s arm ``name``; ``None`` when the arm holds none or several."""
    arm = getattr(case.arms, name)
    return arm.draws[0] if arm is not None and len(arm.draws) == 1 else None


def _arm_savings(r: Receipt) -> ArmSavings:
    if not r.cases:
        raise ValueError(f"{r.skill.name}: the receipt has no cases")
    names = r.arm_names
    counts: dict[str, list[int]] = {n: [] for n in names}
    counters: set[str] = set()
    for case in r.cases:
        for name in names:
            d = _one_draw(case, name)
            if d is None or d.tokens is None or d.tokens.output is None:
                raise ValueError(
                    f"{r.skill.name}: case {case.id}, arm {name}: expected one draw "
                    "with an output token count"
                )
            counts[name].append(d.tokens.output)
            counters.add(d.tokens.counted_by)
    if len(counters) != 1:
        raise ValueError(
            f"{r.skill.name}: token counts come from different counters {sorted(counters)}"
        )
    ids, skill = [c.id for c in r.cases], counts["with_skill"]
    control = r.arms.control
    base_total = sum(counts["baseline"])
    control_total = sum(counts["control"]) if control is not None else None

    def against(ref: Reference, label: str | None) -> Savings:
        return savings(ids, skill, counts[ref], reference=ref, reference_label=label)

    return ArmSavings(
        skill=r.skill.name,
        arm_label=r.arms.with_skill.label,
        counted_by=counters.pop(),
        vs_control=None if control is None else against("control", control.label),
        vs_baseline=against("baseline", r.arms.baseline.label),
        control_vs_baseline=(
            1 - control_total / base_total if control_total is not None and base_total else None
        ),
        baseline_tokens=base_total,
        control_tokens=control_total,
    )


@dataclass(frozen=True)
class UsageVsControl:
    """caveman's ``measure.py`` usage table: Claude's own counts against the terse control.

    Attributes:
        output: the skill arm's output tokens against the control's, per case and summarised
            (:func:`savings`; Claude's count includes thinking tokens).
        input_added_median: ``statistics.median`` over cases of the skill arm's billed input −
            the control's; billed input is input + cache-creation + cache-read tokens.
        cost_usd: arm name → the sum of its draws' reported cost in US dollars; ``None`` when a
            draw's cost was not reported.
    """

    output: Savings
    input_added_median: float
    cost_usd: dict[str, float | None]


def usage_vs_control(r: Receipt) -> UsageVsControl:
    """The usage table of a receipt with the provider's own counts, one draw per case and arm.

    Raises:
        ValueError: the receipt has no control arm or no cases, or an arm of a case does not hold
            exactly one draw with the provider's input and output counts (a lost draw, a count
            by another counter); the message names the case and the arm.
    """
    if r.arms.control is None or not r.cases:
        raise ValueError("the usage table needs a control arm and at least one case")
    tokens: dict[str, list[tuple[int, int]]] = {"with_skill": [], "baseline": [], "control": []}
    costs: dict[str, list[float | None]] = {n: [] for n in tokens}
    for case in r.cases:
        for name in tokens:
            d = _one_draw(case, name)
            t = d.tokens if d is not None else None
            if (
                d is None
                or t is None
                or t.counted_by != "provider"
                or t.input is None
                or t.output is None
            ):
                raise ValueError(
                    f"case {case.id}, arm {name}: expected one draw with the provider's "
                    "input and output token counts"
                )
            tokens[name].append((t.input, t.output))
            costs[name].append(d.cost_usd)
    ids = [c.id for c in r.cases]
    added = [s[0] - c[0] for s, c in zip(tokens["with_skill"], tokens["control"], strict=True)]
    return UsageVsControl(
        output=savings(
            ids,
            [o for _, o in tokens["with_skill"]],
            [o for _, o in tokens["control"]],
            reference="control",
            reference_label=r.arms.control.label,
        ),
        input_added_median=statistics.median(added),
        cost_usd={
            n: None if any(x is None for x in xs) else sum(x for x in xs if x is not None)
            for n, xs in costs.items()
        },
    )


def percent(x: float | None, *, signed: bool = True) -> str:
    """A saving as caveman prints it: ``+25%``, ``−12%`` (U+2212 minus), whole percents.

    With ``signed=False`` (caveman's stdev column) the sign is left out: ``27%``.
    ``None`` prints as ``n/a``.
    """
    if x is None:
        return "n/a"
    if not signed:
        return f"{x * 100:.0f}%"
    return numeral(x * 100, "+.0f") + "%"
