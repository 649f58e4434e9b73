"""Another model gave an answer while other draws were in flight: the run stops, and the draws in
flight finish and are journaled (as ``run_cells`` promises), so that the receipt it writes holds
each arm's draws without a gap and reads UNVERIFIED (exit 3). Before, the stop halted them
between their calls: a draw still being judged was dropped, the receipt held draws 1 and 2 of
an arm without draw 0 ("expected draw indexes 0 to 1, each once; index 0 is missing"), and the
run ended in that error with no receipt."""

from __future__ import annotations

import json
import threading

import pytest
from run_helpers import SUITE, run_lane

import driftproof.run.scheduler as scheduler
from driftproof.receipt import read_receipt
from driftproof.run.providers import make_provider
from driftproof.run.providers.base import Provider
from driftproof.run.scheduler import StopRun


class Lane(Provider):
    """A lane as ``inner``, but for what ``change(call keywords, reply)`` does."""

    def __init__(self, inner: Provider, change) -> None:
        self.inner, self.change = inner, change
        for name in ("name", "surface", "capture", "service", "channel"):
            setattr(self, name, getattr(inner, name))

    def call(self, **kw):
        return self.change(kw, lambda: self.inner.call(**kw))


def test_the_draws_in_flight_at_a_handoff_finish_and_the_receipt_is_written(
    loopback, suite_file, tmp_path, monkeypatch
):
    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:1]}))
    stop_seen = threading.Event()
    first_error = scheduler._first_error

    def seen(kept, new):  # the run's loop has taken the stop in
        stop_seen.set() if isinstance(new, StopRun) else None
        return first_error(kept, new)

    monkeypatch.setattr(scheduler, "_first_error", seen)

    def answers(kw, call):  # draw 2 of the with-skill arm is another model's
        reply = call()
        if (kw["draw"].arm, kw["draw"].index) == ("with_skill", 1):
            reply.reported_model = "claude-opus-4-7"
        return reply

    def grades(kw, call):  # draw 1 is still being judged when the stop is taken in
        if (kw["draw"].arm, kw["draw"].index, kw["draw"].sample) == ("with_skill", 0, 0):
            assert stop_seen.wait(60)
        return call()

    lane = Lane(make_provider("anthropic", "api"), answers)
    judge = Lane(make_provider("anthropic", "api"), grades)
    monkeypatch.setattr("driftproof.run.providers.make_provider", lambda *a, **kw: judge)
    out = run_lane(tmp_path, "anthropic", "api", lane=lane, concurrency=2, judge_samples=2)
    r = read_receipt(out)  # read back: each arm's draws are 0, 1, ... with none missing
    assert r.verification_level == "UNVERIFIED"
    drawn = [(d.score, d.lost and d.lost.kind) for d in r.cases[0].arms.with_skill.draws]
    assert drawn[:2] == [(0.9, None), (None, "handoff")]  # a third may have begun meanwhile


def test_a_resumed_run_another_model_answered_in_stays_stopped(
    loopback, suite_file, tmp_path, monkeypatch
):
    # killed after the draw another model answered was journaled, before the receipt: the
    # resumed run sealed a TESTED receipt holding that draw, as if the run had not stopped
    from driftproof.run.journal import Journal

    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:1]}))
    written = Journal.draw

    def killed_after(self, rec):
        written(self, rec)
        if (rec["draw"]["lost"] or {}).get("kind") == "handoff":
            raise KeyboardInterrupt

    def answers(kw, call):
        reply = call()
        if (kw["draw"].arm, kw["draw"].index) == ("with_skill", 0):
            reply.reported_model = "claude-opus-4-7"
        return reply

    with monkeypatch.context() as m, pytest.raises(KeyboardInterrupt):
        m.setattr(Journal, "draw", killed_after)
        lane = Lane(make_provider("anthropic", "api"), answers)
        run_lane(tmp_path, "anthropic", "api", lane=lane, concurrency=1)
    r = read_receipt(run_lane(tmp_path, "anthropic", "api", concurrency=1))
    assert r.verification_level == "UNVERIFIED"
    assert r.cases[0].arms.with_skill.draws[0].lost.kind == "handoff"
