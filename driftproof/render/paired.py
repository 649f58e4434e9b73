"""The exact paired test over cases in words, as context beside the verdict, never as it
(issue 37, item 3): one line shared by the receipt sheet and the comparison."""

from __future__ import annotations

from driftproof.pages.sheet_model import fmt
from driftproof.stats.paired import MC_FLIPS, MIN_CASES, PairedTest

__all__ = ["paired_line"]


def paired_line(t: PairedTest, subject: str, interval_of: str) -> str:
    """``t`` in plain words.

    Args:
        t: the test, from :func:`driftproof.stats.paired.paired_test`.
        subject: what moved per case, e.g. ``"lift"`` or ``"with-skill mean"``.
        interval_of: what the interval bounds, e.g. ``"the suite lift"``.

    Returns:
        One line: the counts up, down and at zero; then the two-sided exact sign-test p and the
        sign-flip interval with its coverage and method, or why they were not computed.
    """
    noun = "case" if t.cases == 1 else "cases"
    counts = f"{subject} up in {t.up} of {t.cases} {noun}, down in {t.down}, zero in {t.ties}"
    if t.sign_p is None or t.low is None or t.high is None or t.coverage is None:
        return (
            f"{counts}; not computed: it needs at least {MIN_CASES} cases, because with fewer "
            "no result can reach the 95% level"
        )
    if t.method == "exact":
        how = f"exact, over all {2**t.cases:,} sign flips"
    else:
        how = f"Monte Carlo, over {MC_FLIPS:,} random sign flips from a fixed seed"
    return (
        f"{counts}; sign test p = {t.sign_p:.3g} (two-sided, exact); sign-flip interval on "
        f"{interval_of} {fmt(t.low, signed=True)} to {fmt(t.high, signed=True)} "
        f"({100 * t.coverage:.1f}% coverage, {how})"
    )
