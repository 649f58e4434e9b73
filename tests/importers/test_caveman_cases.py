"""`driftproof import caveman --cases` refuses a case file whose examples disagree with its checks.

caveman's evals README (seed 004, "Fidelity") gives ``examples.pass`` / ``examples.fail`` as
"answers the checks must accept / reject"; a file breaking that contradicts itself, so nothing is
scored against it. The refusal names the same places ``driftproof suite check`` names.

The fixture's first case (tests/importers/fixtures/caveman) has the checks ``must_include``
``\\b(3|three)\\b`` and ``\\b(not|never|at most|max)\\b`` and ``must_not_include``
``\\bat least\\b``, checked case-insensitively.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from driftproof.cli.suite import suite
from driftproof.errors import ImportError_
from driftproof.importers.caveman import CavemanOptions, import_caveman

FIX = Path(__file__).resolve().parent / "fixtures" / "caveman"
SNAP = FIX / "evals" / "snapshots" / "fidelity.json"
CASES = FIX / "evals" / "prompts" / "fidelity.json"
SKILLS = FIX / "skills"

# "Retry at least 3 times." has 3 but none of not/never/at most/max, and it has "at least":
# the second must_include and the must_not_include reject it.
_BAD_PASS = "Retry at least 3 times."
# "Retry at most 3 times." has 3 and "at most" and no "at least": every check accepts it.
_GOOD_FAIL = "Retry at most 3 times."


def _cases(pass_answer: str | None = None, fail_answer: str | None = None) -> dict[str, Any]:
    doc = json.loads(CASES.read_text("utf-8"))
    examples = doc["cases"][0]["examples"]
    if pass_answer is not None:
        examples["pass"][0] = pass_answer
    if fail_answer is not None:
        examples["fail"][0] = fail_answer
    return doc


def _refusal(tmp_path: Path, doc: dict[str, Any]) -> tuple[Path, list[tuple[str, str, str]]]:
    c = tmp_path / "cases.json"
    c.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ImportError_) as info:
        import_caveman(SNAP, CavemanOptions(skills_dir=SKILLS, cases=c))
    return c, [(p.file, p.pointer, p.message) for p in info.value.problems]


def test_a_known_good_answer_its_checks_reject_is_refused(tmp_path: Path) -> None:
    c, problems = _refusal(tmp_path, _cases(pass_answer=_BAD_PASS))
    where = (str(c), "/cases/0/examples/pass/0")
    assert [(f, p) for f, p, _ in problems] == [where, where]
    assert "'must_include #2: \\\\b(not|never|at most|max)\\\\b' rejects" in problems[0][2]
    assert "'must_not_include #1: \\\\bat least\\\\b' rejects" in problems[1][2]
    assert all("expected the case's checks to accept" in m for _, _, m in problems)


def test_a_known_bad_answer_every_check_accepts_is_refused(tmp_path: Path) -> None:
    c, problems = _refusal(tmp_path, _cases(fail_answer=_GOOD_FAIL))
    ((f, p, m),) = problems
    assert (f, p) == (str(c), "/cases/0/examples/fail/0")
    assert "every check accepts this known-bad answer" in m and "contradicts itself" in m


def test_the_refusal_names_the_places_suite_check_names(tmp_path: Path) -> None:
    c, problems = _refusal(tmp_path, _cases(pass_answer=_BAD_PASS, fail_answer=_GOOD_FAIL))
    result = CliRunner().invoke(suite, ["check", str(c)])
    assert result.exit_code == 1
    prefix = f"{c}: /cases/"
    lines = result.output.splitlines()
    checked = [line.split(": ")[1] for line in lines if line.startswith(prefix)]
    assert (
        checked
        == [p for _, p, _ in problems]
        == [
            "/cases/0/examples/pass/0",
            "/cases/0/examples/pass/0",
            "/cases/0/examples/fail/0",
        ]
    )
    assert "3 disagreements" in result.output


def test_a_case_file_whose_examples_agree_still_scores(tmp_path: Path) -> None:
    items = import_caveman(SNAP, CavemanOptions(skills_dir=SKILLS, cases=CASES))
    assert [i.filename for i in items] == ["caveman-fidelity-caveman.json"]
