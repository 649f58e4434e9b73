"""``driftproof plan RECEIPT [--effect LIFT]``: exit 0 with a plan, 2 on bad input or a refusal."""

from __future__ import annotations

from pathlib import Path

import click

from driftproof.cli import fail
from driftproof.cli._options import (
    GIVEN_PATH,
    JSON_REFUSED,
    FiniteRange,
    format_option,
    terminal_width,
)
from driftproof.errors import ReceiptError, RefusalError
from driftproof.wording import DEFAULT_EFFECT, EFFECT_FLOOR


@click.command()
@click.argument("receipt", type=GIVEN_PATH)
@format_option(["json", "text"], help=JSON_REFUSED)
@click.option(
    "--effect",
    type=FiniteRange(EFFECT_FLOOR, 1.0),
    default=DEFAULT_EFFECT,
    show_default=True,
    help="The true lift (with skill − baseline, judge scale) the run should call: from the "
    "0.05 effect floor (a smaller lift is never called a change) to 1.",
)
def plan(receipt: Path, fmt: str, effect: float) -> None:
    """Plan a full run from a pilot RECEIPT.

    From a pilot RECEIPT, the draws per arm for a run that resolves the 0.05 effect floor
    and calls a lift of EFFECT, with the chance that it does.

    Exit status: 0 with a plan (a case with fewer than two measured answers in an arm reads
    unknown); 2 on bad input, or a receipt no plan can be made from: among them one where no
    case has two measured answers in both arms, run or imported (one answer per arm).
    """
    # deferred: start-up time (the page model loads numpy and the receipt model)
    from driftproof.pages.plan import plan_receipt
    from driftproof.receipt import read_receipt
    from driftproof.render.plan import plan_json, plan_text

    try:
        p = plan_receipt(read_receipt(receipt), effect)
    except (ReceiptError, RefusalError) as exc:  # printed here: the command may run alone
        named = f"{receipt}: " if isinstance(exc, RefusalError) else ""
        fail(named + line for line in exc.lines())
    click.echo(plan_json(p) if fmt == "json" else plan_text(p, terminal_width()), nl=False)
