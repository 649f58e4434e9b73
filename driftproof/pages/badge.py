"""The single-receipt badge: a shields.io endpoint JSON, an SVG, a details file, workflow outputs.

Pure functions of a :class:`~driftproof.receipt.Receipt`; nothing here reads or writes files.

The reading follows D-7 through :func:`driftproof.stats.receipt_reading`:

=======================  ==========================================================  ===========
status (details/outputs)  badge message                                               colour
=======================  ==========================================================  ===========
passing                   ``passing`` (a case helps, none hurts)                     brightgreen
regressed                 ``regressed`` (a case hurts)                               red
UNDERPOWERED              ``UNDERPOWERED: N draws per arm needed`` /                 yellow
                          ``UNDERPOWERED: no draw count reaches the floor`` /
                          ``UNDERPOWERED`` (receipt-wide band, D-8, or an arm with
                          one draw: no draw count)
no separation detected    ``no separation detected``                                 lightgrey
no verdict                ``Smoke run, no verdict`` for a receipt naming a preset,   lightgrey
                          ``not measured`` for a run that measured nothing (no case
                          with a measured score in both arms), else ``no verdict``
                          (below TESTED, aggregates only, ...)
=======================  ==========================================================  ===========

The method ("Not enough draws"): the badge prints the draws per arm that would have been needed
with the spreads held, or says that no draw count reaches the floor. ("A smoke run gives no
verdict"): the badge writes the lift as ``n/a`` in its workflow output; the badge's JSON details
keep the lift with its sign as context, as for every receipt below TESTED. ("Figures a source
printed give no verdict"): an aggregates-only receipt has no verdict, no band and no lift.

The endpoint JSON carries exactly ``schemaVersion``, ``label``, ``message`` and ``color``
(SITE-NOTES 4.1: older Shields instances reject unknown keys); everything else goes in the
details file.
"""

from __future__ import annotations

import hashlib
import html
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import anybadge

from driftproof import wording
from driftproof.receipt import Receipt
from driftproof.stats import Reading, Status, receipt_reading, suite_lift, value_per_1k

__all__ = [
    "BADGE_LABEL",
    "BadgeReading",
    "NO_VERDICT",
    "badge_reading",
    "badge_svg",
    "details_json",
    "endpoint_json",
    "format_lift",
    "json_bytes",
    "site_badge_files",
    "workflow_outputs",
]

#: The left-hand text of every badge.
BADGE_LABEL = "driftproof"
#: Message of a receipt that gets no verdict and is not a smoke run (method: "no verdict").
NO_VERDICT = str(Status.NO_VERDICT)
#: Written in a workflow output where a lift is not given (method: "writes it as n/a").
NOT_APPLICABLE = "n/a"

#: Shields' named colours, and the hex values its renderer uses (for the local SVG).
_COLOR_HEX = {"brightgreen": "#4c1", "red": "#e05d44", "yellow": "#dfb317", "lightgrey": "#9f9f9f"}
_STATUS_COLOR: dict[Status, str] = {
    Status.PASSING: "brightgreen",
    Status.REGRESSED: "red",
    Status.UNDERPOWERED: "yellow",
    Status.NO_SEPARATION: "lightgrey",
    Status.NO_VERDICT: "lightgrey",
}


@dataclass(frozen=True)
class BadgeReading:
    """What the badge says about one receipt.

    Attributes:
        status: ``passing``, ``regressed``, ``UNDERPOWERED``, ``no separation detected`` or
            ``no verdict`` (D-7).
        message: the badge's right-hand text (see the module table).
        color: a shields named colour.
        sentence: the reading's sentence (e.g. ``Not enough draws to conclude at this effect
            floor.``), or ``None``.
        refusal: why the receipt gets no verdict, or ``None`` when it gets one.
        reason: why it reads as it does, in plain words (the refusal, the draw count, what
            makes a band wide), from :func:`~driftproof.stats.receipt_reading`.
        smoke: the receipt names a preset (a smoke run), whatever level it carries.
        draws_needed: draws per arm that would have been needed with the spreads held, when the
            receipt reads UNDERPOWERED and a count exists; else ``None``.
        no_draw_count: UNDERPOWERED and the spreads alone reach the floor (D-5).
        lift: suite lift, with-skill minus baseline, score units, signed; ``None`` when the receipt
            has no lift (aggregates only, no scores).
        value_per_1k: lift per 1,000 skill tokens (D-14), or ``None``.
    """

    status: Status
    message: str
    color: str
    sentence: str | None
    refusal: str | None
    reason: str
    smoke: bool
    draws_needed: int | None
    no_draw_count: bool
    lift: float | None
    value_per_1k: float | None


