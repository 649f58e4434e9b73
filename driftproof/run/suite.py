"""Suites: the test cases a skill is measured on, in three formats.

A Driftproof suite (JSON or YAML, ``format: driftproof-suite/1``; see docs/reference.md) has
cases of an id, a prompt, a ``rubric`` or ``criteria`` (never both), optional checks, examples
and ``translations``, and optional ``language`` and ``controls`` for ``--lang``; skill-creator's
``evals/evals.json`` and caveman's ``prompts/fidelity.json`` are read too. Every error is a
:class:`~driftproof.errors.SuiteError` with one problem per bad place (file, JSON pointer,
expectation), raised before any model call.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from driftproof._json import decode_utf8, escape, json_kind, read_capped
from driftproof.errors import SuiteError
from driftproof.receipt import cut_label
from driftproof.run.suite_fields import (
    FORMAT,
    PROMPT_MAX_CHARS,
    RUBRIC_MAX_CHARS,
    SUITE_MAX_BYTES,
    CheckSpec,
    Collector,
    Suite,
    SuiteCase,
    case_objects,
    compile_pattern,
    holds,
    read_checks,
    read_criteria,
    read_examples,
    read_text,
)
from driftproof.run.suite_read import parse_suite_text

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


def read_translations(c: Collector, raw: Any, ptr: str, what: str = "prompt") -> dict[str, str]:
    """A ``{language: text}`` object at ``ptr`` (``what``: its texts); problems go to ``c``."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        c.add(ptr, f"expected an object {{language: {what}}}")
        return {}
    out = {}
    for lang in raw:
        if _is_language(c, lang, f"{ptr}/{lang}"):
            t = read_text(c, raw, lang, ptr, max_chars=PROMPT_MAX_CHARS)
            if t is not None:
                out[lang] = t
    return out


def _is_language(c: Collector, v: Any, ptr: str) -> bool:
    if isinstance(v, str) and len(v) <= 35 and LANGUAGE.fullmatch(v):
        return True
    c.add(ptr, "expected a language tag such as en, pt or pt-BR")
    return False


def in_language(suite: Suite, lang: str, control: str | None) -> tuple[Suite, str | None]:
    """The suite with each case's prompt, and the control, in ``lang``.

    A prompt is ``prompt`` when ``lang`` is the suite's ``language``, else ``translations[lang]``;
    the control comes from the suite's ``controls``, else :data:`TRANSLATED_CONTROLS`, else as
    given in the suite's own language.

    Raises:
        SuiteError: one problem per missing prompt and for a missing control; nothing falls back
            to English.
    """
    import dataclasses

    c = Collector(suite.path)
    if not LANGUAGE.fullmatch(lang) or len(lang) > 35:
        raise SuiteError.at(
            suite.path, "", f"--lang {lang!r}: expected a language tag such as en, pt or pt-BR"
        )
    native = suite.language == lang
    said = (
        f" (the suite's prompts are in {suite.language!r})"
        if suite.language
        else " (the suite does not state the language of its prompts)"
    )
    cases = []
    for case in suite.cases:
        text = case.prompt if native else case.translations.get(lang)
        if text is None:
            c.add(
                f"{case.pointer}/translations/{lang}",
                f"case {case.id!r} has no prompt in {lang!r}{said}; driftproof run stops before "
                "any call rather than fall back to another language",
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
                f"no translated control for {lang!r}: the control {control[:80]!r} has no "
                f"{lang!r} translation in the suite's controls table or the product's; "
                "driftproof run stops before any call rather than send the untranslated control",
            )
    c.raise_if_any()
    return dataclasses.replace(suite, cases=tuple(cases)), translated


def _native_case(c: Collector, raw: dict, p: str) -> dict[str, Any]:
    """The members of a Driftproof suite's case after its id and prompt."""
    rubric = read_text(c, raw, "rubric", p, max_chars=RUBRIC_MAX_CHARS, required=False)
    criteria = read_criteria(c, raw["criteria"], f"{p}/criteria") if "criteria" in raw else None
    if "rubric" in raw and "criteria" in raw:
        c.add(p, 'expected either "rubric" or "criteria", not both')
    thr = raw.get("threshold")
    return {
        "rubric": rubric,
        "criteria": criteria,
        "threshold": float(thr)
        if thr is not None and holds(c, "threshold", thr, f"{p}/threshold")
        else None,
        "checks": read_checks(c, raw.get("checks"), f"{p}/checks"),
        **read_examples(c, raw.get("examples"), f"{p}/examples"),
        "translations": read_translations(c, raw.get("translations"), f"{p}/translations"),
    }


