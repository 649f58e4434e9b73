"""Where a receipt's bands come from (method, "Where a band comes from"), from its own fields.

Counts the receipt holds stand beside the recorded ones, never instead (D-13).
"""

from __future__ import annotations

from dataclasses import dataclass

from driftproof.pages.words import UNKNOWN
from driftproof.receipt import Receipt
from driftproof.stats.band import band_source_of
from driftproof.stats.reading import unrecorded_arms
from driftproof.wording import BAND_SOURCE_LEGEND


@dataclass(frozen=True)
class BandFacts:
    """Band source with its legend (``short``: a table cell), draws, judge samples, as text.

    Each count as recorded, with the counts the receipt holds where they are not all that one
    (a lost draw holds no judge sample, so it is not counted).
    """

    source: str
    short: str
    draws: str
    judge_samples: str


def held_range(counts: list[int]) -> str:
    """``"3"`` when every count is 3, ``"1 to 3"`` otherwise, ``"none"`` for no counts."""
    if not counts:
        return "none"
    lo, hi = min(counts), max(counts)
    return str(lo) if lo == hi else f"{lo} to {hi}"


def band_legend(r: Receipt) -> str:
    """What each band of ``r`` is the spread of, and what its ``n`` counts, as computed.

    A legacy band (recorded, or read as legacy) is of the one draw's valid judge samples, or,
    where the receipt holds no judge sample, of that draw's own score; any other of the measured
    draws' scores (method, "Where a band comes from").
    """
    if band_source_of(r) != "legacy":
        return "the per-draw scores (n = measured draws)"
    if not any(d.judge_samples for c in r.cases for _, a in c.arms.named() for d in a.draws):
        return "the one score the source gave the arm's one draw (n = 1): no spread"
    return (
        "the valid judge samples of the arm's one draw (n = judge samples): "
        "it measures the judge, not the model"
    )


def band_facts(r: Receipt) -> BandFacts:
    """The band source and both counts of ``r``, from its fields (never inferred into prose)."""
    unrecorded = unrecorded_arms(r)  # a single-arm source's other arms hold no draw by design
    arms = [a for c in r.cases for n, a in c.arms.named() if n not in unrecorded]
    draws_held = [len(a.draws) for a in arms]
    samples_held = [len(d.judge_samples) for a in arms for d in a.draws if d.lost is None]
    scored = any(d.score is not None for a in arms for d in a.draws)
    if r.is_aggregates_only:
        source, short = (
            "none: aggregates only, the source printed no per-run score",
            "none (aggregates only)",
        )
    elif not scored or r.judge is None:
        source, short = (
            "none: the receipt holds no judged score, so it has no band",
            "none (no score)",
        )
    elif r.band_source is not None:
        source, short = BAND_SOURCE_LEGEND[r.band_source], r.band_source
    else:
        read_as = band_source_of(r)
        why = (
            "every arm holds at most one draw"
            if read_as == "legacy"
            else "an arm holds more than one draw"
        )
        source = f"{UNKNOWN} (the receipt names none; read as {read_as}, because {why})"
        short = f"{UNKNOWN} (read as {read_as})"
    g = r.run.generations_per_arm
    held_draws = f"holds {held_range(draws_held)} per arm" if arms else "holds no per-run result"
    varies = g is None and len(set(draws_held)) > 1  # as the sheet says it (D-13)
    draws = (str(g) if g is not None else "varies" if varies else UNKNOWN) + _beside(
        g, draws_held, f"; the receipt {held_draws}"
    )
    j = r.run.judge_samples_per_generation
    if samples_held and max(samples_held) == 0:
        held = (
            "holds no judge sample (each score as the source gave it)"
            if scored
            else "holds no judge sample"
        )
    elif samples_held:
        held = f"holds {held_range(samples_held)} per draw"
    else:  # no answered draw: none to count, not "none per draw"
        held = "holds no judged draw"
    samples = (str(j) if j is not None else UNKNOWN) + _beside(
        j, samples_held, f"; the receipt {held}"
    )
    return BandFacts(source=source, short=short, draws=draws, judge_samples=samples)


def _beside(recorded: int | None, held: list[int], words: str) -> str:
    """``words`` (the counts held), or ``""`` when every count held is the ``recorded`` one."""
    return "" if recorded is not None and set(held) == {recorded} else words
