"""State reaches a command as an argument, never through the click context or a module global."""

from __future__ import annotations

import ast
from pathlib import Path

import click
import pytest

import driftproof.cli
from driftproof.cli import import_formats

CLI = Path(driftproof.cli.__file__).parent
#: files whose commands still read state from the click context (none)
_PENDING: set[str] = set()


_COMMANDS = sorted(n for n, v in vars(import_formats).items() if isinstance(v, click.Command))


@pytest.mark.parametrize("name", _COMMANDS)
def test_every_import_command_takes_force_and_out_dir_as_arguments(name: str) -> None:
    command = getattr(import_formats, name)
    exposed = {p.name for p in command.params if p.expose_value}
    assert {"force", "out_dir"} <= exposed


@pytest.mark.parametrize(
    "path", sorted(p for p in CLI.glob("*.py") if p.name not in _PENDING), ids=lambda p: p.name
)
def test_no_command_reads_the_click_context_or_keeps_global_state(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert not names & {"meta", "get_current_context", "find_root"}
    assert not any(isinstance(n, ast.Global) for n in ast.walk(tree))


@pytest.mark.parametrize("given", ["5,x", "nan", "-1", "1,inf", "1e308", "3601"])
@pytest.mark.parametrize("command", ["run", "regrade"])
def test_retry_delays_that_are_not_seconds_are_a_usage_error_not_a_traceback(
    tmp_path: Path, command: str, given: str
) -> None:
    from click.testing import CliRunner

    from driftproof.cli import cli

    files = [tmp_path / n for n in ("a.yaml", "SKILL.md")]
    for f in files:
        f.write_text("x", encoding="utf-8")
    args = {
        "run": [str(files[0]), "--skill", str(files[1]), "--provider", "stub"],
        "regrade": [str(files[0]), "--rubric", str(files[1])],
    }[command]
    res = CliRunner().invoke(
        cli, [command, *args, "--out", str(tmp_path / "o.json"), "--retry-delays", given]
    )
    assert res.exit_code == 2, res.output
    assert f"expected seconds separated by commas, each 0 to 3600; found {given!r}" in res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)
    assert not (tmp_path / "o.json").exists()