def _underpowered_counts(reading: Reading) -> tuple[int | None, bool]:
    """(draws needed, no draw count reaches) of an UNDERPOWERED reading, from its cases (D-5)."""
    cases = [c for c in reading.cases if c.underpowered]
    if any(c.no_draw_count for c in cases):
        return None, True
    needed = reading.draws_needed
    if needed is None:
        counts = [c.draws_needed for c in cases if c.draws_needed is not None]
        needed = max(counts) if counts else None
    return needed, False


def badge_reading(receipt: Receipt) -> BadgeReading:
    """Read one receipt for the badge (D-7; method "A smoke run gives no verdict").

    Args:
        receipt: a parsed receipt.

    Returns:
        The :class:`BadgeReading`. Never raises for a valid receipt.
    """
    lift = None if receipt.is_aggregates_only else suite_lift(receipt)
    per_1k = value_per_1k(lift, receipt.skill.tokens) if lift is not None else None
    smoke = receipt.is_smoke
    reading = receipt_reading(receipt)  # asks the one no-verdict rule first
    status = reading.status
    message = str(status)
    sentence: str | None = reading.sentence
    refusal: str | None = None
    needed: int | None = None
    no_count = False
    if status == Status.NO_VERDICT:
        # Every reader of a verdict refuses a smoke receipt whatever level it carries.
        message = wording.SMOKE_RUN if smoke else str(reading.sentence)  # or "not measured", D-17
        sentence, refusal = None, reading.reason
    elif status == Status.UNDERPOWERED:
        needed, no_count = _underpowered_counts(reading)
        if no_count:
            message = f"{status}: {wording.NO_DRAW_COUNT_REACHES}"
        elif needed is not None:
            message = f"{status}: {needed} draws per arm needed"
    color = _STATUS_COLOR[status]
    return BadgeReading(
        status,
        message,
        color,
        sentence,
        refusal,
        reading.reason,
        smoke,
        needed,
        no_count,
        lift,
        per_1k,
    )


def format_lift(lift: float | None) -> str:
    """A lift with its sign and three decimals (``+0.120``), or ``n/a`` for ``None``.

    A value that rounds to zero is written ``+0.000``, never ``-0.000``.
    """
    if lift is None or not math.isfinite(lift):
        return NOT_APPLICABLE
    if round(lift, 3) == 0:
        lift = 0.0
    return f"{lift:+.3f}"


def endpoint_json(
    receipt: Receipt, *, label: str = BADGE_LABEL, reading: BadgeReading | None = None
) -> dict[str, Any]:
    """The shields.io endpoint document (D-7).

    Exactly ``schemaVersion`` (1), ``label``, ``message`` and ``color`` (SITE-NOTES 4.1).
    ``reading``: :func:`badge_reading` of ``receipt`` when the caller has it (read otherwise).
    """
    b = reading if reading is not None else badge_reading(receipt)
    return {"schemaVersion": 1, "label": label, "message": b.message, "color": b.color}


def badge_svg(
    receipt: Receipt, *, label: str = BADGE_LABEL, reading: BadgeReading | None = None
) -> str:
    """A self-contained SVG badge (rendered by ``anybadge``) with the same text as the endpoint.

    Deterministic: the mask id is derived from the text, not from a process-wide counter, and
    the image carries ``role="img"``, an ``aria-label`` and a ``<title>``. Label and message are
    XML-escaped. ``reading``: as :func:`endpoint_json`.
    """
    b = reading if reading is not None else badge_reading(receipt)
    badge = anybadge.Badge(label=label, value=b.message, default_color=_COLOR_HEX[b.color])
    digest = hashlib.sha256(f"{label}\0{b.message}".encode()).hexdigest()[:12]
    badge.mask_str = f"driftproof_{digest}"
    svg: str = badge.badge_svg_text
    text = html.escape(f"{label}: {b.message}", quote=True)
    head, sep, rest = svg.partition("<svg ")
    if not sep:  # pragma: no cover - anybadge always writes an <svg> element
        raise ValueError("anybadge returned no <svg> element")
    open_tag, _, body = rest.partition(">")
    return f'{head}<svg role="img" aria-label="{text}" {open_tag}>\n    <title>{text}</title>{body}'


