"""SkillEvaluator 0.3.0 cards (issue 36): the stated uplift kept where the rounded percentages
differ, the Tier table read with NOT RUN apart from a fail, the 0.3.0 provenance lines, and every
percentage marked as printed rounded. Figures shown as the source's, never a verdict (D-15).

Expected values are read by hand from the cards in data/interop/nvidia/skillevaluator/; each
literal says where.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from interop_helpers import sealed

from driftproof.errors import ImportError_
from driftproof.importers.nvidia import import_nvidia

SE = "data/interop/nvidia/skillevaluator"


def _figures(r, label: str) -> dict[str, tuple[float | None, str | None, bool | None]]:
    return {
        f.arm: (f.value, f.printed, f.rounded) for f in r.source_report.figures if f.label == label
    }


def test_stated_uplift_is_kept_where_the_rounded_percentages_differ(shared: Path) -> None:
    f = shared / SE / "sparkpath-0.3.0/training-plan-interpretation/BENCHMARK.md"
    r = sealed(import_nvidia([f])[0])
    # "| Correctness | 36% → 67% (+32 points) | …": 67 - 36 = 31, the card states +32
    assert _figures(r, "Correctness (claude-code)") == {
        "baseline": (36.0, "36%", True),
        "with_skill": (67.0, "67%", True),
        "lift": (32.0, "+32 points", True),
    }
    # "| Discoverability | … | 44% → 64% (+19 points) |": 64 - 44 = 20, the card states +19
    assert _figures(r, "Discoverability (codex)")["lift"] == (19.0, "+19 points", True)
    # "| Security | 100% → 100% (±0 points) |"
    assert _figures(r, "Security (claude-code)")["lift"][:2] == (0.0, "±0 points")
    assert {f.unit for f in r.source_report.figures if f.arm == "lift"} == {"points"}
    assert len(r.source_report.figures) == 6 * 2 * 3  # 6 measures x 2 agents x 3 figures


def test_0_3_0_provenance_lines(shared: Path) -> None:
    f = shared / SE / "sparkpath-0.3.0/academic-warning/BENCHMARK.md"
    r = sealed(import_nvidia([f])[0])
    sr = r.source_report
    # "- Evaluated source: `DBZQ30/SparkPath-DGX-SPARK`", revision `85746b6f…`
    assert sr.source_repository == "DBZQ30/SparkPath-DGX-SPARK"
    assert sr.source_revision == "85746b6f99c0252700162bdf00ebddc7f8c10f55"
    # "- Evaluator container revision: not recorded (not supplied by the orchestration input)"
    assert sr.evaluator_digest is None
    assert any(
        u.startswith("the evaluator container digest (the card: not recorded")
        for u in r.provenance.unrecorded
    )
    assert r.provenance.tool_version == "0.3.0"
    assert sr.decision.printed == "Overall verdict: PASS" and sr.decision.passed is True
    # Tier Status: PASSED WITH OBSERVATIONS, PASSED, PASS
    assert [(t.name, t.status, t.printed) for t in sr.stages] == [
        ("Tier 1", "passed_with_observations", "PASSED WITH OBSERVATIONS"),
        ("Tier 2", "passed", "PASSED"),
        ("Tier 3", "passed", "PASS"),
    ]


def test_golden_card_digest(shared: Path) -> None:
    f = shared / SE / "golden-index-5af16eb/benchmark_pass/BENCHMARK.md"
    sr = sealed(import_nvidia([f])[0]).source_report
    assert sr.source_repository == "NVIDIA/demo_skills"
    assert sr.source_revision == "2263a2ebdab903e87f7e7c0a001d22c3a926a9cf"
    assert sr.evaluator_digest == (
        "ghcr.io/nvidia/skillevaluator@sha256:"
        "0117bc2e3e54da4244a656466526c5b1b5a559ea0117bc2e3e54da4244a65646"
    )


def test_fail_card_tiers_and_verdict(shared: Path) -> None:
    f = shared / SE / "golden-e70f0e3/benchmark_fail/BENCHMARK.md"
    sr = sealed(import_nvidia([f])[0]).source_report
    # "| Tier 1 | Static validation | **FAILED** |", Tier 3 **FAIL**; "Overall verdict: FAIL"
    assert [t.status for t in sr.stages] == ["failed", "passed_with_observations", "failed"]
    assert sr.decision.passed is False
    # the e70f0e3 card predates the 0.3.0 lines: not printed, so unknown
    assert sr.source_revision is None and sr.evaluator_digest is None


def test_not_run_is_recorded_as_not_run_apart_from_a_fail(shared: Path, tmp_path: Path) -> None:
    # SkillEvaluator's own tests assert the row "| Tier 3 | Live agent evaluation | **NOT RUN** |"
    # (skillevaluator/SOURCE.md); the golden FAIL card with that row in place of Tier 3's
    text = (shared / SE / "golden-e70f0e3/benchmark_fail/BENCHMARK.md").read_text("utf-8")
    row = "| Tier 3 | Live agent evaluation | **FAIL** | 2 agent(s); 8 task(s) |"
    assert row in text
    card = tmp_path / "demo-skill" / "BENCHMARK.md"
    card.parent.mkdir()
    card.write_text(
        text.replace(row, "| Tier 3 | Live agent evaluation | **NOT RUN** | No result |"), "utf-8"
    )
    sr = sealed(import_nvidia([card])[0]).source_report
    assert [(t.status, t.printed) for t in sr.stages] == [
        ("failed", "FAILED"),
        ("passed_with_observations", "PASSED WITH OBSERVATIONS"),
        ("not_run", "NOT RUN"),
    ]


@pytest.mark.parametrize("card", ["academic-warning", "training-plan-interpretation"])
def test_percentages_are_recorded_as_printed_rounded(shared: Path, card: str) -> None:
    f = shared / SE / f"sparkpath-0.3.0/{card}/BENCHMARK.md"
    figs = sealed(import_nvidia([f])[0]).source_report.figures
    # every cell of these cards prints whole percentages and whole points
    assert figs and all(x.rounded is True for x in figs)
    assert {x.unit for x in figs if x.arm != "lift"} == {"percent"}


@pytest.mark.parametrize(
    ("callout", "verdict", "passed"),
    [  # SkillEvaluator's _verdict_callout (src/skillevaluator/reporting/benchmark.py @ e70f0e3)
        ("⚠️ **Overall verdict: INCOMPLETE — Required evidence is missing**", "INCOMPLETE", None),
        (
            "**Overall verdict: NEUTRAL — One or more dimensions remain below PASS**",
            "NEUTRAL",
            False,
        ),
    ],
)
def test_neutral_and_incomplete_cards_are_read(
    shared: Path, tmp_path: Path, callout: str, verdict: str, passed: bool | None
) -> None:
    # the golden PASS card with its line 3 callout as SkillEvaluator prints the other two
    text = (shared / SE / "golden-e70f0e3/benchmark_pass/BENCHMARK.md").read_text("utf-8")
    pass_line = "> ✅ **Overall verdict: PASS — Recommended for publication**"
    assert text.splitlines()[2] == pass_line
    card = tmp_path / "BENCHMARK.md"
    card.write_text(text.replace(pass_line, f"> {callout}"), "utf-8")
    sr = sealed(import_nvidia([card])[0]).source_report
    assert sr.decision.printed == f"Overall verdict: {verdict}"
    assert sr.decision.passed is passed


def test_not_recorded_metadata_is_unrecorded_never_a_value(shared: Path, tmp_path: Path) -> None:
    # SkillEvaluator's _render_metadata (src/skillevaluator/reporting/benchmark.py @ e70f0e3)
    # prints "- <line>: not recorded (legacy or non-live result)" for each value it lacks; the
    # golden PASS card with those lines in place of its values
    text = (shared / SE / "golden-e70f0e3/benchmark_pass/BENCHMARK.md").read_text("utf-8")
    lacking = "not recorded (legacy or non-live result)"
    for label in (
        "Evaluation date",
        "Evaluator version",
        "Agents",
        "Dataset digest",
        "Attempts per task",
        "Environment",
    ):
        (line,) = [x for x in text.splitlines() if x.startswith(f"- {label}: ")]
        text = text.replace(line, f"- {label}: {lacking}")
    card = tmp_path / "BENCHMARK.md"
    card.write_text(text, "utf-8")
    r = sealed(import_nvidia([card])[0])
    summary = r.source_figures.summary
    for key in ("evaluation_date", "evaluator_version", "dataset_digest", "environment"):
        assert summary[key] is None and summary[f"{key}_printed"] == lacking
    assert "attempts_per_task" not in summary and r.source_figures.agents == []
    assert r.provenance.tool == "SkillEvaluator" and r.provenance.tool_version is None
    assert f"provenance.tool_version (the card: {lacking})" in r.provenance.unrecorded
    assert f"the dataset digest (the card: {lacking})" in r.provenance.unrecorded
    assert r.run.generations_per_arm is None


_PASS = "golden-e70f0e3/benchmark_pass/BENCHMARK.md"
_GLANCE_END = "45 percentage points above its 47% no-skill baseline.\n"


def test_a_partial_dimension_is_kept_in_the_cards_words(shared: Path, tmp_path: Path) -> None:
    # SkillEvaluator's _render_results_at_a_glance (https://github.com/NVIDIA/SkillEvaluator/
    # blob/e70f0e3ee68bb72d8cf68178a7d4fa2052bc1433/src/skillevaluator/reporting/benchmark.py)
    # prints this below the table when a dimension had only some of its signals
    said = (
        "A partial dimension was calculated from only the available configured signals; "
        "review the detailed report before relying on it."
    )
    text = (shared / SE / _PASS).read_text("utf-8")
    assert _GLANCE_END in text
    card = tmp_path / "BENCHMARK.md"
    card.write_text(text.replace(_GLANCE_END, f"{_GLANCE_END}\n{said}\n"), "utf-8")
    says = [n for n in sealed(import_nvidia([card])[0]).provenance.notes or () if "says" in n]
    assert says == [f"The card says: {said}"]
    unchanged = sealed(import_nvidia([shared / SE / _PASS])[0]).provenance.notes
    assert not [n for n in unchanged or () if "says" in n]


def test_a_card_with_no_live_scores_is_refused_in_its_own_words(
    shared: Path, tmp_path: Path
) -> None:
    # the same renderer with no agents: "Tier 3 live-agent scores were not available. …", the
    # INCOMPLETE callout (_verdict_callout) and Tier 3 INCOMPLETE (_tier_status)
    text = (shared / SE / _PASS).read_text("utf-8")
    start, end = text.index("## Results at a Glance"), text.index("## Tier Status")
    none = "Tier 3 live-agent scores were not available. See the tier status table for what ran."
    text = f"{text[:start]}## Results at a Glance\n\n{none}\n\n{text[end:]}"
    text = text.replace(
        "> ✅ **Overall verdict: PASS — Recommended for publication**",
        "⚠️ **Overall verdict: INCOMPLETE — Required evidence is missing**",
    ).replace("**PASS** | 2 agent(s); 8 task(s)", "**INCOMPLETE** | Execution status: failed")
    card = tmp_path / "BENCHMARK.md"
    card.write_text(text, "utf-8")
    with pytest.raises(ImportError_) as exc:
        import_nvidia([card])
    said = str(exc.value)
    assert none in said and "Overall verdict: INCOMPLETE — Required evidence is missing" in said
    assert "Tier 3: INCOMPLETE" in said


def test_a_card_cut_inside_its_results_table_is_refused_at_the_cut_row(
    shared: Path, tmp_path: Path
) -> None:
    # the golden PASS card cut after "| Discoverability | 47% ": its cell "47% → 92% (+45 points)"
    # is cut to its baseline, and the Codex cell is gone; 47% is not the skill's score
    text = (shared / SE / _PASS).read_text("utf-8")
    row = "| Discoverability | 47% → 92% (+45 points) | 55% → 88% (+33 points) |"
    cut = text.index(row) + len("| Discoverability | 47% ")
    lineno = text[:cut].count("\n") + 1
    card = tmp_path / "BENCHMARK.md"
    card.write_text(text[:cut], "utf-8")
    with pytest.raises(ImportError_) as exc:
        import_nvidia([card])
    assert f"BENCHMARK.md: line {lineno}: expected 3 cells, found 2" in str(exc.value)


def test_a_bare_figure_under_a_baseline_to_skill_column_is_refused(
    shared: Path, tmp_path: Path
) -> None:
    # under "Claude Code (Baseline → Skill Uplift)" each cell gives both figures; a cell of one
    # bare percentage ("47%") does not say whether it is the baseline or the skill's score, and
    # was read as the skill's score
    text = (shared / SE / _PASS).read_text("utf-8")
    row = "| Discoverability | 47% → 92% (+45 points) | 55% → 88% (+33 points) |"
    lineno = text[: text.index(row)].count("\n") + 1
    card = tmp_path / "BENCHMARK.md"
    card.write_text(
        text.replace(row, "| Discoverability | 47% | 55% → 88% (+33 points) |"), "utf-8"
    )
    with pytest.raises(ImportError_) as exc:
        import_nvidia([card])
    said = str(exc.value)
    assert f"BENCHMARK.md: line {lineno}, column 2: expected a baseline and a score" in said
    assert "'Claude Code (Baseline → Skill Uplift)'" in said and "found '47%'" in said
