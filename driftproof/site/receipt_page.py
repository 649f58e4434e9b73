"""A receipt's pages on the site: its sheet and one evidence page per case.

Every figure and word comes from :func:`driftproof.pages.sheet.sheet` (shared with
``driftproof view``) and :mod:`driftproof.pages.case`; this module arranges them as tables,
an optional band chart (mean ± one sample sd, D-2, with the same numbers in the table) and
pages.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import jinja2

from driftproof._anchor import slug, unique
from driftproof.pages import sheet as view
from driftproof.pages.band_sources import BandFacts, band_facts
from driftproof.pages.case import case_page, case_slugs, first_output_tokens, fmt_int
from driftproof.pages.printed_figures import printed_rows
from driftproof.pages.source import SOURCE_HEAD, SOURCE_TITLE, USAGE_TITLE
from driftproof.pages.words import Fact
from driftproof.receipt import Receipt
from driftproof.site import charts
from driftproof.site.html import page
from driftproof.site.tables import Cell, Column, Row, Table, csv_number, plain_table, text_row

__all__ = ["ReceiptTables", "receipt_files", "receipt_tables", "verdict_line"]


@dataclass(frozen=True)
class ReceiptTables:
    """A receipt's sheet as tables for the templates: every value a printable string.

    Attributes:
        name: the receipt's name (path under ``receipts/`` without ``.json``).
        model: the sheet (provenance, reading, lift, cost, context).
        file_sha256: sha256 of the file's bytes as published (``""`` when not given).
        cases: the per-case table.
        breakdown: the lift breakdown, None when unavailable.
        lost: the lost draws, None when there are none.
        chart: ``{"id", "src", "dark", "alt", …}`` of the band chart, or None.
        files: the chart's SVG bytes by file name.
        figures: an aggregates-only receipt's printed figures, as printed.
        facts: band source, draws per arm and judge samples per draw.
        verdict: the reading in one line (:func:`verdict_line`).
        source: an imported receipt's own figures and decision, caveman's usage and fidelity.
        draws: always empty: every draw is on its case's page.
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
    facts: BandFacts | None = None
    verdict: str = ""
    source: tuple[Table, ...] = ()
    draws: tuple[dict[str, Any], ...] = field(default=())


def receipt_tables(
    name: str,
    r: Receipt,
    raw: bytes = b"",
    *,
    anchor: Callable[[str], str] | None = None,
    chart_prefix: str | None = None,
    case_link: Callable[[str], str] | None = None,
) -> ReceiptTables:
    """The sheet of receipt ``r`` published as ``receipts/<name>.json``, as tables.

    Args:
        name: the receipt's name.
        r: the receipt.
        raw: the file's bytes (its sha256 and size, which decides whether the lift breakdown
            is computed), or empty (then the canonical JSON's size).
        anchor: ``anchor(base) -> id`` making page-unique element ids; default ``base``.
        chart_prefix: file-name prefix of the band chart; None: no chart.
        case_link: ``case_link(case_id) -> URL`` of the case's page from the page shown on;
            default ``cases/<slug>/index.html``, as on the receipt's own sheet.
    """
    anchor = anchor or (lambda base: base)
    if case_link is None:
        slugs = case_slugs(r)
        case_link = lambda case_id: f"cases/{slugs[case_id]}/index.html"  # noqa: E731
    s = view.sheet(r, size_bytes=len(raw) if raw else None)
    key = name.replace("/", "-")
    chart, files = _band_chart(s, chart_prefix, anchor) if chart_prefix else (None, {})
    return ReceiptTables(
        name=name,
        model=s,
        file_sha256=hashlib.sha256(raw).hexdigest() if raw else "",
        cases=_case_table(r, s, key, anchor, case_link),
        breakdown=_breakdown(s, key),
        lost=plain_table(
            f"lost-{key}",
            "Lost draws: left out of every mean and spread, with the recorded reason",
            ("case", "arm", "draw", "reason"),
            ((x.case_id, x.arm, x.index, x.reason) for x in s.lost_draws),
        )
        if s.lost_draws
        else None,
        chart=chart,
        files=files,
        figures=_source_figures(r, s, key),
        facts=band_facts(r),
        verdict=verdict_line(s.reading),
        source=_source_tables(s, key),
    )


