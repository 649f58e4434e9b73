"""Click parameter types and option decorators: each kind of option spelled once, alike everywhere.

``decls`` are click's: the option names, then the parameter name. A default is shown in the help.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import click

from driftproof.outputs import refuse_folder_name
from driftproof.wording import is_blank


def terminal_width(stream: TextIO | None = None) -> int | None:
    """The width in characters of the terminal ``stream`` is, or ``None`` when it is none.

    ``stream``: standard output by default; standard error for error lines. The width is
    ``COLUMNS`` when set to a positive number, else the terminal's own (80 when it reports none).
    A pipe, a file or a test gets ``None``: the text renderers then lay out as always.
    """
    stream = sys.stdout if stream is None else stream
    if not stream.isatty():
        return None
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(stream.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


def fit_terminal(text: str, stream: TextIO | None = None) -> str:
    """``text`` wrapped to the terminal ``stream`` is (:func:`terminal_width`), else unchanged.

    Off a terminal (a pipe, a file, a test) not a byte changes; on one, every line is fitted
    by :func:`~driftproof.render.escape.fit_text`.
    """
    from driftproof.render.escape import fit_text  # deferred: start-up time of --help

    width = terminal_width(stream)
    return text if width is None else fit_text(text, width)


class FiniteRange(click.FloatRange):
    """A :class:`click.FloatRange` that also refuses ``nan`` and ``inf`` (they pass its bounds)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The number, or click's usage error for a value that is not a finite number."""
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


class Delays(click.ParamType):
    """Seconds separated by commas, each a number from 0 to 3600: a tuple of floats."""

    name = "seconds,..."

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The delays, or click's usage error naming the value given."""
        if isinstance(value, tuple):
            return value
        try:
            delays = tuple(float(x) for x in str(value).split(",") if x.strip())
        except ValueError:
            delays = (math.nan,)
        if not all(0 <= d <= 3600 for d in delays):  # nan compares false
            self.fail(f"expected seconds separated by commas, each 0 to 3600; found {value!r}.")
        return delays


class _File(click.Path):
    """A file's path that need not exist yet: a folder is refused, one named ``x/`` too."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The :class:`Path`, or a refusal of a name ending in ``/``, ``.`` or ``..``."""
        if isinstance(value, str):  # the text as typed: Path("x/") is Path("x")
            refuse_folder_name(value, _name(param))
        return super().convert(value, param, ctx)


def _name(param: click.Parameter | None) -> str:
    """How a message names ``param``: ``--out`` when that is one of its names, else its first."""
    if not isinstance(param, click.Option):
        return param.human_readable_name if param is not None else "FILE"
    return "--out" if "--out" in param.opts else param.opts[0]


class _Existing(click.Path):
    """click's path that must exist; one there but not reachable is refused with its reason.

    A loop of symbolic links, or a folder not searchable on the way, is refused in the words
    ``validate`` gives, not as a path that does not exist.
    """

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The path as click converts it, or a refusal naming the reason it cannot be read."""
        try:
            os.stat(value)
        except FileNotFoundError:
            pass  # click says it does not exist
        except OSError as exc:
            self.fail(f"{value}: cannot read: {exc.strerror}")
        return super().convert(value, param, ctx)


#: A file that must exist (a folder is refused), given to the command as a :class:`Path`.
EXISTING_FILE = _Existing(exists=True, dir_okay=False, path_type=Path)
#: A file or folder that must exist, given to the command as a :class:`Path`.
EXISTING_PATH = _Existing(exists=True, path_type=Path)
#: A file path (a folder is refused) that need not exist yet, as a :class:`Path`.
FILE = _File(dir_okay=False, path_type=Path)


def model_id(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    """A ``--model``-like option's callback: a model id of 1 to 200 characters, not blank."""
    if value is not None and is_blank(value):
        raise click.BadParameter("expected a model id, found a blank one")
    if value is not None and len(value) > 200:
        raise click.BadParameter("a model id is at most 200 characters")
    return value


def _option(*decls: str, type: click.ParamType, default: Any, help: str | None) -> Any:
    """An option of ``type``; its ``default`` shown in the help unless it is ``None``."""
    return click.option(
        *decls, type=type, default=default, show_default=default is not None, help=help
    )


def choice_option(
    *decls: str, choices: Sequence[str], default: str, help: str | None = None
) -> Any:
    """An option taking one of ``choices`` (case-sensitive), ``default`` when not given."""
    return _option(*decls, type=click.Choice(list(choices)), default=default, help=help)


#: ``--format``'s help where ``json`` is a choice: what a refusal prints.
JSON_REFUSED = (
    "Output format. With json, a refusal prints nothing on standard output: the error is on "
    "standard error, exit status 2."
)


