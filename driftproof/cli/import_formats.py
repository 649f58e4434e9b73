"""``driftproof import skill-creator|nvidia|promptfoo|inspect|summary-json``: one click command each.

Each command parses its options, calls the registered importer
(:mod:`driftproof.importers`) and :func:`~driftproof.importers.write_imported`,
which writes every receipt or none. Every import is DECLARED (D-15): faithful,
never a verdict. Registered in :data:`driftproof.cli.import_.SUBCOMMANDS`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from driftproof.errors import ImportError_
from driftproof.importers import get_importer, write_imported

__all__ = ["inspect", "nvidia", "promptfoo", "skill_creator", "summary_json"]

_OUT = click.option("--out", "out_dir", default=Path("receipts"), show_default=True,
                    type=click.Path(path_type=Path, file_okay=False), help="Directory the receipts are written to.")


def _arm_map(pairs: tuple[str, ...]) -> dict[str, str] | None:
    """``ARM=LABEL`` options → ``{arm: label}``; ``None`` when none were given."""
    out: dict[str, str] = {}
    for pair in pairs:
        arm, sep, label = pair.partition("=")
        if not sep or arm not in ("with_skill", "baseline", "control") or not label:
            raise ImportError_.at("<options>", "", f"--arm {pair!r}: expected ARM=LABEL with ARM one of "
                                  "with_skill, baseline, control")
        if arm in out:
            raise ImportError_.at("<options>", "", f"--arm {arm} given twice")
        out[arm] = label
    return out or None


def _write(tool: str, source: Any, out_dir: Path, shown: str, **options: Any) -> None:
    items = get_importer(tool)(source, **options)
    for path in write_imported(items, out_dir, source=shown):
        click.echo(f"wrote {path}")


@click.command("skill-creator")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path, exists=True))
@click.option("--skill-md", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="The SKILL.md measured (hashed and counted); unknown when omitted.")
@click.option("--skill-name", default=None, help="The skill's name when neither benchmark.json nor evals.json names it.")
@click.option("--arm", "arms", multiple=True, metavar="ARM=CONFIGURATION",
              help="Map a configuration to an arm, e.g. --arm with_skill=new_skill --arm baseline=old_skill "
                   "(default: with_skill=with_skill, baseline=without_skill).")
@_OUT
def skill_creator(paths: tuple[Path, ...], skill_md: Path | None, skill_name: str | None, arms: tuple[str, ...],
                  out_dir: Path) -> None:
    """skill-creator / agentskills.io iterations (benchmark.json, grading.json): one receipt per iteration."""
    _write("skill-creator", list(paths), out_dir, str(paths[0]), skill_md=skill_md, skill_name=skill_name,
           arms=_arm_map(arms))


@click.command("nvidia")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path, exists=True))
@click.option("--repository", default=None, help="Repository the files were read from, e.g. https://github.com/NVIDIA/skills.")
@click.option("--commit", default=None, help="Commit the files were read at (recorded in source_figures).")
@click.option("--repo-root", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Root of the checkout, to record each file's path in the repository.")
@click.option("--skill", "skills", multiple=True, help="Import only this catalog_dir from benchmarks.json (repeatable).")
@_OUT
def nvidia(paths: tuple[Path, ...], repository: str | None, commit: str | None, repo_root: Path | None,
           skills: tuple[str, ...], out_dir: Path) -> None:
    """NVIDIA BENCHMARK.md cards or benchmarks.json: aggregates-only receipts, one per skill, no verdict."""
    _write("nvidia", list(paths), out_dir, str(paths[0]), repository=repository, commit=commit,
           repo_root=repo_root, skills=list(skills) or None)
