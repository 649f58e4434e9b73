"""CLI surfaces: a harness run once per attempt, isolated.

Each run starts from fresh empty directories in its own process group (killed whole on
timeout, and when the lane is closed); a grade comes back through the binary's JSON-schema option.
"""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from typing import Any

from driftproof.errors import ProviderError
from driftproof.run.capture import read_back
from driftproof.run.providers.base import AttemptError, Call, Halted, Provider, Reply
from driftproof.run.reply_text import json_or_none

#: Harness errors that every further call would meet too: the run stops (caveman's README:
#: "auth, quota or a bad model name would fail every remaining call too"). A subscription's
#: usage limit is one, reset hours or days later: Claude Code's "You've hit your limit · resets
#: …", "Claude AI usage limit reached|<time>", "You're out of extra usage · resets …"; codex's
#: "You've hit your usage limit. … try again …"; so is a login that cannot be refreshed
#: ("Failed to authenticate: OAuth session expired and could not be refreshed").
FATAL = re.compile(
    r"invalid api key|not logged in|please run /login|log ?in again|unauthori[sz]ed|\b401\b|"
    r"credit balance is too low|model .{0,80}(?:not found|does not exist)|unknown model|"
    r"hit your (?:usage )?limit|usage limit reached|out of extra usage|failed to authenticate",
    re.I,
)
#: The status an error text carries: ``API Error: 529 {...}``, ``API Error (429 ...)``.
_STATUS = re.compile(r"API Error:?\s*\(?\s*(\d{3})\b")
_VERSION = re.compile(r"\d+\.\d+(?:\.\d+)?[\w.+-]*")
#: Bytes one invocation may print, stdout and stderr together: 64 MiB, ten times the longest
#: answer a receipt holds (1 MiB characters) written as JSON at its widest (6 bytes a character),
#: with room for the events around it; past it the rest is never read and the group is killed.
OUTPUT_MAX_BYTES = 64 * 1024 * 1024


def cap_words() -> str:
    """:data:`OUTPUT_MAX_BYTES` in words, e.g. "67,108,864 bytes (64 MiB)"."""
    return f"{OUTPUT_MAX_BYTES:,} bytes ({OUTPUT_MAX_BYTES / 2**20:g} MiB)"


class Running:
    """The process groups of a lane's invocations in flight; :meth:`end` kills them for good."""

    def __init__(self) -> None:
        """None running, none ended."""
        self.lock, self.groups, self.ended = threading.Lock(), set[int](), False

    def add(self, pid: int) -> bool:
        """Hold the group ``pid`` leads; ``False`` (nothing held) once :meth:`end` was called."""
        with self.lock:
            if not self.ended:
                self.groups.add(pid)
            return not self.ended

    def end(self) -> None:
        """Kill every group held (SIGKILL), and each one added after."""
        with self.lock:
            self.ended = True
            for pid in self.groups:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)


def run_process(
    argv: list[str], *, stdin: str, cwd: str, timeout: float, running: Running | None = None
) -> tuple[int, str, str]:
    """Run one CLI invocation in its own process group, killing the group on timeout.

    ``running`` holds the group while it runs, so that :meth:`Running.end` can kill it.

    Raises:
        AttemptError: timeout (transient), more printed than :data:`OUTPUT_MAX_BYTES` (not
            retried) or the binary cannot start (fatal).
        Halted: ``running`` was ended: the group is killed (or never started), unfinished.
    """
    if running is not None and running.ended:
        raise Halted()
    pipe = subprocess.PIPE
    try:
        proc = subprocess.Popen(
            argv, stdin=pipe, stdout=pipe, stderr=pipe, cwd=cwd, start_new_session=True
        )
    except OSError as exc:
        raise AttemptError(f"cannot start {argv[0]}: {exc.strerror or exc}", fatal=True) from exc
    held = running is None or running.add(proc.pid)
    try:
        if not held:  # the lane was closed as it started
            os.killpg(proc.pid, signal.SIGKILL)
        out, err = _communicate(proc, stdin.encode("utf-8", "replace"), timeout)
    except (subprocess.TimeoutExpired, OverflowError) as exc:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        if isinstance(exc, OverflowError):
            why = (
                f"{argv[0]} printed more than {cap_words()}, the most one call may print; "
                "the rest unread"
            )
            raise AttemptError(why, retryable=False) from None
        raise AttemptError(f"timed out after {timeout:g} s") from None
    finally:
        for f in (proc.stdin, proc.stdout, proc.stderr):
            f.close()  # type: ignore[union-attr]
        if running is not None:
            with running.lock:
                running.groups.discard(proc.pid)
    if running is not None and running.ended:
        raise Halted()
    return proc.returncode, _text(out), _text(err)


