"""Click parameter types shared by the commands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

__all__ = ["EXISTING_FILE", "FILE", "openai_api_option"]

#: A file that must exist (a folder is refused), given to the command as a :class:`Path`.
EXISTING_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)
#: A file path (a folder is refused) that need not exist yet, as a :class:`Path`.
FILE = click.Path(dir_okay=False, path_type=Path)


def openai_api_option(help: str | None = None) -> Any:
    """``--openai-api responses|chat``: the OpenAI API shape a lane calls (default responses)."""
    return click.option(
        "--openai-api",
        type=click.Choice(["responses", "chat"]),
        default="responses",
        show_default=True,
        help=help,
    )
