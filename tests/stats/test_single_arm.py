"""Single-arm receipts (issue 14, item 2): an arm marked ``recorded: false`` gives no lift,
no interval and no value per token anywhere (stats, view, site sheet, badge, Action), and
the reader refuses a not-recorded arm that holds draws.

Hand-worked figures: with skill 0.8, 0.9, 1.0 (mean 0.9) and baseline 0.5, 0.6, 0.7 (mean 0.6)
give a lift of +0.300 per case when both arms are recorded; 1,600 characters of SKILL.md are
400 skill tokens (D-14), so +0.750 per 1,000 tokens. With the baseline not recorded, none of
these exist.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from factories import case, make_receipt
from receipt_docs import seal_document

from driftproof.errors import ReceiptError
from driftproof.pages.sheet import sheet
from driftproof.receipt import parse_receipt
from driftproof.stats import (
    lift_refusal,
    receipt_reading,
    suite_lift,
    unrecorded_arms,
    value_per_1k,
    verdict_refusal,
)
from driftproof.stats.breakdown import lift_breakdown
from driftproof.stats.context import lift_interval


def _two_arm(level: str = "TESTED") -> dict[str, Any]:
    return make_receipt(
        [
            case("c1", [0.8, 0.9, 1.0], [0.5, 0.6, 0.7]),
            case("c2", [0.8, 0.9, 1.0], [0.5, 0.6, 0.7]),
        ],
        level=level,
    )


def _single_arm(missing: str = "baseline", level: str = "TESTED") -> dict[str, Any]:
    doc = copy.deepcopy(_two_arm(level))
    doc.pop("seal")
    doc["arms"][missing]["recorded"] = False
    for c in doc["cases"]:
        c["arms"][missing]["draws"] = []
    return seal_document(doc)


def _parse(doc: dict[str, Any]) -> Any:
    return parse_receipt(json.dumps(doc))


def test_two_arm_control_has_the_hand_worked_lift() -> None:
    r = _parse(_two_arm())
    assert unrecorded_arms(r) == ()
    assert lift_refusal(r) is None
    assert suite_lift(r) == pytest.approx(0.3)
    assert value_per_1k(suite_lift(r), r.skill.tokens) == pytest.approx(0.75)
    iv = lift_interval(
        lift_breakdown(r)
    )  # two equal case lifts: paired sd 0, the interval is the point
    assert iv.reason is None and iv.low == pytest.approx(0.3) and iv.high == pytest.approx(0.3)


@pytest.mark.parametrize("missing", ["baseline", "with_skill"])
def test_single_arm_has_no_lift_interval_or_value(missing: str) -> None:
    r = _parse(_single_arm(missing))
    assert unrecorded_arms(r) == (missing,)
    reason = lift_refusal(r)
    words = {"baseline": "the baseline arm", "with_skill": "the with-skill arm"}[missing]
    assert reason is not None and f"{words} was not recorded" in reason
    assert "arms." not in reason and "recorded is false" not in reason  # no field names
    assert suite_lift(r) is None
    b = lift_breakdown(r)
    assert not b.available and b.reasons == (reason,)
    iv = lift_interval(b)
    assert iv.low is None and iv.high is None and iv.lift is None
    # a TESTED receipt with one arm gets no verdict: there is nothing to compare within it (D-6)
    assert verdict_refusal(r) == reason
    assert receipt_reading(r).status == "no verdict"


def test_view_sheet_says_not_recorded_never_zero() -> None:
    r = _parse(_single_arm("baseline"))
    s = sheet(r)
    assert s.lift.startswith("n/a: single-arm source") and "0.000" not in s.lift
    assert s.lift_per_1k.startswith("n/a (400 skill tokens)")
    # the cell says who left the arm out: the source, not this run
    assert all(row.baseline == "not recorded by the source" for row in s.cases)
    assert all(row.with_skill == "0.900 ± 0.100 (n = 3)" for row in s.cases)
    assert all(row.lift == "–" for row in s.cases)
    # why there is no lift is said in the lift alone; the panels' labels point to it briefly
    assert s.lift_per_1k == "n/a (400 skill tokens)"
    assert s.context.interval is None and s.context.exact is None
    assert s.context.label == (
        "Context, beyond the method: unavailable, because the lift by case is unavailable"
    )
    assert s.breakdown.summary == ()
    assert [f.value for f in s.provenance if f.label == "arms not recorded"] == ["baseline"]
    # the two-arm receipt does show its lift, so the words above are the single-arm case's own
    two = sheet(_parse(_two_arm()))
    assert two.lift.startswith("+0.300") and two.lift_per_1k.startswith("+0.750 (400 skill tokens")


@pytest.mark.parametrize("level", ["DECLARED", "TESTED"])
def test_view_says_why_there_is_no_lift_once(level: str, tmp_path: Any, capsys: Any) -> None:
    from factories import run_main

    p = tmp_path / "single.json"
    p.write_text(json.dumps(_single_arm("baseline", level)), encoding="utf-8")
    code, out, _ = run_main(["view", str(p)], capsys)
    # headline, "arms not recorded", lift, value per token, breakdown, context said it (and a
    # TESTED receipt's verdict, whose reason every reader of a verdict gives, once more)
    why = "the baseline arm was not recorded, so there is no lift"
    assert code == 0 and out.count(why) == {"DECLARED": 1, "TESTED": 2}[level]
    assert "  lift                          n/a (see Headline)\n" in out
    # found: the context line read "... unavailable, as the lift by case is", as if cut off
    assert out.endswith(
        "  Lift by case: unavailable, the baseline arm was not recorded\n\n"
        "Context, beyond the method: unavailable, because the lift by case is unavailable\n"
    )


def test_view_cli_formats_carry_no_lift(tmp_path: Any, capsys: Any) -> None:
    from factories import run_main

    p = tmp_path / "single.json"
    p.write_text(json.dumps(_single_arm("baseline")), encoding="utf-8")
    for fmt in ("text", "markdown", "json"):
        code, out, _ = run_main(["view", str(p), "--format", fmt], capsys)
        assert code == 0
        assert "+0.300" not in out and "+0.750" not in out
        assert "not recorded by the source" in out


def test_badge_and_action_print_no_lift() -> None:
    from driftproof.action import action_outputs
    from driftproof.pages.badge import badge_reading, workflow_outputs
    from driftproof.pages.comparison import compare_receipts

    r = _parse(_single_arm("baseline"))
    b = badge_reading(r)
    assert b.lift is None and b.value_per_1k is None and b.status == "no verdict"
    assert workflow_outputs(r)["lift"] == "n/a"
    two = _parse(_two_arm())
    outputs = action_outputs(two, r, compare_receipts(two, r))
    assert outputs["lift"] == "n/a" and outputs["baseline-lift"] == "+0.300"


def test_reader_refuses_draws_in_an_arm_not_recorded() -> None:
    doc = copy.deepcopy(_two_arm())
    doc.pop("seal")
    doc["arms"]["baseline"]["recorded"] = False  # draws left in place
    with pytest.raises(ReceiptError) as exc:
        parse_receipt(json.dumps(seal_document(doc)), "x.json")
    pointers = {p.pointer for p in exc.value.problems}
    assert "/cases/0/arms/baseline/draws" in pointers and "/cases/1/arms/baseline/draws" in pointers


def test_reader_refuses_both_arms_not_recorded() -> None:
    doc = copy.deepcopy(_two_arm())
    doc.pop("seal")
    for a in ("with_skill", "baseline"):
        doc["arms"][a]["recorded"] = False
        for c in doc["cases"]:
            c["arms"][a]["draws"] = []
    with pytest.raises(ReceiptError) as exc:
        parse_receipt(json.dumps(seal_document(doc)), "x.json")
    assert any(p.pointer == "/arms/baseline/recorded" for p in exc.value.problems)


def test_site_sheet_shows_the_arm_not_recorded_and_no_breakdown() -> None:
    from driftproof.pages.receipt_tables import receipt_tables
    from driftproof.site.sections.receipt_sections import band_chart

    s = receipt_tables(
        "single", _parse(_single_arm("baseline")), b"", chart=band_chart("chart-single")
    )
    cells = [c.text for c in s.cases.rows[0].cells]
    assert cells[1:4] == ["0.900 ± 0.100 (n = 3)", "not recorded by the source", "–"]
    assert s.breakdown is None and s.model.lift.startswith("n/a: single-arm source")
    assert s.chart is not None  # the recorded arm's bands are still drawn


def test_the_site_receipt_page_says_why_there_is_no_lift_once() -> None:
    from driftproof.site.html import page_env, receipt_files

    raw = json.dumps(_single_arm("baseline", "DECLARED")).encode()
    html = receipt_files("r", parse_receipt(raw, "r.json"), raw, [], page_env())
    page = html["receipts/r/index.html"].decode()
    # the headline says it (the lift); value per token, arms not recorded, the lift breakdown
    # and the context panel said it again, and the context panel's two lines twice over
    assert page.count("the baseline arm was not recorded, so there is no lift") == 1
    assert (
        '</details>\n<p class="meta" data-pagefind-ignore>Context, beyond the method: '
        "unavailable, because the lift by case is unavailable</p>\n"
    ) in page


def test_diff_lift_breakdown_of_a_single_arm_receipt_says_why(tmp_path: Any, capsys: Any) -> None:
    from factories import run_main

    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(_two_arm()), encoding="utf-8")
    b.write_text(json.dumps(_single_arm("with_skill")), encoding="utf-8")
    code, out, err = run_main(["diff", str(a), str(b), "--lift-breakdown"], capsys)
    assert "Traceback" not in err
    assert (
        "Lift breakdown unavailable: single-arm source: the with-skill arm was not recorded" in out
    )
    # the with-skill arm B did not record has no band, so no case delta is printed for it
    assert "+0.000" not in out
