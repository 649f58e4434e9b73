"""promptfoo output files (``eval -o`` JSON, or a JSONL export) → a DECLARED receipt (D-15).

The user maps prompt or provider labels to arms; repeats are grouped by the test's content,
never ``testIdx``; every assertion is a check. The mapping is the interop page's ("promptfoo").
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from driftproof._json import member_list, member_object, member_str, open_file
from driftproof.importers import Imported, register
from driftproof.importers import _common as common
from driftproof.importers import _declared as declared
from driftproof.importers._common import OPTIONS, Where
from driftproof.importers._promptfoo_checks import UNTOLD_NOTE, checks_of, json_text, untold
from driftproof.importers._schema import validate_source
from driftproof.importers._shapes import promptfoo_row_found
from driftproof.importers._text import Repair, error_reason
from driftproof.receipt import Case, Draw, Judge, build_draw, cut_label
from driftproof.wording import ARMS, first_of

TOOL = "promptfoo"
#: Rows with an error but no failureReason: errors that cannot be told from failures.
_AMBIGUOUS = (
    "row(s) carry an error message but no failureReason (a version 2 or older version 3 file): "
    "promptfoo also writes an assertion's failure reason there, so an error cannot be told from "
    "a failed assertion; a row with no grading is read as an error (lost), one with grading as "
    "measured."
)
#: promptfoo's reason for a test with no assertion, which it passes with a score of 1
#: (AssertionsResult.noAssertsResult, src/assertions/assertionsResult.ts).
_UNGRADED = "No assertions"
#: --by -> what one arm may gather several of, each with its own repeats.
_GATHERS = {"prompt": "providers", "provider": "prompts"}
_OVERHEAD = ("input_tokens", "output_tokens", "judged_draws_counted", "judged_draws_missing_usage")
#: The provider id prefixes (before the first ":") promptfoo's provider registry names
#: (src/providers/registry.ts); a grader's id with another prefix (``file://grader.js``) names
#: no provider.
_PROVIDERS = frozenset(
    "abliteration ai21 aimlapi alibaba alicloud aliyun anthropic atlascloud azure azureopenai bam "
    "bedrock bedrock-agent cerebras cloudera cloudflare-ai cloudflare-gateway cohere cometapi "
    "dashscope databricks deepseek docker elevenlabs envoy exec f5 fal fireworks github golang "
    "google groq helicone hf http https huggingface hyperbolic jfrog litellm llama llamaapi "
    "localai mcp mistral modelslab nscale ollama openai openclaw opencode openrouter package palm "
    "perplexity portkey promptfoo python quiverai qwak replicate ruby sagemaker slack snowflake "
    "togetherai transformers transformers.js truefoundry vercel vertex voyage watsonx webhook ws "
    "wss xai".split()
)


@dataclass(frozen=True)
class PromptfooOptions:
    """Options of a promptfoo import.

    Attributes:
        arms: receipt arm -> label; with_skill or baseline alone is a single-arm import, which
            leaves out the rows no arm maps.
        by: ``"provider"`` (match ``provider.label`` or ``provider.id``) or ``"prompt"``
            (match ``prompt.label``, the prompt id or the raw prompt).
        skill_md: the SKILL.md measured, hashed and counted (D-14); unknown when omitted.
    """

    arms: dict[str, str]
    skill_name: str
    by: str = "provider"
    skill_md: Path | None = None


@register(TOOL, PromptfooOptions)
def import_promptfoo(path: Path, options: PromptfooOptions) -> list[Imported]:
    """Convert one promptfoo output file (JSON, or a JSONL export) into a DECLARED receipt.

    The receipt is filed as ``promptfoo-<skill>-<arm>-<label>…-<document sha256[:8]>.json``, a
    label's first 40 characters per arm mapped, so two mappings of one file get two names.

    Raises:
        ImportError_: malformed file, a JSONL line that is no promptfoo result (naming what it
            holds), a row no arm maps in a two-arm import (naming every label
            no arm maps; a single-arm import leaves such rows out, noted in provenance), or an
            arm matching no row; naming the file, the JSON pointer and what was expected.
    """
    path, o, arms, by = Path(path), options, options.arms, options.by
    if by not in ("provider", "prompt"):
        raise OPTIONS.fail(f"--by: expected provider or prompt, found {by!r}")
    if not {"with_skill", "baseline"} & set(arms) or set(arms) - set(ARMS):
        raise OPTIONS.fail(
            "expected an arm mapping naming with_skill and/or baseline (and "
            "optionally control), e.g. --arm with_skill=LABEL --arm baseline=LABEL; one of the "
            "two alone is a single-arm import"
        )
    missing = [a for a in ("with_skill", "baseline") if a not in arms]
    repairs: list[Repair] = []
    doc, sha, located = _read_output(path, repairs)
    grouped = _Grouped(arms, by, doc, single_arm=bool(missing))
    for row, iw in located:
        grouped.add(row, iw)
    model = common.sole(set().union(*grouped.models.values()))
    provider_name = p if (p := (model or "").split(":", 1)[0]) in ("openai", "anthropic") else None
    version = (
        v if common.is_name(v := member_object(doc, "metadata").get("promptfooVersion")) else None
    )
    repeat = member_object(member_object(doc, "config"), "evaluateOptions").get("repeat")
    mixed = any(len(m) > 1 for m in grouped.others.values())
    gens = repeat if common.is_count(repeat) and repeat >= 1 and not mixed else None
    judge = _configured_grader(doc.get("config"), Where(path) / "config" / "defaultTest")
    stamp = member_object(doc, "results").get("timestamp")  # when given, an instant or refused
    at = Where(path) / "results" / "timestamp"
    stamps = [common.parse_instant(stamp, at)] if stamp is not None else []
    times = common.run_times(stamps, [])
    lacking = (
        (judge is None, "judge.model (no grader provider in config.defaultTest.options)"),
        (True, "judge_samples_per_generation"),
        (True, "run.surface"),
        (True, "run.harness"),
        (True, "each case's rubric_sha256"),
        (model is None, "run.model (the arms used different providers; see arms labels)"),
        (gens is None and not mixed, "generations_per_arm (no repeat in config.evaluateOptions)"),
        (mixed, f"generations_per_arm (an arm holds the repeats of several {_GATHERS[by]})"),
        (o.skill_md is None, "skill.sha256 and skill.tokens (SKILL.md not given)"),
        (version is None, "provenance.tool_version (metadata.promptfooVersion absent)"),
        (times["started_at"] is None, "run.started_at (no results.timestamp)"),
        (grouped.priced, "each result's cost in US dollars (results[].cost; tokens are kept)"),
        *(
            (True, f"the {a} arm (a single-arm import: no lift, no interval, no value per token)")
            for a in missing
        ),
    )
    unrecorded = [text for unrecorded, text in lacking if unrecorded]
    notes = grouped.notes()
    cases, all_arms = grouped.cases(missing, Where(path) / "results"), (*arms, *missing)
    at = Where(path) / "config" / "evaluateOptions" / "repeat"
    declared.held_as_declared(cases, arms, gens, at, "results")
    body = declared.declared_receipt(
        o.skill_name,
        common.read_skill_md(o.skill_md),
        cases,
        declared.provenance(TOOL, version, str(path), sha, unrecorded, notes=notes or None),
        model=model,
        provider=provider_name,
        started_at=times["started_at"],
        run_members={"started_at_offset": times["started_at_offset"]},
        generations_per_arm=gens,
        judge=judge or declared.unrecorded_judge(TOOL, "grader"),
        arms={a: declared.arm_spec(grouped.label(a), recorded=a not in missing) for a in all_arms},
        band_source="generation",
        judge_overhead=grouped.tokens if grouped.tokens["judged_draws_counted"] else None,
    )
    mapped = (f"{a}-{arms[a][:40]}" for a in ARMS if a in arms)
    return [Imported.named(TOOL, body, *mapped, repairs=repairs)]


class _Grouped:
    """The result rows grouped by test case and arm, with what they add up to."""

    def __init__(self, arms: dict[str, str], by: str, doc: dict[str, Any], single_arm: bool):
        self.arms, self.by, self.single_arm = arms, by, single_arm
        self.left_out: dict[str, int] = {}  # a single-arm import's unmapped label -> its rows
        prompts = doc["results"].get("prompts") or []
        self.all_rows: list[Any] = doc["results"]["results"]
        self.prompt_ids = {p.get("id"): p for p in prompts if isinstance(p, dict)}
        self.rows: dict[str, dict[str, Any]] = {}
        self.models: dict[str, set[str]] = {a: set() for a in arms}
        self.others: dict[str, set[str]] = {a: set() for a in arms}  # see _GATHERS
        self.tokens: dict[str, Any] = {**dict.fromkeys(_OVERHEAD, 0), "usd": None}
        self.ambiguous = self.untold = 0
        self.priced = False  # a row imported holds its cost in US dollars, which no draw keeps

    def add(self, row: dict[str, Any], iw: Where) -> None:
        """File one result row under its case and arm (several arms map: fail).

        A row no arm maps fails a two-arm import; a single-arm import leaves it out, counted.
        """
        names = _names(row, self.by, self.prompt_ids)
        if self.single_arm and not {*names} & {*self.arms.values()}:
            self.left_out[_shown(names)] = self.left_out.get(_shown(names), 0) + 1
            return
        arm = self._arm_of(names, iw)
        provider = member_object(row, "provider")
        if common.is_name(provider.get("id")):
            self.models[arm].add(provider["id"])
        other = "provider" if self.by == "prompt" else "prompt"  # an arm may gather several
        self.others[arm].update(_names(row, other, self.prompt_ids)[:1])
        self.priced = self.priced or row.get("cost") is not None
        key, label, prompt_text = _case_key(row, iw)
        case = self.rows.setdefault(
            key, {"label": label, "prompt": prompt_text, "arms": {a: [] for a in self.arms}}
        )
        index = row.get("repeatIndex")  # a count, or none where the export has none
        if index is not None and not common.is_count(index):
            raise (iw / "repeatIndex").fail(
                f"expected a repeat index (an integer from 0), found {index!r}"
            )
        drawn = _draw(row, iw, self.tokens)
        case["arms"][arm].append((index, iw, drawn))
        self.untold += drawn.lost is None and untold(drawn.checks)
        if row.get("failureReason") is None and isinstance(row.get("error"), str):
            self.ambiguous += 1

    def notes(self) -> list[str]:
        """The notes: ambiguous errors, verdicts an outage reads alike, rows left out."""
        notes = [f"{self.ambiguous} {_AMBIGUOUS}"] if self.ambiguous else []
        notes += [f"{self.untold} {UNTOLD_NOTE}"] if self.untold else []
        if self.left_out:
            shown = ", ".join(f"{label} ({n})" for label, n in self.left_out.items())
            notes.append(cut_label(f"Rows of other {self.by}s were not imported: {shown}", 900))
        return notes

    def cases(self, missing: list[str], rw: Where) -> list[Case]:
        """The receipt's cases, an arm the import does not hold left empty (no row: fail)."""
        for arm in self.arms:
            if not any(c["arms"][arm] for c in self.rows.values()):
                labels = first_of(list(self.left_out)) or "none"
                raise (rw / "results").fail(
                    f"expected results for arm {arm} ({self.by} {self.arms[arm]!r}); no row "
                    f"matched it (labels in the file: {labels})"
                )
        out = []
        for key, c in self.rows.items():
            arms = {
                a: _indexed(c["arms"][a]) if a in self.arms else [] for a in (*self.arms, *missing)
            }
            prompt = c["prompt"] if self.by == "provider" else None
            out.append(
                declared.case_entry(common.case_id_for(c["label"], content=key), prompt, arms)
            )
        return out

    def label(self, arm: str) -> str | None:
        """The arm's label as mapped (with its providers when matched by prompt)."""
        if arm not in self.arms:
            return None
        models = self.models[arm]
        shown = f" ({', '.join(sorted(models))})" if self.by == "prompt" and models else ""
        return f"{self.by}:{self.arms[arm]}{shown}"

    def _arm_of(self, names: list[str], w: Where) -> str:
        """The one arm mapping a row of labels ``names``.

        Raises:
            ImportError_: at ``w`` when no arm or several map the row; when none does, naming
                every label of the file's rows no arm maps: in order, each once, at most
                :data:`MAX_UNMAPPED_NAMED` then "and N more".
        """
        arms, by = self.arms, self.by
        hits = [a for a, label in arms.items() if label in names]
        if len(hits) == 1:
            return hits[0]
        what = f"several arms map ({', '.join(hits)}) this row's {by} {_shown(names)}"
        leave = "the row's label"
        if not hits:
            each = (_names(r, by, self.prompt_ids) for r in self.all_rows)
            labels = dict.fromkeys(tuple(n[:2]) for n in each if not {*n} & {*arms.values()})
            unmapped = [_shown([*n]) for n in labels]
            what = f"no arm maps this row's {by} {_shown(names)}"
            if len(unmapped) > 1:
                more = len(unmapped) - MAX_UNMAPPED_NAMED
                what = f"no arm maps {len(unmapped)} of the file's {by}s (this row's first): "
                what += "; ".join(
                    unmapped[:MAX_UNMAPPED_NAMED] + ([f"and {more} more"] if more > 0 else [])
                )
                leave = "those rows"
        given = ", ".join(f"--arm {a}={label}" for a, label in arms.items())
        raise (w / by).fail(
            f"{what} (given {given}); map each {by} label to one arm (or leave {leave} out of "
            "the file)"
        )


