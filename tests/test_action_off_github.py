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
