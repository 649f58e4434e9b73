"""``run --aa`` and ``run --margin`` (issue 37, items 4 and 5): an A/A calibration runs the
with-skill arm twice under the same settings and records ``run.aa``; a margin declared before
the run is recorded in ``run.quality_margin``; readers cite the A/A receipt, never a verdict."""

from __future__ import annotations

import hashlib

from click.testing import CliRunner

from driftproof.cli import cli
from driftproof.cli.run import run as run_cmd
from driftproof.receipt import read_receipt
from driftproof.stats.reading import verdict_refusal


def _args(suite_file, skill_file, out, *extra):
    return [
        str(suite_file),
        "--skill",
        str(skill_file),
        "--model",
        "claude-sonnet-4-6",
        "--out",
        str(out),
        "--provider",
        "stub",
        "--retry-delays",
        "0.01,0.02",
        *extra,
    ]


def test_aa_run_gives_both_arms_the_skill_and_records_it(suite_file, skill_file, tmp_path):
    out = tmp_path / "aa.json"
    res = CliRunner().invoke(
        run_cmd, _args(suite_file, skill_file, out, "--aa", "--margin", "0.05")
    )
    assert res.exit_code == 0, res.output
    r = read_receipt(out)
    assert r.run.aa is True and r.run.quality_margin == 0.05
    assert r.arms.baseline.construction == "skill"
    assert r.arms.baseline.system_prompt_sha256 == r.arms.with_skill.system_prompt_sha256
    assert verdict_refusal(r) is not None and "A/A calibration" in verdict_refusal(r)
    sheet = CliRunner().invoke(cli, ["view", str(out)]).output
    assert "A/A calibration (this receipt): the rule called a change, up or down, in 0 of" in sheet


def test_an_ordinary_run_records_neither(suite_file, skill_file, tmp_path):
    out = tmp_path / "r.json"
    assert CliRunner().invoke(run_cmd, _args(suite_file, skill_file, out)).exit_code == 0
    r = read_receipt(out)
    assert r.run.aa is None and r.run.quality_margin is None
    assert r.arms.baseline.construction == "bare"
    assert '"aa"' not in out.read_text()  # absent, not false (D-13)


def test_aa_takes_no_control(suite_file, skill_file, tmp_path):
    out = tmp_path / "aa.json"
    res = CliRunner().invoke(
        run_cmd, _args(suite_file, skill_file, out, "--aa", "--control", "Answer concisely.")
    )
    assert res.exit_code != 0 and "takes no control" in res.output
    assert not out.exists()


def test_a_margin_outside_zero_to_one_is_refused(suite_file, skill_file, tmp_path):
    res = CliRunner().invoke(
        run_cmd, _args(suite_file, skill_file, tmp_path / "r.json", "--margin", "0")
    )
    assert res.exit_code != 0 and "--margin" in res.output


def test_an_aa_run_records_its_suite_sha256_so_it_calibrates_a_run_of_that_suite(
    suite_file, skill_file, tmp_path
):
    # the A/A check refuses a receipt that records no suite sha256: run records the file's
    from driftproof.stats.aa import aa_problem

    paths = (tmp_path / "aa.json", tmp_path / "r.json")
    for out, extra in zip(paths, (["--aa"], []), strict=True):
        assert (
            CliRunner().invoke(run_cmd, _args(suite_file, skill_file, out, *extra)).exit_code == 0
        )
    aa, r = (read_receipt(p) for p in paths)
    assert aa.suite.sha256 == r.suite.sha256 == hashlib.sha256(suite_file.read_bytes()).hexdigest()
    assert aa_problem("aa.json", aa, (("a.json", r), ("b.json", r))) is None
