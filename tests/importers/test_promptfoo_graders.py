"""promptfoo importer: rows whose score is not one answer's own measure are refused or lost.

The sample is promptfoo/sample-export.json (promptfoo 0.118.10): the riddle test's row for
openai:gpt-5-mini (the with-skill arm here) scores 0.75 = (cost 1 + latency 0 + contains 1 +
llm-rubric 1) / 4; the boat test's row for it 0.667 = (1 + 0 + 1) / 3. The shapes below are
promptfoo's own, from its source (src/evaluator.ts, src/assertions/assertionsResult.ts,
src/matchers) and its issues, as the adversarial importer test (round 23) found them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from interop_helpers import promptfoo_import, sealed
from interop_helpers import promptfoo_sample as _sample

from driftproof.errors import ImportError_
from driftproof.importers._promptfoo_checks import UNTOLD_NOTE


def _import(doc: dict[str, Any], tmp_path: Path) -> Any:
    return sealed(promptfoo_import(doc, tmp_path))


@pytest.mark.parametrize("atype", ["select-best", "max-score"])
def test_a_score_comparing_the_arms_answers_is_refused(
    shared: Path, tmp_path: Path, atype: str
) -> None:
    # promptfoo grades select-best and max-score over every output of a test and, where a row
    # is not chosen, sets its whole score to 0 ("Failure overrides the reason and the score",
    # mergeSelectBestGradingResult in src/evaluator.ts): the baseline's 0 would only say it lost
    # to the other arm, read as its own score (a lift of +0.583 where the arms' own assertions
    # give -0.125)
    doc = _sample(shared)
    row = doc["results"]["results"][1]
    comp = {"pass": False, "score": 0, "reason": "Output not selected: Pick the most accurate"}
    row["gradingResult"]["componentResults"].append(comp | {"assertion": {"type": atype}})
    row["gradingResult"]["score"] = row["score"] = 0
    with pytest.raises(ImportError_) as exc:
        _import(doc, tmp_path)
    said = str(exc.value)
    assert "out.json" in said and "/results/results/1/gradingResult/componentResults/4:" in said
    assert f"found {atype}" in said and "no score of one arm's answer" in said


def test_a_test_with_no_assertion_is_lost_never_a_one(shared: Path, tmp_path: Path) -> None:
    # a test with no assertion: promptfoo passes it with a score of 1 and the reason "No
    # assertions" (AssertionsResult.noAssertsResult()), nothing graded; the with-skill arm's
    # riddle draw is lost and its boat draw stays (1 + 0 + 1) / 3
    doc = _sample(shared)
    row = doc["results"]["results"][0]
    row["gradingResult"] = {"pass": True, "score": 1, "reason": "No assertions"}
    row |= {"score": 1, "success": True, "failureReason": 0}
    r = _import(doc, tmp_path)
    (riddle,), (boat,) = (c.arms.with_skill.draws for c in r.cases)
    assert riddle.score is None and riddle.lost is not None
    assert riddle.lost.reason == "promptfoo graded no assertion: No assertions"
    assert boat.score == pytest.approx(2 / 3)


#: Reasons promptfoo's graders give when the grader itself failed, with no metadata.graderError
#: (src/matchers/llmGrading.ts, rubric.ts, classification.ts, search.ts), each with the
#: assertion's pass and score as promptfoo writes them.
GRADER_FAILURES = [
    # promptfoo 0.95, issue 2084, before the marker
    ("llm-rubric", "Could not extract JSON from llm-rubric response", False, 0),
    ("llm-rubric", "llm-rubric produced malformed response: SyntaxError\n\n{pass:", False, 0),
    # matchesFactuality / matchesClosedQa, issue 10481 (still unmarked)
    # closed-QA opens each verdict "The submission meets the criterion" or "... does not meet
    # the criterion:" (matchesClosedQa), so any other reason is its grader's, a provider's
    # error text among them (issue 10481's 429)
    ("model-graded-closedqa", "No output", False, 0),
    ("model-graded-closedqa", "API error: 429 Too Many Requests", False, 0),
    ("model-graded-factuality", "Invalid category value: F", False, 0),
    ("factuality", "Factuality checker output did not match expected format: yes", False, 0),
    ("model-graded-closedqa", "Model grader produced a malformed response:\nMaybe", False, 0),
    # not-classifier and not-search-rubric inverted a grader outage into a pass (PR 10904)
    ("not-classifier", "Unknown error fetching classification", True, 1),
    ("not-classifier", "No classification scores returned", True, 1),
    (
        "not-search-rubric",
        "Output does not require web search verification: Search rubric evaluation failed: "
        "No output",
        True,
        1,
    ),
]


@pytest.mark.parametrize(("atype", "reason", "passed", "score"), GRADER_FAILURES)
def test_a_graders_own_failure_unmarked_is_lost_with_its_reason(
    shared: Path, tmp_path: Path, atype: str, reason: str, passed: bool, score: int
) -> None:
    # the riddle row's llm-rubric replaced by the failed grader: promptfoo counts it at its
    # score, (1 + 0 + 1 + score) / 4; the draw is lost instead, with promptfoo's words
    doc = _sample(shared)
    row = doc["results"]["results"][0]
    comp = {"pass": passed, "score": score, "reason": reason, "assertion": {"type": atype}}
    row["gradingResult"]["componentResults"][3] = comp
    row["gradingResult"]["score"] = row["score"] = (2 + score) / 4
    draw = _import(doc, tmp_path).cases[0].arms.with_skill.draws[0]
    assert draw.score is None and draw.lost is not None and draw.lost.kind == "unscored"
    assert draw.lost.reason == f"{atype} could not run: {reason}"
    assert draw.checks[3].outcome == "error"


@pytest.mark.parametrize(
    ("atype", "reason", "passed", "noted"),
    [
        # a grader provider's own error text (issue 10481's "API error: 429 Too Many Requests"):
        # promptfoo writes it as the verdict, so it cannot be told from a grader's reason; read
        # as scored, and the receipt says such verdicts may be the grader failing
        ("factuality", "API error: 429 Too Many Requests", False, True),
        ("model-graded-closedqa", "The submission does not meet the criterion:\nN", False, False),
        ("model-graded-closedqa", "The submission meets the criterion", True, False),  # older
        ("not-classifier", "Request timed out", True, True),  # inverted before PR 10904
        # "No output" is also a judge's own reason, kept whole: llm-rubric's parsed.reason
        # (rubric.ts), factuality's JSON reason or the words after "(D)" (llmGrading.ts)
        ("llm-rubric", "No output", False, False),
        ("factuality", "No output", False, True),
        # a grader's failure words on an assertion no grader runs are that assertion's verdict
        ("contains", "No output", False, False),
        ("not-classifier", "Classification toxic has score 0.91 >= 0.5", False, False),
        ("classifier", "Classification toxic has score 0.91 >= 0.5", True, False),
    ],
)
def test_other_verdicts_stay_measured_and_the_untold_ones_are_noted(
    shared: Path, tmp_path: Path, atype: str, reason: str, passed: bool, noted: bool
) -> None:
    doc = _sample(shared)
    row = doc["results"]["results"][0]
    comp = {"pass": passed, "score": int(passed), "reason": reason, "assertion": {"type": atype}}
    row["gradingResult"]["componentResults"][3] = comp
    row["gradingResult"]["score"] = row["score"] = (2 + passed) / 4  # (1 + 0 + 1 + pass) / 4
    r = _import(doc, tmp_path)
    draw = r.cases[0].arms.with_skill.draws[0]
    assert draw.score == (2 + passed) / 4
    assert draw.checks[3].outcome == ("pass" if passed else "fail")
    said = [n for n in r.provenance.notes or [] if "grader failing" in n]
    assert said == (["1 " + UNTOLD_NOTE] if noted else [])


@pytest.mark.parametrize("version", [99, 1, "3", True])
def test_a_results_version_not_read_is_refused(
    shared: Path, tmp_path: Path, version: object
) -> None:
    doc = _sample(shared)
    doc["results"]["version"] = version
    with pytest.raises(ImportError_) as exc:
        _import(doc, tmp_path)
    said = str(exc.value)
    assert "out.json" in said and "/results/version:" in said and "2 or 3" in said
