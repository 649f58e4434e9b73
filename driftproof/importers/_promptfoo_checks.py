"""promptfoo's component results (``gradingResult.componentResults``) as a draw's checks."""

from __future__ import annotations

from typing import Any

from driftproof._json import json_kind, member_list, member_object, member_str
from driftproof.importers import _common as common
from driftproof.importers import _declared as declared
from driftproof.importers._common import Where
from driftproof.receipt._bounds import DRAW_MAX_CHECKS

_CHECK_KINDS = {
    **dict.fromkeys(("contains", "icontains", "contains-any", "contains-all"), "must_include"),
    **dict.fromkeys(("not-contains", "not-icontains"), "must_not_include"),
    **dict.fromkeys(("regex", "not-regex"), "regex"),
    **dict.fromkeys(("is-json", "contains-json", "starts-with"), "structural"),
}


#: How promptfoo words an assertion whose own code failed (src/assertions/python.ts,
#: javascript.ts): an error of the check, never a fail of the answer.
_ERRORED = ("Python code execution failed", "Custom function threw error")
#: The reasons promptfoo's model graders give, untagged by ``metadata.graderError`` (older files,
#: factuality and closed-QA still: issue 10481), when the grader itself failed, by the assertion
#: type (its ``not-`` form alike): (whole reasons, opening words). From src/matchers:
#: llmGrading.ts, rubric.ts (promptfoo 0.95's "Could not extract JSON from llm-rubric
#: response", issue 2084), classification.ts and search.ts (which not-classifier and
#: not-search-rubric inverted into a pass before PR 10904). Not llm-rubric's or factuality's
#: "No output": a judge's own reason, which those graders keep whole, may be those words.
#: Closed-QA's are every reason but its verdicts' (:data:`_CLOSEDQA_VERDICTS`).
_SEARCH = "Search rubric evaluation failed: "
_GRADER_FAILED: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "llm-rubric": (
        (),
        (
            "Could not extract JSON from llm-rubric response",
            "llm-rubric produced malformed response",
            "Could not perform remote grading: ",
        ),
    ),
    **dict.fromkeys(
        ("factuality", "model-graded-factuality"),
        (
            (),
            (
                "Factuality checker output did not match expected format: ",
                "Invalid category value: ",
            ),
        ),
    ),
    "classifier": (
        ("Unknown error fetching classification", "No classification scores returned"),
        (),
    ),
    "search-rubric": (
        (),
        (
            _SEARCH,
            f"Output does not require web search verification: {_SEARCH}",
            f"Output requires web search verification: {_SEARCH}",
        ),
    ),
}
#: How model-graded-closedqa opens each of its verdicts (matchesClosedQa; older promptfoo wrote
#: the first with no colon and no reply after it): any other reason is its grader failing, a
#: malformed reply, no output or its provider's own error text (issue 10481).
_CLOSEDQA_VERDICTS = (
    "The submission meets the criterion",
    "The submission does not meet the criterion:",
)
#: The verdicts a grader writes, unmarked, for its own provider's error: a fail of factuality
#: (matchesFactuality: issue 10481) and of classifier (matchesClassification), which
#: not-classifier inverted into a pass before PR 10904.
_UNTOLD = {
    "factuality": "fail",
    "model-graded-factuality": "fail",
    "classifier": "fail",
    "not-classifier": "pass",
}
#: A receipt's note on draws holding such a verdict, after their count.
UNTOLD_NOTE = (
    "measured draw(s) hold a fail of a factuality or classifier assertion (or a pass "
    "of not-classifier): promptfoo writes that grader's own provider error as such a verdict, "
    "unmarked, so some may be the grader failing rather than the answer; read as promptfoo "
    "scored them."
)
#: Assertions whose score compares the arms' answers with one another (src/evaluator.ts), never
#: one answer's own.
_COMPARING = ("select-best", "max-score")


def _grader_failed(atype: str, reason: str) -> bool:
    """Whether ``reason`` is one promptfoo's grader of ``atype`` gives when it failed itself."""
    if atype.removeprefix("not-") == "model-graded-closedqa":
        return not reason.startswith(_CLOSEDQA_VERDICTS)
    whole, opening = _GRADER_FAILED.get(atype.removeprefix("not-"), ((), ()))
    return reason in whole or reason.startswith(opening)


