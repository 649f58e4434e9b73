"""How often the skill fired, beside the scores and never inside them (lost draws out, D-9)."""

from __future__ import annotations

from collections.abc import Sequence

from driftproof.pages.sheet import CaseRow, Sheet, lost_count
from driftproof.pages.tables import Cell, Column, Pair, Row, Table
from driftproof.pages.words import UNKNOWN, has_bands
from driftproof.receipt import Receipt
from driftproof.stats.rates import fired_counts, percent_of, share
from driftproof.wording import ARM_WORDS

#: A row of cells.
Cells = tuple[Pair, ...]


def _rate(fired: int, observed: int) -> str:
    pct = percent_of(fired, observed)
    return f"{fired:,} of {observed:,} ({pct:.0f}%)" if pct is not None else UNKNOWN


def arm_rows(name: str, r: Receipt) -> list[Cells]:
    """One row per arm of receipt ``name``: the rate it records (CSV: the fraction)."""
    rows: list[Cells] = []
    for key, words in ARM_WORDS.items():
        spec = getattr(r.arms, key)
        if spec is None:
            continue
        rate = spec.skill_fired
        if not spec.recorded:
            cell: Pair = ("arm not recorded by the source", "")
        elif rate is not None:
            part = share(rate.fired, rate.observed)
            cell = (_rate(rate.fired, rate.observed), repr(part) if part is not None else "")
        else:
            cell = (UNKNOWN, "")
        rows.append(((name, None), (words, None), (spec.label or "–", None), cell))
    return rows


def case_rows(r: Receipt, row: CaseRow, index: int, lost_link: str) -> list[tuple[Cell, ...]]:
    """One row per arm of case number ``index``: band, draws fired on, lost draws (D-9).

    A lost draws count (``1 of 3``) links to ``lost_link``, the receipt's "Lost draws" table.
    """
    case = r.cases[index]
    judged = has_bands(r)
    rows: list[tuple[Cell, ...]] = []
    for key, words in ARM_WORDS.items():
        arm, spec = getattr(case.arms, key), getattr(r.arms, key)
        if arm is None or spec is None:
            continue
        band = {"with_skill": row.with_skill, "baseline": row.baseline}.get(key, row.control or "–")
        fired, observed = fired_counts(arm.draws)
        lost = lost_count(arm.draws, judged)
        rows.append(
            (
                Cell(case.id),
                Cell(words),
                Cell(band if spec.recorded else "not recorded"),
                Cell(_rate(fired, observed), str(fired) if observed else ""),
                Cell(lost, link=lost_link) if lost else Cell("none"),
            )
        )
    return rows


def fired_about(name: str, r: Receipt, s: Sheet) -> dict[str, object]:
    """Beside the rates: the reading and why (from sheet ``s``), the source's notes, partial."""
    reading = {f.label: f.value for f in s.reading}
    p = r.provenance
    return {
        "name": name,
        "reading": reading.get("reading", ""),
        "why": reading.get("why", ""),
        "notes": list(p.notes or []) if p is not None else [],
        "partial": bool(p is not None and p.partial),
    }


_FIRED_CASES_HEAD = ("case", "arm", "score band", "skill fired (measured draws)", "lost draws")
_FIRED_ARMS_HEAD = ("receipt", "arm", "source's name for the arm", "skill fired")


def skill_fired_tables(key: str, cases: Sequence[Row], arms: Sequence[Row]) -> tuple[Table, Table]:
    """The per-case-and-arm and the per-arm tables of how often the skill fired (D-9)."""
    case_table = Table(
        f"{key}-cases",
        "Per case and arm: the band (mean ± one sample standard deviation of the "
        "per-draw scores, n = measured draws) and, beside it, the measured draws on which "
        "the source saw the skill fire. Lost draws are left out of both and counted, each "
        "count linking to the receipt's table of their reasons.",
        tuple(Column(h, h.startswith("skill fired")) for h in _FIRED_CASES_HEAD),
        tuple(cases),
        keys=2,
    )
    arm_table = Table(
        f"{key}-arms",
        "Per arm: how often the skill fired, as the receipt records it "
        "(draws it fired on, of measured draws where firing was observed). Beside the score, "
        "never inside it.",
        tuple(Column(h, h == "skill fired") for h in _FIRED_ARMS_HEAD),
        tuple(arms),
        keys=2,
    )
    return case_table, arm_table
