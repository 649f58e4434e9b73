"""Properties of issue 33 (D-19), through each lane's own reply reader and the draw maker:

* an ending outside a lane's table of complete endings is never graded: the judge is never
  called and the draw is lost;
* reasoning placed anywhere in a reply (thinking blocks, reasoning members, a leading
  ``<think>``, a lone ``</think>``, Responses reasoning items and commentary messages, codex
  reasoning items) never reaches the judge, a check or the answer's output tokens, and a judge's
  grade is read from its final answer only.

Also: the README prints the endings table as :mod:`driftproof.run.endings` holds it, and
``run --help`` prints it too.
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from driftproof.run.config import RunConfig, Spend
from driftproof.run.drawer import Drawer
from driftproof.run.endings import ENDING_TABLES, lost_class, table_lines
from driftproof.run.providers.anthropic_api import read_message
from driftproof.run.providers.base import Provider, Reply
from driftproof.run.providers.claude_cli import read_claude
from driftproof.run.providers.codex_cli import CodexCLI
from driftproof.run.providers.openai_api import read_chat, read_response
from driftproof.run.suite_fields import CheckSpec, SuiteCase

MARK = "Zq9MARK"
CASE = SuiteCase(
    "c",
    "Write a commit subject for a fix that retries 429 responses.",
    "1.0 for a Conventional Commits subject.",
    None,
    None,
    (CheckSpec("no mark", "must_not_include", pattern=MARK),),
    (),
    (),
    "/cases/0",
)
GRADE = {"score": 0.35, "reason": "graded"}


class Judge(Provider):
    """A judge lane that records every prompt it is shown and grades 0.35."""

    name, makes_endpoint_attempts = "stub", False

    def __init__(self) -> None:
        self.prompts: list[str] = []
        self.lock = threading.Lock()

    def attempt(self, call: Any) -> Reply:
        with self.lock:
            self.prompts.append(call.prompt)
        return Reply(json.dumps(GRADE), channel="final_verdict")


class Answering(Provider):
    name, surface = "anthropic", "api"


def _draw(reply: Reply) -> tuple[dict[str, Any], Judge]:
    judge = Judge()
    cfg = RunConfig(model="m", judge_model="j", judge_samples=1, retry_delays=())
    d = Drawer(
        {"c": CASE}, {"with_skill": "SKILL", "baseline": None}, cfg, Answering(), judge,
        None, None, lambda s: None, Spend(None),
    )  # fmt: skip
    rec: dict[str, Any] = {"case": "c", "arm": "with_skill", "index": 0}
    draw, _ = d._draw(CASE, "with_skill", 0, reply, rec, [])
    rec["draw"] = draw.model_dump(mode="json", by_alias=True)  # as the journal records it
    return rec, judge


# --- readers: one reply per lane with a given ending and answer ----------------------------------

USAGE_OUT = 40


def anthropic(ending: str | None, text: str) -> Reply:
    return read_message(
        {
            "model": "m",
            "content": [{"type": "text", "text": text}],
            "stop_reason": ending,
            "usage": {"input_tokens": 300, "output_tokens": USAGE_OUT},
        }
    )


def _chat_body(ending: str | None, message: dict[str, Any], usage: dict | None = None) -> dict:
    return {
        "model": "m",
        "choices": [{"index": 0, "finish_reason": ending, "message": message}],
        "usage": usage or {"prompt_tokens": 300, "completion_tokens": USAGE_OUT},
    }


def chat(ending: str | None, text: str, *, compatible: bool = False) -> Reply:
    return read_chat(
        _chat_body(ending, {"role": "assistant", "content": text}), compatible=compatible
    )


def _message_item(text: str, phase: str | None = None) -> dict[str, Any]:
    return {
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "phase": phase,
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def responses(ending: str | None, text: str) -> Reply:
    status, _, why = (ending or "").partition(":")
    return read_response(
        {
            "model": "m",
            "status": status if ending is not None else None,
            "incomplete_details": {"reason": why} if why and status == "incomplete" else None,
            "output": [_message_item(text)],
            "usage": {"input_tokens": 300, "output_tokens": USAGE_OUT},
        }
    )


def claude(ending: str | None, text: str) -> Reply:
    """A success result with stop reason ``ending``; ``None`` gives none, as an older claude -p
    (a stop reason given as null is no model's answer: test_shapes_endings_cli)."""
    env = {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "result": text,
        "usage": {"input_tokens": 300, "output_tokens": USAGE_OUT},
    }
    return read_claude(
        0, json.dumps(env | ({} if ending is None else {"stop_reason": ending})), "", "m"
    )


READERS = {
    "anthropic": anthropic,
    "chat": chat,
    "compatible": lambda e, t: chat(e, t, compatible=True),
    "responses": responses,
}

ANSWER = "fix(http): retry 429 responses with back-off\n\nHonours Retry-After on every 429."
known = sorted(
    {e for t in ENDING_TABLES.values() for e in (*t.complete, *t.classes)} | {"abort", "eos"}
)
endings = st.one_of(st.none(), st.sampled_from(known), st.text(max_size=24))


@settings(max_examples=150, deadline=None)
@given(lane=st.sampled_from(sorted(READERS)), ending=endings)
def test_an_ending_outside_the_lanes_table_is_never_graded(lane, ending):
    reply = READERS[lane](ending, ANSWER)
    if lane == "responses" and ending is not None and ending.startswith("completed:"):
        ending = "completed"  # a completed response with its final message: the status alone
    rec, judge = _draw(reply)
    if ending in ENDING_TABLES[lane].complete:
        assert rec["draw"]["score"] == 0.35 and len(judge.prompts) == 1
    else:
        assert judge.prompts == [] and rec["draw"]["score"] is None
        assert rec["draw"]["lost"]["kind"] == lost_class(
            lane,
            reply.ending,
            output_tokens=USAGE_OUT,
            budget=8192,  # RunConfig's default budget
        )


@settings(max_examples=60, deadline=None)
@given(stop=st.one_of(st.none(), st.sampled_from(known), st.text(max_size=24)))
def test_claude_endings_outside_the_table_are_never_graded(stop):
    reply = claude(stop, ANSWER)
    rec, judge = _draw(reply)
    complete = ("success" if stop is None else f"success:{stop}") in ENDING_TABLES[
        "claude-cli"
    ].complete
    assert (rec["draw"]["score"] == 0.35) is complete
    assert len(judge.prompts) == (1 if complete else 0)


@settings(max_examples=60, deadline=None)
@given(
    events=st.lists(
        st.sampled_from(["thread.started", "turn.started", "error", "turn.failed", "item.started"])
        | st.text(max_size=12),
        max_size=6,
    )
)
def test_codex_without_a_completed_turn_never_gives_a_reply(events):
    import pytest

    from driftproof.run.providers.base import AttemptError

    lines = [json.dumps({"type": t, "message": "x"}) for t in events if t != "turn.completed"]
    lines.append(
        json.dumps({"type": "item.completed", "item": {"type": "agent_message", "text": ANSWER}})
    )
    with pytest.raises(AttemptError):
        CodexCLI.parse(CodexCLI.__new__(CodexCLI), 0, "\n".join(lines), "", "m")


# --- reasoning anywhere ---------------------------------------------------------------------------

thoughts = st.text(alphabet="abc <>/{}:\"'\n.sorry", max_size=40).map(lambda s: f"{s} {MARK} {s}")


def _anthropic_thinking(answer: str, thought: str) -> Reply:
    blocks = [
        {"type": "thinking", "thinking": thought, "signature": "s"},
        {"type": "redacted_thinking", "data": thought},
        {"type": "text", "text": answer},
    ]
    return read_message({"model": "m", "content": blocks, "stop_reason": "end_turn"})


def _chat_member(member: str) -> Any:
    def build(answer: str, thought: str) -> Reply:
        msg = {"role": "assistant", "content": answer, member: thought}
        usage = {"prompt_tokens": 300, "completion_tokens": 90,
                 "completion_tokens_details": {"reasoning_tokens": 50}}  # fmt: skip
        return read_chat(_chat_body("stop", msg, usage), compatible=True)

    return build


def _chat_think(answer: str, thought: str) -> Reply:
    return chat("stop", f"  <think>{thought.replace('</think>', '')}</think>\n{answer}")


def _chat_think_counted_as_none(answer: str, thought: str) -> Reply:
    # a server that reports reasoning_tokens 0 beside a <think> block it did not parse
    msg = {
        "role": "assistant",
        "content": f"<think>{thought.replace('</think>', '')}</think>{answer}",
    }
    usage = {"prompt_tokens": 300, "completion_tokens": 90,
             "completion_tokens_details": {"reasoning_tokens": 0}}  # fmt: skip
    return read_chat(_chat_body("stop", msg, usage), compatible=True)


def _chat_close_only(answer: str, thought: str) -> Reply:
    clean = thought.replace("<think>", "").replace("</think>", "")
    return chat("stop", f"{clean}</think>{answer}", compatible=True)


def _responses_items(answer: str, thought: str) -> Reply:
    out = [
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": thought}],
         "content": [{"type": "reasoning_text", "text": thought}]},
        _message_item(thought, "commentary"),
        _message_item(answer, "final_answer"),
        _message_item(thought, "commentary"),
    ]  # fmt: skip
    return read_response({"model": "m", "status": "completed", "output": out})