def _skill_creator_case(c: Collector, raw: dict, p: str) -> dict[str, Any]:
    """An eval's criteria (each expectation and assertion, weight 1, ids ``a1``...) and refusal."""
    # skill-creator's schemas.md says expectations, its SKILL.md and agentskills.io say
    # assertions: a file giving both means both, never one dropped
    exp: list[str] = []
    bad = False
    for key in ("expectations", "assertions"):
        items = raw.get(key)
        if items is not None and (
            not isinstance(items, list) or not all(isinstance(e, str) for e in items)
        ):
            c.add(f"{p}/{key}", "expected a list of strings")
            bad = True
        elif items is not None:
            exp += items
    criteria = None
    if exp and not bad:
        where = f"{p}/expectations" if raw.get("expectations") else f"{p}/assertions"
        items = [{"id": f"a{j + 1}", "weight": 1, "description": e} for j, e in enumerate(exp)]
        criteria = read_criteria(c, items, where)
    files = raw.get("files") or []
    refusal = None
    if not isinstance(files, list):
        c.add(f"{p}/files", "expected a list of file paths")
    elif files:
        refusal = (
            f"{p}/files: this case needs input files ({len(files)}), which driftproof run "
            f"cannot hand to the model; remove the case or its files{_SKILL_CREATOR_IMPORT}"
        )
    return {"criteria": criteria, "refusal": refusal}


_CAVEMAN_KINDS = ("must_include", "must_not_include")


def _caveman_case(c: Collector, raw: dict, p: str) -> dict[str, Any]:
    """A fidelity case's checks (each pattern a case-insensitive check), examples, category."""
    checks = []
    raw_checks = raw.get("checks")
    if not isinstance(raw_checks, dict) or set(raw_checks) - set(_CAVEMAN_KINDS):
        c.add(
            f"{p}/checks", 'expected an object with "must_include" and/or "must_not_include" lists'
        )
    else:
        for kind in _CAVEMAN_KINDS:
            pats = raw_checks.get(kind, [])
            if not isinstance(pats, list):
                c.add(f"{p}/checks/{kind}", "expected a list of regular expressions")
                continue
            for j, pat in enumerate(pats):
                if compile_pattern(c, pat, f"{p}/checks/{kind}/{j}", re.IGNORECASE) is not None:
                    name = cut_label(f"{kind} #{j + 1}: {pat}")
                    checks.append(CheckSpec(name, kind, pattern=pat, ignore_case=True))
        if not checks and not c.problems:
            c.add(f"{p}/checks", "expected at least one check")
    examples = read_examples(c, raw.get("examples"), f"{p}/examples")
    cat = raw.get("category")
    cat = cat if cat is None or holds(c, "category", cat, f"{p}/category") else None
    return {"checks": tuple(checks), **examples, "category": cat}


#: Per format: where its cases are, what a case is, the members a case may have (``None``: any)
#: and the reader of the members after id and prompt.
_FORMATS: dict[str, tuple[str, str, frozenset[str] | None, Any]] = {
    "driftproof": (
        "cases",
        "expected a case object",
        frozenset("id prompt rubric criteria threshold checks examples translations".split()),
        _native_case,
    ),
    "skill-creator": (
        "evals",
        "expected an eval object {id, prompt, expected_output, files, expectations}",
        None,
        _skill_creator_case,
    ),
    "caveman-fidelity": (
        "cases",
        "expected a case object {id, category, prompt, checks, examples}",
        None,
        _caveman_case,
    ),
}


