"""dotnet/skills ``results.json`` (skill-validator, Vally) → DECLARED receipts, one per verdict.

Each scenario is a case; the source's decision is kept as its figure, never a verdict (D-15).
skill-validator's judge scores 1..5, mapped onto 0..1 as (score − 1) / 4; Vally's (schema 4 or 5,
``eng/vally-adapter``) 0..5, as score / 5, its votes and sign test the source's figures. The
mappings are the interop page's ("dotnet/skills skill-validator", "Vally").
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from driftproof._json import json_kind
from driftproof.importers import Imported, NoOptions, register
from driftproof.importers import _common as common
from driftproof.importers import _declared as declared
from driftproof.importers import _vally_read as vally
from driftproof.importers._common import ROUNDING, Where
from driftproof.importers._skill_validator import check_schema, overall_is_the_mean
from driftproof.importers._text import Repair
from driftproof.receipt import Case, Draw, build_draw

#: What no dotnet/skills results file records, before the format's own list.
_FIXED_UNRECORDED = (
    "skill.sha256 and skill.tokens (the file names the skill, not its text)",
    "each case's prompt (the file keeps the scenario's name only)",
)
#: A scenario read: (its object, its place, its case id, the figures to append to) -> its arms.
Scenario = Callable[[dict[str, Any], Where, str, list[dict[str, Any]]], dict[str, Any]]
#: A verdict's own reading: (its object, its place) -> (its figures, its decision, notes).
Verdict = Callable[[dict[str, Any], Where], tuple[list[dict[str, Any]], dict[str, Any], list[str]]]


def receipts(
    path: Path,
    tool: str,
    readers: tuple[Scenario, Verdict],  # how a scenario and a verdict are read
    roles: tuple[tuple[str, str], ...],
    tokens: str,
    kind: Callable[[dict[str, Any], Where], str | None],
) -> list[Imported]:
    """One DECLARED receipt per verdict; ``kind`` refuses another kind of file first.

    ``kind`` returns the tool version the document names (``None``: none).
    ``roles`` map each arm to the source's role (its label) and ``tokens`` say why draw tokens
    are unrecorded; ``judgeModel`` judged, ``model`` answered, and each scenario is a case.

    Raises:
        ImportError_: no results object of verdict objects (none: nothing to import), a verdict
            or scenario of the wrong shape or named twice, or a timestamp that is no instant.
    """
    repairs: list[Repair] = []
    doc, raw = common.read_json(path, repairs)
    w, out = Where(path), []
    if not isinstance(doc, dict):
        raise w.fail("expected a results object with verdicts[]")
    if not w.get(doc, "verdicts", list):
        raise (w / "verdicts").fail(
            "expected at least one verdict; the run recorded none, so there is nothing to import"
        )
    for i, v in enumerate(doc["verdicts"]):
        if not isinstance(v, dict):
            raise (w / "verdicts" / i).fail("expected a verdict object")
    version = kind(doc, w)
    seen: dict[str, tuple[int, str]] = {}  # receipt file stem -> (verdict index, skill name)
    for i, v in enumerate(doc["verdicts"]):
        vw = w / "verdicts" / i
        name = common.named(vw.get(v, "skillName", str), vw / "skillName", "the skill's name")
        _one_verdict_per_skill(seen, common.safe_filename(tool, name), i, name, vw)
        own, decision, notes = readers[1](v, vw)
        figures: list[dict[str, Any]] = []
        cases = _cases(v, vw, readers[0], figures)
        figures = declared.bounded_figures(figures + own, vw)
        missing = [*_FIXED_UNRECORDED, f"draw tokens ({tokens})", "judge_samples_per_generation"]
        model = common.stated(doc.get("model"), w / "model")  # as recorded
        judge_model = common.stated(doc.get("judgeModel"), w / "judgeModel")
        if judge_model is None:
            missing.insert(2, "judge.model (no judgeModel)")
        if model is None:
            missing.append("run.model (no model)")
        stamp = doc.get("timestamp")
        if stamp is None:
            missing.append("run.finished_at (no timestamp)")
        elif not isinstance(stamp, str):
            raise (w / "timestamp").fail(
                f"expected an RFC 3339 date-time string, found {stamp!r:.64}"
            )
        finished, offset = common.utc_instant(stamp, w / "timestamp")
        body = declared.declared_receipt(
            name,
            None,
            cases,
            declared.provenance(
                tool, version, str(path), common.file_sha256(raw), missing, notes=notes
            ),
            model=model,
            finished_at=finished,
            run_members={"finished_at_offset": offset},
            judge=declared.unrecorded_judge(tool, "judge", model=judge_model),
            arms={arm: declared.arm_spec(role) for arm, role in roles},
            band_source="generation",
            source_report={"figures": figures, "decision": decision},
        )
        out.append(Imported.named(tool, body, repairs=repairs))
    return out


def _one_verdict_per_skill(
    seen: dict[str, tuple[int, str]], stem: str, i: int, name: str, vw: Where
) -> None:
    """Refuse verdict ``i`` when an earlier one gives the same skill (or its receipt file name)."""
    if stem in seen:
        j, other = seen[stem]
        why = (
            f"/verdicts/{j} already gives skill {json.dumps(other)[:200]}"
            if other == name
            else f"/verdicts/{j}'s skill {json.dumps(other)[:200]} has the same receipt file name"
        )
        raise (vw / "skillName").fail(f"expected one verdict per skill; {why}")
    seen[stem] = (i, name)


def _cases(
    v: dict[str, Any], vw: Where, read_scenario: Scenario, figures: list[dict[str, Any]]
) -> list[Case]:
    """A verdict's scenarios, each a case (a name once); ``figures`` gathers what they print."""
    read = []
    for k, s in enumerate(vw.get(v, "scenarios", list)):
        sw = vw / "scenarios" / k
        sname = sw.get(s, "scenarioName", str)
        common.named(sname, sw / "scenarioName", "the scenario's name", None)
        cid = common.case_id_for(sname)
        read.append((sname, cid, read_scenario(s, sw, cid, figures), sw))
    cases: dict[str, Case] = {}
    first: dict[str, Where] = {}
    for sname, cid, arms, sw in read:
        if cid in cases:
            raise (sw / "scenarioName").fail(
                f"expected each scenario name once per verdict; {sname!r} is also at "
                f"{first[cid].pointer}"
            )
        cases[cid], first[cid] = declared.case_entry(cid, None, arms), sw
    return list(cases.values())


