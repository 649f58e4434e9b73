"""Charts: matplotlib SVG, deterministic, colour-blind-safe, with alt text from the numbers.

Each comes wide and narrow, light and dark, with its numbers in a table beside it; a fixed
``svg.hashsalt`` and no ``Date`` metadata make two builds byte-identical.
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from driftproof.pages.chart_text import (
    MISSING_LABEL,
    ZERO_LABEL,
    Series,
    alt_text,
    caption,
    drawn,
    whisker,
)
from driftproof.pages.sheet import fmt

if TYPE_CHECKING:  # matplotlib itself is imported when a chart is drawn, not with this module
    from matplotlib.axes import Axes
    from matplotlib.typing import RcKeyType

# Okabe–Ito, a colour-blind-safe palette; hatches tell series apart in print as well.
_PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00")
_HATCHES = ("", "//", "..", "xx", "\\\\", "--")
_THEMES = {
    "light": {"fg": "#1b1b1b", "bg": "#ffffff", "grid": "#d0d0d0"},
    "dark": {"fg": "#e8e8e6", "bg": "#141414", "grid": "#3d3d3d"},
}


#: Figure widths in inches, desktop and phone: 3.6 in is 346 CSS px, so 10-point text is 13 px.
WIDE_IN, NARROW_IN = 7.0, 3.6
#: Below this viewport width the page shows the narrow chart (``<source media=…>``).
NARROW_MEDIA = "(max-width: 45rem)"
#: A chart's files: its info key, file-name suffix, width and theme.
_VARIANTS = {
    "src": ("", WIDE_IN, "light"),
    "dark": ("-dark", WIDE_IN, "dark"),
    "narrow": ("-narrow", NARROW_IN, "light"),
    "narrow_dark": ("-narrow-dark", NARROW_IN, "dark"),
}


def _wrap(label: str, width: int) -> str:
    """A category label on lines of at most ``width`` characters (after hyphens, then anywhere)."""
    if len(label) <= width:
        return label
    return (
        "\n".join(textwrap.wrap(label, width, break_on_hyphens=True, break_long_words=True))
        or label
    )


#: A legend entry's width beside its text (marker, gaps) and a character's at 10 pt, in inches.
_ENTRY_IN, _CHAR_IN = 0.55, 0.075


def _legend_layout(
    texts: Sequence[str], width: float, left: float, right: float, narrow: bool
) -> tuple[dict[str, str], int, float]:
    """Where a legend fits: ``(each text wrapped, columns, height in inches)``.

    A narrow chart's legend is one column from the axes' left edge to the figure's right
    margin; a wide chart's is centred over the axes, in up to three columns, as many as fit
    side by side in the figure. A text longer than its room wraps (after hyphens, then
    anywhere): a legend never runs off the figure, where its entries could read alike.
    """
    centre = (left + right) / 2 * width
    room = (right - left) * width if narrow else 2 * min(centre, width - centre)

    def columns(n: int) -> list[Sequence[str]]:  # as matplotlib fills them: column by column
        size, big = divmod(len(texts), n)
        ends = [(i + 1) * size + min(i + 1, big) for i in range(n)]
        return [texts[end - size - (i < big) : end] for i, end in enumerate(ends)]

    def fits(n: int) -> bool:
        return sum(_ENTRY_IN + _CHAR_IN * max(map(len, c)) for c in columns(n)) <= room

    ncols = 1 if narrow else next((n for n in range(min(3, len(texts)), 1, -1) if fits(n)), 1)
    chars = max(8, int((room - _ENTRY_IN) / _CHAR_IN))
    wrapped = {t: _wrap(t, chars) for t in texts}
    cols = columns(ncols)
    rows = [[c[r] for c in cols if r < len(c)] for r in range(len(cols[0]))]
    more = sum(max(wrapped[t].count("\n") for t in row) for row in rows)  # lines past a row's first
    return wrapped, ncols, 0.24 * len(rows) + 0.17 * more


def _rc(theme: str) -> dict[RcKeyType, Any]:
    """The matplotlib settings of a chart: deterministic SVG, literal text, the theme's colours."""
    c = _THEMES[theme]
    return {
        "svg.hashsalt": "driftproof",
        "svg.fonttype": "none",
        "font.size": 10,
        "text.parse_math": False,
        "text.color": c["fg"],
        "axes.labelcolor": c["fg"],
        "axes.edgecolor": c["fg"],
        "xtick.color": c["fg"],
        "ytick.color": c["fg"],
        "figure.facecolor": c["bg"],
        "axes.facecolor": c["bg"],
        "savefig.facecolor": c["bg"],
        "hatch.color": c["bg"],
        "legend.frameon": False,
        "path.simplify": False,
    }


