"""A :class:`~driftproof.pages.comparison.Comparison` as text, Markdown and JSON (``diff``)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from driftproof.pages.comparison import (
    CONTEXT_ONLY,
    Comparison,
    after_summary,
    exit_status,
    lift_line,
    paired_context,
    report_rows,
)
from driftproof.pages.lost_groups import DIFF_LOST_HEAD, diff_lost
from driftproof.pages.sheet_facts import BreakdownView
from driftproof.pages.tables import json_text
from driftproof.pages.words import aa_line
from driftproof.render.escape import fit_text, md_html, md_table, terminal_safe, text_table
from driftproof.render.sheet import Format, breakdown_document
from driftproof.stats import Band, CaseVerdict, verdict_words
from driftproof.stats.aa import AAReading

#: The line under the table: what a band and Δ are (the Action's summary says it too).
BANDS_LEGEND = (
    "Bands: mean ± one sample sd; Δ = later − earlier, with-skill arms, worked from the "
    "unrounded means."
)


#: Each kind of paragraph's line as (text, Markdown) templates; a table is printed apart.
_STYLES = {
    "title": ("{}", "### {}"),
    "bold": ("{}", "**{}**"),
    "list": ("{}", "- {}"),
    "plain": ("{}", "{}"),
    "quote": ("{}", "> {}"),
    "entries": ("  {}", "- {}"),
}


def _paragraphs(c: Comparison) -> list[tuple[str, list[str]]]:
    """The comparison as ``(kind, lines)`` paragraphs in order, the lines not yet escaped."""
    out = [("title", [f"{c.a_name} (earlier) → {c.b_name} (later)"]), ("bold", [c.headline])]
    if c.unmeasured:  # each named, with its recorded reason, before anything else is read
        out.append(("list", [f"{u.case_id}: {u.words()}" for u in c.unmeasured]))
    unmatched = [("plain", ["Cases in one receipt only: " + ", ".join(c.unmatched)])]
    unmatched = unmatched if c.unmatched else []
    if c.refusals:
        out.append(("list", list(c.refusals)))
        out += [("quote", list(c.notes))] if c.notes else []  # e.g. different skills
        if not c.context_rows:
            return out + unmatched
        out.append(("plain", [CONTEXT_ONLY]))
    else:
        out.append(("plain", [c.summary]))
        if after := after_summary(c):
            out.append(("quote", after))
    out += [("plain", [x]) for x in (lift_line(c), paired_context(c)) if x]
    out += [("table", []), ("plain", [BANDS_LEGEND]), ("entries", list(c.legend))]
    lost = diff_lost(c.context_rows or c.rows)
    return out + ([("plain", [DIFF_LOST_HEAD]), ("entries", lost)] if lost else []) + unmatched


def comparison_text(c: Comparison, width: int | None = None) -> str:
    """Plain text, every line passed through :func:`~driftproof.render.escape.terminal_safe`.

    ``width``: the terminal's width in characters, or ``None`` (not a terminal): a wider table
    is laid out as a list (:func:`~driftproof.render.escape.text_table`), a longer line wrapped
    (:func:`~driftproof.render.escape.fit_text`).
    """
    lines = []
    for kind, items in _paragraphs(c):
        if kind == "table":
            header, rows = report_rows(c)
            lines += ["", *text_table(header, rows, indent="", width=width), ""]
        else:
            lines += [_STYLES[kind][0].format(terminal_safe(x)) for x in items]
    return fit_text("\n".join(lines) + "\n", width)


def comparison_markdown(c: Comparison) -> str:
    """GitHub-flavoured Markdown with the content of :func:`comparison_text`."""
    lines: list[str] = []
    for kind, items in _paragraphs(c):
        if lines:
            lines.append("")
        if kind == "table":
            lines += md_table(*report_rows(c), escape=md_html)
        else:
            lines += [_STYLES[kind][1].format(md_html(x)) for x in items]
    return "\n".join(lines) + "\n"


def _num(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None


def _nums(obj: object, names: str) -> dict[str, float | None]:
    """``obj``'s attributes ``names`` (space-separated), a NaN or infinity as ``None``."""
    return {n: _num(getattr(obj, n)) for n in names.split()}


def _band_json(b: Band) -> dict[str, Any]:
    return _nums(b, "mean sd low high") | _pick(b, "n drawn lost lost_reasons source")


def _row_json(v: CaseVerdict, *, context: bool = False) -> dict[str, Any]:
    row: dict[str, Any] = {"case_id": v.case_id, "delta": _num(v.delta)}
    if not context:
        row |= (
            _pick(v, "verdict separated underpowered")
            # D-5's count answers "could it have been separated": an underpowered row's only
            | {"draws_needed": v.draws_needed if v.underpowered else None}
            | {"no_draw_count": v.underpowered and v.no_draw_count}
            | _nums(v, "resolution sum_sd se_diff")
            | {"verdict_words": verdict_words(v.verdict)}
        )
    return row | {"lost_detail": v.lost_detail, "a": _band_json(v.a), "b": _band_json(v.b)}


