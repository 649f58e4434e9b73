"""The results page: every committed receipt with what it reads.

Measured receipts first, by skill; the rest (D-17 included) by source. The reading is the
badge's (D-7), so page, badge and badge JSON never disagree.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from urllib.parse import quote

from driftproof._anchor import unique
from driftproof.pages.badge import BadgeReading, badge_reading, site_badge_files
from driftproof.pages.band_sources import band_facts
from driftproof.pages.source import (
    printed_headline,
    source_report_headline,
)
from driftproof.pages.words import (
    COUNTED_BY_WORDS,
    UNKNOWN,
    aa_called,
    count_of,
    fmt,
    format_lift,
    format_per_1k,
)
from driftproof.receipt import CaseArm, Receipt
from driftproof.stats import Status, mean_of
from driftproof.stats.aa import aa_reading
from driftproof.stats.lift import lift_case_ids
from driftproof.stats.savings import percent, token_savings
from driftproof.wording import AA_ARM_WORDS, MORE_CASES, NOT_ENOUGH_DRAWS, NOT_MEASURED

#: Where the page is written, relative to the site root.
RESULTS_PAGE = "results/index.html"
#: A group of imports with more rows than this is folded (``<details>``) under its headline.
FOLD_FROM = 25
#: Shown for a figure the receipt cannot give (D-13: unknown stays unknown); a missing name or
#: word reads ``UNKNOWN`` ("not recorded"), as on every other page.
NO_FIGURE = "–"
#: An A/A calibration's label where a lift would stand: it measures noise, not a skill.
AA_LABEL = "A/A calibration"
#: What the results page and the home page say when no committed receipt is a measured run.
NO_MEASURED_RUN = (
    "No measured run is committed yet: every receipt on this site is an import, printed "
    "aggregates, a smoke run, a stub run or a run that measured nothing, and none of them gets "
    "a verdict."
)


@dataclass(frozen=True)
class ResultRow:
    """One receipt on the results page; URLs are relative to the site root, ``–`` is unknown.

    Attributes:
        receipt: the receipt's path under ``receipts/`` without ``.json``.
        reading: the badge message (:class:`~driftproof.pages.badge.BadgeReading`).
        lift, value_per_1k: score units, per 1,000 skill tokens (D-14); ``*_text`` formatted.
        context_only: the receipt gets no verdict, so its lift is context only.
        measured: by a runner (no import, smoke run, printed aggregates or D-17) and graded by
            a judge, no stub making the answers or the grades.
        source: the import's tool, ``smoke run``, ``printed aggregates``, ``stub run``,
            ``not measured`` or ``""``; ``headline``: its headline figure, or why nothing.
        simulated: drawn at random by the simulated provider: never a measurement.
        regrade_of: :func:`regrade_words`; ``original_seal``: a regrade's original's seal;
            ``original``: the original's receipt name where it is among the rows (linked).
    """

    receipt: str
    sheet_url: str
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
    measured: bool = True
    source: str = ""
    headline: str = ""
    draws: str = ""
    simulated: bool = False
    regrade_of: str = ""
    original_seal: str = ""
    original: str = ""
    seal: str = ""


def _text(value: float | None) -> str:
    return NO_FIGURE if value is None else format_lift(value)


def _row(name: str, r: Receipt, reading: BadgeReading | None = None) -> ResultRow:
    b = reading if reading is not None else badge_reading(r)
    facts = band_facts(r)
    imported = r.provenance is not None and r.regrade is None
    nothing = b.message == NOT_MEASURED  # a run that measured nothing (D-17): never "measured"
    stub = r.is_stub  # fixed answers or grades: no model answered, or none graded
    measured = not (imported or b.smoke or r.is_aggregates_only or nothing or stub)
    kinds = {"smoke run": b.smoke, "printed aggregates": r.is_aggregates_only, "stub run": stub}
    source = next((s for s, hit in {**kinds, NOT_MEASURED: nothing}.items() if hit), "")
    source = r.provenance.tool if imported and r.provenance is not None else source
    if measured:
        shown = ""
    elif stub:  # the stub answered (and graded), or graded a model's answers
        shown = (
            "no model answered: the stub provider's fixed answers"
            if r.run.provider == "stub"
            else "no model graded: the stub judge's fixed scores"
        )
    else:
        shown = b.reason if nothing else headline(r, b.lift)
    if r.run.aa:  # no lift (two runs of one arm): what it calibrates, and how it was made
        shown = f"{AA_LABEL}; {shown}" if shown else f"{AA_LABEL}: {aa_called(aa_reading(r))}"
    return ResultRow(
        receipt=name,
        sheet_url=f"receipts/{quote(name, safe='/')}/",
        skill=r.skill.name,
        model=r.run.model or UNKNOWN,
        surface=r.run.surface or UNKNOWN,
        level=r.verification_level,
        band_source=facts.short,
        reading=b.message,
        **{k: getattr(b, k) for k in ("smoke", "status", "lift", "value_per_1k")},
        # a simulated row's group says the scores were drawn at random: its first clause suffices
        reason=b.reason.split(";", 1)[0] if r.is_simulated else _why(b),
        lift_text=AA_LABEL if r.run.aa else _text(b.lift),
        value_text=NO_FIGURE if b.value_per_1k is None else format_per_1k(b.value_per_1k, b.lift),
        context_only=b.status == Status.NO_VERDICT,
        measured=measured,
        source=source,
        headline=shown,
        draws=f"draws per arm {facts.draws}; judge samples per draw {facts.judge_samples}",
        simulated=r.is_simulated,
        regrade_of=regrade_words(r),
        original_seal=r.regrade.original_seal if r.regrade is not None else "",
        seal=r.seal.sha256,
    )


def _why(b: BadgeReading) -> str:
    """The reading's why; an UNDERPOWERED one after the method's words for it (D-8, D-10)."""
    if b.status != Status.UNDERPOWERED:
        return b.reason
    more = b.sentence is not None and b.sentence.startswith(MORE_CASES)
    return f"{MORE_CASES if more else NOT_ENOUGH_DRAWS} Why: {b.reason}"


def _sealed(seal: str) -> str:
    """How a regrade names its original when its file is not at hand: by its seal."""
    return f"the receipt sealed {seal[:12]}…"


def regrade_words(r: Receipt, original: str | None = None) -> str:
    """Which receipt ``r`` regrades and how, or ``""`` when ``r`` is no regrade's receipt.

    ``"a regrade of the receipt sealed 2fff19d7438e…: its kept answers graded again by …"``;
    ``original``: the original's receipt name on the site (``"receipt first-run"``), ``""`` when
    the site does not publish it (said), ``None`` when that is not known (nothing said).
    """
    rg = r.regrade
    if rg is None:
        return ""
    how = (
        "by its judge, under the rubrics given to the regrade"
        if rg.kind == "rubric"
        else "by the judge the regrade names"
    )
    named = f"receipt {original}" if original else _sealed(rg.original_seal)
    if original == "":
        named += ", which this site does not publish"
    return f"a regrade of {named}: its kept answers graded again {how}"


def named_originals(rows: Iterable[ResultRow]) -> list[ResultRow]:
    """``rows`` with each regrade naming its original by receipt name where a row is that one."""
    rows = list(rows)
    names = {x.seal: x.receipt for x in rows if x.seal}
    return [
        replace(
            x,
            regrade_of=x.regrade_of.replace(_sealed(s), f"receipt {names[s]}", 1),
            original=names[s],
        )
        if (s := x.original_seal) in names
        else x
        for x in rows
    ]


#: Each arm as a headline's means name it.
_MEAN_LABELS = {"with_skill": "with the skill", "baseline": "without it", "control": "control"}


def headline(r: Receipt, lift: float | None = None) -> str:
    """The headline figure of an import or a smoke run: printed, or worked out from its record.

    Printed aggregates: the average uplift the source printed (NVIDIA's summary), else the first
    uplifts as printed; token-only arms: the median output-token saving; scores: each arm's mean;
    a smoke run: its lift (an A/A calibration's, which has none: its two runs' means).
    """
    if r.is_aggregates_only:
        return printed_headline(r)
    if r.is_smoke and not r.run.aa:  # an A/A smoke run has no lift: its runs' means, below
        return (
            f"lift {format_lift(lift)} (context only: a smoke run)"
            if lift is not None
            else "no score recorded"
        )
    try:
        sav = token_savings([r])[0]
    except ValueError:
        sav = None
    if sav is not None and not any(
        d.score is not None for c in r.cases for d in c.arms.with_skill.draws
    ):
        ctl, base = sav.vs_control, sav.vs_baseline
        said = f"{percent(base.median)} against the baseline"
        if ctl is not None:
            said = f"median output-token saving {percent(ctl.median)} against the control, {said}"
        return f"{said} ({count_of(base.n, 'case')}, tokens {COUNTED_BY_WORDS[sav.counted_by]})"
    words = "pass rate" if r.provenance and r.provenance.tool == "skill-creator" else "score"
    parts = []
    for key, label in {**_MEAN_LABELS, **(AA_ARM_WORDS if r.run.aa else {})}.items():
        per_case = [
            [d.score for d in getattr(c.arms, key).draws if d.score is not None]
            for c in r.cases
            if getattr(c.arms, key, None) is not None
        ]
        if scores := [s for case in per_case for s in case]:
            parts.append(f"{label} {fmt(mean_of(scores))} over {_counted(per_case)}")
    if parts:
        return f"mean {words} " + "; ".join(parts) + _lift_beside_means(r, lift)
    own = source_report_headline(r, elsewhere=True)
    return own or "the source recorded no score and no token count"


def _counted(per_case: list[list[float]]) -> str:
    """``"10 cases, one scored draw each"`` or ``"30 scored draws in 10 cases"``."""
    held = [c for c in per_case if c]
    if all(len(c) == 1 for c in held):
        return (
            "1 case, one scored draw"
            if len(held) == 1
            else f"{len(held):,} cases, one scored draw each"
        )
    return f"{count_of(sum(map(len, held)), 'scored draw')} in {count_of(len(held), 'case')}"


def _lift_beside_means(r: Receipt, lift: float | None) -> str:
    """The suite lift (D-14) after the arms' means, apart if their draws differ; ``""`` without."""
    if lift is None:
        return ""
    n = len(lift_case_ids(r))
    what = f"lift over the {count_of(n, 'case')} measured in both arms {format_lift(lift)}"
    if all(_scored(c.arms.with_skill) == _scored(c.arms.baseline) for c in r.cases):
        return f"; {what}"
    return f" (over different cases, so not to be subtracted; {what})"


def _scored(arm: CaseArm) -> int:
    return sum(d.score is not None for d in arm.draws)


def results_rows(
    receipts: Mapping[str, Receipt], readings: Mapping[str, BadgeReading] | None = None
) -> list[ResultRow]:
    """One row per receipt, in :func:`order_rows` order, regrades naming their originals."""
    got = readings or {}
    return order_rows(named_originals(_row(n, r, got.get(n)) for n, r in receipts.items()))


def order_rows(rows: Iterable[ResultRow]) -> list[ResultRow]:
    """Measured first, then by source, skill, model (case-insensitive) and receipt name."""
    return sorted(
        rows,
        key=lambda x: (
            not x.measured,
            x.source.casefold(),
            x.skill.casefold(),
            x.model.casefold(),
            x.receipt,
        ),
    )


@dataclass(frozen=True)
class ResultGroup:
    """A group of rows on the page: measured receipts by skill, imports by source tool."""

    title: str
    id: str
    rows: tuple[ResultRow, ...]


def results_groups(rows: list[ResultRow]) -> tuple[list[ResultGroup], list[ResultGroup]]:
    """Measured receipts by skill, and the others by source, both in row order."""

    def groups(measured: bool, field: str) -> list[ResultGroup]:
        by: dict[str, list[ResultRow]] = {}
        for r in rows:
            if r.measured == measured:
                by.setdefault(getattr(r, field), []).append(r)
        used: set[str] = set()
        slugs = {t: re.sub(r"[^A-Za-z0-9_-]+", "-", t).strip("-").lower() or "x" for t in by}
        return [
            ResultGroup(t, unique(f"{field}-{slugs[t]}", used), tuple(x)) for t, x in by.items()
        ]

    return groups(True, "skill"), groups(False, "source")


def runs_words(groups: list[ResultGroup]) -> tuple[str, dict[str, str]]:
    """The heading of the runs' groups, and by group id what its caption calls its receipts."""
    captions = {g.id: _group_words([r.simulated for r in g.rows]) for g in groups}
    simulated = [r.simulated for g in groups for r in g.rows]
    if simulated and all(simulated):
        return "Simulated runs, by skill (drawn at random, not measured)", captions
    if any(simulated):
        return "Runs, by skill: measured, and simulated at random", captions
    return "Measured runs, by skill", captions


def _group_words(simulated: list[bool]) -> str:
    if all(simulated):
        return "every simulated receipt (drawn at random, not a measurement)"
    if any(simulated):
        return "every receipt, measured or simulated at random"
    return "every measured receipt"


def rows_and_badge_files(
    receipts: Mapping[str, Receipt],
) -> tuple[list[ResultRow], dict[str, bytes]]:
    """:func:`results_rows` and the badge files of ``receipts``, each receipt read once."""
    readings = {name: badge_reading(r) for name, r in receipts.items()}
    return results_rows(receipts, readings), site_badge_files(receipts, readings)


def listed_receipt(name: str, r: Receipt, sha256: str, row: ResultRow) -> dict[str, str]:
    """Receipt ``name``'s row, with the headline of its results ``row`` and its file's sha256."""
    return {
        "name": name,
        "skill": r.skill.name,
        "headline": row.headline or row.lift_text,
        "level": r.verification_level,
        "model": r.run.model or UNKNOWN,
        "sha256": sha256,
        "cases": str(len(r.cases)),
    }