def _indexed(rows: list[tuple[int | None, Where, Draw]]) -> list[Draw]:
    """One case arm's draws, indexed by ``repeatIndex`` when every row has one, else in order."""
    if all(i is None for i, _, _ in rows):
        return [d.model_copy(update={"index": j}) for j, (_, _, d) in enumerate(rows)]
    seen: dict[int, Where] = {}
    for i, w, _ in sorted(rows, key=lambda r: r[0] is not None):  # a row with none first
        if i is None:
            raise (w / "repeatIndex").fail(
                "expected a repeatIndex on every row of this test and arm, as on the others; "
                "found none"
            )
        if i in seen:
            raise (w / "repeatIndex").fail(
                f"expected each repeat index once per test and arm; {i} is also at "
                f"{seen[i].pointer}"
            )
        seen[i] = w
    return [d.model_copy(update={"index": i}) for i, _, d in sorted(rows, key=lambda r: r[0] or 0)]


def _configured_grader(config: Any, w: Where) -> Judge | None:
    """The grader ``config.defaultTest.options.provider`` names (a string or ``{id}``), if any.

    Its provider is the id's prefix when promptfoo names that prefix (:data:`_PROVIDERS`), else
    none (D-13). ``w`` is ``defaultTest``'s place.
    """
    try:
        provider = config["defaultTest"]["options"]["provider"]
    except (KeyError, TypeError):
        return None
    name = provider.get("id") if isinstance(provider, dict) else provider
    if not common.is_name(name):
        return None
    at = w / "options" / "provider"
    common.within(name, at / "id" if isinstance(provider, dict) else at)
    provider = p if (p := name.split(":", 1)[0]) in _PROVIDERS and ":" in name else None
    return declared.unrecorded_judge(TOOL, "grader", model=name).model_copy(
        update={"provider": provider}
    )


