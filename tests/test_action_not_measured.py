"""A later receipt that measured nothing in a case the earlier one measured: ``diff`` names it
first, and the Action's ``fail-on: not-measured`` (on by default) fails the job.

By hand (one judge sample per draw, scale 0 to 1): every earlier case has with-skill draws
[0.50, 0.55, 0.60] (0.55 ± 0.05) and baseline draws [0.40, 0.45, 0.50]. In the later receipt
cases 01 to 05 lose all three with-skill draws (a skill that makes the model refuse, say), case 06
moves to [0.90, 0.95, 0.90] (0.917 ± 0.029: apart from 0.55 ± 0.05, Δ = +0.367 past the 0.05
floor, so improved), and cases 07 to 40 are unchanged. No case regressed and one improved, so
the decision is improved; cases 01 to 05 read underpowered (an arm has no measured draw, D-2, D-5),
their later arm "not measured" (tests/test_diff_lost_case.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from factories import arm, case, make_receipt, run_action
from test_action import HIGH, LOW, doc
from test_action import run_action as run_with_outputs

from driftproof.pages.comparison import compare_receipts, exit_status
from driftproof.receipt import read_receipt
from driftproof.render.comparison import comparison_json, comparison_markdown, comparison_text

WITH, BASE = [0.50, 0.55, 0.60], [0.40, 0.45, 0.50]
LOST: list[float | None] = [None, None, None]
FIVE = "5 cases not measured in the later receipt (case-01, case-02, case-03, case-04, case-05)"


def _ids() -> list[str]:
    return [f"case-{i:02d}" for i in range(1, 41)]


def _refusing() -> tuple[dict[str, Any], dict[str, Any]]:
    """The 5-of-40 pair of the module docstring; case-01's lost draws name a mixed reason."""
    a = make_receipt([case(cid, WITH, BASE) for cid in _ids()])
    later = []
    for i, cid in enumerate(_ids(), start=1):
        ws = LOST if i <= 5 else [0.90, 0.95, 0.90] if i == 6 else WITH
        later.append(case(cid, ws, BASE))
    # case-01: two draws refused, one timed out; "|" and "<b>" must reach Markdown inert
    refused = arm([None, None], lost_reason="refused | <b>no</b>")["draws"]
    timed = arm([None], lost_reason="timeout after 2 retries")["draws"]
    timed[0]["index"] = 2
    later[0]["arms"]["with_skill"]["draws"] = [*refused, *timed]
    return a, make_receipt(later)


def _action(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, a: Any, b: Any, fail_on: Any) -> Any:
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(a), encoding="utf-8")
    pb.write_text(json.dumps(b), encoding="utf-8")
    return run_action(tmp_path, monkeypatch, pa, pb, fail_on)


def test_five_refused_cases_fail_the_job_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, summary = _action(tmp_path, monkeypatch, *_refusing(), None)
    out = capsys.readouterr().out
    assert code == 1
    assert summary.startswith(
        "## Driftproof: improved (5 cases not measured in the later receipt)\n\n"
        "**Decision: improved**; 5 cases not measured in the later receipt; the job fails "
        "(fail-on: regressed, not-measured).\n\n- case-01: "
    )
    assert (
        "- case-01: not measured in the later receipt: every draw lost (with skill; 3 of 3 lost, "
        "most often to refused \\| \\<b\\>no\\</b\\> (2))\n" in summary
    )
    assert "- case-06" not in summary.split("| | earlier")[0]  # measured on both sides
    assert "::error title=Driftproof::5 cases not measured in the later receipt; see" in out
    # the case reads underpowered, as view and diff read it; its later band is "not measured"
    row = "| case-01 | underpowered | 0.550 ± 0.050 (n=3) | not measured (n=0 of 3, 3 lost) |"
    assert row in summary


def test_five_refused_cases_pass_with_fail_on_regressed_and_warn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, summary = _action(tmp_path, monkeypatch, *_refusing(), "regressed")
    assert code == 0
    assert "the job passes (fail-on: regressed)." in summary
    out = capsys.readouterr().out
    assert "::warning title=Driftproof::5 cases not measured in the later receipt; see" in out


