"""The sheet's line on the arms' reported input tokens: did the skill reach the model?"""

from __future__ import annotations

from driftproof.pages.words import UNKNOWN, arm_words
from driftproof.receipt import Receipt
from driftproof.wording import numeral


def skill_reached(r: Receipt) -> str | None:
    """Each arm's median reported input tokens, the skill's difference and size, or ``None``.

    Args:
        r: the receipt.

    Returns:
        The line's words; ``None`` when no arm reports input and the receipt is not a run of
        this tool with a skill arm (a run reporting none: its skill's arrival was not checked).
        An A/A calibration (``run.aa``) says that both arms carry the skill, so their difference
        is not the skill's; Claude Code that it takes the skill in place of its system prompt.
    """
    medians = {n: getattr(r.arms, n).input_tokens_median for n in r.arm_names}
    if all(v is None for v in medians.values()):
        ran = r.provenance is None and "with_skill" in medians
        return f"{UNKNOWN}, so whether the skill reached the model was not checked" if ran else None
    text = ", ".join(
        f"{arm_words(r)[n]} {UNKNOWN if v is None else f'{v:,.0f}'}" for n, v in medians.items()
    )
    skill, base = medians.get("with_skill"), medians.get("baseline")
    if r.run.aa:
        return text + _aa_reached(skill, base, r.skill.tokens)
    if skill is not None and base is not None:
        text += f"; with the skill {numeral(skill - base, '+,.0f')}"
    if r.skill.tokens is not None:
        text += f", beside a skill of about {r.skill.tokens:,} tokens"
    if r.run.harness is not None and r.run.harness.name == "claude-code":
        text += " (Claude Code takes the skill in place of its own system prompt, so its arms"
        text += " differ by more than the skill)"
    return text


def _aa_reached(skill: float | None, base: float | None, tokens: int | None) -> str:
    """The tail of the input-tokens line of an A/A calibration, whose arms both carry the skill.

    Args:
        skill: the with-skill arm's median reported input tokens, if any.
        base: the baseline arm's, if any.
        tokens: the skill's size in tokens, if known.

    Returns:
        ``"; the arms +N apart: an A/A calibration, …"``: both arms carry the skill, so no
        difference between them is the skill's.
    """
    apart = "" if skill is None or base is None else numeral(skill - base, "+,.0f")
    apart = f"; the arms {apart} apart" if apart else ""
    size = "" if tokens is None else f" (about {tokens:,} tokens)"
    return (
        f"{apart}: an A/A calibration, in which both arms carry the skill{size}, "
        "so their inputs are expected to match"
    )
