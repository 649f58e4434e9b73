"""What ``driftproof run`` prints, by hand: the top lost reasons (three, then a count of the
rest), no line of lost draws when none was lost, a control arm's columns, why a run stopped."""

from __future__ import annotations

from types import SimpleNamespace

from factories import arm, case, make_receipt
from rich.console import Console

from driftproof.receipt import Receipt
from driftproof.render.run_summary import _lost_by_kind, print_result, top_lost_line


def _lost(*reasons: str) -> Receipt:
    """One case: a draw with the skill lost for each of ``reasons``, and one scored."""
    doc = case("c1", [None] * len(reasons) + [0.5], [0.4, 0.5])
    for d, reason in zip(doc["arms"]["with_skill"]["draws"], reasons, strict=False):
        d["lost"]["reason"] = reason
    return Receipt.model_validate(make_receipt([doc]))


def test_the_top_three_lost_reasons_then_a_count_of_the_others() -> None:
    # commonest first, ties alphabetical: a (3), b (2), then c and d with one each
    three = ["a"] * 3 + ["b"] * 2 + ["c"]
    assert top_lost_line(_lost(*three)) == "top lost reasons: a (3); b (2); c (1)"
    assert top_lost_line(_lost(*three, "d")) == (
        "top lost reasons: a (3); b (2); c (1); and 1 other reason"
    )
    assert top_lost_line(_lost(*three, "d", "e")) == (
        "top lost reasons: a (3); b (2); c (1); and 2 other reasons"
    )


def test_a_run_that_lost_nothing_has_no_line_of_lost_draws() -> None:
    r = Receipt.model_validate(make_receipt([case("c1", [0.6, 0.7], [0.4, 0.5])]))
    assert _lost_by_kind(r) is None and top_lost_line(r) is None


def _printed(r: Receipt, stopped: str | None = None) -> str:
    console = Console(width=300, record=True)
    result = SimpleNamespace(
        receipt=r, receipt_path="r.json", stopped=stopped, quick_answers={}, transcripts_path=None
    )
    print_result(result, console)
    return console.export_text()


def test_a_control_arm_has_its_band_and_the_skills_difference_from_it() -> None:
    # with skill .60 .70: mean .650, sd sqrt(.005) = .071; control .50 .50: .500 ± .000; the
    # skill less the control: .650 - .500 = +0.150; baseline .40 .50: .450 ± .071, lift +0.200
    spec = {"label": None, "instruction": None, "system_prompt_sha256": None}
    control = {**spec, "label": "__terse__", "instruction": "Answer concisely."}
    c1 = case("c1", [0.6, 0.7], [0.4, 0.5])
    c1["arms"]["control"] = arm([0.5, 0.5])
    doc = make_receipt([c1], arms={"with_skill": spec, "baseline": spec, "control": control})
    lines = _printed(Receipt.model_validate(doc)).splitlines()
    assert any("control" in x and "skill − control" in x for x in lines)
    row = next(x for x in lines if "c1" in x)
    assert [x.strip() for x in row.strip().strip("│").split("│")] == [
        "c1",
        "0.650 ± 0.071 (2 draws)",
        "0.450 ± 0.071 (2 draws)",
        "+0.200",
        "0.500 ± 0.000 (2 draws)",
        "+0.150",
    ]


def test_a_run_that_stopped_says_why_and_one_that_did_not_says_nothing() -> None:
    r = Receipt.model_validate(make_receipt([case("c1", [0.6, 0.7], [0.4, 0.5])]))
    assert "stopped: the budget ran out" in _printed(r, "the budget ran out").splitlines()
    assert "stopped" not in _printed(r)
