"""CLI surfaces: ``claude -p`` (Claude Code) and ``codex exec`` (Codex), isolated as the
method describes (method, "Which answer is graded"; caveman evals README, host isolation).

Every invocation runs from a fresh empty temporary directory of its own.

Claude Code: ``--setting-sources project --strict-mcp-config --disable-slash-commands
--no-session-persistence`` (no user settings, no MCP server, no slash commands, no session
kept). Capture ``text``: ``--tools`` and ``--allowedTools`` name only Read, WebFetch and
WebSearch, so every other tool is off, any later one included. Capture ``files``: Write,
Edit and NotebookEdit are added, still no tool that runs code. SKILL.md goes in through
``--system-prompt-file``, as caveman's harness does (its baseline arm passes no system prompt
and keeps Claude Code's own); the answer is ``result`` of ``--output-format json``; tokens are
``usage`` (input counts cache creation and cache reads too); ``modelUsage`` names every
model the harness called: when the requested model is not among them, another model gave
the answer, the draw is lost with that call and its tokens, and the run stops.

Codex: ``codex exec --json`` with ``-c mcp_servers={}``; capture ``text``: ``--sandbox
read-only`` and every feature ``codex features list`` names that writes a file or runs code
turned off (``-c features.<name>=false``), the shell among them; capture ``files``:
``--sandbox workspace-write`` in the fresh directory, features as they are. SKILL.md goes
in as ``developer_instructions``. The answer is the last ``agent_message`` item; tokens come
from ``turn.completed``.

Envelopes as they really are (issue 13, item 5): ``claude -p --verbose --output-format json``
prints an array whose elements before the result are hook and system events: the answer is
the last ``type: "result"`` element, and the others are recorded as harness events
``{type, subtype}``. ``is_error: true`` is read with the status it carries (``api_error_status``
or ``API Error: NNN`` in ``result``): 400/401/403/404/422 stop the run, 408/409/429/5xx/529
and ``overloaded_error`` are retried, whether the binary exited 0 or not. The judge grades
through the binary's JSON-schema option: ``claude --json-schema`` (the decision is the
envelope's ``structured_output``) and ``codex exec --output-schema FILE``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
from typing import Any

from driftproof.errors import ProviderError
from driftproof.run.capture import read_back
from driftproof.run.providers._sdk import count, member_dict, member_str
from driftproof.run.providers.base import (
    FATAL_STATUSES,
    AttemptError,
    Call,
    Provider,
    Reply,
    classify_status,
)
from driftproof.run.reply_text import joined_reasoning, json_or_none, split_reasoning

__all__ = ["ClaudeCLI", "CodexCLI", "WRITING_FEATURE", "claude_envelope", "read_claude"]

ISOLATION = [
    "--setting-sources",
    "project",
    "--strict-mcp-config",
    "--disable-slash-commands",
    "--no-session-persistence",
]
READ_TOOLS = ["Read", "WebFetch", "WebSearch"]
FILE_TOOLS = ["Write", "Edit", "NotebookEdit"]
#: Harness errors that every further call would meet too: the run stops (caveman's README:
#: "auth, quota or a bad model name would fail every remaining call too").
FATAL = re.compile(
    r"invalid api key|not logged in|please run /login|log ?in again|unauthori[sz]ed|\b401\b|"
    r"credit balance is too low|model .{0,80}(?:not found|does not exist)|unknown model",
    re.I,
)
#: The status an error text carries: ``API Error: 529 {...}``, ``API Error (429 ...)``.
_STATUS = re.compile(r"API Error:?\s*\(?\s*(\d{3})\b")
#: Codex feature names that write a file or run code.
WRITING_FEATURE = re.compile(
    r"shell|exec|patch|write|edit|repl|code_mode|apply|powershell|notebook|command|script", re.I
)


_VERSION = re.compile(r"\d+\.\d+(?:\.\d+)?[\w.+-]*")


def printed_version(output: str) -> str:
    """The version a harness binary printed (``2.1.288 (Claude Code)`` → ``2.1.288``)."""
    m = _VERSION.search(output)
    if m:
        return m.group(0)[:100]
    first = output.strip().splitlines()[0] if output.strip() else ""
    return first[:100]


def run_process(
    argv: list[str], *, stdin: str, cwd: str, timeout: float, env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    """Run one CLI invocation in its own process group; on timeout kill the group.

    Raises:
        AttemptError: timeout (retryable) or the binary cannot be started (fatal).
    """
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
            text=True,
            encoding="utf-8",
            errors="replace",
            start_new_session=True,
        )
    except OSError as exc:
        raise AttemptError(f"cannot start {argv[0]}: {exc.strerror or exc}", fatal=True) from exc
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()
        raise AttemptError(f"timed out after {timeout:g} s") from None
    return proc.returncode, out, err


def _version(binary: str) -> str:
    try:
        cp = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ProviderError(f"cannot run {binary} --version: {exc}") from exc
    if cp.returncode != 0:
        raise ProviderError(
            f"{binary} --version exited with status {cp.returncode}: {cp.stderr.strip()[:200]}"
        )
    return printed_version(cp.stdout or cp.stderr)


class _CLI(Provider):
    surface = "cli"
    binary = ""
    channel = "cli_json_schema"
    sends_budget = False

    def __init__(self, *, capture: str = "text", binary: str | None = None) -> None:
        if capture not in ("text", "files"):
            raise ValueError("capture must be 'text' or 'files'")
        self.capture = capture
        found = shutil.which(binary or self.binary)
        if found is None:
            raise ProviderError(f"{binary or self.binary} not found on PATH")
        self.path = found

    def start(self) -> str | None:
        return _version(self.path)

    def sampling(self, max_tokens: int) -> dict[str, Any]:
        return {}

    def attempt(self, call: Call) -> Reply:
        with (
            tempfile.TemporaryDirectory(prefix="driftproof-sys-") as sysdir,
            tempfile.TemporaryDirectory(prefix="driftproof-work-") as work,
        ):
            sysfile = None
            if call.system:
                sysfile = os.path.join(sysdir, "system.md")
                with open(sysfile, "w", encoding="utf-8") as f:
                    f.write(call.system)
            argv = self.argv(call.model, call.system, sysfile, work)
            if call.schema is not None:
                argv = self.schema_argv(argv, call.schema, sysdir)
            code, out, err = run_process(argv, stdin=call.prompt, cwd=work, timeout=call.timeout)
            reply = self.parse(code, out, err, call.model)
            if call.schema is not None:
                reply.channel = "cli_json_schema"
                if reply.decision is None:
                    reply.decision = json_or_none(reply.text)
            if self.capture == "files":
                reply.capture = read_back(work)
            return reply

    def argv(self, model: str, system: str | None, sysfile: str | None, work: str) -> list[str]:
        raise NotImplementedError

    def schema_argv(self, argv: list[str], schema: dict[str, Any], sysdir: str) -> list[str]:
        """``argv`` with the binary's JSON-schema option for a grading call."""
        raise NotImplementedError

    def parse(self, code: int, out: str, err: str, model: str) -> Reply:
        raise NotImplementedError


