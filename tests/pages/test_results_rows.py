"""The results page's rows, worked out by hand from the receipts' own draws (surviving mutants
of driftproof/pages/results.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent))
from day_one_helpers import run_args, write_files  # noqa: E402
from factories import case, make_receipt, run_main  # noqa: E402

from driftproof.pages.results import listed_receipt, results_rows  # noqa: E402
from driftproof.receipt import Receipt, read_receipt  # noqa: E402


def test_a_regrade_of_a_stub_run_is_grouped_as_a_stub_run_not_as_an_import(
    tmp_path, capsys
) -> None:
    # A regrade names "driftproof regrade" as its provenance's tool, but it is no import: its
    # row's source is what it is, a stub run (the stub answered), as its original's is.
    suite, skill = write_files(tmp_path)
    run, regraded = tmp_path / "run.json", tmp_path / "regraded.json"
    assert run_main(run_args(suite, skill, run, "--keep-transcripts"), capsys)[0] == 0
    regrade = ["regrade", str(run), "--rubric", str(suite), "--out", str(regraded)]
    assert run_main(regrade, capsys)[0] == 0
    rows = {
        x.receipt: x for x in results_rows({"o": read_receipt(run), "r": read_receipt(regraded)})
    }
    assert rows["o"].source == rows["r"].source == "stub run"
    assert not rows["r"].measured


ROOT = Path(__file__).resolve().parents[2]


def test_an_import_scored_in_both_arms_of_every_case_gives_its_lift_after_its_means() -> None:
    # claude plugin eval's probe: one case, one run each way, scored 1.0 with the skill and 0.0
    # without it. Both means are over the same case, so the lift, 1.0 - 0.0 = +1.000, follows
    # them as one more figure, not as "over different cases, so not to be subtracted".
    name = "claude-plugin-eval-probe-plugin-8955eb63"
    r = read_receipt(ROOT / "receipts" / f"{name}.json")
    (row,) = results_rows({name: r})
    assert row.headline == (
        "mean score with the skill 1.000 over 1 case, one scored draw; without it 0.000 over 1 "
        "case, one scored draw; lift over the 1 case measured in both arms +1.000"
    )
    # the receipts index names the model the receipt records, and this one records none
    assert listed_receipt(name, r, "0" * 64, row)["model"] == "not recorded"


def test_the_receipts_index_names_the_recorded_model() -> None:
    r = Receipt.model_validate(make_receipt([case("c1", [0.5, 0.7], [0.4, 0.6])]))
    (row,) = results_rows({"x": r})
    listed = listed_receipt("x", r, "0" * 64, row)
    assert listed["model"] == "claude-sonnet-4-5" and listed["cases"] == "1"


def test_a_group_id_is_its_title_lowercased_each_run_of_other_characters_one_hyphen() -> None:
    from dataclasses import replace

    from driftproof.pages.results import results_groups

    r = Receipt.model_validate(make_receipt([case("c1", [0.5, 0.7], [0.4, 0.6])]))
    (row,) = results_rows({"x": r})
    rows = [replace(row, skill="My  Skill!"), replace(row, receipt="y", skill="my skill")]
    measured, _ = results_groups(rows)
    # "My  Skill!" → "my-skill"; "my skill" → "my-skill" again, so the second is made unique
    assert [g.id for g in measured] == ["skill-my-skill", "skill-my-skill-2"]
