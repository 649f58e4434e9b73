"""``driftproof import <tool>``: one click command per neighbouring tool's result format.

Each command parses its options into the importer's arguments; :func:`_import_command` adds
``--out-dir`` and ``--force`` and hands the arguments to the registered importer
(:mod:`driftproof.importers`) and :func:`~driftproof.importers.write_imported`, which writes
every receipt or none. Every import is DECLARED (D-15): faithful, never a verdict. The group
lists the commands in :data:`driftproof.cli.import_.SUBCOMMANDS`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from driftproof.cli._options import EXISTING_FILE
from driftproof.errors import ImportError_

__all__ = [
    "claude_plugin_eval",
    "inspect",
    "nvidia",
    "openai_evals",
    "promptfoo",
    "skill_creator",
    "skill_eval_harness",
    "skill_validator",
    "summary_json",
    "vally",
]

#: What a command's function returns: the importer's source, the source as the receipts name
#: it, and the importer's options.
Request = tuple[Any, str, dict[str, Any]]

#: ``--out-dir`` (``--out`` its older spelling) and ``--force``, last in every import command.
_OUTPUT = (
    click.Option(
        ["--out-dir", "--out", "out_dir"],
        default=Path("receipts"),
        show_default=True,
        type=click.Path(path_type=Path, file_okay=False),
        help="Folder the receipts are written to (--out is its older spelling).",
    ),
    click.Option(
        ["--force"], is_flag=True, help="Replace receipts that already exist in --out-dir."
    ),
)


def _import_command(tool: str) -> Callable[[Callable[..., Request]], click.Command]:
    """The click command ``tool`` whose function returns a :data:`Request` for importer ``tool``.

    The command takes ``--out-dir`` and ``--force`` after its own options, calls the importer
    and writes its receipts (all or none), echoing each path written.
    """

    def decorate(fn: Callable[..., Request]) -> click.Command:
        @functools.wraps(fn)
        def command(out_dir: Path, force: bool, **params: Any) -> None:
            from driftproof.importers import get_importer, write_imported  # deferred: start-up

            source, shown, options = fn(**params)
            name = options.get("skill_name")
            if name is not None and not name.strip():
                raise click.BadParameter(
                    "expected the skill's name, found an empty one", param_hint="--skill-name"
                )
            items = get_importer(tool)(source, **options)
            for path in write_imported(items, out_dir, source=shown, force=force):
                click.echo(f"wrote {path}")

        cmd = click.command(tool)(command)
        cmd.params.extend(_OUTPUT)
        return cmd

    return decorate


#: ``--skill-md FILE``: the SKILL.md measured (hashed and counted); unknown when omitted.
_SKILL_MD = click.option("--skill-md", type=EXISTING_FILE)


#: ``PATHS...``: the files or folders read, one or more (the first is named as the source).
_PATHS = click.argument(
    "paths", nargs=-1, required=True, type=click.Path(path_type=Path, exists=True)
)


def _skill_name_required(tool: str) -> Any:
    """``--skill-name NAME``, required: ``tool`` records no skill name."""
    return click.option(
        "--skill-name", required=True, help=f"The skill's name ({tool} records none)."
    )


def _arms(metavar: str, help: str, *, required: bool = False) -> Any:
    """``--arm ARM=...`` (repeatable), read by :func:`_arm_map`.

    ``metavar`` names what is mapped to the arm.
    """
    return click.option(
        "--arm", "arms", multiple=True, required=required, metavar=metavar, help=help
    )


def _arm_map(pairs: tuple[str, ...]) -> dict[str, str] | None:
    """``ARM=LABEL`` options → ``{arm: label}``; ``None`` when none were given."""
    out: dict[str, str] = {}
    for pair in pairs:
        arm, sep, label = pair.partition("=")
        if not sep or arm not in ("with_skill", "baseline", "control") or not label:
            raise ImportError_.at(
                "<options>",
                "",
                f"--arm {pair!r}: expected ARM=LABEL with ARM one of with_skill, baseline, control",
            )
        if arm in out:
            raise ImportError_.at("<options>", "", f"--arm {arm} given twice")
        out[arm] = label
    return out or None


@_import_command("skill-creator")
@_PATHS
@click.option(
    "--skill-md",
    type=EXISTING_FILE,
    help="The SKILL.md measured (hashed and counted); unknown when omitted.",
)
@click.option(
    "--skill-name",
    help="The skill's name when neither benchmark.json nor evals.json names it.",
)
@_arms(
    "ARM=CONFIGURATION",
    "Map a configuration to an arm, e.g. --arm with_skill=new_skill --arm baseline=old_skill "
    "(default: with_skill=with_skill, baseline=without_skill).",
)
def skill_creator(
    paths: tuple[Path, ...],
    skill_md: Path | None,
    skill_name: str | None,
    arms: tuple[str, ...],
) -> Request:
    """Import skill-creator / agentskills.io iterations: one receipt per iteration.

    Reads benchmark.json and grading.json.
    """
    return (
        list(paths),
        str(paths[0]),
        dict(
            skill_md=skill_md,
            skill_name=skill_name,
            arms=_arm_map(arms),
        ),
    )


@_import_command("nvidia")
@_PATHS
@click.option(
    "--repository",
    help="Repository the files were read from, e.g. https://github.com/NVIDIA/skills.",
)
@click.option("--commit", help="Commit the files were read at (recorded in source_figures).")
@click.option(
    "--repo-root",
    type=click.Path(path_type=Path, file_okay=False),
    help="Root of the checkout, to record each file's path in the repository.",
)
@click.option(
    "--skill",
    "skills",
    multiple=True,
    help="Import only this catalog_dir from benchmarks.json (repeatable).",
)
def nvidia(
    paths: tuple[Path, ...],
    repository: str | None,
    commit: str | None,
    repo_root: Path | None,
    skills: tuple[str, ...],
) -> Request:
    """Import NVIDIA BENCHMARK.md cards or benchmarks.json: one receipt per skill.

    The receipts hold aggregates only and give no verdict.
    """
    return (
        list(paths),
        str(paths[0]),
        dict(
            repository=repository,
            commit=commit,
            repo_root=repo_root,
            skills=list(skills) or None,
        ),
    )


@_import_command("promptfoo")
@click.argument("path", type=EXISTING_FILE)
@_arms(
    "ARM=LABEL",
    "Map a provider or prompt label to an arm: --arm with_skill=LABEL --arm baseline=LABEL "
    "[--arm control=LABEL]; with_skill or baseline alone is a single-arm import (no lift).",
    required=True,
)
@click.option(
    "--by",
    type=click.Choice(["provider", "prompt"]),
    default="provider",
    show_default=True,
    help="Match labels against provider.label/id or prompt.label/id/raw.",
)
@_skill_name_required("promptfoo")
@_SKILL_MD
def promptfoo(
    path: Path,
    arms: tuple[str, ...],
    by: str,
    skill_name: str,
    skill_md: Path | None,
) -> Request:
    """Import promptfoo output JSON or JSONL (eval -o / export).

    Repeats are grouped by content; errors are kept out of the figures.
    """
    return (
        path,
        str(path),
        dict(
            arms=_arm_map(arms) or {},
            by=by,
            skill_name=skill_name,
            skill_md=skill_md,
        ),
    )


@_import_command("inspect")
@click.option(
    "--with-skill", type=EXISTING_FILE, help="The log of the with-skill arm (.json or .eval)."
)
@click.option(
    "--baseline",
    type=EXISTING_FILE,
    help="The log of the baseline arm. Either log alone is a single-arm import (no lift).",
)
@click.option("--control", type=EXISTING_FILE, help="The log of a control arm, if any.")
@click.option(
    "--scorer",
    metavar="NAME[:KEY]",
    help="The scorer whose values are the scores (required when a log has several); "
    "NAME:KEY reads key KEY of an object-valued scorer.",
)
@_skill_name_required("Inspect")
@_SKILL_MD
def inspect(
    with_skill: Path | None,
    baseline: Path | None,
    control: Path | None,
    scorer: str | None,
    skill_name: str,
    skill_md: Path | None,
) -> Request:
    """Inspect AI logs, one per arm: epochs as draws, unscored samples as lost draws.

    --with-skill alone or --baseline alone is a single-arm import: the other arm is recorded as
    not recorded, and no lift, interval or value per token is given.
    """
    if with_skill is None and baseline is None:
        raise ImportError_.at("<options>", "", "expected --with-skill LOG, --baseline LOG, or both")
    shown = str(with_skill if with_skill is not None else baseline)
    return (
        with_skill,
        shown,
        dict(
            baseline=baseline,
            control=control,
            scorer=scorer,
            skill_name=skill_name,
            skill_md=skill_md,
        ),
    )


@_import_command("summary-json")
@click.argument("path", type=EXISTING_FILE)
@_SKILL_MD
def summary_json(path: Path, skill_md: Path | None) -> Request:
    """Driftproof summary-json (the interop page's minimal format): one DECLARED receipt."""
    return path, str(path), dict(skill_md=skill_md)


@_import_command("claude-plugin-eval")
@click.argument("path", type=click.Path(path_type=Path, exists=True))
@click.option(
    "--skill-name",
    help="The skill's name (default: the plugin's name when the suite names one plugin).",
)
@_SKILL_MD
def claude_plugin_eval(path: Path, skill_name: str | None, skill_md: Path | None) -> Request:
    """Import claude plugin eval's aggregate-result.json (or its results directory).

    Runs are draws, the skill-fired rate stands beside the score, and errored runs are kept out
    of the figures.
    """
    return path, str(path), dict(skill_name=skill_name, skill_md=skill_md)


def _grader_range(text: str | None) -> tuple[float, float] | None:
    if text is None:
        return None
    low, sep, high = text.partition(":")
    try:
        return float(low), float(high)
    except ValueError:
        raise ImportError_.at(
            "<options>", "", f"--grader-range {text!r}: expected LOW:HIGH, e.g. 1:7"
        ) from None


@_import_command("openai-evals")
@click.argument("path", type=EXISTING_FILE)
@_arms(
    "ARM=RUN",
    "Map a run id to an arm: --arm with_skill=RUN [--arm baseline=RUN]; one arm alone is a "
    "single-arm import (default: the file's only run, as with_skill).",
)
@click.option(
    "--grader",
    help="The grader whose results are the scores (required when the rows carry several).",
)
@click.option(
    "--grader-range",
    metavar="LOW:HIGH",
    help="The grader's own worst and best scores, mapped linearly onto 0..1 (e.g. 1:7 for a score "
    "model).",
)
@_skill_name_required("OpenAI Evals")
@_SKILL_MD
def openai_evals(
    path: Path,
    arms: tuple[str, ...],
    grader: str | None,
    grader_range: str | None,
    skill_name: str,
    skill_md: Path | None,
) -> Request:
    """Import OpenAI Evals run output items (JSONL or JSON).

    Each output item is a draw; sample errors are lost draws.
    """
    mapping = _arm_map(arms)
    if mapping and "control" in mapping:
        raise ImportError_.at(
            "<options>", "", "--arm control: OpenAI Evals imports map with_skill and baseline only"
        )
    return (
        path,
        str(path),
        dict(
            arms=mapping,
            grader=grader,
            grader_range=_grader_range(grader_range),
            skill_name=skill_name,
            skill_md=skill_md,
        ),
    )


@_import_command("skill-validator")
@click.argument("path", type=EXISTING_FILE)
def skill_validator(path: Path) -> Request:
    """Import dotnet/skills skill-validator results.json: one receipt per skill.

    Each scenario is a case; the source's improvement scores, interval and decision are kept as
    its figures.
    """
    return path, str(path), {}


@_import_command("vally")
@click.argument("path", type=EXISTING_FILE)
def vally(path: Path) -> Request:
    """Import Vally results.json (schema 5): one receipt per skill.

    Each stimulus is a case; the compare votes, sign test and decision are kept as the source's
    figures.
    """
    return path, str(path), {}


@_import_command("skill-eval-harness")
@click.argument("path", type=EXISTING_FILE)
def skill_eval_harness(path: Path) -> Request:
    """Import skill-eval-harness benchmark.json: each case a case, each run a draw.

    Its paired sign-flip interval and test are kept as the source's figures.
    """
    return path, str(path), {}
