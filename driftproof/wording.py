"""Fixed words and constants of the method, in one place (D-10).

Sentences the method quotes are shown character for character, taken from here by every printer
and template. Never print "drift" or "no change" as a verdict. The codes the rule decides are
enums in :mod:`driftproof.stats.codes`.
"""

from __future__ import annotations

import math
from typing import Final

#: The effect floor: a move must be at least this large to be called (method, "Effect floor").
EFFECT_FLOOR: Final[float] = 0.05
DEFAULT_EFFECT: Final[float] = round(1.5 * EFFECT_FLOOR, 12)  # the true lift `plan` sizes a run for
#: Absolute tolerance for band touching and for meeting the floor (D-3).
TOLERANCE: Final[float] = 1e-9
#: Draws per arm at least (method: "at least three times").
MIN_DRAWS_PER_ARM: Final[int] = 3
#: Above this many draws per arm plan gives no count.
MAX_PLANNED_DRAWS: Final[int] = 10_000
#: The most draws one arm of a receipt holds (the schema's ``draws`` maxItems): run --draws's cap.
MAX_DRAWS_IN_ARM: Final[int] = 1_000
#: The arms a receipt may name, in receipt order.
ARMS: Final[tuple[str, ...]] = ("with_skill", "baseline", "control")
#: The arms a lift compares: the with-skill arm (the verdicts) and the baseline (the lifts).
COMPARED_ARMS: Final[tuple[str, ...]] = ("with_skill", "baseline")
#: Each arm as output for people names it (the receipt's key, then the words).
ARM_WORDS: Final[dict[str, str]] = {
    "with_skill": "with skill",
    "baseline": "baseline",
    "control": "control",
}
#: An A/A calibration's arms as people read them: its two runs (``run.aa``).
AA_ARM_WORDS: Final[dict[str, str]] = {
    **ARM_WORDS,
    "with_skill": "first run",
    "baseline": "second run",
}
#: A check whose outcome is error, in words: the check itself could not run; never a fail.
CHECK_ERROR: Final[str] = "could not run (error)"

NO_SEPARATION: Final[str] = "no separation detected at this sample size"
NOT_ENOUGH_DRAWS: Final[str] = "Not enough draws to conclude at this effect floor."
MORE_CASES: Final[str] = "More cases, not more draws, are needed to conclude at this effect floor."
BELOW_EFFECT_FLOOR: Final[str] = "below effect floor"
SMOKE_RUN: Final[str] = "Smoke run, no verdict"
NO_DRAW_COUNT_REACHES: Final[str] = "no draw count reaches the floor"
#: Why not, in a reader's words (method, "Not enough draws").
NO_DRAW_COUNT_WHY: Final[str] = (
    "the two arms' spreads add up to the floor or more; more draws do not narrow a spread"
)
#: Why an A/A calibration (``run.aa``) has no lift and no lift breakdown: its arms both ran with
#: the skill, so their difference is noise.
AA_NO_LIFT: Final[str] = (
    "an A/A calibration: both arms ran with the skill, so their difference measures noise, "
    "not what the skill adds"
)
#: A run in which no case has a measured score in both arms (D-17).
NOT_MEASURED: Final[str] = "not measured"
NOT_LIKE_FOR_LIKE: Final[str] = (
    "The two receipts' bands come from different sources, so a per-case comparison "
    "across them is not like for like."
)

#: Why a regrade's preset is none: the receipt it read, whose preset it carries, named none.
REGRADE_PRESET: Final[str] = (
    "the original receipt, whose answers this regrade graded again, named none"
)

#: Band sources (method, "Where a band comes from"), and ``as_given``: one answer per arm with
#: one score as its source gave it and no judge sample (a band of one score, with no spread).
BAND_SOURCE_LEGEND: Final[dict[str, str]] = {
    "legacy": (
        "one answer per arm, judged several times: the band measures the judge, not the model."
    ),
    "generation": (
        "bands across draws: the band is the spread of the per-draw scores, "
        "each draw a separate answer of the arm."
    ),
    "as_given": (
        "one answer per arm, with one score as its source gave it and no judge sample: "
        "each band is that one score, with no spread."
    ),
}

