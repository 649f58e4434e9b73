"""Rubric regrade of a loopback-server run (issue 7, "Done when").

The original run: the scripted judge gives a skill answer 0.9 and a baseline answer 0.5 on
the rubric cases; the revised rubric (marked REVISED) makes it give every answer 0.6, so
both arms read 0.6 with zero spread: no case separates, and the receipt reading moves from
passing to no separation. The criteria case keeps its criteria and its scores (1.0 vs 2/3).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
import run_helpers
from click.testing import CliRunner
from factories import run_main
from receipt_docs import seal_document
from run_helpers import SUITE, run_lane

from driftproof.cli import cli
from driftproof.errors import RefusalError
from driftproof.receipt import read_receipt
from driftproof.regrade.rubric import rubric_regrade
from driftproof.run.providers import make_provider
from driftproof.run.suite import load_suite
from driftproof.stats import receipt_reading


def _revised(tmp_path):
    doc = json.loads(json.dumps(SUITE))
    for c in doc["cases"]:
        if "rubric" in c:
            c["rubric"] = "REVISED: " + c["rubric"]
    p = tmp_path / "revised.json"
    p.write_text(json.dumps(doc))
    return p


def _revised_judge(original):
    def judge(prompt: str) -> str:
        if "REVISED" in prompt:
            return json.dumps({"score": 0.6, "reason": "revised rubric"})
        return original(prompt)

    return judge


def test_regrade_under_revised_rubric(loopback, suite_file, tmp_path, monkeypatch):
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True)
    before = read_receipt(out)
    assert receipt_reading(before).status == "passing"
    monkeypatch.setattr(run_helpers, "judge_reply", _revised_judge(run_helpers.judge_reply))
    real_read_bytes = Path.read_bytes

    def read_bytes(self: Path) -> bytes:  # the original is read once, and those bytes hashed
        assert self != out, "the original was read a second time, with no size bound"
        return real_read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    res = CliRunner().invoke(
        cli,
        [
            "regrade",
            str(out),
            "--rubric",
            str(_revised(tmp_path)),
            "--out",
            str(tmp_path / "regraded.json"),
            "--retry-delays",
            "0.01,0.02",
        ],
    )
    assert res.exit_code == 0, res.output
    said = "18 draws read: 18 graded, none lost in the original receipt; "
    assert said in res.output  # it read "0 draws lost …, carried over as lost"
    monkeypatch.undo()
    r = read_receipt(tmp_path / "regraded.json")
    # Sealed in its hash: the original receipt's hash and the calls made.
    assert r.provenance.document_sha256 == hashlib.sha256(out.read_bytes()).hexdigest()
    assert r.provenance.tool == "driftproof regrade"
    reg = json.loads((tmp_path / "regraded.json").read_text())["regrade"]
    assert reg["original_seal"] == before.seal.sha256
    # 3 cases × 2 arms × 3 draws = 18 answers read and graded, none lost; 5 samples each.
    assert (reg["answers_read"], reg["answers_graded"], reg["answers_carried"]) == (18, 18, 0)
    assert reg["logical_judge_calls"] == 90 and reg["runner_attempts"] == 90
    # How the answers were made is kept: a regrade dropped the run's truncation, language, A/A
    # mark, margin and output budget (an A/A regrade then read as a skill measurement)
    kept = ("max_output_tokens", "truncation", "language", "aa", "quality_margin", "budget_param")
    assert before.run.truncation == "lost" and before.run.max_output_tokens == 8192
    assert [getattr(r.run, k) for k in kept] == [getattr(before.run, k) for k in kept]
    # The answers are the original's, and the harness/capture are kept.
    for c0, c1 in zip(before.cases, r.cases, strict=True):
        assert [d.answer for d in c0.arms.with_skill.draws] == [
            d.answer for d in c1.arms.with_skill.draws
        ]
        assert [k.pass_ for d in c0.arms.baseline.draws for k in d.checks] == [
            k.pass_ for d in c1.arms.baseline.draws for k in d.checks
        ]  # checks carried, never re-run
    scores = {
        c.id: ([d.score for d in c.arms.with_skill.draws], [d.score for d in c.arms.baseline.draws])
        for c in r.cases
    }
    assert scores["commit-429"] == scores["commit-docs"] == ([0.6] * 3, [0.6] * 3)
    assert scores["explain-429"][0] == pytest.approx([1.0] * 3)
    assert r.cases[0].rubric_sha256 != before.cases[0].rubric_sha256
    assert r.cases[1].rubric_sha256 == before.cases[1].rubric_sha256
    # Verdicts follow from the new scores: two cases no longer help; the criteria case still does.
    reading = receipt_reading(r)
    assert reading.helps == ("explain-429",)


def test_regrade_refuses_a_different_grader_and_writes_nothing(loopback, suite_file, tmp_path):
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True)
    judge = make_provider("openai", "api", api="chat")
    with pytest.raises(RefusalError, match="grader model differs|grader service differs") as ei:
        rubric_regrade(
            out,
            load_suite(_revised(tmp_path)),
            judge,
            judge_model="gpt-5-mini",
            out=tmp_path / "r2.json",
            retry_delays=(0.01,),
        )
    assert not (tmp_path / "r2.json").exists()
    # one error line, its reasons joined: a line break in it printed as a literal \x0a
    assert ei.value.lines() == [str(ei.value)] and "\n" not in str(ei.value)
    assert str(ei.value).startswith(
        f"rubric regrade refused: {out}: /judge/model: grader model differs: original "
    )


def test_regrade_refuses_a_run_without_kept_answers(loopback, suite_file, tmp_path):
    out = run_lane(tmp_path, "anthropic", "api")
    judge = make_provider("anthropic", "api")
    with pytest.raises(RefusalError, match="kept no answer"):
        rubric_regrade(
            out,
            load_suite(_revised(tmp_path)),
            judge,
            judge_model="claude-haiku-4-5-20251001",
            out=tmp_path / "r3.json",
            retry_delays=(0.01,),
        )
    assert not (tmp_path / "r3.json").exists()


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (lambda d: d["cases"][0].update(threshold=0.9), "/cases/0/threshold: expected 0.7"),
        (lambda d: d["cases"][0]["checks"].pop(), "/cases/0/checks: case commit-429's checks"),
        (
            lambda d: d["cases"][2].update(checks=[{"name": "n", "kind": "regex", "pattern": "x"}]),
            "/cases/2/checks: case commit-docs's checks",
        ),
        (lambda d: d.update(truncation="accepted"), "/truncation: expected 'lost'"),
        (lambda d: d["cases"][0].update(prompt="Write a haiku."), "/cases/0/prompt: case commit"),
    ],
)
def test_regrade_refuses_a_suite_moved_beyond_its_rubrics(
    loopback, suite_file, tmp_path, edit, said
):
    # an adversary's regrade took a suite with new checks and truncation, ran neither, and
    # recorded that suite's hash: stale then read the receipt as still standing against it
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True)
    doc = json.loads(json.dumps(SUITE))
    edit(doc)
    p = tmp_path / "moved.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(RefusalError, match=re.escape(said)):
        rubric_regrade(
            out,
            load_suite(p),
            make_provider("anthropic", "api"),
            judge_model="claude-haiku-4-5-20251001",
            out=tmp_path / "r5.json",
            retry_delays=(0.01,),
        )
    assert not (tmp_path / "r5.json").exists()


def test_regrade_refuses_a_reply_answered_by_another_model(
    loopback, suite_file, tmp_path, monkeypatch
):
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True)
    real = run_helpers._ok

    def other_model(path, model, text, body=None):
        return real(path, "claude-haiku-4-5-20260301" if "score" in text else model, text, body)

    monkeypatch.setattr(run_helpers, "_ok", other_model)
    # the arm as pages name it ("with skill"), the draw by the number the sheet shows, after
    # the original's file and the pointer of the answer graded (case 0 is commit-429)
    assert _refusal(tmp_path, out, "r5.json") == (
        f"rubric regrade refused: {out}: /cases/0/arms/with_skill/draws/0/answer: "
        "case commit-429, with skill, draw 1: the reply reports "
        "'claude-haiku-4-5-20260301', not the requested judge 'claude-haiku-4-5-20251001'"
    )
    assert not (tmp_path / "r5.json").exists()


def test_plain_judge_regrade_checks_every_reply_identity(loopback, suite_file, tmp_path):
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True)
    res = CliRunner().invoke(
        cli,
        [
            "regrade",
            str(out),
            "--rubric",
            str(suite_file),
            "--out",
            str(tmp_path / "p.json"),
            "--judge-provider",
            "anthropic",
            "--judge-model",
            "claude-haiku-4-5-20251001",
            "--retry-delays",
            "0.01",
        ],
    )
    assert res.exit_code == 0, res.output
    doc = json.loads((tmp_path / "p.json").read_text())
    assert doc["regrade"]["kind"] == "judge"
    assert doc["regrade"]["judge_ids"] == ["claude-haiku-4-5-20251001"]  # unique, sorted, date kept
    assert doc["verification_level"] == "TESTED"


def test_plain_judge_regrade_refuses_anonymous_replies(loopback, suite_file, tmp_path, monkeypatch):
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True)
    real = run_helpers._ok

    def anonymous(path, model, text, request=None):
        body = real(path, model, text, request)
        body.pop("model", None) if "score" in text else None
        return body

    monkeypatch.setattr(run_helpers, "_ok", anonymous)
    with pytest.raises(RefusalError, match="anonymous judge reply"):
        rubric_regrade(
            out,
            load_suite(suite_file),
            make_provider("anthropic", "api"),
            plain=True,
            judge_model="claude-haiku-4-5-20251001",
            out=tmp_path / "p2.json",
            retry_delays=(0.01,),
        )
    assert not (tmp_path / "p2.json").exists()


def test_stub_plain_regrade_records_unverified(loopback, suite_file, tmp_path):
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True)
    res = rubric_regrade(
        out,
        load_suite(suite_file),
        make_provider("stub", None),
        plain=True,
        judge_model="stub-judge",
        out=tmp_path / "s.json",
        retry_delays=(0.01,),
    )
    assert read_receipt(res.receipt_path).verification_level == "UNVERIFIED"


def test_regrade_refuses_kept_transcripts_changed_after_the_seal(loopback, suite_file, tmp_path):
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True)
    kept = tmp_path / "receipt.json.transcripts.jsonl"
    kept.write_text(kept.read_text() + "\n")
    with pytest.raises(RefusalError, match="changed after the original sealed them"):
        rubric_regrade(
            out,
            load_suite(_revised(tmp_path)),
            make_provider("anthropic", "api"),
            judge_model="claude-haiku-4-5-20251001",
            out=tmp_path / "r6.json",
            retry_delays=(0.01,),
        )
    assert not (tmp_path / "r6.json").exists()


@pytest.mark.parametrize("name", ["sub/x.jsonl", "", "/etc/passwd"])
def test_regrade_refuses_kept_transcripts_named_by_a_path(
    name, loopback, suite_file, tmp_path, capsys
):
    # the schema takes any string as the file's name; the regrade died in Path.with_name
    # (a traceback) and now refuses the original as it reads it, naming the pointer
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True)
    doc = json.loads(out.read_text())
    doc["run"]["transcripts"]["file"] = name
    out.write_text(json.dumps(seal_document(doc)))
    code, _, err = run_main(
        [
            "regrade",
            str(out),
            "--rubric",
            str(_revised(tmp_path)),
            "--out",
            str(tmp_path / "r.json"),
        ],
        capsys,
    )
    assert code == 2 and not (tmp_path / "r.json").exists()
    assert err == (
        f"error: {out}: /run/transcripts/file: expected a file name beside the receipt "
        f"(no folder, not empty), found {json.dumps(name)}\n"
    )


def test_regrade_holds_an_openai_judges_own_output_budget(
    loopback, suite_file, tmp_path, monkeypatch
):
    # the original's OpenAI judge sampled with max_output_tokens 4096 (the run's default judge
    # budget); the regrade reads that key, so the graders' settings match and the regrade runs
    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][2:]}))
    out = run_lane(
        tmp_path,
        "openai",
        "api",
        api="chat",
        judge="openai",
        keep_transcripts=True,
        min_draws=1,
        max_draws=1,
        judge_samples=1,
    )
    assert read_receipt(out).judge.sampling == {"api": "responses", "max_output_tokens": 4096}
    monkeypatch.setattr(run_helpers, "judge_reply", _revised_judge(run_helpers.judge_reply))
    revised = json.loads(json.dumps({**SUITE, "cases": SUITE["cases"][2:]}))
    revised["cases"][0]["rubric"] = "REVISED: " + revised["cases"][0]["rubric"]
    (tmp_path / "revised.json").write_text(json.dumps(revised))
    rubric_regrade(
        out,
        load_suite(tmp_path / "revised.json"),
        make_provider("openai", "api"),
        judge_model="gpt-5-mini",
        out=tmp_path / "ro.json",
        retry_delays=(0.01,),
    )
    r = read_receipt(tmp_path / "ro.json")
    assert r.judge.sampling == {"api": "responses", "max_output_tokens": 4096}
    assert [d.score for d in r.cases[0].arms.with_skill.draws] == [0.6]


def _refusal(tmp_path, original, out="regraded.json") -> str:
    """What a rubric regrade of ``original`` by anthropic's API judge refuses with."""
    with pytest.raises(RefusalError) as ei:
        rubric_regrade(
            original,
            load_suite(_revised(tmp_path)),
            make_provider("anthropic", "api"),
            judge_model="claude-haiku-4-5-20251001",
            out=tmp_path / out,
            retry_delays=(0.01,),
        )
    return str(ei.value)


