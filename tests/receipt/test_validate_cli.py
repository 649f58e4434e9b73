"""``driftproof validate``: schema, seal and level, one line per problem, exit 1 on failure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from receipt_docs import seal_document

from driftproof.cli.validate import validate

FIXTURES = Path(__file__).parent / "fixtures"


def _run(*paths: Path) -> tuple[int, list[str]]:
    result = CliRunner().invoke(validate, [str(p) for p in paths])
    return result.exit_code, result.stdout.splitlines()


def test_valid_receipts_of_every_version_pass() -> None:
    paths = sorted(FIXTURES.glob("*/valid-basic.json"))
    code, lines = _run(*paths)
    assert code == 0
    assert len(lines) == len(paths) == 7
    for p, line in zip(paths, lines, strict=True):
        assert line.startswith(f"{p}: ok: schema {p.parent.name}")
        assert line.endswith("level TESTED; can carry a verdict")
    assert "(read into 0.16: what it did not record is unknown)" in lines[-1]  # 0.3.1 sorts last


def test_one_line_per_problem_and_exit_1() -> None:
    bad = FIXTURES / "0.14" / "invalid-bad-capture.json"
    good = FIXTURES / "0.14" / "valid-basic.json"
    code, lines = _run(bad, good)
    assert code == 1
    assert (
        lines[0] == f'{bad}: /run/capture: expected one of "text", "files", '
        'found a string "pdf" (schema 0.14)'
    )
    assert lines[1].startswith(f"{good}: ok")
    assert len(lines) == 2


def test_changed_byte_fails_on_the_seal(tmp_path: Path) -> None:
    raw = (FIXTURES / "0.13" / "valid-basic.json").read_text()
    p = tmp_path / "r.json"
    p.write_text(
        raw.replace(
            '"Write the commit message for commit-1."',
            '"Write the commit message for commit-2."',
            1,
        )
    )
    code, lines = _run(p)
    assert code == 1
    assert len(lines) == 1 and lines[0].startswith(f"{p}: /seal/sha256: seal mismatch")


def test_formal_is_refused() -> None:
    p = FIXTURES / "0.14" / "invalid-formal-level.json"
    code, lines = _run(p)
    assert code == 1 and lines == [
        f"{p}: /verification_level: expected UNVERIFIED, DECLARED or TESTED; "
        "FORMAL is reserved and no receipt can claim it yet"
    ]


def test_a_receipt_naming_a_preset_reads_as_a_smoke_run_below_tested() -> None:
    p = FIXTURES / "0.11" / "valid-smoke.json"
    code, lines = _run(p)
    assert code == 0
    # found: "names preset quick", the receipt's field, where readers know the option
    assert lines[0].endswith(
        "level UNVERIFIED; a smoke run (run --quick), read as below TESTED whatever its level "
        "(Smoke run, no verdict)"
    )


def test_a_smoke_receipt_restamped_tested_and_resealed_is_refused(tmp_path: Path) -> None:
    doc = json.loads((FIXTURES / "0.14" / "valid-smoke.json").read_text())
    doc["verification_level"] = "TESTED"
    p = tmp_path / "restamped.json"
    p.write_text(json.dumps(seal_document(doc)))
    code, lines = _run(p)
    assert code == 1
    assert lines == [
        f"{p}: /verification_level: a receipt that names a preset cannot read TESTED (v0.11); "
        'found a string "TESTED" (schema 0.14)'
    ]


def test_below_tested_and_aggregates_only_are_named() -> None:
    code, lines = _run(FIXTURES / "0.13" / "valid-aggregates-only.json")
    assert code == 0 and lines[0].endswith(
        "level DECLARED; aggregates only: no band, no lift, no verdict"
    )


def test_missing_file_is_one_line() -> None:
    code, lines = _run(Path("no/such/receipt.json"))
    assert code == 2 and lines == ["no/such/receipt.json: cannot read: No such file or directory"]


def test_a_problem_with_the_whole_file_names_the_file_alone(tmp_path: Path) -> None:
    bad = tmp_path / "list.json"
    bad.write_text("[]")
    code, lines = _run(bad)
    assert code == 1 and lines == [f"{bad}: expected a JSON object, found an array"]


@pytest.mark.parametrize(
    ("name", "text", "said"),
    [
        # another tool's file given where a receipt belongs: the whole file is not a receipt
        (
            "results.json",
            '{"results": []}',
            "not a Driftproof receipt: it names no schema version "
            "(one of 0.3.1, 0.10, 0.11, 0.13, 0.14, 0.15, 0.16)",
        ),
        # a newcomer's `view suite.json` read "names no schema version", not what the file is
        (
            "suite.json",
            '{"format": "driftproof-suite/1", "cases": []}',
            '/format: expected a Driftproof receipt, found a suite ("driftproof-suite/1"): '
            "driftproof suite check reads it, and driftproof run measures it",
        ),
    ],
)
def test_a_json_object_that_is_no_receipt_is_named_so(
    tmp_path: Path, name: str, text: str, said: str
) -> None:
    f = tmp_path / name
    f.write_text(text)
    code, lines = _run(f)
    assert code == 1 and lines == [f"{f}: {said}"]


def test_declared_receipt_is_named_below_tested(tmp_path: Path) -> None:
    doc = json.loads((FIXTURES / "0.14" / "valid-basic.json").read_text())
    doc["verification_level"] = "DECLARED"
    p = tmp_path / "declared.json"
    p.write_text(json.dumps(seal_document(doc)))
    code, lines = _run(p)
    # in view's words: validate said "below TESTED: no verdict" where view said this
    assert code == 0 and lines[0].endswith(
        "level DECLARED; no verdict: verification level DECLARED is below TESTED"
    )
