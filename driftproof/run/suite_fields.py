"""Suite fields: limits, the validated shapes and readers that check one field each.

Each reader collects one problem per bad place (file, JSON pointer, expectation); the three
suite formats share them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from driftproof.errors import Problem, SuiteError

FORMAT = "driftproof-suite/1"
CASE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
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
    rubric: str | None
    criteria: tuple[Criterion, ...] | None
    threshold: float | None
    checks: tuple[CheckSpec, ...]
    examples_pass: tuple[str, ...]
    examples_fail: tuple[str, ...]
    pointer: str
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
    """Whether ``v`` is a finite number (a JSON number, never ``true`` or ``false``)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def read_text(
    c: Collector, obj: dict, key: str, ptr: str, *, max_chars: int, required: bool = True
) -> str | None:
    """``obj[key]`` as a non-empty string of at most ``max_chars``; None (and a problem) if not."""
    v = obj.get(key)
    if v is None and not required:
        return None
    if not isinstance(v, str) or not v.strip():
        c.add(f"{ptr}/{key}", "expected a non-empty string")
        return None
    if len(v) > max_chars:
        c.add(f"{ptr}/{key}", f"expected at most {max_chars} characters, got {len(v)}")
        return None
    return v


def compile_pattern(c: Collector, pattern: Any, ptr: str, flags: int) -> str | None:
    """``pattern`` if it compiles with ``flags``; None (and a problem) if not."""
    if not isinstance(pattern, str) or not pattern:
        c.add(ptr, "expected a non-empty regular expression string")
        return None
    if len(pattern) > PATTERN_MAX_CHARS:
        c.add(ptr, f"expected at most {PATTERN_MAX_CHARS} characters")
        return None
    try:
        re.compile(pattern, flags)
    except re.error as exc:
        c.add(ptr, f"expected a valid Python regular expression ({exc})")
        return None
    return pattern


def read_examples(c: Collector, raw: Any, ptr: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The ``(pass, fail)`` example strings of ``raw``; ``((), ())`` when absent."""
    if raw is None:
        return (), ()
    if not isinstance(raw, dict) or set(raw) - {"pass", "fail"}:
        c.add(ptr, 'expected an object with optional "pass" and "fail" lists of strings')
        return (), ()
    out: list[tuple[str, ...]] = []
    for key in ("pass", "fail"):
        items = raw.get(key, [])
        if not isinstance(items, list) or len(items) > EXAMPLES_MAX:
            c.add(f"{ptr}/{key}", f"expected a list of at most {EXAMPLES_MAX} strings")
            out.append(())
            continue
        good = []
        for i, s in enumerate(items):
            if not isinstance(s, str) or len(s) > EXAMPLE_MAX_CHARS:
                c.add(
                    f"{ptr}/{key}/{i}",
                    f"expected a string of at most {EXAMPLE_MAX_CHARS} characters",
                )
            else:
                good.append(s)
        out.append(tuple(good))
    return out[0], out[1]


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
        if not isinstance(cid, str) or not CRITERION_ID.match(cid):
            c.add(f"{p}/id", "expected an id matching ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
            continue
        if cid in seen:
            c.add(f"{p}/id", f"expected a unique criterion id; {cid!r} repeats")
            continue
        seen.add(cid)
        if not (is_number(w) and 0 < w <= 1000):
            c.add(f"{p}/weight", "expected a finite number > 0 and <= 1000")
            continue
        d = read_text(c, cr, "description", p, max_chars=RUBRIC_MAX_CHARS)
        if d is not None:
            out.append(Criterion(cid, float(w), d))
    return tuple(out) if len(out) == len(raw) else None


def read_checks(c: Collector, raw: Any, ptr: str) -> tuple[CheckSpec, ...]:
    """The good checks of ``raw``; ``()`` when absent (each bad one is a problem)."""
    if raw is None:
        return ()
    if not isinstance(raw, list) or len(raw) > CHECKS_MAX:
        c.add(ptr, f"expected a list of at most {CHECKS_MAX} checks")
        return ()
    out = []
    for i, ch in enumerate(raw):
        p = f"{ptr}/{i}"
        if not isinstance(ch, dict):
            c.add(p, "expected a check object {name, kind, pattern | structure}")
            continue
        name, kind = ch.get("name"), ch.get("kind")
        if not isinstance(name, str) or not name.strip() or len(name) > 200:
            c.add(f"{p}/name", "expected a non-empty name of at most 200 characters")
            continue
        if kind not in CHECK_KINDS:
            c.add(f"{p}/kind", f"expected one of {', '.join(CHECK_KINDS)}")
            continue
        if kind == "structural":
            if set(ch) - {"name", "kind", "structure"} or ch.get("structure") not in STRUCTURES:
                c.add(
                    f"{p}/structure", f"expected one of {', '.join(STRUCTURES)} (and no other keys)"
                )
                continue
            out.append(CheckSpec(name, kind, structure=ch["structure"]))
            continue
        if set(ch) - {"name", "kind", "pattern", "ignore_case"}:
            c.add(p, 'expected only "name", "kind", "pattern" and "ignore_case"')
            continue
        ic = ch.get("ignore_case", False)
        if not isinstance(ic, bool):
            c.add(f"{p}/ignore_case", "expected true or false")
            continue
        pat = compile_pattern(c, ch.get("pattern"), f"{p}/pattern", re.IGNORECASE if ic else 0)
        if pat is not None:
            out.append(CheckSpec(name, kind, pattern=pat, ignore_case=ic))
    return tuple(out)


def read_threshold(c: Collector, v: Any, ptr: str) -> float | None:
    """``v`` as a threshold in [0, 1]; None when absent or bad (a problem)."""
    if v is None:
        return None
    if not (is_number(v) and 0 <= v <= 1):
        c.add(ptr, "expected a number from 0 to 1")
        return None
    return float(v)


def case_list(c: Collector, raw: Any, ptr: str) -> list:
    """``raw`` if it is a non-empty list of at most ``CASES_MAX`` cases; else ``[]`` (a problem)."""
    if not isinstance(raw, list) or not raw:
        c.add(ptr, "expected a non-empty list of cases")
        return []
    if len(raw) > CASES_MAX:
        c.add(ptr, f"expected at most {CASES_MAX} cases, got {len(raw)}")
        return []
    return raw


def read_case_id(c: Collector, v: Any, ptr: str) -> str | None:
    """``v`` as a case id (a non-negative integer becomes its digits); None (a problem) if bad."""
    if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
        v = str(v)
    if not isinstance(v, str) or not CASE_ID.match(v):
        c.add(ptr, "expected an id matching ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
        return None
    return v


def case_objects(c: Collector, raw: Any, ptr: str, expected: str) -> Iterator[tuple[str, dict]]:
    """Each case object at ``ptr`` with its pointer; a non-object is a problem (``expected``)."""
    for i, item in enumerate(case_list(c, raw, ptr)):
        p = f"{ptr}/{i}"
        if not isinstance(item, dict):
            c.add(p, expected)
            continue
        yield p, item
