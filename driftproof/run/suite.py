"""Suites: the test cases a skill is measured on, in three formats.

A Driftproof suite (JSON or YAML, ``format: driftproof-suite/1``; see the README) has cases of
an id, a prompt, a ``rubric`` or ``criteria`` (never both), optional checks, examples and
``translations``, and optional ``language`` and ``controls`` for ``--lang``; skill-creator's
``evals/evals.json`` and caveman's ``prompts/fidelity.json`` are read too. Every error is a
:class:`~driftproof.errors.SuiteError` with one problem per bad place (file, JSON pointer,
expectation), raised before any model call.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from driftproof._json import decode_utf8, escape, read_capped
from driftproof.errors import SuiteError
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
    read_case_id,
    read_checks,
    read_criteria,
    read_examples,
    read_text,
    read_threshold,
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


def read_language(c: Collector, v: Any, ptr: str) -> str | None:
    """The suite's ``language`` at ``ptr``, or ``None``; problems go to ``c``."""
    if v is None:
        return None
    if not isinstance(v, str) or len(v) > 35 or not LANGUAGE.match(v):
        c.add(ptr, "expected a language tag such as en, pt or pt-BR")
        return None
    return v


def read_translations(c: Collector, raw: Any, ptr: str) -> dict[str, str]:
    """A case's ``translations`` at ``ptr``: language to prompt; problems go to ``c``."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        c.add(ptr, "expected an object {language: prompt}")
        return {}
    out = {}
    for lang in raw:
        if read_language(c, lang, f"{ptr}/{lang}") is None:
            continue
        t = read_text(c, raw, lang, ptr, max_chars=PROMPT_MAX_CHARS)
        if t is not None:
            out[lang] = t
    return out


def read_controls(c: Collector, raw: Any) -> dict[str, dict[str, str]]:
    """The suite's ``controls`` table: control text to its translations; problems go to ``c``."""
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
        out[text] = read_translations(c, table, p)
    return out


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
    if not LANGUAGE.match(lang) or len(lang) > 35:
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


#: The members a case of a Driftproof suite may have.
_CASE_KEYS = frozenset("id prompt rubric criteria threshold checks examples translations".split())


def _native(c: Collector, doc: dict) -> tuple[str | None, list[SuiteCase]]:
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
    for p, raw in case_objects(c, doc.get("cases"), "/cases", "expected a case object"):
        for k in sorted(set(raw) - _CASE_KEYS):
            c.add(f"{p}/{k}", "unexpected key in a case")
        cid = read_case_id(c, raw.get("id"), f"{p}/id")
        prompt = read_text(c, raw, "prompt", p, max_chars=PROMPT_MAX_CHARS)
        rubric = read_text(c, raw, "rubric", p, max_chars=RUBRIC_MAX_CHARS, required=False)
        criteria = read_criteria(c, raw["criteria"], f"{p}/criteria") if "criteria" in raw else None
        if "rubric" in raw and "criteria" in raw:
            c.add(p, 'expected either "rubric" or "criteria", not both')
        thr = read_threshold(c, raw.get("threshold"), f"{p}/threshold")
        checks = read_checks(c, raw.get("checks"), f"{p}/checks")
        ex_pass, ex_fail = read_examples(c, raw.get("examples"), f"{p}/examples")
        tr = read_translations(c, raw.get("translations"), f"{p}/translations")
        if cid and prompt:
            cases.append(
                SuiteCase(cid, prompt, rubric, criteria, thr, checks, ex_pass, ex_fail, p, None, tr)
            )
    return name, cases


_EVAL = "expected an eval object {id, prompt, expected_output, files, expectations}"
_CAVEMAN_KINDS = ("must_include", "must_not_include")
_CAVEMAN_CASE = "expected a case object {id, category, prompt, checks, examples}"


def skill_creator_cases(c: Collector, doc: dict) -> tuple[str | None, list[SuiteCase]]:
    """The skill name and cases of a skill-creator ``evals.json``; problems go to ``c``.

    Each expectation and assertion becomes a criterion of weight 1 (ids ``a1``, ``a2`` ...);
    ``expected_output`` is unused; a case with input ``files`` is refused by ``run``.
    """
    name = doc.get("skill_name") if isinstance(doc.get("skill_name"), str) else None
    cases = []
    for p, raw in case_objects(c, doc.get("evals"), "/evals", _EVAL):
        cid = read_case_id(c, raw.get("id"), f"{p}/id")
        prompt = read_text(c, raw, "prompt", p, max_chars=PROMPT_MAX_CHARS)
        # skill-creator's schemas.md says expectations, its SKILL.md and agentskills.io say
        # assertions: a file giving both means both, never one dropped
        exp: list[str] = []
        bad = False
        for key in ("expectations", "assertions"):
            items = raw.get(key)
            if items is None:
                continue
            if not isinstance(items, list) or not all(isinstance(e, str) for e in items):
                c.add(f"{p}/{key}", "expected a list of strings")
                bad = True
            else:
                exp += items
        criteria = None
        if exp and not bad:
            where = f"{p}/expectations" if raw.get("expectations") else f"{p}/assertions"
            criteria = read_criteria(
                c,
                [{"id": f"a{j + 1}", "weight": 1, "description": e} for j, e in enumerate(exp)],
                where,
            )
        files = raw.get("files") or []
        refusal = None
        if not isinstance(files, list):
            c.add(f"{p}/files", "expected a list of file paths")
        elif files:
            refusal = (
                f"{p}/files: this case needs input files ({len(files)}), which driftproof run "
                f"cannot hand to the model; remove the case or its files{_SKILL_CREATOR_IMPORT}"
            )
        if cid and prompt:
            cases.append(SuiteCase(cid, prompt, None, criteria, None, (), (), (), p, refusal))
    return name, cases


