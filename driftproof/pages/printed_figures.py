"""The figures an aggregates-only source printed, exactly as printed (D-15); nothing computed."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from driftproof.pages.tables import Pair as Cell
from driftproof.pages.words import count_of
from driftproof.receipt import PrintedFigure, PrintedRow, Receipt

#: The dimension cell of a skill whose source printed no result.
NO_RESULTS = "no results printed"
#: A figure the source did not print, on the sheet and the site's figure tables alike (D-13).
NOT_PRINTED = "–"

#: A number as the JSON source wrote it (``-0.0``, ``92.0``).
_PLAIN = re.compile(r"-?\d+(?:\.\d+)?")

_UNITS = {"%": "% (as printed)", "points": "points", "pp": "pp"}


def printed_rows(r: Receipt) -> list[PrintedRow] | None:
    """One row per dimension and agent; ``None`` unless ``r`` is aggregates-only with rows."""
    sf = r.source_figures
    if not r.is_aggregates_only or sf is None or sf.rows is None:
        return None
    return sf.rows


def _number(v: float | None) -> str:
    """A number as the JSON source wrote it (``92.0``, ``-3.0``); ``""`` for none."""
    return "" if v is None else json.dumps(v)


def as_given(x: Any) -> str:
    """A string as given; an object as its members (``mean 0.83; stddev 0.06``); else JSON."""
    if isinstance(x, dict):
        return "; ".join(f"{k} {as_given(v)}" for k, v in x.items())
    return x if isinstance(x, str) else json.dumps(x)


def printed_value(fig: PrintedFigure | None) -> str | None:
    """A source figure's printed text, else its value as JSON; ``None`` without a figure."""
    if fig is None:
        return None
    return fig.printed or json.dumps(fig.value)


def _figure(fig: PrintedFigure | None, printed_part: str | None = None) -> Cell:
    if fig is None:
        return (NOT_PRINTED, "")
    value = _number(fig.value)
    # The seal writes -0.0 as 0: a printed plain number of the same value keeps its sign.
    if printed_part and _PLAIN.fullmatch(printed_part) and float(printed_part) == fig.value:
        value = printed_part
    return (printed_part or value, value)


def uplift_unit(up: PrintedFigure) -> str | None:
    """An uplift's unit in words (a source field's is percentage points, D-15), or ``None``."""
    if up.unit is None:
        return None
    return "percentage points" if up.field else up.unit


def _unit(up: PrintedFigure | None) -> str:
    if up is None:
        return ""
    unit = uplift_unit(up)
    if unit is None:
        return "unstated"
    if up.field:
        return f"{unit} (field {up.field})"
    return _UNITS.get(unit, unit)


def figure_rows(skill: str, printed: list[PrintedRow]) -> list[tuple[Cell, ...]]:
    """One row per printed figure of ``skill``, or one :data:`NO_RESULTS` row."""
    if not printed:
        blank, none = ("", None), _figure(None)
        return [((skill, None), (NO_RESULTS, None), ("", ""), blank, none, none, blank, blank)]
    rows: list[tuple[Cell, ...]] = []
    for row in printed:
        up, num = row.uplift, row.num
        score_printed = row.printed.split("(")[0].strip() if row.printed else None
        rows.append(
            (
                (skill, None),
                (row.dimension, None),
                ("" if num is None else str(num), _number(num)),
                (row.agent, None),
                _figure(row.score, score_printed),
                _figure(up, up.printed if up is not None else None),
                (_unit(up), None),
                (row.note or "", None),
            )
        )
    return rows


def figures_count(printed: Iterable[list[PrintedRow]]) -> str:
    """The printed figures of some skills counted in words: ``"10 figures"`` (one per row)."""
    return count_of(sum(map(len, printed)), "figure")


def printed_text(row: PrintedRow) -> str:
    """One figure in one cell: the score and, in brackets, the uplift, as printed."""
    if row.printed:
        return row.printed
    score = _number(row.score.value if row.score is not None else None)
    uplift = printed_value(row.uplift)
    return f"{score} ({uplift})" if uplift else score


def files_read(r: Receipt) -> list[tuple[str, str, str, str]]:
    """The files the printed figures were read from: repository, commit, path, git blob sha1."""
    sf = r.source_figures
    if sf is None:
        return []
    where = (sf.repository or "not recorded", sf.commit or "not recorded")
    return [(*where, f.path, f.git_blob_sha1) for f in sf.files or ()]
