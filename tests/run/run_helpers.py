"""Helpers for the ``driftproof run`` tests (imported as ``run_helpers``): a loopback server
speaking the Anthropic Messages API and the OpenAI Chat Completions and Responses APIs with
scripted answers, latency, 429s, 500s and hangs; fake ``claude`` and ``codex`` executables; a
three-case suite. No test touches the internet: every base URL is ``http://127.0.0.1:<port>``.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

#: The fake ``claude`` and ``codex`` executables (Python sources run with a shebang).
_BINS = Path(__file__).parent / "fake_bins"

SKILL_TEXT = (
    "---\nname: commit-helper\n---\n# Commit helper\nSKILL-MARK: write Conventional "
    "Commits subjects.\n"
)

SUITE = {
    "format": "driftproof-suite/1",
    "name": "three-cases",
    "cases": [
        {
            "id": "commit-429",
            "prompt": "Write a commit message for a fix that retries HTTP 429 responses.",
            "rubric": "1.0 for a Conventional Commits subject that names the 429 retry; 0.5 for a "
            "plain one.",
            "threshold": 0.7,
            "checks": [
                {
                    "name": "cc subject",
                    "kind": "structural",
                    "structure": "conventional_commit_subject",
                },
                {"name": "says 429", "kind": "regex", "pattern": "\\b429\\b"},
            ],
            "examples": {
                "pass": ["fix(http): retry 429 responses"],
                "fail": ["Fixed the retry bug"],
            },
        },
        {
            "id": "explain-429",
            "prompt": "Explain what HTTP 429 means.",
            "criteria": [
                {
                    "id": "rate",
                    "weight": 2,
                    "description": "Says it means too many requests (rate limited).",
                },
                {
                    "id": "retry-after",
                    "weight": 1,
                    "description": "Mentions the Retry-After header.",
                },
            ],
        },
        {
            "id": "commit-docs",
            "prompt": "Write a commit message for a README typo fix.",
            "rubric": "1.0 for a docs: subject; 0.5 otherwise.",
        },
    ],
}

SKILL_ANSWER = (
    "fix(http): retry 429 responses (skill)\n\nRetry-After is honoured; 429 means too "
    "many requests."
)
BASE_ANSWER = "Fixed the retry for 429 responses."


def judge_reply(prompt: str) -> str:
    """The scripted judge: 0.9 for a skill answer, 0.5 otherwise; criteria all met or only
    'rate'."""
    skill = "(skill)" in prompt
    if "<criteria>" in prompt:
        return json.dumps(
            {
                "criteria": [
                    {"id": "rate", "met": True, "reason": "says too many requests"},
                    {
                        "id": "retry-after",
                        "met": skill,
                        "reason": "Retry-After named" if skill else "not named",
                    },
                ]
            }
        )
    return json.dumps({"score": 0.9 if skill else 0.5, "reason": "graded"})


def is_judge_prompt(prompt: str) -> bool:
    """Whether a request is a judge sample: the judge template (``driftproof/run/judge.py``)
    wraps the graded answer in ``<answer data="…">``. Both loopbacks (this one and
    ``batch_fake``) ask here."""
    return "<answer data=" in prompt


def answer_for(system: str | None, prompt: str) -> str:
    """The scripted model: the skill's marker in the system prompt changes the answer."""
    return SKILL_ANSWER if system and "SKILL-MARK" in system else BASE_ANSWER


class Script:
    """What the loopback server does. ``faults`` is a queue of actions taken before normal
    answers: ``429``, ``500``, ``("hang", seconds)``; ``hang_if`` hangs matching requests;
    ``trickle_if`` answers matching requests one byte every ``trickle_gap`` seconds (counted in
    ``trickled``)."""

    def __init__(self) -> None:
        self.latency = 0.0
        self.faults: list[Any] = []
        self.hang_if: Callable[[str | None, str], bool] | None = None
        self.trickle_if: Callable[[str | None, str], bool] | None = None
        self.trickle_gap = 0.25
        self.trickled = 0
        #: ``shape(path, body, is_judge, text)`` → ``(status, json body, headers)`` to send
        #: instead of the normal answer, or ``None`` for the normal one (recorded response shapes).
        self.shape: (
            Callable[
                [str, dict[str, Any], bool, str], tuple[int, dict[str, Any], dict[str, str]] | None
            ]
            | None
        ) = None
        self.bodies: list[tuple[str, dict[str, Any]]] = []
        self.lock = threading.Lock()
        self.requests: Counter[str] = Counter()
        self.stop = threading.Event()

    def next_fault(self) -> Any:
        with self.lock:
            return self.faults.pop(0) if self.faults else None


