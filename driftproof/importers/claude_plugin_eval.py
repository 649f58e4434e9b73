"""``claude plugin eval`` v1 ``aggregate-result.json`` documents → DECLARED receipts (D-15).

Errored runs are listed, never scored; the skill-fired indicator stays beside the score;
declared costs (USD) are kept apart. The mapping is the interop page's ("claude plugin eval").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from driftproof.importers import Imported, register
from driftproof.importers._claude_plugin_draws import Tally, arm_draws, cost_figures, graders_sha256
from driftproof.importers._common import (
    Where,
    case_id_for,
    file_sha256,
    read_json,
    read_skill_md,
    sole,
    unit_score,
)
from driftproof.importers._declared import (
    arm_spec,
    case_entry,
    declared_receipt,
    provenance,
    unrecorded_judge,
)
from driftproof.importers._schema import validate_source
from driftproof.importers._text import Repair
from driftproof.importers._time import utc_instant
from driftproof.receipt import Case, SkillFired

TOOL = "claude-plugin-eval"
#: The file name ``claude plugin eval`` writes in its timestamped results directory.
DOCUMENT_NAME = "aggregate-result.json"
_ABLATIONS = ("with-without", "none")
_MAX_DOCUMENTS = 1000
_UNRECORDED = (
    "judge_samples_per_generation",
    "run.provider",
    "draw answers (the source keeps each run's trace as a file outside the document)",
    "draw tokens (the source records costs in USD, not tokens)",
    "economics.judge_overhead (the source declares the judge's cost in USD only; kept in "
    "provenance.details.declared_cost_usd)",
)


@dataclass(frozen=True)
class ClaudePluginEvalOptions:
    """Options of a ``claude plugin eval`` import.

    Attributes:
        skill_name: the skill's name; default: the suite's one plugin name.
        skill_md: the SKILL.md measured, hashed and counted (D-14); unknown when omitted.
    """

    skill_name: str | None = None
    skill_md: Path | None = None


@register(TOOL, ClaudePluginEvalOptions)
def import_claude_plugin_eval(
    path: Path, options: ClaudePluginEvalOptions | None = None
) -> list[Imported]:
    """Convert ``claude plugin eval`` result documents into DECLARED receipts, one each.

    ``path`` is an ``aggregate-result.json``, a results directory holding one, or a directory
    of such directories (one receipt each, in name order).

    Raises:
        ImportError_: a malformed document, an unknown ``schemaVersion`` or ablation, a score
            outside 0..1, a baseline present without ablation or missing under it, or no skill
            name; each naming the source file, the JSON pointer and what was expected.
    """
    o = options or ClaudePluginEvalOptions()
    skill_text = read_skill_md(o.skill_md)
    return [_import_document(p, o.skill_name, skill_text) for p in _documents(Path(path))]


def _documents(path: Path) -> list[Path]:
    """The result documents ``path`` names, in name order."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise Where(path).fail(f"expected {DOCUMENT_NAME} or the results directory holding it")
    if (path / DOCUMENT_NAME).is_file():
        return [path / DOCUMENT_NAME]
    found = sorted(p / DOCUMENT_NAME for p in path.iterdir() if (p / DOCUMENT_NAME).is_file())
    if not found:
        raise Where(path).fail(
            f"expected {DOCUMENT_NAME} in this directory or in its results "
            "directories (evals/results/<timestamp>/); found none"
        )
    if len(found) > _MAX_DOCUMENTS:
        raise Where(path).fail(
            f"expected at most {_MAX_DOCUMENTS} result documents, found {len(found)}"
        )
    return found


@dataclass
class _Document:
    """One result document as read: its data, bytes, place and reading."""

    doc: dict[str, Any]
    raw: bytes
    w: Where
    two_arm: bool
    partial: bool
    notes: list[str] = field(default_factory=list)


