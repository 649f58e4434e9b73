"""Deterministic post-checks: run beside the judge, recorded as ``{name, kind, pass}``.

Method, "Deterministic post-checks": they simply hold or don't, with no LLM judgment, and
are never folded into the case outcome or the verdict. Regexes use Python ``re.search``
(caveman's fidelity checks are case-insensitive ``re.search``).

Structures:
    ``conventional_commit_subject``  some line is a Conventional Commits 1.0.0 subject,
        ``type(scope)!: description``, type one of the @commitlint/config-conventional types;
    ``fenced_code_block``            the answer holds a fenced code block (``` or ~~~);
    ``non_empty``                    the answer holds a non-space character.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from driftproof.run.suite import CheckSpec

__all__ = ["CONVENTIONAL_TYPES", "check_passes", "example_failures", "run_checks"]

#: The types of @commitlint/config-conventional (type-enum).
CONVENTIONAL_TYPES = ("build", "chore", "ci", "docs", "feat", "fix", "perf", "refactor", "revert", "style", "test")
_CC = re.compile(r"^(?:%s)(?:\([^()\r\n]+\))?!?: \S" % "|".join(CONVENTIONAL_TYPES))
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)", re.M)

_STRUCTURES: dict[str, Callable[[str], bool]] = {
    "conventional_commit_subject": lambda a: any(_CC.match(line.strip()) for line in a.splitlines()),
    "fenced_code_block": lambda a: bool(_FENCE.search(a)),
    "non_empty": lambda a: bool(a.strip()),
}


def check_passes(spec: CheckSpec, answer: str) -> bool:
    """Whether one check holds on ``answer``."""
    if spec.kind == "structural":
        return _STRUCTURES[spec.structure or ""](answer)
    found = re.search(spec.pattern or "", answer, re.IGNORECASE if spec.ignore_case else 0) is not None
    return not found if spec.kind == "must_not_include" else found


def run_checks(specs: Iterable[CheckSpec], answer: str) -> list[dict[str, Any]]:
    """Every check's result in suite order, as receipt ``checks[]`` entries."""
    return [{"name": s.name, "kind": s.kind, "pass": check_passes(s, answer)} for s in specs]


def example_failures(case: Any) -> list[str]:
    """Where a case's checks disagree with its own examples (``driftproof suite check``).

    A known-good example (``examples.pass``) must pass every check; a known-bad one
    (``examples.fail``) must fail at least one. Returns one line per disagreement, naming the
    case, the example (by pointer) and the check.
    """
    out: list[str] = []
    for i, good in enumerate(case.examples_pass):
        for spec in case.checks:
            if not check_passes(spec, good):
                out.append(f"{case.pointer}/examples/pass/{i}: check {spec.name!r} rejects this known-good answer")
    for i, bad in enumerate(case.examples_fail):
        if case.checks and all(check_passes(s, bad) for s in case.checks):
            out.append(f"{case.pointer}/examples/fail/{i}: every check accepts this known-bad answer")
    return out