def _texts(path: str, body: dict[str, Any]) -> tuple[str | None, str]:
    if path.endswith("/messages"):
        sys_ = body.get("system")
        if isinstance(sys_, list):
            sys_ = "".join(b.get("text", "") for b in sys_)
        content = body["messages"][0]["content"]
        if isinstance(content, list):
            content = "".join(b.get("text", "") for b in content)
        return sys_, content
    if path.endswith("/chat/completions"):
        msgs = body["messages"]
        return next((m["content"] for m in msgs if m["role"] == "system"), None), msgs[-1][
            "content"
        ]
    return body.get("instructions"), body["input"]


#: A reply member the shape builders set when they give their default usage: the loopback
#: then counts the request's system prompt into its input, as a real server does.
COUNT_SYSTEM = "_count_system"


def counted(reply: Any, system: str | None) -> Any:
    """``reply`` as sent: a default usage counts ``system`` (3 characters a token at most)."""
    if not isinstance(reply, dict) or not reply.pop(COUNT_SYSTEM, False) or not system:
        return reply
    if not isinstance(reply.get("usage"), dict):  # a test took the usage out
        return reply
    usage = dict(reply["usage"])
    key = "prompt_tokens" if "prompt_tokens" in usage else "input_tokens"
    usage[key] += len(system) // 3
    if "total_tokens" in usage:
        usage["total_tokens"] += len(system) // 3
    return {**reply, "usage": usage}


def _ok(path: str, model: str, text: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    # the system prompt counts as input, as a real server's does (at most 3 characters a token,
    # more tokens than o200k_base gives): the runner compares the arms' reported inputs
    system = _texts(path, body)[0] if body is not None else None
    n_in, n_out = 100 + len(text) // 10 + len(system or "") // 3, 20
    if path.endswith("/messages"):
        tools = (body or {}).get("tools")
        if (
            tools
        ):  # a forced tool call: the grade is the tool's input, as the Messages API returns it
            return {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": tools[0]["name"],
                        "input": json.loads(text),
                    }
                ],
                "stop_reason": "tool_use",
                "stop_sequence": None,
                "usage": {"input_tokens": n_in, "output_tokens": n_out},
            }
        return {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": n_in, "output_tokens": n_out},
        }
    if path.endswith("/chat/completions"):
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": n_in,
                "completion_tokens": n_out,
                "total_tokens": n_in + n_out,
            },
        }
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "status": "completed",
        "model": model,
        "output": [
            {
                "type": "message",
                "id": "msg_1",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        ],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": n_in,
            "output_tokens": n_out,
            "total_tokens": n_in + n_out,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


def make_handler(script: Script) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def log_message(self, *args: Any) -> None:
            pass

        def _send(
            self,
            code: int,
            obj: dict[str, Any],
            headers: dict[str, str] | None = None,
            gap: float = 0.0,
        ) -> None:
            data = json.dumps(obj).encode()
            self.send_response(code)
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            if not gap:
                self.wfile.write(data)
                return
            for i in range(len(data)):  # until the client hangs up or the server closes
                if script.stop.wait(gap):
                    return
                try:
                    self.wfile.write(data[i : i + 1])
                except OSError:
                    return

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
            path = self.path.split("?", 1)[0]
            with script.lock:
                script.requests[path] += 1
                script.bodies.append((path, body))
            system, prompt = _texts(path, body)
            fault = script.next_fault()
            if fault is None and script.hang_if and script.hang_if(system, prompt):
                fault = ("hang", 30)
            if isinstance(fault, tuple) and fault[0] == "hang":
                script.stop.wait(fault[1])
                return
            if isinstance(fault, int):
                kind = "rate_limit_error" if fault == 429 else "api_error"
                self._send(
                    fault,
                    {"type": "error", "error": {"type": kind, "message": f"scripted {fault}"}},
                )
                return
            if script.latency:
                time.sleep(script.latency)
            is_judge = is_judge_prompt(prompt)
            text = judge_reply(prompt) if is_judge else answer_for(system, prompt)
            if script.shape is not None:
                shaped = script.shape(path, body, is_judge, text)
                if shaped is not None:
                    self._send(shaped[0], counted(shaped[1], _texts(path, body)[0]), shaped[2])
                    return
            trickle = bool(script.trickle_if and script.trickle_if(system, prompt))
            with script.lock:
                script.trickled += trickle
            gap = script.trickle_gap if trickle else 0.0
            self._send(200, _ok(path, body.get("model", "?"), text, body), gap=gap)

    return Handler


class Loopback:
    def __init__(self) -> None:
        self.script = Script()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(self.script))
        self.server.daemon_threads = True
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.script.stop.set()
        self.server.shutdown()
        self.server.server_close()


