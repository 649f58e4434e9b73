"""`driftproof suite check` refuses a case field it cannot read with one line naming the suite
file, the field's JSON pointer, what was expected and (where it helps) what was found.

Each bound is the suite's own (run/suite_fields.py): 50 criteria, 200 checks, 50 examples per
list, a pattern of 2,000 characters.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from factories import run_main

CRIT = {"id": "x", "weight": 1, "description": "d"}
ID = "expected an id matching ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"


def _case(**kw: Any) -> dict[str, Any]:
    return {"id": "a", "prompt": "p", "rubric": "r", **kw}


def _regex(**kw: Any) -> dict[str, Any]:
    return {"name": "n", "kind": "regex", "pattern": "a", **kw}


@pytest.mark.parametrize(
    ("cases", "pointer", "words"),
    [
        # found: an id missing and one that does not match read alike, neither saying what was found
        ([{"prompt": "p", "rubric": "r"}], "/cases/0/id", f"{ID}, missing"),
        ([_case(id="Bad Id")], "/cases/0/id", f'{ID}, found "Bad Id"'),
        # escaped as JSON escapes it (ESC is \u001b, 6 characters) and cut at 80 with "…"
        ([_case(id="\x1b" + "a" * 200)], "/cases/0/id", f'{ID}, found "\\u001b{"a" * 73}…'),
        ([], "/cases", "expected a non-empty list of cases"),
        (["a"], "/cases/0", "expected a case object"),
        (
            [_case(checks=[_regex(pattern="")])],
            "/cases/0/checks/0/pattern",
            "expected a non-empty regular expression string",
        ),
        (
            [_case(checks=[_regex(pattern="a" * 2001)])],
            "/cases/0/checks/0/pattern",
            "expected at most 2000 characters, got 2001",
        ),
        (
            [_case(checks=[_regex(flags="i")])],
            "/cases/0/checks/0",
            'expected only "name", "kind", "pattern" and "ignore_case", found \'flags\'',
        ),
        (
            [_case(checks=["a"])],
            "/cases/0/checks/0",
            "expected a check object {name, kind, pattern | structure}",
        ),
        (
            [_case(checks=[_regex(name=f"n{i}") for i in range(201)])],
            "/cases/0/checks",
            "expected a list of at most 200 checks, got 201",
        ),
        (
            [_case(checks="a")],
            "/cases/0/checks",
            "expected a list of at most 200 checks, found a string",
        ),
        (
            [_case(examples=["x"])],
            "/cases/0/examples",
            'expected an object with optional "pass" and "fail" lists of strings',
        ),
        (
            [_case(examples={"pass": ["x"] * 51})],
            "/cases/0/examples/pass",
            "expected a list of at most 50 strings, got 51",
        ),
        (
            [_case(examples={"fail": {}})],
            "/cases/0/examples/fail",
            "expected a list of at most 50 strings, found an object",
        ),
        (
            [{"id": "a", "prompt": "p", "criteria": [CRIT | {"id": f"c{i}"} for i in range(51)]}],
            "/cases/0/criteria",
            "expected at most 50 criteria, got 51",
        ),
        (
            [{"id": "a", "prompt": "p", "criteria": [{"id": "x", "weight": 1}]}],
            "/cases/0/criteria/0",
            'expected an object with exactly "id", "weight" and "description"',
        ),
        (
            [{"id": "a", "prompt": "p", "criteria": [CRIT, CRIT]}],
            "/cases/0/criteria/1/id",
            "expected a unique criterion id; 'x' repeats",
        ),
    ],
)
def test_a_case_field_that_cannot_be_read_is_refused_at_its_pointer(
    tmp_path: Path, capsys: Any, cases: list[Any], pointer: str, words: str
) -> None:
    path = tmp_path / "suite.json"
    path.write_text(json.dumps({"format": "driftproof-suite/1", "cases": cases}), encoding="utf-8")
    code, out, err = run_main(["suite", "check", str(path)], capsys)
    assert code == 2 and out == "" and "Traceback" not in err
    assert err == f"error: {path}: {pointer}: {words}\n"


@pytest.mark.parametrize("blank", ["  ", "\u200b"])
def test_a_blank_suite_or_check_name_is_refused(tmp_path: Path, capsys: Any, blank: str) -> None:
    # found: a suite named "  " (or a zero-width space) ran under that name; a check named by a
    # zero-width space was taken, where one of spaces was refused
    said = json.dumps(blank)
    for doc, pointer, words in (
        ({"name": blank, "cases": [_case()]}, "/name", "expected a name of 1..200 characters"),
        (
            {"cases": [_case(checks=[_regex(name=blank)])]},
            "/cases/0/checks/0/name",
            "expected a name of at most 200 characters",
        ),
    ):
        path = tmp_path / "suite.json"
        path.write_text(json.dumps({"format": "driftproof-suite/1", **doc}), encoding="utf-8")
        code, out, err = run_main(["suite", "check", str(path)], capsys)
        assert code == 2 and out == ""
        assert err == f"error: {path}: {pointer}: {words}, not blank, found {said}\n"


@pytest.mark.parametrize("blank", [" ", "\u200b", "\u202e", "\u3164"])
def test_a_prompt_of_spaces_or_invisible_characters_is_refused(
    tmp_path: Path, capsys: Any, blank: str
) -> None:
    # found: a prompt " " was refused, one of a zero-width space, a right-to-left override or a
    # Hangul filler (all showing as nothing) was put to the model; one blank rule for both
    path = tmp_path / "suite.json"
    doc = {"format": "driftproof-suite/1", "cases": [_case(prompt=blank)]}
    path.write_text(json.dumps(doc), encoding="utf-8")
    code, out, err = run_main(["suite", "check", str(path)], capsys)
    assert (code, out) == (2, "")
    assert err == f"error: {path}: /cases/0/prompt: expected a non-empty string, not blank\n"
