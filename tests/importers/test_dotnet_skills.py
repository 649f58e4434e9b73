"""dotnet/skills importers (issue 36): skill-validator results.json (real files) and Vally
results.json schema 5 (a fixture built from the adapter's published contract,
eng/vally-adapter/InvestigatingResults.md). Each a DECLARED receipt with no verdict, the source's
decision kept as its figure (D-15).

Expected values are read by hand from the files; each literal says where.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from interop_helpers import scores, sealed, write_json

from driftproof.errors import ImportError_
from driftproof.importers.dotnet_skills import import_skill_validator, import_vally
from driftproof.stats.reading import no_verdict

SV = "data/interop/dotnet-skills/skill-validator-results"
RUN = f"{SV}/run-2026-02-20T20-44-00-817Z/results.json"


def test_skill_validator_real_run(shared: Path) -> None:
    (doc,) = import_skill_validator(shared / RUN)
    r = sealed(doc)
    assert r.verification_level == "DECLARED" and r.skill.name == "analyzing-dotnet-performance"
    assert r.run.model == "claude-opus-4.6" and r.judge.model == "claude-opus-4.6"
    assert len(r.cases) == 4  # four scenarios
    first = r.cases[0]
    assert first.id.startswith("Detects-critical-patterns-sync-over-async")
    # baseline overallScore 1, withSkill 5, on the judge's 1..5 scale: (1-1)/4 = 0, (5-1)/4 = 1
    assert scores(first.arms.baseline) == [0.0] and scores(first.arms.with_skill) == [1.0]
    # baseline assertionResults: output_contains 'Result' failed, output_contains 'ReDoS'
    # failed, exit_success passed
    checks = first.arms.baseline.draws[0].checks
    assert [(c.kind, c.source_type, c.outcome) for c in checks] == [
        ("must_include", "output_contains", "fail"),
        ("must_include", "output_contains", "fail"),
        ("assertion", "exit_success", "pass"),
    ]
    assert checks[0].name == "output_contains: Result"
    sr = r.source_report
    assert sr.decision.printed == "Improvement score 76.0% meets threshold of 10.0%"
    assert sr.decision.passed is True and sr.decision.significant is True
    (ci,) = [f for f in sr.figures if f.label == "overall improvement score interval"]
    # confidenceInterval {low 0.75, high 0.7747535879247773, level 0.95}
    assert (ci.lower, ci.upper, ci.level) == (0.75, 0.7747535879247773, 0.95)
    assert ci.value == 0.7603466182387443  # overallImprovementScore
    (pw,) = [f for f in sr.figures if f.label == "pairwise judgment" and f.case == first.id]
    assert pw.printed == "skill much-better; with positions swapped: consistent"
    # improvementScore of scenario 3: 0.7583816890552741
    assert [
        f.value for f in sr.figures if f.label == "improvement score" and f.case == r.cases[2].id
    ] == [0.7583816890552741]


def test_skill_validator_gives_no_verdict(shared: Path) -> None:
    r = sealed(import_skill_validator(shared / RUN)[0])
    assert r.verification_level == "DECLARED" and no_verdict(r) is not None


def test_skill_validator_fallback_score_of_a_failed_judge_is_lost(
    shared: Path, tmp_path: Path
) -> None:
    # ValidateCommand.cs SafeJudge (https://github.com/dotnet/skills/blob/1b8f2aa1e4e691c8176312829f
    # 67e367cdfc1862/eng/skill-validator/src/Commands/ValidateCommand.cs): a judge that throws
    # leaves JudgeResult([], 3, $"Judge failed: {shortMsg}"), a fallback 3 and no rubric
    doc = json.loads((shared / RUN).read_text("utf-8"))
    failed = {"rubricScores": [], "overallScore": 3, "overallReasoning": "Judge failed: timed out"}
    doc["verdicts"][0]["scenarios"][0]["withSkill"]["judgeResult"] = failed
    # its normalized gain takes the fallback 3 as it is: scenario 0 (0.5 - 0) / 1, the others 1
    doc["verdicts"][0]["normalizedGain"] = (0.5 + 1 + 1 + 1) / 4
    r = sealed(import_skill_validator(write_json(tmp_path / "results.json", doc)))
    (d,) = r.cases[0].arms.with_skill.draws
    assert d.score is None and d.lost.kind == "source_error"
    assert d.lost.reason.endswith("Judge failed: timed out")
    assert scores(r.cases[0].arms.baseline) == [0.0]  # baseline overallScore 1: (1 - 1) / 4


def test_skill_validator_empty_run_is_refused(shared: Path) -> None:
    f = shared / SV / "run-2026-02-20T20-34-42-935Z/results.json"
    with pytest.raises(ImportError_) as exc:
        import_skill_validator(f)
    assert "results.json" in str(exc.value) and "/verdicts" in str(exc.value)


@pytest.mark.parametrize(
    ("where", "value", "pointer"),
    [
        # scenario 2's one run scored 0.7583816890552741 (perRunScores[0] = improvementScore)
        (("scenarios", 2, "perRunScores"), [0.25], "/verdicts/0/scenarios/2/improvementScore"),
        # the four scenarios' improvement scores average 0.7603466182387443, not 0.05
        ((), 0.05, "/verdicts/0/overallImprovementScore"),
    ],
)
def test_skill_validator_figures_that_contradict_their_rows_are_refused(
    shared: Path, tmp_path: Path, where: tuple[Any, ...], value: Any, pointer: str
) -> None:
    doc = json.loads((shared / RUN).read_text("utf-8"))
    place = doc["verdicts"][0]
    for key in where[:-1]:
        place = place[key]
    place[where[-1] if where else "overallImprovementScore"] = value
    with pytest.raises(ImportError_) as exc:
        import_skill_validator(write_json(tmp_path / "results.json", doc))
    assert pointer in str(exc.value) and "contradicts itself" in str(exc.value)


def _vally() -> dict[str, Any]:
    """A Vally adapter results.json, schema 5, as its contract lists the members: one verdict,
    two stimuli; the second has a whole-plugin run and an errored compare trial."""

    def role(score: float) -> dict[str, Any]:
        return {"judgeResult": {"overallScore": score}, "metrics": {"wallTimeMs": 1000}}

    return {
        "schemaVersion": 5,
        "skillKind": "skill",
        "evalFile": "plugins/dotnet/skills/demo/eval.yaml",
        "expectedEval": True,
        "model": "claude-sonnet-5",
        "judgeModel": "gpt-5.6-terra",
        "timestamp": "2026-11-02T10:00:00Z",
        "verdicts": [
            {
                "skillName": "demo",
                "skillPath": "plugins/dotnet/skills/demo",
                "state": "VALID_NO_CHANGE",
                "stateReason": {"code": "underpowered", "phase": "gate"},
                "passed": False,
                "netWin": 0.5,
                "signTest": {
                    "wins": 1,
                    "ties": 1,
                    "losses": 0,
                    "discordant": 1,
                    "direction": "improved",
                    "pValue": 0.5,
                    "alpha": 0.05,
                },
                "meanScore": 0.7,
                "confidenceInterval": {"low": 0.4, "high": 1.0, "level": 0.95},
                "wins": 1,
                "ties": 1,
                "losses": 0,
                "stimulusVoteCount": 2,
                "reason": "2 stimuli counted; at least 5 are needed",
                "scenarios": [
                    {
                        "scenarioName": "fix the build",
                        "meanScore": 1.0,
                        "trials": [
                            {"winner": "skill", "magnitude": "much-better", "score": 1.0},
                        ],
                        "baseline": role(2),
                        "skilledIsolated": role(4),
                    },
                    {
                        "scenarioName": "explain the error",
                        "meanScore": 0.4,
                        "trials": [
                            {"winner": "skill", "magnitude": "slightly-better", "score": 0.4},
                            {"errored": True},
                        ],
                        "baseline": role(3),
                        "skilledIsolated": role(3),
                        "skilledPlugin": role(5),
                    },
                ],
            }
        ],
    }


def test_vally_fixture(tmp_path: Path) -> None:
    (doc,) = import_vally(write_json(tmp_path / "results.json", _vally()))
    r = sealed(doc)
    assert r.verification_level == "DECLARED" and no_verdict(r) is not None
    assert r.run.model == "claude-sonnet-5" and r.judge.model == "gpt-5.6-terra"
    fix, explain = r.cases
    # overallScore on 0..5: 4/5 and 2/5; 3/5 both
    assert scores(fix.arms.with_skill) == [0.8] and scores(fix.arms.baseline) == [0.4]
    assert scores(explain.arms.with_skill) == [0.6] and scores(explain.arms.baseline) == [0.6]
    sr = r.source_report
    assert sr.decision.printed == "VALID_NO_CHANGE: 2 stimuli counted; at least 5 are needed"
    assert sr.decision.passed is False and sr.decision.p_value == 0.5
    plugin = [f for f in sr.figures if f.arm == "other"]
    assert [(f.case, f.value) for f in plugin] == [(explain.id, 5.0)]
    trials = [f for f in sr.figures if f.label.startswith("compare trial") and f.case == explain.id]
    assert [(f.value, f.printed) for f in trials] == [
        (0.4, "skill slightly-better"),
        (None, "errored"),
    ]
    (mean,) = [f for f in sr.figures if f.label == "mean preference score"]
    assert (mean.value, mean.lower, mean.upper, mean.level) == (0.7, 0.4, 1.0, 0.95)
    assert r.run.finished_at == "2026-11-02T10:00:00Z"


@pytest.mark.parametrize(
    ("change", "pointer"),
    [
        # version 3 counts dormancy stimuli in the votes and sign test (the contract's
        # "Schema version 5 compatibility"); 4 writes no skillKind
        (lambda d: d.update(schemaVersion=3), "/schemaVersion"),
        (lambda d: d.update(schemaVersion=True), "/schemaVersion"),
        (lambda d: d.update(schemaVersion=4, skillKind="agent"), "/skillKind"),
        (lambda d: d.update(skillKind="agent"), "/skillKind"),
        (lambda d: d.update(timestamp=1762077600), "/timestamp"),  # a number, no instant
        (lambda d: d["verdicts"][0].update(state="PASS"), "/verdicts/0/state"),
        (
            lambda d: d["verdicts"][0]["scenarios"][0]["baseline"]["judgeResult"].update(
                overallScore=7
            ),
            "/verdicts/0/scenarios/0/baseline/judgeResult/overallScore",
        ),
    ],
)
def test_vally_refusals_name_the_file_and_pointer(
    tmp_path: Path, change: Any, pointer: str
) -> None:
    doc = _vally()
    change(doc)
    out = tmp_path / "out"
    with pytest.raises(ImportError_) as exc:
        import_vally(write_json(tmp_path / "results.json", doc))
    assert "results.json" in str(exc.value) and pointer in str(exc.value)
    assert not out.exists()


def test_vally_more_trials_than_a_receipt_holds_are_refused_at_the_verdict(tmp_path: Path) -> None:
    # 10,000 compare trials in one stimulus, each a reported number, plus each stimulus's mean
    # score: over the 10,000 numbers one receipt holds. Refused by place, not a crash.
    doc = _vally()
    doc["verdicts"][0]["scenarios"][0]["trials"] *= 10_000
    with pytest.raises(ImportError_) as exc:
        import_vally(write_json(tmp_path / "results.json", doc))
    assert "results.json: /verdicts/0: expected at most 10,000 reported numbers" in str(exc.value)


def test_vally_schema_4_is_read_as_5(tmp_path: Path) -> None:
    # adapt.mjs @ 0075511 (writeVerdictResults) writes schemaVersion 4 and no skillKind; the
    # contract says 5 keeps 4's meaning of the votes, so the same figures import alike
    doc = _vally()
    del doc["skillKind"]
    doc["schemaVersion"] = 4
    (v4,) = import_vally(write_json(tmp_path / "v4" / "results.json", doc))
    (v5,) = import_vally(write_json(tmp_path / "v5" / "results.json", _vally()))
    r4, r5 = sealed(v4), sealed(v5)
    assert r4.provenance.tool_version == "results schema 4"
    assert r5.provenance.tool_version == "results schema 5"
    assert r4.source_report == r5.source_report and r4.cases == r5.cases


def test_vally_missing_baseline_is_a_lost_draw(tmp_path: Path) -> None:
    doc = _vally()
    del doc["verdicts"][0]["scenarios"][0]["baseline"]
    r = sealed(import_vally(write_json(tmp_path / "results.json", doc))[0])
    d = r.cases[0].arms.baseline.draws[0]
    assert d.score is None and "no baseline run" in d.lost.reason


def test_vally_null_overall_score_is_one_lost_draw_not_a_refused_file(tmp_path: Path) -> None:
    # adapt.mjs roleFromRecords (https://github.com/dotnet/skills/blob/main/eng/vally-adapter/
    # adapt.mjs): overallScore = mean(gradeResult.score) * 5, null when no run of the role
    # carries a grade; roleToDashboard writes {judgeResult: {overallScore: null}}
    doc = _vally()
    doc["verdicts"][0]["scenarios"][0]["skilledIsolated"]["judgeResult"]["overallScore"] = None
    doc["verdicts"][0]["scenarios"][1]["skilledPlugin"]["judgeResult"]["overallScore"] = None
    r = sealed(import_vally(write_json(tmp_path / "results.json", doc))[0])
    fix, explain = r.cases
    (d,) = fix.arms.with_skill.draws
    assert d.score is None and d.lost.kind == "unscored"
    assert "skilledIsolated overallScore is null" in d.lost.reason
    # the rest is read as before: baseline 2/5; the other stimulus 3/5 both
    assert scores(fix.arms.baseline) == [0.4] and scores(explain.arms.with_skill) == [0.6]
    (plugin,) = [f for f in r.source_report.figures if f.arm == "other"]
    assert plugin.value is None and plugin.printed == "not graded (overallScore null)"


def test_vally_timed_out_stimulus_keeps_no_skilled_score(tmp_path: Path) -> None:
    # InvestigatingResults.md, scenario structure: "timedOut | Whether the skilled run hit its
    # timeout" (adapt.mjs: a run whose trajectory.endReason is "agent_timeout")
    doc = _vally()
    doc["verdicts"][0]["scenarios"][0]["timedOut"] = True
    doc["verdicts"][0]["scenarios"][1]["timedOut"] = False
    r = sealed(import_vally(write_json(tmp_path / "results.json", doc))[0])
    fix, explain = r.cases
    (d,) = fix.arms.with_skill.draws
    assert d.score is None and d.lost.kind == "timed_out" and "timedOut" in d.lost.reason
    # the baseline is not the timed-out run: 2/5; the other stimulus did not time out: 3/5
    assert scores(fix.arms.baseline) == [0.4] and scores(explain.arms.with_skill) == [0.6]


def test_vally_errored_compare_trial_keeps_the_sources_words(tmp_path: Path) -> None:
    # adapt.mjs writes each trial's evidence (the judge's error text for an errored one, which
    # classifyComparisonError reads, e.g. "waiting for session.idle")
    doc = _vally()
    trial = doc["verdicts"][0]["scenarios"][1]["trials"][1]
    trial["evidence"] = "Timeout after 300000ms waiting for session.idle"
    r = sealed(import_vally(write_json(tmp_path / "results.json", doc))[0])
    (f,) = [f for f in r.source_report.figures if f.label == "compare trial 2"]
    assert f.value is None and f.printed == f"errored: {trial['evidence']}"


def test_vally_invalid_verdict_with_no_scenarios_is_refused_in_its_words(tmp_path: Path) -> None:
    # adapt.mjs invalidVerdict (https://github.com/dotnet/skills/blob/main/eng/vally-adapter/
    # adapt.mjs): state INVALID_INCONCLUSIVE, scenarios [], netWin 0 and the votes 0 as
    # placeholders, reason the message, e.g. "<plugin>/<skill>: skilled variant produced no records"
    doc = _vally()
    said = "dotnet/demo: skilled variant produced no records"
    error = {"phase": "executor", "kind": "permanent", "code": "missing_skilled_records"}
    doc["verdicts"][0].update(
        state="INVALID_INCONCLUSIVE", conclusive=False, passed=False, netWin=0, meanScore=None,
        confidenceInterval={"low": None, "high": None, "level": 0.95}, wins=0, ties=0, losses=0,
        stimulusVoteCount=0, scenarios=[], reason=said, errors=[{**error, "message": said}],
        signTest={"wins": 0, "ties": 0, "losses": 0, "discordant": 0, "pValue": 1, "alpha": 0.05},
    )  # fmt: skip
    with pytest.raises(ImportError_) as exc:
        import_vally(write_json(tmp_path / "results.json", doc))
    assert "/verdicts/0/scenarios" in str(exc.value)
    assert f"INVALID_INCONCLUSIVE: {said}" in str(exc.value)


def test_vally_without_a_timestamp_names_the_finish_as_unrecorded(tmp_path: Path) -> None:
    doc = _vally()
    del doc["timestamp"]
    r = sealed(import_vally(write_json(tmp_path / "results.json", doc))[0])
    assert r.run.finished_at is None
    assert "run.finished_at (no timestamp)" in r.provenance.unrecorded


def _vally_pass() -> dict[str, Any]:
    """The fixture as a pass the contract allows: 5 stimuli, 5 wins, so discordant 5, one-sided
    p = 0.5 ** 5 = 0.03125 <= 0.05, net win (5 - 0) / 5 = 1 >= 0.20."""
    doc = _vally()
    v = doc["verdicts"][0]
    v.update(state="VALID_PASS", passed=True, netWin=1.0, wins=5, ties=0, losses=0)
    v.update(stimulusVoteCount=5)
    v["signTest"].update(wins=5, ties=0, losses=0, discordant=5, pValue=0.03125)
    return doc


def test_vally_a_pass_its_figures_bear_out_is_imported(tmp_path: Path) -> None:
    (r,) = import_vally(write_json(tmp_path / "results.json", _vally_pass()))
    assert sealed(r).source_report.decision.passed is True


@pytest.mark.parametrize(
    ("member", "value", "pointer", "expected"),
    [
        ("stimulusVoteCount", 6, "/verdicts/0/stimulusVoteCount", "expected 5,"),
        ("netWin", 0.6, "/verdicts/0/netWin", "expected 1,"),
        ("sign:wins", 4, "/verdicts/0/signTest/wins", "expected 5,"),
        ("sign:discordant", 3, "/verdicts/0/signTest/discordant", "expected 5,"),
        ("sign:pValue", 0.5, "/verdicts/0/passed", "p value 0.5 is above 0.05"),
        ("state", "VALID_NO_CHANGE", "/verdicts/0/passed", "not 'VALID_PASS'"),
        ("passed", False, "/verdicts/0/passed", "expected true"),
        ("meanScore", 3.5, "/verdicts/0/meanScore", "from -1 to 1"),
    ],
)
def test_vally_figures_that_contradict_each_other_are_refused(
    tmp_path: Path, member: str, value: Any, pointer: str, expected: str
) -> None:
    """The contract's identities: W + T + L = votes; the sign test counts the same votes and
    its discordant W + L; net win (W - L) / votes; passed only with VALID_PASS and p <= 0.05;
    meanScore within -1..1 (much-better +-1.0)."""
    doc = _vally_pass()
    v = doc["verdicts"][0]
    target, key = (v["signTest"], member[5:]) if member.startswith("sign:") else (v, member)
    target[key] = value
    with pytest.raises(ImportError_) as exc:
        import_vally(write_json(tmp_path / "results.json", doc))
    assert f"results.json: {pointer}: " in str(exc.value) and expected in str(exc.value)


@pytest.mark.parametrize(
    ("member", "value"),
    [("conclusive", False), ("errors", [{"code": "judge_rate_limited", "phase": "compare"}])],
)
def test_vally_an_incomplete_comparison_with_a_valid_state_is_refused(
    tmp_path: Path, member: str, value: Any
) -> None:
    """The contract: a comparison that did not complete, or with unresolved errors[], is
    INVALID_INCONCLUSIVE; the fixture's VALID_NO_CHANGE beside it is refused, the same
    verdict marked INVALID_INCONCLUSIVE imported."""
    doc = _vally()
    doc["verdicts"][0][member] = value
    with pytest.raises(ImportError_) as exc:
        import_vally(write_json(tmp_path / "results.json", doc))
    assert f"results.json: /verdicts/0/{member}: expected the state INVALID_INCONCLUSIVE" in str(
        exc.value
    )
    doc["verdicts"][0]["state"] = "INVALID_INCONCLUSIVE"
    sealed(import_vally(write_json(tmp_path / "results.json", doc))[0])


def test_vally_a_skill_given_twice_is_refused_at_the_second_verdict(tmp_path: Path) -> None:
    # Found: the same skill twice was refused only when writing, as "receipt file name
    # 'vally-demo-e118da18.json' is unsafe or repeated", naming no place and nothing expected.
    doc = _vally()
    doc["verdicts"].append(json.loads(json.dumps(doc["verdicts"][0])))
    path = write_json(tmp_path / "results.json", doc)
    with pytest.raises(ImportError_) as exc:
        import_vally(path)
    ((problem),) = exc.value.problems
    assert (problem.file, problem.pointer) == (str(path), "/verdicts/1/skillName")
    assert (
        problem.message == 'expected one verdict per skill; /verdicts/0 already gives skill "demo"'
    )


def test_vally_two_skills_whose_names_share_a_file_name_are_refused(tmp_path: Path) -> None:
    # "demo" and "demo!" both give the file name vally-demo-<sha>.json ("!" becomes "-")
    doc = _vally()
    doc["verdicts"].append(json.loads(json.dumps(doc["verdicts"][0])) | {"skillName": "demo!"})
    with pytest.raises(ImportError_) as exc:
        import_vally(write_json(tmp_path / "results.json", doc))
    ((problem),) = exc.value.problems
    assert problem.pointer == "/verdicts/1/skillName"
    assert '/verdicts/0\'s skill "demo" has the same receipt file name' in problem.message


def test_vally_two_skills_give_two_receipts(tmp_path: Path) -> None:
    doc = _vally()
    doc["verdicts"].append(json.loads(json.dumps(doc["verdicts"][0])) | {"skillName": "other"})
    items = import_vally(write_json(tmp_path / "results.json", doc))
    assert [i.body.skill.name for i in items] == ["demo", "other"]


@pytest.mark.parametrize("model", ["", "   "])
def test_a_blank_model_is_unrecorded_not_kept_as_a_model(tmp_path: Path, model: str) -> None:
    # found: a blank "model" became the receipt's run.model, though it names no model
    (doc,) = import_vally(write_json(tmp_path / "results.json", {**_vally(), "model": model}))
    r = sealed(doc)
    assert r.run.model is None and "run.model (no model)" in r.provenance.unrecorded
