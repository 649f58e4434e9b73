"""Adversarial reproductions of problems found in code the adversarial tester did not own.

Each test states the behaviour that must hold; all of them were fixed by their owners and now
guard against a return. Reproductions are kept fast (a subprocess with a short timeout or a
memory cap where the problem was a hang or an unbounded read).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from day_one_helpers import run_args
from factories import case, make_receipt
from factories import run_main as run
from receipt_docs import seal_document

from driftproof.errors import ReceiptError, SiteBuildError
from driftproof.receipt import parse_receipt, read_receipt

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "run"))
from run_helpers import SUITE  # noqa: E402


def _site_inputs(tmp_path: Path, doc: dict | None = None) -> tuple[Path, Path]:
    receipts = tmp_path / "receipts"
    receipts.mkdir()
    doc = doc or make_receipt([case("c1", [0.9, 0.8, 0.85], [0.2, 0.3, 0.25])])
    (receipts / "r.json").write_text(json.dumps(doc), encoding="utf-8")
    reports = tmp_path / "reports"
    reports.mkdir()
    return receipts, reports


# ---- site/publish.py -------------------------------------------------------------------------


def test_reports_build_never_deletes_what_is_not_a_site(tmp_path: Path) -> None:
    from driftproof.site.publish import build_site

    receipts, reports = _site_inputs(tmp_path)
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.txt").write_text("years of work", encoding="utf-8")
    with pytest.raises(SiteBuildError):
        build_site(receipts, reports, precious, config_file=ROOT / "mkdocs.yml")
    assert (precious / "thesis.txt").read_text(encoding="utf-8") == "years of work"


# ---- site CSV downloads ------------------------------------------------------------------------


def test_site_csv_cells_never_start_a_formula(tmp_path: Path) -> None:
    from driftproof.site.publish import build_site

    hostile = make_receipt([case("c1", [0.9, 0.8, 0.85], [0.2, 0.3, 0.25])])
    hostile["run"]["model"] = '=HYPERLINK("http://evil.example","x")'
    receipts, reports = _site_inputs(tmp_path, seal_document(hostile))
    (receipts / "plain.json").write_text(
        json.dumps(make_receipt([case("c1", [0.9, 0.8, 0.85], [0.2, 0.3, 0.25])])), encoding="utf-8"
    )
    (reports / "001-x.md").write_text(
        "---\nnumber: 1\nslug: x\ntitle: X\ndate: 2026-11-29\nsummary: s\nreceipts: [r, plain]\n"
        "sections:\n  - type: cross_family\n    receipts: [r, plain]\n---\n\nBody.\n",
        encoding="utf-8",
    )
    out = tmp_path / "site"
    build_site(receipts, reports, out, config_file=ROOT / "mkdocs.yml")
    cells = [
        line.split(",")[0].strip('"')
        for f in (out / "reports" / "001").glob("*.csv")
        for line in f.read_text(encoding="utf-8").splitlines()
    ]
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@")]


# ---- receipt/_load.py and schemas -------------------------------------------------------------


def test_case_id_with_a_trailing_newline_is_refused() -> None:
    doc = make_receipt(
        [
            case("c1", [0.9, 0.8, 0.85], [0.2, 0.3, 0.25]),
            case("c2", [0.9, 0.8, 0.85], [0.2, 0.3, 0.25]),
        ]
    )
    # The builders refuse such an id at build time (the model holds the schema's pattern), so
    # the file a reader meets is made by hand: the id edited in, then sealed again.
    doc["cases"][1]["id"] = "c2\n"
    doc = seal_document(doc)
    with pytest.raises(ReceiptError):
        parse_receipt(json.dumps(doc).encode("utf-8"), "r.json")


# ---- compare.py / cli/diff.py -------------------------------------------------------------------


def test_diff_with_no_case_in_common_gives_no_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = tmp_path / "a.json"
    b = tmp_path / "b.json"
    a.write_text(
        json.dumps(make_receipt([case("c1", [0.9, 0.95, 0.92], [0.3, 0.35, 0.32])])),
        encoding="utf-8",
    )
    b.write_text(
        json.dumps(make_receipt([case("x1", [0.1, 0.15, 0.12], [0.3, 0.35, 0.32])])),
        encoding="utf-8",
    )
    code, out, _ = run(["diff", str(a), str(b)], capsys)
    assert code == 5  # a readable comparison with no verdict
    assert "no separation detected" not in out


# ---- run/checks.py and run/suite.py -------------------------------------------------------------


def test_catastrophic_regex_check_does_not_hang(tmp_path: Path) -> None:
    suite = json.loads(json.dumps(SUITE))
    suite["cases"][0]["checks"] = [{"name": "r", "kind": "regex", "pattern": "^(a|a)*$"}]
    suite["cases"][0]["examples"] = {"pass": ["a" * 40 + "b"], "fail": ["b"]}
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(suite), encoding="utf-8")
    try:
        res = subprocess.run(
            [
                sys.executable,
                "-c",
                "from driftproof.cli import main; main()",
                "suite",
                "check",
                str(path),
            ],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("suite check did not return within 30 s (a check without a time limit)")
    assert res.returncode in (1, 2)


# ---- importers/_common.py, importers/summary_json.py ------------------------------------------


def test_common_json_refuses_duplicate_members() -> None:
    from driftproof.errors import ImportError_
    from driftproof.importers._common import parse_json_bytes

    with pytest.raises(ImportError_):
        parse_json_bytes(b'{"results": 1, "results": 2}', "x.json", [])


def test_summary_json_with_a_lone_surrogate_is_repaired_and_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 14: text is made valid Unicode deterministically (U+FFFD) and the substitution recorded
    good = tmp_path / "r.json"
    good.write_text(
        json.dumps(make_receipt([case("c1", [0.9, 0.8, 0.85], [0.2, 0.3, 0.25])])), encoding="utf-8"
    )
    exported = tmp_path / "summary.json"
    code, _, err = run(["export", "summary-json", str(good), "-o", str(exported)], capsys)
    assert code == 0, err
    text = exported.read_text(encoding="utf-8").replace("demo-skill", "demo\\ud800skill", 1)
    exported.write_text(text, encoding="utf-8")
    try:
        code, _, err = run(
            ["import", "summary-json", str(exported), "--out", str(tmp_path / "out")], capsys
        )
    except ValueError:
        pytest.fail("traceback: ValueError")
    assert code == 0, err
    (written,) = (tmp_path / "out").glob("*.json")
    r = read_receipt(written)
    assert r.skill.name == "demo\ufffdskill"
    assert [(t.pointer, t.replaced) for t in r.text_repairs or []] == [("/skill/name", 1)]


# ---- outputs landing on inputs (cli/export.py, cli/run.py) -------------------------------------


def test_export_never_overwrites_its_receipt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    r = tmp_path / "r.json"
    r.write_text(
        json.dumps(make_receipt([case("c1", [0.9, 0.8, 0.85], [0.2, 0.3, 0.25])])), encoding="utf-8"
    )
    before = r.read_bytes()
    code, _, _ = run(["export", "summary-json", str(r), "-o", str(r)], capsys)
    assert code == 2
    assert r.read_bytes() == before


@pytest.mark.parametrize("victim", ["suite", "skill"])
def test_run_never_overwrites_its_inputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], victim: str
) -> None:
    from run_helpers import SKILL_TEXT

    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps(SUITE), encoding="utf-8")
    skill = tmp_path / "SKILL.md"
    skill.write_text(SKILL_TEXT, encoding="utf-8")
    target = suite if victim == "suite" else skill
    before = target.read_bytes()
    code, _, _ = run(
        run_args(suite, skill, target),
        capsys,
    )
    assert code == 2
    assert target.read_bytes() == before


# ---- stats/reading.py (verdict_refusal) or the receipt schema -----------------------------------


def test_imported_receipt_restamped_tested_gets_no_verdict() -> None:
    from driftproof.stats import verdict_refusal

    doc = make_receipt([case("c1", [0.9, 0.95, 0.92], [0.3, 0.35, 0.32])])
    doc["provenance"] = {
        "tool": "skill-creator",
        "tool_version": None,
        "document": "benchmark.json",
        "document_sha256": "2" * 64,
        "unrecorded": ["judge.model"],
    }
    doc["judge"] = {
        **doc["judge"],
        "model": "unrecorded:skill-creator/grader",
    }  # the factory shares JUDGE: never mutate it
    r = parse_receipt(json.dumps(seal_document(doc)).encode("utf-8"), "restamped.json")
    assert r.verification_level == "TESTED"
    assert verdict_refusal(r) is not None


def test_a_check_that_cannot_finish_does_not_hold_during_a_run() -> None:
    from driftproof.run.checks import CheckTimeout, check_passes, run_checks
    from driftproof.run.suite_fields import CheckSpec

    # ^(a|a)*$ backtracks exponentially even in the regex library (Python re would run for hours)
    spec = CheckSpec(name="r", kind="regex", pattern="^(a|a)*$", ignore_case=False, structure=None)
    with pytest.raises(CheckTimeout):
        check_passes(spec, "a" * 40 + "b", timeout=0.05)
    assert run_checks([spec], "aaa") == [{"name": "r", "kind": "regex", "pass": True}]


# ---- importers/promptfoo.py, importers/nvidia.py: wrong types ------------------------------------

SHARED_INTEROP = ROOT.parent / "shared" / "data" / "interop"


_PF_ARMS = [
    "--arm",
    "with_skill=openai:gpt-5",
    "--arm",
    "baseline=openai:gpt-5-mini",
    "--skill-name",
    "s",
]


def _set(doc, path, value):
    for key in path[:-1]:
        doc = doc[key]
    doc[path[-1]] = value


@pytest.mark.parametrize(
    "source,path,value,argv,pointer",
    [
        # a number where promptfoo has an array of assertion results
        (
            "promptfoo/sample-export.json",
            ("results", "results", 3, "gradingResult", "componentResults"),
            -1,
            ["import", "promptfoo", "{bad}", *_PF_ARMS],
            "/results/results/3/gradingResult/componentResults",
        ),
        # a number where promptfoo has an array of prompts
        (
            "promptfoo/sample-export.json",
            ("results", "prompts"),
            1,
            ["import", "promptfoo", "{bad}", *_PF_ARMS],
            "/results/prompts",
        ),
        # a number where the NVIDIA catalogue has an array of agents
        (
            "nvidia/benchmarks.json",
            ("skills", 0, "agents"),
            5,
            ["import", "nvidia", "{bad}"],
            "/skills/0/agents",
        ),
        # an array where an Inspect log has its eval object
        (
            "inspect_ai/2025-05-12T20-28-13-04-00_popularity.json",
            ("eval",),
            [None],
            [
                "import",
                "inspect",
                "--with-skill",
                "{bad}",
                "--baseline",
                "{bad}",
                "--skill-name",
                "s",
            ],
            "/eval",
        ),
    ],
)
def test_a_wrong_type_in_a_source_is_refused_at_its_pointer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], source, path, value, argv, pointer
) -> None:
    src = SHARED_INTEROP / source
    if not src.exists():
        pytest.skip("shared data not laid beside this checkout")
    doc = json.loads(src.read_text(encoding="utf-8"))
    _set(doc, path, value)
    bad = tmp_path / src.name
    bad.write_text(json.dumps(doc), encoding="utf-8")
    try:
        code, _, err = run(
            [a.replace("{bad}", str(bad)) for a in argv] + ["--out", str(tmp_path / "o")], capsys
        )
    except (TypeError, AttributeError) as exc:
        pytest.fail(f"traceback: {type(exc).__name__}")
    assert code == 2 and pointer in err


# ---- site/sections/token_savings.py ------------------------------------------------------------


def test_token_savings_of_an_unsuitable_receipt_is_a_build_error(tmp_path: Path) -> None:
    from driftproof.site.publish import build_site

    receipts, reports = _site_inputs(tmp_path)
    (reports / "001-t.md").write_text(
        "---\nnumber: 1\nslug: t\ntitle: T\ndate: 2026-11-29\nsummary: s\nreceipts: [r]\n"
        "sections:\n  - type: token_savings\n    receipts: [r]\n---\n\nBody.\n",
        encoding="utf-8",
    )
    with pytest.raises(SiteBuildError) as info:
        build_site(receipts, reports, tmp_path / "site", config_file=ROOT / "mkdocs.yml")
    (line,) = info.value.lines()  # the line the command prints
    assert "001-t.md: /sections/0: token_savings" in line
