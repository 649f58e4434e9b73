"""An A/A calibration's sheet gives no lift: both arms ran with the skill (``run --aa``), so the
difference between them is noise, which the A/A reading counts; the sheet printed it as "What
the skill adds", with a value per 1,000 skill tokens."""

from __future__ import annotations

import io
import json
from types import SimpleNamespace

from factories import case, make_receipt
from receipt_docs import seal_document
from rich.console import Console

from driftproof.pages.badge import workflow_outputs
from driftproof.pages.receipt_tables import receipt_tables
from driftproof.pages.sheet import sheet
from driftproof.receipt import parse_receipt
from driftproof.render.run_summary import print_result, summary_title
from driftproof.render.sheet import sheet_markdown, sheet_text

# the same arm twice: means .61 and .55, a difference of +.06 that is not a lift
CASES = [case("c1", [0.60, 0.61, 0.62], [0.54, 0.55, 0.56])]


def _receipt(aa: bool):
    doc = make_receipt(CASES)
    doc["run"]["aa"] = aa
    return parse_receipt(json.dumps(seal_document(doc)).encode(), "r.json")


def _sheet(aa: bool):
    return sheet(_receipt(aa))


def test_an_aa_receipt_has_no_lift_and_says_why() -> None:
    s = _sheet(aa=True)
    assert s.lift == (
        "n/a: an A/A calibration: both arms ran with the skill, so their difference measures "
        "noise, not what the skill adds"
    )
    assert s.lift_per_1k == "n/a (400 skill tokens)"  # 1,600 characters ÷ 4
    assert "+0.060" not in sheet_text(s).split("Cases")[0]  # headline to the arms: no lift
    # the same receipt without the mark reads its lift, +.06
    assert _sheet(aa=False).lift.startswith("+0.060")


def test_an_aa_receipt_badge_outputs_no_lift() -> None:
    out = workflow_outputs(_receipt(aa=True))
    assert (out["lift"], out["value-per-1k"]) == ("n/a", "n/a")
    assert workflow_outputs(_receipt(aa=False))["lift"] == "+0.060"


def test_an_aa_receipt_names_its_two_runs_not_a_baseline() -> None:
    # the method: "runs the with-skill arm twice ..., the second run in the baseline arm's place";
    # neither run is a baseline, and their difference is no lift (the sheet's headline says so)
    aa, plain = _receipt(aa=True), _receipt(aa=False)
    text = sheet_text(sheet(aa))
    cases = text.split("\nCases (difference is first run minus second run)\n")[1].split("\n\n")[0]
    assert cases.splitlines()[0].split()[:8] == [
        *("case", "first", "run", "second", "run", "difference", "verdict", "checks"),
    ]
    arms = text.split("\nArms (")[1].split("\n\n")[0]
    assert "baseline" not in cases + arms
    assert "second run" in arms
    site = receipt_tables("r", aa).cases
    assert [c.label for c in site.columns][:4] == ["case", "first run", "second run", "difference"]
    assert site.caption.endswith("; difference is first run minus second run")
    plain_site = receipt_tables("r", plain).cases
    assert [c.label for c in plain_site.columns][:4] == ["case", "with skill", "baseline", "lift"]
    assert plain_site.caption.endswith("; lift is with skill minus baseline")


def test_an_aa_run_summary_names_its_two_runs_and_gives_no_lift() -> None:
    out = io.StringIO()
    result = SimpleNamespace(
        receipt=_receipt(aa=True),
        stopped=None,
        quick_answers=None,
        transcripts_path=None,
        receipt_path="r.json",
    )
    print_result(result, Console(file=out, width=200))
    text = out.getvalue()
    assert "first run" in text and "second run" in text and "difference" in text
    assert "baseline" not in text
    assert "suite lift n/a: an A/A calibration: both arms ran with the skill" in text


def test_an_aa_run_summary_names_its_two_runs_in_its_lost_line_and_quick_answers() -> None:
    # the case table headed "first run", "second run" while the line of lost draws by kind and the
    # --quick answers side by side below it said "with skill" and "baseline" for the same arms
    c = case("c1", [0.60, None, 0.62], [0.54, 0.55, 0.56])
    c["arms"]["with_skill"]["draws"][1]["lost"]["kind"] = "refusal"
    doc = make_receipt([c])
    doc["run"]["aa"] = True
    out = io.StringIO()
    result = SimpleNamespace(
        receipt=parse_receipt(json.dumps(seal_document(doc)).encode(), "r.json"),
        stopped=None,
        quick_answers={"with_skill": {"0": "one"}, "baseline": {"0": "two"}},
        transcripts_path=None,
        receipt_path="r.json",
    )
    print_result(result, Console(file=out, width=200))
    text = out.getvalue()
    assert "lost draws by kind: first run refusal 1; second run none" in text
    heads = text.split("answers side by side")[1].splitlines()[2]  # under the table's top rule
    assert heads.split("┃")[1:3] == [" first run ", " second run "]
    assert "baseline" not in text and "with skill" not in text.replace("with the skill", "")


