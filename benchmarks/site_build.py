"""Scale benchmark of the site build (issue 10): prints ratios, not a timed test.

Generates 1,000 receipts (50 cases × 5 draws × 5 judge samples each, scores from a seeded
generator), ten reports (each a comparison of two of them), then times:

1. the full ``make reports`` path (load and check every receipt, generate, mkdocs strict,
   replace the site), as a ratio to a bare mkdocs build of the same number of plain pages
   with mkdocs' own theme;
2. a rebuild after one receipt changes, as a ratio to the full build.

Usage: ``python benchmarks/site_build.py [--receipts N] [--keep DIR]``.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from driftproof.receipt import draw_doc, judge_sample_doc, receipt_doc, write_receipt  # noqa: E402

CASES, DRAWS, SAMPLES = 50, 5, 5
JUDGE = {"model": "claude-haiku-4-5-20251001", "provider": "anthropic", "surface": "api",
         "service": "https://api.anthropic.com", "sampling": {"temperature": 1.0}, "template_sha256": "0" * 64,
         "scale": {"worst": 0.0, "best": 1.0, "step": 0.05}, "price": None}


def receipt(i: int, rng: random.Random) -> dict:
    cases = []
    for c in range(CASES):
        arms = {}
        for arm, centre in (("with_skill", 0.7), ("baseline", 0.6)):
            draws = []
            for d in range(DRAWS):
                samples = [judge_sample_doc(round(min(1.0, max(0.0, rng.gauss(centre, 0.1))) / 0.05) * 0.05,
                                            reply=f"{i}-{c}-{arm}-{d}-{k}", reported_model=JUDGE["model"])
                           for k in range(SAMPLES)]
                draws.append(draw_doc(d, answer=f"answer {i}/{c}/{arm}/{d}", judge_samples=samples))
            arms[arm] = {"draws": draws, "generation": None}
        cases.append({"id": f"case-{c:02d}", "prompt": f"task {c}", "prompt_sha256": None, "rubric_sha256": "1" * 64,
                      "threshold": None, "arms": arms})
    return receipt_doc(level="TESTED", skill_name=f"skill-{i:04d}", skill_text="x" * 1600, cases=cases,
                       model="claude-sonnet-4-5", provider="anthropic", surface="api", judge=JUDGE,
                       band_source="generation", generations_per_arm=DRAWS, judge_samples_per_generation=SAMPLES)


def write_inputs(base: Path, n: int) -> tuple[Path, Path]:
    rng = random.Random(20261129)
    receipts, reports = base / "receipts", base / "reports"
    receipts.mkdir(parents=True)
    reports.mkdir()
    for i in range(n):
        write_receipt(receipt(i, rng), receipts / f"r{i:04d}.json")
    for k in range(1, 11):
        a, b = f"r{(2 * k) % n:04d}", f"r{(2 * k + 1) % n:04d}"
        (reports / f"{k:03d}-bench-{k}.md").write_text(
            f"---\nnumber: {k}\nslug: bench-{k}\ntitle: Benchmark report {k}\ndate: 2026-11-{k:02d}\n"
            f"receipts: [{a}, {b}]\nsections:\n  - type: comparison\n    a: {a}\n    b: {b}\n---\n\nProse.\n",
            encoding="utf-8")
    return receipts, reports


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def bare_mkdocs(base: Path, pages: int) -> float:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    docs = base / "bare" / "docs"
    docs.mkdir(parents=True)
    for i in range(pages):
        (docs / f"page-{i:04d}.md").write_text(f"# Page {i}\n\nA plain page.\n", encoding="utf-8")
    (docs / "index.md").write_text("# Home\n", encoding="utf-8")
    (base / "bare" / "mkdocs.yml").write_text("site_name: bare\ntheme: mkdocs\nplugins: []\n", encoding="utf-8")
    cfg = load_config(str(base / "bare" / "mkdocs.yml"), site_dir=str(base / "bare" / "site"))
    return timed(lambda: build(cfg))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--receipts", type=int, default=1000)
    ap.add_argument("--keep", type=Path, default=None, help="keep the generated inputs and site here")
    ap.add_argument("--phases", action="store_true",
                    help="also time loading and generating apart (one more pass of each)")
    args = ap.parse_args()
    os.environ.setdefault("SOURCE_DATE_EPOCH", "1764374400")
    os.environ.setdefault("MPLBACKEND", "Agg")
    base = Path(tempfile.mkdtemp(prefix="driftproof-bench-")) if args.keep is None else args.keep
    import logging

    logging.getLogger("mkdocs").setLevel(logging.WARNING)
    from driftproof.site import build_site

    t_gen = timed(lambda: write_inputs(base, args.receipts))
    receipts, reports = base / "receipts", base / "reports"
    out = base / "site"
    full = timed(lambda: build_site(receipts, reports, out, config_file=REPO / "mkdocs.yml"))
    pages = sum(1 for _ in out.rglob("*.html"))
    bare = bare_mkdocs(base, pages)
    # one receipt changes (a new score, sealed again), then the site is rebuilt
    write_receipt(receipt(10_000, random.Random(1)), receipts / "r0000.json")
    rebuild = timed(lambda: build_site(receipts, reports, out, config_file=REPO / "mkdocs.yml"))
    print(f"receipts: {args.receipts} ({CASES} cases × {DRAWS} draws × {SAMPLES} judge samples); "
          f"generated in {t_gen:.1f} s")
    print(f"site: {pages} HTML pages; full build {full:.1f} s; bare mkdocs, {pages} plain pages: {bare:.1f} s")
    print(f"ratio full build / bare mkdocs build: {full / bare:.1f}")
    print(f"ratio rebuild after one receipt changed / full build: {rebuild / full:.2f}")
    if args.phases:
        from driftproof.site import build_site_files, load_inputs
        from driftproof.site._hook import NAV_GENERATED

        holder: dict = {}
        t_load = timed(lambda: holder.update(inputs=load_inputs(receipts, reports)))
        inputs = holder["inputs"]
        nav = [{"title": t, "url": u} for t, u in NAV_GENERATED]
        t_files = timed(lambda: build_site_files(inputs.receipts, inputs.reports, nav=nav))
        print(f"phases: load and check receipts {t_load:.1f} s ({t_load / full:.0%} of the full build); "
              f"generate pages {t_files:.1f} s ({t_files / full:.0%}); the rest (mkdocs, copying, replace) "
              f"{max(0.0, full - t_load - t_files):.1f} s")
    if args.keep is None:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
