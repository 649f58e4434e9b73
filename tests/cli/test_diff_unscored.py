"""``diff`` of receipts with no scored answer: nothing to compare, said first."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from driftproof.cli.diff import diff


def test_receipts_with_no_judged_score_show_no_bands_and_no_lost_draws() -> None:
    """caveman's runs record output tokens and no judged score ("band source: none"): no band
    table (it once showed every draw lost for want of a judge sample, under a "legacy" source)."""
    receipts = Path(__file__).resolve().parents[2] / "receipts"
    a, b = (str(receipts / f"caveman-2b10489-caveman-{x}.json") for x in ("cn", "es"))
    res = CliRunner().invoke(diff, [a, b])
    assert res.exit_code != 0 and "no verdict" in res.output and "DECLARED is below" in res.output
    # it said only why there is no verdict, never that there is nothing to compare
    assert "Neither receipt holds a scored answer, so there are no scores to compare." in res.output
    assert "draws lost" not in res.output and "legacy" not in res.output
    assert "\ncase " not in res.output  # no table


def test_receipts_judged_by_two_judges_with_no_scores_say_so_before_naming_the_judges() -> None:
    """caveman's two judged-fidelity receipts (report 005): judged by claude-opus-4-8 and
    claude-haiku-4-5, and neither holds a scored answer. The diff said their scores are on
    different scales, then that there are no scores to compare."""
    receipts = Path(__file__).resolve().parents[2] / "receipts"
    a, b = (
        str(receipts / f"caveman-{c}-judged-fidelity-caveman.json") for c in ("5c7e19a", "902028f")
    )
    res = CliRunner().invoke(diff, [a, b])
    lines = res.output.splitlines()[:-2]  # then how to get a TESTED receipt
    assert lines[-2:] == [
        "Neither receipt holds a scored answer, so there are no scores to compare.",
        "The two receipts were graded by different judges (claude-opus-4-8 and "
        "claude-haiku-4-5): a change between them may be the judge's, not the skill's.",
    ]
