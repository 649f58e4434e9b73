"""The single-receipt badge (D-7, D-10; method "Not enough draws", "A smoke run gives no verdict",
"Figures a source printed give no verdict").

Every receipt here is built from hand-chosen per-draw scores (one judge sample per draw, so a
draw's score is that sample, D-1); each expected reading is worked out by hand in the comment
above it, never copied from the code's output.
"""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from factories import case, edited, make_receipt

from driftproof import wording
from driftproof.pages.badge import (
    badge_reading,
    badge_svg,
    details_json,
    endpoint_json,
    site_badge_files,
    workflow_outputs,
)
from driftproof.receipt import Receipt

ENDPOINT_KEYS = {"schemaVersion", "label", "message", "color"}


def receipt(cases: list[dict[str, Any]], **kw: Any) -> Receipt:
    return Receipt.model_validate(make_receipt(cases, **kw))


def with_generation_sd(c: dict[str, Any], sd: float) -> dict[str, Any]:
    """Record generation.sd on both arms (D-8: a recorded spread across draws)."""
    for arm in ("with_skill", "baseline"):
        c["arms"][arm]["generation"] = {"sd": sd}
    return c


# passing: with [0.80, 0.85, 0.90] mean 0.85 sd 0.05 -> band [0.80, 0.90];
# baseline [0.50, 0.55, 0.60] mean 0.55 sd 0.05 -> band [0.50, 0.60]. Apart, Δ = +0.30 ≥ 0.05:
# the case helps, none hurts -> passing (D-7). Lift +0.30; skill "x"*1600 -> 400 tokens (D-14),
# so value per 1,000 tokens = 0.30 / 0.4 = +0.75.
PASSING = [case("c1", [0.80, 0.85, 0.90], [0.50, 0.55, 0.60])]
# regressed: the same bands swapped: Δ = −0.30, the case hurts -> regressed.
REGRESSED = [case("c1", [0.50, 0.55, 0.60], [0.80, 0.85, 0.90])]
# one helps, one hurts -> regressed (D-7: regressed when any case hurts).
MIXED = [
    case("up", [0.80, 0.85, 0.90], [0.50, 0.55, 0.60]),
    case("down", [0.50, 0.55, 0.60], [0.80, 0.85, 0.90]),
]
# UNDERPOWERED with a draw count: with [0.60, 0.62, 0.64] mean 0.62 sd 0.02; baseline
# [0.585, 0.60, 0.615] mean 0.60 sd 0.015. Δ = 0.02 < 0.035 = sd sum: bands overlap.
# resolution = 0.035 + 2·sqrt((0.0004 + 0.000225)/3) = 0.035 + 0.0289 = 0.0639 ≥ 0.05
# -> underpowered. Draws needed (D-5): smallest n with 0.035 + 2·sqrt(0.000625/n) < 0.05,
# i.e. 0.000625/n < 0.00005625, n > 11.1 -> 12.
UNDERPOWERED_12 = [case("c1", [0.60, 0.62, 0.64], [0.585, 0.60, 0.615])]
# UNDERPOWERED, no draw count: both arms [0.5, 0.6, 0.7], sd 0.1 each; Δ = 0; sd sum 0.2 ≥ 0.05.
UNDERPOWERED_NONE = [case("c1", [0.5, 0.6, 0.7], [0.5, 0.6, 0.7])]
# no separation detected: both arms [0.60, 0.61] × 5, mean 0.605, sd sqrt(10·0.005²/9) = 0.00527;
# Δ = 0, bands overlap; resolution = 0.0105 + 2·sqrt(2·0.0000278/10) = 0.0153 < 0.05.
NO_SEPARATION = [case("c1", [0.60, 0.61] * 5, [0.60, 0.61] * 5)]
# below effect floor: with [0.62, 0.62, 0.63] mean 0.62333 sd 0.00577; baseline [0.60, 0.60, 0.61]
# mean 0.60333 sd 0.00577. Apart (Δ 0.02 > 0.0115) but Δ < 0.05: below effect floor, neither helps
# nor hurts, and a separated case is not asked about power -> no separation detected (D-7).
BELOW_FLOOR = [case("c1", [0.62, 0.62, 0.63], [0.60, 0.60, 0.61])]


