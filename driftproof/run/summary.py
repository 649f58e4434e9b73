"""The one line ``driftproof run`` prints when an arm measured nothing (D-17)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from driftproof.receipt import Receipt
from driftproof.stats import Refusal, lost_causes, no_verdict
from driftproof.stats.unmeasured import lost_words
from driftproof.wording import NOT_MEASURED

_ARM_WORDS = {"with_skill": "with-skill", "baseline": "baseline", "control": "control"}


def nothing_measured_line(r: Receipt, arms: Sequence[str], out: Path, journal: Path) -> str:
    """The one line ``driftproof run`` prints when ``arms`` of ``r`` measured nothing (D-17).

    The draws lost, the commonest cause (with the base URL where no connection got an answer),
    what the receipt at ``out`` reads and where the journal is.
    """
    words = " and ".join(_ARM_WORDS[a] for a in arms)
    draws = [
        d for c in r.cases for a in arms if getattr(c.arms, a) for d in getattr(c.arms, a).draws
    ]
    causes = lost_causes(r, arms)
    why = lost_words(causes, len(draws)) if causes else f"none of {len(draws)} draws has a score"
    refused = no_verdict(r)
    reads = (  # only the control arm empty: the receipt may still carry a verdict
        f'reads "{NOT_MEASURED}"'
        if refused is not None and refused.refusal is Refusal.NOT_MEASURED
        else "is written"
    )
    return (
        f"nothing was measured in the {words} arm{'s' if len(arms) > 1 else ''}: {why}; "
        f"{out} {reads} and the draws are kept in {journal} (once the cause is fixed, remove "
        "both before running again: a resumed run keeps its lost draws)"
    )
