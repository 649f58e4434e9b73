"""``claude plugin eval`` v1 ``aggregate-result.json`` documents → DECLARED receipts (D-15).

Errored runs are listed, never scored; the skill-fired indicator stays beside the score;
declared costs (USD) are kept apart. The mapping is the interop page's ("claude plugin eval").
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from driftproof.importers import Imported, register
from driftproof.importers import _common as common
from driftproof.importers import _declared as declared
from driftproof.importers._common import Where
from driftproof.importers._plugin_eval_checks import (
    check_aggregates,
    check_weights,
    graded_share,
    grader_check,
)
from driftproof.importers._schema import validate_source
from driftproof.importers._text import Repair
from driftproof.receipt import Case, Draw, SkillFired, build_draw
from driftproof.wording import COMPARED_ARMS

TOOL = "claude-plugin-eval"
#: The file name ``claude plugin eval`` writes in its timestamped results directory.
DOCUMENT_NAME = "aggregate-result.json"
_ABLATIONS = ("with-without", "none")
_CALLED = re.compile(r"\bcalled (\d+)x\b")
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
    skill_text = common.read_skill_md(o.skill_md)
    return [_import_document(p, o.skill_name, skill_text) for p in _documents(Path(path))]


def _documents(path: Path) -> list[Path]:
    """The result documents ``path`` names, in name order; one that is a broken link among them."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise Where(path).fail(f"expected {DOCUMENT_NAME} or the results directory holding it")
    if common.to_read(path / DOCUMENT_NAME):  # a broken link too: read, and refused
        return [path / DOCUMENT_NAME]
    found = sorted(d for p in path.iterdir() if common.to_read(d := p / DOCUMENT_NAME))
    if not found:
        results = path / "evals" / "results"
        there = f"; its results are in {results}: give that folder" if results.is_dir() else ""
        raise Where(path).fail(
            f"expected {DOCUMENT_NAME} in this directory or in a directory directly inside it "
            f"(a results directory, evals/results/<timestamp>/); found none{there}"
        )
    if (n := len(found)) > _MAX_DOCUMENTS:
        raise Where(path).fail(f"expected at most {_MAX_DOCUMENTS} result documents, found {n}")
    return found


@dataclass
class _Document:
    """What a document's runs add up to: per arm [run costs, judge costs] in USD, as declared."""

    w: Where
    two_arm: bool
    partial: bool
    costs: dict[str, list[list[float]]] = field(
        default_factory=lambda: {a: [[], []] for a in COMPARED_ARMS}
    )
    scored_indicator: set[str] = field(default_factory=set)


def _import_document(path: Path, skill_name: str | None, skill_text: str | None) -> Imported:
    repairs: list[Repair] = []
    doc, raw = common.read_json(path, repairs)
    d, w, suite = _checked(doc, path), Where(path), doc["suite"]
    plugins = [
        {"name": p.get("name"), "version": p.get("version")} for p in suite.get("plugins") or []
    ]
    only = plugins[0]["name"] if len(plugins) == 1 else None
    name = skill_name or (only if common.is_name(only) else None)
    if not name:
        raise (w / "suite" / "plugins").fail(
            "expected exactly one plugin with a name to name the skill; "
            "give the skill's name with --skill-name"
        )
    if not skill_name:
        common.within(name, w / "suite" / "plugins" / 0 / "name")
    threshold = suite.get("threshold")
    if threshold is not None:
        threshold = common.unit_score(threshold, w / "suite" / "threshold")
    ids: dict[str, int] = {}
    cases = [_case(d, i, case, threshold, ids) for i, case in enumerate(doc["cases"])]
    check_aggregates(doc, w, threshold)
    for i, case in enumerate(doc["cases"]):  # kept in the receipt as declared
        common.sealable(case.get("runsPerCase"), w / "cases" / i / "runsPerCase")
    per_case = {c["runsPerCase"] for c in doc["cases"] if c.get("runsPerCase") is not None}
    gens, unrecorded, notes = _counted(d, doc, per_case)
    run = _models(suite, doc["cases"], unrecorded, w / "suite")
    version = v if common.is_name(v := doc.get("claudeVersion")) else None
    if version is None:
        unrecorded.append("run.harness version (claudeVersion absent or blank)")
    if skill_text is None:
        unrecorded.append("skill.sha256 and skill.tokens (SKILL.md not given)")
    started, offset = common.utc_instant(doc.get("startedAt"), w / "startedAt")
    details = {
        "schema_version": 1,
        "claude_version": version,
        "ablation": suite["ablation"],
        "plugins": plugins,
        "runs_per_case_declared": sorted(per_case) or None,
        "declared_cost_usd": cost_figures(doc, d.costs, d.two_arm),
        "source_aggregates": doc.get("aggregates"),
    }
    common.sealable(doc.get("aggregates"), w / "aggregates")
    body = declared.declared_receipt(
        name,
        skill_text,
        cases,
        declared.provenance(
            TOOL,
            version,
            str(path),
            common.file_sha256(raw),
            unrecorded,
            notes=notes,
            details=details,
            partial=d.partial,
        ),
        surface="cli",
        harness={"name": "claude-code", "version": version},
        started_at=started,
        run_members={"started_at_offset": offset},
        generations_per_arm=gens,
        arms={
            a: declared.arm_spec(label if rec else None, recorded=rec, skill_fired=_fired(cases, a))
            for a, label, rec in (("with_skill", "with", True), ("baseline", "without", d.two_arm))
        },
        band_source="generation",
        **run,
    )
    return Imported.named(TOOL, body, repairs=repairs)