def wide_receipt_cases() -> list[dict[str, Any]]:
    # D-8: two cases, each no separation and not underpowered on its own (as NO_SEPARATION).
    # Per-case means: with 0.605 and 0.905, baseline 0.605 and 0.905; s = 0.3/sqrt(2) = 0.2121 in
    # each arm; comparison band sqrt(2)·0.2121 = 0.30 ≥ 0.05 -> UNDERPOWERED. w = 0.0000278/10,
    # negligible: reduced band still ≈ 0.30 ≥ 0.05 -> the cases disagree -> "More cases, …".
    sd = math.sqrt(10 * 0.005**2 / 9)
    return [
        with_generation_sd(case("c1", [0.60, 0.61] * 5, [0.60, 0.61] * 5), sd),
        with_generation_sd(case("c2", [0.90, 0.91] * 5, [0.90, 0.91] * 5), sd),
    ]


@pytest.mark.parametrize(
    ("cases", "status", "message", "color"),
    [
        (PASSING, "passing", "passing", "brightgreen"),
        (REGRESSED, "regressed", "regressed", "red"),
        (MIXED, "regressed", "regressed", "red"),
        (UNDERPOWERED_12, "UNDERPOWERED", "UNDERPOWERED: 12 draws per arm needed", "yellow"),
        (
            UNDERPOWERED_NONE,
            "UNDERPOWERED",
            "UNDERPOWERED: no draw count reaches the floor",
            "yellow",
        ),
        (NO_SEPARATION, "no separation detected", "no separation detected", "lightgrey"),
        (BELOW_FLOOR, "no separation detected", "no separation detected", "lightgrey"),
    ],
    ids=[
        "passing",
        "regressed",
        "mixed",
        "underpowered-12",
        "underpowered-no-count",
        "no-separation",
        "below-floor",
    ],
)
def test_tested_receipt_readings(
    cases: list[dict[str, Any]], status: str, message: str, color: str
) -> None:
    r = receipt(cases)
    b = badge_reading(r)
    assert (b.status, b.message, b.color) == (status, message, color)
    assert b.refusal is None
    assert endpoint_json(r) == {
        "schemaVersion": 1,
        "label": "driftproof",
        "message": message,
        "color": color,
    }


def test_underpowered_prints_draws_needed_and_sentence() -> None:
    b = badge_reading(receipt(UNDERPOWERED_12))
    assert b.draws_needed == 12
    assert b.sentence == wording.NOT_ENOUGH_DRAWS
    none = badge_reading(receipt(UNDERPOWERED_NONE))
    assert none.draws_needed is None and none.no_draw_count
    assert wording.NO_DRAW_COUNT_REACHES in none.message
    # beside "Not enough draws …" the details say why more draws would not help (sd sum 0.2)
    assert none.reason == (
        "no draw count reaches the floor (c1): the two arms' spreads add up to the floor or more; "
        "more draws do not narrow a spread"
    )


def test_receipt_wide_band_underpowered_has_no_draw_count() -> None:
    b = badge_reading(receipt(wide_receipt_cases()))
    assert b.status == "UNDERPOWERED"
    assert b.message == "UNDERPOWERED"  # D-8: "with no draw count"
    assert b.sentence == wording.MORE_CASES
    assert b.draws_needed is None


def test_single_draw_arm_is_underpowered_without_a_count() -> None:
    # D-2/D-5: with [0.90] against baseline [0.50]: one measured draw gives no spread, so the case
    # is underpowered ("an arm has a single draw") however far apart the scores are; no count.
    b = badge_reading(receipt([case("c1", [0.90], [0.50])], generations_per_arm=1))
    assert (b.status, b.message, b.color) == ("UNDERPOWERED", "UNDERPOWERED", "yellow")
    assert b.draws_needed is None and not b.no_draw_count
    assert b.sentence == wording.NOT_ENOUGH_DRAWS


