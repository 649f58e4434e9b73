"""An NVIDIA skill benchmark card read as printed: summary lines and results cells."""

from __future__ import annotations

import re
from typing import Any

from driftproof.importers._counts import COUNT_TOO_BIG, is_name
from driftproof.importers._nvidia_sections import (
    PAIRED,
    Line,
    agent_name,
    agents_section_line,
    inline_agents,
    per_tier_line,
    results_head,
    tier_status_line,
)
from driftproof.receipt._bounds import JSON_SAFE_INTEGER, cut_label, quote

#: The overall verdicts a card or catalogue gives, and whether each is a pass: SkillEvaluator's
#: card states PASS, FAIL, NEUTRAL (a dimension below PASS, so not a pass) or INCOMPLETE (required
#: evidence missing, so no decision: ``None``).
VERDICTS = {"PASS": True, "FAIL": False, "NEUTRAL": False, "INCOMPLETE": None}

_NUM = r"\d+(?:\.\d+)?"
_CELL_V2 = re.compile(
    rf"^(?P<base>{_NUM})\s*(?P<bu>%)?\s*(?:→|->)\s*(?P<score>{_NUM})\s*(?P<su>%)?\s*"
    rf"(?:\((?P<up>[^()]*)\))?\s*$"
)
_CELL_V1 = re.compile(rf"^(?P<score>{_NUM})\s*(?P<su>%)?\s*(?:\((?P<up>[^()]*)\))?\s*$")
_CELL_NOTE = re.compile(rf"^(?P<score>{_NUM})\s*(?P<su>%)?\s*(?:—|–|--|-|;|,)\s*(?P<note>\S.*)$")
_UPLIFT = re.compile(
    rf"^(?P<sign>[+\-−±]?)\s*(?P<num>{_NUM})\s*(?P<unit>%|points?|pts?|pp|percentage points?)?$"
)
#: An uplift's unit as printed → the unit kept (others are kept as printed).
_UNIT_WORDS = {
    "point": "points",
    "pt": "points",
    "pts": "points",
    "percentage point": "pp",
    "percentage points": "pp",
}
_NO_FIGURE = re.compile(r"^(not available|n/?a|no score|—|-|–|)$", re.IGNORECASE)
_FIGURES = ("score", "baseline", "uplift", "note")
_RESULTS_SECTIONS = ("results", "results at a glance", "evaluation results")
_SUMMARY = {
    "skill": re.compile(r"^- Skill: `?([^`]+?)`?\s*$"),
    "evaluation_date": re.compile(r"^- Evaluation date: (.+?)\s*$"),
    "profile": re.compile(r"^- NVSkills-Eval profile: `?([^`]+?)`?\s*$"),
    "environment": re.compile(r"^- Environment: `?([^`]+?)`?\s*$"),
    "evaluator_version": re.compile(r"^- Evaluator version: `?([^`]+?)`?\s*$"),
    "dataset_digest": re.compile(r"^- Dataset digest: `?([^`\s]+)`?(.*)$"),
    "tasks": re.compile(r"^- (?:Dataset|Tasks): (\d+) evaluation tasks?(.*)$"),
    "attempts_per_task": re.compile(r"^- Attempts per task: (\d+)\s*$"),
    "pass_threshold": re.compile(rf"^- Pass threshold: ({_NUM}%)\s*$"),
    "verdict": re.compile(
        r"^(?:>\s*)?(?:[^\w\s*]*\s*)?(?:- )?\*{0,2}Overall verdict: \*{0,2}([A-Z]+)\b(?!.*only "
        r"when)"
    ),
    "agents_inline": re.compile(r"^- Agents: (.+?)\s*$"),
    "source_repository": re.compile(r"^- Evaluated source: (.+?)\s*$"),
    "source_revision": re.compile(r"^- Evaluated source revision: (.+?)\s*$"),
    # SkillEvaluator 1.3's "Execution and Provenance" prints the evaluator's container digest as
    # "Container image digest", and "Validation status" as NVIDIA's aggregate_benchmarks.py reads
    # it into the catalogue's validation_status
    "evaluator_digest": re.compile(
        r"^- (?:Evaluator container revision|Container image digest): (.+?)\s*$"
    ),
    "validation_status": re.compile(r"^- Validation status: `?([^`]+?)`?\s*$"),
}
#: SkillEvaluator 0.3.0 provenance lines: a value in backticks, or the card's words for none
#: ("not recorded (…)", 1.3's "`not recorded`"), which stays unknown. Each → the most characters
#: its field of the receipt's ``source_report`` holds.
PROVENANCE = {"source_repository": 500, "source_revision": 200, "evaluator_digest": 500}
#: Summary lines SkillEvaluator prints as "not recorded (…)" when it has no value: such a line
#: gives ``None`` with the printed words under ``<key>_printed``, never its first word as a value.
MAY_BE_UNRECORDED = (
    *PROVENANCE,
    "evaluation_date",
    "evaluator_version",
    "dataset_digest",
    "environment",
    "agents_inline",
)
_NOT_RECORDED = re.compile(r"^not recorded\b", re.IGNORECASE)
#: What SkillEvaluator's card says beside its results table (``reporting/benchmark.py``,
#: ``_render_results_at_a_glance``; ``_render_results`` of its "Evaluation Report" cards): some
#: dimension is partial, or no live-agent score exists.
_RESULTS_SAY = (
    "A partial dimension was calculated from only the available configured signals",
    "Tier 3 live-agent scores were not available",
    "Tier 3 dimension rollup was not available",
)


