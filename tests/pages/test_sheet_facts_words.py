"""The sheet's parts, worked out by hand from the receipts' own draws and records (surviving
mutants of driftproof/pages/sheet_facts.py)."""

from __future__ import annotations

from pathlib import Path

from factories import case, edited, make_receipt

from driftproof.pages.sheet import sheet
from driftproof.pages.sheet_facts import arm_summaries, judge_cost, provenance, skill_reached
from driftproof.receipt import Harness, Receipt, read_receipt

ROOT = Path(__file__).resolve().parents[2]


def _receipt(*cases: dict) -> Receipt:
    return Receipt.model_validate(make_receipt(list(cases) or [case("c1", [0.5, 0.7], [0.4, 0.6])]))


def _committed(name: str) -> Receipt:
    return read_receipt(ROOT / "receipts" / f"{name}.json")


def test_a_judged_run_whose_draws_count_tokens_still_leads_with_its_lift() -> None:
    # c1: 0.5 and 0.7 with the skill, 0.4 and 0.6 without: lift +0.100; 400 skill tokens
    # (1,600 characters ÷ 4), so +0.250 per 1,000. Output tokens on each draw do not make it a
    # token-saving receipt: that is for a receipt with no judge.
    doc = case("c1", [0.5, 0.7], [0.4, 0.6])
    for arm in doc["arms"].values():
        for d in arm["draws"]:
            d["tokens"] = {"input": 10, "output": 100, "counted_by": "provider"}
    s = sheet(_receipt(doc))
    assert (s.headline.label, s.headline.value) == (
        "lift",
        "+0.100; value per 1,000 skill tokens +0.250 (400 skill tokens: characters ÷ 4, "
        "rounded up)",
    )


def test_the_breakdown_of_a_scored_receipt_is_available_with_its_figures() -> None:
    # Three draws per arm, enough for labels. c1: 0.5, 0.6, 0.7 against 0.4, 0.5, 0.6, means 0.6
    # and 0.5 (lift +0.100); c2: 0.9 against 0.3 (lift +0.600). Equal weight per case:
    # (0.6 + 0.9) / 2 - (0.5 + 0.3) / 2 = 0.75 - 0.40 = +0.350; without c1 the lift is c2's,
    # +0.600, without c2 it is c1's, +0.100: both positive, so no single case carries it.
    s = sheet(
        _receipt(case("c1", [0.5, 0.6, 0.7], [0.4, 0.5, 0.6]), case("c2", [0.9] * 3, [0.3] * 3))
    )
    b = s.breakdown
    assert b.available
    assert b.summary[0] == "Measured lift, equal weight per case over 2 included cases: +0.350"
    assert b.summary[-1] == (
        "No single case carries the positive measured lift: removing any one leaves a positive lift"
    )
    assert [(x.lift, x.lift_without) for x in b.rows] == [
        ("+0.100", "+0.600"),
        ("+0.600", "+0.100"),
    ]


def test_a_measured_lift_of_zero_is_not_positive_though_floating_point_leaves_a_trace() -> None:
    # Three draws each; c1: 0.6 against 0.5 (+0.1), c2: 0.4 against 0.5 (-0.1); equal weight:
    # (0.1 - 0.1) / 2 = 0, printed +0.000, which is not positive, and removing c1 leaves -0.1, so
    # "removing any one leaves a positive lift" would be false. In floating point the mean of
    # three 0.6s is not exactly 0.6, and the lift comes out about 3e-17: positive only by
    # rounding, as the carrier test (D-3's tolerance) reads it.
    s = sheet(_receipt(case("c1", [0.6] * 3, [0.5] * 3), case("c2", [0.4] * 3, [0.5] * 3)))
    assert s.breakdown.summary[0].endswith(": +0.000")
    assert s.breakdown.summary[-1] == (
        "The measured lift is not positive: no case carries a positive lift"
    )


