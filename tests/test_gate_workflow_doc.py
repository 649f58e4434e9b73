"""The reference's pull-request gate passes the A/A receipt (`aa:`) the README recommends giving
the Action, so a team copying it gets the noise-alone count cited beside the verdicts."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_reference_workflow_passes_aa() -> None:
    text = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
    gate = text.split("## A pull-request gate", 1)[1].split("```yaml", 1)[1].split("```", 1)[0]
    action = gate.split("uses: <owner>/driftproof@<commit sha>", 1)[1]
    inputs = [x.strip().split(":", 1)[0] for x in action.splitlines() if ":" in x]
    assert inputs == ["with", "baseline", "receipt", "aa", "fail-on"]