def parse_cell(text: str) -> dict[str, Any] | None:
    """One results cell as printed → its figures, or ``None`` when the grammar is unknown.

    Returns:
        ``{"printed", "score", "baseline", "uplift", "note"}``: ``score``/``baseline`` are
        ``{"value", "unit"}`` (``"%"``, or ``None`` when printed with no unit) or ``None``;
        ``uplift`` is ``{"printed", "value", "unit"}``
        with ``unit`` ``"%"``, ``"points"``, ``"pp"`` or ``None`` when the card printed none.
        Values are numbers in the card's own unit (percent or percentage points, not 0..1).
    """
    cell = text.replace("**", "").replace("`", "").strip()
    out: dict[str, Any] = {"printed": text.strip()} | dict.fromkeys(_FIGURES)
    m = _CELL_V2.match(cell) or _CELL_V1.match(cell) or _CELL_NOTE.match(cell)
    if m is None:
        if not _NO_FIGURE.match(cell):
            return None
        out["note"] = cell or None
        return out
    found = m.groupdict()
    out["score"] = {"value": float(found["score"]), "unit": found["su"]}
    if found.get("base") is not None:
        out["baseline"] = {"value": float(found["base"]), "unit": found["bu"]}
    if found.get("note") is not None:
        out["note"] = found["note"].strip()[:500]
    if found.get("up") is not None:
        up = _UPLIFT.match(found["up"].strip())
        if up is None:
            return None
        value = float(up.group("num")) * (-1.0 if up.group("sign") in ("-", "−") else 1.0)
        unit = _UNIT_WORDS.get(up.group("unit"), up.group("unit"))
        out["uplift"] = {"printed": found["up"].strip(), "value": value + 0.0, "unit": unit}
    return out


