"""caveman's evals snapshot → one DECLARED receipt per skill arm (D-15, D-16).

``__baseline__`` is the baseline, ``__terse__`` the control, each other arm a skill whose
SKILL.md is read from ``skills/``. With a case file the snapshot is the fidelity eval, checked as
``score_fidelity.py`` checks it: each ``must_include``/``must_not_include`` pattern
(case-insensitive ``re.search``) is one check named ``/<pattern>/``, never a score or a verdict
(D-15). A judged fidelity snapshot is its own kind. The mapping is the interop page's ("caveman
evals snapshots").
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from driftproof._json import pointer
from driftproof.errors import ImportError_, Problem, SuiteError
from driftproof.importers import Imported, register
from driftproof.importers import _declared as declared
from driftproof.importers._caveman_judged import is_judged, judged_receipts
from driftproof.importers._caveman_snapshot import (
    CONTROLS,
    CavemanOptions,
    Snapshot,
    arm_receipts,
    check_snapshot,
    load_snapshot,
    prompt_ids,
    skill_text,
)
from driftproof.importers._common import Where, is_name, parse_instant, run_times
from driftproof.importers._text import Repair
from driftproof.receipt import Draw, build_draw
from driftproof.receipt._bounds import DRAW_MAX_CHECKS, cut_label
from driftproof.run.checks import CheckTimeout, check_passes, example_disagreements
from driftproof.run.suite import load_suite
from driftproof.run.suite_fields import CheckSpec, Suite, SuiteCase
from driftproof.tokens import COUNTED_BY, count_tokens
from driftproof.wording import CAVEMAN_TOOL as TOOL

_COMMIT = re.compile(r"^[0-9a-f]{7,40}$")

#: What caveman's snapshots do not record (D-13), each left unknown; ``usage`` and ``suite`` are
#: listed only when the snapshot has no usage block / no case file was given.
UNRECORDED: tuple[tuple[str | None, str], ...] = (
    (None, "judge: no answer was graded, so there are no scores"),
    (
        "usage",
        "usage: Claude's own input and output token counts and cost per call "
        "(output tokens here are o200k_base counts of the answer text)",
    ),
    (
        None,
        "host isolation: the snapshot does not record whether installed plugins, settings or "
        "CLAUDE.md files could reach the calls",
    ),
    (None, "temperature and other sampling settings (the claude -p defaults of the time)"),
    (None, "system prompt bytes of each arm (only the terse prefix is recorded)"),
    (None, "capture mode and the tools the agent could use"),
    ("suite", "suite file and its sha256 (only the prompt texts are recorded)"),
    (None, "finished_at: when the run ended"),
    (None, "endpoint attempts, retries and failed calls"),
)


#: caveman's runner writes a failed call's cell as this prefix and the error (llm_run.py).
ERROR_PREFIX = "__ERROR__"
#: Characters: the receipt's check-name limit (200) less the two slashes around a pattern.
PATTERN_MAX_CHARS = 198


def _tokens(answer: str, usage: dict[str, Any] | None) -> dict[str, Any]:
    """Claude's counts of a usage cell (input as billed, cache included), else o200k_base (D-16)."""
    if usage is None:
        return {"input": None, "output": count_tokens(answer), "counted_by": COUNTED_BY}
    read, creation = usage["cache_read_input_tokens"], usage["cache_creation_input_tokens"]
    return {
        "input": usage["input_tokens"] + read + creation,  # as billed (caveman's measure.py)
        "output": usage["output_tokens"],
        "counted_by": "provider",
        "cache_read_input": read,
        "cache_creation_input": creation,
    }


def _arm(
    answer: str | None,
    usage: dict[str, Any] | None,
    stopped: str | None,
    checks: list[dict[str, Any]] | None,
) -> Draw:
    """One arm's draw; lost to the run's error ``stopped`` (no answer) or its ``__ERROR__``."""
    cost = usage["cost_usd"] if usage is not None else None
    tokens = _tokens(answer, usage) if answer is not None else None
    if answer is not None and not answer.startswith(ERROR_PREFIX):
        return build_draw(0, answer=answer, tokens=tokens, checks=checks, cost_usd=cost)
    if answer is None:
        source = stopped or ""
        reason = f"unfinished: the source's run stopped with this error: {source}"
    else:
        source = answer
        reason = f"source error: {answer[len(ERROR_PREFIX) :].lstrip(':').strip() or answer}"
    return build_draw(
        0,
        lost_reason=reason[:4000],
        lost_kind="source_error",
        source_error=source[:4000],
        tokens=tokens if usage is not None else None,
        cost_usd=cost,
    )


