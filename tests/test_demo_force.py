"""``demo --force`` over a folder holding other files: they stay, and the output names them."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from driftproof import demo
from driftproof.errors import RefusalError


def test_a_forced_demo_keeps_the_files_it_did_not_write_and_names_them(tmp_path: Path) -> None:
    # Found: `demo --force` into a folder of the user's files left them in place (the site and
    # receipts folders too) without a word, so nothing told the user they sit among the demo's
    folder = tmp_path / "d"
    mine = {"notes.txt": "mine", "site/mine.html": "<p>mine</p>", "receipts/mine.json": "{}"}
    for rel, text in mine.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    (folder / "empty").mkdir()
    said = demo.run_demo(folder, force=True)
    assert {rel: (folder / rel).read_text(encoding="utf-8") for rel in mine} == mine
    assert (folder / "empty").is_dir() and (folder / "WALKTHROUGH.txt").is_file()
    assert said.endswith(
        f"Left as they were in {folder}, not written by the demo (4): empty/, notes.txt, "
        "receipts/mine.json, site/mine.html.\n"
    )
    # a demo forced over the demo it wrote before leaves nothing of another's to name
    for rel in [*mine, "empty"]:
        path = folder / rel
        path.rmdir() if path.is_dir() else path.unlink()
    assert "Left as" not in demo.run_demo(folder, force=True)


def test_a_forced_demo_names_an_unreadable_folder_and_a_link_to_one_and_ends_well(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found: a folder the user cannot read among theirs made a forced demo that had written
    # every file end "error: …: Permission denied", status 2; a link to a folder of files was
    # left unnamed (the walk does not follow it, and it was taken for a folder it walked)
    folder, elsewhere = tmp_path / "d", tmp_path / "elsewhere"
    (folder / "locked").mkdir(parents=True)  # the walk lists nothing in a folder it cannot read
    elsewhere.mkdir()
    (elsewhere / "theirs.txt").write_text("theirs", encoding="utf-8")
    (folder / "link").symlink_to(elsewhere)
    listed = Path.iterdir

    def unreadable(path: Path) -> Iterator[Path]:  # tests may run as root, who reads any folder
        if path == folder / "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return listed(path)

    monkeypatch.setattr(Path, "iterdir", unreadable)
    said = demo.run_demo(folder, force=True)
    assert said.endswith(
        f"Left as they were in {folder}, not written by the demo (2): link/, locked/.\n"
    )


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda d: (d / "site").symlink_to(d.parent / "elsewhere"), "is a symbolic link"),
        (lambda d: (d / "receipts").write_text("a file"), "is not a folder"),
        (lambda d: (d / "plan.txt").mkdir(), "is a folder, where the demo writes a file"),
    ],
)
def test_a_forced_demo_writes_through_nothing_and_fails_before_any_write(
    tmp_path: Path, make: Any, said: str
) -> None:
    # Found: a link named site/ sent the forced demo's site to where it points (and the line of
    # what it left said it was left alone); a folder where a file goes failed after the
    # walkthrough and receipts were already replaced
    folder, elsewhere = tmp_path / "d", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    (folder / "WALKTHROUGH.txt").write_text("mine", encoding="utf-8")
    make(folder)
    with pytest.raises(RefusalError, match=said):
        demo.run_demo(folder, force=True)
    assert (folder / "WALKTHROUGH.txt").read_text(encoding="utf-8") == "mine"
    assert list(elsewhere.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == [
        "d",
        "elsewhere",
    ]


@pytest.mark.parametrize("how", ["a failing replace", "a read-only folder", "no hard links"])
def test_a_forced_demo_that_cannot_write_one_file_replaces_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    # Found: a folder the user cannot write among the demo's (here skill-v1/, written after
    # the site) failed a forced demo after the walkthrough, receipts and site were replaced
    folder = tmp_path / "d"
    (folder / "skill-v1").mkdir(parents=True)
    for rel in ("plan.txt", "notes.txt", "skill-v1/SKILL.md"):
        (folder / rel).write_text(f"mine: {rel}", encoding="utf-8")
    before = {p: p.read_bytes() if p.is_file() else None for p in folder.rglob("*")}
    failing = folder / "skill-v1" / "SKILL.md"
    if how == "a read-only folder":
        (folder / "skill-v1").chmod(0o555)
        try:  # root writes into it all the same: the failing replace shows the same for root
            (folder / "skill-v1" / "probe").touch()
            (folder / "skill-v1" / "probe").unlink()
            pytest.skip("this user writes into a read-only folder (root)")
        except PermissionError:
            pass
    else:
        replace = os.replace

        def fail_one(src: Any, dst: Any) -> None:
            if Path(dst) == failing:
                raise PermissionError(13, "Permission denied", str(src), None, str(dst))
            replace(src, dst)

        monkeypatch.setattr(os, "replace", fail_one)
    if how == "no hard links":  # another user's file (protected links), a filesystem without

        def no_link(*_args: Any, **_kw: Any) -> None:
            raise PermissionError(1, "Operation not permitted")

        monkeypatch.setattr(os, "link", no_link)
    with pytest.raises(OSError) as exc:
        demo.run_demo(folder, force=True)
    assert {p: p.read_bytes() if p.is_file() else None for p in folder.rglob("*")} == before
    assert (exc.value.filename, exc.value.strerror) == (
        str(failing),
        f"cannot write it: Permission denied; no file in {folder} was replaced",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]


def test_a_forced_demo_stopped_twice_puts_back_every_file_it_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found: a second Ctrl-C while the replaced files were put back broke out of the put-back,
    # and the stage (the old files' copies in it) was removed: the folder was left mixed
    folder = tmp_path / "d"
    folder.mkdir()
    for rel in ("WALKTHROUGH.txt", "plan.txt", "notes.txt"):
        (folder / rel).write_text(f"mine: {rel}", encoding="utf-8")
    before = {p: p.read_bytes() for p in folder.rglob("*")}
    replace, placed = os.replace, []

    def stop(src: Any, dst: Any) -> None:
        replace(src, dst)
        if Path(dst).parent == folder:  # the 3rd file placed (plan.txt) is stopped, and then
            placed.append(dst)  # putting it back (the first one put back) is stopped again
            if len(placed) == 3 or str(src).endswith(".old"):
                signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(os, "replace", stop)
    with pytest.raises(KeyboardInterrupt):
        demo.run_demo(folder, force=True)
    assert len(placed) == 5  # WALKTHROUGH.txt, diff.txt, plan.txt; plan.txt, WALKTHROUGH.txt back
    assert {p: p.read_bytes() for p in folder.rglob("*")} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]
