"""dotnet/skills import refusals driven through the CLI (skill-validator and Vally results.json):
exit 2, one line naming the file, the JSON pointer and what was expected, no receipt written."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from factories import run_main
from interop_helpers import write_json
from test_dotnet_skills import RUN, _vally

from driftproof.importers.dotnet_skills import import_skill_validator


def _import(tool: str, doc: Any, tmp_path: Path, capsys: Any) -> tuple[Path, str]:
    path = write_json(tmp_path / "results.json", doc)
    out = tmp_path / "o"
    code, _, err = run_main(["import", tool, str(path), "--out-dir", str(out)], capsys)
    assert code == 2 and "Traceback" not in err and not out.exists()
    return path, err


@pytest.mark.parametrize("tool", ["skill-validator", "vally"])
@pytest.mark.parametrize(
    ("doc", "pointer", "words"),
    [
        ([{"verdicts": []}], "", "expected a results object with verdicts[]"),
        (
            {"verdicts": []},
            "/verdicts: ",
            "expected at least one verdict; the run recorded none, so there is nothing to import",
        ),
        ({"verdicts": ["demo"]}, "/verdicts/0: ", "expected a verdict object"),
    ],
)
def test_a_results_file_with_no_verdict_to_read_is_refused(
    tmp_path: Path, capsys: Any, tool: str, doc: Any, pointer: str, words: str
) -> None:
    path, err = _import(tool, doc, tmp_path, capsys)
    assert err == f"error: {path}: {pointer}{words}\n"


def test_vally_a_scenario_given_twice_is_refused_at_the_second(tmp_path: Path, capsys: Any) -> None:
    # found: refused naming the file alone, no place ("'fix the build' is repeated")
    doc = _vally()
    scenarios = doc["verdicts"][0]["scenarios"]
    scenarios.append(copy.deepcopy(scenarios[0]))  # scenarios/2 is scenarios/0 again
    path, err = _import("vally", doc, tmp_path, capsys)
    assert err == (
        f"error: {path}: /verdicts/0/scenarios/2/scenarioName: expected each scenario name once "
        "per verdict; 'fix the build' is also at /verdicts/0/scenarios/0\n"
    )


def _run(shared: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((shared / RUN).read_text(encoding="utf-8"))
    return doc


def test_skill_validator_a_judge_score_below_1_is_refused(
    shared: Path, tmp_path: Path, capsys: Any
) -> None:
    doc = _run(shared)
    doc["verdicts"][0]["scenarios"][0]["baseline"]["judgeResult"]["overallScore"] = 0.5
    path, err = _import("skill-validator", doc, tmp_path, capsys)
    assert err == (
        f"error: {path}: /verdicts/0/scenarios/0/baseline/judgeResult/overallScore: expected the "
        "judge's overall score from 1 to 5, found 0.5\n"
    )


def test_skill_validator_a_warning_that_is_not_text_is_refused(
    shared: Path, tmp_path: Path, capsys: Any
) -> None:
    doc = _run(shared)
    doc["verdicts"][0]["profileWarnings"] = ["a warning", 5]
    path, err = _import("skill-validator", doc, tmp_path, capsys)
    assert err == (
        f"error: {path}: /verdicts/0/profileWarnings/1: expected a warning text, found a number\n"
    )


@pytest.mark.parametrize(
    ("edit", "pointer", "words"),
    [
        (
            lambda v: v["scenarios"][0].update(scenarioName=None),
            "/verdicts/0/scenarios/0/scenarioName",
            "expected a string, found null",
        ),
        (
            lambda v: v.update(normalizedGain="0.5"),
            "/verdicts/0/normalizedGain",
            'expected a number, found the string "0.5"',
        ),
    ],
)
def test_skill_validator_a_value_of_the_wrong_kind_is_refused(
    shared: Path, tmp_path: Path, capsys: Any, edit: Any, pointer: str, words: str
) -> None:
    doc = _run(shared)
    edit(doc["verdicts"][0])
    path, err = _import("skill-validator", doc, tmp_path, capsys)
    assert err == f"error: {path}: {pointer}: {words}\n"


S0 = "/verdicts/0/scenarios/0"


@pytest.mark.parametrize(
    ("edit", "pointer", "words"),
    [
        (lambda s: s.update(perRunScores=[]), f"{S0}/perRunScores", "expected one run, found none"),
        (  # CreateFailedScenarioComparison writes a scenario that failed to run with score 0
            lambda s: s.update(executionError="Timed out after 300s"),
            f"{S0}/improvementScore",
            "expected 0, what skill-validator writes for a scenario that failed to run "
            f"({S0}/executionError), found 0.75: the source contradicts itself",
        ),
    ],
)
def test_skill_validator_a_scenario_its_runs_contradict_is_refused(
    shared: Path, tmp_path: Path, capsys: Any, edit: Any, pointer: str, words: str
) -> None:
    doc = _run(shared)
    edit(doc["verdicts"][0]["scenarios"][0])  # improvementScore 0.75 over perRunScores [0.75]
    path, err = _import("skill-validator", doc, tmp_path, capsys)
    assert err == f"error: {path}: {pointer}: {words}\n"


def test_a_source_over_the_size_cap_is_refused_before_it_is_read(
    shared: Path, tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from driftproof.importers import _common

    monkeypatch.setattr(_common.read_bytes, "__defaults__", (100,))  # the cap, in bytes
    doc = _run(shared)
    path, err = _import("skill-validator", doc, tmp_path, capsys)
    size = len(path.read_bytes())
    assert err == f"error: {path}: file is {size} bytes; importers read at most 100\n"


def test_skill_validator_an_overall_score_with_no_scenarios_is_refused(
    shared: Path, tmp_path: Path, capsys: Any
) -> None:
    # skill-validator (Comparator.ComputeVerdict) writes overallImprovementScore 0 when a
    # verdict has no scenarios; the real verdict's 0.7603466182387443 with none contradicts it
    doc = _run(shared)
    doc["verdicts"][0]["scenarios"] = []
    path, err = _import("skill-validator", doc, tmp_path, capsys)
    assert err == (
        f"error: {path}: /verdicts/0/overallImprovementScore: expected 0, what skill-validator "
        "writes for a verdict with no scenarios (/verdicts/0/scenarios), found "
        "0.7603466182387443: the source contradicts itself\n"
    )


def test_skill_validator_a_verdict_with_no_scenarios_beside_a_measured_one_is_read(
    shared: Path, tmp_path: Path
) -> None:
    # skill-validator's C# ValidateCommand, run with --require-evals, writes this verdict
    # (Scenarios = [], OverallImprovementScore = 0, FailureKind "missing_eval") beside the
    # skills it measured; the measured verdict is still imported, the other one keeps its words
    doc = _run(shared)
    doc["verdicts"].append(
        {
            "skillName": "no-evals",
            "skillPath": "./src/dotnet/skills/no-evals",
            "passed": False,
            "scenarios": [],
            "overallImprovementScore": 0,
            "reason": "No tests/eval.yaml found (required by --require-evals)",
            "failureKind": "missing_eval",
        }
    )
    measured, empty = import_skill_validator(write_json(tmp_path / "results.json", doc))
    assert len(measured.body.cases) == 4 and empty.body.cases == []
    report = empty.body.model_dump(mode="json")["source_report"]
    assert report["decision"] == {
        "passed": False,
        "printed": "No tests/eval.yaml found (required by --require-evals)",
    }


def _gain_without_plugin_runs(v: dict[str, Any]) -> None:
    v["normalizedGain"] = 0.5
    for s in v["scenarios"]:  # a plugin run given as null is none
        s["skilledPlugin"] = None


CONTRADICTIONS = [
    # skill-validator's IsStatisticallySignificant: low > 0 or high < 0; an interval from -0.05
    # to 0.7747535879247773 holds 0, so its isSignificant true contradicts it
    pytest.param(
        lambda v: v["confidenceInterval"].update(low=-0.05),
        "/verdicts/0/isSignificant: expected false, as skill-validator decides from its "
        "interval -0.05 to 0.774754 (significant when it leaves out 0), found true",
        id="significance",
    ),
    # each of the 4 scenarios' judge gave the baseline 1 and the skilled run 5: pre 0, post 1,
    # gain (1 - 0) / (1 - 0) = 1 (skill-validator's ComputeNormalizedGain), so the mean is 1.0
    pytest.param(
        _gain_without_plugin_runs,
        "/verdicts/0/normalizedGain: expected 1.0, the mean normalized gain of the verdict's 4 "
        "scenarios (/verdicts/0/scenarios), found 0.5",
        id="gain",
    ),
    # skill-validator's DefaultWeights: token 0.05, tool calls 0.025, completion 0.15, time
    # 0.025, quality 0.40, overall judgment 0.30, errors 0.05; scenario 0's breakdown -1, -1, 1,
    # -1, 1, 1 and (edited) errors 1 weighs -0.05 - 0.025 + 0.15 - 0.025 + 0.4 + 0.3 + 0.05 = 0.8
    pytest.param(
        lambda v: v["scenarios"][0]["breakdown"].update(errorReduction=1),
        "/verdicts/0/scenarios/0/improvementScore: expected 0.8, its breakdown weighted as "
        "skill-validator weighs it (/verdicts/0/scenarios/0/breakdown), found 0.75",
        id="breakdown",
    ),
    # skill-validator's BootstrapConfidenceInterval takes percentiles of resampled means of the
    # scenarios' scores (0.75, 0.75, 0.7583816890552741, 0.7830047838997031), so no end of it
    # can pass 0.7830047838997031; a high end of 0.8 contradicts them
    pytest.param(
        lambda v: v["confidenceInterval"].update(high=0.8),
        "/verdicts/0/confidenceInterval: expected an interval within the scenarios' improvement "
        "scores, 0.75 to 0.7830047838997031 (skill-validator's bootstrap resamples their mean), "
        "found 0.75 to 0.8",
        id="interval",
    ),
]


@pytest.mark.parametrize(("edit", "said"), CONTRADICTIONS)
def test_skill_validator_a_figure_its_own_evidence_contradicts_is_refused(
    shared: Path, tmp_path: Path, capsys: Any, edit: Any, said: str
) -> None:
    doc = _run(shared)
    edit(doc["verdicts"][0])
    path, err = _import("skill-validator", doc, tmp_path, capsys)
    assert err == f"error: {path}: {said}: the source contradicts itself\n"


def test_skill_validator_several_runs_are_refused_saying_what_is_missing(
    shared: Path, tmp_path: Path, capsys: Any
) -> None:
    # skill-validator at 1b8f2aa with --runs 5, its default (ValidateCommand.ExecuteScenario):
    # each arm is AverageResults of the runs (judge scores their mean, rounded to 0.1; here every
    # run judged 1 and 5, as in the real file), written as baseline and skilledIsolated (also
    # withSkill, its alias), camelCase (Models.cs); perRunScores holds one improvement score a run
    # and no arm's score. Comparator.ComputeVerdict's interval resamples all 20 runs' scores:
    # Statistics.BootstrapConfidenceInterval, worked out in Python from its seeded resampler (which
    # gives the real file's 0.75 to 0.7747535879247773 from its four), is 0.7546763378110548 to
    # 0.7904335911693459, past the scenarios' greatest improvement score 0.7830047838997031
    doc = _run(shared)
    v = doc["verdicts"][0]
    for s in v["scenarios"]:
        s["skilledIsolated"] = s["withSkill"]
        s["perRunScores"] = [s["improvementScore"]] * 5
    v["scenarios"][3]["perRunScores"] = [0.76, 0.8, 0.95, 0.78, 0.79]
    v["confidenceInterval"] |= {"low": 0.7546763378110548, "high": 0.7904335911693459}
    _, said = _import("skill-validator", doc, tmp_path, capsys)
    assert "/verdicts/0/scenarios/0/perRunScores" in said and "found 5" in said
    assert "only as their average over the runs" in said
    assert "no run's own score with or without the skill is in the file" in said
    assert "contradicts itself" not in said
