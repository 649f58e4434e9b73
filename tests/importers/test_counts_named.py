"""What each count on a sheet and the results page counts: cases, draws per case and arm, or an
arm's draws over its cases (a newcomer's findings)."""

from __future__ import annotations

from pathlib import Path

import pytest
from interop_helpers import sealed, summary_doc, write_json

from driftproof.importers.inspect_ai import InspectOptions, import_inspect
from driftproof.importers.summary_json import import_summary_json
from driftproof.pages.results import headline

POP = "data/interop/inspect_ai/2025-05-12T20-28-13-04-00_popularity.json"
POP_EVAL = (
    "data/interop/inspect_ai/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval"
)


@pytest.fixture
def inspect_receipt(shared: Path):  # type: ignore[no-untyped-def]
    arms = {"with_skill": shared / POP_EVAL, "baseline": shared / POP}
    return sealed(import_inspect(arms, InspectOptions(skill_name="popularity")))


def test_a_mean_over_one_draw_per_case_counts_cases(inspect_receipt) -> None:  # type: ignore[no-untyped-def]
    # The .eval log: 10 samples, one epoch, 8 scored C (accuracy 0.8); the .json log: samples
    # 1..3, C C I (0.667). The page said "over 10 runs" and "over 3 runs": they are cases.
    assert headline(inspect_receipt, 0.0) == (
        "mean score with the skill 0.800 over 10 cases, one scored draw each; without it 0.667 "
        "over 3 cases, one scored draw each (over different cases, so not to be subtracted; "
        "lift over the 3 cases measured in both arms +0.000)"
    )


def test_a_mean_over_several_draws_counts_draws_and_cases(tmp_path: Path) -> None:
    doc = summary_doc(
        [
            {
                "id": "a",
                "arms": {
                    "with_skill": [{"score": 1}, {"score": 0}],
                    "baseline": [{"score": 0}, {"score": 0}],
                },
            },
            {
                "id": "b",
                "arms": {
                    "with_skill": [{"score": 1}, {"score": 1}],
                    "baseline": [{"score": 1}, {"score": 0}],
                },
            },
        ]
    )
    r = sealed(import_summary_json(write_json(tmp_path / "s.json", doc)))
    # with: (1 + 0 + 1 + 1) / 4 = 0.75; without: (0 + 0 + 1 + 0) / 4 = 0.25; lift per case
    # (0.5 - 0) and (1 - 0.5), mean 0.5
    assert headline(r, 0.5) == (
        "mean score with the skill 0.750 over 4 scored draws in 2 cases; without it 0.250 over "
        "4 scored draws in 2 cases; lift over the 2 cases measured in both arms +0.500"
    )


def test_the_sheet_says_which_draws_it_counts(inspect_receipt) -> None:  # type: ignore[no-untyped-def]
    # "draws per arm ... the receipt holds 0 to 1 per arm" sat above "with skill 10 drawn, 10
    # scored": one counts per case and arm, the other an arm's draws over its cases. The .eval
    # log holds samples 1..10 (one epoch), the .json log samples 1..3.
    from driftproof.pages.sheet import sheet

    s = sheet(inspect_receipt)
    assert {f.label: f.value for f in s.provenance}["draws per arm"] == (
        "varies; the receipt holds 0 to 1 per case and arm"
    )
    assert [a.draws for a in s.arms] == [
        "10 drawn over 10 cases, 10 scored",
        "3 drawn over 3 cases, 3 scored",
    ]


def test_the_band_source_is_said_once_in_view_text_and_markdown(inspect_receipt) -> None:  # type: ignore[no-untyped-def]
    # a second "band source" line ran the label into the value ("band source bands across
    # draws, but no arm ..."); the import holds one scored draw per case and arm
    from driftproof.pages.sheet import sheet
    from driftproof.render.sheet import sheet_markdown, sheet_text

    s = sheet(inspect_receipt)
    want = "one scored draw per arm, no spread: recorded as bands across draws; no arm holds more "
    want += "than one scored draw, so no band has a spread"
    for text in (sheet_text(s), sheet_markdown(s)):
        lines = [x for x in text.splitlines() if "band source" in x]
        assert len(lines) == 1 and lines[0].rstrip(" |").endswith(want)


def test_the_breakdown_gives_its_reasons_in_plain_words(inspect_receipt) -> None:  # type: ignore[no-untyped-def]
    # "narrowed: fewer than 3 draws per arm" carried an internal label; the import holds one
    # draw per case and arm, and cases 4 to 10 have no baseline draw
    from driftproof.pages.sheet import sheet
    from driftproof.render.sheet import sheet_text

    text = sheet_text(sheet(inspect_receipt))
    assert (
        "No case is said to help or hurt, and none is named as carrying the lift: the receipt's "
        "verification level, DECLARED, is below TESTED; incomplete: a draw holds neither a score "
        "nor a reason it was lost; fewer than 3 draws per arm\n"
    ) in text


def test_an_arms_label_is_set_off_from_the_arms_name() -> None:
    # skill-creator names its arms with_skill and without_skill; the sheet's fact read "with
    # skill with_skill; baseline without_skill", the arm's name run into its label
    from driftproof.pages.sheet import sheet
    from driftproof.receipt import read_receipt

    path = (
        Path(__file__).parents[2] / "receipts/skill-creator-nebius-skills-iteration-1-12a0aae8.json"
    )
    facts = {f.label: f.value for f in sheet(read_receipt(path)).provenance}
    assert facts["arm labels"] == "with skill: with_skill; baseline: without_skill"
