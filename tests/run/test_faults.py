"""Faults: 429s and 500s are retried and counted; hangs and replies trickled past the timeout
become lost draws with reasons; a
fatal error stops the run and keeps the journal; a run killed half-way and resumed ends with
every draw exactly once (issue 5, "Done when").

Attempt counts are worked out by hand. The in-process tests use the suite's first case
alone (kept small for speed): 2 arms × 3 draws = 6 draws, each one generation and 5 judge
samples when it is measured (36 attempts for a clean run). The SIGKILL test runs all three
cases (18 draws).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import time

import pytest
from run_helpers import CLI_PROCESS, SUITE, is_judge_prompt, run_args, run_lane

from driftproof.errors import ProviderError, RefusalError
from driftproof.receipt import read_receipt
from driftproof.run.journal import journal_path
from driftproof.run.providers import make_provider
from driftproof.run.providers.base import Provider


@pytest.fixture
def one_case(suite_file):
    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:1]}))
    return suite_file


def _all_draws(r):
    return [
        (c.id, arm, d)
        for c in r.cases
        for arm in ("with_skill", "baseline")
        for d in getattr(c.arms, arm).draws
    ]


def test_429_then_500_are_retried_after_5_and_20_seconds_and_counted(loopback, one_case, tmp_path):
    loopback.script.faults = [429, 500]
    slept: list[float] = []
    out = run_lane(
        tmp_path, "anthropic", "api", concurrency=1, retry_delays=(5.0, 20.0), sleep=slept.append
    )
    r = read_receipt(out)
    assert slept == [5.0, 20.0]  # the one call that met both faults waited 5 s, then 20 s
    assert r.run.endpoint_attempts == 36 + 2
    assert all(d.lost is None for _, _, d in _all_draws(r))
    assert r.verification_level == "TESTED"


def test_three_500s_lose_the_draw_with_its_reason(loopback, one_case, tmp_path):
    loopback.script.faults = [500, 500, 500]
    out = run_lane(tmp_path, "anthropic", "api", concurrency=1)
    r = read_receipt(out)
    lost = [(cid, arm, d) for cid, arm, d in _all_draws(r) if d.lost is not None]
    assert len(lost) == 1
    cid, arm, d = lost[0]
    assert (cid, arm, d.index) == (
        "commit-429",
        "with_skill",
        0,
    )  # concurrency 1: the very first call
    assert "HTTP 500" in d.lost.reason and "3 attempts" in d.lost.reason
    assert d.score is None and d.judge_samples == []
    # 5 measured draws × 6 attempts + 3 attempts at the lost one; the arm keeps 3 draws (lost not
    # replaced)
    assert r.run.endpoint_attempts == 5 * 6 + 3
    assert len(r.cases[0].arms.with_skill.draws) == 3


def test_hangs_become_lost_draws_with_reasons(loopback, one_case, tmp_path):
    # every baseline generation hangs; the client gives up after 1.5 s (long enough that a reply
    # the server does send is not cut off on a loaded machine, and a fraction of a second is shown)
    loopback.script.hang_if = lambda system, prompt: (
        system is None and "<answer data=" not in prompt
    )
    out = run_lane(tmp_path, "anthropic", "api", timeout=1.5)
    r = read_receipt(out)
    reasons = [d.lost.reason for d in r.cases[0].arms.baseline.draws]
    assert len(reasons) == 3
    assert all(
        x.startswith(
            "timed out after 1.5 s; transient, 3 attempts, retried after 0.01 s and 0.02 s"
        )
        for x in reasons
    )
    assert all(d.lost is None for c in r.cases for d in c.arms.with_skill.draws)
    # every attempt reached the server, timed out or not; at least 3 measured draws × 6 + 3 lost × 3
    # (a slow call on a loaded machine may time out and be retried too, and is counted as well)
    assert r.run.endpoint_attempts == sum(loopback.script.requests.values()) >= 3 * 6 + 3 * 3


@pytest.mark.parametrize(("provider", "api"), [("anthropic", None), ("openai", "chat")])
def test_a_reply_trickled_past_the_timeout_is_cut_off(loopback, one_case, tmp_path, provider, api):
    # every baseline answer is a valid reply sent one byte every 0.25 s: about 70 s in all, each
    # byte well inside the SDK's 1 s timeout; the attempt is cut off 1 s after it starts
    loopback.script.trickle_if = lambda system, prompt: (
        system is None and not is_judge_prompt(prompt)
    )
    started = time.monotonic()
    out = run_lane(tmp_path, provider, "api", api=api, timeout=1.0)
    assert time.monotonic() - started < 60  # no trickle was waited out
    r = read_receipt(out)
    assert [d.lost.reason for d in r.cases[0].arms.baseline.draws] == [
        "timed out after 1 s; transient, 3 attempts, retried after 0.01 s and 0.02 s"
    ] * 3
    assert loopback.script.trickled == 3 * 3  # 3 draws × 3 attempts, each cut off


def test_a_grade_trickled_past_the_judge_timeout_is_cut_off(loopback, one_case, tmp_path):
    loopback.script.trickle_if = lambda system, prompt: is_judge_prompt(prompt)
    started = time.monotonic()
    out = run_lane(tmp_path, "anthropic", "api", judge_timeout=1.0, judge_samples=1)
    assert time.monotonic() - started < 60
    r = read_receipt(out)
    assert [s.invalid_reason for _, _, d in _all_draws(r) for s in d.judge_samples] == [
        "judge call failed: timed out after 1 s; transient, 3 attempts, retried after 0.01 s and "
        "0.02 s"
    ] * 6
    assert loopback.script.trickled == 6 * 3  # 6 draws × 1 sample × 3 attempts


def test_closing_a_lane_ends_the_attempts_in_flight_and_refuses_new_ones(
    loopback, close_in_flight
) -> None:
    # a second Ctrl-C closed the lane while draws waited on its event loop: they waited for ever
    # and the process never exited (an adversary's finding). Each ends as an unfinished draw
    # (Halted: not journaled, drawn again on resume), and no call is made after the close.
    from driftproof.run.providers.base import Call

    loopback.script.trickle_if = lambda system, prompt: True  # about 70 s a reply
    lane = make_provider("anthropic", "api")
    call = Call("claude-sonnet-4-6", None, "Say hi.", 64, timeout=60.0)
    close_in_flight(lane, call, lambda: loopback.script.trickled > 0, 10)  # in flight
    assert loopback.script.trickled == 1


def test_a_fatal_error_stops_the_run_and_keeps_the_journal(loopback, one_case, tmp_path):
    loopback.script.faults = [401]
    with pytest.raises(ProviderError, match="HTTP 401"):
        run_lane(tmp_path, "anthropic", "api", concurrency=1)
    assert not (tmp_path / "receipt.json").exists()
    lines = journal_path(tmp_path / "receipt.json").read_text().splitlines()
    header = json.loads(lines[0])
    assert header["journal"] == "driftproof-run/2"
    # every line carries its run's mark: the header's identity and start time, hashed
    doc = json.dumps([header["identity"], header["started_at"]], sort_keys=True, separators=",:")
    assert lines[1:] == [f'{{"attempt":1,"run":"{hashlib.sha256(doc.encode()).hexdigest()[:16]}"}}']


class Dies(Provider):
    """Wraps a lane; its ``after``-th call raises, as a kill would, and every call is counted."""

    def __init__(self, inner: Provider, after: int | None) -> None:
        self.inner, self.after, self.calls = inner, after, 0
        self.name, self.surface, self.capture, self.service = (
            inner.name,
            inner.surface,
            inner.capture,
            inner.service,
        )

    def call(self, **kw):
        self.calls += 1
        if self.after is not None and self.calls == self.after:
            raise KeyboardInterrupt("killed")
        return self.inner.call(**kw)


def test_killed_and_resumed_run_has_every_draw_exactly_once(loopback, one_case, tmp_path):
    first = Dies(make_provider("anthropic", "api"), after=4)
    with pytest.raises(KeyboardInterrupt):
        run_lane(tmp_path, "anthropic", "api", lane=first, concurrency=1)
    journal = journal_path(tmp_path / "receipt.json")
    finished = [x for x in journal.read_text().splitlines() if x.startswith('{"draw":')]
    assert len(finished) == 3  # concurrency 1: three draws finished, the fourth call was cut
    second = Dies(make_provider("anthropic", "api"), after=None)
    out = run_lane(tmp_path, "anthropic", "api", lane=second, concurrency=4)
    assert second.calls == 6 - 3  # no finished draw is redone
    r = read_receipt(out)
    keys = [(cid, arm, d.index) for cid, arm, d in _all_draws(r)]
    assert sorted(keys) == [
        ("commit-429", a, i) for a in ("baseline", "with_skill") for i in range(3)
    ]
    # 3 × 6 attempts before the cut, the cut attempt itself (made, then killed), 3 × 6 after
    assert r.run.endpoint_attempts == 3 * 6 + 1 + 3 * 6
    assert not journal.exists()


def _draw_lines(journal):
    return sum(1 for line in journal.read_text().splitlines() if line.startswith('{"draw":'))


def test_sigkill_mid_run_then_resume(suite_file, skill_file, tmp_path, fake_bin):
    # the stub judge keeps the two subprocess runs light (no SDK to import); the lane is claude -p
    out = tmp_path / "receipt.json"
    argv = [
        *CLI_PROCESS,
        *run_args(suite_file, skill_file, "--surface", "cli", "--judge-provider", "stub"),
        *("--out", str(out), "--concurrency", "2", "--retry-delays", "0.01,0.02"),
    ]
    # a killed run cannot remove its lanes' temporary folders: keep them in the test's own folder
    (tmp := tmp_path / "tmp").mkdir()
    env = {**os.environ, "FAKE_SLEEP": "0.3", "TMPDIR": str(tmp)}
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    journal = journal_path(out)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if journal.exists() and _draw_lines(journal) >= 3:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    time.sleep(0.5)  # generations already started log themselves at once; let them land
    kept = _draw_lines(journal)
    assert 3 <= kept < 18
    log = tmp_path / "cli.log"
    before = sum(1 for x in log.read_text().splitlines() if json.loads(x)["argv"] != ["--version"])
    res = subprocess.run(
        argv, env={**os.environ, "FAKE_SLEEP": "0"}, capture_output=True, text=True, timeout=60
    )
    assert res.returncode == 0, res.stderr
    after = sum(1 for x in log.read_text().splitlines() if json.loads(x)["argv"] != ["--version"])
    assert after - before == 18 - kept  # only the unfinished draws are drawn again
    r = read_receipt(out)
    keys = sorted((cid, arm, d.index) for cid, arm, d in _all_draws(r))
    assert len(keys) == len(set(keys)) == 18
    assert r.run.harness.version == "2.1.288" and r.verification_level == "UNVERIFIED"  # stub judge


def test_resume_refuses_a_journal_of_another_run(loopback, one_case, tmp_path):
    first = Dies(make_provider("anthropic", "api"), after=2)
    with pytest.raises(KeyboardInterrupt):
        run_lane(tmp_path, "anthropic", "api", lane=first, concurrency=1)
    with pytest.raises(RefusalError, match=r"belongs to a different run \(differs in: --model\)"):
        run_lane(tmp_path, "anthropic", "api", model="claude-opus-4-7")


def test_resume_refuses_another_openai_api_shape(loopback, one_case, tmp_path):
    # Found: the journal did not hold the answering lane's API shape, so draws from the Chat
    # Completions API and from the Responses API were sealed in one receipt
    first = Dies(make_provider("openai", "api", api="chat"), after=2)
    first.api = "chat"
    with pytest.raises(KeyboardInterrupt):
        run_lane(tmp_path, "openai", "api", lane=first, concurrency=1)
    with pytest.raises(RefusalError, match=r"differs in: --openai-api\)"):
        run_lane(tmp_path, "openai", "api", api="responses")


def test_resume_refuses_a_margin_added_after_the_run_began(loopback, one_case, tmp_path):
    # a margin is declared before the run: resumed with one, the receipt recorded it as declared
    first = Dies(make_provider("anthropic", "api"), after=2)
    with pytest.raises(KeyboardInterrupt):
        run_lane(tmp_path, "anthropic", "api", lane=first, concurrency=1)
    with pytest.raises(RefusalError, match=r"belongs to a different run \(differs in: --margin\)"):
        run_lane(tmp_path, "anthropic", "api", margin=0.05)


def test_resume_refuses_another_seed(one_case, tmp_path):
    # a seeded lane's draws follow its seed: a resume with another mixed two runs' draws
    first = Dies(make_provider("simulated", None, seed=0), after=2)
    with pytest.raises(KeyboardInterrupt):
        run_lane(tmp_path, "simulated", None, lane=first, judge="stub", concurrency=1)
    with pytest.raises(RefusalError, match=r"belongs to a different run \(differs in: --seed\)"):
        run_lane(
            tmp_path, "simulated", None, judge="stub", lane=make_provider("simulated", None, seed=1)
        )


def test_resume_refusal_names_the_option_in_words(one_case, tmp_path):
    # resumed with --draws 5 (min and max draws both 5): one option, named once, in words
    first = Dies(make_provider("simulated", None), after=2)
    with pytest.raises(KeyboardInterrupt):
        run_lane(tmp_path, "simulated", None, lane=first, judge="stub", concurrency=1)
    with pytest.raises(RefusalError) as e:
        run_lane(tmp_path, "simulated", None, judge="stub", min_draws=5, max_draws=5)
    assert "(differs in: the draws per arm (--max-draws, --draws or --quick)); " in str(e.value)


def test_resume_refuses_another_harness_version(
    loopback, fake_bin, one_case, tmp_path, monkeypatch
):
    first = Dies(make_provider("anthropic", "cli"), after=2)
    first.start = first.inner.start
    with pytest.raises(KeyboardInterrupt):
        run_lane(tmp_path, "anthropic", "cli", lane=first, concurrency=1)
    monkeypatch.setenv("FAKE_CLAUDE_VERSION", "2.1.289 (Claude Code)")
    with pytest.raises(
        RefusalError, match="began on harness version 2.1.288, this binary prints 2.1.289"
    ):
        run_lane(tmp_path, "anthropic", "cli")


def test_a_torn_last_line_is_a_draw_that_did_not_finish(loopback, one_case, tmp_path):
    first = Dies(make_provider("anthropic", "api"), after=3)
    with pytest.raises(KeyboardInterrupt):
        run_lane(tmp_path, "anthropic", "api", lane=first, concurrency=1)
    journal = journal_path(tmp_path / "receipt.json")
    with journal.open("ab") as f:
        f.write(b'{"draw":{"case":"commit-429","arm":"baseline","ind')  # cut short by a kill
    second = Dies(make_provider("anthropic", "api"), after=None)
    r = read_receipt(run_lane(tmp_path, "anthropic", "api", lane=second))
    assert second.calls == 6 - 2
    assert sorted(
        (c.id, a, d.index)
        for c in r.cases
        for a in ("with_skill", "baseline")
        for d in getattr(c.arms, a).draws
    ) == [("commit-429", a, i) for a in ("baseline", "with_skill") for i in range(3)]


def test_two_runs_never_share_a_journal(tmp_path, monkeypatch):
    from driftproof.run.journal import Journal

    first = Journal(
        tmp_path / "r.json.journal",
        {"a": 1},
        started_at="2026-11-29T00:00:00Z",
        harness_version=None,
    )
    with pytest.raises(RefusalError, match="another run is writing this journal"):
        Journal(
            tmp_path / "r.json.journal",
            {"a": 1},
            started_at="2026-11-29T00:00:01Z",
            harness_version=None,
        )
    first.close()
    again = Journal(
        tmp_path / "r.json.journal",
        {"a": 1},
        started_at="2026-11-29T00:00:02Z",
        harness_version=None,
    )
    assert again.resumed and again.started_at == "2026-11-29T00:00:00Z"
    # the lock is let go only once the name is gone: no run can take a journal being deleted
    closed, real_close = [], os.close
    monkeypatch.setattr(
        os, "close", lambda fd: (closed.append(again.path.exists()), real_close(fd))
    )
    again.remove()
    assert closed == [False] and not (tmp_path / "r.json.journal").exists()


def test_a_receipt_that_does_not_read_back_is_removed_and_the_journal_kept(one_case, tmp_path):
    from driftproof.errors import ReceiptError

    (tmp_path / "receipt.json").write_text("an earlier receipt")
    with pytest.raises(ReceiptError, match="/run/model"):
        run_lane(
            tmp_path, "stub", None, judge="stub", model="m" * 201
        )  # the schema holds 200 characters
    assert (tmp_path / "receipt.json").read_text() == "an earlier receipt"
    assert sorted(p.name for p in tmp_path.iterdir() if "receipt" in p.name) == [
        "receipt.json",
        "receipt.json.journal",
    ]
    lines = journal_path(tmp_path / "receipt.json").read_text().splitlines()
    assert sum(x.startswith('{"draw":') for x in lines) == 6  # every finished draw kept for a rerun


def test_a_journal_line_that_is_not_json_is_refused_naming_the_file_and_line(tmp_path) -> None:
    from driftproof.run.journal import Journal, json_records

    p = tmp_path / "r.json.journal"
    # blank lines are skipped; every other complete line is one record, in order
    assert list(json_records(p, [b'{"a": 1}', b"  ", b'{"b": 2}'])) == [
        (1, {"a": 1}),
        (3, {"b": 2}),
    ]
    j = Journal(p, {"run": 1}, started_at="2026-01-01T00:00:00Z", harness_version=None)
    j.attempt()
    j.close()
    with p.open("ab") as f:
        f.write(b"{not json\n")
    # line 1 the header, line 2 the attempt, line 3 the damaged one
    with pytest.raises(
        RefusalError, match=r"r\.json\.journal: line 3 is not JSON \(.+\); the journal is damaged"
    ):
        Journal(p, {"run": 1}, started_at="2026-01-02T00:00:00Z", harness_version=None)


@pytest.mark.parametrize(
    "draw",
    [
        {"case": "c1", "arm": "with_skill", "index": "q", "draw": {"score": 0.5}},
        {"case": "c1", "arm": "with_skill", "index": 0, "draw": 5},
        {"case": "c1", "arm": "with_skill", "index": 0, "draw": {"score": "x"}},
        {"case": 7, "arm": "with_skill", "index": 0, "draw": {"score": 0.5}},
    ],
    ids=["index a word", "draw a number", "score a word", "case a number"],
)
def test_a_damaged_draw_record_is_refused_not_raised(tmp_path, draw) -> None:
    # Found: resuming from such a journal raised TypeError deep in the run (a traceback)
    from driftproof.run.journal import Journal

    p = tmp_path / "r.json.journal"
    j = Journal(p, {"run": 1}, started_at="2026-01-01T00:00:00Z", harness_version=None)
    j.close()
    with p.open("ab") as f:
        f.write(json.dumps({"draw": draw, "run": j.mark}).encode() + b"\n")
    with pytest.raises(RefusalError, match=r"r\.json\.journal: a draw record's .+ damaged"):
        Journal(p, {"run": 1}, started_at="2026-01-02T00:00:00Z", harness_version=None)


@pytest.mark.parametrize("identity", ["x", [1], 5])
def test_a_journal_whose_identity_is_not_an_object_belongs_to_another_run(
    tmp_path, identity
) -> None:
    from driftproof.run.journal import Journal

    p = tmp_path / "r.json.journal"
    Journal(p, {"run": 1}, started_at="2026-01-01T00:00:00Z", harness_version=None).close()
    header, *rest = p.read_bytes().split(b"\n")
    doc = json.loads(header)
    doc["identity"] = identity
    p.write_bytes(b"\n".join([json.dumps(doc).encode(), *rest]))
    with pytest.raises(RefusalError, match=r"belongs to a different run \(differs in: run\)"):
        Journal(p, {"run": 1}, started_at="2026-01-02T00:00:00Z", harness_version=None)
