"""A demo that fails part way leaves no half-written folder behind."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from driftproof import demo


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
