"""State reaches a command as an argument, never through the click context or a module global."""

from __future__ import annotations

import ast
from pathlib import Path

import click
import pytest

import driftproof.cli
from driftproof.cli import import_formats

CLI = Path(driftproof.cli.__file__).parent
#: helper F's file, whose caveman command still reads --force from the context
_PENDING = {"import_.py"}


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