def _checked(doc: Any, path: Path) -> _Document:
    """The document's schema, schemaVersion 1, a known ablation, a case unless partial."""
    validate_source(doc, TOOL, path)  # the type of every member walked below
    w, suite = Where(path), doc["suite"]
    if type(doc["schemaVersion"]) is not int or doc["schemaVersion"] != 1:  # not 1.0 or true
        raise (w / "schemaVersion").fail(
            f"expected schemaVersion 1 (the version this importer reads), "
            f"found {doc['schemaVersion']!r}"
        )
    if suite["ablation"] not in _ABLATIONS:
        raise (w / "suite" / "ablation").fail(
            f"expected the ablation 'with-without' or 'none', found {suite['ablation']!r}"
        )
    d = _Document(w, suite["ablation"] == "with-without", doc.get("partial") is True)
    if not doc["cases"] and not d.partial:
        raise (w / "cases").fail(
            "expected at least one case in a document not marked partial, found none"
        )
    return d


def _fired(cases: list[Case], arm: str) -> SkillFired | None:
    """How often the skill fired over an arm's scored or unscored draws that observed it."""
    seen = [x.skill_fired for c in cases for x in getattr(c.arms, arm).draws if x.lost is None]
    seen = [f for f in seen if f is not None]
    return SkillFired(fired=sum(seen), observed=len(seen)) if seen else None


def _models(
    suite: dict[str, Any], cases: list[dict[str, Any]], unrecorded: list[str], w: Where
) -> dict[str, Any]:
    """The suite's model override and judge (each at most 200 characters); unnamed: unrecorded."""
    has_llm = any(
        g.get("type") in ("llm", "baseline") for c in cases for g in c.get("graders") or []
    )
    model = suite.get("modelOverride")
    if not common.is_name(model):
        model = None
        unrecorded.append(
            "run.model (no model override; the session's default model is not recorded)"
        )
    judge_model = suite.get("judgeModel")
    if not (common.is_name(judge_model) and has_llm):
        judge_model = None
        no_llm = "the graders are regex and tool checks; no model judged"
        unrecorded.insert(0, f"judge.model ({'no judge model is named' if has_llm else no_llm})")
    common.within(model, w / "modelOverride")
    common.within(judge_model, w / "judgeModel")
    judge = declared.unrecorded_judge(TOOL, "graders", model=judge_model, channel="source")
    return {"model": model, "judge": judge}


