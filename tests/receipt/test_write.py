"""Writing a receipt: sealed once, checked once, streamed case by case (D-12).

The file ``write_receipt`` streams must be the very bytes of the whole receipt dumped at once
(sorted keys, two-space indentation, final newline), and its seal the sha256 of the whole
receipt's RFC 8785 canonical JSON, worked out here from the library directly.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import rfc8785
from receipt_docs import body_of

from driftproof.errors import ReceiptError
from driftproof.receipt import (
    Receipt,
    ReceiptBody,
    build_draw,
    build_judge_sample,
    build_receipt,
    read_receipt,
    write_receipt,
)


def _body(n_cases: int) -> ReceiptBody:
    def arm(base: float) -> dict[str, Any]:
        draws = [
            build_draw(i, answer=f"é answer {i}", judge_samples=[build_judge_sample(base + i / 10)])
            for i in range(3)
        ]
        return {"draws": draws, "generation": None}

    cases = [
        {
            "id": f"c{i}",
            "prompt": f"Task {i} — “quoted”",
            "prompt_sha256": None,
            "rubric_sha256": None,
            "threshold": 0.5,
            "arms": {"with_skill": arm(0.5), "baseline": arm(0.2)},
        }
        for i in range(n_cases)
    ]
    judge = {
        "model": "judge-1",
        "provider": "stub",
        "surface": "api",
        "service": None,
        "sampling": None,
        "template_sha256": None,
        "scale": {"worst": 0.0, "best": 1.0, "step": None},
        "price": None,
    }
    return build_receipt(
        level="UNVERIFIED", skill_name="s", skill_text="skill", cases=cases, judge=judge
    )


@pytest.mark.parametrize("n_cases", [0, 1, 3])
def test_the_streamed_file_is_the_whole_receipt_dumped_at_once(
    tmp_path: Path, n_cases: int
) -> None:
    body = _body(n_cases)
    whole = body.to_json_dict()
    canonical = rfc8785.dumps(whole)  # the seal leaves itself out (RFC 8785, D-12)
    seal = {"algorithm": "sha256-rfc8785", "sha256": hashlib.sha256(canonical).hexdigest()}
    expected = json.dumps({**whole, "seal": seal}, indent=2, sort_keys=True, ensure_ascii=False)
    out = tmp_path / "r.json"
    receipt = write_receipt(body, out)
    assert out.read_bytes() == (expected + "\n").encode("utf-8")
    assert receipt.seal.sha256 == seal["sha256"]
    assert read_receipt(out) == receipt


def test_a_runs_end_seals_once_and_checks_the_receipt_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from driftproof.run.engine import RunConfig, run_suite
    from driftproof.run.providers import make_provider
    from driftproof.run.suite import load_suite

    cases = [{"id": f"c{i}", "prompt": f"Task {i}", "rubric": "1.0 if done."} for i in range(4)]
    suite_path = tmp_path / "suite.json"
    suite_path.write_text(json.dumps({"format": "driftproof-suite/1", "cases": cases}))
    canonicalised: list[int] = []  # bytes of canonical JSON made, per call, at the run's end
    model_checks: list[str] = []  # whole-receipt model validations
    from driftproof.receipt import _seal

    dumps, validate = _seal._canonical, ReceiptBody.model_validate.__func__  # type: ignore[attr-defined]

    def counting_dumps(value: Any) -> bytes:
        data = dumps(value)
        canonicalised.append(len(data))
        return data

    def counting_validate(cls: type[ReceiptBody], obj: Any, **kw: Any) -> ReceiptBody:
        model_checks.append(cls.__name__)
        return validate(cls, obj, **kw)  # type: ignore[no-any-return]

    def progress(done: int, total: int, usd: float | None, phase: str = "draws") -> None:
        if phase == "sealing":  # from here on, only the receipt is built, sealed and written
            monkeypatch.setattr(_seal, "_canonical", counting_dumps)
            monkeypatch.setattr(ReceiptBody, "model_validate", classmethod(counting_validate))
            monkeypatch.setattr(Receipt, "model_validate", classmethod(counting_validate))

    res = run_suite(
        load_suite(suite_path),
        skill_text="---\nname: s\n---\nDo it.\n",
        skill_name="s",
        cfg=RunConfig(model="sim", judge_model="sim", min_draws=3, max_draws=3, judge_samples=2),
        provider=make_provider("simulated", None),
        judge=make_provider("simulated", None),
        out=tmp_path / "r.json",
        progress=progress,
    )
    monkeypatch.undo()
    size = len(rfc8785.dumps({**res.receipt.to_json_dict(), "seal": None}))
    # The canonical JSON is made once: each member and each case once, the commas and brackets
    # between them not counted (before: twice, whole).
    assert 0.95 * size < sum(canonicalised) < 1.05 * size
    # The model checks the receipt once, where it is built (before, three times).
    assert model_checks == ["ReceiptBody"]
    assert read_receipt(tmp_path / "r.json") == res.receipt


def test_a_case_its_schema_refuses_is_named_and_nothing_is_written(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    out.write_bytes(b"previous")
    body = _body(2)
    broken = body.cases[1].model_copy(update={"id": "c1\n"})  # $ does not match before "\n"
    with pytest.raises(ReceiptError) as info:
        write_receipt(body.model_copy(update={"cases": [body.cases[0], broken]}), out)
    assert info.value.problems[0].pointer == "/cases/1/id"
    assert info.value.problems[0].file == str(out)
    assert out.read_bytes() == b"previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_a_file_that_appears_is_not_replaced_without_replace(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    out.write_bytes(b"theirs")
    with pytest.raises(FileExistsError):
        write_receipt(_body(1), out, replace=False)
    assert out.read_bytes() == b"theirs"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_a_lone_surrogate_in_memory_is_a_receipt_error_at_its_pointer(tmp_path: Path) -> None:
    from factories import case, make_receipt

    body = body_of(make_receipt([case("c1", [0.5, 0.6], [0.4, 0.3])]))
    held = body.cases[0].model_copy(update={"id": "c\ud800"})  # no UTF-8 can carry it
    body = body.model_copy(update={"cases": [held]})  # model_copy checks nothing
    out = tmp_path / "r.json"
    with pytest.raises(ReceiptError) as info:
        write_receipt(body, out)
    assert info.value.problems[0].pointer == "/cases/0/id"
    assert str(out) in str(info.value) and not out.exists()


def test_a_receipt_is_as_readable_as_any_file_the_user_writes(tmp_path: Path) -> None:
    import os

    from factories import case, make_receipt

    doc = make_receipt([case("c1", [0.5, 0.6], [0.4, 0.3])])
    doc.pop("seal")
    out = tmp_path / "r.json"
    old = os.umask(0o022)
    try:
        write_receipt(body_of(doc), out)
    finally:
        os.umask(old)
    assert out.stat().st_mode & 0o777 == 0o644  # 0666 less the umask 022, as open() gives


def test_a_receipt_no_reader_would_read_is_refused_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from driftproof.receipt import _bounds

    out = tmp_path / "r.json"
    monkeypatch.setattr(_bounds, "RECEIPT_MAX_ITEMS", 2)  # 3 cases: one more than a reader reads
    with pytest.raises(ReceiptError) as info:
        write_receipt(_body(3), out)
    assert str(info.value) == f"{out}: /cases: expected at most 2 items, found 3"
    monkeypatch.undo()
    write_receipt(_body(1), out)
    size = out.stat().st_size
    out.unlink()
    monkeypatch.setattr(_bounds, "RECEIPT_MAX_BYTES", size - 1)  # one byte short of the file
    with pytest.raises(ReceiptError) as info:
        write_receipt(_body(1), out)
    assert str(info.value) == f"{out}: expected at most {size - 1} bytes, found {size}"
    assert list(tmp_path.iterdir()) == []
