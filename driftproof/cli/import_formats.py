"""``driftproof import <tool>``: one click command per neighbouring tool's result format.

Each command hands its options to the registered importer and writes every receipt or none (D-15).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from click import UsageError

from driftproof.cli import written_by
from driftproof.cli._options import EXISTING_FILE, EXISTING_PATH, FILE, said_written
from driftproof.errors import ImportError_, Problem
from driftproof.wording import is_blank, name_refusal

#: ``--out-dir`` (``--out`` its older spelling) and ``--force``, last in every import command.
_OUTPUT = (
    click.Option(
        ["--out-dir", "--out", "out_dir"],
        default=Path("."),
        type=click.Path(path_type=Path, file_okay=False),
        help="Folder the receipts are written to (default: the current folder, not receipts/, "
        "the folder make reports publishes; --out is its older spelling).",
    ),
    click.Option(
        ["--force"], is_flag=True, help="Replace receipts that already exist in --out-dir."
    ),
)


def _import_command(
    tool: str,
    short_help: str,
    help: str,
    *params: click.Parameter,
    source: str | Callable[[dict[str, Any]], tuple[Any, Any]] = "path",
    check: Callable[[dict[str, Any]], None] | None = None,
    after: tuple[click.Parameter, ...] = (),
) -> click.Command:
    """Command ``tool``: ``params``, --out-dir, --force, ``after``; ``source`` names the source.

    ``short_help`` is its line in ``import --help``, whole (click would cut ``help`` mid-phrase).
    """

    def callback(out_dir: Path, force: bool, **options: Any) -> None:
        from driftproof.importers import (  # deferred: start-up
            get_importer,
            importers_reading,
            unread_format,
            write_imported,
        )
        from driftproof.importers._common import OPTIONS  # deferred: start-up
        from driftproof.importers._shapes import OPTIONS_TO_GIVE  # deferred: start-up
        from driftproof.outputs import refuse_output_on_input

        if check is not None:
            check(options)
        name = options.get("skill_name")
        if name is not None and (why := name_refusal(name, "the skill's name")) is not None:
            raise click.BadParameter(why, param_hint="--skill-name")
        if callable(source):
            value, shown = source(options)
        else:
            value = options.pop(source)
            shown = value[0] if isinstance(value, list) else value
        try:
            items = get_importer(tool)(value, **options)
        except ImportError_ as exc:
            if all(p.file == OPTIONS.file for p in exc.problems):  # no file: an option's value
                raise UsageError("; ".join(p.message for p in exc.problems)) from None
            one = _refused_path(value, exc)
            if one is not None and (fits := importers_reading(one, tool)):
                names = " or ".join(
                    f"driftproof import {n}"
                    + (f" ({OPTIONS_TO_GIVE[n]})" if n in OPTIONS_TO_GIVE else "")
                    for n in fits
                )
                what = "directory" if one.is_dir() else "file"
                exc.problems.append(Problem(str(one), "", f"{names} reads this {what}"))
            elif one is not None and (known := unread_format(one)) is not None:
                said = f"this file looks like {known}, which no driftproof importer reads"
                exc.problems.append(Problem(str(one), "", said))
            raise
        read = [*_paths(value), *(p for p in options.values() if isinstance(p, Path))]
        for item, path in ((i, p) for i in items for p in read):  # as run and export refuse it
            refuse_output_on_input(Path(out_dir) / item.filename, "--out-dir", source=path)
        there = [] if force else [p for i in items if (p := Path(out_dir) / i.filename).exists()]
        done = written_by("receipt", write_imported, items, out_dir, source=str(shown), force=force)
        said_written(done, [n for item in items for n in item.notices], len(there))

    return click.Command(
        tool,
        help=help,
        short_help=short_help,
        params=[*params, *_OUTPUT, *after],
        callback=callback,
    )


def _paths(value: Any) -> list[Path]:
    """The paths a source option gives: one, a list, or one log per arm."""
    given = list(value.values()) if isinstance(value, dict) else value
    return [p for p in (given if isinstance(given, list) else [given]) if isinstance(p, Path)]


def _refused_path(value: Any, exc: ImportError_) -> Path | None:
    """The one path given (a list of one, or one log per arm) the refusal is about, if any."""
    paths = _paths(value)
    named = [p for p in paths if exc.problems and str(p) == exc.problems[0].file]
    return named[0] if len(named) == 1 else paths[0] if len(paths) == 1 else None


def _arm_map(pairs: tuple[str, ...]) -> dict[str, str] | None:
    """``ARM=LABEL`` pairs as ``{arm: label}`` (``None``: none); a usage error on a bad pair."""
    out: dict[str, str] = {}
    for pair in pairs:
        arm, sep, label = pair.partition("=")
        if not sep or arm not in ("with_skill", "baseline", "control") or is_blank(label):
            raise UsageError(
                f"--arm {pair!r}: expected ARM=LABEL with ARM one of with_skill, baseline, control"
            )
        if arm in out:
            raise UsageError(f"--arm {arm} given twice")
        if (twin := next((a for a, seen in out.items() if seen == label), None)) is not None:
            raise UsageError(f"--arm {pair!r}: {label!r} is already the {twin} arm's label")
        out[arm] = label
    return out or None


def _arms(metavar: str, help: str, *, required: bool = False) -> click.Option:
    """``--arm ARM=<metavar>`` (repeatable), given to the importer as ``{arm: ...}`` or ``None``."""
    return click.Option(
        ["--arm", "arms"],
        multiple=True,
        required=required,
        metavar=metavar,
        help=help,
        callback=lambda _ctx, _param, pairs: _arm_map(pairs),
    )


def _grader_range(
    _ctx: click.Context, _param: click.Parameter, text: str | None
) -> tuple[float, float] | None:
    """``--grader-range WORST:BEST`` as ``(worst, best)``; ``None`` when not given."""
    if text is None:
        return None
    low, _sep, high = text.partition(":")
    try:
        return float(low), float(high)
    except ValueError:
        raise UsageError(f"--grader-range {text!r}: expected WORST:BEST, e.g. 1:7") from None


def _grader(_ctx: click.Context, _param: click.Parameter, name: str | None) -> str | None:
    """``--grader NAME`` as given; ``None`` when not given."""
    if name is not None and is_blank(name):
        raise UsageError(f"--grader {name!r}: expected a grader's name, found a blank one")
    return name


def _skill_name_required(tool: str) -> click.Option:
    """``--skill-name NAME``, required: ``tool`` records no skill name."""
    return click.Option(
        ["--skill-name"], required=True, help=f"The skill's name ({tool} records none)."
    )


#: ``PATH``: the file read.
_PATH = click.Argument(["path"], type=EXISTING_FILE)
#: ``PATHS...``: the files or folders read, one or more (the first is named as the source).
_PATHS = click.Argument(
    ["paths"],
    nargs=-1,
    required=True,
    type=EXISTING_PATH,
    callback=lambda _ctx, _param, paths: list(paths),
)
#: ``--skill-md FILE``: the SKILL.md measured (hashed and counted); unknown when omitted.
_SKILL_MD = click.Option(
    ["--skill-md"],
    type=EXISTING_FILE,
    help="The SKILL.md measured (hashed and counted); unknown when omitted.",
)

caveman = _import_command(
    "caveman",
    "caveman's snapshot: one receipt per skill it measured.",
    """Import caveman's snapshot: one receipt per skill it measured.

    Reads evals/snapshots/results.json (or results.partial.json, or with --cases fidelity.json,
    or a judged fidelity.json with or without --rubrics); caveman's baseline and terse control
    are the other arms.
    """,
    click.Argument(["snapshot"], type=FILE),
    click.Option(
        ["--skills", "skills_dir"],
        required=True,
        type=click.Path(path_type=Path, file_okay=False),
        help="skills/ directory as it was when the snapshot ran (<arm>/SKILL.md).",
    ),
    source="snapshot",
    after=(
        click.Option(
            ["--source-commit"],
            help="caveman git commit the files were read at (names the files, recorded as the "
            "source's version).",
        ),
        click.Option(
            ["--cases", "cases"],
            type=FILE,
            help="caveman's evals/prompts/fidelity.json: read SNAPSHOT as the fidelity eval and "
            "score it against these cases' checks.",
        ),
        click.Option(
            ["--rubrics", "rubrics"],
            type=FILE,
            help="caveman's evals/prompts/rubrics.json, for a judged fidelity snapshot (each fact "
            "judged by a model): the snapshot must match its prompts and facts.",
        ),
    ),
)

skill_creator = _import_command(
    "skill-creator",
    "skill-creator iterations: one receipt per iteration.",
    """Import skill-creator / agentskills.io iterations: one receipt per iteration.

    Reads each iteration's benchmark.json, or, where it has none, its
    eval-*/<configuration>/grading.json files: a benchmark.json stands for the grading.json
    files beside it, which are then not read.
    """,
    _PATHS,
    _SKILL_MD,
    click.Option(
        ["--skill-name"],
        help="The skill's name when neither benchmark.json nor evals.json names it.",
    ),
    _arms(
        "ARM=CONFIGURATION",
        "Map a configuration to an arm, e.g. --arm with_skill=new_skill --arm "
        "baseline=old_skill (default: with_skill=with_skill, baseline=without_skill).",
    ),
    source="paths",
)

nvidia = _import_command(
    "nvidia",
    "NVIDIA BENCHMARK.md cards, benchmarks.json or folders.",
    """Import NVIDIA BENCHMARK.md cards or benchmarks.json: one receipt per skill.

    A folder is read as its BENCHMARK.md, else each skills/*/BENCHMARK.md, else each
    */BENCHMARK.md (a skills/ folder, SkillEvaluator's output), with the benchmarks.json beside.

    The receipts hold aggregates only and give no verdict.
    """,
    _PATHS,
    click.Option(
        ["--repository"],
        help="Repository the files were read from, e.g. https://github.com/NVIDIA/skills.",
    ),
    click.Option(
        ["--commit"], help="Commit the files were read at (kept as the source's own figures)."
    ),
    click.Option(
        ["--repo-root"],
        type=click.Path(path_type=Path, file_okay=False),
        help="Root of the checkout, to record each file's path in the repository.",
    ),
    click.Option(
        ["--skill", "skills"],
        multiple=True,
        help="Import only this catalog_dir from benchmarks.json (repeatable).",
        callback=lambda _ctx, _param, skills: list(skills) or None,
    ),
    source="paths",
)

promptfoo = _import_command(
    "promptfoo",
    "promptfoo output (eval -o or export).",
    """Import promptfoo output JSON or JSONL (eval -o / export).

    Repeats are grouped by content; errors are kept out of the figures.
    """,
    _PATH,
    _arms(
        "ARM=LABEL",
        "Map a provider or prompt label to an arm: --arm with_skill=LABEL --arm baseline=LABEL "
        "[--arm control=LABEL]; with_skill or baseline alone is a single-arm import (no lift).",
        required=True,
    ),
    click.Option(
        ["--by"],
        type=click.Choice(["provider", "prompt"]),
        default="provider",
        show_default=True,
        help="Match labels against provider.label/id or prompt.label/id/raw.",
    ),
    _skill_name_required("promptfoo"),
    _SKILL_MD,
)


def _one_log_at_least(options: dict[str, Any]) -> None:
    if given_alone := options.pop("given_alone"):  # a log given as a file, as others take one
        raise UsageError(
            "expected each log after its arm's option (--with-skill LOG, --baseline LOG, "
            f"--control LOG); found {given_alone[0]!r} given alone"
        )
    if options["with_skill"] is None and options["baseline"] is None:
        raise UsageError(
            "Missing option '--with-skill' or '--baseline': one log per arm, either alone a "
            "single-arm import"
        )


def _logs(options: dict[str, Any]) -> tuple[dict[str, Path], Path | None]:
    """The arms' logs (``{arm: log}``, the arms given) and the log that names the source."""
    given = {arm: options.pop(arm) for arm in ("with_skill", "baseline", "control")}
    logs = {arm: log for arm, log in given.items() if log is not None}
    return logs, logs.get("with_skill", logs.get("baseline"))


inspect = _import_command(
    "inspect",
    "Inspect AI logs, one per arm.",
    """Inspect AI logs, one per arm: epochs as draws, unscored samples as lost draws.

    --with-skill alone or --baseline alone is a single-arm import: the other arm is marked not
    recorded, and no lift, interval or value per token is given.
    """,
    click.Option(
        ["--with-skill"], type=EXISTING_FILE, help="The log of the with-skill arm (.json or .eval)."
    ),
    click.Option(
        ["--baseline"],
        type=EXISTING_FILE,
        help="The log of the baseline arm. Either log alone is a single-arm import (no lift).",
    ),
    click.Option(["--control"], type=EXISTING_FILE, help="The log of a control arm, if any."),
    click.Option(
        ["--scorer"],
        metavar="NAME[:KEY]",
        help="The scorer whose values are the scores (required when a log has several); "
        "NAME:KEY reads key KEY of an object-valued scorer.",
    ),
    _skill_name_required("Inspect"),
    _SKILL_MD,
    # a log given without its arm's option, refused saying how (click: "unexpected argument")
    click.Argument(["given_alone"], nargs=-1, metavar=""),
    source=_logs,
    check=_one_log_at_least,
)

summary_json = _import_command(
    "summary-json",
    "Driftproof's minimal summary-json format.",
    "Driftproof summary-json (the interop page's minimal format): one DECLARED receipt.",
    _PATH,
    _SKILL_MD,
)

claude_plugin_eval = _import_command(
    "claude-plugin-eval",
    "claude plugin eval's aggregate-result.json.",
    """Import claude plugin eval's aggregate-result.json (or its results directory).

    Runs are draws, the skill-fired rate stands beside the score, and errored runs are kept out
    of the figures.
    """,
    click.Argument(["path"], type=EXISTING_PATH),
    click.Option(
        ["--skill-name"],
        help="The skill's name (default: the plugin's name when the suite names one plugin).",
    ),
    _SKILL_MD,
)


def _no_control_arm(options: dict[str, Any]) -> None:
    if options["arms"] and "control" in options["arms"]:
        raise UsageError("--arm control: OpenAI Evals imports map with_skill and baseline only")


openai_evals = _import_command(
    "openai-evals",
    "OpenAI Evals run output items.",
    """Import OpenAI Evals run output items (JSONL or JSON).

    Each output item is a draw; sample errors are lost draws.
    """,
    _PATH,
    _arms(
        "ARM=RUN",
        "Map a run id to an arm: --arm with_skill=RUN [--arm baseline=RUN]; one arm alone is a "
        "single-arm import (default: the file's only run, as with_skill).",
    ),
    click.Option(
        ["--grader"],
        callback=_grader,
        help="The grader whose results are the scores (required when the rows carry several).",
    ),
    click.Option(
        ["--grader-range"],
        metavar="WORST:BEST",
        callback=_grader_range,
        help="The grader's own worst and best scores, mapped linearly onto 0..1 (e.g. 1:7 for a "
        "score model, 7:0 where lower is better); needed unless the grader's type states 0..1.",
    ),
    _skill_name_required("OpenAI Evals"),
    _SKILL_MD,
    check=_no_control_arm,
)

skill_validator = _import_command(
    "skill-validator",
    "dotnet/skills skill-validator results.json.",
    """Import dotnet/skills skill-validator results.json: one receipt per skill.

    Each scenario is a case; the source's improvement scores, interval and decision are kept as
    its figures.
    """,
    _PATH,
)

vally = _import_command(
    "vally",
    "Vally results.json (schema 4 or 5).",
    """Import Vally results.json (schema 4 or 5): one receipt per skill.

    Each stimulus is a case; the compare votes, sign test and decision are kept as the source's
    figures.
    """,
    _PATH,
)

skill_eval_harness = _import_command(
    "skill-eval-harness",
    "skill-eval-harness benchmark.json.",
    """Import skill-eval-harness benchmark.json: each case a case, each run a draw.

    Its paired sign-flip interval and test are kept as the source's figures.
    """,
    _PATH,
)
