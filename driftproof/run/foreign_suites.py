"""Readers of the neighbouring suite formats.

skill-creator ``evals/evals.json``: each expectation and assertion becomes a criterion of
weight 1 (ids ``a1``, ``a2`` ...); ``expected_output`` is unused; a case with input ``files`` is
refused by ``run``. caveman ``prompts/fidelity.json``: each ``must_include`` /
``must_not_include`` pattern becomes a case-insensitive check.
"""

from __future__ import annotations

import re

from driftproof.run.suite_fields import (
    PROMPT_MAX_CHARS,
    CheckSpec,
    Collector,
    SuiteCase,
    case_objects,
    compile_pattern,
    read_case_id,
    read_criteria,
    read_examples,
    read_text,
)

_EVAL = "expected an eval object {id, prompt, expected_output, files, expectations}"
_CAVEMAN_KINDS = ("must_include", "must_not_include")
_CAVEMAN_CASE = "expected a case object {id, category, prompt, checks, examples}"


def skill_creator_cases(c: Collector, doc: dict) -> tuple[str | None, list[SuiteCase]]:
    """The skill name and cases of a skill-creator ``evals.json``; problems go to ``c``."""
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
                "cannot hand to the model; remove the case or its files"
            )
        if cid and prompt:
            cases.append(SuiteCase(cid, prompt, None, criteria, None, (), (), (), p, refusal))
    return name, cases


def caveman_cases(c: Collector, doc: dict) -> list[SuiteCase]:
    """The cases of a caveman ``fidelity.json``; problems go to ``c``."""
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
                        checks.append(
                            CheckSpec(
                                f"{kind} #{j + 1}: {pat}"[:200], kind, pattern=pat, ignore_case=True
                            )
                        )
            if not checks and not c.problems:
                c.add(f"{p}/checks", "expected at least one check")
        ex_pass, ex_fail = read_examples(c, raw.get("examples"), f"{p}/examples")
        category = raw.get("category")
        if category is not None and (not isinstance(category, str) or len(category) > 200):
            c.add(f"{p}/category", "expected a category name (a string of at most 200 characters)")
            category = None
        if cid and prompt:
            cases.append(
                SuiteCase(
                    cid,
                    prompt,
                    None,
                    None,
                    None,
                    tuple(checks),
                    ex_pass,
                    ex_fail,
                    p,
                    category=category,
                )
            )
    return cases
