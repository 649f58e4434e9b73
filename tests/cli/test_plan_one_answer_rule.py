"""plan reads every receipt of one answer per arm alike: refused, exit 2, the same words.

Issue: a skill-creator import (legacy bands, one answer judged several times) was refused with
exit 2, while claude plugin eval's and skill-validator's imports (one answer per arm with bands
across answers) exited 0 with "Unknown: no case has two measured draws …".
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from driftproof.cli.plan import plan

RECEIPTS = Path(__file__).parents[2] / "receipts"
SAID = (
    "No case in this receipt has two measured answers in both arms, and one answer cannot size "
    "a run of draws: plan sizes a run from how far a case's score moves from one answer to the "
    "next (a band over one answer's judge samples measures the judge alone). Run a pilot with "
    "driftproof run, which draws each arm at least 3 times, and plan from its receipt.\n"
)


def test_one_answer_per_arm_reads_alike_from_every_source() -> None:
    for name in (
        "skill-creator-nebius-skills-iteration-1-12a0aae8.json",  # legacy bands
        "claude-plugin-eval-probe-plugin-8955eb63.json",  # bands across answers, one each
    ):
        f = RECEIPTS / name
        res = CliRunner().invoke(plan, [str(f)])
        assert (res.exit_code, res.stdout, res.stderr) == (2, "", f"error: {f}: {SAID}"), name


def test_help_says_the_rule() -> None:
    text = " ".join(CliRunner().invoke(plan, ["--help"]).output.split())
    assert "no case has two measured answers in both arms, run or imported" in text