SKILL_VALIDATOR = "skill-validator"
_SV_ROLES = (("with_skill", "withSkill"), ("baseline", "baseline"))
#: skill-validator's weights of a scenario's breakdown (``DefaultWeights``, alike in its
#: TypeScript and C# code): its improvement score is their weighted sum.
_SV_WEIGHTS = {
    "tokenReduction": 0.05,
    "toolCallReduction": 0.025,
    "taskCompletionImprovement": 0.15,
    "timeReduction": 0.025,
    "qualityImprovement": 0.40,
    "overallJudgmentImprovement": 0.30,
    "errorReduction": 0.05,
}
#: Why a scenario of several runs (``--runs``, 5 by default) is refused: skill-validator
#: (``ValidateCommand.ExecuteScenario``, ``AverageResults``) writes each arm as the runs' mean,
#: judge scores rounded to 0.1 and the answer and checks of the last run, and per run only
#: ``perRunScores``, one improvement score comparing the arms; no run's own arm score is kept.
_SEVERAL_RUNS = (
    "expected one run of the scenario, found {n}: for several runs the file keeps the judge's "
    "score with and without the skill only as their average over the runs, and for each run "
    "only one number comparing the two, so no run's own score with or without the skill is "
    "in the file to import as a measured answer"
)
_CHECK_KINDS = {
    "output_contains": "must_include",
    "output_not_contains": "must_not_include",
    "output_matches": "regex",
    "output_not_matches": "regex",
}


@register(SKILL_VALIDATOR, NoOptions)
def import_skill_validator(path: Path, options: NoOptions | None = None) -> list[Imported]:
    """Convert a skill-validator ``results.json`` into DECLARED receipts, one per verdict.

    Raises:
        ImportError_: no verdicts, a schema owner or version other than skill-validator's 1 (or
            none), a verdict or scenario of the wrong shape, several runs per scenario, or an
            ``overallScore`` outside 1..5, or an overall score that is neither its scenarios' mean
            nor (rejudge) that of those expecting the skill to be used (0 for none); naming the
            file, the JSON pointer and what was expected.
    """
    return receipts(
        Path(path),
        SKILL_VALIDATOR,
        (_sv_scenario, _sv_verdict),
        _SV_ROLES,
        "the source records an estimate only",
        check_schema,
    )