def test_a_single_draw_case_leaves_the_badge_with_no_count_as_the_reading() -> None:
    # c1 needs 12 draws per arm (UNDERPOWERED_12); c2's with-skill arm has one measured draw, so
    # its count cannot be worked out (D-5): the reading gives none, and the badge gave c1's 12
    cases = [*UNDERPOWERED_12, case("c2", [0.60], [0.60, 0.61])]
    b = badge_reading(receipt(cases, generations_per_arm=None))
    assert (b.message, b.draws_needed, b.no_draw_count) == ("UNDERPOWERED", None, False)
    assert workflow_outputs(receipt(cases, generations_per_arm=None))["draws-needed"] == ""


def test_no_separation_sentence_is_the_fixed_one() -> None:
    assert (
        badge_reading(receipt(NO_SEPARATION)).sentence
        == "no separation detected at this sample size"
    )


def test_smoke_run_reads_smoke_no_verdict_and_lift_na_in_outputs() -> None:
    # A quick run: with [0.80, 0.90] mean 0.85, baseline [0.50, 0.60] mean 0.55 -> lift +0.30,
    # which would separate in a TESTED receipt; a smoke run gets no verdict whatever its bands.
    r = receipt(
        [case("c1", [0.80, 0.90], [0.50, 0.60])],
        level="UNVERIFIED",
        preset="quick",
        generations_per_arm=2,
    )
    b = badge_reading(r)
    assert (b.status, b.message, b.color) == ("no verdict", "Smoke run, no verdict", "lightgrey")
    assert b.message == wording.SMOKE_RUN
    assert endpoint_json(r)["message"] == "Smoke run, no verdict"
    out = workflow_outputs(r)
    assert out["lift"] == "n/a" and out["value-per-1k"] == "n/a"
    assert out["reading"] == "no verdict"
    # The details JSON keeps the lift with its sign as context.
    d = details_json(r, "smoke")
    assert d["lift"] == pytest.approx(0.30) and d["lift_text"] == "+0.300"
    assert d["smoke_run"] is True and d["refusal"] == "smoke run"


def test_smoke_run_restamped_tested_is_still_smoke() -> None:
    # The model and the schema refuse preset + TESTED; a receipt restamped past them must
    # still give no verdict (method: "whatever level it carries").
    doc = make_receipt(PASSING, level="UNVERIFIED", preset="quick")
    r = edited(Receipt.model_validate(doc), "/verification_level", "TESTED")
    b = badge_reading(r)
    assert b.message == "Smoke run, no verdict" and b.status == "no verdict"
    assert workflow_outputs(r)["lift"] == "n/a"


@pytest.mark.parametrize("level", ["DECLARED", "UNVERIFIED"])
def test_below_tested_reads_no_verdict_and_keeps_signed_lift(level: str) -> None:
    r = receipt(REGRESSED, level=level)
    b = badge_reading(r)
    assert (b.status, b.message, b.color) == ("no verdict", "no verdict", "lightgrey")
    # the details name which test refused, then say why in a sentence: two things, not one twice
    d = details_json(r, "x")
    assert (d["refusal"], d["reason"]) == (
        "below TESTED",
        f"verification level {level} is below TESTED",
    )
    # lift −0.30 kept as context (method: "as they do for every receipt below TESTED")
    assert d["lift_text"] == "-0.300"
    assert workflow_outputs(r)["lift"] == "-0.300"


def test_aggregates_only_reads_no_verdict_and_has_no_lift() -> None:
    r = receipt(
        [],
        level="DECLARED",
        uncertainty_unavailable="aggregates_only",
        source_figures={"source": "test"},
    )
    b = badge_reading(r)
    assert (b.status, b.message) == ("no verdict", "no verdict")
    assert b.lift is None
    assert details_json(r, "agg")["lift"] is None
    assert workflow_outputs(r)["lift"] == "n/a"


def test_passing_lift_and_value_per_1k() -> None:
    r = receipt(PASSING)
    d = details_json(r, "p")
    assert d["lift"] == pytest.approx(0.30)
    assert d["skill_tokens"] == 400
    assert d["value_per_1k_tokens"] == pytest.approx(0.75)
    assert workflow_outputs(r)["lift"] == "+0.300"
    assert workflow_outputs(r)["value-per-1k"] == "+0.750"


