"""promptfoo output files (``eval -o`` JSON, or a JSONL export) → a DECLARED receipt (D-15).

The user maps prompt or provider labels to arms; repeats are grouped by the test's content,
never ``testIdx``; every assertion is a check. The mapping is the interop page's ("promptfoo").
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from driftproof._json import member_object
from driftproof.importers import Imported, register
from driftproof.importers._common import OPTIONS, Where, case_id_for, read_skill_md, sole
from driftproof.importers._declared import (
    arm_spec,
    case_entry,
    declared_receipt,
    provenance,
    unrecorded_judge,
)
from driftproof.importers._promptfoo_rows import arm_of, case_key, draw, read_output, repeat_index
from driftproof.importers._text import Repair
from driftproof.importers._time import parse_instant, run_times
from driftproof.receipt import Case, Draw, Judge

TOOL = "promptfoo"
_ARMS = ("with_skill", "baseline", "control")


@dataclass(frozen=True)
class PromptfooOptions:
    """Options of a promptfoo import.

    Attributes:
        arms: receipt arm -> label; with_skill or baseline alone is a single-arm import.
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

    Raises:
        ImportError_: malformed file, a row no arm maps, or an arm matching no row; naming the
            file, the JSON pointer and what was expected.
    """
    path, o, arms, by = Path(path), options, options.arms, options.by
    if by not in ("provider", "prompt"):
        raise OPTIONS.fail(f"--by: expected provider or prompt, found {by!r}")
    if not {"with_skill", "baseline"} & set(arms) or set(arms) - set(_ARMS):
        raise OPTIONS.fail(
            "expected an arm mapping naming with_skill and/or baseline (and "
            "optionally control), e.g. --arm with_skill=LABEL --arm baseline=LABEL; one of the "
            "two alone is a single-arm import"
        )
    missing = [a for a in ("with_skill", "baseline") if a not in arms]
    repairs: list[Repair] = []
    doc, sha, located = read_output(path, repairs)
    grouped = _Grouped(arms, by, doc)
    for row, iw in located:
        grouped.add(row, iw)
    model = sole(set().union(*grouped.models.values()))
    provider_name = None
    if model is not None and model.split(":", 1)[0] in ("openai", "anthropic"):
        provider_name = model.split(":", 1)[0]
    meta = member_object(doc, "metadata")
    version = (
        meta.get("promptfooVersion") if isinstance(meta.get("promptfooVersion"), str) else None
    )
    repeat = member_object(member_object(doc, "config"), "evaluateOptions").get("repeat")
    gens = (
        repeat if isinstance(repeat, int) and not isinstance(repeat, bool) and repeat >= 1 else None
    )
    judge = _configured_grader(doc.get("config"))
    stamp = doc["results"].get("timestamp")
    stamped = isinstance(stamp, str) and stamp
    times = run_times(
        [parse_instant(stamp, Where(path) / "results" / "timestamp")] if stamped else [], []
    )
    lacking = (
        (judge is None, "judge.model (no grader provider in config.defaultTest.options)"),
        (True, "judge_samples_per_generation"),
        (True, "run.surface"),
        (True, "run.harness"),
        (True, "each case's rubric_sha256"),
        (model is None, "run.model (the arms used different providers; see arms labels)"),
        (gens is None, "generations_per_arm (no repeat count in config.evaluateOptions)"),
        (o.skill_md is None, "skill.sha256 and skill.tokens (SKILL.md not given)"),
        (version is None, "provenance.tool_version (metadata.promptfooVersion absent)"),
        (times["started_at"] is None, "run.started_at (no results.timestamp)"),
        *(
            (True, f"the {a} arm (a single-arm import: no lift, no interval, no value per token)")
            for a in missing
        ),
    )
    unrecorded = [text for unrecorded, text in lacking if unrecorded]
    body = declared_receipt(
        o.skill_name,
        read_skill_md(o.skill_md),
        grouped.cases(missing, Where(path) / "results"),
        provenance(TOOL, version, str(path), sha, unrecorded, notes=grouped.notes()),
        model=model,
        provider=provider_name,
        started_at=times["started_at"],
        run_members={"started_at_offset": times["started_at_offset"]},
        generations_per_arm=gens,
        judge=judge or unrecorded_judge(TOOL, "grader"),
        arms={a: arm_spec(grouped.label(a), recorded=a not in missing) for a in (*arms, *missing)},
        band_source="generation",
        judge_overhead=grouped.overhead(),
    )
    return [Imported.named(TOOL, body, repairs=repairs)]


class _Grouped:
    """The result rows grouped by test case and arm, with what they add up to."""

    def __init__(self, arms: dict[str, str], by: str, doc: dict[str, Any]) -> None:
        self.arms, self.by = arms, by
        prompts = doc["results"].get("prompts") or []
        self.prompt_ids = {p.get("id"): p for p in prompts if isinstance(p, dict)}
        self.rows: dict[str, dict[str, Any]] = {}
        self.used = {a: 0 for a in arms}
        self.models: dict[str, set[str]] = {a: set() for a in arms}
        self.tokens = {"input_tokens": 0, "output_tokens": 0, "counted": 0, "missing": 0}
        self.ambiguous = 0

    def add(self, row: dict[str, Any], iw: Where) -> None:
        """File one result row under its case and arm.

        Raises:
            ImportError_: a row no arm (or several) maps.
        """
        arm = arm_of(row, self.arms, self.by, self.prompt_ids, iw)
        self.used[arm] += 1
        provider = member_object(row, "provider")
        if isinstance(provider.get("id"), str):
            self.models[arm].add(provider["id"])
        key, label, prompt_text = case_key(row, iw)
        case = self.rows.setdefault(
            key, {"label": label, "prompt": prompt_text, "arms": {a: [] for a in self.arms}}
        )
        case["arms"][arm].append((repeat_index(row, iw), iw, draw(row, iw, self.tokens)))
        if row.get("failureReason") is None and isinstance(row.get("error"), str):
            self.ambiguous += 1

    def cases(self, missing: list[str], rw: Where) -> list[Case]:
        """The receipt's cases, an arm the import does not hold left empty.

        Raises:
            ImportError_: an arm no row matched.
        """
        for arm, n in self.used.items():
            if n == 0:
                raise (rw / "results").fail(
                    f"expected results for arm {arm} ({self.by} {self.arms[arm]!r}); no row "
                    "matched it"
                )
        out = []
        for key, c in self.rows.items():
            arms: dict[str, Any] = {}
            for arm in _ARMS:
                if arm in self.arms:
                    arms[arm] = _indexed(c["arms"][arm])
                elif arm in missing:
                    arms[arm] = []
            prompt = c["prompt"] if self.by == "provider" else None
            out.append(case_entry(case_id_for(c["label"], content=key), prompt, arms))
        return out

    def label(self, arm: str) -> str | None:
        """The arm's label as mapped (with its providers when matched by prompt)."""
        if arm not in self.arms:
            return None
        models = self.models[arm]
        shown = f" ({', '.join(sorted(models))})"[:100] if self.by == "prompt" and models else ""
        return f"{self.by}:{self.arms[arm]}"[:200] + shown

    def notes(self) -> list[str] | None:
        """What a reader must know of the rows: errors that cannot be told from failures."""
        if not self.ambiguous:
            return None
        return [
            f"{self.ambiguous} row(s) carry an error message but no failureReason (a version 2 "
            "or older version 3 file): promptfoo also writes an assertion's failure reason there, "
            "so an error cannot be told from a failed assertion; a row with no grading is read "
            "as an error (lost), one with grading as measured."
        ]

    def overhead(self) -> dict[str, Any] | None:
        """The grader's token use the rows reported; ``None`` when none did."""
        t = self.tokens
        if not t["counted"]:
            return None
        return {
            "input_tokens": t["input_tokens"],
            "output_tokens": t["output_tokens"],
            "usd": None,
            "judged_draws_counted": t["counted"],
            "judged_draws_missing_usage": t["missing"],
        }


