"""The single-receipt badge: shields.io endpoint JSON, SVG, details file, workflow outputs.

Pure functions of a receipt's reading (D-5, D-7, D-8, D-17). The endpoint JSON carries exactly
``schemaVersion``, ``label``, ``message`` and ``color`` (older Shields instances reject others).
"""

from __future__ import annotations

import hashlib
import html
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import anybadge

from driftproof import wording
from driftproof.pages.tables import json_text
from driftproof.pages.words import count_of, format_lift, format_per_1k, lift_coverage
from driftproof.receipt import Receipt
from driftproof.stats import Refusal, Status, no_verdict, receipt_reading, suite_lift, value_per_1k

#: The left-hand text of every badge.
BADGE_LABEL = "driftproof"

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
    """What the badge says about one receipt (D-7).

    Attributes:
        sentence: the reading's sentence, then the cases left out of the lift by id, as the
            sheet's lift says them ("case c1 has no measured draw in an arm"); ``None`` for no
            verdict.
        refusal: which test of the no-verdict rule refused the receipt, by its short name
            ("aggregates only", "below TESTED", ...), or ``None`` when it gets a verdict.
        reason: why the receipt reads as it does, in plain words (for no verdict, the refusal's
            own sentence).
        smoke: the receipt names a preset, whatever level it carries.
        draws_needed: draws per arm needed with the spreads held (UNDERPOWERED), else ``None``.
        no_draw_count: UNDERPOWERED and the spreads alone reach the floor (D-5).
        lift: suite lift in score units, signed; ``None`` without one. value_per_1k: per 1,000
            skill tokens (D-14).
    """

    status: Status
    message: str
    color: str
    sentence: str | None
    refusal: Refusal | None
    reason: str
    smoke: bool
    draws_needed: int | None
    no_draw_count: bool
    lift: float | None
    value_per_1k: float | None


def badge_reading(receipt: Receipt) -> BadgeReading:
    """Read one receipt for the badge (D-7; a smoke run gets no verdict); never raises."""
    # an A/A calibration's arms both carry the skill: their difference is no lift
    lift = None if receipt.is_aggregates_only or receipt.run.aa else suite_lift(receipt)
    smoke = receipt.is_smoke
    reading = receipt_reading(receipt)  # asks the one no-verdict rule first
    refused = no_verdict(receipt)
    status, message = reading.status, str(reading.status)
    sentence: str | None = reading.sentence
    refusal = refused.refusal if refused is not None else None
    # the reading's own count (D-5), so badge, sheet, diff and the Action state one number
    under = status == Status.UNDERPOWERED
    needed = reading.draws_needed if under else None
    no_count = under and any(c.no_draw_count for c in reading.cases if c.underpowered)
    if status == Status.NO_VERDICT:
        message = wording.SMOKE_RUN if smoke else str(reading.sentence)  # or "not measured", D-17
        sentence = None
    elif no_count:
        message = f"{status}: {wording.NO_DRAW_COUNT_REACHES}"
    elif needed is not None:
        message = f"{status}: {count_of(needed, 'draw')} per arm needed"
    cover = lift_coverage(receipt)  # a lift over some cases only, in the sheet's words
    if sentence is not None and lift is not None and cover:
        sentence = f"{sentence} (lift {cover.removeprefix(' (')}"
    return BadgeReading(
        status,
        message,
        _STATUS_COLOR[status],
        sentence,
        refusal,
        reading.reason,
        smoke,
        needed,
        no_count,
        lift,
        value_per_1k(lift, receipt.skill.tokens),
    )


def endpoint_json(receipt: Receipt, *, reading: BadgeReading | None = None) -> dict[str, Any]:
    """The shields.io endpoint document; ``reading``, when given, is ``receipt``'s."""
    b = reading if reading is not None else badge_reading(receipt)
    return {"schemaVersion": 1, "label": BADGE_LABEL, "message": b.message, "color": b.color}


def badge_svg(receipt: Receipt, *, reading: BadgeReading | None = None) -> str:
    """The endpoint's text as an ``anybadge`` SVG with a title, byte-stable (mask id from text)."""
    b = reading if reading is not None else badge_reading(receipt)
    label = BADGE_LABEL
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
    """The badge's details file: the reading with its context, the lift kept with its sign.

    No planned draw count: it would disagree with the message's, taken at the spreads (D-5).
    """
    b = reading if reading is not None else badge_reading(receipt)
    return {
        "receipt": name,
        "skill": receipt.skill.name,
        "model": receipt.run.model,
        "verification_level": receipt.verification_level,
        "smoke_run": b.smoke,
        "band_source": receipt.band_source,
        **{
            k: getattr(b, k) for k in ("status", "message", "sentence", "refusal", "reason", "lift")
        },
        "lift_text": format_lift(b.lift, minus="-"),
        "value_per_1k_tokens": b.value_per_1k,
        "skill_tokens": receipt.skill.tokens,
    }


def workflow_outputs(receipt: Receipt) -> dict[str, str]:
    """Outputs for ``$GITHUB_OUTPUT``; ``lift`` and ``value-per-1k`` are ``n/a`` for a smoke run.

    A program reads them: a negative lift is written with ``-``, not the U+2212 pages show.
    """
    b = badge_reading(receipt)
    return {
        "reading": b.status,
        "message": b.message,
        "color": b.color,
        "lift": format_lift(None if b.smoke else b.lift, minus="-"),
        "value-per-1k": format_per_1k(None if b.smoke else b.value_per_1k, b.lift, minus="-"),
        "draws-needed": str(b.draws_needed) if b.draws_needed is not None else "",
    }


def json_bytes(doc: Mapping[str, Any]) -> bytes:
    """``doc`` as UTF-8 :func:`~driftproof.pages.tables.json_text`, keys in their order."""
    return json_text(doc, sort_keys=False).encode("utf-8")


def site_badge_files(
    receipts: Mapping[str, Receipt], readings: Mapping[str, BadgeReading] | None = None
) -> dict[str, bytes]:
    """``badge/<name>.json``, ``.details.json`` and ``.svg`` per receipt (``readings`` by name)."""
    out: dict[str, bytes] = {}
    for name in sorted(receipts):
        r = receipts[name]
        b = (readings or {}).get(name) or badge_reading(r)
        out[f"badge/{name}.json"] = json_bytes(endpoint_json(r, reading=b))
        out[f"badge/{name}.details.json"] = json_bytes(details_json(r, name, reading=b))
        out[f"badge/{name}.svg"] = badge_svg(r, reading=b).encode("utf-8")
    return out


#: Said after a no-verdict reading because a receipt is below TESTED: how to get one that is not.
TESTED_HOW = (
    "A driftproof run that finishes, without --quick, answered and judged by real models (not the "
    "simulated provider or the stub), gives a TESTED receipt."
)


def tested_how(*receipts: Receipt) -> str | None:
    """:data:`TESTED_HOW` when any of ``receipts`` gets no verdict for being below TESTED."""
    from driftproof.stats import Refusal, no_verdict

    below = any((n := no_verdict(r)) and n.refusal is Refusal.BELOW_TESTED for r in receipts)
    return TESTED_HOW if below else None
