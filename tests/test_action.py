"""The GitHub Action: action.yml and the site workflow checked offline against the vendored GitHub
schemas, and the composite's script run with fake GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files.

Expected decisions are worked out by hand from the per-draw scores (one judge sample per draw):
a diff compares the with-skill arms of the same case (D-6); a case is called only when the bands
are apart and |Δ| ≥ 0.05 (D-3, D-4).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from factories import case, edited, make_receipt
from receipt_docs import seal_document

from driftproof import action
from driftproof.pages.comparison import compare_receipts
from driftproof.pages.comparison_decision import DECISIONS
from driftproof.receipt import Receipt

ROOT = Path(__file__).resolve().parents[1]
ACTION_YML = ROOT / "action.yml"
SITE_YML = ROOT / ".github" / "workflows" / "site.yml"
BIN = Path(sys.executable).parent
SHA_PINNED = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@[0-9a-f]{40}$")

# Baseline receipt: with skill [0.80, 0.85, 0.90] (band 0.85 ± 0.05), baseline arm
# [0.50, 0.55, 0.60] (0.55 ± 0.05): lift +0.300.
HIGH = [0.80, 0.85, 0.90]
LOW = [0.50, 0.55, 0.60]
# New receipt for "regressed": with skill LOW (0.55 ± 0.05), baseline arm [0.40, 0.45, 0.50] (0.45):
# lift +0.100. Diff of with-skill arms: [0.80, 0.90] vs [0.50, 0.60] apart, Δ = −0.30 -> regressed.
LOWER = [0.40, 0.45, 0.50]


def doc(
    with_skill: list[float], baseline: list[float], cid: str = "c1", **kw: Any
) -> dict[str, Any]:
    return make_receipt([case(cid, with_skill, baseline)], **kw)


def write(tmp_path: Path, name: str, d: dict[str, Any]) -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(d), encoding="utf-8")
    return p


def parse_outputs(text: str) -> dict[str, str]:
    """Read a GITHUB_OUTPUT file as the runner does (``name=value`` and ``name<<DELIM`` blocks)."""
    out: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line:
            name, delim = line.split("<<", 1)
            end = lines.index(delim, i + 1)
            out[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
        elif line:
            name, value = line.split("=", 1)
            out[name] = value
            i += 1
        else:
            i += 1
    return out


def run_action(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    baseline: dict[str, Any],
    new: dict[str, Any],
    fail_on: str | None = None,
) -> tuple[int, dict[str, str], str]:
    a = write(tmp_path, "baseline.json", baseline)
    b = write(tmp_path, "new.json", new)
    gh_out, gh_sum = tmp_path / "output", tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_OUTPUT", str(gh_out))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(gh_sum))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")  # as GitHub sets it for every step
    monkeypatch.setenv("DRIFTPROOF_BASELINE", str(a))
    monkeypatch.setenv("DRIFTPROOF_RECEIPT", str(b))
    if fail_on is not None:
        monkeypatch.setenv("DRIFTPROOF_FAIL_ON", fail_on)
    else:
        monkeypatch.delenv("DRIFTPROOF_FAIL_ON", raising=False)
    code = action.main([])
    return code, parse_outputs(gh_out.read_text()), gh_sum.read_text()


# ---- the script -----------------------------------------------------------------------------


def test_regressed_fails_the_job_and_sets_outputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, summary = run_action(tmp_path, monkeypatch, doc(HIGH, LOW), doc(LOW, LOWER))
    assert (code, out["decision"], json.loads(out["regressed-cases"])) == (1, "regressed", ["c1"])
    assert (out["lift"], out["baseline-lift"], out["draws-needed"]) == ("+0.100", "+0.300", "")
    assert summary.startswith("## Driftproof: regressed") and "the job fails" in summary
    assert "| c1 | regressed | 0.850 ± 0.050 (n=3) | 0.550 ± 0.050 (n=3) | −0.300 |" in summary
    # both tables name the receipts in the legend's words (Δ = later − earlier), as diff does
    assert "\n| | earlier | later |\n|---|---|---|\n| receipt | " in summary
    assert (
        "\n| case | verdict | earlier band | later band | Δ | draws needed per arm |\n" in summary
    )


def test_improved_passes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Swapped: with-skill arms 0.55 -> 0.85, Δ = +0.30, apart -> improved; the job passes.
    code, out, summary = run_action(tmp_path, monkeypatch, doc(LOW, LOWER), doc(HIGH, LOW))
    assert (code, out["decision"], json.loads(out["regressed-cases"])) == (0, "improved", [])
    assert "the job passes" in summary


def test_smoke_run_no_decision_lift_na(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The new receipt is a quick run whose bands would read regressed if it were TESTED.
    smoke = doc(LOW, LOWER, level="UNVERIFIED", preset="quick")
    code, out, summary = run_action(tmp_path, monkeypatch, doc(HIGH, LOW), smoke)
    assert code == 0
    assert out["decision"] == "none"
    assert out["lift"] == "n/a" and out["baseline-lift"] == "n/a"
    assert json.loads(out["regressed-cases"]) == []
    assert "No decision" in summary and "Smoke run, no verdict" in summary
    assert "+0.100" not in summary and "+0.300" not in summary  # lift n/a in the summary too
    assert "| lift (with skill − baseline) | n/a | n/a |" in summary


def test_below_tested_no_decision_keeps_lift(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    declared = doc(LOW, LOWER, level="DECLARED")
    declared["run"]["model"] = None  # an import of a source that names no model
    code, out, summary = run_action(tmp_path, monkeypatch, doc(HIGH, LOW), seal_document(declared))
    assert code == 0 and out["decision"] == "none"
    assert "| model | claude-sonnet-4-5 | not recorded |\n" in summary  # as view says; not unknown
    assert out["lift"] == "+0.100"  # not a smoke run: the lift stays, as context
    assert "below TESTED" in summary
    # the default fail-on passes a no decision, and both the summary and an annotation say so
    said = 'No decision; the job passes (fail-on: regressed, not-measured). Add "none" to fail-on'
    said += " to fail it."
    assert summary.startswith(
        f"## Driftproof: no decision\n\n**No decision**; {said[len('No decision; ') :]}\n\n"
        "A side gets no verdict (below TESTED,"
    )
    assert f"::warning title=Driftproof::{said} See the job summary.\n" in capsys.readouterr().out
    # each case's bands as context, in the table diff prints: 0.850 ± 0.050 → 0.550 ± 0.050
    assert (
        "The bands below are shown as context; no verdict is given.\n\n| case | earlier "
        "(generation) |" in summary
    )
    assert (
        "| c1 | 0.850 ± 0.050 | 0.550 ± 0.050 | −0.300 | no verdict | 3/3 | 3/3 |  |\n" in summary
    )


def test_fail_on_none_fails_a_no_decision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, summary = run_action(
        tmp_path,
        monkeypatch,
        doc(HIGH, LOW),
        doc(HIGH, LOW, level="DECLARED"),
        fail_on="regressed, none",
    )
    assert (code, out["decision"]) == (1, "none")
    said = "No decision; the job fails (fail-on: regressed, none)."
    assert "\n\n**No decision**; the job fails (fail-on: regressed, none).\n\n" in summary
    assert f"::error title=Driftproof::{said} See the job summary.\n" in capsys.readouterr().out


def test_underpowered_prints_draws_needed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # With-skill arms [0.60, 0.62, 0.64] (sd 0.02) vs [0.585, 0.60, 0.615] (sd 0.015): Δ −0.02,
    # overlapping; resolution 0.035 + 2·sqrt(0.000625/3) = 0.064 ≥ 0.05 -> underpowered;
    # draws needed: 0.035 + 2·sqrt(0.000625/n) < 0.05 <=> n > 11.1 -> 12.
    code, out, summary = run_action(
        tmp_path, monkeypatch, doc([0.60, 0.62, 0.64], LOW), doc([0.585, 0.60, 0.615], LOW)
    )
    assert code == 0
    assert out["decision"] == "UNDERPOWERED"
    assert out["draws-needed"] == "12"
    # the title is the decision; the headline under it is diff's (no case separated), as the
    # method has both, then the decision in words, a full sentence
    assert summary.startswith("## Driftproof: UNDERPOWERED\n\n**Decision: UNDERPOWERED**; the job")
    assert (
        "\n\nno separation detected at this sample size\n\n1 case: 0 improved, 0 regressed, 0 "
        "below effect floor, 0 no separation detected at this sample size, 1 underpowered, 0 "
        "inconclusive\n\n**Not enough draws to conclude at this effect floor.** 12 draws per arm "
        "would have been needed with the spreads held, for the bands as measured; driftproof plan "
        "sizes a next run from the spreads' upper bounds, so its count differs.\n\n"
    ) in summary
    assert "| c1 | underpowered |" in summary and "| 12 |" in summary


def test_no_separation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Both with-skill arms [0.60, 0.61] × 5: Δ 0, resolution 0.0153 < 0.05 -> no separation.
    same = [0.60, 0.61] * 5
    code, out, summary = run_action(tmp_path, monkeypatch, doc(same, same), doc(same, same))
    assert (code, out["decision"]) == (0, "no separation detected")
    assert "no separation detected at this sample size" in summary


def test_summary_says_diffs_different_skills_and_bands_sentences(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same bands as test_no_separation, the new receipt of another skill: diff's two lines.
    same = [0.60, 0.61] * 5
    other = doc(same, same)
    other["skill"]["name"] = "other-skill"
    code, out, summary = run_action(tmp_path, monkeypatch, doc(same, same), seal_document(other))
    assert (code, out["decision"]) == (0, "no separation detected")
    assert (
        "\n\nThe two receipts measure different skills (demo-skill and other-skill): a diff is "
        "meant for two runs of the same skill.\n\nBands: mean ± one sample sd; Δ = later − "
        "earlier, with-skill arms, worked from the unrounded means.\n\n- generation: bands across "
        "draws: "
    ) in summary


def test_summary_says_diffs_different_models_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    same = [0.60, 0.61] * 5  # as test_no_separation; the new receipt answered by another model
    other = doc(same, same)
    other["run"]["model"] = "gpt-5"
    _, _, summary = run_action(tmp_path, monkeypatch, doc(same, same), seal_document(other))
    assert (
        "\n\nThe two receipts were answered by different models (claude-sonnet-4-5 and gpt-5): a "
        "change between them may be the model's, not the skill's.\n\nBands: "
    ) in summary


def test_bad_receipt_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = doc(HIGH, LOW)
    bad["skill"]["name"] = "tampered"  # seal mismatch (D-12)
    code, out, summary = run_action(tmp_path, monkeypatch, doc(HIGH, LOW), bad)
    assert code == 2
    assert out == {"decision": "error"}
    assert "new.json" in summary


def test_missing_input_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DRIFTPROOF_BASELINE", raising=False)
    monkeypatch.delenv("DRIFTPROOF_RECEIPT", raising=False)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "s.md"))
    monkeypatch.delenv("GITHUB_OUTPUT", raising=False)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")  # as the Action: its inputs' names
    assert action.main([]) == 2
    assert "input baseline is required" in (tmp_path / "s.md").read_text()


def test_script_runs_as_the_composite_runs_it(tmp_path: Path) -> None:
    """``python -m driftproof.action`` in a subprocess, inputs through env as action.yml passes
    them."""
    a = write(tmp_path, "baseline.json", doc(HIGH, LOW))
    b = write(tmp_path, "new.json", doc(LOW, LOWER))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "DRIFTPROOF_"))}
    env.update(
        GITHUB_OUTPUT=str(tmp_path / "out"),
        GITHUB_STEP_SUMMARY=str(tmp_path / "sum.md"),
        DRIFTPROOF_BASELINE=str(a),
        DRIFTPROOF_RECEIPT=str(b),
        DRIFTPROOF_FAIL_ON="regressed",
        GITHUB_ACTIONS="true",
    )
    res = subprocess.run(
        [sys.executable, "-m", "driftproof.action"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert res.returncode == 1, res.stderr
    assert parse_outputs((tmp_path / "out").read_text())["decision"] == "regressed"
    assert "c1" not in res.stdout  # no untrusted text on stdout (workflow commands)
    assert (
        "::error title=Driftproof::1 case regressed; see the job summary" in res.stdout.splitlines()
    )


# ---- the summary ----------------------------------------------------------------------------


def test_summary_truncates_with_n_more_and_stays_under_the_cap() -> None:
    cases = [case(f"case-{i:04d}", HIGH, LOW) for i in range(600)]
    a = Receipt.model_validate(make_receipt(cases))
    b = Receipt.model_validate(make_receipt(cases))
    c = compare_receipts(a, b, a_name="a.json", b_name="b.json")
    text = action.summary_markdown(a, b, c)
    assert "… 100 more cases not shown." in text  # 500 rows shown of 600
    assert text.count("| case-") == 500
    small = action.summary_markdown(a, b, c, max_bytes=20_000)
    assert len(small.encode()) <= 20_000
    shown = small.count("| case-")
    assert 0 < shown < 600 and f"… {600 - shown} more cases not shown." in small


def test_summary_escapes_untrusted_text() -> None:
    # a case id the model and the schema refuse, set past them as a buggy writer could
    evil = "x|<script>alert(1)</script>\n## heading"
    a = edited(Receipt.model_validate(make_receipt([case("x", HIGH, LOW)])), "/cases/0/id", evil)
    b = edited(Receipt.model_validate(make_receipt([case("x", LOW, LOWER)])), "/cases/0/id", evil)
    text = action.summary_markdown(a, b, compare_receipts(a, b, a_name="a", b_name="b"))
    assert "<script>" not in text and "\n## heading" not in text
    assert "x\\|\\<script\\>" in text


# ---- action.yml and the workflow, offline -----------------------------------------------------


def _tool(name: str) -> str:
    path = BIN / name
    if path.exists():
        return str(path)
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: it is pinned in requirements.lock")
    return found


@pytest.mark.parametrize(
    ("schema", "path"),
    [("vendor.github-actions", ACTION_YML), ("vendor.github-workflows", SITE_YML)],
)
def test_yaml_valid_against_vendored_github_schema(schema: str, path: Path) -> None:
    res = subprocess.run(
        [_tool("check-jsonschema"), "--builtin-schema", schema, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert res.returncode == 0, res.stdout + res.stderr


def test_vendored_schema_rejects_a_run_step_without_shell(tmp_path: Path) -> None:
    data = yaml.safe_load(ACTION_YML.read_text())
    del data["runs"]["steps"][2]["shell"]
    bad = tmp_path / "action.yml"
    bad.write_text(yaml.safe_dump(data))
    res = subprocess.run(
        [_tool("check-jsonschema"), "--builtin-schema", "vendor.github-actions", str(bad)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert res.returncode != 0


def test_zizmor_offline_finds_nothing() -> None:
    res = subprocess.run(
        [_tool("zizmor"), "--offline", "--persona=auditor", str(ACTION_YML), str(SITE_YML.parent)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert res.returncode == 0, res.stdout + res.stderr


def _uses(steps: list[dict[str, Any]]) -> list[str]:
    return [s["uses"] for s in steps if "uses" in s]


def test_action_conventions() -> None:
    data = yaml.safe_load(ACTION_YML.read_text())
    assert data["runs"]["using"] == "composite"
    steps = data["runs"]["steps"]
    for s in steps:
        if "run" in s:
            assert s.get("shell"), s
            assert "${{" not in s["run"], s  # inputs through env:, never inline
    assert all(SHA_PINNED.match(u) for u in _uses(steps))
    install = next(s["run"] for s in steps if "pip install" in s.get("run", ""))
    assert '"$GITHUB_ACTION_PATH"' in install and "requirements.lock" in install
    diff = next(s for s in steps if s.get("id") == "diff")
    assert diff["run"] == "python -m driftproof.action"
    assert set(diff["env"]) == {
        "DRIFTPROOF_BASELINE",
        "DRIFTPROOF_RECEIPT",
        "DRIFTPROOF_FAIL_ON",
        "DRIFTPROOF_AA",  # the aa: input
    }
    # Every output the script writes is exposed, and only those.
    assert set(data["outputs"]) == {
        "decision",
        "lift",
        "baseline-lift",
        "regressed-cases",
        "unmeasured-cases",
        "draws-needed",
    }
    for name, spec in data["outputs"].items():
        assert spec["value"] == f"${{{{ steps.diff.outputs.{name} }}}}"
    assert data["inputs"]["fail-on"]["default"] == "regressed,not-measured"
    # every value the decision output takes, error included, is named in its description
    words = " ".join(data["outputs"]["decision"]["description"].split())
    assert all(re.search(rf"\b{d}\b", words) for d in (*DECISIONS, "error"))


def test_readme_says_the_seal_is_not_a_signature_and_how_to_gate() -> None:
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "a hand edit breaks the seal" not in text
    assert "it is not a signature, and anyone can re-seal an edited receipt" in text
    assert "for a gate produce the new receipt in CI and keep the baseline on the protected" in text


def test_site_workflow_builds_reports_and_uploads_site() -> None:
    data = yaml.safe_load(SITE_YML.read_text())
    on = data.get("on", data.get(True))  # PyYAML reads the key `on` as True
    assert "push" in on
    steps = data["jobs"]["reports"]["steps"]
    assert any(s.get("run") == "make reports" for s in steps)
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["with"]["path"] == "site/"
    assert all(SHA_PINNED.match(u) for u in _uses(steps))
    assert data["permissions"] == {"contents": "read"}


def test_ci_run_still_runs_make_test() -> None:
    assert (ROOT / ".ci" / "run").read_text().strip().endswith("make test")


def test_md_escape_shows_control_characters_escaped() -> None:
    # Probe (round 4): an ESC byte of a skill's name reached the job summary raw.
    from driftproof.action import md_escape

    out = md_escape("skill\x1b[31m\x07|x")
    assert "\x1b" not in out and "\x07" not in out
    assert out == "skill\\\\x1b\\[31m\\\\x07\\|x"
