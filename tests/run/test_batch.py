"""``driftproof run --batch`` against a loopback fake of both batch APIs, through the official
SDKs (issue 17).

Figures are worked out from the scripted fake (``batch_fake`` over ``run_helpers``): the judge
gives 0.9 to a skill answer and 0.5 to a baseline one; on the criteria case a skill answer
meets both criteria (1.0) and a baseline one only ``rate`` (2/3). Every arm settles at 3 draws:
3 cases × 2 arms × 3 draws = 18 answers and 18 × 5 = 90 judge samples, 108 requests. With no
fault the rounds are two batches per provider: the 18 answers, then the 90 judge samples.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from batch_runs import batched, draws
from factories import run_main
from run_helpers import SKILL_TEXT, SUITE

from driftproof.errors import ProviderError
from driftproof.receipt import read_receipt
from driftproof.run.batch import batch_journal_path
from driftproof.run.batch_io import BatchOptions, describe
from driftproof.run.journal import journal_path
from driftproof.stats import receipt_reading, verdict_refusal

EXPECTED = {"commit-429": (0.9, 0.5), "explain-429": (1.0, 2 / 3), "commit-docs": (0.9, 0.5)}


@pytest.mark.parametrize(
    "provider,api", [("anthropic", None), ("openai", "responses"), ("openai", "chat")]
)
def test_batched_run_end_to_end_per_provider(
    fake, suite_file, skill_file, tmp_path, capsys, provider, api
):
    out = tmp_path / "receipt.json"
    argv = [
        "run",
        str(suite_file),
        "--skill",
        str(skill_file),
        "--model",
        "m-1",
        "--provider",
        provider,
        "--judge-provider",
        provider,
        "--out",
        str(out),
        "--batch",
        "--batch-poll-interval",
        "0",
    ]
    if api:
        argv += ["--openai-api", api]
    if provider == "openai":
        argv += ["--judge-price", "0.125,1.0"]
    code, _, err = run_main(argv, capsys)
    assert code == 0, err
    r = read_receipt(out)  # schema + seal
    assert r.verification_level == "TESTED" and verdict_refusal(r) is None
    assert receipt_reading(r).status == "passing"
    for c in r.cases:
        w, b = EXPECTED[c.id]
        assert [d.score for d in c.arms.with_skill.draws] == pytest.approx([w] * 3)
        assert [d.score for d in c.arms.baseline.draws] == pytest.approx([b] * 3)
        assert all(
            len(d.judge_samples) == 5 for d in c.arms.with_skill.draws + c.arms.baseline.draws
        )
    assert r.run.endpoint_attempts == 108
    s = fake.script
    # two rounds: the answers, then every judge sample; each request sent once
    assert (
        r.run.batch.provider == provider
        and r.run.batch.batch_ids == s.batch_ids
        and len(s.batch_ids) == 2
    )
    assert len(s.submitted) == len(set(s.submitted)) == 108
    assert sum(x.startswith("a") for x in s.submitted[:18]) == 18
    if provider == "openai":
        assert len(r.run.batch.file_ids) == 2 and s.calls["upload"] == 2
        assert (r.judge.price.input_usd_per_mtok, r.judge.price.output_usd_per_mtok) == (0.125, 1.0)
    else:
        assert r.run.batch.file_ids == []
        # the frozen table's batch price of the default judge: half of $1/$5
        assert (r.judge.price.input_usd_per_mtok, r.judge.price.output_usd_per_mtok) == (0.5, 2.5)
    assert r.judge.price.tier == "batch"
    jo = r.economics.judge_overhead
    assert jo.usd == pytest.approx(
        (
            jo.input_tokens * r.judge.price.input_usd_per_mtok
            + jo.output_tokens * r.judge.price.output_usd_per_mtok
        )
        / 1e6
    )
    assert not journal_path(out).exists() and not batch_journal_path(out).exists()


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_batch_is_a_transport_the_receipt_means_the_same(fake, loopback, tmp_path, provider):
    """The same suite, interactive on the plain loopback and batched on the fake, gives the same
    cases: same draws, scores, judge samples and replies, checks and token counts."""
    from run_helpers import run_lane

    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "suite.json").write_text(json.dumps(SUITE))
    os.environ["ANTHROPIC_BASE_URL"], os.environ["OPENAI_BASE_URL"] = (
        loopback.url,
        loopback.url + "/v1",
    )
    plain = read_receipt(
        run_lane(
            tmp_path / "plain",
            provider,
            "api",
            judge=provider,
            keep_transcripts=True,
            **(
                {"model": "claude-sonnet-4-6", "judge_model": "claude-haiku-4-5-20251001"}
                if provider == "anthropic"
                else {"model": "gpt-5", "judge_model": "gpt-5-mini"}
            ),
        )
    )
    os.environ["ANTHROPIC_BASE_URL"], os.environ["OPENAI_BASE_URL"] = fake.url, fake.url + "/v1"
    (tmp_path / "b").mkdir()

    batched = read_receipt(_keep(tmp_path / "b", provider))
    assert [c.model_dump() for c in batched.cases] == [c.model_dump() for c in plain.cases]
    assert batched.run.endpoint_attempts == plain.run.endpoint_attempts == 108
    assert (
        batched.economics.judge_overhead.input_tokens == plain.economics.judge_overhead.input_tokens
    )


def _keep(d: Path, provider: str) -> Path:
    from driftproof.run.engine import RunConfig, run_suite
    from driftproof.run.providers import make_provider
    from driftproof.run.suite import load_suite

    (d / "suite.json").write_text(json.dumps(SUITE))
    cfg = RunConfig(
        model="claude-sonnet-4-6" if provider == "anthropic" else "gpt-5",
        judge_model="claude-haiku-4-5-20251001" if provider == "anthropic" else "gpt-5-mini",
        judge_price=(1.0, 5.0),
        keep_transcripts=True,
        batch=BatchOptions(poll_interval=0.0),
    )
    out = d / "receipt.json"
    run_suite(
        load_suite(d / "suite.json"),
        skill_text=SKILL_TEXT,
        skill_name="commit-helper",
        cfg=cfg,
        provider=make_provider(provider, "api"),
        judge=make_provider(provider, "api"),
        out=out,
    )
    return out


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_errored_expired_and_canceled_requests_are_retried_then_lost_with_the_providers_reason(
    fake, tmp_path, provider
):
    # one case: cell 0 = with_skill, cell 1 = baseline
    faults = {
        "a0-0-0": "errored",
        "a0-0-1": "expired",  # answer retried twice, then answered
        "a1-2-0": "errored",
        "a1-2-1": "errored",
        "a1-2-2": "errored",  # answer lost after 3 attempts
        "j0-1-3-0": "expired",
    }  # judge sample retried once
    fake.script.fault = faults.get
    r = read_receipt(batched(tmp_path, provider, cases=1))
    ws, base = r.cases[0].arms.with_skill.draws, r.cases[0].arms.baseline.draws
    assert [d.score for d in ws] == pytest.approx([0.9, 0.9, 0.9])
    assert [d.score for d in base[:2]] == pytest.approx([0.5, 0.5]) and base[2].score is None
    lost2 = base[2].lost.reason
    if provider == "anthropic":
        assert (
            "errored: overloaded_error: scripted overloaded_error; transient, 3 attempts" in lost2
        )
    else:
        assert "HTTP 500: server_error: The server had an error; transient, 3 attempts" in lost2
    assert [s.score for s in ws[1].judge_samples] == pytest.approx(
        [0.9] * 5
    )  # the expired sample was retried
    # requests: answers 6 + 2 retries (a0-0) + 2 retries (a1-2) = 10; judge samples for the 5 judged
    # draws (ws 0,1,2 and base 0,1) = 25, + 1 retry of j0-1-3 = 26 → 36 attempts
    assert r.run.endpoint_attempts == 36
    s = fake.script
    assert len(s.submitted) == len(set(s.submitted)) == 36
    assert r.verification_level == "TESTED"


@pytest.mark.parametrize(
    "provider,reason",
    [
        (
            "anthropic",
            r"batch msgbatch_000001: errored: invalid_request_error: "
            r"scripted invalid_request_error",
        ),
        ("openai", r"batch batch_000002: HTTP 400: invalid_request_error: Invalid 'max_tokens'"),
    ],
)
def test_an_invalid_request_in_a_batch_stops_the_run_as_in_the_plain_lanes(
    fake, tmp_path, provider, reason
):
    # issue 13, "Errors by class": a 400 stops the run at once with a named reason and keeps the
    # journal; batch mode is a transport, so a request the batch answered 400 does the same
    fake.script.fault = {"a1-1-0": "invalid"}.get
    with pytest.raises(ProviderError, match="the run stopped: " + reason):
        batched(tmp_path, provider, cases=1)
    out = tmp_path / "receipt.json"
    assert not out.exists() and journal_path(out).exists() and batch_journal_path(out).exists()
    assert fake.script.calls["create"] == 1  # not retried in a follow-up batch


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_prompt_past_the_context_window_in_a_batch_loses_that_draw_only(fake, tmp_path, provider):
    # as outside a batch: the same prompt would fail the same way; the run goes on
    fake.script.fault = {"a1-1-0": "too_long"}.get
    r = read_receipt(batched(tmp_path, provider, cases=1))
    lost = [d for c in r.cases for a in (c.arms.with_skill, c.arms.baseline) for d in a.draws]
    lost = [d for d in lost if d.lost is not None]
    assert [d.lost.kind for d in lost] == ["context_window"]
    assert "prompt is too long: 215000 tokens > 200000 maximum" in lost[0].lost.reason
    assert fake.script.calls["create"] == 2  # the answers' batch, then the grades': no retry


def test_a_batch_past_the_timeout_is_cancelled_and_its_finished_results_kept(fake, tmp_path):
    s = fake.script
    s.never_end_first, s.kept_on_cancel = (
        1,
        4,
    )  # the answers' batch hangs; 4 of its 6 requests finished
    now = [0.0]
    seen: list[str] = []

    def clock() -> float:
        return now[0]

    def sleep(sec: float) -> None:
        now[0] += 10.0  # each poll interval is 10 s of the fake clock

    out = batched(
        tmp_path,
        cases=1,
        timeout=25.0,
        clock=clock,
        sleep=sleep,
        on_status=lambda sts: seen.append(describe(sts)),
    )
    r = read_receipt(out)
    assert s.calls["cancel"] == 1
    assert [
        d.score for d in r.cases[0].arms.with_skill.draws + r.cases[0].arms.baseline.draws
    ] == pytest.approx([0.9] * 3 + [0.5] * 3)
    # 6 answers; then, in one round, the 2 cancelled answers again and the judge samples of the 4
    # finished draws; then the judge samples of the 2 retried draws: 38 requests in 4 batches
    assert [len(fake.state.batches[b].requests) for b in s.batch_ids] == [6, 2, 20, 10]
    assert r.run.endpoint_attempts == 38
    # polled at t = 0, 10, 20 (in progress), 30: past 25 s → cancelled; then ended at the next poll
    assert (
        seen[:3]
        == [
            "msgbatch_000001 in_progress: processing 6, succeeded 0, errored 0, canceled 0, "
            "expired 0"
        ]
        * 3
    )
    assert (
        seen[3] == "msgbatch_000001 in_progress: processing 6, succeeded 0, errored 0, canceled 0, "
        "expired 0"
    )
    assert (
        seen[4]
        == "msgbatch_000001 ended: processing 0, succeeded 4, errored 0, canceled 2, expired 0"
    )


LIMIT = 1800


@pytest.mark.parametrize(
    "provider,limit",
    [
        ("anthropic", "max_requests"),
        ("openai", "max_requests"),
        ("anthropic", "max_bytes"),
        ("openai", "max_bytes"),
    ],
)
def test_a_round_is_split_at_the_batch_size_limit(fake, tmp_path, monkeypatch, provider, limit):
    from driftproof.run import batch_lanes as B

    cls = B.AnthropicBatches if provider == "anthropic" else B.OpenAIBatches
    if limit == "max_requests":
        monkeypatch.setattr(cls, "max_requests", 4)
    else:
        # a judge request (template, rubric and the grade's schema) is 1.4-1.7 KB as a batch line,
        # an answer ~0.3 KB: the 6 answers fit one batch, two judge requests never do
        monkeypatch.setattr(cls, "max_bytes", LIMIT)
    r = read_receipt(batched(tmp_path, provider, cases=1))
    batches = [fake.state.batches[b] for b in fake.script.batch_ids]
    sizes = [len(b.requests) for b in batches]
    assert sum(sizes) == 36 and r.run.endpoint_attempts == 36
    if limit == "max_requests":
        assert sizes == [4, 2] + [4] * 7 + [2]  # 6 answers; 30 judge samples
    else:

        def nbytes(b, cid, body):  # the request as the provider's batch holds it, one JSON line
            e = (
                {"custom_id": cid, "params": body}
                if b.kind == "anthropic"
                else {"custom_id": cid, "method": "POST", "url": b.endpoint, "body": body}
            )
            return len(json.dumps(e, ensure_ascii=False).encode()) + 1

        totals = [sum(nbytes(b, cid, body) for cid, body in b.requests) for b in batches]
        assert all(t <= LIMIT for t in totals)
        # filled greedily: the next batch of the same round's first request would not have fitted
        for b, t, nxt in zip(batches[:-1], totals[:-1], batches[1:], strict=True):
            if b.requests[0][0][0] == nxt.requests[0][0][0]:
                assert t + nbytes(nxt, *nxt.requests[0]) > LIMIT
        assert len(batches) > 2
    assert r.run.batch.batch_ids == fake.script.batch_ids
    assert all(d.score is not None for _, d in draws(r, "with_skill") + draws(r, "baseline"))


def test_a_batch_the_provider_refuses_stops_the_run_and_keeps_the_journals(fake, tmp_path):
    fake.script.fail_validation = "Invalid 'url': must match the batch's endpoint"
    with pytest.raises(ProviderError, match="failed: invalid_request: Invalid 'url'"):
        batched(tmp_path, "openai", cases=1)
    out = tmp_path / "receipt.json"
    assert not out.exists() and journal_path(out).exists() and batch_journal_path(out).exists()


def test_progress_shows_the_providers_own_counts(fake, tmp_path):
    fake.script.polls_to_end = 1
    seen: list[str] = []
    batched(tmp_path, "openai", cases=1, on_status=lambda sts: seen.append(describe(sts)))
    assert seen[:2] == [
        "batch_000002 in_progress: total 6, completed 0, failed 0",
        "batch_000002 completed: total 6, completed 6, failed 0",
    ]


def test_batch_needs_api_lanes(suite_file, skill_file, tmp_path, capsys):
    code, _, err = run_main(
        [
            "run",
            str(suite_file),
            "--skill",
            str(skill_file),
            "--model",
            "m",
            "--provider",
            "stub",
            "--out",
            str(tmp_path / "r.json"),
            "--batch",
        ],
        capsys,
    )
    assert code == 2 and "--batch needs API lanes" in err


def test_a_spool_frames_the_requests_as_each_provider_takes_them():
    from driftproof.run.batch import Spool
    from driftproof.run.batch_lanes import AnthropicBatches, OpenAIBatches

    entries = [{"custom_id": "a0-0-0", "n": 1}, {"custom_id": "a0-1-0", "n": "é"}]
    lines = [Spool.line(e) for e in entries]
    # json.dumps with its default separators, UTF-8: {"custom_id": "a0-0-0", "n": 1} is 31
    # bytes; with "é" (two bytes, quoted: four) in place of 1, 34
    assert [len(x) for x in lines] == [31, 34]
    for cls, expected in (
        (AnthropicBatches, b'{"requests":[' + lines[0] + b"," + lines[1] + b"]}"),
        (OpenAIBatches, lines[0] + b"\n" + lines[1] + b"\n"),
    ):
        spool = cls.spool(cls.__new__(cls))
        for x in lines:
            spool.add(x)
        # the size limit weighs each request with one separator byte: 32 + 35
        assert (spool.count, spool.size) == (2, 67)
        body = spool.body().read()
        spool.close()
        assert body == expected
        if cls is AnthropicBatches:
            assert json.loads(body) == {"requests": entries}
        else:
            assert [json.loads(x) for x in body.splitlines()] == entries
