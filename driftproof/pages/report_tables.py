"""The tables of the report sections (no HTML); the site adds anchors and links to rows."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from driftproof.pages.cross_family import CrossFamily
from driftproof.pages.printed_figures import NOT_PRINTED
from driftproof.pages.tables import Cell, Column, Row, Table, row_of, text_row
from driftproof.pages.token_savings import summary_rows
from driftproof.stats.savings import ArmSavings

_FIRED_CASES_HEAD = ("case", "arm", "score band", "skill fired (measured draws)", "lost draws")
_FIRED_ARMS_HEAD = ("receipt", "arm", "source's name for the arm", "skill fired")


def skill_fired_tables(key: str, cases: Sequence[Row], arms: Sequence[Row]) -> tuple[Table, Table]:
    """The per-case-and-arm and the per-arm tables of how often the skill fired (D-9)."""
    case_table = Table(
        f"{key}-cases",
        "Per case and arm: the band (mean ± one sample standard deviation of the "
        "per-draw scores, n = measured draws) and, beside it, the measured draws on which "
        "the source saw the skill fire. Lost draws are left out of both and listed with "
        "their reasons.",
        tuple(Column(h, h.startswith("skill fired")) for h in _FIRED_CASES_HEAD),
        tuple(cases),
    )
    arm_table = Table(
        f"{key}-arms",
        "Per arm: how often the skill fired, as the receipt records it "
        "(draws it fired on, of measured draws where firing was observed). Beside the score, "
        "never inside it.",
        tuple(Column(h, h == "skill fired") for h in _FIRED_ARMS_HEAD),
        tuple(arms),
    )
    return case_table, arm_table


_LEAD = ("model", "family", "surface", "lift", "per 1,000 skill tokens", "reading")


def cross_family_tables(cf: CrossFamily) -> tuple[Table, Table]:
    """Each model's lift (the lead, not a ranking) and its raw scores (background)."""
    lead = Table(
        "lift-by-model",
        "What the skill adds to each model: lift (with skill minus baseline, equal "
        "weight per case) and per 1,000 skill tokens; rows in family and model order, "
        "not a ranking",
        tuple(Column(c, c in ("lift", "per 1,000 skill tokens")) for c in _LEAD),
        tuple(
            text_row(x.model, x.family, x.surface, x.lift, x.lift_per_1k, x.reading)
            for x in cf.rows
        ),
    )
    background = Table(
        "raw-scores-by-model",
        "Background, not a ranking: each model's raw mean judge score "
        "over cases, with the skill and without it",
        (Column("model"), Column("with skill", True), Column("baseline", True)),
        tuple(text_row(x.model, x.background_with_skill, x.background_baseline) for x in cf.rows),
    )
    return lead, background


_FIGURES_HEAD = (
    Column("Skill"),
    Column("Dimension"),
    Column("Num (the card's own count column)", numeric=True),
    Column("Agent"),
    Column("Score as printed (%)", numeric=True),
    Column("Uplift as printed", numeric=True),
    Column("Uplift unit"),
    Column("Source note"),
)

#: A skill and its printed figures by (dimension, agent).
Pivot = tuple[str, dict[tuple[str, str], str]]


def figure_tables(
    rows: Sequence[Row], files: Iterable[tuple[str, str, str, str]], pivot: Sequence[Pivot]
) -> tuple[Table, Table, Table]:
    """Printed figures (D-15): one row per figure (the CSV), the files read, one row per skill.

    The skill rows take the anchors of the figure rows that have one.
    """
    table = Table(
        "source-figures",
        "Figures as the source printed them: skill-assisted score and uplift per dimension "
        "and agent (percent and percentage points, in the source's own units). "
        "No band, lift or verdict.",
        _FIGURES_HEAD,
        tuple(rows),
    )
    files_table = Table(
        "source-files",
        "Files read: repository, commit, path and git blob sha1 (git hash-object).",
        tuple(Column(h) for h in ("Repository", "Commit", "Path", "Git blob sha1")),
        tuple(Row(tuple(Cell(x) for x in key)) for key in sorted(files)),
    )
    keys = list(dict.fromkeys(k for _, cells in pivot for k in cells))
    anchors = {row.cells[0].text: row.anchor for row in rows if row.anchor}
    by_skill = Table(
        "source-figures-by-skill",
        "Score with the skill, and in brackets the uplift over the run without it, per "
        "dimension and agent, exactly as the source printed them (score in percent; uplift in "
        "the source's own unit: percentage points in the catalogue's uplift_pct). – means the "
        "source printed no figure. The download has one row per figure, with the card's count "
        "column and notes.",
        (Column("Skill"), *(Column(f"{d}, {a}") for d, a in keys)),
        tuple(
            Row(
                (Cell(skill), *(Cell(cells.get(k, NOT_PRINTED), "") for k in keys)),
                anchor=anchors.get(skill),
                header=True,
            )
            for skill, cells in pivot
        ),
    )
    return table, files_table, by_skill


_SUMMARY_HEAD = ("skill", "against", "median", "mean", "min", "max", "stdev", "cases")


def savings_summary(arms: Sequence[ArmSavings]) -> Table:
    """The output-token savings of each skill arm across cases (D-16)."""
    head = (*_SUMMARY_HEAD, "skill output tokens", "reference output tokens")
    return Table(
        "token-savings",
        "Output-token savings across cases: saving = 1 − skill tokens ÷ reference tokens, "
        "per case; stdev is the sample standard deviation",
        tuple(Column(c, numeric=i >= 2) for i, c in enumerate(head)),
        tuple(row_of(x) for x in summary_rows(arms)),
    )
