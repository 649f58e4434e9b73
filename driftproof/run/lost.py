"""Replies that cannot be graded; such a draw is lost before any grading call.

They point at a file the grader was not shown, only describe work done, or hold no answer.
The rules: a line in a fenced block never points; a pointing line shows its file when a fenced
block or 200 characters of the reply's own prose follow it, or when it sits below the answer
(200 characters of prose or a fenced block it refers back to above, a Changes list, a commit
body or PR description); a code name such as ``cart.total`` is not a file name; first-person
advice is an answer; typographic quotes read as plain ones and emphasis is dropped. File names
the prompt mentions, and files the grader is shown, are never pointed at.
"""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Iterable

from driftproof.wording import is_blank

#: Characters of the reply's own prose that show a pointed-at file (method).
PROSE_SHOWS_FILE = 200

_TYPO = str.maketrans(
    "\u2018\u2019\u201a\u201b\u2032\u201c\u201d\u201e\u201f\u2033", "'''''\"\"\"\"\""
)
_EMPHASIS = re.compile(
    r"(?<![\w*])(\*\*|__|\*|_)(?=[^\s*_])(.+?)(?<=[^\s*_])\1(?![\w*])|`([^`\n]+)`"
)
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)")
_EXTRA_EXT = frozenset(
    "md markdown txt py js ts tsx jsx json yaml yml toml csv tsv html css sh bash sql go rs "
    "java rb c h cc cpp hpp ipynb pdf png jpg jpeg gif svg xml ini cfg conf log diff patch lock "
    "env kt swift php pl r scala vue svelte tf proto graphql rst tex docx xlsx".split()
)
_BARE = frozenset(
    "makefile dockerfile readme license changelog gemfile procfile jenkinsfile".split()
)
_FILE = re.compile(r"(?<![\w@/.-])((?:~?/)?(?:[\w.-]+/)*[\w-][\w.-]*)(?![\w/-]|\()")
_VERBS = (
    "saved|wrote|written|created|put|placed|stored|generated|exported|added|updated|"
    "modified|changed|edited|attached|dumped|documented|recorded|committed|moved|renamed"
)
_OUTPUT = (
    "answer|summary|report|write-?up|output|results?|response|analysis|plan|document|details|draft|"
    "changes|code|solution|notes|review|proposal|migration|script|fix|implementation"
)
#: A pointing line: a report of work on a file, or a referral to a file for the answer. Advice
#: to the user about their own files ("Open config.yaml and set port", "I'd add an index in
#: schema.sql", "the port is stored in config.yaml") is an answer, not a pointing line.
_POINTING = [
    re.compile(p, re.I)
    for p in (
        rf"\b(?:i|we)(?:'ve| have| had)?\s+(?:\w+ly\s+|just\s+|also\s+|now\s+)?(?:{_VERBS})\b",
        r"\b(?:saved|written|exported|generated|dumped|output|attached)\s+(?:it\s+|this\s+|them\s+|"
        r"the \w+\s+)?(?:to|into|as)\b",
        rf"\b(?:{_OUTPUT})\s+(?:is|are|has been|have been|was|were)\s+"
        r"(?:saved|written|stored|placed|generated|"
        rf"exported|attached|put|created|documented|recorded)\s+(?:to|in|into|at|as|under)\b",
        r"\b(?:see|refer to|open|view|look at|check)\s+(?:the\s+)?(?:file\s+)?\S+\s+for\b"
        r"|\b(?:available|can be found|is found|are found|documented|written up)\s+(?:in|at)\b"
        r"|\bdetails\s+(?:are\s+)?in\b"
        r"|\b(?:full|complete|whole|detailed)\s+[\w-]+(?:\s+\w+)?\s+(?:is|are|lives|sits)\s+(?:in|at)\b",
        r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:created|saved|wrote|written|updated|modified|added|edited|"
        r"file|files|output|changed|new file|location)\s*:",
        r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:created|saved|wrote|updated|modified|added|edited|changed)\b",
        r"\b(?:has been|have been|was|were|is now)\s+(?:created|written|saved|updated|generated)\b",
    )
]
_REFERS_BACK = re.compile(r"\b(?:this|these|it|that|them|the above|above)\b", re.I)
_CHANGES = re.compile(
    r"^\s*(?:#+\s*)?"
    r"(?:changes|changes made|changed files|files changed|summary of changes)\s*:?\s*$",
    re.I,
)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_SUBJECT = re.compile(r"^[a-z]+(?:\([^()]+\))?!?: \S")
_IMPERATIVE = re.compile(
    r"^(?:Add|Fix|Update|Remove|Refactor|Rename|Move|Bump|Revert|Improve|Handle|Use|Make|Allow|"
    r"Prevent|Support|Implement|Replace|Drop|Change|Document|Merge)\b"
)
_WORK = re.compile(
    r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:"
    r"(?:i|we)(?:'ve| have| had)?\s+(?:just\s+|now\s+|also\s+|successfully\s+)?"
    r"(?:added|updated|created|modified|"
    r"changed|edited|wrote|written|saved|fixed|implemented|refactored|made|moved|renamed|removed|deleted|applied|"
    r"completed|finished|ran|tested|committed|pushed|installed)\b"
    r"|(?:done|finished|all done|complete|completed)\b[.!]?\s*$"
    r"|(?:changes|changes made)\s*:?\s*$)",
    re.I,
)


