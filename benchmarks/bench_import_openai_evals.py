"""Import of OpenAI Evals output items, two runs × N items: prints ratios, not pass/fail.

The time to convert the items into one receipt document is set against a bare ``json.loads`` of
every line of the same file, and the part spent checking each item against its source schema
(``importers/schemas/openai-evals.schema.json``, jsonschema) is shown apart.

Run: .venv/bin/python benchmarks/bench_import_openai_evals.py [N]
"""

from __future__ import annotations

import json
import sys
import tempfile
import timeit
from pathlib import Path

from jsonschema import Draft202012Validator

from driftproof.importers._schema import source_schema
from driftproof.importers.openai_evals import OpenAIEvalsOptions, import_openai_evals


def item(run: str, i: int) -> dict[str, object]:
    """One API-shaped output item with a 200-character answer."""
    return {
        "object": "eval.run.output_item",
        "run_id": run,
        "created_at": 1760000000,
        "datasource_item_id": i,
        "datasource_item": {"input": f"Question {i}?"},
        "results": [{"name": "quality", "type": "score_model", "score": 0.5, "passed": True}],
        "sample": {
            "output": [{"role": "assistant", "content": "A" * 200}],
            "finish_reason": "stop",
            "model": "gpt-5-mini",
            "error": {"code": "", "message": ""},
            "usage": {
                "prompt_tokens": 10,
                "completion_tokens": 20,
                "cached_tokens": 0,
                "total_tokens": 30,
            },
        },
    }


def best_of(fn, n: int = 3) -> float:
    """Best of n runs, in seconds (stdlib timeit, one call per run)."""
    return min(timeit.repeat(fn, number=1, repeat=n))


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    rows = [item(run, i) for run in ("with", "bare") for i in range(n)]
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "items.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        lines = path.read_bytes().splitlines()
        bare = best_of(lambda: [json.loads(x) for x in lines])
        schema = Draft202012Validator(source_schema("openai-evals"))
        check = best_of(lambda: [list(schema.iter_errors(r)) for r in rows])
        whole = best_of(
            lambda: import_openai_evals(
                path,
                OpenAIEvalsOptions(skill_name="s", arms={"with_skill": "with", "baseline": "bare"}),
            )
        )
    print(f"{2 * n:,} output items ({n:,} cases × 2 runs)")
    print(
        f"import: {whole:.2f} s = {whole / bare:.0f}× a bare json.loads of every line "
        f"({bare * 1000:.0f} ms); "
        f"{whole / (2 * n) * 1000:.2f} ms per item"
    )
    print(
        f"of which the per-item source-schema check: {check:.2f} s "
        f"({check / whole:.0%} of the import)"
    )


if __name__ == "__main__":
    main()
