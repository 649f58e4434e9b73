"""skill-validator's own rules: the results schema its reader accepts, and its overall figures.

The overall figures are the scenario means a verdict's overall score and gain are:
skill-validator (``Comparator.ComputeVerdict``) averages the scenarios' ``improvementScore`` and
(``ComputeNormalizedGain``) their gains, and its bootstrap interval resamples their scores. Its
``evaluate`` command averages every scenario; its ``rejudge`` command (``ComputeRejudgeVerdict``)
averages only those with ``expectActivation`` true and lists them all (``reportedComparisons``),
writing the overall score 0 and no gain or interval when none expects activation. A scenario
without the member reads as expecting it (the source's default). Both readings are accepted;
overall score and gain must come from the same one.
"""

from __future__ import annotations

import json
import math
from typing import Any, NamedTuple

from driftproof.importers._common import ROUNDING, Where
from driftproof.importers._counts import exact_integer


def check_schema(doc: dict[str, Any], w: Where) -> None:
    """Refuse a file, or a verdict of it, that names another schema owner or version.

    skill-validator's own reader (``eng/skill-validator``, ``LegacySkillValidatorResultsSchema``)
    reads a file only when it has neither ``schemaOwner`` nor ``schemaVersion`` (absent or null:
    the unversioned files written before the schema was named) or ``schemaOwner``
    ``"skill-validator"`` with ``schemaVersion`` 1; any other pair it refuses, the Vally
    adapter's results among them. A verdict's member that is absent or null reads as that
    default (``SkillVerdict``'s getters), so a verdict is refused only for another owner or
    version it names. The same pairs are read here (fail closed).

    Raises:
        ImportError_: at ``schemaOwner`` or ``schemaVersion`` of the file or of ``verdicts[i]``.
    """
    places = [(doc, w, False)]
    places += [(v, w / "verdicts" / i, True) for i, v in enumerate(doc["verdicts"])]
    for obj, ow, verdict in places:
        owner, version = obj.get("schemaOwner"), obj.get("schemaVersion")
        if owner is None and version is None and not verdict:
            continue
        # a verdict's absent or null member reads as skill-validator's version 1
        read_owner = "skill-validator" if verdict and owner is None else owner
        read_version = 1 if verdict and version is None else version
        if read_owner == "skill-validator" and type(read_version) is int and read_version == 1:
            continue
        bad = "schemaOwner" if read_owner != "skill-validator" else "schemaVersion"
        raise (ow / bad).fail(
            "expected skill-validator's results schema: schemaOwner 'skill-validator' with "
            "schemaVersion 1, or neither member (an unversioned file); found "
            f"{json.dumps(owner)[:64]} and {json.dumps(version)[:64]}"
        )


_PRE_POST = ("baseline", "withSkill", "skilledPlugin")  # the runs a normalized gain compares


class Covered(NamedTuple):
    """The scenarios a verdict's overall figures cover: their scores, and a note when a part."""

    scores: list[float]
    note: str | None


class _Reading(NamedTuple):
    scores: list[float]
    gains: list[float]  # NaN: not comparable
    part: bool  # only the scenarios expecting activation, fewer than all


