"""A numbered report's model and the display values and data made from it (no HTML)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from driftproof.pages.tables import Table, json_text
from driftproof.receipt import Receipt


@dataclass(frozen=True)
class SectionSpec:
    """One section of a report: its type, its checked parameters and its JSON pointer."""

    type: str
    params: Any
    pointer: str


@dataclass(frozen=True)
class Report:
    """A parsed, checked numbered report; ``body`` is its Markdown prose (untrusted)."""

    number: int
    slug: str
    title: str
    date: dt.date
    summary: str | None
    receipts: tuple[str, ...]
    sections: tuple[SectionSpec, ...]
    body: str
    source: str

    @property
    def ident(self) -> str:
        """The zero-padded number, e.g. ``"001"`` (the permanent URL segment)."""
        return f"{self.number:03d}"


def report_key(r: Report) -> str:
    """Everything of report ``r`` its pages depend on, as text (part of its cache key)."""
    sections = [(x.type, x.params.model_dump_json(), x.pointer) for x in r.sections]
    fields = (r.number, r.slug, r.title, r.date.isoformat(), r.summary, r.receipts, r.body)
    return json.dumps([*fields, r.source, sections])


def report_json(
    r: Report, tables: Sequence[Table], receipts: Mapping[str, Receipt], digests: Mapping[str, str]
) -> bytes:
    """The report's data file: its fields, its receipts (sha256, seal) and its tables."""
    doc: dict[str, Any] = {
        "number": r.number,
        "slug": r.slug,
        "title": r.title,
        "date": r.date.isoformat(),
        "summary": r.summary,
        "receipts": [
            {
                "name": n,
                "url": f"receipts/{n}.json",
                "sha256": digests[n],
                "seal": receipts[n].seal.sha256,
            }
            for n in r.receipts
        ],
        "tables": [
            {
                "id": t.id,
                "caption": t.caption,
                "columns": [c.name for c in t.columns],
                "rows": [[c.csv for c in row.cells] for row in t.rows],
            }
            for t in tables
        ],
    }
    return json_text(doc).encode("utf-8")


def downloads(tables: Sequence[Table]) -> list[dict[str, str]]:
    """A report page's downloads: each table's CSV, the report's data and its sums."""
    return [
        *({"label": f"{t.caption.split(':')[0]} (CSV)", "url": f"{t.id}.csv"} for t in tables),
        {"label": "Report data (JSON)", "url": "report.json"},
        {"label": "SHA256SUMS (paths relative to the site root)", "url": "SHA256SUMS"},
    ]


def cited_receipts(r: Report, receipts: Mapping[str, Receipt], root: str) -> list[dict[str, str]]:
    """The receipts report ``r`` cites, with their links from a page at ``root``."""
    return [
        {
            "name": n,
            "json": f"{root}/receipts/{n}.json",
            "sheet": f"{root}/receipts/{n}/index.html",
            "skill": receipts[n].skill.name,
            "level": receipts[n].verification_level,
        }
        for n in r.receipts
    ]


def feed_entry(r: Report, site_url: str) -> dict[str, str]:
    """Report ``r``'s entry of the Atom feed, with a stable id.

    Its link is the report page's own address (``reports/NNN/index.html``), as the page's
    canonical link and the sitemap give it: the site's pages are files, not folders.
    """
    host = site_url.split("//", 1)[-1].split("/", 1)[0]
    return {
        "id": f"tag:{host},2026:report-{r.ident}",
        "title": f"Report {r.ident}: {r.title}",
        "url": f"{site_url.rstrip('/')}/reports/{r.ident}/index.html",
        "updated": r.date.isoformat() + "T00:00:00Z",
        "summary": r.summary or r.title,
    }


def report_listing(reports: Sequence[Report]) -> list[dict[str, str]]:
    """The numbered reports as the home page lists them, newest first (URLs from the root)."""
    return [
        {
            "ident": r.ident,
            "title": r.title,
            "date": r.date.isoformat(),
            "summary": r.summary or "",
            "url": f"reports/{r.ident}/index.html",
        }
        for r in sorted(reports, key=lambda r: r.number, reverse=True)
    ]
