"""Pass counts of regex checks and judged facts per arm and category (caveman's fidelity tally).

A case passes for an arm when every check of its draw holds; a lost draw has no checks and
counts neither way. Failures are worded as the scorer prints them: ``missing <name>``
(must_include), then ``forbidden <name>`` (must_not_include), then ``failed <name>``; a check
whose outcome is error is listed in its place as ``<name> could not run (error)`` (it did not
hold, but the check itself failed to run, not the answer). Checks are never a score and never
a verdict (D-15).
"""

from __future__ import annotations

from dataclasses import dataclass

from driftproof.receipt import Receipt
from driftproof.receipt._model import Check
from driftproof.wording import CHECK_ERROR

#: score_fidelity.py's categories, in the order it prints them (caveman #1061's taxonomy).
CATEGORIES = (
    "substance-preservation",
    "exact-preservation",
    "no-caricature",
    "language-and-grammar",
    "safety-clarity",
    "artifact-boundary",
    "mode-boundaries",
)

#: ``source_type`` of a check that is one fact a source's grader judged pass or fail (caveman
#: PR #579's judged fidelity snapshot).
JUDGED_FACT = "judged fact"

#: Check kinds the scorer words as ``missing`` / ``forbidden``, listed in this order; any other
#: failed check is listed after them as ``failed <name>``.
_WORDED = {"must_include": "missing", "must_not_include": "forbidden"}


def _errored(check: Check, name: str) -> str | None:
    """``<name> could not run (error)`` for a check whose outcome is error, else ``None``."""
    return f"{name} {CHECK_ERROR}" if check.outcome == "error" else None


def _order(check: Check) -> int:
    """Where a failed check is listed: by kind as the scorer lists them, then in check order."""
    return list(_WORDED).index(check.kind) if check.kind in _WORDED else len(_WORDED)


@dataclass(frozen=True)
class ArmChecks:
    """One arm's tally.

    Attributes:
        arm: the receipt's arm name (``with_skill``, ``baseline``, ``control``).
        passed: answered cases whose every check held.
        answered: cases with a draw that was not lost.
        by_category: category → (passed, answered) over the cases of that category.
        failures: (case id, the failed checks as the scorer words them) for each answered case
            that did not pass, in case order.
    """

    arm: str
    passed: int
    answered: int
    by_category: dict[str, tuple[int, int]]
    failures: tuple[tuple[str, tuple[str, ...]], ...]


def check_tally(r: Receipt, arms: tuple[str, ...]) -> tuple[ArmChecks, ...]:
    """The tally of each of ``arms`` (in that order), one draw per case read.

    Raises:
        ValueError: a case's arm does not hold exactly one draw (the tally reads one answer per
            case and arm, as the scorer does).
    """
    out = []
    for name in arms:
        passed = answered = 0
        by_category: dict[str, tuple[int, int]] = {}
        failures = []
        for case in r.cases:
            arm = getattr(case.arms, name)
            draws = arm.draws if arm is not None else []
            if len(draws) != 1:
                raise ValueError(f"case {case.id}, arm {name}: expected exactly one draw")
            d = draws[0]
            if d.lost is not None:
                continue
            failed = tuple(
                _errored(k, k.name) or f"{_WORDED.get(k.kind, 'failed')} {k.name}"
                for k in sorted((k for k in d.checks if not k.pass_), key=_order)
            )
            answered += 1
            passed += not failed
            if case.category is not None:
                p, n = by_category.get(case.category, (0, 0))
                by_category[case.category] = (p + (not failed), n + 1)
            if failed:
                failures.append((case.id, failed))
        out.append(ArmChecks(name, passed, answered, by_category, tuple(failures)))
    return tuple(out)


@dataclass(frozen=True)
class ArmFacts:
    """One arm's judged facts.

    Attributes:
        passed: facts the source's grader judged pass, over every case.
        total: facts judged.
        fidelity_mean: the mean, in percent, of the per-case fidelity figures the source printed
            for this arm (``source_report``, label ``fidelity``); ``None`` when it printed none.
        failures: (case id, each failed check worded ``failed fact "<fact>"`` or
            ``failed <name>``, an errored one ``fact "<fact>" could not run (error)`` or
            ``<name> could not run (error)``) for each case with such a check, in case order.
    """

    arm: str
    passed: int
    total: int
    fidelity_mean: float | None
    failures: tuple[tuple[str, tuple[str, ...]], ...]


def fact_tally(r: Receipt, arms: tuple[str, ...]) -> tuple[ArmFacts, ...]:
    """The judged facts of each of ``arms``, in that order; a lost draw has no checks."""
    figures = r.source_report.figures if r.source_report is not None else []
    out = []
    for name in arms:
        passed = total = 0
        failures = []
        for case in r.cases:
            arm = getattr(case.arms, name)
            checks = [k for d in (arm.draws if arm is not None else []) for k in d.checks]
            facts = [k for k in checks if k.source_type == JUDGED_FACT]
            total += len(facts)
            passed += sum(k.pass_ for k in facts)
            failed = tuple(
                _errored(k, n) or f"failed {n}"
                for k in checks
                for n in [f'fact "{k.name}"' if k.source_type == JUDGED_FACT else k.name]
                if not k.pass_
            )
            if failed:
                failures.append((case.id, failed))
        printed = [
            f.value
            for f in figures
            if (f.label, f.arm, f.unit) == ("fidelity", name, "percent") and f.value is not None
        ]
        mean = sum(printed) / len(printed) if printed else None
        out.append(ArmFacts(name, passed, total, mean, tuple(failures)))
    return tuple(out)
