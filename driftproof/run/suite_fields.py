"""Suite fields: limits, the validated shapes and readers that check one field each.

Each reader collects one problem per bad place (file, JSON pointer, expectation); the three
suite formats share them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from driftproof._json import json_kind
from driftproof.errors import Problem, SuiteError
from driftproof.receipt._bounds import quote
from driftproof.receipt._model_draw import CASE_ID_PATTERN
from driftproof.wording import is_blank

FORMAT = "driftproof-suite/1"
CASE_ID = re.compile(CASE_ID_PATTERN)
CRITERION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
SUITE_MAX_BYTES = 32 * 1024 * 1024
CASES_MAX = 10_000
PROMPT_MAX_CHARS = 262_144
RUBRIC_MAX_CHARS = 20_000
CRITERIA_MAX = 50
CHECKS_MAX = 200
PATTERN_MAX_CHARS = 2_000
EXAMPLES_MAX = 50
EXAMPLE_MAX_CHARS = 262_144
MAX_PROBLEMS = 20
STRUCTURES = ("conventional_commit_subject", "fenced_code_block", "non_empty")
CHECK_KINDS = ("regex", "structural", "must_include", "must_not_include")


@dataclass(frozen=True)
class Criterion:
    """One weighted criterion; the grader decides it met or not met."""

    id: str
    weight: float
    description: str


@dataclass(frozen=True)
class CheckSpec:
    """A deterministic post-check; recorded as ``{name, kind, pass}``, never in the verdict.

    ``regex`` and ``must_include`` pass when ``pattern`` is found; ``must_not_include`` passes
    when it is not; ``structural`` passes when the named ``structure`` holds.
    """

    name: str
    kind: str
    pattern: str | None = None
    ignore_case: bool = False
    structure: str | None = None


@dataclass(frozen=True)
class SuiteCase:
    """One validated case; ``pointer`` is its JSON pointer in the suite file."""

    id: str
    prompt: str
    rubric: str | None = None
    criteria: tuple[Criterion, ...] | None = None
    threshold: float | None = None
    checks: tuple[CheckSpec, ...] = ()
    examples_pass: tuple[str, ...] = ()
    examples_fail: tuple[str, ...] = ()
    pointer: str = ""
    refusal: str | None = None
    """Why ``run`` cannot grade this case even with a rubric (e.g. input files); None if it can."""
    translations: dict[str, str] = field(default_factory=dict)
    """The prompt in other languages, ``{language: prompt}`` (``--lang``)."""
    category: str | None = None
    """The case's category when the suite gives one (caveman's fidelity.json)."""


@dataclass(frozen=True)
class Suite:
    """A validated suite. ``format``: ``driftproof`` | ``skill-creator`` | ``caveman-fidelity``."""

    name: str
    path: str
    sha256: str
    """sha256 of the suite file's bytes."""
    format: str
    cases: tuple[SuiteCase, ...] = field(default_factory=tuple)
    truncation: str = "lost"
    """What a cut-off answer is: ``lost`` (default; a lost draw, "cut off at N output
    tokens") or ``accepted`` (graded as it is), from the suite's ``"truncation"`` member."""
    language: str | None = None
    """The language of the cases' prompts, when the suite states it."""
    controls: dict[str, dict[str, str]] = field(default_factory=dict)
    """The suite's table of translated controls: control text → language → translation."""


class Collector:
    """The problems found in one suite file, each at its JSON pointer."""

    def __init__(self, file: str) -> None:
        """Collect the problems of ``file``."""
        self.file = file
        self.problems: list[Problem] = []

    def add(self, pointer: str, message: str) -> None:
        """Note a problem at ``pointer``."""
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(Problem(self.file, pointer, message))

    def raise_if_any(self) -> None:
        """Raise :class:`SuiteError` with the problems found, if any."""
        if self.problems:
            raise SuiteError(f"{len(self.problems)} problem(s) in suite {self.file}", self.problems)


def is_number(v: Any) -> TypeGuard[float]:
    """Whether ``v`` is a finite number a float holds (a JSON number, never ``true`` or ``false``).

    An integer too large for a float (``10**400``) is not one.
    """
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return False
    try:
        return math.isfinite(v)
    except OverflowError:  # an integer too large to convert
        return False


