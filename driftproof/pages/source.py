"""What an imported receipt's source printed or reported itself, as the sheet shows it (D-15).

None of it is a band, lift or verdict of this receipt; caveman's usage and fidelity tables
(seed 004, D-16) come from :mod:`driftproof.stats.savings` and :mod:`driftproof.stats.fidelity`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from driftproof.pages.fidelity import arm_label, fidelity_view, is_caveman
from driftproof.pages.printed_figures import (
    NOT_PRINTED,
    as_given,
    printed_rows,
    printed_value,
    uplift_unit,
)
from driftproof.pages.words import UNKNOWN, Fact, count_of, draws_of, labelled
from driftproof.receipt import Receipt
from driftproof.receipt._model_source import SourceFigure
from driftproof.stats.savings import percent, usage_vs_control
from driftproof.wording import ARM_WORDS, dollars, numeral

#: The columns of the printed figures, as (header, :class:`SourceFigureRow` field): NVIDIA's
#: rows per dimension and agent, or a ``run_summary``'s per measure and arm.
FIGURE_COLUMNS = (
    ("dimension", "dimension"),
    ("agent", "agent"),
    ("score as printed", "score"),
    ("uplift as printed", "uplift"),
    ("Num, as printed (the source does not say what it counts)", "count"),
    ("note", "note"),
)
SUMMARY_COLUMNS = (
    ("measure", "dimension"),
    ("arm", "agent"),
    ("value as printed", "score"),
    ("delta as printed", "uplift"),
)


@dataclass(frozen=True)
class SourceFigureRow:
    """One figure an aggregates-only source printed, as printed (D-15)."""

    dimension: str
    agent: str
    score: str
    uplift: str
    count: str
    note: str


@dataclass(frozen=True)
class UsageView:
    """caveman's ``measure.py`` usage table; without it, ``rows`` empty and ``unavailable`` why."""

    head: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    cost: tuple[Fact, ...]
    note: str
    unavailable: str | None = None


def source_figures(r: Receipt) -> tuple[SourceFigureRow, ...]:
    """An aggregates-only receipt's figures as printed: NVIDIA's, or a run_summary's by arm."""
    sf = r.source_figures
    if r.is_aggregates_only and sf is not None and sf.run_summary is not None:
        return _summary_rows(sf.run_summary)
    return tuple(
        SourceFigureRow(
            dimension=x.dimension,
            agent=x.agent,
            score=x.printed or printed_value(x.score) or NOT_PRINTED,
            uplift=printed_value(x.uplift) or NOT_PRINTED,
            count=NOT_PRINTED if x.num is None else str(x.num),
            note=x.note or "",
        )
        for x in printed_rows(r) or ()
    )


def figure_columns(r: Receipt) -> tuple[tuple[str, str], ...]:
    """The columns :func:`source_figures` fills: :data:`SUMMARY_COLUMNS` for a run_summary."""
    sf = r.source_figures
    return SUMMARY_COLUMNS if sf is not None and sf.run_summary is not None else FIGURE_COLUMNS


#: ``run_summary``'s members in the order shown, in words; any other member follows as named.
_SUMMARY_ARMS = {"with_skill": "with skill", "without_skill": "without skill", "delta": "delta"}


def _summary_rows(summary: dict[str, Any]) -> tuple[SourceFigureRow, ...]:
    """A row per arm (the delta's in the uplift column) and measure of a ``run_summary``."""
    rows = []
    known = [k for k in _SUMMARY_ARMS if k in summary]
    for arm in known + [k for k in summary if k not in _SUMMARY_ARMS]:
        measures = summary[arm] if isinstance(summary[arm], dict) else {"": summary[arm]}
        for measure, v in measures.items():
            text = as_given(v)
            score, uplift = (NOT_PRINTED, text) if arm == "delta" else (text, NOT_PRINTED)
            words = _SUMMARY_ARMS.get(arm, arm)
            rows.append(SourceFigureRow(measure, words, score, uplift, NOT_PRINTED, ""))
    return tuple(rows)


def source_origin(r: Receipt) -> tuple[Fact, ...]:
    """Where an aggregates-only receipt's figures were read: repository, commit, units, files."""
    sf = r.source_figures
    if not r.is_aggregates_only or sf is None:
        return ()
    facts = [Fact("repository", sf.repository or UNKNOWN), Fact("commit", sf.commit or UNKNOWN)]
    units = []
    for what, unit in (("score", lambda f: f.unit), ("uplift", uplift_unit)):  # uplift: points
        found = sorted({u for x in sf.rows or [] if (f := getattr(x, what)) and (u := unit(f))})
        said = f" in {', '.join(found)}" if found else ": unit not stated by the source"
        units.append(what + said)
    if sf.run_summary is not None:  # measures, not NVIDIA's score and uplift
        units = ["not stated by the source, apart from each measure's name"]
    facts.append(Fact("units, as the source states them", "; ".join(units)))
    facts += [Fact("file", f"{f.path} (git blob {f.git_blob_sha1})") for f in sf.files or ()]
    if sf.file is not None:  # skill-creator's one file
        facts.append(Fact("file", f"{sf.file} (git blob {sf.git_blob_sha1 or UNKNOWN})"))
    verdict = _source_verdict(sf.summary or {})
    return tuple(facts) + ((Fact("the source's own verdict", verdict),) if verdict else ())