def grouped_bars(
    categories: Sequence[str],
    series: Sequence[Series],
    *,
    xlabel: str,
    reference: float | None = None,
    theme: str = "light",
    width: float = WIDE_IN,
) -> bytes:
    """Horizontal grouped bars, categories top to bottom, as SVG bytes; text drawn literally.

    Whiskers where ``low < high``; an unknown value is a cross at zero and exactly 0 a dot, each
    with a legend entry; ``reference`` is a dashed line; ``width`` in inches.
    """
    import matplotlib  # imported when a chart is drawn: it takes a second to import

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    narrow = width < WIDE_IN
    what = drawn(series)
    # Category labels wrap to fit at most 45% of the width (about 0.075 in per character at 10 pt).
    labels = [_wrap(c, max(8, int((0.45 * width - 0.3) / 0.075))) for c in categories]
    lines = max((lab.count("\n") + 1 for lab in labels), default=1)
    show_legend = len(series) > 1 or what.missing or what.zeros
    keys = [s.label for s in series] + [MISSING_LABEL] * what.missing + [ZERO_LABEL] * what.zeros
    # Fixed margins instead of a layout engine: one draw pass, which keeps a chart of 50
    # cases fast. The left margin fits the longest (wrapped) category label.
    longest = max((len(part) for lab in labels for part in lab.split("\n")), default=1)
    left, right = min(0.45, (0.3 + 0.075 * longest) / width), 0.96 if narrow else 0.97
    wrapped, ncols, legend_in = _legend_layout(keys, width, left, right, narrow)
    top_in = 0.25 + (legend_in if show_legend else 0)
    group_in = max(0.3 * max(1, len(series)), 0.19 * lines + 0.08)
    height = max(2.2, group_in * len(categories) + top_in + 0.65)
    with plt.rc_context(_rc(theme)):
        fig, ax = plt.subplots(figsize=(width, height))
        fig.subplots_adjust(left=left, right=right, top=1 - top_in / height, bottom=0.6 / height)
        fg = _THEMES[theme]["fg"]
        _bars(ax, len(categories), series, fg)
        if reference is not None:
            ax.axvline(reference, color=fg, linestyle="--", linewidth=1)
        ax.set_yticks(range(len(categories)), labels)
        ax.set_ylim(len(categories) - 0.5, -0.5)
        ax.set_xlabel(xlabel)
        ax.grid(axis="x", color=_THEMES[theme]["grid"], linewidth=0.6)
        ax.set_axisbelow(True)
        if narrow:
            _narrow_ticks(ax, series)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        if show_legend:
            handles, texts = ax.get_legend_handles_labels()
            order = sorted(range(len(texts)), key=lambda i: texts[i] in (MISSING_LABEL, ZERO_LABEL))
            ax.legend(
                [handles[i] for i in order],
                [wrapped.get(texts[i], texts[i]) for i in order],
                loc="lower left" if narrow else "lower center",
                bbox_to_anchor=(0.0 if narrow else 0.5, 1.0),
                ncols=ncols,
            )
        buf = io.BytesIO()
        fig.savefig(buf, format="svg", metadata={"Date": None})
        plt.close(fig)
    return buf.getvalue()


def _narrow_ticks(ax: Axes, series: Sequence[Series]) -> None:
    """Set the x ticks of a narrow chart: few, yet one labelled on each side of 0 reached.

    A side is reached when a value or a whisker end of ``series`` lies on it. The fewest bins
    of 4, 5 or 6 that label each reached side are taken, else 5 bins with the view widened to
    the next tick on each side that lacks one.
    """
    import matplotlib.ticker

    reached = [v for s in series for v in s.values if v is not None]
    reached += [end for s in series for i in range(len(s.values)) for end in whisker(s, i) or ()]
    below, above = min(reached, default=0.0) < 0, max(reached, default=0.0) > 0
    lo, hi = ax.get_xlim()
    for nbins in (4, 5, 6, 5):
        locator = matplotlib.ticker.MaxNLocator(nbins=nbins, steps=[1, 2, 2.5, 5, 10])
        ticks = list(locator.tick_values(lo, hi))
        lacks_below = below and not any(lo <= t < 0 for t in ticks)
        lacks_above = above and not any(0 < t <= hi for t in ticks)
        if not (lacks_below or lacks_above):
            break
    else:  # 5 bins again (the last tried): the view grows to the next tick where one lacks
        if lacks_below:
            lo = max((t for t in ticks if t < 0 and t <= lo), default=lo)
        if lacks_above:
            hi = min((t for t in ticks if t > 0 and t >= hi), default=hi)
        ax.set_xlim(lo, hi)
    ax.xaxis.set_major_locator(locator)