def _read(path: Path, repairs: list[Repair]) -> _Document:
    """One result document: its schema, schemaVersion 1, a known ablation, a case unless partial."""
    doc, raw = read_json(path, repairs)
    validate_source(doc, TOOL, path)  # the type of every member walked below
    w = Where(path)
    if doc["schemaVersion"] != 1:
        raise (w / "schemaVersion").fail(
            f"expected schemaVersion 1 (the version this importer reads), "
            f"found {doc['schemaVersion']!r}"
        )
    ablation = doc["suite"]["ablation"]
    if ablation not in _ABLATIONS:
        raise (w / "suite" / "ablation").fail(
            f"expected the ablation 'with-without' or 'none', found {ablation!r}"
        )
    partial = doc.get("partial") is True
    if not doc["cases"] and not partial:
        raise (w / "cases").fail(
            "expected at least one case in a document not marked partial, found none"
        )
    read = _Document(doc, raw, w, ablation == "with-without", partial)
    if partial:
        reason = doc.get("partialReason") or "no reason given"
        read.notes.append(
            f"The source marks this document partial ({reason}): the suite did not finish, and the "
            "source says such a document should not be trended."
        )
    return read


def _import_document(path: Path, skill_name: str | None, skill_text: str | None) -> Imported:
    repairs: list[Repair] = []
    d = _read(path, repairs)
    doc, w, suite = d.doc, d.w, d.doc["suite"]
    plugins = [
        {"name": p.get("name"), "version": p.get("version")} for p in suite.get("plugins") or []
    ]
    name = skill_name or (plugins[0]["name"] if len(plugins) == 1 and plugins[0]["name"] else None)
    if not name:
        raise (w / "suite" / "plugins").fail(
            "expected exactly one plugin with a name to name the skill; "
            "pass the skill's name explicitly"
        )
    threshold = suite.get("threshold")
    if threshold is not None:
        threshold = unit_score(threshold, w / "suite" / "threshold")
    tally = Tally()
    ids: dict[str, int] = {}
    cases = [_case(d, i, case, threshold, tally, ids) for i, case in enumerate(doc["cases"])]
    gens, unrecorded = _counted(d, tally)
    model, judge_model = _models(suite, tally.has_llm, unrecorded)
    version = doc.get("claudeVersion")
    if version is None:
        unrecorded.append("run.harness version (claudeVersion absent)")
    if skill_text is None:
        unrecorded.append("skill.sha256 and skill.tokens (SKILL.md not given)")
    started, offset = (None, None)
    if doc.get("startedAt") is not None:
        started, offset = utc_instant(doc["startedAt"], w / "startedAt")
    fired = {
        arm: SkillFired(fired=n, observed=seen) if seen else None
        for arm, (n, seen) in tally.fired.items()
    }
    details = {
        "schema_version": 1,
        "claude_version": version,
        "ablation": suite["ablation"],
        "plugins": plugins,
        "runs_per_case_declared": sorted(tally.declared_runs) or None,
        "declared_cost_usd": cost_figures(doc, tally.costs, d.two_arm),
        "source_aggregates": doc.get("aggregates"),
    }
    body = declared_receipt(
        name,
        skill_text,
        cases,
        provenance(
            TOOL,
            version,
            str(path),
            file_sha256(d.raw),
            unrecorded,
            notes=d.notes,
            details=details,
            partial=d.partial,
        ),
        model=model,
        surface="cli",
        harness={"name": "claude-code", "version": version},
        started_at=started,
        run_members={"started_at_offset": offset},
        generations_per_arm=gens,
        judge=unrecorded_judge(TOOL, "graders", model=judge_model, channel="source"),
        arms={
            "with_skill": arm_spec("with", skill_fired=fired["with_skill"]),
            "baseline": arm_spec(
                "without" if d.two_arm else None,
                recorded=d.two_arm,
                skill_fired=fired["baseline"],
            ),
        },
        band_source="generation",
    )
    return Imported.named(TOOL, body, repairs=repairs)


