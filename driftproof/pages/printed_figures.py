"""The figures an aggregates-only source printed, exactly as printed (D-15); nothing computed."""

from __future__ import annotations

import json
from typing import Any

from driftproof._json import member_list
from driftproof.pages.tables import Pair as Cell
from driftproof.receipt import Receipt

#: The dimension cell of a skill whose source printed no result.
NO_RESULTS = "no results printed"
#: A figure the source did not print, on the sheet and the site's figure tables alike (D-13).
NOT_PRINTED = "–"

_UNITS = {"%": "% (as printed)", "points": "points", "pp": "pp"}


def printed_rows(r: Receipt) -> list[dict[str, Any]] | None:
    """One dict per dimension and agent; ``None`` unless ``r`` is aggregates-only with rows."""
    sf = r.source_figures
    if not r.is_aggregates_only or not isinstance(sf, dict) or not isinstance(sf.get("rows"), list):
        return None
    return [x for x in sf["rows"] if isinstance(x, dict)]


def _number(v: Any) -> str:
    """A number as the JSON source wrote it (``92.0``, ``-3.0``); ``""`` for none."""
    return "" if v is None else json.dumps(v)


def printed_value(fig: Any) -> str | None:
    """A source figure's printed text, else its value as JSON; ``None`` when it has neither."""
    if not isinstance(fig, dict):
        return None
    if fig.get("printed"):
        return str(fig["printed"])
    return None if fig.get("value") is None else json.dumps(fig["value"])


def _figure(fig: dict[str, Any] | None, printed_part: str | None = None) -> Cell:
    if not fig:
        return (NOT_PRINTED, "")
    value = fig.get("value")
    return (printed_part or _number(value), _number(value))


def uplift_unit(up: dict[str, Any]) -> str | None:
    """An uplift's unit in words (a source field's is percentage points, D-15), or ``None``."""
    unit = up.get("unit")
    if unit is None:
        return None
    return "percentage points" if up.get("field") else str(unit)


def _unit(up: dict[str, Any] | None) -> str:
    if not up:
        return ""
    unit = uplift_unit(up)
    if unit is None:
        return "unstated"
    if up.get("field"):
        return f"{unit} (field {up['field']})"
    return _UNITS.get(unit, unit)


def figure_rows(skill: str, printed: list[dict[str, Any]]) -> list[tuple[Cell, ...]]:
    """One row per printed figure of ``skill``, or one :data:`NO_RESULTS` row."""
    if not printed:
        blank, none = ("", None), _figure(None)
        return [((skill, None), (NO_RESULTS, None), ("", ""), blank, none, none, blank, blank)]
    rows: list[tuple[Cell, ...]] = []
    for row in printed:
        up = row.get("uplift")
        num = row.get("num")
        score_printed = row["printed"].split("(")[0].strip() if row.get("printed") else None
        rows.append(
            (
                (skill, None),
                (str(row.get("dimension")), None),
                ("" if num is None else str(num), _number(num)),
                (str(row.get("agent")), None),
                _figure(row.get("score"), score_printed),
                _figure(up, up and up.get("printed")),
                (_unit(up), None),
                (str(row.get("note") or ""), None),
            )
        )
    return rows


def printed_text(row: dict[str, Any]) -> str:
    """One figure in one cell: the score and, in brackets, the uplift, as printed."""
    if row.get("printed"):
        return str(row["printed"])
    score = _number((row.get("score") or {}).get("value"))
    uplift = printed_value(row.get("uplift"))
    return f"{score} ({uplift})" if uplift else score


def files_read(r: Receipt) -> list[tuple[str, str, str, str]]:
    """The files the printed figures were read from: repository, commit, path, git blob sha1."""
    sf = r.source_figures or {}
    return [
        (
            str(sf.get("repository") or "not recorded"),
            str(sf.get("commit") or "not recorded"),
            str(f.get("path")),
            str(f.get("git_blob_sha1")),
        )
        for f in member_list(sf, "files")
        if isinstance(f, dict)
    ]