def caveman_cases(c: Collector, doc: dict) -> list[SuiteCase]:
    """The cases of a caveman ``fidelity.json``; problems go to ``c``.

    Each ``must_include`` / ``must_not_include`` pattern becomes a case-insensitive check.
    """
    cases = []
    for p, raw in case_objects(c, doc.get("cases"), "/cases", _CAVEMAN_CASE):
        cid = read_case_id(c, raw.get("id"), f"{p}/id")
        prompt = read_text(c, raw, "prompt", p, max_chars=PROMPT_MAX_CHARS)
        checks = []
        raw_checks = raw.get("checks")
        if not isinstance(raw_checks, dict) or set(raw_checks) - set(_CAVEMAN_KINDS):
            c.add(
                f"{p}/checks",
                'expected an object with "must_include" and/or "must_not_include" lists',
            )
        else:
            for kind in _CAVEMAN_KINDS:
                pats = raw_checks.get(kind, [])
                if not isinstance(pats, list):
                    c.add(f"{p}/checks/{kind}", "expected a list of regular expressions")
                    continue
                for j, pat in enumerate(pats):
                    if compile_pattern(c, pat, f"{p}/checks/{kind}/{j}", re.IGNORECASE) is not None:
                        name = f"{kind} #{j + 1}: {pat}"[:200]
                        checks.append(CheckSpec(name, kind, pattern=pat, ignore_case=True))
            if not checks and not c.problems:
                c.add(f"{p}/checks", "expected at least one check")
        ex_pass, ex_fail = read_examples(c, raw.get("examples"), f"{p}/examples")
        cat = raw.get("category")
        if cat is not None and (not isinstance(cat, str) or len(cat) > 200):
            c.add(f"{p}/category", "expected a category name (a string of at most 200 characters)")
            cat = None
        if cid and prompt:
            ck = tuple(checks)
            cases.append(
                SuiteCase(cid, prompt, None, None, None, ck, ex_pass, ex_fail, p, category=cat)
            )
    return cases


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
        raise SuiteError.at(file, "", "expected a JSON object")
    c = Collector(file)
    language, controls = None, {}
    fmt = _format(doc, file)
    if fmt == "driftproof":
        name, cases = _native(c, doc)
        language = read_language(c, doc.get("language"), "/language")
        controls = read_controls(c, doc.get("controls"))
    elif fmt == "skill-creator":
        name, cases = skill_creator_cases(c, doc)
    else:
        name, cases = None, caveman_cases(c, doc)
    _unique_ids(c, cases)
    c.raise_if_any()
    truncation = doc.get("truncation", "lost") if fmt == "driftproof" else "lost"
    digest = hashlib.sha256(data).hexdigest()
    return Suite(name or p.stem, file, digest, fmt, tuple(cases), truncation, language, controls)


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
    raise SuiteError.at(
        file,
        "",
        f'expected a suite: {{"format": "{FORMAT}", "cases": [...]}}, '
        'a skill-creator evals.json {"evals": [...]}, '
        'or caveman fidelity.json {"cases": [...]}',
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
#: Why ``run`` refuses a case with neither a rubric nor criteria, and what to do, by format.
_UNGRADED = {
    "driftproof": "has neither a rubric nor criteria; driftproof run grades every answer against "
    "one and refuses the case before any call",
    "skill-creator": "has no expectations (or assertions), so no criteria, and driftproof run "
    'grades every answer against them: add an "expectations" list of what the answer must '
    "do (each becomes a criterion)" + _SKILL_CREATOR_IMPORT,
    "caveman-fidelity": "has neither a rubric nor criteria (caveman's fidelity.json carries "
    "checks only), and driftproof run grades every answer against one: write the case into a "
    f'Driftproof suite ("format": "{FORMAT}") with a rubric or criteria, or score a caveman '
    "snapshot against these checks with driftproof import caveman SNAPSHOT --skills DIR --cases {}",
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
