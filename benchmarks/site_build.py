"""Scale benchmark of the site build (issue 35): prints ratios, not a timed test.

Generates N realistic receipts (50 cases × 5 draws × 5 judge samples each, scores from a
seeded generator) and ten reports (each a comparison of two of them), then times, each as its
own process (``driftproof reports build``), wall clock and peak memory of

1. the full build of N receipts with no render cache, as a ratio to a bare ``mkdocs build``
   (mkdocs 1.6.1, its own theme, a one-entry navigation, no plugin) of as many plain pages as
   the site has HTML pages (target: at most 2.0), in ``--pairs`` pairs taken in turn (this
   machine's speed moves by a third between minutes), each pair's ratio and their median
   printed, with each build's CPU seconds (its processes', user and system);
2. a rebuild after one receipt changed (a new score, sealed again), with the render cache the
   build before it filled, as a ratio to the median full build (target: at most 0.25);
3. the full build of 2N receipts, as a ratio to the full build of N (linear: about 2.0), and
   its peak memory (target: under 1 GB).

Usage: ``python benchmarks/site_build.py [--receipts N] [--keep DIR] [--pairs K]`` (with
``--keep``, inputs already in DIR are used again).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from driftproof.receipt import (  # noqa: E402
    ReceiptBody,
    build_draw,
    build_judge_sample,
    build_receipt,
    write_receipt,
)

CASES, DRAWS, SAMPLES = 50, 5, 5
JUDGE = {
    "model": "claude-haiku-4-5-20251001",
    "provider": "anthropic",
    "surface": "api",
    "service": "https://api.anthropic.com",
    "sampling": {"temperature": 1.0},
    "template_sha256": "0" * 64,
    "scale": {"worst": 0.0, "best": 1.0, "step": 0.05},
    "price": None,
}


def receipt(i: int, rng: random.Random) -> ReceiptBody:
    cases = []
    for c in range(CASES):
        arms = {}
        for arm, centre in (("with_skill", 0.7), ("baseline", 0.6)):
            draws = []
            for d in range(DRAWS):
                samples = [
                    build_judge_sample(
                        round(min(1.0, max(0.0, rng.gauss(centre, 0.1))) / 0.05) * 0.05,
                        reply=f"{i}-{c}-{arm}-{d}-{k}",
                        reported_model=JUDGE["model"],
                    )
                    for k in range(SAMPLES)
                ]
                draws.append(
                    build_draw(d, answer=f"answer {i}/{c}/{arm}/{d}", judge_samples=samples)
                )
            arms[arm] = {"draws": draws, "generation": None}
        cases.append(
            {
                "id": f"case-{c:02d}",
                "prompt": f"task {c}",
                "prompt_sha256": None,
                "rubric_sha256": "1" * 64,
                "threshold": None,
                "arms": arms,
            }
        )
    return build_receipt(
        level="TESTED",
        skill_name=f"skill-{i:04d}",
        skill_text="x" * 1600,
        cases=cases,
        model="claude-sonnet-4-5",
        provider="anthropic",
        surface="api",
        judge=JUDGE,
        band_source="generation",
        generations_per_arm=DRAWS,
        judge_samples_per_generation=SAMPLES,
    )


def _write_one(args: tuple[int, str]) -> None:
    i, folder = args
    write_receipt(receipt(i, random.Random(20261129 + i)), Path(folder) / f"r{i:05d}.json")


def write_inputs(base: Path, n: int) -> tuple[Path, Path]:
    receipts, reports = base / "receipts", base / "reports"
    receipts.mkdir(parents=True)
    reports.mkdir()
    with ProcessPoolExecutor() as pool:
        list(pool.map(_write_one, [(i, str(receipts)) for i in range(n)], chunksize=8))
    for k in range(1, 11):
        a, b = f"r{(2 * k) % n:05d}", f"r{(2 * k + 1) % n:05d}"
        (reports / f"{k:03d}-bench-{k}.md").write_text(
            f"---\nnumber: {k}\nslug: bench-{k}\ntitle: Benchmark report {k}\n"
            f"date: 2026-11-{k:02d}\nreceipts: [{a}, {b}]\nsections:\n  - type: comparison\n"
            f"    a: {a}\n    b: {b}\n---\n\nProse.\n",
            encoding="utf-8",
        )
    return receipts, reports


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("SOURCE_DATE_EPOCH", "1764374400")
    env.setdefault("MPLBACKEND", "Agg")
    env["NO_MKDOCS_2_WARNING"] = "1"
    return env


#: CPU seconds (user and system) of the last :func:`as_process` and the processes it waited for.
CPU: list[float] = [0.0]


def as_process(cmd: list[str], cwd: Path) -> tuple[float, int]:
    """(wall seconds, peak resident memory in MB of the largest process of ``cmd``'s tree); its
    CPU seconds go to :data:`CPU`. Dirty pages are written out first (``os.sync``, not timed)."""
    os.sync()
    t = time.perf_counter()
    res = subprocess.run(
        ["/usr/bin/time", "-f", "%M %U %S", *cmd],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - t
    if res.returncode != 0:
        raise SystemExit(f"{cmd} failed:\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}")
    peak, user, system = res.stderr.strip().splitlines()[-1].split()
    CPU[0] = float(user) + float(system)
    return wall, int(peak) // 1024


def site_build(base: Path, out: Path, *, cache: bool) -> tuple[float, int]:
    cmd = [sys.executable, "-c", "import sys; from driftproof.cli import main; main(sys.argv[1:])"]
    cmd += ["reports", "build", "--receipts", str(base / "receipts")]
    cmd += ["--reports", str(base / "reports"), "--out", str(out)]
    cmd += ["--config", str(REPO / "mkdocs.yml")] + ([] if cache else ["--no-cache"])
    return as_process(cmd, base)


def bare_mkdocs(
    base: Path,
    pages: int,
    *,
    short_nav: bool = False,
    table_rows: int = 0,
    default_plugins: bool = False,
) -> tuple[float, int]:
    """A bare mkdocs 1.6.1 build (its own theme) of ``pages`` plain pages, as a process; no
    plugin, unless ``default_plugins`` (mkdocs's own default, its search plugin, as a config
    that names none gets: the literal reading of "bare mkdocs").

    With mkdocs's automatic navigation (the default) every page lists every page, so its time
    grows with the square of the page count; ``short_nav`` gives the navigation one entry (the
    home page), so the time grows linearly: the stricter baseline at large page counts.
    ``table_rows``: each page holds a Markdown table of that many rows (the issue's own
    baseline page: "bare mkdocs on 1,000 pages with 50-row tables"); 0, a one-line page."""
    kind = ("bare-short-nav" if short_nav else "bare") + ("-search" if default_plugins else "")
    folder = base / kind / f"rows-{table_rows}"
    docs = folder / "docs"
    docs.mkdir(parents=True)
    table = ""
    if table_rows:
        rows = "".join(
            f"| case-{r:02d} | 0.{r % 10}5 | 0.6{r % 10} | +0.0{r % 9} |\n"
            for r in range(table_rows)
        )
        table = "| case | with skill | baseline | lift |\n|---|---|---|---|\n" + rows
    for i in range(pages):
        (docs / f"page-{i:05d}.md").write_text(
            f"# Page {i}\n\nA plain page.\n\n{table}", encoding="utf-8"
        )
    (docs / "index.md").write_text("# Home\n", encoding="utf-8")
    nav = "nav:\n  - Home: index.md\n" if short_nav else ""
    (folder / "mkdocs.yml").write_text(
        f"site_name: bare\ntheme: mkdocs\nplugins: {'[search]' if default_plugins else '[]'}\n"
        f"markdown_extensions: [tables]\n{nav}",
        encoding="utf-8",
    )
    return as_process([sys.executable, "-m", "mkdocs", "build", "-q"], folder)


def aside(folder: Path, trash: Path) -> None:
    """Move ``folder`` (if any) into ``trash``, never timed. Not removed: on a file system mounted
    with ``discard`` each unlink waits for the device, and 50,000 pages take half an hour."""
    if folder.exists():
        trash.mkdir(exist_ok=True)
        os.rename(folder, Path(tempfile.mkdtemp(dir=trash)) / folder.name)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--receipts", type=int, default=1000)
    ap.add_argument("--keep", type=Path, help="work in this folder and keep it")
    ap.add_argument("--pairs", type=int, default=3, help="full and bare builds, taken in turn")
    args = ap.parse_args()
    n = args.receipts
    root = args.keep or Path(tempfile.mkdtemp(prefix="driftproof-site-bench-"))
    trash = root / "trash"
    try:
        small, large = root / f"n{n}", root / f"n{2 * n}"
        for base, count in ((small, n), (large, 2 * n)):
            if not (base / "receipts").is_dir():  # --keep: inputs of an earlier run are reused
                write_inputs(base, count)
            aside(base / "site", trash)
        pairs = []
        for _ in range(args.pairs):  # this machine's speed moves between minutes: pairs in turn
            aside(small / "site", trash)
            full, full_peak = site_build(small, small / "site", cache=False)
            full_cpu = CPU[0]
            pages = sum(1 for _ in (small / "site").rglob("*.html"))
            aside(root / "bare-short-nav", trash)
            bare, _ = bare_mkdocs(root, pages, short_nav=True)
            pairs.append((full, bare, full_cpu, CPU[0], full_peak))
        aside(small / "site", trash)
        # an empty render cache (the old one aside, never removed: on this disk removing stale
        # entries slows the writes after it), filled by this build
        aside(small / ".driftproof-cache", trash)
        site_build(small, small / "site", cache=True)
        changed = small / "receipts" / "r00003.json"
        k = 8 if f'"skill-{n + 7:04d}"' in changed.read_text(encoding="utf-8") else 7
        write_receipt(receipt(n + k, random.Random(k)), changed)  # a change on every run
        rebuild, _ = site_build(small, small / "site", cache=True)
        double, double_peak = site_build(large, large / "site", cache=False)
        full = statistics.median(p[0] for p in pairs)
        print(json.dumps({"receipts": n, "html_pages": pages, "pairs": args.pairs}))
        for i, (f, b, fc, bc, peak) in enumerate(pairs, 1):
            print(
                f"pair {i}: full build, no cache {f:.1f} s ({fc:.0f} CPU-s, peak {peak} MB); "
                f"bare mkdocs, one-entry navigation {b:.1f} s ({bc:.0f} CPU-s): ratio {f / b:.2f}"
            )
        ratios = [f / b for f, b, *_ in pairs]
        print(f"  median ratio {statistics.median(ratios):.2f} (target <= 2.0)")
        print(f"rebuild after one receipt changed: {rebuild:.1f} s")
        print(f"  ratio {rebuild / full:.2f} of the median full build (target <= 0.25)")
        print(f"full build, {2 * n} receipts: {double:.1f} s, peak {double_peak} MB")
        print(f"  ratio {double / full:.2f} of {n} receipts' median (linear: 2.0); peak < 1024 MB")
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