def test_refusals_are_counted_for_a_run_and_not_recorded_for_an_import() -> None:
    # a run of this tool at the current schema records refusals: none of its 2 draws per arm;
    # claude plugin eval's probe (an import, schema 0.15) records none, so they are unknown
    assert [a.refusals for a in arm_summaries(_receipt())] == ["none of 2 draws"] * 2
    probe = _committed("claude-plugin-eval-probe-plugin-8955eb63")
    assert [a.refusals for a in arm_summaries(probe)] == ["not recorded"] * 2


def test_an_aggregates_only_receipt_has_no_per_run_result_in_any_arm() -> None:
    r = _committed("nvidia-7149a88-doca-flow")
    assert [(a.draws, a.lost) for a in arm_summaries(r)] == [
        ("no per-run result (aggregates only)", "–")
    ] * 2


def test_whether_the_skill_reached_the_model_is_said_only_of_a_run_of_this_tool() -> None:
    # no arm reports input tokens: a run of this tool says it did not check; an import is silent
    assert skill_reached(_receipt()) == (
        "not recorded, so whether the skill reached the model was not checked"
    )
    assert skill_reached(_committed("claude-plugin-eval-probe-plugin-8955eb63")) is None


def test_the_input_token_medians_their_difference_and_claude_codes_note() -> None:
    size = "beside a skill of about 400 tokens at four characters a token"
    share, cut = "80% of the skill in o200k_base tokens", "one cut by less than 20% (or more, "
    cut += "where the server's tokenizer makes more tokens of it than o200k_base does)"
    r = edited(_receipt(), "/arms/with_skill/input_tokens_median", 1200)
    # c1's two with-skill draws carry no token counts: neither could be checked, and it says so
    unchecked = "; 2 with-skill draws reported no input, so were not checked"
    # one arm's median alone: no difference is worked out, and no harness note without one; the
    # draws were held to the skill's share alone
    assert skill_reached(r) == (
        f"with skill 1,200, baseline not recorded, {size}; a with-skill draw counted only when "
        f"its input reached {share}: a skill left out shows only where the rest of the prompt is "
        f"smaller than that, {cut} never{unchecked}"
    )
    r = edited(r, "/arms/baseline/input_tokens_median", 400)
    held = (
        f"; a with-skill draw counted only when its input was above the baseline's median by "
        f"{share}: a skill left out shows, {cut} does not{unchecked}"
    )
    assert skill_reached(r) == f"with skill 1,200, baseline 400; with the skill +800, {size}{held}"
    cc = edited(r, "/run/harness", Harness(name="claude-code", version="2.1.280"))
    assert skill_reached(cc) == skill_reached(r).removesuffix(held) + (
        " (Claude Code takes the skill in place of its own system prompt, so its arms differ by "
        "more than the skill)" + held
    )
    codex = edited(r, "/run/harness", Harness(name="codex", version="0.50.0"))
    assert skill_reached(codex) == skill_reached(r)


def test_an_arm_counts_only_the_cases_it_drew_in() -> None:
    # c2's with-skill arm drew nothing: the arm drew 2 answers, over c1 alone
    r = _receipt(case("c1", [0.5, 0.7], [0.4, 0.6]), case("c2", [], [0.4, 0.6]))
    assert [a.draws for a in arm_summaries(r)] == [
        "2 drawn over 1 case, 2 scored",
        "4 drawn over 2 cases, 4 scored",
    ]


def test_a_breakdown_over_its_size_limit_is_unavailable_and_shows_no_row() -> None:
    from driftproof.receipt import _bounds

    size = _bounds.BREAKDOWN_MAX_BYTES + 1
    b = sheet(_receipt(), size_bytes=size).breakdown
    assert (b.available, b.rows, b.note) == (False, (), "")
    assert f"the receipt is {size} bytes" in b.label


def test_a_one_draw_case_counts_as_a_case_drawn_in() -> None:
    r = _receipt(case("c1", [0.5], [0.4]))
    assert [a.draws for a in arm_summaries(r)] == ["1 drawn over 1 case, 1 scored"] * 2


