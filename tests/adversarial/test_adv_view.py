"""Adversarial: ``driftproof view`` on receipts of every frozen version and on hostile text.

Each test is a reproduction of a problem found by feeding the CLI inputs a user meets.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from factories import case, make_receipt
from factories import run_main as run
from receipt_docs import seal_document

from driftproof.receipt import sha256_text

FIXTURES = Path(__file__).resolve().parents[1] / "receipt" / "fixtures"
HOSTILE = "<script>alert(1)</script>"


@pytest.mark.parametrize("version", ["0.10", "0.11", "0.13"])
@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_view_pre_014_receipt_with_grading_cost(
    version: str, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found: `driftproof view tests/receipt/fixtures/0.10/valid-basic.json` died with
    # "TypeError: unsupported format string passed to NoneType.__format__": a receipt before
    # 0.14 does not record draws without usage (None, D-13) and the sheet formatted it as a number.
    path = FIXTURES / version / "valid-basic.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["economics"]["judge_overhead"] is not None  # the fixture exercises the grading cost
    code, out, err = run(["view", str(path), "--format", fmt], capsys)
    assert code == 0, err
    assert "Traceback" not in err
    # The count that was recorded is shown; the one that was not reads "not recorded", never 0.
    counted = f"{len(doc['cases']):,} counted"
    assert counted in out
    assert "draws with no token counts from the judge not recorded" in out
    assert "0 with no token counts" not in out


def _hostile_receipt(tmp_path: Path) -> Path:
    doc = make_receipt(
        [
            case("c1", [0.9, 0.95, 0.92], [0.3, 0.35, 0.32]),
            case("c2", [0.8, 0.85, 0.82], [0.5, 0.52, 0.55]),
        ]
    )
    doc["skill"]["name"] = "evil" + HOSTILE + "|\n# heading [x](javascript:alert(1))"
    doc["run"]["model"] = "m" + HOSTILE
    for c in doc["cases"]:
        c["prompt"] = HOSTILE
        for a in c["arms"].values():
            for d in a["draws"]:
                d["answer"] = HOSTILE + "\n<img src=x onerror=alert(2)>"
                d["answer_sha256"] = sha256_text(d["answer"])
    path = tmp_path / "hostile receipt.json"
    path.write_text(json.dumps(seal_document(doc)), encoding="utf-8")
    return path


def test_view_markdown_escapes_untrusted_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _hostile_receipt(tmp_path)
    code, out, err = run(["view", str(path), "--format", "markdown"], capsys)
    assert code == 0, err
    assert "<script>" not in out and "<img" not in out
    assert "\\<script\\>" in out
    # the skill name's newline does not start a heading of its own
    assert not any(line.startswith("# heading") for line in out.splitlines())


def test_view_markdown_file_name_cannot_start_a_block(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found: the file name went into the Markdown as it was; a name holding a line break and "#"
    # started a heading of its own (the code span does not protect across block structure).
    path = tmp_path / "r\n# injected `x`.json"
    path.write_text(
        json.dumps(make_receipt([case("c1", [0.9, 0.95, 0.92], [0.3, 0.35, 0.32])])),
        encoding="utf-8",
    )
    code, out, err = run(["view", str(path), "--format", "markdown"], capsys)
    assert code == 0, err
    assert not any(line.startswith("# injected") for line in out.splitlines())
    assert "r\\x0a# injected `x`.json ``" in out  # its backticks shown, not dropped


def test_view_json_escapes_invisible_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found: `view --format json` printed a skill or model name's right-to-left override,
    # zero-width space and C1 control (\x9b, a CSI in 8-bit terminals) as they are: JSON's
    # encoder escapes only U+0000..U+001F. They are now \uXXXX escapes, the same string to JSON.
    name = "a\u202eb\u200bc\x9b2Jd\u2028e"
    doc = make_receipt([case(f"c{i}", [0.9, 0.95, 0.92], [0.3, 0.35, 0.32]) for i in (1, 2)])
    doc["skill"]["name"] = name
    doc["run"]["model"] = name
    path = tmp_path / "r.json"
    path.write_text(json.dumps(seal_document(doc)), encoding="utf-8")
    code, out, err = run(["view", str(path), "--format", "json"], capsys)
    assert code == 0, err
    for ch in "\u202e\u200b\x9b\u2028":
        assert ch not in out
    assert "a\\u202eb\\u200bc\\u009b2Jd\\u2028e" in out
    assert name in json.dumps(json.loads(out), ensure_ascii=False)


def test_export_summary_json_escapes_invisible_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found: `export summary-json` to standard output sent a skill name's right-to-left override
    # to the terminal as it was.
    doc = make_receipt([case(f"c{i}", [0.9, 0.95, 0.92], [0.3, 0.35, 0.32]) for i in (1, 2)])
    doc["skill"]["name"] = "a\u202eb\u200bc"
    path = tmp_path / "r.json"
    path.write_text(json.dumps(seal_document(doc)), encoding="utf-8")
    code, out, err = run(["export", "summary-json", str(path)], capsys)
    assert code == 0, err
    assert "\u202e" not in out and "\u200b" not in out
    assert '"a\\u202eb\\u200bc"' in out


def test_view_a_grading_cost_of_minus_zero_reads_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found: a receipt whose grading cost is -0.0 (valid JSON; the schema's minimum 0 takes it,
    # as -0.0 == 0) read "grading cost   $-0.0000" in `view`: no dollars is $0.0000.
    overhead = {"input_tokens": 0, "output_tokens": 0, "usd": -0.0}
    overhead |= {"judged_draws_counted": 0, "judged_draws_missing_usage": 0}
    doc = make_receipt([case("c1", [0.9, 0.95, 0.92], [0.3, 0.35, 0.32])], judge_overhead=overhead)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(seal_document(doc)), encoding="utf-8")
    for fmt in ("text", "markdown"):
        code, out, err = run(["view", str(path), "--format", fmt], capsys)
        assert code == 0, err
        assert "$0.0000 (a floor" in out and "-0.0000" not in out
