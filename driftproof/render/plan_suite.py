"""``driftproof plan``'s paragraph on the suite as a whole.

What draws do, and what the cases' spread of means says to one receipt (D-8) or to the
comparison of two runs a gate makes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from driftproof.wording import AA_ARM_WORDS, ARM_WORDS, EFFECT_FLOOR, NO_SEPARATION

if TYPE_CHECKING:
    from driftproof.pages.plan import Plan


def plan_arms(p: Plan) -> tuple[str, str]:
    """The pilot's with-skill and baseline arms in words: an A/A pilot's two runs as such."""
    w = AA_ARM_WORDS if p.aa else ARM_WORDS
    return w["with_skill"], w["baseline"]


def suite_line(p: Plan) -> str | None:
    """What draws do per case, and the spread of the case means as context, or ``None``.

    For one receipt, the receipt-wide reading (D-8) it would get, and that more draws do not
    narrow that band while more cases narrow it only when their means sit closer together; for
    an A/A pilot, whose count sizes a gate (a comparison, read case by case, with no
    receipt-wide reading), that the band does not bear on it. ``None`` when the cases' means
    do not disagree.
    """
    if p.suite_band is None or p.suite_spreads is None or (p.sentence is None and not p.aa):
        return None
    sw, sb = p.suite_spreads
    w = plan_arms(p)
    band = (
        f"Its comparison band in this pilot, one spread: each arm's spread of its cases' mean "
        f"scores ({sw:.3f} {w[0]}, {sb:.3f} {w[1]}) added in quadrature, is {p.suite_band:.3f}, "
        f"at or above the {EFFECT_FLOOR} floor: it measures how far apart the cases' mean scores "
        "sit in each arm, that is how hard each case is, not whether their lifts differ"
    )
    if p.aa:
        across = (
            "A gate compares two runs case by case, as diff and the Action do: with no case "
            f'separated its headline reads "{NO_SEPARATION}", and the reading one receipt gets '
            "over its cases as a whole is not asked of a comparison. As context, the cases' own "
            "spread: "
            f"{band[band.index('each arm') :]}; a change between two runs of the same case does "
            "not depend on it."
        )
    else:
        across = (
            "Across the suite, as context: should a run separate no case, with two or more "
            "reading no separation and none underpowered on its own, the receipt as a whole "
            f'reads "{p.sentence}" {band}; more draws do not narrow it, and more cases narrow it '
            "only when their mean scores sit closer together."
        )
    return (
        "Draws work case by case: more draws pin down each case's mean (the spreads of its band "
        f"stay as they are), which is what any draw count here is sized for. {across}"
    )