#: What each line of a JSONL export holds, as a refusal says it.
_ROW = "an object with testCase and provider, one per line as `promptfoo eval -o x.jsonl` writes"
#: Largest JSONL export read, in bytes, line by line (a JSON output file: MAX_SOURCE_BYTES).
MAX_JSONL_BYTES = 512 * 1024 * 1024


def _read_output(
    path: Path, repairs: list[Repair]
) -> tuple[dict[str, Any], str, list[tuple[Any, Where]]]:
    """(document, sha256, [(result row, where)]); a JSONL export is wrapped as a JSON output."""
    if path.suffix.lower() != ".jsonl":
        doc, raw = common.read_json(path, repairs)
        validate_source(doc, "promptfoo", path)  # the shape of every member walked below
        if (v := doc["results"].get("version", 3)) not in (2, 3) or type(v) is not int:
            raise (Where(path) / "results" / "version").fail(
                f"expected a version driftproof reads, 2 or 3; found {v!r}"
            )
        rows = Where(path) / "results" / "results"
        listed = [(row, rows / i) for i, row in enumerate(doc["results"]["results"])]
        return doc, common.file_sha256(raw), listed
    digest = hashlib.sha256()
    located: list[tuple[Any, Where]] = []
    size = 0
    try:
        with open_file(path) as fh:
            for n, line in enumerate(fh, start=1):
                size += len(line)
                if size > MAX_JSONL_BYTES:
                    raise Where(path).fail(
                        f"file is over {MAX_JSONL_BYTES} bytes; at most that is read"
                    )
                digest.update(line)
                if not line.strip():
                    continue
                row = common.parse_json_bytes(line, path, repairs, pointer=f"/line {n}")
                located.append((row, Where(path, (f"line {n}",))))
    except OSError as exc:
        raise Where(path).fail(f"cannot read: {exc.strerror}") from None
    if not located:
        raise Where(path).fail("expected one promptfoo result per line; the file holds none")
    for row, where in located:  # after parsing all: a line that is not JSON is named first
        if found := promptfoo_row_found(row):
            raise where.fail(f"expected a promptfoo result ({_ROW}), found {found}")
        validate_source(row, "promptfoo", path, definition="result", prefix=where.parts)
    wrapped = {"results": {"version": 3, "results": [r for r, _ in located]}}
    return wrapped, digest.hexdigest(), located


