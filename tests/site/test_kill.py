"""A build killed (SIGKILL) at any moment leaves the site folder the old site or the new one,
whole, and the next build removes whatever the killed one left beside it (issue 35)."""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from receipt_docs import body_of
from site_fixtures import REPO, savings_receipt

from driftproof.receipt import write_receipt

pytestmark = pytest.mark.slow

KILLS = 24


def _build(receipts: Path, reports: Path, out: Path, *, cache: bool) -> subprocess.Popen[bytes]:
    args = ["reports", "build", "--receipts", str(receipts), "--reports", str(reports)]
    args += ["--out", str(out), "--config", str(REPO / "mkdocs.yml")]
    args += [] if cache else ["--no-cache"]
    code = "import sys; from driftproof.cli import main; main(sys.argv[1:])"
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1764374400"}
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _digest(site: Path) -> str:
    """sha256 over every entry under ``site``: path, kind and bytes."""
    h = hashlib.sha256()
    if not site.exists():
        return "missing"
    for p in sorted(site.rglob("*")):
        h.update(p.relative_to(site).as_posix().encode() + b"\0")
        h.update(p.read_bytes() if p.is_file() else b"<dir>")
    return h.hexdigest()


def test_a_killed_build_leaves_the_old_or_the_new_site_whole(
    tmp_path: Path, site_inputs: tuple[Path, Path]
) -> None:
    receipts, reports = site_inputs
    work = tmp_path / "work"
    work.mkdir()
    # the old site: the inputs as they are; the new one: a receipt added and one changed
    old_site, new_site = tmp_path / "clean-old" / "site", tmp_path / "clean-new" / "site"
    t0 = time.monotonic()
    assert _build(receipts, reports, old_site, cache=False).wait() == 0
    full = time.monotonic() - t0
    new_receipts = tmp_path / "receipts-new"
    shutil.copytree(receipts, new_receipts)
    write_receipt(
        body_of(savings_receipt("gamma", {"q1": (10, 100, 80)})), new_receipts / "gamma.json"
    )
    write_receipt(
        body_of(savings_receipt("alpha", {"q1": (20, 100, 80)})), new_receipts / "alpha.json"
    )
    assert _build(new_receipts, reports, new_site, cache=False).wait() == 0
    old, new = _digest(old_site), _digest(new_site)
    assert old != new
    out = work / "site"
    rng = random.Random(35)
    outcomes: dict[str, int] = {"old": 0, "new": 0}
    for i in range(KILLS):
        if out.exists():
            shutil.rmtree(out)
        shutil.copytree(old_site, out)
        proc = _build(new_receipts, reports, out, cache=i % 2 == 0)
        time.sleep(rng.uniform(0, full * 1.2))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        now = _digest(out)
        assert now in (old, new), f"kill {i}: the site is neither the old nor the new one"
        outcomes["old" if now == old else "new"] += 1
    # the next build removes what the killed ones left, and builds the new site
    assert _build(new_receipts, reports, out, cache=True).wait() == 0
    assert _digest(out) == new
    assert sorted(p.name for p in work.iterdir()) == [".driftproof-cache", "site"]
    assert outcomes["old"] > 0, outcomes


def test_a_file_the_disk_cannot_hold_is_named(tmp_path: Path) -> None:
    # found: a build on a full disk ended "error: (input or output): No space left on device",
    # naming no file: the failed write carries no file name of its own (/dev/full stands in)
    from driftproof.site.receipt_jobs import write_files

    if not os.path.exists("/dev/full"):
        pytest.skip("needs /dev/full, a device every write to fails with ENOSPC")
    (tmp_path / "receipts").mkdir()
    (tmp_path / "receipts" / "r.html").symlink_to("/dev/full")
    with pytest.raises(OSError) as exc:
        write_files(tmp_path, {"receipts/r.html": b"<html>page</html>"})
    assert exc.value.filename == str(tmp_path / "receipts" / "r.html")
    assert exc.value.strerror == "No space left on device"
