"""summary-json, Driftproof's minimal interchange format, imported (D-15) and exported.

Frozen in ``summary-json-1.schema.json`` and specified on the interop page: a draw's ``score``
is the mean of its ``judge_scores`` (D-1); counts only when stated, ``unrecorded`` (D-13);
the exporter's ``summary`` is context, ignored on import but for ``summary.source``, the
import a receipt was made by (its tool, document hash and notes), which the import keeps as notes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from driftproof._pool import no_cycle_collection
from driftproof.errors import ImportError_, RefusalError
from driftproof.importers import Imported, register
from driftproof.importers import _common as common
from driftproof.importers import _declared as declared
from driftproof.importers._common import Where
from driftproof.importers._summary_source import (
    band_source_of_file,
    check_band_source,
    exported_from,
    provenance_of,
    source_problems,
)
from driftproof.importers._text import Repair
from driftproof.receipt import Case, Draw, Receipt, build_draw, build_judge_sample
from driftproof.stats import band_source_of, suite_lift, verdict_refusal
from driftproof.wording import ARMS

FORMAT = "driftproof-summary-json"
FORMAT_VERSION = "1"


@dataclass(frozen=True)
class SummaryJsonOptions:
    """Options of a summary-json import.

    Attributes:
        skill_md: the SKILL.md measured; its hash and token count (D-14) replace the file's
            ``skill.sha256``/``skill.tokens``.
    """

    skill_md: Path | None = None


@register("summary-json", SummaryJsonOptions)
def import_summary_json(path: Path, options: SummaryJsonOptions | None = None) -> list[Imported]:
    """Convert one summary-json file into a DECLARED receipt.

    With skill or baseline drawn in no case while the other is drawn (a single-arm file, as
    exported from a single-arm receipt) is an arm not recorded (``recorded: false``).

    Raises:
        ImportError_: not JSON, fails the schema (one problem per place, at most 20), a score
            without a judge, or a score that is not the mean of its judge scores.
    """
    path = Path(path)
    repairs: list[Repair] = []
    doc, raw = common.read_json(path, repairs)
    problems = source_problems(doc, path)
    if problems:
        raise ImportError_(f"{path}: not valid summary-json {FORMAT_VERSION}", problems)
    w = Where(path)
    _names(doc, w)
    scored = any(
        d.get("score") is not None or d.get("judge_scores")
        for c in doc["cases"]
        for draws in c["arms"].values()
        for d in draws
    )
    with no_cycle_collection():  # its models make no cycle; a collection would walk the file
        case_docs = _cases(doc, w, scored)
    drawn = {a for c in doc["cases"] for a, draws in c["arms"].items() if draws}
    gens = doc.get("generations_per_arm")
    declared.held_as_declared(case_docs, sorted(drawn), gens, w / "generations_per_arm", "draws")
    any_score = any(
        d.score is not None for c in case_docs for _, a in c.arms.named() for d in a.draws
    )
    controls = {"control" in c["arms"] for c in doc["cases"]}
    if len(controls) != 1:
        raise (w / "cases").fail("expected a control arm in every case or in none")
    judge = doc.get("judge")
    if any_score and judge is None:
        raise (w / "judge").fail("expected the grader (judge.model) because draws carry scores")
    if judge is not None:
        step = (judge.get("scale") or {}).get("step")
        common.source_number(step, w / "judge" / "scale" / "step")  # more digits than a float holds
        judge = declared.unrecorded_judge("summary-json", "judge", model=judge["model"], step=step)
    origin = exported_from(doc, w)
    harness: dict[str, Any] | None = {
        "name": doc["harness"]["name"],
        "version": doc["harness"].get("version"),
    }
    if origin is not None and origin.get("harness_recorded") is False:
        harness = None  # the exporter named the source tool only because the schema needs one
    unrecorded, unheld = _unrecorded(doc, drawn, harness is not None)
    skill_text = common.read_skill_md((options or SummaryJsonOptions()).skill_md)
    arms = ARMS[: 3 if controls == {True} else 2]
    stamp = doc.get("started_at")  # its digits kept: an exported receipt's own string comes back
    started, offset = common.utc_instant(stamp, w / "started_at")
    body = declared.declared_receipt(
        doc["skill"]["name"],
        skill_text,
        case_docs,
        provenance_of(doc, origin, str(path), common.file_sha256(raw), unrecorded),
        skill_sha256=doc["skill"].get("sha256"),
        skill_token_count=doc["skill"].get("tokens"),
        model=doc.get("model"),
        harness=harness,
        started_at=started,
        run_members={"started_at_offset": offset},
        generations_per_arm=doc.get("generations_per_arm"),
        judge_samples_per_generation=doc.get("judge_samples_per_generation"),
        judge=judge,
        arms={a: declared.arm_spec(a, recorded=a not in unheld) for a in arms},
        band_source=band_source_of_file(origin) if any_score else None,
    )
    check_band_source(body, origin, w)
    return [Imported.named("summary", body, repairs=repairs)]


def _names(doc: dict[str, Any], w: Where) -> None:
    """Refuse a blank skill, harness or grader name; make a blank model or harness version null.

    Raises:
        ImportError_: at the blank name (``""``, ``"   "``): it names nothing.
    """
    for key, what in (("skill", "the skill's name"), ("harness", "the harness's name")):
        common.named(doc[key]["name"], w / key / "name", what)
    if doc.get("judge") is not None:
        common.named(doc["judge"]["model"], w / "judge" / "model", "the grader's model")
    for obj, key in ((doc, "model"), (doc["harness"], "version")):
        if isinstance(obj.get(key), str) and not common.is_name(obj[key]):
            obj[key] = None  # unknown (D-13), listed as unrecorded


#: Each run member the file may lack, and the words an ``unrecorded`` entry already naming it
#: starts with (an exported receipt's list says "draws per arm (eval.config.epochs ...)").
_NAMED_AS = {
    "model": ("run.model", "model"),
    "generations_per_arm": ("run.generations_per_arm", "generations_per_arm", "draws per arm"),
    "judge_samples_per_generation": (
        "run.judge_samples_per_generation",
        "judge_samples_per_generation",
        "judge samples per draw",
    ),
}


def _unrecorded(
    doc: dict[str, Any], drawn: set[str], harness_named: bool = True
) -> tuple[list[str], list[str]]:
    """What the file leaves unrecorded (its own list first), and the compared arm it never draws.

    Nothing is named twice; an arm is unheld only when the other is drawn.
    """
    unrecorded = list(doc.get("unrecorded") or [])
    for key, heads in _NAMED_AS.items():
        named = any(u == h or u.startswith(f"{h} (") for u in unrecorded for h in heads)
        if doc.get(key) is None and not named:
            unrecorded.append(f"run.{key}")
    if harness_named and doc["harness"].get("version") is None:
        unrecorded.append("run.harness.version")
    two = ("with_skill", "baseline")
    unheld = [a for a in two if a not in drawn] if drawn & set(two) else []
    for arm in unheld:
        if not any(str(u).startswith(f"the {arm} arm") for u in unrecorded):
            unrecorded.append(
                f"the {arm} arm (no case holds a draw of it: no lift, no interval, no value per "
                "token)"
            )
    return unrecorded, unheld


def _cases(doc: dict[str, Any], w: Where, scored: bool) -> list[Case]:
    """The file's cases; a repeated case id, or a score not its judge scores' mean, fails.

    ``scored``: some draw of the file carries a score, so a draw with none is lost (:func:`_draw`).
    """
    out = []
    seen: set[str] = set()
    for i, c in enumerate(doc["cases"]):
        cw = w / "cases" / i
        if c["id"] in seen:
            raise (cw / "id").fail(f"expected unique case ids; {c['id']!r} repeats")
        seen.add(c["id"])
        arms = {
            arm: [_draw(d, j, cw / "arms" / arm / j, scored) for j, d in enumerate(draws)]
            for arm, draws in c["arms"].items()
        }
        k = doc.get("judge_samples_per_generation")
        for arm, draws in c["arms"].items():
            for j, d in enumerate(draws):
                if k is not None and d.get("judge_scores") and len(d["judge_scores"]) != k:
                    raise (cw / "arms" / arm / j / "judge_scores").fail(
                        f"expected {k} judge scores, the judge samples per draw given at "
                        f"/judge_samples_per_generation; found {len(d['judge_scores'])}"
                    )
        out.append(declared.case_entry(c["id"], c.get("prompt"), arms))
    return out


def _draw(d: dict[str, Any], index: int, w: Where, scored: bool) -> Draw:
    """One summary-json draw: lost on an error, its score the mean of its judge scores.

    In a file whose draws carry scores (``scored``), a draw that gives no score, judge score,
    error or lost reason is lost, its reason saying so; in a file with none it is unscored.

    Raises:
        ImportError_: at the draw, a score or judge scores beside ``lost`` or ``error``; at its
            score, a score beside judge scores none of which is valid, or not their mean.
    """
    draw = partial(build_draw, index, skill_fired=d.get("skill_fired"))
    ended = next((k for k in ("error", "lost") if d.get(k) is not None), None)
    if ended and (d.get("score") is not None or d.get("judge_scores")):
        raise w.fail(
            f"expected {ended!r} or a score (score, judge_scores), not both: a draw with "
            f"{ended!r} is unscored, so its score would be dropped"
        )
    if d.get("error") is not None:
        return draw(lost_reason=f"source error: {d['error']}"[:4000], source_error=d["error"])
    if d.get("lost") is not None:
        return draw(lost_reason=d["lost"])
    samples = [
        build_judge_sample(
            s, invalid_reason=None if s is not None else "the harness recorded no valid score"
        )
        for s in d.get("judge_scores") or []
    ]
    score, valid = d.get("score"), [s.score for s in samples if s.score is not None]
    if scored and score is None and not samples:
        return draw(lost_reason=f"the file records no score for this draw: {_found(d)}")
    if samples and not valid and score is None:
        return draw(judge_samples=samples, lost_reason="every judge sample was invalid")
    if score is not None and samples and not valid:
        raise (w / "score").fail("expected null: every one of judge_scores is null (invalid)")
    mean = sum(valid) / len(valid) if valid else None
    common.same_derived(score, mean, w / "score", "the mean of judge_scores", "draw")
    return draw(score=score, judge_samples=samples)


def _found(d: dict[str, Any]) -> str:
    """What a draw with no score, judge score, error or lost reason holds, in words."""
    if not d:
        return "the draw is empty"
    if d.get("skill_fired") is not None:
        return "it gives only whether the skill fired"
    return "its score, judge scores, error and lost reason are null or empty"


def export_summary_json(r: Receipt) -> dict[str, Any]:
    """A receipt as summary-json (format version 1), with its context ``summary``.

    The ``summary`` keeps the signed suite lift and why there is no verdict when there is none;
    answers are not exported.

    Raises:
        RefusalError: what summary-json cannot carry, so an import of the export would read
            differently: an aggregates-only receipt (D-15), with no per-draw scores; a simulated
            or stub one, whose scores are not measured; one of one answer per arm (band source
            legacy, recorded or read so) holding judge samples, whose band is across that
            answer's judge samples and imported again would read as one across draws; one with
            one answer per arm and no score, with nothing to export. One answer per arm, each
            with one score as its source gave it and no judge sample, is exported: its band, one
            score with no spread, reads the same imported again. The message does not name the
            file.
    """
    _refuse_what_cannot_go(r)
    cases = []
    for c in r.cases:
        arms = {arm: [_export_draw(d) for d in a.draws] for arm, a in c.arms.named()}
        cases.append({"id": c.id, "prompt": c.prompt, "arms": arms})
    lift = suite_lift(r)
    judge: dict[str, Any] | None = None
    if r.judge is not None:
        judge = {"model": r.judge.model}
        if r.judge.scale.worst == 0 and r.judge.scale.best == 1:
            judge["scale"] = {"worst": 0, "best": 1, "step": r.judge.scale.step}
    unrecorded = _not_carried(r) + (list(r.provenance.unrecorded) if r.provenance else [])
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "harness": _harness(r),
        "skill": {"name": r.skill.name, "sha256": r.skill.sha256, "tokens": r.skill.tokens},
        "model": r.run.model,
        "judge": judge,
        "generations_per_arm": r.run.generations_per_arm,
        "judge_samples_per_generation": r.run.judge_samples_per_generation,
        "started_at": r.run.started_at,
        "unrecorded": unrecorded[:100],
        "cases": cases,
        "summary": {
            "receipt_seal_sha256": r.seal.sha256,
            "schema_version": r.schema_version,
            "verification_level": r.verification_level,
            "lift": lift,
            "lift_signed": f"{lift:+.3f}" if lift is not None else None,
            "lift_is_context": True,
            "no_verdict_because": verdict_refusal(r),
            "source": _source(r),
        },
    }


def _refuse_what_cannot_go(r: Receipt) -> None:
    """Raise :class:`RefusalError` for what :func:`export_summary_json` refuses (its Raises)."""
    for member, said in _harness(r).items():  # the format's limit; never cut in silence
        if len(said or "") > 100:
            raise RefusalError(
                f"summary-json holds a harness {member} of at most 100 characters; this "
                f"receipt's is {len(said):,}, so it is not exported"
            )
    if r.is_simulated or r.is_stub:
        source = (
            "the simulated model (driftproof demo or run --provider simulated), not from a "
            "measurement"
            if r.is_simulated
            else "the stub provider's fixed answers or grades, not from a model"
        )
        raise RefusalError(
            f"this receipt's scores come from {source}, and summary-json has no place to say so; "
            "it is not exported. Export is for measured receipts: export the receipt of a run "
            "against a model's provider, or of an import."
        )
    if r.is_aggregates_only:
        raise RefusalError(
            "summary-json holds per-draw scores; this receipt holds only the figures its source "
            "printed, with no score per draw, so there is nothing to export"
        )
    if r.regrade is not None and r.run.harness is None and r.run.provider is None:
        raise RefusalError(
            "this receipt is a regrade of an import that named no harness: the tool that drew "
            "its answers is recorded nowhere in it, and summary-json needs one; it is not "
            "exported. Export the imported receipt the regrade was made from."
        )
    if r.run.aa:
        raise RefusalError(
            "this receipt is an A/A calibration (its baseline arm is a second run of the "
            "with-skill arm); summary-json has no place to say so, and imported again it would "
            "read as a measurement of the skill, so it is not exported"
        )
    if band_source_of(r) == "legacy" and (why := _one_answer_per_arm(r)) is not None:
        raise RefusalError(why)


def _one_answer_per_arm(r: Receipt) -> str | None:
    """Why a receipt with one answer per arm (recorded so, or read so) is not exported.

    Returns:
        ``None`` where each answer holds one score as its source gave it and no judge sample:
        summary-json holds that score as the answer's one draw, whose band is that score with no
        spread, as the receipt's is.
    """
    draws = [d for c in r.cases for _, a in c.arms.named() for d in a.draws]
    if not any(d.score is not None or d.judge_samples for d in draws):
        checks = (
            " (their checks have no place in summary-json)" if any(d.checks for d in draws) else ""
        )
        return (
            "summary-json holds per-draw scores; this receipt holds one answer per arm and no "
            f"score for any of them{checks}, so there is nothing to export"
        )
    if not any(d.judge_samples for d in draws):
        return None
    return (
        "this receipt holds one answer per arm, and any band it has is across that answer's "
        "judge samples; summary-json has no place to say so (imported again, the band would be "
        "read as one across draws, of which there is one), so it is not exported"
    )


def _not_carried(r: Receipt) -> list[str]:
    """What ``r`` holds that summary-json has no place for, worded for ``unrecorded``."""
    draws = [d for c in r.cases for _, a in c.arms.named() for d in a.draws]
    specs = {n: getattr(r.arms, n) for n in ARMS}
    overhead = r.economics.judge_overhead
    parts = {
        "the draws' checks": any(d.checks for d in draws),
        "the draws' token counts": any(d.tokens is not None for d in draws),
        "the control arm's instruction": r.arms.control is not None
        and r.arms.control.instruction is not None,
        "the arms' labels": any(
            a is not None and a.label not in (None, n) for n, a in specs.items()
        ),
        "the run's provider and surface": r.run.provider is not None or r.run.surface is not None,
        "the grader's token counts": overhead is not None and overhead.judged_draws_counted > 0,
        "the source's own figures": r.source_report is not None,
        "the regrade it is (the original receipt's seal and grader, and the rubrics it graded "
        "by)": r.regrade is not None,
    }
    return [f"{what} (summary-json has no place for them)" for what, held in parts.items() if held]


def _source(r: Receipt) -> dict[str, Any] | None:
    """The import ``r`` was made by, for ``summary.source``; None for a receipt of a run."""
    p = r.provenance
    if p is None or r.regrade is not None:
        return None
    return {
        "tool": p.tool[:100],
        "tool_version": p.tool_version,
        "document_sha256": p.document_sha256,
        "harness_recorded": r.run.harness is not None,
        "band_source": r.band_source,
        "notes": list(p.notes or []),
    }


def _harness(r: Receipt) -> dict[str, Any]:
    """The harness that produced the answers: run.harness, else the source's tool, else ours.

    A regrade's provenance names the regrade, which drew no answer: its answers are the
    original's, so the runner that wrote the original is named.
    """
    if r.run.harness is not None:
        return {"name": r.run.harness.name, "version": r.run.harness.version}
    if r.regrade is not None and r.run.provider is not None:  # a regrade of a run of ours
        runner = r.regrade.original_runner
        return {"name": runner.name, "version": runner.version}
    if r.provenance is not None:
        return {"name": r.provenance.tool, "version": r.provenance.tool_version}
    return {"name": r.run.runner.name, "version": r.run.runner.version}


def _export_draw(d: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if d.source_error is not None:
        out["error"] = d.source_error
    elif d.lost is not None:
        out["lost"] = d.lost.reason
    else:
        out["score"] = d.score
        if d.judge_samples:
            out["judge_scores"] = [s.score for s in d.judge_samples]
    if d.skill_fired is not None:
        out["skill_fired"] = d.skill_fired
    return out
