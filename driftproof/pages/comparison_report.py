"""A :class:`~driftproof.pages.comparison.Comparison` as JSON, and the exit status a CI job reads
(:func:`exit_status`) for ``driftproof diff``.

Pure formatting: every number comes from the core. The text and Markdown printers and the
per-case rows live in the rendering layer, :mod:`driftproof.render.comparison`; they are
importable from here under their older names (``to_text``, ``to_markdown``).
"""

from __future__ import annotations

import json
import math
from typing import Any

from driftproof.pages.comparison import Comparison, verdict_words
from driftproof.render.comparison import comparison_markdown as to_markdown
from driftproof.render.comparison import comparison_text as to_text
from driftproof.render.comparison import lift_line, report_rows
from driftproof.stats import Band

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

#: ``driftproof diff`` exit statuses: no case regressed / a case regressed / bad input or no
#: verdict.
EXIT_NO_REGRESSION, EXIT_REGRESSED, EXIT_BAD_INPUT = 0, 1, 2


def exit_status(c: Comparison) -> int:
    """2 when a side gets no verdict, 1 when a case regressed, else 0."""
    if c.refusals:
        return EXIT_BAD_INPUT
    return EXIT_REGRESSED if c.regressed else EXIT_NO_REGRESSION


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
        "false_alarms": None
        if c.false_alarms is None
        else {
            "expected": c.false_alarms.expected,
            "observed": c.false_alarms.observed,
            "p_at_least": c.false_alarms.p_at_least,
            "beyond_noise": c.false_alarms.beyond_noise,
            "level": c.false_alarms.level,
            "trials_per_case": c.false_alarms.trials,
            "cases": c.false_alarms.cases,
        },
        "paired": None
        if c.paired is None
        else {
            "cases": c.paired.cases,
            "up": c.paired.up,
            "down": c.paired.down,
            "zero": c.paired.ties,
            "sign_test_p": _num(c.paired.sign_p),
            "mean_change": _num(c.paired.mean),
            "interval": [_num(c.paired.low), _num(c.paired.high)],
            "coverage": _num(c.paired.coverage),
            "method": c.paired.method,
            "not_computed": c.paired.reason,
        },
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
