"""Values checked against a pattern ending in ``$`` took one trailing line break with them:
Python's ``$`` also matches before a final newline, so ``"pt\\n"`` passed as a language tag and
``"abc1234\\n"`` as a commit, into the receipt and its file name. Each is now refused by the
place it was read, as the same value without the line break would be accepted."""

from __future__ import annotations

from pathlib import Path

import pytest
from caveman_snapshot import small_snapshot, write_snapshot

from driftproof.errors import ImportError_
from driftproof.importers.caveman import CavemanOptions, import_caveman


def test_a_language_tag_with_a_trailing_line_break_is_refused(tmp_path: Path) -> None:
    doc = small_snapshot()
    doc["metadata"]["lang"] = "pt"
    snap, skills = write_snapshot(tmp_path, doc)
    assert import_caveman(snap, CavemanOptions(skills_dir=skills))  # accepted as it is
    doc["metadata"]["lang"] = "pt\n"
    snap, skills = write_snapshot(tmp_path, doc)
    with pytest.raises(ImportError_) as ei:
        import_caveman(snap, CavemanOptions(skills_dir=skills))
    (problem,) = ei.value.problems
    assert problem.pointer == "/metadata/lang"
    assert problem.message == 'expected a language tag such as pt, found "pt\\n"'


def test_a_source_commit_with_a_trailing_line_break_is_refused(tmp_path: Path) -> None:
    snap, skills = write_snapshot(tmp_path, small_snapshot())
    assert import_caveman(snap, CavemanOptions(skills_dir=skills, source_commit="abc1234"))
    with pytest.raises(ImportError_, match="7 to 40 lowercase hex digits"):
        import_caveman(snap, CavemanOptions(skills_dir=skills, source_commit="abc1234\n"))
