"""``driftproof validate FILE…``: schema (D-11), seal (D-12) and level, one line per problem.

A file that passes gets one ``ok`` line (version, level, what a verdict reader makes of it);
one that fails a line per problem naming file, JSON pointer and expectation. Exit 2 when a file
cannot be read or is not JSON (bad input, as every command), else 1 when a receipt fails.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from driftproof.cli._options import fit_terminal
from driftproof.errors import ReceiptError
from driftproof.wording import SMOKE_RUN

if TYPE_CHECKING:
    from driftproof.receipt import Receipt


def verdict_note(r: Receipt) -> str:
    """What a reader of a verdict makes of a valid receipt: :func:`~driftproof.stats.no_verdict`."""
    from driftproof.stats import Refusal, no_verdict  # deferred: start-up time of --help

    refused = no_verdict(r)
    if refused is None:
        return "can carry a verdict"
    how = "run --quick" if r.run.preset == "quick" else f"the smoke preset {r.run.preset!r}"
    words = {
        Refusal.SMOKE_RUN: f"a smoke run ({how}), read as below TESTED whatever its level "
        f"({SMOKE_RUN})",
        Refusal.AGGREGATES_ONLY: "aggregates only: no band, no lift, no verdict",
        Refusal.NOT_MEASURED: refused.reason,  # "not measured: …" (D-17)
    }
    return words.get(refused.refusal, f"no verdict: {refused.reason}")


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
def validate(files: tuple[Path, ...]) -> None:
    """Check receipts against their own schema version, seal and level.

    Exit status: 0 every receipt passes; 1 a receipt fails; 2 a file cannot be read or is not
    JSON.
    """
    from driftproof.receipt import CURRENT_VERSION, read_receipt_json, receipt_from_json
    from driftproof.render.escape import terminal_safe  # deferred: start-up time of --help

    failed, unread = 0, 0
    for f in files:
        try:
            doc = None  # not yet read
            doc = read_receipt_json(f)
            r = receipt_from_json(doc, str(f))
        except ReceiptError as exc:
            failed, unread = failed + (doc is not None), unread + (doc is None)
            for line in exc.lines():
                click.echo(fit_terminal(terminal_safe(line)))
            continue
        version = f"schema {r.schema_version}"
        if r.is_migrated:
            version += f" (read into {CURRENT_VERSION}: what it did not record is unknown)"
        line = (
            f"{terminal_safe(str(f))}: ok: {version}, seal {r.seal.sha256[:12]}…, "
            f"level {r.verification_level}; {terminal_safe(verdict_note(r))}"
        )
        click.echo(fit_terminal(line))
    n = len(files)
    said = [f"{unread} of {n} files could not be read as JSON"] if unread else []
    said += [f"{failed} of {n} receipts failed"] if failed else []
    if said:
        click.echo("; ".join(said), err=True)
        raise SystemExit(2 if unread else 1)
