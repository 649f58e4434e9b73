"""The Action's workflow commands (annotations) escaped as GitHub's runner decodes them.

GitHub's runner reads ``%25``, ``%0D`` and ``%0A`` in a workflow command's message as ``%``, CR
and LF, and also ``%3A`` and ``%2C`` in a property's value as ``:`` and ``,`` (the toolkit's
``escapeData`` and ``escapeProperty``).
"""

from __future__ import annotations

from test_action_words import _regressed_pair

from driftproof import action


def test_a_percent_in_a_file_name_is_no_escape_github_decodes(
    tmp_path, monkeypatch, capsys
) -> None:
    # Found: "a%0A::error::x.json" was printed as it is; GitHub read %0A as a line break, so a
    # file's name could start a workflow command of its own
    a, b = _regressed_pair(tmp_path)
    name = tmp_path / "a%0A::error::x.json"
    name.write_bytes(a.read_bytes())
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "out"))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert action.main(["--baseline", str(name), "--receipt", str(b)]) == 1
    out = capsys.readouterr().out
    said = f"::error title=Driftproof::1 case regressed; see driftproof diff {tmp_path}/a%250A"
    assert said + "::error::x.json " in out


def test_every_character_github_decodes_is_escaped() -> None:
    line = action.workflow_command("warning", "50% a\r\nb: c, d", title="x: 1,2%\n")
    assert line == "::warning title=x%3A 1%2C2%25%0A::50%25 a%0D%0Ab: c, d"
    assert action.workflow_command("error", "e") == "::error::e"
