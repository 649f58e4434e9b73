"""The Action's reading of a comparison: its decision, whether the job fails, its outputs.

Pure functions of a :class:`~driftproof.pages.comparison.Comparison` and the ``fail-on`` words
(``action.yml``); :mod:`driftproof.action` writes them to GitHub's files and the job summary.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from driftproof.pages.comparison import Comparison
from driftproof.pages.unmeasured_cases import UnmeasuredCase, unmeasured_headline
from driftproof.pages.words import format_lift
from driftproof.receipt import Receipt
from driftproof.stats import suite_lift
from driftproof.stats.codes import Status, VerdictCode
from driftproof.stats.lift import common_lifts

#: Every value the ``decision`` output can take.
DECISIONS: tuple[str, ...] = ("none", VerdictCode.REGRESSED, VerdictCode.IMPROVED)
DECISIONS += (Status.UNDERPOWERED, VerdictCode.INCONCLUSIVE, Status.NO_SEPARATION)
#: The ``fail-on`` word for "fail on regressed cases only beyond what noise alone gives".
BEYOND_NOISE = "beyond-noise"
#: The ``fail-on`` word for "fail when the new receipt measured nothing where the baseline did".
NOT_MEASURED = "not-measured"
#: ``fail-on`` when the input is blank or not given (``action.yml``'s default).
DEFAULT_FAIL_ON: tuple[str, ...] = (VerdictCode.REGRESSED, NOT_MEASURED)


def decide(c: Comparison) -> str:
    """The Action's decision for a comparison, one of :data:`DECISIONS`.

    ``none`` when a side gets no verdict (below TESTED, a smoke run, aggregates only, no judge,
    not measured, D-17), the judges differ (or their template, scale or service) or no case is
    in both; else ``regressed`` (a case did), ``improved`` (one did, none regressed),
    ``UNDERPOWERED`` (none separated, one underpowered), ``inconclusive`` (a case separated on
    its measured draws but not at every score its lost draws could have had, D-9), or ``no
    separation detected``.
    """
    if c.refusals or not c.rows:
        return "none"
    verdicts = {v.verdict for v in c.rows}
    if c.regressed or VerdictCode.REGRESSED in verdicts:
        return VerdictCode.REGRESSED
    if VerdictCode.IMPROVED in verdicts:
        return VerdictCode.IMPROVED
    if c.underpowered_sentence is not None:
        return Status.UNDERPOWERED
    if VerdictCode.INCONCLUSIVE in verdicts:
        return VerdictCode.INCONCLUSIVE
    return Status.NO_SEPARATION


def job_fails(c: Comparison, fail_on: Sequence[str]) -> bool:
    """Whether the job fails under ``fail_on``.

    It does when the decision is in ``fail_on``; when it is regressed beyond noise and
    ``fail_on`` names that; or when ``fail_on`` names :data:`NOT_MEASURED` and the new receipt
    did not measure a case the baseline measured (``c.unmeasured``).
    """
    decision, fa = decide(c), c.false_alarms
    beyond = BEYOND_NOISE in fail_on and fa is not None and fa.beyond_noise
    unmeasured = NOT_MEASURED in fail_on and bool(c.unmeasured)
    return decision in fail_on or (beyond and decision == VerdictCode.REGRESSED) or unmeasured


def action_outputs(a: Receipt, b: Receipt, c: Comparison) -> dict[str, str]:
    """The outputs named in ``action.yml`` for baseline ``a``, new receipt ``b``, comparison ``c``.

    The lifts are over the cases both measured in both arms (``n/a`` for a smoke run on either
    side, on an A/A calibration's side, or with no case scored in both arms); ``regressed-cases``
    and ``unmeasured-cases`` (the cases of ``c.unmeasured``, whatever the decision) are JSON
    arrays of ids; ``draws-needed`` is empty unless UNDERPOWERED with a count.
    """
    decision = decide(c)
    smoke = a.is_smoke or b.is_smoke
    regressed = [v.case_id for v in c.rows if v.verdict == VerdictCode.REGRESSED]
    needed = c.draws_needed if decision == Status.UNDERPOWERED else None
    common = common_lifts(a, b)
    lift_a, lift_b = common.a, common.b
    if not common.cases:
        # no case in common: own lifts only where one is none, never two over different cases
        own_a, own_b = suite_lift(a), suite_lift(b)
        if own_a is None or own_b is None:
            lift_a, lift_b = own_a, own_b
    return {
        "decision": decision,
        # n/a: a smoke run on either side; an A/A calibration's difference, which is noise
        "lift": format_lift(None if smoke or b.run.aa else lift_b, minus="-"),
        "baseline-lift": format_lift(None if smoke or a.run.aa else lift_a, minus="-"),
        "regressed-cases": json.dumps(regressed, ensure_ascii=True),
        "unmeasured-cases": json.dumps([u.case_id for u in c.unmeasured], ensure_ascii=True),
        "draws-needed": "" if needed is None else str(needed),
    }


def job_line(
    decision: str, fails: bool, fail_on: Sequence[str], unmeasured: tuple[UnmeasuredCase, ...] = ()
) -> str:
    """The decision and whether the job passes or fails, in plain words (no Markdown).

    ``No decision; the job passes (fail-on: regressed). Add "none" to fail-on to fail it.`` for
    ``none``; ``Decision: regressed; the job fails (fail-on: regressed).`` otherwise; the count of
    ``unmeasured`` before the job's fate: ``…; 5 cases not measured in the later receipt; …``.
    """
    lead = "No decision" if decision == "none" else f"Decision: {decision}"
    if gone := unmeasured_headline(unmeasured, ids=False):
        lead += f"; {gone}"
    line = f"{lead}; the job {'fails' if fails else 'passes'} (fail-on: {', '.join(fail_on)})."
    return line + (' Add "none" to fail-on to fail it.' if decision == "none" and not fails else "")


def parse_fail_on(value: str) -> list[str]:
    """The words that fail the job (blank: :data:`DEFAULT_FAIL_ON`), in any letter case.

    Raises:
        ValueError: a name that is no decision, or no name at all.
    """
    if not value.strip():
        return list(DEFAULT_FAIL_ON)
    choices = (*DECISIONS, BEYOND_NOISE, NOT_MEASURED)
    named = {str(x).lower(): str(x) for x in choices}  # the summary prints "underpowered"
    items = [x.strip() for x in value.split(",") if x.strip()]
    expected = f"expected any of {', '.join(choices)}"
    if not items:
        raise ValueError(f"fail-on: {value!r} names no decision; {expected}")
    if unknown := [x for x in items if x.lower() not in named]:
        raise ValueError(f"fail-on: unknown decision {unknown[0]!r}; {expected}")
    return [named[x.lower()] for x in items]