FAKE_CLAUDE = (_BINS / "claude.py").read_text(encoding="utf-8")

FAKE_CODEX = (_BINS / "codex.py").read_text(encoding="utf-8")


def run_lane(
    tmp_path: Path,
    provider: str,
    surface: str | None,
    *,
    capture: str = "text",
    api: str | None = None,
    judge: str = "anthropic",
    sleep: Callable[[float], None] | None = None,
    lane: Any = None,
    judge_lane: Any = None,
    out: Path | None = None,
    **cfg: Any,
) -> Path:
    """Run the three-case suite in ``tmp_path`` through one lane, judged on the loopback server
    (or by ``judge_lane``)."""
    from driftproof.run.engine import RunConfig, run_suite
    from driftproof.run.providers import make_provider
    from driftproof.run.suite import load_suite

    suite = load_suite(tmp_path / "suite.json")
    if lane is None:
        opts: dict[str, Any] = {}
        if surface == "api":
            opts = {"api": api} if provider == "openai" else {}
        elif surface == "cli":
            opts = {"capture": capture}
        lane = make_provider(provider, surface, **opts)
    jlane = judge_lane or make_provider(judge, None if judge == "stub" else "api")
    kw: dict[str, Any] = {
        "model": "claude-sonnet-4-6" if provider == "anthropic" else "gpt-5",
        "judge_model": {"anthropic": "claude-haiku-4-5-20251001", "openai": "gpt-5-mini"}.get(
            judge, "stub-judge"
        ),
        "judge_price": (1.0, 5.0) if judge != "stub" else None,
        "retry_delays": (0.01, 0.02),
        "concurrency": 8,
        "timeout": 10.0,
        "judge_timeout": 10.0,
    }
    kw.update(cfg)
    quick = kw.pop("quick", False)
    config = RunConfig.quick_preset(**kw) if quick else RunConfig(**kw)
    out = out or tmp_path / "receipt.json"
    run_suite(
        suite,
        skill_text=SKILL_TEXT,
        skill_name="commit-helper",
        cfg=config,
        provider=lane,
        judge=jlane,
        out=out,
        **({"sleep": sleep} if sleep else {}),
    )
    return out


def point_sdks_at(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    """Dummy keys for both SDKs, and their base URLs at a loopback server's ``url``."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    monkeypatch.setenv("OPENAI_BASE_URL", url + "/v1")


#: ``python -c`` that runs the CLI in a fresh process (the SIGKILL tests kill it).
CLI_PROCESS = [sys.executable, "-c", "from driftproof.cli import main; main()"]


def run_args(suite: object, skill: object, *extra: str) -> list[str]:
    """``driftproof run SUITE --skill SKILL`` with the tests' model on Anthropic, then ``extra``
    (in that order, as a user would type them)."""
    return [
        "run",
        str(suite),
        "--skill",
        str(skill),
        "--model",
        "claude-sonnet-4-6",
        "--provider",
        "anthropic",
        *extra,
    ]