_CLI_VERSION = re.compile(r"^(\d+\.\d+\.\d+)\s*\(Claude Code\)$")


#: A language tag as caveman writes one: ``pt``, ``pt-BR``.
_TAG = r"[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*"
_LANG = re.compile(rf"^{_TAG}$")
#: ``results.<lang>.json`` and its partial twin ``results.<lang>.partial.json`` (llm_run.py's
#: ``with_suffix(".partial.json")``); ``results.partial.json`` names no language.
_LANG_FILE = re.compile(rf"^results\.(?!partial\.json$)({_TAG})(?:\.partial)?\.json$")


def _language(meta: dict[str, Any], path: Path, shown: str) -> str | None:
    """``metadata.lang`` (as the file name's), else ``results.<lang>.json``'s, else ``None``."""
    lang, w = meta.get("lang"), Where(shown) / "metadata" / "lang"
    if lang is not None and (
        not isinstance(lang, str) or len(lang) > 35 or not _LANG.fullmatch(lang)
    ):
        raise w.fail(f"expected a language tag such as pt, found {json.dumps(lang)[:60]}")
    m = _LANG_FILE.fullmatch(path.name)
    if lang is not None and m is not None and m.group(1) != lang:
        raise w.fail(
            f"expected {m.group(1)!r}, the language the file name {path.name} names, found {lang!r}"
        )
    return lang if lang is not None else (m.group(1) if m else None)


#: ``metadata.model`` values that name no model (the CLI's default): the model stays unknown.
PLACEHOLDER_MODELS = frozenset({"default", "<model-name>", "unknown"})


def _run(
    snap: Snapshot, suite: bool, commit: str | None, shown: str
) -> tuple[dict[str, Any], str | None, list[str]]:
    """``declared_receipt``'s run keywords (and ``started_offset``), terse prefix, unrecorded."""
    recorded = {"usage": snap.usage is not None, "suite": suite}
    unrecorded = [text for key, text in UNRECORDED if key is None or not recorded[key]]
    if snap.usage is not None and any(
        u is not None and u["cost_usd"] is None for row in snap.usage.values() for u in row
    ):
        unrecorded.append("cost of some calls: their usage cell has no total_cost_usd")
    if commit is None:
        unrecorded.append("caveman-evals version (the snapshot names no commit or release)")
    # the metadata texts, each a non-empty string (check_snapshot requires it); blank: None
    model, generated, terse, cli = (
        v if is_name(v := snap.meta.get(k)) else None
        for k in ("model", "generated_at", "terse_prefix", "claude_cli_version")
    )
    if model is not None and model.strip().lower() in PLACEHOLDER_MODELS:
        unrecorded.append(
            f"model: the snapshot records {json.dumps(model)}, the CLI's default, not a model id"
        )
        model = None
    elif model is None:
        unrecorded.append("model: the snapshot records none")
    if generated is None:
        unrecorded.append("started_at: the snapshot records no generated_at")
    where = Where(shown) / "metadata" / "generated_at"
    times = run_times([parse_instant(generated, where)] if generated else [], [])
    if terse is None:
        unrecorded.append("the control arm's instruction (no metadata.terse_prefix)")
    match = _CLI_VERSION.match(cli.strip()) if cli else None
    if match is None:
        unrecorded.append(
            "harness version: metadata.claude_cli_version is missing or not a Claude Code version"
        )
    run = {
        "model": model,
        "provider": "anthropic",
        "surface": "cli",
        "harness": {"name": "claude-code", "version": match.group(1) if match else None},
        "started_at": times["started_at"],
        "started_offset": times["started_at_offset"],
        "generations_per_arm": 1,
    }
    return run, terse, unrecorded


#: ``metadata.eval_set`` -> the refusal when a case file is (not) given against it.
_EVAL_SETS = {
    "fidelity": "a fidelity snapshot: expected its case file (prompts/fidelity.json, --cases) "
    "to score it against",
    "length": 'a length snapshot has no fidelity checks: expected "fidelity" when a case file '
    "is given",
}


