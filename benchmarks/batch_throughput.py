"""``driftproof run --batch`` on a simulated 100,000-call suite against the loopback fake of the
batch APIs (``tests/run/batch_fake.py``, run in a separate process so that its memory and
interpreter lock are not the runner's). Prints the runner's peak memory and the wall time per
10,000 calls, and the peak against the 500 MB budget of issue 17. It asserts nothing: it prints.

The suite: 2,778 cases × 2 arms × 3 draws (the stopping rule held at 3) = 16,668 answers and
16,668 × 5 = 83,340 judge samples: 100,008 calls in two rounds (the answers; then every judge
sample), each one batch on Anthropic (limit 100,000 requests), or split into files of at most
50,000 requests on OpenAI. Every draw is journaled (fsync'd), every result streamed and
journaled, and the receipt schema-checked, sealed and written at the end.

Run: .venv/bin/python benchmarks/batch_throughput.py [anthropic|openai]
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES, DRAWS, SAMPLES = 2778, 3, 5
LIMIT_MB = 500

SERVER = f"""
import sys
sys.path.insert(0, {str(ROOT / "tests" / "run")!r})
from batch_fake import BatchLoopback
srv = BatchLoopback()
print(srv.url, flush=True)
sys.stdin.read()
srv.close()
"""


def main() -> int:
    provider = sys.argv[1] if len(sys.argv) > 1 else "anthropic"
    from driftproof.run.batch_io import BatchOptions
    from driftproof.run.engine import RunConfig, run_suite
    from driftproof.run.providers import make_provider
    from driftproof.run.suite import load_suite

    server = subprocess.Popen(
        [sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        url = server.stdout.readline().strip()
        base = url if provider == "anthropic" else url + "/v1"
        with tempfile.TemporaryDirectory() as d:
            cases = [
                {
                    "id": f"c{i}",
                    "prompt": f"Task {i}: write a commit message for a fix that retries HTTP 429.",
                    "rubric": "1.0 for a Conventional Commits subject; 0.5 for a plain one.",
                }
                for i in range(CASES)
            ]
            Path(d, "suite.json").write_text(
                json.dumps({"format": "driftproof-suite/1", "cases": cases})
            )
            suite = load_suite(Path(d, "suite.json"))
            cfg = RunConfig(
                model="claude-sonnet-4-6" if provider == "anthropic" else "gpt-5",
                judge_model="claude-haiku-4-5-20251001"
                if provider == "anthropic"
                else "gpt-5-mini",
                judge_price=(0.5, 2.5),
                min_draws=DRAWS,
                max_draws=DRAWS,
                judge_samples=SAMPLES,
                batch=BatchOptions(poll_interval=0.05),
            )
            lane = make_provider(provider, "api", base_url=base, api_key="bench")
            judge = make_provider(provider, "api", base_url=base, api_key="bench")
            t0 = time.perf_counter()
            res = run_suite(
                suite,
                skill_text="---\nname: bench\n---\nSKILL-MARK: write Conventional Commits.\n",
                skill_name="bench",
                cfg=cfg,
                provider=lane,
                judge=judge,
                out=Path(d, "receipt.json"),
            )
            wall = time.perf_counter() - t0
            calls = res.receipt.run.endpoint_attempts
            batches = len(res.receipt.run.batch.batch_ids)
            size = Path(d, "receipt.json").stat().st_size
    finally:
        server.stdin.close()
        server.wait(timeout=30)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB
    print(
        f"{provider}: {calls} calls in {batches} batches, {CASES} cases; "
        f"receipt {size / 1e6:.1f} MB"
    )
    print(
        f"wall {wall:.1f} s = {wall / calls * 10_000:.2f} s per 10,000 calls "
        "(loopback, no model latency)"
    )
    print(
        f"runner peak memory {peak_mb:.0f} MB = {peak_mb / LIMIT_MB:.2f} of the "
        f"{LIMIT_MB} MB budget"
    )
    expected = CASES * 2 * DRAWS * (1 + SAMPLES)
    if calls != expected:
        print(f"note: {calls} calls made, {expected} planned")
    return 0


if __name__ == "__main__":
    sys.exit(main())
