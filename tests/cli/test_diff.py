"""``driftproof diff`` through click's CliRunner, on sealed receipts written to a temp dir.

Expected lines are worked out by hand from the draw scores in the comments.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from factories import case, make_receipt
from receipt_docs import draw_doc, judge_sample_doc

from driftproof import action
from driftproof.cli.diff import diff
from driftproof.wording import (
    BAND_SOURCE_LEGEND,
    NO_SEPARATION,
    NOT_ENOUGH_DRAWS,
    NOT_LIKE_FOR_LIKE,
    SMOKE_RUN,
)

# C1 improved: .60 .62 .61 → .71 .72 .70 (Δ +.100, sd .010 each)
C1A, C1B = (
    case("C1", [0.60, 0.62, 0.61], [0.45, 0.50, 0.48]),
    case("C1", [0.71, 0.72, 0.70], [0.47, 0.44, 0.49]),
)
# C2 regressed: .88 .92 .90 → .62 .55 .60 (Δ −.310)
C2A, C2B = (
    case("C2", [0.88, 0.92, 0.90], [0.70, 0.66, 0.72]),
    case("C2", [0.62, 0.55, 0.60], [0.68, 0.71, 0.65]),
)
# C4 no separation: .50 .51 .52 → .51 .52 .53 (Δ +.010 ≤ .020; resolution .0363)
C4A, C4B = (
    case("C4", [0.50, 0.51, 0.52], [0.4, 0.38, 0.43]),
    case("C4", [0.51, 0.52, 0.53], [0.41, 0.42, 0.39]),
)
# C5 underpowered: .69 .70 .72 → .71 .72 .74 (resolution .0555; 5 draws per arm)
C5A, C5B = (
    case("C5", [0.69, 0.70, 0.72], [0.55, 0.6, 0.58]),
    case("C5", [0.71, 0.72, 0.74], [0.57, 0.54, 0.59]),
)
# C3 below effect floor: .80 .81 .80 → .83 .84 .83 (Δ +.030, apart)
C3A, C3B = (
    case("C3", [0.80, 0.81, 0.80], [0.6, 0.64, 0.62]),
    case("C3", [0.83, 0.84, 0.83], [0.63, 0.61, 0.6]),
)
# C6 inconclusive: .62 .63 .61 → .74 .75 + one lost draw
C6A, C6B = (
    case("C6", [0.62, 0.63, 0.61], [0.5, 0.47, 0.52]),
    case("C6", [0.74, 0.75, None], [0.49, 0.53, 0.51]),
)


def run(tmp_path: Path, a: dict[str, Any], b: dict[str, Any], *args: str):
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(a), encoding="utf-8")
    pb.write_text(json.dumps(b), encoding="utf-8")
    return CliRunner().invoke(diff, [str(pa), str(pb), *args], catch_exceptions=False)


def test_regression_exits_1_with_headline_and_summary(tmp_path: Path) -> None:
    res = run(tmp_path, make_receipt([C1A, C2A, C3A, C4A]), make_receipt([C1B, C2B, C3B, C4B]))
    assert res.exit_code == 1
    lines = res.output.splitlines()
    assert lines[1] == "1 case regressed (C2); 1 case improved (C1)"
    assert lines[2] == (
        f"4 cases: 1 improved, 1 regressed, 1 below effect floor, 1 {NO_SEPARATION}, "
        "0 underpowered, 0 inconclusive"
    )
    row = next(x for x in lines if x.startswith("C2 "))
    assert (
        "0.900 ± 0.020" in row and "0.590 ± 0.036" in row and "−0.310" in row and "regressed" in row
    )
    assert "measured/drawn" not in res.output  # no case lost draws


def test_improvement_only_exits_0(tmp_path: Path) -> None:
    res = run(tmp_path, make_receipt([C1A, C4A]), make_receipt([C1B, C4B]))
    assert res.exit_code == 0
    assert res.output.splitlines()[1] == "1 case improved (C1)"


def test_no_separation_headline(tmp_path: Path) -> None:
    res = run(tmp_path, make_receipt([C4A]), make_receipt([C4B]))
    assert res.exit_code == 0
    assert res.output.splitlines()[1] == NO_SEPARATION
    assert "drift" not in res.output.lower() and "no change" not in res.output.lower()


def test_underpowered_prints_draws_needed(tmp_path: Path) -> None:
    res = run(tmp_path, make_receipt([C4A, C5A]), make_receipt([C4B, C5B]))
    assert res.exit_code == 0
    assert (
        f"{NOT_ENOUGH_DRAWS} (5 draws per arm would have been needed with the spreads held, for "
        "the bands as measured; driftproof plan sizes a next run from the spreads' upper bounds, "
        "so its count differs)"
    ) in res.output
    assert "5 draws per arm needed" in next(
        x for x in res.output.splitlines() if x.startswith("C5 ")
    )


def test_diff_and_the_action_give_one_draw_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # D-5, smallest n ≥ 2 with sd_A + sd_B + 2·sqrt((sd_A² + sd_B²)/n) < 0.05, spreads held:
    # C1 .60 .62 .64 (sd .02) → .585 .60 .615 (sd .015): .035 + 2·sqrt(.000625/n) < .05 <=>
    #    n > 11.1 → 12 (at n = 3 the resolution is .0639 ≥ .05: underpowered);
    # C2 .70 .71 .72 (sd .01) → .69 .71 .73 (sd .02): .03 + 2·sqrt(.0005/n) < .05 <=> n > 5 → 6
    #    (n = 5 gives .05 exactly, at the floor). The comparison states the larger, 12.
    a = [case("C1", [0.60, 0.62, 0.64], [0.5] * 3), case("C2", [0.70, 0.71, 0.72], [0.5] * 3)]
    b = [case("C1", [0.585, 0.60, 0.615], [0.5] * 3), case("C2", [0.69, 0.71, 0.73], [0.5] * 3)]
    text = run(tmp_path, make_receipt(a), make_receipt(b)).output
    doc = json.loads(run(tmp_path, make_receipt(a), make_receipt(b), "--format", "json").output)
    assert "(12 draws per arm would have been needed with the spreads held, " in text
    assert [doc["draws_needed"], *(r["draws_needed"] for r in doc["rows"])] == [12, 12, 6]
    out, summary = tmp_path / "out", tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert (
        action.main(["--baseline", str(tmp_path / "a.json"), "--receipt", str(tmp_path / "b.json")])
        == 0
    )
    assert re.search(r"\ndraws-needed<<(\w+)\n12\n\1\n", "\n" + out.read_text())
    said = summary.read_text()
    assert "** 12 draws per arm would have been needed with the spreads held, " in said
    assert "| C1 | underpowered |" in said and said.count(" | 12 |\n") == 1
    assert said.count(" | 6 |\n") == 1


def test_lost_draws_give_measured_and_drawn_counts(tmp_path: Path) -> None:
    res = run(tmp_path, make_receipt([C1A, C6A]), make_receipt([C1B, C6B]))
    assert res.exit_code == 0
    lines = res.output.splitlines()
    assert "measured/drawn" in next(x for x in lines if x.startswith("case "))
    c1 = next(x for x in lines if x.startswith("C1 ")).split()
    assert c1.count("3/3") == 2  # every case gets its counts once any case lost draws
    c6 = next(x for x in lines if x.startswith("C6 "))
    assert "inconclusive" in c6 and "2/3" in c6 and c6.endswith("draws lost (reasons below)")
    # each side's count and reason, under the table (the note column stays narrow)
    said = res.output[res.output.index("Lost draws, left out of the bands above, with the") :]
    assert f"  C6: {tmp_path / 'a.json'}: 0 of 3 draws lost; {tmp_path / 'b.json'}: 1 of 3" in said
    assert "draws lost (timeout after 2 retries)" in said and "C1:" not in said


@pytest.mark.parametrize(
    ("kw", "words"),
    [
        ({"level": "DECLARED"}, "verification level DECLARED is below TESTED"),
        ({"level": "UNVERIFIED", "preset": "quick"}, SMOKE_RUN),
    ],
)
def test_refused_side_exits_5_and_names_why(tmp_path: Path, kw: dict[str, Any], words: str) -> None:
    res = run(tmp_path, make_receipt([C1A]), make_receipt([C1B], **kw))
    assert res.exit_code == 5
    lines = res.output.splitlines()
    assert lines[1] == "no verdict"
    assert lines[2].startswith(f"{tmp_path / 'b.json'}: {words}")
    # issue 16: the reason heads the table; each case's bands are shown, never a verdict
    assert lines[3] == "The bands below are shown as context; no verdict is given."
    c1 = next(x for x in lines if x.startswith("C1 "))
    assert "0.610 ± 0.010" in c1 and "0.710 ± 0.010" in c1 and "no verdict" in c1 and "3/3" in c1
    assert "improved" not in res.output


def test_aggregates_only_is_refused(tmp_path: Path) -> None:
    agg = make_receipt(
        [],
        level="TESTED",
        uncertainty_unavailable="aggregates_only",
        source_figures={"source": "test"},
    )
    res = run(tmp_path, agg, make_receipt([C1B]))
    assert res.exit_code == 5
    assert "a.json: aggregates only" in res.output


def test_bad_input_exits_2_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "b.json").write_text(json.dumps(make_receipt([C1B])), encoding="utf-8")
    res = CliRunner().invoke(diff, [str(tmp_path / "a.json"), str(tmp_path / "b.json")])
    assert res.exit_code == 2
    assert "a.json" in res.stderr and res.stderr.startswith("error: ")
    assert res.stdout == ""


def _legacy_case(cid: str, samples: list[float]) -> dict[str, Any]:
    def arm(xs: list[float]) -> dict[str, Any]:
        js = [
            judge_sample_doc(s, reply=str(s), reported_model="claude-haiku-4-5-20251001")
            for s in xs
        ]
        return {"draws": [draw_doc(0, answer="a", judge_samples=js)], "generation": None}

    return {
        "id": cid,
        "prompt": "p",
        "prompt_sha256": None,
        "rubric_sha256": "1" * 64,
        "threshold": None,
        "arms": {"with_skill": arm(samples), "baseline": arm(samples)},
    }


def test_different_band_sources_are_not_like_for_like(tmp_path: Path) -> None:
    legacy = make_receipt(
        [_legacy_case("C1", [0.60, 0.60, 0.65, 0.60, 0.60])], band_source="legacy"
    )
    res = run(tmp_path, legacy, make_receipt([C1B]))
    assert NOT_LIKE_FOR_LIKE in res.output
    # the legend gives each of the method's words with its plain words (method: "names the band
    # source of each receipt beside its bands, legacy or generation")
    assert f"  legacy: {BAND_SOURCE_LEGEND['legacy']}\n" in res.output
    assert f"  generation: {BAND_SOURCE_LEGEND['generation']}\n" in res.output
    # The table's columns are named as the first line names the receipts (was each full path),
    # each with its band source in the method's word.
    header = next(x for x in res.output.splitlines() if x.startswith("case "))
    assert header == ("case  earlier (legacy)  later (generation)  Δ       verdict   note")


def test_same_band_source_has_no_sentence_and_one_legend(tmp_path: Path) -> None:
    res = run(tmp_path, make_receipt([C1A]), make_receipt([C1B]))
    assert NOT_LIKE_FOR_LIKE not in res.output
    assert f"  generation: {BAND_SOURCE_LEGEND['generation']}\n" in res.output
    assert BAND_SOURCE_LEGEND["legacy"] not in res.output and "legacy" not in res.output


def test_markdown_escapes_untrusted_reasons(tmp_path: Path) -> None:
    b = make_receipt([C1B, C6B])
    b["cases"][1]["arms"]["with_skill"]["draws"][2]["lost"]["reason"] = "x|y <b>z</b>"
    from receipt_docs import seal_document

    b = seal_document({k: v for k, v in b.items() if k != "seal"})
    res = run(tmp_path, make_receipt([C1A, C6A]), b, "--format", "markdown")
    assert res.exit_code == 0
    assert "x\\|y &lt;b&gt;z&lt;/b&gt;" in res.output
    assert "<b>" not in res.output
    assert (
        "| C6 | 0.620 ± 0.010 | 0.745 ± 0.007 | +0.125 | inconclusive | 3/3 | 2/3 |" in res.output
    )


def test_json_format(tmp_path: Path) -> None:
    res = run(tmp_path, make_receipt([C1A, C2A]), make_receipt([C1B, C2B]), "--format", "json")
    assert res.exit_code == 1
    doc = json.loads(res.output)
    assert doc["exit_status"] == 1 and doc["regressed"] is True
    rows = {r["case_id"]: r for r in doc["rows"]}
    assert rows["C1"]["verdict"] == "improved"
    assert rows["C1"]["delta"] == pytest.approx(0.10)
    assert rows["C2"]["a"]["mean"] == pytest.approx(0.90) and rows["C2"]["b"][
        "sd"
    ] == pytest.approx(0.0360555, abs=1e-6)
    assert doc["band_sources"] == ["generation", "generation"]


def test_cases_in_one_receipt_only_are_listed(tmp_path: Path) -> None:
    res = run(tmp_path, make_receipt([C1A, C4A]), make_receipt([C1B]))
    assert "C4 (only in" in res.output
    # named first too, as the Action's gate counts it; the exit status follows the verdicts
    lines = res.output.splitlines()
    assert lines[1:3] == [
        "1 case not measured in the later receipt (C4); 1 case improved (C1)",
        "C4: not measured in the later receipt: not in it (dropped or renamed)",
    ]
    assert lines[3].startswith("1 case: 1 improved") and res.exit_code == 0


def test_diff_of_two_different_skills_says_so(tmp_path):
    from click.testing import CliRunner
    from factories import case, make_receipt

    from driftproof.cli import cli

    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(make_receipt([case("c1", [0.7, 0.71, 0.72], [0.5, 0.5, 0.5])])))
    other = make_receipt([case("c1", [0.7, 0.71, 0.72], [0.5, 0.5, 0.5])], skill_text="y" * 800)
    other["skill"]["name"] = "another-skill"
    from receipt_docs import seal_document

    b.write_text(json.dumps(seal_document(other)))
    res = CliRunner().invoke(cli, ["diff", str(a), str(b)])
    assert "measure different skills (demo-skill and another-skill)" in res.output


def _later(tmp_path: Path, part: str, key: str, value: Any, *args: str):  # type: ignore[no-untyped-def]
    """diff of C1A against C1B whose ``part[key]`` is ``value`` (sealed again)."""
    from receipt_docs import seal_document

    other = make_receipt([C1B])
    other[part][key] = value
    return run(tmp_path, make_receipt([C1A]), seal_document(other), *args)


def test_diff_of_two_different_models_names_both(tmp_path: Path) -> None:
    # C1 improved in both runs (.61 → .71); only the model that answered differs
    res = _later(tmp_path, "run", "model", "gpt-5")
    said = (
        "The two receipts were answered by different models (claude-sonnet-4-5 and gpt-5): a "
        "change between them may be the model's, not the skill's."
    )
    assert res.exit_code == 0 and f"\n{said}\n" in res.output
    assert (
        f"\n> {said}\n" in _later(tmp_path, "run", "model", "gpt-5", "--format", "markdown").output
    )
    assert "different models" not in run(tmp_path, make_receipt([C1A]), make_receipt([C1B])).output


def test_diff_of_two_different_judges_names_both(tmp_path: Path) -> None:
    # the same answers' model; the later receipt graded by another judge, then by another provider:
    # no verdict (exit 5), the judges named
    res = _later(tmp_path, "judge", "model", "gpt-5-mini")
    said = (
        "The two receipts were graded by different judges (claude-haiku-4-5-20251001 by "
        "anthropic and gpt-5-mini by anthropic): their scores are on different scales, so a "
        "change between them may be the judge's, not the skill's."
    )
    assert res.exit_code == 5 and f"\n{said}\n" in res.output
    md = _later(tmp_path, "judge", "model", "gpt-5-mini", "--format", "markdown")
    assert f"\n> {said}\n" in md.output
    # an import's grader named by no model (unrecorded:<tool>/<grader>) is not called different
    unrecorded = _later(tmp_path, "judge", "model", "unrecorded:promptfoo/grader")
    assert "different judges" not in unrecorded.output
    said = (
        "different judges (claude-haiku-4-5-20251001 by anthropic and claude-haiku-4-5-20251001 "
        "by openrouter)"
    )
    assert said in _later(tmp_path, "judge", "provider", "openrouter").output
    assert "different judges" not in run(tmp_path, make_receipt([C1A]), make_receipt([C1B])).output


def test_a_lift_that_rounds_to_zero_prints_as_zero_does(tmp_path: Path) -> None:
    """A tiny negative lift or Δ prints ``+0.000``, as a zero does here and on the badge.

    Later with-skill draws .5 .5 .4997: mean .4999, Δ −.0001 and lift −.0001 (baseline .5),
    both once printed ``-0.000``.
    """
    a = make_receipt([case("z", [0.5, 0.5, 0.5], [0.5, 0.5, 0.5])])
    b = make_receipt([case("z", [0.5, 0.5, 0.4997], [0.5, 0.5, 0.5])])
    for fmt in ("text", "markdown"):
        out = run(tmp_path, a, b, "--format", fmt).output
        assert "−0.000" not in out
        assert "b.json +0.000, over the 1 case" in out
    row = next(x for x in run(tmp_path, a, b).output.splitlines() if x.startswith("z "))
    assert row.split()[7] == "+0.000"


def test_delta_is_worked_from_unrounded_means_and_the_legend_says_so(tmp_path: Path) -> None:
    # .5734 → .5586: the bands print 0.573 and 0.559, whose difference is −0.014, but Δ is
    # .5586 − .5734 = −.0148, printed −0.015; the legend says why the two differ
    a = case("C7", [0.5734] * 3, [0.5] * 3)
    b = case("C7", [0.5586] * 3, [0.5] * 3)
    res = run(tmp_path, make_receipt([a]), make_receipt([b]))
    row = next(x for x in res.output.splitlines() if x.startswith("C7 ")).split()
    assert row[1:8] == ["0.573", "±", "0.000", "0.559", "±", "0.000", "−0.015"]
    assert (
        "Bands: mean ± one sample sd; Δ = later − earlier, with-skill arms, worked from the "
        "unrounded means." in res.output.splitlines()
    )


def test_lift_breakdown_flag_adds_each_receipts_breakdown_after_the_comparison(
    tmp_path: Path,
) -> None:
    c1 = case("c1", [0.80, 0.82, 0.84], [0.50, 0.52, 0.54])  # lift +.30, helps
    c2 = case("c2", [0.60, 0.61, 0.62], [0.70, 0.71, 0.72])  # lift −.10, hurts
    c3 = case("c3", [0.50, 0.52, 0.54], [0.60, 0.62, 0.64])  # lift −.10, hurts
    a, b = make_receipt([c1, c2, c3]), make_receipt([c1, c2])
    for out_format in ("text", "markdown", "json"):
        plain = run(tmp_path, a, b, "--format", out_format)
        flagged = run(tmp_path, a, b, "--format", out_format, "--lift-breakdown")
        assert flagged.exit_code == plain.exit_code
        if out_format == "json":
            doc = json.loads(flagged.output)
            assert {k: v for k, v in doc.items() if k != "lift_breakdowns"} == json.loads(
                plain.output
            )
            # a: (.30 − .10 − .10)/3 = +.033 carried by c1; b: (.30 − .10)/2 = +.100
            title = f"Lift breakdown of {tmp_path / 'a.json'}"
            assert doc["lift_breakdowns"][0]["title"] == title
            assert doc["lift_breakdowns"][0]["summary"][0].endswith("3 included cases: +0.033")
            assert doc["lift_breakdowns"][1]["summary"][0].endswith("2 included cases: +0.100")
        else:
            assert flagged.output.startswith(plain.output.rstrip("\n"))
            extra = flagged.output[len(plain.output.rstrip("\n")) :]
            assert extra.count("Lift breakdown of ") == 2
            assert "Carries the positive measured lift: c1 (removing it leaves −0.100)" in extra


def test_declared_receipts_of_two_skills_and_no_shared_case_say_so_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # diff printed only the two level lines; the Action said "No case is in both receipts" and
    # "Both lifts are taken over the 0 cases ..." beside it: now both say the same sentences
    from receipt_docs import seal_document

    other = make_receipt([C4B], level="DECLARED")
    other["skill"]["name"] = "other"
    res = run(tmp_path, make_receipt([C1A, C2A], level="DECLARED"), seal_document(other))
    skills = (
        "The two receipts measure different skills (demo-skill and other): a diff is meant for "
        "two runs of the same skill."
    )
    none = "No case is in both receipts, so nothing was compared."
    assert res.exit_code == 5
    assert f"is below TESTED\n{skills}\n{none}\nCases in one receipt only: C1 (only in " in (
        res.output
    )
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary := tmp_path / "summary.md"))
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "out"))
    args = ["--baseline", str(tmp_path / "a.json"), "--receipt", str(tmp_path / "b.json")]
    assert action.main(args) == 1  # C1 and C2, measured before, are not in the new receipt
    said = summary.read_text()
    assert f"\n\n{skills}\n\n{none}\n\n" in said and said.count(none) == 1
    assert "- b.json: verification level DECLARED is below TESTED\n" in said
    assert "over the 0 cases" not in said
    assert "| lift covers (cases both receipts measured) | 0 of 2 cases | 0 of 1 case |" in said


def test_diff_says_which_cases_were_asked_differently(tmp_path: Path) -> None:
    from receipt_docs import seal_document

    # the same case id with another prompt (its sha256 recorded in both) or another rubric
    a, b = make_receipt([C1A]), make_receipt([C1B])
    a["cases"][0]["prompt_sha256"], b["cases"][0]["prompt_sha256"] = "a" * 64, "b" * 64
    said = (
        "1 case in both receipts was asked differently (another prompt or rubric): C1. A change "
        "there may come from the prompt or rubric, not the skill."
    )
    assert f"\n{said}\n" in run(tmp_path, seal_document(a), seal_document(b)).output
    b["cases"][0]["prompt_sha256"], b["cases"][0]["rubric_sha256"] = "a" * 64, "2" * 64
    assert f"\n{said}\n" in run(tmp_path, seal_document(a), seal_document(b)).output
    b["cases"][0]["prompt_sha256"], b["cases"][0]["rubric_sha256"] = None, "1" * 64
    assert "asked differently" not in run(tmp_path, seal_document(a), seal_document(b)).output
