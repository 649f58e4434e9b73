"""stale's "To measure it again" command repeats each run option the receipt records, quoted as
a shell reads it back, and names the ones it does not record (a newcomer gating CI on a local
OpenAI-compatible server got a command without its --base-url, --openai-api, judge or draws)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from factories import case, make_receipt
from receipt_docs import seal_document

from driftproof.cli.stale import next_command
from driftproof.receipt import Receipt

LOCAL = "http://127.0.0.1:18765/v1"


def _rerun(doc: dict[str, Any]) -> str | None:
    r = Receipt.model_validate(seal_document(doc))
    return next_command(r, {"run again"}, Path("r.json"), None, None, {})


def test_every_recorded_option_is_repeated() -> None:
    doc = make_receipt([case("c1", [0.6] * 8, [0.4] * 8)])
    doc["run"] |= {"model": "mock model", "provider": "openai", "budget_param": "max_tokens"}
    doc["run"] |= {"language": "pt", "quality_margin": 0.05, "max_output_tokens": 2048}
    for arm in ("with_skill", "baseline"):
        doc["arms"][arm]["service"] = LOCAL
    doc["judge"] |= {"model": "mock-judge", "provider": "openai", "service": LOCAL}
    doc["judge"]["sampling"] = {"api": "chat", "max_tokens": 4096}
    # worked out by hand from the receipt above: 8 draws in every arm, a fixed count; the
    # judge's budget is run's default (4096), so it is left out; the model name is one word
    assert _rerun(doc) == (
        "To measure it again: driftproof run SUITE --skill SKILL.md --model 'mock model' "
        f"--provider openai --base-url {LOCAL} --judge-provider openai --judge-model mock-judge "
        f"--judge-base-url {LOCAL} --openai-api chat --draws 8 --lang pt --margin 0.05 "
        "--max-output-tokens 2048 --out NEW.json, then driftproof diff r.json NEW.json."
    )


def test_what_the_receipt_does_not_record_is_named_not_guessed() -> None:
    # 3 draws in one arm, 4 in the other: no fixed count; no service recorded for the arms
    doc = make_receipt([case("c1", [0.6] * 3, [0.4] * 4)])
    assert doc["run"]["generations_per_arm"] is None
    assert _rerun(doc) == (
        "To measure it again: driftproof run SUITE --skill SKILL.md --model claude-sonnet-4-5 "
        "--provider anthropic --judge-provider anthropic --judge-model claude-haiku-4-5-20251001 "
        "--judge-base-url https://api.anthropic.com --out NEW.json, then driftproof diff r.json "
        "NEW.json (the receipt does not record --base-url or --max-draws: give as the first run "
        "did)."
    )
