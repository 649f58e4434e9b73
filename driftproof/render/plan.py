"""``driftproof plan``'s plan in plain words: the draws per arm that resolve the effect floor,
the cases that no count reaches or that have no spread, calls and grading cost."""

from __future__ import annotations

from driftproof.plan import Plan
from driftproof.render.escape import terminal_safe
from driftproof.wording import EFFECT_FLOOR, NO_DRAW_COUNT_REACHES

__all__ = ["plan_text"]


def plan_text(p: Plan) -> str:
    """The plan in plain words; every line (a case id is the receipt's text) passed through
    :func:`~driftproof.render.escape.terminal_safe`."""
    if p.draws_per_arm is None and p.unknown_cases and not p.no_count_cases:
        head = (
            f"Unknown: no case has two measured draws in both arms, so there is no spread to hold "
            f"and no draw count can be worked out for the {EFFECT_FLOOR} effect floor."
        )
    elif p.draws_per_arm is None and p.unknown_cases:
        head = (
            f"No draw count resolves the {EFFECT_FLOOR} effect floor for the cases with a spread; "
            "the others have none to hold (unknown)."
        )
    elif p.draws_per_arm is None:
        head = f"No draw count resolves the {EFFECT_FLOOR} effect floor for any case."
    else:
        head = (
            f"{p.draws_per_arm} draws per arm resolve the {EFFECT_FLOOR} effect floor, "
            "spreads held."
        )
    lines = [head]
    if p.no_count_cases:
        lines.append(f"{NO_DRAW_COUNT_REACHES}: " + ", ".join(p.no_count_cases))
    if p.unknown_cases:
        lines.append(
            "an arm has fewer than two measured draws, no spread to hold: "
            + ", ".join(p.unknown_cases)
        )
    if p.sentence:
        lines.append(f"The cases disagree: {p.sentence}")
        if p.cases_needed is not None:
            lines.append(
                f"  {p.cases_needed} cases would bring the receipt-wide band's standard error "
                f"(band ÷ √cases) under {EFFECT_FLOOR}, the spread across cases held."
            )
    for c in p.cases:
        n = (
            str(c.draws_needed)
            if c.draws_needed is not None
            else ("none" if c.no_draw_count else "unknown")
        )
        lines.append(
            f"  {c.case_id}: {n} (pilot measured {c.measured[0]} with skill, "
            f"{c.measured[1]} baseline)"
        )
    if p.answer_calls is not None:
        judge = (
            str(p.judge_calls)
            if p.judge_calls is not None
            else "unknown (judge samples per answer not recorded)"
        )
        lines.append(
            f"Calls: {p.answer_calls} answers over {len(p.cases)} cases × {len(p.arms)} arms; "
            f"judge calls {judge}."
        )
    cost = f"${p.judge_usd:.2f}" if p.judge_usd is not None else "unknown"
    lines.append(f"Estimated grading cost: {cost} ({p.cost_note}).")
    if p.judge_usd_interactive is not None and p.judge_usd_batch is not None:
        lines.append(
            f"Grading cost by price tier: interactive ${p.judge_usd_interactive:.2f}, "
            f"batch ${p.judge_usd_batch:.2f} (run --batch: half the price, finished within 24 h, "
            "not minutes)."
        )
    return "\n".join(terminal_safe(x) for x in lines) + "\n"
