"""``driftproof import <tool> …``: convert a neighbouring tool's results into receipts."""

from __future__ import annotations

import click

from driftproof.cli import import_formats

#: subcommand name -> its click command, one per tool (:mod:`.import_formats`).
SUBCOMMANDS: dict[str, click.Command] = {
    c.name: c for c in vars(import_formats).values() if isinstance(c, click.Command) and c.name
}


@click.group("import", commands=SUBCOMMANDS)
def import_group() -> None:
    """Convert another tool's results into receipts (DECLARED: faithful, never a verdict)."""
