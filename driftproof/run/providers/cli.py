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
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from typing import Any

from driftproof.errors import ProviderError
from driftproof.run.capture import read_back
from driftproof.run.providers.base import AttemptError, Provider, Reply, printed_version, run_process

__all__ = ["ClaudeCLI", "CodexCLI", "WRITING_FEATURE"]

ISOLATION = ["--setting-sources", "project", "--strict-mcp-config", "--disable-slash-commands", "--no-session-persistence"]
READ_TOOLS = ["Read", "WebFetch", "WebSearch"]
FILE_TOOLS = ["Write", "Edit", "NotebookEdit"]
#: Harness errors that every further call would meet too: the run stops (caveman's README:
#: "auth, quota or a bad model name would fail every remaining call too").
FATAL = re.compile(r"invalid api key|not logged in|please run /login|log ?in again|unauthori[sz]ed|\b401\b|"
                   r"credit balance is too low|model .{0,80}(?:not found|does not exist)|unknown model", re.I)
#: Codex feature names that write a file or run code.
WRITING_FEATURE = re.compile(r"shell|exec|patch|write|edit|repl|code_mode|apply|powershell|notebook|command|script", re.I)


def _version(binary: str) -> str:
    try:
        cp = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ProviderError(f"cannot run {binary} --version: {exc}") from exc
    if cp.returncode != 0:
        raise ProviderError(f"{binary} --version exited with status {cp.returncode}: {cp.stderr.strip()[:200]}")
    return printed_version(cp.stdout or cp.stderr)


class _CLI(Provider):
    surface = "cli"
    binary = ""

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

    def call(self, *, model: str, system: str | None, prompt: str, timeout: float, max_tokens: int) -> Reply:
        with tempfile.TemporaryDirectory(prefix="driftproof-sys-") as sysdir, \
                tempfile.TemporaryDirectory(prefix="driftproof-work-") as work:
            sysfile = None
            if system:
                sysfile = os.path.join(sysdir, "system.md")
                with open(sysfile, "w", encoding="utf-8") as f:
                    f.write(system)
            argv = self.argv(model, system, sysfile, work)
            code, out, err = run_process(argv, stdin=prompt, cwd=work, timeout=timeout)
            reply = self.parse(code, out, err, model)
            if self.capture == "files":
                reply.capture = read_back(work)
            return reply

    def argv(self, model: str, system: str | None, sysfile: str | None, work: str) -> list[str]:
        raise NotImplementedError

    def parse(self, code: int, out: str, err: str, model: str) -> Reply:
        raise NotImplementedError


def _matches(requested: str, key: str) -> bool:
    return key == requested or key.startswith(requested) or requested in key


class ClaudeCLI(_CLI):
    """``anthropic`` × ``cli``: ``claude -p``."""

    name, harness_name, binary = "anthropic", "claude-code", "claude"

    def argv(self, model: str, system: str | None, sysfile: str | None, work: str) -> list[str]:
        tools = ",".join(READ_TOOLS + (FILE_TOOLS if self.capture == "files" else []))
        argv = [self.path, "-p", "--output-format", "json", "--model", model, *ISOLATION,
                "--tools", tools, "--allowedTools", tools]
        if sysfile:
            argv += ["--system-prompt-file", sysfile]
        return argv

    def parse(self, code: int, out: str, err: str, model: str) -> Reply:
        obj = None
        for line in reversed(out.strip().splitlines()):
            try:
                cand = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(cand, dict) and cand.get("type") == "result":
                obj = cand
                break
        if obj is None:
            try:
                cand = json.loads(out)
                obj = cand if isinstance(cand, dict) else None
            except json.JSONDecodeError:
                pass
        if obj is None:
            raise AttemptError(f"claude exited with status {code} and no result object: {err.strip()[-300:]}")
        if obj.get("is_error") or obj.get("subtype") not in (None, "success"):
            msg = str(obj.get("result", ""))[:300]
            raise AttemptError(f"claude reported an error ({obj.get('subtype')}): {msg}", fatal=bool(FATAL.search(msg)))
        usage = obj.get("usage") or {}
        inp = None
        if isinstance(usage.get("input_tokens"), int):
            inp = usage["input_tokens"] + sum(int(usage.get(k) or 0) for k in ("cache_creation_input_tokens", "cache_read_input_tokens"))
        outp = usage.get("output_tokens") if isinstance(usage.get("output_tokens"), int) else None
        mu = obj.get("modelUsage") if isinstance(obj.get("modelUsage"), dict) else {}
        ours = [k for k in mu if _matches(model, k)]
        others = [{"model": k, "input": (v or {}).get("inputTokens"), "output": (v or {}).get("outputTokens")}
                  for k, v in mu.items() if k not in ours]
        handoff = None
        if mu and not ours:
            handoff = "; ".join(f"{o['model']} ({o['input']} input, {o['output']} output tokens)" for o in others)
        cost = obj.get("total_cost_usd")
        return Reply(str(obj.get("result") or ""), input_tokens=inp, output_tokens=outp,
                     reported_model=ours[0] if ours else None, serving_model=ours[0] if ours else None,
                     cost_usd=float(cost) if isinstance(cost, (int, float)) else None,
                     other_models=others, handoff=handoff, raw=out)


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
                cp = subprocess.run([self.path, "features", "list"], capture_output=True, text=True, timeout=60)
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise ProviderError(f"cannot run codex features list: {exc}") from exc
            if cp.returncode != 0:
                raise ProviderError(f"codex features list exited with status {cp.returncode}; "
                                    "the writing features cannot be turned off, so capture text cannot run")
            names = [ln.split()[0] for ln in cp.stdout.splitlines() if ln.strip() and re.match(r"^[a-z0-9_]+\s", ln + " ")]
            self.disabled = sorted({n for n in names if WRITING_FEATURE.search(n)})
        return version

    def argv(self, model: str, system: str | None, sysfile: str | None, work: str) -> list[str]:
        sandbox = "read-only" if self.capture == "text" else "workspace-write"
        argv = [self.path, "exec", "--json", "--model", model, "--skip-git-repo-check", "-C", work,
                "--sandbox", sandbox, "-c", "mcp_servers={}"]
        for feat in self.disabled:
            argv += ["-c", f"features.{feat}=false"]
        if system:
            argv += ["-c", f"developer_instructions={json.dumps(system)}"]
        return argv + ["-"]

    def parse(self, code: int, out: str, err: str, model: str) -> Reply:
        text, usage, failure = None, None, None
        for line in out.splitlines():
            try:
                ev = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(ev, dict):
                continue
            t = ev.get("type")
            item = ev.get("item") if isinstance(ev.get("item"), dict) else {}
            if t == "item.completed" and (item.get("type") or item.get("item_type")) in ("agent_message", "assistant_message"):
                text = str(item.get("text") or "")
            elif t == "turn.completed" and isinstance(ev.get("usage"), dict):
                usage = ev["usage"]
            elif t in ("turn.failed", "error"):
                e = ev.get("error")
                failure = (e.get("message") if isinstance(e, dict) else None) or ev.get("message") or t
        if failure is not None:
            msg = str(failure)[:300]
            raise AttemptError(f"codex reported an error: {msg}", fatal=bool(FATAL.search(msg)))
        if text is None:
            raise AttemptError(f"codex exited with status {code} and no agent message: {err.strip()[-300:]}")
        u = usage or {}
        return Reply(text, input_tokens=u.get("input_tokens") if isinstance(u.get("input_tokens"), int) else None,
                     output_tokens=u.get("output_tokens") if isinstance(u.get("output_tokens"), int) else None,
                     raw=out)