def test_view_and_run_say_which_way_an_aa_difference_goes() -> None:
    # "first run 0.61 · second run 0.55 · difference +0.060": only the site's caption said the
    # difference is the first run's mean minus the second's; view and run now say it in its words
    aa, plain = _receipt(aa=True), _receipt(aa=False)
    way = "difference is first run minus second run"
    assert receipt_tables("r", aa).cases.caption.endswith(f"; {way}")
    text, md = sheet_text(sheet(aa)), sheet_markdown(sheet(aa))
    assert f"\nCases ({way})\n" in text and f"\n## Cases ({way})\n" in md
    row = text.split(f"Cases ({way})\n")[1].splitlines()[1]
    assert row.split()[0] == "c1" and "+0.060" in row.split()  # .61 − .55
    assert "\nCases\n" in sheet_text(sheet(plain)) and "minus" not in summary_title(plain)
    assert summary_title(aa).endswith(f"; {way}")


def test_an_aa_receipt_has_no_lift_breakdown_and_no_interval_on_a_lift() -> None:
    # the breakdown and the paired interval and test are all of the lift, which an A/A receipt
    # does not have (its headline says n/a); they said "Measured lift ... +0.060", named c1 a
    # carrier of it and gave a paired interval on it, with the second run called the baseline
    from driftproof.stats.breakdown import lift_breakdown

    why = (
        "an A/A calibration: both arms ran with the skill, so their difference measures noise, "
        "not what the skill adds"
    )
    b = lift_breakdown(_receipt(aa=True))
    assert not b.available and b.reasons == (why,)
    text = " ".join(sheet_text(_sheet(aa=True)).split())
    for said in ("Measured lift", "Carries the positive measured lift", "suite lift +0.060"):
        assert said not in text
    # the lift by case says why once; the interval and test beside it point to it
    panels = text.split("Lift breakdown (method")[1]
    assert f"Lift by case: unavailable, {why}" in panels and panels.count(why) == 1
    # found: "n/a, as the lift by case is", as if cut off
    said = "n/a, because the lift by case is unavailable"
    assert f"paired interval: {said}" in text and f"exact paired test: {said}" in text
    plain = " ".join(sheet_text(_sheet(aa=False)).split())
    assert "Measured lift, equal weight per case over 1 included case: +0.060" in plain
    # the spread split, which measures the noise an A/A is for, stays, of its two runs (it needs
    # two judge samples a draw: each draw's sample twice)
    doc = make_receipt(CASES)
    for a in doc["cases"][0]["arms"].values():
        for d in a["draws"]:
            d["judge_samples"] *= 2
    doc["run"]["aa"], doc["run"]["judge_samples_per_generation"] = True, 2
    r = parse_receipt(json.dumps(seal_document(doc)).encode(), "r.json")
    text = " ".join(sheet_text(sheet(r)).split())
    assert "c1, first run variance" in text and "c1, second run variance" in text
    assert "c1, baseline" not in text


def test_an_aa_receipt_given_to_the_action_gets_no_lift() -> None:
    # as its sheet and badge say: n/a, not its two runs' difference (+.06 here) read as a lift;
    # the other side keeps its lift, +.06 (.61 with skill against .55 baseline)
    from driftproof.action import action_outputs
    from driftproof.pages.comparison import compare_receipts

    aa, plain = _receipt(aa=True), _receipt(aa=False)
    out = action_outputs(plain, aa, compare_receipts(plain, aa))
    assert (out["baseline-lift"], out["lift"]) == ("+0.060", "n/a")
    out = action_outputs(aa, plain, compare_receipts(aa, plain))
    assert (out["baseline-lift"], out["lift"]) == ("n/a", "+0.060")
    # diff's lift line (and the comparison report's) says the same
    from driftproof.pages.comparison import lift_line

    said = lift_line(compare_receipts(plain, aa, a_name="r.json", b_name="aa.json"))
    assert said is not None and said.startswith(
        "Lift (with skill − baseline), context: r.json +0.060, aa.json n/a, over the 1 case"
    )
    assert "+0.060)" not in said  # not as the A/A side's own lift either