def normalize(text: str) -> str:
    """A reply's lines with typographic quotes made plain and emphasis and code marks dropped.

    Fence lines and the lines inside fenced blocks are kept as they are.
    """
    lines = text.translate(_TYPO).split("\n")
    fenced = _segments(lines)
    out = []
    for line, inside in zip(lines, fenced, strict=True):
        if not inside:
            for _ in range(3):
                new = _EMPHASIS.sub(
                    lambda m: m.group(2) if m.group(2) is not None else m.group(3), line
                )
                if new == line:
                    break
                line = new
        out.append(line)
    return "\n".join(out)


def _is_file(name: str) -> bool:
    base = name.rstrip(".").rsplit("/", 1)[-1]
    if base.lower() in _BARE:
        return True
    if "." not in base.strip("."):
        return False
    ext = base.rsplit(".", 1)[1].lower()
    if not ext or ext.isdigit():
        return False
    return ext in _EXTRA_EXT or mimetypes.guess_type("x." + ext, strict=False)[0] is not None


def file_names(line: str) -> list[str]:
    """File names on a (normalized) line: a known extension or a well-known bare name."""
    return [m.group(1).rstrip(".") for m in _FILE.finditer(line) if _is_file(m.group(1))]


def _segments(lines: list[str]) -> list[bool]:
    """For each line, True when it sits inside (or opens/closes) a fenced block."""
    inside, out, marker = False, [], ""
    for line in lines:
        m = _FENCE.match(line)
        if m and (not inside or m.group(1) == marker):
            out.append(True)
            inside, marker = (not inside), m.group(1)
        else:
            out.append(inside)
    return out


def _changes_lines(lines: list[str], fenced: list[bool]) -> set[int]:
    out: set[int] = set()
    for i, line in enumerate(lines):
        if fenced[i] or not _CHANGES.match(line):
            continue
        j = i + 1
        while (
            j < len(lines)
            and not fenced[j]
            and (_LIST_ITEM.match(lines[j]) or (lines[j].startswith("  ") and lines[j].strip()))
        ):
            out.add(j)
            j += 1
    return out


def _commit_body(lines: list[str], at: int) -> bool:
    """Whether the reply, its first text on line ``at``, is a commit message or PR description."""
    first = lines[at].strip()
    if first.startswith("#"):
        return True
    nxt = at + 1
    blank_after = nxt >= len(lines) or not lines[nxt].strip()
    return blank_after and (
        _SUBJECT.match(first) is not None
        or (len(first) <= 72 and _IMPERATIVE.match(first) is not None and not first.endswith("."))
    )


def lost_reason(reply: str, *, prompt: str = "", shown_files: Iterable[str] = ()) -> str | None:
    """Why ``reply`` cannot be graded, or ``None`` when it is an answer.

    ``prompt``'s file names are not read as pointing; ``shown_files`` are paths the grader is
    shown with the reply.
    """
    text = normalize(reply)
    if is_blank(text):  # white space, zero-width and other characters that show as nothing
        return "the reply holds no answer"
    lines = text.splitlines()
    fenced = _segments(lines)
    user_files = {f.lower() for f in file_names(normalize(prompt))}
    shown = {s.lower() for s in shown_files} | {s.rsplit("/", 1)[-1].lower() for s in shown_files}
    changes = _changes_lines(lines, fenced)
    first_nonblank = next(i for i, s in enumerate(lines) if s.strip())
    commit = _commit_body(lines, first_nonblank)
    prose_len = [0 if fenced[i] else len(lines[i].strip()) for i in range(len(lines))]

    for i, line in enumerate(lines):
        if fenced[i]:
            continue
        names = [
            f
            for f in file_names(line)
            if f.lower() not in user_files
            and f.lower() not in shown
            and f.rsplit("/", 1)[-1].lower() not in shown
        ]
        if not names or not any(p.search(line) for p in _POINTING):
            continue
        if any(fenced[i + 1 :]) or max(sum(prose_len[i:]), sum(prose_len[:i])) >= PROSE_SHOWS_FILE:
            continue
        if any(fenced[:i]) and _REFERS_BACK.search(line):
            continue
        if i in changes and any(
            prose_len[k] or fenced[k]
            for k in range(i)
            if k not in changes and not _CHANGES.match(lines[k])
        ):
            continue
        if commit and i > first_nonblank:
            continue
        return f"the reply points at {names[0]} (line {i + 1}), a file the grader was not shown"
    prose_lines = [i for i in range(len(lines)) if not fenced[i] and lines[i].strip()]
    if (
        not any(fenced)
        and not shown
        and prose_lines
        and sum(prose_len) < PROSE_SHOWS_FILE
        and all(_WORK.match(lines[i]) for i in prose_lines)
    ):
        return "the reply only describes work it did and holds no answer"
    return None