def _summary_line(
    line: str, card: dict[str, Any], first: dict[str, tuple[str, int]], at: Line
) -> bool:
    """A summary line (``- Skill: …``) into the card's summary, agents into its agents.

    ``first`` maps each summary key to the value and line that gave it; a later line giving
    the same key is skipped when it says the same, refused when it says otherwise.

    Returns:
        Whether ``line`` is a summary line (read, or a repeat of one).
    """
    summary = card["summary"]
    for key, rx in _SUMMARY.items():
        m = rx.match(line)
        if not m:
            continue
        here = m.group(1).strip()
        whole = line.split(":", 1)[1].strip()
        unrecorded = key in MAY_BE_UNRECORDED and _NOT_RECORDED.match(whole.strip("`")) is not None
        here = whole if unrecorded else here
        if key in first:
            said, said_at = first[key]
            if here != said:
                raise at.fail(
                    f"expected {said!r} as on line {said_at}, the card's first such line; found "
                    f"{here!r}: the card contradicts itself"
                )
            return True
        first[key] = (here, at.n)
        if unrecorded:
            summary[f"{key}_printed"], summary[key] = cut_label(whole), None
            return True
        if (expected := _unreadable(key, here)) is not None:
            raise at.fail(f"expected {expected}, found {here[:200]!r}")
        value: Any = m.group(1)
        rest = m.group(2).strip() if rx.groups > 1 else ""
        if key == "agents_inline":
            inline_agents(value, card, at)
        elif key in ("tasks", "attempts_per_task"):
            value = int(value)
        elif key in PROVENANCE:
            quoted = re.fullmatch(r"`([^`]+)`", value.strip())
            summary[f"{key}_printed"] = cut_label(value.strip())
            value = quoted.group(1) if quoted else None
        elif key != "dataset_digest":
            value = value.strip()
        summary[key] = value
        if rest and key == "tasks":
            summary["tasks_detail"] = cut_label(rest)
        if rest and key == "dataset_digest":
            summary["dataset_snapshot"] = cut_label(rest.strip("()"))
        return True
    return False


def _unreadable(key: str, value: str) -> str | None:
    """What a summary value should be when it cannot be read as printed, else ``None``."""
    if key == "verdict" and value not in VERDICTS:
        return "an overall verdict of PASS, FAIL, NEUTRAL or INCOMPLETE"
    if key in ("tasks", "attempts_per_task"):
        # by its digits first: int() refuses a string of more than 4,300 digits
        digits = value.lstrip("0")
        if len(digits) > len(str(JSON_SAFE_INTEGER)) or int(digits or "0") > JSON_SAFE_INTEGER:
            return COUNT_TOO_BIG.removeprefix("expected ")  # a receipt holds no larger count
        if key == "attempts_per_task" and not digits:
            return "at least 1 attempt per task"
    if key == "pass_threshold" and float(value.rstrip("%")) > 100:
        return "a pass threshold from 0% to 100%"
    if key == "skill" and len(value) > 200:
        return "a skill name of at most 200 characters (the most a receipt keeps)"
    if key in PROVENANCE and len(value.strip("`")) > PROVENANCE[key]:
        return f"at most {PROVENANCE[key]} characters (the most a receipt keeps)"
    return None


def _impossible(parsed: dict[str, Any]) -> str | None:
    """What a parsed cell's figures should be when one cannot be (a percentage over 100)."""
    if any(
        f and f["unit"] == "%" and f["value"] > 100 for f in (parsed["score"], parsed["baseline"])
    ):
        return "a percentage from 0% to 100%"
    up = parsed["uplift"]
    if up and up["unit"] is not None and abs(up["value"]) > 100:
        return "an uplift of at most 100 percentage points either way"
    return None


