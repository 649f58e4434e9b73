"""The words of a chart: its series, what it draws, its caption and its alt text (no drawing)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: Legend texts of the cross drawn for an unknown value and the dot drawn for exactly 0.
MISSING_LABEL = "no value (lost or unscored)"
ZERO_LABEL = "exactly 0"


@dataclass(frozen=True)
class Series:
    """One series of a grouped bar chart: a value per category (None: unknown), whisker ends."""

    label: str
    values: tuple[float | None, ...]
    low: tuple[float | None, ...] | None = None
    high: tuple[float | None, ...] | None = None


def band_series(label: str, bands: Sequence[tuple[float | None, float | None]]) -> Series:
    """A series of bands, ``(mean, sd)`` each: the mean drawn, whiskers one sd either side."""
    return Series(
        label,
        tuple(m for m, _ in bands),
        tuple(None if m is None or d is None else m - d for m, d in bands),
        tuple(None if m is None or d is None else m + d for m, d in bands),
    )


def whisker(s: Series, i: int) -> tuple[float, float] | None:
    """The whisker ends of category ``i`` of ``s``, when it has one (``low < high``)."""
    if not s.low or not s.high:
        return None
    low, high = s.low[i], s.high[i]
    return (low, high) if low is not None and high is not None and high > low else None


@dataclass(frozen=True)
class Drawn:
    """What a chart drew (whiskers, unknown-value crosses, zero dots), for its caption."""

    whiskers: bool
    missing: bool
    zeros: bool


def drawn(series: Sequence[Series]) -> Drawn:
    """What a chart of ``series`` draws."""
    cells = [(s, i, v) for s in series for i, v in enumerate(s.values)]
    return Drawn(
        any(v is not None and whisker(s, i) is not None for s, i, v in cells),
        any(v is None for *_, v in cells),
        any(v == 0 for *_, v in cells),
    )


def caption(subject: str, series: Sequence[Series], whiskers: str | None) -> str:
    """The caption of a chart: ``subject``, then what is drawn (``whiskers``: their meaning)."""
    what = drawn(series)
    parts = [subject.rstrip(".") + "."]
    if whiskers and what.whiskers:
        parts.append(f"Whiskers: {whiskers}; none is drawn where the spread is zero or unknown.")
    elif whiskers:
        parts.append(
            "No whisker is drawn: no value here has a spread (one measured draw each, "
            "or none recorded)."
        )
    if what.missing:
        parts.append(
            "A cross at zero marks a value that is unknown (lost or unscored), not a score of 0."
        )
    if what.zeros:
        parts.append("A dot at zero is a value of exactly 0.")
    parts.append("The table below holds the same numbers.")
    return " ".join(parts)


def alt_text(
    subject: str,
    categories: Sequence[str],
    series: Sequence[Series],
    fmt: Callable[[float | None], str],
    whiskers: str | None,
) -> str:
    """Alt text that states every number the chart draws, each formatted by ``fmt``."""
    parts = [subject.rstrip(".") + "."]
    for i, category in enumerate(categories):
        items = []
        for s in series:
            v = s.values[i]
            if v is None:
                items.append(f"{s.label} {MISSING_LABEL}")
                continue
            ends = whisker(s, i)
            spread = f" ({fmt(ends[0])} to {fmt(ends[1])})" if whiskers and ends else ""
            items.append(f"{s.label} {fmt(v)}{spread}")
        parts.append(f"{category}: {'; '.join(items)}.")
    if whiskers and drawn(series).whiskers:
        parts.append(f"Whiskers: {whiskers}.")
    return " ".join(parts)
