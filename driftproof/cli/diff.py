"""``driftproof diff A.json B.json``: compare two receipts case by case.

Exit status: 0 no case regressed; 1 a case regressed; 2 bad input; 5 no verdict.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from driftproof.cli import fail
from driftproof.cli._options import GIVEN_PATH, format_option, path_option, terminal_width
from driftproof.errors import ReceiptError

if TYPE_CHECKING:
    from driftproof.render.sheet import Format


@click.command()
@click.argument("a", type=GIVEN_PATH)
@click.argument("b", type=GIVEN_PATH)
@format_option(
    ["json", "markdown", "text"],
    help="Output format. With json, input refused prints nothing on standard output (the "
    "error is on standard error, exit status 2); a comparison with no verdict is printed, exit "
    "status 5.",
)
@click.option(
    "--lift-breakdown",
    is_flag=True,
    help='Add each receipt\'s lift breakdown (method, "Reading the lift breakdown") after the '
    "comparison.",
)
@path_option(
    "--aa",
    "aa_path",
    help="An A/A calibration receipt (run --aa) of the same skill and suite, answered and judged "
    "by the same models, to cite beside the verdicts: how many changes noise alone calls at its "
    "spreads.",
)
def diff(a: Path, b: Path, fmt: Format, lift_breakdown: bool, aa_path: Path | None) -> None:
    """Compare receipt A (earlier) with receipt B (later), case by case.

    Each case's with-skill bands are compared: a change is called only when the
    bands are apart and the means move by at least the 0.05 effect floor.
    Exit status: 0 no case regressed; 1 a case regressed; 2 bad input (a receipt that cannot be
    read, a wrong option); 5 the receipts were read but a side gets no verdict (below TESTED, a
    smoke run, an import, aggregates only), they were graded by different judges or no case is
    in both, so nothing was decided.
    """
    # deferred: start-up time of --help
    from driftproof.pages.badge import tested_how
    from driftproof.pages.comparison import compare_receipts, exit_status
    from driftproof.pages.sheet import receipt_breakdown
    from driftproof.receipt import read_receipt
    from driftproof.render.comparison import comparison_json as to_json
    from driftproof.render.comparison import comparison_markdown as to_markdown
    from driftproof.render.comparison import comparison_text as to_text
    from driftproof.render.comparison import with_aa, with_breakdowns
    from driftproof.stats.aa import aa_problem, aa_reading

    try:
        ra, rb = read_receipt(a), read_receipt(b)
        raa = read_receipt(aa_path) if aa_path is not None else None
    except ReceiptError as exc:  # printed here: the command may run alone
        fail(exc.lines())
    problem = None if raa is None else aa_problem(str(aa_path), raa, ((str(a), ra), (str(b), rb)))
    if problem is not None:
        fail([problem])
    comparison = compare_receipts(ra, rb, a_name=str(a), b_name=str(b), false_alarms=True)
    width = terminal_width() if fmt == "text" else None
    if fmt == "text":
        output = to_text(comparison, width)
    else:
        output = {"markdown": to_markdown, "json": to_json}[fmt](comparison)
    if lift_breakdown:  # without the flag the output is unchanged (method, "Lift by case")
        views = [(str(p), receipt_breakdown(r, path=p)) for p, r in ((a, ra), (b, rb))]
        output = with_breakdowns(output, fmt, views, width)
    if raa is not None:
        output = with_aa(output, fmt, str(aa_path), aa_reading(raa), width)
    how = tested_how(ra, rb) if fmt != "json" else None  # JSON: its refusals say why
    click.echo(output + (f"\n{how}\n" if how else ""), nl=False)
    # not ctx.exit: the console entry runs click with standalone_mode=False, which drops it
    raise SystemExit(exit_status(comparison))
