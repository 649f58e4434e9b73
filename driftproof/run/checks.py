"""Deterministic post-checks, run beside the judge and never folded into an outcome or verdict.

Regexes are searched as ``re.search`` would, with a time limit (:data:`CHECK_TIMEOUT_S`): a
check that cannot finish does not hold.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

import regex

from driftproof.run.suite_fields import CheckSpec

#: Seconds one regex check may search one answer before it is given up.
CHECK_TIMEOUT_S = 1.0


class CheckTimeout(Exception):
    """A regex check did not finish within :data:`CHECK_TIMEOUT_S`."""


#: The types of @commitlint/config-conventional (type-enum).
CONVENTIONAL_TYPES = tuple("build chore ci docs feat fix perf refactor revert style test".split())
_CC = re.compile(r"^(?:{})(?:\([^()\r\n]+\))?!?: \S".format("|".join(CONVENTIONAL_TYPES)))
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)", re.M)

#: Each structure's test: some line is a Conventional Commits 1.0.0 subject of one of
#: :data:`CONVENTIONAL_TYPES`; a fenced code block; any text at all.
_STRUCTURES: dict[str, Callable[[str], bool]] = {
    "conventional_commit_subject": lambda a: any(
        _CC.match(line.strip()) for line in a.splitlines()
    ),
    "fenced_code_block": lambda a: bool(_FENCE.search(a)),
    "non_empty": lambda a: bool(a.strip()),
}


def check_passes(spec: CheckSpec, answer: str, *, timeout: float = CHECK_TIMEOUT_S) -> bool:
    """Whether one check holds on ``answer``.

    Raises:
        CheckTimeout: a regex search ran past ``timeout`` seconds.
    """
    if spec.kind == "structural":
        return _STRUCTURES[spec.structure or ""](answer)
    flags = regex.IGNORECASE if spec.ignore_case else 0
    try:
        found = regex.search(spec.pattern or "", answer, flags, timeout=timeout) is not None
    except TimeoutError:
        raise CheckTimeout(f"check {spec.name!r} did not finish within {timeout:g} s") from None
    return not found if spec.kind == "must_not_include" else found


def _holds(spec: CheckSpec, answer: str) -> bool:
    try:
        return check_passes(spec, answer)
    except CheckTimeout:
        return False  # a check that cannot finish does not hold


def run_checks(specs: Iterable[CheckSpec], answer: str) -> list[dict[str, Any]]:
    """Every check's result in suite order as ``checks[]`` entries; a timed-out regex fails."""
    return [{"name": s.name, "kind": s.kind, "pass": _holds(s, answer)} for s in specs]


def example_failures(case: Any) -> list[str]:
    """:func:`example_disagreements` of ``case`` as lines ``where: what`` (``suite check``)."""
    return [f"{where}: {what}" for where, what in example_disagreements(case)]


def example_disagreements(case: Any) -> list[tuple[str, str]]:
    """(JSON pointer, what is wrong) per place ``case``'s checks disagree with its examples.

    A known-good example must pass every check; a known-bad one must fail at least one. A check
    that times out on an example disagrees too.
    """
    out: list[tuple[str, str]] = []
    for kind, examples in (("pass", case.examples_pass), ("fail", case.examples_fail)):
        for i, answer in enumerate(examples):
            where = f"{case.pointer}/examples/{kind}/{i}"
            results: list[bool | None] = []  # None: the check timed out
            for spec in case.checks:
                try:
                    results.append(check_passes(spec, answer))
                except CheckTimeout as exc:
                    out.append((where, f"{exc} (a pattern that backtracks without end?)"))
                    results.append(None)
            if kind == "pass":
                out.extend(
                    (where, f"check {spec.name!r} rejects this known-good answer")
                    for spec, ok in zip(case.checks, results, strict=True)
                    if ok is False
                )
            elif case.checks and all(ok is True for ok in results):
                out.append((where, "every check accepts this known-bad answer"))
    return out
