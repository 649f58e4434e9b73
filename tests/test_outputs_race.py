"""A file another command writes while this one runs is not replaced without --force.

The commands that write several files (import, badge, export) check for existing files first and
write later; two imports started together both passed the check, and the second replaced the
first's receipts without --force (an adversary's finding).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from driftproof.errors import RefusalError
from driftproof.outputs import write_all_or_none


def _writers(tmp_path: Path) -> tuple[Path, Path, dict[Path, Callable[[Path], object]]]:
    a, b = tmp_path / "a.json", tmp_path / "b.json"

    def write_a(p: Path) -> None:
        p.write_text("ours a")

    def write_b(p: Path) -> None:  # meanwhile, another command writes a.json
        a.write_text("theirs")
        p.write_text("ours b")

    return a, b, {a: write_a, b: write_b}


def test_a_file_that_appeared_meanwhile_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    a, b, writers = _writers(tmp_path)
    with pytest.raises(RefusalError, match=r"already exists .*a\.json; .*give --force"):
        write_all_or_none(writers, replace=False)
    assert a.read_text() == "theirs"  # the other command's file stands
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]  # no b, no temporary file


def test_with_force_the_file_is_replaced(tmp_path: Path) -> None:
    a, b, writers = _writers(tmp_path)
    assert write_all_or_none(writers, replace=True) == [a, b]
    assert (a.read_text(), b.read_text()) == ("ours a", "ours b")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.json"]


def test_files_placed_before_the_refusal_are_taken_back(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"

    def write_b(p: Path) -> None:
        b.write_text("theirs")  # the second target appears; the first was free
        p.write_text("ours b")

    with pytest.raises(RefusalError, match=r"already exists .*b\.json;"):
        write_all_or_none({a: lambda p: p.write_text("ours a"), b: write_b}, replace=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.json"]
    assert b.read_text() == "theirs"


@pytest.mark.parametrize(
    "err",
    [errno.EPERM, errno.ENOSYS],  # vfat; a FUSE file system without link() (rclone mount)
    ids=["no_hard_links", "link_not_implemented"],
)
def test_a_file_system_without_hard_links_still_gets_the_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, err: int
) -> None:
    def no_link(*_args: object) -> None:
        raise OSError(err, os.strerror(err))

    monkeypatch.setattr(os, "link", no_link)
    a = tmp_path / "a.json"
    assert write_all_or_none({a: lambda p: p.write_text("ours")}, replace=False) == [a]
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]
    assert a.read_text() == "ours"
    assert a.stat().st_mode & 0o777 == 0o666 & ~_umask()  # as open() would make it


def test_without_hard_links_a_file_that_appeared_is_still_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_link(*_args: object) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_link)
    a, b, writers = _writers(tmp_path)
    with pytest.raises(RefusalError, match=r"already exists .*a\.json;"):
        write_all_or_none(writers, replace=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]
    assert a.read_text() == "theirs"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_an_interrupt_just_after_a_file_was_linked_takes_it_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ctrl-C or SIGTERM lands between the link that puts a.json in place and the count of it
    real_link = os.link

    def link_then_interrupted(src: object, dst: object) -> None:
        real_link(src, dst)  # type: ignore[arg-type]
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "link", link_then_interrupted)
    a = tmp_path / "a.json"
    with pytest.raises(KeyboardInterrupt):
        write_all_or_none({a: lambda p: p.write_text("ours")}, replace=False)
    assert list(tmp_path.iterdir()) == []  # nothing half-written


def test_a_file_that_appears_as_it_is_put_in_place_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # after the check of what is there, before the link: the link itself refuses it
    real_link = os.link

    def theirs_first(src: object, dst: object) -> None:
        Path(str(dst)).write_text("theirs")
        real_link(src, dst)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "link", theirs_first)
    a = tmp_path / "a.json"
    with pytest.raises(RefusalError, match="a.json already exists .*Give --force"):
        write_all_or_none({a: lambda p: p.write_text("ours")}, replace=False)
    assert (a.read_text(), [p.name for p in tmp_path.iterdir()]) == ("theirs", ["a.json"])


def test_a_file_already_there_with_the_same_bytes_is_kept_and_the_rest_written(
    tmp_path: Path,
) -> None:
    # a killed command's file, written again: no conflict; the one missing is written
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text("ours a")
    before = a.stat().st_ino
    writers = {a: lambda p: p.write_text("ours a"), b: lambda p: p.write_text("ours b")}
    assert write_all_or_none(writers, replace=False) == [a, b]
    assert (a.read_text(), b.read_text(), a.stat().st_ino) == ("ours a", "ours b", before)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.json"]