def _text(data: bytes) -> str:
    """Printed bytes as text read the way ``text=True`` reads them (U+FFFD, line ends as LF)."""
    return data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")


def _communicate(proc: subprocess.Popen[bytes], data: bytes, timeout: float) -> tuple[bytes, bytes]:
    """``proc``'s stdout and stderr once it ends, ``data`` written to its stdin.

    Raises:
        subprocess.TimeoutExpired: it did not end within ``timeout`` seconds.
        OverflowError: it printed more than :data:`OUTPUT_MAX_BYTES` (the rest left unread).
    """
    assert proc.stdin and proc.stdout and proc.stderr
    got = {proc.stdout.fileno(): bytearray(), proc.stderr.fileno(): bytearray()}
    end, sin = time.monotonic() + timeout, proc.stdin.fileno()
    os.set_blocking(sin, False)
    with selectors.DefaultSelector() as sel:
        for fd in got:
            sel.register(fd, selectors.EVENT_READ)
        sel.register(sin, selectors.EVENT_WRITE)
        while sel.get_map():
            # an hour at most per wait: a longer one overflows select, read as too much printed
            if not (ready := sel.select(min(end - time.monotonic(), 3600))) and (
                time.monotonic() >= end
            ):
                raise subprocess.TimeoutExpired(proc.args, timeout)
            for key, _ in ready:
                if key.fd == sin:
                    try:
                        data = data[os.write(sin, data[:65536]) :]
                    except BrokenPipeError:  # it reads no more: what it printed still counts
                        data = b""
                    done = not data
                else:
                    got[key.fd] += (chunk := os.read(key.fd, 65536))
                    if sum(map(len, got.values())) > OUTPUT_MAX_BYTES:
                        raise OverflowError
                    done = not chunk
                if done:
                    sel.unregister(key.fd)
                    if key.fd == sin:
                        proc.stdin.close()  # its end of input
    proc.wait(max(end - time.monotonic(), 0))
    return bytes(got[proc.stdout.fileno()]), bytes(got[proc.stderr.fileno()])


def stray_words(binary: str, line: str) -> str:
    """Why a run stops when ``binary`` printed ``line`` (no JSON event) beside its JSON (D-19).

    The line may be part of the answer or report a fault, and what prints it (a shell start-up
    file, a wrapper) prints it at every call: quoted, 200 characters.
    """
    return (
        f"{binary} printed a line that is not part of its JSON output: {line.strip()[:200]!r}; "
        "whether it belongs to the answer or reports a fault cannot be told, so there is nothing "
        f"to grade; stop what prints it beside {binary}'s output"
    )


def checked_run(argv: list[str], what: str, why: str | None = None) -> tuple[str, str]:
    """The stdout and stderr of ``argv`` (``what`` in errors), run for at most 60 s.

    Raises:
        ProviderError: it cannot run, prints past :data:`OUTPUT_MAX_BYTES`, or exits with a
            failure (``why``, else its stderr).
    """
    try:
        code, out, err = run_process(argv, stdin="", cwd=".", timeout=60)
    except AttemptError as exc:
        raise ProviderError(f"cannot run {what}: {exc.reason}") from exc
    if code != 0:
        said = f"; {why}" if why else f": {err.strip()[:200]}"
        raise ProviderError(f"{what} exited with status {code}{said}")
    return out, err