#: A receipt that records one answer per arm judged several times but holds no judge sample: its
#: bands are recomputed from what it holds (D-18), said once beside the words for them.
BAND_SOURCE_NOT_HELD: Final[str] = (
    "recorded as one answer per arm judged several times, but the receipt holds no judge "
    "sample, so each band is the one score the source gave"
)

#: A receipt recording bands across draws that holds one scored draw per arm (an import of one
#: run per arm): how it records them, before what that leaves (pages.band_sources.ONE_DRAW_WHY).
BAND_SOURCE_ONE_DRAW: Final[str] = "recorded as bands across draws"

#: Band sources in plain words: a results table's, and a comparison's one score as given.
BAND_SOURCE_HEADER: Final[dict[str, str]] = {
    "generation": "bands across draws",
    "as_given": "one score per answer, as the source gave it",
}

#: ``provenance.tool`` of a caveman import (its importer writes it; the sheet reads it).
CAVEMAN_TOOL: Final[str] = "caveman-evals"

#: Lanes with no surface (no endpoint, no harness): a receipt they make reads UNVERIFIED (D-18).
OFFLINE: Final[tuple[str, ...]] = ("stub", "simulated")

#: Verification levels, lowest first (Metere, arXiv:2605.00424). FORMAL is reserved.
LEVELS: Final[tuple[str, ...]] = ("UNVERIFIED", "DECLARED", "TESTED", "FORMAL")

#: Each verification level in plain words, as a sheet says it beside the level (the receipt
#: specification's table of levels, shortened; the method page's section on them, linked).
LEVEL_WORDS: Final[dict[str, str]] = {
    "UNVERIFIED": "made by an offline run (the demo's simulated lane or the test stub), a smoke "
    "run or a stopped run, or regraded by the stub judge; never given a verdict",
    "DECLARED": "imported from another tool's results, recorded faithfully; never given a verdict",
    "TESTED": "run by Driftproof against the real model under the full method, graded by the "
    "fixed judge; the only level that can earn a verdict",
    "FORMAL": "reserved for formal verification of skills; no receipt can claim it yet",
}

#: Lost-draw kind of each way a reply can end unfinished → its words (receipt ``lost.kind``;
#: ``truncated`` is the output budget; D-19).
ENDING_WORDS: Final[dict[str, str]] = {
    "truncated": "output budget",
    "context_window": "context window",
    "paused_turn": "paused turn",
    "server_abort": "aborted by the server",
    "content_filter": "content filter",
    "refusal": "refusal",
    "tool_call": "tool call with no answer",
    "length_unknown": "length stop (the context window or the output budget: the server did "
    "not report its output tokens)",
    "reasoning_mixed": "reasoning mixed into the answer",
    "unfinished_answer": "answer message not finished",
    "unknown_ending": "unknown ending",
}

#: Every lost-draw kind the runner and the importers write (receipt ``lost.kind``) → the words
#: output for people shows; a kind not listed is shown with its underscores as spaces.
LOST_KIND_WORDS: Final[dict[str, str]] = {
    **{k: v for k, v in ENDING_WORDS.items() if k != "truncated"},
    "truncated": "truncated",
    "prompt_dropped": "prompt dropped",
    "handoff": "another model answered",
    "no_answer": "no answer",
    "error": "request failed",
    "unscored": "no valid grade",
    "capture_error": "files not captured",
    "too_large": "answer too large",
    "points_elsewhere": "answer points elsewhere",
    "source_error": "error in the source",
    "missing": "missing from the source",
}


#: The minus sign of every figure people read (the site, the command line, Markdown): U+2212.
MINUS = "\u2212"


