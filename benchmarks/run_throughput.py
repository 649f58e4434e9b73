"""Throughput of ``driftproof run`` as a user runs it, against the raw async SDK floor.

What is timed (issue 13, "Done when"): the command line as a process, with its defaults:
``driftproof run SUITE --skill SKILL.md --provider anthropic`` (3 draws per arm, 5 judge
samples per draw, concurrency 8, every draw journaled, the receipt checked, sealed and
written), against the loopback Anthropic Messages server of the tests at 50 ms latency, run
in a process of its own. The floor, in the same run and against the same server: the same
calls made with ``anthropic.AsyncAnthropic`` and nothing else, with the same dependency
structure (per draw one answer, then its 5 grades one after another, 8 draws at a time).

The figure is the median of 5 runs of each (start-up included for the command line; the
floor's interpreter and SDK import are not counted). It prints both ratios: the whole command
line's wall time over the floor's, and the same without start-up (the wall time of an
interpreter importing the command line, the runner and the SDK, also a median), which is the
runner's own work on the calls and the receipt. The aim is at most 1.15 for the whole run.

Run: .venv/bin/python benchmarks/run_throughput.py [runs]
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LATENCY, CONCURRENCY, CASES, DRAWS, SAMPLES = 0.05, 8, 20, 3, 5
DRIFTPROOF = [sys.executable, "-c", "from driftproof.cli import main; main()"]

SERVER = f"""
import sys
sys.path.insert(0, {str(ROOT / "tests" / "run")!r})
from run_helpers import Loopback
srv = Loopback()
srv.script.latency = {LATENCY}
print(srv.url, flush=True)
sys.stdin.read()
srv.close()
"""

SKILL = "---\nname: bench\n---\nSKILL-MARK: write Conventional Commits subjects.\n"


def _suite(d: Path) -> Path:
    cases = [
        {
            "id": f"c{i}",
            "prompt": f"Task {i}: write a commit message for a fix that retries HTTP 429.",
            "rubric": "1.0 for a Conventional Commits subject; 0.5 for a plain one.",
        }
        for i in range(CASES)
    ]
    p = d / "suite.json"
    p.write_text(json.dumps({"format": "driftproof-suite/1", "name": "bench", "cases": cases}))
    return p


def cli_run(url: str, d: Path, k: int) -> tuple[float, int]:
    """One ``driftproof run`` process: (wall s, endpoint attempts)."""
    out = d / f"receipt-{k}.json"
    argv = [
        *DRIFTPROOF,
        "run",
        str(d / "suite.json"),
        "--skill",
        str(d / "SKILL.md"),
        "--model",
        "claude-sonnet-4-6",
        "--provider",
        "anthropic",
        "--base-url",
        url,
        "--judge-base-url",
        url,
        "--out",
        str(out),
    ]
    t = time.perf_counter()
    cp = subprocess.run(argv, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if cp.returncode != 0:
        raise SystemExit(f"driftproof run failed ({cp.returncode}): {cp.stderr[-2000:]}")
    doc = json.loads(out.read_text())
    return wall, doc["run"]["endpoint_attempts"]


def startup() -> float:
    """Start-up: the interpreter with what ``driftproof run`` imports before its first call
    (the command line, the runner and the ``anthropic`` SDK)."""
    t = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-c",
            "from driftproof.cli import main; import driftproof.cli.run, "
            "driftproof.run.engine, anthropic",
        ],
        capture_output=True,
        check=True,
    )
    return time.perf_counter() - t


async def _floor(url: str) -> tuple[float, int]:
    import anthropic

    client = anthropic.AsyncAnthropic(base_url=url, api_key="bench", max_retries=0)
    sem = asyncio.Semaphore(CONCURRENCY)
    calls = 0

    async def draw(i: int, arm: str) -> None:
        nonlocal calls
        async with sem:
            kw = {"system": SKILL} if arm == "with_skill" else {}
            r = await client.messages.create(
                model="claude-sonnet-4-6",
                max_tokens=8192,
                messages=[{"role": "user", "content": f"Task {i}"}],
                **kw,
            )
            answer = r.content[0].text
            calls += 1
            for _ in range(SAMPLES):
                await client.messages.create(
                    model="claude-haiku-4-5-20251001",
                    max_tokens=4096,
                    tools=[{"name": "record_grade", "input_schema": {"type": "object"}}],
                    tool_choice={"type": "tool", "name": "record_grade"},
                    messages=[
                        {
                            "role": "user",
                            "content": f'<answer data="x">\n{answer}\n</answer data="x">\n<rubric>',
                        }
                    ],
                )
                calls += 1

    t = time.perf_counter()
    await asyncio.gather(
        *(
            draw(i, arm)
            for i in range(CASES)
            for arm in ("with_skill", "baseline")
            for _ in range(DRAWS)
        )
    )
    wall = time.perf_counter() - t
    await client.close()
    return wall, calls


def main(runs: int = 5) -> None:
    env_key = os.environ.setdefault("ANTHROPIC_API_KEY", "bench")
    assert env_key
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    url = server.stdout.readline().strip()
    print(
        f"{CASES} cases x 2 arms x {DRAWS} draws x (1 answer + {SAMPLES} grades), "
        f"latency {LATENCY * 1000:.0f} ms, "
        f"concurrency {CONCURRENCY}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"
    )
    cli, floor, starts = [], [], []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp)
            _suite(d)
            (d / "SKILL.md").write_text(SKILL)
            for k in range(runs):
                f_wall, f_calls = asyncio.run(_floor(url))
                c_wall, c_calls = cli_run(url, d, k)
                s = startup()
                floor.append(f_wall)
                cli.append(c_wall)
                starts.append(s)
                print(
                    f"run {k + 1}: floor {f_wall:.3f} s ({f_calls} calls); "
                    f"driftproof run {c_wall:.3f} s "
                    f"({c_calls} attempts), ratio {c_wall / f_wall:.3f}; start-up {s:.3f} s"
                )
    finally:
        server.stdin.close()
        server.wait(timeout=10)
    mf, mc, ms = statistics.median(floor), statistics.median(cli), statistics.median(starts)
    print(f"median of {runs}: floor {mf:.3f} s, driftproof run {mc:.3f} s, start-up {ms:.3f} s")
    print(
        f"whole run / floor = {mc / mf:.3f} (aim <= 1.15); "
        f"without start-up / floor = {(mc - ms) / mf:.3f}"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
