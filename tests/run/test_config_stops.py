"""A fatal stop caused by the request's configuration (a model the server does not have, a key it
refuses, a request it finds invalid) says what to check, by the lane that failed; and a journal
that holds no finished draw does not block the corrected command.

Found: ``--model acme-8b`` against a local server (404 "does not exist") said "0 finished draws
are kept ...; run the same command again to resume"; the same command repeated the 404, and the
corrected one was refused: "the journal belongs to a different run (differs in: --model)".
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from factories import run_main
from run_helpers import SUITE

from driftproof.errors import RefusalError
from driftproof.receipt import read_receipt
from driftproof.run.engine import fatal_words
from driftproof.run.journal import Journal
from driftproof.run.providers import make_provider
from driftproof.run.scheduler import FatalRun

WRONG = {"acme-8b", "acme-judge"}  # the names the scripted server does not have


def _refusing(status: int):
    """The server's answer to a request naming a model in WRONG: ``status``, OpenAI's error."""
    said = {
        404: "The model `{}` does not exist.",
        401: "Incorrect API key provided",
        400: "Unsupported parameter: 'max_tokens'",
    }[status]

    def shape(path, body, is_judge, text):
        if body.get("model") not in WRONG:
            return None
        msg = said.format(body["model"])
        return status, {"error": {"message": msg, "type": "invalid_request_error"}}, {}

    return shape


def _argv(tmp_path: Path, url: str, model: str, judge_model: str) -> list[str]:
    """The adopting team's command: a local OpenAI-compatible server answers and judges."""
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:1]}))
    skill = tmp_path / "SKILL.md"
    skill.write_text("---\nname: commit-helper\n---\nSKILL-MARK: write commit messages.\n")
    return [
        *("run", str(suite), "--skill", str(skill), "--model", model),
        *("--provider", "openai", "--openai-api", "chat", "--base-url", url),
        *("--judge-provider", "openai", "--judge-base-url", url, "--judge-model", judge_model),
        *("--judge-price", "0,0", "--retry-delays", "0,0", "--out", str(tmp_path / "wm.json")),
    ]


@pytest.mark.parametrize(
    ("status", "lane", "check"),
    [
        (404, "answer", "the answering lane's model or endpoint was not found: check --model "
         "and --base-url"),
        (404, "judge", "the judge's model or endpoint was not found: check --judge-model and "
         "--judge-base-url"),
        (401, "answer", "the answering lane's key was refused: check OPENAI_API_KEY"),
        (401, "judge", "the judge's key was refused: check OPENAI_API_KEY"),
        (400, "answer", "the server refused the answering lane's request as invalid: check "
         "--model, --max-output-tokens, --openai-api"),
    ],
)  # fmt: skip
def test_a_wrong_model_or_key_says_what_to_check_and_the_corrected_command_runs(
    loopback, tmp_path, monkeypatch, capsys, status, lane, check
):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    loopback.script.shape = _refusing(status)
    url = loopback.url + "/v1"
    wrong = ("acme-8b", "qwen-judge") if lane == "answer" else ("qwen-8b", "acme-judge")
    journal = tmp_path / "wm.json.journal"
    said = {
        404: f"The model `{wrong[0] if lane == 'answer' else wrong[1]}` does not exist.",
        401: "Incorrect API key provided",
        400: "Unsupported parameter: 'max_tokens'",
    }[status]
    for _ in range(2):  # the same command again: the same words, nothing kept either time
        code, _, err = run_main(_argv(tmp_path, url, *wrong), capsys)
        assert code == 2
        assert err == (
            f"error: the run stopped: HTTP {status}: invalid_request_error: {said}; {check}. No "
            "finished draw is kept: run again once fixed\n"
        )
    code, _, err = run_main(_argv(tmp_path, url, "qwen-8b", "qwen-judge"), capsys)
    assert code == 0, err
    differs = "--model" if lane == "answer" else (
        "the judge (--judge-model, --judge-provider and their settings)"
    )  # fmt: skip
    assert err.splitlines()[0] == (
        f"{journal}: replaced the journal of another run (differs in: {differs}); it held no "
        "finished draw"
    )
    r = read_receipt(tmp_path / "wm.json")
    assert (r.run.model, r.judge.model) == ("qwen-8b", "qwen-judge")
    assert not journal.exists()