def _counted(
    d: _Document, doc: dict[str, Any], declared: set[int]
) -> tuple[int | None, list[str], list[str]]:
    """The runs per case arm when all arms agree, what is unrecorded, and the notes."""
    notes = []
    if d.partial:
        reason = doc.get("partialReason") or "no reason given"
        notes.append(
            f"The source marks this document partial ({reason}): the suite did not finish, and the "
            "source says such a document should not be trended."
        )
    for case in doc["cases"]:
        notes += [
            f"Case {case['name']}: the source advises: {a}" for a in case.get("advisories") or []
        ]
    if d.scored_indicator:
        notes.append(
            "The source counts its skill-fired grader ("
            + ", ".join(sorted(d.scored_indicator))
            + ") inside each run's score"
            + (" (single-arm mode, --ablation none)" if not d.two_arm else "")
            + ": the scores are kept as recorded, so they include it; the receipt also keeps, "
            "beside each score, whether the skill fired."
        )
    single = "the baseline arm (ablation 'none': the suite ran with the plugin only)"
    unrecorded = [*([] if d.two_arm else [single]), *_UNRECORDED]
    keys = ("with", "without") if d.two_arm else ("with",)
    gens = common.sole(
        len(c["arms"][k]) for c in doc["cases"] for k in keys if c["arms"].get(k) is not None
    )
    gens = gens if gens is not None and gens >= 1 else None
    if gens is None:
        unrecorded.append("generations_per_arm (the case arms hold different numbers of runs)")
    if declared and (gens is None or declared != {gens}):
        # words as the committed receipts hold them (a fresh import must equal them, byte for byte)
        held = f"{gens} run(s) per case arm" if gens else "different numbers of runs per case arm"
        notes.append(
            f"runsPerCase declares {', '.join(str(x) for x in sorted(declared))}; "
            f"the document holds {held}: the receipt counts the runs."
        )
    return gens, unrecorded, notes


def _case(
    d: _Document, i: int, case: dict[str, Any], threshold: float | None, ids: dict[str, int]
) -> Case:
    """One source case as a receipt case, its costs and scored indicators tallied into ``d``."""
    cw = d.w / "cases" / i
    graders = case.get("graders") or []
    check_weights(graders, cw / "graders")
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
        arms[arm] = [] if runs is None else _arm_draws(d, arm, runs, cw / "arms" / key, graders)
    cid = common.case_id_for(common.named(case["name"], cw / "name", "the case's name", None))
    if cid in ids:
        raise (cw / "name").fail(
            f"expected each case name once; {case['name']!r} is also case {ids[cid]}"
        )
    ids[cid] = i
    rubric = None
    if graders:  # the rubric hash: sha256 of the graders' RFC 8785 JSON
        common.sealable(graders, cw / "graders")  # strict JSON (no NaN): RFC 8785 once exact
        canonical = common.canonical_json(graders)
        assert canonical is not None
        rubric = common.file_sha256(canonical)
    return declared.case_entry(
        cid, case.get("promptMarkdown"), arms, rubric_sha256=rubric, threshold=threshold
    )


def _arm_draws(
    d: _Document, arm: str, runs: list[dict[str, Any]], w: Where, graders: list[dict[str, Any]]
) -> list[Draw]:
    """One case arm's runs as draws, in the source's order, tallied into ``d``."""
    skill_graders = {
        g["name"]
        for g in graders
        if g.get("type") == "tool_used"
        and isinstance(g.get("config"), dict)
        and g["config"].get("tool") == "Skill"
    }
    types = {g["name"]: g.get("type") for g in graders}
    configs = {g["name"]: g.get("config") or {} for g in graders}
    draws = []
    for j, run in enumerate(runs):
        rw, fired, checks = w / j, None, []
        check_weights(run.get("graders"), rw / "graders")
        for g in run.get("graders") or []:
            gname = g["name"]
            if gname in skill_graders and isinstance(g.get("passed"), bool):
                fired = _skill_fired(g, configs.get(gname) or {})
                if g.get("scored") is True:
                    d.scored_indicator.add(gname)
            elif isinstance(g.get("passed"), bool):
                checks.append(grader_check(gname, types.get(gname), g["passed"]))
        draws.append(_draw(j, run, rw, fired, checks))
        for slot, member in ((0, "costUsd"), (1, "judgeCostUsd")):
            value = run.get(member)
            if value is not None:
                if isinstance(value, int):
                    common.source_number(value, rw / member)  # more digits than a float holds
                if not math.isfinite(value) or value < 0:
                    raise (rw / member).fail(
                        f"expected a cost in USD of 0 or more, found {value!r}"
                    )
                d.costs[arm][slot].append(value)
        run_cost, judge_cost = run.get("costUsd"), run.get("judgeCostUsd")
        if run_cost is not None and judge_cost is not None and judge_cost > run_cost:
            raise (rw / "judgeCostUsd").fail(
                f"expected at most the run's costUsd ({run_cost!r}), which includes the judge's "
                f"part, found {judge_cost!r}: the run contradicts itself"
            )
    return draws


