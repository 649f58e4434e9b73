"""The receipt sheet on the site: :func:`driftproof.pages.sheet.sheet` (the view engineer's page
model, shared with ``driftproof view``) turned into tables and a band chart.

Every figure and word comes from ``driftproof.pages.sheet`` and, through it, the core
(:mod:`driftproof.stats`); this module only arranges them for the page: the per-case
table (``#case-<id>``, each case linking to its evidence page with every answer,
:mod:`driftproof.site.cases`), the lift breakdown, lost draws and, for an aggregates-only
receipt, the figures its source printed. Charts draw each band as an error bar
(mean ± one sample sd, D-2) with the same numbers in the table beside it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from driftproof.pages import sheet as view
from driftproof.pages.band_sources import BandFacts, band_facts
from driftproof.pages.source import SOURCE_HEAD, SOURCE_TITLE, USAGE_TITLE
from driftproof.pages.words import Fact
from driftproof.receipt import CaseArm, Receipt
from driftproof.site import charts
from driftproof.site._render import fmt_int
from driftproof.site._tables import Cell, Column, Row, Table, csv_number, text_row
from driftproof.site.cases import case_slugs

__all__ = ["ReceiptSheet", "first_output_tokens", "printed_rows", "receipt_sheet"]


@dataclass(frozen=True)
class ReceiptSheet:
    """Plain data for templates: every value a printable string.

    Attributes:
        name: the receipt's name (path under ``receipts/`` without ``.json``).
        model: the :class:`driftproof.pages.sheet.Sheet` (provenance, reading, lift, cost, context).
        file_sha256: sha256 of the receipt file's bytes as published ("" when not given).
        cases, breakdown, lost: tables (the breakdown table is None when unavailable).
        chart: ``{"id", "src", "dark", "alt"}`` and ``files`` (SVG bytes by file name), or None
            when no case has a band to draw.
    """

    name: str
    model: view.Sheet
    file_sha256: str
    cases: Table
    breakdown: Table | None
    lost: Table | None
    chart: dict[str, str] | None
    files: dict[str, bytes]
    figures: Table | None = None
    """For an aggregates-only receipt: the figures its source printed, as printed."""
    facts: BandFacts | None = None
    """Band source, draws per arm and judge samples per draw, from the receipt's fields
    (issue 15)."""
    verdict: str = ""
    source: tuple[Table, ...] = ()
    """An imported receipt's source's own figures and decision, and caveman's usage and
    fidelity tables, in the cells :func:`driftproof.pages.sheet.sheet` gives (no verdict)."""
    """The reading in one line: the status, its fixed sentence when that says more, and why
    (:func:`verdict_line`)."""
    draws: tuple[dict[str, Any], ...] = ()
    """Always empty: every draw is shown on its case's evidence page (:mod:`driftproof.site.cases`,
    :func:`~driftproof.site.cases.case_draws`). Kept for readers of the field; to be removed."""


def receipt_sheet(
    name: str,
    r: Receipt,
    raw: bytes = b"",
    *,
    anchor: Callable[[str], str] | None = None,
    chart_prefix: str | None = None,
    path: Path | None = None,
    case_link: Callable[[str], str] | None = None,
) -> ReceiptSheet:
    """The sheet of receipt ``r`` published as ``receipts/<name>.json``.

    Args:
        raw: the file's bytes (for its sha256), or empty.
        anchor: ``anchor(base) -> id`` making page-unique element ids; default: ``base`` itself.
        chart_prefix: file-name prefix of the band chart (e.g. ``chart-<name>``); None: no chart.
        case_link: ``case_link(case_id) -> URL`` of the case's evidence page, from the page the
            table is shown on (default: ``cases/<slug>/``, as on the receipt's own sheet).
        path: the receipt file, whose size decides the lift breakdown's size limit (without it
            ``driftproof.pages.sheet`` measures the canonical JSON instead, which is slower).
    """
    anchor = anchor or (lambda base: base)
    if case_link is None:
        slugs = case_slugs(r)
        case_link = lambda case_id: f"cases/{slugs[case_id]}/index.html"  # noqa: E731
    s = view.sheet(r, path=path)
    slug = name.replace("/", "-")
    has_control = any(c.control is not None for c in s.cases)
    cols = [Column("case"), Column("with skill", True), Column("baseline", True)]
    cols += [Column("control", True)] if has_control else []
    cols += [
        Column("lift", True),
        Column("verdict"),
        Column("checks"),
        Column("lost draws"),
        Column(
            "output tokens ("
            + " / ".join(["with skill", "baseline"] + (["control"] if has_control else []))
            + ")",
            True,
        ),
    ]
    rows = []
    for c, case in zip(s.cases, r.cases, strict=True):
        cells = [
            Cell(c.case_id),
            Cell(c.with_skill, csv_number(c.numbers[0])),
            Cell(c.baseline, csv_number(c.numbers[2])),
        ]
        cells += [Cell(c.control or "–")] if has_control else []
        cells += [
            Cell(c.lift),
            Cell(c.verdict),
            Cell(c.checks),
            Cell(c.lost),
            Cell(
                " / ".join(
                    fmt_int(first_output_tokens(getattr(case.arms, a)))
                    for a in ("with_skill", "baseline", "control")[: 3 if has_control else 2]
                )
            ),
        ]
        rows.append(
            Row(tuple(cells), anchor=anchor(c.anchor), header=True, link=case_link(c.case_id))
        )
    cases = Table(
        f"cases-{slug}",
        f"Cases of {r.skill.name}: each band is mean ± one sample standard deviation "
        "of the per-draw scores (n = measured draws); lift is with skill minus baseline",
        tuple(cols),
        tuple(rows),
    )
    breakdown = None
    if s.breakdown.available:
        breakdown = Table(
            f"breakdown-{slug}",
            "Lift by case: each case weighted equally; measured/drawn/lost draws per arm",
            tuple(
                Column(x, n)
                for x, n in (
                    ("case", False),
                    ("with skill", True),
                    ("baseline", True),
                    ("lift", True),
                    ("draws (with · baseline)", True),
                    ("lift without it", True),
                    ("label", False),
                    ("note", False),
                )
            ),
            tuple(
                text_row(
                    b.case_id,
                    b.with_skill,
                    b.baseline,
                    b.lift,
                    b.counts,
                    b.lift_without,
                    b.label,
                    b.note,
                )
                for b in s.breakdown.rows
            ),
        )
    lost = None
    if s.lost_draws:
        lost = Table(
            f"lost-{slug}",
            "Lost draws: left out of every mean and spread, with the recorded reason",
            (Column("case"), Column("arm"), Column("draw", True), Column("reason")),
            tuple(text_row(x.case_id, x.arm, x.index, x.reason) for x in s.lost_draws),
        )
    chart, files = _band_chart(s, chart_prefix, anchor) if chart_prefix else (None, {})
    return ReceiptSheet(
        name=name,
        model=s,
        file_sha256=hashlib.sha256(raw).hexdigest() if raw else "",
        cases=cases,
        breakdown=breakdown,
        lost=lost,
        chart=chart,
        files=files,
        figures=_source_figures(r, s, slug),
        facts=band_facts(r),
        verdict=verdict_line(s.reading),
        source=_source_tables(s, slug),
    )


def _plain(
    id_: str, caption: str, head: tuple[str, ...], rows: tuple[tuple[str, ...], ...]
) -> Table:
    return Table(id_, caption, tuple(Column(h) for h in head), tuple(text_row(*r) for r in rows))


def _source_tables(s: view.Sheet, slug: str) -> tuple[Table, ...]:
    """The source report, the usage table and the fidelity tables of ``s`` as tables (their
    words and cells are :func:`driftproof.pages.sheet.sheet`'s; nothing is computed here)."""
    out: list[Table] = []
    facts = tuple((f.label, f.value) for f in s.source_decision)
    if s.source_report or facts:
        if facts:
            out.append(
                _plain(
                    f"source-decision-{slug}",
                    f"{SOURCE_TITLE}: the decision",
                    ("what", "as the source gave it"),
                    facts,
                )
            )
        if s.source_report:
            out.append(
                _plain(
                    f"source-report-{slug}",
                    f"{SOURCE_TITLE} (no band, lift or verdict is computed from them)",
                    SOURCE_HEAD,
                    s.source_report,
                )
            )
    if s.usage is not None and s.usage.rows:
        out.append(
            _plain(f"usage-{slug}", f"{USAGE_TITLE}. {s.usage.note}", s.usage.head, s.usage.rows)
        )
    if s.fidelity is not None:
        f = s.fidelity
        out.append(_plain(f"fidelity-{slug}", f.title, f.arm_head, f.arm_rows))
        if f.category_rows:
            out.append(
                _plain(
                    f"fidelity-categories-{slug}",
                    f"{f.title}: by category",
                    f.category_head,
                    f.category_rows,
                )
            )
        if f.failures:
            out.append(
                _plain(
                    f"fidelity-failures-{slug}",
                    f"{f.title}: every failed check",
                    ("failed check",),
                    tuple((x,) for x in f.failures),
                )
            )
    return tuple(out)


def verdict_line(reading: tuple[Fact, ...]) -> str:
    """One line for the reading facts of :func:`driftproof.pages.sheet.sheet` (status, sentence,
    why; D-7, D-10): ``"no verdict: why"``, or ``"regressed: hurts: c2. Why: …"`` when the
    sentence is not the status again."""
    status, sentence, why = (f.value for f in reading[:3])
    line = status
    if sentence and sentence.casefold() != status.casefold():
        line += f": {sentence}"
        return f"{line.rstrip('.')}. Why: {why}" if why else line
    return f"{line}: {why}" if why else line


def _source_figures(r: Receipt, s: view.Sheet, slug: str) -> Table | None:
    """An aggregates-only receipt's printed figures (method, "Figures a source printed give no
    verdict"): one row per dimension and agent, score and uplift exactly as printed, in the
    cells :func:`driftproof.pages.sheet.sheet` gives (``s.source_figures``)."""
    if printed_rows(r) is None:
        return None
    rows = tuple(
        text_row(x.dimension, x.agent, x.score, x.uplift, x.count, x.note) for x in s.source_figures
    )
    return Table(
        f"figures-{slug}",
        "Figures as the source printed them, per dimension and agent: the score with "
        "the skill (percent) and the uplift over the run without it, in the source's own unit. "
        "No band, lift or verdict is computed from them.",
        (
            Column("dimension"),
            Column("agent"),
            Column("score as printed", True),
            Column("uplift as printed", True),
            Column("count column (as printed)", True),
            Column("note"),
        ),
        rows,
    )


def _band_chart(
    s: view.Sheet, prefix: str, anchor: Callable[[str], str]
) -> tuple[dict[str, str] | None, dict[str, bytes]]:
    rows = [c for c in s.cases if c.numbers[0] is not None or c.numbers[2] is not None]
    if not rows:
        return None, {}

    def series(label: str, mean_i: int) -> charts.Series:
        means = tuple(c.numbers[mean_i] for c in rows)
        sds = tuple(c.numbers[mean_i + 1] for c in rows)
        return charts.Series(
            label,
            means,
            tuple(
                m - d if m is not None and d is not None else None
                for m, d in zip(means, sds, strict=True)
            ),
            tuple(
                m + d if m is not None and d is not None else None
                for m, d in zip(means, sds, strict=True)
            ),
        )

    ser = [series("with skill", 0), series("baseline", 2)]
    cats = [c.case_id for c in rows]
    return charts.figure(
        anchor(prefix),
        cats,
        ser,
        subject="Each case's mean judge score with the skill and without it",
        xlabel="mean score on the judge scale",
        fmt=view.fmt,
        whiskers="the band, mean minus to mean plus one sample standard deviation",
    )


def first_output_tokens(arm: CaseArm | None) -> int | None:
    """The output-token count of the arm's first draw that records one, as the receipt records
    it (display only, no statistic); None without such a draw or without the arm."""
    if arm is None:
        return None
    for d in arm.draws:
        if d.tokens is not None and d.tokens.output is not None:
            return int(d.tokens.output)
    return None


def printed_rows(r: Receipt) -> list[dict[str, Any]] | None:
    """The figures an aggregates-only receipt's source printed (``source_figures.rows``: one
    dict per dimension and agent, as the importer kept them), or None when the receipt is not
    aggregates-only or holds no such list (method, "Figures a source printed give no verdict")."""
    sf = r.source_figures
    if not r.is_aggregates_only or not isinstance(sf, dict) or not isinstance(sf.get("rows"), list):
        return None
    return [x for x in sf["rows"] if isinstance(x, dict)]
