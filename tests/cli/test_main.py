"""The console entry point turns exit codes and Driftproof errors into process exits."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from driftproof.cli import main
from driftproof.cli.validate import validate


def _validate(*paths) -> int:
    with pytest.raises(SystemExit) as exc:
        main(["validate", *map(str, paths)])
    return exc.value.code


def test_validate_exits_2_for_a_file_not_read_as_json_and_1_for_a_failing_receipt(tmp_path, capsys):
    # bad input exits 2 in every command; a readable receipt that fails is validate's 1
    missing, text, other = tmp_path / "missing.json", tmp_path / "t.json", tmp_path / "o.json"
    text.write_text("not json", encoding="utf-8")
    other.write_text('{"a": 1}', encoding="utf-8")  # JSON, but no receipt
    assert (_validate(missing), _validate(text), _validate(other)) == (2, 2, 1)
    assert _validate(other, missing) == 2  # bad input first
    out, err = capsys.readouterr()
    assert "missing.json: cannot read" in out
    assert err.splitlines()[-1] == "1 of 2 files could not be read as JSON; 1 of 2 receipts failed"
    readme = " ".join((Path(__file__).parents[2] / "README.md").read_text("utf-8").split())
    assert "1 a receipt fails, 2 a file cannot be read or is not JSON |" in readme
    assert "1 a receipt fails; 2 a file cannot be read or is not JSON" in " ".join(
        (validate.help or "").split()
    )


def test_version_exits_0(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert "driftproof, version" in capsys.readouterr().out


def test_driftproof_error_is_one_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(SystemExit) as exc:
        main(["view", str(bad)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and str(bad) in err and "Traceback" not in err


def test_unknown_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["no-such-command"])
    assert exc.value.code == 2


def test_a_reader_gone_before_the_output_exits_141_not_a_result(tmp_path):
    # Found: a closed stdout exited 1, which diff reads as regressed and validate as a receipt
    # that failed; 141 is 128 + SIGPIPE (13), what a shell reports for a command the signal ended
    import subprocess
    import sys
    from pathlib import Path

    receipt = next(iter(sorted(Path("receipts").glob("*.json"))))
    entry = "import sys; from driftproof.cli import main; main(sys.argv[1:])"
    # found too: driftproof's own --help, printed before any command runs, and run, whose
    # summary rich prints (rich exits 1 on a closed stdout itself), still exited 1
    demo = Path("driftproof/demo_files")
    run = ["run", str(demo / "suite.json"), "--skill", str(demo / "skill-v1/SKILL.md"), "--quick"]
    run += ["--model", "m", "--provider", "simulated", "--out", str(tmp_path / "r.json")]
    for args in (["validate", str(receipt)], ["--help"], run):
        read, write = os.pipe()
        os.close(read)  # no reader: the first write fails (EPIPE; Python ignores SIGPIPE)
        cmd = [sys.executable, "-c", entry, *args]
        done = subprocess.run(cmd, stdout=write, stderr=subprocess.PIPE, text=True, check=False)
        os.close(write)
        assert (args, done.returncode, done.stderr) == (args, 141, "")


def test_started_with_no_stdout_a_command_gives_its_result_not_a_traceback():
    # Found: with stdout closed (>&-) sys.stdout is None and validate, diff, view, plan, stale,
    # run and regrade ended in a traceback, status 1 (a valid receipt read as one that failed)
    import subprocess
    import sys
    from pathlib import Path

    receipt = str(next(iter(sorted(Path("receipts").glob("*.json")))))
    entry = "import sys; from driftproof.cli import main; main(sys.argv[1:])"
    for args, status in ((["validate", receipt], 0), (["view", receipt], 0)):
        cmd = [sys.executable, "-c", entry, *args]
        done = subprocess.run(  # stdout closed before Python starts: sys.stdout is None
            cmd, stderr=subprocess.PIPE, text=True, check=False, preexec_fn=lambda: os.close(1)
        )
        assert (args, done.returncode, done.stderr) == (args, status, "")


def test_a_full_stdout_is_named_as_such_not_input_or_output():
    # Found: `view RECEIPT > /dev/full` (and validate, --help) said "error: (input or output): No
    # space left on device", naming no stream; the refused stream is standard output
    import errno
    import subprocess
    import sys
    from pathlib import Path

    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    receipt = str(next(iter(sorted(Path("receipts").glob("*.json")))))
    entry = "import sys; from driftproof.cli import main; main(sys.argv[1:])"
    said = f"error: standard output could not be written: {os.strerror(errno.ENOSPC)}\n"
    for args in (["view", receipt], ["validate", receipt], ["--help"]):
        with open("/dev/full", "w") as full:
            cmd = [sys.executable, "-c", entry, *args]
            done = subprocess.run(cmd, stdout=full, stderr=subprocess.PIPE, text=True, check=False)
        assert (args, done.returncode, done.stderr) == (args, 2, said)


def test_a_full_stderr_keeps_the_documented_exit_status(tmp_path):
    # Found: `view bad.json 2>/dev/full` (and a usage error) exited 1, the failed error line's
    # traceback status, where the help documents 2 for bad input
    import subprocess
    import sys
    from pathlib import Path

    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    entry = "import sys; from driftproof.cli import main; main(sys.argv[1:])"
    for args in (["view", str(bad)], ["view", "--no-such-option"]):
        with open("/dev/full", "w") as full:
            cmd = [sys.executable, "-c", entry, *args]
            done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=full, check=False)
        assert (args, done.returncode, done.stdout) == (args, 2, b"")


def test_a_run_started_with_no_stderr_writes_its_receipt(tmp_path):
    # Found: `run ... 2>&-` exited 1 before any draw (its progress console asked a missing
    # stderr whether it is a terminal) and wrote nothing; it writes its receipt, status 0
    import os
    import subprocess
    import sys
    from pathlib import Path

    files = Path(__file__).resolve().parents[2] / "driftproof" / "demo_files"
    out = tmp_path / "r.json"
    args = ["run", str(files / "suite.json"), "--skill", str(files / "skill-v1" / "SKILL.md")]
    args += ["--model", "sim", "--provider", "simulated", "--out", str(out)]
    entry = "import sys; from driftproof.cli import main; main(sys.argv[1:])"
    done = subprocess.run(
        [sys.executable, "-c", entry, *args],
        stdout=subprocess.DEVNULL,
        preexec_fn=lambda: os.close(2),  # the child starts with no standard error at all
        check=False,
    )
    assert (done.returncode, out.is_file()) == (0, True)
