"""``driftproof view RECEIPT``: the receipt sheet as text, Markdown or JSON.

The command reads the receipt, builds its page model (:func:`driftproof.pages.sheet.sheet`) and
prints it with :mod:`driftproof.render.sheet`; it computes and lays out nothing itself.
:func:`render_breakdown` is the entry point ``driftproof diff --lift-breakdown`` uses.
The printers are re-exported here under their older names.
"""

from __future__ import annotations

from pathlib import Path

import click

from driftproof.cli._options import format_option
from driftproof.pages.sheet import receipt_breakdown, sheet
from driftproof.receipt import Receipt, read_receipt
from driftproof.render.escape import terminal_safe
from driftproof.render.sheet import FIGURES_TITLE, Format, breakdown_document
from driftproof.render.sheet import sheet_json as render_json
from driftproof.render.sheet import sheet_markdown as render_markdown
from driftproof.render.sheet import sheet_text as render_text

__all__ = [
    "FIGURES_TITLE",
    "render_breakdown",
    "render_json",
    "render_markdown",
    "render_text",
    "terminal_safe",
    "view",
]

_PRINTERS = {"text": render_text, "markdown": render_markdown, "json": render_json}


@click.command()
@click.argument("receipt", type=click.Path(path_type=Path))
@format_option(["text", "markdown", "json"], "Output format.")
@click.option(
    "--margin",
    type=float,
    default=None,
    help="Read quality at this non-inferiority margin (0 to 1) when the receipt declares none; "
    "the sheet says it was declared when reading, not before the run.",
)
def view(receipt: Path, fmt: Format, margin: float | None) -> None:
    """Show a receipt's sheet: provenance, reading, cases, lift, grading cost, lift breakdown."""
    r = read_receipt(receipt)
    try:
        page = sheet(r, path=receipt, margin=margin)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--margin") from None
    click.echo(_PRINTERS[fmt](page), nl=False)


def render_breakdown(
    r: Receipt, *, name: str | None = None, path: Path | None = None, fmt: Format = "text"
) -> str:
    """One receipt's lift breakdown, as ``diff --lift-breakdown`` prints it after the diff.

    Args:
        r: the receipt. name: how to title it (e.g. the file name).
        path: the receipt file, whose size decides the size limit.
        fmt: ``text``, ``markdown`` or ``json`` (a JSON object, no trailing newline).

    Raises:
        OSError: ``path`` is given and cannot be read (stat).
    """
    return breakdown_document(receipt_breakdown(r, path=path), name=name, fmt=fmt)