#: At most this many unmapped labels are named in one refusal; the rest are counted.
MAX_UNMAPPED_NAMED = 10
#: Characters of a label a refusal shows.
MAX_LABEL_SHOWN = 80


def _names(row: dict[str, Any], by: str, prompt_ids: dict[Any, Any]) -> list[str]:
    """The row's labels an ``--arm`` may name: provider label and id, or the prompt's."""
    if by == "provider":
        p = row.get("provider")
        names = [p.get("label"), p.get("id")] if isinstance(p, dict) else [p]
    else:
        p = member_object(row, "prompt")
        pid = row.get("promptId")
        listed = prompt_ids.get(pid) or {}
        names = [p.get("label"), listed.get("label"), pid, p.get("raw"), listed.get("raw")]
    return [n for n in names if isinstance(n, str) and n]


def _shown(names: list[str]) -> str:
    """A row's first two labels as JSON strings: ``"label" or "id"``; ``(no label)`` for none.

    Each is cut to :data:`MAX_LABEL_SHOWN` characters, ``…`` after the quote when cut.
    """
    shown = dict.fromkeys(names[:2])  # a label that is also the id is shown once
    cut = (json.dumps(n[:MAX_LABEL_SHOWN]) + "…" * (len(n) > MAX_LABEL_SHOWN) for n in shown)
    return " or ".join(cut) or "(no label)"