@pytest.mark.parametrize("cases", [PASSING, REGRESSED, UNDERPOWERED_12, NO_SEPARATION, []])
def test_endpoint_has_exactly_the_shields_keys(cases: list[dict[str, Any]]) -> None:
    kw: dict[str, Any] = {}
    if not cases:
        kw = {
            "level": "DECLARED",
            "uncertainty_unavailable": "aggregates_only",
            "source_figures": {"source": "test"},
        }
    doc = endpoint_json(receipt(cases, **kw))
    assert set(doc) == ENDPOINT_KEYS
    assert doc["schemaVersion"] == 1 and isinstance(doc["schemaVersion"], int)
    assert isinstance(doc["label"], str) and doc["message"]


def test_svg_is_self_contained_deterministic_and_labelled() -> None:
    r = receipt(UNDERPOWERED_12)
    svg = badge_svg(r)
    assert svg == badge_svg(r)  # no process-wide counter in ids
    root = ET.fromstring(svg.split("?>", 1)[1])
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg"
    assert root.get("aria-label") == "driftproof: UNDERPOWERED: 12 draws per arm needed"
    texts = [t.text for t in root.iter(f"{ns}text")]
    assert "UNDERPOWERED: 12 draws per arm needed" in texts
    assert "href" not in svg  # nothing fetched from elsewhere
    assert "#dfb317" in svg  # shields' yellow


def test_site_badge_files() -> None:
    files = site_badge_files(
        {"a": receipt(PASSING), "s": receipt(PASSING, level="UNVERIFIED", preset="quick")}
    )
    assert set(files) == {
        "badge/a.json",
        "badge/a.details.json",
        "badge/a.svg",
        "badge/s.json",
        "badge/s.details.json",
        "badge/s.svg",
    }
    assert json.loads(files["badge/a.json"]) == {
        "schemaVersion": 1,
        "label": "driftproof",
        "message": "passing",
        "color": "brightgreen",
    }
    assert json.loads(files["badge/s.json"])["message"] == "Smoke run, no verdict"
    assert json.loads(files["badge/s.details.json"])["lift_text"] == "+0.300"


# ---- the command ---------------------------------------------------------------------------


def write(tmp_path: Path, name: str, doc: dict[str, Any]) -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(doc), encoding="utf-8")
    return p


def test_cli_writes_three_files_and_outputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from driftproof.cli.badge import badge

    src = write(tmp_path, "demo.json", make_receipt(PASSING))
    gh = tmp_path / "gh_output"
    monkeypatch.setenv("GITHUB_OUTPUT", str(gh))
    res = CliRunner().invoke(badge, [str(src), "--out", str(tmp_path / "out"), "--github-output"])
    assert res.exit_code == 0, res.output
    out = tmp_path / "out"
    assert res.output == (  # the reading, then each file written, in the order written
        f"passing\nwrote {out / 'demo.json'}\nwrote {out / 'demo.details.json'}\n"
        f"wrote {out / 'demo.svg'}\nTo show the badge, publish demo.json at a public address "
        "and embed the image https://img.shields.io/endpoint?url=ADDRESS (ADDRESS URL-encoded): "
        "shields.io draws it from the file, so it follows each new file published there.\n"
    )
    assert json.loads((tmp_path / "out/demo.json").read_text()) == {
        "schemaVersion": 1,
        "label": "driftproof",
        "message": "passing",
        "color": "brightgreen",
    }
    assert json.loads((tmp_path / "out/demo.details.json").read_text())["lift_text"] == "+0.300"
    assert (tmp_path / "out/demo.svg").read_text().startswith("<?xml")
    text = gh.read_text()
    assert "reading<<" in text and "\npassing\n" in text and "\n+0.300\n" in text