def _claude_think(answer: str, thought: str) -> Reply:
    return claude("end_turn", f"<think>{thought.replace('</think>', '')}</think>{answer}")


def _codex_item(answer: str, thought: str) -> Reply:
    events = [
        {"type": "item.completed", "item": {"type": "reasoning", "text": thought}},
        {"type": "item.completed", "item": {"type": "agent_message", "text": answer}},
        {"type": "turn.completed", "usage": {"input_tokens": 300, "output_tokens": 90,
                                             "reasoning_output_tokens": 50}},
    ]  # fmt: skip
    out = "\n".join(json.dumps(e) for e in events)
    return CodexCLI.parse(CodexCLI.__new__(CodexCLI), 0, out, "", "m")


PLACES = {
    "anthropic thinking": _anthropic_thinking,
    "chat reasoning_content": _chat_member("reasoning_content"),
    "chat reasoning": _chat_member("reasoning"),
    "chat <think>": _chat_think,
    "chat <think>, reasoning_tokens 0": _chat_think_counted_as_none,
    "chat </think> only": _chat_close_only,
    "responses items": _responses_items,
    "claude <think>": _claude_think,
    "codex reasoning item": _codex_item,
}


@settings(max_examples=150, deadline=None)
@given(place=st.sampled_from(sorted(PLACES)), thought=thoughts)
def test_reasoning_never_reaches_the_judge_a_check_or_the_answer_tokens(place, thought):
    reply = PLACES[place](ANSWER, thought)
    assert reply.text == ANSWER and MARK in (reply.reasoning or "")
    rec, judge = _draw(reply)
    draw = rec["draw"]
    assert draw["score"] == 0.35 and len(judge.prompts) == 1
    assert MARK not in judge.prompts[0]
    assert [c["pass"] for c in draw["checks"]] == [True]
    tokens = draw["tokens"]
    if tokens is not None and tokens["output"] is not None:
        # the answer's tokens leave the reasoning out: 90 - 50 where the split is reported,
        # unknown where it is not
        assert tokens.get("answer_output") in (None, 40)
        if not tokens.get("reasoning_output"):
            assert tokens.get("answer_output") is None


