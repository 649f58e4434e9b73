"""The Action's ``aa:`` input (issue 37, item 4): an A/A receipt is cited in the job summary
beside the verdicts and never changes the decision; a receipt that is not one is an error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from factories import case, make_receipt
from receipt_docs import seal_document

from driftproof import action

# c1 regresses from .85 to .55 (Δ −.30 > .10); the A/A pair of c1 calls nothing (Δ 0).
BASE = [case("c1", [0.80, 0.85, 0.90], [0.50, 0.55, 0.60])]
NEW = [case("c1", [0.50, 0.55, 0.60], [0.50, 0.55, 0.60])]
AA = [case("c1", [0.80, 0.85, 0.90], [0.80, 0.85, 0.90])]


def _setup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, aa: bool, aa_skill: str = "demo-skill"
) -> Path:
    paths = {}
    for name, cases, is_aa in (("a", BASE, False), ("b", NEW, False), ("aa", AA, aa)):
        doc = make_receipt(cases)
        doc["suite"]["sha256"] = "cd" * 32  # as run records it
        if is_aa:
            doc["run"]["aa"] = True
            doc["skill"]["name"] = aa_skill
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(json.dumps(seal_document(doc)))
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "output"))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("DRIFTPROOF_BASELINE", str(paths["a"]))
    monkeypatch.setenv("DRIFTPROOF_RECEIPT", str(paths["b"]))
    monkeypatch.setenv("DRIFTPROOF_AA", str(paths["aa"]))
    monkeypatch.delenv("DRIFTPROOF_FAIL_ON", raising=False)
    return summary


def test_aa_is_cited_and_the_decision_stands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = _setup(tmp_path, monkeypatch, aa=True)
    assert action.main([]) == 1  # c1 regressed: the default still fails the job
    text = summary.read_text()
    assert text.startswith("## Driftproof: regressed")
    assert "A/A calibration aa.json: the rule called a change, up or down, in 0 of 1 case" in text


def test_a_receipt_that_is_not_aa_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = _setup(tmp_path, monkeypatch, aa=False)
    assert action.main([]) == 2
    assert "/run/aa: expected an A/A calibration" in summary.read_text()


def test_an_aa_receipt_of_another_skill_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = _setup(tmp_path, monkeypatch, aa=True, aa_skill="other-skill")
    assert action.main([]) == 2
    line = (
        f"{tmp_path}/aa.json: /skill/name: expected the compared receipts' skill (demo-skill), "
        "found other-skill: an A/A calibration is cited only for its own skill and suite"
    )
    assert summary.read_text() == f"## Driftproof: error\n\n- {action.md_escape(line, 1000)}\n"
    assert (tmp_path / "output").read_text().startswith("decision<<")


def test_with_no_job_summary_file_the_command_cited_takes_the_aa_receipt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # another CI: the notes said "driftproof diff BASELINE RECEIPT prints the same comparison",
    # a comparison without the A/A line the job summary would have held
    _setup(tmp_path, monkeypatch, aa=True)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY")
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    assert action.main([]) == 1
    err = capsys.readouterr().err
    # and it named placeholders, not the files given (a newcomer's issue)
    cmd = f"driftproof diff {tmp_path / 'a.json'} {tmp_path / 'b.json'} --aa {tmp_path / 'aa.json'}"
    assert (
        "driftproof: no job summary was written (GITHUB_STEP_SUMMARY names no file); "
        f"{cmd} prints the same comparison\n"
    ) in err
    assert f"error: 1 case regressed; see {cmd}\n" in err
