"""Lost draws as people read them: a sheet's, per case, arm and distinct reason; a diff's."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import groupby

from driftproof.pages.sheet import LostDraw
from driftproof.stats import CaseVerdict

#: A diff's note on a case that lost draws; :func:`diff_lost` gives them under its table.
LOST_NOTE = "draws lost (reasons below)"
#: The line before them.
DIFF_LOST_HEAD = "Lost draws, left out of the bands above, with the recorded reasons:"


def diff_lost(rows: Iterable[CaseVerdict]) -> list[str]:
    """``<case>: <each side's lost and drawn counts, with the recorded reasons>`` (D-9).

    One line per case of ``rows``, in order, that lost draws on either side.
    """
    return [f"{v.case_id}: {v.lost_detail}" for v in rows if v.lost_detail]


@dataclass(frozen=True)
class LostGroup:
    """The lost draws of one case and arm that share one reason, word for word.

    ``numbers`` are the draws, each counting from 1: ``3``, ``2, 3, 5`` or ``1–9`` (runs of
    three or more as a range); ``count`` how many; ``reason`` the recorded reason, whole.
    """

    case_id: str
    arm: str
    numbers: str
    count: int
    reason: str

    @property
    def line(self) -> str:
        """``<case>, <arm>, draw 3: <reason>``, or ``…, <count> draws (<numbers>): <reason>``."""
        draws = (
            f"draw {self.numbers}" if self.count == 1 else f"{self.count:,} draws ({self.numbers})"
        )
        return f"{self.case_id}, {self.arm}, {draws}: {self.reason}"


def lost_groups(lost: Iterable[LostDraw]) -> tuple[LostGroup, ...]:
    """``lost`` grouped by case, arm and identical reason, in the order each group first appears."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for d in lost:
        groups.setdefault((d.case_id, d.arm, d.reason), []).append(d.draw)
    return tuple(
        LostGroup(case_id, arm, _numbers(numbers), len(numbers), reason)
        for (case_id, arm, reason), numbers in groups.items()
    )


def _numbers(numbers: list[str]) -> str:
    """``3``, or the numbers joined, runs of three or more as ``a–b`` (as given if not numbers)."""
    if not all(x.isdigit() for x in numbers):
        return ", ".join(numbers)
    ordered = enumerate(sorted({int(x) for x in numbers}))
    runs = [[n for _, n in run] for _, run in groupby(ordered, lambda t: t[1] - t[0])]
    return ", ".join(f"{r[0]}–{r[-1]}" if len(r) >= 3 else ", ".join(map(str, r)) for r in runs)
