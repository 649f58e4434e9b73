"""``driftproof stale RECEIPT``: say, per arm, whether a receipt's result still stands."""

from __future__ import annotations

import hashlib
import json
import subprocess
from dataclasses import asdict
from pathlib import Path

import click

from driftproof.errors import RefusalError
from driftproof.receipt import read_receipt
from driftproof.stale import StaleReport, Today, stale_report


def _sha256_file(path: Path | None) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path is not None else None


def _printed_version(binary: str) -> str:
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30, check=True)
    except (OSError, subprocess.SubprocessError) as exc:
        raise RefusalError(f"cannot read the harness version from {binary!r}: {exc}") from None
    return out.stdout.strip() or out.stderr.strip()


def render_text(report: StaleReport) -> str:
    """The stale report as plain text: one line per arm, then every finding."""
    lines = [f"{a.arm}: {a.status}" + (f" ({'; '.join(a.reasons)})" if a.reasons else "") for a in report.arms]
    lines.append("")
    for f in report.findings:
        tag = "advisory" if f.advisory else f.effect
        lines.append(f"- {f.field}: recorded {f.recorded or 'unknown'}, today {f.today or 'not supplied'} -> {tag}: {f.note}")
    return "\n".join(lines)


@click.command()
@click.argument("receipt", type=click.Path(path_type=Path))
@click.option("--model", help="The model that would answer today.")
@click.option("--harness", "harness_name", help="Harness name today (claude-code, codex).")
@click.option("--harness-version", help="Harness version today, as its binary prints it.")
@click.option("--harness-binary", help="Run BINARY --version to read today's harness version.")
@click.option("--capture", type=click.Choice(["text", "files"]), help="Capture mode today.")
@click.option("--skill", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="SKILL.md as it is today.")
@click.option("--suite", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="The suite file as it is today.")
@click.option("--judge-model", help="The judge model today.")
@click.option("--judge-template", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="The judge prompt template today.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def stale(receipt: Path, model: str | None, harness_name: str | None, harness_version: str | None,
          harness_binary: str | None, capture: str | None, skill: Path | None, suite: Path | None,
          judge_model: str | None, judge_template: Path | None, fmt: str) -> None:
    """Compare RECEIPT with what would run today. Exit 0 when every arm still stands,
    1 when an arm must run again, be regraded, or cannot be confirmed (unknown)."""
    r = read_receipt(receipt)
    if harness_binary and not harness_version:
        harness_version = _printed_version(harness_binary)
    today = Today(model=model, harness_name=harness_name, harness_version=harness_version, capture=capture,
                  skill_sha256=_sha256_file(skill), suite_sha256=_sha256_file(suite), judge_model=judge_model,
                  judge_template_sha256=_sha256_file(judge_template))
    report = stale_report(r, today)
    if fmt == "json":
        click.echo(json.dumps(asdict(report), indent=2, sort_keys=True))
    else:
        click.echo(render_text(report))
    if any(a.status != "still stands" for a in report.arms):
        raise SystemExit(1)
