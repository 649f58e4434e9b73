"""``driftproof plan RECEIPT``: draws per arm to resolve the effect floor, with calls and cost.

Exit status: 0 a plan was printed; 2 bad input or a refusal (an aggregates-only receipt).
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from driftproof.errors import ReceiptError, RefusalError
from driftproof.plan import Plan, plan_receipt
from driftproof.receipt import read_receipt
from driftproof.wording import EFFECT_FLOOR, NO_DRAW_COUNT_REACHES


@click.command()
@click.argument("receipt", type=click.Path(path_type=Path))
@click.option(
    "--format", "fmt", type=click.Choice(["json", "text"]), default="text", show_default=True
)
def plan(receipt: Path, fmt: str) -> None:
    """From a pilot RECEIPT, the draws per arm needed to resolve the 0.05 effect floor."""
    try:
        p = plan_receipt(read_receipt(receipt))
    except (ReceiptError, RefusalError) as exc:
        for line in exc.lines():
            click.echo(
                f"error: {receipt}: {line}" if isinstance(exc, RefusalError) else f"error: {line}",
                err=True,
            )
        raise SystemExit(2) from None
    click.echo(to_json(p) if fmt == "json" else to_text(p), nl=False)


def to_text(p: Plan) -> str:
    """The plan in plain words."""
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
            f"{p.draws_per_arm} draws per arm resolve the {EFFECT_FLOOR} effect floor, spreads "
            "held."
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
            f"  {c.case_id}: {n} (pilot measured {c.measured[0]} with skill, {c.measured[1]} "
            "baseline)"
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
    return "\n".join("".join(ch if ch.isprintable() else "?" for ch in x) for x in lines) + "\n"


def to_json(p: Plan) -> str:
    """The plan as JSON with sorted keys."""
    doc = {
        "draws_per_arm": p.draws_per_arm,
        "no_count_cases": list(p.no_count_cases),
        "unknown_cases": list(p.unknown_cases),
        "cases_disagree": p.cases_disagree,
        "sentence": p.sentence,
        "cases_needed": p.cases_needed,
        "arms": list(p.arms),
        "answer_calls": p.answer_calls,
        "judge_calls": p.judge_calls,
        "judge_usd": p.judge_usd,
        "cost_note": p.cost_note,
        "judge_usd_interactive": p.judge_usd_interactive,
        "judge_usd_batch": p.judge_usd_batch,
        "cases": [
            {
                "case_id": c.case_id,
                "draws_needed": c.draws_needed,
                "no_draw_count": c.no_draw_count,
                "measured": list(c.measured),
            }
            for c in p.cases
        ],
    }
    return json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