def _bars(ax: Axes, n_cat: int, series: Sequence[Series], fg: str) -> None:
    """Each series' bars, zero dots, whiskers and unknown-value crosses on ``ax``."""
    n_ser = len(series)
    bar_h = 0.8 / max(1, n_ser)
    missing_drawn = zero_drawn = False
    for s_i, s in enumerate(series):
        colour = _PALETTE[s_i % len(_PALETTE)]
        offs = [c_i + (s_i - (n_ser - 1) / 2) * bar_h for c_i in range(n_cat)]
        known = [(c_i, v) for c_i, v in enumerate(s.values) if v is not None]
        ys = [offs[c_i] for c_i, _ in known]
        vs = [v for _, v in known]
        # The bar (possibly of zero length) carries the legend entry even when every value is 0.
        hatch = _HATCHES[s_i % len(_HATCHES)]
        # edged in the text colour: the light orange fill alone is under 3:1 against the page
        ax.barh(ys, vs, height=bar_h * 0.92, color=colour, hatch=hatch, label=s.label, edgecolor=fg)
        zeros = [y for y, v in zip(ys, vs, strict=True) if v == 0]
        if zeros:  # a bar of length 0 is invisible: a dot says "exactly 0"
            _marks(ax, zeros, "o", 7, colour, fg, None if zero_drawn else ZERO_LABEL)
            zero_drawn = True
        whisk = [
            (y, v, *ends)
            for y, (c_i, v) in zip(ys, known, strict=True)
            if (ends := whisker(s, c_i)) is not None
        ]
        if whisk:
            ax.errorbar(
                [w[1] for w in whisk],
                [w[0] for w in whisk],
                xerr=[[w[1] - w[2] for w in whisk], [w[3] - w[1] for w in whisk]],
                fmt="none",
                ecolor=fg,
                elinewidth=1.2,
                capsize=3,
            )
        unknown = [offs[c_i] for c_i, v in enumerate(s.values) if v is None]
        if unknown:  # an unknown value is no bar: a cross at zero says "unknown", never 0
            _marks(ax, unknown, "X", 9, colour, fg, None if missing_drawn else MISSING_LABEL)
            missing_drawn = True


def _marks(
    ax: Axes, ys: list[float], marker: str, size: float, face: str, edge: str, label: str | None
) -> None:
    """Markers at x = 0 over the bars at ``ys``, never clipped; ``label`` their legend entry."""
    ax.plot(
        [0.0] * len(ys),
        ys,
        linestyle="none",
        marker=marker,
        markersize=size,
        markerfacecolor=face,
        markeredgecolor=edge,
        markeredgewidth=1,
        clip_on=False,
        label=label,
        zorder=4,
    )


def figure(
    chart_id: str,
    categories: Sequence[str],
    series: Sequence[Series],
    *,
    subject: str,
    xlabel: str,
    fmt: Callable[[float | None], str],
    whiskers: str | None,
    reference: float | None = None,
) -> tuple[dict[str, str], dict[str, bytes]]:
    """One published chart: ``(info, files)``, its four SVGs by ``<id>[-narrow][-dark].svg``.

    ``info`` holds the ``id``, ``src``, ``dark``, ``narrow``, ``narrow_dark``, ``alt``,
    ``caption`` and ``media``.
    """
    info = {
        "id": chart_id,
        "media": NARROW_MEDIA,
        "alt": alt_text(subject, categories, series, fmt, whiskers),
        "caption": caption(subject, series, whiskers),
    }
    files: dict[str, bytes] = {}
    draw = partial(grouped_bars, xlabel=xlabel, reference=reference)
    for key, (suffix, width, theme) in _VARIANTS.items():
        info[key] = f"{chart_id}{suffix}.svg"
        files[info[key]] = draw(categories, series, theme=theme, width=width)
    return info, files


def band_figure(
    chart_id: str, categories: Sequence[str], series: Sequence[Series], *, subject: str, xlabel: str
) -> tuple[dict[str, str], dict[str, bytes]]:
    """A :func:`figure` of bands on the judge scale: whiskers one sample sd either side (D-2)."""
    whiskers = "the band, mean minus to mean plus one sample standard deviation"
    return figure(
        chart_id, categories, series, subject=subject, xlabel=xlabel, fmt=fmt, whiskers=whiskers
    )
