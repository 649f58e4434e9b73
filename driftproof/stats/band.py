"""The band of one arm of one case: mean ± one sample standard deviation (D-2).

A descriptive spread with no coverage probability (method, "Band separation"). Its source is
``generation`` (the spread of per-draw scores) or ``legacy`` (one generation judged several
times: the spread of its judge samples). Lost draws are left out and counted apart (D-9).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from driftproof.stats.moments import mean_sd
from driftproof.wording import TOLERANCE

if TYPE_CHECKING:  # the core takes the loaded model; it never reads files
    from driftproof.receipt import CaseArm, Receipt, ReceiptBody

BandSource = Literal["generation", "legacy"]
#: An arm's case outcome against its case's threshold (:func:`threshold_outcome`).
ThresholdOutcome = Literal["pass", "fail", "borderline"]

#: Reason recorded for a draw that carries no score and no ``lost`` record (D-1).
NO_VALID_SAMPLE = "no valid judge sample"


@dataclass(frozen=True)
class Band:
    """Mean ± one sample sd (ddof = 1) of an arm's measured scores (D-2).

    Attributes:
        mean: mean of the measured scores, on the judge scale; ``None`` when nothing was measured.
        sd: sample standard deviation (ddof = 1); ``None`` with fewer than two measured scores.
        n: measured scores (draws for ``generation``, valid judge samples for ``legacy``).
        drawn: draws made, measured and lost together.
        lost: lost draws, left out of ``mean`` and ``sd`` (D-9).
        lost_reasons: the recorded reason of each lost draw, in draw order.
        source: ``"generation"`` or ``"legacy"`` (method, "Where a band comes from").
        generation_sd: the arm's recorded spread across draws (``generation.sd``), when any;
            read only by the receipt-wide band (D-8).
    """

    mean: float | None
    sd: float | None
    n: int
    drawn: int
    lost: int
    lost_reasons: tuple[str, ...]
    source: BandSource
    generation_sd: float | None = None

    @property
    def low(self) -> float | None:
        """Lower edge ``mean − sd``; ``None`` when the band has no spread."""
        if self.mean is None or self.sd is None:
            return None
        return self.mean - self.sd

    @property
    def high(self) -> float | None:
        """Upper edge ``mean + sd``; ``None`` when the band has no spread."""
        if self.mean is None or self.sd is None:
            return None
        return self.mean + self.sd


def mean_delta(a: Band, b: Band) -> float | None:
    """``b.mean − a.mean`` on the judge scale; ``None`` when a side measured nothing.

    The one place a difference of two bands' means is taken: Δ of the verdict rule (a the
    earlier or baseline band, D-6), a case's lift (a = baseline, b = with skill) and the
    with-skill minus control delta (D-16).
    """
    if a.mean is None or b.mean is None:
        return None
    return b.mean - a.mean


def _combine(n: int, mean: float, m2: float, k: int, value: float) -> tuple[int, float, float]:
    """Add ``k`` copies of ``value`` to a group's count, mean and sum of squares (Chan et al.)."""
    if k == 0:
        return n, mean, m2
    if n == 0:
        return k, value, 0.0
    total = n + k
    d = value - mean
    return total, mean + d * k / total, m2 + d * d * n * k / total


def completed(band: Band, at_worst: int, worst: float, best: float) -> tuple[int, float, float]:
    """Count, mean, sd of ``band`` with ``at_worst`` lost draws at ``worst``, others at ``best``."""
    mean = band.mean if band.mean is not None else 0.0
    sd = band.sd if band.sd is not None else 0.0
    m2 = sd * sd * (band.n - 1) if band.n > 1 else 0.0
    n, mean, m2 = _combine(band.n, mean, m2, at_worst, worst)
    n, mean, m2 = _combine(n, mean, m2, band.lost - at_worst, best)
    return n, mean, math.sqrt(m2 / (n - 1)) if n > 1 else 0.0


def threshold_outcome(
    band: Band, threshold: float | None, scale: tuple[float, float] | None = None
) -> ThresholdOutcome | None:
    """An arm's case outcome against its case's threshold (a score on the judge scale).

    ``pass`` when the whole band lies above the threshold (``mean − sd`` above it), ``fail``
    when it lies below (``mean + sd`` below it), else ``borderline``: a mean exactly at the
    threshold always is (the method). An edge within 1e-9 of the threshold reaches it (D-3).
    An arm that lost draws reads ``pass`` or ``fail`` only where every completion of them on
    the judge scale ``scale`` (worst, best) reads it too, as D-9 holds a verdict (the corners
    suffice: ``mean − sd`` is concave in the scores, ``mean + sd`` convex); else, or with no
    scale known, ``borderline``.

    Returns:
        ``None`` where the case records no threshold or the band has no spread (fewer than two
        measured scores): no outcome is guessed.
    """
    if threshold is None or band.low is None or band.high is None:
        return None
    if band.lost and scale is None:
        return "borderline"
    worst, best = sorted(scale or (0.0, 0.0))
    corners = (completed(band, j, worst, best) for j in range(band.lost + 1) if band.lost)
    edges = [(band.low, band.high), *((m - s, m + s) for _, m, s in corners)]
    if all(low - threshold > TOLERANCE for low, _ in edges):
        return "pass"
    return "fail" if all(threshold - high > TOLERANCE for _, high in edges) else "borderline"


