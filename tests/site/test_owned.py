"""The folders of a new site only workers wrote into (issue 19): which they are, and that the
build's account of them, taken from the workers' own lstats, is what a walk would find."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from driftproof.site._hook import Handover
from driftproof.site._owned import OnDisk, Owned, mirror_copy, note_written
from driftproof.site._staging import Staging
from driftproof.site._stats import site_state


def _write(root: Path, rel: str, on_disk: OnDisk | None = None) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(rel, encoding="utf-8")
    if on_disk is not None:
        note_written(on_disk, root, rel)


def test_a_worker_notes_each_file_and_every_folder_above_it(tmp_path: Path) -> None:
    on_disk = OnDisk()
    _write(tmp_path, "receipts/a/cases/c1/index.html", on_disk)
    _write(tmp_path, "receipts/a/index.html", on_disk)
    assert sorted(on_disk.folders) == [
        "receipts",
        "receipts/a",
        "receipts/a/cases",
        "receipts/a/cases/c1",
    ]
    assert all(stat.S_ISDIR(m) for m in on_disk.folders.values())
    st = os.lstat(tmp_path / "receipts/a/index.html")
    assert on_disk.files["receipts/a/index.html"] == [
        st.st_size,
        st.st_mtime_ns,
        st.st_ctime_ns,
        st.st_ino,
        st.st_mode,
    ]
    assert st.st_size == len("receipts/a/index.html")


def test_a_folder_is_owned_only_when_nothing_else_writes_under_it() -> None:
    folders = ["receipts", "receipts/a", "receipts/a/cases", "receipts/a/cases/c1", "badge"]
    on_disk = OnDisk(
        files={
            "receipts/a/index.html": [1, 2, 3, 4, 0o100644],
            "receipts/a/cases/c1/index.html": [1, 2, 3, 5, 0o100644],
            "receipts/a.json": [1, 2, 3, 6, 0o100644],
            "badge/a.svg": [1, 2, 3, 7, 0o100644],
        },
        folders=dict.fromkeys(folders, 0o40755),
    )
    # mkdocs writes the receipts' listing page: "receipts" is not owned, "receipts/a" is, and
    # so is "badge"; the file directly in "receipts" belongs to no owned folder
    owned = Owned(on_disk, {"receipts/index.html", "index.html"})
    assert sorted(owned.entries) == ["badge", "receipts/a"]
    assert sorted(owned.entries["receipts/a"]) == [
        ("receipts/a/cases", 0o40755, None),
        ("receipts/a/cases/c1", 0o40755, None),
        ("receipts/a/cases/c1/index.html", 0o100644, [1, 2, 3, 5]),
        ("receipts/a/index.html", 0o100644, [1, 2, 3, 4]),
    ]
    # a file written (or moved) by anything else deep below makes every folder above it
    # walked: only the case folder beside it stays owned
    owned = Owned(on_disk, {"receipts/index.html", "receipts/a/cases/extra.css", "badge/b.svg"})
    assert sorted(owned.entries) == ["receipts/a/cases/c1"]


def test_take_moves_into_folders_already_there_and_lists_the_files_it_moved_alone(
    tmp_path: Path,
) -> None:
    stage, site = tmp_path / "stage", tmp_path / "site"
    for rel in ("receipts/a/index.html", "receipts/a/cases/c1/index.html", "badge/a.svg"):
        _write(stage, rel)
    _write(site, "receipts/index.html")  # the site already has "receipts", not "badge"
    staging = Staging(tmp_path, into=site)
    staging.take(stage)
    assert sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()) == [
        "badge/a.svg",
        "receipts/a/cases/c1/index.html",
        "receipts/a/index.html",
        "receipts/index.html",
    ]
    assert (site / "receipts/a/index.html").read_text(encoding="utf-8") == "receipts/a/index.html"
    assert staging.moved_alone == set()  # "receipts/a" and "badge" moved whole
    _write(stage, "receipts/b.json")
    _write(stage, "receipts/a/cases/c2/index.html")
    staging.take(stage)
    assert staging.moved_alone == {"receipts/b.json"}  # c2 moved whole, into receipts/a/cases
    assert (site / "receipts/a/cases/c2/index.html").is_file()
    assert not list(stage.rglob("*.*"))


def test_the_account_of_owned_folders_is_what_a_walk_of_the_site_finds(tmp_path: Path) -> None:
    stage, site = tmp_path / "stage", tmp_path / "site"
    on_disk = OnDisk()
    for rel in (
        "receipts/a/index.html",
        "receipts/a/cases/c1/index.html",
        "receipts/a/cases/c2/index.html",
        "receipts/a.json",
        "badge/a.svg",
    ):
        _write(stage, rel, on_disk)
    (site / "badge").mkdir(parents=True)  # there already: badge/a.svg moves alone
    staging = Staging(tmp_path, into=site)
    staging.take(stage)
    _write(site, "receipts/index.html")  # written by mkdocs
    _write(site, "index.html")
    handover = Handover()
    handover.written = {rel: "sha of " + rel for rel in on_disk.files}
    handover.mkdocs_paths = [*on_disk.files, "receipts/index.html", "index.html"]
    owned = Owned(on_disk, handover.foreign(staging.moved_alone))
    assert sorted(owned.entries) == ["receipts/a"]  # "badge" holds a file moved alone
    known = {rel: "sha of " + rel for rel in on_disk.files}
    walked: tuple[dict[str, list[int]], tuple[set[str], set[str]]] = ({}, (set(), set()))
    told: tuple[dict[str, list[int]], tuple[set[str], set[str]]] = ({}, (set(), set()))
    want = site_state(site, known=known, stats=walked[0], listing=walked[1])
    got = site_state(site, known=known, stats=told[0], listing=told[1], owned=owned)
    assert got == want and told == walked
    assert "receipts/a/cases/c2/index.html" in told[0]
    assert got[0]["receipts/a/cases/c2/index.html"] == "sha of receipts/a/cases/c2/index.html"
    assert got[0]["index.html"] != "sha of index.html"  # not the workers': read and hashed


def test_a_mirror_copy_is_a_new_file_never_written_through_a_link(tmp_path: Path) -> None:
    mirror, outside = tmp_path / "mirror", tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.html").write_bytes(b"not the mirror's")
    assert mirror_copy(mirror, "receipts/a/index.html", b"<p>a</p>")
    assert (mirror / "receipts/a/index.html").read_bytes() == b"<p>a</p>"
    # a hard link in its place: replaced, and the other name keeps its bytes
    os.unlink(mirror / "receipts/a/index.html")
    os.link(outside / "keep.html", mirror / "receipts/a/index.html")
    assert mirror_copy(mirror, "receipts/a/index.html", b"<p>a2</p>")
    assert (mirror / "receipts/a/index.html").read_bytes() == b"<p>a2</p>"
    assert (outside / "keep.html").read_bytes() == b"not the mirror's"
    # a symbolic link in its place: replaced by a file, the target untouched
    os.unlink(mirror / "receipts/a/index.html")
    os.symlink(outside / "keep.html", mirror / "receipts/a/index.html")
    assert mirror_copy(mirror, "receipts/a/index.html", b"<p>a3</p>")
    assert not (mirror / "receipts/a/index.html").is_symlink()
    assert (outside / "keep.html").read_bytes() == b"not the mirror's"
    # a folder above it that links out of the mirror: nothing written, nothing made there
    os.symlink(outside, mirror / "receipts/b")
    assert not mirror_copy(mirror, "receipts/b/c/index.html", b"<p>b</p>")
    assert sorted(p.name for p in outside.iterdir()) == ["keep.html"]
    # a folder where the page goes: left to the mirror's sync
    (mirror / "receipts/d/index.html").mkdir(parents=True)
    assert not mirror_copy(mirror, "receipts/d/index.html", b"<p>d</p>")
