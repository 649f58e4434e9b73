"""An A/A calibration in words, cited beside a comparison's verdicts and on its own sheet, never
as a verdict (issue 37, item 4): one line shared by ``diff --aa``, the Action and ``view``."""

from __future__ import annotations

from driftproof.stats.aa import AAReading

__all__ = ["aa_line"]


def aa_line(name: str, aa: AAReading) -> str:
    """``aa`` in plain words, naming the A/A receipt ``name``.

    Returns:
        One sentence: the cases the rule called a change in between the two runs of one arm;
        the false calls noise alone gives per comparison at these spreads and the chance of at
        least one; the smallest effect the spreads can resolve; cases with no spread to read.
    """
    n = len(aa.cases)
    read = n - aa.unread
    text = (
        f"A/A calibration {name}: the rule called a change in {aa.observed} of {n} "
        f"case{'s' if n != 1 else ''} between two runs of the same arm"
    )
    if read:
        text += (
            f"; at these spreads and draws, noise alone is expected to call a change in "
            f"{aa.expected:.2f} of {read} cases per comparison (chance of at least one: "
            f"{100 * aa.at_least_one:.0f}%); the smallest effect these spreads can resolve is "
            f"{aa.smallest_median:.3f} at the median case, {aa.smallest_max:.3f} at the widest"
        )
    if aa.unread:
        text += f"; {aa.unread} case{'s' if aa.unread != 1 else ''} with no spread to read"
    return text + "."
