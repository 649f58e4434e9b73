"""A :class:`~driftproof.compare.Comparison` as text, Markdown or JSON (``driftproof diff``).

Pure formatting: every number comes from the core; these functions only turn it
into strings. Case ids, file names and lost-draw reasons are untrusted: control
characters are shown escaped in text, and Markdown table cells escape ``|`` and
HTML's special characters. The exit status a CI job reads is :func:`exit_status`.
"""

from __future__ import annotations

import html
import json
import math
from typing import Any

from driftproof.compare import Comparison, verdict_words
from driftproof.stats import Band, CaseVerdict, VerdictCode
from driftproof.wording import NO_DRAW_COUNT_REACHES

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_NO_REGRESSION",
    "EXIT_REGRESSED",
    "exit_status",
    "lift_line",
    "report_rows",
    "to_json",
    "to_markdown",
    "to_text",
]

#: ``driftproof diff`` exit statuses: no case regressed / a case regressed / bad input or no verdict.
EXIT_NO_REGRESSION, EXIT_REGRESSED, EXIT_BAD_INPUT = 0, 1, 2


def exit_status(c: Comparison) -> int:
    """2 when a side gets no verdict, 1 when a case regressed, else 0."""
    if c.refusals:
        return EXIT_BAD_INPUT
    return EXIT_REGRESSED if c.regressed else EXIT_NO_REGRESSION


def _clean(text: str) -> str:
    """Untrusted text on one line, control characters escaped (no terminal escapes pass)."""
    return "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text
    )


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
    """Header and one row of strings per case; measured/drawn counts appear when any case lost draws.

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
    """Both suite lifts over the same cases, as context (never a verdict); ``None`` without lifts."""
    lf = c.lifts
    if lf is None or not lf.cases:
        return None
    fa = f"{lf.a:+.3f}" if lf.a is not None else "n/a"
    fb = f"{lf.b:+.3f}" if lf.b is not None else "n/a"
    return f"Lift (with skill − baseline), context: {c.a_name} {fa}, {c.b_name} {fb}, {lf.words(c.a_name, c.b_name)}."


def _lines_after(c: Comparison) -> list[str]:
    out = []
    if c.underpowered_sentence:
        out.append(f"{c.underpowered_sentence} ({c.underpowered_reason})")
    if c.not_like_for_like:
        out.append(c.not_like_for_like)
    out.extend(c.notes)
    return out


def to_text(c: Comparison) -> str:
    """Plain text: title, headline, summary, the per-case table, legend, lost draws, unmatched cases."""
    lines = [_clean(f"{c.a_name} (earlier) → {c.b_name} (later)"), _clean(c.headline)]
    if c.refusals:
        lines += [_clean(r) for r in c.refusals]
        if not c.context_rows:
            return "\n".join(lines) + "\n"
        lines.append("The bands below are shown as context; no verdict is given.")
    else:
        lines += [c.summary, *_lines_after(c)]
    if lift_line(c):
        lines.append(_clean(lift_line(c) or ""))
    lines.append("")
    header, rows = report_rows(c)
    table = [header] + [[_clean(x) for x in r] for r in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    for r in table:
        lines.append("  ".join(x.ljust(w) for x, w in zip(r, widths, strict=True)).rstrip())
    lines += ["", "Bands: mean ± one sample sd; Δ = later − earlier, with-skill arms (D-6)."]
    lines += [f"  {entry}" for entry in c.legend]
    if c.unmatched:
        lines.append(_clean("Cases in one receipt only: " + ", ".join(c.unmatched)))
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return html.escape(_clean(text), quote=False).replace("|", "\\|")


def to_markdown(c: Comparison) -> str:
    """GitHub-flavoured Markdown: the same content as :func:`to_text`, untrusted text escaped."""
    lines = [
        f"### {_md(c.a_name)} (earlier) → {_md(c.b_name)} (later)",
        "",
        f"**{_md(c.headline)}**",
        "",
    ]
    if c.refusals:
        lines += [f"- {_md(r)}" for r in c.refusals]
        if not c.context_rows:
            return "\n".join(lines) + "\n"
        lines += ["", "The bands below are shown as context; no verdict is given.", ""]
    else:
        lines += [_md(c.summary), ""]
        lines += [f"> {_md(x)}" for x in _lines_after(c)]
        if _lines_after(c):
            lines.append("")
    if lift_line(c):
        lines += [_md(lift_line(c) or ""), ""]
    header, rows = report_rows(c)
    lines.append("| " + " | ".join(_md(h) for h in header) + " |")
    lines.append("|" + "---|" * len(header))
    lines += ["| " + " | ".join(_md(x) for x in r) + " |" for r in rows]
    lines += ["", "Bands: mean ± one sample sd; Δ = later − earlier, with-skill arms (D-6).", ""]
    lines += [f"- {_md(entry)}" for entry in c.legend]
    if c.unmatched:
        lines += ["", _md("Cases in one receipt only: " + ", ".join(c.unmatched))]
    return "\n".join(lines) + "\n"


def _num(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None


def _band_json(b: Band) -> dict[str, Any]:
    return {
        "mean": _num(b.mean),
        "sd": _num(b.sd),
        "low": _num(b.low),
        "high": _num(b.high),
        "n": b.n,
        "drawn": b.drawn,
        "lost": b.lost,
        "lost_reasons": list(b.lost_reasons),
        "source": b.source,
    }


def to_json(c: Comparison) -> str:
    """The comparison as JSON (sorted keys, no NaN): every field of the Comparison and each row."""
    rows = [
        {
            "case_id": v.case_id,
            "verdict": v.verdict,
            "verdict_words": verdict_words(v.verdict),
            "delta": _num(v.delta),
            "separated": v.separated,
            "resolution": _num(v.resolution),
            "sum_sd": _num(v.sum_sd),
            "se_diff": _num(v.se_diff),
            "underpowered": v.underpowered,
            "draws_needed": v.draws_needed,
            "no_draw_count": v.no_draw_count,
            "lost_detail": v.lost_detail,
            "a": _band_json(v.a),
            "b": _band_json(v.b),
        }
        for v in c.rows
    ]
    doc = {
        "a": c.a_name,
        "b": c.b_name,
        "refusals": list(c.refusals),
        "headline": c.headline,
        "summary": c.summary,
        "band_sources": list(c.band_sources),
        "legend": list(c.legend),
        "not_like_for_like": c.not_like_for_like,
        "lost_cases": list(c.lost_cases),
        "regressed": c.regressed,
        "unmatched": list(c.unmatched),
        "underpowered_sentence": c.underpowered_sentence,
        "underpowered_reason": c.underpowered_reason,
        "draws_needed": c.draws_needed,
        "notes": list(c.notes),
        "exit_status": exit_status(c),
        "rows": rows,
        "context_rows": [
            {
                "case_id": v.case_id,
                "delta": _num(v.delta),
                "lost_detail": v.lost_detail,
                "a": _band_json(v.a),
                "b": _band_json(v.b),
            }
            for v in c.context_rows
        ],
        "lifts": None
        if c.lifts is None
        else {
            "a": _num(c.lifts.a),
            "b": _num(c.lifts.b),
            "cases": list(c.lifts.cases),
            "a_cases": c.lifts.a_cases,
            "b_cases": c.lifts.b_cases,
            "a_total": c.lifts.a_total,
            "b_total": c.lifts.b_total,
        },
    }
    return json.dumps(doc, sort_keys=True, ensure_ascii=False, allow_nan=False, indent=2) + "\n"
