"""The fake ``codex`` executable of the run tests (run_helpers.FAKE_CODEX); written to
PATH with a shebang by the ``fake_bin`` fixture."""

import json
import os
import sys

args = sys.argv[1:]
log = os.environ.get("FAKE_LOG")
if log:
    with open(log, "a") as f:
        f.write(json.dumps({"bin": "codex", "argv": args, "cwd": os.getcwd()}) + "\n")
if args == ["--version"]:
    print("codex-cli 0.101.0")
    sys.exit(0)
if args[:2] == ["features", "list"]:
    print("shell_tool          stable        true")
    print("unified_exec        experimental  false")
    print("apply_patch_freeform experimental false")
    print("web_search_request  stable        true")
    print("view_image_tool     stable        true")
    sys.exit(0)
prompt = sys.stdin.read()
system = None
for i, a in enumerate(args):
    if a == "-c" and args[i + 1].startswith("developer_instructions="):
        system = json.loads(args[i + 1].split("=", 1)[1])
skill = system is not None and "SKILL-MARK" in system
text = (
    "fix(http): retry 429 responses (skill)\n\nRetry-After is honoured; 429 means too many "
    "requests."
    if skill
    else "Fixed the retry for 429 responses."
)
if os.environ.get("FAKE_STDOUT"):
    # a recorded shape: the file's lines printed as they are, @ANSWER@ the answer JSON-escaped
    with open(os.environ["FAKE_STDOUT"], encoding="utf-8") as f:
        sys.stdout.write(f.read().replace("@ANSWER@", json.dumps(text)[1:-1]))
    sys.exit(int(os.environ.get("FAKE_EXIT", "0")))
if os.environ.get("FAKE_FAIL"):
    print(json.dumps({"type": "thread.started", "thread_id": "th_1"}))
    print(json.dumps({"type": "turn.failed", "error": {"message": os.environ["FAKE_FAIL"]}}))
    sys.exit(1)
for ev in [
    {"type": "thread.started", "thread_id": "th_1"},
    {"type": "turn.started"},
    {"type": "item.completed", "item": {"id": "item_0", "type": "reasoning", "text": "thinking"}},
    {"type": "item.completed", "item": {"id": "item_1", "type": "agent_message", "text": text}},
    {
        "type": "turn.completed",
        "usage": {"input_tokens": 1200, "cached_input_tokens": 1000, "output_tokens": 30},
    },
]:
    print(json.dumps(ev))
