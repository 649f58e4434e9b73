"""A Vally ``results.json`` (schema 4 or 5, ``eng/vally-adapter``) read: its kind, stimuli, verdict.

A role's ``judgeResult.overallScore`` is the mean grade (0..1) of its runs times 5; the adapter
(``adapt.mjs``, ``roleFromRecords``) writes null when none of the role's runs carries a grade, so
a null score is a lost draw, never a 0. A stimulus marked ``timedOut`` (the skilled run hit its
timeout, ``trajectory.endReason`` ``agent_timeout``) keeps no skilled score: its grade is of a
cut-short run. The mapping is the interop page's ("Vally").
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from driftproof.importers import _declared as declared
from driftproof.importers._common import Where, same_derived
from driftproof.receipt import build_draw

ROLES = (("with_skill", "skilledIsolated"), ("baseline", "baseline"))
_STATES = ("VALID_PASS", "VALID_REGRESSION", "VALID_NO_CHANGE", "INVALID_INCONCLUSIVE")
#: A role whose ``overallScore`` is null: the adapter found no graded run for it.
_UNGRADED = (
    "unscored: the source's {} overallScore is null (none of the role's runs carries a grade "
    "score), so there is no score to keep"
)
#: A stimulus the source marks ``timedOut``: the contract's "the skilled run hit its timeout".
_TIMED_OUT = (
    "the source marked this stimulus timedOut (the skilled run hit its timeout before the agent "
    "finished), so its judged score is not a measurement"
)


def role_score(role: dict[str, Any], w: Where, low: int = 0) -> float | None:
    """A role's ``judgeResult.overallScore`` on the judge's ``low``..5 scale.

    ``None`` when the source wrote null, which only Vally's scale (``low`` 0) allows.

    Raises:
        ImportError_: no judge result, no ``overallScore`` member, or a score that is not a
            number from ``low`` to 5; naming the place.
    """
    judged = w.get(role, "judgeResult", dict)
    score = (w / "judgeResult").get(judged, "overallScore", float, nullable=low == 0)
    if score is not None and not low <= score <= 5:
        raise (w / "judgeResult" / "overallScore").fail(
            f"expected the judge's overall score from {low} to 5, found {score!r}"
        )
    return None if score is None else float(score)


#: The schema versions read: 4 and 5 count only preference-eligible stimuli in the votes, net win
#: and sign test (the adapter contract, "Schema version 5 compatibility"); 3 counted every
#: stimulus, dormancy included, so its figures mean something else.
_VALLY_VERSIONS = (4, 5)


def check_kind(doc: dict[str, Any], w: Where) -> str:
    """Refuse another schema version, or a result that is not a skill's; else name the version."""
    version = doc.get("schemaVersion")
    if type(version) is not int or version not in _VALLY_VERSIONS:
        raise (w / "schemaVersion").fail(
            "expected schemaVersion 4 or 5 (versions 3 and older count dormancy stimuli in the "
            f"votes and the sign test, which 4 and 5 leave out), found {json.dumps(version):.64}"
        )
    kind = doc.get("skillKind")
    if version == 5 and kind != "skill" or version == 4 and "skillKind" in doc:
        want = "skillKind 'skill'" if version == 5 else "no skillKind (version 4 writes none)"
        raise (w / "skillKind").fail(
            f"expected {want}: an agent's result is not a skill's; found {json.dumps(kind):.64}"
        )
    return f"results schema {version}"


