"""caveman's fidelity eval: ``snapshots/fidelity.json`` scored against ``prompts/fidelity.json``
(seed 004, "Fidelity": score_fidelity.py; D-13, D-15). The small fixture is built
(tests/importers/fixtures/caveman/README.md) and its tables are worked out by hand; a snapshot
built from the real 3.x case file's own examples (../shared/data/caveman/v3) is recounted with
Python's ``re``, as caveman's scorer does, apart from the product. The only public fidelity
snapshots (PR #579, ../shared/data/caveman/history) are another, LLM-judged shape, read with its
rubrics (tests/importers/test_caveman_judged.py), never scored against a regex case file."""

from __future__ import annotations

import functools
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from driftproof.cli.import_ import import_group
from driftproof.errors import ImportError_
from driftproof.importers import write_imported
from driftproof.importers.caveman import CavemanOptions, import_caveman
from driftproof.pages.sheet import sheet
from driftproof.receipt import read_receipt
from driftproof.render.sheet import sheet_json

FIX = Path(__file__).resolve().parent / "fixtures" / "caveman"
SNAP = FIX / "evals" / "snapshots" / "fidelity.json"
CASES = FIX / "evals" / "prompts" / "fidelity.json"
SKILLS = FIX / "skills"
CATEGORIES = (
    "substance-preservation",
    "exact-preservation",
    "no-caricature",
    "language-and-grammar",
    "safety-clarity",
    "artifact-boundary",
    "mode-boundaries",
)


def _fidelity(path: Path) -> dict[str, Any]:
    return json.loads(sheet_json(sheet(read_receipt(path), path=path)))["fidelity"]


def _cli(args: list[str]) -> Any:
    return CliRunner().invoke(import_group, ["caveman", *args], catch_exceptions=True)


# --- the hand-built fixture --------------------------------------------------------------------


