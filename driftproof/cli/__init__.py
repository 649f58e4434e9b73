"""The ``driftproof`` command line: one module per command, each loaded when it is used.

Each command parses its options, calls the library and prints the result. :func:`main` turns
Driftproof's own errors into one line per problem on stderr, ``error: <line>``, and exit status
2 (or the error's ``exit_code``); click's usage errors keep its usage line and hint, their line
reading ``error: <message>`` too. An ``OSError`` (a file that cannot be read or written), input
that is not UTF-8 and a lone surrogate that cannot be written each become one line and exit
status 2. A closed stdout (``| head``) ends quietly, exit status 141; a stdout the system
refuses to take (a full disk) is named as the stream that could not be written, exit status 2;
anything else is a bug and propagates. A SIGTERM stops a command as Ctrl-C does (its clean-up
runs, exit status 130; while this module loads, before there is anything to clean up, it ends
the process at once), and an error that stems from either (a library that wraps the interrupt in
its own error, or pydantic failing to build a validator as it arrives) reads "interrupted", not
a traceback; any other error that does not name the interrupt is a bug and propagates, even once
one arrived.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading

#: Not empty once a SIGINT or SIGTERM reached :func:`main`'s handler (the signal numbers). A list,
#: not a ``threading.Event``: the handler takes no lock, which a second signal arriving while the
#: first's handler held it would wait on for ever.
_STOPPED: list[int] = []


def _stop(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C's default: a :class:`KeyboardInterrupt` in the main thread, remembered.

    Arriving while the import system's own code runs (``frame``, the innermost, is in
    ``importlib._bootstrap``: between its taking of a module lock and the block that gives it
    back, or in a callback that swallows it), it could leave the lock held and every thread's
    next import waiting on it for ever: there the signal is sent again 0.05 s later instead.
    Inside a module's own code, however long its import, it is raised as anywhere else.
    """
    if frame is not None and frame.f_code.co_filename.startswith("<frozen importlib._bootstrap"):
        threading.Timer(0.05, os.kill, (os.getpid(), signum)).start()
        return
    _STOPPED.append(signum)
    raise KeyboardInterrupt


@contextlib.contextmanager
def _stops_interrupt(handler: Any = _stop, after: Any = None) -> Iterator[None]:
    """SIGINT and SIGTERM go to ``handler`` in the block (restored after, or set to ``after``).

    ``handler`` defaults to :func:`_stop` (a :class:`KeyboardInterrupt`). A signal the caller
    ignores (``nohup``, a background job) stays ignored; off the main thread nothing changes.
    """
    _STOPPED.clear()  # off the main thread no stop comes: none is read from an earlier command
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    taken = [
        s for s, was in previous.items() if was in (signal.SIG_DFL, signal.default_int_handler)
    ]
    for sig in taken:
        signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, was in previous.items():
            if was is not None:
                signal.signal(sig, after if after is not None and sig in taken else was)


def _exit_interrupted(signum: int, frame: FrameType | None) -> NoReturn:
    """A stop while this module loads, before :func:`main` takes one: "interrupted", status 130.

    Nothing was done yet: the process ends at once, saying what :func:`main` says.
    """
    os.write(2, b"interrupted\n")
    os._exit(130)


with _stops_interrupt(_exit_interrupted):  # the most of a command's first 0.2 s
    import importlib
    import io
    import sys
    from collections.abc import Callable, Iterable, Iterator, Mapping
    from pathlib import Path
    from types import FrameType
    from typing import Any, NoReturn

    import click
    from click.formatting import HelpFormatter

    from driftproof import __version__
    from driftproof.errors import DriftproofError

__all__ = ["COMMANDS", "WRITTEN", "cli", "main", "written", "written_by"]

#: What the running command has written and left in place, said as a reader reads it ("the
#: receipt r.json is written"): the error of a standard output that then fails says so.
WRITTEN: list[str] = []


def written(noun: str, paths: Iterable[object]) -> None:
    """Add "the <noun> P is written" (several: "the <noun>s P, Q are written") to WRITTEN."""
    from driftproof.wording import first_of

    names = [str(p) for p in paths]
    many = len(names) != 1
    WRITTEN.append(f"the {noun}{'s' * many} {first_of(names)} {'are' if many else 'is'} written")