def _case_table(
    r: Receipt,
    s: view.Sheet,
    key: str,
    anchor: Callable[[str], str],
    case_link: Callable[[str], str],
) -> Table:
    control = any(c.control is not None for c in s.cases)
    arms = ("with_skill", "baseline", "control")[: 3 if control else 2]
    words = ["with skill", "baseline"] + (["control"] if control else [])
    cols = [Column("case"), Column("with skill", True), Column("baseline", True)]
    cols += [Column("control", True)] if control else []
    cols += [Column("lift", True), Column("verdict"), Column("checks"), Column("lost draws")]
    cols.append(Column(f"output tokens ({' / '.join(words)})", True))
    rows = []
    for c, case in zip(s.cases, r.cases, strict=True):
        tokens = " / ".join(fmt_int(first_output_tokens(getattr(case.arms, a))) for a in arms)
        cells = [
            Cell(c.case_id),
            Cell(c.with_skill, csv_number(c.numbers[0])),
            Cell(c.baseline, csv_number(c.numbers[2])),
            *([Cell(c.control or "–")] if control else []),
            *(Cell(x) for x in (c.lift, c.verdict, c.checks, c.lost, tokens)),
        ]
        rows.append(
            Row(tuple(cells), anchor=anchor(c.anchor), header=True, link=case_link(c.case_id))
        )
    return Table(
        f"cases-{key}",
        f"Cases of {r.skill.name}: each band is mean ± one sample standard deviation "
        "of the per-draw scores (n = measured draws); lift is with skill minus baseline",
        tuple(cols),
        tuple(rows),
    )


_BREAKDOWN_HEAD = (
    ("case", False),
    ("with skill", True),
    ("baseline", True),
    ("lift", True),
    ("draws (with · baseline)", True),
    ("lift without it", True),
    ("label", False),
    ("note", False),
)


_BREAKDOWN_FIELDS: tuple[str, ...] = ("case_id", "with_skill", "baseline", "lift", "counts")
_BREAKDOWN_FIELDS += ("lift_without", "label", "note")


def _breakdown(s: view.Sheet, key: str) -> Table | None:
    if not s.breakdown.available:
        return None
    return Table(
        f"breakdown-{key}",
        "Lift by case: each case weighted equally; measured/drawn/lost draws per arm",
        tuple(Column(x, n) for x, n in _BREAKDOWN_HEAD),
        tuple(text_row(*(getattr(b, f) for f in _BREAKDOWN_FIELDS)) for b in s.breakdown.rows),
    )


def _source_tables(s: view.Sheet, key: str) -> tuple[Table, ...]:
    """The source's report, the usage table and the fidelity tables of ``s``.

    The sheet's own words and cells; nothing is computed here.
    """
    out: list[Table] = []
    facts = tuple((f.label, f.value) for f in s.source_decision)
    if facts:
        head = ("what", "as the source gave it")
        out.append(
            plain_table(f"source-decision-{key}", f"{SOURCE_TITLE}: the decision", head, facts)
        )
    if s.source_report:
        caption = f"{SOURCE_TITLE} (no band, lift or verdict is computed from them)"
        out.append(plain_table(f"source-report-{key}", caption, SOURCE_HEAD, s.source_report))
    if s.usage is not None and s.usage.rows:
        caption = f"{USAGE_TITLE}. {s.usage.note}"
        out.append(plain_table(f"usage-{key}", caption, s.usage.head, s.usage.rows))
    f = s.fidelity
    if f is not None:
        out.append(plain_table(f"fidelity-{key}", f.title, f.arm_head, f.arm_rows))
        if f.category_rows:
            caption = f"{f.title}: by category"
            out.append(
                plain_table(f"fidelity-categories-{key}", caption, f.category_head, f.category_rows)
            )
        if f.failures:
            caption = f"{f.title}: every failed check"
            rows = ((x,) for x in f.failures)
            out.append(plain_table(f"fidelity-failures-{key}", caption, ("failed check",), rows))
    return tuple(out)


