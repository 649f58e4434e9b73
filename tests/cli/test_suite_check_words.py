"""suite check's shared line for caveman cases with no rubric, when only some of a file's cases
share it (the others refused for a reason of their own): the words say those cases have none."""

from __future__ import annotations

import json
from dataclasses import replace

from driftproof.cli.suite import _refusals
from driftproof.run.suite import load_suite


def _fidelity(tmp_path, n: int):
    cases = [
        {"id": f"c{i}", "prompt": f"Say {i}.", "checks": {"must_include": [str(i)]}}
        for i in range(n)
    ]
    f = tmp_path / "fidelity.json"
    f.write_text(json.dumps({"cases": cases}), encoding="utf-8")
    s = load_suite(f)
    assert s.format == "caveman-fidelity"
    return f, s


def test_the_cases_that_share_the_line_are_said_to_have_no_rubric(tmp_path):
    f, s = _fidelity(tmp_path, 3)
    refused = replace(s.cases[0], refusal="/cases/0: a reason of its own")
    lines, n = _refusals(replace(s, cases=(refused, *s.cases[1:])), f)
    assert n == 3
    assert lines[0].startswith(f"{f}: 2 cases (c1, c2) have no rubric or criteria (caveman's")
    refused_two = tuple(replace(c, refusal=f"/cases/{i}: its own") for i, c in enumerate(s.cases))
    lines, _ = _refusals(replace(s, cases=(*refused_two[:2], s.cases[2])), f)
    assert lines[0].startswith(f"{f}: 1 case (c2) has no rubric or criteria (caveman's")


def test_when_every_case_shares_it_the_line_says_no_case_has_one(tmp_path):
    f, s = _fidelity(tmp_path, 2)
    lines, n = _refusals(s, f)
    assert n == 2 and lines[0].startswith(f"{f}: no case has a rubric or criteria (caveman's")
