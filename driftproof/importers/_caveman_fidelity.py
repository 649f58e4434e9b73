"""caveman's fidelity eval: a snapshot's outputs checked as ``score_fidelity.py`` checks them.

Each ``must_include``/``must_not_include`` pattern (case-insensitive ``re.search``) is one check
named ``/<pattern>/``; checks are never a score or a verdict (D-15).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from driftproof.errors import ImportError_, SuiteError
from driftproof.importers._common import Where
from driftproof.run.checks import CheckTimeout, check_passes
from driftproof.run.suite import load_suite
from driftproof.run.suite_fields import CheckSpec, Suite, SuiteCase

#: Characters: the receipt's check-name limit (200) less the two slashes around a pattern.
PATTERN_MAX_CHARS = 198


def read_cases(path: str | Path) -> Suite:
    """Caveman's ``prompts/fidelity.json`` as a suite, each case with a category and unique prompt.

    Raises:
        ImportError_: naming the case file, the JSON pointer and what was expected.
    """
    shown = str(path)
    try:
        suite = load_suite(path)
    except SuiteError as exc:
        raise ImportError_(str(exc), exc.problems) from None
    if suite.format != "caveman-fidelity":
        raise Where(shown).fail(
            'expected caveman\'s fidelity case file {"cases": [{id, category, prompt, checks}]}'
        )
    cases = []
    seen: dict[str, str] = {}
    for c in suite.cases:
        if c.category is None:
            raise ImportError_.at(
                shown, f"{c.pointer}/category", "expected the case's category (a string)"
            )
        if c.prompt in seen:
            raise ImportError_.at(
                shown,
                f"{c.pointer}/prompt",
                f"expected a prompt no other case has; the case at {seen[c.prompt]} has it too",
            )
        seen[c.prompt] = c.pointer
        checks = []
        for j, spec in enumerate(c.checks):
            pattern = spec.pattern or ""
            if len(pattern) > PATTERN_MAX_CHARS:
                n = sum(s.kind == spec.kind for s in c.checks[:j])
                raise ImportError_.at(
                    shown,
                    f"{c.pointer}/checks/{spec.kind}/{n}",
                    f"expected a pattern of at most {PATTERN_MAX_CHARS} characters (a check's "
                    f"name is the pattern), found {len(pattern)}",
                )
            checks.append(CheckSpec(f"/{pattern}/", spec.kind, pattern=pattern, ignore_case=True))
        cases.append(replace(c, checks=tuple(checks)))
    return replace(suite, cases=tuple(cases))


def match_cases(cases: Suite, prompts: list[str], shown: str) -> list[SuiteCase]:
    """The case of each snapshot prompt, in snapshot order.

    Raises:
        ImportError_: a snapshot prompt no case has, or one the snapshot holds twice (naming
            the snapshot and ``/prompts/<i>``), or a case whose prompt the snapshot does not
            have (naming the case file and ``/cases/<j>/prompt``).
    """
    by_prompt = {c.prompt: c for c in cases.cases}
    first: dict[str, int] = {}
    for i, prompt in enumerate(prompts):
        w = Where(shown) / "prompts" / i
        if prompt not in by_prompt:
            raise w.fail(
                f"expected the prompt of a case in {cases.path}; no case has this prompt "
                "(the cases changed since the snapshot ran: rerun the fidelity eval)"
            )
        if prompt in first:
            raise w.fail(f"expected each case once; this prompt is also /prompts/{first[prompt]}")
        first[prompt] = i
    for c in cases.cases:
        if c.prompt not in first:
            raise ImportError_.at(
                cases.path,
                f"{c.pointer}/prompt",
                f"expected this case's prompt in the snapshot {shown}; it is not there "
                "(the case was added or changed since the snapshot ran: rerun the fidelity eval)",
            )
    return [by_prompt[p] for p in prompts]


def check_results(case: SuiteCase, output: str, shown: str, where: str) -> list[dict[str, Any]]:
    """Every check of ``case`` on ``output``, as receipt ``checks[]`` entries in case order.

    Raises:
        ImportError_: a pattern's search did not finish in time (naming the snapshot cell):
            the scorer would hang there, so no pass or fail can be stated.
    """
    out = []
    for spec in case.checks:
        try:
            passed = check_passes(spec, output)
        except CheckTimeout as exc:
            raise ImportError_.at(
                shown,
                where,
                f"{exc} on this output (case {case.id}); expected a check that finishes",
            ) from None
        out.append({"name": spec.name, "kind": spec.kind, "pass": passed})
    return out
