"""A demo that fails part way leaves no half-written folder behind."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from driftproof import demo
from driftproof.errors import RefusalError
from driftproof.outputs import held_lock, held_name


def test_a_demo_that_fails_part_way_leaves_no_folder_it_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Probe (round 4): on a full disk the demo left suite.json, receipts/ and an empty SKILL.md,
    # and the next demo into the same folder was refused as "not empty".
    def full(*_: object, **__: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "d" / "site"))

    monkeypatch.setattr(demo, "write_site", full)
    with pytest.raises(OSError):
        demo.run_demo(tmp_path / "d")
    assert not (tmp_path / "d").exists()
    kept = tmp_path / "kept"
    kept.mkdir()  # a folder the user made stays
    with pytest.raises(OSError):
        demo.run_demo(kept)
    assert kept.is_dir()


def test_a_forced_demo_that_fails_part_way_leaves_the_old_files_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an adversary's kills of `demo --force` left a mix of old and new files: each was written
    # in place, so a killed write could also leave one cut short
    folder = tmp_path / "d"
    demo.run_demo(folder)
    (folder / "notes.txt").write_text("mine")
    (folder / "diff.txt").write_text("an older version's diff")  # old files differ from new
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}

    def full(*_: object, **__: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(demo, "write_site", full)
    with pytest.raises(OSError):
        demo.run_demo(folder, force=True)
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]  # nothing left beside it


def test_what_a_killed_demo_left_beside_its_folder_is_removed(tmp_path: Path) -> None:
    left = tmp_path / ".d.build-x1y2z3w4"  # the staging folder of a demo killed mid-way
    (left / "receipts").mkdir(parents=True)
    demo.run_demo(tmp_path / "d")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]
    assert (tmp_path / "d" / "WALKTHROUGH.txt").is_file()


def test_a_full_disk_is_named_at_the_demo_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an adversary's demo on a full 200 KiB tmpfs said only "error: (input or output): No space
    # left on device": a failed write of a file's bytes names no file
    def full(*_: object, **__: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(demo, "write_site", full)
    with pytest.raises(OSError) as exc:
        demo.run_demo(tmp_path / "d")
    assert (exc.value.errno, exc.value.filename) == (errno.ENOSPC, str(tmp_path / "d"))


def test_a_demo_into_a_folder_a_demo_is_writing_is_refused_and_leaves_its_stage(
    tmp_path: Path,
) -> None:
    # two demos into one folder at once: the second removed the first's staging folder as a
    # killed demo's leftover, and the first failed reading a file in it
    running = tmp_path / ".d.build-x1y2z3w4"  # the first demo's stage, its lock held
    running.mkdir()
    with held_name(tmp_path / ".d.demo-lock", "held"):
        with pytest.raises(RefusalError) as refused:
            demo.run_demo(tmp_path / "d")
        assert sorted(p.name for p in tmp_path.iterdir()) == [".d.build-x1y2z3w4", ".d.demo-lock"]
    assert str(refused.value) == (
        f"another demo into {tmp_path / 'd'} is running; nothing written: wait for it to end, "
        "or write the demo into another folder"
    )


def test_demos_into_sibling_folders_run_at_once(tmp_path: Path) -> None:
    # the demo held the whole parent folder: a demo into a sibling folder was refused, with the
    # advice to write it "into a folder of its own", which it was. A demo into "d.build-1" is
    # running (its lock held, its stage beside it); a site build of another folder is too.
    stage = tmp_path / ".d.build-1.build-x1y2z3w4"
    stage.mkdir()
    with held_name(tmp_path / ".d.build-1.demo-lock", "held"), held_lock(tmp_path, "build"):
        demo.run_demo(tmp_path / "d")  # "d"'s leftovers are ".d.build-" + 8 letters only
        demo.run_demo(tmp_path / "e")
        assert stage.is_dir()
    assert (tmp_path / "d" / "WALKTHROUGH.txt").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == [stage.name, "d", "e"]


def test_a_lock_file_removed_by_the_demo_that_held_it_is_no_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a demo that opened the lock file just before the demo holding it ended (and removed it)
    # gets its lock on the removed file, which a third demo, making the file again, never sees
    import fcntl

    from driftproof import outputs

    lock, flock = tmp_path / ".d.demo-lock", fcntl.flock

    def flock_after_removal(fd: int, op: int) -> None:
        flock(fd, op)
        lock.unlink()  # the holder ended between our open and our lock
        lock.touch()  # and a third demo made the file again

    monkeypatch.setattr(outputs.fcntl, "flock", flock_after_removal)
    with pytest.raises(RefusalError, match="another demo into"):
        demo.run_demo(tmp_path / "d")
    assert not (tmp_path / "d").exists()


def test_a_demo_into_the_current_empty_folder_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "demo ." in an empty folder: the lock file went beside "." (inside it, "..demo-lock"), and
    # the check made after taking the lock refused the folder as not empty
    (tmp_path / "e").mkdir()
    monkeypatch.chdir(tmp_path / "e")
    demo.run_demo(".")
    assert (tmp_path / "e" / "WALKTHROUGH.txt").is_file()
    assert not [p.name for p in tmp_path.rglob("*demo-lock")]


def test_a_receipt_the_demo_cannot_write_says_no_journal_kept_nor_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # an adversary's demo on a full 64 KiB tmpfs said "18 finished draws are kept in
    # <dir>/.d.build-…/receipts/v1-run1.json.journal: run the same command again to resume":
    # the demo removes its stage, journal and all, and a demo starts over, never resumes
    from factories import run_main

    from driftproof.run import engine

    def full(_body: object, out: Path, **_: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(out))

    monkeypatch.setattr(engine, "write_receipt", full)
    code, _, err = run_main(["demo", str(tmp_path / "d")], capsys)
    assert (code, err) == (
        2,
        f"error: {tmp_path / 'd' / 'receipts' / 'v1-run1.json'}: No space left on device\n",
    )
    assert list(tmp_path.iterdir()) == []
