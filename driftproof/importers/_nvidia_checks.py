"""An NVIDIA ``benchmarks.json`` catalogue (schema_version 2) checked against itself.

The catalogue is aggregated from the skills' cards (``.github/scripts/aggregate_benchmarks.py``;
the interop SOURCE.md): ``skill_count`` counts ``skills``, ``result_row_count`` counts
``results``, each ``catalog_dir`` is one skill, ``has_results`` says whether the skill has rows
and ``skills_without_results`` lists those that do not, ``average_uplift_pct`` is the mean of the
skill's rows' ``uplift_pct`` (printed to 0.1), and a row's ``score_pct`` minus its ``uplift_pct``
is the baseline score, a percentage. A catalogue that breaks one is refused, so no receipt seals
a figure its own file contradicts (fail closed).
"""

from __future__ import annotations

import math
from typing import Any

from driftproof.importers._common import ROUNDING, Where, source_number
from driftproof.importers._nvidia_agents import CONTROL, MAX_AGENTS
from driftproof.importers._nvidia_card import VERDICTS

#: How far a printed mean uplift may sit from its rows' mean: half its last printed digit.
_PRINTED = 0.05 + ROUNDING


def check_catalogue(doc: dict[str, Any], w: Where) -> None:
    """Refuse a schema-checked catalogue whose counts, lists, skills or rows contradict it.

    Raises:
        ImportError_: at the member that disagrees, naming what the rest make it.
    """
    for key, member in (("skill_count", "skills"), ("result_row_count", "results")):
        count = w.number(doc, key, low=0, count=True)
        if count is not None and count != len(doc[member]):
            raise (w / key).fail(
                f"expected {len(doc[member])}, the entries of /{member}, found {count:g}: the "
                "catalogue contradicts itself"
            )
    uplifts: dict[str, list[float]] = {}
    agents: dict[str, set[str]] = {}
    for i, r in enumerate(doc["results"]):
        rw = w / "results" / i
        _agent(r["agent"], rw / "agent", agents.setdefault(r["catalog_dir"], set()))
        rw.number(r, "num", low=0, count=True)
        score = source_number(r["score_pct"], rw / "score_pct", low=0, high=100)
        up = source_number(r["uplift_pct"], rw / "uplift_pct", low=-100, high=100)
        if score is not None and up is not None and not 0 <= score - up <= 100:
            raise (rw / "uplift_pct").fail(
                f"expected an uplift leaving a baseline score from 0% to 100% (score_pct minus "
                f"uplift_pct), found {up:g} beside a score of {score:g}"
            )
        rows = uplifts.setdefault(r["catalog_dir"], [])
        if up is not None:
            rows.append(up)
    seen: dict[str, int] = {}
    for i, s in enumerate(doc["skills"]):
        sw = w / "skills" / i
        if s["catalog_dir"] in seen:
            raise (sw / "catalog_dir").fail(
                f"expected each catalog_dir once; {s['catalog_dir']!r} is also skill "
                f"{seen[s['catalog_dir']]}"
            )
        seen[s["catalog_dir"]] = i
        _check_skill(s, sw, s["catalog_dir"] in uplifts, uplifts.get(s["catalog_dir"], []))
    without = w.get(doc, "skills_without_results", list, required=False, nullable=True)
    lacking = sorted(d for d in seen if d not in uplifts)
    if without is not None and sorted(map(str, without)) != lacking:
        raise (w / "skills_without_results").fail(
            f"expected the skills with no row in /results ({', '.join(lacking) or 'none'})"[:900]
            + ": the catalogue contradicts itself"
        )


def _agent(name: str, w: Where, named: set[str]) -> None:
    """One agent's name at ``w``, added to its skill's ``named``.

    Raises:
        ImportError_: a name holding a control character, or the skill's agent past
            ``MAX_AGENTS``.
    """
    if CONTROL.search(name):
        raise w.fail(f"expected an agent's name with no control character, found {name!r}")
    named.add(name)
    if len(named) > MAX_AGENTS:
        raise w.fail(
            f"expected at most {MAX_AGENTS} agents for one skill (SkillEvaluator runs three); "
            f"{name!r} is agent {MAX_AGENTS + 1}"
        )


def _check_skill(s: dict[str, Any], sw: Where, has_rows: bool, uplifts: list[float]) -> None:
    """One ``skills`` entry: its agents, verdict, counts, threshold, has_results, mean uplift."""
    named: set[str] = set()
    for j, name in enumerate(s.get("agents") or ()):
        _agent(name, sw / "agents" / j, named)
    verdict = sw.get(s, "verdict", str, required=False, nullable=True)
    if verdict is not None and verdict not in VERDICTS:
        raise (sw / "verdict").fail(
            f"expected PASS, FAIL, NEUTRAL or INCOMPLETE (or null), found {verdict!r}"
        )
    sw.number(s, "tasks", low=0, count=True)
    sw.number(s, "attempts_per_task", low=1, count=True)
    sw.number(s, "pass_threshold_pct", low=0, high=100)
    has = sw.get(s, "has_results", bool, required=False, nullable=True)
    if has is not None and has is not has_rows:
        raise (sw / "has_results").fail(
            f"expected {str(has_rows).lower()}, as /results holds "
            f"{'rows' if has_rows else 'no row'} for it, found {str(has).lower()}"
        )
    mean = sw.number(s, "average_uplift_pct", low=-100, high=100)
    if mean is None:
        return
    if not uplifts:
        raise (sw / "average_uplift_pct").fail(
            f"expected null, as /results holds no uplift for it, found {mean:g}"
        )
    expected = math.fsum(uplifts) / len(uplifts)
    if abs(mean - expected) > _PRINTED:
        raise (sw / "average_uplift_pct").fail(
            f"expected {expected:.4g} (to 0.1), the mean uplift_pct of its {len(uplifts)} rows in "
            f"/results, found {mean:g}: the catalogue contradicts itself"
        )
