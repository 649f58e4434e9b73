"""Import of a summary-json file at its 100,000-case limit: prints ratios, not pass/fail.

``driftproof import summary-json`` as a process (the file read and checked against its schema,
the cases built, the receipt sealed, checked and written) is set against a bare ``json.loads``
of the same file. Each case holds one draw per arm, each scored by two judge
samples (the with-skill draw's score their mean, the baseline's given beside them).

Run: .venv/bin/python benchmarks/import_summary_json.py [CASES] [TRIALS]
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import timeit
from pathlib import Path

#: The command as a process, from this interpreter (``PYTHONPATH`` picks the code).
COMMAND = [sys.executable, "-c", "from driftproof.cli import main; main()", "import"]


def summary(cases: int) -> dict[str, object]:
    """A summary-json document of ``cases`` cases (the format's limit is 100,000)."""
    return {
        "format": "driftproof-summary-json",
        "format_version": "1",
        "harness": {"name": "bench-harness", "version": "1.0"},
        "skill": {"name": "bench-skill"},
        "model": "claude-sonnet-4-5",
        "judge": {"model": "claude-haiku-4-5", "scale": {"worst": 0, "best": 1, "step": 0.05}},
        "generations_per_arm": 1,
        "judge_samples_per_generation": 2,
        "started_at": "2026-12-01T00:00:00Z",
        "cases": [
            {
                "id": f"case-{i}",
                "prompt": f"Question {i}?",
                "arms": {
                    "with_skill": [{"judge_scores": [0.5, 0.75]}],
                    "baseline": [{"score": 0.5, "judge_scores": [0.25, 0.75]}],
                },
            }
            for i in range(cases)
        ],
    }


def main() -> None:
    cases = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    trials = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "summary.json"
        path.write_text(json.dumps(summary(cases)), encoding="utf-8")
        raw = path.read_bytes()
        bare = min(timeit.repeat(lambda: json.loads(raw), number=1, repeat=trials))

        def whole() -> None:
            out = ["--out-dir", str(Path(d) / "out"), "--force"]
            subprocess.run(
                [*COMMAND, "summary-json", str(path), *out], check=True, stdout=subprocess.DEVNULL
            )

        took = min(timeit.repeat(whole, number=1, repeat=trials))
        size = next((Path(d) / "out").iterdir()).stat().st_size
    print(f"{cases:,} cases, {len(raw) / 1e6:.1f} MB file, best of {trials}")
    print(
        f"driftproof import summary-json (a {size / 1e6:.0f} MB receipt written): {took:.2f} s "
        f"= {took / bare:.0f}× a bare json.loads of the file ({bare * 1000:.0f} ms)"
    )


if __name__ == "__main__":
    main()