def _cases(c: Collector, doc: dict, fmt: str) -> list[SuiteCase]:
    """The cases of a suite in format ``fmt``; problems go to ``c``."""
    key, expected, allowed, members = _FORMATS[fmt]
    cases = []
    for p, raw in case_objects(c, doc.get(key), f"/{key}", expected):
        for k in sorted(set(raw) - allowed) if allowed is not None else ():
            c.add(f"{p}/{k}", "unexpected key in a case")
        cid = raw.get("id")
        cid = str(cid) if isinstance(cid, int) and not isinstance(cid, bool) and cid >= 0 else cid
        cid = cid if holds(c, "id", cid, f"{p}/id") else None
        prompt = read_text(c, raw, "prompt", p, max_chars=PROMPT_MAX_CHARS)
        more = members(c, raw, p)
        if cid and prompt:
            cases.append(SuiteCase(cid, prompt, pointer=p, **more))
    return cases


def _top(c: Collector, doc: dict, fmt: str) -> dict[str, Any]:
    """The suite-wide members of format ``fmt`` but its cases; problems go to ``c``."""
    if fmt == "skill-creator":
        return {"name": doc["skill_name"] if isinstance(doc.get("skill_name"), str) else None}
    if fmt == "caveman-fidelity":
        return {"name": None}
    for k in sorted(set(doc) - {"format", "name", "cases", "truncation", "language", "controls"}):
        c.add(
            f"/{k}",
            "unexpected key; a suite has format, name, cases and optionally truncation, language "
            "and controls",
        )
    truncation = doc.get("truncation", "lost")
    holds(c, "truncation", truncation, "/truncation")
    name = doc.get("name")
    return {
        "name": name if name is None or holds(c, "name", name, "/name") else None,
        "truncation": truncation,
    }


def _tail(c: Collector, doc: dict) -> dict[str, Any]:
    """A Driftproof suite's ``language`` and ``controls``; problems go to ``c``."""
    lang, controls = doc.get("language"), doc.get("controls")
    if lang is not None and not _is_language(c, lang, "/language"):
        lang = None
    if controls is not None and not isinstance(controls, dict):
        c.add("/controls", "expected an object {control text: {language: translated control}}")
    elif controls is not None:
        for text, table in controls.items():
            p = "/controls/" + escape(text)
            if table is None:  # a null table is no table, as every other non-object
                c.add(p, "expected an object {language: translated control}")
            controls[text] = read_translations(c, table, p, "translated control")
    return {"language": lang, "controls": controls or {}}


def load_suite(path: str | Path) -> Suite:
    """Read and validate a suite file in any of the three formats.

    Raises:
        SuiteError: unreadable, over 32 MiB, not JSON/YAML, over a loader bound (depth, lengths,
            numbers, a member given twice), of unknown shape, or with bad cases (one problem per
            place, at most 20; ids equal ignoring letter case included).
    """
    p = Path(path)
    file = str(path)
    data = _read(p, file)
    text = decode_utf8(data, "text", lambda m: SuiteError.at(file, "", m))
    doc = parse_suite_text(text, file, is_yaml=p.suffix.lower() in (".yaml", ".yml"))
    if not isinstance(doc, dict):
        found = "nothing (or null)" if doc is None else json_kind(doc)  # YAML: an empty file
        raise SuiteError.at(file, "", f"{_SHAPES}; found {found}")
    c = Collector(file)
    fmt = _format(doc, file)
    top = _top(c, doc, fmt)
    cases = _cases(c, doc, fmt)
    more = _tail(c, doc) if fmt == "driftproof" else {}
    _unique_ids(c, cases)
    c.raise_if_any()
    name = top.pop("name") or p.stem
    digest = hashlib.sha256(data).hexdigest()
    return Suite(name, file, digest, fmt, tuple(cases), **top, **more)


def _read(p: Path, file: str) -> bytes:
    """The suite file's bytes. Raises :class:`SuiteError` when unreadable or over 32 MiB."""
    try:
        size = p.stat().st_size
        if size > SUITE_MAX_BYTES:
            raise SuiteError.at(file, "", f"expected at most {SUITE_MAX_BYTES} bytes, got {size}")
        data = read_capped(p, SUITE_MAX_BYTES)
    except OSError as exc:
        why = f"cannot read the suite file ({exc.strerror or exc})"
        raise SuiteError.at(file, "", why) from exc
    if len(data) > SUITE_MAX_BYTES:  # a device reports no size
        raise SuiteError.at(file, "", f"expected at most {SUITE_MAX_BYTES} bytes")
    return data


