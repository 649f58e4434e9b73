"""Click parameter types shared by the commands."""

from __future__ import annotations

from pathlib import Path

import click

__all__ = ["EXISTING_FILE"]

#: A file that must exist (a folder is refused), given to the command as a :class:`Path`.
EXISTING_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)
