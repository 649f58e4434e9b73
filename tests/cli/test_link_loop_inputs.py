"""An input that is a loop of symbolic links is refused with the system's reason, as ``validate``
refuses it, never as a path that does not exist."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from factories import run_main


@pytest.mark.parametrize("where", ["run SUITE_FILE", "run --skill", "import PATHS", "import PATH"])
def test_a_link_loop_is_refused_with_the_words_validate_gives(
    tmp_path: Path, capsys, where: str
) -> None:
    # Found: `run l1`, `run --skill l1` and `import nvidia l1` said "Path 'l1' does not exist";
    # `validate l1` said "Too many levels of symbolic links"
    loop, other = tmp_path / "l1", tmp_path / "l2"
    loop.symlink_to(other)
    other.symlink_to(loop)
    (tmp_path / "s.json").write_text("{}", encoding="utf-8")
    (tmp_path / "SKILL.md").write_text("Be brief.", encoding="utf-8")
    suite, skill = str(tmp_path / "s.json"), str(tmp_path / "SKILL.md")
    argv, name = {
        "run SUITE_FILE": (["run", str(loop), "--skill", skill, "--model", "m"], "SUITE_FILE"),
        "run --skill": (["run", suite, "--skill", str(loop), "--model", "m"], "--skill"),
        "import PATHS": (["import", "nvidia", str(loop), "--out-dir", "o"], "PATHS..."),
        "import PATH": (["import", "inspect", "--with-skill", str(loop)], "--with-skill"),
    }[where]
    reason = f"{loop}: cannot read: {os.strerror(errno.ELOOP)}"
    assert reason in "".join(run_main(["validate", str(loop)], capsys)[1:])
    code, out, err = run_main(argv, capsys)
    said = f"error: Invalid value for '{name}': {reason}"
    assert (code, out, err.splitlines()[-1]) == (2, "", said)