def test_an_aa_receipts_case_list_and_case_pages_name_its_two_runs() -> None:
    # its sheet's case table reads "first run", "second run" and their difference; the site's
    # case list and case pages said "with skill", "baseline" and "lift (with skill minus
    # baseline) +0.060" for the same two runs
    import re

    from driftproof.site.html import page_env, receipt_files

    doc = make_receipt(CASES)
    doc["run"]["aa"] = True
    raw = json.dumps(seal_document(doc)).encode()
    pages = receipt_files("t", parse_receipt(raw, "r.json"), raw, [], page_env())

    def text(name: str) -> str:
        return " ".join(re.sub(r"<[^>]+>", " ", pages[name].decode()).split())

    index, case = text("receipts/t/index.html"), text("receipts/t/cases/c1/index.html")
    assert (
        "Case c1 : first run 0.610 ± 0.010 (n = 3); second run 0.550 ± 0.010 (n = 3); no verdict"
    ) in index
    assert "difference (first run minus second run) +0.060" in case  # .61 − .55
    assert "one under another on a narrow one: first run, second run" in case
    assert not re.search(r"with skill|baseline|lift", case)


def test_an_aa_receipt_pages_band_chart_names_its_two_runs() -> None:
    # the receipt page's chart sits above the cases table headed "first run", "second run"; it
    # read "with the skill and without it", "with skill 0.610 ...; baseline 0.550 ...", though
    # both runs had the skill. c1: .60 .61 .62 (mean .610, sd .010) and .54 .55 .56 (.550, .010)
    from driftproof.site.sections.receipt_sections import band_chart

    info, files = band_chart("c")(_sheet(aa=True), lambda base: base)
    assert info is not None
    assert info["alt"].startswith(
        "Each case's mean judge score in its first run and its second run. "
        "c1: first run 0.610 (0.600 to 0.620); second run 0.550 (0.540 to 0.560)."
    )
    assert info["caption"].startswith("Each case's mean judge score in its first run and its ")
    assert b"baseline" not in files["c.svg"] and b"with skill" not in files["c.svg"]
    plain, _ = band_chart("c")(_sheet(aa=False), lambda base: base)
    assert plain is not None and plain["alt"].startswith(
        "Each case's mean judge score with the skill and without it. c1: with skill 0.610"
    )


def test_an_aa_run_that_measured_nothing_names_its_two_runs() -> None:
    # run's and regrade's exit-4 line said "nothing was measured in the with-skill and baseline
    # arms" of an A/A calibration; its arms are its two runs. Both lost their 3 draws (the
    # factory's "timeout after 2 retries"): 6 of 6 lost.
    from pathlib import Path

    from driftproof.run.engine import nothing_measured_line

    doc = make_receipt([case("c1", [None] * 3, [None] * 3)])
    doc["run"]["aa"] = True
    r = parse_receipt(json.dumps(seal_document(doc)).encode(), "r.json")
    assert nothing_measured_line(r, ("with_skill", "baseline"), Path("r.json")).startswith(
        "nothing was measured in the first run and second run: 6 of 6 draws lost to timeout "
        "after 2 retries; r.json "
    )
    assert nothing_measured_line(r, ("baseline",), Path("r.json")).startswith(
        "nothing was measured in the second run: 3 of 3 draws lost to timeout after 2 retries;"
    )


def test_an_aa_smoke_runs_results_row_gives_its_runs_means() -> None:
    # run --aa --quick: no lift (both runs had the skill), so the results page's smoke headline,
    # "lift ... (context only: a smoke run)", had none to give and read "no score recorded",
    # though every draw is scored. Its two runs' means: (.60 + .61)/2 = .605, (.54 + .55)/2 = .545
    from driftproof.pages.results import _row

    doc = make_receipt([case("c1", [0.60, 0.61], [0.54, 0.55])], level="UNVERIFIED", preset="quick")
    doc["run"]["aa"] = True
    row = _row("r.json", parse_receipt(json.dumps(seal_document(doc)).encode(), "r.json"))
    assert row.headline == (
        "A/A calibration; mean score first run 0.605 over 2 scored draws in 1 case; second run "
        "0.545 over 2 scored draws in 1 case"
    )
