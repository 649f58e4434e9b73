"""``driftproof validate FILE…``: schema, seal and level, one line per problem."""

from __future__ import annotations

from pathlib import Path

import click

from driftproof.errors import ReceiptError
from driftproof.receipt import read_receipt


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
def validate(files: tuple[Path, ...]) -> None:
    """Check receipts against their schema version and seal; exit 1 if any fails."""
    failed = 0
    for f in files:
        try:
            r = read_receipt(f)
        except ReceiptError as exc:
            failed += 1
            for line in exc.lines():
                click.echo(line)
            continue
        smoke = " (smoke run: counts as below TESTED)" if r.is_smoke else ""
        click.echo(f"{f}: ok, schema {r.schema_version}, level {r.verification_level}{smoke}")
    if failed:
        raise SystemExit(1)