def details_json(
    receipt: Receipt, name: str, *, reading: BadgeReading | None = None
) -> dict[str, Any]:
    """The badge's details file: the reading with its context, lift kept with its sign.

    Keys: ``receipt``, ``skill``, ``model``, ``verification_level``, ``smoke_run``,
    ``band_source``, ``status``, ``message``, ``sentence``, ``refusal``, ``reason``, ``lift``
    (float or null: null only when the receipt has no lift), ``lift_text`` (signed, e.g.
    ``+0.120``), ``value_per_1k_tokens``, ``skill_tokens``.
    Below TESTED and for a smoke run the lift is context only (method, "A smoke run gives no
    verdict"). ``reading``: as :func:`endpoint_json`.

    No planned draw count: the count the message states (UNDERPOWERED) is the rule's, with the
    spreads held (D-5), and ``driftproof plan`` plans from their upper bounds, so a second count
    here would disagree with one of them; ``driftproof plan`` gives the count to run.
    """
    b = reading if reading is not None else badge_reading(receipt)
    return {
        "receipt": name,
        "skill": receipt.skill.name,
        "model": receipt.run.model,
        "verification_level": receipt.verification_level,
        "smoke_run": b.smoke,
        "band_source": receipt.band_source,
        "status": b.status,
        "message": b.message,
        "sentence": b.sentence,
        "refusal": b.refusal,
        "reason": b.reason,
        "lift": b.lift,
        "lift_text": format_lift(b.lift),
        "value_per_1k_tokens": b.value_per_1k,
        "skill_tokens": receipt.skill.tokens,
    }


def workflow_outputs(receipt: Receipt) -> dict[str, str]:
    """Outputs for ``$GITHUB_OUTPUT``.

    Keys: ``reading``, ``message``, ``color``, ``lift``, ``value-per-1k``, ``draws-needed``.

    ``lift`` and ``value-per-1k`` are ``n/a`` for a smoke run (method, "the badge writes it as
    n/a in its workflow output") and wherever the receipt has no lift.
    """
    b = badge_reading(receipt)
    lift = None if b.smoke else b.lift
    per_1k = None if b.smoke else b.value_per_1k
    return {
        "reading": b.status,
        "message": b.message,
        "color": b.color,
        "lift": format_lift(lift),
        "value-per-1k": format_lift(per_1k),
        "draws-needed": str(b.draws_needed) if b.draws_needed is not None else "",
    }


def json_bytes(doc: Mapping[str, Any]) -> bytes:
    """``doc`` as UTF-8 JSON, two-space indent, a final newline; NaN refused."""
    return (json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


def site_badge_files(
    receipts: Mapping[str, Receipt], readings: Mapping[str, BadgeReading] | None = None
) -> dict[str, bytes]:
    """The site's badge files for each receipt name, by path relative to the site root.

    ``badge/<name>.json`` (endpoint), ``badge/<name>.details.json`` and ``badge/<name>.svg``.

    Each receipt is read once (:func:`badge_reading`) for its three files, or not at all when
    ``readings`` (by name) holds its reading already (the site build reads each
    receipt once for its badge files and its results row).
    """
    out: dict[str, bytes] = {}
    for name in sorted(receipts):
        r = receipts[name]
        b = (readings or {}).get(name)
        if b is None:
            b = badge_reading(r)
        out[f"badge/{name}.json"] = json_bytes(endpoint_json(r, reading=b))
        out[f"badge/{name}.details.json"] = json_bytes(details_json(r, name, reading=b))
        out[f"badge/{name}.svg"] = badge_svg(r, reading=b).encode("utf-8")
    return out
