"""The sheet's line on whether the skill reached the model.

Each arm's median reported input, the arms' difference, the skill's size as the receipt records it
(D-14: characters ÷ 4), and what the run's own check of each with-skill draw (o200k_base tokens)
can and cannot see.
"""

from __future__ import annotations

from driftproof.pages.words import UNKNOWN, arm_words
from driftproof.receipt import Receipt
from driftproof.tokens import SKILL_REACHED_SHARE
from driftproof.wording import OFFLINE, count_of, numeral


def skill_reached(r: Receipt) -> str | None:
    """Each arm's median reported input tokens, the skill's difference and size, or ``None``.

    ``None`` when no arm reports input and ``r`` is no run of this tool with a skill arm (one
    that is says its skill's arrival was not checked).
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
        text += f", beside a skill of about {r.skill.tokens:,} tokens at four characters a token"
    if r.run.harness is not None and r.run.harness.name == "claude-code":
        text += " (Claude Code takes the skill in place of its own system prompt, so its arms"
        text += " differ by more than the skill)"
    return text + _check_words(r, medians)


def _check_words(r: Receipt, medians: dict[str, float | None]) -> str:
    """What the run's check held each with-skill draw to and what that misses (D-14), or ``""``.

    ``""`` for a receipt this tool did not run itself on a model, or with no with-skill input. On
    the API the draw is held to the other arm's median (the control's when it reported one);
    otherwise, or with neither reported, to the share of the skill alone.
    """
    if r.provenance is not None or r.run.surface is None or r.run.provider in OFFLINE:
        return ""
    if medians.get("with_skill") is None:
        return ""
    share = f"{SKILL_REACHED_SHARE:.0%} of the skill in o200k_base tokens"
    cut = (
        f"one cut by less than {1 - SKILL_REACHED_SHARE:.0%} (or more, where the server's "
        "tokenizer makes more tokens of it than o200k_base does)"
    )
    other = "control" if medians.get("control") is not None else "baseline"
    if r.run.surface == "api" and medians.get(other) is not None:
        held = (
            f"; a with-skill draw counted only when its input was above the {other}'s median by "
            f"{share}: a skill left out shows, {cut} does not"
        )
    else:
        held = (
            f"; a with-skill draw counted only when its input reached {share}: a skill left out "
            f"shows only where the rest of the prompt is smaller than that, {cut} never"
        )
    return held + _unchecked(r)


def _unchecked(r: Receipt) -> str:
    """``"; N with-skill draws reported no input, so were not checked"``, or ``""`` with none.

    A kept with-skill draw without a provider-counted input cannot be held to the check (D-14).
    """
    n = sum(
        d.lost is None
        and (d.tokens is None or d.tokens.counted_by != "provider" or d.tokens.input is None)
        for c in r.cases
        for d in c.arms.with_skill.draws
    )
    verb = "was" if n == 1 else "were"
    return (
        f"; {count_of(n, 'with-skill draw')} reported no input, so {verb} not checked" if n else ""
    )


def _aa_reached(skill: float | None, base: float | None, tokens: int | None) -> str:
    """``"; the arms +N apart: an A/A calibration, …"``: the tail of an A/A calibration's line."""
    apart = "" if skill is None or base is None else numeral(skill - base, "+,.0f")
    apart = f"; the arms {apart} apart" if apart else ""
    size = "" if tokens is None else f" (about {tokens:,} tokens)"
    return (
        f"{apart}: an A/A calibration, in which both arms carry the skill{size}, "
        "so their inputs are expected to match"
    )
