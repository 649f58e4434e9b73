"""``driftproof demo [DIR]``: the method's mechanics, offline, in under a minute, on simulated data.

What it writes into DIR (a new or empty folder)::

    suite.json                     an example suite (three cases, rubrics, checks, examples)
    skill-v1/SKILL.md              two versions of a skill
    skill-v2/SKILL.md
    receipts/v1-run1.json …        two runs of each version through the seeded simulated provider
    diff.txt                       driftproof diff of v1-run1 against v2-run1
    plan.txt                       driftproof plan of v1-run1
    site/index.html                a local site of the four receipts, a banner on every page
    WALKTHROUGH.txt                what the newcomer sees, each item linked to the method's
                                   worked examples

Everything is labelled simulated: ``run.provider`` and ``judge.provider`` are ``simulated``,
the level is UNVERIFIED, every page of the local site carries a banner, and no receipt gets a
verdict (method: non-model receipts carry none;
:data:`driftproof.stats.reading.SIMULATED_NO_VERDICT`). The public site (``make reports``) refuses
simulated receipts.

The demo shows: draws that vary, bands with spread, the stopping rule adding draws past the
minimum of 3, a lost draw with its reason, ``plan``'s draws needed, the lift with its paired
interval as context, and the exact reason there is no verdict.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from driftproof.errors import RefusalError
from driftproof.pages.comparison import compare_receipts
from driftproof.pages.plan import plan_receipt
from driftproof.receipt import Receipt, read_receipt, sha256_text
from driftproof.render.comparison import comparison_text as to_text
from driftproof.render.plan import plan_text
from driftproof.run.engine import RunConfig, arm_systems, run_suite
from driftproof.run.providers.simulated import SimulatedProvider
from driftproof.run.suite import load_suite
from driftproof.stats import arm_band, receipt_reading
from driftproof.stats.breakdown import lift_breakdown
from driftproof.stats.context import lift_interval

__all__ = ["DEMO_SEED", "METHOD_URL", "DemoResult", "run_demo"]

#: The method page's worked examples (every verdict word on hand-worked numbers).
METHOD_URL = "https://driftproof.dev/method.html"
DEMO_SEED = 16
BANNER = (
    "SIMULATED DATA: driftproof demo drew every answer and score at random with a seeded simulated "
    "provider. No model answered and no model judged; nothing here is a measurement or a verdict."
)

SUITE: dict[str, Any] = {
    "format": "driftproof-suite/1",
    "name": "commit-messages (demo)",
    "language": "en",
    "cases": [
        {
            "id": "retry-429",
            "prompt": "Write a commit message for a change that retries HTTP 429 responses "
            "with exponential backoff, at most 3 times.",
            "rubric": "Score 1.0 for a Conventional Commits subject (fix: or feat:) under 72 "
            "characters that names the 429 retry, and a body that states the backoff and the "
            "3-attempt limit. Deduct for vagueness.",
            "checks": [
                {
                    "name": "conventional subject",
                    "kind": "structural",
                    "structure": "conventional_commit_subject",
                },
                {"name": "mentions 429", "kind": "regex", "pattern": "\\b429\\b"},
            ],
            "examples": {
                "pass": ["fix(http): retry 429 responses with backoff\n\nRetries at most 3 times."],
                "fail": ["Updated some stuff"],
            },
        },
        {
            "id": "rename-flag",
            "prompt": "Write a commit message for renaming the --dry flag to --dry-run, "
            "keeping --dry as a deprecated alias.",
            "rubric": "Score 1.0 for a Conventional Commits subject naming the rename, and a body "
            "saying --dry still works but is deprecated. Deduct for omitting the alias.",
        },
        {
            "id": "drop-py38",
            "prompt": "Write a commit message for dropping Python 3.8 support.",
            "rubric": "Score 1.0 for a subject marking the breaking change (! or a BREAKING CHANGE "
            "footer) and a body naming the new minimum Python version.",
        },
    ],
}

SKILL_V1 = """---
name: commit-style
description: Write Conventional Commits messages.
---
# Commit style

Write a Conventional Commits subject (type(scope): summary) under 72 characters.
Add a body that says why the change was made.
"""

SKILL_V2 = """---
name: commit-style
description: Write Conventional Commits messages.
---
# Commit style