def _eval_set(meta: dict[str, Any], fidelity: bool, shown: str) -> None:
    """Refuse a snapshot whose ``metadata.eval_set`` disagrees with whether cases were given."""
    value, w = meta.get("eval_set"), Where(shown) / "metadata" / "eval_set"
    if value is not None and value not in ("length", "fidelity"):
        raise w.fail(f'expected "length" or "fidelity", found {json.dumps(value)[:60]}')
    if value is not None and (value == "fidelity") != fidelity:
        raise w.fail(_EVAL_SETS[value])


def _read_cases(path: str | Path) -> Suite:
    """Caveman's ``prompts/fidelity.json``, each case with a category and its own prompt."""
    shown = str(path)
    try:
        suite = load_suite(path)
    except SuiteError as exc:
        raise ImportError_(str(exc), exc.problems) from None
    if suite.format != "caveman-fidelity":
        raise Where(shown).fail(
            'expected caveman\'s fidelity case file {"cases": [{id, category, prompt, checks}]}'
        )
    for c in suite.cases:
        if len(c.checks) > DRAW_MAX_CHECKS:  # each answer's checks[] in the receipt
            raise ImportError_.at(
                shown,
                f"{c.pointer}/checks",
                f"expected at most {DRAW_MAX_CHECKS} checks in one case (a receipt keeps each "
                f"answer's checks), found {len(c.checks):,}",
            )
    _examples_agree(suite, shown)
    cases = []
    seen: dict[str, str] = {}
    for c in suite.cases:
        if c.category is None:
            raise ImportError_.at(
                shown, f"{c.pointer}/category", "expected the case's category (a string)"
            )
        if c.prompt in seen:
            raise ImportError_.at(
                shown,
                f"{c.pointer}/prompt",
                f"expected a prompt no other case has; the case at {seen[c.prompt]} has it too",
            )
        seen[c.prompt] = c.pointer
        checks = []
        for j, spec in enumerate(c.checks):
            pattern = spec.pattern or ""
            if len(pattern) > PATTERN_MAX_CHARS:
                n = sum(s.kind == spec.kind for s in c.checks[:j])
                raise ImportError_.at(
                    shown,
                    f"{c.pointer}/checks/{spec.kind}/{n}",
                    f"expected a pattern of at most {PATTERN_MAX_CHARS} characters (a check's "
                    f"name is the pattern), found {len(pattern)}",
                )
            checks.append(CheckSpec(f"/{pattern}/", spec.kind, pattern=pattern, ignore_case=True))
        cases.append(replace(c, checks=tuple(checks)))
    return replace(suite, cases=tuple(cases))


def _examples_agree(suite: Suite, shown: str) -> None:
    """Refuse a case file whose examples disagree with their own checks, as ``suite check`` finds.

    Each ``examples.pass`` answer must pass every check of its case and each ``examples.fail``
    answer fail at least one; a file that contradicts itself grades nothing.

    Raises:
        ImportError_: one problem per disagreement, at the example's pointer.
    """
    found = [
        Problem(
            shown,
            where,
            f"{what}; expected the case's checks to accept each examples.pass answer and reject "
            "each examples.fail answer (the case file contradicts itself)",
        )
        for c in suite.cases
        for where, what in example_disagreements(c)
    ]
    if found:
        raise ImportError_(str(found[0]), found)


def _match_cases(cases: Suite, prompts: list[str], shown: str) -> list[SuiteCase]:
    """The case of each snapshot prompt, in its order; every prompt and case matched once."""
    by_prompt = {c.prompt: c for c in cases.cases}
    first: dict[str, int] = {}
    for i, prompt in enumerate(prompts):
        w = Where(shown) / "prompts" / i
        if prompt not in by_prompt:
            raise w.fail(
                f"expected the prompt of a case in {cases.path}; no case has this prompt "
                "(the cases changed since the snapshot ran: rerun the fidelity eval)"
            )
        if prompt in first:
            raise w.fail(f"expected each case once; this prompt is also /prompts/{first[prompt]}")
        first[prompt] = i
    for c in cases.cases:
        if c.prompt not in first:
            raise ImportError_.at(
                cases.path,
                f"{c.pointer}/prompt",
                f"expected this case's prompt in the snapshot {shown}; it is not there "
                "(the case was added or changed since the snapshot ran: rerun the fidelity eval)",
            )
    return [by_prompt[p] for p in prompts]


