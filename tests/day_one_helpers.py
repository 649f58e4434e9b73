"""Shared pieces of the day-one tests (issue 16; ``test_day_one*.py``): a two-case suite with
Portuguese translations, a terse skill, the ``driftproof run`` argument list on the stub lane."""

from __future__ import annotations

import json
from pathlib import Path

SUITE = {
    "format": "driftproof-suite/1",
    "name": "two",
    "language": "en",
    "cases": [
        {
            "id": "a",
            "prompt": "Question A?",
            "rubric": "Score 1 for a right answer.",
            "translations": {"pt": "Pergunta A?"},
        },
        {
            "id": "b",
            "prompt": "Question B?",
            "rubric": "Score 1 for a right answer.",
            "translations": {"pt": "Pergunta B?"},
        },
    ],
}
SKILL = "---\nname: terse\n---\nBe terse.\n"


def write_files(tmp_path: Path) -> tuple[Path, Path]:
    """The suite and SKILL.md written into ``tmp_path``."""
    suite, skill = tmp_path / "suite.json", tmp_path / "SKILL.md"
    suite.write_text(json.dumps(SUITE))
    skill.write_text(SKILL)
    return suite, skill


def run_args(suite: Path, skill: Path, out: Path, *extra: str) -> list[str]:
    return [
        "run",
        str(suite),
        "--skill",
        str(skill),
        "--model",
        "m",
        "--provider",
        "stub",
        "--out",
        str(out),
        *extra,
    ]