def written_by(
    noun: str, write: Callable[..., list[Path]], *args: Any, **kwargs: Any
) -> list[Path]:
    """``write(*args, **kwargs)``, then :func:`written` of the paths it returns, as one step.

    SIGINT and SIGTERM are held meanwhile (:class:`~driftproof.run.scheduler.HeldStops`): one
    arriving while the files are written is raised once they are counted, so it reads as the
    command complete; ``write`` refusing or failing, as interrupted. ``write`` is given
    ``wait=``: until a file is in place (a wait for another process's lock included), a stop
    takes effect at once, nothing written.
    """
    from driftproof.run.scheduler import HeldStops

    with HeldStops() as stops:
        paths = write(*args, wait=stops.wait, **kwargs)
        written(noun, paths)
    return paths


class _ReaderGone(Exception):
    """The command's stdout was closed by its reader (EPIPE), which click would exit 1 on."""


class StdoutRefused(OSError):
    """A write to standard output that the system refused (a full disk, say), not EPIPE."""


class _Stdout(io.FileIO):
    """Standard output's file descriptor; a refused write raised as :class:`StdoutRefused`.

    EPIPE (its reader gone) stays the :class:`BrokenPipeError` it is.
    """

    def write(self, b: Any, /) -> int:
        """:meth:`io.FileIO.write`'s; its ``OSError`` but EPIPE raised as :class:`StdoutRefused`."""
        try:
            return super().write(b)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise StdoutRefused(exc.errno, exc.strerror) from exc


@contextlib.contextmanager
def _stdout_checked() -> Iterator[None]:
    """In the block the process's own stdout writes through :class:`_Stdout` (restored after).

    Any other ``sys.stdout`` (a test's capture, the null device) is left as it is.
    """
    out = sys.stdout
    try:
        fd = out.fileno() if out is sys.__stdout__ and isinstance(out, io.TextIOWrapper) else -1
    except (OSError, ValueError):
        fd = -1
    if fd < 0:
        yield
        return
    out.flush()
    raw = io.BufferedWriter(_Stdout(fd, "w", closefd=False))
    sys.stdout = io.TextIOWrapper(
        raw, out.encoding, out.errors, line_buffering=bool(out.line_buffering)
    )
    try:
        yield
    finally:
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
        sys.stdout = out


