"""Shapes quoted in other tools' bug reports, trimmed to what each importer reads.

Each test keeps the tool's own field names and values as the report (or the fix it links) shows
them; the figures asserted are the file's own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from interop_helpers import sealed, write_json

from driftproof.importers.promptfoo import PromptfooOptions, import_promptfoo

_PROVIDER = "openai:gpt-4o-mini"
_API_ERROR = "API error: 400 Bad Request\n{\"error\":{\"message\":\"Invalid 'max_tokens'\"}}"


def _promptfoo_row(q: str, **row: Any) -> dict[str, Any]:
    return {
        "provider": {"id": _PROVIDER},
        "prompt": {"raw": f"Answer: {q}", "label": "Answer: {{q}}"},
        "vars": {"q": q},
        "testCase": {"vars": {"q": q}},
        "promptId": "p1",
        "namedScores": {},
        **row,
    }


def test_a_provider_error_promptfoo_kept_failure_reason_0_for_is_lost(tmp_path: Path) -> None:
    # https://github.com/promptfoo/promptfoo/pull/3141: before it, an API error set `error` and
    # left failureReason at NONE (0), with score 0 and no gradingResult: never graded.
    doc = {
        "results": {
            "version": 3,
            "results": [
                _promptfoo_row(
                    "2+2",
                    response={"error": _API_ERROR},
                    error=_API_ERROR,
                    success=False,
                    score=0,
                    failureReason=0,
                ),
                _promptfoo_row(
                    "3+3",
                    response={"output": "6"},
                    success=True,
                    score=1,
                    failureReason=0,
                    gradingResult={"pass": True, "score": 1, "reason": "All assertions passed"},
                ),
            ],
        }
    }
    path = write_json(tmp_path / "results.json", doc)
    r = sealed(import_promptfoo(path, PromptfooOptions({"with_skill": _PROVIDER}, "s")))
    by_q = {c.prompt: c.arms.with_skill.draws for c in r.cases}
    (errored,) = by_q["Answer: 2+2"]
    assert errored.score is None and errored.source_error == _API_ERROR
    assert [d.score for d in by_q["Answer: 3+3"]] == [1.0]
