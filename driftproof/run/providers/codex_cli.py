"""``openai`` × ``cli``: ``codex exec --json``, isolated.

No MCP server; capture ``text`` runs read-only with every feature that writes a file or runs
code turned off, capture ``files`` in ``workspace-write``. SKILL.md goes in as
``developer_instructions``; a grade comes back through ``--output-schema``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from typing import Any

from driftproof._json import member_object
from driftproof.run.endings import harness_ending
from driftproof.run.providers._sdk import count
from driftproof.run.providers.base import (
    CONTEXT_WINDOW,
    CONTEXT_WINDOW_STATUSES,
    FATAL_STATUSES,
    AttemptError,
    Call,
    Reply,
    classify_status,
    same_model,
)
from driftproof.run.providers.cli import (
    FATAL,
    CLILane,
    checked_run,
    status_of,
    stray_words,
    version_of,
)
from driftproof.run.reply_text import joined_reasoning, json_or_none, not_text, split_reasoning

#: Codex feature names that write a file or run code.
WRITING_FEATURE = re.compile(
    r"shell|exec|patch|write|edit|repl|code_mode|apply|powershell|notebook|command|script", re.I
)

#: ``codex exec --json`` events that carry an item.
_ITEM_EVENTS = ("item.started", "item.updated", "item.completed")
#: The error item codex writes when the server moves a turn to another model (codex-rs/exec,
#: ``ModelRerouted``: ``model rerouted: FROM -> TO (Reason)``); the turn goes on.
_REROUTED = re.compile(r"\s*model rerouted:\s*(\S+)\s*->\s*(\S+)", re.I)


class CodexCLI(CLILane):
    """``openai`` × ``cli``: ``codex exec``."""

    name, harness_name, binary, endings = "openai", "codex", "codex", "codex-cli"
    #: the writing features turned off (capture ``text``), found by :meth:`start`
    disabled: Sequence[str] = ()

    def start(self) -> str | None:
        """The version ``codex`` prints; for capture ``text``, the writing features to turn off.

        Raises:
            ProviderError: ``codex features list`` cannot run.
        """
        version = version_of(self.path)
        if self.capture == "text":
            out, _ = checked_run(
                [self.path, "features", "list"],
                "codex features list",
                "the writing features cannot be turned off, so capture text cannot run",
            )
            names = [
                ln.split()[0]
                for ln in out.splitlines()
                if ln.strip() and re.match(r"^[a-z0-9_]+\s", ln + " ")
            ]
            self.disabled = sorted({n for n in names if WRITING_FEATURE.search(n)})
        return version

    def argv(self, call: Call, sysdir: str, work: str) -> list[str]:
        """The ``codex exec`` command line, sandboxed, writing features off for capture ``text``.

        A grading call's schema is written to ``sysdir`` and named by ``--output-schema``.
        """
        sandbox = "read-only" if self.capture == "text" else "workspace-write"
        argv = [self.path, "exec", "--json", "--model", call.model, "--skip-git-repo-check"]
        argv += ["-C", work, "--sandbox", sandbox, "-c", "mcp_servers={}"]
        for feat in self.disabled:
            argv += ["-c", f"features.{feat}=false"]
        if call.system:
            argv += ["-c", f"developer_instructions={json.dumps(call.system)}"]
        if call.schema is not None:
            path = os.path.join(sysdir, "schema.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(call.schema, f)
            argv += ["--output-schema", path]
        return argv + ["-"]

    def parse(self, code: int, out: str, err: str, model: str) -> Reply:
        """``codex exec --json`` events as a :class:`Reply` (lane ``codex-cli``, D-19).

        The answer is the last ``agent_message`` of the last turn (a turn started after one
        completed leaves none until it completes); ``reasoning`` items are reasoning; the ending is
        ``turn.completed``, or ``turn.completed:<item type>`` when an item (but the closing
        ``todo_list``) came after that message, an agent message after the turn completed too.
        An ``error`` event fails the call only when no turn completed, a ``turn.failed`` always;
        a turn rerouted to another model is a hand-off. A completed ``error`` item (codex's
        non-fatal error, as it writes each warning) is recorded as a harness event, never the
        ending; an ``error`` item only started is no warning codex marks, and is the ending.
        The tokens are the last ``turn.completed``'s ``usage``, the session's total so far.

        Raises:
            AttemptError: a ``turn.failed`` (its first message quoted) or no completed turn (its
                last error quoted), classed by the status named; or no agent message; or (fatal,
                usage kept) a non-blank line that is no JSON object (:func:`.cli.stray_words`).
        """
        reply = self._read(code, out, err, model)
        lines = (ln for ln in out.splitlines() if ln.strip())
        stray = next((ln for ln in lines if not isinstance(json_or_none(ln), dict)), None)
        if stray is not None:  # beside the events: part of the answer, or an error, unsaid
            raise AttemptError(stray_words("codex", stray), fatal=True, reply=reply)
        return reply

    def _read(self, code: int, out: str, err: str, model: str) -> Reply:
        """:meth:`parse` but for a line that is no JSON object, which is skipped."""
        answered: list[Any] = []  # the last agent message's text, whatever it holds
        failure, completed, failed, usage = None, False, None, dict[str, Any]()  # failed: words
        after = None  # the type of the last item seen after the last agent message
        thought: list[str] = []
        handoff = None  # codex's own word that another model took the turn
        events: list[dict[str, Any]] = []
        for line in out.splitlines():
            ev = json_or_none(line)
            if not isinstance(ev, dict):
                continue
            t = ev.get("type")
            item = member_object(ev, "item")
            kind = item.get("type") or item.get("item_type")
            said_it = kind in ("agent_message", "assistant_message")
            if t == "item.completed" and said_it and not completed:  # after it: no turn's answer
                answered, after = [item.get("text")], None
            elif kind == "error" and (m := _REROUTED.match(str(item.get("message")))):
                if not same_model(model, m[2]):
                    handoff = f"codex moved the turn from {m[1][:100]} to {m[2][:100]}"
            elif (t, kind) == ("item.completed", "error"):  # codex's non-fatal error: a warning
                events.append({"type": t, "subtype": kind})
            elif t in _ITEM_EVENTS and (t, kind) != ("item.completed", "todo_list"):
                after = str(kind)
                if t == "item.completed" and kind == "reasoning":
                    thought.append(str(item.get("text") or ""))
            elif t == "turn.started" and completed:  # the answer must be of the last turn
                answered, after, completed = [], None, False
                failure = "another turn started after one completed, and it did not complete"
            elif t == "turn.completed":
                completed = True
                usage = member_object(ev, "usage")
            elif t in ("turn.failed", "error"):
                said = member_object(ev, "error").get("message") or ev.get("message")
                if t == "turn.failed":
                    failed = failed or str(said or t)
                else:
                    events.append({"type": "error", "subtype": None})
                    if not completed:
                        failure = str(said or t)
        said = f": {err.strip()[-200:]}" if err.strip() else ""
        if failed is not None or not completed:
            cut = out.rstrip("\r\n").rsplit("\n", 1)[-1]
            if not said and cut.strip() and json_or_none(cut) is None:
                said = f"; its output ends in a line that is no JSON event: {cut[-100:]!r}"
            why = failed or failure or f"none (exit status {code}{said})"
            raise _no_turn(why[:300], failed is not None)
        if not answered:
            last = f" (its last item: {after[:100]})" if after else ""
            raise AttemptError(
                f"codex exited with status {code}, its turn completed with no agent message "
                f"before its completion{last}{said}"
            )
        answer, think = split_reasoning(answered[0] if isinstance(answered[0], str) else "")
        return Reply(
            answer,
            input_tokens=count(usage.get("input_tokens")),
            output_tokens=count(usage.get("output_tokens")),
            cache_read=count(usage.get("cached_input_tokens")),
            reasoning_output=count(usage.get("reasoning_output_tokens")),
            raw=out,
            lane="codex-cli",
            ending=harness_ending("codex-cli", after),
            reasoning=joined_reasoning(*thought, think),
            handoff=handoff,
            harness_events=events[:1000] or None,
            unread=not_text("the agent message's text", answered),
        )


def _no_turn(msg: str, failed: bool) -> AttemptError:
    """The error of a call with no completed turn: ``turn.failed`` (``failed``) or none at all.

    A message reading as the context window (:data:`.base.CONTEXT_WINDOW`) with no status or
    one of :data:`.base.CONTEXT_WINDOW_STATUSES` loses the draw as such (a 5xx is retried);
    fatal when it reads as a harness error every call would meet (:data:`.cli.FATAL`), whatever
    status it names; else classed by the HTTP status it names (transient or fatal).
    """
    what = (
        f"codex reported an error: {msg}"
        if failed
        else f"codex reported no completed turn; its last error: {msg}"
    )
    status = status_of({}, msg)
    if status is None:
        m = re.search(r"\b(?:status|http)\W{0,3}(\d{3})\b", msg, re.I)
        status = int(m.group(1)) if m else None
    if CONTEXT_WINDOW.search(msg) and status in (None, *CONTEXT_WINDOW_STATUSES):
        return AttemptError(what, retryable=False, kind="context_window")  # this prompt only
    if FATAL.search(msg):  # every further call would meet it, as on the claude lane
        return AttemptError(what, fatal=True)
    if status is not None and (status in FATAL_STATUSES or status >= 408):
        return classify_status(status, what, reason=what)
    return AttemptError(what)