#: The summary members the source's verdict line shows, in order: (member, words before, after,
#: after a count of 1).
_VERDICT_PARTS = {
    key: (before, after, one)
    for key, before, after, one in (
        ("pass_threshold_pct", "pass threshold ", "%", "%"),
        ("tasks", "", " tasks", " task"),
        ("attempts_per_task", "", " attempts per task", " attempt per task"),
        ("average_uplift_pct", "average uplift ", " percentage points", " percentage point"),
    )
}


def summary_figure(summary: dict[str, Any], key: str) -> str | None:
    """Member ``key`` of a source's summary in the verdict line's words, or ``None`` (no number).

    ``"average uplift 40.6 percentage points"``; ``key`` is one of :data:`_VERDICT_PARTS`.
    """
    x = summary.get(key)
    if not isinstance(x, int | float) or isinstance(x, bool):
        return None
    before, after, one = _VERDICT_PARTS[key]
    return f"{before}{_number(x) if isinstance(x, float) else x}{one if x == 1 else after}"


def _source_verdict(summary: dict[str, Any]) -> str | None:
    """The source's verdict and the figures it rests on, as its summary gives them, or ``None``."""
    verdict = summary.get("verdict")
    if not isinstance(verdict, str):
        return None
    parts = [p for key in _VERDICT_PARTS if (p := summary_figure(summary, key))]
    return verdict + (f" ({', '.join(parts)})" if parts else "")


#: Heading of the section, and of its table's columns.
SOURCE_TITLE = "The source's own figures and decision"
SOURCE_HEAD = ("figure", "case", "arm", "as the source gave it", "interval", "how it was made")

_ARMS = {**ARM_WORDS, "lift": "difference", "other": "another arm"}
#: What caveman's risk rating is, as its rubric file says (``high``: no loss allowed).
RISK_WORDS = "the rubric's rating of how much fidelity loss the source's gate allows (high: none)"
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
    parts = (
        (f.reducer, f"reduced by {f.reducer}"),
        (f.rounded, "printed rounded"),
        (f.unit == "scale", "on the source's own scale"),
        (f.label == "risk" and f.printed and f.value is None, RISK_WORDS),  # caveman's rating
    )
    return "; ".join(words for hit, words in parts if hit)


def source_report_headline(r: Receipt, *, elsewhere: bool = False) -> str | None:
    """How many figures the source reported itself, and where; ``None`` with none.

    A caveman fidelity report's result first; with ratings (words, not numbers), each kind
    counted: ``10 fidelity figures in numbers and 10 risk ratings in words``. ``elsewhere``:
    said off the receipt page.
    """
    figures = r.source_report.figures if r.source_report is not None else []
    if not figures:
        return None
    words = [f.label for f in figures if f.value is None and f.lower is None and f.upper is None]
    n, k = len(figures) - len(words), len(words)
    nums = [f.label for f in figures if f.label not in words]  # a label names one kind
    told = f"{labelled(n, nums, 'figure')} in numbers and {labelled(k, words, 'rating')}"
    where = " on the receipt page" if elsewhere else ""
    fid = fidelity_view(r)  # its result first
    kept = [f"{x[0]} {x[1]} ({x[2]})" for x in fid.arm_rows if " / " in x[1]] if fid else []
    result = f"{fid.arm_head[1].lower()}: {'; '.join(kept)}; " if fid and kept else ""
    return (
        f"{result}the source reported {f'{told} in words' if k else count_of(n, 'figure')} (see "
        f'"{SOURCE_TITLE}"{where}); no band, lift or verdict is computed from them'
    )


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


def source_report_table(
    r: Receipt,
) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...], str]:
    """The source's figures as shown: head, rows and a note (``""`` for none).

    A "how it was made" text that more than one row shares, and no row differs from, is said
    once in the note (``"Risk: the rubric's rating …"``) and left out of the rows; then a
    column empty in every row is left out. Every figure keeps its row and its text.
    """
    rows = source_report_rows(r)
    hows = [row[-1] for row in rows if row[-1]]
    note = ""
    if len(hows) > 1 and len(set(hows)) == 1:
        labels = ", ".join(dict.fromkeys(row[0] for row in rows if row[-1]))
        note = f"{labels[:1].upper()}{labels[1:]}: {hows[0]}"
        rows = tuple((*row[:-1], "") for row in rows)
    keep = [i for i, _ in enumerate(SOURCE_HEAD) if i == 0 or any(row[i] for row in rows)]
    head = tuple(SOURCE_HEAD[i] for i in keep)
    return head, tuple(tuple(row[i] for i in keep) for row in rows), note