def _draw(
    index: int, run: dict[str, Any], rw: Where, fired: bool | None, checks: list[dict[str, Any]]
) -> Draw:
    """One run as a draw: lost on an error, skipped paid graders or an unconfirmed score.

    A score is unconfirmed when it is absent or its graders cannot give it (``graded_share``).

    Raises:
        ImportError_: at its score, a score that is not the weighted share of its scored
            graders that passed; at ``passed``, a true or false that says otherwise than its
            score (the source passes a run whose score is 1).
    """
    draw = partial(build_draw, index, skill_fired=fired, checks=checks)
    if run.get("error") is not None:
        error = run["error"].strip()[:4000] or None  # blank: no words of the source's
        reason = f"source error: {error or 'the source recorded an empty error'}"[:4000]
        return draw(lost_reason=reason, lost_kind="source_error", source_error=error)
    if run.get("skippedPaidGraders") is True:
        return draw(
            lost_reason="the source skipped this run's paid graders at its cost ceiling, so its "
            "score is not comparable",
            lost_kind="unscored",
        )
    if run.get("score") is None:
        return draw(lost_reason="the source recorded no score for this run", lost_kind="unscored")
    score = common.unit_score(run["score"], rw / "score")
    share, unchecked = graded_share(run.get("graders"))
    what = "the weighted share of the run's scored graders that passed"
    common.same_derived(score, share, rw / "score", f"{what} ({(rw / 'graders').pointer})", "run")
    full = abs(score - 1.0) <= common.ROUNDING  # the source's passed: the run's score is 1
    if isinstance(run.get("passed"), bool) and run["passed"] is not full:
        raise (rw / "passed").fail(
            f"expected {str(full).lower()}, as the run's score is {score:.6g} and the source "
            f"passes a run whose score is 1, found {str(run['passed']).lower()}: the run "
            "contradicts itself"
        )
    if share is None:  # fail closed: a score its own graders cannot confirm is not measured
        why = f"the source's score {score:g} could not be checked: {unchecked}"
        return draw(lost_reason=why, lost_kind="unscored")
    return draw(score=score)


def _skill_fired(result: dict[str, Any], config: dict[str, Any]) -> bool | None:
    """Whether the skill fired: a Skill ``tool_used`` grader's pass, else the count it explains."""
    lo, hi = config.get("min"), config.get("max")
    if hi == 0 and lo in (None, 0):
        return not result["passed"]
    if lo in (None, 1) and hi is None:
        return bool(result["passed"])
    m = _CALLED.search(result.get("explanation") or "")
    return int(m.group(1)) > 0 if m else None


def cost_figures(
    doc: dict[str, Any], costs: dict[str, list[list[float]]], two_arm: bool
) -> dict[str, Any]:
    """The declared costs (run, judge part) summed per arm, and the suite's total, kept apart."""
    out: dict[str, Any] = {
        "note": "list-price estimates declared by the source, not a bill; each run's cost "
        "includes its judge's part",
        "suite": doc.get("costUsd"),
    }
    for arm, (runs, judge) in costs.items():
        if arm == "baseline" and not two_arm:
            continue
        out[arm] = {
            "runs": math.fsum(runs) if runs else None,
            "runs_declaring": len(runs),
            "judge": math.fsum(judge) if judge else None,
            "judge_declaring": len(judge),
        }
    return out