def scenario(
    s: dict[str, Any], sw: Where, cid: str, figures: list[dict[str, Any]]
) -> dict[str, Any]:
    """One stimulus's arms (a missing role: a lost draw); its compare figures go to ``figures``."""
    timed_out = sw.get(s, "timedOut", bool, required=False)
    arms = {}
    for arm, key in ROLES:
        role = sw.get(s, key, dict, required=False)
        if role is None:
            reason = f"the source holds no {key} run for this stimulus"
            draw = build_draw(0, lost_reason=reason, lost_kind="no_answer")
        elif key == "skilledIsolated" and timed_out:
            draw = build_draw(0, lost_reason=_TIMED_OUT, lost_kind="timed_out")
        elif (score := role_score(role, sw / key)) is None:
            draw = build_draw(0, lost_reason=_UNGRADED.format(key), lost_kind="unscored")
        else:
            draw = build_draw(0, score=score / 5)
        arms[arm] = [draw]
    scaled = partial(declared.figure, case=cid, arm="lift", unit="scale")
    plugin = sw.get(s, "skilledPlugin", dict, required=False)
    if plugin is not None:
        score = role_score(plugin, sw / "skilledPlugin")
        printed = None if score is not None else "not graded (overallScore null)"
        figures.append(scaled("whole-plugin judge score", score, arm="other", printed=printed))
    figures.append(scaled("compare mean score", sw.number(s, "meanScore", low=-1, high=1)))
    for k, t in enumerate(sw.get(s, "trials", list, required=False) or []):
        tw = sw / "trials" / k
        if not isinstance(t, dict):
            raise tw.fail("expected a compare trial object")
        errored = tw.get(t, "errored", bool, required=False)
        said = t.get("evidence")
        said = said.strip() if isinstance(said, str) else ""
        errored_words = f"errored: {said}" if said else "errored"
        printed = errored_words if errored else f"{t.get('winner')} {t.get('magnitude')}"
        figures.append(
            scaled(
                f"compare trial {k + 1}",
                tw.number(t, "score", low=-1, high=1),
                printed=printed,
            )
        )
    return arms


