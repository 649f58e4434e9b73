"""A case one arm of which lost every draw reads the same in every reader: underpowered, "an arm
has no measured draw", its arm "not measured" and its lost draws named with their reasons.

The method: "when an arm has a single draw, the case is underpowered"; the worked example E2 reads
an arm under two measured draws as underpowered ("an arm has fewer than two draws (no spread)"),
and none has zero (D-2, D-5). "not measured" with no verdict is the receipt in which no case was
measured in both arms (D-17), not such a case.

By hand (one judge sample per draw, scale 0 to 1), with-skill arms compared:
- c1: earlier [0.80, 0.82, 0.81] (0.81 ± 0.01); later: all 3 draws lost to "timeout after 2
  retries". No later band, so no Δ: the rule's code is underpowered (no measured draw).
- c2: [0.70, 0.71, 0.72] on both sides (0.71 ± 0.01): Δ = 0, resolution = 0.02 +
  2·sqrt(0.0001/3 + 0.0001/3) = 0.0363 < 0.05: no separation detected.
No case separated and one is underpowered: the comparison keeps the method's sentence "Not
enough draws to conclude at this effect floor.", and exits 0 (nothing regressed).
"""

from __future__ import annotations

import json
from pathlib import Path

from factories import case, make_receipt, run_main
from receipt_docs import seal_document

LOST: list[float | None] = [None, None, None]


def _write(tmp_path: Path, name: str, doc: dict[str, object]) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


def _pair(tmp_path: Path) -> tuple[str, str]:
    a = make_receipt(
        [case("c1", [0.80, 0.82, 0.81], [0.5] * 3), case("c2", [0.70, 0.71, 0.72], [0.6] * 3)]
    )
    b = make_receipt([case("c1", LOST, [0.5] * 3), case("c2", [0.70, 0.71, 0.72], [0.6] * 3)])
    return _write(tmp_path, "a.json", a), _write(tmp_path, "b.json", b)


#: Why the comparison, and ``view`` of the later receipt, read UNDERPOWERED (D-5).
WHY = "an arm has no measured draw (c1): no draw count can be worked out"


def test_a_case_whose_later_draws_were_all_lost_reads_underpowered(tmp_path, capsys):
    a, b = _pair(tmp_path)
    code, out, _ = run_main(["diff", a, b], capsys)
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith("c1 "))
    assert row.split()[1:6] == ["0.810", "±", "0.010", "not", "measured"]
    assert row.split("n/a", 1)[1].split()[0] == "underpowered"
    assert row.endswith("an arm has no measured draw")
    assert "1 underpowered, 0 inconclusive" in out
    assert f"Not enough draws to conclude at this effect floor. ({WHY})" in out
    assert "c1: not measured in the later receipt: every draw lost (with skill; 3 of 3 lost" in out
    assert "could not be compared" not in out


def test_view_and_the_badge_say_what_diff_says(tmp_path, capsys):
    from driftproof.pages.badge import badge_reading
    from driftproof.receipt import read_receipt

    # the later receipt alone: c1 with skill all lost; c2 with skill 0.710 ± 0.010 against the
    # same baseline 0.710 ± 0.010, no separation (resolution 0.036 < 0.05)
    doc = make_receipt(
        [case("c1", LOST, [0.5] * 3), case("c2", [0.70, 0.71, 0.72], [0.70, 0.71, 0.72])]
    )
    path = _write(tmp_path, "v.json", doc)
    code, out, _ = run_main(["view", path], capsys)
    assert code == 0
    assert f"UNDERPOWERED: Not enough draws to conclude at this effect floor. Why: {WHY}\n" in out
    row = next(line for line in out.splitlines() if line.lstrip().startswith("c1 "))
    assert row.split()[9] == "underpowered"  # after "–", the baseline band and the lift "–"
    b = badge_reading(read_receipt(Path(path)))
    assert (b.message, b.reason) == ("UNDERPOWERED", WHY)
    assert b.sentence == (
        "Not enough draws to conclude at this effect floor. "
        "(lift over 1 of 2 cases: case c1 has no measured draw in an arm)"
    )


