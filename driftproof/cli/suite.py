"""``driftproof suite check SUITE…``: run every case's checks against its known-good and
known-bad example answers, so a check that rejects a correct answer fails before any paid run."""

from __future__ import annotations

from pathlib import Path

import click

from driftproof.run.checks import example_failures
from driftproof.run.suite import load_suite


@click.group()
def suite() -> None:
    """Work with suites (the test tasks a skill is measured on)."""


@suite.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
def check(files: tuple[Path, ...]) -> None:
    """Validate each suite and run its checks on its examples; exit 1 on any disagreement.

    A known-good example must pass every check of its case; a known-bad one must fail at
    least one. Suites that cannot be read exit 2 with one line per problem.
    """
    failed = 0
    for f in files:
        s = load_suite(f)
        lines = [f"{f}: {line}" for case in s.cases for line in example_failures(case)]
        n_ex = sum(len(c.examples_pass) + len(c.examples_fail) for c in s.cases)
        n_checks = sum(len(c.checks) for c in s.cases)
        for line in lines:
            click.echo(line)
        failed += len(lines)
        status = f"{len(lines)} disagreement(s)" if lines else "ok"
        click.echo(f"{f}: {status} ({s.format} suite, {len(s.cases)} cases, {n_checks} checks, {n_ex} examples)")
    if failed:
        raise SystemExit(1)
