"""A card's agents, bounded and named in plain text, no column that says an agent failed, and
no more figures than a receipt holds.

Cards are real ones mutated by a line or two; line numbers are counted in the real card. The
golden card (SkillEvaluator's ``tests/golden/benchmark_pass``) names its agents on line 14,
"- Agents: Claude Code (`claude-sonnet`), Codex (`gpt-codex`)", and heads its results on line 35,
"| Measure | Claude Code (Baseline → Skill Uplift) | Codex (Baseline → Skill Uplift) |".
SkillEvaluator runs three agents (claude-code, codex, opencode); a card may name 20.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from interop_helpers import nvidia_card, sealed

from driftproof.errors import ImportError_
from driftproof.importers.nvidia import import_nvidia

NV = "data/interop/nvidia"
V1 = f"{NV}/skills/cuopt-install/BENCHMARK.md"
GOLDEN = f"{NV}/skillevaluator/golden-e70f0e3/benchmark_pass/BENCHMARK.md"
INLINE = "- Agents: Claude Code (`claude-sonnet`), Codex (`gpt-codex`)"
CODEX = "Codex (Baseline → Skill Uplift)"


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
    f = nvidia_card(shared, tmp_path, GOLDEN, CODEX, column)
    assert _refused(f) == (
        f"line 35, column 3: expected a column per agent, found {column!r}: the receipt has no "
        "place to mark an agent as failed, so its figures would read as any other agent's"
    )


def test_an_agent_whose_name_starts_with_fail_is_an_agent(shared: Path, tmp_path: Path) -> None:
    # the failed-column check reads the word "fail", "failed", "failure", not a name like Failsafe
    f = nvidia_card(shared, tmp_path, GOLDEN, "Codex", "Failsafe")
    agents = sealed(import_nvidia([f])).source_figures.model_dump(mode="json")["agents"]
    assert [a["printed"] for a in agents] == ["Claude Code", "Failsafe"]


def test_more_agents_on_the_agents_line_than_a_card_may_name_are_refused(
    shared: Path, tmp_path: Path
) -> None:
    # found: sealed, every one an agent
    line = "- Agents: " + ", ".join(f"Agent {i} (`m{i}`)" for i in range(1, 22))
    f = nvidia_card(shared, tmp_path, GOLDEN, INLINE, line)
    assert _refused(f) == (
        "line 14: expected at most 20 agents (SkillEvaluator runs three); 'Agent 21' is agent 21"
    )


def test_more_agents_used_bullets_than_a_card_may_name_are_refused(
    shared: Path, tmp_path: Path
) -> None:
    # cuopt-install lists its agents under "## Agents Used" on lines 20-21; bullets 3 … 21
    # follow, the 21st on line 20 + 20 = 40
    more = "".join(f"- `agent-{i}`\n" for i in range(3, 22))
    f = nvidia_card(shared, tmp_path, V1, "- `codex`\n", "- `codex`\n" + more)
    assert _refused(f) == (
        "line 40: expected at most 20 agents (SkillEvaluator runs three); 'agent-21' is agent 21"
    )


def test_more_agents_columns_than_a_card_may_name_are_refused(shared: Path, tmp_path: Path) -> None:
    # found: 3,000 such columns (with rows to match) sealed as 3,000 agents; here the head has
    # 21, and is refused before its rows, which now have fewer cells than it
    head = "| Measure |" + "".join(f" A{i} (Baseline → Skill Uplift) |" for i in range(21))
    f = nvidia_card(
        shared,
        tmp_path,
        GOLDEN,
        f"| Measure | Claude Code (Baseline → Skill Uplift) | {CODEX} |",
        head,
    )
    assert (
        _refused(f)
        == "line 35: expected at most 20 agents' columns (SkillEvaluator runs three), found 21"
    )


@pytest.mark.parametrize(
    ("real", "old", "new", "said"),
    [
        (
            GOLDEN,
            INLINE,
            INLINE.replace("Codex", "Co\x1bdex"),
            "line 14: expected an agent's name with no control character, found 'Co\\x1bdex'",
        ),
        (
            GOLDEN,
            INLINE,
            INLINE.replace("gpt-codex", "gpt\x07codex"),
            "line 14: expected an agent's model with no control character, found 'gpt\\x07codex'",
        ),
        (
            V1,
            "- `codex`\n",
            "- `co\x00dex`\n",
            "line 21: expected an agent's name with no control character, found 'co\\x00dex'",
        ),
        (
            GOLDEN,
            CODEX,
            CODEX.replace("Codex", "Co\x1bdex"),
            "line 35, column 3: expected an agent's name with no control character, found "
            "'Co\\x1bdex (Baseline → Skill Uplift)'",
        ),
        (
            f"{NV}/skills/accelerated-computing-cudf/skill-card.md",
            "- codex <br>",
            "- co\x1bdex <br>",
            "line 38: expected an agent's name with no control character, found 'co\\x1bdex'",
        ),
    ],
)
def test_an_agent_name_holding_a_control_character_is_refused_at_its_line(
    shared: Path, tmp_path: Path, real: str, old: str, new: str, said: str
) -> None:
    # found: each sealed with the control character in the agent's name or model (an ESC
    # starts a terminal's escape sequence), or in the notes
    f = nvidia_card(shared, tmp_path, real, old, new)
    assert _refused(f) == said


def test_twenty_agents_are_read(shared: Path, tmp_path: Path) -> None:
    line = "- Agents: " + ", ".join(f"Agent {i} (`m{i}`)" for i in range(1, 21))
    f = nvidia_card(shared, tmp_path, GOLDEN, INLINE, line)
    agents = sealed(import_nvidia([f])).source_figures.model_dump(mode="json")["agents"]
    assert len(agents) == 20 and agents[19] == {
        "agent": "agent-20",
        "printed": "Agent 20",
        "model": "m20",
    }


def test_a_card_with_more_figures_than_a_receipt_holds_is_refused(
    shared: Path, tmp_path: Path
) -> None:
    # found: a Python traceback (pydantic's "List should have at most 10000 items"). 1,667
    # measures more, each 2 agents x 3 figures, and the golden card's 6: (1,667 + 6) x 6 = 10,038
    row = "| Overall | 47% → 92% (+45 points) | 55% → 88% (+33 points) |\n"
    more = "".join(row.replace("Overall", f"M{i}") for i in range(1667))
    f = nvidia_card(shared, tmp_path, GOLDEN, row, more + row)
    with pytest.raises(ImportError_) as e:
        import_nvidia([f])
    assert str(e.value) == (
        f"{f}: expected at most 10,000 reported numbers in all (the most a receipt holds), "
        "found 10,038"
    )
