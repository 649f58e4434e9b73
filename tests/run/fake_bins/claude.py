"""The fake ``claude`` executable of the run tests (run_helpers.FAKE_CLAUDE); written to
PATH with a shebang by the ``fake_bin`` fixture."""

import json
import os
import sys
import time

args = sys.argv[1:]
log = os.environ.get("FAKE_LOG")
if log:
    with open(log, "a") as f:
        f.write(
            json.dumps(
                {"bin": "claude", "argv": args, "cwd": os.getcwd(), "entries": os.listdir(".")}
            )
            + "\n"
        )
if args == ["--version"]:
    print(os.environ.get("FAKE_CLAUDE_VERSION", "2.1.288 (Claude Code)"))
    sys.exit(0)
prompt = sys.stdin.read()
system = None
if "--system-prompt-file" in args:
    system = open(args[args.index("--system-prompt-file") + 1]).read()
model = args[args.index("--model") + 1]
time.sleep(float(os.environ.get("FAKE_SLEEP", "0")))
skill = system is not None and "SKILL-MARK" in system
text = (
    "fix(http): retry 429 responses (skill)\n\nRetry-After is honoured; 429 means too many "
    "requests."
    if skill
    else "Fixed the retry for 429 responses."
)
mode = os.environ.get("FAKE_MODE", "")
tools = args[args.index("--tools") + 1].split(",")
if mode == "files" and "Write" in tools:
    with open("answer.md", "w") as f:
        f.write(text)
    text = ""
if mode == "elsewhere" and "Write" in tools:
    with open("notes.txt", "w") as f:
        f.write("Background notes. " * 20)
    text = "I saved the answer to answer.md."
if mode == "binary" and "Write" in tools:
    with open("answer.bin", "wb") as f:
        f.write(b"\x00\x01")
    text = ""
served = os.environ.get("FAKE_SERVED", "claude-sonnet-4-6-20260101")
usage = {
    "input_tokens": 40,
    "cache_creation_input_tokens": 10,
    "cache_read_input_tokens": 50,
    "output_tokens": 20,
}


def error_envelope(status_text):
    # claude -p --output-format json when the API call failed: is_error with the API's error in
    # result
    return {
        "type": "result",
        "subtype": "success",
        "is_error": True,
        "duration_ms": 5,
        "num_turns": 1,
        "result": status_text,
        "session_id": "s",
        "total_cost_usd": 0,
        "usage": {"input_tokens": 0, "output_tokens": 0},
    }


def session(said):
    # what --verbose prints before the result: system init, then the one assistant message
    content = [{"type": "text", "text": said}] if isinstance(said, str) and said else []
    message = {"id": "msg_1", "role": "assistant", "content": content}
    init = {"type": "system", "subtype": "init", "session_id": "s", "tools": tools}
    return [init, {"type": "assistant", "message": message}]


if os.environ.get("FAKE_STDOUT"):
    # a recorded shape: the file printed as it is, @ANSWER@ the answer JSON-escaped; with
    # --verbose, one result object is printed as a one-turn session (its bytes kept)
    with open(os.environ["FAKE_STDOUT"], encoding="utf-8") as f:
        printed = f.read().replace("@ANSWER@", json.dumps(text)[1:-1])
    try:
        one = json.loads(printed)
    except ValueError:
        one = None
    if "--verbose" in args and isinstance(one, dict) and one.get("type") == "result":
        printed = "[" + json.dumps(session(one.get("result")))[1:-1] + "," + printed + "]"
    sys.stdout.write(printed)
    sys.exit(int(os.environ.get("FAKE_EXIT", "0")))
if mode == "forbidden":
    print(
        json.dumps(
            error_envelope(
                'API Error: 403 {"type":"error","error":{"type":"permission_error",'
                '"message":"Your API key does not have permission to use the specified resource."}}'
            )
        )
    )
    sys.exit(1)
if mode == "overloaded_once":
    state = os.environ["FAKE_STATE"]
    seen = os.path.exists(state)
    if not seen:
        open(state, "w").close()
        print(
            json.dumps(
                error_envelope(
                    'API Error: 529 {"type":"error","error":{"type":"overloaded_error",'
                    '"message":"Overloaded"},"request_id":"req_011CZ"}'
                )
            )
        )
        sys.exit(1)
if mode == "surrogate":
    text = text + " done \ud83d"  # a lone high surrogate: json.dumps prints it as the escape \ud83d
envelope = {
    "type": "result",
    "subtype": "success",
    "is_error": False,
    "duration_ms": 5,
    "num_turns": 1,
    "result": text,
    "session_id": "s",
    "total_cost_usd": 0.001,
    "usage": usage,
    "modelUsage": {
        served: {
            "inputTokens": 100,
            "outputTokens": 20,
            "cacheReadInputTokens": 50,
            "cacheCreationInputTokens": 10,
            "webSearchRequests": 0,
            "costUSD": 0.001,
            "contextWindow": 200000,
        }
    },
    "permission_denials": [],
}
if mode == "verbose":  # hook events before the session (printed as if --verbose were given)
    hooks = [
        {"type": "system", "subtype": "hook_started", "hook_name": "SessionStart:startup"},
        {
            "type": "system",
            "subtype": "hook_response",
            "hook_name": "SessionStart:startup",
            "exit_code": 0,
        },
    ]
    print(json.dumps([*hooks, *session(text), envelope]))
elif "--verbose" in args:  # every message of the session, then the result
    print(json.dumps([*session(text), envelope]))
else:
    print(json.dumps(envelope))