def format_option(choices: Sequence[str], help: str = "Output format.") -> Any:
    """``--format FMT`` (the command's parameter ``fmt``): the output format, default ``text``."""
    return choice_option("--format", "fmt", choices=choices, default="text", help=help)


def openai_api_option(help: str) -> Any:
    """``--openai-api responses|chat``: the OpenAI API shape a lane calls; ``None`` if not given."""
    return _option(
        "--openai-api", type=click.Choice(["responses", "chat"]), default=None, help=help
    )


def input_file_option(name: str, dest: str, help: str) -> Any:
    """A required option naming a file that exists (not a folder), a :class:`Path` in ``dest``."""
    return click.option(name, dest, required=True, type=EXISTING_FILE, help=help)


def tokens_option(name: str, default: int, help: str) -> Any:
    """An output budget in tokens: an integer from 1 to 1,000,000."""
    return _option(name, type=click.IntRange(1, 1_000_000), default=default, help=help)


def seconds_option(
    name: str, default: float | None, help: str | None = None, *, minimum: float = 0.01
) -> Any:
    """A duration in seconds: a float of at least ``minimum``; ``None`` when not given."""
    return _option(name, type=FiniteRange(min=minimum), default=default, help=help)


class _GivenPath(click.Path):
    """click's path, but a blank one (``--out ""``, read as the current folder) is refused.

    Blank is :func:`~driftproof.wording.is_blank`: white space or characters that show as nothing.
    """

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The path as click converts it, after refusing an empty or blank text (exit status 2)."""
        if isinstance(value, str) and is_blank(value):
            self.fail(f"expected a path, found {'an empty text' if not value else repr(value)}")
        return super().convert(value, param, ctx)


#: A path argument (file or folder, need not exist); a blank one is refused.
GIVEN_PATH = _GivenPath(path_type=Path)


def path_option(*decls: str, help: str, default: str | None = None) -> Any:
    """A path (file or folder, need not exist) as a :class:`Path`; ``default`` or ``None``."""
    path = None if default is None else Path(default)
    return _option(*decls, type=_GivenPath(path_type=Path), default=path, help=help)


def _price(_ctx: click.Context, _param: click.Parameter, value: str | None) -> Any:
    """``IN,OUT[,CACHE_READ,CACHE_WRITE]`` in USD per million tokens, as a tuple of 2 or 4."""
    if value is None:
        return None
    found = f", found {value[:80]!r}"
    try:  # an empty field (1,,5) is refused, not dropped: the prices after it would shift
        parts = tuple(float(x) for x in value.split(","))
    except ValueError:
        raise click.BadParameter(
            "expected IN,OUT[,CACHE_READ,CACHE_WRITE] in USD per million tokens, "
            f"e.g. 1.0,5.0 or 1.0,5.0,0.1,1.25{found}"
        ) from None
    if len(parts) not in (2, 4):
        raise click.BadParameter(
            f"expected IN,OUT or IN,OUT,CACHE_READ,CACHE_WRITE in USD per million tokens{found}"
        )
    if not all(math.isfinite(x) and x >= 0 for x in parts):
        raise click.BadParameter(
            f"expected finite prices of 0 or more (NaN and infinity cannot be sealed){found}"
        )
    return parts


def judge_price_option(help: str) -> Any:
    """``--judge-price IN,OUT[,CACHE_READ,CACHE_WRITE]`` in USD per million tokens (a tuple)."""
    return click.option("--judge-price", callback=_price, help=help)


def said_written(receipts: Sequence[Path], notices: Sequence[str] = (), same: int = 0) -> None:
    """Print each notice, "wrote PATH" for each receipt written, then the command that reads one.

    ``same``: how many of them were already there with the same bytes (left as they were).
    Notices and paths are shown escaped: they are untrusted text.
    """
    from driftproof.render.escape import shell_path, terminal_safe

    for notice in notices:
        click.echo(terminal_safe(notice))
    for path in receipts:
        click.echo(f"wrote {terminal_safe(str(path))}")
    if same:
        click.echo(already_there(same, len(receipts)))
    if receipts:
        first = terminal_safe(shell_path(receipts[0]))  # '##[' never reaches a CI log whole
        each = "it" if len(receipts) == 1 else "the first (each of the others the same way)"
        click.echo(f"next: driftproof view {first} to read {each}")


def already_there(same: int, of: int) -> str:
    """The line for ``same`` of ``of`` files written that were already there, the same bytes."""
    from driftproof.wording import count_of

    was, it = ("was", "it was") if same == 1 else ("were", "they were")
    files = count_of(of, "file")
    return f"{same:,} of the {files} {was} already there, the same bytes: kept as {it}"
