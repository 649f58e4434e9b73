"""``driftproof plan RECEIPT [--effect LIFT]``.

Draws per arm for a run that resolves the effect floor and calls a true lift of LIFT (default
1.5 × the floor), the chance that it does, calls and cost.

Exit status: 0 a plan was printed; 2 bad input or a refusal (an aggregates-only receipt).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from driftproof.cli._options import format_option
from driftproof.errors import ReceiptError, RefusalError
from driftproof.wording import DEFAULT_EFFECT

if TYPE_CHECKING:
    from driftproof.pages.plan import Plan


@click.command()
@click.argument("receipt", type=click.Path(path_type=Path))
@format_option(["json", "text"])
@click.option(
    "--effect",
    type=float,
    default=DEFAULT_EFFECT,
    show_default=True,
    help="The true lift (with skill − baseline, judge scale) the run should call.",
)
def plan(receipt: Path, fmt: str, effect: float) -> None:
    """Plan a full run from a pilot RECEIPT.

    From a pilot RECEIPT, the draws per arm for a run that resolves the 0.05 effect floor
    and calls a lift of EFFECT, with the chance that it does.
    """
    # deferred: start-up time (the page model loads numpy and the receipt model)
    from driftproof.pages.plan import plan_receipt
    from driftproof.receipt import read_receipt
    from driftproof.render.plan import plan_text

    try:
        p = plan_receipt(read_receipt(receipt), effect)
    except (ReceiptError, RefusalError) as exc:
        for line in exc.lines():
            click.echo(
                f"error: {receipt}: {line}" if isinstance(exc, RefusalError) else f"error: {line}",
                err=True,
            )
        raise SystemExit(2) from None
    click.echo(to_json(p) if fmt == "json" else plan_text(p), nl=False)


def to_json(p: Plan) -> str:
    """The plan as JSON with sorted keys."""
    from driftproof.render.plan import headline  # deferred: start-up time

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
        "effect": p.effect,
        "spread_level": p.level,
        "pooled_spread_level": p.pooled_level,
        "larger_pilot_draws": p.larger_pilot,
        "existence": None if p.existence is None else dataclasses.asdict(p.existence),
        "p_verdict": p.p_verdict,
        "verdict_trials": p.verdict_trials,
        "headline": headline(p),
        "undecided_cases": list(p.undecided_cases),
        "pilot_draws": p.pilot_draws,
        "pools": [
            None
            if q is None
            else {"cases": q.cases, "df": q.df, "p": q.p, "pooled": q.pooled, "sd": q.sd}
            for q in p.pools
        ],
        "cases": [
            {
                "case_id": c.case_id,
                "draws_needed": c.draws_needed,
                "no_draw_count": c.no_draw_count,
                "measured": list(c.measured),
                "spreads": None if c.spreads is None else list(c.spreads),
                "bounds": None if c.bounds is None else list(c.bounds),
                "p_verdict": c.p_verdict,
                "undecided": c.undecided,
                "pilot_draws": c.pilot_draws,
                "levels": None if c.levels is None else list(c.levels),
                "larger_pilot_draws": c.larger_pilot,
            }
            for c in p.cases
        ],
    }
    return json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
