"""A :class:`~driftproof.pages.comparison.Comparison` as text and Markdown (``driftproof diff``),
and the
per-case rows the site's comparison table shows (the same strings the CLI prints).

Pure formatting: every number comes from the core; these functions only turn it into
strings. Case ids, file names, reasons and headlines are untrusted: text shows every
character that is not printable as its escape (:func:`~driftproof.render.escape.terminal_safe`);
Markdown escapes HTML's specials as entities and the Markdown ones with a backslash
(:func:`~driftproof.render.escape.md_html`), so a ``|``, a backtick, a ``$``, ``<script>``
or a newline can neither break the table nor add markup.
"""

from __future__ import annotations

import math

from driftproof.pages.comparison import Comparison, verdict_words
from driftproof.render.escape import md_html, terminal_safe
from driftproof.render.layout import md_table, text_table
from driftproof.render.paired import paired_line
from driftproof.stats import Band, CaseVerdict, VerdictCode
from driftproof.wording import NO_DRAW_COUNT_REACHES

__all__ = ["comparison_markdown", "comparison_text", "lift_line", "report_rows"]

#: The line under the table: what a band and Δ are.
_BANDS_LEGEND = "Bands: mean ± one sample sd; Δ = later − earlier, with-skill arms."
#: Said when a side gets no verdict and the bands are shown all the same.
_CONTEXT_ONLY = "The bands below are shown as context; no verdict is given."


def _band(b: Band) -> str:
    if b.mean is None:
        return "not measured"
    if b.sd is None:
        return f"{b.mean:.3f} (one draw, no spread)"
    return f"{b.mean:.3f} ± {b.sd:.3f}"


def _note(v: CaseVerdict) -> str:
    if v.verdict == VerdictCode.INCONCLUSIVE:
        return v.lost_detail or ""
    if v.verdict == VerdictCode.UNDERPOWERED:
        if v.no_draw_count:
            return NO_DRAW_COUNT_REACHES
        if v.draws_needed is not None:
            return f"{v.draws_needed} draws per arm needed"
        return (
            "an arm has no measured draw"
            if min(v.a.n, v.b.n) == 0
            else "an arm has a single measured draw"
        )
    return ""


def report_rows(c: Comparison) -> tuple[list[str], list[list[str]]]:
    """Header and one row of strings per case; measured/drawn counts appear when any case lost
    draws.

    When a side gets no verdict, the rows are the context rows (each case's two bands), with
    "no verdict" in the verdict column and the measured/drawn counts always shown (issue 16).
    """
    src_a, src_b = (s or "unknown" for s in c.band_sources)
    header = ["case", f"{c.a_name} ({src_a})", f"{c.b_name} ({src_b})", "Δ", "verdict"]
    unjudged = bool(c.refusals)
    counts = bool(c.lost_cases) or unjudged
    if counts:
        header += [f"{c.a_name} measured/drawn", f"{c.b_name} measured/drawn"]
    header.append("note")
    rows = []
    for v in c.context_rows if unjudged else c.rows:
        delta = f"{v.delta:+.3f}" if v.delta is not None and math.isfinite(v.delta) else "n/a"
        row = [
            v.case_id,
            _band(v.a),
            _band(v.b),
            delta,
            "no verdict" if unjudged else verdict_words(v.verdict),
        ]
        if counts:
            row += [f"{v.a.drawn - v.a.lost}/{v.a.drawn}", f"{v.b.drawn - v.b.lost}/{v.b.drawn}"]
        row.append((v.lost_detail or "") if unjudged else _note(v))
        rows.append(row)
    return header, rows


def lift_line(c: Comparison) -> str | None:
    """Both suite lifts over the same cases, as context (never a verdict); ``None`` without
    lifts."""
    lf = c.lifts
    if lf is None or not lf.cases:
        return None
    fa = f"{lf.a:+.3f}" if lf.a is not None else "n/a"
    fb = f"{lf.b:+.3f}" if lf.b is not None else "n/a"
    return (
        f"Lift (with skill − baseline), context: {c.a_name} {fa}, {c.b_name} {fb}, "
        f"{lf.words(c.a_name, c.b_name)}."
    )


def paired_context(c: Comparison) -> str | None:
    """The exact paired test over the compared cases, as context (never a verdict); ``None``
    when no case was compared or a side is refused."""
    if c.paired is None:
        return None
    words = paired_line(c.paired, "with-skill mean", "the mean change")
    return f"Exact paired test over cases, context (never a verdict): {words}."


def _lines_after(c: Comparison) -> list[str]:
    out = []
    if c.underpowered_sentence:
        out.append(f"{c.underpowered_sentence} ({c.underpowered_reason})")
    if c.not_like_for_like:
        out.append(c.not_like_for_like)
    if c.false_alarms is not None:
        out.append(c.false_alarms.sentence())
    out.extend(c.notes)
    return out


def comparison_text(c: Comparison) -> str:
    """Plain text: title, headline, summary, the per-case table, legend, lost draws, unmatched
    cases; every line passed through :func:`~driftproof.render.escape.terminal_safe`."""
    lines = [f"{c.a_name} (earlier) → {c.b_name} (later)", c.headline]
    if c.refusals:
        lines += list(c.refusals)
        if not c.context_rows:
            return _text_lines(lines)
        lines.append(_CONTEXT_ONLY)
    else:
        lines += [c.summary, *_lines_after(c)]
    lift = lift_line(c)
    if lift:
        lines.append(lift)
    exact = paired_context(c)
    if exact:
        lines.append(exact)
    header, rows = report_rows(c)
    table = text_table(header, rows, indent="", escape=terminal_safe)
    lines = [terminal_safe(x) for x in lines] + ["", *table, "", _BANDS_LEGEND]
    lines += [f"  {terminal_safe(entry)}" for entry in c.legend]
    if c.unmatched:
        lines.append(terminal_safe("Cases in one receipt only: " + ", ".join(c.unmatched)))
    return "\n".join(lines) + "\n"


def _text_lines(lines: list[str]) -> str:
    return "\n".join(terminal_safe(x) for x in lines) + "\n"


def comparison_markdown(c: Comparison) -> str:
    """GitHub-flavoured Markdown: the same content as :func:`comparison_text`, untrusted text
    escaped by :func:`~driftproof.render.escape.md_html`."""
    lines = [
        f"### {md_html(c.a_name)} (earlier) → {md_html(c.b_name)} (later)",
        "",
        f"**{md_html(c.headline)}**",
        "",
    ]
    if c.refusals:
        lines += [f"- {md_html(r)}" for r in c.refusals]
        if not c.context_rows:
            return "\n".join(lines) + "\n"
        lines += ["", _CONTEXT_ONLY, ""]
    else:
        after = _lines_after(c)
        lines += [md_html(c.summary), ""]
        lines += [f"> {md_html(x)}" for x in after]
        if after:
            lines.append("")
    lift = lift_line(c)
    if lift:
        lines += [md_html(lift), ""]
    exact = paired_context(c)
    if exact:
        lines += [md_html(exact), ""]
    header, rows = report_rows(c)
    lines += md_table(header, rows, escape=md_html)
    lines += ["", _BANDS_LEGEND, ""]
    lines += [f"- {md_html(entry)}" for entry in c.legend]
    if c.unmatched:
        lines += ["", md_html("Cases in one receipt only: " + ", ".join(c.unmatched))]
    return "\n".join(lines) + "\n"
