"""``driftproof view RECEIPT``: the receipt sheet (:mod:`driftproof.pages.sheet`) printed."""

from __future__ import annotations

from pathlib import Path

import click

from driftproof.cli._options import JSON_REFUSED, format_option, terminal_width


@click.command()
@click.argument("receipt", type=click.Path(path_type=Path))
@format_option(["text", "markdown", "json"], help=JSON_REFUSED)
@click.option(
    "--margin",
    type=float,
    metavar="M",
    help="For a skill that saves output tokens: say whether its quality is worse than the "
    "other arm's by no more than M (0 to 1, on the judge's scale or the checks' pass rate). "
    "Used when the receipt declares no margin; the sheet then says the margin was declared "
    "when reading, not before the run.",
)
def view(receipt: Path, fmt: str, margin: float | None) -> None:
    """Show a receipt's sheet: provenance, reading, cases, lift, grading cost, lift breakdown.

    Exit status: 0 when the sheet is printed, whatever the reading; 2 when the receipt cannot be
    read or is invalid, or an option is wrong (nothing is printed then).
    """
    from driftproof.pages.sheet import sheet  # deferred: start-up time of --help
    from driftproof.receipt import read_receipt
    from driftproof.render.sheet import sheet_json, sheet_markdown, sheet_text

    r = read_receipt(receipt)
    try:
        page = sheet(r, path=receipt, margin=margin)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--margin") from None
    if fmt == "text":
        click.echo(sheet_text(page, terminal_width()), nl=False)
        return
    click.echo({"markdown": sheet_markdown, "json": sheet_json}[fmt](page), nl=False)
