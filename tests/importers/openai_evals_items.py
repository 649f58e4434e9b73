"""Output items in the OpenAI Evals API's ``eval.run.output_item`` shape, for the importer tests
(test_openai_evals, test_openai_evals_faults)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from driftproof.errors import ImportError_

#: promptfoo's real fixture of OpenAI Evals output items (JSONL), under the shared data.
FIXTURE = "data/interop/openai-evals/promptfoo-fixture-openai-evals-items.jsonl"


def problem(exc: pytest.ExceptionInfo[ImportError_]) -> tuple[str, str, str]:
    p = exc.value.problems[0]
    return p.file, p.pointer, p.message


def api_item(
    run: str,
    item: int,
    score: float | None,
    *,
    text: str = "Answer.",
    error: Any = None,
    created: int = 1760000000,
) -> dict[str, Any]:
    return {
        "object": "eval.run.output_item",
        "id": f"outputitem_{run}_{item}",
        "run_id": run,
        "eval_id": "eval_1",
        "created_at": created,
        "status": "pass",
        "datasource_item_id": item,
        "datasource_item": {"input": f"Question {item}?", "ideal": "x"},
        "results": [
            {
                "name": "quality",
                "type": "text_similarity",  # a type whose results OpenAI gives on 0..1
                "score": score,
                "passed": bool(score),
                "sample": {"output": [{"role": "assistant", "content": f'{{"result": {score}}}'}]},
            },
            {"name": "exact", "type": "string_check", "score": 0.0, "passed": False},
        ],
        "sample": {
            "input": [{"role": "user", "content": f"Question {item}?"}],
            "output": [{"role": "assistant", "content": text}],
            "finish_reason": "stop",
            "model": "gpt-5-mini-2026-08-01",
            "seed": 1,
            "temperature": 1.0,
            "top_p": 1.0,
            "max_completion_tokens": 2048,
            "usage": {
                "prompt_tokens": 120,
                "completion_tokens": 30,
                "cached_tokens": 64,
                "total_tokens": 150,
            },
            "error": error if error is not None else {"code": "", "message": ""},
        },
    }


def jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path