class LazyGroup(click.Group):
    """A group whose commands are imported when first used; its help lists a table of helps."""

    def invoke(self, ctx: click.Context) -> Any:
        """click's; a closed stdout raised as :class:`_ReaderGone`."""
        try:
            return super().invoke(ctx)
        except BrokenPipeError as exc:
            raise _ReaderGone from exc

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        """click's; a closed stdout (its help is printed here) raised as in :meth:`invoke`."""
        try:
            return super().make_context(*args, **kwargs)
        except BrokenPipeError as exc:
            raise _ReaderGone from exc

    def __init__(self, *args: Any, lazy: Mapping[str, tuple[str, str]], **kwargs: Any) -> None:
        """``lazy``: command name -> ``("module:attribute", short help)``; the rest is click's."""
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy)

    def list_commands(self, ctx: click.Context) -> list[str]:
        """The table's command names, sorted."""
        return sorted(self.lazy)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command named ``cmd_name``, its module imported on first use; ``None`` if unknown."""
        if cmd_name not in self.lazy:
            return None
        module, attr = self.lazy[cmd_name][0].split(":")
        return getattr(importlib.import_module(module), attr)

    def format_commands(self, ctx: click.Context, formatter: HelpFormatter) -> None:
        """Write the commands section from the table, each line whole (click would cut it)."""
        with formatter.section("Commands"):
            formatter.write_dl([(n, self.lazy[n][1]) for n in self.list_commands(ctx)])


#: command name -> the short help ``driftproof --help`` lists. The command is the click command
#: ``<name>`` of ``driftproof.cli.<name>`` (but see :data:`_TARGETS`), imported only when it runs
#: or shows its help.
COMMANDS: dict[str, str] = {
    "badge": "Write the badge of RECEIPT as endpoint JSON, SVG and details.",
    "demo": "Write a demo of the method on simulated data into DIR (default: driftproof-demo).",
    "diff": "Compare receipt A (earlier) with receipt B (later), case by case.",
    "export": "Write a receipt in another format.",
    "import": "Convert another tool's results into receipts (DECLARED: faithful, never a verdict).",
    "plan": "Plan a full run from a pilot RECEIPT.",
    "regrade": "Grade RECEIPT's kept answers under revised rubrics, drawing no new answer.",
    "reports": "Build the public site of numbered reports from committed receipts.",
    "run": "Measure what a skill adds to a model; write a sealed receipt.",
    "stale": "Compare RECEIPT with what would run today.",
    "suite": "Work with suites (the test cases a skill is measured on).",
    "validate": "Check receipts against their own schema version, seal and level.",
    "view": (
        "Show a receipt's sheet: provenance, reading, cases, lift, grading cost, lift breakdown."
    ),
}
#: The commands whose module or attribute is not named after them (``import`` is a keyword).
_TARGETS = {"import": "driftproof.cli.import_:import_group"}


with _stops_interrupt(_exit_interrupted):  # click looks up the translations of its words

    @click.group(
        cls=LazyGroup,
        lazy={n: (_TARGETS.get(n, f"driftproof.cli.{n}:{n}"), h) for n, h in COMMANDS.items()},
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    @click.version_option(__version__, prog_name="driftproof")
    def cli() -> None:
        """Measure what a skill adds to a model, and say plainly when it cannot tell."""


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: the command ``argv`` (``None``: ``sys.argv``, as ``driftproof``).

    Called with no ``argv``, as the ``driftproof`` command calls it, SIGINT and SIGTERM are then
    ignored: the command has ended, its exit status stands while Python tears the process down.
    Started with no stdout (``>&-``), what it prints goes to the null device (there, as fd 1).
    """
    if sys.stdout is None:
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (the process's own)
    with _stops_interrupt(after=signal.SIG_IGN if argv is None else None), _stdout_checked():
        try:
            _main(argv)
        except KeyboardInterrupt:  # a second Ctrl-C while the first was being reported
            _interrupted()


def _main(argv: list[str] | None) -> None:
    WRITTEN.clear()  # one command's outputs, not an earlier main()'s in this process
    try:
        # the command line as given is kept, so that an interrupted run can print the command
        # that resumes it
        args = list(sys.argv[1:] if argv is None else argv)
        rv = cli.main(args=args, prog_name="driftproof", standalone_mode=False, obj=tuple(args))
    except DriftproofError as exc:
        fail(exc.lines())
    except click.ClickException as exc:
        _show(exc)
        sys.exit(exc.exit_code)
    except (click.exceptions.Abort, KeyboardInterrupt):
        _interrupted()
    except (BrokenPipeError, _ReaderGone):
        # The reader went away (``driftproof view r.json | head``): stop quietly, 141, as a shell
        # reports a command SIGPIPE ended: 1 means a result (regressed, invalid).
        from driftproof.outputs import stdout_gone

        sys.exit(stdout_gone())
    except StdoutRefused as exc:
        kept = [f"{what}: only the printing failed" for what in WRITTEN]
        fail([f"standard output could not be written: {exc.strerror or exc}", *kept])
    except (OSError, UnicodeDecodeError, UnicodeEncodeError) as exc:
        fail([_edge_line(exc)])
    except Exception as exc:
        if not (_STOPPED and _from_interrupt(exc)):
            raise  # a bug
        _interrupted()  # e.g. pydantic builds a model as Ctrl-C arrives and names it its error
    # With standalone_mode off, click returns ctx.exit()'s code instead of exiting.
    if isinstance(rv, int) and not isinstance(rv, bool):
        sys.exit(rv)


#: The error pydantic-core raises when it cannot build a validator.
_SCHEMA_ERROR = "pydantic_core._pydantic_core.SchemaError"


def _from_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` stands for an interrupt: in its chain, named, or pydantic's own failure.

    A library that builds its own error from the interrupt may keep no chain and only name it
    (pydantic-core: 'Error building "model" validator: KeyboardInterrupt'), or not even that
    (pydantic-core again, the interrupt raised in a check it calls: "'cls' must be valid as the
    first argument to 'isinstance'"); a validator is built alike at every run, so one that
    fails only as an interrupt arrives failed because of it.
    """
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, KeyboardInterrupt) or "KeyboardInterrupt" in str(cur):
            return True
        if f"{type(cur).__module__}.{type(cur).__name__}" == _SCHEMA_ERROR:
            return True
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return False


def _interrupted() -> NoReturn:
    """Print "interrupted" and exit 130; a further SIGINT or SIGTERM is ignored meanwhile.

    Once the command has written its outputs (:data:`WRITTEN`) it is complete, as a run whose
    receipt is written: "stopped: the command is complete and <what> is written", status 0.
    """
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_IGN)
    from driftproof.render.escape import terminal_safe  # a file name is untrusted text

    done = f"stopped: the command is complete and {'; '.join(WRITTEN)}; there is nothing to redo"
    with contextlib.suppress(OSError, ValueError):  # as fail's: the exit status says it
        click.echo(terminal_safe(done) if WRITTEN else "interrupted", err=True)
    sys.exit(0 if WRITTEN else 130)


def fail(lines: Iterable[str], status: int = 2) -> NoReturn:
    """Each line on stderr as ``error: <line>``, controls escaped (names are untrusted); exit.

    ``status``: the exit status (2: a refusal; 4: an arm measured nothing). On a terminal each
    line is wrapped to its width (:func:`~driftproof.cli._options.fit_terminal`).
    """
    from driftproof.cli._options import fit_terminal  # deferred: start-up time of --help
    from driftproof.render.escape import terminal_safe

    with contextlib.suppress(OSError, ValueError):  # a stderr full or closed: the status says it
        for line in lines:
            click.echo(fit_terminal(f"error: {terminal_safe(line)}", sys.stderr), err=True)
    sys.exit(status)


def _show(exc: click.ClickException) -> None:
    """Click's message for ``exc`` on stderr, its last line said as :func:`fail` says one.

    A usage error shows its usage and hint first, as click does; the line click ends with,
    ``Error: <message>``, reads ``error: <message>``, controls escaped; a missing option's
    choices, which click puts one to a line, stay on that line. On a terminal, each line is
    wrapped to it.
    """
    from driftproof.cli._options import fit_terminal  # deferred: start-up time of --help
    from driftproof.render.escape import terminal_safe

    shown = io.StringIO()
    exc.show(file=shown)
    text, message = shown.getvalue(), exc.format_message()
    said = f"Error: {click.unstyle(message)}\n"  # show's last line, colour codes dropped
    if text.endswith(said):
        if isinstance(exc, click.MissingParameter):  # click's own choice list, "\n\t" apart
            message = message.replace("\n\t", " ")
        text = f"{text[: -len(said)]}error: {terminal_safe(message)}\n"
    with contextlib.suppress(OSError, ValueError):  # as fail's: the exit status says it
        click.echo(fit_terminal(text, sys.stderr), err=True, nl=False)


def _edge_line(exc: OSError | UnicodeDecodeError | UnicodeEncodeError) -> str:
    """The one line for input or output met at the edge that is bad, not a bug."""
    if isinstance(exc, UnicodeDecodeError):
        return f"expected UTF-8 text, found an invalid byte at offset {exc.start} ({exc.reason})"
    if isinstance(exc, UnicodeEncodeError):
        # JSON may spell a lone surrogate ("\ud800"); it is no Unicode text and cannot be written.
        bad = exc.object[exc.start : exc.end] if isinstance(exc.object, str) else ""
        code = f" U+{ord(bad[0]):04X}" if bad else ""
        return (
            f"expected valid Unicode text, found a character that cannot be written{code} "
            f"({exc.reason}), such as a lone surrogate escape in a JSON input"
        )
    # a file a command could not read or write (a missing or read-only folder, say)
    where = exc.filename if exc.filename is not None else "(input or output)"
    return f"{where}: {exc.strerror or exc}"
