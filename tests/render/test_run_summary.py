"""What ``driftproof run`` prints: each arm's band and its own draw counts, never summed."""

from __future__ import annotations

import json
from types import SimpleNamespace

from factories import arm, case, edited, make_receipt
from receipt_docs import draw_doc, judge_sample_doc, seal_document
from rich.console import Console

from driftproof.pages.sheet import sheet
from driftproof.receipt import Receipt, parse_receipt
from driftproof.render.run_summary import print_result
from driftproof.render.sheet import sheet_text


def _printed(receipt_doc: dict | Receipt) -> str:
    console = Console(width=300, record=True)
    result = SimpleNamespace(
        receipt=receipt_doc
        if isinstance(receipt_doc, Receipt)
        else parse_receipt(json.dumps(receipt_doc)),
        receipt_path="r.json",
        stopped=None,
        quick_answers={},
        transcripts_path=None,
    )
    print_result(result, console)
    return console.export_text()


def test_each_arm_shows_its_band_and_its_own_counts() -> None:
    # with skill .60 .70 and one lost draw: mean .650, sd sqrt(.005) = .0707 (ddof 1)
    # baseline .40 .50 .60: mean .500, sd .100; lift +.150
    text = _printed(make_receipt([case("c1", [0.6, 0.7, None], [0.4, 0.5, 0.6])]))
    row = next(line for line in text.splitlines() if "c1" in line)
    assert "0.650 ± 0.071 (3 draws, 1 lost)" in row
    assert "0.500 ± 0.100 (3 draws)" in row
    assert "+0.150" in row
    assert "6 / 1" not in row  # the old column summed both arms' draws


def test_a_lift_that_rounds_to_zero_prints_as_zero_does() -> None:
    # with skill .5 .5, baseline .5 .5008: lift -0.0004 rounds to zero at three places, and a
    # zero lift prints +0.000 (as diff, the badge and the results page print it), not -0.000
    text = _printed(make_receipt([case("c1", [0.5, 0.5], [0.5, 0.5008])]))
    row = next(line for line in text.splitlines() if "c1" in line)
    assert "+0.000" in row and "−0.000" not in row
    assert "suite lift +0.000" in text and "−0.000" not in text


def test_an_unpriced_grading_cost_reads_as_the_sheet_says_it_with_one_draw_counted() -> None:
    # "grading cost unpriced (...; 1 draws counted" beside view's "grader cost  USD not recorded"
    # for the same thing: one wording, "not recorded", and a count of one in the singular
    overhead = {"input_tokens": 90, "output_tokens": 10, "usd": None}
    overhead |= {"judged_draws_counted": 1, "judged_draws_missing_usage": 0}
    text = _printed(make_receipt([case("c1", [0.6], [0.4])], judge_overhead=overhead))
    # "; 1 draw counted, 0 without usage)" became plain words, and no gap is no clause
    assert "grading cost not recorded (90 in, 10 out tokens over 1 judged draw)" in text


def test_the_grading_cost_line_groups_thousands_as_view_does() -> None:
    # view prints "18,775 input, 960 output"; the run summary printed "18775 in"
    overhead = {"input_tokens": 18775, "output_tokens": 1200, "usd": None}
    overhead |= {"judged_draws_counted": 2, "judged_draws_missing_usage": 0}
    text = _printed(make_receipt([case("c1", [0.6], [0.4])], judge_overhead=overhead))
    assert "(18,775 in, 1,200 out tokens over 2 judged draws)" in text


def test_grading_tokens_the_grader_did_not_report_are_said_in_words() -> None:
    # 2 draws' grading counted, 1 more whose grader reported no token counts (was "1 without
    # usage", the API's word)
    overhead = {"input_tokens": 300, "output_tokens": 20, "usd": 0.0012}
    overhead |= {"judged_draws_counted": 2, "judged_draws_missing_usage": 1}
    text = _printed(make_receipt([case("c1", [0.6, 0.7, 0.5], [0.4])], judge_overhead=overhead))
    assert (
        "grading cost $0.0012 (300 in, 20 out tokens over 2 judged draws; 1 more draw judged "
        "with no token counts from the judge)"
    ) in text
    assert "usage" not in text


def test_a_grading_cost_near_the_largest_float_is_a_short_figure() -> None:
    # a recorded $1e308 printed as its 309 digits and 4 places; view says $1e+308 for it
    overhead = {"input_tokens": 300, "output_tokens": 20, "usd": 1e308}
    overhead |= {"judged_draws_counted": 2, "judged_draws_missing_usage": 0}
    text = _printed(make_receipt([case("c1", [0.6], [0.4])], judge_overhead=overhead))
    assert "grading cost $1e+308 (300 in, 20 out tokens over 2 judged draws)" in " ".join(
        text.split()
    )