def _sv_scenario(
    s: dict[str, Any], sw: Where, cid: str, figures: list[dict[str, Any]]
) -> dict[str, Any]:
    """One scenario's arms; its improvement scores, breakdown and pairwise go to ``figures``.

    Raises:
        ImportError_: at ``improvementScore``, when it is not its one run's score or its
            breakdown weighted by :data:`_SV_WEIGHTS`, or (a scenario that failed) not 0.
    """
    error = sw.get(s, "executionError", str, required=False)
    if error is not None:
        return _sv_failed(s, sw, cid, figures, error)
    runs = sw.get(s, "perRunScores", list)
    if len(runs) != 1:
        raise (sw / "perRunScores").fail(
            _SEVERAL_RUNS.format(n=len(runs)) if runs else "expected one run, found none"
        )
    arms = {arm: [_sv_draw(sw.get(s, key, dict), sw / key)] for arm, key in _SV_ROLES}
    lift = partial(declared.figure, case=cid, arm="lift")
    improvement = sw.number(s, "improvementScore")
    run, rw = common.source_number(runs[0], sw / "perRunScores" / 0), sw / "perRunScores" / 0
    bw = sw / "breakdown"
    breakdown = sw.get(s, "breakdown", dict, required=False) or {}
    parts = {part: bw.number(breakdown, part) for part in breakdown}
    weighted = [w * x for k, w in _SV_WEIGHTS.items() if (x := parts.get(k)) is not None]
    for own, what in (
        (run, f"the score of the scenario's one run ({rw.pointer})"),
        (
            math.fsum(weighted) if len(weighted) == len(_SV_WEIGHTS) else None,
            f"its breakdown weighted as skill-validator weighs it ({bw.pointer})",
        ),
    ):
        if own is not None and improvement is not None and abs(own - improvement) > ROUNDING:
            raise (sw / "improvementScore").fail(
                f"expected {own!r}, {what}, found {improvement!r}: the source contradicts itself"
            )
    figures.append(lift("improvement score", improvement))
    figures.append(lift("improvement score, run 1", run))
    figures += [lift(f"breakdown: {part}", x) for part, x in parts.items()]
    pw = sw.get(s, "pairwiseResult", dict, required=False)
    if pw:
        consistent = (sw / "pairwiseResult").get(pw, "positionSwapConsistent", bool, required=False)
        swap = {None: "not recorded", True: "consistent", False: "inconsistent"}[consistent]
        winner = f"{pw.get('overallWinner')} {pw.get('overallMagnitude')}"
        printed = f"{winner}; with positions swapped: {swap}"
        figures.append(lift("pairwise judgment", None, printed=printed))
    return arms


def _sv_failed(
    s: dict[str, Any], sw: Where, cid: str, figures: list[dict[str, Any]], error: str
) -> dict[str, Any]:
    """A scenario skill-validator could not run (its ``executionError``): a lost draw per arm.

    skill-validator keeps it (``CreateFailedScenarioComparison``) with improvement score 0, a
    zero breakdown, no run scores and judge scores of 0 that grade nothing; its 0 counts in the
    overall mean and is kept as printed.
    """
    improvement = sw.number(s, "improvementScore")
    if improvement != 0:
        raise (sw / "improvementScore").fail(
            f"expected 0, what skill-validator writes for a scenario that failed to run "
            f"({(sw / 'executionError').pointer}), found {improvement!r}: the source "
            "contradicts itself"
        )
    figures.append(declared.figure("improvement score", improvement, case=cid, arm="lift"))
    why = f"the source's scenario failed to run, so nothing of it was measured: {error[:300]}"
    return {arm: [build_draw(0, lost_reason=why, lost_kind="source_error")] for arm, _ in _SV_ROLES}


def _sv_verdict(
    v: dict[str, Any], vw: Where
) -> tuple[list[dict[str, Any]], dict[str, Any], list[str]]:
    """A verdict's overall figures and interval, its decision and the notes.

    Raises:
        ImportError_: at a scenario's ``perRunScores``, several runs (first: the interval then
            resamples the runs' scores, ``Comparator.ComputeVerdict``); at ``isSignificant``,
            when it is not what skill-validator's own test
            (``Statistics.IsStatisticallySignificant``: the interval's low end above 0 or its high
            end below 0) gives for the verdict's ``confidenceInterval``; at
            ``confidenceInterval``, an interval reaching past the improvement scores of the
            scenarios it covers (its bootstrap's resampled means lie between their least and
            greatest); an overall score or gain no scenarios' mean (:func:`overall_is_the_mean`).
    """
    scenarios = v.get("scenarios")
    for k, s in enumerate(scenarios if isinstance(scenarios, list) else []):
        runs = s.get("perRunScores") if isinstance(s, dict) else None
        if isinstance(runs, list) and len(runs) > 1:  # before the interval, which resamples runs
            raise (vw / "scenarios" / k / "perRunScores").fail(_SEVERAL_RUNS.format(n=len(runs)))
    ci = vw.get(v, "confidenceInterval", dict, required=False)
    significant = vw.get(v, "isSignificant", bool, required=False)
    overall = vw.number(v, "overallImprovementScore")
    gain = vw.number(v, "normalizedGain")
    covered = overall_is_the_mean(v, vw, overall, gain)
    own = covered.scores if covered else None
    figures = [
        declared.figure("overall improvement score", overall, arm="lift"),
        declared.figure("normalized gain", gain, arm="lift"),
    ]
    notes = [
        "Draw scores are the judge's overall score on its 1 to 5 scale, mapped onto 0 to 1 as "
        "(score - 1) / 4."
    ]
    if covered and covered.note:
        notes.append(covered.note)
    if ci:
        spread = declared.interval(ci, vw / "confidenceInterval", "low", "high", "level")
        figures.append(
            declared.figure("overall improvement score interval", overall, arm="lift", **spread)
        )
        lo, hi, said = spread["lower"], spread["upper"], significant
        if lo is not None and hi is not None:
            if said is not None and said != (lo > 0 or hi < 0):
                raise (vw / "isSignificant").fail(
                    f"expected {json.dumps(not said)}, as skill-validator decides from its "
                    f"interval {lo:g} to {hi:g} (significant when it leaves out 0), found "
                    f"{json.dumps(said)}: the source contradicts itself"
                )
            if own and (lo < min(own) - ROUNDING or hi > max(own) + ROUNDING):
                which = "the scenarios' improvement scores"
                if covered and covered.note:
                    which = f"the improvement scores of the {len(own)} scenarios it covers"
                raise (vw / "confidenceInterval").fail(
                    f"expected an interval within {which}, "
                    f"{min(own)!r} to {max(own)!r} (skill-validator's bootstrap resamples their "
                    f"mean), found {lo!r} to {hi!r}: the source contradicts itself"
                )
        notes.append("The source's interval is computed from one run per arm and scenario.")
    reason = vw.get(v, "reason", str, required=False)
    decision = {
        "printed": (reason or "no reason recorded")[:4000],
        "passed": vw.get(v, "passed", bool, required=False),
        "significant": significant,
    }
    for k, warning in enumerate(vw.get(v, "profileWarnings", list, required=False) or []):
        if not isinstance(warning, str):
            raise (vw / "profileWarnings" / k).fail(
                f"expected a warning text, found {json_kind(warning)}"
            )
        notes.append(f"The source warns: {warning}")
    return figures, decision, notes