def test_an_answers_archive_over_its_answer_bound_is_refused_written_and_read(
    loopback, suite_file, tmp_path, monkeypatch
):
    # ANSWERS_ARCHIVE_MAX_ENTRIES was published and enforced nowhere. At 17, the run's 18 draws
    # (3 cases x 2 arms x 3) are one too many to write, and a receipt whose kept transcripts
    # hold 18 is refused before they are read.
    from driftproof.errors import BoundsError
    from driftproof.receipt import _bounds
    from driftproof.run.journal import journal_path

    monkeypatch.setattr(_bounds, "ANSWERS_ARCHIVE_MAX_ENTRIES", 17)
    kept = tmp_path / "receipt.json.transcripts.jsonl"
    with pytest.raises(BoundsError) as e:
        run_lane(tmp_path, "anthropic", "api", keep_transcripts=True)
    assert str(e.value) == f"{kept}: expected at most 17 answers (one per draw), found 18"
    assert not kept.exists() and not (tmp_path / "receipt.json").exists()
    assert journal_path(tmp_path / "receipt.json").exists()  # every draw is kept
    monkeypatch.setattr(_bounds, "ANSWERS_ARCHIVE_MAX_ENTRIES", 18)
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True)  # the journal resumed
    monkeypatch.setattr(_bounds, "ANSWERS_ARCHIVE_MAX_ENTRIES", 17)
    assert _refusal(tmp_path, out) == (
        f"rubric regrade refused: {out}: /run/transcripts/draws: expected at most 17 answers in "
        "the kept transcripts receipt.json.transcripts.jsonl, found 18"
    )


