"""Each command says what to run next (a newcomer's report): stale names the command with the
receipt's own arguments, regrade the diff of original and new receipt, badge how to embed its
endpoint, export what the file is for; after run --quick no diff that always reads no verdict."""

from __future__ import annotations

from pathlib import Path

import pytest
from day_one_helpers import run_args, write_files
from factories import run_main

ROOT = Path(__file__).resolve().parents[1]


def _ran(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[Path, ...]:
    suite, skill = write_files(tmp_path)
    first = tmp_path / "first.json"
    code, out, err = run_main(run_args(suite, skill, first, *extra), capsys)
    assert code == 0, err
    return suite, skill, first, out


@pytest.mark.parametrize("keep", [False, True])
def test_stale_names_the_command_to_run_with_the_receipts_own_arguments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], keep: bool
) -> None:
    extra = ("--keep-transcripts",) if keep else ()
    suite, skill, first, _ = _ran(tmp_path, capsys, *extra)
    stale = ["stale", str(first), "--model", "m", "--skill", str(skill), "--suite", str(suite)]
    said = run_main([*stale, "--judge-model", "another-judge"], capsys)[1]
    # the run's model m, lane stub and judge lane, recorded, and its 3 draws in every arm (the
    # stub's scores settle at the stopping rule's least); today's judge, suite and skill as given
    if keep:  # a new judge grades the kept answers again
        expected = (
            f"To grade its kept answers again: driftproof regrade {first} --rubric {suite} --out "
            "NEW.json --judge-provider stub --judge-model another-judge."
        )
    else:  # no answer kept: run again
        expected = (
            f"To measure it again: driftproof run {suite} --skill {skill} --model m --provider "
            f"stub --judge-provider stub --judge-model another-judge --draws 3 --out NEW.json, "
            f"then driftproof diff {first} "
            "NEW.json."
        )
    assert said.splitlines()[-1] == expected


def test_a_rubric_regrade_ends_with_the_diff_of_original_and_new(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite, _, first, _ = _ran(tmp_path, capsys, "--keep-transcripts")
    new = tmp_path / "new.json"
    code, out, err = run_main(
        ["regrade", str(first), "--rubric", str(suite), "--out", str(new)], capsys
    )
    assert code == 0, err
    assert out.splitlines()[-1] == f"To compare it with the original: driftproof diff {first} {new}"


def test_badge_says_how_to_embed_its_endpoint_and_the_readme_says_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, _, first, _ = _ran(tmp_path, capsys)
    code, out, err = run_main(["badge", str(first), "--out-dir", str(tmp_path / "b")], capsys)
    assert code == 0, err
    # shields.io's endpoint badge: https://img.shields.io/endpoint?url=<URL-encoded address>
    url = "https://img.shields.io/endpoint?url=ADDRESS"
    assert out.splitlines()[-1].startswith(
        f"To show the badge, publish first.json at a public address and embed the image {url} "
        "(ADDRESS URL-encoded)"
    )
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.count("img.shields.io/endpoint") == 1


def test_export_says_what_the_file_is_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a stub run's receipt is refused by export: the one the quick start's real run gives is
    # stood in for by a regrade-free simulated-free receipt from the factories
    import json

    from factories import case, make_receipt

    receipt = tmp_path / "r.json"
    receipt.write_text(json.dumps(make_receipt([case("c1", [0.6, 0.7, 0.8], [0.4, 0.5, 0.6])])))
    out_file = tmp_path / "r.summary.json"
    code, out, err = run_main(
        ["export", "summary-json", str(receipt), "--out", str(out_file)], capsys
    )
    assert code == 0, err
    assert out.splitlines() == [
        f"wrote {out_file}",
        f"Give {out_file} to a harness or tool that reads summary-json (the format: the site's "
        'interoperability page, "summary-json"); driftproof import summary-json '
        f"{out_file} reads it back as a DECLARED receipt.",
    ]


def test_a_quick_run_does_not_suggest_a_diff_that_reads_no_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, _, first, out = _ran(tmp_path, capsys, "--quick")
    nxt = [x for x in out.splitlines() if x.startswith("next: ")]
    assert nxt == [
        f"next: driftproof view {first} to read it; a --quick run is a smoke test, so a diff of "
        "it gives no verdict: a full run (without --quick) gives a receipt to compare"
    ]


def test_an_aa_run_names_plan_and_diff_aa_not_a_diff_of_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # diff refuses an A/A receipt as a side (exit 5): its next steps are plan and diff --aa
    _, _, first, out = _ran(tmp_path, capsys, "--aa")
    nxt = [x for x in out.splitlines() if x.startswith("next: ")]
    assert nxt == [
        f"next: driftproof view {first} to read it; driftproof plan {first} for the draws per arm "
        f"a gate needs; driftproof diff A.json B.json --aa {first} to cite it beside a comparison"
    ]


def test_regrade_of_a_receipt_that_kept_no_answers_exits_2_as_the_readme_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite, _, first, _ = _ran(tmp_path, capsys)  # no --keep-transcripts: no answer kept
    new = tmp_path / "new.json"
    code, _, err = run_main(
        ["regrade", str(first), "--rubric", str(suite), "--out", str(new)], capsys
    )
    assert code == 2 and "--keep-transcripts" in err and not new.exists()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    row = next(x for x in readme.splitlines() if x.startswith("| `driftproof regrade "))
    assert "2 when the receipt kept no answers to grade (run it with `--keep-transcripts`)" in row
