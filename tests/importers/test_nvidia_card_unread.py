"""What a SkillEvaluator card holds that the card reader does not read: read, refused, or named.

Cards are real ones mutated by a line or two. The writer is SkillEvaluator's
``reporting/benchmark.py``: ``_agent_label`` prints an agent as ``Claude Code (`model`)`` or
``Claude Code (model not recorded)`` under "## Agents Used" and on the "- Agents:" line. Expected
values are read by hand from the mutated lines.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from interop_helpers import nvidia_card, sealed

from driftproof.errors import ImportError_
from driftproof.importers.nvidia import import_nvidia

NV = "data/interop/nvidia"
V1 = f"{NV}/skills/cuopt-install/BENCHMARK.md"
V2 = f"{NV}/skillevaluator/golden-e70f0e3/benchmark_pass/BENCHMARK.md"


def _tables(notes: list[str] | None) -> list[str]:
    """The notes naming a table not read (the card's other notes are tested on their own)."""
    return [n for n in notes or () if n.startswith("The card's table")]


AGENTS_USED = "- `claude-code`\n- `codex`\n"


def test_agents_used_as_skillevaluator_labels_them_are_the_cards_agents(
    shared: Path, tmp_path: Path
) -> None:
    new = "- Claude Code (`aws/anthropic/bedrock-claude-opus-4-8`)\n- Codex (model not recorded)\n"
    f = nvidia_card(shared, tmp_path, V1, AGENTS_USED, new)
    agents = sealed(import_nvidia([f])[0]).source_figures.model_dump(mode="json")["agents"]
    assert agents == [
        {
            "agent": "claude-code",
            "printed": "Claude Code",
            "model": "aws/anthropic/bedrock-claude-opus-4-8",
        },
        {"agent": "codex", "printed": "Codex", "model": None},
    ]


def test_an_agents_used_bullet_of_no_known_form_is_refused_at_its_line(
    shared: Path, tmp_path: Path
) -> None:
    f = nvidia_card(shared, tmp_path, V1, AGENTS_USED, "- `claude-code`\n- codex, and gemini\n")
    with pytest.raises(ImportError_) as e:
        import_nvidia([f])
    # "## Agents Used" is line 18 of the card, its bullets lines 20 and 21
    assert "line 21" in str(e.value) and "'- codex, and gemini'" in str(e.value)
    assert str(f) in str(e.value)


INLINE = "- Agents: Claude Code (`claude-sonnet`), Codex (`gpt-codex`)"


def test_an_inline_agent_with_no_model_recorded_is_an_agent(shared: Path, tmp_path: Path) -> None:
    f = nvidia_card(
        shared, tmp_path, V2, INLINE, INLINE.replace("(`gpt-codex`)", "(model not recorded)")
    )
    agents = sealed(import_nvidia([f])[0]).source_figures.model_dump(mode="json")["agents"]
    assert [(a["agent"], a["model"]) for a in agents] == [
        ("claude-code", "claude-sonnet"),
        ("codex", None),
    ]


def test_an_inline_agents_line_of_no_known_form_is_refused(shared: Path, tmp_path: Path) -> None:
    f = nvidia_card(shared, tmp_path, V2, INLINE, INLINE + ", Gemini")
    with pytest.raises(ImportError_) as e:
        import_nvidia([f])
    # the Agents line is line 14 of the golden card
    assert "line 14" in str(e.value) and "expected agents such as" in str(e.value)


def test_agents_requested_but_not_run_are_said_not_listed(shared: Path, tmp_path: Path) -> None:
    not_run = "- Agents: requested but not run — Claude Code (model not recorded)"
    f = nvidia_card(shared, tmp_path, V2, INLINE, not_run)
    r = sealed(import_nvidia([f])[0])
    assert r.source_figures.model_dump(mode="json")["agents"] == []
    assert (
        "The card says: Agents: requested but not run — Claude Code (model not recorded)"
        in r.provenance.notes
    )


READ_ME = "**How to read this table:**"
TOKENS = (
    "| Agent | Dataset case | With skill | Without skill | Delta | Change | Coverage |\n"
    "|---|---|---:|---:|---:|---:|---|\n"
    "| codex | All cases | 900,320 | 965,760 | -65,440 | -6.78% | skill 4/4; base 4/4 |\n\n"
)


def test_a_table_not_read_in_the_results_is_named_in_the_notes(
    shared: Path, tmp_path: Path
) -> None:
    # a table in "Results at a Glance" not headed Measure, before the reading note (line 44)
    f = nvidia_card(shared, tmp_path, V2, READ_ME, TOKENS + READ_ME)
    r = sealed(import_nvidia([f])[0])
    assert len(r.source_figures.model_dump(mode="json")["rows"]) == 12  # 6 measures x 2 agents
    assert _tables(r.provenance.notes) == [
        "The card's table on line 44, headed '| Agent | Dataset case | With skill | Without "
        "skill | Delta | Change | Coverage |', was not imported"
    ]


def test_the_token_usage_section_skillevaluator_writes_is_named_in_the_notes(
    shared: Path, tmp_path: Path
) -> None:
    # SkillEvaluator 1.5 prints "## Token Usage" after the results: put where "## Tier
    # Status" was, line 48 is its heading, 50 its sentence, 52 its table
    usage = "## Token Usage\n\nActual Tier 3 execution usage is reported.\n\n" + TOKENS
    f = nvidia_card(shared, tmp_path, V2, "## Tier Status", usage + "## Tier Status")
    notes = sealed(import_nvidia([f])[0]).provenance.notes
    assert _tables(notes) == [
        "The card's table on line 52, headed '| Agent | Dataset case | With skill | Without "
        "skill | Delta | Change | Coverage |', was not imported"
    ]


def test_a_card_with_no_dimension_rollup_is_refused_in_its_own_words(
    shared: Path, tmp_path: Path
) -> None:
    # SkillEvaluator's "Evaluation Report" card with no agents prints this in place of its table
    text = (shared / V1).read_text(encoding="utf-8")
    start, end = text.index("| Dimension |"), text.index("## Tier 1")
    f = nvidia_card(
        shared,
        tmp_path,
        V1,
        text[start:end],
        "Tier 3 dimension rollup was not available in this report.\n\n",
    )
    with pytest.raises(ImportError_) as e:
        import_nvidia([f])
    assert "the card says: Tier 3 dimension rollup was not available in this report." in str(
        e.value
    )


@pytest.mark.parametrize(
    ("new", "said"),
    [
        ("- Agents:  (`claude-sonnet`)", "expected an agent's name before its model, found ' '"),
        (
            "- Agents: Codex (`gpt-codex`), Codex (`gpt-5`)",
            "expected agent 'Codex' with model 'gpt-codex' as on line 14, where the card first "
            "names it; found 'gpt-5': the card contradicts itself",
        ),
    ],
)
def test_an_agent_with_no_name_or_two_models_is_refused(
    shared: Path, tmp_path: Path, new: str, said: str
) -> None:
    # found: sealed as an agent named '' and as codex twice, with two models
    f = nvidia_card(shared, tmp_path, V2, INLINE, new)
    with pytest.raises(ImportError_) as e:
        import_nvidia([f])
    assert str(e.value) == f"{f}: line 14: {said}"


def test_an_agent_named_again_is_listed_once_with_the_model_given(
    shared: Path, tmp_path: Path
) -> None:
    # the Agents line names codex without a model, an Agents Used bullet with one
    line = "- Agents: Claude Code (`claude-sonnet`), Codex (model not recorded)"
    bullets = "## Agents Used\n\n- Codex (`gpt-codex`)\n- Claude Code (`claude-sonnet`)\n\n"
    f = nvidia_card(shared, tmp_path, V2, INLINE, line)
    f.write_text(f.read_text().replace("## Tier Status", bullets + "## Tier Status"))
    agents = sealed(import_nvidia([f])[0]).source_figures.model_dump(mode="json")["agents"]
    assert [(a["agent"], a["model"]) for a in agents] == [
        ("claude-code", "claude-sonnet"),
        ("codex", "gpt-codex"),
    ]


def test_more_unread_tables_than_a_receipt_keeps_notes_of_are_counted(
    shared: Path, tmp_path: Path
) -> None:
    # found: 60 tables gave the first 50 notes and not a word of the other 10
    tables = "".join(f"| t{i} | x |\n|---|---|\n| 1 | 2 |\n\n" for i in range(60))
    f = nvidia_card(
        shared, tmp_path, V2, "## Tier Status", "## Token Usage\n\n" + tables + "## Tier Status"
    )
    notes = sealed(import_nvidia([f])[0]).provenance.notes
    assert notes is not None and len(notes) == 50
    assert notes[48].endswith("headed '| t48 | x |', was not imported")
    # t49 … t59, then the golden card's "- Tier 3 evidence: required for publication" line and
    # its three tiers' Evidence cells: 11 + 4
    assert notes[49] == "and 15 more notes, not kept: a receipt holds 50"


def test_a_table_in_tier_status_not_headed_tier_is_named_in_the_notes(
    shared: Path, tmp_path: Path
) -> None:
    # "## Tier Status" is line 48 of the golden card; a table put before its own (line 50) was
    # read as a Tier Status table, and its rows, not tiers, passed over without a word
    f = nvidia_card(shared, tmp_path, V2, "| Tier | Purpose |", TOKENS + "| Tier | Purpose |")
    r = sealed(import_nvidia([f])[0])
    assert _tables(r.provenance.notes) == [
        "The card's table on line 50, headed '| Agent | Dataset case | With skill | Without "
        "skill | Delta | Change | Coverage |', was not imported"
    ]


def test_a_governance_cards_evaluation_agents_used_are_said_not_dropped(shared: Path) -> None:
    # skill-card.md lists its agents under "## Evaluation Agents Used: <br>" as hand-written
    # bullets ("- claude-code <br>", "- codex <br>"); the receipt's agents came out empty and
    # nothing said so
    f = shared / NV / "skills/accelerated-computing-cudf/skill-card.md"
    notes = sealed(import_nvidia([f])).provenance.notes
    said = "The card says: Evaluation Agents Used (not read as its agents): "
    assert [n for n in notes if n.startswith(said)] == [f"{said}claude-code", f"{said}codex"]


#: SkillEvaluator 1.3.2's "Execution and Provenance" section as NVIDIA/skills prints it at
#: 7149a88 (skills/nemotron-speech/BENCHMARK.md, lines 23-33, its evaluator version made the
#: golden card's), put where that card has it: before "## What This Report Answers" (line 23).
IMAGE = (
    "gitlab-master.nvidia.com:5005/nvcarps/ci-group/nvcarps-ci/skillevaluator-ci:"
    "sha-0117bc2e3e54da4244a656466526c5b1b5a559ea"
)
EXECUTION = f"""## Execution and Provenance

- Validation status: `passed`
- Report generation: `complete`
- Evaluator version: `0.8.2`
- Git commit: `0117bc2e3e54da4244a656466526c5b1b5a559ea`
- Content type: requested `auto`, detected `skill`
- Container image: `{IMAGE}`
- Container image digest: `not recorded`
- Tier 3: requested `true`, executed `true`, status `succeeded`

"""
REPORT_ANSWERS = "## What This Report Answers"


def test_execution_and_provenance_lines_are_read_or_kept(shared: Path, tmp_path: Path) -> None:
    # found: every line of the section passed over without a word
    f = nvidia_card(shared, tmp_path, V2, REPORT_ANSWERS, EXECUTION + REPORT_ANSWERS)
    r = sealed(import_nvidia([f]))
    summary = r.source_figures.model_dump(mode="json")["summary"]
    # line 25, as NVIDIA's aggregate_benchmarks.py reads it into the catalogue
    assert summary["validation_status"] == "passed"
    # line 31: the evaluator's container digest, which the card says it did not record
    assert r.source_report.evaluator_digest is None
    assert "the evaluator container digest (the card: `not recorded`)" in r.provenance.unrecorded
    # line 27 says the version line 13 gives, 0.8.2
    assert r.provenance.tool_version == "0.8.2"
    under = "under 'Execution and Provenance'"
    assert [n for n in r.provenance.notes or () if under in n] == [
        f"The card's line 26, {under}: Report generation: `complete`",
        f"The card's line 28, {under}: Git commit: `0117bc2e3e54da4244a656466526c5b1b5a559ea`",
        f"The card's line 29, {under}: Content type: requested `auto`, detected `skill`",
        f"The card's line 30, {under}: Container image: `{IMAGE}`",
        f"The card's line 32, {under}: Tier 3: requested `true`, executed `true`, status "
        "`succeeded`",
    ]


def test_a_container_image_digest_printed_is_the_evaluators_digest(
    shared: Path, tmp_path: Path
) -> None:
    digest = "sha256:" + "ab" * 32
    section = EXECUTION.replace("`not recorded`", f"`{digest}`")
    f = nvidia_card(shared, tmp_path, V2, REPORT_ANSWERS, section + REPORT_ANSWERS)
    assert sealed(import_nvidia([f])).source_report.evaluator_digest == digest


INDEX = f"{NV}/skillevaluator/golden-index-5af16eb/benchmark_pass/BENCHMARK.md"
REVISION = "2263a2ebdab903e87f7e7c0a001d22c3a926a9cf"


@pytest.mark.parametrize(
    ("real", "old", "new", "line", "most"),
    [  # a receipt keeps an evaluator digest of 500 characters, a source revision of 200
        (V2, "`not recorded`", f"sha256:{'a' * 494}", 31, 500),
        (INDEX, f"`{REVISION}`", "f" * 201, 15, 200),
    ],
)
def test_a_provenance_value_longer_than_a_receipt_keeps_is_refused_at_its_line(
    shared: Path, tmp_path: Path, real: str, old: str, new: str, line: int, most: int
) -> None:
    # found: a Python traceback ("String should have at most 500 characters")
    section = EXECUTION if real == V2 else ""
    f = nvidia_card(shared, tmp_path, real, REPORT_ANSWERS, section + REPORT_ANSWERS)
    text = f.read_text("utf-8")
    f.write_text(text.replace(old, f"`{new[:most]}`"), "utf-8")
    assert sealed(import_nvidia([f])) is not None  # the longest value kept
    f.write_text(text.replace(old, f"`{new}`"), "utf-8")
    with pytest.raises(ImportError_) as e:
        import_nvidia([f])
    assert str(e.value) == (
        f"{f}: line {line}: expected at most {most} characters (the most a receipt keeps), "
        f"found {f'`{new}`'[:200]!r}"
    )


def test_a_checkout_whose_own_card_is_a_broken_link_is_refused_not_read_from_its_skills(
    shared: Path, tmp_path: Path
) -> None:
    # Found: a folder's BENCHMARK.md a link to a file not there was passed over for the cards in
    # its skills/*/, without a word
    (tmp_path / "skills/a").mkdir(parents=True)
    (tmp_path / "skills/a/BENCHMARK.md").write_bytes((shared / V1).read_bytes())
    (gone := tmp_path / "BENCHMARK.md").symlink_to(tmp_path / "nowhere.md")
    with pytest.raises(ImportError_) as exc:
        import_nvidia([tmp_path])
    assert str(exc.value).startswith(f"{gone}: ")


def test_a_cell_whose_brackets_hold_no_uplift_is_refused_at_its_line(
    shared: Path, tmp_path: Path
) -> None:
    # line 58 of the card: | Correctness | 1 | 100% (+70%) | 97% (+22%) |; "(approx.)" is no
    # uplift, so the cell is not read as one, never as a score with its bracket dropped
    row = "| Correctness | 1 | 100% (+70%) |"
    f = nvidia_card(shared, tmp_path, V1, row, "| Correctness | 1 | 100% (approx.) |")
    with pytest.raises(ImportError_) as e:
        import_nvidia([f])
    assert str(e.value) == (
        f"{f}: line 58, column 3: expected a cell such as '92% (+12%)' or '65% → 97% "
        "(+33 points)', found '100% (approx.)'"
    )
