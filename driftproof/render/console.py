"""The rich console the commands print through: its text written by ``click.echo``.

``click.echo`` writes UTF-8 to a stream set to ASCII (``PYTHONIOENCODING=ascii``, ``LC_ALL=C``),
as every plain line of the command line is written; rich alone would fail on its first ``±``.
"""

from __future__ import annotations

import sys
from typing import IO, Any, cast

import click
from rich.console import Console


class _Echoed:
    """A text file whose writes go through ``click.echo`` to stdout (``err``: stderr)."""

    encoding = "utf-8"  # what click.echo writes to a stream of any encoding

    def __init__(self, err: bool) -> None:
        self.err = err

    def write(self, text: str) -> int:
        click.echo(text, nl=False, err=self.err)
        return len(text)

    def flush(self) -> None:
        if (stream := self._stream()) is not None:
            stream.flush()

    def isatty(self) -> bool:
        return (stream := self._stream()) is not None and stream.isatty()

    def _stream(self) -> IO[str] | None:
        """The stream written, ``None`` when the process was started without it (``2>&-``)."""
        return sys.stderr if self.err else sys.stdout


class TextConsole(Console):
    """rich's console writing through ``click.echo``; a closed stdout is a ``BrokenPipeError``.

    ``stderr``: write to standard error, not output; the rest is rich's.
    """

    def __init__(self, *, stderr: bool = False, **kwargs: Any) -> None:
        """A console on standard output (``stderr``: on standard error), written through click."""
        super().__init__(file=cast("IO[str]", _Echoed(stderr)), **kwargs)  # what rich calls

    def on_broken_pipe(self) -> None:
        """Stop writing and raise, so that the command line exits as for any closed stdout."""
        self.quiet = True
        raise BrokenPipeError
