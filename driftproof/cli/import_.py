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
    """Convert another tool's results into receipts (DECLARED: faithful, never a verdict).

    Exit status: 0 when every receipt is written; 2 when the source or the options are refused
    (nothing is written), or when standard output cannot be written once the receipts are (the
    error says they are written); 130 when interrupted by Ctrl-C or SIGTERM before the receipts
    are written (nothing is written); once they are, a stop says the command is complete.
    """
