"""``driftproof plan`` on pilots no model run measured.

A simulated pilot (``run --provider simulated``, the demo) says so under its headline, as view,
diff and badge do: the spreads are not a model's. An import of one score per arm is refused.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from factories import case, make_receipt
from receipt_docs import seal_document

from driftproof.cli.plan import plan
from driftproof.pages.plan import plan_receipt
from driftproof.receipt import Receipt
from driftproof.render.plan import plan_json, plan_text

CASES = [case("c1", [0.60, 0.62, 0.64], [0.50, 0.52, 0.54])]
SAID = (
    "This pilot is simulated (its answers, its grades or both): the simulated provider drew them "
    "at random, so its spreads are not a model's; the plan shows how planning works, not what a "
    "real run needs."
)


def _pilot(provider: str) -> Receipt:
    doc = make_receipt(CASES, level="UNVERIFIED" if provider == "simulated" else "TESTED")
    doc["run"]["provider"] = doc["judge"]["provider"] = provider
    return Receipt.model_validate(seal_document(doc))


def test_a_simulated_pilot_is_named_before_its_cases() -> None:
    # under the headline, its commands, calls and cost; before the cases and the reasoning
    lines = plan_text(plan_receipt(_pilot("simulated"))).splitlines()
    assert lines.index(SAID) == next(i for i, x in enumerate(lines) if x.startswith("  ")) - 1
    assert lines[lines.index(SAID) - 1].startswith("Estimated grading cost: ")
    assert json.loads(plan_json(plan_receipt(_pilot("simulated"))))["simulated"] is True


def test_a_model_pilot_is_not() -> None:
    p = plan_receipt(_pilot("anthropic"))
    assert SAID not in plan_text(p)
    assert json.loads(plan_json(p))["simulated"] is False


def test_a_pilot_simulated_on_one_side_is_not_said_to_have_no_model() -> None:
    # a model answered under the simulated judge: the note said "no model answered"
    doc = make_receipt(CASES, level="UNVERIFIED")
    doc["run"]["provider"], doc["judge"]["provider"] = "anthropic", "simulated"
    text = plan_text(plan_receipt(Receipt.model_validate(seal_document(doc))))
    assert SAID in text and "no model answered" not in text


def test_cli_plan_refuses_a_one_score_import_naming_no_judge_sample() -> None:
    # skill-creator's nebius import: one answer per arm, one score each as the source gave it,
    # no judge sample; the refusal said "any band it has is its judge's samples of that answer"
    receipts = Path(__file__).parents[2] / "receipts"
    res = CliRunner().invoke(
        plan, [str(receipts / "skill-creator-nebius-skills-iteration-1-12a0aae8.json")]
    )
    assert res.exit_code == 2 and "judge's samples" not in res.stderr
    assert "No case in this receipt has two measured answers in both arms" in res.stderr


def test_an_unpriced_plan_says_how_to_give_a_judge_price() -> None:
    # a newcomer's issue: "unknown (the receipt freezes no judge price)" said not how to give one
    six = [0.60, 0.61, 0.62, 0.62, 0.61, 0.60], [0.50, 0.51, 0.52, 0.52, 0.51, 0.50]
    doc = make_receipt([case("c1", *six)])  # a pilot large enough to plan a count from
    doc["judge"]["price"] = None  # judge usage recorded, but no price for it
    usage = {"input_tokens": 12_000, "output_tokens": 1_200, "judged_draws_missing_usage": 0}
    doc["economics"]["judge_overhead"] = {"usd": None, "judged_draws_counted": 12, **usage}
    text = plan_text(plan_receipt(Receipt.model_validate(seal_document(doc))))
    assert (
        "Estimated grading cost of a run of 210 draws per arm: unknown (the receipt freezes no "
        "judge price; driftproof run --judge-price IN,OUT freezes one in the next receipt).\n"
    ) in text