def verdict_line(reading: tuple[Fact, ...]) -> str:
    """The sheet's reading facts (status, sentence, why; D-7, D-10) in one line.

    ``"no verdict: why"``, or ``"regressed: hurts: c2. Why: …"`` when the sentence is not the
    status again.
    """
    status, sentence, why = (f.value for f in reading[:3])
    if sentence and sentence.casefold() != status.casefold():
        line = f"{status}: {sentence}"
        return f"{line.rstrip('.')}. Why: {why}" if why else line
    return f"{status}: {why}" if why else status


_FIGURES_HEAD = (
    Column("dimension"),
    Column("agent"),
    Column("score as printed", True),
    Column("uplift as printed", True),
    Column("count column (as printed)", True),
    Column("note"),
)


def _source_figures(r: Receipt, s: view.Sheet, key: str) -> Table | None:
    """An aggregates-only receipt's printed figures, in the sheet's cells (D-15).

    One row per dimension and agent.
    """
    if printed_rows(r) is None:
        return None
    return Table(
        f"figures-{key}",
        "Figures as the source printed them, per dimension and agent: the score with "
        "the skill (percent) and the uplift over the run without it, in the source's own unit. "
        "No band, lift or verdict is computed from them.",
        _FIGURES_HEAD,
        tuple(
            text_row(x.dimension, x.agent, x.score, x.uplift, x.count, x.note)
            for x in s.source_figures
        ),
    )


def _band_chart(
    s: view.Sheet, prefix: str, anchor: Callable[[str], str]
) -> tuple[dict[str, str] | None, dict[str, bytes]]:
    """Each case's band per arm as an error bar (the cases where an arm has a mean)."""
    rows = [c for c in s.cases if c.numbers[0] is not None or c.numbers[2] is not None]
    if not rows:
        return None, {}
    ser = [
        charts.band_series(label, [(c.numbers[i], c.numbers[i + 1]) for c in rows])
        for label, i in (("with skill", 0), ("baseline", 2))
    ]
    return charts.figure(
        anchor(prefix),
        [c.case_id for c in rows],
        ser,
        subject="Each case's mean judge score with the skill and without it",
        xlabel="mean score on the judge scale",
        fmt=view.fmt,
        whiskers="the band, mean minus to mean plus one sample standard deviation",
    )


def receipt_files(
    name: str,
    r: Receipt,
    raw: bytes,
    cited: Sequence[dict[str, str]],
    env: jinja2.Environment,
) -> dict[str, bytes]:
    """The receipt's sheet page, its case pages and their files, by site path.

    Args:
        name: the receipt's name.
        r: the receipt.
        raw: the file's bytes as published.
        cited: the reports citing it, ``{"ident", "title"}`` each.
        env: the site's page environment.
    """
    base = f"receipts/{name}/"
    used: set[str] = {"main", "answers"}
    # No chart on the standalone sheet: its table holds every band (reports draw charts).
    t = receipt_tables(name, r, raw, anchor=lambda b: unique(slug(b), used))
    slugs = case_slugs(r)
    nav = {"nav_current": "receipts/index.html", "cited": list(cited)}
    files = {
        base + "index.html": page(
            env,
            "receipt.html",
            base + "index.html",
            sheet=t,
            cases=[
                {
                    "id": c.case_id,
                    "url": f"cases/{slugs[c.case_id]}/index.html",
                    "verdict": c.verdict,
                    "with_skill": c.with_skill,
                    "baseline": c.baseline,
                }
                for c in t.model.cases
            ],
            json_url=f"../{name.rsplit('/', 1)[-1]}.json",
            **nav,
        )
    }
    files.update({base + k: v for k, v in t.files.items()})
    anchors = {case.id: row.anchor or "" for case, row in zip(r.cases, t.cases.rows, strict=True)}
    for i, case in enumerate(r.cases):
        path = f"{base}cases/{slugs[case.id]}/index.html"
        model = case_page(r, t.model, i, slugs)
        files[path] = page(
            env, "case.html", path, name=name, sheet_anchor=anchors[case.id], **model, **nav
        )
    return files
