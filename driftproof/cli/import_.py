"""``driftproof import <tool> …``: convert a neighbouring tool's results into receipts.

Subcommands load lazily from :data:`SUBCOMMANDS` (``"<tool>": "<module>:<click command>"``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from driftproof.cli._lazy import LazyGroup
from driftproof.cli._options import FILE

#: subcommand name -> "module:attribute" of its click command.
SUBCOMMANDS: dict[str, str] = {
    "caveman": "driftproof.cli.import_:caveman",
    "skill-creator": "driftproof.cli.import_formats:skill_creator",
    "nvidia": "driftproof.cli.import_formats:nvidia",
    "promptfoo": "driftproof.cli.import_formats:promptfoo",
    "inspect": "driftproof.cli.import_formats:inspect",
    "summary-json": "driftproof.cli.import_formats:summary_json",
    "claude-plugin-eval": "driftproof.cli.import_formats:claude_plugin_eval",
    "openai-evals": "driftproof.cli.import_formats:openai_evals",
    "skill-validator": "driftproof.cli.import_formats:skill_validator",
    "vally": "driftproof.cli.import_formats:vally",
    "skill-eval-harness": "driftproof.cli.import_formats:skill_eval_harness",
}


@click.group("import", cls=LazyGroup, lazy={n: (t, None) for n, t in SUBCOMMANDS.items()})
def import_group() -> None:
    """Convert another tool's results into receipts (DECLARED: faithful, never a verdict)."""


#: ``--force``: replace receipts that already exist (without it, an existing file is refused, exit
#: 2).
FORCE = click.option(
    "--force", is_flag=True, help="Replace receipts that already exist in --out-dir."
)
#: ``--out-dir``: the folder the receipts go into (``--out`` is its older spelling; in every
#: other command ``--out`` names one file).
OUT_DIR = click.option(
    "--out-dir",
    "--out",
    "out_dir",
    default=Path("receipts"),
    show_default=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Folder the receipts are written to (--out is its older spelling).",
)


@click.command("caveman")
@click.argument("snapshot", type=FILE)
@click.option(
    "--skills",
    "skills_dir",
    required=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="skills/ directory as it was when the snapshot ran (<arm>/SKILL.md).",
)
@OUT_DIR
@FORCE
@click.option(
    "--source-commit",
    default=None,
    help="caveman git commit the files were read at (names the files, recorded as tool_version).",
)
@click.option(
    "--cases",
    "cases",
    default=None,
    type=FILE,
    help="caveman's evals/prompts/fidelity.json: read SNAPSHOT as the fidelity eval and score "
    "it against these cases' checks.",
)
@click.option(
    "--rubrics",
    "rubrics",
    default=None,
    type=FILE,
    help="caveman's evals/prompts/rubrics.json, for a judged fidelity snapshot (each fact "
    "judged by a model): the snapshot must match its prompts and facts.",
)
def caveman(snapshot: Path, out_dir: Path, force: bool, **options: Any) -> None:
    """Import caveman's snapshot: one receipt per skill arm.

    Reads evals/snapshots/results.json (or results.partial.json, or with --cases fidelity.json,
    or a judged fidelity.json with or without --rubrics); caveman's baseline and terse control
    are the other arms.
    """
    from driftproof.importers import get_importer, write_imported  # deferred: start-up time

    items = get_importer("caveman")(snapshot, **options)  # --skills, --cases ... as given
    for path in write_imported(items, out_dir, source=str(snapshot), force=force):
        click.echo(f"wrote {path}")
