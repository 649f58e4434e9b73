"""Sealing (D-12): sha256 over RFC 8785 canonical JSON without ``seal``, verified on every read."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import rfc8785
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from receipt_docs import body_of, seal_document

from driftproof.errors import ReceiptError, SealError
from driftproof.receipt import compute_seal, parse_receipt, read_receipt, write_receipt
from driftproof.receipt._seal import canonical_bytes

FIXTURES = Path(__file__).parent / "fixtures"
SAMPLES = {
    v: (FIXTURES / v / "valid-basic.json").read_bytes() for v in ("0.3.1", "0.14", "0.15", "0.16")
}


def _canonical(value: Any) -> bytes:
    return rfc8785.dumps(value)


def test_seal_is_sha256_of_rfc8785_without_the_seal_member() -> None:
    # Worked by hand: the canonical form of {"b": 1.0, "a": "é", "seal": …} is {"a":"é","b":1}.
    doc = {"b": 1.0, "a": "é", "seal": {"algorithm": "x", "sha256": "y"}}
    expected = hashlib.sha256('{"a":"é","b":1}'.encode()).hexdigest()
    assert compute_seal(doc) == expected
    assert seal_document(doc)["seal"] == {"algorithm": "sha256-rfc8785", "sha256": expected}


def test_write_then_read_round_trips_and_the_file_is_stable(tmp_path: Path) -> None:
    doc = json.loads(SAMPLES["0.16"])
    p = tmp_path / "r.json"
    write_receipt(body_of(doc), p)
    first = p.read_bytes()
    assert read_receipt(p).skill.tokens == 400
    write_receipt(body_of(json.loads(first)), p)
    assert p.read_bytes() == first


def test_writer_refuses_an_older_version(tmp_path: Path) -> None:
    older = parse_receipt(SAMPLES["0.3.1"], "old.json")  # read into the current model, migrated
    with pytest.raises(ReceiptError, match="/schema_version: expected '0.16'"):
        write_receipt(older, tmp_path / "old.json")
    assert not (tmp_path / "old.json").exists()


def test_a_changed_score_is_refused_naming_the_file_and_both_hashes() -> None:
    doc = json.loads(SAMPLES["0.16"])
    doc["cases"][0]["arms"]["with_skill"]["draws"][0]["score"] = 0.81
    doc["cases"][0]["arms"]["with_skill"]["draws"][0]["judge_samples"][0]["score"] = 0.81
    with pytest.raises(SealError) as info:
        parse_receipt(json.dumps(doc).encode(), "receipts/r.json")
    (line,) = info.value.lines()
    assert line.startswith("receipts/r.json: /seal/sha256: seal mismatch")
    assert compute_seal(doc) in line and doc["seal"]["sha256"] in line


def test_reformatting_without_changing_content_keeps_the_seal() -> None:
    # RFC 8785: key order, whitespace and 1.0 vs 1 are not content.
    doc = json.loads(SAMPLES["0.16"])
    text = json.dumps(doc, indent=None, sort_keys=False, ensure_ascii=True).replace(
        '"worst": 0.0', '"worst": 0'
    )
    assert parse_receipt(text.encode(), "r.json").judge is not None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(version=st.sampled_from(sorted(SAMPLES)), data=st.data())
def test_changing_any_byte_of_content_is_refused(version: str, data: st.DataObject) -> None:
    original = SAMPLES[version]
    pos = data.draw(st.integers(0, len(original) - 1), label="position")
    new = data.draw(st.integers(0, 255).filter(lambda b: b != original[pos]), label="byte")
    mutated = original[:pos] + bytes([new]) + original[pos + 1 :]
    try:
        same = _canonical(json.loads(mutated)) == _canonical(json.loads(original))
    except (ValueError, TypeError, rfc8785.CanonicalizationError):
        same = False
    if same:  # whitespace swapped for whitespace, or an equivalent escape: content unchanged
        assert parse_receipt(mutated, "r.json").schema_version == version
    else:
        with pytest.raises(ReceiptError):
            parse_receipt(mutated, "r.json")


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, dict):
        return [x for k, v in value.items() if k != "seal" or path for x in _leaves(v, (*path, k))]
    if isinstance(value, list):
        return [x for i, v in enumerate(value) for x in _leaves(v, (*path, i))]
    return [(path, value)]


def _replacement(value: Any) -> st.SearchStrategy[Any]:
    if isinstance(value, bool):
        return st.just(not value)
    if isinstance(value, str):
        return st.text(max_size=20).filter(lambda s: s != value)
    if isinstance(value, (int, float)):
        return st.floats(0, 1, allow_nan=False).filter(lambda x: x != value)
    return st.sampled_from(["x", 0, False])


@settings(max_examples=150, deadline=None)
@given(version=st.sampled_from(sorted(SAMPLES)), data=st.data())
def test_changing_any_value_is_refused_by_the_seal_when_the_schema_allows_it(
    version: str, data: st.DataObject
) -> None:
    doc = json.loads(SAMPLES[version])
    leaves = [lf for lf in _leaves(doc) if lf[0] != ("schema_version",)]
    path, old = data.draw(st.sampled_from(leaves), label="leaf")
    new = data.draw(_replacement(old), label="new value")
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new
    with pytest.raises(ReceiptError) as info:
        parse_receipt(json.dumps(doc).encode(), "r.json")
    resealed = seal_document(copy.deepcopy(doc))
    try:
        parse_receipt(json.dumps(resealed).encode(), "r.json")
    except ReceiptError:
        return  # the schema (or a rule) refuses this value on its own
    assert isinstance(info.value, SealError), info.value.lines()


def test_the_site_build_refuses_a_changed_receipt(tmp_path: Path) -> None:
    from driftproof.errors import SiteBuildError
    from driftproof.site import build_site

    (tmp_path / "receipts").mkdir()
    (tmp_path / "reports").mkdir()
    raw = SAMPLES["0.16"].decode().replace('"answer 1"', '"answer 1!"', 1)
    (tmp_path / "receipts" / "r.json").write_text(raw)
    mkdocs = Path(__file__).resolve().parents[2] / "mkdocs.yml"
    with pytest.raises(SiteBuildError) as info:
        build_site(
            tmp_path / "receipts", tmp_path / "reports", tmp_path / "site", config_file=mkdocs
        )
    assert not (tmp_path / "site").exists()
    assert any(
        ln.startswith(f"{tmp_path / 'receipts' / 'r.json'}: /seal/sha256: seal mismatch")
        for ln in info.value.lines()
    )


# The C encoder's path (receipt/_seal.py) against the library's bytes: every value alike.
_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**60), 2**60)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([1.0, -0.0, 0.0, 1e16, 1e21, 1e-5, 1e-7, 123456789012345.0, 2.0**53])
    | st.text()
    | st.sampled_from(['1.0,"', '\\"x\\":1.0}', "\\", '"', "\U0001f600", "\ue000", "e-5"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=3) | st.sampled_from(["\U0001f600", "\ue000"]), inner)
    ),
    max_leaves=12,
)


@settings(max_examples=1500, deadline=None)
@given(value=_JSON)
def test_the_seal_bytes_are_the_rfc8785_librarys_for_every_json_value(value: Any) -> None:
    try:
        expected: bytes | None = rfc8785.dumps({"v": value})
    except rfc8785.CanonicalizationError:
        expected = None
    if expected is None:
        with pytest.raises(ValueError):
            canonical_bytes({"v": value})
    else:
        assert canonical_bytes({"v": value}) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [  # worked by hand from RFC 8785 section 3.2.2.3 and ECMA-262 Number::toString
        ({"a": 1.0, "b": [-0.0, 2.5, 10.0]}, b'{"a":1,"b":[0,2.5,10]}'),
        ({"s": '1.0,"x":2.0}'}, b'{"s":"1.0,\\"x\\":2.0}"}'),
        ({"s": "\\", "t": 3.0}, b'{"s":"\\\\","t":3}'),
        ({"x": 1e16, "y": 1e-5}, b'{"x":10000000000000000,"y":0.00001}'),
        ({"\U0001f600": 1, "\ue000": 2}, '{"\U0001f600":1,"\ue000":2}'.encode()),
    ],
)
def test_canonical_bytes_by_hand(value: dict[str, Any], expected: bytes) -> None:
    assert canonical_bytes(value) == expected


def test_canonical_bytes_refuses_what_rfc8785_cannot_hold() -> None:
    for value in ({"n": 2**53}, {"s": "\ud800"}, {"f": float("nan")}):
        with pytest.raises(ValueError):
            canonical_bytes(value)


@pytest.mark.parametrize(
    ("seal", "extra", "pointer", "words"),
    [
        (
            "abc",
            {},
            "/seal",
            "expected a seal object with a sha256 member; the receipt is unsealed",
        ),
        (
            {"algorithm": "sha256-rfc8785"},  # an object, but no hash to compare with
            {},
            "/seal",
            "expected a seal object with a sha256 member; the receipt is unsealed",
        ),
        (
            {"algorithm": "sha256-rfc8785", "sha256": 0},
            {},
            "/seal",
            "expected a seal object with a sha256 member; the receipt is unsealed",
        ),
        (
            {"algorithm": "sha1", "sha256": "0" * 64},
            {},
            "/seal/algorithm",
            "expected 'sha256-rfc8785', found 'sha1'",
        ),
        # 2**60 is past 2**53 - 1, the largest integer RFC 8785 writes exactly
        (None, {"extra": 2**60}, "", "expected content RFC 8785 can canonicalise: "),
    ],
)
def test_a_seal_that_cannot_be_checked_is_refused_at_its_pointer(
    seal: Any, extra: dict[str, Any], pointer: str, words: str
) -> None:
    from driftproof.receipt._seal import SEAL_ALGORITHM, verify_seal

    doc = {**json.loads(SAMPLES["0.16"]), **extra}
    doc["seal"] = seal if seal is not None else {"algorithm": SEAL_ALGORITHM, "sha256": "0" * 64}
    with pytest.raises(SealError) as caught:
        verify_seal(doc, "r.json")
    (problem,) = caught.value.problems
    assert (problem.file, problem.pointer) == ("r.json", pointer)
    assert problem.message.startswith(words)


def test_validate_refuses_an_errored_check_that_passed(tmp_path: Path, capsys: Any) -> None:
    from factories import run_main

    doc = json.loads(SAMPLES["0.16"])
    draw = doc["cases"][0]["arms"]["baseline"]["draws"][0]
    draw["checks"] = [{"kind": "regex", "name": "x", "pass": True, "outcome": "error"}]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(seal_document(doc)), encoding="utf-8")
    code, out, _ = run_main(["validate", str(path)], capsys)
    assert code == 1
    first = out.splitlines()[0]
    assert first.startswith(f"{path}: /cases/0/arms/baseline/draws/0/checks/0/pass: ")
    assert "an errored check never passes" in first and "found a boolean true" in first


def test_a_receipt_in_memory_over_the_size_cap_is_refused(monkeypatch: Any) -> None:
    from driftproof.errors import BoundsError
    from driftproof.receipt import _bounds

    monkeypatch.setattr(_bounds, "RECEIPT_MAX_BYTES", 10)
    with pytest.raises(BoundsError) as caught:
        parse_receipt(b'{"a": "12345"}', "r.json")  # 14 bytes
    assert str(caught.value) == "r.json: expected at most 10 bytes, found 14"
