"""``driftproof export summary-json RECEIPT``: a receipt as the minimal interchange format.

The lift is kept with its sign as context; the format is
``driftproof/importers/summary-json-1.schema.json``.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from driftproof.cli._options import FILE, fit_terminal
from driftproof.errors import RefusalError
from driftproof.outputs import refuse_existing_output, refuse_output_on_input, write_all_or_none


@click.group("export")
def export() -> None:
    """Write a receipt in another format."""


@export.command("summary-json", short_help="RECEIPT as summary-json, the lift as context.")
@click.argument("receipt", type=FILE)
@click.option(
    "-o",
    "--out",
    "--output",
    "output",
    type=FILE,
    help="File to write (default: standard output). Written whole or not at all; never replaced "
    "without --force.",
)
@click.option("--force", is_flag=True, help="Replace an existing --out file.")
def summary_json(receipt: Path, output: Path | None, force: bool) -> None:
    """RECEIPT as summary-json: each draw's score, whether the skill fired, why a draw was lost.

    The suite lift goes with them as context. Answers are not written. A simulated or stub run,
    an aggregates-only receipt, an A/A calibration, a regrade of an import that named no
    harness, and one answer per arm judged several times or with no score are refused.
    """
    from driftproof.importers.summary_json import export_summary_json  # deferred: start-up
    from driftproof.pages.tables import json_text
    from driftproof.receipt import read_receipt
    from driftproof.render.escape import terminal_safe

    if output is not None:
        refuse_output_on_input(output, "--out", receipt=receipt)
        refuse_existing_output(output, "--out", force=force)
    try:
        data = export_summary_json(read_receipt(receipt))
    except RefusalError as exc:  # about the receipt as a whole: it names the file
        raise RefusalError(f"{receipt}: {exc}") from None
    text = json_text(data)  # invisible and bidirectional characters as \u escapes
    if output is None:
        click.echo(text, nl=False)
        return
    try:  # a temporary sibling of its own: a user's <out>.tmp is left alone
        write_all_or_none({output: lambda p: p.write_bytes(text.encode("utf-8"))}, replace=force)
    except OSError as exc:
        raise RefusalError(f"{exc.filename}: cannot write: {exc.strerror or exc}") from None
    shown = terminal_safe(str(output))  # a path is untrusted text
    click.echo(f"wrote {shown}")
    click.echo(
        fit_terminal(
            f"Give {shown} to a harness or tool that reads summary-json (the format: the site's "
            'interoperability page, "summary-json"); driftproof import summary-json '
            f"{terminal_safe(shlex.quote(str(output)))} reads it back as a DECLARED receipt."
        )
    )