def source_report_facts(r: Receipt) -> tuple[Fact, ...]:
    """The source's decision (with its test and p), stages, reducers and evaluated revision."""
    sr = r.source_report
    if sr is None:
        return ()
    facts = []
    if sr.decision is not None:
        d = sr.decision
        extra = [d.test] if d.test else []
        if d.p_value is not None:
            extra.append(f"p = {_number(d.p_value)}")
        if d.significant is not None:
            extra.append("significant" if d.significant else "not significant")
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
    named = (
        ("evaluated source", sr.source_repository),
        ("evaluated revision", sr.source_revision),
        ("evaluator digest", sr.evaluator_digest),
    )
    return tuple(facts + [Fact(label, value) for label, value in named if value is not None])


#: The usage table's title, as the sheet and the CLI head it.
USAGE_TITLE = "Claude-reported usage, against the terse control (as caveman's measure.py)"
USAGE_HEAD = (
    "Skill",
    "Output reduction, median",
    "Output reduction, mean",
    "Output tokens (skill / terse)",
    "Input added by skill, median",
)
USAGE_NOTE = (
    "Output tokens are Claude's billed count and include any thinking tokens. Reduction = "
    "1 − skill ÷ terse per prompt. Input added = per-prompt (input + cache-creation + "
    "cache-read tokens) of the skill arm minus the terse arm; the baseline arm runs Claude "
    "Code's default system prompt, so its input is not comparable."
)


def usage_view(r: Receipt) -> UsageView | None:
    """The usage table of a caveman import with Claude's own counts, else ``None``."""
    if not is_caveman(r) or not any(
        d.tokens is not None and d.tokens.counted_by == "provider" for *_, d in draws_of(r)
    ):
        return None
    try:
        u = usage_vs_control(r)
    except ValueError as exc:
        return UsageView(USAGE_HEAD, (), (), USAGE_NOTE, f"unavailable: {exc}")
    o = u.output
    row = (
        r.skill.name,
        percent(o.median),
        percent(o.mean),
        f"{o.skill_tokens} / {o.reference_tokens}",
        numeral(u.input_added_median, "+.0f"),
    )
    cost = tuple(
        Fact(
            f"cost reported, {arm_label(r, n)}",
            UNKNOWN if v is None else f"{dollars(v, 4)} over {count_of(len(r.cases), 'call')}",
        )
        for n, v in u.cost_usd.items()
    )
    note = USAGE_NOTE
    if o.undefined:
        note += (
            f" Cases whose terse answer had 0 output tokens have no reduction here "
            f"({', '.join(o.undefined)}); caveman counts them as 0%."
        )
    return UsageView(USAGE_HEAD, (row,), cost, note)


#: The printed uplifts a headline shows before "and N more on its page" (an index row stays short).
SHOWN_FIGURES = 2


#: Where the sheet (``view``, a receipt's page) shows every printed figure.
ON_THE_SHEET = 'in "Figures as the source printed them"'


def printed_headline(r: Receipt, where: str = "on its page") -> str:
    """The headline of an aggregates-only receipt, for the results page and its sheet alike.

    The average uplift the source printed (NVIDIA's summary), else the first
    :data:`SHOWN_FIGURES` uplifts (skill-creator's deltas) as printed, else "no uplift printed";
    ``where`` names where the rest are (:data:`ON_THE_SHEET` on the sheet).
    """
    if r.source_figures is not None and r.source_figures.run_summary is not None:
        what = "delta"  # skill-creator's run_summary: its delta row per measure
        out = [f"{x.dimension} {x.uplift}" for x in source_figures(r) if x.uplift != NOT_PRINTED]
    else:
        what, out = "uplift", []
        for x in printed_rows(r) or ():
            printed = printed_value(x.uplift)
            if x.uplift is None or printed is None:
                continue
            unit = uplift_unit(x.uplift)  # as the sheet says it
            out.append(
                f"{x.dimension}, {x.agent}: {printed}"
                + (f" {unit}" if unit and unit not in printed else "")
            )
    if not out:
        return f"no {what} printed"
    summary = (r.source_figures.summary if r.source_figures is not None else None) or {}
    if what == "uplift" and (average := summary_figure(summary, "average_uplift_pct")):
        each = count_of(len(out), "uplift")
        return f"the source's {average}; its {each}, by dimension and agent, {where}"
    extra = len(out) - SHOWN_FIGURES
    more = f"; and {extra:,} more {where}" if extra > 0 else ""
    return f"{what} as printed: " + "; ".join(out[:SHOWN_FIGURES]) + more