def _checks(case: SuiteCase, output: str, shown: str, where: str) -> list[dict[str, Any]]:
    """Every check of ``case`` on ``output`` as ``checks[]``; one that never finishes refuses."""
    out = []
    for spec in case.checks:
        try:
            passed = check_passes(spec, output)
        except CheckTimeout as exc:
            raise ImportError_.at(
                shown,
                where,
                f"{exc} on this output (case {case.id}); expected a check that finishes",
            ) from None
        out.append({"name": spec.name, "kind": spec.kind, "pass": passed})
    return out


def _cells(snap: Snapshot, matched: list[SuiteCase] | None, shown: str) -> dict[str, list[Draw]]:
    """Every arm's cells as draws in prompt order, each answer checked by its ``matched`` case."""
    return {
        arm: [
            _arm(
                out,
                snap.usage[arm][i] if snap.usage is not None else None,
                snap.error,
                _checks(matched[i], out, shown, pointer(("arms", arm, i)))
                if matched is not None and out is not None
                else None,
            )
            for i, out in enumerate(outputs)
        ]
        for arm, outputs in snap.arms.items()
    }


@register("caveman", CavemanOptions)
def import_caveman(snapshot: str | Path, options: CavemanOptions) -> list[Imported]:
    """One DECLARED receipt per skill arm of ``snapshot``, in its order (D-15, D-16).

    A partial snapshot's receipts are marked ``provenance.partial`` and named ``…-partial``.

    Raises:
        ImportError_: the snapshot breaks caveman's snapshot contract, the case file's examples
            disagree with its checks, the prompts do not match the case file, or a skill arm has
            no readable SKILL.md; naming the file, the JSON pointer and what was expected.
    """
    shown, o = str(snapshot), options
    if o.source_commit is not None and not _COMMIT.fullmatch(o.source_commit):
        raise Where(shown).fail(
            f"source commit {o.source_commit!r}: expected 7 to 40 lowercase hex digits"
        )
    repairs: list[Repair] = []
    doc, document_sha256 = load_snapshot(Path(snapshot), shown, repairs)
    if is_judged(doc):
        return judged_receipts(doc, shown, document_sha256, o, repairs)
    if o.rubrics is not None:
        raise Where(shown).fail(
            "rubrics are read with a judged fidelity snapshot "
            '({"metadata", "fidelity": {arm: {prompt: ...}}}); this file is not one'
        )
    snap = check_snapshot(doc, shown)
    _eval_set(snap.meta, o.cases is not None, shown)
    fidelity = _read_cases(o.cases) if o.cases is not None else None
    matched = _match_cases(fidelity, snap.prompts, shown) if fidelity is not None else None
    skill_arms = [a for a in snap.arms if a not in CONTROLS.values()]
    skills = {arm: skill_text(Path(o.skills_dir), arm, shown) for arm in skill_arms}
    cells = _cells(snap, matched, shown)
    run, terse, unrecorded = _run(snap, fidelity is not None, o.source_commit, shown)
    offset = run.pop("started_offset")
    language = _language(snap.meta, Path(snapshot), shown)
    source = declared.provenance(
        TOOL,
        f"git {o.source_commit}" if o.source_commit else None,
        shown,
        document_sha256,
        unrecorded,
        partial=True if snap.error is not None else None,
    )
    name = "fidelity-{}" if fidelity is not None else "{}"
    name += f"-{language}" if language not in (None, "en") else ""  # results.<lang>.json
    name += "-partial.json" if snap.error is not None else ".json"
    return arm_receipts(
        cells,
        snap.prompts,
        [c.id for c in matched] if matched is not None else prompt_ids(len(snap.prompts)),
        skills,
        name,
        source,
        o,
        repairs,
        categories=[c.category for c in matched] if matched is not None else None,
        instruction=terse,
        **run,
        run_members={"started_at_offset": offset, "language": language},
        suite_name=cut_label(Path(fidelity.path).name) if fidelity is not None else None,
        suite_sha256=fidelity.sha256 if fidelity is not None else None,
    )