def _journal(p: Path, identity: dict, *records: dict) -> None:
    Journal(p, identity, started_at="2026-01-01T00:00:00Z", harness_version=None).close()
    with p.open("ab") as f:
        for rec in records:
            f.write(json.dumps(rec).encode() + b"\n")


def test_a_journal_of_attempts_only_is_replaced_by_another_run(tmp_path):
    p = tmp_path / "r.json.journal"
    _journal(p, {"model": "acme-8b"}, {"attempt": 1}, {"attempt": 1})
    j = Journal(p, {"model": "qwen-8b"}, started_at="2026-01-02T00:00:00Z", harness_version=None)
    j.close()
    assert j.replaced == (
        f"{p}: replaced the journal of another run (differs in: --model); it held no finished draw"
    )
    assert not j.resumed and j.attempts == 0
    lines = [json.loads(x) for x in p.read_text().splitlines()]
    assert len(lines) == 1 and lines[0]["identity"] == {"model": "qwen-8b"}
    assert lines[0]["started_at"] == "2026-01-02T00:00:00Z"


def test_a_journal_with_a_finished_draw_is_still_refused(tmp_path):
    # any line that is no attempt counts as held: a draw record (read or not) is never dropped
    p = tmp_path / "r.json.journal"
    _journal(p, {"model": "acme-8b"}, {"attempt": 1}, {"draw": {"case": "c"}})
    kept = p.read_bytes()
    with pytest.raises(RefusalError, match=r"belongs to a different run \(differs in: --model\); "):
        Journal(p, {"model": "qwen-8b"}, started_at="2026-01-02T00:00:00Z", harness_version=None)
    assert p.read_bytes() == kept


def test_a_journal_beside_a_batch_journal_is_still_refused(tmp_path):
    p = tmp_path / "r.json.journal"
    companion = tmp_path / "r.json.batches"
    companion.write_text("{}\n")
    _journal(p, {"model": "acme-8b"}, {"attempt": 1})
    kept = p.read_bytes()
    with pytest.raises(RefusalError, match=r"belongs to a different run .* that batch journal"):
        Journal(
            p,
            {"model": "qwen-8b"},
            started_at="2026-01-02T00:00:00Z",
            harness_version=None,
            companion=companion,
        )
    assert p.read_bytes() == kept


