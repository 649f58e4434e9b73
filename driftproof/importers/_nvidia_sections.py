"""The agents and tiers of an NVIDIA skill benchmark card, as SkillEvaluator prints them.

The tiers' writer is SkillEvaluator's ``reporting/benchmark.py`` (``_render_tier_status``): a table
``| Tier | Purpose | Status | Evidence |``, one row per tier, then for a tier that was skipped
"Tier 2 validation was skipped and executed 0 checks." and a bullet per reason. The receipt
keeps a tier's name, title and status as a stage; what it has no field for (the Evidence cell, a
sentence about a tier) is kept in its notes as printed, naming the card's line.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from driftproof.errors import ImportError_
from driftproof.importers._counts import is_name
from driftproof.receipt import cut_label

#: A results column whose every cell gives a baseline and a score: ``(Baseline → Skill Uplift)``
#: after the agent's name in its header.
PAIRED = re.compile(r"\(\s*Baseline\s*(?:→|->)\s*Skill Uplift\s*\)")


def agent_name(header: str) -> str:
    """An agent's name as the receipt keeps it: lowercase, dashes, no bracketed parts."""
    name = PAIRED.sub("", header)
    name = re.sub(r"\s*\(.*?\)\s*", "", name).strip().strip("`").strip()
    return name.lower().replace(" ", "-")


#: The most agents a card or catalogue entry may name: SkillEvaluator runs three (claude-code,
#: codex, opencode: ``HARBOR_AGENTS_SUPPORTED`` at e70f0e3), NVIDIA/skills' cards name one or two.
MAX_AGENTS = 20
#: A control character (Unicode category Cc), which no agent's name holds.
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
#: A results column that says an agent failed ("Failed agents", "Codex (failed)"): the receipt
#: has no place to mark an agent as failed, so its figures would read as any other agent's.
_FAILED = re.compile(r"\bfail(?:s|ed|ures?)?\b", re.IGNORECASE)


class Line(NamedTuple):
    """Line ``n`` (and ``column``) of the card ``file``, where a refusal points."""

    file: str
    n: int
    column: int | None = None

    def fail(self, message: str) -> ImportError_:
        """The refusal at this place (raise it)."""
        column = f", column {self.column}" if self.column is not None else ""
        return ImportError_.at(self.file, f"line {self.n}{column}", message)


def _control(printed: str, at: Line, what: str = "an agent's name") -> None:
    """Refuse ``what`` (an agent's name, its model) holding a control character, at ``at``."""
    if CONTROL.search(printed):
        raise at.fail(f"expected {what} with no control character, found {printed.strip(' ')!r}")


def results_head(cells: list[str], at: Line) -> None:
    """A results table's head: each column after the first but ``Num`` is one agent's.

    Raises:
        ImportError_: a column that says an agent failed, an agent's name holding a control
            character, or more than ``MAX_AGENTS`` agents' columns, naming the line.
    """
    agents = [(i, c) for i, c in enumerate(cells) if i and c.strip("`* ") != "Num"]
    for i, column in agents:
        cell = at._replace(column=i + 1)
        _control(column, cell)
        if _FAILED.search(column):
            raise cell.fail(
                f"expected a column per agent, found {column!r}: the receipt has no place to "
                "mark an agent as failed, so its figures would read as any other agent's"
            )
    if len(agents) > MAX_AGENTS:
        raise at.fail(
            f"expected at most {MAX_AGENTS} agents' columns (SkillEvaluator runs three), "
            f"found {len(agents)}"
        )


#: An agent as SkillEvaluator labels it (``_agent_label``): its name, then its model in backticks
#: or "(model not recorded)".
_AGENT_LABEL = r"(?P<name>[^,(`]+?)\s*\((?:`(?P<model>[^`]*)`|model not recorded)\)"
#: What SkillEvaluator prints for agents that were asked for but never ran, or for none.
_AGENTS_NOT_RUN = "requested but not run"
_NO_AGENTS = "- Tier 3 agent details were not available in this report."


def _add_agent(card: dict[str, Any], printed: str, model: str | None, at: Line) -> None:
    """One agent into ``card["agents"]``, once: a repeat may give the model it lacked.

    Raises:
        ImportError_: an agent with no name, a name or model holding a control character, one past
            ``MAX_AGENTS``, or one the card named before (``card["agent_at"]``: agent → (its
            entry, line)) with another model: the card contradicts itself.
    """
    _control(printed, at)
    _control(model or "", at, "an agent's model")
    model = model if is_name(model) else None  # blank backticks name no model
    agent = agent_name(printed)
    if not agent:
        raise at.fail(f"expected an agent's name before its model, found {printed!r}")
    if agent in card["agent_at"]:
        entry, first = card["agent_at"][agent]
        said, entry["model"] = entry["model"], entry["model"] or model
        if None not in (said, model) and said != model:
            raise at.fail(
                f"expected agent {printed.strip()!r} with model {said!r} as on line {first}, where "
                f"the card first names it; found {model!r}: the card contradicts itself"
            )
        return
    if len(card["agents"]) == MAX_AGENTS:
        raise at.fail(
            f"expected at most {MAX_AGENTS} agents (SkillEvaluator runs three); "
            f"{printed.strip()!r} is agent {MAX_AGENTS + 1}"
        )
    card["agent_at"][agent] = ({"agent": agent, "printed": printed.strip(), "model": model}, at.n)
    card["agents"].append(card["agent_at"][agent][0])