def untold(checks: list[Any]) -> bool:
    """Whether a draw's ``checks`` hold a verdict its grader's provider error reads alike."""
    return any(_UNTOLD.get(c.source_type) == c.outcome for c in checks)


def checks_of(grading: dict[str, Any] | None, w: Where) -> list[dict[str, Any]]:
    """Every assertion of a row's grading as a check, in order.

    A check errored (outcome ``error``) when promptfoo marks its grader's failure
    (``metadata.graderError``) or words it as one of its own failures (:data:`_ERRORED`,
    :data:`_GRADER_FAILED`, :data:`_CLOSEDQA_VERDICTS`).

    Raises:
        ImportError_: more results than a receipt keeps checks of one answer, a result with no
            ``pass`` (unless its check errored), whose assertion has no type (a non-empty
            string) or compares the test's answers (:data:`_COMPARING`), at its place under
            ``w``.
    """
    checks: list[dict[str, Any]] = []
    results = member_list(grading, "componentResults")
    if len(results) > DRAW_MAX_CHECKS:  # each a check of the draw's checks[] in the receipt
        raise (w / "componentResults").fail(
            f"expected at most {DRAW_MAX_CHECKS} assertion results (a receipt keeps each as a "
            f"check of its answer), found {len(results):,}"
        )
    for i, comp in enumerate(results):
        assertion = _assertion_of(comp, w / "componentResults" / i)
        atype = assertion.get("type")
        if not isinstance(atype, str) or not atype:
            found = "none" if "type" not in assertion else json_kind(atype)
            raise (w / "componentResults" / i / "assertion" / "type").fail(
                "expected the assertion's type, a name such as 'contains', found "
                + ("an empty string" if atype == "" else found)
            )
        if atype in _COMPARING:
            raise (w / "componentResults" / i).fail(
                f"expected assertions grading each answer on its own, found {atype}: its score "
                "compares this test's answers across the file's providers and prompts (the one "
                "chosen scores 1, the others 0), so it is no score of one arm's answer"
            )
        reason = member_str(comp, "reason") or ""
        errored = (
            bool(member_object(comp, "metadata").get("graderError"))
            or reason.startswith(_ERRORED)
            or _grader_failed(atype, reason)
        )
        if not errored and not isinstance(comp.get("pass"), bool):
            raise (w / "componentResults" / i / "pass").fail(
                "expected the assertion's pass (true or false)"
            )
        passed = comp.get("pass") is True and not errored
        shown = json_text(assertion.get("value"))
        outcome = "error" if errored else ("pass" if passed else "fail")
        kind = _CHECK_KINDS.get(atype, "assertion")
        checks.append(declared.source_check(atype, shown, kind, passed, outcome))
    return checks


def _assertion_of(comp: dict[str, Any], w: Where) -> dict[str, Any]:
    """The assertion a component result grades; an assert-set's own result as ``assert-set``.

    promptfoo lists an ``assert-set``'s result (no ``assertion``; its own ``componentResults``,
    the results of the set's assertions, which follow it; its set under
    ``metadata.assertionSet`` since promptfoo wrote that) before the results of the set's
    assertions (src/assertions/assertionsResult.ts); the set passes on its own threshold.

    Raises:
        ImportError_: a component that is neither, at ``w``.
    """
    if isinstance(comp.get("assertion"), dict):
        return dict(comp["assertion"])
    held = member_object(comp, "metadata").get("assertionSet")
    if isinstance(held, dict) and held.get("type") == "assert-set":
        return {"type": "assert-set", "value": {k: v for k, v in held.items() if k != "type"}}
    if isinstance(comp.get("componentResults"), list):
        return {"type": "assert-set", "value": None}  # a set whose definition is not kept
    raise w.fail(
        "expected an assertion's result (its assertion) or an assert-set's "
        "(its componentResults or metadata.assertionSet), found an object with neither"
    )


def json_text(v: Any) -> str | None:
    """A string as it is, else ``v`` as RFC 8785 JSON text; ``None`` for null or no JSON text."""
    if v is None or isinstance(v, str):
        return v
    canonical = common.canonical_json(v)
    return None if canonical is None else canonical.decode("utf-8")
