"""Receipts of a caveman judged fidelity snapshot: each fact a check (D-13, D-15)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from driftproof.importers import Imported
from driftproof.importers._caveman_judged import (
    VERBATIM,
    Judged,
    JudgedCell,
    match_rubrics,
    read_rubrics,
)
from driftproof.importers._caveman_snapshot import (
    BASELINE_ARM,
    CONTROL_ARM,
    TOOL,
    prompt_ids,
    skill_text,
)
from driftproof.importers._declared import (
    arm_spec,
    case_entry,
    declared_receipt,
    figure,
    unrecorded_judge,
)
from driftproof.importers._text import Repair
from driftproof.receipt import Draw, JudgeScale, Provenance, build_draw
from driftproof.stats.fidelity import JUDGED_FACT

#: What a judged fidelity snapshot does not record (D-13), each left unknown.
JUDGED_UNRECORDED = (
    "answers: the snapshot holds the grader's judgment of each fact, not the answers judged",
    "model, provider and harness that wrote the judged answers",
    "started_at: when the judged answers were written (the snapshot records when it was judged)",
    "output tokens and usage of the judged answers",
    "the grader's provider, prompt and sampling settings",
    "capture mode and the tools the agent could use",
)


def _judged_draw(cell: JudgedCell) -> Draw:
    """One draw, answer unknown, each judged fact a check, then ``verbatim_ok`` when recorded."""
    checks: list[dict[str, Any]] = [
        {"name": fact, "kind": "assertion", "pass": passed, "source_type": JUDGED_FACT}
        for fact, passed in cell.facts
    ]
    if cell.verbatim_ok is not None:
        checks.append(
            {
                "name": VERBATIM,
                "kind": "must_include",
                "pass": cell.verbatim_ok,
                "source_type": VERBATIM,
            }
        )
    return build_draw(0, answer=None, checks=checks)


def _judged_figures(arm: str, ids: list[str], cells: list[JudgedCell]) -> list[dict[str, Any]]:
    """One arm's per-prompt fidelity (percent), risk (printed) and missing verbatim token count."""
    out: list[dict[str, Any]] = []
    for case, cell in zip(ids, cells, strict=True):
        out.append(
            figure(
                "fidelity", cell.fidelity, case=case, arm=arm, unit="percent", printed=cell.printed
            )
        )
        out.append(figure("risk", None, case=case, arm=arm, printed=cell.risk))
        if cell.verbatim_missing:
            missing = ", ".join(cell.verbatim_missing)[:200]
            count = len(cell.verbatim_missing)
            out.append(
                figure("verbatim missing", count, case=case, arm=arm, unit="count", printed=missing)
            )
    return out


def _provenance(
    judged: Judged, with_rubrics: bool, shown: str, document_sha256: str, commit: str | None
) -> Provenance:
    """What the judged snapshot's receipts were converted from, and what it lacks."""
    unrecorded = list(JUDGED_UNRECORDED)
    for name, label in (("baseline", BASELINE_ARM), ("control", CONTROL_ARM)):
        if label not in judged.arms:
            unrecorded.append(f"{name} arm ({label}): not in the snapshot")
    if not with_rubrics:
        unrecorded.append("suite: the rubrics the facts were judged against (not given)")
    if commit is None:
        unrecorded.append("caveman-evals version (the snapshot names no commit or release)")
    meta = judged.meta
    notes = [f"the source names its grader as: {meta['judge_model']}"[:4000]]
    if "note" in meta:
        notes.append(f"the source's note: {meta['note']}"[:4000])
    return Provenance(
        tool=TOOL,
        tool_version=f"git {commit}" if commit else None,
        document=shown,
        document_sha256=document_sha256,
        unrecorded=unrecorded,
        notes=notes,
        details={k: meta[k] for k in ("generated_at", "judge_model", "runs", "source_snapshot")},
    )


def judged_receipts(
    judged: Judged,
    shown: str,
    document_sha256: str,
    skills_dir: Path,
    source_commit: str | None,
    rubrics_path: str | Path | None,
    repairs: list[Repair],
) -> list[Imported]:
    """One DECLARED receipt per skill arm of a judged fidelity snapshot (D-15).

    Each prompt a case (``p01``…); an arm the snapshot lacks is unrecorded (D-13); the grader is
    the source's (``judge.channel: source``); no score, band or verdict.
    """
    rubrics = read_rubrics(rubrics_path, repairs) if rubrics_path is not None else None
    if rubrics is not None:
        match_rubrics(judged, rubrics, shown)
    ids = prompt_ids(len(judged.prompts))
    controls = {"baseline": BASELINE_ARM, "control": CONTROL_ARM}
    source = _provenance(judged, rubrics is not None, shown, document_sha256, source_commit)
    scale = JudgeScale(worst=0.0, best=1.0, step=1.0)
    judge = unrecorded_judge(TOOL, "judge", model=judged.grader, channel="source")
    judge = judge.model_copy(update={"scale": scale})
    prefix = f"caveman-{source_commit[:7]}-" if source_commit else "caveman-"
    out: list[Imported] = []
    for arm in (a for a in judged.arms if a not in controls.values()):
        held = {"with_skill": arm, **{n: a for n, a in controls.items() if a in judged.arms}}
        cases = [
            case_entry(
                ids[i],
                prompt,
                {
                    n: [_judged_draw(judged.arms[held[n]][i])] if n in held else []
                    for n in ("with_skill", "baseline", "control")
                },
            )
            for i, prompt in enumerate(judged.prompts)
        ]
        figures = [f for n, a in held.items() for f in _judged_figures(n, ids, judged.arms[a])]
        document = declared_receipt(
            arm,
            skill_text(skills_dir, arm, shown),
            cases,
            source,
            generations_per_arm=1,
            judge=judge,
            arms={
                n: arm_spec(held[n]) if n in held else arm_spec(None, recorded=False)
                for n in ("with_skill", "baseline", "control")
            },
            suite_name=Path(rubrics.path).name[:200] if rubrics is not None else None,
            suite_sha256=rubrics.sha256 if rubrics is not None else None,
            source_report={"figures": figures},
        )
        out.append(Imported(f"{prefix}judged-fidelity-{arm}.json", document, tuple(repairs)))
    return out