def test_cli_smoke_outputs_lift_na(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from driftproof.cli.badge import badge

    src = write(tmp_path, "smoke.json", make_receipt(PASSING, level="UNVERIFIED", preset="quick"))
    gh = tmp_path / "gh_output"
    monkeypatch.setenv("GITHUB_OUTPUT", str(gh))
    res = CliRunner().invoke(
        badge, [str(src), "--json", str(tmp_path / "b.json"), "--github-output"]
    )
    assert res.exit_code == 0, res.output
    assert res.output.startswith(
        f"Smoke run, no verdict\nwrote {tmp_path / 'b.json'}\nTo show the badge, publish b.json "
    )
    assert "\nn/a\n" in gh.read_text()
    assert "+0.300" not in gh.read_text()


def test_cli_bad_receipt_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    from driftproof.cli import main

    doc = make_receipt(PASSING)
    doc["skill"]["name"] = "tampered"  # the seal no longer matches (D-12)
    src = write(tmp_path, "bad.json", doc)
    with pytest.raises(SystemExit) as exc:
        main(["badge", str(src), "--out", str(tmp_path / "out")])
    assert exc.value.code == 2
    assert not (tmp_path / "out").exists()


def test_cli_needs_an_output(tmp_path: Path) -> None:
    from driftproof.cli.badge import badge

    src = write(tmp_path, "demo.json", make_receipt(PASSING))
    res = CliRunner().invoke(badge, [str(src)])
    assert res.exit_code == 2


@pytest.mark.parametrize("cases", [PASSING, UNDERPOWERED_12])
def test_details_carry_no_draw_count_of_their_own(cases: list[dict[str, Any]]) -> None:
    # a count worked from the spreads as measured, only when UNDERPOWERED, disagreed with
    # `plan`'s (from their upper bounds, on every pilot): the details leave planning to `plan`;
    # the UNDERPOWERED message keeps the rule's count with the spreads held (12, above)
    d = details_json(receipt(cases), "x")
    assert "draws_needed" not in d and "no_draw_count_reaches_floor" not in d
    if cases is UNDERPOWERED_12:
        assert d["message"] == "UNDERPOWERED: 12 draws per arm needed"


def test_cli_github_output_alone_writes_no_badge_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from driftproof.cli.badge import badge

    src = write(tmp_path, "demo.json", make_receipt(PASSING))
    gh = tmp_path / "gh_output"
    monkeypatch.setenv("GITHUB_OUTPUT", str(gh))
    res = CliRunner().invoke(badge, [str(src), "--github-output"])
    assert res.exit_code == 0, res.output
    assert res.output == "passing\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.json", "gh_output"]
    assert "\npassing\n" in gh.read_text()
    # --help names every output written (it named four of the six)
    keys = [line.split("<<", 1)[0] for line in gh.read_text().splitlines() if "<<" in line]
    shown = "".join(CliRunner().invoke(badge, ["--help"]).output.split())  # wrapped at hyphens
    assert len(keys) == 6 and all(k in shown for k in keys), (keys, shown)


def test_cli_github_output_that_cannot_be_appended_to_writes_no_badge_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the badge files were written first, then the append failed: exit 2 and the refusal, with
    # three files written that nothing named
    from driftproof.cli.badge import badge

    src = write(tmp_path, "demo.json", make_receipt(PASSING))
    gh = tmp_path / "missing" / "gh_output"
    monkeypatch.setenv("GITHUB_OUTPUT", str(gh))
    res = CliRunner().invoke(badge, [str(src), "--out", str(tmp_path / "out"), "--github-output"])
    assert res.exit_code == 2
    assert res.output == (
        f"Error: {gh}: cannot append to $GITHUB_OUTPUT: No such file or directory\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.json"]


@pytest.mark.parametrize("gh_name", ["demo.json", "out/demo.json"])
def test_cli_github_output_naming_the_receipt_or_a_badge_file_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gh_name: str
) -> None:
    # the outputs were appended to the sealed receipt (exit 0, the receipt no longer JSON), or a
    # badge file and the outputs replaced one another
    from driftproof.cli.badge import badge

    src = write(tmp_path, "demo.json", make_receipt(PASSING))
    kept = src.read_bytes()
    (tmp_path / "out").mkdir()
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / gh_name))
    res = CliRunner().invoke(badge, [str(src), "--out", str(tmp_path / "out"), "--github-output"])
    assert res.exit_code == 2
    why = (
        "this output would overwrite the receipt being read; give another --out directory or "
        "another file name"
        if gh_name == "demo.json"
        else "named for two outputs; give each output its own file"
    )
    assert res.output.endswith(f"Error: {tmp_path / gh_name}: {why}\n")
    assert src.read_bytes() == kept and not any((tmp_path / "out").iterdir())
