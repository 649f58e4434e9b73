"""plan's next steps say what to run and what it costs, and how a spread no count resolves is
lowered, in words a newcomer follows.

Issues (a newcomer on a realistic A/A pilot and on the demo): "no number of draws resolves them;
reduce their spread or drop them" said neither how nor what such cases still show; "give
driftproof run --draws 8" read as if the pilot's draws counted towards 8; the calls line was for
the 148-draw run while the first line asked for a pilot of 6; an A/A plan's calls line did not
say a gate makes two such runs; "fewer than 0.01 of the 3 cases would read regressed" read as a
fraction of a case.
"""

from __future__ import annotations

import json

import factories
from factories import JUDGE, case

from driftproof.pages.plan import plan_receipt
from driftproof.receipt import Receipt
from driftproof.render.plan import plan_text

FINE = dict(JUDGE, scale={"worst": 0.0, "best": 1.0, "step": 0.01})  # one sample: a .01 grid


def _text(cases: list[dict], *, aa: bool = False, samples: int | None = None) -> str:
    kw = {} if samples is None else {"judge_samples_per_generation": samples}
    doc = factories.make_receipt(cases, judge=FINE, **kw)
    doc["run"]["aa"] = aa
    return plan_text(plan_receipt(Receipt.model_validate(json.loads(json.dumps(doc)))))


# 8 draws per arm. ±.03 about the mean: sd √(8·.03²/7) = .032071; ±.02: √(8·.02²/7) = .021381.
WIDE = [0.57, 0.63] * 4
STEADY = [0.58, 0.62] * 4


def test_an_aa_pilot_no_count_resolves_says_how_to_lower_a_spread_and_what_is_still_called():
    # pooled over 21 degrees of freedom per arm, the median-unbiased bounds (× √(21/χ²₀.₅(21)),
    # about 1.016) sum to about .054 ≥ .05: no count for any case. Still called: a gap past both
    # spreads together and the floor: .032071 + .021381 = .053452 in a and b; c's .042762 is
    # under the floor, so .050
    text = _text(
        [case("a", WIDE, STEADY), case("b", WIDE, STEADY), case("c", STEADY, STEADY)], aa=True
    )
    lines = text.splitlines()
    assert "no number of draws resolves them; reduce their spread or drop them." in lines[0]
    said = lines[1]
    assert said.startswith("To reduce a spread: run grades every answer 5 times")
    for way in ("a prompt that leaves less room", "a rubric (or weighted criteria)", "--judge-"):
        assert way in said
    assert (
        "Left in, such a case still calls a large move: a gap between the two means wider than "
        "the two spreads together, and at least the 0.05 floor, separates and is called (at "
        "this pilot's spreads, past 0.050 in c, 0.053 in a, 0.053 in b); a smaller one reads "
        "underpowered." in said
    )


def test_a_pilot_to_grow_then_a_run_start_again_and_each_calls_line_names_its_run():
    # TIGHT: a pilot of 6 first, then 220 (tests/cli/test_plan.py). 6 draws × 1 case × 2 arms
    # = 12 answers, 3 judge samples each = 36 judge calls; 220 × 2 = 440, × 3 = 1,320
    tight = case("tight", [0.60, 0.61, 0.62], [0.50, 0.51, 0.52])
    lines = _text([tight], samples=3).splitlines()
    assert lines[3] == (
        "Each run draws every arm from the start (this pilot's draws do not count towards it): "
        "give it a new --out, or --force to replace the receipt there."
    )
    assert lines[4:7] == [
        "Calls for the pilot of 6 draws per arm: 12 answers over 1 case × 2 arms; judge calls 36.",
        "Calls for a run of 220 draws per arm: 440 answers over 1 case × 2 arms; judge calls "
        "1,320.",
        "Estimated grading cost of a run of 220 draws per arm: unknown (the pilot records no "
        "judge usage).",
    ]


def test_an_aa_plan_says_a_gate_makes_two_runs_and_gives_noise_as_a_count_per_comparison():
    # 50 draws per arm at ±.02: a count for both cases (tests/stats/test_gate_noise.py)
    steady = [0.58, 0.62] * 25
    text = " ".join(
        _text([case("c1", steady, steady), case("c2", steady, steady)], aa=True).split()
    )
    assert "A gate compares two such runs: the earlier receipt's and the new one's." in text
    assert "the gate would read, on average, fewer than 0.01 regressed cases per comparison" in text
