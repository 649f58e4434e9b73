"""A card's tiers and the lines the receipt has no field for: read, refused, or kept as printed.

The writer is SkillEvaluator's ``reporting/benchmark.py`` (``_render_tier_status``: the table
``| Tier | Purpose | Status | Evidence |``, then "{tier} validation was skipped and executed 0
checks." and a bullet per reason; the older "Evaluation Report" card's ``_render_tier_summary``:
"Tier 1 validation passed. … ran 9 checks and found 0 total findings."). Cards are real ones,
some mutated by a line or two; expected notes are the card's lines copied by hand, with their
line numbers counted in the file.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from interop_helpers import nvidia_card, sealed

from driftproof.errors import ImportError_
from driftproof.importers.nvidia import import_nvidia

NV = "data/interop/nvidia"
SPARK = f"{NV}/skillevaluator/sparkpath-0.3.0/academic-warning/BENCHMARK.md"
GOLDEN = f"{NV}/skillevaluator/golden-e70f0e3/benchmark_pass/BENCHMARK.md"
TIER3_ROW = "| Tier 3 | Live agent evaluation | **PASS** | 2 agent(s); 8 task(s) |\n"


def test_each_tiers_evidence_is_kept_in_the_notes(shared: Path) -> None:
    # academic-warning, lines 55-57: "| Tier 1 | Static validation | **PASSED WITH
    # OBSERVATIONS** | 11 validator(s); 4 finding(s) |", "| Tier 2 | … | **PASSED** | 1
    # validator(s); 0 finding(s) |", "| Tier 3 | … | **PASS** | 2 agent(s); 17 task(s) |"; and
    # line 22 of its metadata, "- Tier 3 evidence: required for publication"
    r = sealed(import_nvidia([shared / SPARK]))
    assert r.provenance.notes == [
        "The card's line 22, under 'Evaluation Metadata': Tier 3 evidence: required for "
        "publication",
        "The card's line 55, under 'Tier Status': evidence for Tier 1: 11 validator(s); 4 "
        "finding(s)",
        "The card's line 56, under 'Tier Status': evidence for Tier 2: 1 validator(s); 0 "
        "finding(s)",
        "The card's line 57, under 'Tier Status': evidence for Tier 3: 2 agent(s); 17 task(s)",
    ]
    assert [(t.name, t.title, t.printed) for t in r.source_report.stages] == [
        ("Tier 1", "Static validation", "PASSED WITH OBSERVATIONS"),
        ("Tier 2", "Semantic deduplication", "PASSED"),
        ("Tier 3", "Live agent evaluation", "PASS"),
    ]


def test_an_evaluation_reports_sentence_of_each_tier_is_kept(shared: Path) -> None:
    # cuopt-install's "## Tier 1: Static Validation Summary" (line 65) and "## Tier 2:
    # Deduplication Summary" (line 76): the card has no Tier Status table, these are all it says
    r = sealed(import_nvidia([shared / NV / "skills/cuopt-install/BENCHMARK.md"]))
    assert r.provenance.notes == [
        "The card's line 67, under 'Tier 1: Static Validation Summary': Tier 1 validation "
        "passed with observations. NVSkills-Eval ran 1 checks and found 4 total findings.",
        "The card's line 78, under 'Tier 2: Deduplication Summary': This tier was not run or "
        "did not produce findings in this report.",
    ]


def test_a_skipped_tier_and_its_reasons_are_kept(shared: Path, tmp_path: Path) -> None:
    # Tier 2 as _render_tier_status prints a tier whose validators were all skipped: its row,
    # then after the table (line 55 blank) "Tier 2 validation was skipped and executed 0
    # checks." (56) and one bullet per reason (57); line 58 is blank, the findings follow
    row = "| Tier 2 | Semantic deduplication | **PASSED WITH OBSERVATIONS** | 1 validator(s); 1 "
    skipped = "| Tier 2 | Semantic deduplication | **SKIPPED (ADVISORY)** | Embedding service "
    f = nvidia_card(shared, tmp_path, GOLDEN, row + "finding(s) |", skipped + "unavailable |")
    reasons = (
        "\nTier 2 validation was skipped and executed 0 checks.\n- Embedding service unavailable\n"
    )
    f.write_text(f.read_text("utf-8").replace(TIER3_ROW, TIER3_ROW + reasons), "utf-8")
    r = sealed(import_nvidia([f]))
    assert [(t.name, t.status, t.printed) for t in r.source_report.stages][1] == (
        "Tier 2",
        "other",
        "SKIPPED (ADVISORY)",
    )
    assert r.provenance.notes == [
        "The card's line 19, under 'Evaluation Metadata': Tier 3 evidence: required for "
        "publication",
        "The card's line 52, under 'Tier Status': evidence for Tier 1: 1 validator(s); 0 "
        "finding(s)",
        "The card's line 53, under 'Tier Status': evidence for Tier 2: Embedding service "
        "unavailable",
        "The card's line 54, under 'Tier Status': evidence for Tier 3: 2 agent(s); 8 task(s)",
        "The card's line 56, under 'Tier Status': Tier 2 validation was skipped and executed 0 "
        "checks.",
        "The card's line 57, under 'Tier Status': Embedding service unavailable",
    ]


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        (  # the columns swapped: Purpose was read as the status, "other"
            "| Tier | Purpose | Status | Evidence |",
            "| Tier | Status | Purpose | Evidence |",
            "line 50: expected the Tier Status table's head '| Tier | Purpose | Status | "
            "Evidence |', found '| Tier | Status | Purpose | Evidence |'",
        ),
        (  # a row not named "Tier <n>" was passed over without a word
            TIER3_ROW,
            TIER3_ROW + "| Tier 3b | Live agent evaluation | **FAIL** | 1 agent(s) |\n",
            "line 55: expected a tier's row such as '| Tier 1 | Static validation | **PASSED** "
            "| 1 validator(s); 0 finding(s) |', found '| Tier 3b | Live agent evaluation | "
            "**FAIL** | 1 agent(s) |'",
        ),
        (  # a tier's name past a receipt's stage name (200 characters) ended in a traceback;
            # the error quotes the line's first 200 characters
            "| Tier 3 |",
            f"| Tier {'3' * 300} |",
            "line 54: expected a tier's row such as '| Tier 1 | Static validation | **PASSED** "
            f"| 1 validator(s); 0 finding(s) |', found '| Tier {'3' * 193}'",
        ),
        (  # a fifth cell was passed over without a word
            TIER3_ROW,
            TIER3_ROW.replace("task(s) |", "task(s) | 1 failed |"),
            "line 54: expected a tier's row such as '| Tier 1 | Static validation | **PASSED** "
            "| 1 validator(s); 0 finding(s) |', found '| Tier 3 | Live agent evaluation | "
            "**PASS** | 2 agent(s); 8 task(s) | 1 failed |'",
        ),
    ],
)
def test_a_tier_status_table_of_another_shape_is_refused_at_its_line(
    shared: Path, tmp_path: Path, old: str, new: str, said: str
) -> None:
    f = nvidia_card(shared, tmp_path, GOLDEN, old, new)
    with pytest.raises(ImportError_) as e:
        import_nvidia([f])
    assert str(e.value) == f"{f}: {said}"


def test_more_tiers_than_a_receipt_keeps_are_refused_at_the_first_past_them(
    shared: Path, tmp_path: Path
) -> None:
    # found: a Python traceback (a receipt keeps 50 stages); rows of Tier 4 … Tier 51 follow
    # Tier 3 (line 54), so Tier 51 is line 54 + 48 = 102
    more = "".join(f"| Tier {i} | Extra | **PASSED** | 0 finding(s) |\n" for i in range(4, 52))
    f = nvidia_card(shared, tmp_path, GOLDEN, TIER3_ROW, TIER3_ROW + more)
    with pytest.raises(ImportError_) as e:
        import_nvidia([f])
    assert str(e.value) == f"{f}: line 102: expected at most 50 tiers (the most a receipt keeps)"
