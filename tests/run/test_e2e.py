"""End to end: a three-case suite on every provider × surface gets a sealed receipt that
validates, reads TESTED and earns a verdict (issue 5, "Done when").

Expected figures are worked out from the scripted server and fake CLIs in conftest.py:
the judge gives 0.9 to a skill answer and 0.5 to a baseline one; on the criteria case
(weights rate 2, retry-after 1) a skill answer meets both (2+1)/3 = 1.0 and a baseline one
only ``rate``, 2/3. Every arm's draws score alike, so the spread settles at 3 draws (sd moves
by 0 < 0.01): 3 cases × 2 arms × 3 draws = 18 draws, each 1 generation + 5 judge samples
= 108 endpoint attempts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from run_helpers import BASE_ANSWER, SKILL_ANSWER, SKILL_TEXT, run_lane

from driftproof.receipt import read_receipt
from driftproof.stats import receipt_reading, verdict_refusal

EXPECTED = {"commit-429": (0.9, 0.5), "explain-429": (1.0, 2 / 3), "commit-docs": (0.9, 0.5)}


def _assert_full_receipt(
    path: Path, *, provider: str, surface: str, capture: str = "text"
) -> object:
    r = read_receipt(path)  # schema + seal
    assert r.schema_version == "0.16"
    assert r.verification_level == "TESTED"
    assert (r.run.provider, r.run.surface, r.run.capture, r.run.preset) == (
        provider,
        surface,
        capture,
        None,
    )
    assert r.run.generations_per_arm == 3 and r.run.judge_samples_per_generation == 5
    assert r.run.endpoint_attempts == 108
    assert r.band_source == "generation"
    assert [c.id for c in r.cases] == list(EXPECTED)
    for c in r.cases:
        w, b = EXPECTED[c.id]
        assert [d.index for d in c.arms.with_skill.draws] == [0, 1, 2]
        assert [d.score for d in c.arms.with_skill.draws] == pytest.approx([w] * 3)
        assert [d.score for d in c.arms.baseline.draws] == pytest.approx([b] * 3)
        assert all(
            len(d.judge_samples) == 5 and d.lost is None
            for d in c.arms.with_skill.draws + c.arms.baseline.draws
        )
        assert c.arms.with_skill.generation.sd == 0.0
        assert c.rubric_sha256 is not None and len(c.rubric_sha256) == 64
    first = r.cases[0]
    assert [(k.name, k.pass_) for k in first.arms.with_skill.draws[0].checks] == [
        ("cc subject", True),
        ("says 429", True),
    ]
    assert [(k.name, k.pass_) for k in first.arms.baseline.draws[0].checks] == [
        ("cc subject", False),
        ("says 429", True),
    ]
    jo = r.economics.judge_overhead
    assert (jo.judged_draws_counted, jo.judged_draws_missing_usage) == (18, 0)
    assert jo.output_tokens == 18 * 5 * 20  # the server reports 20 output tokens per reply
    assert jo.usd == pytest.approx((jo.input_tokens * 1.0 + jo.output_tokens * 5.0) / 1e6)
    assert r.judge.price.input_usd_per_mtok == 1.0 and r.judge.template_sha256 is not None
    assert verdict_refusal(r) is None
    assert receipt_reading(r).status == "passing"
    return r


@pytest.mark.parametrize(
    "provider,api", [("anthropic", None), ("openai", "responses"), ("openai", "chat")]
)
def test_api_lanes(loopback, suite_file, skill_file, tmp_path, provider, api):
    out = run_lane(tmp_path, provider, "api", api=api)
    r = _assert_full_receipt(out, provider=provider, surface="api")
    d = r.cases[0].arms.with_skill.draws[0]
    assert d.tokens.counted_by == "provider"
    # the loopback counts the answer's tenth, 100 more, and the system prompt at 3 characters
    assert (d.tokens.input, d.tokens.output) == (
        100 + len(SKILL_ANSWER) // 10 + len(SKILL_TEXT) // 3,
        20,
    )
    assert r.run.harness is None
    assert r.judge.service == loopback.url
    assert (
        d.answer is None and d.answer_sha256 is not None
    )  # answers kept only with --keep-transcripts
    sample = d.judge_samples[0]
    assert sample.reported_model == "claude-haiku-4-5-20251001" and sample.reply_sha256 is not None


def test_claude_cli_text(loopback, fake_bin, suite_file, skill_file, tmp_path):
    out = run_lane(tmp_path, "anthropic", "cli")
    r = _assert_full_receipt(out, provider="anthropic", surface="cli")
    assert r.run.harness.name == "claude-code" and r.run.harness.version == "2.1.288"
    d = r.cases[0].arms.with_skill.draws[0]
    assert (d.tokens.input, d.tokens.output) == (40 + 10 + 50, 20)
    calls = [json.loads(line) for line in (tmp_path / "cli.log").read_text().splitlines()]
    gen = [c for c in calls if c["argv"] != ["--version"]]
    assert len(gen) == 18
    for c in gen:
        a = c["argv"]
        for flag in (
            "--setting-sources",
            "--strict-mcp-config",
            "--disable-slash-commands",
            "--no-session-persistence",
        ):
            assert flag in a
        assert a[a.index("--setting-sources") + 1] == "project"
        assert a[a.index("--tools") + 1] == "Read,WebFetch,WebSearch"
        assert a[a.index("--allowedTools") + 1] == "Read,WebFetch,WebSearch"
        assert c["entries"] == []  # an empty temporary directory
    assert len({c["cwd"] for c in gen}) == 18  # a fresh one each time
    assert sum("--system-prompt-file" in c["argv"] for c in gen) == 9  # the with-skill arm only
    # that flag replaces Claude Code's own system prompt: view says the arms' inputs differ by more,
    # and that the check held each with-skill draw to 80% of the skill alone (the arms of a command
    # line are not compared), which the rest of the prompt can hide
    from driftproof.pages.sheet import sheet
    from driftproof.render.sheet import sheet_text

    assert (
        "with the skill +0, beside a skill of about 24 tokens at four characters a token (Claude "
        "Code takes the skill in place of its own system prompt, so its arms differ by more than "
        "the skill); a with-skill draw counted only when its input reached 80% of the skill in "
        "o200k_base tokens: a skill left out shows only where the rest of the prompt is smaller "
        "than that, one cut by less than 20% (or more, where the server's tokenizer makes more "
        "tokens of it than o200k_base does) never"
    ) in " ".join(sheet_text(sheet(r)).split())


def test_claude_cli_files(loopback, fake_bin, suite_file, skill_file, tmp_path, monkeypatch):
    monkeypatch.setenv(
        "FAKE_MODE", "files"
    )  # the fake writes its answer to answer.md and replies nothing
    out = run_lane(tmp_path, "anthropic", "cli", capture="files", keep_transcripts=True)
    r = _assert_full_receipt(out, provider="anthropic", surface="cli", capture="files")
    d = r.cases[0].arms.with_skill.draws[0]
    assert [(f.path, f.bytes, f.status) for f in d.captured_files] == [
        ("answer.md", len(SKILL_ANSWER), "read")
    ]
    assert d.answer == f"--- file: answer.md ({len(SKILL_ANSWER)} bytes) ---\n{SKILL_ANSWER}"
    b = r.cases[0].arms.baseline.draws[0]
    assert b.answer.endswith(BASE_ANSWER)
    calls = [json.loads(line) for line in (tmp_path / "cli.log").read_text().splitlines()]
    tools = {c["argv"][c["argv"].index("--tools") + 1] for c in calls if "--tools" in c["argv"]}
    assert tools == {"Read,WebFetch,WebSearch,Write,Edit,NotebookEdit"}
    kept = tmp_path / "receipt.json.transcripts.jsonl"
    lines = kept.read_text().splitlines()
    assert len(lines) == 18 and len(json.loads(lines[0])["judge_replies"]) == 5
    # the receipt's seal covers the kept transcripts: their file name, sha256 and line count
    import hashlib

    assert (r.run.transcripts.file, r.run.transcripts.sha256, r.run.transcripts.draws) == (
        kept.name,
        hashlib.sha256(kept.read_bytes()).hexdigest(),
        18,
    )


def test_codex_cli_text(loopback, fake_bin, suite_file, skill_file, tmp_path):
    out = run_lane(tmp_path, "openai", "cli")
    r = _assert_full_receipt(out, provider="openai", surface="cli")
    assert r.run.harness.name == "codex" and r.run.harness.version == "0.101.0"
    d = r.cases[0].arms.with_skill.draws[0]
    assert (d.tokens.input, d.tokens.output) == (1200, 30)
    calls = [json.loads(line) for line in (tmp_path / "cli.log").read_text().splitlines()]
    gen = [c["argv"] for c in calls if c["argv"][:1] == ["exec"]]
    assert len(gen) == 18
    for a in gen:
        assert a[a.index("--sandbox") + 1] == "read-only"
        assert "mcp_servers={}" in a
        offs = sorted(x for x in a if x.startswith("features."))
        # shell_tool, unified_exec and apply_patch_freeform write files or run code; the others stay
        assert offs == [
            "features.apply_patch_freeform=false",
            "features.shell_tool=false",
            "features.unified_exec=false",
        ]


def test_codex_cli_files_uses_workspace_write(loopback, fake_bin, suite_file, skill_file, tmp_path):
    out = run_lane(tmp_path, "openai", "cli", capture="files")
    r = _assert_full_receipt(out, provider="openai", surface="cli", capture="files")
    assert r.cases[0].arms.with_skill.draws[0].captured_files == []
    calls = [json.loads(line)["argv"] for line in (tmp_path / "cli.log").read_text().splitlines()]
    gen = [a for a in calls if a[:1] == ["exec"]]
    assert all(
        a[a.index("--sandbox") + 1] == "workspace-write"
        and not any(x.startswith("features.") for x in a)
        for a in gen
    )


def test_openai_judge(loopback, suite_file, skill_file, tmp_path):
    out = run_lane(tmp_path, "anthropic", "api", judge="openai")
    r = _assert_full_receipt(out, provider="anthropic", surface="api")
    assert (r.judge.provider, r.judge.model, r.judge.service) == (
        "openai",
        "gpt-5-mini",
        loopback.url + "/v1",
    )
    assert r.judge.sampling == {
        "api": "responses",
        "max_output_tokens": 4096,
    }  # the judge's default budget
    assert r.cases[0].arms.baseline.draws[0].judge_samples[0].reported_model == "gpt-5-mini"


def test_files_mode_with_nothing_showable_is_lost(
    loopback, fake_bin, suite_file, skill_file, tmp_path, monkeypatch
):
    monkeypatch.setenv(
        "FAKE_MODE", "binary"
    )  # the fake leaves answer.bin (NUL bytes) and replies nothing
    suite_file.write_text(
        json.dumps(
            {
                **json.loads(suite_file.read_text()),
                "cases": json.loads(suite_file.read_text())["cases"][:1],
            }
        )
    )
    r = read_receipt(run_lane(tmp_path, "anthropic", "cli", capture="files"))
    d = r.cases[0].arms.with_skill.draws[0]
    assert (
        d.lost.reason == "the reply is empty and no file it left can be shown; "
        "files: answer.bin (binary (holds NUL bytes))"
    )
    assert [(f.path, f.bytes, f.status) for f in d.captured_files] == [("answer.bin", 2, "binary")]
    assert d.judge_samples == [] and r.run.endpoint_attempts == 6  # no grading call for a lost draw


def test_files_mode_pointing_at_a_file_it_did_not_leave_is_lost(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    # the fake leaves notes.txt (360 characters) and replies that it saved the answer to answer.md,
    # which it never wrote: the notes are shown, but they are not the reply's own prose
    monkeypatch.setenv("FAKE_MODE", "elsewhere")
    suite_file.write_text(
        json.dumps(
            {
                **json.loads(suite_file.read_text()),
                "cases": json.loads(suite_file.read_text())["cases"][:1],
            }
        )
    )
    r = read_receipt(run_lane(tmp_path, "anthropic", "cli", capture="files"))
    d = r.cases[0].arms.baseline.draws[0]
    assert (
        d.lost.reason == "the reply points at answer.md (line 1), a file the grader was not shown"
    )
    assert [(f.path, f.status) for f in d.captured_files] == [("notes.txt", "read")]


def test_judge_reply_from_another_model_is_not_measured(
    loopback, suite_file, tmp_path, monkeypatch
):
    import run_helpers

    suite_file.write_text(
        json.dumps(
            {
                **json.loads(suite_file.read_text()),
                "cases": json.loads(suite_file.read_text())["cases"][:1],
            }
        )
    )
    ok = run_helpers._ok

    def judge_as(said):  # judge replies (the grade tool sent) report ``said``; answers the model
        return lambda path, model, text, body=None: ok(
            path, said if (body or {}).get("tools") else model, text, body
        )

    # every judge reply reports the dated id of the requested judge: measured
    monkeypatch.setattr(run_helpers, "_ok", judge_as("claude-haiku-4-5-20251001"))
    r = read_receipt(run_lane(tmp_path, "anthropic", "api", judge_model="claude-haiku-4-5"))
    samples = [s for d in r.cases[0].arms.with_skill.draws for s in d.judge_samples]
    assert len(samples) == 15 and all(s.invalid_reason is None for s in samples)
    assert {s.reported_model for s in samples} == {"claude-haiku-4-5-20251001"}
    # every judge reply reports another model: no sample is measured, so every draw is lost (D-1)
    monkeypatch.setattr(run_helpers, "_ok", judge_as("claude-opus-4-7"))
    r = read_receipt(
        run_lane(
            tmp_path, "anthropic", "api", judge_model="claude-haiku-4-5", out=tmp_path / "r2.json"
        )
    )
    d = r.cases[0].arms.with_skill.draws[0]
    assert (
        d.lost.reason == "no judge sample was valid: the reply reports model 'claude-opus-4-7', "
        "not the requested judge"
    )
    assert [s.reported_model for s in d.judge_samples] == ["claude-opus-4-7"] * 5


def test_a_judge_reply_over_its_bound_is_not_kept_beside_the_answer(
    loopback, suite_file, tmp_path, monkeypatch
):
    # JUDGE_REPLY_MAX_CHARS was published and enforced nowhere. At 127, the rubric cases'
    # replies ({"reason":"graded","score":0.9}, 31 characters) and explain-429's baseline one
    # (127) are kept; its with-skill reply, below (134), is not: null in its place, its sample
    # still graded and its reply_sha256 still naming it.
    from driftproof.receipt import _bounds, sha256_text

    monkeypatch.setattr(_bounds, "JUDGE_REPLY_MAX_CHARS", 127)
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True)
    kept = (tmp_path / "receipt.json.transcripts.jsonl").read_text().splitlines()
    lines = [json.loads(x) for x in kept]
    over = (
        '{"criteria":[{"id":"rate","met":true,"reason":"says too many requests"},'
        '{"id":"retry-after","met":true,"reason":"Retry-After named"}]}'
    )
    assert len(over) == 134
    for x in lines:
        long = (x["case"], x["arm"]) == ("explain-429", "with_skill")
        assert all((r is None) == long for r in x["judge_replies"]), x
    r = read_receipt(out)
    samples = [s for d in r.cases[1].arms.with_skill.draws for s in d.judge_samples]
    assert r.cases[1].id == "explain-429" and len(samples) == 15
    assert {(s.score, s.reply_sha256) for s in samples} == {(1.0, sha256_text(over))}