def _models(
    suite: dict[str, Any], has_llm: bool, unrecorded: list[str]
) -> tuple[str | None, str | None]:
    """The suite's model override and judge model; what it does not name is unrecorded."""
    model = suite.get("modelOverride")
    if not (isinstance(model, str) and model.strip()):
        model = None
        unrecorded.append(
            "run.model (no model override; the session's default model is not recorded)"
        )
    judge_model = suite.get("judgeModel")
    if not (isinstance(judge_model, str) and judge_model.strip() and has_llm):
        judge_model = None
        why = (
            "no judge model is named"
            if has_llm
            else ("the graders are regex and tool checks; no model judged")
        )
        unrecorded.insert(0, f"judge.model ({why})")
    return model, judge_model


def _counted(d: _Document, tally: Tally) -> tuple[int | None, list[str]]:
    """The runs per case arm when all arms agree, and what is unrecorded; notes go to ``d``."""
    if tally.scored_indicator:
        d.notes.append(
            "The source counts its skill-fired grader ("
            + ", ".join(sorted(tally.scored_indicator))
            + ") inside each run's score"
            + (" (single-arm mode, --ablation none)" if not d.two_arm else "")
            + ": the scores are kept as recorded, so they include it; the receipt also keeps the "
            "indicator beside the score, in skill_fired."
        )
    unrecorded = list(_UNRECORDED)
    if not d.two_arm:
        unrecorded.insert(
            0, "the baseline arm (ablation 'none': the suite ran with the plugin only)"
        )
    counts = tally.counts
    gens = sole(counts)
    gens = gens if gens is not None and gens >= 1 else None
    if gens is None:
        unrecorded.append("generations_per_arm (the case arms hold different numbers of runs)")
    declared = tally.declared_runs
    if declared and (gens is None or declared != {gens}):
        held = (
            "different numbers of runs per case arm"
            if gens is None
            else (f"{gens} run(s) per case arm")
        )
        d.notes.append(
            f"runsPerCase declares {', '.join(str(x) for x in sorted(declared))}; "
            f"the document holds {held}: the receipt counts the runs."
        )
    return gens, unrecorded


def _case(
    d: _Document,
    i: int,
    case: dict[str, Any],
    threshold: float | None,
    tally: Tally,
    ids: dict[str, int],
) -> Case:
    """One source case as a receipt case, its runs tallied into ``tally``.

    Fails on an arm with no run when finished, runs against the ablation, or a repeated name.
    """
    cw = d.w / "cases" / i
    graders = case.get("graders") or []
    tally.has_llm = tally.has_llm or any(g.get("type") in ("llm", "baseline") for g in graders)
    arms_src = case["arms"]
    without = arms_src.get("without")
    for key in ("with", "without"):
        if arms_src.get(key) == [] and not d.partial:  # a finished run wrote one run per arm
            raise (cw / "arms" / key).fail(
                "expected at least one run in a document not marked partial, found none"
            )
    if d.two_arm and without is None and not d.partial:
        raise (cw / "arms" / "without").fail(
            "expected the runs without the plugin (ablation 'with-without'), found none"
        )
    if not d.two_arm and without:
        raise (cw / "arms" / "without").fail(
            "expected no runs without the plugin under ablation 'none'; "
            "the document contradicts its own ablation"
        )
    arms = {}
    for arm, key in (("with_skill", "with"), ("baseline", "without")):
        runs = arms_src.get(key) if (arm == "with_skill" or d.two_arm) else None
        arms[arm] = [] if runs is None else arm_draws(arm, runs, cw / "arms" / key, graders, tally)
    if case.get("runsPerCase") is not None:
        tally.declared_runs.add(case["runsPerCase"])
    for advisory in case.get("advisories") or []:
        d.notes.append(f"Case {case['name']}: the source advises: {advisory}")
    cid = case_id_for(case["name"])
    if cid in ids:
        raise (cw / "name").fail(
            f"expected each case name once; {case['name']!r} is also case {ids[cid]}"
        )
    ids[cid] = i
    prompt = case.get("promptMarkdown")
    rubric = graders_sha256(graders, cw / "graders") if graders else None
    return case_entry(cid, prompt, arms, rubric_sha256=rubric, threshold=threshold)
