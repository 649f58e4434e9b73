"""Two receipts graded by different judges get no verdict together: the judge is the instrument.

The method fixes the judge ("The judge is deliberately fixed"); a change of judge, or of the
judge's instructions, scale or service (the address its calls used), needs the saved answers
graded again before two receipts' scores can be read against each other, as ``stale`` says of a
moved judge service ("regrade only"). A judge or service one side does not record keeps today's
reading; the answering arms' service may change between two runs on purpose, as the model may.

c1's with-skill arm is .50 .50 .50 in one receipt and .55 .55 .55 in the other: no spread, so
the bands are apart and |Δ| = .05 meets the floor (D-3, D-4): improved from the first to the
second, regressed the other way, when one judge graded both.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from factories import JUDGE, case, make_receipt
from receipt_docs import seal_document
from test_action import run_action

from driftproof.pages.comparison import OTHER_JUDGE, compare_receipts, exit_status
from driftproof.receipt import Receipt
from driftproof.render.comparison import comparison_text
from driftproof.stats import VerdictCode

SAME = [0.5, 0.5, 0.5]
PLUS = [0.55, 0.55, 0.55]
OTHERS = {
    "model": {"model": "claude-opus-4"},
    "provider": {"provider": "openrouter"},
    "template": {"template_sha256": "1" * 64},
    "scale": {"scale": {"worst": 0.0, "best": 10.0, "step": 1.0}},
    "service": {"service": "http://10.0.0.9:8000/v1"},  # JUDGE's: https://api.anthropic.com
}


def _doc(with_skill: list[float], **judge: Any) -> dict[str, Any]:
    j = copy.deepcopy(JUDGE)
    j.update(judge)
    return make_receipt([case("c1", with_skill, SAME)], judge=j)


def _receipt(with_skill: list[float], **judge: Any) -> Receipt:
    return Receipt.model_validate(_doc(with_skill, **judge))


def test_one_judge_reads_improved() -> None:
    c = compare_receipts(_receipt(SAME), _receipt(PLUS))
    assert [v.verdict for v in c.rows] == [VerdictCode.IMPROVED] and exit_status(c) == 0


@pytest.mark.parametrize("what", OTHERS)
def test_another_judge_template_scale_or_service_reads_no_verdict(what: str) -> None:
    c = compare_receipts(_receipt(SAME), _receipt(PLUS, **OTHERS[what]))
    assert c.refusals == (OTHER_JUDGE,) and c.rows == () and not c.regressed
    assert c.underpowered_sentence is None and c.draws_needed is None
    assert exit_status(c) == 5  # no verdict, as for a side that gets none
    assert [v.case_id for v in c.context_rows] == ["c1"]  # the bands shown as context
    text = comparison_text(c)
    assert "improved" not in text and "driftproof regrade" in text


def test_a_judge_one_side_does_not_name_keeps_the_verdict() -> None:
    c = compare_receipts(_receipt(SAME), _receipt(PLUS, model="unrecorded:promptfoo/grader"))
    assert c.refusals == () and [v.verdict for v in c.rows] == [VerdictCode.IMPROVED]


def test_a_judge_service_names_both_and_one_side_not_recording_it_keeps_the_verdict() -> None:
    c = compare_receipts(_receipt(SAME), _receipt(PLUS, service="http://10.0.0.9:8000/v1"))
    assert c.notes == (
        "The two receipts' judge was served by different services (https://api.anthropic.com "
        "and http://10.0.0.9:8000/v1): the same judge's name there may be another model or "
        "build, so a change between them may be the service's, not the skill's.",
    )
    c = compare_receipts(_receipt(SAME), _receipt(PLUS, service=None))  # not recorded: unknown
    assert c.refusals == () and [v.verdict for v in c.rows] == [VerdictCode.IMPROVED]


def test_another_answering_service_keeps_the_verdict() -> None:
    # a diff between two runs may change where the model is served on purpose, as its model
    later = _doc(PLUS)
    later["arms"]["with_skill"]["service"] = later["arms"]["baseline"]["service"] = "http://h/v1"
    c = compare_receipts(_receipt(SAME), Receipt.model_validate(seal_document(later)))
    assert c.refusals == () and [v.verdict for v in c.rows] == [VerdictCode.IMPROVED]


@pytest.mark.parametrize("what", ["model", "service"])
def test_the_action_decides_nothing_across_two_judges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, what: str
) -> None:
    # the earlier receipt graded by another judge: one judge would read c1 regressed (.55 → .50)
    earlier, later = _doc(PLUS, **OTHERS[what]), _doc(SAME)
    code, outputs, summary = run_action(tmp_path, monkeypatch, earlier, later, "regressed")
    assert code == 0 and outputs["decision"] == "none" and outputs["regressed-cases"] == "[]"
    assert f"\n\n{OTHER_JUDGE}\n\n" in summary and "A side gets no verdict" not in summary
    same = run_action(tmp_path, monkeypatch, _doc(PLUS), later, "regressed")
    assert same[0] == 1 and same[1]["decision"] == VerdictCode.REGRESSED