def verdict(v: dict[str, Any], vw: Where) -> tuple[list[dict[str, Any]], dict[str, Any], list[str]]:
    """A verdict's figures (mean score, votes, sign test) and decision.

    Raises:
        ImportError_: an unknown ``state``; a verdict with no scenarios (the adapter's
            ``invalidVerdict``, its counts placeholders), quoting its state and reason.
    """
    state = vw.get(v, "state", str)
    if state not in _STATES:
        raise (vw / "state").fail(f"expected one of {', '.join(_STATES)}, found {state!r}")
    if v.get("scenarios") == []:
        reason = v.get("reason")
        said = f"{state}: {reason}" if isinstance(reason, str) else state
        raise (vw / "scenarios").fail(
            f"expected at least one scenario; the source measured none, so there is nothing to "
            f"import (it says {said[:600]!r})"
        )
    _check_verdict(v, vw)
    ci = vw.get(v, "confidenceInterval", dict, required=False) or {}
    spread = declared.interval(ci, vw / "confidenceInterval", "low", "high", "level")
    mean = vw.number(v, "meanScore", low=-1, high=1)
    figures = [
        declared.figure("mean preference score", mean, arm="lift", unit="scale", **spread),
        declared.figure(
            "net win", vw.number(v, "netWin", low=-1, high=1), arm="lift", unit="fraction"
        ),
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


#: The gate's floors: distinct stimuli, largest p value, smallest net win.
_MIN_STIMULI, _ALPHA, _MIN_NET_WIN = 5, 0.05, 0.20


def _check_verdict(v: dict[str, Any], vw: Where) -> None:
    """Refuse a verdict whose tallies, net win or gate contradict one another.

    The identities are the adapter contract's (``eng/vally-adapter/InvestigatingResults.md``):
    ``wins + ties + losses`` is ``stimulusVoteCount``; the sign test counts the same votes, its
    ``discordant`` the wins and losses; ``netWin`` is ``(wins - losses) / stimulusVoteCount``;
    and ``passed`` (the gate) is true only with ``state`` ``VALID_PASS``, at least 5 stimuli
    counted, ``signTest.pValue`` at most 0.05 and ``netWin`` at least 0.20; a comparison that did
    not complete (``conclusive: false``) or left ``errors[]`` unresolved is
    ``INVALID_INCONCLUSIVE``. So no receipt seals a figure its own file contradicts (fail closed).
    Absent or null members of ``v`` (at ``vw``) are not compared.

    Raises:
        ImportError_: at the member that disagrees, naming what the others make it.
    """
    tally = {k: vw.number(v, k, low=0, count=True) for k in ("wins", "ties", "losses")}
    votes = vw.number(v, "stimulusVoteCount", low=0, count=True)
    known = [n for n in tally.values() if n is not None]
    if votes is not None and len(known) == 3 and sum(known) != votes:
        raise (vw / "stimulusVoteCount").fail(
            f"expected {sum(known):g}, the verdict's wins, ties and losses added up, found "
            f"{votes:g}: the verdict contradicts itself"
        )
    sign = v.get("signTest") if isinstance(v.get("signTest"), dict) else {}
    sw = vw / "signTest"
    for key, own in tally.items():
        theirs = sw.number(sign, key, low=0, count=True)
        if own is not None and theirs is not None and theirs != own:
            raise (sw / key).fail(
                f"expected {own:g}, the verdict's own {key} (the sign test counts the same "
                f"stimulus votes), found {theirs:g}: the verdict contradicts itself"
            )
    wins, losses = tally["wins"], tally["losses"]
    discordant = sw.number(sign, "discordant", low=0, count=True)
    if discordant is not None and wins is not None and losses is not None:
        if discordant != wins + losses:
            raise (sw / "discordant").fail(
                f"expected {wins + losses:g}, the wins and losses (ties are not discordant), "
                f"found {discordant:g}: the verdict contradicts itself"
            )
    net = vw.number(v, "netWin", low=-1, high=1)
    if votes and wins is not None and losses is not None:
        what = "(wins - losses) / stimulusVoteCount"
        same_derived(net, (wins - losses) / votes, vw / "netWin", what, "verdict")
    _check_gate(v, vw, votes, net, sw.number(sign, "pValue", low=0, high=1))


def _check_gate(
    v: dict[str, Any], vw: Where, votes: float | None, net: float | None, p: float | None
) -> None:
    """Refuse a valid state beside an incomplete comparison, and a contradicted ``passed``.

    ``passed`` is contradicted by its state, vote count, p value or net win.
    """
    passed, state = v.get("passed"), v.get("state")
    unresolved = v.get("errors")
    for member, incomplete, what in (
        (
            "conclusive",
            v.get("conclusive") is False,
            "conclusive false (the comparison did not complete)",
        ),
        (
            "errors",
            isinstance(unresolved, list) and bool(unresolved),
            "unresolved comparison errors",
        ),
    ):
        if incomplete and state != "INVALID_INCONCLUSIVE":
            raise (vw / member).fail(
                f"expected the state INVALID_INCONCLUSIVE beside {what}, found {state!r}: the "
                "verdict contradicts itself"
            )
    if passed is False and state == "VALID_PASS":
        raise (vw / "passed").fail(
            "expected true, as the verdict's state is VALID_PASS, found false: the verdict "
            "contradicts itself"
        )
    if passed is not True:
        return
    unmet = []
    if state != "VALID_PASS":
        unmet.append(f"its state is {state!r}, not 'VALID_PASS'")
    if votes is not None and votes < _MIN_STIMULI:
        unmet.append(f"it counts {votes:g} stimuli, fewer than {_MIN_STIMULI}")
    if p is not None and p > _ALPHA:
        unmet.append(f"its sign test p value {p:.6g} is above {_ALPHA}")
    if net is not None and net < _MIN_NET_WIN:
        unmet.append(f"its net win {net:.6g} is below {_MIN_NET_WIN}")
    if unmet:
        raise (vw / "passed").fail(
            "expected false, as " + "; ".join(unmet) + " (the source passes a verdict only "
            "with state VALID_PASS, at least 5 stimuli, p at most 0.05 and net win at least "
            "0.20), found true: the verdict contradicts itself"
        )
