"""The receipt-wide band over several cases (method, "A wide band over several cases"; D-8).

Per arm, ``s`` is the sd across cases of the case means and ``w`` the mean of ``sd_i²/n_i``.
The band ``sqrt(s_with² + s_base²)`` at or above the floor reads UNDERPOWERED; the reduced
band ``sqrt(max(0, s_with² − w_with) + max(0, s_base² − w_base))`` then picks "More cases …"
(at or above the floor) or "Not enough draws …". The latter is forced when ``w`` cannot be
read or a case lost draws; lost draws widen ``s`` by ``sqrt(Σ move_i²/(N − 1))``
(``lost_draws.mean_move``; triangle inequality, centring never lengthens a vector). Under two
measured cases there is no band.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from driftproof.stats.band import Band, BandSource, case_bands, judge_scale
from driftproof.stats.lost_draws import mean_move
from driftproof.stats.moments import mean_of, mean_sd
from driftproof.stats.underpowered import reaches_floor
from driftproof.wording import MORE_CASES, NOT_ENOUGH_DRAWS

if TYPE_CHECKING:
    from driftproof.receipt import Receipt


@dataclass(frozen=True)
class ReceiptBand:
    """The receipt-wide comparison band (D-8). Spreads are on the judge scale.

    Attributes:
        cases: cases in the band (both arms measured).
        spread_with, spread_baseline: sd across cases of the per-case means, widened for lost draws.
        widening_with, widening_baseline: what lost draws added to each spread (0 when none).
        draw_part_with, draw_part_baseline: mean over cases of ``sd_i²/n_i``; ``None`` when
            some case's draw-to-draw part cannot be read.
        band: ``sqrt(spread_with² + spread_baseline²)``.
        reduced: the band with the draw-to-draw part taken out; ``None`` when unreadable.
        underpowered: ``band`` reaches the 0.05 floor (D-3 tolerance).
        sentence: the UNDERPOWERED sentence (D-10) when underpowered, else ``None``.
        reason: what makes the band wide, or why "Not enough draws …" was forced.
    """

    cases: int
    spread_with: float
    spread_baseline: float
    widening_with: float
    widening_baseline: float
    draw_part_with: float | None
    draw_part_baseline: float | None
    band: float
    reduced: float | None
    underpowered: bool
    sentence: str | None
    reason: str


def receipt_band_of(
    pairs: Sequence[tuple[Band, Band]], scale: tuple[float, float] | None = (0.0, 1.0)
) -> ReceiptBand | None:
    """The receipt-wide band from per-case ``(with_skill, baseline)`` bands (D-8).

    ``scale`` is the judge scale ``(worst, best)`` bounding lost draws (``None``: unrecorded).
    ``None`` when fewer than two cases have a measured mean in both arms.
    """
    usable = [(w, b) for w, b in pairs if w.mean is not None and b.mean is not None]
    dropped = len(pairs) - len(usable)
    if len(usable) < 2:
        return None
    arms = [_arm([p[i] for p in usable], scale) for i in (0, 1)]
    (s_w, widen_w, part_w, why_w), (s_b, widen_b, part_b, why_b) = arms
    band = math.hypot(s_w, s_b)
    reduced = None
    if part_w is not None and part_b is not None:
        base_w, base_b = s_w - widen_w, s_b - widen_b
        reduced = math.sqrt(max(0.0, base_w * base_w - part_w) + max(0.0, base_b * base_b - part_b))
    forced = [w for w in (why_w, why_b) if w] + (
        [f"{dropped} case(s) measured no draw in an arm"] if dropped else []
    )
    under = reaches_floor(band)
    if not under:
        sentence, reason = None, f"the comparison band {band:.4f} is under the effect floor"
    elif forced:
        sentence, reason = NOT_ENOUGH_DRAWS, "; ".join(forced)
    elif reduced is not None and reaches_floor(reduced):
        sentence = MORE_CASES
        reason = (
            f"with the draw-to-draw part taken out the band is still {reduced:.4f}: "
            "the cases' mean scores sit apart (how hard each case is, not their lift), and more "
            "draws do not change that"
        )
    else:
        sentence = NOT_ENOUGH_DRAWS
        reason = (
            f"with the draw-to-draw part taken out the band is {reduced:.4f}: "
            "it is draw spread, which more draws are expected to narrow"
        )
    return ReceiptBand(
        len(usable),
        s_w,
        s_b,
        widen_w,
        widen_b,
        part_w,
        part_b,
        band,
        reduced,
        under,
        sentence,
        reason,
    )


def receipt_band(r: Receipt, *, band_source: BandSource | None = None) -> ReceiptBand | None:
    """The receipt-wide band of ``r`` (D-8); ``band_source`` overrides the recorded one."""
    return receipt_band_of([(w, b) for _, w, b in case_bands(r, band_source)], judge_scale(r))


def _arm(
    bands: list[Band], scale: tuple[float, float] | None
) -> tuple[float, float, float | None, str]:
    """(widened spread, widening, draw part or None, forced-sentence reason) for one arm."""
    means = [b.mean for b in bands if b.mean is not None]
    _, s = mean_sd(means)
    s = s or 0.0
    why: list[str] = []
    parts: list[float] = []
    moves: list[float] = []
    for b in bands:
        part = _draw_part(b)
        if part is None:
            why.append("an arm measured one draw or records no spread across its draws")
        else:
            parts.append(part)
        if b.lost:
            why.append("a case lost draws")
            moves.append(mean_move(b, scale) if scale is not None else math.inf)
    # hypot: the root of the sum of squares without overflow on a huge judge scale
    widen = math.hypot(*moves) / math.sqrt(len(bands) - 1) if moves else 0.0
    draw_part = mean_of(parts) if len(parts) == len(bands) else None
    return s + widen, widen, draw_part, "; ".join(dict.fromkeys(why))


def _draw_part(b: Band) -> float | None:
    """``sd_i²/n_i`` of one case mean; ``None`` when its draw-to-draw part is unreadable (D-8).

    A generation band reads the part from its own measured draws, so a missing
    ``generation.sd`` forces nothing there; a legacy band (one draw, its judge samples) has no
    draws to read it from and needs the arm's recorded ``generation.sd``.
    """
    if b.source == "generation":
        if b.sd is None:
            return None
        return b.sd * b.sd / b.n
    if b.generation_sd is None:
        return None
    draws = max(1, b.drawn - b.lost)
    return b.generation_sd * b.generation_sd / draws
