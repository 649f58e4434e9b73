"""The per-case verdict: band separation, then the effect floor (D-3 to D-5, D-9).

Order (D-4): an arm under two measured draws is underpowered (D-2, D-5); separated bands
are improved or regressed at ``|Δ| ≥ 0.05``, else below effect floor; bands that touch are
underpowered when the resolution reaches the floor (D-5), else no separation. A separated case
keeps its verdict only if every completion of its lost draws does, else inconclusive (D-9).
The underpowered test qualifies only unseparated cases (example C2 stays regressed).
"""

from __future__ import annotations

from dataclasses import dataclass

from driftproof.stats._rule import separation_verdict
from driftproof.stats.band import Band, mean_delta
from driftproof.stats.codes import VerdictCode
from driftproof.stats.lost_draws import keeps_verdict, lost_detail
from driftproof.stats.underpowered import draws_needed, reaches_floor, resolution, se_diff
from driftproof.wording import BELOW_EFFECT_FLOOR, NO_SEPARATION

#: The words shown for each code where they differ from the code (D-10).
_SHOWN: dict[str, str] = {
    VerdictCode.NO_SEPARATION: NO_SEPARATION,
    VerdictCode.BELOW_EFFECT_FLOOR: BELOW_EFFECT_FLOOR,
}


def verdict_words(verdict: str) -> str:
    """The words a page shows for a case verdict (D-10).

    "no separation" reads in full, "no separation detected at this sample size"; every other
    code reads as itself.
    """
    return _SHOWN.get(verdict, verdict)


@dataclass(frozen=True)
class CaseVerdict:
    """The verdict of one case between two bands.

    ``a`` is the earlier or baseline band, ``b`` the later or with-skill one.

    Attributes:
        verdict: a :class:`VerdictCode`.
        a, b: the two bands compared.
        delta: ``b.mean − a.mean`` on the judge scale; ``None`` when a side measured nothing.
        separated: the bands are apart on the measured draws (``|Δ| > sd_A + sd_B``, D-3).
        resolution: ``sd_A + sd_B + 2·SE_diff`` (D-5), the worked examples' power metric;
            ``None`` when a side has no spread.
        draws_needed: equal draws per arm that would bring the resolution under the floor,
            spreads held (D-5); ``None`` when no count does or a side has no spread.
        no_draw_count: ``sd_A + sd_B`` alone reaches the floor, so no draw count does (D-5).
        lost_detail: each side's lost and drawn counts with the recorded reasons (D-9);
            ``None`` when no draw was lost.
    """

    case_id: str
    verdict: VerdictCode
    a: Band
    b: Band
    delta: float | None
    separated: bool
    resolution: float | None
    underpowered: bool
    draws_needed: int | None
    no_draw_count: bool
    lost_detail: str | None

    @property
    def sum_sd(self) -> float | None:
        """``sd_A + sd_B``; ``None`` when a side has no spread."""
        if self.a.sd is None or self.b.sd is None:
            return None
        return self.a.sd + self.b.sd

    @property
    def se_diff(self) -> float | None:
        """Unpaired ``sqrt(sd_A²/n_A + sd_B²/n_B)`` (D-5); ``None`` when a side has no spread."""
        if self.a.sd is None or self.b.sd is None:
            return None
        return se_diff(self.a.sd, self.a.n, self.b.sd, self.b.n)


def case_verdict(
    a: Band,
    b: Band,
    *,
    case_id: str = "",
    scale: tuple[float, float] | None = (0.0, 1.0),
    a_label: str = "A",
    b_label: str = "B",
) -> CaseVerdict:
    """Apply the verdict rule to one case (D-3, D-4, D-5, D-9).

    ``a`` is the earlier receipt's band (in a diff) or the baseline arm's (inside one receipt,
    D-6), ``b`` the later or with-skill one. ``scale`` is the judge scale ``(worst, best)``
    bounding lost draws (D-9); ``None`` (unrecorded) makes a separated case with lost draws
    inconclusive. ``a_label``/``b_label`` name the sides in ``lost_detail``. Never raises for
    bands built by :mod:`driftproof.stats.band`.
    """
    detail = lost_detail(a, b, a_label, b_label)
    delta = mean_delta(a, b)
    if a.sd is None or b.sd is None or delta is None:
        # One measured draw gives no spread: the arm is underpowered, and no draw count can
        # be worked out (D-2, D-5).
        return CaseVerdict(
            case_id, VerdictCode.UNDERPOWERED, a, b, delta, False, None, True, None, False, detail
        )
    sum_sd = a.sd + b.sd
    res = resolution(a.sd, a.n, b.sd, b.n)
    needed, none_reaches = draws_needed(a.sd, b.sd)
    called = separation_verdict(delta, sum_sd)
    if called is not None:
        if not keeps_verdict(a, b, scale):
            called = VerdictCode.INCONCLUSIVE
        return CaseVerdict(
            case_id, called, a, b, delta, True, res, False, needed, none_reaches, detail
        )
    under = reaches_floor(res)
    code = VerdictCode.UNDERPOWERED if under else VerdictCode.NO_SEPARATION
    return CaseVerdict(case_id, code, a, b, delta, False, res, under, needed, none_reaches, detail)
