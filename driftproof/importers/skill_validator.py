"""dotnet/skills ``skill-validator`` ``results.json`` → DECLARED receipts, one per verdict (D-15).

The judge's 1..5 score maps onto 0..1 as (score − 1) / 4. The mapping is the interop page's
("dotnet/skills skill-validator").
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from driftproof._json import json_kind
from driftproof.importers import Imported, NoOptions, register
from driftproof.importers import _common as common
from driftproof.importers import _declared as declared
from driftproof.importers._common import Where
from driftproof.importers._dotnet import judge_score, receipts
from driftproof.receipt import Draw, build_draw

TOOL = "skill-validator"
_ARMS = (("with_skill", "withSkill"), ("baseline", "baseline"))
_CHECK_KINDS = {
    "output_contains": "must_include",
    "output_not_contains": "must_not_include",
    "output_matches": "regex",
    "output_not_matches": "regex",
}


@register(TOOL, NoOptions)
def import_skill_validator(path: Path, options: NoOptions | None = None) -> list[Imported]:
    """Convert a skill-validator ``results.json`` into DECLARED receipts, one per verdict.

    Raises:
        ImportError_: no verdicts, a verdict or scenario of the wrong shape, several runs per
            scenario, or an ``overallScore`` outside 1..5; naming the file, the JSON pointer and
            what was expected.
    """
    return receipts(
        Path(path),
        TOOL,
        (_scenario, _verdict),
        ("withSkill", "baseline"),
        None,
        "the source records an estimate only",
    )


def _scenario(
    s: dict[str, Any], sw: Where, cid: str, figures: list[dict[str, Any]]
) -> dict[str, Any]:
    """One scenario's arms; its improvement scores, breakdown and pairwise go to ``figures``."""
    runs = sw.get(s, "perRunScores", list)
    if len(runs) != 1:
        raise (sw / "perRunScores").fail(
            f"expected one run per arm (the file keeps one run's metrics and judgment per "
            f"arm), found {len(runs)}"
        )
    arms = {arm: [_draw(sw.get(s, key, dict), sw / key)] for arm, key in _ARMS}
    lift = partial(declared.figure, case=cid, arm="lift")
    figures.append(lift("improvement score", sw.number(s, "improvementScore")))
    for k, run in enumerate(runs):
        score = common.source_number(run, sw / "perRunScores" / k)
        figures.append(lift(f"improvement score, run {k + 1}", score))
    bw = sw / "breakdown"
    breakdown = sw.get(s, "breakdown", dict, required=False) or {}
    for part in breakdown:
        figures.append(lift(f"breakdown: {part}", bw.number(breakdown, part)))
    pw = sw.get(s, "pairwiseResult", dict, required=False)
    if pw:
        consistent = (sw / "pairwiseResult").get(pw, "positionSwapConsistent", bool, required=False)
        swap = {None: "not recorded", True: "consistent", False: "inconsistent"}[consistent]
        winner = f"{pw.get('overallWinner')} {pw.get('overallMagnitude')}"
        printed = f"{winner}; with positions swapped: {swap}"
        figures.append(lift("pairwise judgment", None, printed=printed[:200]))
    return arms


def _verdict(
    v: dict[str, Any], vw: Where
) -> tuple[list[dict[str, Any]], dict[str, Any], list[str]]:
    """A verdict's overall figures and interval, its decision and the notes."""
    ci = vw.get(v, "confidenceInterval", dict, required=False)
    overall = vw.number(v, "overallImprovementScore")
    figures = [
        declared.figure("overall improvement score", overall, arm="lift"),
        declared.figure("normalized gain", vw.number(v, "normalizedGain"), arm="lift"),
    ]
    notes = [
        "Draw scores are the judge's overall score on its 1 to 5 scale, mapped onto 0 to 1 as "
        "(score - 1) / 4."
    ]
    if ci:
        spread = declared.interval(ci, vw / "confidenceInterval", "low", "high", "level")
        figures.append(
            declared.figure("overall improvement score interval", overall, arm="lift", **spread)
        )
        notes.append("The source's interval is computed from one run per arm and scenario.")
    reason = vw.get(v, "reason", str, required=False)
    decision = {
        "printed": (reason or "no reason recorded")[:4000],
        "passed": vw.get(v, "passed", bool, required=False),
        "significant": vw.get(v, "isSignificant", bool, required=False),
    }
    for k, warning in enumerate(vw.get(v, "profileWarnings", list, required=False) or []):
        if not isinstance(warning, str):
            raise (vw / "profileWarnings" / k).fail(
                f"expected a warning text, found {json_kind(warning)}"
            )
        notes.append(f"The source warns: {warning}")
    return figures, decision, notes


def _draw(role: dict[str, Any], w: Where) -> Draw:
    score = judge_score(role, w, 1)
    metrics = w.get(role, "metrics", dict, required=False) or {}
    mw = w / "metrics"
    checks = []
    for k, a in enumerate(mw.get(metrics, "assertionResults", list, required=False) or []):
        aw = mw / "assertionResults" / k
        passed = aw.get(a, "passed", bool)
        spec = aw.get(a, "assertion", dict, required=False) or {}
        atype = str(spec.get("type"))
        value = spec.get("value")
        shown = None if value is None else f"{value}"
        kind = _CHECK_KINDS.get(atype, "assertion")
        checks.append(
            declared.source_check(atype, shown, kind, passed, "pass" if passed else "fail")
        )
    answer = mw.get(metrics, "agentOutput", str, required=False)
    return build_draw(0, answer=answer, score=(score - 1) / 4, checks=checks)
