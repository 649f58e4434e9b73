"""Every version's valid and invalid fixtures pass and fail as they should (D-11, D-12).

The fixtures are written by ``make_fixtures.py`` from each version's shape, sealed with
``rfc8785`` directly; ``expected.json`` names, for each invalid fixture, the JSON
pointer of the one rule it breaks and a phrase of the expected message.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from driftproof import errors
from driftproof.receipt import known_versions, read_receipt

FIXTURES = Path(__file__).parent / "fixtures"


def _cases(prefix: str) -> list[Path]:
    return sorted(p for p in FIXTURES.glob(f"*/{prefix}-*.json"))


def test_there_is_a_fixture_folder_for_every_frozen_version() -> None:
    assert sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()) == sorted(known_versions())
    assert known_versions() == ("0.3.1", "0.10", "0.11", "0.13", "0.14", "0.15", "0.16")


@pytest.mark.parametrize("path", _cases("valid"), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_valid_fixture_reads(path: Path) -> None:
    r = read_receipt(path)
    assert r.schema_version == path.parent.name
    assert r.is_migrated == (path.parent.name != "0.16")


@pytest.mark.parametrize("path", _cases("invalid"), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_invalid_fixture_is_refused_at_its_pointer(path: Path) -> None:
    expected = json.loads((path.parent / "expected.json").read_text())[path.name]
    with pytest.raises(errors.ReceiptError) as info:
        read_receipt(path)
    exc = info.value
    assert type(exc).__name__ == expected["error"]
    lines = exc.lines()
    wanted = f"{path}: {expected['pointer'] + ': ' if expected['pointer'] else ''}"
    matching = [ln for ln in lines if ln.startswith(wanted) and expected["contains"] in ln]
    assert matching, f"no line names {expected['pointer']!r} with {expected['contains']!r}: {lines}"


def test_every_invalid_fixture_has_an_expectation_and_every_expectation_a_fixture() -> None:
    for folder in (p for p in FIXTURES.iterdir() if p.is_dir()):
        expected = set(json.loads((folder / "expected.json").read_text()))
        present = {p.name for p in folder.glob("invalid-*.json")}
        assert expected == present, folder.name


def test_each_invalid_fixture_breaks_exactly_one_rule() -> None:
    # Every problem line states the fixture's one rule: nothing else is wrong with it.
    for path in _cases("invalid"):
        expected = json.loads((path.parent / "expected.json").read_text())[path.name]
        with pytest.raises(errors.ReceiptError) as info:
            read_receipt(path)
        assert all(expected["contains"] in ln for ln in info.value.lines()), (
            path,
            info.value.lines(),
        )


def test_version_specific_rules_have_fixtures() -> None:
    names = {f"{p.parent.name}/{p.name}" for p in _cases("invalid")}
    assert "0.3.1/invalid-capture-before-0.10.json" in names
    assert "0.10/invalid-preset-before-0.11.json" in names
    for v in ("0.11", "0.13", "0.14", "0.15", "0.16"):
        assert f"{v}/invalid-preset-reads-tested.json" in names
    assert "0.14/invalid-stop-reason-before-0.15.json" in names
    for v in ("0.13", "0.14", "0.15", "0.16"):
        assert f"{v}/invalid-aggregates-without-figures.json" in names


def test_preset_rule_message_is_plain() -> None:
    path = FIXTURES / "0.11" / "invalid-preset-reads-tested.json"
    with pytest.raises(errors.ReceiptError) as info:
        read_receipt(path)
    assert info.value.lines() == [
        f"{path}: /verification_level: a receipt that names a preset cannot read TESTED (v0.11); "
        'found a string "TESTED" (schema 0.11)'
    ]
