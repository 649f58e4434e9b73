"""The shared option decorators of :mod:`driftproof.cli._options`: each kind of option keeps
the type, range and default the commands declared it with (issue #18)."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from driftproof.cli._options import (
    choice_option,
    format_option,
    input_file_option,
    seconds_option,
    tokens_option,
)


@click.command()
@tokens_option("--budget", 8192, "Output budget.")
@seconds_option("--wait", 300.0, "Seconds per attempt.")
@seconds_option("--poll", 60.0, minimum=0.0)
@choice_option("--surface", choices=["api", "cli"], default="api")
@format_option(["text", "json"])
def probe(budget: int, wait: float, poll: float, surface: str, fmt: str) -> None:
    click.echo(f"{budget} {wait} {poll} {surface} {fmt}")


def _run(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(probe, list(args))
    return r.exit_code, r.output


def test_defaults_when_nothing_is_given() -> None:
    assert _run() == (0, "8192 300.0 60.0 api text\n")


@pytest.mark.parametrize(
    ("args", "ok"),
    [
        (["--budget", "1"], True),  # a budget is 1 to 1,000,000 tokens
        (["--budget", "1000000"], True),
        (["--budget", "0"], False),
        (["--budget", "1000001"], False),
        (["--wait", "0.01"], True),  # a duration is at least 0.01 s unless told otherwise
        (["--wait", "0.009"], False),
        (["--poll", "0"], True),  # --poll was declared with minimum 0
        (["--poll", "-0.5"], False),
        (["--surface", "cli"], True),
        (["--surface", "API"], False),  # choices are case-sensitive
        (["--format", "json"], True),
        (["--format", "markdown"], False),
    ],
)
def test_ranges_and_choices(args: list[str], ok: bool) -> None:
    code, _ = _run(*args)
    assert (code == 0) is ok
    if not ok:
        assert code == 2  # click's usage error


def test_help_shows_every_default() -> None:
    code, out = _run("--help")
    assert code == 0
    # click writes a range beside the default: "[default: 8192; 1<=x<=1000000]"
    for shown in ("default: 8192;", "default: 300.0;", "default: 60.0;", "[default: api]"):
        assert shown in out
    assert "[default: text]" in out
    assert "1<=x<=1000000" in out
    assert "x>=0.01" in out
    assert "x>=0.0]" in out


def test_input_file_option_is_required_and_must_exist(tmp_path: Path) -> None:
    @click.command()
    @input_file_option("--skill", "skill_path", "The SKILL.md to measure.")
    def cmd(skill_path: Path) -> None:
        click.echo(repr(type(skill_path).__name__))

    runner = CliRunner()
    assert runner.invoke(cmd, []).exit_code == 2
    assert runner.invoke(cmd, ["--skill", str(tmp_path / "missing.md")]).exit_code == 2
    assert runner.invoke(cmd, ["--skill", str(tmp_path)]).exit_code == 2  # a folder is refused
    f = tmp_path / "SKILL.md"
    f.write_text("x", encoding="utf-8")
    r = runner.invoke(cmd, ["--skill", str(f)])
    assert r.exit_code == 0
    assert r.output.strip().strip("'") in ("PosixPath", "WindowsPath")