def overall_is_the_mean(
    v: dict[str, Any], vw: Where, overall: float | None, gain: float | None
) -> Covered | None:
    """Refuse an overall improvement score or normalized gain that is not its scenarios' mean.

    Pre and post are the baseline's and the skilled run's judge ``overallScore`` as
    (score - 1) / 4, the gain (post - pre) / (1 - pre), at pre 1 0 when held else post - pre. A
    score missing or no number, or for the gain a scenario with a plugin run judged apart from
    its isolated one (its gain may be that run's), leaves that mean uncompared (their own reading
    names them). A verdict with no scenarios (a skill with none, or with no eval file) has
    overall score 0 and no gain.

    Returns:
        the scores of the scenarios the figures cover (for the interval; every scenario's when
        both sets fit) and a note when they are fewer than those listed, or when both fit;
        ``None`` when a score is missing or no number.

    Raises:
        ImportError_: at ``overallImprovementScore`` or ``normalizedGain``, naming the figure
            each reading gives; at a scenario's ``expectActivation``, no true or false; at its
            ``improvementScore``, an integer no receipt holds exactly (:func:`exact_integer`).
    """
    scenarios = v.get("scenarios")
    if not isinstance(scenarios, list):
        return None
    rows: list[tuple[float, float, bool]] = []  # (score, gain, expects activation)
    for i, s in enumerate(scenarios):
        sw = vw / "scenarios" / i
        expects = sw.get(s, "expectActivation", bool, required=False) is not False
        x = s.get("improvementScore")
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
            return None
        if isinstance(x, int):  # refused where it is, not as a mean it would skew
            exact_integer(x, sw / "improvementScore")
        rows.append((float(x), _gain(s), expects))
    readings = [_Reading([r[0] for r in rows], [r[1] for r in rows], False)]
    if not all(r[2] for r in rows):
        part = [r for r in rows if r[2]]
        readings.append(_Reading([r[0] for r in part], [r[1] for r in part], True))
    at = (vw / "scenarios").pointer
    for what, found, member in (
        ("improvement score", overall, "overallImprovementScore"),
        ("normalized gain", gain, "normalizedGain"),
    ):
        own = [(r, r.scores if what == "improvement score" else r.gains) for r in readings]
        means = [(r, math.fsum(x) / len(x) if x else None) for r, x in own]
        if not (fits := [r for r, m in means if _fits(m, found, what)]):
            said = ", or ".join(_said(r, m, what, len(rows), at) for r, m in means)
            raise (vw / member).fail(
                f"expected {said}, found {found!r}: the source contradicts itself"
            )
        readings = fits
    chosen = readings[0]
    note = None
    if len(readings) > 1:  # the mean of every scenario, and of those expecting the skill, alike
        note = (
            f"The source's overall improvement score and normalized gain are the mean of all "
            f"{len(rows)} of its scenarios and of the {len(readings[1].scores)} that expect the "
            f"skill to be used alike, so whether its interval covers all of them or only those "
            f"{len(readings[1].scores)} is not recorded."
        )
    elif chosen.part:
        note = (
            f"The source's overall improvement score, normalized gain and interval cover the "
            f"{len(chosen.scores)} of its {len(rows)} scenarios that expect the skill to be "
            "used; the others test that it stays unused."
        )
    return Covered(chosen.scores, note)


def _gain(s: dict[str, Any]) -> float:
    """A scenario's gain; NaN: a score missing, or plugin and isolated runs judged apart.

    ``ComputeNormalizedGain`` takes the isolated run or (newer) the plugin run whose improvement
    score is lower; judged alike (a scenario that failed to run: one run judged 0), either gives
    the same gain.
    """
    runs = _PRE_POST if s.get("skilledPlugin") is not None else _PRE_POST[:2]
    try:
        pre, *posts = [(s[k]["judgeResult"]["overallScore"] - 1) / 4 for k in runs]
    except (KeyError, TypeError):
        return math.nan
    if len(set(posts)) != 1:
        return math.nan
    return min(posts[0] - pre, 0) if pre >= 1 else (posts[0] - pre) / (1 - pre)


def _fits(mean: float | None, found: float | None, what: str) -> bool:
    """Whether ``found`` is ``mean``; none for a set of no scenarios: 0 score, no gain."""
    if mean is None:
        mean = 0.0 if what == "improvement score" else None
    return mean is None or found is None or math.isnan(mean) or abs(mean - found) <= ROUNDING


def _said(r: _Reading, mean: float | None, what: str, n: int, at: str) -> str:
    if r.scores and r.part:
        return (
            f"{mean!r}, the mean {what} of the {len(r.scores)} of them that expect the skill to "
            "be used (skill-validator's rejudge leaves out those testing that it stays unused)"
        )
    if r.scores:
        return f"{mean!r}, the mean {what} of the verdict's {n} scenarios ({at})"
    if r.part:
        return "0, what skill-validator's rejudge writes when no scenario expects the skill"
    return f"0, what skill-validator writes for a verdict with no scenarios ({at})"
