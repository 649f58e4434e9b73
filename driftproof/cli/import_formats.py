"""``driftproof import skill-creator|nvidia|promptfoo|inspect|summary-json|claude-plugin-eval|
openai-evals|skill-validator|vally|skill-eval-harness``:
one click command each.

Each command parses its options into the importer's options model, calls the registered
importer (:mod:`driftproof.importers`) and :func:`~driftproof.importers.write_imported`, which
writes every receipt or none. The importer modules are imported inside each command, so
``--help`` does not load them. Every import is DECLARED (D-15): faithful,
never a verdict. Registered in :data:`driftproof.cli.import_.SUBCOMMANDS`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from driftproof.cli._options import EXISTING_FILE
from driftproof.cli.import_ import FORCE, OUT_DIR, write
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


def _OUT(fn: Any) -> Any:
    """``--out-dir DIR`` (``--out`` kept as its older spelling) and ``--force``, shared by every
    import command."""
    return OUT_DIR(FORCE(fn))


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
    """``--arm ARM=...`` (repeatable), read by :func:`_arm_map`; ``metavar`` names what is
    mapped to the arm."""
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


def _named(skill_name: str | None) -> str | None:
    """``--skill-name``, refused when given empty."""
    if skill_name is not None and not skill_name.strip():
        raise click.BadParameter(
            "expected the skill's name, found an empty one", param_hint="--skill-name"
        )
    return skill_name


@click.command("skill-creator")
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
@_OUT
def skill_creator(
    paths: tuple[Path, ...],
    skill_md: Path | None,
    skill_name: str | None,
    arms: tuple[str, ...],
    out_dir: Path,
    force: bool,
) -> None:
    """skill-creator / agentskills.io iterations (benchmark.json, grading.json): one receipt per
    iteration."""
    from driftproof.importers.skill_creator import SkillCreatorOptions

    options = SkillCreatorOptions(skill_md, _arm_map(arms), _named(skill_name))
    write("skill-creator", list(paths), options, out_dir, str(paths[0]), force)


@click.command("nvidia")
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
@_OUT
def nvidia(
    paths: tuple[Path, ...],
    repository: str | None,
    commit: str | None,
    repo_root: Path | None,
    skills: tuple[str, ...],
    out_dir: Path,
    force: bool,
) -> None:
    """NVIDIA BENCHMARK.md cards or benchmarks.json: aggregates-only receipts, one per skill, no
    verdict."""
    from driftproof.importers.nvidia import NvidiaOptions

    options = NvidiaOptions(repository, commit, repo_root, list(skills) or None)
    write("nvidia", list(paths), options, out_dir, str(paths[0]), force)


@click.command("promptfoo")
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
@_OUT
def promptfoo(
    path: Path,
    arms: tuple[str, ...],
    by: str,
    skill_name: str,
    skill_md: Path | None,
    out_dir: Path,
    force: bool,
) -> None:
    """promptfoo output JSON or JSONL (eval -o / export): repeats grouped by content, errors kept
    out of the figures."""
    from driftproof.importers.promptfoo import PromptfooOptions

    options = PromptfooOptions(_arm_map(arms) or {}, str(_named(skill_name)), by, skill_md)
    write("promptfoo", path, options, out_dir, str(path), force)


@click.command("inspect")
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
@_OUT
def inspect(
    with_skill: Path | None,
    baseline: Path | None,
    control: Path | None,
    scorer: str | None,
    skill_name: str,
    skill_md: Path | None,
    out_dir: Path,
    force: bool,
) -> None:
    """Inspect AI logs, one per arm: epochs as draws, unscored samples as lost draws.

    --with-skill alone or --baseline alone is a single-arm import: the other arm is recorded as
    not recorded, and no lift, interval or value per token is given.
    """
    if with_skill is None and baseline is None:
        raise ImportError_.at("<options>", "", "expected --with-skill LOG, --baseline LOG, or both")
    from driftproof.importers.inspect_ai import InspectOptions

    shown = str(with_skill if with_skill is not None else baseline)
    given = {"with_skill": with_skill, "baseline": baseline, "control": control}
    logs = {arm: log for arm, log in given.items() if log is not None}
    options = InspectOptions(str(_named(skill_name)), scorer, skill_md)
    write("inspect", logs, options, out_dir, shown, force)


@click.command("summary-json")
@click.argument("path", type=EXISTING_FILE)
@_SKILL_MD
@_OUT
def summary_json(path: Path, skill_md: Path | None, out_dir: Path, force: bool) -> None:
    """Driftproof summary-json (the interop page's minimal format): one DECLARED receipt."""
    from driftproof.importers.summary_json import SummaryJsonOptions

    write("summary-json", path, SummaryJsonOptions(skill_md), out_dir, str(path), force)


@click.command("claude-plugin-eval")
@click.argument("path", type=click.Path(path_type=Path, exists=True))
@click.option(
    "--skill-name",
    help="The skill's name (default: the plugin's name when the suite names one plugin).",
)
@_SKILL_MD
@_OUT
def claude_plugin_eval(
    path: Path, skill_name: str | None, skill_md: Path | None, out_dir: Path, force: bool
) -> None:
    """claude plugin eval's aggregate-result.json (or its results directory): runs as draws, the
    skill-fired rate beside the score, errored runs kept out of the figures."""
    from driftproof.importers.claude_plugin_eval import ClaudePluginEvalOptions

    options = ClaudePluginEvalOptions(_named(skill_name), skill_md)
    write("claude-plugin-eval", path, options, out_dir, str(path), force)


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


@click.command("openai-evals")
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
@_OUT
def openai_evals(
    path: Path,
    arms: tuple[str, ...],
    grader: str | None,
    grader_range: str | None,
    skill_name: str,
    skill_md: Path | None,
    out_dir: Path,
    force: bool,
) -> None:
    """OpenAI Evals run output items (JSONL or JSON): one output item per draw, sample errors as
    lost draws."""
    from driftproof.importers.openai_evals import OpenAIEvalsOptions

    mapping = _arm_map(arms)
    if mapping and "control" in mapping:
        raise ImportError_.at(
            "<options>", "", "--arm control: OpenAI Evals imports map with_skill and baseline only"
        )
    options = OpenAIEvalsOptions(
        str(_named(skill_name)), mapping, grader, _grader_range(grader_range), skill_md
    )
    write("openai-evals", path, options, out_dir, str(path), force)


@click.command("skill-validator")
@click.argument("path", type=EXISTING_FILE)
@_OUT
def skill_validator(path: Path, out_dir: Path, force: bool) -> None:
    """dotnet/skills skill-validator results.json: one receipt per skill, each scenario a case,
    the source's improvement scores, interval and decision kept as its figures."""
    write("skill-validator", path, None, out_dir, str(path), force)


@click.command("vally")
@click.argument("path", type=EXISTING_FILE)
@_OUT
def vally(path: Path, out_dir: Path, force: bool) -> None:
    """Vally results.json (schema 5): one receipt per skill, each stimulus a case, the compare
    votes, sign test and decision kept as the source's figures."""
    write("vally", path, None, out_dir, str(path), force)


@click.command("skill-eval-harness")
@click.argument("path", type=EXISTING_FILE)
@_OUT
def skill_eval_harness(path: Path, out_dir: Path, force: bool) -> None:
    """skill-eval-harness benchmark.json: each case a case, each run a draw, its paired
    sign-flip interval and test kept as the source's figures."""
    write("skill-eval-harness", path, None, out_dir, str(path), force)
