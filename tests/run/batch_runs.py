"""Helpers of the ``--batch`` tests: the fake served to both SDKs, a batched run of the shared
suite, and counts read from the receipt and the batch journal."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from batch_fake import BatchLoopback
from run_helpers import CLI_PROCESS, SKILL_TEXT, SUITE, point_sdks_at, run_args

from driftproof.run.batch_io import BatchOptions


def serving(monkeypatch: pytest.MonkeyPatch) -> Iterator[BatchLoopback]:
    """The body of a ``fake`` fixture: the fake, with both SDKs pointed at it; on teardown,
    any exception the fake raised fails the test."""
    srv = BatchLoopback()
    point_sdks_at(monkeypatch, srv.url)
    yield srv
    srv.close()
    assert not srv.errors, "the batch fake raised:\n" + "\n".join(srv.errors)


def batched(
    tmp_path: Path,
    provider: str = "anthropic",
    *,
    api: str | None = None,
    judge: str | None = None,
    cases: int = 3,
    out: Path | None = None,
    **opts,
) -> Path:
    from driftproof.run.engine import RunConfig, run_suite
    from driftproof.run.providers import make_provider
    from driftproof.run.suite import load_suite

    (tmp_path / "suite.json").write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:cases]}))
    judge = judge or provider
    kw = {"api": api} if api else {}
    cfg = RunConfig(
        model="claude-sonnet-4-6" if provider == "anthropic" else "gpt-5",
        judge_model="claude-haiku-4-5-20251001" if judge == "anthropic" else "gpt-5-mini",
        judge_price=(0.5, 2.5),
        retry_delays=(5.0, 20.0),
        batch=BatchOptions(**{"poll_interval": 0.0, **opts}),
    )
    out = out or tmp_path / "receipt.json"
    run_suite(
        load_suite(tmp_path / "suite.json"),
        skill_text=SKILL_TEXT,
        skill_name="commit-helper",
        cfg=cfg,
        provider=make_provider(provider, "api", **(kw if provider == "openai" else {})),
        judge=make_provider(judge, "api", **(kw if judge == "openai" else {})),
        out=out,
    )
    return out


def draws(r: Any, arm: str) -> list[tuple[str, Any]]:
    """(case id, draw) of every draw of ``arm`` in receipt ``r``."""
    return [(c.id, d) for c in r.cases for d in getattr(c.arms, arm).draws]


def journal_lines(path: Path, kind: str) -> int:
    if not path.exists():
        return 0
    return sum(
        1 for x in path.read_bytes().split(b"\n") if x.startswith(b'{"' + kind.encode() + b'"')
    )


def creating_slowly(
    fake: BatchLoopback,
    suite_file: Path,
    skill_file: Path,
    tmp_path: Path,
    provider: str,
    *extra: str,
) -> tuple[list[str], Path, subprocess.Popen[str]]:
    """A CLI ``run --batch`` of one case (with the options ``extra``) in a process of its own,
    caught while the provider has made the answers' batch and its reply is still on its way:
    ``(argv, out, process)``."""
    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:1]}))
    out = tmp_path / "r.json"
    lane = ("--provider", provider, "--judge-provider", provider)
    model = ("--model", "gpt-5") if provider == "openai" else ()
    argv = [
        *CLI_PROCESS,
        *run_args(suite_file, skill_file, "--out", str(out), "--batch"),
        *(*lane, *model, "--batch-poll-interval", "0.02", "--judge-price", "1,5", *extra),
    ]
    s = fake.script
    s.trickle, s.trickle_gap = {"create"}, 0.005  # the batch is made; its reply comes slowly
    # Ctrl-C as a terminal sends it: a shell that started the tests in the background left
    # SIGINT ignored, which the run keeps ignored (as under nohup) and would finish instead
    interruptible = [
        *CLI_PROCESS[:2],
        "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
        + CLI_PROCESS[2],
        *argv[len(CLI_PROCESS) :],
    ]
    proc = subprocess.Popen(interruptible, env=dict(os.environ), stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and not s.trickled and proc.poll() is None:
        time.sleep(0.005)
    assert s.trickled == 1 and s.calls["create"] == 1, proc.stderr.read() if proc.poll() else ""
    return argv, out, proc
