"""SIGTERM stops any command as Ctrl-C does (its clean-up runs; "interrupted", exit status 130),
and an error a library raises because Ctrl-C arrived inside it reads "interrupted", never a
traceback. Before, SIGTERM ended the process at once (status -15): ``driftproof demo`` left a
half-written folder that the next ``driftproof demo`` refused as not empty; and Ctrl-C while
pydantic built a receipt model at start-up printed its SchemaError's traceback (exit status 1).
"""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from driftproof.cli import main

#: ``driftproof demo DIR`` whose site writer receives SIGTERM, after the receipts are written.
_DEMO_TERMED = """
import os, signal, sys, time
import driftproof.demo as demo
def write_site(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(30)
demo.write_site = write_site
from driftproof.cli import main
main(["demo", sys.argv[1]])
"""


def test_sigterm_stops_the_demo_as_ctrl_c_does_and_leaves_no_half_folder(tmp_path):
    folder = tmp_path / "demo"
    res = subprocess.run(
        [sys.executable, "-c", _DEMO_TERMED, str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (res.returncode, res.stderr.strip()) == (130, "interrupted")
    assert list(tmp_path.iterdir()) == []  # the receipts written before it are removed too


#: Imports the command line with SIGINT or SIGTERM (argv[1]; "none": no signal) sent as click
#: starts to load, before main() could take it; then prints whether the defaults are back.
_LOADING = """
import signal, sys
class Stop:
    def find_spec(self, name, path=None, target=None):
        if name == "click" and sys.argv[1] != "none":
            signal.raise_signal(getattr(signal, sys.argv[1]))
sys.meta_path.insert(0, Stop())
import driftproof.cli
int_, term = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
print(int_ is signal.default_int_handler, term is signal.SIG_DFL)
"""


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_a_stop_while_the_command_line_loads_says_interrupted_not_a_traceback(sig):
    # found: Ctrl-C in a command's first 0.1-0.2 s printed Python's KeyboardInterrupt traceback
    # (exit status -2), SIGTERM ended it at once (-15): main() had not taken them yet
    res = subprocess.run([sys.executable, "-c", _LOADING, sig], capture_output=True, text=True)
    assert (res.returncode, res.stdout, res.stderr) == (130, "", "interrupted\n")
    res = subprocess.run([sys.executable, "-c", _LOADING, "none"], capture_output=True, text=True)
    assert (res.returncode, res.stdout, res.stderr) == (0, "True True\n", "")


#: Imports the command line with SIGTERM sent as click looks up the words of --version's help,
#: after the imports and before main() could take it.
_DEFINING = """
import gettext, signal
looked_up = gettext.dgettext
def dgettext(domain, message):
    if message == "Show the version and exit.":
        signal.raise_signal(signal.SIGTERM)
    return looked_up(domain, message)
gettext.dgettext = dgettext
import driftproof.cli
"""


def test_a_stop_as_the_command_group_is_made_says_interrupted():
    # found by random stops to `driftproof run` processes (1 in 400 in their first 1.5 s): a
    # Ctrl-C there printed Python's traceback, a SIGTERM ended the process at once (-15)
    res = subprocess.run([sys.executable, "-c", _DEFINING], capture_output=True, text=True)
    assert (res.returncode, res.stdout, res.stderr) == (130, "", "interrupted\n")


def test_an_error_raised_because_ctrl_c_arrived_reads_interrupted(monkeypatch, capsys, tmp_path):
    import driftproof.demo

    def building_a_model(*_args, **_kwargs):
        try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt as exc:  # pydantic-core names it in a SchemaError of its own
            raise RuntimeError('Error building "model" validator: KeyboardInterrupt') from exc

    monkeypatch.setattr(driftproof.demo, "run_demo", building_a_model)
    with pytest.raises(SystemExit) as stop:
        main(["demo", str(tmp_path / "d")])
    assert stop.value.code == 130
    assert capsys.readouterr().err == "interrupted\n"
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # given back after the command


def _broken(*_args, **_kwargs):
    raise RuntimeError("a bug")


def _swallowed_then_broken(*_args, **_kwargs):
    # the interrupt is caught and passed over (as a callback's "Exception ignored in" does);
    # the command goes on and a bug follows, naming no interrupt: it is no "interrupted"
    try:
        signal.raise_signal(signal.SIGTERM)
    except KeyboardInterrupt:
        pass
    raise RuntimeError("a bug")


@pytest.mark.parametrize("demo", [_broken, _swallowed_then_broken], ids=["plain", "swallowed"])
def test_a_bug_is_still_a_bug_that_propagates(monkeypatch, tmp_path, demo):
    import driftproof.demo

    monkeypatch.setattr(driftproof.demo, "run_demo", demo)
    with pytest.raises(RuntimeError, match="a bug"):
        main(["demo", str(tmp_path / "d")])


def _schema_error(*_args, **_kwargs):
    import pydantic_core

    raise pydantic_core.SchemaError("a bug in a model")


@pytest.mark.parametrize(
    ("broken", "error"), [(_broken, "RuntimeError"), (_schema_error, "SchemaError")]
)
def test_a_bug_in_a_thread_after_an_earlier_interrupt_still_propagates(
    monkeypatch, tmp_path, broken, error
):
    # a thread takes no signal: an earlier command's stop there must not make pydantic's
    # SchemaError (read as an interrupt only once one arrived) read "interrupted"
    import threading

    import driftproof.demo

    def interrupted(*_args, **_kwargs):
        signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(driftproof.demo, "run_demo", interrupted)
    with pytest.raises(SystemExit):
        main(["demo", str(tmp_path / "a")])

    monkeypatch.setattr(driftproof.demo, "run_demo", broken)
    raised: list[BaseException] = []

    def call() -> None:
        try:
            main(["demo", str(tmp_path / "b")])
        except BaseException as exc:  # noqa: BLE001 - inspected below
            raised.append(exc)

    thread = threading.Thread(target=call)
    thread.start()
    thread.join()
    assert [type(e).__name__ for e in raised] == [error]


def test_a_second_ctrl_c_while_the_first_is_reported_prints_no_traceback(monkeypatch, capsys):
    # found: `driftproof export ...` given Ctrl-C twice in a row (a killed terminal, an impatient
    # user) printed "SystemExit: 130 ... During handling ... KeyboardInterrupt": the second
    # arrived while the first was being reported and escaped main()
    import click

    import driftproof.cli as cli_module

    def interrupted_command(*args, **kwargs):
        raise KeyboardInterrupt

    echo = click.echo

    def echo_after_a_second_ctrl_c(message=None, **kwargs):
        if message == "interrupted":
            signal.raise_signal(signal.SIGINT)
        echo(message, **kwargs)

    monkeypatch.setattr(cli_module.cli, "main", interrupted_command)
    monkeypatch.setattr(click, "echo", echo_after_a_second_ctrl_c)
    with pytest.raises(SystemExit) as stop:
        main(["view", "r.json"])
    assert stop.value.code == 130
    assert capsys.readouterr().err == "interrupted\n"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored after


def test_a_signal_inside_the_import_systems_code_is_sent_again(monkeypatch):
    # Found: `driftproof run` given SIGTERM hung for ever (every draw thread waiting on the
    # import lock, the main thread on the draws). The KeyboardInterrupt had been raised inside
    # the import system's own code, in a callback that swallows it, between its taking of the
    # import lock and the block that gives it back: the main thread went on holding it. There it
    # is sent again 0.05 s later; in a module's own code (a long import) it is raised at once, so
    # that an import that never ends can still be stopped
    from types import SimpleNamespace

    import driftproof.cli as entry

    timers = []
    monkeypatch.setattr(
        entry.threading, "Timer", lambda *a: SimpleNamespace(start=lambda: timers.append(a))
    )

    def frame(name, below=None):
        return SimpleNamespace(f_code=SimpleNamespace(co_filename=name), f_back=below)

    lock_callback = frame("<frozen importlib._bootstrap>", frame("/x/cli.py"))
    assert entry._stop(signal.SIGTERM, lock_callback) is None
    assert timers == [(0.05, entry.os.kill, (entry.os.getpid(), signal.SIGTERM))]
    for where in (frame("/x/slow_module.py", lock_callback), frame("/x/cli.py"), None):
        with pytest.raises(KeyboardInterrupt):
            entry._stop(signal.SIGINT, where)
    assert len(timers) == 1


def test_a_validator_pydantic_fails_to_build_as_ctrl_c_arrives_reads_interrupted(
    monkeypatch, capsys, tmp_path
):
    # found by random stops to `driftproof run` processes (1 in 400 in their first 1.5 s): the
    # stop came while pydantic built a model of the Anthropic SDK, and pydantic-core raised a
    # SchemaError naming neither the interrupt nor keeping it ("'cls' must be valid as the first
    # argument to 'isinstance'"): a traceback, exit status 1
    import pydantic_core

    import driftproof.demo

    def building_a_model(*_args, **_kwargs):
        try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt:  # raised in the check pydantic-core called, and dropped
            pass
        raise pydantic_core.SchemaError(
            "Error building \"is-instance\" validator:\n  SchemaError: 'cls' must be valid as "
            "the first argument to 'isinstance'"
        )

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # as a terminal has it
    monkeypatch.setattr(driftproof.demo, "run_demo", building_a_model)
    try:
        with pytest.raises(SystemExit) as stop:
            main(["demo", str(tmp_path / "d")])
    finally:
        signal.signal(signal.SIGINT, previous)
    assert stop.value.code == 130
    assert capsys.readouterr().err == "interrupted\n"


#: The ``driftproof`` command's own call of main() (no arguments given, sys.argv read), then a
#: SIGTERM as the process ends, as in Python's own tear-down after a run wrote its receipt.
_ENDED = """
import os, signal, sys
from driftproof.cli import main
sys.argv = ["driftproof", "--version"]
try:
    main()
except SystemExit:
    pass
os.kill(os.getpid(), signal.SIGTERM)
print("ended", flush=True)
"""


def test_a_stop_once_the_command_has_ended_leaves_its_exit_status():
    # found by random stops to `driftproof run` processes: a stop after the receipt was written
    # and the journal removed, while Python tore the process down (up to 3 s with the SDKs
    # loaded), ended it with the signal's status (-15 or -2), as if the run had been stopped
    res = subprocess.run([sys.executable, "-c", _ENDED], capture_output=True, text=True)
    assert (res.returncode, res.stdout.splitlines()[-1:]) == (0, ["ended"])


_SUITE = {
    "format": "driftproof-suite/1",
    "name": "one-case",
    "cases": [
        {
            "id": "c",
            "prompt": "Say what HTTP 429 means.",
            "rubric": "1.0 if it says rate limited; 0 otherwise.",
            "threshold": 0.7,
        }
    ],
}


def test_a_stop_before_the_receipt_is_written_over_an_old_one_says_interrupted(
    monkeypatch, capsys, tmp_path
):
    # a stop before this run's receipt is written, with --force over an older receipt at --out,
    # must not read as a run whose receipt is written (tests/run/test_stop_once_written.py): the
    # old file stays as it was and the words are "interrupted", exit status 130
    import json

    suite, skill, out = tmp_path / "s.json", tmp_path / "SKILL.md", tmp_path / "r.json"
    suite.write_text(json.dumps(_SUITE), encoding="utf-8")
    skill.write_text("---\nname: s\n---\nSay it plainly.\n", encoding="utf-8")
    args = ["run", str(suite), "--skill", str(skill), "--model", "m", "--provider", "stub"]
    args += ["--judge-provider", "stub", "--out", str(out), "--force"]
    out.write_text("old\n", encoding="utf-8")
    monkeypatch.setattr("driftproof.cli.run.start_run", _stopped)
    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 130
    assert capsys.readouterr().err.endswith("interrupted\n")
    assert out.read_text(encoding="utf-8") == "old\n"
    assert not (tmp_path / "r.json.journal").exists()


def _stopped(*_args, **_kwargs):
    signal.raise_signal(signal.SIGINT)