def test_a_regrade_whose_judge_graded_nothing_says_so_and_exits_4(loopback, suite_file, tmp_path):
    """Every judge call answered 429: the 18 kept answers (3 cases x 2 arms x 3 draws) get no
    grade, so the new receipt measured nothing in either arm. Like ``run`` (README: an arm with
    no measured draw exits 4), the regrade says so and exits 4, never "18 graded" and exit 0."""
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True)

    def always_429(path, body, is_judge, text):
        return (
            429,
            {"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}},
            {},
        )

    loopback.script.shape = always_429
    regraded = tmp_path / "regraded.json"
    res = CliRunner().invoke(
        cli,
        ["regrade", str(out), "--rubric", str(suite_file), "--out", str(regraded)]
        + ["--retry-delays", "0.01"],
    )
    assert res.exit_code == 4, res.output
    assert "18 of the 18 graded answers got no valid grade" in res.output
    assert "judge call failed: HTTP 429: rate_limit_error: slow (18)" in res.output
    assert "nothing was measured in the with-skill and baseline arms" in res.output
    r = read_receipt(regraded)  # written, every draw lost, none given a score
    assert all(d.score is None for c in r.cases for _, a in c.arms.named() for d in a.draws)


@pytest.mark.parametrize(
    ("stop", "why"),
    [
        ("max_tokens", "the judge was cut off at 4096 output tokens (budget 4096)"),
        ("refusal", "the judge refused"),
    ],
)
def test_a_reply_run_would_not_grade_is_not_graded_by_a_regrade(
    loopback, suite_file, tmp_path, stop, why
):
    """The judge's reply holds a whole grade but stopped at its budget (4096, the budget the
    original's Anthropic judge recorded) or as a refusal: run reads no grade from it (only a
    finished reply is graded), so neither may the regrade; it read 0.9 and 0.5."""
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True)

    def stopped(path, body, is_judge, text):
        usage = {"input_tokens": 10, "output_tokens": 4096 if stop == "max_tokens" else 20}
        content = [{"type": "text", "text": text}]
        reply = {"id": "m", "type": "message", "role": "assistant", "model": body["model"]}
        reply |= {"content": content, "stop_reason": stop, "stop_sequence": None, "usage": usage}
        return (200, reply, {}) if is_judge else None

    loopback.script.shape = stopped
    regraded = tmp_path / "regraded.json"
    res = CliRunner().invoke(
        cli, ["regrade", str(out), "--rubric", str(suite_file), "--out", str(regraded)]
    )
    assert res.exit_code == 4, res.output
    draws = [d for c in read_receipt(regraded).cases for _, a in c.arms.named() for d in a.draws]
    samples = [s for d in draws for s in d.judge_samples]
    assert len(samples) == 90 and all(s.score is None for s in samples)
    assert all(s.invalid_reason.startswith(why) for s in samples)