def test_diff_names_them_first_in_text_markdown_and_json(tmp_path: Path) -> None:
    a, b = _refusing()
    (tmp_path / "a.json").write_text(json.dumps(a), encoding="utf-8")
    (tmp_path / "b.json").write_text(json.dumps(b), encoding="utf-8")
    ra, rb = read_receipt(tmp_path / "a.json"), read_receipt(tmp_path / "b.json")
    c = compare_receipts(ra, rb, a_name="a", b_name="b")
    assert c.headline == f"{FIVE}; 1 case improved (case-06)"
    text = comparison_text(c).splitlines()
    assert text[1] == f"{FIVE}; 1 case improved (case-06)"
    assert text[2].startswith("case-01: not measured in the later receipt: every draw lost")
    assert text[3] == (
        "case-02: not measured in the later receipt: every draw lost (with skill; 3 of 3 lost "
        "to timeout after 2 retries)"
    )
    md = comparison_markdown(c)
    assert f"**{FIVE}; 1 case improved (case-06)**" in md
    assert (
        "- case-01: not measured in the later receipt: every draw lost (with skill; 3 of 3 lost, "
        "most often to refused \\| &lt;b&gt;no&lt;/b&gt; (2))\n" in md
    )
    assert "<b>" not in md
    doc = json.loads(comparison_json(c))
    assert doc["headline"].startswith(FIVE)
    assert [u["case_id"] for u in doc["unmeasured"]] == _ids()[:5]
    first = doc["unmeasured"][0]
    assert (first["arms"], first["drawn"], first["reason"], first["reason_draws"]) == (
        ["with_skill"],
        3,
        "refused | <b>no</b>",
        2,
    )
    # each keeps its word: the five underpowered (no measured draw), case-06 improved
    words = [r["verdict"] for r in doc["rows"]]
    assert words[:5] == ["underpowered"] * 5 and words[5] == "improved"


def _one(earlier: list[float | None], later: list[float | None], cid: str = "c1") -> Any:
    """A pair of receipts: ``cid``'s with-skill draws as given, plus case c2 that improved."""
    a = make_receipt([case(cid, earlier, BASE), case("c2", WITH, BASE)])
    b = make_receipt([case(cid, later, BASE), case("c2", [0.90, 0.95, 0.90], BASE)])
    return a, b


@pytest.mark.parametrize(
    ("earlier", "later"),
    [(LOST, LOST), (LOST, WITH)],
    ids=["lost-on-both-sides", "lost-only-earlier"],
)
def test_a_case_the_earlier_receipt_did_not_measure_does_not_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, earlier: Any, later: Any
) -> None:
    code, summary = _action(tmp_path, monkeypatch, *_one(earlier, later), "regressed,not-measured")
    assert code == 0
    assert "**Decision: improved**; the job passes (fail-on: regressed, not-measured)." in summary
    assert "not measured in the later receipt" not in summary


def test_a_baseline_arm_lost_only_later_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = make_receipt([case("c1", WITH, BASE)])
    b = make_receipt([case("c1", WITH, LOST)])
    code, summary = _action(tmp_path, monkeypatch, a, b, None)
    assert code == 1
    assert (
        "- c1: not measured in the later receipt: every draw lost (baseline; 3 of 3 lost to "
        "timeout after 2 retries)\n" in summary
    )


def _output(tmp_path: Path, name: str) -> str:
    """One output as the runner reads ``$GITHUB_OUTPUT`` (``name<<DELIM`` blocks; the last wins)."""
    lines = (tmp_path / "out").read_text(encoding="utf-8").split("\n")
    i = max(k for k, x in enumerate(lines) if x.startswith(f"{name}<<"))
    return lines[i + 1]  # every value here is one line


def test_the_unmeasured_cases_output_names_them_whatever_the_decision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the decision reads improved (case-06) while the job fails on cases 01 to 05
    code, _ = _action(tmp_path, monkeypatch, *_refusing(), None)
    assert (code, _output(tmp_path, "decision")) == (1, "improved")
    assert json.loads(_output(tmp_path, "unmeasured-cases")) == _ids()[:5]
    code, _ = _action(tmp_path, monkeypatch, *_one(WITH, WITH), None)
    assert (code, json.loads(_output(tmp_path, "unmeasured-cases"))) == (0, [])


def test_no_decision_failed_by_an_unmeasured_case_says_so_in_its_annotation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # a later receipt below TESTED decides nothing; its lost c1 alone fails the job, and
    # "no decision passes by default" must not read as broken
    a = make_receipt([case("c1", WITH, BASE), case("c2", WITH, BASE)])
    b = make_receipt([case("c1", LOST, BASE), case("c2", WITH, BASE)], level="UNVERIFIED")
    code, _ = _action(tmp_path, monkeypatch, a, b, None)
    out = capsys.readouterr().out
    assert (code, _output(tmp_path, "decision")) == (1, "none")
    assert json.loads(_output(tmp_path, "unmeasured-cases")) == ["c1"]
    assert (
        "::error title=Driftproof::No decision; 1 case not measured in the later receipt; the "
        "job fails (fail-on: regressed, not-measured). See the job summary.\n" in out
    )


