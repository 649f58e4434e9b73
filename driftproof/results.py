"""The results page: every committed receipt in one sortable table (issue 9; method, "A smoke run
gives no verdict": the results page labels a smoke run "Smoke run, no verdict").

:func:`results_rows` is the pure page model: one :class:`ResultRow` per receipt with skill,
model, surface, level, band source, reading, lift and value per 1,000 skill tokens (D-14), and
the link to its sheet. The reading is the badge's (D-7, :func:`driftproof.badge.badge_reading`),
so the page, the badge and the badge JSON never disagree. Rows come in a fixed server-side order
(skill, then model, then receipt name), so the table reads without JavaScript; the site's
``sort.js`` sorts it on click, using each numeric cell's ``data-sort``.

:func:`results_site_files` renders ``results/index.html`` with the site's Jinja2 environment and
adds the per-receipt badge files (``badge/<name>.json``, ``.details.json``, ``.svg``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import quote

from driftproof.badge import badge_reading, format_lift, site_badge_files

if TYPE_CHECKING:
    import jinja2

    from driftproof.receipt import Receipt

__all__ = ["RESULTS_PAGE", "ResultRow", "order_rows", "results_page", "results_page_from_rows", "results_rows",
           "results_site_files"]

#: Where the page is written, relative to the site root.
RESULTS_PAGE = "results/index.html"
#: Shown for a value the receipt does not record or cannot give (D-13: unknown stays unknown).
UNKNOWN = "–"


@dataclass(frozen=True)
class ResultRow:
    """One receipt on the results page. URLs are relative to the site root.

    Attributes:
        receipt: the receipt's name (its path under ``receipts/`` without ``.json``).
        sheet_url, json_url, badge_url: the receipt's sheet, raw file and endpoint badge JSON.
        skill, model, surface, level: as recorded; ``–`` where the receipt records none.
        band_source: ``legacy``, ``generation``, ``none`` for aggregates only, or ``–`` when
            not recorded.
        smoke: the receipt names a preset (a smoke run), whatever level it carries.
        reading: the badge message: ``passing``, ``regressed``, ``UNDERPOWERED…``,
            ``no separation detected``, ``Smoke run, no verdict`` or ``no verdict``.
        status: the reading's status (``no verdict`` for every receipt without one).
        reason: why it reads so, in plain words.
        lift, value_per_1k: signed score units and per 1,000 skill tokens, or ``None``.
        lift_text, value_text: the same with sign and three decimals, or ``–``.
        context_only: the receipt gets no verdict, so its lift is context only.
    """

    receipt: str
    sheet_url: str
    json_url: str
    badge_url: str
    skill: str
    model: str
    surface: str
    level: str
    band_source: str
    smoke: bool
    reading: str
    status: str
    reason: str
    lift: float | None
    lift_text: str
    value_per_1k: float | None
    value_text: str
    context_only: bool


def _text(value: float | None) -> str:
    return UNKNOWN if value is None else format_lift(value)


def _row(name: str, r: Receipt) -> ResultRow:
    b = badge_reading(r)
    url = quote(name, safe="/")
    band = "none" if r.is_aggregates_only else (r.band_source or UNKNOWN)
    return ResultRow(
        receipt=name, sheet_url=f"receipts/{url}/", json_url=f"receipts/{url}.json", badge_url=f"badge/{url}.json",
        skill=r.skill.name, model=r.run.model or UNKNOWN, surface=r.run.surface or UNKNOWN,
        level=r.verification_level, band_source=band, smoke=b.smoke, reading=b.message, status=b.status,
        reason=b.reason, lift=b.lift, lift_text=_text(b.lift), value_per_1k=b.value_per_1k,
        value_text=_text(b.value_per_1k), context_only=b.status == "no verdict",
    )


def results_rows(receipts: Mapping[str, Receipt]) -> list[ResultRow]:
    """One row per receipt, ordered by skill, model, then receipt name (case-insensitive).

    Args:
        receipts: every committed receipt by name.

    Returns:
        The rows in the page's default (server-side) order. Never raises for valid receipts.
    """
    return order_rows(_row(name, r) for name, r in receipts.items())


def order_rows(rows: Iterable[ResultRow]) -> list[ResultRow]:
    """Rows in the page's default order: skill, model, then receipt name (case-insensitive)."""
    return sorted(rows, key=lambda x: (x.skill.casefold(), x.model.casefold(), x.receipt))


def results_page(receipts: Mapping[str, Receipt], env: jinja2.Environment) -> bytes:
    """``results/index.html`` rendered with ``templates/pages/results.html`` in ``env`` (the site's
    page environment, autoescape on); the page sits one folder below the root."""
    return results_page_from_rows(results_rows(receipts), env)


def results_page_from_rows(rows: Sequence[ResultRow], env: jinja2.Environment) -> bytes:
    """:func:`results_page` from rows already made (in :func:`order_rows` order); the site build
    keeps each receipt's row in its build cache (issue 19)."""
    html = env.get_template("results.html").render(base_url="..", root="..", nav_current="results/", rows=list(rows))
    return html.encode("utf-8")


def results_site_files(receipts: Mapping[str, Receipt], env: jinja2.Environment) -> dict[str, bytes]:
    """The results page and every receipt's badge files, ``{site path: bytes}``."""
    files = {RESULTS_PAGE: results_page(receipts, env)}
    files.update(site_badge_files(receipts))
    return files
