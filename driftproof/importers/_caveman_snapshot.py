"""caveman's snapshot contract (its ``snapshot_contract.py``), a partial run and ``usage`` block.

Every refusal names the snapshot's own JSON pointer. Both snapshot kinds end in
:func:`arm_receipts`, one receipt per skill arm.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from driftproof._json import json_kind, pointer, read_skill_md
from driftproof.importers import Imported
from driftproof.importers import _common as common
from driftproof.importers import _declared as declared
from driftproof.importers._common import Where
from driftproof.importers._text import Repair
from driftproof.receipt import Draw, Provenance
from driftproof.receipt._bounds import JSON_SAFE_INTEGER

#: caveman's arm with no system prompt (the baseline, D-16).
BASELINE_ARM = "__baseline__"
#: caveman's arm with the terse prefix as system prompt (the control, D-16).
CONTROL_ARM = "__terse__"
#: Receipt arm -> caveman's control arm.
CONTROLS = {"baseline": BASELINE_ARM, "control": CONTROL_ARM}
#: Bytes: the largest snapshot read.
SNAPSHOT_MAX_BYTES = 32 * 1024 * 1024
_ARM_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,80}$")


#: Characters: the receipt schema's limits for the metadata texts caveman's snapshot contract
#: requires (each a non-empty string), checked on the snapshot so a refusal names the snapshot's
#: pointer, not the receipt's.
_META_TEXT: dict[str, tuple[str, int]] = {
    "model": ("a model id", 200),
    "generated_at": ("a date-time", 64),
    "terse_prefix": ("the control arm's instruction", 262_144),
    "claude_cli_version": ("a Claude Code version", 200),
}
#: The members caveman's ``llm_run.py`` writes: the snapshot's, and its metadata's (``error``
#: only on a partial run); any other member is refused, as its meaning is unknown.
_MEMBERS = frozenset({"metadata", "prompts", "arms", "usage"})
_META_MEMBERS = frozenset({*_META_TEXT, "n_prompts", "lang", "eval_set", "error"})


@dataclass(frozen=True)
class CavemanOptions:
    """Options of a caveman import.

    Attributes:
        skills_dir: ``skills/`` as it was when the snapshot ran, ``<arm>/SKILL.md`` per skill arm.
        source_commit: caveman's git commit (7-40 hex digits): ``provenance.tool_version`` and
            the file names ``caveman-<commit[:7]>-<arm>.json``.
        cases: ``evals/prompts/fidelity.json``: the snapshot is scored against its checks and
            it is the receipt's suite.
        rubrics: ``evals/prompts/rubrics.json``, which a judged fidelity snapshot must match.
    """

    skills_dir: str | Path
    source_commit: str | None = None
    cases: str | Path | None = None
    rubrics: str | Path | None = None


def prompt_ids(n: int) -> list[str]:
    """Case ids ``p01``, ``p02``… of ``n`` prompts (at least two digits)."""
    width = max(2, len(str(n)))
    return [f"p{i + 1:0{width}d}" for i in range(n)]


def load_snapshot(path: Path, shown: str, repairs: list[Repair]) -> tuple[Any, str]:
    """The parsed snapshot and the sha256 of its bytes."""
    data = common.read_bytes(path, SNAPSHOT_MAX_BYTES)
    parsed = common.parse_json_bytes(data, shown, repairs, lead="not valid JSON")
    return parsed, common.file_sha256(data)


@dataclass(frozen=True)
class Snapshot:
    """A snapshot that passed caveman's contract.

    ``arms`` and ``usage`` map arm -> one entry per prompt, ``None`` for an unfinished cell; a
    usage cell is its four token counts and ``cost_usd`` (US dollars, ``None``: not recorded);
    ``usage`` is ``None`` without a ``usage`` block; ``error`` is a partial run's.
    """

    meta: dict[str, Any]
    prompts: list[str]
    arms: dict[str, list[str | None]]
    usage: dict[str, list[dict[str, Any] | None]] | None
    error: str | None


#: The token members of a usage cell, as caveman's snapshot contract requires them.
USAGE_TOKENS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)


_USAGE_MEMBERS = frozenset({*USAGE_TOKENS, "total_cost_usd"})


def check_snapshot(doc: Any, shown: str) -> Snapshot:
    """Check a snapshot against caveman's contract; a null cell and ``metadata.error`` go together.

    Raises:
        ImportError_: naming ``shown``, the snapshot's JSON pointer and what was expected.
    """
    w = Where(shown)
    if not isinstance(doc, dict):
        raise w.fail("expected a JSON object with metadata, prompts and arms")
    only_members(doc, _MEMBERS, w)
    meta, mw = doc.get("metadata"), w / "metadata"
    if not isinstance(meta, dict):
        raise mw.fail("expected an object (the snapshot's metadata)")
    only_members(meta, _META_MEMBERS, mw)
    error = meta.get("error")
    if "error" in meta and (not isinstance(error, str) or not error.strip()):
        raise (mw / "error").fail(
            f"expected the error that stopped the run (a non-empty string), "
            f"found {json_kind(error)}"
        )
    prompts = doc.get("prompts")
    if not isinstance(prompts, list) or not prompts:
        raise (w / "prompts").fail("expected a non-empty list of prompt strings")
    for i, p in enumerate(prompts):
        if not isinstance(p, str) or not p:
            raise (w / "prompts" / i).fail(f"expected a non-empty prompt string, found {_kind(p)}")
    n = meta.get("n_prompts")
    if type(n) is not int or n != len(prompts):
        raise (mw / "n_prompts").fail(
            f"expected {len(prompts)} (the length of /prompts), found {json.dumps(n)}"
        )
    arms = _arms(doc.get("arms"), len(prompts), error, w)
    usage = _usage(doc, arms, len(prompts), w) if "usage" in doc else None
    _metadata_text(meta, mw)
    return Snapshot(meta, prompts, arms, usage, error)


def _kind(value: Any) -> str:
    """:func:`json_kind`, with ``""`` as an empty string."""
    return "an empty string" if value == "" else json_kind(value)


def only_members(obj: dict[str, Any], known: frozenset[str], w: Where) -> None:
    """Refuse the first member of ``obj`` that caveman (its runner or judge) never writes there."""
    for key in obj:
        if key not in known:
            raise (w / key).fail(
                f"expected only the members caveman writes here "
                f"({', '.join(sorted(known))}), found {json.dumps(key)[:60]}"
            )


def _arms(arms: Any, n: int, error: str | None, w: Where) -> dict[str, list[str | None]]:
    """The snapshot's ``arms``: both controls and a skill arm, ``n`` outputs each; else fail."""
    aw = w / "arms"
    if not isinstance(arms, dict):
        raise aw.fail("expected an object of arm name -> list of outputs")
    for control in (BASELINE_ARM, CONTROL_ARM):
        if control not in arms:
            raise (aw / control).fail(
                f"missing control arm {control}: expected both {BASELINE_ARM} and {CONTROL_ARM}"
            )
    if len(arms) < 3:
        raise aw.fail("expected at least one skill arm beside the two control arms")
    unfinished: Where | None = None
    for name, outputs in arms.items():
        if not _ARM_NAME.fullmatch(name) and name not in (BASELINE_ARM, CONTROL_ARM):
            raise (aw / name).fail("expected a skill arm name of lowercase letters, digits, - or _")
        _cells(outputs, n, aw / name, "output")
        for i, out in enumerate(outputs):
            if out is None:
                unfinished = unfinished or aw / name / i
            elif not isinstance(out, str):
                raise (aw / name / i).fail(f"expected a string output, found {json_kind(out)}")
    if unfinished is not None and error is None:
        raise unfinished.fail(
            "null cell: this call never finished (a partial snapshot), but /metadata/error "
            "does not say why; expected a string output, or the run's error in /metadata/error"
        )
    if error is not None and unfinished is None:
        raise (w / "metadata" / "error").fail(
            "a partial snapshot (the run stopped with this error) with every cell filled; "
            "expected the unfinished cells as null"
        )
    return arms