@pytest.fixture
def lanes(monkeypatch):
    """An OpenAI answering lane judged on Anthropic's API."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    return {"answer": make_provider("openai", "api"), "judge": make_provider("anthropic", "api")}


def test_a_wrong_model_with_draws_kept_says_another_option_is_another_run(tmp_path, lanes):
    exc = FatalRun("HTTP 404: no such model", status=404, lane="answer")
    j, c = tmp_path / "r.json.journal", tmp_path / "r.json.batches"
    assert fatal_words(exc, 3, j, c, lanes) == (
        "the run stopped: HTTP 404: no such model; the answering lane's model or endpoint was "
        f"not found: check --model and --base-url. 3 finished draws are kept in {j}: a command "
        "with another option is another run, refused until it is removed"
    )


def test_a_refused_key_with_draws_kept_says_the_same_command_resumes(tmp_path, lanes):
    # the key is no part of the run's identity: once it is set right, the same command resumes
    exc = FatalRun("HTTP 401: bad key", status=401, lane="judge")
    j, c = tmp_path / "r.json.journal", tmp_path / "r.json.batches"
    assert fatal_words(exc, 2, j, c, lanes).endswith(
        f"the judge's key was refused: check ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN. 2 "
        f"finished draws are kept in {j}: run the same "
        "command again to resume once it is fixed"
    )


def test_a_cause_not_in_the_request_keeps_the_resume_words(tmp_path, lanes):
    exc = FatalRun("HTTP 402: no credit", status=402, lane="answer")
    j, c = tmp_path / "r.json.journal", tmp_path / "r.json.batches"
    assert fatal_words(exc, 4, j, c, lanes) == (
        f"the run stopped: HTTP 402: no credit; 4 finished draws are kept in {j}; run the same "
        "command again to resume"
    )


def test_a_refused_request_of_a_cli_lane_names_no_option_the_cli_never_sends(tmp_path):
    # codex exec is sent neither the output budget nor an OpenAI API shape (run refuses
    # --openai-api for it): a 400 it reports is about the model alone
    from driftproof.run.providers.codex_cli import CodexCLI

    codex = tmp_path / "codex"
    codex.write_text("#!/bin/sh\n")
    codex.chmod(0o755)
    lanes = {"answer": CodexCLI(binary=str(codex))}
    exc = FatalRun("HTTP 400: bad request", status=400, lane="answer")
    j, c = tmp_path / "r.json.journal", tmp_path / "r.json.batches"
    assert fatal_words(exc, 0, j, c, lanes) == (
        "the run stopped: HTTP 400: bad request; the server refused the answering lane's "
        "request as invalid: check --model. No finished draw is kept: run again once fixed"
    )


def test_a_cli_lane_whose_model_is_not_found_names_no_base_url(tmp_path):
    # codex exec never takes --base-url: its 404 is about the model alone
    from driftproof.run.providers.codex_cli import CodexCLI

    codex = tmp_path / "codex"
    codex.write_text("#!/bin/sh\n")
    codex.chmod(0o755)
    exc = FatalRun("HTTP 404: no such model", status=404, lane="answer")
    said = fatal_words(
        exc, 0, tmp_path / "j", tmp_path / "b", {"answer": CodexCLI(binary=str(codex))}
    )
    assert "model or endpoint was not found: check --model. No finished draw" in said


def test_one_draw_kept_is_said_in_the_singular_and_a_batch_journal_is_named(tmp_path, lanes):
    exc = FatalRun("HTTP 404: no such model", status=404, lane="answer")
    j, c = tmp_path / "r.json.journal", tmp_path / "r.json.batches"
    assert fatal_words(exc, 1, j, c, lanes).endswith(
        f"check --model and --base-url. 1 finished draw is kept in {j}: a command with another "
        "option is another run, refused until it is removed"
    )
    c.write_text("{}\n")  # a batch journal: its batches are kept (and billed) with the journal
    assert fatal_words(exc, 0, j, c, lanes).endswith(
        f"check --model and --base-url. 0 finished draws are kept in {j} and its batches in {c}: "
        "a command with another option is another run, refused until they are removed"
    )


def test_a_resumed_draw_whose_ending_was_made_incomplete_is_refused_not_graded(
    loopback, tmp_path, monkeypatch, capsys
):
    # found: a kept journal whose first draw's stop reason was changed to "end", its score kept,
    # resumed to exit 0 and a TESTED receipt grading a reply that never ended as finished
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    answers = []

    def stop_after_two_answers(path, body, is_judge, text):  # their draws graded meanwhile
        answers.extend([] if is_judge else [path])
        if is_judge or len(answers) <= 2:
            return None
        time.sleep(1.0)
        return 402, {"error": {"message": "no credit", "type": "insufficient_quota"}}, {}

    loopback.script.shape = stop_after_two_answers
    argv = _argv(tmp_path, loopback.url + "/v1", "qwen-8b", "qwen-judge")
    assert run_main(argv, capsys)[0] == 2
    journal = tmp_path / "wm.json.journal"
    lines = journal.read_text().splitlines()
    first = next(i for i, x in enumerate(lines) if '"draw"' in x)
    rec = json.loads(lines[first])
    assert rec["draw"]["draw"]["stop_reason"] == "stop" and rec["draw"]["draw"]["score"] is not None
    rec["draw"]["draw"]["stop_reason"] = "end"
    lines[first] = json.dumps(rec)
    journal.write_text("\n".join(lines) + "\n")
    loopback.script.shape = None
    code, _, err = run_main(argv, capsys)
    assert (code, err) == (
        2,
        f"error: {journal}: the draw record at line {first + 1}: its member "
        "/draw/draw/stop_reason is no complete ending (unknown ending: the reply ended with "
        "'end', not as a complete final answer), yet the draw is graded (expected stop, "
        "eos_token, eos); the journal is damaged\n",
    )
    assert not (tmp_path / "wm.json").exists()