def _offline_grader(provider: str, tokens: tuple[int, int], counted: int) -> str:
    """The run summary of a one-case receipt graded by ``provider`` (not a model), in one line."""
    doc = make_receipt([case("c1", [0.6], [0.4])])
    doc["run"] |= {"provider": provider, "endpoint_attempts": 0}
    doc["judge"]["provider"] = provider
    doc["verification_level"] = "UNVERIFIED"
    doc["economics"]["judge_overhead"] = {
        "input_tokens": tokens[0], "output_tokens": tokens[1], "usd": None,
        "judged_draws_counted": counted, "judged_draws_missing_usage": 2 - counted,
    }  # fmt: skip
    return " ".join(_printed(seal_document(doc)).split())


def test_a_simulated_grader_has_no_grading_cost_beside_no_request() -> None:
    # run --provider simulated printed "no request made to a model", then "grading cost not
    # recorded (21,150 in, 1,440 out tokens; 18 draws counted, 0 without usage)"
    text = _offline_grader("simulated", (2350, 160), 2)
    assert "no request made to a model" in text
    assert (
        "no grading cost: no model graded (the simulated judge's prompts and replies come to "
        "2,350 in, 160 out tokens, as counted here)"
    ) in text
    assert "grading cost not recorded" not in text and "usage" not in text


def test_a_stub_grader_that_counts_no_tokens_is_not_said_to_come_to_none() -> None:
    # run --provider stub printed "the stub grader's prompts and replies come to 0 in, 0 out
    # tokens, as counted here", where view of the same receipt reads "0 counted, 18 with no
    # token counts from the grader": the tokens were not counted, not none
    text = _offline_grader("stub", (0, 0), 0)
    assert (
        "no grading cost: no model graded (the stub judge's prompts and replies are not counted)"
        in text
    )
    assert "0 in, 0 out" not in text


def test_lost_draws_by_kind_read_in_words() -> None:
    # the runner's codes unknown_ending, no_answer, handoff and error were printed as they are
    # recorded; each reads in words, an arm's kinds in the alphabetical order of their words
    c = case("c1", [0.6, None, None, None], [0.4, None, None])
    for d, kind in zip(
        c["arms"]["with_skill"]["draws"][1:], ["unknown_ending"] * 2 + ["handoff"], strict=True
    ):
        d["lost"]["kind"] = kind
    for d, kind in zip(c["arms"]["baseline"]["draws"][1:], ["no_answer", "error"], strict=True):
        d["lost"]["kind"] = kind
    text = _printed(make_receipt([c]))
    assert (
        "lost draws by kind: with skill another model answered 1, unknown ending 2; "
        "baseline no answer 1, request failed 1"
    ) in text


def test_lost_draws_by_kind_names_the_control_arm_when_the_receipt_has_one() -> None:
    # whether the line names the control arm was read from the first case alone, where the table
    # reads the receipt's arms. Held in memory (a reader refuses it): the receipt has a control
    # arm, its first case none, and its second case lost one control draw, which went unsaid.
    spec = {"label": None, "instruction": None, "system_prompt_sha256": None}
    control = {**spec, "label": "__terse__", "instruction": "Answer concisely."}
    c1, c2 = case("c1", [0.6, 0.7], [0.4, 0.5]), case("c2", [0.6, 0.7], [0.4, 0.5])
    c1["arms"]["control"], c2["arms"]["control"] = arm([0.5, 0.5]), arm([0.5, None])
    doc = make_receipt([c1, c2], arms={"with_skill": spec, "baseline": spec, "control": control})
    r = edited(parse_receipt(json.dumps(doc)), "/cases/0/arms/control", None)
    assert "lost draws by kind: with skill none; baseline none; control unclassed 1" in _printed(r)


def test_the_title_says_a_receipt_that_measured_nothing_measured_nothing() -> None:
    # every draw lost: the level stays TESTED (how the receipt was made) above a table of n/a
    # cells, and the title says the run measured nothing
    lost = make_receipt([case("c1", [None, None, None], [None, None, None])])
    assert _printed(lost).splitlines()[0].strip() == (
        "demo-skill on claude-sonnet-4-5 (TESTED, not measured)"
    )
    # the with-skill arm measured, the baseline lost every draw: no case measured in both arms
    half = make_receipt([case("c1", [0.6, 0.7, 0.5], [None, None, None])])
    assert _printed(half).splitlines()[0].strip().endswith("(TESTED, not measured)")
    # one case measured in both arms, another lost: the receipt measured something
    some = make_receipt([case("c1", [0.6, 0.7], [0.4, 0.5]), case("c2", [None], [None])])
    assert _printed(some).splitlines()[0].strip() == "demo-skill on claude-sonnet-4-5 (TESTED)"