def _case_key(row: dict[str, Any], w: Where) -> tuple[str, str, str | None]:
    tc = member_object(row, "testCase")
    meta = member_object(tc, "metadata")
    vars_ = tc.get("vars", row.get("vars"))
    prompt_text = member_str(member_object(row, "prompt"), "raw")
    if isinstance(meta.get("id"), (str, int)) and not isinstance(meta.get("id"), bool):
        common.unblank(meta["id"], w / "testCase" / "metadata" / "id", "the test's id")
        return f"id:{meta['id']}", str(meta["id"]), prompt_text
    desc = tc.get("description")
    desc = desc if common.is_name(desc) else None
    common.sealable(vars_, w / "testCase" / "vars" if "vars" in tc else w / "vars")
    canonical = common.canonical_json({"description": desc, "vars": vars_})
    assert canonical is not None  # strict JSON (no NaN), every integer exact (sealable)
    content, digest = canonical.decode("utf-8"), common.file_sha256(canonical)
    return f"content:{content}", desc or f"case-{digest[:12]}", prompt_text


def _draw(row: dict[str, Any], w: Where, overhead: dict[str, Any]) -> Draw:
    response = member_object(row, "response")
    answer = json_text(response.get("output"))
    used_w = w / "response" / "tokenUsage"
    tokens = common.source_tokens(response.get("tokenUsage"), "prompt", "completion", used_w)
    reason = row.get("failureReason")
    grading = row.get("gradingResult")  # an object or null, as the schema checked
    if reason in (None, 0) and isinstance(row.get("error"), str) and grading is None:
        # no failureReason, or 0 (a provider error kept 0 before promptfoo PR 3141): an error
        reason = 2
    checks = checks_of(grading, w / "gradingResult")
    draw = partial(build_draw, 0, answer=answer, tokens=tokens, checks=checks)
    if reason == 2:
        error = row.get("error")
        error = error if isinstance(error, str) else "promptfoo recorded an error (failureReason 2)"
        return draw(lost_reason=error_reason(error), source_error=error[:4000])
    if grading and grading.get("reason") == _UNGRADED and not grading.get("componentResults"):
        return draw(lost_reason=f"promptfoo graded no assertion: {_UNGRADED}", lost_kind="unscored")
    if "score" not in row or row["score"] is None:
        raise (w / "score").fail("expected the result's score (a number between 0 and 1)")
    score = common.unit_score(row["score"], w / "score")
    # promptfoo copies its grading's score into the result's (src/evaluator.ts)
    graded = (grading or {}).get("score")
    if type(graded) in (int, float) and graded != score:  # no number: not compared
        raise (w / "score").fail(
            f"expected {graded!r}, the same figure at {(w / 'gradingResult' / 'score').pointer}; "
            f"found {score!r}: the source contradicts itself"
        )
    if grading is not None:
        gw = w / "gradingResult" / "tokensUsed"
        used = common.source_tokens(grading.get("tokensUsed"), "prompt", "completion", gw)
        overhead["judged_draws_counted" if used else "judged_draws_missing_usage"] += 1
        if used is not None:
            common.add_tokens(overhead, used, ("prompt", "completion"), gw)
    broke = next((i for i, c in enumerate(checks) if c["outcome"] == "error"), None)
    if broke is not None:  # promptfoo counts an assertion that could not run as a 0 in the score
        said = member_str(member_list(grading, "componentResults")[broke], "reason")
        why = f"{checks[broke]['name']} could not run: {said or 'no reason given'}"
        return draw(lost_reason=why[:4000], lost_kind="unscored")
    return draw(score=score)
