"""``run`` never writes its transcripts or journal onto the suite or skill it reads (a link to it
included), as it never writes --out there."""

from __future__ import annotations

import pytest
from factories import run_main


@pytest.mark.parametrize("link", ["copy", "symbolic", "hard"])
@pytest.mark.parametrize("which", ["suite", "skill"])
@pytest.mark.parametrize(
    ("suffix", "option"),
    [(".transcripts.jsonl", "--keep-transcripts"), (".journal", "--out's run journal")],
)
def test_an_input_named_as_a_written_file_is_refused_and_left(
    suite_file, skill_file, tmp_path, capsys, link, which, suffix, option
):
    # Found: `run --skill q.json.transcripts.jsonl --out q.json --keep-transcripts --force`
    # replaced the skill with the transcripts (a suite too); a suite named r.json.journal was
    # read as a journal, and the refusal told the user to remove it
    given = {"suite": suite_file, "skill": skill_file}[which]
    out = tmp_path / "q.json"
    named = tmp_path / f"q.json{suffix}"
    if link == "copy":
        given.rename(named)
    else:
        (named.symlink_to if link == "symbolic" else named.hardlink_to)(given)
    text = named.read_bytes()
    inputs = {"suite": suite_file, "skill": skill_file, which: named}
    argv = ["run", str(inputs["suite"]), "--skill", str(inputs["skill"]), "--model", "m"]
    argv += ["--provider", "simulated", "--out", str(out), "--keep-transcripts", "--force"]
    code, _, err = run_main(argv, capsys)
    what = {"suite": "suite file", "skill": "skill"}[which]
    said = f"error: {option} {named} is the {what} it reads; choose another path (nothing was "
    assert (code, err) == (2, said + "written)\n")
    assert named.read_bytes() == text and not out.exists()
