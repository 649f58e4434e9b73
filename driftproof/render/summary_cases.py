"""The Action's job summary from its per-case table on: table, notes, fold; under a size limit."""

from __future__ import annotations

from itertools import accumulate

from driftproof import wording
from driftproof.pages.comparison import CONTEXT_ONLY, Comparison, band_words, report_rows
from driftproof.pages.words import format_lift
from driftproof.render.cut_words import FOLD_RESERVE, CutWords
from driftproof.render.escape import md_escape, md_table
from driftproof.stats import Band, CaseVerdict, verdict_words
from driftproof.stats.codes import VerdictCode

#: Per-case rows shown before the "N more" note, whatever their size.
MAX_ROWS = 500
#: Notes (lost draws, cases not compared) shown before the "N more notes" line.
MAX_NOTES = 50

#: Where a reader finds whole the words the summary's fold had no room for.
_WHOLE = "driftproof diff, given the two receipts, prints each whole."

_TABLE_HEAD = (
    "| case | verdict | earlier band | later band | Δ | draws needed per arm |\n"
    "|---|---|---|---|---|---|\n"
)


def _band(b: Band) -> str:
    """A band as diff words it (:func:`band_words`), with its draw counts."""
    counts = f"n={b.n}" + (f" of {b.drawn}, {b.lost} lost" if b.lost else "")
    return f"{band_words(b)} ({counts})"


def _row(v: CaseVerdict) -> str:
    """One case's row of the summary table."""
    needed = ""
    if v.verdict == VerdictCode.UNDERPOWERED and v.no_draw_count:
        needed = "no count"  # not "none", which reads as none needed; why: once, under the table
    elif v.verdict == VerdictCode.UNDERPOWERED and v.draws_needed is not None:
        needed = str(v.draws_needed)
    cells = (v.case_id, verdict_words(v.verdict), _band(v.a), _band(v.b), format_lift(v.delta))
    return "| " + " | ".join(md_escape(x) for x in (*cells, needed)) + " |\n"


def with_cases(text: str, c: Comparison, max_bytes: int, cut: CutWords) -> str:
    """``text`` with the per-case table and the notes, cut to stay under ``max_bytes``.

    The words cut short in them (and in ``cut`` already) are whole in a fold at the end; the
    table has at most :data:`MAX_ROWS` rows and :data:`MAX_NOTES` notes, each cut with an
    "N more … not shown" line.
    """
    lost = [v for v in c.rows or c.context_rows if v.lost_detail]
    notes = [
        f"- {md_escape(v.case_id)}: {cut.md(v.case_id, v.lost_detail, 500)}\n"
        for v in lost[:MAX_NOTES]
    ]
    if c.unmatched:
        notes.append(f"- not compared: {md_escape(', '.join(c.unmatched), 1000)}\n")
    more_notes, notes = len(lost) + bool(c.unmatched) - MAX_NOTES, notes[:MAX_NOTES]
    if c.rows:
        head, rows = _TABLE_HEAD, [_row(v) for v in c.rows[:MAX_ROWS]]
    else:  # no verdict: each common case's bands as context, the table diff prints
        header, cells = report_rows(c)
        table = "".join(f"{x}\n" for x in md_table(header, [], escape=md_escape))
        head = f"{CONTEXT_ONLY}\n\n{table}" if c.context_rows else ""
        rows = [f"| {' | '.join(map(md_escape, r))} |\n" for r in cells[:MAX_ROWS]]
    none = any(v.verdict == VerdictCode.UNDERPOWERED and v.no_draw_count for v in c.rows)
    legend = f"\nno count: {wording.NO_DRAW_COUNT_REACHES} ({wording.NO_DRAW_COUNT_WHY}).\n"
    legend = legend if none else ""
    rows = rows if c.rows or c.context_rows else []
    room = max_bytes - 200 - len(legend.encode()) - sum(len(n.encode()) for n in notes)
    room -= len((text + head).encode()) + (FOLD_RESERVE if cut.cut else 0)
    sizes = accumulate(len(row.encode()) for row in rows)
    parts = [text + head, *(row for row, size in zip(rows, sizes, strict=True) if size <= room)]
    more = len(c.rows or c.context_rows) - (len(parts) - 1)
    if more:
        parts.append(f"\n… {more} more {'case' if more == 1 else 'cases'} not shown.\n")
    parts.append(legend)
    if notes:
        parts.append("\n" + "".join(notes))
        if more_notes > 0:
            parts.append(f"- … {wording.count_of(more_notes, 'more note')} not shown.\n")
    body = "".join(parts)
    return body + cut.fold(max_bytes - len(body.encode()), _WHOLE)
