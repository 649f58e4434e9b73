"""The Action's script run off GitHub (locally, or as another CI's gate): a missing input is
named as the command line's option, not as the Action's input."""

from __future__ import annotations

from pathlib import Path

import pytest

from driftproof import action


def test_missing_input_off_github_names_the_option(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # run locally or as another CI's gate (the README's command), "input baseline" named an
    # Action input the command line does not have
    for name in ("DRIFTPROOF_BASELINE", "DRIFTPROOF_RECEIPT", "GITHUB_ACTIONS", "GITHUB_OUTPUT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "s.md"))
    assert action.main([]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "error: --baseline FILE is required: the path of a receipt",
        "error: --receipt FILE is required: the path of a receipt",
    ]


def test_help_lists_the_exit_statuses(capsys: pytest.CaptureFixture[str]) -> None:
    # action.yml says the script documents every exit status; its --help listed none
    with pytest.raises(SystemExit) as done:
        action.main(["--help"])
    assert done.value.code == 0
    flat = " ".join(capsys.readouterr().out.split())
    said = flat[flat.index("Exit status:") :]
    # "no decision passes unless fail-on names none": a case not measured fails it by default
    assert "0 when the job passes (no decision alone passes unless fail-on names none)" in said
    for words in ("1 when it fails", "2 when an input is missing"):
        assert words in said, words
    assert "130 when stopped before a decision" in said and "141 when stdout is closed" in said
