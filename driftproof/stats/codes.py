"""The codes of the verdict rule, apart from the words shown (D-4, D-7, D-10).

The words are :mod:`driftproof.wording`'s (D-10), picked by
:func:`driftproof.stats.verdict.verdict_words`. ``StrEnum``: a code equals its string.
"""

from __future__ import annotations

from enum import StrEnum


class VerdictCode(StrEnum):
    """The verdict of one case between two bands (D-4, D-5, D-9)."""

    IMPROVED = "improved"
    """Bands apart and the move up clears the 0.05 floor."""
    REGRESSED = "regressed"
    """Bands apart and the move down clears the 0.05 floor."""
    BELOW_EFFECT_FLOOR = "below effect floor"
    """Bands apart, but ``|Δ|`` is under the 0.05 floor (counted apart in the summary)."""
    NO_SEPARATION = "no separation"
    """Bands touch or overlap and the case could have been separated (shown in full, D-10)."""
    UNDERPOWERED = "underpowered"
    """Not separated, and the resolution reaches the floor or an arm has one measured draw."""
    INCONCLUSIVE = "inconclusive"
    """Separated on the measured draws, but some completion of the lost draws is not (D-9)."""


class Status(StrEnum):
    """What one receipt reads (D-7): the badge's status and the sheet's reading."""

    PASSING = "passing"
    """A case helps (separates upward) and none hurts."""
    REGRESSED = "regressed"
    """A case hurts (separates downward)."""
    UNDERPOWERED = "UNDERPOWERED"
    """No case separated; one is underpowered, or the receipt-wide band reaches the floor (D-8)."""
    NO_SEPARATION = "no separation detected"
    """No case separated and none is underpowered."""
    NO_VERDICT = "no verdict"
    """The receipt gets no verdict: :func:`driftproof.stats.reading.verdict_refusal` says why."""


class Refusal(StrEnum):
    """Why a receipt gets no verdict, in the order the rule asks (D-7, D-15).

    :func:`driftproof.stats.reading.no_verdict` returns the first that applies.
    """

    AGGREGATES_ONLY = "aggregates only"
    """The source printed figures with no per-run score (D-15)."""
    SMOKE_RUN = "smoke run"
    """The receipt names a preset: below TESTED whatever level it carries."""
    SIMULATED = "simulated"
    """No model answered and no model judged (``driftproof demo``, the simulated provider)."""
    AA_CALIBRATION = "A/A calibration"
    """Both arms ran with the skill (``run.aa``, v0.16): a calibration, never a skill verdict."""
    BELOW_TESTED = "below TESTED"
    """The verification level is UNVERIFIED or DECLARED."""
    IMPORTED = "imported"
    """An import (a provenance block that is not a regrade's) never earns a verdict (D-15)."""
    SINGLE_ARM = "single-arm source"
    """The source recorded only one of the with-skill and baseline arms."""
    NO_JUDGE = "no judge"
    """No judge is recorded, so no score can be banded."""
    NOT_MEASURED = "not measured"
    """A run in which no case has a measured score in both arms (D-17)."""
