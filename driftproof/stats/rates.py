"""Counts and shares the pages print: how often the skill fired (D-9), checks passed."""

from __future__ import annotations

from collections.abc import Sequence

from driftproof.receipt import Draw


def fired_counts(draws: Sequence[Draw], *, lost_too: bool = False) -> tuple[int, int]:
    """``(fired, observed)`` over draws that observed it; lost ones only with ``lost_too`` (D-9)."""
    seen = [
        d.skill_fired for d in draws if d.skill_fired is not None and (lost_too or d.lost is None)
    ]
    return sum(seen), len(seen)


def share(part: int, whole: int) -> float | None:
    """``part / whole``, a fraction in [0, 1]; ``None`` when ``whole`` is 0 (D-13)."""
    return part / whole if whole else None


def percent_of(part: int, whole: int) -> float | None:
    """``100 * part / whole``, in percent; ``None`` when ``whole`` is 0 (D-13)."""
    return 100 * part / whole if whole else None