def test_fidelity_snapshot_imports_with_cases_categories_and_checks(tmp_path: Path) -> None:
    out = tmp_path / "receipts"
    result = _cli([str(SNAP), "--skills", str(SKILLS), "--cases", str(CASES), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["caveman-fidelity-caveman.json"]
    r = read_receipt(out / "caveman-fidelity-caveman.json")
    assert r.verification_level == "DECLARED" and r.judge is None  # D-15: no verdict
    assert [(c.id, c.category) for c in r.cases] == [
        ("retry-limit", "exact-preservation"),
        ("force-push", "safety-clarity"),
        ("german-error", "language-and-grammar"),
    ]
    assert r.suite.name == "fidelity.json"
    assert r.suite.sha256 == hashlib.sha256(CASES.read_bytes()).hexdigest()
    assert r.provenance is not None
    assert not any(u.startswith("suite file") for u in r.provenance.unrecorded)
    # __terse__ on retry-limit: "Retry at least three times." has three, none of not/never/at
    # most/max, and "at least"
    control = r.cases[0].arms.control
    assert control is not None
    assert [(k.name, k.kind, k.pass_) for k in control.draws[0].checks] == [
        ("/\\b(3|three)\\b/", "must_include", True),
        ("/\\b(not|never|at most|max)\\b/", "must_include", False),
        ("/\\bat least\\b/", "must_not_include", False),
    ]
    assert all(d.score is None for c in r.cases for d in c.arms.with_skill.draws)


def test_fidelity_report_worked_by_hand(tmp_path: Path) -> None:
    (path,) = write_imported(
        import_caveman(SNAP, CavemanOptions(skills_dir=SKILLS, cases=CASES)), tmp_path / "out"
    )
    f = _fidelity(path)
    # baseline passes retry-limit only; terse passes force-push only; caveman passes
    # retry-limit and german-error (worked from the fixture's answers and patterns)
    assert f["arm_rows"] == [
        ["__baseline__", "1 / 3", "33%"],
        ["__terse__", "1 / 3", "33%"],
        ["caveman", "2 / 3", "67%"],
    ]
    assert f["category_head"] == ["Category", "n", "__baseline__", "__terse__", "caveman"]
    assert f["category_rows"] == [  # in score_fidelity.py's category order
        ["exact-preservation", "1", "1 / 1", "0 / 1", "1 / 1"],
        ["language-and-grammar", "1", "0 / 1", "0 / 1", "1 / 1"],
        ["safety-clarity", "1", "0 / 1", "1 / 1", "0 / 1"],
    ]
    assert f["failures"] == [
        "__baseline__ · force-push: missing /revert/; forbidden /--force\\b/",
        "__baseline__ · german-error: forbidden /\\bthe\\b/",
        "__terse__ · retry-limit: missing /\\b(not|never|at most|max)\\b/; "
        "forbidden /\\bat least\\b/",
        "__terse__ · german-error: missing /Datei nicht gefunden/",
        "caveman · force-push: forbidden /--force\\b/",
    ]
    assert _score_fidelity(json.loads(SNAP.read_text("utf-8")), CASES, "caveman") == (
        f["arm_rows"],
        f["category_rows"],
        f["failures"],
    )


# --- the real 3.x case file --------------------------------------------------------------------


def _score_fidelity(
    snapshot: dict[str, Any], cases_path: Path, skill: str
) -> tuple[list[list[str]], list[list[str]], list[str]]:
    """score_fidelity.py's three tables for one skill arm, written again here from its published
    code (re.search, IGNORECASE; controls first)."""
    cases = json.loads(cases_path.read_text("utf-8"))["cases"]
    by_prompt = {c["prompt"]: c for c in cases}
    arms = ["__baseline__", "__terse__", skill]

    def check(output: str, checks: dict[str, list[str]]) -> list[str]:
        return [
            f"missing /{p}/"
            for p in checks.get("must_include", [])
            if not re.search(p, output, re.I)
        ] + [
            f"forbidden /{p}/"
            for p in checks.get("must_not_include", [])
            if re.search(p, output, re.I)
        ]

    results = {
        arm: [
            (by_prompt[p], check(o, by_prompt[p]["checks"]))
            for p, o in zip(snapshot["prompts"], snapshot["arms"][arm], strict=True)
        ]
        for arm in arms
    }
    rows = []
    for arm in arms:
        passed = sum(not f for _, f in results[arm])
        rows.append([arm, f"{passed} / {len(results[arm])}", f"{passed / len(results[arm]):.0%}"])
    cats = []
    for cat in CATEGORIES:
        cells = []
        n = 0
        for arm in arms:
            got = [f for c, f in results[arm] if c["category"] == cat]
            n = len(got)
            cells.append(f"{sum(not f for f in got)} / {n}")
        if n:
            cats.append([cat, str(n), *cells])
    fails = [f"{arm} · {c['id']}: {'; '.join(f)}" for arm in arms for c, f in results[arm] if f]
    return rows, cats, fails


@pytest.fixture
def v3_cases(shared: Path) -> Path:
    return shared / "data/caveman/v3/evals/prompts/fidelity.json"


def _from_examples(cases_path: Path) -> dict[str, Any]:
    """A fidelity snapshot whose answers are the case file's own examples: the skill arm gives
    each case's first known-good answer, the baseline its first known-bad answer, the terse
    control good answers on even cases and bad ones on odd cases."""
    cases = json.loads(cases_path.read_text("utf-8"))["cases"]
    good = [c["examples"]["pass"][0] for c in cases]
    bad = [c["examples"]["fail"][0] for c in cases]
    return {
        "metadata": {
            "generated_at": "2026-10-02T15:40:02+00:00",
            "claude_cli_version": "2.1.288 (Claude Code)",
            "model": "claude-opus-5-5",
            "n_prompts": len(cases),
            "lang": "en",
            "eval_set": "fidelity",
            "terse_prefix": "Answer concisely.",
        },
        "prompts": [c["prompt"] for c in cases],
        "arms": {
            "__baseline__": bad,
            "__terse__": [
                g if i % 2 == 0 else b for i, (g, b) in enumerate(zip(good, bad, strict=True))
            ],
            "caveman": good,
        },
    }


def test_real_case_file_scored_as_score_fidelity_scores_it(v3_cases: Path, tmp_path: Path) -> None:
    doc = _from_examples(v3_cases)
    snap = tmp_path / "fidelity.json"
    snap.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    (path,) = write_imported(
        import_caveman(snap, CavemanOptions(skills_dir=SKILLS, cases=v3_cases)), tmp_path / "out"
    )
    f = _fidelity(path)
    # SOURCE.md: every examples.pass answer passes its checks, every examples.fail answer fails
    # them; 30 cases, so the terse control's 15 even cases pass
    assert f["arm_rows"] == [
        ["__baseline__", "0 / 30", "0%"],
        ["__terse__", "15 / 30", "50%"],
        ["caveman", "30 / 30", "100%"],
    ]
    # the case file's categories: 13 exact-preservation, 4 safety-clarity, 3 each of
    # substance-preservation, language-and-grammar and artifact-boundary, 2 each of
    # no-caricature and mode-boundaries
    assert [(row[0], row[1], row[4]) for row in f["category_rows"]] == [
        ("substance-preservation", "3", "3 / 3"),
        ("exact-preservation", "13", "13 / 13"),
        ("no-caricature", "2", "2 / 2"),
        ("language-and-grammar", "3", "3 / 3"),
        ("safety-clarity", "4", "4 / 4"),
        ("artifact-boundary", "3", "3 / 3"),
        ("mode-boundaries", "2", "2 / 2"),
    ]
    assert len(f["failures"]) == 30 + 15
    rows, cats, fails = _score_fidelity(doc, v3_cases, "caveman")
    assert (f["arm_rows"], f["category_rows"], f["failures"]) == (rows, cats, fails)


def test_pr579_judged_snapshots_are_not_scored_against_regex_cases(
    shared: Path, v3_cases: Path, tmp_path: Path
) -> None:
    # PR #579's fidelity.json is {metadata, fidelity: {arm: {prompt: {risk, fidelity, facts}}}}:
    # judged by a model against rubrics.json; given a regex case file (--cases) it is refused at
    # /fidelity (issue 36 reads it with --rubrics instead of refusing it at /prompts)
    for commit in ("pr579-902028f", "pr579-5c7e19a"):
        snap = shared / f"data/caveman/history/{commit}/evals/snapshots/fidelity.json"
        out = tmp_path / commit
        result = _cli(
            [str(snap), "--skills", str(SKILLS), "--cases", str(v3_cases), "--out", str(out)]
        )
        assert isinstance(result.exception, ImportError_)
        problems = [(p.file, p.pointer) for p in result.exception.problems]
        assert problems == [(str(snap), "/fidelity")]
        assert not out.exists()


# --- refusals ----------------------------------------------------------------------------------


def _write(tmp_path: Path, snap: dict[str, Any], cases: dict[str, Any]) -> tuple[Path, Path]:
    s, c = tmp_path / "fidelity.json", tmp_path / "cases.json"
    s.write_text(json.dumps(snap, ensure_ascii=False), encoding="utf-8")
    c.write_text(json.dumps(cases, ensure_ascii=False), encoding="utf-8")
    return s, c


def _fixture() -> tuple[dict[str, Any], dict[str, Any]]:
    return json.loads(SNAP.read_text("utf-8")), json.loads(CASES.read_text("utf-8"))


def _edit_prompt(snap: dict[str, Any], cases: dict[str, Any]) -> None:
    cases["cases"][1]["prompt"] += " Quickly."


REFUSED: list[tuple[str, Any, str, str, str]] = [
    (
        "a case prompt changed",
        _edit_prompt,
        "snapshot",
        "/prompts/1",
        "no case has this prompt",
    ),
    (
        "a case added",
        lambda s, c: c["cases"].append({**c["cases"][0], "id": "new", "prompt": "New?"}),
        "cases",
        "/cases/3/prompt",
        "expected this case's prompt in the snapshot",
    ),
    (
        "a prompt twice",
        lambda s, c: (
            s["prompts"].__setitem__(2, s["prompts"][0]),
            c["cases"].pop(2),
        ),
        "snapshot",
        "/prompts/2",
        "expected each case once; this prompt is also /prompts/0",
    ),
    (
        "no category",
        lambda s, c: c["cases"][2].pop("category"),
        "cases",
        "/cases/2/category",
        "expected the case's category",
    ),
    (
        "category not a string",
        lambda s, c: c["cases"][0].__setitem__("category", 5),
        "cases",
        "/cases/0/category",
        "expected a category name",
    ),
    (
        "bad regex",
        lambda s, c: c["cases"][0]["checks"]["must_include"].__setitem__(1, "(unclosed"),
        "cases",
        "/cases/0/checks/must_include/1",
        "",
    ),
    (
        "same prompt in two cases",
        lambda s, c: c["cases"][1].__setitem__("prompt", c["cases"][0]["prompt"]),
        "cases",
        "/cases/1/prompt",
        "the case at /cases/0 has it too",
    ),
    (
        "pattern too long for a check name",
        lambda s, c: c["cases"][1]["checks"]["must_not_include"].append("x" * 199),
        "cases",
        "/cases/1/checks/must_not_include/1",
        "expected a pattern of at most 198 characters",
    ),
    (
        "a length snapshot",
        lambda s, c: s["metadata"].__setitem__("eval_set", "length"),
        "snapshot",
        "/metadata/eval_set",
        'expected "fidelity" when a case file is given',
    ),
    (
        "an unknown eval set",
        lambda s, c: s["metadata"].__setitem__("eval_set", "speed"),
        "snapshot",
        "/metadata/eval_set",
        'expected "length" or "fidelity"',
    ),
]


@pytest.mark.parametrize(
    ("label", "mutate", "which", "pointer", "expected"), REFUSED, ids=[r[0] for r in REFUSED]
)
def test_refused_naming_file_and_pointer_writing_nothing(
    tmp_path: Path, label: str, mutate: Any, which: str, pointer: str, expected: str
) -> None:
    snap, cases = _fixture()
    mutate(snap, cases)
    s, c = _write(tmp_path, snap, cases)
    out = tmp_path / "receipts"
    result = _cli([str(s), "--skills", str(SKILLS), "--cases", str(c), "--out", str(out)])
    assert result.exit_code != 0
    assert isinstance(result.exception, ImportError_)
    (problem,) = result.exception.problems
    assert (problem.file, problem.pointer) == (str(s if which == "snapshot" else c), pointer)
    assert expected in problem.message
    assert not out.exists()


def test_a_fidelity_snapshot_without_its_cases_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ImportError_) as info:
        import_caveman(SNAP, CavemanOptions(skills_dir=SKILLS))
    (problem,) = info.value.problems
    assert (problem.file, problem.pointer) == (str(SNAP), "/metadata/eval_set")
    assert "expected its case file" in problem.message


def test_a_check_that_never_finishes_refuses_the_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from driftproof.importers import caveman
    from driftproof.run.checks import check_passes

    monkeypatch.setattr(caveman, "check_passes", functools.partial(check_passes, timeout=0.05))
    snap, cases = _fixture()
    # ^(a|a)*$ backtracks exponentially even in the regex library (on "aaa…!", not on the case's
    # own examples, which it leaves agreeing with their checks as a must_not_include)
    cases["cases"][0]["checks"]["must_not_include"].append("^(a|a)*$")
    snap["arms"]["caveman"][0] = "a" * 40 + "!"
    s, c = _write(tmp_path, snap, cases)
    with pytest.raises(ImportError_) as info:
        import_caveman(s, CavemanOptions(skills_dir=SKILLS, cases=c))
    (problem,) = info.value.problems
    assert (problem.file, problem.pointer) == (str(s), "/arms/caveman/0")
    assert "did not finish" in problem.message
