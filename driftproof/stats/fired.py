"""How often the skill fired: counts over draws and the share fired, beside the score (D-9)."""

from __future__ import annotations

from collections.abc import Sequence

from driftproof.receipt import Draw

__all__ = ["fired_counts", "fired_percent", "fired_share"]


def fired_counts(draws: Sequence[Draw], *, lost_too: bool = False) -> tuple[int, int]:
    """``(fired, observed)`` over draws that observed it; lost ones only with ``lost_too`` (D-9)."""
    seen = [
        d.skill_fired for d in draws if d.skill_fired is not None and (lost_too or d.lost is None)
    ]
    return sum(seen), len(seen)


def fired_share(fired: int, observed: int) -> float | None:
    """``fired / observed``, a fraction in [0, 1]; ``None`` when nothing was observed (D-13)."""
    return fired / observed if observed else None


def fired_percent(fired: int, observed: int) -> float | None:
    """``100 * fired / observed``, in percent; ``None`` when nothing was observed (D-13)."""
    return 100 * fired / observed if observed else None