def _matches(pattern: re.Pattern[str]) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, str) and bool(pattern.fullmatch(v))


#: The members read as one value: each one's test, and the problem a value failing it makes.
RULES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "id": (_matches(CASE_ID), f"expected an id matching {CASE_ID.pattern}"),
    "criterion id": (_matches(CRITERION_ID), f"expected an id matching {CRITERION_ID.pattern}"),
    "weight": (
        lambda v: is_number(v) and 0 < v <= 1000,
        "expected a finite number > 0 and <= 1000",
    ),
    "threshold": (lambda v: is_number(v) and 0 <= v <= 1, "expected a number from 0 to 1"),
    "name": (
        lambda v: isinstance(v, str) and not is_blank(v) and len(v) <= 200,
        "expected a name of 1..200 characters, not blank",
    ),
    "check name": (
        lambda v: isinstance(v, str) and not is_blank(v) and len(v) <= 200,
        "expected a name of at most 200 characters, not blank",
    ),
    "category": (
        lambda v: isinstance(v, str) and len(v) <= 200,
        "expected a category name (a string of at most 200 characters)",
    ),
    "kind": (lambda v: v in CHECK_KINDS, f"expected one of {', '.join(CHECK_KINDS)}"),
    "ignore_case": (lambda v: isinstance(v, bool), "expected true or false"),
    "truncation": (
        lambda v: v in ("lost", "accepted"),
        'expected "lost" (a cut-off answer is a lost draw, the default) or "accepted"',
    ),
}


def holds(c: Collector, rule: str, v: Any, ptr: str) -> bool:
    """Whether ``v`` passes :data:`RULES` ``[rule]``; a problem at ``ptr`` when it does not.

    The problem says what was found: "missing" for ``None``, else an excerpt of ``v``.
    """
    test, problem = RULES[rule]
    if not test(v):
        c.add(ptr, f"{problem}, " + ("missing" if v is None else f"found {quote(v)}"))
        return False
    return True


def read_text(
    c: Collector, obj: dict, key: str, ptr: str, *, max_chars: int, required: bool = True
) -> str | None:
    """``obj[key]`` as a string of at most ``max_chars``, not blank; None (and a problem) if not.

    Blank is :func:`~driftproof.wording.is_blank`'s rule: spaces or invisible characters only.
    """
    v = obj.get(key)
    if v is None and not required:
        return None
    if not isinstance(v, str) or is_blank(v):
        c.add(f"{ptr}/{key}", "expected a non-empty string, not blank")
    elif len(v) > max_chars:
        c.add(f"{ptr}/{key}", f"expected at most {max_chars} characters, got {len(v)}")
    else:
        return v
    return None


def compile_pattern(c: Collector, pattern: Any, ptr: str, flags: int) -> str | None:
    """``pattern`` if it compiles with ``flags``; None (and a problem) if not."""
    if not isinstance(pattern, str) or not pattern:
        c.add(ptr, "expected a non-empty regular expression string")
    elif len(pattern) > PATTERN_MAX_CHARS:
        c.add(ptr, f"expected at most {PATTERN_MAX_CHARS} characters, got {len(pattern)}")
    else:
        try:
            re.compile(pattern, flags)
            return pattern
        except re.error as exc:
            c.add(ptr, f"expected a valid Python regular expression ({exc})")
    return None


def read_examples(c: Collector, raw: Any, ptr: str) -> dict[str, tuple[str, ...]]:
    """``examples_pass`` and ``examples_fail`` of ``raw``; empty when absent."""
    out: dict[str, tuple[str, ...]] = {"examples_pass": (), "examples_fail": ()}
    if raw is None:
        return out
    if not isinstance(raw, dict) or set(raw) - {"pass", "fail"}:
        c.add(ptr, 'expected an object with optional "pass" and "fail" lists of strings')
        return out
    for key in ("pass", "fail"):
        items = raw.get(key, [])
        if not isinstance(items, list) or len(items) > EXAMPLES_MAX:
            got = _found(items)
            c.add(f"{ptr}/{key}", f"expected a list of at most {EXAMPLES_MAX} strings, {got}")
            continue
        for i, s in enumerate(items):
            if not isinstance(s, str) or len(s) > EXAMPLE_MAX_CHARS:
                c.add(
                    f"{ptr}/{key}/{i}",
                    f"expected a string of at most {EXAMPLE_MAX_CHARS} characters",
                )
        out[f"examples_{key}"] = tuple(
            s for s in items if isinstance(s, str) and len(s) <= EXAMPLE_MAX_CHARS
        )
    return out


