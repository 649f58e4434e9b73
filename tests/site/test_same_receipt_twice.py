"""One receipt saved under two file names is one measurement: the build refuses the second file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from site_fixtures import refused_build


@pytest.mark.parametrize("reformatted", [False, True])
def test_a_receipt_under_two_names_is_refused_naming_both(
    tmp_path: Path, site_inputs: tuple[Path, Path], reformatted: bool
) -> None:
    # Found: receipts/X.json copied to receipts/zz-copy.json was published as two measurements
    # ("2 receipts", two passing rows for one TESTED receipt)
    receipts, reports = site_inputs
    raw = (receipts / "tested.json").read_bytes()
    if reformatted:  # other bytes, the same content and so the same seal
        raw = json.dumps(json.loads(raw), indent=1).encode("utf-8")
    copy = receipts / "zz-copy.json"
    copy.write_bytes(raw)
    lines = refused_build(receipts, reports, tmp_path / "site").lines()
    assert lines == [
        f"{copy}: expected each receipt once; {receipts / 'tested.json'} holds this same receipt "
        "(the same seal): remove one of them"
    ]
