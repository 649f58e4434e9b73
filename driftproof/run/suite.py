"""Suites: the test tasks a skill is measured on, read from three formats.

**Driftproof suite** (JSON or YAML; ``format`` must be ``driftproof-suite/1``)::

    {"format": "driftproof-suite/1",
     "name": "commit-messages",                    # optional; default: file stem
     "cases": [{
        "id": "fix-429",                           # ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$, unique
        "prompt": "Write a commit message for ...", # 1..262,144 characters
        "rubric": "Score 1.0 when ...",            # free text, 1..20,000 characters, or
        "criteria": [{"id": "subject", "weight": 2, "description": "..."}],  # 1..50 criteria
        "threshold": 0.7,                          # optional, 0..1 (per-sample pass line)
        "checks": [                                # optional, at most 200
           {"name": "cc subject", "kind": "structural", "structure": "conventional_commit_subject"},
           {"name": "says 429", "kind": "regex", "pattern": "\\\\b429\\\\b", "ignore_case": true},
           {"name": "no arrows", "kind": "must_not_include", "pattern": "→"}],
        "examples": {"pass": ["known-good answer"], "fail": ["known-bad answer"]},
        "translations": {"pt": "Escreva uma mensagem de commit para ..."}}],   # optional, --lang
     "language": "en",                             # optional: the language of the prompts
     "controls": {"Answer concisely.": {"pt": "Responda de forma concisa."}}}  # optional, --lang

Languages (seed 004, caveman's "Other languages"): ``driftproof run --lang LANG`` takes each
case's prompt in LANG (the case's ``prompt`` when the suite's ``language`` is LANG, else its
``translations[LANG]``) and the control translated into LANG, from the suite's ``controls``
table, else the product's (:data:`TRANSLATED_CONTROLS`). A language with no translated control,
or a case with no prompt in it, stops before any call, naming what is missing: there is no
English fallback. The skill text itself stays as it is.

A case carries a ``rubric`` or ``criteria`` (criterion ids unique, weights finite and > 0,
descriptions bounded as a rubric is), never both. ``driftproof run`` refuses, before any call,
a case with neither, an empty criteria list among them (method, criteria paragraph).

**skill-creator ``evals/evals.json``** (INTEROP-NOTES section 2): ``{skill_name, evals: [{id,
prompt, expected_output, files, expectations | assertions}]}``. Each expectation becomes a
criterion of weight 1 (ids ``a1``, ``a2``, ...); ``expected_output`` is not a rubric and is not
used. Cases with input ``files`` are refused by ``run`` (no way to hand them to the model).

Both neighbouring formats are read by :mod:`driftproof.run.foreign_suites`.

**caveman ``prompts/fidelity.json``**: ``{cases: [{id, category, prompt, checks:
{must_include, must_not_include}, examples: {pass, fail}}]}``. Each pattern becomes one check,
matched with Python ``re.search``, case-insensitive, as caveman's own scorer does. These cases
carry no rubric, so ``run`` refuses them; ``suite check`` runs their checks.

Errors: :class:`~driftproof.errors.SuiteError` with one problem per bad place (file + JSON
pointer + what was expected), raised before any model call.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from driftproof._json import escape
from driftproof.errors import Problem, SuiteError

__all__ = [
    "CASE_ID",
    "CRITERIA_MAX",
    "CheckSpec",
    "Criterion",
    "FORMAT",
    "RUBRIC_MAX_CHARS",
    "Suite",
    "SuiteCase",
    "TRANSLATED_CONTROLS",
    "in_language",
    "load_suite",
    "require_gradable",
]

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
    """One validated case. ``pointer`` is its JSON pointer in the suite file (for messages);
    ``examples_pass`` / ``examples_fail`` are known-good / known-bad answers for ``suite check``."""

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
    """What a cut-off answer is (issue 13): ``lost`` (default; a lost draw, "cut off at N output
    tokens") or ``accepted`` (graded as it is), from the suite's ``"truncation"`` member."""
    language: str | None = None
    """The language of the cases' prompts, when the suite states it."""
    controls: dict[str, dict[str, str]] = field(default_factory=dict)
    """The suite's table of translated controls: control text → language → translation."""


class _Collector:
    def __init__(self, file: str) -> None:
        self.file = file
        self.problems: list[Problem] = []

    def add(self, pointer: str, message: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(Problem(self.file, pointer, message))

    def raise_if_any(self) -> None:
        if self.problems:
            raise SuiteError(f"{len(self.problems)} problem(s) in suite {self.file}", self.problems)


def _text(
    c: _Collector, obj: dict, key: str, ptr: str, *, max_chars: int, required: bool = True
) -> str | None:
    v = obj.get(key)
    if v is None:
        if required:
            c.add(f"{ptr}/{key}", "expected a non-empty string")
        return None
    if not isinstance(v, str) or not v.strip():
        c.add(f"{ptr}/{key}", "expected a non-empty string")
        return None
    if len(v) > max_chars:
        c.add(f"{ptr}/{key}", f"expected at most {max_chars} characters, got {len(v)}")
        return None
    return v


def _compile(c: _Collector, pattern: Any, ptr: str, flags: int) -> str | None:
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


def _examples(c: _Collector, raw: Any, ptr: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
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


def _criteria(c: _Collector, raw: Any, ptr: str) -> tuple[Criterion, ...] | None:
    if not isinstance(raw, list) or not raw:
        c.add(
            ptr,
            "expected a non-empty list of criteria {id, weight, description} (an empty list is refused)",
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
        if (
            isinstance(w, bool)
            or not isinstance(w, (int, float))
            or not math.isfinite(w)
            or w <= 0
            or w > 1000
        ):
            c.add(f"{p}/weight", "expected a finite number > 0 and <= 1000")
            continue
        d = _text(c, cr, "description", p, max_chars=RUBRIC_MAX_CHARS)
        if d is not None:
            out.append(Criterion(cid, float(w), d))
    return tuple(out) if len(out) == len(raw) else None


def _checks(c: _Collector, raw: Any, ptr: str) -> tuple[CheckSpec, ...]:
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
        pat = _compile(c, ch.get("pattern"), f"{p}/pattern", re.IGNORECASE if ic else 0)
        if pat is not None:
            out.append(CheckSpec(name, kind, pattern=pat, ignore_case=ic))
    return tuple(out)


def _threshold(c: _Collector, v: Any, ptr: str) -> float | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1:
        c.add(ptr, "expected a number from 0 to 1")
        return None
    return float(v)


def _native(c: _Collector, doc: dict) -> tuple[str | None, list[SuiteCase]]:
    allowed = {"format", "name", "cases", "truncation", "language", "controls"}
    for k in sorted(set(doc) - allowed):
        c.add(
            f"/{k}",
            "unexpected key; a suite has format, name, cases and optionally truncation, language "
            "and controls",
        )
    if doc.get("truncation", "lost") not in ("lost", "accepted"):
        c.add(
            "/truncation",
            'expected "lost" (a cut-off answer is a lost draw, the default) or "accepted"',
        )
    name = doc.get("name")
    if name is not None and (not isinstance(name, str) or not 0 < len(name) <= 200):
        c.add("/name", "expected a name of 1..200 characters")
        name = None
    cases = []
    for i, raw in enumerate(_case_list(c, doc.get("cases"), "/cases")):
        p = f"/cases/{i}"
        if not isinstance(raw, dict):
            c.add(p, "expected a case object")
            continue
        keys = {
            "id",
            "prompt",
            "rubric",
            "criteria",
            "threshold",
            "checks",
            "examples",
            "translations",
        }
        for k in sorted(set(raw) - keys):
            c.add(f"{p}/{k}", "unexpected key in a case")
        cid = _case_id(c, raw.get("id"), f"{p}/id")
        prompt = _text(c, raw, "prompt", p, max_chars=PROMPT_MAX_CHARS)
        rubric = _text(c, raw, "rubric", p, max_chars=RUBRIC_MAX_CHARS, required=False)
        criteria = _criteria(c, raw["criteria"], f"{p}/criteria") if "criteria" in raw else None
        if "rubric" in raw and "criteria" in raw:
            c.add(p, 'expected either "rubric" or "criteria", not both')
        thr = _threshold(c, raw.get("threshold"), f"{p}/threshold")
        checks = _checks(c, raw.get("checks"), f"{p}/checks")
        ex_pass, ex_fail = _examples(c, raw.get("examples"), f"{p}/examples")
        tr = _translations(c, raw.get("translations"), f"{p}/translations")
        if cid and prompt:
            cases.append(
                SuiteCase(cid, prompt, rubric, criteria, thr, checks, ex_pass, ex_fail, p, None, tr)
            )
    return name, cases


LANGUAGE = re.compile(r"^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$")
#: The product's table of translated controls (caveman's ``TERSE_PREFIXES`` in
#: ``evals/llm_run.py``, seed 004): English control text → language → translation.
TRANSLATED_CONTROLS: dict[str, dict[str, str]] = {
    "Answer concisely.": {
        "en": "Answer concisely.",
        "pt": "Responda de forma concisa.",
        "fr": "Réponds de façon concise.",
    },
}


def _language(c: _Collector, v: Any, ptr: str) -> str | None:
    if v is None:
        return None
    if not isinstance(v, str) or len(v) > 35 or not LANGUAGE.match(v):
        c.add(ptr, "expected a language tag such as en, pt or pt-BR")
        return None
    return v


def _translations(c: _Collector, raw: Any, ptr: str) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        c.add(ptr, "expected an object {language: prompt}")
        return {}
    out = {}
    for lang, text in raw.items():
        if _language(c, lang, f"{ptr}/{lang}") is None:
            continue
        t = _text(c, raw, lang, ptr, max_chars=PROMPT_MAX_CHARS)
        if t is not None:
            out[lang] = t
    return out


def _controls(c: _Collector, raw: Any) -> dict[str, dict[str, str]]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        c.add("/controls", "expected an object {control text: {language: translated control}}")
        return {}
    out: dict[str, dict[str, str]] = {}
    for text, table in raw.items():
        p = "/controls/" + escape(text)
        if not isinstance(table, dict):
            c.add(p, "expected an object {language: translated control}")
            continue
        out[text] = _translations(c, table, p)
    return out


def _case_list(c: _Collector, raw: Any, ptr: str) -> list:
    if not isinstance(raw, list) or not raw:
        c.add(ptr, "expected a non-empty list of cases")
        return []
    if len(raw) > CASES_MAX:
        c.add(ptr, f"expected at most {CASES_MAX} cases, got {len(raw)}")
        return []
    return raw


def _case_id(c: _Collector, v: Any, ptr: str) -> str | None:
    if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
        v = str(v)
    if not isinstance(v, str) or not CASE_ID.match(v):
        c.add(ptr, "expected an id matching ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
        return None
    return v


def load_suite(path: str | Path) -> Suite:
    """Read and validate a suite file in any of the three formats.

    Raises:
        SuiteError: unreadable, too large (32 MiB), not JSON/YAML, unknown shape, or any bad
            case (one problem per place, at most 20), duplicate case ids included.
    """
    p = Path(path)
    file = str(path)
    try:
        size = p.stat().st_size
        if size > SUITE_MAX_BYTES:
            raise SuiteError.at(file, "", f"expected at most {SUITE_MAX_BYTES} bytes, got {size}")
        data = p.read_bytes()
    except OSError as exc:
        raise SuiteError.at(
            file, "", f"cannot read the suite file ({exc.strerror or exc})"
        ) from exc
    try:
        text = data.decode("utf-8")
        doc = yaml.safe_load(text) if p.suffix.lower() in (".yaml", ".yml") else json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError, yaml.YAMLError) as exc:
        raise SuiteError.at(
            file, "", f"expected UTF-8 JSON (or YAML for .yaml/.yml): {str(exc)[:200]}"
        ) from exc
    if not isinstance(doc, dict):
        raise SuiteError.at(file, "", "expected a JSON object")
    c = _Collector(file)
    language, controls = None, {}
    if doc.get("format") == FORMAT:
        fmt = "driftproof"
        name, cases = _native(c, doc)
        language = _language(c, doc.get("language"), "/language")
        controls = _controls(c, doc.get("controls"))
    elif "format" in doc:
        raise SuiteError.at(file, "/format", f'expected "{FORMAT}"')
    elif "cases" in doc and not _looks_like_caveman(doc["cases"]):
        raise SuiteError.at(
            file,
            "/format",
            f'missing: a Driftproof suite starts with "format": "{FORMAT}" '
            '(without it, a file of "cases" is read as caveman\'s fidelity.json, whose cases '
            "carry checks {must_include, must_not_include} and no rubric)",
        )
    elif "evals" in doc:
        from driftproof.run.foreign_suites import skill_creator_cases

        fmt = "skill-creator"
        name, cases = skill_creator_cases(c, doc)
    elif "cases" in doc:
        from driftproof.run.foreign_suites import caveman_cases

        fmt = "caveman-fidelity"
        name, cases = None, caveman_cases(c, doc)
    else:
        raise SuiteError.at(
            file,
            "",
            f'expected a suite: {{"format": "{FORMAT}", "cases": [...]}}, '
            'a skill-creator evals.json {"evals": [...]}, or caveman fidelity.json {"cases": [...]}',
        )
    seen: dict[str, str] = {}
    for case in cases:
        if case.id in seen:
            c.add(
                f"{case.pointer}/id",
                f"expected a unique case id; {case.id!r} is also at {seen[case.id]}",
            )
        seen.setdefault(case.id, case.pointer)
    c.raise_if_any()
    truncation = doc.get("truncation", "lost") if fmt == "driftproof" else "lost"
    return Suite(
        name or p.stem,
        file,
        hashlib.sha256(data).hexdigest(),
        fmt,
        tuple(cases),
        truncation,
        language,
        controls,
    )


def _looks_like_caveman(cases: Any) -> bool:
    """Whether a format-less ``cases`` list is caveman's fidelity.json: no case carries a rubric or
    criteria, and every case's checks is an object (caveman's ``{must_include, must_not_include}``)."""
    if not isinstance(cases, list):
        return True  # let the caveman reader name the problem
    for raw in cases:
        if not isinstance(raw, dict):
            continue
        if "rubric" in raw or "criteria" in raw or not isinstance(raw.get("checks"), dict):
            return False
    return True


def in_language(suite: Suite, lang: str, control: str | None) -> tuple[Suite, str | None]:
    """The suite with each case's prompt in ``lang``, and the control translated into ``lang``
    (seed 004: a language with no translated control or no prompts stops before any call).

    The control comes from the suite's ``controls`` table, else the product's
    :data:`TRANSLATED_CONTROLS`, else, when ``lang`` is the suite's own language, as given. A prompt is the case's ``prompt`` when ``lang`` is the suite's ``language``,
    else ``translations[lang]``.

    Raises:
        SuiteError: one problem per missing prompt and for a missing translated control,
            naming what is missing; nothing falls back to English.
    """
    import dataclasses

    c = _Collector(suite.path)
    if not LANGUAGE.match(lang) or len(lang) > 35:
        raise SuiteError.at(
            suite.path, "", f"--lang {lang!r}: expected a language tag such as en, pt or pt-BR"
        )
    native = suite.language == lang
    cases = []
    for case in suite.cases:
        text = case.prompt if native else case.translations.get(lang)
        if text is None:
            c.add(
                f"{case.pointer}/translations/{lang}",
                f"case {case.id!r} has no prompt in {lang!r}"
                + (
                    f" (the suite's prompts are in {suite.language!r})"
                    if suite.language
                    else " (the suite does not state the language of its prompts)"
                )
                + "; driftproof run stops before any call rather than fall back to another language",
            )
            continue
        cases.append(dataclasses.replace(case, prompt=text))
    translated = control
    if control is not None:
        table = suite.controls.get(control) or {}
        translated = table.get(lang) or TRANSLATED_CONTROLS.get(control, {}).get(lang)
        if translated is None and native:
            translated = control  # given for the suite's own language, and no table translates it
        if translated is None:
            c.add(
                f"/controls/{escape(control)}/{lang}",
                f"no translated control for {lang!r}: the control {control[:80]!r} has no {lang!r} translation "
                "in the suite's controls table or the product's; driftproof run stops before any call rather "
                "than send the untranslated control",
            )
    c.raise_if_any()
    return dataclasses.replace(suite, cases=tuple(cases)), translated


def require_gradable(suite: Suite) -> None:
    """Refuse, before any call, every case ``run`` cannot grade (method, criteria paragraph).

    Raises:
        SuiteError: one problem per case with neither a rubric nor criteria, or with a refusal.
    """
    c = _Collector(suite.path)
    for case in suite.cases:
        if case.refusal:
            ptr, _, msg = case.refusal.partition(": ")
            c.add(ptr, msg)
        elif case.rubric is None and not case.criteria:
            c.add(
                case.pointer,
                f"case {case.id!r} has neither a rubric nor criteria; "
                "driftproof run grades every answer against one and refuses the case before any call",
            )
    c.raise_if_any()
