"""A journal path that is a link to an existing file is refused, never followed and written."""

from __future__ import annotations

import os

import pytest
from test_journal_marks import ID, T1, _journal, _record

from driftproof.errors import RefusalError
from driftproof.run.journal import Journal


@pytest.mark.parametrize("kind", ["symbolic", "hard"])
def test_a_journal_that_links_to_a_file_is_refused_and_the_file_left(tmp_path, kind):
    # Found: `r.json.journal` made a symbolic or hard link to a user's file: the run read it
    # as its journal (another run's, holding no draw, so replaced) and overwrote the file
    target = tmp_path / "notes.txt"
    target.write_text("a user's notes\n")
    p = tmp_path / "r.json.journal"
    (p.symlink_to if kind == "symbolic" else p.hardlink_to)(target)
    with pytest.raises(RefusalError) as info:
        Journal(p, ID, started_at=T1, harness_version=None)
    what = {
        "symbolic": "a link to another file, which it would overwrite",
        "hard": "a hard link: another name shares its file",
    }[kind]
    assert str(info.value) == (
        f"{p}: the journal is not a file a run can keep ({what}); move it away, or write the "
        "receipt elsewhere"
    )
    assert target.read_text() == "a user's notes\n" and os.path.lexists(p)


def test_a_journal_of_its_own_resumes(tmp_path):
    # the run's own journal, one name, is read back as before: its one draw resumed
    p = _journal(tmp_path / "r.json.journal", ID, _record(0.75))
    again = Journal(p, ID, started_at=T1, harness_version=None)
    assert again.resumed is True and list(again.draws) == [("c1", "with_skill", 0)]
    again.close()
