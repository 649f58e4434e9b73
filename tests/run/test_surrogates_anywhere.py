"""A lone surrogate (a JSON escape such as "\\ud800" that pairs with nothing, as a model cut off
mid-emoji sends) in any member a draw records, not only its answer: the stop reason, the model a
judge reply names, an error's words. Each is made U+FFFD and recorded among the receipt's text
repairs, and the run goes on. Before, only the answer, reasoning, refusal and judge replies were
repaired: any other member stopped the run when its journal line could not be written ("expected
valid Unicode text, found a character that cannot be written U+D800"), at every resume again;
a batch result's answer stopped a --batch run so, its paid results never read."""

from __future__ import annotations

import json

from batch_fake_state import FakeState
from batch_runs import batched
from shape_replies import _message, _mini

from driftproof.receipt import read_receipt

JUDGE = "claude-haiku-4-5-20251001"


def test_a_lone_surrogate_in_a_stop_reason_is_repaired_and_recorded(loopback, suite_file, tmp_path):
    def shape(path, req, is_judge, text):  # an ending no table names, a lone surrogate in it
        return None if is_judge else (200, _message(text, stop="end_turn\ud800"), {})

    loopback.script.shape = shape
    r, _ = _mini(tmp_path, suite_file)
    skill = r.cases[0].arms.with_skill.draws[0]
    assert (skill.stop_reason, skill.lost.kind) == ("end_turn\ufffd", "unknown_ending")
    assert sorted((t.pointer, t.replaced) for t in r.text_repairs) == [
        ("/cases/0/arms/baseline/draws/0/stop_reason", 1),
        ("/cases/0/arms/with_skill/draws/0/stop_reason", 1),
    ]


def test_a_lone_surrogate_in_a_judge_replys_model_is_repaired_and_recorded(
    loopback, suite_file, tmp_path
):
    def shape(path, req, is_judge, text):
        if not is_judge:
            return None
        grade = {"type": "tool_use", "id": "t", "name": "record_grade", "input": json.loads(text)}
        return 200, _message("", stop="tool_use", model=JUDGE + "\ud800", content=[grade]), {}

    loopback.script.shape = shape
    r, _ = _mini(tmp_path, suite_file)
    skill = r.cases[0].arms.with_skill.draws[0]
    sample = skill.judge_samples[0]
    assert (sample.score, sample.reported_model) == (None, JUDGE + "\ufffd")  # not the judge
    at = "/cases/0/arms/with_skill/draws/0/judge_samples/0"
    assert {(t.pointer, t.replaced) for t in r.text_repairs if t.pointer.startswith(at)} == {
        (f"{at}/reported_model", 1),
        (f"{at}/serving_model", 1),
    }


def test_a_lone_surrogate_in_a_batch_results_answer_is_repaired_not_fatal(
    fake, tmp_path, monkeypatch
):
    real = FakeState.reply_text

    def reply_text(self, path, body):
        said = real(self, path, body)
        return said if "score" in said or "criteria" in said else said + "\ud800"

    monkeypatch.setattr(FakeState, "reply_text", reply_text)
    r = read_receipt(batched(tmp_path, cases=1))
    # one case: 2 arms x 3 draws, each answer repaired once (its hash kept, not its text)
    assert sorted(t.pointer for t in r.text_repairs) == sorted(
        f"/cases/0/arms/{arm}/draws/{i}/answer_sha256"
        for arm in ("with_skill", "baseline")
        for i in range(3)
    )
    assert all(t.replaced == 1 for t in r.text_repairs)


def test_a_batch_result_holding_a_lone_surrogate_is_read_back_as_sent_on_resume(tmp_path):
    from driftproof.run.batch import BatchJournal
    from driftproof.run.providers.base import Reply

    p = tmp_path / "r.json.batches"
    j = BatchJournal(p, resumed_run=False, mark="0" * 16)
    batch = {"id": "b1", "lane": "answer", "ids": ["c1"], "file_id": None, "created": 0.0}
    j.record("batch", batch)
    j.out("b1", "c1", Reply("fix: caf\ud800", stop_reason="end_turn"))
    j.close()
    again = BatchJournal(p, resumed_run=True, mark="0" * 16)
    again.close()
    [(_, cid, reply)] = again.outs
    assert (cid, reply.text, reply.stop_reason) == ("c1", "fix: caf\ud800", "end_turn")


def test_a_lone_surrogate_in_a_batch_judge_reply_is_recorded_for_every_sample(
    fake, tmp_path, monkeypatch
):
    real = FakeState.reply_text

    def reply_text(self, path, body):
        said = real(self, path, body)
        return "no grade \ud800" if "score" in said or "criteria" in said else said

    monkeypatch.setattr(FakeState, "reply_text", reply_text)
    # each draw's last sample fails at its first attempt: the draw waits on a second round, its
    # other samples' replies read again when it is made
    fake.script.fault = lambda cid: (
        "errored" if cid.startswith("j") and cid.endswith("-4-0") else None
    )
    r = read_receipt(batched(tmp_path, "openai", api="responses", cases=1))
    # 2 arms x 3 draws, 5 judge samples each: every reply repaired once, none of them a grade
    assert sorted(t.pointer for t in r.text_repairs) == sorted(
        f"/cases/0/arms/{arm}/draws/{i}/judge_samples/{k}/reply_sha256"
        for arm in ("with_skill", "baseline")
        for i in range(3)
        for k in range(5)
    )


def test_an_errors_words_holding_a_lone_surrogate_are_repaired_and_shown(
    loopback, suite_file, skill_file, tmp_path, capsys
):
    from factories import run_main
    from run_helpers import run_args

    err = {"type": "error", "error": {"type": "api_error", "message": "boom \ud800"}}
    loopback.script.shape = lambda path, req, is_judge, text: (500, err, {})
    out = tmp_path / "r.json"
    argv = [*run_args(suite_file, skill_file), "--out", str(out), "--quick"]
    code, stdout, stderr = run_main([*argv, "--retry-delays", "0"], capsys)
    assert code == 4 and "valid Unicode" not in stderr  # every draw lost, as the server said
    r = read_receipt(out)
    lost = r.cases[0].arms.with_skill.draws[0].lost
    assert lost.reason.startswith("HTTP 500: api_error: boom \ufffd; transient, 2 attempts")
    assert "boom \ufffd" in stdout + stderr
    repaired = {t.pointer for t in r.text_repairs}
    assert "/cases/0/arms/with_skill/draws/0/lost/reason" in repaired
    assert "/cases/0/arms/with_skill/draws/0/attempts/0/error" in repaired
