"""A cross-family reading as Markdown: the lift table first, raw scores as background."""

from __future__ import annotations

from driftproof.pages.cross_family import CrossFamily

__all__ = ["cross_family_markdown"]


def cross_family_markdown(cf: CrossFamily) -> str:
    """The reading as Markdown: the lift table first, then the raw scores as background."""
    lead = [
        "| model | family | surface | lift | per 1,000 skill tokens | reading |",
        "|---|---|---|---|---|---|",
    ]
    lead += [
        f"| {_md(x.model)} | {_md(x.family)} | {_md(x.surface)} | {x.lift} | {x.lift_per_1k} "
        f"| {_md(x.reading)} |"
        for x in cf.rows
    ]
    back = [
        "| model | with skill (mean over cases) | baseline (mean over cases) |",
        "|---|---|---|",
    ]
    back += [
        f"| {_md(x.model)} | {x.background_with_skill} | {x.background_baseline} |" for x in cf.rows
    ]
    out = ["What the skill adds to each model", "", *lead, "", cf.grader_note, ""]
    out += [f"- {_md(c)}" for c in cf.caveats] + ([""] if cf.caveats else [])
    out += ["Background: raw scores, not a ranking", "", *back, ""]
    return "\n".join(out)


def _md(value: str) -> str:
    out = "".join(ch for ch in value if ch >= " ").replace("\\", "\\\\")
    for ch in "`*_[]<>|#!":
        out = out.replace(ch, "\\" + ch)
    return out