def test_a_measured_case_the_new_receipt_does_not_hold_fails_the_job(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found: c1 renamed c1x (or dropped) passed the gate; the new receipt gives no measurement
    # of c1, so it counts as not measured; c1x, only in the new receipt, does not count; c0,
    # measured in neither arm of the earlier receipt, does not count either
    a = make_receipt([case("c0", LOST, LOST), case("c1", WITH, BASE), case("c2", WITH, BASE)])
    b = make_receipt([case("c1x", LOST, BASE), case("c2", WITH, BASE)])
    code, summary = _action(tmp_path, monkeypatch, a, b, None)
    assert (code, json.loads(_output(tmp_path, "unmeasured-cases"))) == (1, ["c1"])
    assert "1 case not measured in the later receipt; the job fails" in summary
    assert "- c1: not measured in the later receipt: not in it (dropped or renamed)\n" in summary
    assert (
        "- not compared: c0 (only in a.json), c1 (only in a.json), c1x (only in b.json)\n"
        in summary
    )
    assert (
        "::error title=Driftproof::1 case not measured in the later receipt"
        in capsys.readouterr().out
    )
    code, _ = _action(tmp_path, monkeypatch, a, b, "regressed")  # a warning only
    assert code == 0
    # diff names it too; its verdicts and exit status (no case regressed: 0) stay the method's
    c = compare_receipts(read_receipt(tmp_path / "a.json"), read_receipt(tmp_path / "b.json"))
    assert c.headline == (
        "1 case not measured in the later receipt (c1); no separation detected at this sample size"
    )
    assert ([v.case_id for v in c.rows], exit_status(c)) == (["c2"], 0)


def test_a_smoke_run_against_a_full_baseline_fails_saying_it_runs_part_of_the_suite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found in review: run --quick answers the suite's first case only, so c2 and c3 are not in
    # it; they count as not measured (the job fails by default), and the summary said they were
    # "dropped or renamed", which the smoke run never did
    a = make_receipt([case(cid, WITH, BASE) for cid in ("c1", "c2", "c3")])
    b = make_receipt([case("c1", WITH, BASE)], level="UNVERIFIED", preset="quick")
    code, summary = _action(tmp_path, monkeypatch, a, b, None)
    assert (code, json.loads(_output(tmp_path, "unmeasured-cases"))) == (1, ["c2", "c3"])
    for cid in ("c2", "c3"):
        said = f"- {cid}: not measured in the later receipt: not in it (a smoke run, which runs"
        assert said + " part of the suite)\n" in summary
    assert "dropped or renamed" not in summary
    readme = " ".join((Path(__file__).parents[1] / "README.md").read_text("utf-8").split())
    assert (
        "a `--quick` smoke run answers the suite's first case only, and an import may name its "
        "cases otherwise, so either, against a baseline holding more cases, fails the job under "
        "the default `fail-on`" in readme
    )


def test_a_receipt_that_measured_nothing_decides_nothing_and_says_not_measured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # D-17: every draw of the new receipt lost (the factory's reason): no decision, never
    # UNDERPOWERED, and the summary names why; the default not-measured fails the job (c1 was)
    nothing = make_receipt([case("c1", [None, None, None], [None, None, None])])
    code, out, summary = run_with_outputs(tmp_path, monkeypatch, doc(HIGH, LOW), nothing)
    assert (code, out["decision"], out["draws-needed"]) == (1, "none", "")
    assert "**No decision**; 1 case not measured in the later receipt; the job fails" in summary
    assert "not measured: 6 of 6 draws lost to timeout after 2 retries" in summary
    assert "UNDERPOWERED" not in summary


def test_with_no_case_measured_in_both_a_lift_shown_is_labelled_as_its_receipts_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found: the row read "lift over the cases both measured" beside the earlier receipt's own
    # lift, above "0 of 2 cases"; by hand that lift is the mean of c1's and c2's (0.55 − 0.45)
    a = make_receipt([case("c1", WITH, BASE), case("c2", WITH, BASE)])
    b = make_receipt([case("c1", LOST, LOST), case("c2", LOST, LOST)])
    code, summary = _action(tmp_path, monkeypatch, a, b, None)
    assert code == 1
    assert (
        "| lift over each receipt's own cases (with skill − baseline) | +0.100 | n/a |" in summary
    )
    assert "over the cases both measured" not in summary


def test_two_receipts_of_one_file_name_are_told_apart_by_their_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found: main/receipt.json against pr/receipt.json read "receipt.json | receipt.json" and
    # "c1 (only in receipt.json)"; the paths as given say which is which
    (tmp_path / "main").mkdir()
    (tmp_path / "pr").mkdir()
    a, b = tmp_path / "main" / "receipt.json", tmp_path / "pr" / "receipt.json"
    a.write_text(json.dumps(make_receipt([case("c1", WITH, BASE), case("c2", WITH, BASE)])))
    b.write_text(json.dumps(make_receipt([case("c2", WITH, BASE)])))
    code, summary = run_action(tmp_path, monkeypatch, a, b, None)
    assert code == 1  # c1, measured before, is not in the new receipt
    assert f"| receipt | {a} | {b} |" in summary.replace("\\_", "_")
    assert f"c1 (only in {a})" in summary.replace("\\_", "_")