def test_the_verdict_codes_stay_as_the_rule_gives_them(tmp_path, capsys):
    a, b = _pair(tmp_path)
    code, out, _ = run_main(["diff", a, b, "--format", "json"], capsys)
    doc = json.loads(out)
    assert code == 0 and doc["exit_status"] == 0
    assert [r["verdict"] for r in doc["rows"]] == ["underpowered", "no separation"]
    assert doc["underpowered_sentence"] == "Not enough draws to conclude at this effect floor."
    assert doc["draws_needed"] is None


def test_lost_on_both_sides_and_another_underpowered_case_are_said_apart(tmp_path, capsys):
    # c1: earlier 2 of 2 with-skill draws lost (timeout); later 3 of 3, one to "rate limited".
    # c2: earlier [0.70, 0.71, 0.90]: mean 0.77, sd sqrt((0.0049 + 0.0036 + 0.0169) / 2) =
    # 0.1127; later 0.71 ± 0.01; |Δ| = 0.06 < 0.1227 = sd_A + sd_B, which alone reaches 0.05:
    # underpowered, no draw count reaches the floor.
    a = make_receipt(
        [case("c1", [None, None], [0.5, 0.5]), case("c2", [0.7, 0.71, 0.9], [0.6] * 3)]
    )
    later = case("c1", LOST, [0.5] * 3)
    later["arms"]["with_skill"]["draws"][2]["lost"]["reason"] = "rate limited"
    b = make_receipt([later, case("c2", [0.70, 0.71, 0.72], [0.6] * 3)])
    code, out, _ = run_main(
        ["diff", _write(tmp_path, "a.json", a), _write(tmp_path, "b.json", b)], capsys
    )
    assert code == 0
    assert "2 underpowered, 0 inconclusive" in out
    assert (
        "(no draw count reaches the floor (c2): the two arms' spreads add up to the floor or "
        "more; more draws do not narrow a spread; an arm has no measured draw (c1): no draw "
        "count can be worked out)"
    ) in out
    assert "2 of 2 draws lost (timeout after 2 retries ×2)" in out  # each side named (D-9)
    assert "3 of 3 draws lost (timeout after 2 retries ×2, rate limited)" in out
    assert "an arm has no measured draw" in next(x for x in out.splitlines() if x.startswith("c1 "))


def test_the_actions_summary_says_the_same(tmp_path):
    from driftproof import action
    from driftproof.pages.comparison import compare_receipts
    from driftproof.receipt import read_receipt

    a, b = (read_receipt(Path(p)) for p in _pair(tmp_path))
    text = action.summary_markdown(a, b, compare_receipts(a, b, a_name="a", b_name="b"))
    assert "| c1 | underpowered | 0.810 ± 0.010 (n=3) | not measured (n=0 of 3, 3 lost) |" in text
    assert (
        "**Not enough draws to conclude at this effect floor.** An arm has no measured draw "
        "(c1): no draw count can be worked out.\n"
    ) in text


def test_a_later_aa_calibration_names_its_second_run_not_a_baseline(tmp_path, capsys):
    # an A/A calibration's baseline arm is its second run (view and the site say so); a case whose
    # second run lost every draw read "every draw lost (baseline; …)" under diff
    a = make_receipt([case("c1", [0.80, 0.82, 0.81], [0.5] * 3)])
    b = make_receipt([case("c1", [0.80, 0.82, 0.81], LOST)])
    b["run"]["aa"] = True
    pair = _write(tmp_path, "a.json", a), _write(tmp_path, "b.json", seal_document(b))
    _, out, _ = run_main(["diff", *pair], capsys)
    said = "c1: not measured in the later receipt: every draw lost (second run; 3 of 3 lost to"
    assert f"\n{said} timeout after 2 retries)\n" in out