def _results_row(
    cells: list[str],
    header: list[str],
    card: dict[str, Any],
    at: Line,
    seen: dict[tuple[str, str], int],
) -> None:
    """One results table row's cells as ``card`` rows, one per agent column; else fail.

    The row has as many cells as the header (a blank cell is an empty string, refused as a cell
    that reads as no score).

    ``seen`` maps (measure, agent) to the line that gave it; a repeat is refused.
    """
    if len(cells) != len(header):  # fewer: a row cut short (a truncated card), not a blank
        raise at.fail(f"expected {len(header)} cells, found {len(cells)}")
    if not is_name(cells[0]):  # a row named by nothing
        raise at._replace(column=1).fail(
            f"expected the dimension's name, found the blank text {quote(cells[0])}"
        )
    num = None
    for i, cell in enumerate(cells[1:], start=1):
        col = header[i].strip("`* ")
        if col == "Num":
            # ASCII digits only: str.isdigit() is true of "²", which int() refuses
            num = int(cell) if re.fullmatch(r"[0-9]{1,9}", cell) else None
            continue
        parsed, place = parse_cell(cell), at._replace(column=i + 1)
        if parsed is None:
            raise place.fail(
                f"expected a cell such as '92% (+12%)' or '65% → 97% (+33 points)', found {cell!r}"
            )
        if (expected := _impossible(parsed)) is not None:
            raise place.fail(f"expected {expected}, found {cell!r}")
        alone = parsed["score"] and not (parsed["baseline"] or parsed["uplift"] or parsed["note"])
        if alone and PAIRED.search(header[i]):
            raise place.fail(  # one bare figure under a pair's header: baseline or skill?
                f"expected a baseline and a score such as '65% → 97% (+33 points)', as its "
                f"column {header[i].strip()!r} says, found {cell!r}"
            )
        agent = agent_name(header[i])
        if (cells[0], agent) in seen:
            raise at.fail(
                f"expected each measure once per agent; {cells[0]!r} for {col} is "
                f"already on line {seen[cells[0], agent]}"
            )
        seen[cells[0], agent] = at.n
        if parsed["baseline"] is not None:
            card["format"] = "v2"
        card["rows"].append(
            {
                "dimension": cells[0],
                "num": num,
                "agent": agent,
                "column": header[i],
                **parsed,
            }
        )


#: Section → the first cell of the table read there; Scoring Methodology's (the same definitions
#: on every card SkillEvaluator writes, no figure of the run) is passed over as boilerplate.
_TABLE_HEADS = {"tier status": "Tier", "scoring methodology": "Dimension"}


def _read_table(section: str, first_row: str) -> bool:
    """Whether a table starting with ``first_row`` in ``section`` is one the card reader reads.

    A results section's table when headed Dimension or Measure, another as ``_TABLE_HEADS`` says.
    """
    first = first_row.strip("|").split("|")[0].strip().strip("`*")
    if section in _RESULTS_SECTIONS:
        return first in ("Dimension", "Measure")
    return _TABLE_HEADS.get(section) == first


def _unread_line(section: str, heading: str, line: str, card: dict[str, Any], n: int) -> None:
    """A line outside a table that nothing above read, kept when the receipt must say it.

    Kept as ``(n, heading, text)`` in ``card["kept"]``: a line of "Execution and Provenance"
    (SkillEvaluator 1.3's report generation, git commit, content type, container image, Tier 3
    execution; its validation status, evaluator version and container image digest are summary
    lines), or one that says something of a tier (``per_tier_line``).
    """
    if section == "execution and provenance" and line:
        card["kept"].append((n, heading, line.removeprefix("- ")))
    else:
        per_tier_line(line, heading, card, n)


def _results_line(
    line: str,
    header: list[str] | None,
    card: dict[str, Any],
    at: Line,
    seen: dict[tuple[str, str], int],
) -> list[str] | None:
    """One line of a results table read: its head (returned as the header), or a row.

    ``header`` is ``None`` on a table's first line.
    """
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if all(set(c) <= set("-: ") for c in cells):
        return header
    if cells[0].strip("`*") in ("Dimension", "Measure"):
        results_head(cells, at)
        if cells[0].strip("`*") == "Measure":
            card["format"] = "v2"
        return cells
    if header is not None:  # a table's first row is its header
        _results_row(cells, header, card, at, seen)
    return header


