"""Scale benchmark of the site build (issues 10 and 19): prints ratios, not a timed test.

Generates N receipts (50 cases × 5 draws × 5 judge samples each, scores from a seeded
generator; about 1 MB each) and ten reports (each a comparison of two of them), then runs,
each as its own process (``driftproof reports build``), timing wall clock and peak memory:

1. the full build with an empty build cache (every receipt checked and sealed again, D-12),
   as a ratio to a bare ``mkdocs build`` (mkdocs 1.6.1, its own theme) of as many plain pages
   as the site has HTML pages, also a process. Bare mkdocs as ``mkdocs new`` configures it
   (automatic navigation, its search plugin) takes time that grows with the square of the
   page count (every page lists every page): it runs on at most ``--auto-nav-up-to`` pages,
   which bounds the ratio from above (more pages only take longer). Stricter baselines take
   the square away with a one-entry navigation, with the search plugin and with no plugin;
2. a rebuild with nothing changed, as a ratio to the full build;
3. a rebuild after one receipt changed (a new score, sealed again), as a ratio to the full build.

The full build's phases come from the same build (its progress callback stamps the clock at
each phase's end), so they add up to the build it times: read, validate (bounds, schema,
seal, model; and, since each receipt is parsed once, its pages rendered by the worker that
checked it, with the reports drawn meanwhile), render (mkdocs set-up and the index pages),
write (mkdocs writing the site), link check, search index and replace (the link check on
all cores, Pagefind, then the site directory swapped in).

``--table-baseline`` also times the issue's own baseline page: bare mkdocs on as many pages
each holding a 50-row table ("bare mkdocs on 1,000 pages with 50-row tables"), with a
one-entry navigation (linear in the page count).

Usage: ``python benchmarks/site_build.py [--receipts N] [--keep DIR [--reuse]] [--full-only]
[--table-baseline]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from driftproof.receipt import draw_doc, judge_sample_doc, receipt_doc, write_receipt  # noqa: E402

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


def receipt(i: int, rng: random.Random) -> dict:
    cases = []
    for c in range(CASES):
        arms = {}
        for arm, centre in (("with_skill", 0.7), ("baseline", 0.6)):
            draws = []
            for d in range(DRAWS):
                samples = [
                    judge_sample_doc(
                        round(min(1.0, max(0.0, rng.gauss(centre, 0.1))) / 0.05) * 0.05,
                        reply=f"{i}-{c}-{arm}-{d}-{k}",
                        reported_model=JUDGE["model"],
                    )
                    for k in range(SAMPLES)
                ]
                draws.append(draw_doc(d, answer=f"answer {i}/{c}/{arm}/{d}", judge_samples=samples))
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
    return receipt_doc(
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


def as_process(cmd: list[str], cwd: Path, cold: bool = False) -> tuple[float, int, str]:
    """(wall seconds, peak resident memory in MB of the process tree's largest process, stdout).

    The file system's dirty pages are written out first (``os.sync``, not timed), so that no
    earlier step's gigabytes of writes are flushed during this one. ``cold``: the kernel's
    page, inode and folder caches are then dropped too (``/proc/sys/vm/drop_caches``; needs
    root), so that the build reads its inputs from disk, whatever their size: at 1,000
    receipts the inputs otherwise stay in memory from the run before, and at 10,000 they
    cannot (issue 19: the two sizes are then compared on the same footing)."""
    os.sync()
    if cold:
        try:
            Path("/proc/sys/vm/drop_caches").write_text("3\n", encoding="ascii")
        except OSError as exc:
            raise SystemExit(
                f"--cold: cannot drop the kernel's caches ({exc}); run as root"
            ) from exc
    t = time.perf_counter()
    res = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *cmd], cwd=cwd, env=_env(), capture_output=True, text=True
    )
    wall = time.perf_counter() - t
    if res.returncode != 0:
        raise SystemExit(f"{cmd} failed:\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}")
    peak_kb = int(res.stderr.strip().splitlines()[-1])
    return wall, peak_kb // 1024, res.stdout


def child_build(base: Path, out: Path, no_cache: bool) -> None:
    """One build in this process, printing its phase ends as JSON (``--child``)."""
    import logging

    logging.getLogger("mkdocs").setLevel(logging.WARNING)
    from driftproof.site import build_site

    t0 = time.perf_counter()
    ends: dict[str, float] = {}

    def progress(phase: str, done: int, total: int) -> None:
        if phase == "write" and done == 0:
            ends["render"] = time.perf_counter() - t0
        elif done == total:
            ends[phase] = time.perf_counter() - t0

    build_site(
        base / "receipts",
        base / "reports",
        out,
        config_file=REPO / "mkdocs.yml",
        cache_dir=None if no_cache else True,
        progress=progress,
    )
    ends["end"] = time.perf_counter() - t0
    # CPU seconds (user + system) of the build and the worker processes it waited for: the
    # work done, which this machine's wall clock (15-20% from run to run) blurs
    import resource

    usage = (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN))
    ends["cpu"] = sum(r.ru_utime + r.ru_stime for r in usage)
    ends["cpu_system"] = sum(r.ru_stime for r in usage)  # the kernel's share: file work
    print(json.dumps(ends))


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
    wall, peak, _ = as_process([sys.executable, "-m", "mkdocs", "build", "-q"], folder)
    return wall, peak


def _size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--receipts", type=int, default=1000)
    ap.add_argument(
        "--keep", type=Path, default=None, help="keep the generated inputs and site here"
    )
    ap.add_argument(
        "--auto-nav-up-to",
        type=int,
        default=4000,
        help="run bare mkdocs with automatic navigation (quadratic) on at most this many pages",
    )
    ap.add_argument(
        "--reuse",
        action="store_true",
        help="with --keep: build from the receipts a previous run generated there",
    )
    ap.add_argument(
        "--full-only",
        action="store_true",
        help="only the full build (time, peak memory, site size): for N = 10,000",
    )
    ap.add_argument(
        "--table-baseline",
        action="store_true",
        help="also time bare mkdocs on as many pages each holding a 50-row table (the issue's "
        "own baseline page), with a one-entry navigation",
    )
    ap.add_argument(
        "--cold",
        action="store_true",
        help="drop the kernel's page, inode and folder caches before the full build (root "
        "only), so it reads its receipts from disk at every N",
    )
    ap.add_argument("--child", type=Path, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--no-cache", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        child_build(args.child, args.child / "site", args.no_cache)
        return
    base = Path(tempfile.mkdtemp(prefix="driftproof-bench-")) if args.keep is None else args.keep
    base.mkdir(parents=True, exist_ok=True)
    t_gen = time.perf_counter()
    if args.reuse and (base / "receipts").is_dir():
        receipts, reports = base / "receipts", base / "reports"
        for stale in (
            "site",
            ".driftproof-cache",
            "bare",
            "bare-short-nav",
            "bare-short-nav-search",
            "bare-search",
        ):
            shutil.rmtree(base / stale, ignore_errors=True)
        args.receipts = sum(1 for _ in receipts.glob("*.json"))
    else:
        receipts, reports = write_inputs(base, args.receipts)
    t_gen = time.perf_counter() - t_gen
    me = [sys.executable, str(Path(__file__).resolve()), "--child", str(base)]
    shutil.rmtree(base / ".driftproof-cache", ignore_errors=True)
    full, full_peak, out = as_process(me, base, cold=args.cold)
    kernel = ", the kernel's caches dropped" if args.cold else ""
    ends = json.loads(out.strip().splitlines()[-1])
    site = base / "site"
    pages = sum(1 for _ in site.rglob("*.html"))
    size = _size_mb(site)
    if args.full_only:
        print(
            f"receipts: {args.receipts} ({_size_mb(receipts):.0f} MB), generated in "
            f"{t_gen:.1f} s; full build (empty cache{kernel}) {full:.1f} s, peak {full_peak} MB; "
            f"site: {pages} HTML pages, {size:.0f} MB; {os.cpu_count()} cores"
        )
        print(f"phases (s, in-process): {json.dumps(ends)}")
        return
    # the rebuilds first, each right after the build before it; then the baselines
    again, again_peak, _ = as_process(me, base)
    from driftproof.receipt import write_receipt as _w

    # new scores, seeded by the bytes there now: never the receipt an earlier --reuse run wrote
    changed = receipts / "r00000.json"
    seed = int.from_bytes(hashlib.sha256(changed.read_bytes()).digest()[:8], "big")
    _w(receipt(10_000, random.Random(seed)), changed)
    one, one_peak, _ = as_process(me, base)
    short, _ = bare_mkdocs(base, pages, short_nav=True)
    searched, _ = bare_mkdocs(base, pages, short_nav=True, default_plugins=True)
    tables = (
        bare_mkdocs(base, pages, short_nav=True, table_rows=50)[0] if args.table_baseline else None
    )
    # mkdocs as `mkdocs new` configures it (automatic navigation, its search plugin): its time
    # grows with the square of the page count, so above --auto-nav-up-to pages it runs on that
    # many, which gives a lower bound (as many pages and more only take longer)
    literal_pages = min(pages, args.auto_nav_up_to)
    bare, bare_peak = bare_mkdocs(base, literal_pages, default_plugins=True)
    n = args.receipts
    print(
        f"receipts: {n} ({CASES} cases × {DRAWS} draws × {SAMPLES} judge samples, "
        f"{_size_mb(receipts):.0f} MB); "
        + ("reused from an earlier run" if args.reuse else f"generated in {t_gen:.1f} s")
        + f"; {os.cpu_count()} cores"
    )
    print(
        f"site: {pages} HTML pages, {size:.0f} MB; full build (empty cache{kernel}) {full:.1f} s, "
        f"peak {full_peak} MB"
    )
    bound = literal_pages < pages
    met = "met" if full / bare <= 2.0 else "NOT met"
    print(
        f"bare mkdocs as `mkdocs new` configures it (automatic navigation, search plugin), "
        f"{literal_pages} plain pages: {bare:.1f} s, peak {bare_peak} MB; ratio full build / "
        + (
            f"it on {pages} pages: at most {full / bare:.2f} (a bound: {pages} pages take at "
            f"least as long as {literal_pages}; target <= 2.0: {met})"
            if bound
            else f"it: {full / bare:.2f} (target <= 2.0: {met})"
        )
    )
    # stricter than the baseline: a one-entry navigation takes the square away
    for what, took in (
        ("plain pages, its search plugin", searched),
        ("plain pages, no plugin", short),
        ("pages each with a 50-row table (the issue's own page), no plugin", tables),
    ):
        if took is not None:
            met = "met" if full / took <= 2.0 else "NOT met"
            print(
                f"stricter: bare mkdocs, {pages} {what}, one-entry navigation: {took:.1f} s; "
                f"ratio full build / it: {full / took:.2f} (target <= 2.0: {met})"
            )
    mem_target = 1024 if n <= 1000 else 2048
    for label, value, target, fmt in (
        ("rebuild with nothing changed / full build", again / full, 0.05, ".3f"),
        ("rebuild after one receipt changed / full build", one / full, 0.10, ".3f"),
        (f"peak memory of the full build / {mem_target} MB", full_peak / mem_target, 1.0, ".2f"),
    ):
        met = "met" if value <= target else "NOT met"
        print(f"ratio {label}: {value:{fmt}} (target <= {target}: {met})")
    print(f"peak memory: rebuild unchanged {again_peak} MB, after one change {one_peak} MB")
    prev, parts = 0.0, []
    for phase, label in (
        ("read", "read"),
        ("validate", "validate (and each receipt's pages, in the worker that checked it)"),
        ("render", "render (the rest)"),
        ("write", "write"),
        ("end", "link check, search index and replace"),
    ):
        if phase in ends:
            parts.append(
                f"{label} {ends[phase] - prev:.1f} s ({(ends[phase] - prev) / ends['end']:.0%})"
            )
            prev = ends[phase]
    print(
        f"phases of the full build (one pass, in order; they add up to {ends['end']:.1f} s "
        f"in-process, {full - ends['end']:.1f} s more for the process start): " + "; ".join(parts)
    )
    if "cpu" in ends:
        print(
            f"CPU seconds of the full build and its workers: {ends['cpu']:.1f} "
            f"({ends['cpu_system']:.1f} of them in the kernel)"
        )
    if args.keep is None:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
