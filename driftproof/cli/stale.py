"""``driftproof stale RECEIPT``: say, per arm, whether a receipt's result still stands."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from driftproof._json import read_capped, read_skill_md
from driftproof.cli._options import (
    EXISTING_FILE,
    JSON_REFUSED,
    fit_terminal,
    format_option,
    model_id,
    terminal_width,
)
from driftproof.errors import RefusalError

if TYPE_CHECKING:
    from collections.abc import Callable

    from click.decorators import FC

    from driftproof.receipt import Receipt

#: Bytes: the largest judge template stale hashes; a device or pipe that never ends
#: (``--judge-template /dev/zero``) is refused instead of read without end.
MAX_HASHED_BYTES = 64 * 1024 * 1024


def _sha256_file(path: Path) -> str:
    """The sha256 of the ``--judge-template`` file; BadParameter when unreadable or too large."""
    try:
        data = read_capped(path, MAX_HASHED_BYTES)
    except OSError as exc:
        raise click.BadParameter(
            f"{path}: cannot read: {exc.strerror or exc}", param_hint="--judge-template"
        ) from None
    if len(data) > MAX_HASHED_BYTES:
        raise click.BadParameter(
            f"{path}: over {MAX_HASHED_BYTES} bytes, the limit", param_hint="--judge-template"
        )
    return hashlib.sha256(data).hexdigest()


def _skill_sha256(path: Path | None, recorded: str | None) -> str | None:
    """Today's SKILL.md hash as its producer took it, read and refused as ``run`` reads it.

    The text's sha256 with its newlines as written, or as universal newlines when that is the
    one ``recorded``.
    """
    if path is None:
        return None
    text = read_skill_md(
        path, lambda why: click.BadParameter(f"{path}: {why}", param_hint="--skill")
    )
    as_written = hashlib.sha256(text.encode("utf-8")).hexdigest()
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    as_text = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return as_text if recorded == as_text else as_written


def _service(url: str | None, option: str) -> str | None:
    """``url`` as ``run`` records its service: as the SDK's client holds it, credentials stripped.

    Raises:
        click.BadParameter: not an http or https URL, as ``run`` refuses it.
    """
    if url is None:
        return None
    import httpx  # deferred: start-up time of --help

    from driftproof.run.base_url import strip_credentials, url_problem

    if why := url_problem(url):
        raise click.BadParameter(why, param_hint=option)
    with httpx.Client(base_url=url) as client:
        return strip_credentials(str(client.base_url))


def _service_option(flag: str, dest: str, help: str) -> Callable[[FC], FC]:
    """A base-URL option whose value is read as ``run`` records its service (:func:`_service`)."""
    return click.option(flag, dest, callback=lambda _c, p, v: _service(v, p.opts[0]), help=help)


def _printed_version(binary: str) -> str:
    from driftproof.run.providers.base import AttemptError
    from driftproof.run.providers.cli import run_process  # its output capped

    try:
        code, out, err = run_process([binary, "--version"], stdin="", cwd=".", timeout=30)
    except AttemptError as exc:
        cause = exc.__cause__
        why = cause.strerror if isinstance(cause, OSError) and cause.strerror else exc.reason
        raise RefusalError(f"cannot read the harness version from {binary!r}: {why}") from None
    if code:
        raise RefusalError(f"cannot read the harness version from {binary!r}: exit status {code}")
    # bytes that are not UTF-8 become U+FFFD: the version is parsed from the text, never trusted
    return (out.strip() or err.strip())[:1000]


def _today_template(r: Receipt, path: Path | None) -> tuple[str | None, str | None]:
    """Today's judge template (sha256, version): the file's, else ours; ``None``: unknown."""
    if path is not None:
        return _sha256_file(path), None
    if r.provenance is not None and r.regrade is None:
        return None, None  # an imported receipt's grader is the source tool's, not this product's
    from driftproof.run.judge import template_identity  # deferred: start-up time of --help

    return template_identity()


@click.command()
@click.argument("receipt", type=click.Path(path_type=Path))
@click.option("--model", callback=model_id, help="The model that would answer today.")
@click.option("--harness", "harness_name", help="Harness name today (claude-code, codex).")
@click.option("--harness-version", help="Harness version today, as its binary prints it.")
@click.option("--harness-binary", help="Run BINARY --version to read today's harness version.")
@click.option("--capture", type=click.Choice(["text", "files"]), help="Capture mode today.")
@click.option("--skill", type=EXISTING_FILE, help="SKILL.md as it is today.")
@click.option("--suite", type=EXISTING_FILE, help="The suite file as it is today.")
@click.option("--judge-model", callback=model_id, help="The judge model today.")
@_service_option(
    "--base-url",
    "service",
    "The answering API's base URL today, as run's --base-url; a receipt answered by another "
    "service runs again. Not given: the recorded service is named as not compared.",
)
@_service_option(
    "--judge-base-url",
    "judge_service",
    "The judge API's base URL today, as run's --judge-base-url; another service grading means a "
    "regrade. Not given: named as not compared.",
)
@click.option(
    "--judge-template",
    type=EXISTING_FILE,
    help="A judge prompt template edited outside the product (its file's sha256). Default: the "
    "template this product runs today, for a receipt that driftproof run or regrade made.",
)
@format_option(["text", "json"], help=JSON_REFUSED)
def stale(
    receipt: Path,
    harness_binary: str | None,
    skill: Path | None,
    suite: Path | None,
    judge_template: Path | None,
    fmt: str,
    **given: Any,
) -> None:
    """Compare RECEIPT with what would run today.

    Each arm of the receipt gets one status, the strongest its changes give:

    still stands: nothing it depends on changed (a patch release of the harness is only noted;
    a changed skill leaves an arm run without the skill standing).

    regrade only: only the grading changed (the judge model or its service, the judge's prompt
    template, or a case's rubric); the answers a run kept (--keep-transcripts) can be graded
    again with driftproof regrade.

    run again: what produces the answers changed (the model, the service that answers it, the
    harness, a minor or major harness version, the capture mode, the skill, a case's prompt), or
    the suite changed where its prompts cannot be told from its rubrics (the receipt or today's
    suite gives no hashes per case, or a part of the suite they do not cover may have changed);
    also only the grading changed but the receipt kept no answers to grade again, or lost every
    draw (a regrade keeps a lost draw lost).

    unknown: something it depends on is not recorded in the receipt or not given here (give
    --model, --skill, --suite and the rest to check it); it is never read as unchanged, and
    only run again outranks it.

    Exit 0 when every arm still stands, 1 when an arm must run again, be regraded, or cannot be
    confirmed (unknown).
    """
    from driftproof.pages.stale import Today, stale_report  # deferred: start-up time of --help
    from driftproof.receipt import read_receipt
    from driftproof.regrade.identity import today_suite
    from driftproof.render.stale import stale_text

    r = read_receipt(receipt)
    if harness_binary and not given["harness_version"]:
        given["harness_version"] = _printed_version(harness_binary)
    template_sha256, template_version = _today_template(r, judge_template)
    today = Today(
        **given,  # --model, --harness, --harness-version, --capture, --judge-model as given
        skill_sha256=_skill_sha256(skill, r.skill.sha256),
        **(today_suite(suite, r) if suite is not None else {}),
        judge_template_sha256=template_sha256,
        judge_template_version=template_version,
    )
    report = stale_report(r, today)
    if fmt == "json":
        click.echo(json.dumps(asdict(report), indent=2, sort_keys=True))
    else:
        click.echo(stale_text(report, terminal_width()))
        nxt = next_command(r, {a.status for a in report.arms}, receipt, suite, skill, given)
        click.echo(fit_terminal(f"\n{nxt}") if nxt else "", nl=bool(nxt))
    if any(a.status != "still stands" for a in report.arms):
        raise SystemExit(1)


#: The lanes ``driftproof run --provider`` takes, named from a receipt only when it is one.
_RUN_LANES = ("anthropic", "openai", "stub", "simulated")


def _rerun_words(r: Receipt, given: dict[str, Any]) -> tuple[list[str], list[str]]:
    """``run``'s options for a receipt comparable with ``r``, and the options ``r`` does not record.

    Today's model, capture, base URLs and judge model where given, else the receipt's; the
    answer and grade budgets only where they differ from ``run``'s defaults.
    """
    from driftproof.render.escape import shell_word  # deferred: start-up time of --help
    from driftproof.run.run_plan import RunOptions

    run, judge, missing = r.run, r.judge, []
    model = given.get("model") or run.model
    provider = run.provider if run.provider in _RUN_LANES else None
    args = [
        "--model",
        shell_word(model) if model else "MODEL",
        "--provider",
        provider or "PROVIDER",
    ]
    args += ["--surface", "cli"] if run.surface == "cli" else []
    args += ["--capture", "files"] if (given.get("capture") or run.capture) == "files" else []
    online = run.surface != "cli" and provider in ("anthropic", "openai")
    if url := given.get("service") or (r.arms.with_skill.service if online else None):
        args += ["--base-url", shell_word(url)]
    missing += ["--base-url"] if online and not url else []
    if judge is not None and judge.provider in _RUN_LANES:
        judge_model = given.get("judge_model") or judge.model
        args += ["--judge-provider", judge.provider, "--judge-model", shell_word(judge_model)]
        if url := given.get("judge_service") or judge.service:
            args += ["--judge-base-url", shell_word(url)]
    else:
        missing += ["its judge"]
    shape = (judge.sampling or {}).get("api") if judge and judge.provider == "openai" else None
    if shape is None and online and provider == "openai":
        shape = "chat" if run.budget_param else None
        missing += [] if shape else ["--openai-api"]
    args += ["--openai-api", shape] if shape in ("responses", "chat") else []
    if run.preset == "quick":
        args += ["--quick"]
    elif run.generations_per_arm:
        args += ["--draws", str(run.generations_per_arm)]
    else:
        missing += ["--max-draws"]
    control = r.arms.control.instruction if r.arms.control is not None else None
    args += ["--control", shell_word(control)] if control else []
    args += ["--lang", run.language] if run.language else []
    args += ["--margin", f"{run.quality_margin:g}"] if run.quality_margin else []
    args += ["--aa"] if run.aa else []
    args += ["--batch"] if run.batch is not None else []
    for option, used, default in (
        ("--max-output-tokens", run.max_output_tokens, RunOptions.max_output_tokens),
        (
            "--judge-max-output-tokens",
            judge and judge.max_output_tokens,
            RunOptions.judge_max_output_tokens,
        ),
    ):
        args += [option, str(used)] if used and used != default else []
    return args, missing


def next_command(
    r: Receipt,
    statuses: set[str],
    receipt: Path,
    suite: Path | None,
    skill: Path | None,
    given: dict[str, Any],
) -> str | None:
    """The command to run next for the strongest status: ``run`` for run again, ``regrade``.

    Each argument is today's where given, else the receipt's where it records one (model,
    provider, surface, base URLs, judge, draws, and the other options ``run`` records), else a
    placeholder (SUITE, SKILL.md); an option the receipt does not record is named as such.
    ``None`` for still stands or unknown alone, whose lines say what to give.
    """
    from driftproof.render.escape import shell_path, shell_word  # deferred: start-up of --help

    rubric = shell_path(suite) if suite is not None else "SUITE"
    judge = given.get("judge_model")
    judge_moved = judge and r.judge is not None and judge != r.judge.model
    if "run again" in statuses:
        args, missing = _rerun_words(r, given)
        how = f"To measure it again: driftproof run {rubric} --skill "
        how += (shell_path(skill) if skill is not None else "SKILL.md") + " " + " ".join(args)
        how += f" --out NEW.json, then driftproof diff {shell_path(receipt)} NEW.json"
        if missing:
            how += (
                f" (the receipt does not record {' or '.join(missing)}: give as the first run did)"
            )
        return how + "."
    if "regrade only" in statuses:
        args = [shell_path(receipt), "--rubric", rubric, "--out", "NEW.json"]
        if judge_moved and r.judge is not None:
            lane = r.judge.provider if r.judge.provider in _RUN_LANES else "PROVIDER"
            args += ["--judge-provider", lane, "--judge-model", shell_word(str(judge))]
        return f"To grade its kept answers again: driftproof regrade {' '.join(args)}."
    return None
