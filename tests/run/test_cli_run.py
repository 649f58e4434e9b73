"""``driftproof run`` on the command line: stub, --quick, --control, refusals, a handoff to
another model, CLI failures; and the scheduler's stopping rule and resume, by hand."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from run_helpers import BASE_ANSWER, SKILL_ANSWER, SUITE, run_lane

from driftproof.cli import main
from driftproof.cli.run import run as run_cmd
from driftproof.receipt import read_receipt
from driftproof.run.scheduler import run_cells
from driftproof.wording import SMOKE_RUN


def _args(suite_file, skill_file, out, *extra):
    return [
        str(suite_file),
        "--skill",
        str(skill_file),
        "--model",
        "claude-sonnet-4-6",
        "--out",
        str(out),
        "--retry-delays",
        "0.01,0.02",
        *extra,
    ]


def test_stub_run_is_unverified_with_no_endpoint_attempts(suite_file, skill_file, tmp_path):
    out = tmp_path / "r.json"
    res = CliRunner().invoke(run_cmd, _args(suite_file, skill_file, out, "--provider", "stub"))
    assert res.exit_code == 0, res.output
    r = read_receipt(out)
    assert (r.verification_level, r.run.provider, r.run.surface, r.run.endpoint_attempts) == (
        "UNVERIFIED",
        "stub",
        None,
        0,
    )
    assert (
        r.judge.provider == "stub"
        and r.judge.price is None
        and r.economics.judge_overhead.usd is None
    )
    assert r.skill.name == "commit-helper"  # from the SKILL.md front matter
    assert "no verdict: verification level UNVERIFIED is below TESTED" in res.output


@pytest.fixture(autouse=True)
def wide(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # rich's width when stdout is not a terminal


def test_quick_is_a_smoke_run(loopback, suite_file, skill_file, tmp_path):
    out = tmp_path / "q.json"
    res = CliRunner().invoke(
        run_cmd,
        _args(
            suite_file,
            skill_file,
            out,
            "--provider",
            "anthropic",
            "--quick",
            "--judge-base-url",
            loopback.url,
        ),
        terminal_width=200,
    )
    assert res.exit_code == 0, res.output
    r = read_receipt(out)
    assert (
        r.run.preset,
        r.verification_level,
        r.run.judge_samples_per_generation,
        r.run.generations_per_arm,
    ) == ("quick", "UNVERIFIED", 2, 2)
    assert [c.id for c in r.cases] == ["commit-429"]  # the first case and no other
    assert all(
        len(d.judge_samples) == 2
        for d in r.cases[0].arms.with_skill.draws + r.cases[0].arms.baseline.draws
    )
    assert r.run.endpoint_attempts == 2 * 2 * (1 + 2)
    assert SMOKE_RUN in res.output
    assert "answers side by side" in res.output and "with skill" in res.output
    assert SKILL_ANSWER.splitlines()[0] in res.output and BASE_ANSWER in res.output


def test_control_arm_delta_is_reported_beside_the_lift(loopback, suite_file, skill_file, tmp_path):
    out = tmp_path / "c.json"
    res = CliRunner().invoke(
        run_cmd,
        _args(
            suite_file,
            skill_file,
            out,
            "--provider",
            "anthropic",
            "--control",
            "Answer concisely.",
            "--judge-base-url",
            loopback.url,
        ),
        terminal_width=200,
    )
    assert res.exit_code == 0, res.output
    r = read_receipt(out)
    assert r.arms.control.instruction == "Answer concisely." and r.arms.control.label == "control"
    assert all(len(c.arms.control.draws) == 3 for c in r.cases)
    # the control answer carries no skill: 0.5 on the rubric cases, so skill − control = 0.9 − 0.5
    line = next(x for x in res.output.splitlines() if "commit-429" in x)
    assert line.count("+0.400") == 2  # the lift and, beside it, skill − control
    assert "passing" in res.output
    assert r.run.endpoint_attempts == 3 * 3 * 3 * 6


def test_bad_suite_exits_2_naming_file_and_pointer(tmp_path, skill_file, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            {"format": "driftproof-suite/1", "cases": [{"id": "a", "prompt": "p", "criteria": []}]}
        )
    )
    with pytest.raises(SystemExit) as ei:
        main(
            [
                "run",
                str(bad),
                "--skill",
                str(skill_file),
                "--model",
                "m",
                "--provider",
                "stub",
                "--out",
                str(tmp_path / "r.json"),
            ]
        )
    assert ei.value.code == 2
    err = capsys.readouterr().err
    assert f"error: {bad}: /cases/0/criteria: expected a non-empty list of criteria" in err
    assert not (tmp_path / "r.json").exists()


def test_capture_files_needs_the_cli_surface(suite_file, skill_file, tmp_path):
    res = CliRunner().invoke(
        run_cmd,
        _args(
            suite_file,
            skill_file,
            tmp_path / "r.json",
            "--provider",
            "anthropic",
            "--capture",
            "files",
        ),
    )
    assert res.exit_code == 2 and "--capture files needs --surface cli" in res.output


def test_capture_files_on_an_offline_lane_names_the_lanes_not_the_surface_given(
    suite_file, skill_file, tmp_path
):
    # `--provider stub --surface cli --capture files` said "needs --surface cli", which was given
    args = ["--provider", "stub", "--surface", "cli", "--capture", "files"]
    res = CliRunner().invoke(run_cmd, _args(suite_file, skill_file, tmp_path / "r.json", *args))
    said = " ".join(res.output.split())
    assert res.exit_code == 2 and "--provider anthropic or openai" in said
    assert "the stub and the simulated lane leave no files" in said
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize(
    "given",
    [("--batch-timeout", "5"), ("--batch-poll-interval", "1"), ("--batch-resend-unrecorded",)],
)
def test_a_batch_setting_without_batch_is_refused(suite_file, skill_file, tmp_path, given):
    # each was ignored without a word on a run that is not batched; a run that gives none of
    # them is not refused (the other tests here)
    args = ["--provider", "stub", *given]
    res = CliRunner().invoke(run_cmd, _args(suite_file, skill_file, tmp_path / "r.json", *args))
    said = " ".join(res.output.split())
    assert res.exit_code == 2 and f"{given[0]} is for a run with --batch" in said, said
    assert not (tmp_path / "r.json").exists()


def test_help_states_the_batch_settings_defaults():
    # the options' defaults are the batch machinery's, stated in words where help shows them
    from driftproof.run.batch_io import BATCH_POLL_INTERVAL, BATCH_TIMEOUT

    text = " ".join(CliRunner().invoke(run_cmd, ["--help"]).output.split())
    assert (BATCH_TIMEOUT, BATCH_POLL_INTERVAL) == (86400.0, 60.0)  # a day; a minute
    assert "with --batch, a day (86400) when not given" in text
    assert "with --batch, 60 when not given" in text


def test_help_states_the_stopping_rule_and_its_cap():
    text = " ".join(CliRunner().invoke(run_cmd, ["--help"]).output.split())
    assert "Stopping rule: Each arm is drawn at least 3 times" in text
    assert (
        "moves by 0.01 or more when the latest draw is added, up to --max-draws draws (default 10)"
        in text
    )


@pytest.mark.parametrize(
    ("served", "kept"),
    [
        ("claude-haiku-4-5-20251001", "claude-haiku-4-5-20251001"),
        # past the 200 characters a receipt holds: kept cut, with the mark (was cut in silence)
        ("claude-" + "h" * 250, "claude-" + "h" * 192 + "…"),
    ],
)
def test_another_model_answering_stops_the_run(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch, served, kept
):
    monkeypatch.setenv("FAKE_SERVED", served)  # not the requested claude-sonnet-4-6
    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:1]}))
    out = tmp_path / "receipt.json"
    with pytest.raises(SystemExit) as ei:
        main(
            [
                "run",
                str(suite_file),
                "--skill",
                str(tmp_path / "suite.json"),
                "--model",
                "claude-sonnet-4-6",
                "--provider",
                "anthropic",
                "--surface",
                "cli",
                "--judge-base-url",
                loopback.url,
                "--out",
                str(out),
                "--concurrency",
                "1",
            ]
        )
    assert ei.value.code == 3
    r = read_receipt(out)
    draws = [d for c in r.cases for d in c.arms.with_skill.draws + c.arms.baseline.draws]
    assert len(draws) == 1 and r.verification_level == "UNVERIFIED"
    assert draws[0].lost.reason == (
        f"another model gave the answer: {served} (100 input, 20 output tokens); the run stops"
    )
    assert draws[0].tokens.input == 100 and r.run.endpoint_attempts == 1
    # the call on the other model is recorded beside the answer, with its tokens (the fake reports
    # 100/20)
    assert [(o.model, o.input_tokens, o.output_tokens) for o in draws[0].other_model_calls] == [
        (kept, 100, 20)
    ]


def test_codex_turn_failed_is_retried_then_lost(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    monkeypatch.setenv("FAKE_FAIL", "stream disconnected")
    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:1]}))
    r = read_receipt(run_lane(tmp_path, "openai", "cli"))
    reasons = {
        d.lost.reason for d in r.cases[0].arms.with_skill.draws + r.cases[0].arms.baseline.draws
    }
    assert reasons == {
        "codex reported an error: stream disconnected; transient, 3 attempts, retried after 0.01 s "
        "and 0.02 s"
    }
    assert r.run.endpoint_attempts == 6 * 3


def test_stopping_rule_draws_until_the_spread_settles_or_the_cap():
    # a spread that keeps widening: sd 0, .058, .082, .114, .141, .172, .200, .230 (moves ≥ .024
    # each time)
    scripted = {
        ("c", "with_skill"): [
            0.5,
            0.5,
            0.4,
            0.6,
            0.3,
            0.7,
            0.2,
            0.8,
            0.1,
            0.9,
            0.0,
        ],  # to the cap, 10
        ("c", "baseline"): [0.5] * 20,  # settles at 3 (sd 0 → 0)
        ("d", "with_skill"): [0.5, 0.6, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9],
    }
    calls: list[tuple[str, str, int]] = []

    def task(cid, arm, i):
        calls.append((cid, arm, i))
        return scripted[(cid, arm)][i]

    done: dict = {}
    progress: list[tuple[int, int]] = []
    run_cells(
        list(scripted),
        done,
        task,
        concurrency=4,
        min_draws=3,
        max_draws=10,
        on_done=lambda d, t: progress.append((d, t)),
    )
    count = {cell: sum(1 for k in done if k[:2] == cell) for cell in scripted}
    # d: sd(.5,.6,.9)=0.208 vs sd(.5,.6)=0.071 → draw 4; sd(+.9)=0.2 moved 0.008 → settled at 4
    assert count == {("c", "with_skill"): 10, ("c", "baseline"): 3, ("d", "with_skill"): 4}
    assert len(calls) == len(set(calls)) == 17
    assert progress[-1] == (17, 17)


def test_resume_draws_only_what_is_missing():
    done = {("c", "a", 0): 0.5, ("c", "a", 2): 0.5}
    calls = []
    run_cells(
        [("c", "a")],
        done,
        lambda *k: calls.append(k) or 0.5,
        concurrency=2,
        min_draws=3,
        max_draws=10,
    )
    assert calls == [("c", "a", 1)] and sorted(done) == [("c", "a", i) for i in range(3)]


def test_codex_not_logged_in_stops_the_run_at_once(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    from driftproof.errors import ProviderError

    monkeypatch.setenv("FAKE_FAIL", "401 Unauthorized: not logged in")
    with pytest.raises(ProviderError, match="401 Unauthorized"):
        run_lane(tmp_path, "openai", "cli", concurrency=1)
    journal = (tmp_path / "receipt.json.journal").read_text().splitlines()
    records = [json.loads(x) for x in journal[1:]]  # one invocation, no retry, nothing else
    assert [(r["attempt"], sorted(r)) for r in records] == [(1, ["attempt", "run"])]


def test_progress_bar_shows_draws_eta_and_spend():
    import io

    from rich.console import Console

    from driftproof.cli.run import with_progress as _with_progress

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=120)

    def work(progress):
        progress(3, 12, 0.0125)
        progress(12, 12, 0.05)
        return "done"

    assert _with_progress(work, console) == "done"
    out = buf.getvalue()
    assert "12/12" in out and "spend $0.0500" in out and "ETA" in out


def test_progress_bar_counts_sealing_as_work_left():
    import io

    from rich.console import Console

    from driftproof.cli.run import bar_steps
    from driftproof.cli.run import with_progress as _with_progress

    # all 12 draws done, receipt not yet sealed: 12 of 13 steps, not full
    assert bar_steps(12, 12, "draws") == (12, 13, "draws")
    assert bar_steps(12, 12, "sealing") == (12, 13, "sealing")
    assert bar_steps(12, 12, "done") == (13, 13, "sealed")
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=120)

    def work(progress):
        progress(12, 12, 0.05)
        progress(12, 12, 0.05, "sealing")
        progress(12, 12, 0.05, "done")
        return "done"

    assert _with_progress(work, console) == "done"
    assert "sealed" in buf.getvalue()  # the final frame: the receipt is written


def test_a_run_reports_sealing_after_its_last_draw(tmp_path):
    from run_helpers import SKILL_TEXT

    from driftproof.run.engine import RunConfig, run_suite
    from driftproof.run.providers import make_provider
    from driftproof.run.suite import load_suite

    (tmp_path / "suite.json").write_text(json.dumps(SUITE), encoding="utf-8")
    calls = []
    run_suite(
        load_suite(tmp_path / "suite.json"),
        skill_text=SKILL_TEXT,
        skill_name="commit-helper",
        cfg=RunConfig(
            model="stub-model", judge_model="stub-judge", min_draws=2, max_draws=2, judge_samples=2
        ),
        provider=make_provider("stub", None),
        judge=make_provider("stub", None),
        out=tmp_path / "r.json",
        progress=lambda d, t, s, phase="draws": calls.append((d, t, phase)),
    )
    phases = [c[2] for c in calls]
    assert phases[-2:] == ["sealing", "done"] and set(phases[:-2]) == {"draws"}
    assert calls[-1][0] == calls[-1][1] == calls[-3][0]


def test_progress_prints_the_stopping_line_on_one_line():
    import io

    from rich.console import Console

    from driftproof.cli.run import with_progress as _with_progress

    buf = io.StringIO()
    console = Console(file=buf, width=40)  # narrower than the line: it is not wrapped
    _with_progress(lambda progress: progress.stopping(2, 300.0), console)
    assert buf.getvalue() == (
        "Stopping: waiting for the calls of the 2 draws in flight to end (at most 300 s); "
        "a draw they do not finish is drawn again when you resume; "
        "press Ctrl-C again to stop now.\n"
    )
