r"""Suites: the test tasks a skill is measured on, read from three formats.

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
from pathlib import Path
from typing import Any

from driftproof._json import decode_utf8
from driftproof.errors import SuiteError
from driftproof.run.foreign_suites import caveman_cases, skill_creator_cases
from driftproof.run.suite_fields import (
    CASE_ID,
    CRITERIA_MAX,
    FORMAT,
    PROMPT_MAX_CHARS,
    RUBRIC_MAX_CHARS,
    SUITE_MAX_BYTES,
    CheckSpec,
    Collector,
    Criterion,
    Suite,
    SuiteCase,
    case_objects,
    read_case_id,
    read_checks,
    read_criteria,
    read_examples,
    read_text,
    read_threshold,
)
from driftproof.run.suite_lang import (
    TRANSLATED_CONTROLS,
    in_language,
    read_controls,
    read_language,
    read_translations,
)
from driftproof.run.suite_read import parse_suite_text

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


def load_suite(path: str | Path) -> Suite:
    """Read and validate a suite file in any of the three formats.

    Raises:
        SuiteError: unreadable, too large (32 MiB), not JSON/YAML, over a bound of the receipt
            loader (:mod:`.suite_read`: depth, lengths, numbers, a member name given twice),
            unknown shape, or any bad case (one problem per place, at most 20), case ids equal
            ignoring letter case included.
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
        return p.read_bytes()
    except OSError as exc:
        why = f"cannot read the suite file ({exc.strerror or exc})"
        raise SuiteError.at(file, "", why) from exc


def _format(doc: dict[str, Any], file: str) -> str:
    """Which of the three formats ``doc`` is.

    ``driftproof``, ``skill-creator`` or ``caveman-fidelity``. Raises :class:`SuiteError` for
    none of them.
    """
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
    """A problem for each case id equal to an earlier one ignoring letter case.

    Their page names would collide.
    """
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
    """Whether a format-less ``cases`` list is caveman's fidelity.json.

    No case carries a rubric or criteria, and every case's checks is an object (caveman's
    ``{must_include, must_not_include}``).
    """
    if not isinstance(cases, list):
        return True  # let the caveman reader name the problem
    for raw in cases:
        if not isinstance(raw, dict):
            continue
        if "rubric" in raw or "criteria" in raw or not isinstance(raw.get("checks"), dict):
            return False
    return True


def require_gradable(suite: Suite) -> None:
    """Refuse, before any call, every case ``run`` cannot grade (method, criteria paragraph).

    Raises:
        SuiteError: one problem per case with neither a rubric nor criteria, or with a refusal.
    """
    c = Collector(suite.path)
    for case in suite.cases:
        if case.refusal:
            ptr, _, msg = case.refusal.partition(": ")
            c.add(ptr, msg)
        elif case.rubric is None and not case.criteria:
            c.add(
                case.pointer,
                f"case {case.id!r} has neither a rubric nor criteria; "
                "driftproof run grades every answer against one "
                "and refuses the case before any call",
            )
    c.raise_if_any()
