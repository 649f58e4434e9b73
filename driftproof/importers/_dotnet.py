"""Pieces shared by the two dotnet/skills importers (:mod:`~driftproof.importers.skill_validator`
and :mod:`~driftproof.importers.vally`): reading their ``results.json`` and building one
DECLARED receipt per verdict (D-15), the source's decision kept as its figure, never a verdict.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from driftproof.importers._common import (
    Where,
    arm_spec,
    case_entry,
    case_id_for,
    file_sha256,
    provenance_doc,
    read_json,
    unrecorded_judge,
)
from driftproof.importers._declared import declared_receipt
from driftproof.importers._fields import utc_instant

__all__ = ["read_results", "receipt_for"]


def read_results(path: Path) -> tuple[dict[str, Any], str, list[tuple[dict[str, Any], Where]]]:
    """(document, sha256, [(verdict, where)]) of a ``results.json``.

    Raises:
        ImportError_: not a JSON object, ``verdicts`` not an array of objects, or empty (the run
            recorded no skill: nothing to import), naming the file and pointer.
    """
    doc, raw = read_json(path)
    w = Where(path)
    if not isinstance(doc, dict):
        raise w.fail("expected a results object with verdicts[]")
    verdicts = w.get(doc, "verdicts", list)
    if not verdicts:
        raise (w / "verdicts").fail(
            "expected at least one verdict; the run recorded none, so there is nothing to import"
        )
    located = []
    for i, v in enumerate(verdicts):
        if not isinstance(v, dict):
            raise (w / "verdicts" / i).fail("expected a verdict object")
        located.append((v, w / "verdicts" / i))
    return doc, file_sha256(raw), located


def receipt_for(
    tool: str,
    path: Path,
    doc: dict[str, Any],
    sha: str,
    skill_name: str,
    cases: list[tuple[str, dict[str, Any]]],
    report: dict[str, Any],
    unrecorded: list[str],
    notes: list[str],
    *,
    labels: tuple[str, str],
    version: str | None,
) -> dict[str, Any]:
    """The DECLARED receipt of one verdict: ``cases`` as (scenario name, arms), judged by
    ``judgeModel`` (unrecorded when absent), answered by ``model``."""
    w = Where(path)
    case_docs = []
    seen: set[str] = set()
    for name, arms in cases:
        cid = case_id_for(name)
        if cid in seen:  # a scenario named twice would merge two cases
            raise w.fail(f"expected each scenario name once per verdict; {name!r} is repeated")
        seen.add(cid)
        case_docs.append(case_entry(cid, None, arms))
    judge = unrecorded_judge(tool, "judge")
    judge_model = doc.get("judgeModel")
    if isinstance(judge_model, str) and judge_model.strip():
        judge["model"] = judge_model[:200]
    else:
        unrecorded.insert(0, "judge.model (no judgeModel)")
    model = doc.get("model") if isinstance(doc.get("model"), str) else None
    if model is None:
        unrecorded.append("run.model (no model)")
    started, offset = (None, None)
    if isinstance(doc.get("timestamp"), str):
        started, offset = utc_instant(doc["timestamp"], w / "timestamp")
    out = declared_receipt(
        skill_name[:200],
        None,
        case_docs,
        provenance_doc(
            tool,
            version,
            str(path),
            sha,
            [
                "skill.sha256 and skill.tokens (the file names the skill, not its text)",
                "each case's prompt (the file keeps the scenario's name only)",
                *unrecorded,
            ],
        ),
        model=model,
        finished_at=started,
        judge=judge,
        arms={"with_skill": arm_spec(labels[0]), "baseline": arm_spec(labels[1])},
        band_source="generation",
        source_report=report,
    )
    if offset is not None:
        out["run"]["finished_at_offset"] = offset
    if notes:
        out["provenance"]["notes"] = [n[:1000] for n in notes][:50]
    return out
