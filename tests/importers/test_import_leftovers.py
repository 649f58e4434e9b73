"""What a killed import left in its folder: the next import removes only its own, abandoned."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from caveman_snapshot import small_snapshot, write_snapshot

from driftproof.importers import write_imported
from driftproof.importers._text import finish
from driftproof.importers.caveman import CavemanOptions, import_caveman
from driftproof.outputs import remove_abandoned, staging_in
from driftproof.receipt import write_receipt


def _left(out: Path, name: str) -> dict[str, str]:
    """A killed import's staged copies of ``name`` (outer and a receipt's own) and others."""
    files = {
        f".{name}.abc_1234.tmp": "staged",  # .<name>.XXXXXXXX.tmp, staged_sibling's name
        f"..{name}.abc_1234.tmp.zz9_8765.tmp": "staged beside it",  # the receipt's own
        f".{name}.notours": "the user's",
        ".other.json.abc_1234.tmp": "another receipt's",  # not one this import writes
        f".{name}.ABC_1234.tmp": "the user's",  # not the random letters tempfile uses
    }
    for n, text in files.items():
        (out / n).write_text(text, encoding="utf-8")
    os.symlink("nowhere", out / f".{name}.lnk_1234.tmp")  # a link is no file a write made
    return files


def test_the_next_import_removes_only_what_a_killed_import_of_its_receipts_left(
    tmp_path: Path,
) -> None:
    # Found: an `import` killed by SIGKILL left ".<receipt>.XXXXXXXX.tmp" files in --out-dir
    # that no later import removed (reports build named them as safe to delete)
    snap, skills = write_snapshot(tmp_path, small_snapshot())
    items = import_caveman(snap, CavemanOptions(skills_dir=skills))
    out = tmp_path / "receipts"
    out.mkdir()
    name = items[0].filename
    files = _left(out, name)
    with staging_in(out):  # a living writer in the folder: nothing of it is taken
        write_imported(items, out, source=str(snap))
    assert {n: (out / n).read_text(encoding="utf-8") for n in files} == files
    for item in items:
        (out / item.filename).unlink()
    write_imported(items, out, source=str(snap))  # no writer left: the abandoned go
    kept = {n for n, text in files.items() if not text.startswith("staged")}
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [*kept, f".{name}.lnk_1234.tmp", *(i.filename for i in items)]
    )


def test_a_receipt_being_written_keeps_its_staged_file_from_the_removal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a run or regrade writes its receipt through the same ".<name>.XXXXXXXX.tmp": an import's
    # removal while it is written must leave it (else the write fails, or a half file goes)
    snap, skills = write_snapshot(tmp_path, small_snapshot())
    item = import_caveman(snap, CavemanOptions(skills_dir=skills))[0]
    out = tmp_path / "receipts"
    out.mkdir()
    real, seen = os.fsync, []

    def removal_meanwhile(fd: int) -> None:  # the receipt staged, not yet in place
        seen.extend(p.name for p in out.iterdir())
        remove_abandoned(out, [item.filename])
        real(fd)

    monkeypatch.setattr(os, "fsync", removal_meanwhile)
    write_receipt(finish(item.body, item.repairs), out / item.filename)
    assert len(seen) == 1 and seen[0].startswith(f".{item.filename}.")
    assert [p.name for p in out.iterdir()] == [item.filename]


def test_no_receipts_to_write_removes_nothing(tmp_path: Path) -> None:
    # with no names the pattern lost its name: "..XXXXXXXX.tmp" (a staged file of no receipt,
    # so someone else's) was taken for one a killed import left
    theirs = ["..abc_1234.tmp", "...abc_1234.tmp.zz9_8765.tmp"]
    for name in theirs:
        (tmp_path / name).write_text("theirs", encoding="utf-8")
    remove_abandoned(tmp_path, [])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(theirs)
