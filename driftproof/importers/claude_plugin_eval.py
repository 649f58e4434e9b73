"""``claude plugin eval`` result documents (``aggregate-result.json``, schemaVersion 1) → DECLARED
receipts (D-15).

Claude Code (from 2.1.269) runs a plugin's eval suite: each case is run several times with
the plugin (``arms.with``) and, under the default ``--ablation with-without``, as often
without it (``arms.without``); graders (``regex``, ``tool_used``, ``llm``…) score each run.
The ``--json`` output is the same v1 document the command writes to
``evals/results/<timestamp>/aggregate-result.json``. Mapping (interop page, "claude plugin eval"):

- case: ``cases[].name`` (prompt ``promptMarkdown``; rubric hash: sha256 of the RFC 8785 JSON of
  the case's ``graders`` definitions; threshold ``suite.threshold``);
- arm: ``with`` → with_skill; ``without`` → baseline, only under ``with-without``. Under
  ``--ablation none`` the baseline is *not recorded* (``arms.baseline.recorded: false``, no draws,
  so no lift, no interval and no value per token);
- draw: one run, in the order the source lists them; the runs are *counted*: the declared
  ``runsPerCase`` is kept in ``provenance.details`` and is never the count
  (``run.generations_per_arm`` is the count when every case arm holds the same number of runs);
  each run is its own generation, graded once, so ``band_source`` is ``generation``;
- score: the run's ``score`` as recorded (weighted share of its scored graders that passed);
- a run with ``error``, or with ``skippedPaidGraders``, is a lost draw with its text (method,
  "Receipts are an open format": runs the source recorded an error for are kept out of the
  figures and listed with the error); a run with no score is a lost draw too;
- skill-fired indicator: the ``tool_used`` graders on the ``Skill`` tool. Per draw
  ``skill_fired``; per arm ``arms.<arm>.skill_fired {fired, observed}`` over the measured draws.
  It sits beside the score, never inside it. In single-arm mode the source counts that grader
  inside its score (``scored: true``): the receipt keeps the score as recorded and says so in
  ``provenance.notes``;
- ``regex`` graders are also kept as each draw's ``checks`` (kind ``regex``), beside the score;
- a case's ``advisories`` (e.g. a grader that cannot pass with the granted tools) go into
  ``provenance.notes``;
- a ``partial`` document is imported and marked ``provenance.partial: true`` with the source's
  reason in ``provenance.notes`` (the source says such a document should not be trended);
- cost: ``costUsd`` (suite and runs) and ``judgeCostUsd`` (the judge's part of a run's cost) are
  list-price estimates the source declares; they are kept apart, as declared, in
  ``provenance.details.declared_cost_usd`` and never enter ``economics`` (which holds tokens);
- harness: ``claude-code`` at ``claudeVersion``; plugin names and versions in
``provenance.details``;
  model: ``suite.modelOverride`` when given, else not recorded; judge: ``suite.judgeModel`` when
  given.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from driftproof.errors import ImportError_
from driftproof.importers import Imported, register
from driftproof.importers._claude_plugin_draws import (
    cost_figures,
    draw_of,
    graders_sha256,
)
from driftproof.importers._common import (
    Where,
    arm_spec,
    case_id_for,
    file_sha256,
    provenance_doc,
    read_json,
    read_skill_md,
    unit_score,
    unrecorded_judge,
    validate_source,
)
from driftproof.importers._declared import declared_receipt
from driftproof.importers._fields import bound_text, utc_instant
from driftproof.receipt import sha256_text

__all__ = ["DOCUMENT_NAME", "claude_plugin_eval_importer", "import_claude_plugin_eval"]

TOOL = "claude-plugin-eval"
#: The file name ``claude plugin eval`` writes in its timestamped results directory.
DOCUMENT_NAME = "aggregate-result.json"
_ABLATIONS = ("with-without", "none")
_MAX_DOCUMENTS = 1000
#: The receipt's limit on a case prompt (characters); a longer one is kept by sha256 and length.
_MAX_PROMPT_CHARS = 262144


def import_claude_plugin_eval(
    path: Path, *, skill_name: str | None = None, skill_md: Path | None = None
) -> list[dict[str, Any]]:
    """Convert ``claude plugin eval`` result documents into unsealed DECLARED receipt documents.

    Args:
        path: an ``aggregate-result.json`` (the ``--json`` output), the timestamped results
            directory holding one, or a directory of such results directories (one receipt each,
            in name order).
        skill_name: the skill's name; default: the plugin's name when the suite names exactly one.
        skill_md: the SKILL.md measured, hashed and counted (D-14); unknown when omitted.

    Returns:
        One receipt document per result document, unsealed.

    Raises:
        ImportError_: unreadable or malformed document (a member of the wrong type per
            ``schemas/claude-plugin-eval.schema.json``), an unknown ``schemaVersion`` or ablation,
            a score outside 0..1, a baseline present without ablation or missing under it, or no
            skill name; each naming the source file, the JSON pointer and what was expected.
    """
    skill_text = read_skill_md(skill_md)
    return [_import_document(p, skill_name, skill_text) for p in _documents(Path(path))]


def _documents(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise ImportError_.at(
            path, "", f"expected {DOCUMENT_NAME} or the results directory holding it"
        )
    if (path / DOCUMENT_NAME).is_file():
        return [path / DOCUMENT_NAME]
    found = sorted(p / DOCUMENT_NAME for p in path.iterdir() if (p / DOCUMENT_NAME).is_file())
    if not found:
        raise ImportError_.at(
            path,
            "",
            f"expected {DOCUMENT_NAME} in this directory or in its results "
            "directories (evals/results/<timestamp>/); found none",
        )
    if len(found) > _MAX_DOCUMENTS:
        raise ImportError_.at(
            path, "", f"expected at most {_MAX_DOCUMENTS} result documents, found {len(found)}"
        )
    return found


def _import_document(path: Path, skill_name: str | None, skill_text: str | None) -> dict[str, Any]:
    doc, raw = read_json(path)
    validate_source(doc, TOOL, path)  # the type of every member walked below
    w = Where(path)
    if doc["schemaVersion"] != 1:
        raise (w / "schemaVersion").fail(
            f"expected schemaVersion 1 (the version this importer reads), "
            f"found {doc['schemaVersion']!r}"
        )
    suite = doc["suite"]
    ablation = suite["ablation"]
    if ablation not in _ABLATIONS:
        raise (w / "suite" / "ablation").fail(
            f"expected the ablation 'with-without' or 'none', found {ablation!r}"
        )
    two_arm = ablation == "with-without"
    partial = doc.get("partial") is True
    plugins = [
        {"name": p.get("name"), "version": p.get("version")} for p in suite.get("plugins") or []
    ]
    name = skill_name or (plugins[0]["name"] if len(plugins) == 1 and plugins[0]["name"] else None)
    if not name:
        raise (w / "suite" / "plugins").fail(
            "expected exactly one plugin with a name to name the skill; "
            "pass the skill's name explicitly"
        )
    notes: list[str] = []
    if partial:
        reason = doc.get("partialReason") or "no reason given"
        notes.append(
            f"The source marks this document partial ({reason}): the suite did not finish, and the "
            "source says such a document should not be trended."
        )
    threshold = suite.get("threshold")
    if threshold is not None:
        threshold = unit_score(threshold, w / "suite" / "threshold")
    cases_doc: list[dict[str, Any]] = []
    counts: set[int] = set()
    declared_runs: set[int] = set()
    fired_total = {"with_skill": [0, 0], "baseline": [0, 0]}
    costs: dict[str, list[list[float]]] = {"with_skill": [[], []], "baseline": [[], []]}
    scored_indicator: set[str] = set()
    has_llm = False
    ids: dict[str, int] = {}
    bounded: list[dict[str, Any]] = []
    if not doc["cases"] and not partial:
        raise (w / "cases").fail(
            "expected at least one case in a document not marked partial, found none"
        )
    for i, case in enumerate(doc["cases"]):
        cw = w / "cases" / i
        graders = case.get("graders") or []
        skill_graders = {
            g["name"]
            for g in graders
            if g.get("type") == "tool_used"
            and isinstance(g.get("config"), dict)
            and g["config"].get("tool") == "Skill"
        }
        regex_graders = {g["name"] for g in graders if g.get("type") == "regex"}
        has_llm = has_llm or any(g.get("type") in ("llm", "baseline") for g in graders)
        configs = {g["name"]: g.get("config") or {} for g in graders}
        arms_src = case["arms"]
        without = arms_src.get("without")
        for key in ("with", "without"):
            if (
                arms_src.get(key) == [] and not partial
            ):  # a finished run wrote at least one run per arm
                raise (cw / "arms" / key).fail(
                    "expected at least one run in a document not marked partial, found none"
                )
        if two_arm and without is None and not partial:
            raise (cw / "arms" / "without").fail(
                "expected the runs without the plugin (ablation 'with-without'), found none"
            )
        if not two_arm and without:
            raise (cw / "arms" / "without").fail(
                "expected no runs without the plugin under ablation 'none'; "
                "the document contradicts its own ablation"
            )
        arms_doc: dict[str, Any] = {}
        for arm, key in (("with_skill", "with"), ("baseline", "without")):
            runs = arms_src.get(key) if (arm == "with_skill" or two_arm) else None
            if runs is None:
                arms_doc[arm] = {"draws": [], "generation": None}
                continue
            draws = []
            for j, run in enumerate(runs):
                rw = cw / "arms" / key / j
                draw, fired = draw_of(
                    j, run, rw, skill_graders, regex_graders, configs, scored_indicator
                )
                draws.append(draw)
                if draw["lost"] is None and fired is not None:
                    fired_total[arm][0] += fired
                    fired_total[arm][1] += 1
                for slot, member in ((0, "costUsd"), (1, "judgeCostUsd")):
                    value = run.get(member)
                    if value is not None:
                        if not math.isfinite(value) or value < 0:
                            raise (rw / member).fail(
                                f"expected a cost in USD of 0 or more, found {value!r}"
                            )
                        costs[arm][slot].append(value)
            counts.add(len(draws))
            arms_doc[arm] = {"draws": draws, "generation": None}
        if case.get("runsPerCase") is not None:
            declared_runs.add(case["runsPerCase"])
        for advisory in case.get("advisories") or []:
            notes.append(f"Case {case['name']}: the source advises: {advisory}")
        full_prompt = case.get("promptMarkdown")
        prompt = bound_text(
            full_prompt, _MAX_PROMPT_CHARS, f"/cases/{len(cases_doc)}/prompt", bounded
        )
        cid = case_id_for(case["name"])
        if cid in ids:
            raise (cw / "name").fail(
                f"expected each case name once; {case['name']!r} is also case {ids[cid]}"
            )
        ids[cid] = i
        cases_doc.append(
            {
                "id": cid,
                "prompt": prompt,
                "prompt_sha256": sha256_text(full_prompt) if full_prompt is not None else None,
                "rubric_sha256": graders_sha256(graders, cw / "graders") if graders else None,
                "threshold": threshold,
                "arms": arms_doc,
            }
        )
    if scored_indicator:
        notes.append(
            "The source counts its skill-fired grader ("
            + ", ".join(sorted(scored_indicator))
            + ") inside each run's score"
            + (" (single-arm mode, --ablation none)" if not two_arm else "")
            + ": the scores are kept as recorded, so they include it; the receipt also keeps the "
            "indicator beside the score, in skill_fired."
        )
    unrecorded = [
        "judge_samples_per_generation",
        "run.provider",
        "draw answers (the source keeps each run's trace as a file outside the document)",
        "draw tokens (the source records costs in USD, not tokens)",
        "economics.judge_overhead (the source declares the judge's cost in USD only; kept in "
        "provenance.details.declared_cost_usd)",
    ]
    if not two_arm:
        unrecorded.insert(
            0, "the baseline arm (ablation 'none': the suite ran with the plugin only)"
        )
    gens = next(iter(counts)) if len(counts) == 1 and next(iter(counts)) >= 1 else None
    if gens is None:
        unrecorded.append("generations_per_arm (the case arms hold different numbers of runs)")
    if declared_runs and (gens is None or declared_runs != {gens}):
        notes.append(
            f"runsPerCase declares {', '.join(str(x) for x in sorted(declared_runs))}; "
            "the document holds "
            + (
                "different numbers of runs per case arm"
                if gens is None
                else f"{gens} run(s) per case arm"
            )
            + ": the receipt counts the runs."
        )
    model = (
        suite.get("modelOverride")
        if isinstance(suite.get("modelOverride"), str) and suite["modelOverride"].strip()
        else None
    )
    if model is None:
        unrecorded.append(
            "run.model (no model override; the session's default model is not recorded)"
        )
    judge = unrecorded_judge(TOOL, "graders")
    judge["channel"] = "source"
    judge_model = suite.get("judgeModel")
    if isinstance(judge_model, str) and judge_model.strip() and has_llm:
        judge["model"] = judge_model[:200]
    else:
        unrecorded.insert(
            0,
            "judge.model ("
            + (
                "no judge model is named"
                if has_llm
                else "the graders are regex and tool checks; no model judged"
            )
            + ")",
        )
    version = doc.get("claudeVersion")
    if version is None:
        unrecorded.append("run.harness version (claudeVersion absent)")
    if skill_text is None:
        unrecorded.append("skill.sha256 and skill.tokens (SKILL.md not given)")
    started, offset = (None, None)
    if doc.get("startedAt") is not None:
        started, offset = utc_instant(doc["startedAt"], w / "startedAt")
    arm_specs: dict[str, Any] = {
        "with_skill": arm_spec("with"),
        "baseline": arm_spec("without" if two_arm else None),
    }
    for arm, (n_fired, n_observed) in fired_total.items():
        if n_observed:
            arm_specs[arm]["skill_fired"] = {"fired": n_fired, "observed": n_observed}
    if not two_arm:
        arm_specs["baseline"]["recorded"] = False
    details = {
        "schema_version": 1,
        "claude_version": version,
        "ablation": ablation,
        "plugins": plugins,
        "runs_per_case_declared": sorted(declared_runs) or None,
        "declared_cost_usd": cost_figures(doc, costs, two_arm),
        "source_aggregates": doc.get("aggregates"),
    }
    document = declared_receipt(
        name,
        skill_text,
        cases_doc,
        provenance_doc(TOOL, version, str(path), file_sha256(raw), unrecorded),
        model=model,
        surface="cli",
        harness={"name": "claude-code", "version": version},
        started_at=started,
        generations_per_arm=gens,
        judge=judge,
        arms=arm_specs,
        band_source="generation",
    )
    if offset is not None:
        document["run"]["started_at_offset"] = offset
    prov = document["provenance"]
    prov["partial"] = partial
    prov["details"] = details
    if notes:
        prov["notes"] = [n[:1000] for n in notes][:50]
    if bounded:
        document["bounded_text"] = bounded
    return document


@register("claude-plugin-eval")
def claude_plugin_eval_importer(source: Path, **options: Any) -> list[Imported]:
    """Registry entry: :func:`import_claude_plugin_eval`, files
    ``claude-plugin-eval-<skill>-<document sha256[:8]>.json``."""
    return [Imported.named(TOOL, d) for d in import_claude_plugin_eval(Path(source), **options)]