Write a Conventional Commits subject (type(scope): summary) under 72 characters.
Add a body that says why the change was made, and name every limit, flag and version the
change touches. Mark breaking changes with ! and a BREAKING CHANGE footer.
"""

#: The simulated effect of each skill version on the mean quality (judge scale), and the base.
EFFECTS = {"v1": 0.10, "v2": 0.16}
BASE, SPREAD, JUDGE_SPREAD = 0.55, 0.015, 0.03
LOST_REASON = (
    "simulated failure: the simulated provider made this answering call fail, as a real failed "
    "call would, so the draw is lost"
)


@dataclass
class DemoResult:
    """What the demo wrote and what it shows (every path inside ``folder``)."""

    folder: Path
    receipts: dict[str, Path]
    walkthrough: str
    seconds: float
    files: list[Path] = field(default_factory=list)


def _check_folder(folder: Path, force: bool) -> None:
    if folder.exists() and not folder.is_dir():
        raise RefusalError(
            f"{folder}: exists and is not a folder; the demo writes a folder of files "
            "(--out-dir names a folder)"
        )
    if not folder.parent.is_dir():
        raise RefusalError(
            f"{folder}: the folder {folder.parent} does not exist; create it first (nothing was "
            "written)"
        )
    if folder.is_dir() and any(folder.iterdir()) and not force:
        raise RefusalError(
            f"{folder}: the folder is not empty; nothing in it was replaced. Choose a new folder, "
            "or give --force to write the demo's files over it"
        )


def run_demo(folder: str | Path, *, force: bool = False, seed: int = DEMO_SEED) -> DemoResult:
    """Write the demo into ``folder`` (see the module docstring).

    Raises:
        RefusalError: ``folder`` is a file, its parent does not exist, or it is a non-empty
            folder and ``force`` is not set (nothing is written).
    """
    t0 = time.perf_counter()
    folder = Path(folder)
    _check_folder(folder, force)
    folder.mkdir(exist_ok=True)
    (folder / "receipts").mkdir(exist_ok=True)
    suite_path = folder / "suite.json"
    suite_path.write_text(json.dumps(SUITE, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    skills = {"v1": SKILL_V1, "v2": SKILL_V2}
    for v, text in skills.items():
        (folder / f"skill-{v}").mkdir(exist_ok=True)
        (folder / f"skill-{v}" / "SKILL.md").write_text(text, encoding="utf-8")
    suite = load_suite(suite_path)
    receipts: dict[str, Path] = {}
    lost_prompt = sha256_text(SUITE["cases"][1]["prompt"])
    for k, (v, run) in enumerate((("v1", 1), ("v1", 2), ("v2", 1), ("v2", 2))):
        name = f"{v}-run{run}"
        out = folder / "receipts" / f"{name}.json"
        if out.exists():
            out.unlink()  # only reached with force: the folder was checked above
        system = arm_systems(skills[v], None)["with_skill"]
        lose: dict[tuple[str, str | None, int], str] = (
            {(lost_prompt, sha256_text(system or ""), 2): LOST_REASON} if name == "v2-run1" else {}
        )
        lane = SimulatedProvider(
            seed=seed * 100 + k,
            base=BASE,
            spread=SPREAD,
            judge_spread=JUDGE_SPREAD,
            effects={sha256_text(system or ""): EFFECTS[v]},
            lose=lose,
        )
        cfg = RunConfig(
            model="simulated-model",
            judge_model="simulated-judge",
            concurrency=1,
            retry_delays=(0.0, 0.0),
        )
        run_suite(
            suite,
            skill_text=skills[v],
            skill_name="commit-style",
            cfg=cfg,
            provider=lane,
            judge=lane,
            out=out,
            sleep=lambda _s: None,
        )
        receipts[name] = out
    read = {n: read_receipt(p) for n, p in receipts.items()}
    cmp = compare_receipts(
        read["v1-run1"],
        read["v2-run1"],
        a_name="receipts/v1-run1.json",
        b_name="receipts/v2-run1.json",
        false_alarms=True,  # as `driftproof diff` prints it
    )
    diff = to_text(cmp)
    (folder / "diff.txt").write_text(f"{BANNER}\n\n{diff}", encoding="utf-8")
    plan = plan_text(plan_receipt(read["v1-run1"]))
    (folder / "plan.txt").write_text(f"{BANNER}\n\n{plan}", encoding="utf-8")
    walk = walkthrough(read, diff, plan)
    (folder / "WALKTHROUGH.txt").write_text(walk, encoding="utf-8")
    files = write_site(folder / "site", receipts, walk, diff, plan)
    return DemoResult(folder, receipts, walk, time.perf_counter() - t0, files)


def _scores(r: Receipt, case_id: str, arm: str) -> list[float | None]:
    case = next(c for c in r.cases if c.id == case_id)
    return [d.score for d in getattr(case.arms, arm).draws]


def walkthrough(read: dict[str, Receipt], diff: str, plan: str) -> str:
    """The demo's walkthrough as plain text.

    Each mechanic is shown on the simulated receipts, with a link to the method's worked
    examples.
    """
    r1, r2 = read["v1-run1"], read["v2-run1"]
    first = r1.cases[0]
    w = arm_band(first.arms.with_skill, "generation")
    scores = ", ".join(
        "lost" if s is None else f"{s:.2f}" for s in _scores(r1, first.id, "with_skill")
    )
    longest = max(
        (
            (c.id, a, len(getattr(c.arms, a).draws), name)
            for name, r in read.items()
            for c in r.cases
            for a in ("with_skill", "baseline")
        ),
        key=lambda x: x[2],
    )
    lost = [
        (c.id, a, d.index, d.lost.reason)
        for c in r2.cases
        for a in ("with_skill", "baseline")
        for d in getattr(c.arms, a).draws
        if d.lost is not None
    ]
    iv = lift_interval(lift_breakdown(r1))
    reading = receipt_reading(r1)
    plan_head = plan.splitlines()[0]
    ex = METHOD_URL + "#worked-examples"
    lines = [
        "driftproof demo: the method's mechanics on SIMULATED data (no model answered; no "
        "verdict).",
        "",
        f"1. Draws vary. Case {first.id}, with skill, receipts/v1-run1.json: per-draw scores "
        f"{scores}.",
        f"   Each draw is judged 5 times; a draw's score is the mean of its judge samples. {ex}",
        f"2. Bands have spread. The same arm's band is {w.mean:.3f} ± {w.sd:.3f} (mean ± one "
        f"sample sd, n = {w.n}). {METHOD_URL}#improved",
        f"3. The stopping rule adds draws. receipts/{longest[3]}.json, {longest[0]} "
        f"({longest[1].replace('_', ' ')}) drew {longest[2]} times: "
        "at least 3, then one more while the spread still moved by 0.01 or more. "
        f"{ex}",
    ]
    if lost:
        cid, arm, idx, why = lost[0]
        lines.append(
            f"4. A lost draw, with its reason. receipts/v2-run1.json, {cid} "
            f"({arm.replace('_', ' ')}), draw {idx}: {why}. It is left out of the mean and the "
            "spread, and a diff names it. "
            f"{METHOD_URL}#inconclusive-lost-draws"
        )
    lines.append(f"5. Plan: {plan_head} (plan.txt) {METHOD_URL}#planning-a-run")
    if iv.lift is not None and iv.se is not None:
        lines.append(
            f"6. The lift, with its paired interval as context: {iv.lift:+.3f} (95% interval "
            f"{iv.low:+.3f} to {iv.high:+.3f}, paired standard error {iv.se:.3f} over {iv.cases} "
            f"cases). Context only: it never decides a verdict. {ex}"
        )
    else:
        lines.append(
            f"6. The lift, as context: {iv.lift:+.3f}"
            if iv.lift is not None
            else "6. The lift: n/a"
        )
    lines.append(f"7. No verdict, and why, in the product's exact words: {reading.reason}. {ex}")
    lines += [
        "",
        "The diff of v1 run 1 against v2 run 1 (diff.txt) shows every case's bands under that "
        "reason:",
        "",
        diff,
        "Local site: site/index.html (every page carries a SIMULATED banner).",
        f"Every verdict word, worked by hand on real numbers: {ex}",
    ]
    return "\n".join(lines) + "\n"


_BODY = re.compile(rb"<body[^>]*>")


def _with_banner(html: bytes) -> bytes:
    from html import escape

    banner = (
        '<div class="simulated-banner" role="note" '
        'style="background:#b00020;color:#fff;padding:.6em 1em;font-weight:bold">'
        f"{escape(BANNER)}</div>"
    ).encode()
    m = _BODY.search(html)
    return html[: m.end()] + banner + html[m.end() :] if m else banner + html


def write_site(out: Path, receipts: dict[str, Path], walk: str, diff: str, plan: str) -> list[Path]:
    """Write the demo's local site into ``out`` and return the files written.

    The site is the generator's receipt sheets, results page and badges for the simulated
    receipts, plus an index with the walkthrough; every HTML page carries a banner.
    """
    from markupsafe import Markup, escape

    from driftproof.site._paths import site_data_root
    from driftproof.site.generate import build_site_files, prose_files
    from driftproof.site.html import markdown_html

    loaded = {n: p.read_bytes() for n, p in receipts.items()}
    nav = [
        {"title": "Demo", "url": "index.html"},
        {"title": "Receipts", "url": "receipts/index.html"},
        {"title": "Results", "url": "results/index.html"},
        {"title": "Method", "url": "method.html"},
    ]
    name = "Driftproof demo (simulated)"
    files = build_site_files(loaded, [], nav=nav, site_name=name)
    pages = {}
    for page in ("method", "decisions"):  # the method and its readings, as the public site has
        text = (site_data_root() / "site_src" / f"{page}.md").read_text(encoding="utf-8")
        for md in ("method", "decisions"):
            text = text.replace(f"({md}.md)", f"({md}.html)")
        pages[f"{page}.html"] = (text.splitlines()[0].lstrip("# "), markdown_html(text))
    intro = Markup(
        '<h1>Driftproof demo (simulated)</h1><p>The <a href="receipts/index.html">receipts</a> '
        'and <a href="results/index.html">results</a> of this demo; the '
        '<a href="method.html">method</a> has worked examples of every verdict word.</p>'
        "<h2>Walkthrough</h2><pre>{}</pre><h2>Plan</h2><pre>{}</pre>"
    ).format(escape(walk), escape(plan))
    pages["index.html"] = (name, intro)
    files.update(prose_files(pages, nav=nav, site_name=name))
    written = []
    for rel, data in sorted(files.items()):
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(_with_banner(data) if rel.endswith(".html") else data)
        written.append(path)
    return written
