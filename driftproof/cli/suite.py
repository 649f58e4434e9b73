"""``driftproof suite check SUITE…``: a suite's faults, found before any paid run."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from driftproof.errors import SuiteError
from driftproof.wording import count_of, first_of

if TYPE_CHECKING:
    from driftproof.run.suite_fields import Suite


@click.group()
def suite() -> None:
    """Work with suites (the test cases a skill is measured on)."""


@suite.command(short_help="Validate suites as run does and check their examples.")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
def check(files: tuple[Path, ...]) -> None:
    """Validate each suite as driftproof run does, then run its checks on its examples.

    A known-good example must pass every check of its case; a known-bad one must fail at
    least one. Each suite's last line says how many cases run refuses and whether its examples
    agree with their checks.

    Exit status: 0 when run would grade every case and every example agrees; 1 when run would
    refuse a case or an example disagrees (caveman's fidelity.json always exits 1: its cases
    carry checks and no rubric, so run refuses every one, and one line says so); 2 when a
    suite cannot be read, with one line per problem.
    """
    from driftproof.render.escape import terminal_safe
    from driftproof.run.checks import example_failures  # deferred: start-up time of --help
    from driftproof.run.suite import load_suite

    failed = 0
    for f in files:
        s = load_suite(f)
        refused, n_refused = _refusals(s, f)
        for line in refused:  # the status line below says that driftproof run refuses them
            click.echo(terminal_safe(line))
        lines = [f"{f}: {line}" for case in s.cases for line in example_failures(case)]
        n_ex = sum(len(c.examples_pass) + len(c.examples_fail) for c in s.cases)
        n_checks = sum(len(c.checks) for c in s.cases)
        for line in lines:
            click.echo(terminal_safe(line))
        failed += len(lines) + n_refused
        status = _status(n_refused, len(lines), n_ex)
        click.echo(
            terminal_safe(
                f"{f}: {status} ({s.format} suite, {count_of(len(s.cases), 'case')}, "
                f"{count_of(n_checks, 'check')}, {count_of(n_ex, 'example')})"
            )
        )
    if failed:
        raise SystemExit(1)


def _status(n_refused: int, n_disagreements: int, n_examples: int) -> str:
    """The suite's last line before its counts: ``ok``, or what run refuses and the examples."""
    if not n_refused and not n_disagreements:
        return "ok"
    if n_disagreements:
        examples = count_of(n_disagreements, "disagreement")
    elif n_examples == 1:
        examples = "the 1 example agrees with its checks"
    elif n_examples:
        examples = f"the {n_examples:,} examples agree with their checks"
    else:
        examples = "no example to check"
    refuses = [f"driftproof run refuses {count_of(n_refused, 'case')}"] if n_refused else []
    return "; ".join([*refuses, examples])


def _refusals(s: Suite, f: Path) -> tuple[list[str], int]:
    """The lines saying which cases of ``s`` run refuses, and how many cases it refuses.

    Cases of caveman's fidelity.json that carry checks and no rubric or criteria share one
    line (run refuses each for that one reason); any other refusal has a line of its own.
    """
    from driftproof.run.suite import CAVEMAN_UNGRADED, require_gradable

    ungraded = [c for c in s.cases if not c.refusal and c.rubric is None and not c.criteria]
    n_refused = sum(1 for c in s.cases if c.refusal) + len(ungraded)
    shared = ungraded if s.format == "caveman-fidelity" else []
    lines: list[str] = []
    try:  # the very function run calls before any call
        require_gradable(replace(s, cases=tuple(c for c in s.cases if c not in shared)))
    except SuiteError as exc:
        lines = [str(p) for p in exc.problems]
        if n_refused - len(shared) > len(lines):
            more = count_of(n_refused - len(shared) - len(lines), "more case")
            lines.append(f"{f}: … and {more} driftproof run refuses")
    if shared:
        which = (
            "no case has a"
            if len(shared) == len(s.cases)
            else f"{count_of(len(shared), 'case')} ({first_of([c.id for c in shared], 3)}) "
            + ("has no" if len(shared) == 1 else "have no")
        )
        why = CAVEMAN_UNGRADED.format(cases="cases", path=f)
        lines.insert(0, f"{f}: {which} rubric or criteria {why}")
    return lines, n_refused
