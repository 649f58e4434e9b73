"""Throughput of ``driftproof run``: 2,000 calls at 50 ms latency, concurrency 32, against the
loopback Anthropic Messages server of the tests (run in a separate process, so that it does
not share the runner's interpreter lock). Prints wall time as a ratio to the ideal,
calls × latency ÷ concurrency; the aim is under 1.15.

The calls are real runner calls through the official ``anthropic`` SDK: 250 cases × 2 arms
× 2 draws = 1,000 draws, each one generation and 1 judge sample = 2,000 calls, with every
draw journaled (fsync) and the receipt sealed at the end.

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


def main() -> None:
    from driftproof.run.engine import RunConfig, run_suite
    from driftproof.run.providers import make_provider
    from driftproof.run.suite import load_suite

    server = subprocess.Popen([sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    url = server.stdout.readline().strip()
    os.environ.update(ANTHROPIC_API_KEY="bench", ANTHROPIC_BASE_URL=url)
    try:
        with tempfile.TemporaryDirectory() as d:
            cases = [{"id": f"c{i}", "prompt": f"Task {i}: write a commit message.", "rubric": "Score it."} for i in range(250)]
            suite_path = Path(d, "suite.json")
            suite_path.write_text(json.dumps({"format": "driftproof-suite/1", "cases": cases}))
            suite = load_suite(suite_path)
            cfg = RunConfig(model="claude-sonnet-4-6", judge_model="claude-haiku-4-5-20251001", judge_price=(1.0, 5.0),
                            min_draws=2, max_draws=2, judge_samples=1, concurrency=CONCURRENCY, timeout=30, judge_timeout=30)
            provider, judge = make_provider("anthropic", "api"), make_provider("anthropic", "api")
            last_draw = [0.0]

            def progress(done: int, total: int, spend: float) -> None:
                last_draw[0] = time.perf_counter()

            cpu0 = resource.getrusage(resource.RUSAGE_SELF)
            t = time.perf_counter()
            result = run_suite(suite, skill_text="SKILL-MARK be brief", skill_name="bench", cfg=cfg, provider=provider,
                               judge=judge, out=Path(d, "receipt.json"), progress=progress)
            wall = time.perf_counter() - t
            cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    finally:
        server.stdin.close()
        server.wait(timeout=10)
    attempts = result.document["run"]["endpoint_attempts"]
    ideal = CALLS * LATENCY / CONCURRENCY
    print(f"calls {attempts} (planned {CALLS}), latency {LATENCY * 1000:.0f} ms, concurrency {CONCURRENCY}")
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    print(f"runner CPU {cpu:.3f} s ({cpu / attempts * 1000:.2f} ms per call); load average {os.getloadavg()[0]:.2f} "
          f"on {os.cpu_count()} CPUs")
    draws = last_draw[0] - t
    print(f"draws phase {draws:.3f} s (ratio {draws / ideal:.3f}); receipt checked, sealed, written in {wall - draws:.3f} s")
    print(f"wall {wall:.3f} s, ideal {ideal:.3f} s, ratio {wall / ideal:.3f} (aim < 1.15)")


if __name__ == "__main__":
    main()