def test_the_breakdown_names_the_case_that_helps_and_none_that_hurts() -> None:
    # c2: 0.9 three times against 0.3 three times: no spread, bands apart, +0.6 past the 0.05
    # floor: helps. c1: 0.6 ± 0.1 against 0.5 ± 0.1: the bands overlap, no label.
    s = sheet(
        _receipt(case("c1", [0.5, 0.6, 0.7], [0.4, 0.5, 0.6]), case("c2", [0.9] * 3, [0.3] * 3))
    )
    assert "Helps (separates upward): c2" in s.breakdown.summary
    assert "Hurts (separates downward): none" in s.breakdown.summary
    assert s.breakdown.labelled


def test_provenance_of_a_run_names_its_preset_harness_version_and_judge_template() -> None:
    r = edited(_receipt(), "/run/harness", Harness(name="claude-code", version="2.1.280"))
    facts = {f.label: f.value for f in provenance(r)}
    assert facts["preset"] == "none (a full run, not --quick)"
    assert facts["harness"] == "claude-code 2.1.280"
    assert facts["judge"].endswith("; template sha256 " + "0" * 64)  # the factory's judge
    assert "arm labels" not in facts  # no arm carries a label of its own
    r = edited(r, "/run/harness", Harness(name="claude-code", version=None))
    assert {f.label: f.value for f in provenance(r)}["harness"] == (
        "claude-code (version not recorded)"
    )


def test_caveman_arm_labels_skill_fired_and_ungraded_draws() -> None:
    # caveman's three arms are its skill, __baseline__ and __terse__ (D-16); no grader ran
    cave = _committed("caveman-2b10489-caveman")
    facts = {f.label: f.value for f in provenance(cave)}
    assert facts["arm labels"] == "with skill: caveman; baseline: __baseline__; control: __terse__"
    assert [a.draws for a in arm_summaries(cave)] == ["10 drawn over 10 cases, not graded"] * 3
    # skill-creator's run: the skill fired in 6 of 9 observed runs, 66.7% printed whole: 67%
    nebius = _committed("skill-creator-nebius-skills-iteration-1-12a0aae8")
    assert arm_summaries(nebius)[0].skill_fired == "6 of 9 observed draws (67%)"


def test_a_draw_lost_as_a_refusal_counts_as_a_refusal_and_a_timeout_does_not() -> None:
    # with the skill: one draw scored, one lost as a refusal with no refusal text recorded: 1 of
    # 2. Baseline: one scored, one lost to a timeout: a lost draw, but no refusal: none of 2.
    doc = case("c1", [0.6, None], [0.4, None])
    doc["arms"]["with_skill"]["draws"][1]["lost"]["kind"] = "refusal"
    doc["arms"]["baseline"]["draws"][1]["lost"]["kind"] = "error"
    assert [a.refusals for a in arm_summaries(_receipt(doc))] == [
        "1 of 2 draws",
        "none of 2 draws",
    ]


def test_the_skill_fired_count_keeps_a_lost_draw_out_as_the_case_table_does() -> None:
    # the skill fired in draws 0 and 2 of 3 and not in draw 1; draw 2 was lost (timed out), so
    # it is kept out of the figures and listed (seed 000): 1 of the 2 kept draws fired, 50%.
    # Counting the lost draw read "2 of 3 (67%)" on the sheet while the report's per-case table
    # of the same receipt read 1 of 2.
    doc = case("c1", [0.6, 0.7, None], [0.4, 0.5, 0.5])
    for d, fired in zip(doc["arms"]["with_skill"]["draws"], (True, False, True), strict=True):
        d["skill_fired"] = fired
    assert arm_summaries(_receipt(doc))[0].skill_fired == "1 of 2 observed draws (50%)"


def test_the_grading_cost_is_in_dollars_to_four_places() -> None:
    # $0.00127 recorded: to 4 places $0.0013 (the 7 rounds the 2 up), not $0.00127
    overhead = {"input_tokens": 300, "output_tokens": 20, "usd": 0.00127}
    overhead |= {"judged_draws_counted": 2, "judged_draws_missing_usage": 0}
    r = Receipt.model_validate(make_receipt([case("c1", [0.6], [0.4])], judge_overhead=overhead))
    facts = {f.label: f.value for f in judge_cost(r)}
    assert facts["grading cost"] == (
        "$0.0013 (a floor: usage the judge's answered samples reported)"
    )