def parse_card(text: str, file: str) -> dict[str, Any]:
    """A benchmark card's summary and results, as printed.

    Returns:
        ``{"format": "v1"|"v2", "summary": {...}, "agents": [...], "rows": [...], "tiers":
        [...]}`` where each row is ``{"dimension", "num", "agent", "column",
        **parse_cell(...)}`` and each tier ``{"name", "title", "status", "printed"}`` from the
        Tier Status table (``NOT RUN`` → ``not_run``, never a fail). The 0.3.0 provenance lines
        (evaluated source, its revision, the evaluator container) are in ``summary``: the value
        in backticks, else ``None`` with the printed words under ``<key>_printed``. A
        ``MAY_BE_UNRECORDED`` line printed "not recorded (…)" is ``None`` likewise. ``said``
        holds what the card says beside its results (``_RESULTS_SAY``: a partial dimension, no
        live-agent score) and a governance card's "Evaluation Agents Used" bullets, as printed;
        ``verdict_line`` the verdict line, when there is one.
        ``unread`` lists ``(line, first row)`` of each table not read (``_read_table``: a
        results section's table not headed Dimension or Measure, a Token Usage table, …).
        ``kept`` lists ``(line, heading, text)`` of what the card prints that the receipt has
        no field for, as printed: each tier's Evidence cell, a sentence about a tier, a skipped
        tier's reasons, each "Execution and Provenance" line not read as a summary line.

    Raises:
        ImportError_: a results cell whose grammar is unknown or whose figure cannot be (a
            percentage over 100%, an uplift beyond 100 points either way), a measure given twice
            for one agent, a row longer than its header, a results column that says an agent
            failed (``results_head``), or a summary line (skill, verdict, task count, …) given
            again with another value or longer than a receipt keeps, or an agent (Agents Used
            bullet, "- Agents:" line) in no form SkillEvaluator prints, with no name, holding a
            control character, past ``MAX_AGENTS`` or named again with another model, or a Tier
            Status table of another shape (``tier_status_line``), naming the file and the line.
    """
    card: dict[str, Any] = {"format": "v1", "summary": {}, "agents": [], "rows": [], "tiers": []}
    card["said"], card["unread"], card["kept"], card["agent_at"] = [], [], [], {}
    card["skip_reasons"] = False
    section = heading = ""
    header: list[str] | None = None
    in_table = skip_table = False
    seen: dict[tuple[str, str], int] = {}
    first: dict[str, tuple[str, int]] = {}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        starts_table = line.startswith("|") and not in_table
        in_table = line.startswith("|")
        if line.startswith("#"):
            heading = re.sub(r"(<br\s*/?>|:)\s*$", "", line.lstrip("#").strip())
            section = heading.strip().rstrip(":").lower()
            continue
        said, at = len(card["said"]), Line(file, lineno)
        read = _summary_line(line, card, first, at)
        if starts_table and (skip_table := not _read_table(section, line)):
            card["unread"].append((lineno, cut_label(line)))
        if section == "tier status" and in_table and not skip_table:
            tier_status_line(line, starts_table, card, at)
        agents_section_line(section, line, card, at)
        if (
            section in _RESULTS_SECTIONS
            and line.startswith(_RESULTS_SAY)
            or line.startswith("- Tier 3 live evaluation: SKIPPED")
        ):
            card["said"].append(cut_label(line.removeprefix("- "), 500))
        if "Overall verdict:" in line and "verdict_line" not in card:
            card["verdict_line"] = line.replace("*", "").lstrip(">").strip()[:300]
        if not (read or in_table or len(card["said"]) > said):
            _unread_line(section, heading, line, card, lineno)
        if section in _RESULTS_SECTIONS and in_table and not skip_table:
            header = _results_line(line, None if starts_table else header, card, at, seen)
    del card["agent_at"], card["skip_reasons"]
    return card


def card_says(card: dict[str, Any]) -> str:
    """What a card with no figures says of its run, in its own words ("" when it says nothing)."""
    words = [*card["said"]]
    if "verdict_line" in card:
        words.append(card["verdict_line"])
    words += [
        f"{t['name']}: {t['printed']}"
        for t in card["tiers"]
        if not t["status"].startswith("passed")
    ]
    return "; the card says: " + " | ".join(words)[:1500] if words else ""


def no_results(card: dict[str, Any]) -> str | None:
    """Why a card holds no figure, with what it says of its run; ``None`` when it holds one.

    NVIDIA's catalogue marks such a skill ``has_results: false``.
    """
    if any(r["score"] or r["baseline"] or r["uplift"] for r in card["rows"]):
        return None
    return (
        "expected a results table (## Results or ## Results at a Glance) with figures"
        + ("; every cell says none (N/A, not available)" if card["rows"] else "")
        + card_says(card)
    )