def _indexed(rows: list[tuple[int | None, Where, Draw]]) -> list[Draw]:
    """The draws of one case arm, indexed by ``repeatIndex`` when every row has one, else in order.

    Fails when only some rows have a repeat index, or one is repeated.
    """
    recorded = [r for r in rows if r[0] is not None]
    if not recorded:
        return [d.model_copy(update={"index": j}) for j, (_, _, d) in enumerate(rows)]
    if len(recorded) != len(rows):
        w = next(w for i, w, _ in rows if i is None)
        raise (w / "repeatIndex").fail(
            "expected a repeatIndex on every row of this test and arm, as on the others; found none"
        )
    seen: dict[int, Where] = {}
    indexed = [(i, w, d) for i, w, d in rows if i is not None]
    for i, w, _ in indexed:
        if i in seen:
            raise (w / "repeatIndex").fail(
                f"expected each repeat index once per test and arm; {i} is also at "
                f"{seen[i].pointer}"
            )
        seen[i] = w
    return [d.model_copy(update={"index": i}) for i, _, d in sorted(indexed, key=lambda r: r[0])]


def _configured_grader(config: Any) -> Judge | None:
    """The grader ``config.defaultTest.options.provider`` names (a string or ``{id}``), if any."""
    try:
        provider = config["defaultTest"]["options"]["provider"]
    except (KeyError, TypeError):
        return None
    name = provider.get("id") if isinstance(provider, dict) else provider
    if not isinstance(name, str) or not name.strip():
        return None
    provider = name.split(":", 1)[0][:100] if ":" in name else None
    return unrecorded_judge(TOOL, "grader", model=name).model_copy(update={"provider": provider})
