"""caveman's fidelity reports as the sheet shows them: regex checks, or judged facts (D-16).

None of it is a band, lift or verdict of the receipt; the counts come from
:mod:`driftproof.stats.fidelity`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from driftproof.pages.words import UNKNOWN, Fact, draws_of
from driftproof.receipt import Receipt
from driftproof.stats.fidelity import (
    CATEGORIES,
    JUDGED_FACT,
    ArmChecks,
    ArmFacts,
    check_tally,
    fact_tally,
)
from driftproof.stats.rates import share
from driftproof.wording import ARM_WORDS, CAVEMAN_TOOL


@dataclass(frozen=True)
class FidelityView:
    """caveman's ``score_fidelity.py`` report: rates per arm and category, then each failure."""

    summary: tuple[Fact, ...]
    arm_head: tuple[str, ...]
    arm_rows: tuple[tuple[str, ...], ...]
    category_head: tuple[str, ...]
    category_rows: tuple[tuple[str, ...], ...]
    failures: tuple[str, ...]
    note: str
    title: str = "Fidelity checks (as caveman's score_fidelity.py; no verdict)"


FIDELITY_NOTE = (
    "A pass is a regex match, not a reviewed judgment; read the failures before citing a rate."
)


#: Said when some case went unanswered.
_NOT_RUN = (
    "the run stopped early: rates are over the answered cases only, which caveman's scorer does "
    "not report"
)
#: The fidelity reports' arm order, as caveman prints it: controls first, then the skill.
_ORDER = ("baseline", "control", "with_skill")


def is_caveman(r: Receipt) -> bool:
    """Whether ``r`` is an import of caveman's evals."""
    return r.provenance is not None and r.provenance.tool == CAVEMAN_TOOL


def arm_label(r: Receipt, name: str) -> str:
    """Arm ``name`` of ``r`` by its label in the source, else in the method's words."""
    spec = getattr(r.arms, name)
    return spec.label if spec is not None and spec.label else ARM_WORDS[name]


def fidelity_view(r: Receipt) -> FidelityView | None:
    """The ``score_fidelity.py`` report of a caveman fidelity import, else ``None``."""
    checks = [k for *_, d in draws_of(r) for k in d.checks]
    if not is_caveman(r) or not checks:
        return None
    if any(k.source_type == JUDGED_FACT for k in checks):
        return _judged_view(r)
    tallies = check_tally(r, tuple(n for n in _ORDER if n in r.arm_names))
    labels = [arm_label(r, t.arm) for t in tallies]
    source = r.suite.name or "the case file"
    summary = [Fact("cases", f"{len(r.cases)}, single run per arm, regex checks from {source}")]
    if min(t.answered for t in tallies) < len(r.cases):
        summary.append(Fact("not run", _NOT_RUN))
    arm_rows = tuple(
        (label, *_passed(t.passed, t.answered)) for label, t in zip(labels, tallies, strict=True)
    )
    n_of = {cat: sum(c.category == cat for c in r.cases) for cat in CATEGORIES}
    category_rows = tuple(
        (cat, str(n_of[cat]), *("{} / {}".format(*t.by_category.get(cat, (0, 0))) for t in tallies))
        for cat in CATEGORIES
        if n_of[cat]
    )
    return FidelityView(
        summary=tuple(summary),
        arm_head=("Arm", "Passed", "Rate"),
        arm_rows=arm_rows,
        category_head=("Category", "n", *labels),
        category_rows=category_rows,
        failures=_failures(tallies, lambda n: arm_label(r, n)),
        note=FIDELITY_NOTE,
    )


JUDGED_TITLE = "Fidelity as judged by the source's grader (caveman pull request 579; no verdict)"
JUDGED_NOTE = (
    "Each fact, one the source's rubric lists for the prompt, was judged pass or fail once, by "
    "the source's own grader model; the answers are not in the snapshot, so no judgment can be "
    "checked here. Mean fidelity is the mean of the per-prompt percentages as the source "
    "printed them."
)
#: The rubrics fact of a judged import not given the rubric file.
NO_RUBRICS = (
    "not given to this import, so the facts the source took from it were not checked against it"
)


def _judged_view(r: Receipt) -> FidelityView:
    """The report of a judged fidelity import; an arm the snapshot lacks is unknown (D-13)."""
    recorded = [n for n in _ORDER if getattr(r.arms, n) is not None and getattr(r.arms, n).recorded]
    tallies = {t.arm: t for t in fact_tally(r, tuple(recorded))}
    arm_rows = []
    for n in _ORDER:
        t = tallies.get(n)
        mean = t.fidelity_mean if t is not None else None  # computed here, in percent
        cells = _passed(t.passed, t.total) if t is not None else (UNKNOWN, UNKNOWN)
        arm_rows.append((ARM_WORDS[n], *cells, UNKNOWN if mean is None else _percent(mean / 100)))
    grader = r.judge.model if r.judge is not None else UNKNOWN
    summary = (
        Fact("cases", f"{len(r.cases)}, one answer per prompt and arm, not in the snapshot"),
        Fact("grader", f"{grader}, the source's own: each fact judged once, pass or fail"),
        Fact("rubrics", r.suite.name or NO_RUBRICS),
    )
    return FidelityView(
        summary=summary,
        arm_head=("Arm", "Facts passed", "Rate", "Mean fidelity"),
        arm_rows=tuple(arm_rows),
        category_head=(),
        category_rows=(),
        failures=_failures(tuple(tallies.values()), ARM_WORDS.__getitem__),
        note=JUDGED_NOTE,
        title=JUDGED_TITLE,
    )


def _passed(passed: int, of: int) -> tuple[str, str]:
    rate = share(passed, of)
    return f"{passed} / {of}", _percent(rate) if rate is not None else "n/a"


def _percent(share: float) -> str:
    """A share in whole percent, as every fidelity figure of the report is shown (``100%``)."""
    return f"{share:.0%}"


def _failures(
    tallies: Sequence[ArmChecks | ArmFacts], label: Callable[[str], str]
) -> tuple[str, ...]:
    """Every failed check as ``<arm> · <case>: <failures>``, arm by arm, ``label(arm)`` named."""
    return tuple(
        f"{label(t.arm)} · {case_id}: {'; '.join(failed)}"
        for t in tallies
        for case_id, failed in t.failures
    )
