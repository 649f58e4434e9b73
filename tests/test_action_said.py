"""What the README's Action section and action.yml say of the Action, held to what it does.

By hand (one judge sample per draw, scale 0 to 1): WITH [0.50, 0.55, 0.60] is 0.55 ± 0.05,
BASE [0.40, 0.45, 0.50] is 0.45 ± 0.05, so a receipt of such cases has lift +0.100; UP
[0.90, 0.95, 0.90] is 0.917 ± 0.029 (sd √(0.0017 / 2)), apart from 0.55 ± 0.05 with
Δ = +0.367 past the 0.05 floor: improved.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from factories import case, make_receipt, run_action
from receipt_docs import seal_document

ROOT = Path(__file__).resolve().parents[1]
WITH, BASE, UP = [0.50, 0.55, 0.60], [0.40, 0.45, 0.50], [0.90, 0.95, 0.90]
LOST: list[float | None] = [None, None, None]


def _said(*keys: str) -> str:
    """A description in action.yml (``keys`` down to it), on one line."""
    node: Any = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    for key in keys:
        node = node[key]
    return " ".join(str(node).split())


def _run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, a: Any, b: Any
) -> tuple[int, dict[str, str], str]:
    """The Action on ``a`` and ``b`` under the default fail-on: status, outputs, summary."""
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(a), encoding="utf-8")
    pb.write_text(json.dumps(b), encoding="utf-8")
    (tmp_path / "out").unlink(missing_ok=True)
    code, summary = run_action(tmp_path, monkeypatch, pa, pb, None)
    lines = (tmp_path / "out").read_text(encoding="utf-8").split("\n")
    outputs = {x.split("<<")[0]: lines[i + 1] for i, x in enumerate(lines) if "<<" in x}
    return code, outputs, summary


def test_a_case_whose_baseline_arm_alone_was_lost_keeps_its_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found: the README said every such case "reads underpowered ..., its new band "not
    # measured""; a diff compares with-skill arms, so c1 reads improved and still counts
    a = make_receipt([case("c1", WITH, BASE), case("c2", WITH, BASE)])
    b = make_receipt([case("c1", UP, LOST), case("c2", WITH, BASE)])
    code, out, summary = _run(tmp_path, monkeypatch, a, b)
    assert (code, out["decision"], out["unmeasured-cases"]) == (1, "improved", '["c1"]')
    assert "| c1 | improved | 0.550 ± 0.050 (n=3) | 0.917 ± 0.029 (n=3) | +0.367 |" in summary
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert (
        "one whose baseline arm alone it did not measure keeps its with-skill verdict (the "
        "comparison is of with-skill arms) and counts all the same" in readme
    )


def test_with_no_case_measured_in_both_a_lift_is_its_receipts_own_where_the_other_has_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found: action.yml said baseline-lift is "n/a as for lift"; with the new receipt measuring
    # nothing, lift is n/a and baseline-lift the earlier receipt's own +0.100
    a = make_receipt([case("c1", WITH, BASE), case("c2", WITH, BASE)])
    _, out, _ = _run(tmp_path, monkeypatch, a, make_receipt([case("c1", LOST, LOST)]))
    assert (out["lift"], out["baseline-lift"]) == ("n/a", "+0.100")
    _, out, _ = _run(tmp_path, monkeypatch, a, make_receipt([case("c9", WITH, BASE)]))
    assert (out["lift"], out["baseline-lift"]) == ("n/a", "n/a")  # both have one: neither
    assert "its own lift when the new receipt has none, else n/a" in _said(
        "outputs", "baseline-lift", "description"
    )
    assert (
        "its own lift (over the cases it measured in both arms) when the earlier receipt has "
        in (_said("outputs", "lift", "description"))
    )


def _resealed(cases: list[dict[str, Any]], part: str, key: str, value: Any) -> dict[str, Any]:
    doc = make_receipt(cases)
    doc[part][key] = value
    return seal_document(doc)


@pytest.mark.parametrize(
    ("later", "named"),
    [
        (_resealed([case("c1", UP, BASE)], "run", "aa", True), "an A/A calibration"),
        (make_receipt([case("c1", LOST, LOST)]), "one that measured nothing"),
    ],
    ids=["aa", "nothing-measured"],
)
def test_each_receipt_that_gets_no_decision_is_named_in_the_decision_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, later: Any, named: str
) -> None:
    # Found: the decision output's description named below TESTED, a smoke run, an import and
    # aggregates only; an A/A calibration and a receipt that measured nothing also give none
    _, out, _ = _run(tmp_path, monkeypatch, make_receipt([case("c1", WITH, BASE)]), later)
    assert out["decision"] == "none"
    assert named in _said("outputs", "decision", "description")


def test_no_decision_fails_by_default_when_a_case_was_not_measured_as_fail_on_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found: fail-on's description said no decision passes under the default, with a warning
    a = make_receipt([case("c1", WITH, BASE), case("c2", WITH, BASE)])
    b = make_receipt([case("c1", LOST, BASE), case("c2", WITH, BASE)], level="UNVERIFIED")
    code, out, _ = _run(tmp_path, monkeypatch, a, b)
    assert (code, out["decision"]) == (1, "none")
    assert "passes the job under the default, with a warning, unless a case was not measured" in (
        _said("inputs", "fail-on", "description")
    )


def test_an_aa_input_that_is_no_aa_receipt_is_refused_as_aa_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found: aa's description named a receipt of another skill, suite or model, not this one
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(make_receipt([case("c1", WITH, BASE)])), encoding="utf-8")
    monkeypatch.setenv("DRIFTPROOF_AA", str(plain))
    _, out, _ = _run(tmp_path, monkeypatch, *[make_receipt([case("c1", WITH, BASE)])] * 2)
    assert out == {"decision": "error"}
    assert "A receipt that is no A/A calibration" in _said("inputs", "aa", "description")
