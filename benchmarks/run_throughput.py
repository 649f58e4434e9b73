"""Throughput of ``driftproof run``: 2,000 calls at 50 ms latency, concurrency 32, against the
loopback Anthropic Messages server of the tests (run in a separate process, so that it does
not share the runner's interpreter lock). Prints wall time as a ratio to the ideal,
calls × latency ÷ concurrency; the aim is under 1.15.

The calls are real runner calls through the official ``anthropic`` SDK: 250 cases × 2 arms
× 2 draws = 1,000 draws, each one generation and 1 judge sample = 2,000 calls, with every
draw journaled (fsync) and the receipt schema-checked, sealed and written at the end. The
best of three runs is the figure; each run's draws phase (until the last draw is journaled)
is printed beside its wall time, with the runner's CPU per call (the SDK's own share of it is
about 0.8 ms here), since on a shared machine the ratio moves with the load.

Run: .venv/bin/python benchmarks/run_throughput.py
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CALLS, LATENCY, CONCURRENCY = 2000, 0.05, 32

SERVER = f"""
import sys, time
sys.path.insert(0, {str(ROOT / 'tests' / 'run')!r})
from run_helpers import Loopback
srv = Loopback()
srv.script.latency = {LATENCY}
print(srv.url, flush=True)
sys.stdin.read()
srv.close()
"""


def one_run(url: str) -> tuple[float, float, float, int]:
    """One run of the whole suite: (wall s, draws phase s, runner CPU s, endpoint attempts)."""
    from driftproof.run.engine import RunConfig, run_suite
    from driftproof.run.providers import make_provider
    from driftproof.run.suite import load_suite

    with tempfile.TemporaryDirectory() as d:
        cases = [{"id": f"c{i}", "prompt": f"Task {i}: write a commit message.", "rubric": "Score it."} for i in range(250)]
        suite_path = Path(d, "suite.json")
        suite_path.write_text(json.dumps({"format": "driftproof-suite/1", "cases": cases}))
        suite = load_suite(suite_path)
        cfg = RunConfig(model="claude-sonnet-4-6", judge_model="claude-haiku-4-5-20251001", judge_price=(1.0, 5.0),
                        min_draws=2, max_draws=2, judge_samples=1, concurrency=CONCURRENCY, timeout=30, judge_timeout=30)
        provider, judge = make_provider("anthropic", "api", base_url=url), make_provider("anthropic", "api", base_url=url)
        last_draw = [0.0]

        def progress(done: int, total: int, spend: float, phase: str = "draws") -> None:
            if phase == "draws":
                last_draw[0] = time.perf_counter()

        cpu0 = resource.getrusage(resource.RUSAGE_SELF)
        t = time.perf_counter()
        result = run_suite(suite, skill_text="SKILL-MARK be brief", skill_name="bench", cfg=cfg, provider=provider,
                           judge=judge, out=Path(d, "receipt.json"), progress=progress)
        wall = time.perf_counter() - t
        cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    return wall, last_draw[0] - t, cpu, result.document["run"]["endpoint_attempts"]


def main(runs: int = 3) -> None:
    os.environ.setdefault("ANTHROPIC_API_KEY", "bench")
    server = subprocess.Popen([sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    url = server.stdout.readline().strip()
    ideal = CALLS * LATENCY / CONCURRENCY
    print(f"{CALLS} calls, latency {LATENCY * 1000:.0f} ms, concurrency {CONCURRENCY}: ideal {ideal:.3f} s; "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    results = []
    try:
        for k in range(runs):
            wall, draws, cpu, attempts = one_run(url)
            results.append((wall, draws))
            print(f"run {k + 1}: calls {attempts}, wall {wall:.3f} s (ratio {wall / ideal:.3f}); draws phase "
                  f"{draws:.3f} s (ratio {draws / ideal:.3f}), receipt checked, sealed and written in "
                  f"{wall - draws:.3f} s; runner CPU {cpu / attempts * 1000:.2f} ms per call")
    finally:
        server.stdin.close()
        server.wait(timeout=10)
    wall, draws = min(results)
    print(f"best of {runs}: wall / ideal = {wall / ideal:.3f} (aim < 1.15); draws phase / ideal = {draws / ideal:.3f}")


if __name__ == "__main__":
    main()