def _format(doc: dict[str, Any], file: str) -> str:
    """``driftproof``, ``skill-creator`` or ``caveman-fidelity``; :class:`SuiteError` for none."""
    if doc.get("format") == FORMAT:
        return "driftproof"
    if "schema_version" in doc and "verification_level" in doc:
        raise SuiteError.at(file, "", f"expected a suite ({FORMAT}), found a Driftproof receipt")
    if "format" in doc:
        raise SuiteError.at(file, "/format", f'expected "{FORMAT}"')
    if "cases" in doc and not _looks_like_caveman(doc["cases"]):
        raise SuiteError.at(
            file,
            "/format",
            f'missing: a Driftproof suite starts with "format": "{FORMAT}" '
            '(without it, a file of "cases" is read as caveman\'s fidelity.json, whose cases '
            "carry checks {must_include, must_not_include} and no rubric)",
        )
    if "evals" in doc:
        return "skill-creator"
    if "cases" in doc:
        return "caveman-fidelity"
    raise SuiteError.at(file, "", _SHAPES)


#: The suite shapes ``load_suite`` reads, as a file of another shape is told.
_SHAPES = (
    f'expected a suite: {{"format": "{FORMAT}", "cases": [...]}}, '
    'a skill-creator evals.json {"evals": [...]}, '
    'or caveman fidelity.json {"cases": [...]}'
)


def _unique_ids(c: Collector, cases: list[SuiteCase]) -> None:
    """A problem for each case id equal to an earlier one ignoring case (page names collide)."""
    seen: dict[str, tuple[str, str]] = {}
    for case in cases:
        key = case.id.casefold()
        if key in seen:
            other, at = seen[key]
            same = "" if other == case.id else f" as {other!r} (ids differ in letter case only)"
            c.add(
                f"{case.pointer}/id",
                f"expected a unique case id; {case.id!r} is also at {at}{same}",
            )
        seen.setdefault(key, (case.id, case.pointer))


def _looks_like_caveman(cases: Any) -> bool:
    """Whether a format-less ``cases`` list is caveman's (no rubric, checks as objects)."""
    if not isinstance(cases, list):
        return True  # let the caveman reader name the problem
    for raw in cases:
        if not isinstance(raw, dict):
            continue
        if "rubric" in raw or "criteria" in raw or not isinstance(raw.get("checks"), dict):
            return False
    return True


_SKILL_CREATOR_IMPORT = (
    ", or import the runs skill-creator graded (grading.json) with driftproof import skill-creator"
)
#: Why ``run`` refuses caveman fidelity cases, after the words saying they have no rubric or
#: criteria; ``{cases}``: "case" or "cases", ``{path}``: the fidelity file.
CAVEMAN_UNGRADED = (
    "(caveman's fidelity.json carries checks only), and driftproof run grades every answer "
    f'against one: write the {{cases}} into a Driftproof suite ("format": "{FORMAT}") with a '
    "rubric or criteria, or score a caveman snapshot against these checks with driftproof "
    "import caveman SNAPSHOT --skills DIR --cases {path}"
)
#: Why ``run`` refuses a case with neither a rubric nor criteria, and what to do, by format.
_UNGRADED = {
    "driftproof": "has neither a rubric nor criteria; driftproof run grades every answer against "
    "one and refuses the case before any call",
    "skill-creator": "has no expectations (or assertions), so no criteria, and driftproof run "
    'grades every answer against them: add an "expectations" list of what the answer must '
    "do (each becomes a criterion)" + _SKILL_CREATOR_IMPORT,
    "caveman-fidelity": "has neither a rubric nor criteria "
    + CAVEMAN_UNGRADED.format(cases="case", path="{}"),
}


def require_gradable(suite: Suite) -> None:
    """Refuse, before any call, every case ``run`` cannot grade.

    Raises:
        SuiteError: one problem per case with neither a rubric nor criteria, or with a refusal.
    """
    c = Collector(suite.path)
    for case in suite.cases:
        if case.refusal:
            ptr, _, msg = case.refusal.partition(": ")
            c.add(ptr, msg)
        elif case.rubric is None and not case.criteria:
            c.add(case.pointer, f"case {case.id!r} " + _UNGRADED[suite.format].format(suite.path))
    c.raise_if_any()
