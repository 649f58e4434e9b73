"""A gate compares like with like: diff and the Action say when the two receipts ran another
suite file, or were graded under another judge template or scale, and the Action refuses an A/A
receipt that measured the noise of another model or judge (a simulated one beside real runs)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from factories import JUDGE, case, make_receipt
from receipt_docs import seal_document

from driftproof import action
from driftproof.pages.comparison import compare_receipts
from driftproof.receipt import Receipt
from driftproof.stats.aa import aa_problem

# c1 stays at .70 in both receipts: nothing here is about the verdict.
CASES = [case("c1", [0.65, 0.70, 0.75], [0.50, 0.55, 0.60])]


def _receipt(suite: tuple[str | None, str | None] = ("forty", "ab" * 32), **judge: Any) -> Receipt:
    j = copy.deepcopy(JUDGE)
    j.update(judge)
    doc = make_receipt(CASES, judge=j)
    doc["suite"] = {"name": suite[0], "sha256": suite[1]}
    return Receipt.model_validate(seal_document(doc))


def _notes(a: Receipt, b: Receipt) -> tuple[str, ...]:
    return compare_receipts(a, b).notes


def test_two_suites_are_named() -> None:
    said = (
        "The two receipts ran different suites (forty and thirty): a case added, removed or "
        "changed there may move the result, not the skill."
    )
    assert _notes(_receipt(), _receipt(("thirty", "cd" * 32))) == (said,)


def test_two_versions_of_one_suite_are_named_by_their_hashes() -> None:
    said = (
        "The two receipts ran different versions of the suite forty (files that hash to "
        "abababababab… and cdcdcdcdcdcd…): a case added, removed or changed there may move the "
        "result, not the skill."
    )
    assert _notes(_receipt(), _receipt(("forty", "cd" * 32))) == (said,)


def test_a_suite_hash_either_receipt_does_not_record_is_not_called_different() -> None:
    assert _notes(_receipt(), _receipt(("forty", None))) == ()
    # another judge temperature (not a note) so that the two receipts' seals differ
    assert _notes(_receipt(), _receipt(sampling={"temperature": 0.5, "max_tokens": 512})) == ()


def test_one_receipt_on_both_sides_is_named() -> None:
    said = (
        "The two receipts are one and the same (the same seal): nothing was measured again, so "
        "this comparison cannot show a change."
    )
    assert _notes(_receipt(), _receipt()) == (said,)


def test_the_same_judge_under_another_template_is_named() -> None:
    said = (
        "The two receipts' judge was given different instructions (judge templates that hash to "
        "000000000000… and 111111111111…): their scores may be on different scales, so a change "
        "between them may be the judge's, not the skill's."
    )
    assert _notes(_receipt(), _receipt(template_sha256="1" * 64)) == (said,)
    assert _notes(_receipt(), _receipt(template_sha256=None)) == ()


def test_the_same_judge_on_another_scale_is_named() -> None:
    said = (
        "The two receipts' judge scored on different scales (0 to 1 and 0 to 10): a change "
        "between them may be the scale's, not the skill's."
    )
    ten = {"worst": 0.0, "best": 10.0, "step": 1.0}
    assert _notes(_receipt(), _receipt(scale=ten)) == (said,)


def test_another_judge_gets_one_note_not_two() -> None:
    notes = _notes(_receipt(), _receipt(model="gpt-5-mini", template_sha256="1" * 64))
    assert len(notes) == 1 and notes[0].startswith("The two receipts were graded by different")


def _aa_doc(model: str, judge_model: str) -> dict[str, Any]:
    j = copy.deepcopy(JUDGE)
    j["model"] = judge_model
    doc = make_receipt([case("c1", [0.7, 0.7, 0.75], [0.7, 0.75, 0.7])], judge=j)
    doc["suite"]["sha256"] = "ab" * 32
    doc["run"]["aa"] = True
    doc["run"]["model"] = model
    return seal_document(doc)


@pytest.mark.parametrize(
    ("model", "judge_model", "pointer", "expected", "found"),
    [
        ("simulated-model", "simulated-judge", "/run/model", "model", "simulated-model"),
        ("claude-sonnet-4-5", "gpt-5-mini", "/judge/model", "judge", "gpt-5-mini"),
    ],
)
def test_an_aa_receipt_of_another_model_or_judge_is_refused(
    model: str, judge_model: str, pointer: str, expected: str, found: str
) -> None:
    aa = Receipt.model_validate(_aa_doc(model, judge_model))
    r = _receipt()
    theirs = {"model": "claude-sonnet-4-5", "judge": "claude-haiku-4-5-20251001"}[expected]
    assert aa_problem("aa.json", aa, (("a.json", r), ("b.json", r))) == (
        f"aa.json: {pointer}: expected the compared receipts' {expected} ({theirs}), found "
        f"{found}: an A/A calibration measures the noise of its own model and judge only"
    )
    same = Receipt.model_validate(_aa_doc("claude-sonnet-4-5", "claude-haiku-4-5-20251001"))
    assert aa_problem("aa.json", same, (("a.json", r), ("b.json", r))) is None


def test_the_action_refuses_a_simulated_aa_beside_real_receipts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = {}
    for name, doc in (
        ("a", seal_document(make_receipt(CASES) | {"suite": {"name": "s", "sha256": "ab" * 32}})),
        ("b", seal_document(make_receipt(CASES) | {"suite": {"name": "s", "sha256": "ab" * 32}})),
        ("aa", _aa_doc("simulated-model", "simulated-judge")),
    ):
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(json.dumps(doc))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "output"))
    monkeypatch.delenv("DRIFTPROOF_FAIL_ON", raising=False)
    argv = ["--baseline", str(paths["a"]), "--receipt", str(paths["b"]), "--aa", str(paths["aa"])]
    assert action.main(argv) == 2
    summary = (tmp_path / "summary.md").read_text()
    assert summary.startswith("## Driftproof: error\n")
    assert "/run/model: expected the compared receipts' model (claude-sonnet-4-5)" in summary
