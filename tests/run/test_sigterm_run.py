"""A run stopped by SIGTERM (``timeout``, a CI job cancelled, ``docker stop``) stops as Ctrl-C
stops it: the draws in flight finish into the journal, the command that resumes it is printed,
the exit status is 130 and no temporary file is left. Before, SIGTERM ended the process at once
(status -15, nothing said).

The suite is 150 cases (at least 900 draws), so the signal, sent once the journal holds 20
draws, lands mid-run.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time

from run_helpers import CLI_PROCESS, run_args

from driftproof.run.journal import journal_path


def _draw_lines(journal) -> int:
    return sum(x.startswith(b'{"draw":') for x in journal.read_bytes().split(b"\n"))


def test_sigterm_stops_a_run_as_ctrl_c_does_and_the_same_command_resumes_it(
    suite_file, skill_file, tmp_path
):
    cases = [{"id": f"c{i}", "prompt": f"Task {i}.", "rubric": "1.0 if done."} for i in range(150)]
    suite_file.write_text(json.dumps({"format": "driftproof-suite/1", "cases": cases}))
    out = tmp_path / "r.json"
    argv = [
        *CLI_PROCESS,
        *run_args(suite_file, skill_file)[:7],
        *("simulated", "--model", "sim", "--out", str(out), "--concurrency", "1"),
    ]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    journal = journal_path(out)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (journal.exists() and _draw_lines(journal) >= 20):
        time.sleep(0.005)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (proc.returncode, err)
    assert "no receipt was written yet" in err and "run the same command again" in err, err
    assert not out.exists() and 20 <= _draw_lines(journal) < 900
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []
    res = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    assert not journal.exists()