def numeral(x: float, spec: str, *, minus: str = MINUS) -> str:
    """``format(x, spec)``, its minus sign written ``minus``: every signed figure is written so.

    ``−0.120`` (U+2212, the default) where people read it, ``-0.120`` with ``minus="-"`` where
    a program does (a workflow output).
    """
    text = format(x, spec)
    return minus + text[1:] if text.startswith("-") else text


def count_of(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1: ``1 draw``, ``0 cases``, ``1,200 draws``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def first_of(names: list[str] | tuple[str, ...], at_most: int = 10) -> str:
    """``names`` joined by commas, the first ``at_most`` only, then ``and N more``."""
    more = len(names) - at_most
    return ", ".join(names[:at_most]) + (f" and {more:,} more" if more > 0 else "")


def cases_named(ids: list[str] | tuple[str, ...]) -> str:
    """``case 2``, or ``cases 2, 3`` (:func:`first_of`: the first ten, then how many more)."""
    return f"{'case' if len(ids) == 1 else 'cases'} {first_of(ids)}"


def said_once(head: str, why: str) -> str:
    """``head: why``, or ``why`` alone when it already opens with ``head`` (case aside).

    ``said_once("not measured", "not measured: 18 of 18 draws lost …")`` is the reason alone,
    so a status and a reason that opens with it do not say the same words twice.
    """
    if why.casefold() == head.casefold() or why.casefold().startswith(f"{head.casefold()}:"):
        return why
    return f"{head}: {why}"


def draw_words(case_id: str, arm: str, index: int, *, aa: bool | None = False) -> str:
    """A draw as a refusal names it: case, arm in words, receipt ``index`` + 1 (counted from 1).

    ``aa``: the receipt is an A/A calibration, whose arms are named as its two runs.
    """
    return f"case {case_id}, {(AA_ARM_WORDS if aa else ARM_WORDS)[arm]}, draw {index + 1}"


def dollars(x: float, digits: int = 2) -> str:
    """``$0.02``, US dollars at ``digits`` places; ``too large to state`` when ``x`` is not finite.

    From a billion, three significant figures (``$1e+308``), never hundreds of digits. A sum or
    product of recorded costs past the largest float is infinite: never ``$inf``; a recorded
    ``-0.0`` is ``$0.00``, never ``$-0.00``.
    """
    if not math.isfinite(x):
        return "too large to state"
    return f"${x + 0.0:.{digits}f}" if x < 1e9 else f"${x:.3g}"


#: What shows as nothing: white space (each character :meth:`str.isspace` calls so is in it or
#: is a control), control and format characters, and what Unicode ignores by default (a zero-width
#: space, a byte-order mark, a word joiner, a variation selector, a Hangul filler).
_SHOWS_AS_NOTHING = r"[\s\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]*"


def is_blank(text: str) -> bool:
    """Whether ``text`` names nothing: empty, or made only of characters that show as nothing.

    The one rule for a name that must not be blank (a skill's, a grader's, an id): ``""``,
    ``"   "``, a zero-width space, a byte-order mark and a word joiner with a space are blank;
    a letter and a zero-width space is not.
    """
    import regex  # deferred: start-up time of --help

    return regex.fullmatch(_SHOWS_AS_NOTHING, text) is not None


def name_refusal(text: str, what: str) -> str | None:
    """Why ``text``, given for ``what`` (a name) by the user or a file, is refused; else ``None``.

    It is blank (:func:`is_blank`), or it holds a line break or a control character (Unicode
    Cc, Zl, Zp), named by its code point and place (counted from 1).
    """
    import regex  # deferred: start-up time of --help

    if is_blank(text):
        return f"expected {what}, found a blank one"
    if (bad := regex.search(r"[\p{Cc}\p{Zl}\p{Zp}]", text)) is not None:
        return (
            f"expected {what} on one line, with no control character; found U+{ord(bad[0]):04X} "
            f"at character {bad.start() + 1}"
        )
    return None
