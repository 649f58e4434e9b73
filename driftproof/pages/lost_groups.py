"""A sheet's lost draws as people read them: one line per case, arm and distinct reason.

The one builder of the "Lost draws" part of ``driftproof view`` and of the site's receipt page.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from driftproof.pages.sheet import LostDraw


@dataclass(frozen=True)
class LostGroup:
    """The lost draws of one case and arm that share one reason, word for word.

    ``draws`` reads ``draw 3`` for one draw, ``3 draws (2, 3, 5)`` or ``9 draws (1–9)`` for
    several (each draw counting from 1, runs of three or more as a range); ``reason`` is the
    recorded reason, whole.
    """

    case_id: str
    arm: str
    draws: str
    reason: str

    @property
    def line(self) -> str:
        """``<case>, <arm>, <draws>: <reason>``."""
        return f"{self.case_id}, {self.arm}, {self.draws}: {self.reason}"


def lost_groups(lost: Iterable[LostDraw]) -> tuple[LostGroup, ...]:
    """``lost`` grouped by case, arm and identical reason, in the order each group first appears.

    Every distinct reason is kept with its words exactly; draws that differ only in their number
    are said once with their count. Never raises.
    """
    groups: dict[tuple[str, str, str], list[str]] = {}
    for d in lost:
        groups.setdefault((d.case_id, d.arm, d.reason), []).append(d.draw)
    return tuple(
        LostGroup(case_id, arm, _draws(numbers), reason)
        for (case_id, arm, reason), numbers in groups.items()
    )


def _draws(numbers: list[str]) -> str:
    """``draw 3``, or ``<n> draws (<numbers>)`` with runs of three or more as ``a–b``."""
    if len(numbers) == 1:
        return f"draw {numbers[0]}"
    if not all(x.isdigit() for x in numbers):  # not numbers: listed as they are
        return f"{len(numbers):,} draws ({', '.join(numbers)})"
    runs: list[list[int]] = []
    for n in sorted({int(x) for x in numbers}):
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    said = [f"{run[0]}–{run[-1]}" if len(run) >= 3 else ", ".join(map(str, run)) for run in runs]
    return f"{len(numbers):,} draws ({', '.join(said)})"
