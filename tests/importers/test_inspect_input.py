"""Inspect: a sample's input is read whole, a message of content parts as Inspect reads it.

Read by hand from ``data/interop/inspect_ai/2025-05-12T20-28-26-04-00_security-guide.json``:
sample 1's input is one user message, content "How do I prevent SQL Injection attacks?". An
Inspect message's content is text or a list of parts (``ChatMessageBase.content: str |
list[Content]``); its ``text`` is its ``type: text`` parts joined by a newline.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from interop_helpers import sealed

from driftproof.importers.inspect_ai import InspectOptions, import_inspect

LOG = "data/interop/inspect_ai/2025-05-12T20-28-26-04-00_security-guide.json"
ASKED = "How do I prevent SQL Injection attacks?"


def _prompt(shared: Path, tmp_path: Path, message: dict[str, Any]) -> tuple[str, str]:
    doc = json.loads((shared / LOG).read_text("utf-8"))
    assert [m["content"] for m in doc["samples"][0]["input"]] == [ASKED]
    doc["samples"][0]["input"].append(message)
    path = tmp_path / "log.json"
    path.write_text(json.dumps(doc), "utf-8")
    case = sealed(import_inspect({"with_skill": path}, InspectOptions(skill_name="s"))).cases[0]
    return case.prompt, case.prompt_sha256


def test_a_message_of_content_parts_is_part_of_the_prompt(shared: Path, tmp_path: Path) -> None:
    # found: such a message was left out, the prompt and its hash those of the input without it
    parts = [
        {"type": "text", "text": "Answer in French."},
        {"type": "image", "image": "data:image/png;base64,AAAA"},
        {"type": "text", "text": "Be brief."},
    ]
    prompt, digest = _prompt(shared, tmp_path, {"role": "user", "content": parts})
    whole = f"{ASKED}\n\nAnswer in French.\nBe brief."
    assert prompt == whole
    assert digest == hashlib.sha256(whole.encode("utf-8")).hexdigest()


def test_an_answer_of_content_parts_is_read_as_inspects_completion(
    shared: Path, tmp_path: Path
) -> None:
    # Inspect's completion is the message's text: its type "text" parts joined by a newline.
    # The answer was its parts' "text" strings run together ("Bonjour.Au revoir."), a part of
    # another type holding "text" among them
    doc = json.loads((shared / LOG).read_text("utf-8"))
    doc["samples"][0]["output"]["choices"][0]["message"]["content"] = [
        {"type": "text", "text": "Bonjour."},
        {"type": "data", "text": "not shown"},
        {"type": "text", "text": "Au revoir."},
    ]
    path = tmp_path / "log.json"
    path.write_text(json.dumps(doc), "utf-8")
    case = sealed(import_inspect({"with_skill": path}, InspectOptions(skill_name="s"))).cases[0]
    assert case.arms.with_skill.draws[0].answer == "Bonjour.\nAu revoir."