def version_of(binary: str) -> str:
    """The version ``binary --version`` printed (``2.1.288 (Claude Code)`` → ``2.1.288``).

    Raises:
        ProviderError: it cannot run or exits with a failure.
    """
    out, err = checked_run([binary, "--version"], f"{binary} --version")
    output = out or err
    m = _VERSION.search(output)
    return (m.group(0) if m else (output.strip().splitlines() or [""])[0])[:100]


class CLILane(Provider):
    """Base of the CLI lanes: each attempt runs the harness once, from fresh empty directories."""

    surface = "cli"
    binary = ""
    channel = "cli_json_schema"
    sends_budget = False

    def __init__(self, *, capture: str = "text", binary: str | None = None) -> None:
        """Find the harness binary on ``PATH`` for capture ``text`` or ``files``.

        Raises:
            ValueError: an unknown capture.
            ProviderError: the binary is not on ``PATH``.
        """
        if capture not in ("text", "files"):
            raise ValueError("capture must be 'text' or 'files'")
        self.capture = capture
        self.running = Running()
        found = shutil.which(binary or self.binary)
        if found is None:
            raise ProviderError(f"{binary or self.binary} not found on PATH")
        self.path = found

    def start(self) -> str | None:
        """The version the binary prints."""
        return version_of(self.path)

    def attempt(self, call: Call) -> Reply:
        """One invocation from fresh directories (see :meth:`Provider.attempt`).

        A finished answer from a harness that exits with a failure status (or is killed) is no
        complete final answer (D-19): a transient :class:`AttemptError`, its usage kept.
        """
        with (
            tempfile.TemporaryDirectory(prefix="driftproof-sys-") as sysdir,
            tempfile.TemporaryDirectory(prefix="driftproof-work-") as work,
        ):
            if call.system:
                with open(os.path.join(sysdir, "system.md"), "w", encoding="utf-8") as f:
                    f.write(call.system)
            argv = self.argv(call, sysdir, work)
            code, out, err = run_process(
                argv, stdin=call.prompt, cwd=work, timeout=call.timeout, running=self.running
            )
            reply = self.parse(code, out, err, call.model)
            if call.schema is not None:
                reply.channel = "cli_json_schema"
                if reply.decision is None:
                    reply.decision = json_or_none(reply.text)
            if code != 0 and reply.ending_class(None) is None:  # D-19: the harness says it failed
                how = f"was killed by signal {-code}" if code < 0 else f"exited with status {code}"
                said = f": {err.strip()[-200:]}" if err.strip() else ""
                why = f"{self.binary} {how} after it reported a finished answer{said}"
                raise AttemptError(why, reply=reply)
            if self.capture == "files":
                reply.capture = read_back(work)
            return reply

    def close(self) -> None:
        """End the invocations in flight (their draws unfinished) and any started after."""
        self.running.end()

    def argv(self, call: Call, sysdir: str, work: str) -> list[str]:
        """The command line for ``call``, run in ``work``; ``sysdir`` holds ``system.md``.

        With ``call.schema`` (a grading call) it adds the binary's JSON-schema option.
        """
        raise NotImplementedError

    def parse(self, code: int, out: str, err: str, model: str) -> Reply:
        """An invocation's exit status and output as a reply. Raises :class:`AttemptError`."""
        raise NotImplementedError


def status_of(obj: dict[str, Any], text: str) -> int | None:
    """The HTTP status an error envelope or its text carries, else ``None``."""
    for key in ("api_error_status", "status"):
        v = obj.get(key)
        if isinstance(v, int) and not isinstance(v, bool) and 100 <= v <= 999:
            return v
    m = _STATUS.search(text)
    return int(m.group(1)) if m else None
