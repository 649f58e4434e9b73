"""Context beyond the method: figures that never decide or change a verdict (D-2 … D-9 decide).

* :func:`lift_interval`: the suite lift's paired SE and 95% interval, ``lift ± t(0.975, N −
  1)·sd(lift_i)/√N`` (Miller 2024, arXiv:2411.00640 §1.5; STATISTICS-NOTES §6.5, §8.1).
* :func:`spread_split`: per case and arm, the draw-score variance split into its judge part
  ``mean_i(s_i²/m_i)`` (draws with ``m_i ≥ 2`` valid samples) and the draw-to-draw rest, floored
  at zero (law of total variance; STATISTICS-NOTES §6.5, §8.5).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

from driftproof.receipt import Receipt
from driftproof.stats.breakdown import Breakdown
from driftproof.stats.moments import mean_of, mean_sd, mean_var
from driftproof.wording import COMPARED_ARMS

#: Shown with every figure of this module.
CONTEXT_LABEL = (
    "Context, beyond the method: these figures never decide or change a verdict "
    '(Miller 2024, "Adding Error Bars to Evals").'
)


def _floats(text: str) -> tuple[float, ...]:
    return tuple(float(x) for x in text.split())


#: Student t quantiles t(p, df) for df = 1 … 30, to 4 decimals (standard tables, e.g.
#: NIST/SEMATECH e-Handbook 1.3.6.7.2; checked by numerical integration): p = 0.975 for the
#: two-sided 95 % interval, p = 0.95 for a one-sided 95 % test.
_T_TABLE: dict[float, tuple[float, ...]] = {
    0.975: _floats(
        "12.7062 4.3027 3.1824 2.7764 2.5706 2.4469 2.3646 2.3060 2.2622 2.2281 "
        "2.2010 2.1788 2.1604 2.1448 2.1314 2.1199 2.1098 2.1009 2.0930 2.0860 "
        "2.0796 2.0739 2.0687 2.0639 2.0595 2.0555 2.0518 2.0484 2.0452 2.0423"
    ),
    0.95: _floats(
        "6.3138 2.9200 2.3534 2.1318 2.0150 1.9432 1.8946 1.8595 1.8331 1.8125 "
        "1.7959 1.7823 1.7709 1.7613 1.7531 1.7459 1.7396 1.7341 1.7291 1.7247 "
        "1.7207 1.7171 1.7139 1.7109 1.7081 1.7056 1.7033 1.7011 1.6991 1.6973"
    ),
}


@dataclass(frozen=True)
class LiftInterval:
    """The suite lift's paired standard error and 95 % interval over cases (context).

    Attributes:
        lift: the breakdown's suite lift (judge scale units), or None.
        cases: included cases N. df: N − 1. t: t(0.975, df).
        se: sd(lift_i, ddof = 1) / √N. low / high: lift ∓ t·se, clipped to the range a lift
            can take, −1 to +1 (scores are 0 to 1, D-1).
        reason: why the interval is unavailable, else None.
        clipped_low / clipped_high: whether lift ∓ t·se fell beyond −1 / +1 and was clipped.
    """

    lift: float | None
    cases: int
    se: float | None
    df: int | None
    t: float | None
    low: float | None
    high: float | None
    reason: str | None
    clipped_low: bool = False
    clipped_high: bool = False


@dataclass(frozen=True)
class SpreadSplit:
    """One arm of one case: the draw-score variance split into its two parts (context).

    Attributes:
        case_id, arm: which arm (``with_skill`` or ``baseline``).
        draws: measured draws.
        total: sample variance (ddof = 1) of the measured draw scores.
        judge_part: mean of s_i² / m_i over the draws with at least two valid judge samples.
        draw_part: max(0, total − judge_part).
        reason: why the split is unavailable, else None.
    """

    case_id: str
    arm: str
    draws: int
    total: float | None
    judge_part: float | None
    draw_part: float | None
    reason: str | None

    @property
    def judge_share(self) -> float | None:
        """judge_part ÷ (judge_part + draw_part), or None (also when both are zero)."""
        if (
            self.judge_part is None
            or self.draw_part is None
            or self.judge_part + self.draw_part == 0
        ):
            return None
        return self.judge_part / (self.judge_part + self.draw_part)


def t_quantile(p: float, df: int) -> float:
    """The Student t quantile t(p, df), p 0.975 or 0.95, df ≥ 1.

    The table to df = 30, the Cornish–Fisher expansion beyond (A&S 26.7.5, error < 1e-4).

    Raises:
        ValueError: df < 1.
        KeyError: ``p`` is not tabulated.
    """
    table = _T_TABLE[p]
    if df < 1:
        raise ValueError("degrees of freedom must be at least 1")
    if df <= len(table):
        return table[df - 1]
    return _cornish_fisher(NormalDist().inv_cdf(p), df)


def _cornish_fisher(z: float, df: int) -> float:
    """The t quantile at the normal quantile ``z`` for ``df`` degrees of freedom (A&S 26.7.5)."""
    g = (
        (z**3 + z) / 4,
        (5 * z**5 + 16 * z**3 + 3 * z) / 96,
        (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
        (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160,
    )
    return z + sum(gk / int(df ** (k + 1)) for k, gk in enumerate(g))


def lift_interval(b: Breakdown) -> LiftInterval:
    """The paired SE and 95 % interval of the breakdown's suite lift (Miller 2024).

    Unavailable, with its reason, when the suite lift is or with fewer than two included cases.
    """
    lifts = [c.lift for c in b.cases if c.included and c.lift is not None]
    if b.suite_lift is None:
        return _no_interval(None, lifts, b.suite_lift_reason or "the suite lift is unavailable")
    if len(lifts) < 2:
        return _no_interval(b.suite_lift, lifts, "one included case: no spread across cases")
    n = len(lifts)
    sd = mean_sd(lifts)[1]
    assert sd is not None  # two lifts or more
    se = sd / math.sqrt(n)
    t = t_quantile(0.975, n - 1)
    low, high = b.suite_lift - t * se, b.suite_lift + t * se
    return LiftInterval(
        b.suite_lift, n, se, n - 1, t, max(low, -1.0), min(high, 1.0), None, low < -1, high > 1
    )


def _no_interval(lift: float | None, lifts: list[float], reason: str) -> LiftInterval:
    return LiftInterval(lift, len(lifts), None, None, None, None, None, reason)


def spread_split(r: Receipt) -> tuple[SpreadSplit, ...]:
    """Per case and arm (with skill, then baseline), the split of the draw-score variance.

    A draw's score is the mean of its m valid judge samples (D-1), so its variance holds
    a judge part s²/m beside the draw-to-draw part. Lost draws are left out (D-9).
    """
    out = []
    for c in r.cases:
        for name in COMPARED_ARMS:
            arm = getattr(c.arms, name)
            draws = [d for d in arm.draws if d.lost is None and d.score is not None]
            scores = [d.score for d in draws if d.score is not None]
            samples = [[s.score for s in d.judge_samples if s.score is not None] for d in draws]
            out.append(_split(c.id, name, scores, samples))
    return tuple(out)


def _split(case_id: str, arm: str, scores: list[float], samples: list[list[float]]) -> SpreadSplit:
    judged = [s for s in samples if len(s) >= 2]
    if len(scores) < 2:
        why = "fewer than two measured draws"
        return SpreadSplit(case_id, arm, len(scores), None, None, None, why)
    total = _variance(scores)
    if not judged:
        why = "no draw has two judge samples: the judge part cannot be read"
        return SpreadSplit(case_id, arm, len(scores), total, None, None, why)
    judge = mean_of([_variance(s) / len(s) for s in judged])
    assert judge is not None  # one judged draw or more
    draw = max(0.0, total - judge)
    return SpreadSplit(case_id, arm, len(scores), total, judge, draw, None)


def _variance(values: list[float]) -> float:
    """Sample variance (ddof = 1) of two values or more."""
    var = mean_var(values)[1]
    assert var is not None
    return var
