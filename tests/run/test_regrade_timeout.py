"""A regrade's judge calls take the deadline it is given, as ``run --judge-timeout`` does.

The receipt does not record a run's judge timeout; a regrade fixed at 120 s could never grade
again what a slow judge (a local OpenAI-compatible server) graded with ``--judge-timeout 600``.
"""

from __future__ import annotations

from click.testing import CliRunner
from run_helpers import is_judge_prompt, run_lane

from driftproof.cli import cli
from driftproof.run.providers.base import Provider


def _timeouts(monkeypatch) -> list[float]:
    """The ``timeout`` of every judge call the lanes make from now on, in seconds."""
    seen: list[float] = []
    real = Provider.call

    def call(self, **kw):
        if is_judge_prompt(kw["prompt"]):
            seen.append(kw["timeout"])
        return real(self, **kw)

    monkeypatch.setattr(Provider, "call", call)
    return seen


def test_regrade_judge_calls_take_the_given_timeout(loopback, suite_file, tmp_path, monkeypatch):
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True, judge_timeout=7.0)
    seen = _timeouts(monkeypatch)
    args = ["regrade", str(out), "--rubric", str(suite_file), "--judge-samples", "1"]
    res = CliRunner().invoke(
        cli,
        [
            *args,
            "--out",
            str(tmp_path / "rg.json"),
            "--judge-timeout",
            "7",
            "--retry-delays",
            "0.01",
        ],
    )
    assert res.exit_code == 0, res.output
    assert seen == [7.0] * 18  # 3 cases x 2 arms x 3 draws, one sample each


def test_regrade_judge_timeout_defaults_to_runs(loopback, suite_file, tmp_path, monkeypatch):
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True)
    seen = _timeouts(monkeypatch)
    args = ["regrade", str(out), "--rubric", str(suite_file), "--judge-samples", "1"]
    res = CliRunner().invoke(
        cli, [*args, "--out", str(tmp_path / "rg.json"), "--retry-delays", "0.01"]
    )
    assert res.exit_code == 0, res.output
    assert seen == [120.0] * 18  # run --help: --judge-timeout [default: 120.0]
