"""Malformed receipts get clean errors (ReceiptError and its subclasses), never a traceback."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from receipt_docs import seal_document

from driftproof.errors import ReceiptError
from driftproof.receipt import Receipt, check_json_bounds, parse_receipt
from driftproof.receipt._bounds import MAX_PROBLEMS, MAX_QUOTE

FIXTURES = Path(__file__).parent / "fixtures"
VALID = {p: p.read_bytes() for p in sorted(FIXTURES.glob("*/valid-*.json"))}
SETTINGS = settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**80), 2**80)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=40)
)
JSONISH = st.recursive(
    SCALARS,
    lambda kids: (
        st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=12), kids, max_size=4)
    ),
    max_leaves=30,
)


def _check(data: bytes) -> None:
    """Only a Receipt or a ReceiptError; every problem line bounded and pointed."""
    try:
        result = parse_receipt(data, "m.json")
    except ReceiptError as exc:
        lines = exc.lines()
        assert 1 <= len(lines) <= MAX_PROBLEMS + 1
        for line in lines:
            assert line.startswith("m.json: ")
            assert len(line) < 1200, line[:200]
        return
    assert isinstance(result, Receipt)


@SETTINGS
@given(st.binary(max_size=400))
def test_random_bytes(data: bytes) -> None:
    _check(data)


@SETTINGS
@given(JSONISH)
def test_random_json_values(value: Any) -> None:
    _check(json.dumps(value, allow_nan=True).encode())


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(value, dict):
        out += [p for k, v in value.items() for p in _paths(v, (*path, k))]
    elif isinstance(value, list):
        out += [p for i, v in enumerate(value) for p in _paths(v, (*path, i))]
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=st.sampled_from(sorted(VALID)), data=st.data())
def test_wrong_types_anywhere_resealed(source: Path, data: st.DataObject) -> None:
    # Resealed, so the schema, the model and the consistency checks all see the damage.
    doc = json.loads(VALID[source])
    for _ in range(data.draw(st.integers(1, 3), label="edits")):
        path = data.draw(
            st.sampled_from([p for p in _paths(doc) if p and p[0] != "seal"]), label="path"
        )
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        if data.draw(st.booleans(), label="delete") and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = data.draw(JSONISH, label="value")
    try:
        sealed = seal_document(copy.deepcopy(doc))
    except ValueError:  # NaN or a huge integer cannot be sealed: feed it unsealed
        sealed = doc
    _check(json.dumps(sealed, allow_nan=True).encode())


@SETTINGS
@given(source=st.sampled_from(sorted(VALID)), data=st.data())
def test_truncated_files(source: Path, data: st.DataObject) -> None:
    raw = VALID[source]
    _check(raw[: data.draw(st.integers(0, len(raw) - 1))])


@settings(max_examples=100, deadline=None)
@given(depth=st.integers(1, 5000), opener=st.sampled_from(["[", '{"a":']))
def test_deep_nesting(depth: int, opener: str) -> None:
    closer = "]" if opener == "[" else "}"
    _check((opener * depth + "1" + closer * depth).encode())


@settings(max_examples=100, deadline=None)
@given(
    key=st.sampled_from(["schema_version", "run", "seal", "cases"]),
    source=st.sampled_from(sorted(VALID)),
)
def test_duplicate_keys(key: str, source: Path) -> None:
    text = VALID[source].decode()
    _check(text.replace(f'"{key}":', f'"{key}": null, "{key}":', 1).encode())


def test_nan_infinity_and_overflowing_numbers() -> None:
    text = VALID[sorted(VALID)[0]].decode()
    for bad in ("NaN", "Infinity", "-Infinity", "1e400", "1" * 5000, str(2**60)):
        _check(text.replace('"tokens": 400', f'"tokens": {bad}', 1).encode())


def test_huge_values_are_bounded_in_messages() -> None:
    doc = json.loads(VALID[sorted(VALID)[-1]])
    doc["suite"]["name"] = "é" * 300_000
    doc["run"]["model"] = ["x"] * 50_000
    doc["cases"] = [
        {**copy.deepcopy(doc["cases"][0]), "id": f"-{i}" + "z" * 100_000} for i in range(30)
    ]
    try:
        parse_receipt(json.dumps(seal_document(doc)).encode(), "big.json")
    except ReceiptError as exc:
        lines = exc.lines()
        assert len(lines) == MAX_PROBLEMS + 1 and lines[-1].startswith("big.json: … and ")
        assert lines[0].startswith("big.json: /cases/0/id: expected text matching")
        assert '"-0' + "z" * (MAX_QUOTE - 3) + "…" in lines[0]  # the 100 000-character id, cut
        assert max(len(ln) for ln in lines) < 200 + 2 * MAX_QUOTE
    else:
        raise AssertionError("accepted")


def test_text_is_read_like_its_utf8_bytes() -> None:
    raw = VALID[sorted(VALID)[0]]
    assert parse_receipt(raw.decode(), "t.json") == parse_receipt(raw, "t.json")
    _check("\ud800".encode("utf-8", "surrogatepass"))


def test_every_check_counts_the_other_problems_alike() -> None:
    # "(and N more)" counts every other problem found: the listed ones and those in the
    # "… and M more" line, alike for the bounds, the schema and the consistency checks
    doc = json.loads(VALID[sorted(VALID)[-1]])
    over_bounds = {f"k{i}": "long" for i in range(50)}
    bad_ids = {**doc, "cases": [{**doc["cases"][0], "id": f"-{i}"} for i in range(30)]}
    same_ids = {**doc, "cases": [doc["cases"][0]] * 30}
    calls = [
        lambda: check_json_bounds(over_bounds, "big.json", max_string_chars=1),
        lambda: parse_receipt(json.dumps(seal_document(bad_ids)), "big.json"),
        lambda: parse_receipt(json.dumps(seal_document(same_ids)), "big.json"),
    ]
    for call, found in zip(calls, (50, 30, 29), strict=True):
        try:
            call()
        except ReceiptError as exc:
            assert len(exc.lines()) == MAX_PROBLEMS + 1
            assert exc.lines()[-1].startswith(f"big.json: … and {found - MAX_PROBLEMS} more")
            assert str(exc).endswith(f" (and {found - 1} more)")
        else:
            raise AssertionError("accepted")


@pytest.mark.parametrize(
    ("member", "value", "pointer", "message"),
    [
        ("rows", "x", "/source_figures/rows", 'expected an array, found a string "x"'),
        (
            "num",
            "eight",
            "/source_figures/rows/0/num",
            'expected an integer, found a string "eight"',
        ),
        (
            "files",
            [{"git_blob_sha1": "a" * 40}],
            "/source_figures/files/0/path",
            'expected member "path"; it is missing',
        ),
        (
            "uplift",
            "+12%",
            "/source_figures/uplift",
            'expected only the members read here, found "uplift"',
        ),
    ],
)
def test_source_figures_that_do_not_fit_their_type_are_refused_with_the_pointer(
    member: str, value: Any, pointer: str, message: str
) -> None:
    # the schema allows any object in source_figures; the model reads the importers' shape and
    # refuses the rest at load, naming the place (the fixture holds one catalogue row)
    doc = json.loads((FIXTURES / "0.16" / "valid-aggregates-only.json").read_text("utf-8"))
    sf = doc["source_figures"]
    if member == "num":
        sf["rows"][0]["num"] = value
    else:
        sf[member] = value
    try:
        parse_receipt(json.dumps(seal_document(doc)), "f.json")
    except ReceiptError as exc:
        assert exc.lines() == [f"f.json: {pointer}: {message}"]
    else:
        raise AssertionError("accepted")


@pytest.mark.parametrize(
    ("version", "newer"),
    [("0.17", True), ("1.0", True), ("0.16.1", True), ("0.9", False), ("9.9.x", False)],
)
def test_a_receipt_of_a_later_version_says_a_newer_driftproof_wrote_it(
    version: str, newer: bool
) -> None:
    # the newest version this build reads is 0.16 (CURRENT_VERSION); 0.17 and 1.0 come after it,
    # 0.9 is no version at all (the list runs 0.3.1 … 0.16) and "9.9.x" no number
    doc = json.loads(next(iter(VALID.values())))
    doc["schema_version"] = version
    with pytest.raises(ReceiptError) as err:
        parse_receipt(json.dumps(doc).encode(), "r.json")
    message = err.value.problems[0].message
    assert message.startswith("expected one of ") and f'found "{version}"' in message
    assert ("a newer Driftproof wrote it: update Driftproof" in message) is newer


@pytest.mark.parametrize(
    ("declared", "named", "refused"),
    [
        ("0.16", "https://driftproof.dev/spec/0.15/receipt.schema.json", True),
        ("0.15", "https://driftproof.dev/spec/0.16/receipt.schema.json", True),
        ("0.16", "https://driftproof.dev/spec/0.16/receipt.schema.json", False),
        ("0.16", "https://driftproof.dev/spec/receipt.schema.json", False),  # the canonical one
    ],
)
def test_a_receipt_whose_schema_address_names_another_version_is_refused(
    declared: str, named: str, refused: bool
) -> None:
    # the spec page: $schema points to the schema the receipt validates against, and
    # schema_version picks that file; a receipt naming two versions cannot be read as either
    doc = json.loads((FIXTURES / declared / "valid-basic.json").read_text())
    doc["$schema"] = named
    data = json.dumps(seal_document(doc)).encode()
    if not refused:
        assert parse_receipt(data, "r.json").schema_version == declared
        return
    with pytest.raises(ReceiptError) as err:
        parse_receipt(data, "r.json")
    problem = err.value.problems[0]
    assert (problem.file, problem.pointer) == ("r.json", "/$schema")
    assert f'found "{named}"' in problem.message


def test_a_schema_version_written_as_a_number_says_it_is_a_number() -> None:
    # Found: schema_version 0.16 (a number, not the text "0.16") read "expected one of 0.3.1, …,
    # 0.16 (newest 0.16), found 0.16": the expectation and the finding looked the same
    doc = json.loads((FIXTURES / "0.16" / "valid-basic.json").read_text())
    doc["schema_version"] = 0.16
    with pytest.raises(ReceiptError) as err:
        parse_receipt(json.dumps(seal_document(doc)).encode(), "r.json")
    problem = err.value.problems[0]
    assert (problem.file, problem.pointer) == ("r.json", "/schema_version")
    assert problem.message.endswith("(newest 0.16), found a number 0.16, not text")


@pytest.mark.parametrize("blob", ["x" + "a" * 40, "a" * 40 + "x", "A" * 40, "a" * 39])
def test_a_file_of_printed_figures_names_its_git_blob_by_40_lowercase_hex_digits(blob: str) -> None:
    # method, "Figures a source printed give no verdict": each file's git blob sha1, which is
    # 40 lowercase hex digits and nothing around them
    doc = json.loads((FIXTURES / "0.16" / "valid-aggregates-only.json").read_text("utf-8"))
    doc["source_figures"]["files"][0]["git_blob_sha1"] = blob
    with pytest.raises(ReceiptError) as info:
        parse_receipt(json.dumps(seal_document(doc)), "f.json")
    [line] = info.value.lines()
    assert line.startswith("f.json: /source_figures/files/0/git_blob_sha1: expected ")
    assert "[0-9a-f]{40}" in line and f'found a string "{blob}"' in line