def read_criteria(c: Collector, raw: Any, ptr: str) -> tuple[Criterion, ...] | None:
    """The criteria of ``raw``; None if any is bad (each bad one is a problem)."""
    if not isinstance(raw, list) or not raw:
        c.add(
            ptr,
            "expected a non-empty list of criteria {id, weight, description}"
            " (an empty list is refused)",
        )
        return None
    if len(raw) > CRITERIA_MAX:
        c.add(ptr, f"expected at most {CRITERIA_MAX} criteria, got {len(raw)}")
        return None
    out, seen = [], set()
    for i, cr in enumerate(raw):
        p = f"{ptr}/{i}"
        if not isinstance(cr, dict) or set(cr) != {"id", "weight", "description"}:
            c.add(p, 'expected an object with exactly "id", "weight" and "description"')
            continue
        cid, w = cr["id"], cr["weight"]
        if not holds(c, "criterion id", cid, f"{p}/id"):
            continue
        if cid in seen:
            c.add(f"{p}/id", f"expected a unique criterion id; {cid!r} repeats")
            continue
        seen.add(cid)
        d = holds(c, "weight", w, f"{p}/weight") and read_text(
            c, cr, "description", p, max_chars=RUBRIC_MAX_CHARS
        )
        if d:
            out.append(Criterion(cid, float(w), d))
    return tuple(out) if len(out) == len(raw) else None


def read_checks(c: Collector, raw: Any, ptr: str) -> tuple[CheckSpec, ...]:
    """The good checks of ``raw``; ``()`` when absent (each bad one is a problem)."""
    if raw is None:
        return ()
    if not isinstance(raw, list) or len(raw) > CHECKS_MAX:
        c.add(ptr, f"expected a list of at most {CHECKS_MAX} checks, {_found(raw)}")
        return ()
    out = []
    for i, ch in enumerate(raw):
        p = f"{ptr}/{i}"
        if not isinstance(ch, dict):
            c.add(p, "expected a check object {name, kind, pattern | structure}")
            continue
        name: Any = ch.get("name")
        kind: Any = ch.get("kind")
        if not (holds(c, "check name", name, f"{p}/name") and holds(c, "kind", kind, f"{p}/kind")):
            continue
        if kind == "structural":
            if set(ch) - {"name", "kind", "structure"} or ch.get("structure") not in STRUCTURES:
                c.add(
                    f"{p}/structure", f"expected one of {', '.join(STRUCTURES)} (and no other keys)"
                )
            else:
                out.append(CheckSpec(name, kind, structure=ch["structure"]))
        elif other := sorted(set(ch) - {"name", "kind", "pattern", "ignore_case"}):
            also = ", ".join(repr(k) for k in other[:5])
            c.add(p, f'expected only "name", "kind", "pattern" and "ignore_case", found {also}')
        elif holds(c, "ignore_case", ic := ch.get("ignore_case", False), f"{p}/ignore_case"):
            pat = compile_pattern(c, ch.get("pattern"), f"{p}/pattern", re.IGNORECASE if ic else 0)
            if pat is not None:
                out.append(CheckSpec(name, kind, pattern=pat, ignore_case=ic))
    return tuple(out)


def _found(value: Any) -> str:
    """``got N`` for a list (one that is too long), else what ``value`` is, in words."""
    return f"got {len(value)}" if isinstance(value, list) else f"found {json_kind(value)}"


def case_objects(c: Collector, raw: Any, ptr: str, expected: str) -> Iterator[tuple[str, dict]]:
    """Each case object at ``ptr`` with its pointer; a non-object is a problem (``expected``)."""
    if not isinstance(raw, list) or not raw:
        c.add(ptr, "expected a non-empty list of cases")
        return
    if len(raw) > CASES_MAX:
        c.add(ptr, f"expected at most {CASES_MAX} cases, got {len(raw)}")
        return
    for i, item in enumerate(raw):
        if isinstance(item, dict):
            yield f"{ptr}/{i}", item
        else:
            c.add(f"{ptr}/{i}", expected)
