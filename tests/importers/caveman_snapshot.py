"""A small caveman snapshot built by hand (helpers for tests/importers)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SKILL_TEXT = "Terse like caveman.\n"  # 20 characters -> ceil(20 / 4) = 5 skill tokens (D-14)


def small_snapshot() -> dict[str, Any]:
    """Two prompts, both control arms and one skill arm; token counts worked out by hand
    (o200k_base: "hello world" = 2, "hello" = 1, "hello world hello world" = 4)."""
    return {
        "metadata": {
            "generated_at": "2026-04-08T22:01:24+00:00",
            "claude_cli_version": "2.1.97 (Claude Code)",
            "model": "claude-opus-4-6",
            "n_prompts": 2,
            "terse_prefix": "Answer concisely.",
        },
        "prompts": ["First question?", "Second question?"],
        "arms": {
            "__baseline__": ["hello world hello world", "hello world hello world"],
            "__terse__": ["hello world", "hello world hello world"],
            "caveman": ["hello", "<script>alert(1)</script>"],
        },
    }


def write_snapshot(
    tmp: Path, doc: Any, *, skills: tuple[str, ...] = ("caveman",)
) -> tuple[Path, Path]:
    """Write ``doc`` as results.json and a skills/ dir holding SKILL.md for each name."""
    snap = tmp / "results.json"
    snap.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    skills_dir = tmp / "skills"
    for name in skills:
        (skills_dir / name).mkdir(parents=True, exist_ok=True)
        (skills_dir / name / "SKILL.md").write_bytes(SKILL_TEXT.encode("utf-8"))
    skills_dir.mkdir(exist_ok=True)
    return snap, skills_dir
