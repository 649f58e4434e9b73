"""A receipt's sheet (:func:`driftproof.pages.sheet.sheet`) as tables, each also CSV."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from driftproof.pages.band_sources import BandFacts, band_facts, band_legend
from driftproof.pages.case import case_slugs
from driftproof.pages.lost_groups import lost_groups
from driftproof.pages.sheet import Sheet, sheet
from driftproof.pages.sheet_facts import ARM_COLUMNS, ARMS_TITLE, PER_1K, lift_and_per_1k
from driftproof.pages.source import FIGURE_COLUMNS, SOURCE_TITLE, USAGE_TITLE
from driftproof.pages.tables import Cell, Column, Row, Table, csv_number, plain_table, text_row
from driftproof.pages.words import (
    UNKNOWN,
    Fact,
    arm_words,
    case_direction,
    case_heads,
    case_output_tokens,
    has_bands,
)
from driftproof.receipt import Receipt
from driftproof.stats.reading import unrecorded_arms
from driftproof.wording import ARM_WORDS, said_once

#: ``chart(sheet, anchor) -> (info or None, files)``: draws a sheet's band chart.
Chart = Callable[[Sheet, Callable[[str], str]], tuple[dict[str, str] | None, dict[str, bytes]]]


@dataclass(frozen=True)
class ReceiptTables:
    """A receipt's sheet as tables for the templates: every value a printable string.

    ``file_sha256`` is ``""`` when no bytes were given; ``chart`` is the band chart's info and
    ``files`` its SVGs; ``source`` an imported receipt's own figures and decision, usage and
    fidelity tables; ``arms`` each arm across the receipt (draws, lost, refusals, how often the
    skill fired, output tokens), as ``view`` prints it; ``level`` its verification level in
    words (the provenance's) where its verdict line names the level, else ``""``.
    """

    name: str
    model: Sheet
    file_sha256: str
    cases: Table
    breakdown: Table | None
    lost: Table | None
    chart: dict[str, str] | None
    files: dict[str, bytes]
    figures: Table | None = None
    facts: BandFacts | None = None
    verdict: str = ""
    source: tuple[Table, ...] = ()
    arms: Table | None = None
    level: str = ""

    @property
    def lift_facts(self) -> tuple[Fact, ...]:
        """The suite lift and its value per 1,000 skill tokens, less what the headline says."""
        m, said = self.model, self.model.headline.value
        both = lift_and_per_1k(m.lift, m.lift_per_1k)
        lift = (Fact("suite lift", m.lift),) if said not in (m.lift, both) else ()
        return lift + ((Fact(PER_1K, m.lift_per_1k),) if said != both else ())


def receipt_tables(
    name: str,
    r: Receipt,
    raw: bytes = b"",
    *,
    anchor: Callable[[str], str] | None = None,
    chart: Chart | None = None,
    case_link: Callable[[str], str] | None = None,
    key: str | None = None,
) -> ReceiptTables:
    """The sheet of receipt ``r`` published as ``receipts/<name>.json``, as tables.

    Args:
        name: the receipt's name.
        r: the receipt.
        raw: the file's bytes (its sha256; its size decides whether the lift breakdown is
            computed), or empty (then the canonical JSON's size).
        anchor: makes page-unique element ids; default the base itself.
        chart: draws the band chart of the sheet (its ids taken before the case rows'); None:
            no chart.
        case_link: URL of a case's page; default ``cases/<slug>/index.html`` (its own sheet).
        key: ends each table's id (``cases-<key>``); default ``name``, its ``/`` as ``-``.
    """
    anchor = anchor or (lambda base: base)
    if case_link is None:
        slugs = case_slugs(r)
        case_link = lambda case_id: f"cases/{slugs[case_id]}/index.html"  # noqa: E731
    s = sheet(r, size_bytes=len(raw) if raw else None)
    key = key or name.replace("/", "-")
    drawn, files = chart(s, anchor) if chart else (None, {})
    lost = (
        plain_table(
            f"lost-{key}",
            "Lost draws: left out of every mean and spread, with the recorded reason",
            ("case", "arm", "draw numbers", "reason"),
            ((x.case_id, x.arm, x.numbers, x.reason) for x in lost_groups(s.lost_draws)),
        )
        if s.lost_draws
        else None
    )
    lost_link = f"#{lost.element_id}" if lost else None
    return ReceiptTables(
        name=name,
        model=s,
        file_sha256=hashlib.sha256(raw).hexdigest() if raw else "",
        cases=_case_table(r, s, key, anchor, case_link, lost_link),
        breakdown=_breakdown(s, key),
        lost=lost,
        chart=drawn,
        files=files,
        figures=_source_figures(s, key),
        facts=band_facts(r),
        verdict=verdict_line(s.reading),
        level=_level(r, s),
        source=_source_tables(s, key),
        arms=plain_table(
            f"arms-{key}",
            f"Arms: each arm across the receipt; {ARMS_TITLE}",
            [h for h, _ in ARM_COLUMNS],
            ([getattr(a, f) for _, f in ARM_COLUMNS] for a in s.arms),
        )
        if s.arms
        else None,
    )


def _level(r: Receipt, s: Sheet) -> str:
    """The provenance's verification level in words, where the verdict line names a level."""
    if r.verification_level == "TESTED" and not r.is_smoke:
        return ""
    return next(f.value for f in s.provenance if f.label == "verification level")


def sheet_lost_link(name: str) -> str:
    """``#<id>`` of the "Lost draws" table on receipt ``name``'s own sheet page (no ``key``)."""
    return f"#table-lost-{name.replace('/', '-')}"  # as Table.element_id writes it


def _case_table(
    r: Receipt,
    s: Sheet,
    key: str,
    anchor: Callable[[str], str],
    case_link: Callable[[str], str],
    lost_link: str | None,
) -> Table:
    """The case table; a lost-draws count links to ``lost_link``, the table giving each reason."""
    arms = r.arm_names
    words = [arm_words(r)[a] for a in arms]
    counts = [case_output_tokens(case, arms, " / ") for case in r.cases]
    held = any(x != UNKNOWN for x in counts)
    # with no judged score the band and lift columns are left out (the caption says so), and
    # the token counts, if any, come right after the case
    banded = has_bands(r)
    token_col = [Column(f"output tokens ({' / '.join(words)})", True)] if banded or held else []
    cols = [Column("case")]
    lift = Column(case_heads(r)[2], True)
    cols += [*(Column(w, True) for w in words), lift] if banded else token_col
    cols += [Column("verdict"), Column("checks"), Column("lost draws")]
    cols += token_col if banded else []
    rows = []
    for c, tokens in zip(s.cases, counts, strict=True):
        lead = [
            Cell(c.with_skill, csv_number(c.numbers[0])),
            Cell(c.baseline, csv_number(c.numbers[2])),
            *([Cell(c.control or "–")] if len(arms) > 2 else []),
            Cell(c.lift),
        ]
        token_cell = [Cell(tokens)] if banded or held else []
        cells = [
            Cell(c.case_id),
            *(lead if banded else token_cell),
            Cell(c.verdict),
            Cell(c.checks),
            Cell(c.lost, link=lost_link if c.lost != "none" else None),
            *(token_cell if banded else []),
        ]
        rows.append(
            Row(tuple(cells), anchor=anchor(c.anchor), header=True, link=case_link(c.case_id))
        )
    return Table(f"cases-{key}", _case_caption(r, words, held), tuple(cols), tuple(rows))


def _case_caption(r: Receipt, words: list[str], tokens_held: bool) -> str:
    """What the case table of ``r`` holds: its bands, or, with no judged score, what instead.

    ``words``: the arms shown, in column order; ``tokens_held``: a draw records output tokens.
    """
    head = f"Cases of {r.skill.name}: "
    if has_bands(r):
        return f"{head}{band_legend(r)}; {case_direction(r)}"
    parts = ["the receipt holds no judged score, so no case has a band or a lift"]
    missing = [ARM_WORDS[n] for n in unrecorded_arms(r)]
    shown = [f"output tokens ({' / '.join(words)})"] if tokens_held else []
    shown += ["checks", "lost draws"]
    if missing or not tokens_held:
        unrecorded = [f"{' or '.join(missing)} arm"] if missing else []
        unrecorded += [] if tokens_held else ["output tokens"]
        parts.append(f"the source recorded no {' and no '.join(unrecorded)}")
    parts.append(f"each row shows the case's {', '.join(shown[:-1])} and {shown[-1]}")
    return head + "; ".join(parts)


#: The breakdown's columns: (header, numeric, field of a breakdown row).
_BREAKDOWN = (
    ("case", False, "case_id"),
    ("with skill", True, "with_skill"),
    ("baseline", True, "baseline"),
    ("lift", True, "lift"),
    ("draws (with · baseline)", True, "counts"),
    ("lift without this case", True, "lift_without"),
    ("helps or hurts", False, "label"),
    ("note", False, "note"),
)


def _breakdown(s: Sheet, key: str) -> Table | None:
    if not s.breakdown.available:
        return None
    cols = [c for c in _BREAKDOWN if s.breakdown.labelled or c[2] != "label"]
    return Table(
        f"breakdown-{key}",
        "Lift by case: each case weighted equally; measured/drawn/lost draws per arm",
        tuple(Column(x, n) for x, n, _ in cols),
        tuple(text_row(*(getattr(b, f) for _, _, f in cols)) for b in s.breakdown.rows),
    )


def _source_tables(s: Sheet, key: str) -> tuple[Table, ...]:
    """The source's report, usage and fidelity tables of ``s``, as the sheet has them."""
    said, head = f"{SOURCE_TITLE}: the decision", ("what", "as the source gave it")
    report = f"{SOURCE_TITLE} (no band, lift or verdict is computed from them)"
    report += f". {s.source_report_note}" if s.source_report_note else ""
    parts: list[tuple[str, str, Sequence[str], Sequence[Sequence[str]]]] = [
        ("source-decision", said, head, [(f.label, f.value) for f in s.source_decision]),
        ("source-report", report, s.source_report_head, s.source_report),
    ]
    if (u := s.usage) is not None:
        parts.append(("usage", f"{USAGE_TITLE}. {u.note}", u.head, u.rows))
    if (f := s.fidelity) is not None:
        failed = [(x,) for x in f.failures]
        parts += [
            ("fidelity", f.title, f.arm_head, f.arm_rows),
            ("fidelity-categories", f"{f.title}: by category", f.category_head, f.category_rows),
            ("fidelity-failures", f"{f.title}: every failed check", ("failed check",), failed),
        ]
    return tuple(plain_table(f"{i}-{key}", c, h, rows) for i, c, h, rows in parts if rows)


def verdict_line(reading: tuple[Fact, ...]) -> str:
    """The sheet's reading (status, sentence, why; D-7, D-10) in one line: ``"status: why"``.

    ``"regressed: hurts: c2. Why: …"`` when the sentence is not the status again; the why alone
    when it opens with the sentence or its first clause names the status.
    """
    status, sentence, why = (f.value for f in reading[:3])
    # "Smoke run, no verdict: …" says its status itself, in its first clause
    named = status.casefold() in why.split(":", 1)[0].casefold()
    said = f"{status}: {why}" if why and not named else why
    if sentence and sentence.casefold() != status.casefold():
        if why and said_once(sentence, why) == why:  # "not measured" / "not measured: …"
            return said
        line = f"{status}: {sentence}"
        return f"{line.rstrip('.')}. Why: {why}" if why else line
    return said or status


def _source_figures(s: Sheet, key: str) -> Table | None:
    """An aggregates-only receipt's printed figures, a row per dimension and agent or arm (D-15)."""
    if not s.shows_printed_figures:
        return None
    what = (
        "per dimension and agent: the score with the skill (percent) and the uplift over the run "
        "without it, in the source's own unit"
        if s.figure_columns is FIGURE_COLUMNS
        else "per measure and arm: each arm's value and the delta, in the source's own unit"
    )
    return Table(
        f"figures-{key}",
        f"Figures as the source printed them, {what}. No band, lift or verdict is computed from "
        "them.",
        tuple(Column(h, f in ("score", "uplift", "count")) for h, f in s.figure_columns),
        tuple(text_row(*(getattr(x, f) for _, f in s.figure_columns)) for x in s.source_figures),
        keys=2,
    )
