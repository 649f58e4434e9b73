"""The receipt specification page names every field, the rules R-1 to R-6 and the served URLs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from driftproof import wording
from driftproof.receipt import known_versions
from driftproof.receipt._spec_page import field_doc, field_paths, render_page

PAGE = Path(__file__).resolve().parents[2] / "site_src" / "receipt-spec.md"


@pytest.fixture(scope="module")
def page() -> str:
    return PAGE.read_text(encoding="utf-8")


def test_generated_blocks_are_up_to_date(page: str) -> None:
    assert render_page(page) == page, (
        "site_src/receipt-spec.md is stale: run "
        "`.venv/bin/python -m driftproof.receipt._spec_page site_src/receipt-spec.md`"
    )


@pytest.mark.parametrize("version", known_versions())
def test_every_field_of_every_version_is_on_the_page_with_unit_and_meaning(
    page: str, version: str
) -> None:
    for path, (node, _nullable) in field_paths(version).items():
        assert f"| `{path}` |" in page, path
        unit, meaning = field_doc(path, node)
        assert meaning.strip(), f"{path} has no meaning: add it to _spec_page (MEANINGS)"
        # an object or an array has no unit of its own (its members have theirs) unless
        # FIELD_UNITS gives it one (other_model_calls: calls)
        if node.get("type") not in ("object", "array"):
            assert unit.strip(), f"{path} has no unit: add it to _spec_page (FIELD_UNITS)"


def test_rules_r1_to_r6_are_stated_once_each_in_order(page: str) -> None:
    found = re.findall(r"^\*\*(R-\d) ([^*]+)\.\*\*", page, re.M)
    assert found == [
        ("R-1", "Band"),
        ("R-2", "Separation"),
        ("R-3", "Effect floor"),
        ("R-4", "Underpowered"),
        ("R-5", "Receipt-wide band"),
        ("R-6", "Lost draws"),
    ]


def test_served_urls_for_every_version_and_the_newest(page: str) -> None:
    for v in known_versions():
        assert f"`https://driftproof.dev/spec/{v}/receipt.schema.json`" in page
    assert "`https://driftproof.dev/spec/receipt.schema.json`" in page


def test_fixed_sentences_and_floor_appear_character_for_character(page: str) -> None:
    flat = " ".join(page.split())
    for sentence in (
        wording.NOT_ENOUGH_DRAWS,
        wording.MORE_CASES,
        wording.NO_SEPARATION,
        wording.BELOW_EFFECT_FLOOR,
        wording.SMOKE_RUN,
        wording.NO_DRAW_COUNT_REACHES,
    ):
        assert sentence in flat.replace("*", ""), sentence
    assert f"**{wording.EFFECT_FLOOR}**" in page


def test_removed_field_is_dated(page: str) -> None:
    assert "| `run.samples` | integer or null | count | 0.3.1–0.13 (not in 0.14) |" in page


def test_the_unverified_level_names_every_way_the_code_records_it(page: str) -> None:
    # run/sealing.py records UNVERIFIED for an offline provider or judge (stub, simulated), a
    # --quick run or a stopped run; the page once named the stub provider and smoke runs only
    from driftproof.wording import OFFLINE

    row = next(x for x in page.splitlines() if x.startswith("| UNVERIFIED |"))
    provider = next(x for x in page.splitlines() if x.startswith("| `run.provider` |"))
    meaning = provider.split(" | ")[-1]  # the meaning column, not the list of values
    assert all(f"`{name}`" in row and name in meaning for name in OFFLINE), (row, meaning)
    assert "(`--quick`)" in row and "a stopped run" in row


def test_a_field_row_says_its_type_and_repeats_no_type_as_a_unit(page: str) -> None:
    # the page read "| `run` | object | object |" (53 objects, 21 arrays: the type again in the
    # Unit column, "Unit: object" in the phone list) and gave schema_version the type `0.16`,
    # the newest version's own value, on a row dated 0.3.1: each version's file pins its own
    rows = [r.split(" | ") for r in page.splitlines() if r.startswith("| `")]
    fields = {r[0][2:].strip("`"): r[1:3] for r in rows if len(r) == 5}
    assert fields["schema_version"] == ["string", "version"]
    assert fields["run"] == ["object", ""] and fields["cases[]"] == ["object", ""]
    assert fields["cases"] == ["array", ""]
    assert fields["cases[].arms.<arm>.draws[].other_model_calls"] == ["array or null", "calls"]
    assert fields["seal.algorithm"] == ["`sha256-rfc8785`", "id"]  # one value at every version
    # a type is no unit: true/false, as the five other booleans read (arms.<arm>.recorded,
    # over_budget and provenance.partial read "boolean")
    assert fields["provenance.partial"] == ["boolean or null", "true/false"]
    assert not [f for f, (_, unit) in fields.items() if unit in ("object", "array", "boolean")]


def test_a_failed_attempts_fatal_class_is_a_call_not_retried_not_a_run_that_stopped(
    page: str,
) -> None:
    # a call that must stop the run stops it at once, keeping its journal, with no receipt (the
    # reference: "the run stops at once with the reason, keeps its journal and exits 2"); an
    # attempt a receipt records as fatal is one not retried ("Any other 4xx ... loses that draw,
    # not retried"), the run going on. The page said "fatal (the run stops)".
    rows = {x.split(" | ")[0]: x.split(" | ")[-1] for x in page.splitlines() if " | " in x}
    assert rows["| `cases[].arms.<arm>.draws[].attempts[].error_class`"] == (
        "transient (retried) or fatal (not retried: the draw is lost, and the run goes on). |"
    )
    # a lost draw's class is its last error's: fatal there too is a call not retried
    assert rows["| `cases[].arms.<arm>.draws[].lost.error_class`"] == (
        "transient (retried until its attempts ran out) or fatal (not retried): the class of "
        "the last error; either way the draw is lost, and the run goes on. |"
    )