def _mixed(lane: str, at: int, thought: str, form: str) -> Reply:
    """ANSWER with reasoning placed at ``at`` (a character offset after its start): a whole
    ``<think>`` block, or a stray ``</think>`` after a leading block (split off as usual)."""
    block = f"<think>{thought}</think>" if form == "block" else f"{thought}</think>"
    text = ANSWER[:at] + block + ANSWER[at:]
    if form == "stray":
        text = f"<think>lead</think>{text}"
    if lane == "anthropic two blocks":  # a whole block in a second text block
        blocks = [
            {"type": "text", "text": ANSWER},
            {"type": "text", "text": f"<think>{thought}</think>"},
        ]
        return read_message({"model": "m", "content": blocks, "stop_reason": "end_turn"})
    return {"chat": chat, "anthropic": anthropic, "claude": claude}[lane.split()[0]](
        "end_turn" if lane != "chat" else "stop", text
    )


@settings(max_examples=150, deadline=None)
@given(
    lane=st.sampled_from(["chat", "anthropic", "claude", "anthropic two blocks"]),
    at=st.integers(1, len(ANSWER)),
    thought=thoughts,
    form=st.sampled_from(["block", "stray"]),
)
def test_reasoning_mixed_into_the_answer_is_never_graded(lane, at, thought, form):
    # D-19: only a leading block is split off; a think tag anywhere else loses the draw
    reply = _mixed(lane, at, thought, form)
    rec, judge = _draw(reply)
    draw = rec["draw"]
    assert judge.prompts == [] and draw["score"] is None and draw["checks"] in (None, [])
    assert draw["lost"]["kind"] == "reasoning_mixed"
    assert draw["lost"]["reason"].startswith("reasoning mixed into the answer: ")
    assert draw["tokens"] is None or draw["tokens"].get("answer_output") is None


