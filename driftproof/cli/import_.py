"""``driftproof import <tool> …``: convert a neighbouring tool's results into receipts.

The group loads its subcommands lazily from :data:`SUBCOMMANDS`. Adding an
importer's command is one line there: ``"<tool>": "<module>:<click command>"``,
the module being any importable module (a ``driftproof/cli/import_<tool>.py`` or
the importer module itself). Each command calls the registered importer
(:mod:`driftproof.importers`) and :func:`~driftproof.importers.write_imported`,
which writes every receipt or none.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import click

from driftproof.importers import get_importer, write_imported

__all__ = ["SUBCOMMANDS", "caveman", "import_group"]

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
}


class _LazyImportGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in SUBCOMMANDS:
            return None
        module, attr = SUBCOMMANDS[cmd_name].split(":")
        cmd: Any = getattr(importlib.import_module(module), attr)
        return cmd


@click.group("import", cls=_LazyImportGroup)
def import_group() -> None:
    """Convert another tool's results into receipts (DECLARED: faithful, never a verdict)."""


@click.command("caveman")
@click.argument("snapshot", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--skills", "skills_dir", required=True, type=click.Path(path_type=Path, file_okay=False),
              help="skills/ directory as it was when the snapshot ran (<arm>/SKILL.md).")
@click.option("--out", "out_dir", default=Path("receipts"), show_default=True,
              type=click.Path(path_type=Path, file_okay=False), help="Directory the receipts are written to.")
@click.option("--source-commit", default=None,
              help="caveman git commit the files were read at (names the files, recorded as tool_version).")
def caveman(snapshot: Path, skills_dir: Path, out_dir: Path, source_commit: str | None) -> None:
    """caveman's evals/snapshots/results.json: one receipt per skill arm (D-16)."""
    items = get_importer("caveman")(snapshot, skills_dir=skills_dir, source_commit=source_commit)
    for path in write_imported(items, out_dir, source=str(snapshot)):
        click.echo(f"wrote {path}")