def _metadata_text(meta: dict[str, Any], mw: Where) -> None:
    """Refuse metadata text missing, empty, of the wrong type or length, or no date-time start.

    caveman's snapshot contract requires each of ``_META_TEXT`` as a non-empty string.
    """
    for key, (what, limit) in _META_TEXT.items():
        value = meta.get(key)
        if not isinstance(value, str) or not value:
            found = "no member" if key not in meta else _kind(value)
            raise (mw / key).fail(
                f"expected {what} (a non-empty string, which caveman's snapshot contract "
                f"requires), found {found}"
            )
        if isinstance(value, str) and len(value) > limit:
            raise (mw / key).fail(
                f"expected {what} of at most {limit} characters, found {len(value)}"
            )
    started = meta.get("generated_at")
    if isinstance(started, str) and started.strip() and not common.RFC3339.fullmatch(started):
        raise (mw / "generated_at").fail(
            f"expected {common.DATE_TIME}, found {json.dumps(started[:64])}"
        )


def _cells(cells: Any, n: int, w: Where, what: str) -> None:
    """Refuse ``cells`` unless it is a list of one ``what`` per prompt."""
    if not isinstance(cells, list):
        raise w.fail(f"expected a list of {n} {what}s, found {json_kind(cells)}")
    if len(cells) != n:
        raise w.fail(f"expected exactly one {what} per prompt ({n}), found {len(cells)}")


