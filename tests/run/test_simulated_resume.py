"""Resumes are exact (issue 33, item 6): the simulated lane draws from what identifies a draw
(case, arm, draw index, attempt, judge sample), never from how many calls this process made, so a
run killed with SIGKILL and resumed in a new process seals the very draws an uninterrupted run
seals. Before, the resumed process counted its calls from 1 again and repeated earlier draws.

The suite is 150 cases (at least 150 x 2 arms x 3 draws = 900 draws), so the kill, once the
journal holds 20 draws, lands mid-run. The uninterrupted run goes one draw at a time; the resumed
one eight at a time, since the draws must not depend on the order calls are made in either.
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


def test_a_killed_and_resumed_simulated_run_seals_the_draws_of_an_uninterrupted_one(
    suite_file, skill_file, tmp_path
):
    suite_file.write_text(
        json.dumps(
            {
                "format": "driftproof-suite/1",
                "cases": [
                    {"id": f"c{i}", "prompt": f"Task {i}: name a prime.", "rubric": "1.0 if prime."}
                    for i in range(150)
                ],
            }
        )
    )

    def argv(out, concurrency):
        return [
            *CLI_PROCESS,
            *run_args(suite_file, skill_file)[:7],
            *("simulated", "--model", "sim", "--seed", "7"),
            *("--out", str(out), "--concurrency", str(concurrency)),
        ]

    whole, resumed = tmp_path / "whole.json", tmp_path / "resumed.json"
    assert subprocess.run(argv(whole, 1), capture_output=True, timeout=600).returncode == 0
    proc = subprocess.Popen(argv(resumed, 1), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    journal = journal_path(resumed)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (journal.exists() and _draw_lines(journal) >= 20):
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    kept = _draw_lines(journal)
    assert not resumed.exists() and 20 <= kept < 900, kept  # killed mid-run
    res = subprocess.run(argv(resumed, 8), capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    a, b = (json.loads(p.read_text()) for p in (whole, resumed))
    assert sum(len(c["arms"][arm]["draws"]) for c in a["cases"] for arm in c["arms"]) >= 900
    assert a["cases"] == b["cases"]  # every draw: answer hash, judge samples, score; every band


def test_a_simulated_call_with_no_draw_identity_is_refused_as_a_mistake():
    # the lane seeds each draw from its identity; a call with none was read as case "", arm "",
    # draw 0, every such call given one draw's answer. Every caller identifies its calls, so
    # one with none is a programming error, raised, not guessed at
    import pytest

    from driftproof.run.providers.base import DrawId
    from driftproof.run.providers.simulated import SimulatedProvider

    lane = SimulatedProvider(seed=1)
    for prompt in ("p", "<answer>[simulated quality 0.5000]</answer>\n<rubric>r</rubric>"):
        with pytest.raises(ValueError, match=r"^the simulated lane was called with no draw "):
            lane.call(model="m", system=None, prompt=prompt, timeout=1, max_tokens=10)
        lane.call(  # identified, it answers
            model="m",
            system=None,
            prompt=prompt,
            timeout=1,
            max_tokens=10,
            draw=DrawId("c", "b", 0),
        )