@settings(max_examples=60, deadline=None)
@given(thought=thoughts)
def test_a_judge_grade_is_read_from_its_final_answer_only(thought):
    fake = json.dumps({"score": 1, "reason": thought})
    real = json.dumps(GRADE)
    r1 = read_chat(
        _chat_body("stop", {"role": "assistant", "content": f"<think>{fake}</think>{real}"}),
        graded=True,
    )
    out = [_message_item(fake, "commentary"), _message_item(real, "final_answer")]
    r2 = read_response({"model": "m", "status": "completed", "output": out}, graded=True)
    assert r1.decision == r2.decision == GRADE


# --- the table, printed ---------------------------------------------------------------------------


def test_readme_prints_the_endings_table_as_the_data_holds_it():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    m = re.search(
        r"<!-- endings table: generated from driftproof/run/endings.py -->\n```text\n(.*?)```",
        readme,
        re.S,
    )
    assert m is not None
    assert m.group(1).splitlines() == table_lines()


def test_run_help_prints_the_endings_table_and_the_skill_reached_check():
    from click.testing import CliRunner

    from driftproof.cli.run import run as run_cmd

    text = CliRunner().invoke(run_cmd, ["--help"], terminal_width=400).output
    lines = [ln.strip() for ln in text.splitlines()]
    assert all(ln.strip() in lines for ln in table_lines())
    flat = " ".join(text.split())
    for needle in (
        "the server dropped part of the prompt",
        "fewer than 80% of the skill's own size",
        "the arms of each case are also compared when the receipt is sealed",
        "a reported input without room for the skill",
        "--budget-param [auto|max_tokens|max_completion_tokens]",
        "applies to the output budget only",
    ):
        assert needle in flat, needle


def test_a_judge_attempt_that_ended_in_an_abort_keeps_its_usage():
    # a compatible server aborts the first judge attempt after 300 input and 7 output tokens,
    # then grades: the judge's usage is 300 + 300 input, 7 + 40 output tokens
    class AbortOnce(Judge):
        def attempt(self, call: Any) -> Reply:
            first = not self.prompts
            self.prompts.append(call.prompt)
            if first:
                return Reply("half a gra", input_tokens=300, output_tokens=7,
                             lane="compatible", ending="abort")  # fmt: skip
            return Reply(json.dumps(GRADE), input_tokens=300, output_tokens=40,
                         lane="compatible", ending="stop", channel="final_verdict")  # fmt: skip

    judge = AbortOnce()
    cfg = RunConfig(model="m", judge_model="j", judge_samples=1, retry_delays=(0.0,))
    d = Drawer(
        {"c": CASE}, {"with_skill": "SKILL", "baseline": None}, cfg, Answering(), judge,
        None, None, lambda s: None, Spend(None),
    )  # fmt: skip
    rec: dict[str, Any] = {"case": "c", "arm": "with_skill", "index": 0}
    draw, _ = d._draw(CASE, "with_skill", 0, anthropic("end_turn", ANSWER), rec, [])
    assert draw.score == 0.35 and len(judge.prompts) == 2
    assert (rec["judge_usage"]["input"], rec["judge_usage"]["output"]) == (600, 47)
