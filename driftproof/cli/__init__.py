"""The ``driftproof`` command line: one module per command group, loaded lazily.

Each command is a short click function in ``driftproof/cli/<module>.py`` that
parses options, calls one library function and hands the result to a printer.
Errors of Driftproof's own tree become one line per problem on stderr and a
non-zero exit (2 for bad input or a refusal). At the edge, an ``OSError`` (a file
that cannot be read or written), a ``UnicodeDecodeError`` (input that is not
UTF-8) and a ``UnicodeEncodeError`` (a lone surrogate escape read from JSON) also
become one line and exit 2; a closed stdout (``| head``) ends quietly;
anything else is a bug and propagates.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from typing import Any

import click

from driftproof import __version__

__all__ = ["COMMANDS", "main"]

#: command name -> "module:attribute" (the module lives in driftproof.cli).
COMMANDS: dict[str, str] = {
    "badge": "badge:badge",
    "demo": "demo:demo",
    "diff": "diff:diff",
    "export": "export:export",
    "import": "import_:import_group",
    "plan": "plan:plan",
    "regrade": "regrade:regrade",
    "reports": "reports:reports",
    "run": "run:run",
    "stale": "stale:stale",
    "suite": "suite:suite",
    "validate": "validate:validate",
    "view": "view:view",
}


def _available(name: str) -> bool:
    module = COMMANDS[name].split(":")[0]
    return importlib.util.find_spec(f"driftproof.cli.{module}") is not None


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(n for n in COMMANDS if _available(n))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS or not _available(cmd_name):
            return None
        module, attr = COMMANDS[cmd_name].split(":")
        cmd: Any = getattr(importlib.import_module(f"driftproof.cli.{module}"), attr)
        return cmd


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="driftproof")
def cli() -> None:
    """Measure what a skill adds to a model, and say plainly when it cannot tell."""


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    from driftproof.errors import DriftproofError

    try:
        # the command line as given is kept, so that an interrupted run can print the command
        # that resumes it
        args = list(sys.argv[1:] if argv is None else argv)
        rv = cli.main(args=args, prog_name="driftproof", standalone_mode=False, obj={"argv": args})
    except DriftproofError as exc:
        for line in exc.lines():
            click.echo(f"error: {line}", err=True)
        sys.exit(getattr(exc, "exit_code", 2))
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        # The reader went away (``driftproof view r.json | head``): stop quietly, and keep
        # Python from reporting the failed flush of stdout at exit.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        sys.exit(1)
    except OSError as exc:
        # The CLI edge: a file a command could not read or write (a missing or read-only
        # folder, a directory where a file was expected) is bad input, not a bug.
        where = exc.filename if exc.filename is not None else "(input or output)"
        click.echo(f"error: {where}: {exc.strerror or exc}", err=True)
        sys.exit(2)
    except UnicodeDecodeError as exc:
        click.echo(
            f"error: expected UTF-8 text, found an invalid byte at offset {exc.start} "
            f"({exc.reason})",
            err=True,
        )
        sys.exit(2)
    except UnicodeEncodeError as exc:
        # JSON may spell a lone surrogate ("\ud800"); it is no Unicode text and cannot be written.
        bad = exc.object[exc.start : exc.end] if isinstance(exc.object, str) else ""
        code = f" U+{ord(bad[0]):04X}" if bad else ""
        click.echo(
            f"error: expected valid Unicode text, found a character that cannot be written{code} "
            f"({exc.reason}), such as a lone surrogate escape in a JSON input",
            err=True,
        )
        sys.exit(2)
    # With standalone_mode off, click returns ctx.exit()'s code instead of exiting.
    if isinstance(rv, int) and not isinstance(rv, bool):
        sys.exit(rv)