def _status_of(obj: dict[str, Any], text: str) -> int | None:
    for key in ("api_error_status", "status"):
        v = obj.get(key)
        if isinstance(v, int) and not isinstance(v, bool) and 100 <= v <= 999:
            return v
    m = _STATUS.search(text)
    return int(m.group(1)) if m else None


def claude_envelope(out: str) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The ``type: "result"`` element ``claude -p`` printed, and the events beside it.

    Reads a single JSON object, a JSON array (``--verbose``: hook and system events, then the
    result; the last result element counts) or JSON lines (``stream-json``).

    Returns:
        (the result object or ``None``, ``[{type, subtype}]`` of every other element).
    """
    items: list[Any] = []
    try:
        whole = json.loads(out)
    except (ValueError, RecursionError):
        whole = None
        for line in out.splitlines():
            line = line.strip()
            if not line:
                continue
            try:
                items.append(json.loads(line))
            except (ValueError, RecursionError):
                continue
    else:
        items = whole if isinstance(whole, list) else [whole]
    result, events = None, []
    for k in range(len(items) - 1, -1, -1):
        it = items[k]
        if isinstance(it, dict) and it.get("type") == "result":
            result = it
            items = items[:k] + items[k + 1 :]
            break
    for it in items[:1000]:
        if isinstance(it, dict) and isinstance(it.get("type"), str):
            sub = it.get("subtype")
            events.append(
                {"type": it["type"][:100], "subtype": sub[:100] if isinstance(sub, str) else None}
            )
    if (
        result is None
        and len(items) == 1
        and isinstance(items[0], dict)
        and whole is not None
        and "result" in items[0]
    ):
        result, events = items[0], []
    return result, events


def _matches(requested: str, key: str) -> bool:
    return key == requested or key.startswith(requested) or requested in key


class ClaudeCLI(_CLI):
    """``anthropic`` × ``cli``: ``claude -p``."""

    name, harness_name, binary = "anthropic", "claude-code", "claude"

    def argv(self, model: str, system: str | None, sysfile: str | None, work: str) -> list[str]:
        tools = ",".join(READ_TOOLS + (FILE_TOOLS if self.capture == "files" else []))
        argv = [
            self.path,
            "-p",
            "--output-format",
            "json",
            "--model",
            model,
            *ISOLATION,
            "--tools",
            tools,
            "--allowedTools",
            tools,
        ]
        if sysfile:
            argv += ["--system-prompt-file", sysfile]
        return argv

    def schema_argv(self, argv: list[str], schema: dict[str, Any], sysdir: str) -> list[str]:
        return [*argv, "--json-schema", json.dumps(schema, separators=(",", ":"))]

    def parse(self, code: int, out: str, err: str, model: str) -> Reply:
        return read_claude(code, out, err, model)


#: ``claude -p`` error subtypes that end a finished session: read as the reply's ending (a
#: lost draw of its class, usage and cost kept), never retried.
SESSION_ENDINGS = ("error_max_turns", "error_max_budget_usd")


def read_claude(code: int, out: str, err: str, model: str) -> Reply:
    """One ``claude -p`` invocation's exit status and output as a :class:`Reply`.

    The ending (lane ``claude-cli``, D-19) is ``success`` (``success:<stop_reason>`` when the
    result names one) or the session's error subtype (``error_max_turns``,
    ``error_max_budget_usd``); the answer is ``result``, a leading ``<think>`` block split off
    as reasoning. Usage and cost are kept on every envelope, a lost one included.

    Raises:
        AttemptError: no result element (transient), or ``is_error`` / another error subtype:
            classed by the status it carries (fatal 400/401/403/404/422 or a bad key or model;
            transient 408/409/429/5xx/529/``overloaded_error``; otherwise retried), carrying
            the envelope's usage and cost.
    """
    obj, events = claude_envelope(out)
    if obj is None:
        if err.strip():
            said = err.strip()[-300:]
        elif out.strip():
            said = f"stdout began {out.strip()[:200]!r}"
        else:
            said = "it printed nothing"
        raise AttemptError(f"claude exited with status {code} and no result object: {said}")
    subtype = member_str(obj, "subtype")
    stop = member_str(obj, "stop_reason")
    reply = _claude_usage(obj, model, out, events)
    if subtype in SESSION_ENDINGS:
        reply.ending = subtype
        return reply
    if obj.get("is_error") or subtype not in (None, "success"):
        msg = str(obj.get("result", "") or "")[:300]
        status = _status_of(obj, msg)
        what = (
            "claude reported an error "
            f"({obj.get('subtype')}{f', status {status}' if status else ''}): {msg}"
        )
        if status is not None or "overloaded_error" in msg:
            exc = classify_status(status, what)
            raise AttemptError(
                what,
                retryable=exc.retryable,
                fatal=exc.fatal,
                status=exc.status,
                retry_after=exc.retry_after,
                reply=reply,
            )
        raise AttemptError(what, fatal=bool(FATAL.search(msg)), reply=reply)
    if "result" in obj and obj["result"] is not None and not isinstance(obj["result"], str):
        raise AttemptError(
            f"claude's result is {type(obj['result']).__name__}, not text: nothing to grade",
            retryable=False,
            reply=reply,
        )
    reply.text, think = split_reasoning(str(obj.get("result") or ""))
    reply.reasoning = think
    reply.ending = "success" if stop is None else f"success:{stop}"
    if "structured_output" in obj:
        reply.decision = obj.get("structured_output")
    return reply


def _claude_usage(obj: dict[str, Any], model: str, out: str, events: list[dict[str, Any]]) -> Reply:
    """A ``claude -p`` result envelope's usage, cost, models and events as an empty
    :class:`Reply` (lane ``claude-cli``; text and ending set by the caller)."""
    usage = member_dict(obj, "usage")
    inp = cr = cc = None
    if count(usage.get("input_tokens")) is not None:
        cr = count(usage.get("cache_read_input_tokens"))
        cc = count(usage.get("cache_creation_input_tokens"))
        inp = count(usage["input_tokens"] + (cr or 0) + (cc or 0))
    mu = member_dict(obj, "modelUsage")
    ours = [k for k in mu if _matches(model, k)]
    others = [
        {
            "model": k,
            "input": count((v or {}).get("inputTokens")),
            "output": count((v or {}).get("outputTokens")),
        }
        for k, v in mu.items()
        if k not in ours
    ]
    handoff = None
    if mu and not ours:
        handoff = "; ".join(
            f"{o['model']} ({o['input']} input, {o['output']} output tokens)" for o in others
        )
    cost = obj.get("total_cost_usd")
    return Reply(
        "",
        input_tokens=inp,
        output_tokens=count(usage.get("output_tokens")),
        reported_model=ours[0] if ours else None,
        serving_model=ours[0] if ours else None,
        cost_usd=float(cost)
        if isinstance(cost, (int, float)) and not isinstance(cost, bool) and cost >= 0
        else None,
        other_models=others,
        handoff=handoff,
        raw=out,
        stop_reason=member_str(obj, "stop_reason"),
        lane="claude-cli",
        cache_read=cr,
        cache_creation=cc,
        harness_events=events or None,
    )


class CodexCLI(_CLI):
    """``openai`` × ``cli``: ``codex exec``."""

    name, harness_name, binary = "openai", "codex", "codex"

    def __init__(self, *, capture: str = "text", binary: str | None = None) -> None:
        super().__init__(capture=capture, binary=binary)
        self.disabled: list[str] = []

    def start(self) -> str | None:
        version = _version(self.path)
        if self.capture == "text":
            try:
                cp = subprocess.run(
                    [self.path, "features", "list"], capture_output=True, text=True, timeout=60
                )
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise ProviderError(f"cannot run codex features list: {exc}") from exc
            if cp.returncode != 0:
                raise ProviderError(
                    f"codex features list exited with status {cp.returncode}; "
                    "the writing features cannot be turned off, so capture text cannot run"
                )
            names = [
                ln.split()[0]
                for ln in cp.stdout.splitlines()
                if ln.strip() and re.match(r"^[a-z0-9_]+\s", ln + " ")
            ]
            self.disabled = sorted({n for n in names if WRITING_FEATURE.search(n)})
        return version

    def argv(self, model: str, system: str | None, sysfile: str | None, work: str) -> list[str]:
        sandbox = "read-only" if self.capture == "text" else "workspace-write"
        argv = [
            self.path,
            "exec",
            "--json",
            "--model",
            model,
            "--skip-git-repo-check",
            "-C",
            work,
            "--sandbox",
            sandbox,
            "-c",
            "mcp_servers={}",
        ]
        for feat in self.disabled:
            argv += ["-c", f"features.{feat}=false"]
        if system:
            argv += ["-c", f"developer_instructions={json.dumps(system)}"]
        return argv + ["-"]

    def schema_argv(self, argv: list[str], schema: dict[str, Any], sysdir: str) -> list[str]:
        path = os.path.join(sysdir, "schema.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(schema, f)
        return [*argv[:-1], "--output-schema", path, argv[-1]]

    def parse(self, code: int, out: str, err: str, model: str) -> Reply:
        """``codex exec --json`` events as a :class:`Reply` (lane ``codex-cli``, D-19): the answer
        is the last ``agent_message`` item, ``reasoning`` items are reasoning, tokens come from
        ``turn.completed``, which is the one complete ending. An ``error`` event (codex prints
        one per reconnect while it retries) is recorded as a harness event and fails the call
        only when no turn completed.

        Raises:
            AttemptError: ``turn.failed``, or no completed turn (classed by the status the
                error names), or a completed turn with no agent message.
        """
        text, usage, failure, completed, failed = None, None, None, False, False
        thought: list[str] = []
        events: list[dict[str, Any]] = []
        for line in out.splitlines():
            try:
                ev = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if not isinstance(ev, dict):
                continue
            t = ev.get("type")
            item = member_dict(ev, "item")
            kind = item.get("type") or item.get("item_type")
            if t == "item.completed" and kind in ("agent_message", "assistant_message"):
                text = str(item.get("text") or "")
            elif t == "item.completed" and kind == "reasoning":
                thought.append(str(item.get("text") or ""))
            elif t == "turn.completed":
                completed, failure = True, None
                usage = ev.get("usage") if isinstance(ev.get("usage"), dict) else None
            elif t in ("turn.failed", "error"):
                e = ev.get("error")
                said = (e.get("message") if isinstance(e, dict) else None) or ev.get("message")
                if t == "error":
                    events.append({"type": "error", "subtype": None})
                if t == "turn.failed" or not completed:
                    failure = str(said or t)
                if t == "turn.failed":
                    completed, failed = False, True
        if not completed:
            msg = (failure or f"exit status {code}: {err.strip()[-200:]}")[:300]
            what = (
                f"codex reported an error: {msg}"
                if failed
                else f"codex reported no completed turn; its last error: {msg}"
            )
            status = _status_of({}, msg)
            if status is None:
                m = re.search(r"\b(?:status|http)\W{0,3}(\d{3})\b", msg, re.I)
                status = int(m.group(1)) if m else None
            if status is not None and (status in FATAL_STATUSES or status >= 408):
                exc = classify_status(status, what)
                exc.reason = what
                raise exc
            raise AttemptError(what, fatal=bool(FATAL.search(msg)))
        if text is None:
            raise AttemptError(
                f"codex exited with status {code} and no agent message: {err.strip()[-300:]}"
            )
        u = usage or {}
        answer, think = split_reasoning(text)
        return Reply(
            answer,
            input_tokens=count(u.get("input_tokens")),
            output_tokens=count(u.get("output_tokens")),
            cache_read=count(u.get("cached_input_tokens")),
            reasoning_output=count(u.get("reasoning_output_tokens")),
            raw=out,
            lane="codex-cli",
            ending="turn.completed",
            reasoning=joined_reasoning(*thought, think),
            harness_events=events[:1000] or None,
        )
