"""The Action's ``fail-on: beyond-noise`` end to end (issue 37, item 2): a 40-case A/A pair of
receipts in which one case regressed passes under beyond-noise and fails under the default, and
the job summary states the number noise alone would give either way.

By hand: 39 cases have the same with-skill draws on both sides, [0.70, 0.75, 0.80] (0.75 ±
0.05), so no separation. Case c0 moves from [0.80, 0.85, 0.90] to [0.65, 0.70, 0.75]: Δ = −0.15,
bands apart (0.15 > 0.05 + 0.05) and past the floor, so regressed. Every side has spread 0.05
over 3 draws, where about 3.45% of unchanged cases read regressed (the statistics notes'
operating table: 6.9% false improved or regressed at spread 0.05, 3 draws; half of it each way),
so noise alone gives about 40 × 0.0345 = 1.4 regressed cases, and one regressed case is what
noise gives: P(at least 1) = 1 − (1 − 0.0345)^40 = 0.75, far above 5%.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from factories import JUDGE, case, make_receipt, run_action

from driftproof import action

SAME = [0.70, 0.75, 0.80]


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    judge = copy.deepcopy(JUDGE)
    judge["scale"]["step"] = 0.01  # draws on the statistics notes' 0.01 grid
    rest = [case(f"c{i}", SAME, [0.5, 0.55, 0.6]) for i in range(1, 40)]
    a = make_receipt([case("c0", [0.80, 0.85, 0.90], [0.5, 0.55, 0.6]), *rest], judge=judge)
    b = make_receipt([case("c0", [0.65, 0.70, 0.75], [0.5, 0.55, 0.6]), *rest], judge=judge)
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(a), encoding="utf-8")
    pb.write_text(json.dumps(b), encoding="utf-8")
    return pa, pb


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fail_on: str | None) -> tuple[int, str]:
    return run_action(tmp_path, monkeypatch, *_pair(tmp_path), fail_on)


def _expected(summary: str) -> float:
    # 1.4 to one decimal: its simulation's standard error is √(40 × .0345 × .9655 / 2,000) =
    # .0258, a 95% half-width of .0506, over half a tenth (.05), under half a unit
    m = re.search(r"about (\d+\.\d) of these 40 cases would read regressed", summary)
    assert m, summary
    return float(m.group(1))


def test_one_regressed_case_in_40_fails_by_default(tmp_path, monkeypatch) -> None:
    code, summary = _run(tmp_path, monkeypatch, None)
    assert code == 1
    assert "**Decision: regressed**; the job fails (fail-on: regressed, not-measured)" in summary
    assert _expected(summary) == pytest.approx(1.38, abs=0.1)
    assert "1 case did" in summary and "within what noise alone gives at the 5% level" in summary
    # the summary says how to gate beyond noise, as a job with no decision says how to fail it
    assert 'put "beyond-noise" in fail-on in place of "regressed"' in summary


def test_one_regressed_case_in_40_passes_beyond_noise(tmp_path, monkeypatch, capsys) -> None:
    code, summary = _run(tmp_path, monkeypatch, "beyond-noise")
    assert code == 0
    assert "**Decision: regressed**; the job passes (fail-on: beyond-noise)" in summary
    assert _expected(summary) == pytest.approx(1.38, abs=0.1)
    # P(at least 1) = 1 − (1 − p)^40 with p near 0.0345: about 75%
    m = re.search(r"The chance of at least 1 from noise alone is (\d+)%", summary)
    assert m and 65 <= int(m.group(1)) <= 82
    assert "::warning title=Driftproof::1 case regressed" in capsys.readouterr().out
    assert "in place of" not in summary  # the job already gates beyond noise


def test_a_count_beyond_noise_fails_under_beyond_noise(tmp_path, monkeypatch) -> None:
    # every one of 40 cases regressed (Δ = −0.15 each): 40 from an expectation near 1.4 has a
    # chance far under 5%
    judge = copy.deepcopy(JUDGE)
    judge["scale"]["step"] = 0.01
    a = make_receipt(
        [case(f"c{i}", [0.80, 0.85, 0.90], [0.5, 0.55, 0.6]) for i in range(40)], judge=judge
    )
    b = make_receipt(
        [case(f"c{i}", [0.65, 0.70, 0.75], [0.5, 0.55, 0.6]) for i in range(40)], judge=judge
    )
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(a), encoding="utf-8")
    pb.write_text(json.dumps(b), encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "s.md"))
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "o"))
    code = action.main(["--baseline", str(pa), "--receipt", str(pb), "--fail-on", "beyond-noise"])
    assert code == 1
    assert "beyond what noise alone gives" in (tmp_path / "s.md").read_text(encoding="utf-8")


def test_unknown_fail_on_word_is_refused(tmp_path, monkeypatch) -> None:
    code, _ = _run(tmp_path, monkeypatch, "beyond-nois")
    assert code == 2


def test_fail_on_is_read_in_any_letter_case(tmp_path, monkeypatch) -> None:
    # the summary's table prints "underpowered" and "regressed" in lower case; fail-on refused
    # "underpowered" (exit 2) though it names the decision UNDERPOWERED
    code, summary = _run(tmp_path, monkeypatch, "Regressed, underpowered")
    assert code == 1
    assert "the job fails (fail-on: regressed, UNDERPOWERED)" in summary


def test_with_beyond_noise_and_regressed_the_summary_says_to_take_regressed_out(
    tmp_path, monkeypatch
) -> None:
    # fail-on already names beyond-noise: the regressed case fails the job through "regressed"
    # alone, so the way to gate beyond noise is to drop that word, not to add one it has
    code, summary = _run(tmp_path, monkeypatch, "regressed,beyond-noise")
    assert code == 1
    assert 'to fail only beyond it, take "regressed" out of fail-on.' in summary
    assert 'put "beyond-noise" in fail-on' not in summary
