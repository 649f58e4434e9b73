"""How the full site build grows from N receipts to k × N, in one run (issue 19): prints ratios.

Issue 19's target: "10,000 receipts: builds; time grows no faster than linearly from 1,000;
site size linear in N", measured "as ratios in one run". This script times, each as its own
process with an empty build cache and the kernel's page, inode and folder caches dropped first
(as ``site_build.py --cold`` does; root only, so both sizes read their receipts from disk;
without root it says so and builds warm):

1. the full build of the N receipts in ``DIR`` (generated there by ``site_build.py --keep DIR``,
   or here when ``DIR`` holds none);
2. the full build of k × N receipts: k byte-identical copies of those N under new names (copy c
   of ``r{i:05d}`` is ``r{c·N + i:05d}``, so names keep their length and pages their size;
   copies, not links, so each is read from disk on its own), with the same reports;
3. the full build of the N receipts again.

The two small builds bracket the large one, so a machine that changes speed during the run
shows as two different ratios instead of one wrong one. Printed: wall seconds, CPU seconds of
the build and its workers (user and kernel), peak memory, site size and, where the kernel
reports it (``/proc/vmstat`` ``pgpgin``), the megabytes read from disk; then the large build
over each small build, over their mean, for time, CPU and site size, each against k (the
linear bound).

Usage: ``python benchmarks/site_scale.py [--keep DIR] [--receipts N] [--factor K]``; the k × N
copies go to ``DIR-xK`` beside ``DIR`` and are removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import site_build  # noqa: E402  (the same build process, timing and inputs)

GENERATED = re.compile(r"r(\d{5})")


def _disk_read_mb() -> float | None:
    """Megabytes the kernel has paged in from disk since boot (``pgpgin``, KiB), or None."""
    try:
        for line in Path("/proc/vmstat").read_text(encoding="ascii").splitlines():
            name, _, value = line.partition(" ")
            if name == "pgpgin":
                return int(value) * 1024 / 1e6
    except OSError:
        return None
    return None


def scale_inputs(small: Path, large: Path, factor: int) -> int:
    """Fill ``large`` with ``factor`` renamed copies of ``small``'s receipts and its reports.

    Returns the number of receipts written. Raises SystemExit when a receipt name is not one
    ``site_build.py`` generates (``r`` and five digits) or when k × N needs a sixth digit."""
    names = sorted(p.name for p in (small / "receipts").glob("*.json"))
    indices = []
    for name in names:
        m = GENERATED.fullmatch(name.removesuffix(".json"))
        if m is None:
            raise SystemExit(f"{small / 'receipts' / name}: not a generated receipt name r#####")
        indices.append(int(m.group(1)))
    n = len(names)
    if max(indices) >= n or factor * n > 100_000:
        raise SystemExit(f"{small}: receipts must be r00000..r{n - 1:05d} and k × N ≤ 100,000")
    shutil.rmtree(large, ignore_errors=True)
    (large / "receipts").mkdir(parents=True)
    shutil.copytree(small / "reports", large / "reports")
    for c in range(factor):
        for name, i in zip(names, indices, strict=True):
            shutil.copyfile(
                small / "receipts" / name, large / "receipts" / f"r{c * n + i:05d}.json"
            )
    return factor * n


def cold_build(base: Path, cold: bool) -> dict[str, float]:
    """One full build of ``base`` as a process (the kernel's caches dropped first when
    ``cold``): wall s, CPU s, kernel CPU s, peak MB, site MB, HTML pages, MB read from disk."""
    shutil.rmtree(base / "site", ignore_errors=True)
    shutil.rmtree(base / ".driftproof-cache", ignore_errors=True)
    before = _disk_read_mb()
    me = [sys.executable, str(Path(site_build.__file__).resolve()), "--child", str(base)]
    wall, peak, out = site_build.as_process(me, base, cold=cold)
    after = _disk_read_mb()
    ends = json.loads(out.strip().splitlines()[-1])
    return {
        "wall": wall,
        "cpu": ends["cpu"],
        "kernel": ends["cpu_system"],
        "peak": float(peak),
        "site": site_build._size_mb(base / "site"),
        "pages": float(sum(1 for _ in (base / "site").rglob("*.html"))),
        "read": (after - before) if before is not None and after is not None else float("nan"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--keep",
        type=Path,
        default=None,
        help="the N receipts' folder, kept (else a temporary one)",
    )
    ap.add_argument("--receipts", type=int, default=1000, help="N, when DIR holds none yet")
    ap.add_argument("--factor", type=int, default=10, help="k: the large build has k × N")
    args = ap.parse_args()
    small = (
        Path(tempfile.mkdtemp(prefix="driftproof-scale-")) / "n" if args.keep is None else args.keep
    )
    cold = os.access("/proc/sys/vm/drop_caches", os.W_OK)
    if not cold:
        print(
            "the kernel's caches cannot be dropped (not root): the N builds read a warm page "
            "cache and the k×N build partly a cold one, so the time ratios overstate the growth"
        )
    if not (small / "receipts").is_dir():
        small.mkdir(parents=True, exist_ok=True)
        site_build.write_inputs(small, args.receipts)
    large = small.with_name(small.name + f"-x{args.factor}")
    t = time.perf_counter()
    total = scale_inputs(small, large, args.factor)
    n = total // args.factor
    print(
        f"inputs: {n} receipts ({site_build._size_mb(small / 'receipts'):.0f} MB) and "
        f"{total} ({site_build._size_mb(large / 'receipts'):.0f} MB, {args.factor} renamed "
        f"copies, made in {time.perf_counter() - t:.1f} s); {os.cpu_count()} cores"
    )
    runs = []
    for label, base in (("N", small), ("k×N", large), ("N again", small)):
        r = cold_build(base, cold)
        runs.append(r)
        print(
            f"full build, {label} ({int(r['pages'])} HTML pages, {r['site']:.0f} MB of site), "
            f"{'cold' if cold else 'warm'}: {r['wall']:.1f} s; "
            f"CPU {r['cpu']:.1f} s ({r['kernel']:.1f} s kernel); "
            f"peak {r['peak']:.0f} MB; read from disk {r['read']:.0f} MB",
            flush=True,
        )
        if base is large:
            shutil.rmtree(large / "site", ignore_errors=True)  # 17 GB at 10,000: not kept
    first, big, second = runs
    k = args.factor
    for what in ("wall", "cpu", "kernel", "site"):
        mean = (first[what] + second[what]) / 2
        ratio = big[what] / mean
        print(
            f"{what}: k×N / N = {big[what] / first[what]:.2f} and {big[what] / second[what]:.2f}"
            f" (against each N build), {ratio:.2f} against their mean; linear is {k}: "
            + ("met" if ratio <= k else "NOT met")
        )
    print(f"peak memory at k×N: {big['peak']:.0f} MB (target < 2048 MB at 10,000 receipts)")
    shutil.rmtree(large, ignore_errors=True)
    if args.keep is None:
        shutil.rmtree(small.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
