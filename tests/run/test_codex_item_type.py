"""A codex exec --json stream that names its items by ``item_type``, as codex's earlier exec
events did (codex-rs/exec exec_events.rs: ``#[serde(tag = "item_type", rename_all =
"snake_case")]`` over ``AssistantMessage``, ``Reasoning``, …): its ``assistant_message`` is the
turn's answer, as an ``agent_message`` is.
"""

from __future__ import annotations

import json

from driftproof.run.providers.codex_cli import CodexCLI


def test_an_assistant_message_item_is_the_turns_answer():
    said = {"id": "item_1", "item_type": "assistant_message", "text": "Use a CHECK constraint."}
    thought = {"id": "item_0", "item_type": "reasoning", "text": "**Picking a constraint**"}
    ran = {
        "id": "item_2",
        "item_type": "command_execution",
        "command": "cat schema.sql",
        "aggregated_output": "CREATE TABLE t (n int);\n",
        "exit_code": 0,
        "status": "completed",
    }
    usage = {"input_tokens": 1200, "cached_input_tokens": 0, "output_tokens": 30}
    events = [
        {"type": "turn.started"},
        {"type": "item.completed", "item": thought},
        {"type": "item.completed", "item": ran},
        {"type": "item.completed", "item": said},
        {"type": "turn.completed", "usage": usage},
    ]
    out = "".join(json.dumps(e) + "\n" for e in events)
    reply = CodexCLI.parse(CodexCLI.__new__(CodexCLI), 0, out, "", "gpt-5-codex")
    assert reply.text == "Use a CHECK constraint."
    assert reply.reasoning == "**Picking a constraint**"  # a command run is no reasoning
    assert reply.ending == "turn.completed"
    assert (reply.input_tokens, reply.output_tokens) == (1200, 30)
