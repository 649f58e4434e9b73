"""The dotnet/skills ``results.json`` (skill-validator, Vally): one DECLARED receipt per verdict.

The source's decision is kept as its figure, never a verdict (D-15).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from driftproof.importers import Imported
from driftproof.importers import _common as common
from driftproof.importers import _declared as declared
from driftproof.importers._common import Where
from driftproof.importers._text import Repair
from driftproof.importers._time import utc_instant
from driftproof.receipt import Case

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
    labels: tuple[str, str],
    version: str | None,
    tokens: str,
    expect: tuple[tuple[str, Any, str], ...] = (),
) -> list[Imported]:
    """One DECLARED receipt per verdict; ``expect`` (member, value, why) refuses other kinds first.

    ``labels`` name the with-skill and baseline arms, ``tokens`` why draw tokens are unrecorded;
    ``judgeModel`` judged, ``model`` answered, and each scenario is a case.

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
    for key, want, why in expect:
        if doc.get(key) != want:
            raise (w / key).fail(f"expected {key} {want!r} ({why}), found {doc.get(key)!r}")
    for i, v in enumerate(doc["verdicts"]):
        vw = w / "verdicts" / i
        name = vw.get(v, "skillName", str)
        own, decision, notes = readers[1](v, vw)
        figures: list[dict[str, Any]] = []
        cases = _cases(v, vw, readers[0], figures)
        missing = [*_FIXED_UNRECORDED, f"draw tokens ({tokens})", "judge_samples_per_generation"]
        judge_model = doc.get("judgeModel")
        if not (isinstance(judge_model, str) and judge_model.strip()):
            judge_model = None
            missing.insert(2, "judge.model (no judgeModel)")
        model = doc.get("model") if isinstance(doc.get("model"), str) else None
        if model is None:
            missing.append("run.model (no model)")
        stamp = doc.get("timestamp")
        if stamp is None:
            missing.append("run.finished_at (no timestamp)")
        elif not isinstance(stamp, str):
            raise (w / "timestamp").fail(
                f"expected an RFC 3339 date-time string, found {stamp!r:.64}"
            )
        finished, offset = (None, None) if stamp is None else utc_instant(stamp, w / "timestamp")
        body = declared.declared_receipt(
            name[:200],
            None,
            cases,
            declared.provenance(
                tool, version, str(path), common.file_sha256(raw), missing, notes=notes
            ),
            model=model,
            finished_at=finished,
            run_members={"finished_at_offset": offset},
            judge=declared.unrecorded_judge(tool, "judge", model=judge_model),
            arms={
                "with_skill": declared.arm_spec(labels[0]),
                "baseline": declared.arm_spec(labels[1]),
            },
            band_source="generation",
            source_report={"figures": figures + own, "decision": decision},
        )
        out.append(Imported.named(tool, body, repairs=repairs))
    return out


def _cases(
    v: dict[str, Any], vw: Where, read_scenario: Scenario, figures: list[dict[str, Any]]
) -> list[Case]:
    """A verdict's scenarios, each a case; ``figures`` gathers what the scenarios print.

    Raises:
        ImportError_: a scenario of the wrong shape, or a scenario name given twice (it would
            merge two cases), named against the file.
    """
    read = []
    for k, s in enumerate(vw.get(v, "scenarios", list)):
        sw = vw / "scenarios" / k
        sname = sw.get(s, "scenarioName", str)
        read.append((sname, read_scenario(s, sw, common.case_id_for(sname), figures)))
    cases: dict[str, Case] = {}
    for sname, arms in read:
        cid = common.case_id_for(sname)
        if cid in cases:
            raise Where(vw.file).fail(
                f"expected each scenario name once per verdict; {sname!r} is repeated"
            )
        cases[cid] = declared.case_entry(cid, None, arms)
    return list(cases.values())


def judge_score(role: dict[str, Any], w: Where, low: int) -> float:
    """A role's ``judgeResult.overallScore`` on the judge's ``low``..5 scale.

    Raises:
        ImportError_: no judge result, or a score that is not a number from ``low`` to 5;
            naming the place.
    """
    judged = w.get(role, "judgeResult", dict)
    score = (w / "judgeResult").get(judged, "overallScore", float)
    if not low <= score <= 5:
        raise (w / "judgeResult" / "overallScore").fail(
            f"expected the judge's overall score from {low} to 5, found {score!r}"
        )
    return float(score)
