"""``driftproof run SUITE --skill SKILL.md --model M --provider P --surface S``: measure a skill.

Each case's prompt is answered with the skill (SKILL.md as the system prompt) and without it,
and, with --control, under a fixed instruction too; every draw is judged 5 times by the fixed
judge, which records its grade through the provider's structured output (a forced tool call,
a strict JSON schema), never as free text the answer could steer. A killed run resumes: run
the same command again. The result is a sealed receipt.

Budgets: --max-output-tokens (default 8192) for each answer and --judge-max-output-tokens (default
4096, room for a reasoning judge) for each grade, both recorded in the receipt. Stop reasons: every
draw records the provider's stop reason. Only a finished final answer is graded: a reply whose
ending is not in its lane's table of complete endings (listed at the end) is a lost draw named by
its class. An answer cut off by the budget (max_tokens, length, incomplete) is a lost draw, "cut
off at N output tokens", unless the suite declares "truncation": "accepted", which applies to the
output budget only; a refusal is a lost draw of its own kind, with the refusal text and category
kept. A server abort is retried like a transient error. Reasoning (thinking blocks, reasoning
fields, a leading <think> block, Responses items that are not the final answer) is kept apart:
never graded, checked or shown to the judge, and recorded by its length and hash only.

The skill reached the model: where the provider reports input tokens, a draw with the skill that
reports fewer than 80% of the skill's own size (o200k_base tokens; the margin allows for the serving
model's tokenizer) is lost, "the server dropped part of the prompt, or counts only the prompt tokens
it did not take from its cache" (the count cannot tell the two apart). On the API lanes the arms of
each case are also compared when the receipt is sealed: a with-skill draw whose reported input
exceeds the baseline's median (with --control, the control's) by less than 80% of the skill's size
is lost, "a reported input without room for the skill". A skill cut by less than 20%, or by more
where the server's tokenizer makes more tokens of it than o200k_base does, passes; view says so. The
receipt records each arm's median reported input tokens; a reported 0 is read as unrecorded.

Error classes: 408, 409, 429, Groq's 498 capacity_exceeded, 5xx, 529 and overloaded_error are
transient: retried up to 4 attempts with jittered exponential back-off (2 s, 4 s, 8 s ... plus
jitter) that waits at least the server's retry-after, at most 120 s; every failed attempt and wait
is recorded on the draw, and a draw that still fails is lost naming its last error and class. A 400
(or TGI's 422, or a 413) saying the prompt is past the model's context window loses that draw, never
retried, as does a 400 saying a content filter stopped the prompt (Azure OpenAI's) or the model's
generation failed (Groq's: a tool called unasked, a grade not matching its schema); other 400s, and
401, 402 (no credit left), 403, 404 and other 422s (and a CLI envelope carrying them), stop the run
at once: it keeps its journal and exits 2; so does a base URL refusing connections before any call
to it was answered (no server there), at its first attempt, while one refusing after an answer is
retried, and a 200 whose body is a web page or (API lanes) is compressed though asked for
uncompressed. Any other 4xx loses its draw, not retried. So does an API reply over 64 MiB.

A receipt at --out, or its transcripts, is never replaced without --force. Ctrl-C (or SIGTERM) stops
the run, keeps every finished draw in the journal and prints the command that resumes it.

Exit status: 0 when the receipt is written; 2 for a bad suite, an existing --out (without
--force), a refused journal, a missing key (one line naming the variable; nothing is written),
a lane that cannot run or an error that stops the run (nothing is written, the journal is
kept), or a full standard output once the receipt is written (as the error says); 3 when a reply
came from another model than the one asked for, so the run stopped (its receipt reads UNVERIFIED); 4
when an arm has no measured draw (one line names the commonest lost reason, with the base URL
where no connection got an answer; the receipt is written, reading "not measured" unless only
the control arm has none, and the journal is kept); 130 when
interrupted by Ctrl-C or SIGTERM before the receipt is written (the journal is kept); once it
is written, a stop says the run is complete and where it is, and exits as the run does.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from driftproof.cli import fail, written
from driftproof.cli._options import (
    EXISTING_FILE,
    FILE,
    Delays,
    FiniteRange,
    choice_option,
    input_file_option,
    judge_price_option,
    model_id,
    openai_api_option,
    seconds_option,
    terminal_width,
    tokens_option,
)
from driftproof.errors import RefusalError
from driftproof.outputs import (
    STAGED_EXTRA,
    refuse_existing_output,
    refuse_long_name,
    refuse_output_on_input,
)
from driftproof.run.endings import table_lines
from driftproof.run.run_plan import (
    DEFAULT_JUDGE,
    JUDGE_PRICE_HELP,
    STOPPING_RULE,
    RunOptionError,
    RunOptions,
    plan_run,
    start_run,
)
from driftproof.wording import MAX_DRAWS_IN_ARM

#: The answering lanes, each with a default judge (--provider and --judge-provider).
_PROVIDERS = click.Choice(list(DEFAULT_JUDGE))


def resume_command(argv: Sequence[str] | None) -> str:
    r"""The command line that resumes a run, quoted for a POSIX shell.

    ``argv`` is what the command was given (``None``: this process's ``sys.argv``). An argument
    is quoted by :func:`~driftproof.render.escape.shell_word`.
    """
    from driftproof.render.escape import shell_word

    return " ".join(map(shell_word, ["driftproof", *(sys.argv[1:] if argv is None else argv)]))


def with_progress(fn: Any, console: Any = None) -> Any:
    """Call ``fn(progress)`` under a progress bar on stderr (off when not a terminal); its result.

    The bar shows draws done of planned, ETA and spend, then sealing as one more step, so that it
    never reads finished before the receipt is written; with ``--batch``, ``progress.batch`` adds
    each open batch's state and counts, ``progress.stopping(n, seconds)`` prints
    :func:`stopping_line` and ``progress.note(line)`` prints ``line``.
    """
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from driftproof.render.console import TextConsole

    console = console or TextConsole(stderr=True)
    with Progress(
        TextColumn("{task.fields[phase]}"),
        BarColumn(),
        TextColumn("{task.fields[draws]}"),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        TextColumn("spend ${task.fields[spend]:.4f}"),
        TextColumn("{task.fields[batch]}"),
        console=console,
        disable=not console.is_terminal,
    ) as bar:
        task = bar.add_task("draws", total=None, spend=0.0, phase="draws", draws="", batch="")

        def progress(done: int, total: int, spend: float, phase: str = "draws") -> None:
            completed, steps, label = bar_steps(done, total, phase)
            bar.update(
                task,
                completed=completed,
                total=steps,
                spend=spend,
                draws=f"{done}/{total}",
                phase=label,
            )

        def batch_status(statuses: Any) -> None:
            from driftproof.run.batch_io import describe

            bar.update(task, batch=describe(statuses))

        def note(line: str) -> None:
            bar.console.print(line, markup=False, highlight=False, soft_wrap=True)

        def stopping(n: int, seconds: float) -> None:  # called with seconds= by keyword
            note(stopping_line(n, seconds))

        progress.batch = batch_status  # type: ignore[attr-defined]
        progress.stopping = stopping  # type: ignore[attr-defined]
        progress.note = note  # type: ignore[attr-defined]

        return fn(progress)


def stopping_line(n: int, seconds: float) -> str:
    """What a first Ctrl-C prints: the calls of ``n`` draws in flight end, each within ``seconds``.

    A draw makes no further call after the stop, so one whose call was not its last is not kept
    (it is drawn again on resume). The seconds are in plain digits (``1,234,567``, ``0.5``).
    """
    draws = "the draw" if n == 1 else f"the {n} draws"
    at_most = f"{seconds:,.2f}".rstrip("0").rstrip(".")
    return (
        f"Stopping: waiting for the calls of {draws} in flight to end (at most {at_most} s); "
        "a draw they do not finish is drawn again when you resume; "
        "press Ctrl-C again to stop now."
    )


def bar_steps(done: int, total: int, phase: str) -> tuple[int, int, str]:
    """(steps completed, steps in all, label): each planned draw a step, sealing one more."""
    steps = total + 1
    if phase == "done":
        return steps, steps, "sealed"
    return done, steps, phase


_SUMMARY, _DETAILS = __doc__.split("\n\n", 2)[1:]


@click.command(
    # what the command does, then the options, then the rules in detail and the endings' table
    help="Measure what a skill adds to a model; write a sealed receipt.\n\n" + _SUMMARY,
    epilog=_DETAILS
    + "\n\nStopping rule: "
    + STOPPING_RULE
    + "\n\nComplete endings, and the class of every other ending, per lane:\n\n\b\n"
    + "\n".join(table_lines()),
)
@click.pass_obj
@click.argument("suite_file", type=EXISTING_FILE)
@input_file_option("--skill", "skill_path", "The SKILL.md to measure.")
@click.option("--model", required=True, callback=model_id, help="The model that answers.")
@click.option(
    "--provider",
    type=_PROVIDERS,
    required=True,
    help="The answering lane; its API reads its key from ANTHROPIC_API_KEY (or "
    "ANTHROPIC_AUTH_TOKEN) for anthropic, OPENAI_API_KEY for openai (set to any value for a "
    "server that takes none). stub: fixed answers and scores (a hash of the request), no model; "
    "simulated: seeded random answers and scores, no model (driftproof demo); both UNVERIFIED.",
)
@choice_option(
    "--surface",
    choices=["api", "cli"],
    default="api",
    help="api: the official SDK; cli: claude -p / codex exec, isolated.",
)
@choice_option(
    "--capture",
    choices=["text", "files"],
    default="text",
    help="CLI only: grade the reply (text) or the reply plus the files the agent left (files).",
)
@click.option(
    "--out",
    "out",
    type=FILE,
    default=Path("receipt.json"),
    show_default=True,
    help="The receipt file to write (its journal sits beside it); never replaced without --force.",
)
@click.option("--force", is_flag=True, help="Replace an existing receipt at --out.")
@click.option(
    "--skill-name",
    help="Default: the SKILL.md front matter name, else its folder's name; at most 200 characters.",
)
@click.option(
    "--judge-provider",
    type=_PROVIDERS,
    help="Default: anthropic, even when --provider is openai (the same lane when --provider is "
    "stub or simulated); its key is read as for --provider. A judge on a local server needs "
    "--judge-provider openai --judge-base-url URL.",
)
@click.option(
    "--judge-model",
    callback=model_id,
    help="Default: claude-haiku-4-5-20251001 (anthropic), gpt-5-mini (openai).",
)
@judge_price_option(JUDGE_PRICE_HELP)
@click.option(
    "--base-url", help="Answering API's base URL (default: the SDK's, or its *_BASE_URL variable)."
)
@click.option(
    "--judge-base-url",
    help="Judge API's base URL (default: the SDK's, or its *_BASE_URL variable); --base-url "
    "does not set it.",
)
@openai_api_option(
    "OpenAI API shape of the answering lane and of an openai judge alike (default: responses); "
    "OpenAI-compatible servers (vLLM, llama.cpp, Ollama) usually need chat. Refused when "
    "neither lane is OpenAI's API.",
)
@choice_option(
    "--budget-param",
    choices=["auto", "max_tokens", "max_completion_tokens"],
    default="auto",
    help="Chat Completions only: how the output budget is spelled. auto sends "
    "max_completion_tokens to OpenAI and max_tokens to any other host, and retries once with "
    "the other spelling when the host refuses it (HTTP 400 naming it); the receipt records "
    "the spelling used.",
)
@tokens_option(
    "--max-output-tokens",
    8192,
    "Output budget of each answer; a reply cut off by it is a lost draw unless the suite "
    'declares "truncation": "accepted".',
)
@tokens_option(
    "--judge-max-output-tokens",
    4096,
    "Output budget of each judge call (leave a reasoning judge room to record its grade).",
)
@click.option(
    "--control",
    help='A control arm with this fixed instruction, e.g. "Answer concisely."; the skill '
    "arm is then the control, a blank line and SKILL.md (caveman's arms).",
)
@click.option(
    "--lang",
    "lang",
    help="Run the suite's prompts in this language (its translations) with the "
    "control translated (the suite's controls table, else the product's); stops before any "
    "call when either is missing.",
)
@click.option(
    "--seed", type=int, default=0, show_default=True, help="Seed of the simulated provider."
)
@click.option(
    "--quick",
    is_flag=True,
    help="Smoke run: first case only, 2 draws per arm, 2 judge samples, "
    "concurrency 4, answers side by side; the receipt reads UNVERIFIED (no verdict).",
)
@click.option(
    "--keep-transcripts",
    is_flag=True,
    help="Keep every answer in the receipt, and the judge's "
    "replies in <receipt>.transcripts.jsonl, for a later regrade.",
)
@click.option(
    "--aa",
    is_flag=True,
    help="An A/A calibration: run the with-skill arm twice under the same settings (the second "
    "run takes the baseline arm's place). The receipt gives no skill verdict; diff --aa cites it.",
)
@click.option(
    "--margin",
    type=FiniteRange(0, 1, min_open=True),
    metavar="M",
    help="For a skill that saves output tokens: declare before the run how much worse its "
    "quality may be than the other arm's (0 to 1, on the judge's scale or the checks' pass "
    "rate); the receipt records M, and view says whether quality stayed within it.",
)
@click.option(
    "--concurrency",
    type=click.IntRange(1, 256),
    default=8,
    show_default=True,
    help="How many draws are made at once, each answered and then judged.",
)
@click.option(
    "--max-draws",
    type=click.IntRange(3, 100),
    help="Cap on draws per arm (stopping rule)  [default: 10]",
)
@click.option(
    "--draws",
    type=click.IntRange(3, MAX_DRAWS_IN_ARM),
    help="Draw each arm exactly this many times, in place of the stopping rule: the count "
    "driftproof plan gives.",
)
@seconds_option("--timeout", 300.0, "Seconds per answering attempt.")
@seconds_option("--judge-timeout", 120.0, "Seconds per judging attempt.")
@click.option("--retry-delays", hidden=True, type=Delays(), callback=lambda _c, _p, v: v or None)
@click.option(
    "--batch",
    is_flag=True,
    help="Send each round through the provider's batch API (Anthropic Message "
    "Batches, OpenAI Batch API) at the batch price (give --judge-price as the batch price): "
    "a batch finishes within 24 h, not minutes.",
)
@seconds_option(  # None: not given (refused without --batch); defaults in run.batch_io
    "--batch-timeout",
    None,
    "Seconds after which a batch that has not ended is cancelled (its finished results are "
    "kept); with --batch, a day (86400) when not given.",
)
@seconds_option(
    "--batch-poll-interval",
    None,
    "Seconds between polls of the open batches; with --batch, 60 when not given. A batch "
    "whose polls fail as many times in a row as a call is attempted stops the run, its "
    "journal kept: run the same command again to resume.",
    minimum=0.0,
)
@click.option(
    "--batch-resend-unrecorded",
    is_flag=True,
    help="Send again the requests of an Anthropic batch the stopped run may have made and not "
    "recorded, once the run has named it (cancel that batch first, or it is billed twice).",
)
def run(argv: tuple[str, ...] | None, out: Path, force: bool, **options: Any) -> None:
    """Plan the run from its options (:func:`~driftproof.run.run_plan.plan_run`), run it, print."""
    from driftproof.render.escape import terminal_safe
    from driftproof.render.run_summary import print_result
    from driftproof.run.config import RunInterrupted, StoppedWritten  # deferred: run --help
    from driftproof.run.sealing import transcripts_file

    inputs = {"suite_file": options["suite_file"], "skill": options["skill_path"]}
    refuse_output_on_input(out, "--out", **inputs)
    refuse_output_on_input(Path(f"{out}.journal"), "--out's run journal", **inputs)
    if options["keep_transcripts"]:
        refuse_output_on_input(transcripts_file(out), "--keep-transcripts", **inputs)
    if not force and out.exists() and (journal := Path(f"{out}.journal")).exists():
        raise RefusalError(  # a kill after the receipt was written, before the journal went
            f"--out {out} already exists; it was not replaced. The run journal {journal} is "
            "still beside it (a run writing it stopped before removing it): give --force to "
            "write the receipt again from that journal, or remove the journal"
        )
    refuse_existing_output(out, "--out", force=force)
    if options["keep_transcripts"] and not Path(f"{out}.journal").exists():  # a resume's own goes
        refuse_existing_output(transcripts_file(out), "--keep-transcripts", force=force)
    # the longest name beside it: .<name>.XXXXXXXX.tmp or .<name>.transcripts-XXXXXXXX
    refuse_long_name(out, "--out", 22 if options["keep_transcripts"] else STAGED_EXTRA)
    try:
        plan = plan_run(RunOptions(**options))
    except RunOptionError as exc:
        raise click.BadParameter(exc.message, param_hint=exc.option) from None
    done: list[Any] = []  # the finished run's result, once start_run returns it
    try:
        with_progress(
            lambda p: done.append(start_run(plan, out, replace_existing=force, progress=p))
        )
        written("receipt", [done[0].receipt_path])
        print_result(done[0], width=terminal_width())
    except RunInterrupted as exc:
        click.echo(
            f"interrupted: {exc.kept} finished draw{'s' if exc.kept != 1 else ''} kept in "
            f"{terminal_safe(str(exc.journal))}; no receipt was written yet.\n"
            f"To resume, run the same command again:\n  {resume_command(argv)}",
            err=True,
        )
        raise SystemExit(130) from None
    except KeyboardInterrupt as exc:  # once the receipt is written: the run is complete
        done += [exc.result] if isinstance(exc, StoppedWritten) else []
        if not done:
            raise
        why = done[0].stopped  # said as the summary the stop cut short says it
        click.echo(
            f"stopped: the run {'ended early' if why else 'is complete'} and its receipt is "
            f"written to {terminal_safe(str(done[0].receipt_path))}; there is nothing to resume"
            + (f"\nstopped: {terminal_safe(why)}" if why else ""),
            err=True,
        )
    result = done[0]
    if result.stopped:
        raise SystemExit(3)
    if result.unmeasured is not None:
        fail([result.unmeasured], 4)
