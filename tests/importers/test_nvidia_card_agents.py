"""A card's agents: no column that says an agent failed.

Cards are real ones mutated by a line or two; line numbers are counted in the real card. The
golden card (SkillEvaluator's ``tests/golden/benchmark_pass``) names its agents on line 14,
"- Agents: Claude Code (`claude-sonnet`), Codex (`gpt-codex`)", and heads its results on line 35,
"| Measure | Claude Code (Baseline → Skill Uplift) | Codex (Baseline → Skill Uplift) |".
SkillEvaluator runs three agents (claude-code, codex, opencode); a card may name 20.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from driftproof.errors import ImportError_
from driftproof.importers.nvidia import import_nvidia

NV = "data/interop/nvidia"
V1 = f"{NV}/skills/cuopt-install/BENCHMARK.md"
GOLDEN = f"{NV}/skillevaluator/golden-e70f0e3/benchmark_pass/BENCHMARK.md"
INLINE = "- Agents: Claude Code (`claude-sonnet`), Codex (`gpt-codex`)"
CODEX = "Codex (Baseline → Skill Uplift)"


def _card(shared: Path, tmp_path: Path, real: str, old: str, new: str) -> Path:
    text = (shared / real).read_text(encoding="utf-8")
    assert old in text
    f = tmp_path / "skills" / "demo" / "BENCHMARK.md"
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(text.replace(old, new), encoding="utf-8")
    return f


def _refused(f: Path) -> str:
    with pytest.raises(ImportError_) as e:
        import_nvidia([f])
    return str(e.value).removeprefix(f"{f}: ")


@pytest.mark.parametrize("column", ["Codex (failed)", "Failed agents (Baseline → Skill Uplift)"])
def test_a_results_column_that_says_an_agent_failed_is_refused(
    shared: Path, tmp_path: Path, column: str
) -> None:
    # found: "Codex (failed)" read as codex's figures, unmarked; a "Failed agents" column as
    # the figures of an agent named failed-agents
    f = _card(shared, tmp_path, GOLDEN, CODEX, column)
    assert _refused(f) == (
        f"line 35, column 3: expected a column per agent, found {column!r}: the receipt has no "
        "place to mark an agent as failed, so its figures would read as any other agent's"
    )
