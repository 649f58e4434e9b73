"""The kept transcripts' place beside the original: a file, or nothing, never anything else."""

from __future__ import annotations

import os

import pytest
from run_helpers import run_lane

from driftproof.receipt import read_receipt
from driftproof.regrade.identity import transcripts_refusals


@pytest.mark.parametrize(
    ("kind", "found"),
    [
        ("folder", "a folder"),
        ("fifo", "a named pipe"),
        ("zero", "a device"),
        ("dangling", "a link that leads nowhere"),
    ],
)
def test_kept_transcripts_that_are_not_a_file_are_refused(
    loopback, suite_file, tmp_path, kind, found
):
    # Found: a folder, a named pipe or a link to /dev/zero there read as no transcripts kept
    # (the regrade went on), while an empty or edited file was refused
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True)
    kept = tmp_path / "receipt.json.transcripts.jsonl"
    kept.unlink()
    if kind == "folder":
        kept.mkdir()
    elif kind == "fifo":
        os.mkfifo(kept)  # opened for reading, it would wait for a writer: never opened
    else:
        kept.symlink_to("/dev/zero" if kind == "zero" else tmp_path / "gone")
    assert transcripts_refusals(read_receipt(out), out) == [
        f"{kept}: expected the kept transcripts, the file the original sealed (or nothing "
        f"there), found {found}"
    ]


def test_kept_transcripts_absent_are_no_refusal(loopback, suite_file, tmp_path):
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True)
    (tmp_path / "receipt.json.transcripts.jsonl").unlink()
    assert transcripts_refusals(read_receipt(out), out) == []
