"""skill-validator's rejudge: overall figures over the scenarios that expect the skill to be used.

dotnet/skills ``eng/skill-validator/src/Evaluate/RejudgeCommand.cs`` (``ComputeRejudgeVerdict``)
passes ``comparisons.Where(c => c.ExpectActivation)`` to ``Comparator.ComputeVerdict`` with
``reportedComparisons: comparisons``: the overall score, normalized gain and bootstrap interval
are those scenarios' (0 and none of the others when none expects it) while every scenario is
listed, each with its ``expectActivation`` (always written: a bool, ``WhenWritingNull``). Its
``evaluate`` command averaged every scenario. The file is the real run in the interop data
(https://github.com/dotnet/skills, MIT, commit be943d7) with members set as each test says.
Scenario improvement scores there: 0.75, 0.75, 0.7583816890552741, 0.7830047838997031; each
judge gave the baseline 1 and the skilled run 5.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from factories import run_main
from interop_helpers import sealed, write_json
from test_dotnet_skills import RUN

from driftproof.importers.dotnet_skills import import_skill_validator

ALL = "the mean improvement score of the verdict's 4 scenarios (/verdicts/0/scenarios)"
PART = (
    "the mean improvement score of the 2 of them that expect the skill to be used "
    "(skill-validator's rejudge leaves out those testing that it stays unused)"
)


def _rejudged(shared: Path) -> dict[str, Any]:
    """Scenarios 2 and 3 test that the skill stays unused; scenario 2's skilled run judged 3.

    The 2 expecting it score 0.75 and 0.75: overall 0.75; gain (1 - 0) / (1 - 0) = 1 each, so 1;
    the bootstrap of [0.75, 0.75] is 0.75 to 0.75. Over all 4 the gain would be
    (1 + 1 + 0.5 + 1) / 4 = 0.875 (scenario 2: pre 0, post (3 - 1) / 4 = 0.5).
    """
    doc: dict[str, Any] = json.loads((shared / RUN).read_text(encoding="utf-8"))
    v = doc["verdicts"][0]
    for k, s in enumerate(v["scenarios"]):
        s["expectActivation"] = k < 2
    v["scenarios"][2]["withSkill"]["judgeResult"]["overallScore"] = 3
    v.update(overallImprovementScore=0.75, normalizedGain=1)
    v["confidenceInterval"].update(low=0.75, high=0.75)
    return doc


def test_a_rejudged_verdict_is_read_with_the_scenarios_it_covers(
    shared: Path, tmp_path: Path
) -> None:
    (r,) = import_skill_validator(write_json(tmp_path / "results.json", _rejudged(shared)))
    assert len(r.body.cases) == 4  # every scenario listed is a case
    assert (
        "The source's overall improvement score, normalized gain and interval cover the 2 of its "
        "4 scenarios that expect the skill to be used; the others test that it stays unused."
    ) in r.body.provenance.notes


def test_a_rejudged_verdict_where_no_scenario_expects_the_skill_is_read(
    shared: Path, tmp_path: Path
) -> None:
    # ComputeVerdict with no comparisons: overall 0, no gain, interval or significance, reason
    # "No scenarios to evaluate", the scenarios still listed
    doc = _rejudged(shared)
    v = doc["verdicts"][0]
    for s in v["scenarios"]:
        s["expectActivation"] = False
    for key in ("normalizedGain", "confidenceInterval", "isSignificant"):
        del v[key]
    v.update(overallImprovementScore=0, passed=False, reason="No scenarios to evaluate")
    (r,) = import_skill_validator(write_json(tmp_path / "results.json", doc))
    assert len(r.body.cases) == 4
    assert (
        "The source's overall improvement score, normalized gain and interval cover the 0 of its "
        "4 scenarios that expect the skill to be used; the others test that it stays unused."
    ) in r.body.provenance.notes


def _refused(doc: dict[str, Any], tmp_path: Path, capsys: Any) -> str:
    path = write_json(tmp_path / "results.json", doc)
    out = tmp_path / "o"
    code, _, err = run_main(["import", "skill-validator", str(path), "--out-dir", str(out)], capsys)
    assert code == 2 and "Traceback" not in err and not out.exists()
    return err.removeprefix(f"error: {path}: ")


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        # neither mean: all 4 give 0.7603466182387443, the 2 expecting the skill 0.75
        pytest.param(
            lambda v: v.update(overallImprovementScore=0.5),
            f"/verdicts/0/overallImprovementScore: expected 0.7603466182387443, {ALL}, or "
            f"0.75, {PART}, found 0.5",
            id="overall",
        ),
        # the overall score of all 4 with the gain of the 2: no run of skill-validator mixes them
        pytest.param(
            lambda v: v.update(overallImprovementScore=0.7603466182387443),
            "/verdicts/0/normalizedGain: expected 0.875, the mean normalized gain of the "
            "verdict's 4 scenarios (/verdicts/0/scenarios), found 1.0",
            id="mixed",
        ),
        # the 2 it covers both score 0.75; a high end of 0.7583816890552741 is scenario 2's
        pytest.param(
            lambda v: v["confidenceInterval"].update(high=0.7583816890552741),
            "/verdicts/0/confidenceInterval: expected an interval within the improvement scores "
            "of the 2 scenarios it covers, 0.75 to 0.75 (skill-validator's bootstrap resamples "
            "their mean), found 0.75 to 0.7583816890552741",
            id="interval",
        ),
        # expectActivation is a bool in skill-validator's ScenarioComparison
        pytest.param(
            lambda v: v["scenarios"][1].update(expectActivation="no"),
            "/verdicts/0/scenarios/1/expectActivation: expected true or false, found the string "
            '"no"',
            id="not-a-bool",
        ),
    ],
)
def test_a_rejudged_verdict_its_own_scenarios_contradict_is_refused(
    shared: Path, tmp_path: Path, capsys: Any, edit: Any, said: str
) -> None:
    doc = _rejudged(shared)
    edit(doc["verdicts"][0])
    err = _refused(doc, tmp_path, capsys)
    assert err.rstrip("\n").removesuffix(": the source contradicts itself") == said


def _failed_run(error: str) -> dict[str, Any]:
    """``CreateFailedScenarioComparison``'s run: ``new RunMetrics { ErrorCount = 1 }`` (every
    other member its default) judged ``JudgeResult([], 0, "Scenario failed: <error>")``."""
    counts = ("tokenEstimate", "inputTokens", "outputTokens", "toolCallCount", "turnCount")
    metrics: dict[str, Any] = dict.fromkeys(counts, 0) | {"wallTimeMs": 0, "errorCount": 1}
    metrics |= {"timedOut": False, "assertionResults": [], "taskCompleted": False}
    metrics |= {"toolCallBreakdown": {}, "agentOutput": "", "events": [], "workDir": ""}
    judged = {
        "rubricScores": [],
        "overallScore": 0,
        "overallReasoning": f"Scenario failed: {error}",
    }
    return {"metrics": metrics, "judgeResult": judged}


def _with_a_failed_scenario(shared: Path) -> dict[str, Any]:
    """The real run with its scenario 3 one that failed to run, as skill-validator writes it.

    skill-validator's evaluate keeps a scenario whose runs threw as a comparison with
    improvementScore 0, a zero breakdown, no perRunScores and its executionError; it counts in
    the overall mean: (0.75 + 0.75 + 0.7583816890552741 + 0) / 4 = 0.5645954222638185. Its
    judge scores are 0 for every run, so pre = post = (0 - 1) / 4 and its gain is 0 whichever
    skilled run ComputeNormalizedGain takes; the others' are 1: (1 + 1 + 1 + 0) / 4 = 0.75.
    """
    doc: dict[str, Any] = json.loads((shared / RUN).read_text(encoding="utf-8"))
    v = doc["verdicts"][0]
    run = _failed_run("All 1 run(s) failed for scenario 'x'")
    parts = ("token", "toolCall", "taskCompletion", "time", "quality", "overallJudgment", "error")
    zero = {f"{p}{'Improvement' if p in parts[2::2] else 'Reduction'}": 0 for p in parts}
    v["scenarios"][3] = {
        "scenarioName": v["scenarios"][3]["scenarioName"],
        "baseline": run,
        "skilledIsolated": run,
        "skilledPlugin": run,
        "withSkill": run,  # the alias the source writes beside skilledIsolated
        "improvementScore": 0,
        "isolatedImprovementScore": 0,
        "pluginImprovementScore": 0,
        "breakdown": zero,
        "highVariance": False,
        "timedOut": False,
        "expectActivation": True,
        "failedRunCount": 0,
        "executionError": "All 1 run(s) failed for scenario 'x'",
    }
    v.update(overallImprovementScore=0.5645954222638185, normalizedGain=0.75, passed=False)
    v["confidenceInterval"].update(low=0.1875, high=0.7583816890552741)
    return doc


def test_a_scenario_that_failed_is_a_case_of_lost_draws(shared: Path, tmp_path: Path) -> None:
    doc = _with_a_failed_scenario(shared)
    (r,) = import_skill_validator(write_json(tmp_path / "results.json", doc))
    sealed(r)  # the receipt holds together as it is written
    case = r.body.cases[3]
    for arm in (case.arms.baseline, case.arms.with_skill):
        (d,) = arm.draws
        assert d.score is None and d.lost is not None and d.lost.kind == "source_error"
        assert d.lost.reason.endswith("All 1 run(s) failed for scenario 'x'")
    report = r.body.model_dump(mode="json")["source_report"]
    own = [f["value"] for f in report["figures"] if f.get("case") == case.id]
    assert own[0] == 0  # its improvement score, as the source printed it


def test_a_failed_scenarios_gain_of_0_counts_in_the_verdicts(
    shared: Path, tmp_path: Path, capsys: Any
) -> None:
    # the gain of the 3 scenarios that ran, 1, is not the mean of all 4: 0.75
    doc = _with_a_failed_scenario(shared)
    doc["verdicts"][0]["normalizedGain"] = 1
    err = _refused(doc, tmp_path, capsys)
    assert err.rstrip("\n").removesuffix(": the source contradicts itself") == (
        "/verdicts/0/normalizedGain: expected 0.75, the mean normalized gain of the verdict's 4 "
        "scenarios (/verdicts/0/scenarios), found 1.0"
    )


def test_a_verdict_fitting_both_readings_says_it_cannot_tell_which(
    shared: Path, tmp_path: Path
) -> None:
    # scenarios 2 and 3 made copies of scenario 0 (0.75, judged 1 then 5) and not expecting the
    # skill: every scenario scores 0.75 and gains 1, so the overall 0.75 and gain 1 are the mean
    # of all 4 and of the 2 expecting it alike; the interval may be over either set
    doc = _rejudged(shared)
    v = doc["verdicts"][0]
    for k in (2, 3):
        v["scenarios"][k] = json.loads(json.dumps(v["scenarios"][0])) | {
            "scenarioName": f"copy {k}",
            "expectActivation": False,
        }
    (r,) = import_skill_validator(write_json(tmp_path / "results.json", doc))
    assert (
        "The source's overall improvement score and normalized gain are the mean of all 4 of its "
        "scenarios and of the 2 that expect the skill to be used alike, so whether its interval "
        "covers all of them or only those 2 is not recorded."
    ) in r.body.provenance.notes
    assert not any("cover the 2 of its" in n for n in r.body.provenance.notes)
