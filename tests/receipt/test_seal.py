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
    from driftproof.site.publish import load_inputs

    (tmp_path / "receipts").mkdir()
    (tmp_path / "reports").mkdir()
    raw = SAMPLES["0.16"].decode().replace('"answer 1"', '"answer 1!"', 1)
    (tmp_path / "receipts" / "r.json").write_text(raw)
    with pytest.raises(SiteBuildError) as info:
        load_inputs(tmp_path / "receipts", tmp_path / "reports")
    assert any(
        ln.startswith(f"{tmp_path / 'receipts' / 'r.json'}: /seal/sha256: seal mismatch")
        for ln in info.value.lines()
    )
