"""Section ``skill_fired``: how often the skill fired, beside the scores and never inside them.

Seed 000 ("Receipts are an open format"): where the source ran a skill-fired indicator, as
``claude plugin eval`` does, the receipt records how often the skill fired beside the score and
never inside it, and runs the source recorded an error for are kept out of the figures and
listed with the error. Per receipt this section shows:

- one row per case and arm: the band as :func:`driftproof.pages.sheet.sheet` gives it, the measured
draws
  on which the source saw the skill fire (``draw.skill_fired``, lost draws left out), and the lost
  draws with their recorded reasons;
- one row per arm: the arm's recorded rate ``arms.<arm>.skill_fired {fired, observed}`` (schema
  0.15), or "not observed", or "arm not recorded" for the missing arm of a single-arm import;
- the receipt's reading (why it gives no verdict) and the source notes a reader must know
  (``provenance.notes``, e.g. that a single-arm source counts the indicator inside its score).

Parameters::

    - type: skill_fired
      receipts: [a, b]     # optional; default: every receipt of the report
      title: ...           # optional heading

Written by the importers engineer (issue 14, Report 004), following the registry of
:mod:`driftproof.site.sections`; counting only, no statistics.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from driftproof.pages import sheet as view
from driftproof.receipt import Case, Draw, Receipt
from driftproof.site._tables import Cell, Column, Row, Table
from driftproof.site.cases import ARMS
from driftproof.site.sections import ReceiptsSection, SectionOutput, register_section

if TYPE_CHECKING:
    from driftproof.site.sections import ReceiptsParams, SectionContext

__all__ = ["SkillFired", "fired_counts"]


def fired_counts(draws: Sequence[Draw]) -> tuple[int, int]:
    """(draws on which the skill fired, draws on which firing was observed), over measured draws
    only: a lost draw is kept out of the figures (seed 000)."""
    seen = [d.skill_fired for d in draws if d.lost is None and d.skill_fired is not None]
    return sum(seen), len(seen)


def _rate(fired: int, observed: int) -> str:
    return f"{fired} of {observed} ({100 * fired / observed:.0f}%)" if observed else "not observed"


def _arm_rows(name: str, r: Receipt) -> list[Row]:
    rows = []
    for key, words in ARMS:
        spec = getattr(r.arms, key)
        if spec is None:
            continue
        if not spec.recorded:
            text, value = "arm not recorded by the source", ""
        elif spec.skill_fired is not None:
            text = _rate(spec.skill_fired.fired, spec.skill_fired.observed)
            value = (
                repr(spec.skill_fired.fired / spec.skill_fired.observed)
                if spec.skill_fired.observed
                else ""
            )
        else:
            text, value = "not observed", ""
        rows.append(
            Row((Cell(name), Cell(words), Cell(spec.label or "–"), Cell(text, value)), header=True)
        )
    return rows


@register_section(name="skill_fired", title="How often the skill fired")
class SkillFired(ReceiptsSection):
    def render(self, params: ReceiptsParams, ctx: SectionContext) -> SectionOutput:
        case_rows: list[Row] = []
        arm_rows: list[Row] = []
        about = []
        for n in self.names(params, ctx):
            r = ctx.receipts[n]
            s = view.sheet(r)
            arm_rows += _arm_rows(n, r)
            for row, case in zip(s.cases, r.cases, strict=True):
                case_rows += _case_rows(r, row, case, partial(ctx.anchor, f"{n}-fired-{case.id}"))
            reading = {f.label: f.value for f in s.reading}
            about.append(
                {
                    "name": n,
                    "reading": reading.get("reading", ""),
                    "why": reading.get("why", ""),
                    "notes": list(r.provenance.notes or []) if r.provenance is not None else [],
                    "partial": bool(r.provenance is not None and r.provenance.partial),
                }
            )
        slug = ctx.anchor("skill-fired")
        cases = Table(
            f"{slug}-cases",
            "Per case and arm: the band (mean ± one sample standard deviation of the "
            "per-draw scores, n = measured draws) and, beside it, the measured draws on which "
            "the source saw the skill fire. Lost draws are left out of both and listed with "
            "their reasons.",
            (
                Column("case"),
                Column("arm"),
                Column("score band"),
                Column("skill fired (measured draws)", True),
                Column("lost draws"),
            ),
            tuple(case_rows),
        )
        arms = Table(
            f"{slug}-arms",
            "Per arm: how often the skill fired, as the receipt records it "
            "(arms.<arm>.skill_fired: draws it fired on, of measured draws where firing was "
            "observed). Beside the score, never inside it.",
            (
                Column("receipt"),
                Column("arm"),
                Column("source's name for the arm"),
                Column("skill fired", True),
            ),
            tuple(arm_rows),
        )
        html = self.page(
            params,
            ctx,
            heading_id=slug,
            cases=cases,
            arms=arms,
            about=about,
        )
        return SectionOutput(html=html, tables=(arms, cases))


def _case_rows(r: Receipt, row: view.CaseRow, case: Case, anchor: Callable[[], str]) -> list[Row]:
    """One row per arm of ``case``: its band (``row``, from :func:`driftproof.pages.sheet.sheet`),
    how
    often the skill fired on its measured draws and its lost draws; the first row carries the
    id ``anchor()`` gives (taken only when there is a row)."""
    rows: list[Row] = []
    for key, words in ARMS:
        arm = getattr(case.arms, key)
        spec = getattr(r.arms, key)
        if arm is None or spec is None:
            continue
        band = {"with_skill": row.with_skill, "baseline": row.baseline}.get(key, row.control or "–")
        if not spec.recorded:
            band = "not recorded"
        fired, observed = fired_counts(arm.draws)
        lost = "; ".join(
            f"draw {d.index}: {d.lost.reason}" for d in arm.draws if d.lost is not None
        )
        rows.append(
            Row(
                (
                    Cell(case.id),
                    Cell(words),
                    Cell(band),
                    Cell(_rate(fired, observed), str(fired) if observed else ""),
                    Cell(lost or "none"),
                ),
                anchor=None if rows else anchor(),
                header=True,
            )
        )
    return rows
