"""Where a receipt's bands come from (method, "Where a band comes from"), from its own fields.

Counts the receipt holds stand beside the recorded ones, never instead (D-13).
"""

from __future__ import annotations

from dataclasses import dataclass

from driftproof.pages.words import UNKNOWN, has_bands
from driftproof.receipt import Receipt
from driftproof.stats.band import band_source_of
from driftproof.stats.reading import unrecorded_arms
from driftproof.wording import (
    BAND_SOURCE_HEADER,
    BAND_SOURCE_LEGEND,
    BAND_SOURCE_NOT_HELD,
    BAND_SOURCE_ONE_DRAW,
)

#: The band sources the method names (method, "Where a band comes from").
METHOD_SOURCES = ("legacy", "generation")
#: A table cell's words for bands of one score each, however the receipt records them.
ONE_DRAW_SHORT = "one scored draw per arm, no spread"
#: What such bands are (method page, "Bands"), said by every receipt holding them, whatever it
#: records: after how it records them on its page, and with what ``n`` counts in its cases table.
ONE_DRAW_WHY = "no arm holds more than one scored draw, so no band has a spread"


@dataclass(frozen=True)
class BandFacts:
    """Band source with its legend (``short``: a table cell), draws, judge samples, as text.

    Each count as recorded, with the counts the receipt holds where they differ (lost draws'
    judge samples not counted).
    """

    source: str
    short: str
    draws: str
    judge_samples: str


def source_named(kind: str | None, recorded: bool = True) -> str:
    """A receipt's band source beside its bands in a comparison, from :func:`band_kind`.

    The method's word, ``legacy`` or ``generation``, ``not recorded (generation)`` where the
    receipt names none (D-13); a band of another kind in plain words; ``no band`` for none.
    """
    if kind is None:
        return "no band"
    if kind not in METHOD_SOURCES:
        return BAND_SOURCE_HEADER[kind]
    return kind if recorded else f"{UNKNOWN} ({kind})"


def source_legend(kind: str) -> str:
    """A comparison legend's entry for a :func:`band_kind`, in plain words.

    The method's word first where it names one (``generation: bands across draws: …``).
    """
    plain = BAND_SOURCE_LEGEND[kind]
    return f"{kind}: {plain}" if kind in METHOD_SOURCES else plain


def held_range(counts: list[int]) -> str:
    """``"3"`` when every count is 3, ``"1 to 3"`` otherwise, ``"none"`` for no counts."""
    if not counts:
        return "none"
    lo, hi = min(counts), max(counts)
    return str(lo) if lo == hi else f"{lo} to {hi}"


def band_kind(r: Receipt) -> str | None:
    """What the bands of ``r`` are, a key of the band source words in :mod:`driftproof.wording`.

    ``None`` where no draw holds a judged score; ``"as_given"`` for one answer per arm with no
    judge sample (each band one score, as its source gave it: D-18); else its band source.
    """
    if not has_bands(r):
        return None
    source = band_source_of(r)
    if source == "legacy" and not _holds_judge_samples(r):
        return "as_given"
    return source


def recorded_not_held(r: Receipt) -> str | None:
    """Words where ``r`` records ``legacy`` bands but holds no judge sample (D-18), else None."""
    held_otherwise = r.band_source == "legacy" and band_kind(r) == "as_given"
    return BAND_SOURCE_NOT_HELD if held_otherwise else None


def _holds_judge_samples(r: Receipt) -> bool:
    return any(d.judge_samples for c in r.cases for _, a in c.arms.named() for d in a.draws)


def one_scored_draw_at_most(r: Receipt) -> bool:
    """Whether ``r`` holds a scored draw and no recorded arm more than one (lost draws aside)."""
    unrecorded = unrecorded_arms(r)
    scored = [
        sum(d.score is not None and d.lost is None for d in a.draws)
        for c in r.cases
        for n, a in c.arms.named()
        if n not in unrecorded
    ]
    return bool(scored) and 0 < max(scored) <= 1


