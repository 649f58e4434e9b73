"""Charts: matplotlib SVG, deterministic, colour-blind-safe, with alt text from the numbers.

Every chart is published with the same numbers in a table beside it (SITE-NOTES §3) and
comes in a light and a dark variant (``<picture>`` picks by ``prefers-color-scheme``).
Determinism: a fixed ``svg.hashsalt`` and no ``Date`` metadata make two builds byte-identical.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from driftproof.site._cache import cached_chart

__all__ = ["Series", "grouped_bars", "alt_text"]

# Okabe–Ito, a colour-blind-safe palette; hatches tell series apart in print as well.
_PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00")
_HATCHES = ("", "//", "..", "xx", "\\\\", "--")
_THEMES = {
    "light": {"fg": "#1b1b1b", "bg": "#ffffff", "grid": "#d0d0d0"},
    "dark": {"fg": "#e8e8e6", "bg": "#141414", "grid": "#3d3d3d"},
}


@dataclass(frozen=True)
class Series:
    """One series of a grouped bar chart.

    Attributes:
        label: legend text.
        values: one value per category (None = unknown: no bar drawn).
        low, high: whisker ends per category (None = no whisker), in the values' units.
    """

    label: str
    values: tuple[float | None, ...]
    low: tuple[float | None, ...] | None = None
    high: tuple[float | None, ...] | None = None


@cached_chart  # the build cache keeps the SVG by every argument (issue 19)
def grouped_bars(categories: Sequence[str], series: Sequence[Series], *, xlabel: str,
                 reference: float | None = None, reference_label: str | None = None,
                 theme: str = "light") -> bytes:
    """Horizontal grouped bars with whiskers, as SVG bytes.

    Args:
        categories: one label per group (top to bottom).
        series: the bars in each group; whiskers drawn where ``low``/``high`` are given.
        xlabel: the value axis label, with units.
        reference: an x value drawn as a dashed line (e.g. 0 or the effect floor).
        theme: ``"light"`` or ``"dark"``.
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    colours = _THEMES[theme]
    n_cat, n_ser = len(categories), len(series)
    height = max(2.2, 0.3 * n_cat * max(1, n_ser) + 1.3)
    rc = {
        "svg.hashsalt": "driftproof", "svg.fonttype": "none", "font.size": 10,
        "text.color": colours["fg"], "axes.labelcolor": colours["fg"], "axes.edgecolor": colours["fg"],
        "xtick.color": colours["fg"], "ytick.color": colours["fg"],
        "figure.facecolor": colours["bg"], "axes.facecolor": colours["bg"], "savefig.facecolor": colours["bg"],
        "hatch.color": colours["bg"], "legend.frameon": False, "path.simplify": False,
    }
    with plt.rc_context(rc):
        # Fixed margins instead of a layout engine: one draw pass, which keeps a chart of 50
        # cases fast. The left margin fits the longest category label (about 0.075 in a character).
        fig, ax = plt.subplots(figsize=(7.0, height))
        label_in = 0.3 + 0.075 * max((len(c) for c in categories), default=1)
        fig.subplots_adjust(left=min(0.45, label_in / 7.0), right=0.97, top=1 - 0.45 / height, bottom=0.6 / height)
        bar_h = 0.8 / max(1, n_ser)
        for s_i, s in enumerate(series):
            known = [c_i for c_i, v in enumerate(s.values) if v is not None]
            if not known:
                continue
            ys = [c_i + (s_i - (n_ser - 1) / 2) * bar_h for c_i in known]
            vs = [s.values[c_i] for c_i in known]
            ax.barh(ys, vs, height=bar_h * 0.92, color=_PALETTE[s_i % len(_PALETTE)],
                    hatch=_HATCHES[s_i % len(_HATCHES)], label=s.label)
            whisk = [(y, v, s.low[c_i], s.high[c_i]) for y, v, c_i in zip(ys, vs, known, strict=True)
                     if s.low and s.high and s.low[c_i] is not None and s.high[c_i] is not None]
            if whisk:
                ax.errorbar([w[1] for w in whisk], [w[0] for w in whisk],
                            xerr=[[w[1] - w[2] for w in whisk], [w[3] - w[1] for w in whisk]],
                            fmt="none", ecolor=colours["fg"], elinewidth=1.2, capsize=3)
        if reference is not None:
            ax.axvline(reference, color=colours["fg"], linestyle="--", linewidth=1,
                       label=reference_label)
        ax.set_yticks(range(n_cat), list(categories))
        ax.invert_yaxis()
        ax.set_xlabel(xlabel)
        ax.grid(axis="x", color=colours["grid"], linewidth=0.6)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        if n_ser > 1 or reference_label:
            ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=min(3, n_ser + 1))
        buf = io.BytesIO()
        fig.savefig(buf, format="svg", metadata={"Date": None})
        plt.close(fig)
    return buf.getvalue()


def alt_text(subject: str, categories: Sequence[str], series: Sequence[Series], fmt, whiskers: str | None) -> str:
    """Alt text that states every number the chart draws.

    Args:
        subject: what the chart shows, e.g. "Median output-token savings per skill".
        fmt: formats one value for reading (e.g. as a percentage).
        whiskers: what the whiskers mean (e.g. "min to max across prompts"), or None.
    """
    parts = [f"{subject}."]
    for c_i, cat in enumerate(categories):
        items = []
        for s in series:
            v = s.values[c_i]
            item = f"{s.label} {fmt(v)}"
            if whiskers and s.low and s.high and s.low[c_i] is not None and s.high[c_i] is not None:
                item += f" ({fmt(s.low[c_i])} to {fmt(s.high[c_i])})"
            items.append(item)
        parts.append(f"{cat}: {'; '.join(items)}.")
    if whiskers:
        parts.append(f"Whiskers: {whiskers}.")
    return " ".join(parts)
