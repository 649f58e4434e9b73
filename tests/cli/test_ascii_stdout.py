"""A command's output on a stream that is not UTF-8 (PYTHONIOENCODING=ascii, LC_ALL=C)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

DEMO = Path(__file__).parents[2] / "driftproof" / "demo_files"
ENTRY = "import sys; from driftproof.cli import main; main(sys.argv[1:])"


def test_run_prints_its_summary_on_an_ascii_stdout_as_view_does(tmp_path):
    # Found: under PYTHONIOENCODING=ascii run wrote its receipt, then failed printing the
    # summary's "±" (rich wrote to the ASCII stream) and exited 2 naming a lone surrogate;
    # view (click.echo) writes UTF-8 bytes there. Both write the same way now.
    out = tmp_path / "r.json"
    cmd = [sys.executable, "-c", ENTRY, "run", str(DEMO / "suite.json"), "--skill"]
    cmd += [str(DEMO / "skill-v1" / "SKILL.md"), "--model", "m", "--provider", "stub"]
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    done = subprocess.run([*cmd, "--out", str(out)], capture_output=True, env=env, check=False)
    assert (done.returncode, done.stderr) == (0, b"")
    assert "±".encode() in done.stdout  # the summary's bands, as UTF-8
    assert f"receipt: {out}\nnext: driftproof view ".encode() in done.stdout


def test_a_full_stdout_once_the_output_is_written_says_it_is_written(tmp_path):
    # Found: `run ... > /dev/full` and `badge ... > /dev/full` wrote their files, then exited 2
    # saying only that standard output could not be written, which their help reads as
    # "nothing is written"; the error now says what is written and where
    import errno

    out, folder = tmp_path / "r.json", tmp_path / "b"
    run = [sys.executable, "-c", ENTRY, "run", str(DEMO / "suite.json"), "--skill"]
    run += [str(DEMO / "skill-v1" / "SKILL.md"), "--model", "m", "--provider", "stub"]
    badge = [sys.executable, "-c", ENTRY, "badge", str(out), "--out-dir", str(folder)]
    full = f"error: standard output could not be written: {os.strerror(errno.ENOSPC)}\n"
    names = ", ".join(str(folder / f"r{x}") for x in (".json", ".details.json", ".svg"))
    for cmd, said in (
        ([*run, "--out", str(out)], f"error: the receipt {out} is written"),
        (badge, f"error: the badge files {names} are written"),
    ):
        with open("/dev/full", "w") as stdout:
            done = subprocess.run(
                cmd,
                stdout=stdout,
                capture_output=False,
                stderr=subprocess.PIPE,
                text=True,
                check=False,
            )
        assert (done.returncode, done.stderr) == (2, f"{full}{said}: only the printing failed\n")
    assert out.is_file() and len(list(folder.iterdir())) == 3
