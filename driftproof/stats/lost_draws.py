"""Lost draws in a comparison: the exact vertex check (D-9).

A separated case keeps its verdict (direction and side of the floor, "below effect floor"
included) only if every completion of its lost draws within the judge scale keeps it; else it
reads inconclusive. The corners suffice: ``|Δ| − sd_A − sd_B`` is concave for a fixed sign of
Δ, so its superlevel set and the floor's half-spaces are convex and hold the box exactly when
they hold every corner; lost draws are exchangeable within an arm, so ``(k_A+1)·(k_B+1)``
corners are checked.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from driftproof.stats._rule import separation_verdict
from driftproof.stats.band import Band, completed


def completions(a: Band, b: Band, scale: tuple[float, float]) -> Iterator[tuple[float, float]]:
    """``(Δ, sd_A + sd_B)`` at each of the ``(k_A+1)·(k_B+1)`` corners of the lost draws (D-9)."""
    worst, best = scale
    for ja in range(a.lost + 1):
        _, ma, sa = completed(a, ja, worst, best)
        for jb in range(b.lost + 1):
            _, mb, sb = completed(b, jb, worst, best)
            yield mb - ma, sa + sb


def keeps_verdict(a: Band, b: Band, scale: tuple[float, float] | None) -> bool:
    """True when the measured separation verdict holds at every completion of the lost draws (D-9).

    ``a`` is the earlier (or baseline) band, ``b`` the later (or with-skill). Overlapping bands
    have no verdict to keep: True. With ``scale`` ``None`` (unrecorded) lost draws cannot keep it.

    Raises:
        ValueError: a band has no spread (fewer than two measured draws).
    """
    if a.mean is None or b.mean is None or a.sd is None or b.sd is None:
        raise ValueError("the vertex check needs two measured draws in each arm")
    if a.lost == 0 and b.lost == 0:
        return True
    if scale is None:
        return False
    delta = b.mean - a.mean
    measured = (separation_verdict(delta, a.sd + b.sd), delta > 0)
    if measured[0] is None:
        return True  # D-9 concerns separated cases; bands that overlap have no call to lose
    lo, hi = min(scale), max(scale)
    for d, s in completions(a, b, (lo, hi)):
        if (separation_verdict(d, s), d > 0) != measured:
            return False
    return True


def mean_move(band: Band, scale: tuple[float, float]) -> float:
    """The most the arm's mean could move at any score its lost draws could have had (D-8, D-9).

    ``k/(n+k) · max(mean − worst, best − mean)`` for ``n`` measured and ``k`` lost draws;
    0 with no lost draw.

    Raises:
        ValueError: the arm has lost draws but no measured one (its mean is unknown).
    """
    if band.lost == 0:
        return 0.0
    if band.mean is None:
        raise ValueError("an arm with no measured draw has no mean to move")
    worst, best = min(scale), max(scale)
    return band.lost / (band.n + band.lost) * max(band.mean - worst, best - band.mean)


def lost_detail(a: Band, b: Band, a_label: str = "A", b_label: str = "B") -> str | None:
    """Each side's lost and drawn counts with the recorded reasons; ``None`` when none was lost.

    Example: ``"A: 0 of 3 draws lost; B: 1 of 3 draws lost (timeout after 2 retries)"``.
    """
    if a.lost == 0 and b.lost == 0:
        return None
    return f"{_side(a, a_label)}; {_side(b, b_label)}"


def _side(band: Band, label: str) -> str:
    text = f"{label}: {band.lost} of {band.drawn} draws lost"
    if not band.lost_reasons:
        return text
    counts = Counter(band.lost_reasons)
    reasons = ", ".join(r if c == 1 else f"{r} ×{c}" for r, c in counts.items())
    return f"{text} ({reasons})"
