"""A gate compares like with like: diff and the Action say when the two receipts answered their
prompts under another set-up (the API or a command-line agent, another agent, another capture,
another language, the skill arm built on a control instruction), and not when either receipt
leaves it unrecorded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from factories import case, make_receipt, run_action, run_main
from receipt_docs import seal_document

from driftproof.pages.comparison import compare_receipts
from driftproof.receipt import Receipt

# c1 falls from about .80 to about .40 between the receipts: a regression either way.
EARLIER = [case("c1", [0.80, 0.82, 0.78], [0.50, 0.52, 0.48])]
LATER = [case("c1", [0.40, 0.42, 0.38], [0.50, 0.52, 0.48])]
TAIL = ": a change between them may be the set-up's, not the skill's."


def _doc(cases: list[dict[str, Any]], **run: Any) -> dict[str, Any]:
    doc = make_receipt(cases)
    doc["suite"] = {"name": "s", "sha256": "ab" * 32}
    construction = run.pop("construction", None)
    doc["run"].update(run)
    if construction is not None:
        doc["arms"]["with_skill"]["construction"] = construction
    return seal_document(doc)


def _notes(earlier: dict[str, Any], later: dict[str, Any]) -> tuple[str, ...]:
    a, b = (Receipt.model_validate(_doc(c, **r)) for c, r in ((EARLIER, earlier), (LATER, later)))
    return compare_receipts(a, b).notes


CLI = {"surface": "cli", "harness": {"name": "claude-code", "version": "2.1.0"}}


@pytest.mark.parametrize(
    ("earlier", "later", "said"),
    [
        (
            {"surface": "api"},
            CLI | {"capture": "text"},
            "how it was answered: through the model's API (earlier), through a command-line "
            "agent (later)",
        ),
        (
            CLI | {"capture": "text"},
            CLI | {"capture": "files"},
            "what was graded: the reply alone (earlier), the reply and the files the agent left "
            "(later)",
        ),
        (
            CLI,
            {"surface": "cli", "harness": {"name": "claude-code", "version": "2.2.0"}},
            "the agent: claude-code 2.1.0 (earlier), claude-code 2.2.0 (later)",
        ),
        ({"language": "en"}, {"language": "pt"}, "the prompts' language: en (earlier), pt (later)"),
        (
            {"construction": "skill"},
            {"construction": "control_then_skill"},
            "the skill arm's instructions: the skill alone (earlier), a fixed instruction "
            "followed by the skill (later)",
        ),
    ],
)
def test_another_set_up_is_named(earlier: dict[str, Any], later: dict[str, Any], said: str) -> None:
    assert _notes(earlier, later) == (f"The two receipts were run differently ({said}){TAIL}",)


def test_two_differences_are_named_in_one_note() -> None:
    notes = _notes(
        {"language": "en", "construction": "skill"},
        {"language": "pt"} | {"construction": "control_then_skill"},
    )
    assert notes == (
        "The two receipts were run differently (the prompts' language: en (earlier), pt (later); "
        "the skill arm's instructions: the skill alone (earlier), a fixed instruction followed "
        f"by the skill (later)){TAIL}",
    )


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ({"language": None}, {"language": "pt"}),
        ({"surface": "cli", "harness": None}, CLI),
        ({"surface": "cli", "capture": None}, CLI | {"capture": "files"}),
        ({}, {"construction": "control_then_skill"}),
        (
            CLI | {"capture": "files", "language": "pt"},
            CLI | {"capture": "files", "language": "pt"},
        ),
    ],
)
def test_a_set_up_either_receipt_does_not_record_is_not_called_different(
    earlier: dict[str, Any], later: dict[str, Any]
) -> None:
    assert _notes(earlier, later) == ()


def test_diff_and_the_action_say_it_beside_the_regression(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(_doc(EARLIER, surface="api")))
    b.write_text(json.dumps(_doc(LATER, **CLI, capture="text")))
    said = "The two receipts were run differently (how it was answered: through the model's API"
    for fmt in ("text", "markdown", "json"):
        code, out, _ = run_main(["diff", str(a), str(b), "--format", fmt], capsys)
        assert code == 1 and said in out, fmt
    code, summary = run_action(tmp_path, monkeypatch, a, b, None)
    assert code == 1 and said in summary
