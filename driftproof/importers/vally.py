"""Vally ``results.json`` (dotnet/skills ``eng/vally-adapter``, schema 5) → DECLARED receipts.

One per verdict, each stimulus a case; votes, sign test and decision are the source's figures
(D-15). The mapping is the interop page's ("Vally").
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from driftproof.importers import Imported, NoOptions, register
from driftproof.importers import _declared as declared
from driftproof.importers._common import Where
from driftproof.importers._dotnet import judge_score, receipts
from driftproof.receipt import build_draw

TOOL = "vally"
_ROLES = (("with_skill", "skilledIsolated"), ("baseline", "baseline"))
_STATES = ("VALID_PASS", "VALID_REGRESSION", "VALID_NO_CHANGE", "INVALID_INCONCLUSIVE")


@register(TOOL, NoOptions)
def import_vally(path: Path, options: NoOptions | None = None) -> list[Imported]:
    """Convert a Vally ``results.json`` (schema version 5) into DECLARED receipts, one per verdict.

    Raises:
        ImportError_: another schema version, a ``skillKind`` other than ``skill``, no verdicts,
            an unknown ``state``, a member of the wrong type, or an ``overallScore`` outside
            0..5; naming the file, the JSON pointer and what was expected.
    """
    return receipts(
        Path(path),
        TOOL,
        (_scenario, _verdict),
        ("skilledIsolated", "baseline"),
        "results schema 5",
        "the file keeps usage per role, not per draw",
        (
            ("schemaVersion", 5, "the version this importer reads"),
            ("skillKind", "skill", "an agent's result is not a skill's"),
        ),
    )


def _scenario(
    s: dict[str, Any], sw: Where, cid: str, figures: list[dict[str, Any]]
) -> dict[str, Any]:
    """One stimulus's arms (a missing role: a lost draw); its compare figures go to ``figures``."""
    arms = {}
    for arm, key in _ROLES:
        role = sw.get(s, key, dict, required=False)
        if role is None:
            reason = f"the source holds no {key} run for this stimulus"
            draw = build_draw(0, lost_reason=reason, lost_kind="no_answer")
        else:
            draw = build_draw(0, score=judge_score(role, sw / key, 0) / 5)
        arms[arm] = [draw]
    scaled = partial(declared.figure, case=cid, arm="lift", unit="scale")
    plugin = sw.get(s, "skilledPlugin", dict, required=False)
    if plugin is not None:
        score = judge_score(plugin, sw / "skilledPlugin", 0)
        figures.append(scaled("whole-plugin judge score", score, arm="other"))
    figures.append(scaled("compare mean score", sw.number(s, "meanScore")))
    for k, t in enumerate(sw.get(s, "trials", list, required=False) or []):
        tw = sw / "trials" / k
        if not isinstance(t, dict):
            raise tw.fail("expected a compare trial object")
        errored = tw.get(t, "errored", bool, required=False)
        printed = "errored" if errored else f"{t.get('winner')} {t.get('magnitude')}"
        figures.append(
            scaled(f"compare trial {k + 1}", tw.number(t, "score"), printed=printed[:200])
        )
    return arms


def _verdict(
    v: dict[str, Any], vw: Where
) -> tuple[list[dict[str, Any]], dict[str, Any], list[str]]:
    """A verdict's figures (mean score, votes, sign test) and decision."""
    state = vw.get(v, "state", str)
    if state not in _STATES:
        raise (vw / "state").fail(f"expected one of {', '.join(_STATES)}, found {state!r}")
    ci = vw.get(v, "confidenceInterval", dict, required=False) or {}
    spread = declared.interval(ci, vw / "confidenceInterval", "low", "high", "level")
    mean = vw.number(v, "meanScore")
    figures = [
        declared.figure("mean preference score", mean, arm="lift", unit="scale", **spread),
        declared.figure("net win", vw.number(v, "netWin"), arm="lift", unit="fraction"),
    ]
    for member in ("wins", "ties", "losses", "stimulusVoteCount"):
        count = vw.number(v, member, low=0, count=True)
        figures.append(declared.figure(member, count, arm="lift", unit="count"))
    sign = vw.get(v, "signTest", dict, required=False) or {}
    sw = vw / "signTest"
    for member in ("wins", "ties", "losses", "discordant"):
        count = sw.number(sign, member, low=0, count=True)
        figures.append(declared.figure(f"sign test {member}", count, arm="lift", unit="count"))
    reason = vw.get(v, "reason", str, required=False)
    decision = {
        "printed": (f"{state}: {reason}" if reason else state)[:4000],
        "passed": vw.get(v, "passed", bool, required=False),
        "test": "exact one-sided sign test over discordant stimulus votes",
        "p_value": sw.number(sign, "pValue", low=0, high=1),
    }
    notes = [
        "Draw scores are the judge's overall score on its 0 to 5 scale, mapped onto 0 to 1 as "
        "score / 5.",
        "The source decides by its sign test over stimulus votes (at least 5 stimuli, p at most "
        "0.05, net win at least 20%); its mean score is for triage only.",
    ]
    return figures, decision, notes