def _pick(obj: object, names: str, **renamed: str) -> dict[str, Any]:
    """``obj``'s attributes ``names`` (space-separated) by name, and ``renamed`` key → attribute."""
    pairs = [(n, n) for n in names.split()] + list(renamed.items())
    return {key: getattr(obj, attr) for key, attr in pairs}


def _context_json(c: Comparison) -> dict[str, Any]:
    """The comparison's context beside its verdicts: false alarms, the paired test, the lifts."""
    fa, p, lf = c.false_alarms, c.paired, c.lifts
    return {
        "false_alarms": None
        if fa is None
        else _pick(
            fa, "expected observed p_at_least beyond_noise level cases", trials_per_case="trials"
        ),
        "paired": None
        if p is None
        else _pick(p, "cases up down method", zero="ties", not_computed="reason")
        | {
            "sign_test_p": _num(p.sign_p),
            "mean_change": _num(p.mean),
            "interval": [_num(p.low), _num(p.high)],
            "coverage": _num(p.coverage),
        },
        "lifts": None
        if lf is None
        else _pick(lf, "a_cases b_cases a_total b_total")
        | {"a": _num(lf.a), "b": _num(lf.b), "cases": list(lf.cases)},
    }


def comparison_json(c: Comparison) -> str:
    """The comparison as JSON (sorted keys, no NaN): its fields, each row and the exit status.

    ``band_sources`` is each side's band source as read (inferred where not recorded);
    ``band_names`` names it as the text does, ``not recorded (generation)`` there (D-13).

    Each row's ``draws_needed`` (and ``no_draw_count``) is an underpowered row's only: null
    (false) on any other (D-5).

    ``unmeasured`` lists the cases the later receipt measured nothing in or does not hold (an arm
    the earlier one measured): ``case_id``, ``arms``, ``drawn`` (all lost), the commonest
    ``reason`` and ``words``.
    """
    fields = (
        "refusals headline summary band_sources band_names legend not_like_for_like lost_cases "
        "regressed unmatched underpowered_sentence underpowered_reason draws_needed notes"
    )
    doc = {
        **_pick(c, fields, a="a_name", b="b_name"),
        "exit_status": exit_status(c),
        "rows": [_row_json(v) for v in c.rows],
        "context_rows": [_row_json(v, context=True) for v in c.context_rows],
        "unmeasured": [
            _pick(u, "case_id drawn reason reason_draws")
            | {"arms": list(u.arms), "words": u.words()}
            for u in c.unmeasured
        ],
        **_context_json(c),
    }
    return json_text(doc)


def with_breakdowns(
    output: str,
    fmt: Format,
    breakdowns: Sequence[tuple[str, BreakdownView]],
    width: int | None = None,
) -> str:
    """``output`` (a diff in ``fmt``) followed by one lift breakdown per ``(name, view)``.

    ``width``: text laid out for a terminal that wide (:func:`~driftproof.render.sheet.sheet_text`);
    JSON: the same document with a ``lift_breakdowns`` list added.

    Raises:
        json.JSONDecodeError: ``fmt`` is ``json`` and ``output`` is not a JSON document.
    """
    docs = [breakdown_document(bv, name=name, fmt=fmt, width=width) for name, bv in breakdowns]
    if fmt == "json":
        return json_text(json.loads(output) | {"lift_breakdowns": [json.loads(d) for d in docs]})
    return "\n\n".join([output.rstrip("\n"), *(d.rstrip("\n") for d in docs)]) + "\n"


def with_aa(output: str, fmt: Format, name: str, aa: AAReading, width: int | None = None) -> str:
    """``output`` (a diff in ``fmt``) with the A/A calibration ``name`` cited after it, as context.

    ``width``: text wrapped for a terminal that wide (:func:`~driftproof.render.escape.fit_text`);
    JSON: an ``aa`` object added (the sentence and its figures).

    Raises:
        json.JSONDecodeError: ``fmt`` is ``json`` and ``output`` is not a JSON document.
    """
    line = aa_line(name, aa)
    if fmt == "json":
        figures = {
            "file": name,
            "sentence": line,
            "cases": len(aa.cases),
            "observed_false_calls": aa.observed,
            "expected_false_calls": aa.expected,
            "chance_of_at_least_one": aa.at_least_one,
            "smallest_effect_median": aa.smallest_median,
            "smallest_effect_largest": aa.smallest_max,
        }
        return json_text(json.loads(output) | {"aa": figures})
    shown = md_html(line) if fmt == "markdown" else fit_text(terminal_safe(line), width)
    return f"{output.rstrip(chr(10))}\n\n{shown}\n"
