"""Quality at a declared margin δ for a skill that saves output tokens: context, never a verdict.

Against the reference arm (control when there is one, D-16; else baseline), per case ``d_i`` =
skill − reference quality: mean measured draw score with a judge (D-1, D-2), else the check
pass rate over draws not lost. Two one-sided tests at α = 0.05 each, read off the 90% interval
``d̄ ± t(0.95, n − 1)·sd(d_i)/√n``: lower end above −δ → ``NOT_WORSE``, upper end below −δ →
``WORSE``, else ``NOT_SHOWN``. δ is ``run.quality_margin``, or given at reading (then said so).
A receipt whose median saving (:mod:`driftproof.stats.savings`) is not above zero gets none.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from driftproof.receipt import Receipt
from driftproof.receipt._model import CaseArm
from driftproof.stats.context import t_quantile
from driftproof.stats.moments import mean_sd
from driftproof.stats.reading import verdict_refusal
from driftproof.stats.savings import Reference, savings

#: Fewest cases with a quality difference: two, for a spread across cases.
MIN_CASES = 2


class Quality(StrEnum):
    """The three readings."""

    NOT_WORSE = "not worse by more than the margin"
    NOT_SHOWN = "quality not shown within the margin"
    WORSE = "worse by more than the margin"


@dataclass(frozen=True)
class Margin:
    """A margin and where it was declared: ``receipt`` (before the run) or ``reading``."""

    value: float
    declared: str


@dataclass(frozen=True)
class QualityReading:
    """The reading of one receipt at a margin.

    Attributes:
        reading: one of :class:`Quality`, or None with ``reason`` set.
        margin: the margin read at, or None when none is declared.
        saving: median per-case output-token saving (a fraction), or None.
        reference: ``control`` or ``baseline``.
        measure: ``judge score`` or ``check pass rate``.
        cases: cases with a quality difference.
        mean: mean difference (skill − reference); low, high: the 90 % interval.
        t: t(0.95, n − 1).
        reason: why there is no reading.
    """

    reading: Quality | None
    margin: Margin | None
    saving: float | None
    reference: str | None
    measure: str | None
    cases: int
    mean: float | None
    low: float | None
    high: float | None
    t: float | None
    reason: str | None


def _none(reason: str, margin: Margin | None = None, saving: float | None = None) -> QualityReading:
    return QualityReading(None, margin, saving, None, None, 0, None, None, None, None, reason)


def _tokens(arm: CaseArm) -> tuple[int, int]:
    """(summed output tokens, draws that report them)."""
    counted = [d.tokens.output for d in arm.draws if d.tokens and d.tokens.output is not None]
    return sum(counted), len(counted)


def _score(arm: CaseArm) -> float | None:
    return mean_sd([d.score for d in arm.draws if d.lost is None and d.score is not None])[0]


def _pass_rate(arm: CaseArm) -> float | None:
    checks = [c.pass_ for d in arm.draws if d.lost is None for c in d.checks]
    return sum(checks) / len(checks) if checks else None


def quality_at_margin(r: Receipt, margin: float | None = None) -> QualityReading:
    """Read ``r`` at its recorded margin, or at ``margin`` (0 < margin ≤ 1) when it records none.

    No reading, with a reason, when the receipt gets no verdict, has no margin, saves no output
    tokens, or has fewer than :data:`MIN_CASES` cases with a quality figure in both arms.

    Raises:
        ValueError: ``margin`` is given, and the receipt records a different one (a margin is
            declared once), or it is outside (0, 1].
    """
    recorded = r.run.quality_margin
    if margin is not None and not 0 < margin <= 1:
        raise ValueError(f"a margin is above 0 and at most 1, found {margin}")
    if recorded is not None and margin is not None and abs(recorded - margin) > 1e-12:
        raise ValueError(
            f"the receipt declares the margin {recorded:g} before its run; a margin is declared "
            f"once, so {margin:g} cannot replace it"
        )
    m = (
        Margin(recorded, "receipt")
        if recorded is not None
        else (Margin(margin, "reading") if margin is not None else None)
    )
    if m is None:
        return _none("no margin is declared")
    refused = verdict_refusal(r)
    if refused is not None:
        return _none(refused, m)
    ref: Reference = "control" if r.arms.control is not None else "baseline"
    ids, skill_t, ref_t = [], [], []
    for c in r.cases:
        (st, sn), (rt, rn) = _tokens(c.arms.with_skill), _tokens(getattr(c.arms, ref))
        if sn and sn == rn:
            ids.append(c.id)
            skill_t.append(st)
            ref_t.append(rt)
    if not ids:
        return _none("no case reports output tokens for the same number of draws in both arms", m)
    saved = savings(ids, skill_t, ref_t, reference=ref).median
    if saved is None or saved <= 0:
        return _none("the skill arm saves no output tokens", m, saved)
    measure, of = (
        ("judge score", _score) if r.judge is not None else ("check pass rate", _pass_rate)
    )
    diffs = []
    for c in r.cases:
        a, b = of(c.arms.with_skill), of(getattr(c.arms, ref))
        if a is not None and b is not None:
            diffs.append(a - b)
    if len(diffs) < MIN_CASES:
        return _none(
            f"fewer than {MIN_CASES} cases carry a {measure} in both arms ({len(diffs)})", m, saved
        )
    mean, sd = mean_sd(diffs)
    assert mean is not None and sd is not None  # two values or more
    t = t_quantile(0.95, len(diffs) - 1)
    half = t * sd / math.sqrt(len(diffs))
    low, high = mean - half, mean + half
    reading = (
        Quality.NOT_WORSE
        if low > -m.value
        else (Quality.WORSE if high < -m.value else Quality.NOT_SHOWN)
    )
    return QualityReading(reading, m, saved, ref, measure, len(diffs), mean, low, high, t, None)
