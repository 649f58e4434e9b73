"""One claude-plugin-eval run as a draw, and beside it: skill fired, graders' hash, costs."""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass, field
from typing import Any

import rfc8785

from driftproof.importers._common import Where, unit_score
from driftproof.receipt import Draw, build_draw

_CALLED = re.compile(r"\bcalled (\d+)x\b")


@dataclass
class Tally:
    """What one result document's runs add up to, over its cases.

    ``fired`` is per arm [draws the skill fired on, draws firing was observed on]; ``costs`` per
    arm [run costs, judge costs] in USD, as declared.
    """

    counts: set[int] = field(default_factory=set)
    declared_runs: set[int] = field(default_factory=set)
    fired: dict[str, list[int]] = field(
        default_factory=lambda: {"with_skill": [0, 0], "baseline": [0, 0]}
    )
    costs: dict[str, list[list[float]]] = field(
        default_factory=lambda: {"with_skill": [[], []], "baseline": [[], []]}
    )
    scored_indicator: set[str] = field(default_factory=set)
    has_llm: bool = False


def arm_draws(
    arm: str, runs: list[dict[str, Any]], w: Where, graders: list[dict[str, Any]], tally: Tally
) -> list[Draw]:
    """One case arm's runs as draws, in the source's order, tallied into ``tally``.

    Raises:
        ImportError_: a score outside 0..1 or a cost below 0; naming the run.
    """
    skill_graders = {
        g["name"]
        for g in graders
        if g.get("type") == "tool_used"
        and isinstance(g.get("config"), dict)
        and g["config"].get("tool") == "Skill"
    }
    regex_graders = {g["name"] for g in graders if g.get("type") == "regex"}
    configs = {g["name"]: g.get("config") or {} for g in graders}
    draws = []
    for j, run in enumerate(runs):
        rw = w / j
        draw, fired = draw_of(
            j, run, rw, skill_graders, regex_graders, configs, tally.scored_indicator
        )
        draws.append(draw)
        if draw.lost is None and fired is not None:
            tally.fired[arm][0] += fired
            tally.fired[arm][1] += 1
        for slot, member in ((0, "costUsd"), (1, "judgeCostUsd")):
            value = run.get(member)
            if value is not None:
                if not math.isfinite(value) or value < 0:
                    raise (rw / member).fail(
                        f"expected a cost in USD of 0 or more, found {value!r}"
                    )
                tally.costs[arm][slot].append(value)
    tally.counts.add(len(draws))
    return draws


def draw_of(
    index: int,
    run: dict[str, Any],
    rw: Where,
    skill_graders: set[str],
    regex_graders: set[str],
    configs: dict[str, Any],
    scored_indicator: set[str],
) -> tuple[Draw, bool | None]:
    """One run as a draw, and whether the skill fired on it (``None``: not observed)."""
    fired: bool | None = None
    checks = []
    for g in run.get("graders") or []:
        gname = g["name"]
        if gname in skill_graders and isinstance(g.get("passed"), bool):
            fired = skill_fired(g, configs.get(gname) or {})
            if g.get("scored") is True:
                scored_indicator.add(gname)
        elif gname in regex_graders and isinstance(g.get("passed"), bool):
            checks.append({"name": gname[:200], "kind": "regex", "pass": g["passed"]})
    error = run.get("error")
    source_error = None
    if error is not None:
        source_error = error.strip()[:4000] or "the source recorded an empty error"
        reason, kind = f"source error: {source_error}"[:4000], "source_error"
    elif run.get("skippedPaidGraders") is True:
        reason = (
            "the source skipped this run's paid graders at its cost ceiling, so "
            "its score is not comparable"
        )
        kind = "unscored"
    elif run.get("score") is None:
        reason, kind = "the source recorded no score for this run", "unscored"
    else:
        score = unit_score(run["score"], rw / "score")
        return build_draw(index, score=score, skill_fired=fired, checks=checks), fired
    return build_draw(
        index,
        lost_reason=reason,
        lost_kind=kind,
        source_error=source_error,
        skill_fired=fired,
        checks=checks,
    ), fired


def skill_fired(result: dict[str, Any], config: dict[str, Any]) -> bool | None:
    """Whether the skill fired, from a ``tool_used`` grader on the Skill tool.

    Bounds of at least once, or ``max: 0``, read the grader's pass; other bounds read the count
    from its explanation (``"Skill called 2x …"``), else unknown.
    """
    lo, hi = config.get("min"), config.get("max")
    if hi == 0 and lo in (None, 0):
        return not result["passed"]
    if lo in (None, 1) and hi is None:
        return bool(result["passed"])
    m = _CALLED.search(result.get("explanation") or "")
    return int(m.group(1)) > 0 if m else None


def graders_sha256(graders: list[dict[str, Any]], w: Where) -> str:
    """sha256 of the RFC 8785 JSON of a case's grader definitions (its rubric hash)."""
    try:
        return hashlib.sha256(rfc8785.dumps(graders)).hexdigest()
    except (rfc8785.CanonicalizationError, TypeError, ValueError):
        raise w.fail("expected grader definitions that are plain JSON (no NaN)") from None


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
