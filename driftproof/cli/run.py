"""``driftproof run SUITE --skill SKILL.md --model M --provider P --surface S``: measure a skill.

Each case's prompt is answered with the skill (SKILL.md as the system prompt) and without it,
and, with --control, under a fixed instruction too; every draw is judged 5 times by the fixed
judge, which records its grade through the provider's structured output (a forced tool call,
a strict JSON schema), never as free text the answer could steer. A killed run resumes: run
the same command again. The result is a sealed receipt.

Budgets: --max-output-tokens (default 8192) for each answer and --judge-max-output-tokens
(default 4096, room for a reasoning judge) for each grade, both recorded in the receipt.
Stop reasons: every draw records the provider's stop reason. Only a finished final answer is
graded: a reply whose ending is not in its lane's table of complete endings (listed at the
end) is a lost draw named by its class. An answer cut off by the budget (max_tokens, length,
incomplete) is a lost draw, "cut off at N output tokens", unless the suite declares
"truncation": "accepted", which applies to the output budget only; a refusal is a lost draw
of its own kind, with the refusal text and category kept. A server abort is retried like a
transient error. Reasoning (thinking blocks, reasoning fields, a leading <think> block,
Responses items that are not the final answer) is kept apart: never graded, checked or shown
to the judge, and recorded by its length and hash only.

The skill reached the model: where the provider reports input tokens, a draw with the skill
that reports fewer than 80% of the skill's own size (o200k_base tokens; the margin allows for
the serving model's tokenizer) is lost, "the server dropped part of the prompt". The receipt
records each arm's median reported input tokens; a reported 0 is read as unrecorded.

Error classes: 408, 409, 429, 5xx, 529 and overloaded_error are transient: retried up to 4
attempts with jittered exponential back-off (2 s, 4 s, 8 s ... plus jitter) that waits at least
the server's retry-after, at most 120 s; every failed attempt and wait is recorded on the draw,
and a draw that still fails is lost naming its last error and class. 400, 401, 403, 404 and
422 (and a CLI envelope carrying them) are fatal: the run stops at once, keeps its journal
and exits 2.

An existing receipt at --out is never replaced without --force. Ctrl-C stops the run, keeps
every finished draw in the journal and prints the command that resumes it.

Exit status: 0 when the receipt is written; 2 for a bad suite, an existing --out (without
--force), a refused journal, a missing key (one line naming the variable; nothing is written),
a lane that cannot run or a fatal error (nothing is written, the journal is kept); 3 when the
run stopped because another model gave an answer (the receipt is written and reads
UNVERIFIED); 4 when an arm has no measured draw (one line names the commonest lost reason,
with the base URL where no connection got an answer; the receipt is written and reads "not
measured", the journal is kept); 130 when interrupted (the journal is kept).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from driftproof.cli._options import (
    EXISTING_FILE,
    FILE,
    choice_option,
    input_file_option,
    openai_api_option,
    seconds_option,
    tokens_option,
)
from driftproof.cli.run_progress import resume_command, with_progress
from driftproof.cli.run_setup import (
    DEFAULT_JUDGE,
    KNOWN_BATCH_PRICES,
    KNOWN_PRICES,
    OFFLINE,
    parse_delays,
    parse_price,
    simulated_options,
    skill_name_of,
)
from driftproof.run.endings import table_lines
from driftproof.wording import SMOKE_RUN

STOPPING_RULE = (
    "Each arm is drawn at least 3 times, then once more at a time while the sample standard "
    "deviation of its per-draw scores moves by 0.01 or more when the latest draw is added, up to "
    "--max-draws draws (default 10). Lost draws are not replaced."
)
#: The answering lanes, each with a default judge (--provider and --judge-provider).
_PROVIDERS = click.Choice(list(DEFAULT_JUDGE))


@click.command(
    help=__doc__.split("\n\n", 1)[1]
    + "\n\nStopping rule: "
    + STOPPING_RULE
    + "\n\nComplete endings, and the class of every other ending, per lane:\n\n\b\n"
    + "\n".join(table_lines())
)
@click.argument("suite_file", type=EXISTING_FILE)
@input_file_option("--skill", "skill_path", "The SKILL.md to measure.")
@click.option("--model", required=True, help="The model that answers.")
@click.option(
    "--provider",
    type=_PROVIDERS,
    required=True,
    help="simulated: seeded random answers and scores, no model (driftproof demo); UNVERIFIED.",
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
    "--skill-name", help="Default: the SKILL.md front matter name, else its folder's name."
)
@click.option(
    "--judge-provider",
    type=_PROVIDERS,
    help="Default: anthropic (the same lane when --provider is stub or simulated).",
)
@click.option(
    "--judge-model", help="Default: claude-haiku-4-5-20251001 (anthropic), gpt-5-mini (openai)."
)
@click.option(
    "--judge-price",
    help="Judge price IN,OUT[,CACHE_READ,CACHE_WRITE] in USD per million tokens, "
    "frozen in the receipt; cache parts without a price are priced as input.",
)
@click.option(
    "--base-url", help="Answering API's base URL (default: the SDK's, or its *_BASE_URL variable)."
)
@click.option("--judge-base-url", help="Judge API's base URL.")
@openai_api_option(
    "OpenAI API shape; OpenAI-compatible servers (vLLM, llama.cpp, Ollama) usually need chat.",
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
    "arm is then the control, a blank line and SKILL.md (caveman's arms, seed 004).",
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
    type=click.FloatRange(0, 1, min_open=True),
    default=None,
    help="Declare a non-inferiority margin (0 to 1, judge score or check pass rate) before the "
    "run; the receipt records it, and view reads quality at it.",
)
@click.option("--concurrency", type=click.IntRange(1, 256), default=8, show_default=True)
@click.option(
    "--max-draws",
    type=click.IntRange(3, 100),
    default=10,
    show_default=True,
    help="Cap on draws per arm (stopping rule).",
)
@seconds_option("--timeout", 300.0, "Seconds per answering attempt.")
@seconds_option("--judge-timeout", 120.0)
@click.option("--retry-delays", default=None, hidden=True)
@click.option(
    "--batch",
    is_flag=True,
    help="Send each round through the provider's batch API (Anthropic Message "
    "Batches, OpenAI Batch API) at the batch price (give --judge-price as the batch price): "
    "a batch finishes within 24 h, not minutes.",
)
@seconds_option(
    "--batch-timeout",
    24 * 3600.0,
    "Seconds after which a batch that has not ended is cancelled (its finished results are kept).",
)
@seconds_option(
    "--batch-poll-interval", 60.0, "Seconds between polls of the open batches.", minimum=0.0
)
def run(
    suite_file: Path,
    skill_path: Path,
    model: str,
    provider: str,
    surface: str,
    capture: str,
    out: Path,
    skill_name: str | None,
    judge_provider: str | None,
    judge_model: str | None,
    judge_price: str | None,
    base_url: str | None,
    judge_base_url: str | None,
    openai_api: str,
    budget_param: str,
    max_output_tokens: int,
    judge_max_output_tokens: int,
    control: str | None,
    lang: str | None,
    seed: int,
    quick: bool,
    keep_transcripts: bool,
    aa: bool,
    margin: float | None,
    concurrency: int,
    max_draws: int,
    timeout: float,
    judge_timeout: float,
    retry_delays: str | None,
    force: bool,
    batch: bool,
    batch_timeout: float,
    batch_poll_interval: float,
) -> None:
    from driftproof.run.engine import RunConfig, RunInterrupted, run_suite
    from driftproof.run.providers import make_provider
    from driftproof.run.suite import in_language, load_suite, require_gradable

    if len(model) > 200 or (judge_model and len(judge_model) > 200):
        raise click.BadParameter("a model id is at most 200 characters", param_hint="--model")
    from driftproof.cli._paths import refuse_existing_output, refuse_output_on_input

    refuse_output_on_input(out, "--out", suite_file=suite_file, skill=skill_path)
    refuse_existing_output(out, "--out", force=force)
    suite = load_suite(suite_file)
    require_gradable(suite)
    if lang is not None:
        suite, control = in_language(suite, lang, control)
    skill_text = skill_path.read_text(encoding="utf-8")
    if aa and control is not None:
        raise click.BadParameter(
            "an A/A calibration runs the with-skill arm twice and takes no control",
            param_hint="--aa",
        )
    if capture != "text" and (surface != "cli" or provider in OFFLINE):
        raise click.BadParameter("--capture files needs --surface cli", param_hint="--capture")
    jp = judge_provider or (provider if provider in OFFLINE else "anthropic")
    jm = judge_model or DEFAULT_JUDGE[jp]
    if batch and (provider in OFFLINE or surface != "api" or jp in OFFLINE):
        raise click.BadParameter(
            "--batch needs API lanes (--provider anthropic|openai --surface api, and an API "
            "judge): the CLIs, the stub and the simulated lane have no batch API",
            param_hint="--batch",
        )
    table = KNOWN_BATCH_PRICES if batch else KNOWN_PRICES
    price = (
        parse_price(judge_price) if judge_price else table.get(jm) if jp not in OFFLINE else None
    )
    opts: dict[str, Any] = {}
    if provider == "simulated":
        opts = simulated_options(seed, skill_text, control)
    elif provider != "stub":
        opts = (
            {
                "base_url": base_url,
                "api": openai_api if provider == "openai" else None,
                "budget_param": budget_param if provider == "openai" else None,
            }
            if surface == "api"
            else {"capture": capture}
        )
    lane = make_provider(provider, surface, **opts)
    jopts: dict[str, Any] = {
        "base_url": judge_base_url,
        "api": openai_api if jp == "openai" else None,
    }
    if jp in OFFLINE:
        jopts = {"seed": seed} if jp == "simulated" else {}
    judge = lane if jp == provider == "simulated" else make_provider(jp, "api", **jopts)
    kw: dict[str, Any] = dict(
        model=model,
        judge_model=jm,
        judge_price=price,
        max_draws=max_draws,
        concurrency=concurrency,
        timeout=timeout,
        judge_timeout=judge_timeout,
        retry_delays=parse_delays(retry_delays) if retry_delays else None,
        max_tokens=max_output_tokens,
        judge_max_tokens=judge_max_output_tokens,
        keep_transcripts=keep_transcripts,
        control=control,
        language=lang,
        aa=aa,
        margin=margin,
    )
    batch_opts = None
    if batch:
        from driftproof.run.batch_engine import BatchOptions

        kw["batch"] = batch_opts = BatchOptions(
            poll_interval=batch_poll_interval, timeout=batch_timeout
        )
    cfg = RunConfig.quick_preset(**kw) if quick else RunConfig(**kw)

    def go(progress: Any) -> Any:
        if batch_opts is not None:
            batch_opts.on_status = progress.batch
        return run_suite(
            suite,
            skill_text=skill_text,
            skill_name=skill_name or skill_name_of(skill_path, skill_text),
            cfg=cfg,
            provider=lane,
            judge=judge,
            out=out,
            progress=progress,
            replace=force,
        )

    try:
        result = with_progress(go)
    except RunInterrupted as exc:
        click.echo(
            f"interrupted: {exc.kept} finished draw{'s' if exc.kept != 1 else ''} kept in "
            f"{exc.journal}; no receipt was written yet.\n"
            f"To resume, run the same command again:\n  {resume_command()}",
            err=True,
        )
        raise SystemExit(130) from None
    from driftproof.render.run_summary import print_result

    print_result(result)
    if result.stopped:
        raise SystemExit(3)
    if result.unmeasured is not None:
        click.echo(f"error: {result.unmeasured}", err=True)
        raise SystemExit(4)


__all__ = ["SMOKE_RUN", "STOPPING_RULE", "run"]
