"""An output path that is a device or a named pipe is refused, even with --force.

An adversary's `badge --json /dev/null --force` (run as root, as a CI container runs) replaced
the device with a regular file, and `export summary-json --out FIFO --force` the named pipe:
writing a file whole means putting a new file in the old one's place.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from factories import run_main

RECEIPT = Path(__file__).parents[2] / "receipts" / "claude-plugin-eval-probe-plugin-8955eb63.json"


def test_a_named_pipe_as_out_is_refused_and_stays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    args = ["export", "summary-json", str(RECEIPT), "--out", str(pipe), "--force"]
    code, _, err = run_main(args, capsys)
    assert code == 2
    assert f"--out {pipe}: expected a file, found a device, a named pipe" in err
    assert pipe.is_fifo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_a_link_to_dev_null_as_a_badge_file_is_refused_and_stays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    null = tmp_path / "null"
    null.symlink_to(os.devnull)  # the device itself is never put at risk by this test
    svg, details = tmp_path / "b.svg", tmp_path / "b.details.json"
    args = [
        "badge",
        str(RECEIPT),
        "--json",
        str(null),
        "--svg",
        str(svg),
        "--details",
        str(details),
    ]
    code, _, err = run_main([*args, "--force"], capsys)
    assert code == 2
    assert f"{null}: expected a file, found a device" in err
    assert null.is_symlink() and os.readlink(null) == os.devnull
    assert not svg.exists() and not details.exists()
