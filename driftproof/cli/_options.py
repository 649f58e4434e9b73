"""Click parameter types and option decorators shared by the commands.

Each decorator spells one kind of option once (its type, range and whether the help shows
the default), so that commands declaring the same kind declare it alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

__all__ = [
    "EXISTING_FILE",
    "FILE",
    "choice_option",
    "format_option",
    "input_file_option",
    "openai_api_option",
    "path_option",
    "seconds_option",
    "tokens_option",
]

#: A file that must exist (a folder is refused), given to the command as a :class:`Path`.
EXISTING_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)
#: A file path (a folder is refused) that need not exist yet, as a :class:`Path`.
FILE = click.Path(dir_okay=False, path_type=Path)


def choice_option(
    *decls: str, choices: Sequence[str], default: str, help: str | None = None
) -> Any:
    """An option taking one of ``choices`` (case-sensitive).

    ``default`` applies when the option is not given and is shown in the help. ``decls`` are
    click's: the option names, then the parameter name.
    """
    return click.option(
        *decls, type=click.Choice(list(choices)), default=default, show_default=True, help=help
    )


def format_option(choices: Sequence[str], help: str | None = None) -> Any:
    """``--format FMT`` (the command's parameter ``fmt``): the output format, default ``text``."""
    return choice_option("--format", "fmt", choices=choices, default="text", help=help)


def openai_api_option(help: str | None = None) -> Any:
    """``--openai-api responses|chat``: the OpenAI API shape a lane calls (default responses)."""
    return choice_option(
        "--openai-api", choices=["responses", "chat"], default="responses", help=help
    )


def input_file_option(name: str, dest: str, help: str) -> Any:
    """A required option naming a file the command reads, passed as a :class:`Path` to ``dest``.

    The file must exist; a folder is refused.
    """
    return click.option(name, dest, required=True, type=EXISTING_FILE, help=help)


def tokens_option(name: str, default: int, help: str) -> Any:
    """An output budget in tokens: an integer from 1 to 1,000,000, ``default`` shown in the help."""
    return click.option(
        name, type=click.IntRange(1, 1_000_000), default=default, show_default=True, help=help
    )


def seconds_option(
    name: str, default: float, help: str | None = None, *, minimum: float = 0.01
) -> Any:
    """A duration in seconds: a float of at least ``minimum``, ``default`` shown in the help."""
    return click.option(
        name, type=click.FloatRange(min=minimum), default=default, show_default=True, help=help
    )


def path_option(*decls: str, help: str) -> Any:
    """An optional path (file or folder, need not exist), given as a :class:`Path` or ``None``.

    ``decls`` are click's: the option names, then the parameter name.
    """
    return click.option(*decls, type=click.Path(path_type=Path), default=None, help=help)