def test_a_legacy_receipt_shows_the_bands_view_shows() -> None:
    # one draw per arm judged three times (band source legacy): with skill .70 .80 .90 gives
    # mean .800, sd .100 over n = 3 samples; baseline .50 .50 .50 gives .500 ± .000. Read as
    # generation bands they would be the draw's one score each, with no spread.
    def one_draw(samples: list[float]) -> dict:
        js = [judge_sample_doc(s, reply=str(s), reported_model="judge") for s in samples]
        return {"draws": [draw_doc(0, answer="answer", judge_samples=js)], "generation": None}

    c1 = case("c1", [0.8], [0.5])
    c1["arms"] = {"with_skill": one_draw([0.7, 0.8, 0.9]), "baseline": one_draw([0.5] * 3)}
    text = _printed(make_receipt([c1], band_source="legacy"))
    row = next(line for line in text.splitlines() if "c1" in line)
    assert "0.800 ± 0.100 (1 draw)" in row
    assert "0.500 ± 0.000 (1 draw)" in row


def test_the_reading_line_is_the_one_view_prints() -> None:
    # c1 .90 .95 .90 against .40 .50 .45 separates upward, c2 does not move: passing, and why;
    # every draw lost (3 + 3, the factory's timeout): no verdict, not measured, 6 of 6 lost
    helps = make_receipt(
        [case("c1", [0.9, 0.95, 0.9], [0.4, 0.5, 0.45]), case("c2", [0.6, 0.7], [0.6, 0.7])]
    )
    lost = make_receipt([case("c1", [None] * 3, [None] * 3)])
    for doc, line in (
        (helps, "passing: helps: c1. Why: a case separated upward and none downward"),
        (lost, "no verdict: not measured: 6 of 6 draws lost to timeout after 2 retries"),
    ):
        assert line in _printed(doc).splitlines()
        assert f"verdict  {line}" in sheet_text(sheet(parse_receipt(json.dumps(doc))))


def test_off_a_terminal_each_line_is_laid_out_in_full_and_on_one_it_fits(capsys) -> None:
    # the suite line alone runs past 80 characters; rich wrapped it at 80 when piped
    result = SimpleNamespace(
        receipt=parse_receipt(json.dumps(make_receipt([case("c1", [0.6, 0.7], [0.4, 0.5])]))),
        receipt_path="r.json",
        stopped=None,
        quick_answers={},
        transcripts_path=None,
    )
    print_result(result)
    suite = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("suite lift"))
    assert len(suite) > 80 and suite.endswith(("retries included", "made to a model"))
    print_result(result, width=60)  # but the commands to copy, kept whole as the path is
    said = [x for x in capsys.readouterr().out.splitlines() if not x.startswith("next: ")]
    assert max(len(x) for x in said) <= 60


def test_the_receipt_path_is_one_line_on_a_narrow_terminal(capsys) -> None:
    # Found: at COLUMNS=60 rich cut a long receipt path over two lines, which cannot be copied
    path = "/home/someone/" + "a-rather-long-folder-name/" * 3 + "receipt.json"
    result = SimpleNamespace(
        receipt=parse_receipt(json.dumps(make_receipt([case("c1", [0.6, 0.7], [0.4, 0.5])]))),
        receipt_path=path,
        stopped=None,
        quick_answers={},
        transcripts_path=path + ".transcripts.jsonl",
    )
    print_result(result, width=60)
    lines = capsys.readouterr().out.splitlines()
    at = lines.index(f"receipt: {path}")
    assert lines[at - 1] == f"transcripts: {path}.transcripts.jsonl"
    # a newcomer's issue: the run ended on the path, not on how to read or compare the receipt
    assert lines[at + 1 :] == [
        f"next: driftproof view {path} to read it; driftproof diff EARLIER.json {path} to compare "
        "it with an earlier receipt"
    ]


def test_the_next_line_gives_the_receipt_path_as_a_shell_reads_it(capsys) -> None:
    # Found: a receipt written to "-r.json" was shown as "driftproof view -r.json", which reads
    # it as an option when copied; it is "./-r.json", and a path with a space is quoted
    receipt = parse_receipt(json.dumps(make_receipt([case("c1", [0.6, 0.7], [0.4, 0.5])])))
    done = {"receipt": receipt, "stopped": None, "quick_answers": {}, "transcripts_path": None}
    for path, shown in (("-r.json", "./-r.json"), ("my r.json", "'my r.json'")):
        print_result(SimpleNamespace(**done, receipt_path=path), width=200)
        assert capsys.readouterr().out.splitlines()[-1] == (
            f"next: driftproof view {shown} to read it; driftproof diff EARLIER.json {shown} to "
            "compare it with an earlier receipt"
        )
