"""The source's own report on an imported receipt (schema 0.16 ``source_report``) as the sheet
shows it: every figure as the source gave it, its decision, its stages and the revision it
evaluated. They are the source's figures, never this receipt's band, lift or verdict (D-15).

Public API::

    source_report_rows(r) -> tuple[tuple[str, ...], ...]   one row per figure (SOURCE_HEAD)
    source_report_facts(r) -> tuple[Fact, ...]             decision, stages, reducers, revision
"""

from __future__ import annotations

from driftproof.pages.sheet_model import ARM_WORDS, UNKNOWN, Fact
from driftproof.receipt import Receipt
from driftproof.receipt._model_source import SourceFigure

__all__ = ["SOURCE_HEAD", "SOURCE_TITLE", "source_report_facts", "source_report_rows"]

#: Heading of the section, and of its table's columns.
SOURCE_TITLE = "The source's own figures and decision"
SOURCE_HEAD = ("figure", "case", "arm", "as the source gave it", "interval", "how it was made")

_ARMS = {**ARM_WORDS, "lift": "difference", "other": "another arm"}
_UNITS = {"percent": "%", "points": " points", "count": "", "fraction": "", "scale": ""}


def _value(f: SourceFigure) -> str:
    if f.printed:
        return f.printed
    if f.value is None:
        return UNKNOWN
    return f"{_number(f.value)}{_UNITS.get(f.unit or '', '')}"


def _number(x: float) -> str:
    """``x`` in full (never rounded here): ``1`` for a whole number, else its shortest repr."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _how(f: SourceFigure) -> str:
    parts = []
    if f.reducer:
        parts.append(f"reduced by {f.reducer}")
    if f.rounded:
        parts.append("printed rounded")
    if f.unit == "scale":
        parts.append("on the source's own scale")
    return "; ".join(parts)


def source_report_rows(r: Receipt) -> tuple[tuple[str, ...], ...]:
    """One row per figure of the source's report, in its order; ``()`` without one."""
    sr = r.source_report
    if sr is None:
        return ()
    rows = []
    for f in sr.figures:
        interval = ""
        if f.lower is not None or f.upper is not None:
            lo = UNKNOWN if f.lower is None else _number(f.lower)
            hi = UNKNOWN if f.upper is None else _number(f.upper)
            interval = f"{lo} to {hi}" + (f" ({f.level:.0%})" if f.level is not None else "")
        arm = _ARMS.get(f.arm or "", "whole run")
        rows.append((f.label, f.case or "whole run", arm, _value(f), interval, _how(f)))
    return tuple(rows)


def source_report_facts(r: Receipt) -> tuple[Fact, ...]:
    """The source's decision (in its words, with its test and p value), its stages with their
    status (a stage not run kept apart from a fail), its reducers and the revision it evaluated."""
    sr = r.source_report
    if sr is None:
        return ()
    facts = []
    if sr.decision is not None:
        d = sr.decision
        extra = [
            x
            for x in (
                None if d.test is None else d.test,
                None if d.p_value is None else f"p = {_number(d.p_value)}",
                None
                if d.significant is None
                else ("significant" if d.significant else "not significant"),
            )
            if x
        ]
        facts.append(
            Fact(
                "the source's decision (not this receipt's verdict)",
                d.printed + (f" ({'; '.join(extra)})" if extra else ""),
            )
        )
    for s in sr.stages or ():
        words = "did not run" if s.status == "not_run" else s.printed
        facts.append(Fact(s.name + (f" ({s.title})" if s.title else ""), words))
    if sr.reducers:
        facts.append(Fact("the source's epoch reducers", ", ".join(sr.reducers)))
    for label, value in (
        ("evaluated source", sr.source_repository),
        ("evaluated revision", sr.source_revision),
        ("evaluator digest", sr.evaluator_digest),
    ):
        if value is not None:
            facts.append(Fact(label, value))
    return tuple(facts)
