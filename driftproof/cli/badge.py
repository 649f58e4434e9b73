"""``driftproof badge RECEIPT``: the receipt's badge as shields.io endpoint JSON, SVG, details."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import click

from driftproof.cli import written_by
from driftproof.cli._options import FILE, already_there, fit_terminal
from driftproof.outputs import (
    STAGED_EXTRA,
    append_github_output,
    holds,
    refuse_existing_outputs,
    refuse_long_name,
    same_path,
    write_all_or_none,
)
from driftproof.wording import said_once

if TYPE_CHECKING:
    from driftproof.receipt import Receipt


class _WriteError(click.ClickException):
    """An output file cannot be written; nothing was (exit status 2, as for bad input)."""

    exit_code = 2


def _check_targets(receipt: Path, paths: list[Path]) -> None:
    """Refuse an output that is the receipt itself (``--out`` beside it) or named twice."""
    for i, path in enumerate(paths):
        if same_path(path, receipt):
            raise click.UsageError(
                f"{path}: this output would overwrite the receipt being read; "
                "give another --out directory or another file name"
            )
        if any(same_path(path, other) for other in paths[:i]):
            raise click.UsageError(f"{path}: named for two outputs; give each output its own file")


def _write_all(files: dict[Path, bytes], label: str, *, replace: bool) -> int:
    """Write every file or none (:func:`~driftproof.outputs.write_all_or_none`), or _WriteError.

    Without ``replace`` a file already there with the same bytes (a killed badge's) is kept.
    Returns how many were so kept. SIGINT and SIGTERM wait until they are counted as written
    (:func:`~driftproof.cli.written_by`).
    """
    there = 0 if replace else sum(p.exists() for p in files)
    try:
        written_by(
            "badge file",
            write_all_or_none,
            {path: partial(Path.write_bytes, data=data) for path, data in files.items()},
            replace=replace,
            option=label,
        )
    except OSError as exc:
        where = exc.filename or next(iter(files))
        raise _WriteError(
            f"{where}: cannot write: {exc.strerror or exc}; no badge file was written"
        ) from None
    return there


def _name_shown(receipt: Path, name: str, *, every_path: bool) -> None:
    """Refuse (usage error) a receipt ``name`` that --out-dir files take holding a hidden character.

    ``every_path``: each file is named by a path given, so ``name`` names none.
    """
    from driftproof.render.escape import terminal_safe

    if not name.isprintable() and not every_path:
        raise click.UsageError(
            f"{terminal_safe(str(receipt))}: the receipt's file name holds a character that "
            "cannot be shown, and --out-dir names badge files after it; rename the receipt, "
            "or give --json, --svg and --details"
        )


def _say_reading(r: Receipt) -> None:
    """Print ``r``'s badge reading, then for a regrade's receipt which receipt it regrades."""
    from driftproof.pages.badge import badge_reading, tested_how
    from driftproof.pages.results import regrade_words
    from driftproof.render.escape import terminal_safe

    b = badge_reading(r)
    reading = said_once(b.message, b.reason) if b.refusal and not b.smoke else b.message
    click.echo(fit_terminal(terminal_safe(reading)))
    if regraded := regrade_words(r):  # as the results page's row says it
        click.echo(fit_terminal(regraded))
    if how := tested_how(r):
        click.echo(fit_terminal(how))


@click.command()
@click.argument("receipt", type=FILE)
@click.option(
    "--out-dir",
    "--out",
    "out_dir",
    type=click.Path(path_type=Path, file_okay=False),
    help=(
        "Folder for <name>.json, <name>.details.json and <name>.svg (--out is its older spelling)."
    ),
)
@click.option("--json", "json_path", type=FILE, help="Path of the shields.io endpoint JSON.")
@click.option("--svg", "svg_path", type=FILE, help="Path of the SVG.")
@click.option(
    "--details",
    "details_path",
    type=FILE,
    help="Path of the details JSON (lift kept with its sign as context).",
)
@click.option(
    "--github-output",
    is_flag=True,
    help="Append reading, message, color, lift and value-per-1k (n/a for a smoke run), and "
    "draws-needed to $GITHUB_OUTPUT.",
)
@click.option("--force", is_flag=True, help="Replace badge files that already exist.")
def badge(
    receipt: Path,
    out_dir: Path | None,
    json_path: Path | None,
    svg_path: Path | None,
    details_path: Path | None,
    github_output: bool,
    force: bool,
) -> None:
    """Write the badge of RECEIPT as endpoint JSON, SVG and details.

    The badge reads passing, regressed, UNDERPOWERED, no separation detected, or no verdict (a
    smoke run reads "Smoke run, no verdict"; a run that measured no case in both arms, "not
    measured").

    Prints the reading (for a regrade's receipt, then which receipt it regrades), then "wrote
    PATH" for each badge file written.

    Exit status: 0 when the files were written, whatever the reading; 2 when the receipt is
    unreadable or invalid, a badge file already exists with other content and --force is not
    given, or the options are wrong (nothing is written then), or a standard output that cannot
    be written once the files are (the error says they are written); 130 when interrupted by
    Ctrl-C or SIGTERM before the files are written (nothing is written); once they are, a stop
    says the command is complete.
    """
    # deferred: start-up time of --help
    from driftproof.pages.badge import (
        badge_svg,
        details_json,
        endpoint_json,
        json_bytes,
        workflow_outputs,
    )
    from driftproof.receipt import read_receipt

    if out_dir is None and not (json_path or svg_path or details_path or github_output):
        raise click.UsageError(
            "give --out-dir DIR, or at least one of --json/--svg/--details/--github-output"
        )
    gh_path: Path | None = None
    if github_output:
        env = os.environ.get("GITHUB_OUTPUT")
        if not env:
            raise click.UsageError("--github-output needs the GITHUB_OUTPUT environment variable")
        gh_path = Path(env)
    r = read_receipt(receipt)
    name = receipt.name.removesuffix(".json")
    files: dict[Path, bytes] = {}
    if out_dir is not None:
        _name_shown(receipt, name, every_path=bool(json_path and svg_path and details_path))
        json_path = json_path or out_dir / f"{name}.json"
        svg_path = svg_path or out_dir / f"{name}.svg"
        details_path = details_path or out_dir / f"{name}.details.json"
    if json_path is not None:
        files[json_path] = json_bytes(endpoint_json(r))
    if details_path is not None:
        files[details_path] = json_bytes(details_json(r, name))
    if svg_path is not None:
        files[svg_path] = badge_svg(r).encode("utf-8")
    named = (json_path, details_path, svg_path, gh_path)
    _check_targets(receipt, [p for p in named if p is not None])
    label = "--out-dir" if out_dir is not None else "--json/--svg/--details"
    refuse_existing_outputs(list(files), label, force=force, same=lambda p: holds(p, files[p]))
    for path in files:  # each is written through a temporary copy beside it, as run's receipt
        refuse_long_name(path, label, STAGED_EXTRA)
    if gh_path is not None and gh_path.is_dir():
        raise _WriteError(
            f"{gh_path}: $GITHUB_OUTPUT names a directory; expected a file to append to"
        )
    if gh_path is not None:  # first: its failure leaves no badge file written
        try:
            append_github_output(gh_path, workflow_outputs(r))
        except OSError as exc:
            raise _WriteError(
                f"{gh_path}: cannot append to $GITHUB_OUTPUT: {exc.strerror or exc}"
            ) from None
    same = _write_all(files, label, replace=force)
    _say_reading(r)
    _say_written(list(files), json_path, same)


def _say_written(files: list[Path], endpoint: Path | None, same: int) -> None:
    """``wrote PATH`` for each of ``files``, how many were already there, how to show the JSON."""
    from driftproof.render.escape import terminal_safe  # a file name is untrusted text

    for path in files:
        click.echo(fit_terminal(f"wrote {terminal_safe(str(path))}"))
    if same:
        click.echo(fit_terminal(already_there(same, len(files))))
    if endpoint is not None:
        click.echo(fit_terminal(embed_how(terminal_safe(endpoint.name))))


def embed_how(name: str) -> str:
    """How to show the endpoint JSON ``name`` as a badge: shields.io's endpoint badge URL."""
    return (
        f"To show the badge, publish {name} at a public address and embed the image "
        "https://img.shields.io/endpoint?url=ADDRESS (ADDRESS URL-encoded): shields.io draws it "
        "from the file, so it follows each new file published there."
    )
