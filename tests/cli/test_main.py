"""The console entry point turns exit codes and Driftproof errors into process exits."""

from __future__ import annotations

import pytest

from driftproof.cli import main


def test_failed_validation_exits_1(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["validate", str(tmp_path / "missing.json")])
    assert exc.value.code == 1
    assert "missing.json" in capsys.readouterr().out


def test_version_exits_0(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert "driftproof, version" in capsys.readouterr().out


def test_driftproof_error_is_one_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(SystemExit) as exc:
        main(["view", str(bad)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and str(bad) in err and "Traceback" not in err


def test_unknown_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["no-such-command"])
    assert exc.value.code == 2
