"""``driftproof suite check SUITE…``: a suite's faults, found before any paid run."""

from __future__ import annotations

from pathlib import Path

import click

from driftproof.errors import SuiteError


@click.group()
def suite() -> None:
    """Work with suites (the test tasks a skill is measured on)."""


@suite.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
def check(files: tuple[Path, ...]) -> None:
    """Validate each suite as driftproof run does, then run its checks on its examples.

    Exit 1 when run would refuse a case or an example disagrees.

    A known-good example must pass every check of its case; a known-bad one must fail at
    least one. Suites that cannot be read exit 2 with one line per problem.
    """
    from driftproof.pages.words import count_of
    from driftproof.render.escape import terminal_safe
    from driftproof.run.checks import example_failures  # deferred: start-up time of --help
    from driftproof.run.suite import load_suite, require_gradable

    failed = 0
    for f in files:
        s = load_suite(f)
        refused: list[str] = []
        try:
            require_gradable(s)  # the very function run calls before any call
        except SuiteError as exc:
            refused = [str(p) for p in exc.problems]
        for line in refused:  # the status line below says that driftproof run refuses them
            click.echo(terminal_safe(line))
        n_refused = (
            sum(1 for c in s.cases if c.refusal or (c.rubric is None and not c.criteria))
            if refused
            else 0
        )
        if n_refused > len(refused):
            more = count_of(n_refused - len(refused), "more case")
            click.echo(f"{f}: … and {more} driftproof run refuses")
        lines = [f"{f}: {line}" for case in s.cases for line in example_failures(case)]
        n_ex = sum(len(c.examples_pass) + len(c.examples_fail) for c in s.cases)
        n_checks = sum(len(c.checks) for c in s.cases)
        for line in lines:
            click.echo(terminal_safe(line))
        failed += len(lines) + len(refused)
        parts = (
            [f"driftproof run refuses {count_of(max(n_refused, 1), 'case')}"] if refused else []
        ) + ([count_of(len(lines), "disagreement")] if lines else [])
        status = "; ".join(parts) if parts else "ok"
        click.echo(
            terminal_safe(
                f"{f}: {status} ({s.format} suite, {count_of(len(s.cases), 'case')}, "
                f"{count_of(n_checks, 'check')}, {count_of(n_ex, 'example')})"
            )
        )
    if failed:
        raise SystemExit(1)
