"""``plan`` says when a pilot measured no spread in an arm, and whose spreads its chances are at.

Found: a pilot whose arms' draws all scored the same ([.67, .67, .67] against [.60, .60, .60] on
a 0.01 grid) got a plain "Run 3 draws per arm", though it measured no spread: a 3-draw run with
no effect reads underpowered about 11% of the time at a true spread of 0.01 per draw, 47% at
0.015 (the checker's simulation, 200,000 runs each). Its first line now
says the pilot measured no spread there, so the count assumes only the grid's rounding spread
there, and a larger pilot is safer (it said "assumes none" while planning at that spread).
Found too: "verdict at 0.075: over 99%" read as a guarantee; it is simulated at the pilot's own
spreads, and says so. And README said "at most 10% of the time" without the condition plan's
own output gives: true spreads no wider than the bounds."""

from __future__ import annotations

import re
from pathlib import Path

import factories

from driftproof.pages.plan import plan_receipt
from driftproof.receipt import Receipt
from driftproof.render.plan import headline, plan_text

# one judge sample on a 0.01 grid: a draw's score moves in steps of 0.01, whose rounding spread
# is 0.01 / sqrt(12) = 0.0028868 (STATISTICS-NOTES 6.6), what the count is planned at there
NONE_THERE = (
    "every draw there scored the same, so the count assumes only the judge grid's rounding "
    "spread, 0.0029, and a larger pilot is safer."
)


def _pilot(*cases: tuple[list[float], list[float]]) -> Receipt:
    judge = {**factories.JUDGE, "scale": {**factories.JUDGE["scale"], "step": 0.01}}
    docs = [factories.case(f"c{i + 1}", w, b) for i, (w, b) in enumerate(cases)]
    return Receipt.model_validate(factories.make_receipt(docs, judge=judge))


def test_a_pilot_with_no_spread_says_so_on_its_first_line() -> None:
    # both arms flat: a gap of .07 with no spread; the count is the run's least, 3 draws
    line = headline(plan_receipt(_pilot(([0.67] * 3, [0.60] * 3))))
    flat = "The pilot measured no spread in c1 (with skill and baseline)"
    assert line == f"Run 3 draws per arm. {flat}: {NONE_THERE}"


def test_only_the_flat_arm_is_named_and_a_measured_spread_says_nothing() -> None:
    # c1's baseline is flat, its with-skill arm has a spread; c2 has a spread in both arms
    p = plan_receipt(
        _pilot(([0.67, 0.68, 0.67], [0.60] * 3), ([0.70, 0.71, 0.70], [0.60, 0.61, 0.60]))
    )
    assert f"The pilot measured no spread in c1 (baseline): {NONE_THERE}" in headline(p)
    assert "c2 (" not in headline(p)
    steady = plan_receipt(_pilot(([0.67, 0.68, 0.67], [0.60, 0.61, 0.60])))
    assert "no spread" not in headline(steady)


def test_the_chance_of_a_verdict_says_it_is_at_the_pilots_spreads() -> None:
    text = plan_text(plan_receipt(_pilot(([0.67, 0.68, 0.67], [0.60, 0.61, 0.60]))))
    assert re.search(r"  c1: \d+ \(.*; verdict at 0\.075, at the pilot's spreads: ", text), text


def test_readme_says_when_the_ten_percent_holds() -> None:
    root = Path(__file__).resolve().parents[2]
    readme = re.sub(r"\s+", " ", (root / "README.md").read_text(encoding="utf-8"))
    assert (
        "reads underpowered at most 10% of the time when its true spreads are no wider than "
        "those bounds" in readme
    )
    assert "a verdict at LIFT (default 0.075) if the true spreads are the pilot's" in readme