def band_of_scores(
    scores: Sequence[float | None],
    *,
    source: BandSource = "generation",
    lost_reasons: Sequence[str] | None = None,
    generation_sd: float | None = None,
) -> Band:
    """The band of a list of per-draw scores; ``None`` marks a lost draw (D-2, D-9).

    Scores are on the judge scale, in draw order; ``lost_reasons`` defaults to ``"lost"`` per lost
    draw; ``generation_sd`` is kept for D-8.

    Raises:
        ValueError: a score is not finite, or ``lost_reasons`` does not match the lost count.
    """
    measured = [float(s) for s in scores if s is not None]
    lost = len(scores) - len(measured)
    if any(not math.isfinite(s) for s in measured):
        raise ValueError("every measured score must be a finite number")
    reasons = tuple(lost_reasons) if lost_reasons is not None else ("lost",) * lost
    if len(reasons) != lost:
        raise ValueError(f"{lost} lost draws but {len(reasons)} reasons")
    return measured_band(measured, len(scores), reasons, source, generation_sd)


def arm_band(case_arm: CaseArm, band_source: BandSource) -> Band:
    """The band of one arm of one case, from the receipt model.

    ``generation``: the per-draw scores (D-1); a draw marked lost, or with no valid
    judge sample, is left out and counted as lost with its reason (D-9).
    ``legacy``: the valid judge samples of the arm's one draw (method, "Every report
    published before Report 007 …"); ``n`` counts judge samples, ``drawn`` the draw. The band
    is the measured scores only; the D-9 completions on the judge scale live in case_verdict.
    """
    gen_sd = case_arm.generation.sd if case_arm.generation is not None else None
    if band_source == "legacy":
        samples: list[float] = []
        reasons: list[str] = []
        for d in case_arm.draws:
            if d.lost is not None:
                reasons.append(d.lost.reason)
                continue
            valid = [s.score for s in d.judge_samples if s.score is not None]
            if not valid and d.score is not None:
                valid = [d.score]  # a legacy draw stored with its mean only
            if not valid:
                reasons.append(NO_VALID_SAMPLE)
            samples.extend(valid)
        return measured_band(samples, len(case_arm.draws), reasons, "legacy", gen_sd)
    measured: list[float] = []
    reasons = []
    for d in case_arm.draws:
        if d.lost is not None or d.score is None:
            reasons.append(d.lost.reason if d.lost is not None else NO_VALID_SAMPLE)
        else:
            measured.append(d.score)
    return measured_band(measured, len(case_arm.draws), reasons, "generation", gen_sd)


def measured_band(
    measured: Sequence[float],
    drawn: int,
    lost_reasons: Sequence[str],
    source: BandSource,
    generation_sd: float | None = None,
) -> Band:
    """The :class:`Band` of ``measured`` scores out of ``drawn`` draws, one reason per lost one."""
    mean, sd = mean_sd(measured)
    return Band(
        mean=mean,
        sd=sd,
        n=len(measured),
        drawn=drawn,
        lost=len(lost_reasons),
        lost_reasons=tuple(lost_reasons),
        source=source,
        generation_sd=generation_sd,
    )


def band_source_of(r: ReceiptBody) -> BandSource:
    """The receipt's band source: as recorded, else inferred (method, "Where a band comes from").

    A receipt that records none reads ``legacy`` when every arm of every case holds at most
    one draw (one generation, judged several times), else ``generation``.
    """
    if r.band_source is not None:
        return r.band_source
    arms = [a for c in r.cases for a in (c.arms.with_skill, c.arms.baseline)]
    return "legacy" if arms and all(len(a.draws) <= 1 for a in arms) else "generation"


def judge_scale(r: Receipt) -> tuple[float, float] | None:
    """The judge scale ``(worst, best)``, or ``None`` when no judge is recorded."""
    if r.judge is None:
        return None
    return (r.judge.scale.worst, r.judge.scale.best)


def case_bands(r: Receipt, band_source: BandSource | None = None) -> list[tuple[str, Band, Band]]:
    """``(case id, with-skill band, baseline band)`` for each case, in receipt order."""
    src = band_source or band_source_of(r)
    return [
        (c.id, arm_band(c.arms.with_skill, src), arm_band(c.arms.baseline, src)) for c in r.cases
    ]
