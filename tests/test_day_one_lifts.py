"""Issue 16, day one, continued: lifts over the same cases, diff rows and plan's minimum (see
test_day_one.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from factories import JUDGE, case, make_receipt, run_action, run_main  # noqa: E402

# ---- lifts over the same cases ---------------------------------------------------------------


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    # A: both cases measured, lifts +0.2 and +0.2. B: case y's with-skill draws all lost.
    a = make_receipt(
        [case("x", [0.7, 0.7, 0.7], [0.5, 0.5, 0.5]), case("y", [0.8, 0.8, 0.8], [0.6, 0.6, 0.6])]
    )
    b = make_receipt(
        [
            case("x", [0.7, 0.7, 0.7], [0.5, 0.5, 0.5]),
            case("y", [None, None, None], [0.2, 0.2, 0.2]),
        ]
    )
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(a))
    pb.write_text(json.dumps(b))
    return pa, pb


def test_action_compares_lifts_over_common_cases(tmp_path, monkeypatch):
    from driftproof.action import main

    pa, pb = _pair(tmp_path)
    out, summary = tmp_path / "out.txt", tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    main(["--baseline", str(pa), "--receipt", str(pb)])
    lines = out.read_text().splitlines()
    # name<<delimiter / value / delimiter blocks
    blocks = {lines[i].split("<<")[0]: lines[i + 1] for i in range(len(lines)) if "<<" in lines[i]}
    lifts = {k: blocks[k] for k in ("lift", "baseline-lift")}
    # before: baseline-lift +0.200 and lift +0.400, as if the lift had doubled; case x alone is
    # common
    assert lifts == {"lift": "+0.200", "baseline-lift": "+0.200"}
    s = summary.read_text()
    assert (
        "over the 1 case both receipts measured in both arms (earlier receipt 2 of 2, later "
        "receipt 1 of 2)" in s
    )
    # each receipt's lift over case x is its own lift (A: (.2 + .2)/2, B: .2 alone)
    assert "| lift (with skill − baseline) | +0.200 | +0.200 |" in s


def test_a_lift_over_fewer_cases_than_the_receipts_own_says_so(tmp_path, monkeypatch, capsys):
    pa, pb = _pair(tmp_path)
    doc = json.loads(pa.read_text())  # A's case y: with skill .8, baseline .4: lift +.4
    doc["cases"][1] = case("y", [0.8, 0.8, 0.8], [0.4, 0.4, 0.4])
    pa.write_text(json.dumps(make_receipt(doc["cases"])))
    # A's own lift (.2 + .4)/2 = +.300; over case x alone, the one B measured: +.200
    said = "over the 1 case both receipts measured in both arms ({} 2 of 2, its own lift +0.300; "
    code, out, _ = run_main(["diff", str(pa), str(pb)], capsys)
    assert f"{pa} +0.200, {pb} +0.200, {said.format(pa)}{pb} 1 of 2)." in out
    _, summary = run_action(tmp_path, monkeypatch, pa, pb, None)
    assert f"{said.format('earlier receipt')}later receipt 1 of 2)" in summary
    assert (
        "| lift over the cases both measured (with skill − baseline) | +0.200 | +0.200 |" in summary
    )


def test_diff_and_view_say_how_many_cases_a_lift_covers(tmp_path, capsys):
    pa, pb = _pair(tmp_path)
    code, out, _ = run_main(["diff", str(pa), str(pb)], capsys)
    assert (
        f"Lift (with skill − baseline), context: {pa} +0.200, {pb} +0.200, over the 1 case both "
        "receipts "
        "measured in both arms" in out
    )
    code, out, _ = run_main(["view", str(pb)], capsys)
    assert "+0.200 (over 1 of 2 cases: case y has no measured draw in an arm)" in out


def test_a_sentence_never_calls_zero_draws_a_single_draw():
    from driftproof.receipt import parse_receipt
    from driftproof.stats import receipt_reading

    # x: no separation; y: every with-skill draw lost, so its arm has no measured draw (not one)
    doc = make_receipt(
        [case("x", [0.7, 0.72, 0.71], [0.7, 0.72, 0.71]), case("y", [None, None], [0.6, 0.62])]
    )
    r = parse_receipt(json.dumps(doc).encode(), "b.json")
    rd = receipt_reading(r)
    assert rd.status == "UNDERPOWERED"
    assert "an arm has no measured draw (y)" in rd.reason
    assert "single" not in rd.reason


# ---- diff rows and plan's minimum ------------------------------------------------------------


def test_diff_of_two_unverified_receipts_shows_every_row_under_the_reason(tmp_path, capsys):
    a = make_receipt(
        [
            case("x", [0.7, 0.72, 0.71], [0.5, 0.52, 0.51]),
            case("y", [0.6, None, 0.62], [0.6, 0.6, 0.6]),
        ],
        level="UNVERIFIED",
    )
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(a))
    pb.write_text(json.dumps(a))
    code, out, _ = run_main(["diff", str(pa), str(pb)], capsys)
    assert code == 5  # no verdict, not bad input
    lines = out.splitlines()
    assert lines[1:3] == ["no verdict", f"{pa}: verification level UNVERIFIED is below TESTED"]
    row_x = next(ln for ln in lines if ln.startswith("x "))
    assert "0.710 ± 0.010" in row_x and "no verdict" in row_x and "3/3" in row_x
    row_y = next(ln for ln in lines if ln.startswith("y "))
    assert "0.610 ± 0.014" in row_y and "2/3" in row_y and "draws lost (reasons below)" in row_y
    # each side's count and reason under the table, as the site's demo index shows them too
    said = f"  y: {pa}: 1 of 3 draws lost (timeout after 2 retries); {pb}: 1 of 3 draws lost "
    assert said in out


def test_plan_never_recommends_fewer_draws_than_the_runs_minimum(tmp_path, capsys):
    from driftproof.pages.plan import RUN_MIN_DRAWS
    from driftproof.run.scheduler import MIN_DRAWS

    assert RUN_MIN_DRAWS == MIN_DRAWS == 3
    # spreads 0 and 0 on a 0.001 grid (one judge sample per draw): planned at the rounding
    # spread .001/√12 = .000289, upper 80% bounds over 2 df .000289/√(.446287/2) = .000611
    # each; any count resolves the floor and calls .075 (lift low .075 − 1.645·.000611·√(2/3)
    # = .0742); D-5 alone gives 2 draws per arm, a run's minimum is 3
    judge = dict(JUDGE, scale={"worst": 0.0, "best": 1.0, "step": 0.001})
    p = tmp_path / "r.json"
    p.write_text(
        json.dumps(make_receipt([case("x", [0.60, 0.60, 0.60], [0.45, 0.45, 0.45])], judge=judge))
    )
    code, out, _ = run_main(["plan", str(p)], capsys)
    assert code == 0 and out.startswith("Run 3 draws per arm.")
    assert "  x: 3 (pilot measured 3 with skill, 3 baseline; spreads 0.000 and 0.000" in out
