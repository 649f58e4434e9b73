"""``driftproof plan`` names the step its rounding spread is of: a draw's, not the grader's.

A draw's score is the mean of its judge samples (D-1), so its step is the grader's step over
the samples; the rounding spread is that step ÷ √12 (STATISTICS-NOTES 6.6).
"""

from __future__ import annotations

import json

import factories
import pytest
from receipt_docs import draw_doc, judge_sample_doc

from driftproof.pages.plan import plan_receipt
from driftproof.receipt import Receipt
from driftproof.render.plan import plan_json, plan_text


def _flat_pilot(samples: int) -> Receipt:
    """One case, 3 draws per arm, each draw ``samples`` judge samples of .5 (step .05)."""

    def arm() -> dict:
        judged = [
            judge_sample_doc(0.5, reply="0.5", reported_model=factories.JUDGE["model"])
        ] * samples
        draws = [draw_doc(i, answer=f"a{i}", judge_samples=judged) for i in range(3)]
        return {"draws": draws, "generation": None}

    flat = factories.case("flat", [], [])
    flat["arms"] = {"with_skill": arm(), "baseline": arm()}
    return Receipt.model_validate(factories.make_receipt([flat]))


@pytest.mark.parametrize(
    ("samples", "said", "bound"),
    [
        # .05 ÷ 5 = .01; .01 ÷ √12 = .0028868; upper 80% bound over 2 degrees of freedom
        # .0028868 ÷ √(.446287 ÷ 2) = .006111
        (
            5,
            "0.0029 (the step of a draw's score, 0.01: the judge's 0.05 over 5 judge samples",
            0.006,
        ),
        # .05 ÷ 3 = .016667; ÷ √12 = .0048113; bound .0048113 ÷ .472380 = .010185
        (
            3,
            "0.0048 (the step of a draw's score, 0.01667: the judge's 0.05 over 3 judge samples",
            0.010,
        ),
        # one sample: the draw's step is the grader's .05; .05 ÷ √12 = .0144338; bound .030556
        (1, "0.0144 (the step of a draw's score, the judge's 0.05 at one judge sample", 0.031),
    ],
)
def test_the_rounding_spread_is_said_to_be_of_a_draws_step(samples, said, bound) -> None:
    # it read "rounding spread 0.0029 (the grid step ÷ √12)" beside a grader's step of 0.05,
    # whose own rounding spread is 0.0144
    text = plan_text(plan_receipt(_flat_pilot(samples)))
    assert (
        f"Scores sit on the judge's grid, so a spread under its rounding spread {said}, ÷ √12) "
        "is planned at that instead, for flat."
    ) in text
    assert f"upper 80% bounds {bound:.3f} and {bound:.3f}" in text
    # the JSON is as it was: the rounding spread and its steps are words, not fields
    doc = json.loads(plan_json(plan_receipt(_flat_pilot(samples))))
    assert not {"rounding_spread", "grader_step", "samples_per_draw", "draw_step"} & set(doc)