def band_legend(r: Receipt, article: str = "") -> str:
    """What each band of ``r`` is, and what its ``n`` counts, as computed: a clause.

    Method, "Where a band comes from"; ``article`` goes before "mean" (``"the "`` or ``""``).
    """
    legacy_as_given = band_source_of(r) == "legacy" and not _holds_judge_samples(r)
    if legacy_as_given or (band_source_of(r) == "generation" and one_scored_draw_at_most(r)):
        return f"{ONE_DRAW_WHY} (n = 1)"
    what = (
        "the per-draw scores (n = measured draws)"
        if band_source_of(r) != "legacy"
        else "the valid judge samples of the arm's one draw (n = judge samples): "
        "it measures the judge, not the model"
    )
    return f"each band is {article}mean ± one sample standard deviation of {what}"


def band_facts(r: Receipt) -> BandFacts:
    """The band source and both counts of ``r``, from its fields (never inferred into prose)."""
    unrecorded = unrecorded_arms(r)  # a single-arm source's other arms hold no draw by design
    arms = [a for c in r.cases for n, a in c.arms.named() if n not in unrecorded]
    draws_held = [len(a.draws) for a in arms]
    samples_held = [len(d.judge_samples) for a in arms for d in a.draws if d.lost is None]
    scored = any(d.score is not None for a in arms for d in a.draws)
    if r.is_aggregates_only:
        short = "none (aggregates only)"
        source = f"{short}: the source printed no per-run score"
    elif not scored or r.judge is None:
        short = "none (no judged score)"
        source = f"{short}: the receipt has no band"
    elif (not_held := recorded_not_held(r)) is not None:
        source, short = f"{ONE_DRAW_SHORT}: {not_held}; {ONE_DRAW_WHY}", ONE_DRAW_SHORT
    elif r.band_source == "generation" and one_scored_draw_at_most(r):
        source, short = f"{ONE_DRAW_SHORT}: {BAND_SOURCE_ONE_DRAW}; {ONE_DRAW_WHY}", ONE_DRAW_SHORT
    elif r.band_source is not None:
        source = BAND_SOURCE_LEGEND[r.band_source]
        short = (
            "one answer per arm" if r.band_source == "legacy" else BAND_SOURCE_HEADER["generation"]
        )
    else:
        source, short = _unnamed(r)
    g = r.run.generations_per_arm
    held_draws = (
        f"holds {held_range(draws_held)} per case and arm" if arms else "holds no per-run result"
    )
    varies = g is None and len(set(draws_held)) > 1  # as the sheet says it (D-13)
    draws = (str(g) if g is not None else "varies" if varies else UNKNOWN) + _beside(
        g, draws_held, f"; the receipt {held_draws}"
    )
    if r.is_aggregates_only and g is not None:  # the source's count, of draws it printed none of
        draws = (
            f"{g}, as the source ran them; it printed aggregates only, so the receipt {held_draws}"
        )
    j = r.run.judge_samples_per_generation
    if samples_held and max(samples_held) == 0:
        held = "holds no judge sample" + (" (each score as the source gave it)" if scored else "")
    elif samples_held:
        held = f"holds {held_range(samples_held)} per draw"
    else:  # no answered draw: none to count, not "none per draw"
        held = "holds no judged draw"
    samples = (str(j) if j is not None else UNKNOWN) + _beside(
        j, samples_held, f"; the receipt {held}"
    )
    return BandFacts(source=source, short=short, draws=draws, judge_samples=samples)


def _beside(recorded: int | None, held: list[int], words: str) -> str:
    return "" if recorded is not None and set(held) == {recorded} else words


def _unnamed(r: Receipt) -> tuple[str, str]:
    """``(words, short)``: the band source ``r`` does not name, as read from its draws."""
    if band_source_of(r) == "generation":
        kind, why = "bands across draws", "an arm holds more than one draw"
    elif not _holds_judge_samples(r):
        kind, why = ONE_DRAW_SHORT, ONE_DRAW_WHY
    else:
        kind = "one answer per arm, judged several times"
        why = (
            "each arm holds one answer at most, so each band is the spread of its judge "
            "samples, which measures the judge, not the model"
        )
    short = f"{UNKNOWN} ({kind})"
    return f"{short}: the receipt names none; {why}", short
