"""``driftproof regrade RECEIPT --rubric SUITE``: grade kept answers under revised rubrics."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from driftproof.cli import fail, written
from driftproof.cli._options import (
    EXISTING_FILE,
    FILE,
    Delays,
    fit_terminal,
    input_file_option,
    judge_price_option,
    model_id,
    openai_api_option,
    seconds_option,
    terminal_width,
)
from driftproof.errors import RefusalError
from driftproof.outputs import (
    STAGED_EXTRA,
    refuse_existing_output,
    refuse_long_name,
    remove_abandoned,
    same_path,
)
from driftproof.run.base_url import url_problem
from driftproof.run.run_plan import RunOptionError, make_judge, plan_regrade_judge
from driftproof.wording import OFFLINE, count_of

if TYPE_CHECKING:
    from driftproof.regrade.rubric import RegradeResult


def _base_url(url: str | None, option: str) -> str | None:
    """``url`` when ``run`` would take it as a base URL; click.BadParameter naming ``option``."""
    if why := url_problem(url):
        raise click.BadParameter(why, param_hint=option)
    return url


@click.command()
@click.argument("receipt", type=EXISTING_FILE)
@input_file_option(
    "--rubric",
    "rubric_suite",
    "The suite whose rubrics or criteria grade the answers (same cases and prompts): revised "
    "ones, or the original's for a plain judge regrade.",
)
@click.option(
    "--out",
    type=FILE,
    required=True,
    help="The file the regrade's own sealed receipt is written to; never replaced without --force.",
)
@click.option("--force", is_flag=True, help="Replace an existing --out file.")
@click.option(
    "--judge-base-url",
    "base_url",
    callback=lambda _c, p, v: _base_url(v, p.opts[0]),
    help="The judge API's base URL (a rubric regrade: the address the original used).",
)
@openai_api_option(
    "OpenAI judge only: the API shape it calls. A regrade with the original's judge must call "
    "the shape that judge used (another is refused), and by default it does, as the receipt "
    "records it; else responses. OpenAI-compatible servers (vLLM, llama.cpp, Ollama) usually "
    "need chat.",
)
@click.option(
    "--judge-provider",
    "provider",
    type=click.Choice(["anthropic", "openai", "stub"]),
    help="Plain judge regrade: grade with this judge instead of the original's, by the "
    "rubrics of the --rubric suite (still required: the receipt keeps only their hashes).",
)
@click.option(
    "--judge-model",
    "model",
    callback=model_id,
    help="Plain judge regrade (with --judge-provider and --rubric): the requested judge "
    "model; every reply must report it.",
)
@judge_price_option(
    "Plain judge regrade only: the judge's price IN,OUT[,CACHE_READ,CACHE_WRITE] in USD per "
    "million tokens, frozen in the receipt as run freezes it; default: the known price of the "
    "judge model when there is one (a rubric regrade keeps the original's price)."
)
@click.option(
    "--judge-samples", type=click.IntRange(1, 100), help="Default: the original's samples per draw."
)
@seconds_option(
    "--judge-timeout",
    120.0,
    "Seconds per judging attempt (the receipt does not record run's --judge-timeout: give "
    "the one the original ran with when its judge needed more).",
)
@click.option("--retry-delays", hidden=True, type=Delays(), callback=lambda _c, _p, v: v or None)
def regrade(
    receipt: Path,
    rubric_suite: Path,
    out: Path,
    judge_samples: int | None,
    judge_timeout: float,
    retry_delays: tuple[float, ...] | None,
    force: bool,
    **judge_options: Any,
) -> None:
    """Grade RECEIPT's kept answers under revised rubrics, drawing no new answer.

    The answers kept by a run with --keep-transcripts are graded under the revised rubrics of
    the --rubric suite with the original's grader. Lost draws stay lost;
    checks are never run again. Refuses, writing nothing, when the grader's recorded setting
    differs from the original's, the original records no judge identity or holds anonymous
    judge replies, or an input cannot be held to the original.

    Exit status: 0 when the new receipt is written and each of its arms has a scored draw; 2
    when the regrade is refused or the options are wrong (nothing is written); 4 when an arm of
    the new receipt has no scored draw (it is written, reading not measured unless only the
    control arm has none); 130 when interrupted by Ctrl-C or SIGTERM before the receipt is
    written (nothing is written); once it is written, a stop says the regrade is complete.
    """
    from driftproof.receipt import read_receipt  # deferred: start-up time of --help
    from driftproof.regrade.rubric import RegradeInterrupted, rubric_regrade
    from driftproof.run.sealing import transcripts_file
    from driftproof.run.suite import load_suite

    if same_path(out, rubric_suite):
        raise RefusalError(
            f"the regrade receipt must not overwrite the revised suite ({rubric_suite})"
        )
    kept = (receipt, transcripts_file(receipt))
    remove_abandoned(out.parent, [out.name])  # the temporary files a killed regrade left
    if not any(same_path(out, p) for p in kept):  # rubric_regrade refuses these with its own words
        refuse_existing_output(out, "--out", force=force)
        refuse_long_name(out, "--out", STAGED_EXTRA)  # the receipt's temporary copy beside it
    try:
        # --judge-provider, --judge-model, --judge-base-url, --openai-api and --judge-price
        j = plan_regrade_judge(read_receipt(receipt), **judge_options, receipt_file=str(receipt))
    except RunOptionError as exc:
        raise click.UsageError(exc.message) from None
    judge = make_judge(j.lane)
    try:
        result = rubric_regrade(
            receipt,
            load_suite(rubric_suite),
            judge,
            judge_model=j.model,
            out=out,
            plain=j.plain,
            judge_price=j.price,
            judge_samples=judge_samples,
            retry_delays=retry_delays,
            replace=force,
            judge_timeout=judge_timeout,
        )
    except RegradeInterrupted as exc:
        click.echo(f"interrupted: {exc}", err=True)
        raise SystemExit(130) from None
    written("receipt", [result.receipt_path])
    click.echo(summary(result, j.lane.provider, terminal_width()))
    _exit_if_nothing_measured(result)
    click.echo(fit_terminal(next_step(receipt, out, plain=j.plain)))


def next_step(original: Path, new: Path, *, plain: bool) -> str:
    """What to run after a regrade: ``diff`` of the original and the new receipt.

    For a regrade by another judge (``plain``), a diff against a receipt that judge graded:
    diff gives no verdict between receipts graded by different judges.
    """
    from driftproof.render.escape import terminal_safe

    a, b = (terminal_safe(shlex.quote(str(p))) for p in (original, new))
    if not plain:
        return f"To compare it with the original: driftproof diff {a} {b}"
    return (
        f"To compare it: driftproof diff OTHER.json {b}, with OTHER.json graded by the same judge "
        f"(a diff with {a} gives no verdict: its judge is another)"
    )


def summary(result: RegradeResult, provider: str, width: int | None = None) -> str:
    """The line a finished regrade prints: draws read, graded and carried over lost, calls made.

    Then, if graded answers got no valid grade, how many and their three commonest causes.
    ``provider``: the judge's; ``width``: the terminal's width in characters, the line wrapped to
    it, or ``None`` (not a terminal).
    """
    from driftproof.render.escape import fit_text, terminal_safe

    lost = sum(n for _, n in result.lost_causes)
    top = ", ".join(f"{terminal_safe(c)} ({n})" for c, n in result.lost_causes[:3])
    line = (
        f"{terminal_safe(str(result.receipt_path))}: {result.answers_read} draws read: "
        f"{result.answers_graded} graded, "
        + (
            f"{count_of(result.answers_carried, 'draw')} lost in the original receipt, "
            "carried over as lost"
            if result.answers_carried
            else "none lost in the original receipt"
        )
        + f"; {result.logical_judge_calls} grades asked of the judge, "
        + (
            f"none sent over the network (the {provider} judge answers offline)"
            if provider in OFFLINE
            else f"{result.runner_attempts} requests sent (retries included)"
        )
        + (
            f"; {lost} of the {result.answers_graded} graded answers got no valid grade and are "
            f"lost in the new receipt: {top}"
            if lost
            else ""
        )
    )
    return fit_text(line, width)


def _exit_if_nothing_measured(result: RegradeResult) -> None:
    """Exit 4, as ``run`` does, when an arm of the new receipt has no scored draw (D-17)."""
    from driftproof.receipt import read_receipt
    from driftproof.run.engine import nothing_measured_line
    from driftproof.stats import arms_measured_nothing

    r = read_receipt(result.receipt_path)
    if arms := arms_measured_nothing(r):
        line = nothing_measured_line(r, arms, result.receipt_path)
        fail([f"{line}; fix the cause, then run the same regrade again with --force"], 4)
