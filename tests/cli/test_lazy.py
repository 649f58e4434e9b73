"""The command line loads a command only when it is used (issue 34, start-up).

``driftproof --help`` lists the commands from a static table; these tests hold the table equal
to each command's own help, the group's help equal to what click prints with every command
loaded, and each ``--help`` free of the library's heavy modules (no timing: what is imported).
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from driftproof.cli import COMMANDS, cli

#: Modules no --help may import: the receipt model, the page models, the statistics, the
#: importers, the site, the run engine, and the third-party libraries behind them.
HEAVY = (
    "driftproof.receipt",
    "driftproof.pages",
    "driftproof.stats",
    "driftproof.importers",
    "driftproof.render",
    "driftproof.site",
    "driftproof.run.engine",
    "pydantic",
    "jsonschema",
    "numpy",
    "rich",
    "openai",
    "anthropic",
)


def short_help(command: click.Command) -> str:
    """The text a group's help lists for ``command``, before it is fitted to the terminal."""
    return command.get_short_help_str(limit=10_000)


def _loaded(name: str) -> click.Command:
    cmd = cli.get_command(click.Context(cli), name)
    assert cmd is not None
    return cmd


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_static_table_says_what_each_command_says(name: str) -> None:
    assert COMMANDS[name] == short_help(_loaded(name))


def _whole(command: click.Command) -> click.Command:
    """``command`` as click would list it with its first line given whole as its short help."""
    listed = copy.copy(command)
    listed.short_help = short_help(command)
    return listed


@pytest.mark.parametrize("width", [50, 80, 120, 200])
def test_the_group_help_is_what_click_prints_with_every_command_loaded(width: int) -> None:
    # each command's line is listed whole, wrapped to the width: click cut five of them at 80
    # columns with "..." ("Write a demo of the method on simulated data into DIR...")
    eager = click.Group(
        "cli",
        commands={name: _whole(_loaded(name)) for name in COMMANDS},
        help=cli.help,
        params=cli.params,
        context_settings=cli.context_settings,
    )
    lazy = CliRunner().invoke(cli, ["--help"], terminal_width=width)
    full = CliRunner().invoke(eager, ["--help"], terminal_width=width)
    assert lazy.exit_code == full.exit_code == 0
    assert lazy.output == full.output
    listed = " ".join(lazy.output.split("Commands:")[1].split())
    assert "..." not in listed
    assert "into DIR (default: driftproof-demo)." in listed


def test_the_group_help_imports_no_command() -> None:
    assert _modules_after([]) & {target.split(":")[0] for target, _ in cli.lazy.values()} == set()


def _modules_after(argv: list[str]) -> set[str]:
    """The modules a fresh interpreter has imported after ``driftproof ARGV --help``."""
    code = (
        "import json, sys\n"
        "from driftproof.cli import main\n"
        "try:\n"
        f"    main({argv!r} + ['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "sys.stderr.write(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "Usage: driftproof" in done.stdout
    return set(json.loads(done.stderr))


def _command_lines() -> list[list[str]]:
    lines = []
    for name in sorted(COMMANDS):
        lines.append([name])
        cmd = _loaded(name)
        if isinstance(cmd, click.Group):
            lines += [[name, sub] for sub in cmd.list_commands(click.Context(cmd))]
    return lines


@pytest.mark.parametrize(
    "argv",
    [pytest.param(line, id=" ".join(line)) for line in _command_lines()],
)
def test_a_command_help_imports_none_of_the_heavy_modules(argv: list[str]) -> None:
    loaded = _modules_after(argv)
    heavy = sorted(m for m in loaded if m.startswith(HEAVY))
    assert heavy == []
