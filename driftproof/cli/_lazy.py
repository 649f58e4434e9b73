"""A click group that imports a command's module only when the command is used.

click's documented lazy-loading pattern, plus the group's help listed from a static table of short
helps (``tests/cli/test_lazy.py`` holds each equal to the command's own).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

import click
from click.formatting import HelpFormatter


class LazyGroup(click.Group):
    """A group whose commands are named in a table and imported when first used."""

    def __init__(
        self, *args: Any, lazy: Mapping[str, tuple[str, str | None]], **kwargs: Any
    ) -> None:
        """``lazy``: command name -> ``("module:attribute", short help)``; the rest is click's.

        With any short help ``None``, the help lists the commands as click does (loading them).
        """
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy)

    def list_commands(self, ctx: click.Context) -> list[str]:
        """The table's command names, sorted."""
        return sorted(self.lazy)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command named ``cmd_name``, its module imported on first use; ``None`` if unknown.

        Raises:
            TypeError: the table names an attribute that is not a click command.
        """
        if cmd_name not in self.lazy:
            return None
        module, attr = self.lazy[cmd_name][0].split(":")
        command = getattr(importlib.import_module(module), attr)
        if not isinstance(command, click.Command):
            raise TypeError(f"{module}:{attr} is not a click command")
        return command

    def format_commands(self, ctx: click.Context, formatter: HelpFormatter) -> None:
        """Write the commands section from the table, as click would from the commands."""
        if any(short is None for _, short in self.lazy.values()):
            return super().format_commands(ctx, formatter)
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max((len(name) for name in names), default=0)
        rows = [
            (n, click.Command(n, help=self.lazy[n][1]).get_short_help_str(limit)) for n in names
        ]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)