def _usage(
    doc: dict[str, Any], arms: dict[str, list[Any]], n: int, w: Where
) -> dict[str, list[dict[str, Any] | None]]:
    """The ``usage`` block: ``arms``'s shape, counts and cost >= 0, null where the output is."""
    usage = doc["usage"]
    if not isinstance(usage, dict) or set(usage) != set(arms):
        found = json_kind(usage)
        if isinstance(usage, dict):
            found = ", ".join(json.dumps(a) for a in sorted(usage)) or "no arms"
        raise (w / "usage").fail(
            f"expected an object with the arms of /arms ({', '.join(arms)}), found {found}"
        )
    out: dict[str, list[dict[str, Any] | None]] = {}
    for name, cells in usage.items():
        _cells(cells, n, w / "usage" / name, "usage cell")
        row: list[dict[str, Any] | None] = []
        out[name] = row
        for i, cell in enumerate(cells):
            cw, output = w / "usage" / name / i, arms[name][i]
            if (cell is None) != (output is None):
                raise cw.fail(
                    "expected a usage cell exactly where /arms has an output "
                    f"(the output at {pointer(('arms', name, i))} is "
                    f"{'null' if output is None else 'there'})"
                )
            if cell is None:
                row.append(None)
                continue
            if not isinstance(cell, dict):
                raise cw.fail(f"expected an object of token counts, found {json_kind(cell)}")
            only_members(cell, _USAGE_MEMBERS, cw)
            for key in USAGE_TOKENS:
                if not common.count_at(value := cell.get(key), cw / key):
                    raise (cw / key).fail(
                        f"expected a non-negative integer, found {json_kind(value)}"
                    )
            if (
                billed := sum(cell[k] for k in USAGE_TOKENS if k != "output_tokens")
            ) > JSON_SAFE_INTEGER:
                raise cw.fail(
                    f"{common.COUNT_TOO_BIG} input tokens as billed (input, cache creation and "
                    f"cache read input tokens together), found {billed:,}"
                )
            cost = cell.get("total_cost_usd")
            if cost is not None and (type(cost) not in (int, float) or not 0 <= cost < math.inf):
                raise (cw / "total_cost_usd").fail(
                    f"expected a non-negative number of US dollars, found {json_kind(cost)}"
                )
            cost_usd = common.source_number(cost, cw / "total_cost_usd")
            row.append({k: cell[k] for k in USAGE_TOKENS} | {"cost_usd": cost_usd})
    return out


def skill_text(skills_dir: Path, arm: str, shown: str) -> str:
    """The SKILL.md of skill arm ``arm`` under ``skills_dir`` as text.

    Raises:
        ImportError_: missing, or as :func:`~driftproof._json.read_skill_md` refuses it
            (unreadable, too large, not UTF-8 or empty), named at the arm's pointer of the
            snapshot ``shown``.
    """
    path = skills_dir / arm / "SKILL.md"
    w = Where(shown) / "arms" / arm
    if not path.is_file():
        raise w.fail(f"no SKILL.md for this skill arm: expected the file {path}")
    return read_skill_md(path, lambda why: w.fail(f"{path}: {why}"))


def arm_receipts(
    draws: dict[str, list[Draw]],
    prompts: list[str],
    ids: list[str],
    skills: dict[str, str],
    name: str,
    source: Provenance,
    o: CavemanOptions,
    repairs: list[Repair],
    *,
    categories: list[str | None] | None = None,
    instruction: str | None = None,
    figures: Callable[[dict[str, str]], list[dict[str, Any]]] | None = None,
    **run: Any,
) -> list[Imported]:
    """One receipt per skill arm of ``draws`` (arm -> a draw per prompt), in its order.

    Named ``caveman-[<commit[:7]>-]`` + ``name`` (``{}``: the arm); a control arm not in ``draws``
    is unrecorded (D-13); ``figures`` maps receipt arm -> caveman arm to the source's figures.
    """
    prefix = f"caveman-{o.source_commit[:7]}-" if o.source_commit else "caveman-"
    names = ("with_skill", "baseline", "control")
    out: list[Imported] = []
    for arm in (a for a in draws if a not in CONTROLS.values()):
        held = {"with_skill": arm, **{n: a for n, a in CONTROLS.items() if a in draws}}
        cases = [
            declared.case_entry(
                ids[i],
                prompt,
                {n: [draws[held[n]][i]] if n in held else [] for n in names},
                category=categories[i] if categories is not None else None,
            )
            for i, prompt in enumerate(prompts)
        ]
        document = declared.declared_receipt(
            arm,
            skills[arm],
            cases,
            source,
            **run,
            arms={
                n: declared.arm_spec(
                    held.get(n),
                    instruction=instruction if n == "control" else None,
                    recorded=n in held,
                )
                for n in names
            },
            **({"source_report": {"figures": figures(held)}} if figures is not None else {}),
        )
        out.append(Imported(prefix + name.format(arm), document, tuple(repairs)))
    return out