def _sv_draw(role: dict[str, Any], w: Where) -> Draw:
    score = vally.role_score(role, w, low=1)
    metrics = w.get(role, "metrics", dict, required=False) or {}
    mw = w / "metrics"
    checks = []
    for k, a in enumerate(mw.get(metrics, "assertionResults", list, required=False) or []):
        aw = mw / "assertionResults" / k
        passed = aw.get(a, "passed", bool)
        spec = aw.get(a, "assertion", dict, required=False) or {}
        atype = str(spec.get("type"))
        value = spec.get("value")
        shown = None if value is None else f"{value}"
        kind = _CHECK_KINDS.get(atype, "assertion")
        checks.append(
            declared.source_check(atype, shown, kind, passed, "pass" if passed else "fail")
        )
    answer = mw.get(metrics, "agentOutput", str, required=False)
    lost, lk = _judge_failed(role["judgeResult"]), "source_error"
    if mw.get(metrics, "timedOut", bool, required=False):
        lost, lk = _TIMED_OUT, "timed_out"
    s = None if lost or score is None else (score - 1) / 4  # timed out or no judgment: unmeasured
    return build_draw(0, answer=answer, score=s, checks=checks, lost_reason=lost, lost_kind=lk)


def _judge_failed(judged: dict[str, Any]) -> str | None:
    """The lost reason of a judgment skill-validator did not make, else ``None``.

    When its judge throws, skill-validator (``ValidateCommand.SafeJudge``) keeps
    ``{rubricScores: [], overallScore: 3, overallReasoning: "Judge failed: <message>"}``: a
    fallback 3, not a grade. The reasoning is quoted (its first 300 characters).
    """
    said = judged.get("overallReasoning")
    if (
        judged.get("rubricScores") == []
        and isinstance(said, str)
        and said.startswith("Judge failed")
    ):
        return (
            f"the source's judge failed and it kept a fallback overall score, not a grade: "
            f"{said[:300]}"
        )
    return None


#: A run skill-validator marks ``timedOut``: its own report says scoring "may be impacted by
#: aborting model execution before it could produce its full output"; the draw is lost.
_TIMED_OUT = (
    "the source marked this run timed out (it hit the scenario's timeout before the agent "
    "finished), so its judged score is not a measurement"
)


VALLY = "vally"


@register(VALLY, NoOptions)
def import_vally(path: Path, options: NoOptions | None = None) -> list[Imported]:
    """Convert a Vally ``results.json`` (schema 4 or 5) into DECLARED receipts, one per verdict.

    Raises:
        ImportError_: another schema version, a ``skillKind`` other than ``skill`` (version 4
            has none: its adapter wrote skills only), no verdicts,
            a skill given by two verdicts, an unknown ``state``, a member of the wrong type, or
            an ``overallScore`` outside 0..5; naming the file, the JSON pointer and what was
            expected.
    """
    return receipts(
        Path(path),
        VALLY,
        (vally.scenario, vally.verdict),
        vally.ROLES,
        "the file keeps usage per role, not per draw",
        vally.check_kind,
    )