def inline_agents(value: str, card: dict[str, Any], at: Line) -> None:
    """A "- Agents: …" value into the card's agents, one per ``_AGENT_LABEL``; else fail.

    Agents the card says were requested but not run are not agents of its figures: the line
    goes to ``card["said"]`` instead.
    """
    if value.startswith(_AGENTS_NOT_RUN):
        card["said"].append(cut_label(f"Agents: {value}", 500))
        return
    labels = list(re.finditer(_AGENT_LABEL, value))
    if ", ".join(m.group(0).strip() for m in labels) != value.strip():
        raise at.fail(
            f"expected agents such as 'Claude Code (`model`), Codex (model not recorded)', "
            f"found {value.strip()[:200]!r}"
        )
    for m in labels:
        _add_agent(card, m.group("name"), m.group("model"), at)


def _agents_used_line(line: str, card: dict[str, Any], at: Line) -> None:
    """One bullet of an Agents Used section: `` - `codex` `` or ``- Codex (`model`)``; else fail."""
    if not line.startswith("- ") or line == _NO_AGENTS:
        return
    if m := re.fullmatch(r"- `([^`]+)`", line):
        _add_agent(card, m.group(1), None, at)
    elif m := re.fullmatch(rf"- {_AGENT_LABEL}", line):
        _add_agent(card, m.group("name"), m.group("model"), at)
    else:
        raise at.fail(
            f"expected an agent such as '- `codex`' or '- Codex (`model`)', found {line[:200]!r}"
        )


def agents_section_line(section: str, line: str, card: dict[str, Any], at: Line) -> None:
    """A line of an agents section: "Agents Used" bullets are read (``_agents_used_line``).

    A governance card's hand-written "Evaluation Agents Used" bullets are not read as its agents:
    each goes to ``card["said"]`` as printed, so the receipt says what it did not read.
    """
    if section == "agents used":
        _agents_used_line(line, card, at)
    elif section == "evaluation agents used" and line.startswith("- "):
        agent = cut_label(re.sub(r"\s*<br\s*/?>$", "", line[2:]))
        _control(agent, at)
        card["said"].append(f"Evaluation Agents Used (not read as its agents): {agent}")


#: A Tier Status cell, as printed, → the stage status; NOT RUN is a stage that never ran.
_TIER_STATUS = {
    "PASSED": "passed",
    "PASS": "passed",
    "PASSED WITH OBSERVATIONS": "passed_with_observations",
    "FAILED": "failed",
    "FAIL": "failed",
    "NOT RUN": "not_run",
    "INCOMPLETE": "incomplete",
}
#: The Tier Status table's head as SkillEvaluator writes it.
_HEAD = ["Tier", "Purpose", "Status", "Evidence"]
#: The most tiers a receipt keeps as stages (the receipt schema's bound).
MAX_TIERS = 50
#: A sentence about one tier, outside a table: "Tier 2 validation was skipped and executed 0
#: checks.", "- Tier 3 evidence: required for publication", an "Evaluation Report" card's "Tier 1
#: validation passed. NVSkills-Eval ran 9 checks and found 0 total findings." and "This tier was
#: not run or did not produce findings in this report." under its tier's heading.
_PER_TIER = re.compile(r"^(?:- )?(?:Tier \d+\b|This tier\b)")
_SKIPPED = re.compile(r"^Tier \d+ validation was skipped\b")
#: A cell boundary: a pipe the writer did not escape (``_md_cell`` writes ``\\|`` in a cell).
_CELL = re.compile(r"(?<!\\)\|")


def tier_status_line(line: str, head: bool, card: dict[str, Any], at: Line) -> None:
    """One line of the Tier Status table: its head checked, a row read as a stage.

    A row's Evidence cell goes to ``card["kept"]`` as ``(n, "Tier Status", "evidence for Tier
    1: …")``.

    Raises:
        ImportError_: a head other than ``_HEAD``, a row of another shape, or a tier past
            ``MAX_TIERS``, naming the line.
    """
    cells = [c.strip() for c in _CELL.split(line.strip().strip("|"))]
    if head:
        if [c.strip("`* ") for c in cells] != _HEAD:
            raise at.fail(
                f"expected the Tier Status table's head '| {' | '.join(_HEAD)} |', "
                f"found {line[:200]!r}"
            )
        return
    if all(set(c) <= set("-: ") for c in cells):
        return
    # a tier numbered in at most 3 digits (SkillEvaluator numbers them 1 to 3): a longer name
    # would not fit a receipt's stage name (200 characters)
    if len(cells) != len(_HEAD) or not re.fullmatch(r"Tier \d{1,3}", cells[0]):
        raise at.fail(
            "expected a tier's row such as '| Tier 1 | Static validation | **PASSED** | 1 "
            f"validator(s); 0 finding(s) |', found {line[:200]!r}"
        )
    if len(card["tiers"]) == MAX_TIERS:
        raise at.fail(f"expected at most {MAX_TIERS} tiers (the most a receipt keeps)")
    printed = cells[2].replace("**", "").strip()
    card["tiers"].append(
        {
            "name": cells[0],
            "title": cut_label(cells[1]) or None,
            "status": _TIER_STATUS.get(printed.upper(), "other"),
            "printed": cut_label(printed),
        }
    )
    card["kept"].append((at.n, "Tier Status", f"evidence for {cells[0]}: {cells[3]}"))


def per_tier_line(line: str, heading: str, card: dict[str, Any], n: int) -> None:
    """A line not otherwise read, kept when it is a sentence about a tier or a skipped tier's.

    Kept as ``(n, heading, text)`` in ``card["kept"]``: a line ``_PER_TIER`` matches, and each
    reason bullet after "Tier N validation was skipped …" until a blank line.
    """
    if not line:
        card["skip_reasons"] = False
    elif _PER_TIER.match(line) or (card["skip_reasons"] and line.startswith("- ")):
        card["kept"].append((n, heading, line.removeprefix("- ")))
        card["skip_reasons"] = card["skip_reasons"] or bool(_SKIPPED.match(line))
