"""``driftproof demo [DIR]``: the method's mechanics, offline, in under a minute, on simulated data.

Writes into DIR (a new or empty folder) an example suite and two versions of a skill (copied from
``demo_files/``), two runs of each version through the seeded simulated provider
(``receipts/``), ``diff.txt`` (v1-run1 against v2-run1), ``plan.txt`` (v1-run1), a local site
(``site/``, with its own copies of both text files) and ``WALKTHROUGH.txt``
(``demo_files/walkthrough.txt`` filled in, each item pointing at the worked examples of the site's
own method page, which works offline). Everything is labelled simulated: both providers are
``simulated``, the level is UNVERIFIED, every page carries a banner, and no receipt gets a verdict
(:data:`driftproof.stats.reading.SIMULATED_NO_VERDICT`); the public site refuses such receipts.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import tempfile
from pathlib import Path

import markdown
from markupsafe import Markup, escape

from driftproof._pool import stops_held
from driftproof.errors import RefusalError
from driftproof.outputs import held_name, named_as
from driftproof.pages.comparison import compare_receipts
from driftproof.pages.plan import Plan, plan_receipt
from driftproof.pages.words import paired_interval
from driftproof.receipt import Receipt, read_receipt, sha256_text
from driftproof.render.comparison import comparison_markdown, comparison_text
from driftproof.render.escape import terminal_safe
from driftproof.render.plan import plan_text
from driftproof.run.engine import RunConfig, arm_systems, run_suite
from driftproof.run.providers.simulated import SimulatedProvider
from driftproof.run.run_plan import SIMULATED_SKILL_EFFECT
from driftproof.run.suite import Suite, load_suite
from driftproof.site._paths import site_data_root
from driftproof.site.generate import build_site_files, prose_files
from driftproof.site.html import wrap_tables
from driftproof.site.publish import mark_built, remove_leftovers, swap
from driftproof.stats import arm_band, receipt_reading
from driftproof.stats.breakdown import lift_breakdown
from driftproof.stats.context import lift_interval
from driftproof.wording import first_of

#: The demo site's method page (every verdict word on hand-worked numbers), from the demo's folder.
METHOD = "site/method.html"
BANNER = (
    "SIMULATED DATA: driftproof demo drew every answer and score at random with a seeded simulated "
    "provider. No model answered and no model judged; nothing here is a measurement or a verdict."
)
#: The walkthrough's line naming the local site (left out of the site's own index page).
LOCAL_SITE = "Local site: site/index.html (every page carries a SIMULATED banner).\n"
#: The demo's suite, skill versions and walkthrough template.
DATA = Path(__file__).with_name("demo_files")
#: The demo's runs: skill version and run number, each run's receipt ``receipts/<v>-run<n>.json``;
#: run ``k`` (from 0) is seeded ``k``, so v1-run1 draws what ``run --provider simulated`` draws
#: for skill-v1 with its default seed (0).
RUNS = (("v1", 1), ("v1", 2), ("v2", 1), ("v2", 2))
#: The files copied into the demo's folder as they are.
COPIED = ("suite.json", "skill-v1/SKILL.md", "skill-v2/SKILL.md")

#: The simulated effect of each skill version on the mean quality (judge scale): v1's is
#: ``run --provider simulated``'s; the base and spreads are the simulated lane's defaults.
EFFECTS = {"v1": SIMULATED_SKILL_EFFECT, "v2": 0.16}
LOST_REASON = (
    "simulated failure: the simulated provider made this answering call fail, as a real failed "
    "call would, so the draw is lost"
)


def _check_folder(folder: Path, force: bool) -> None:
    if folder.is_symlink() and not folder.exists():
        raise RefusalError(
            f"{folder}: is a symbolic link to nothing ({os.readlink(folder)}); remove it or name "
            "another folder (nothing was written)"
        )
    if folder.is_symlink():  # it would be replaced by a real folder, as reports build refuses
        raise RefusalError(
            f"{folder}: is a symbolic link (to {os.readlink(folder)}); the demo would replace it "
            "with a folder: name the folder itself (nothing was written)"
        )
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


def run_demo(folder: str | Path, *, force: bool = False) -> str:
    """Write the demo into ``folder`` (see the module docstring); the walkthrough it wrote.

    With ``force`` over other files, a line naming what the demo left as it was follows.

    Everything is written beside ``folder`` first: a new or empty folder then takes it in one
    step; with ``force`` over other files, each of the demo's files is replaced whole (the others
    stay): where one cannot be written, or the demo is stopped (SIGINT, SIGTERM), those replaced
    are put back. Killed outright (SIGKILL) while replacing, it may leave some of its files old
    and some new (none half-written); the next demo removes the copies of the old ones left beside
    the folder, and writes the whole new demo (its files are all generated).

    Raises:
        RefusalError: ``folder`` is a file or a symbolic link, its parent does not
            exist, it is a non-empty folder and ``force`` is not set, another demo into it
            is running, or, forced, a link, file or folder of its own stands where the demo
            writes (nothing is written).
        OSError: a file could not be written, named under ``folder`` (nothing is written, and,
            forced, no file is replaced).
    """
    folder = Path(folder)
    _check_folder(folder, force)
    busy = (
        f"another demo into {folder} is running; nothing written: wait for it to end, or "
        "write the demo into another folder"
    )
    # held beside the folder while the demo runs: another demo into it would remove our stage
    # as left over, or put its folder in place of ours; demos into other folders run at once
    at = Path(os.path.abspath(folder))  # "." and ".." named as the folders they are
    with held_name(at.parent / f".{at.name}.demo-lock", busy, shown=folder):
        _check_folder(folder, force)  # again: a demo that just ended may have filled it
        return _staged_demo(folder)


def _staged_demo(folder: Path) -> str:
    """Write the demo beside ``folder``, then put it in place; the walkthrough."""
    remove_leftovers(folder)  # what a killed demo left beside it
    with named_as(folder):
        stage = Path(tempfile.mkdtemp(prefix=f".{folder.name}.build-", dir=folder.parent))
    try:  # written whole beside the folder, then put in place: a kill leaves no half-written file
        walk = _write_demo(stage)
        stage.chmod(0o755)  # mkdtemp makes it private
        if folder.is_dir() and any(folder.iterdir()):  # --force: other files there stay
            ours = sorted(p.relative_to(stage) for p in stage.rglob("*") if not p.is_dir())
            _replace_all(stage, folder, ours)
            return walk + _left_line(folder, set(ours))
        swap(stage, folder)  # the empty folder (if any) goes to the stage
        return walk
    except OSError as exc:  # named as the user knows it: the folder, not the stage (removed)
        where = str(exc.filename or stage).replace(str(stage), str(folder), 1)
        raise OSError(exc.errno, exc.strerror or str(exc), where) from exc
    finally:
        with stops_held():  # a further stop: the stage is removed first
            shutil.rmtree(stage, ignore_errors=True)


def _replace_all(stage: Path, folder: Path, ours: list[Path]) -> None:
    """Put each of ``ours`` (files relative to ``stage``) in place in ``folder``: all or none.

    Each file replaced is first copied to ``<file>.old`` in ``stage`` (a link as a link): where
    one cannot be written, or on a stop, those put in place are put back and the folders made for
    them removed; killed outright (SIGKILL), some may stay in place (see :func:`run_demo`).

    Raises:
        RefusalError: as :func:`_refuse_in_the_way` (before any file is replaced).
        OSError: one of ``ours`` could not be written, named under ``folder``, which is as it was.
    """
    done: list[Path] = []
    made: list[Path] = []
    try:
        _refuse_in_the_way(folder, ours)
        for rel in ours:
            for part in reversed(rel.parents[:-1]):
                if not (folder / part).exists():
                    (folder / part).mkdir()
                    made.append(folder / part)
            if os.path.lexists(folder / rel):  # copied, not linked: another's file, no links
                shutil.copy2(folder / rel, stage / f"{rel}.old", follow_symlinks=False)
            done.append(rel)  # first: a stop just after the replace still puts it back
            os.replace(stage / rel, folder / rel)  # each file whole
    except BaseException as exc:  # a stop too: what was replaced is put back
        with stops_held():  # a further stop: after the put-back, or the old files would be lost
            for rel in reversed(done):
                if os.path.lexists(stage / rel):  # not replaced
                    continue
                if os.path.lexists(old := stage / f"{rel}.old"):
                    os.replace(old, folder / rel)
                else:
                    (folder / rel).unlink()
            for path in reversed(made):
                path.rmdir()
        if not isinstance(exc, OSError):
            raise
        why = f"cannot write it: {exc.strerror or exc}; no file in {folder} was replaced"
        raise OSError(exc.errno, why, exc.filename) from exc


def _refuse_in_the_way(folder: Path, ours: list[Path]) -> None:
    """Refuse, before any file is replaced, what a forced demo would write through or fail on.

    Raises:
        RefusalError: a folder on the way to one of ``ours`` (files relative to ``folder``) is a
            symbolic link (the demo would write where it points) or not a folder, or the place of
            a file is a folder.
    """
    for rel in ours:
        for part in [*reversed(rel.parents[:-1]), rel]:
            path = folder / part
            if part != rel and (path.is_symlink() or (path.exists() and not path.is_dir())):
                what = "a symbolic link" if path.is_symlink() else "not a folder"
                raise RefusalError(f"{path}: is {what}, where the demo writes {rel}; move it")
            if part == rel and path.is_dir() and not path.is_symlink():
                raise RefusalError(f"{path}: is a folder, where the demo writes a file; move it")


def _left_line(folder: Path, ours: set[Path]) -> str:
    """The line naming what in ``folder`` the demo did not write (left as it was); or none.

    A folder holding nothing the line names is named itself, ending in ``/``.
    """
    left = sorted(
        f"{rel}/" if p.is_dir() else str(rel)
        for p in folder.rglob("*")
        if (rel := p.relative_to(folder)) not in ours and not _named_within(p)
    )
    if not left:
        return ""
    return (
        f"Left as {'it was' if len(left) == 1 else 'they were'} in {terminal_safe(str(folder))}, "
        f"not written by the demo ({len(left):,}): {terminal_safe(first_of(left))}.\n"
    )


def _named_within(path: Path) -> bool:
    """Whether ``path`` is a folder the walk lists files of (so the line names those, not it).

    A link to a folder is not walked into, and a folder that cannot be read is named itself.
    """
    try:
        return path.is_dir() and not path.is_symlink() and any(path.iterdir())
    except OSError:
        return False


def _write_demo(folder: Path) -> str:
    """Write the demo's files into ``folder`` (a new, empty one); the walkthrough."""
    (folder / "receipts").mkdir(exist_ok=True)
    for rel in COPIED:  # written, not copied: a failed write names the file written
        (folder / rel).parent.mkdir(exist_ok=True)
        (folder / rel).write_bytes((DATA / rel).read_bytes())
    suite = load_suite(folder / "suite.json")
    receipts: dict[str, Path] = {}
    for k, (v, run) in enumerate(RUNS):
        name = f"{v}-run{run}"
        receipts[name] = folder / "receipts" / f"{name}.json"
        _simulated_run(suite, folder, v, k, receipts[name], lose=name == "v2-run1")
    read = {n: read_receipt(p) for n, p in receipts.items()}
    cmp = compare_receipts(
        read["v1-run1"],
        read["v2-run1"],
        a_name="receipts/v1-run1.json",
        b_name="receipts/v2-run1.json",
        false_alarms=True,  # as `driftproof diff` prints it
    )
    diff = comparison_text(cmp)
    planned = plan_receipt(read["v1-run1"])
    plan = plan_text(planned)
    texts = {"diff.txt": f"{BANNER}\n\n{diff}", "plan.txt": f"{BANNER}\n\n{plan}"}
    for rel, text in texts.items():
        (folder / rel).write_text(text, encoding="utf-8")
    walk = walkthrough(read, diff, plan, plan_why(planned))
    (folder / "WALKTHROUGH.txt").write_text(walk, encoding="utf-8")
    before, _, after = walk.partition(diff)
    after = after.replace(LOCAL_SITE, "")  # the site's own index: it is that page
    write_site(folder / "site", receipts, (before, comparison_markdown(cmp), after), plan, texts)
    return walk


def _simulated_run(suite: Suite, folder: Path, v: str, k: int, out: Path, lose: bool) -> None:
    """Run ``suite`` with skill version ``v`` into new ``out`` (demo run ``k``); ``lose`` a draw."""
    skill = (folder / f"skill-{v}" / "SKILL.md").read_text(encoding="utf-8")
    system = sha256_text(arm_systems(skill, None)["with_skill"] or "")
    lost: dict[tuple[str, str | None, int], str] = (
        {(sha256_text(suite.cases[1].prompt), system, 2): LOST_REASON} if lose else {}
    )
    lane = SimulatedProvider(seed=k, effects={system: EFFECTS[v]}, lose=lost)
    cfg = RunConfig(
        model="simulated-model",
        judge_model="simulated-judge",
        concurrency=1,
        retry_delays=(0.0, 0.0),
    )
    try:
        run_suite(
            suite,
            skill_text=skill,
            skill_name="commit-style",
            cfg=cfg,
            provider=lane,
            judge=lane,
            out=out,
            sleep=lambda _s: None,
        )
    except OSError as exc:  # the run's journal goes with the stage: no draw is kept to resume
        raise (exc.__cause__ if isinstance(exc.__cause__, OSError) else exc) from None


def plan_why(p: Plan) -> str:
    """What sets the draw count of ``p``, as plan's own text says it further down: a sentence.

    The demo's seeded runs always plan a count that a run with no effect sets.
    """
    return (
        f"Why so many: the count is sized so that a run with no effect seldom reads "
        f"underpowered, and that sets it; a true lift of {p.effect:.3f} alone would be called at "
        f"{p.effect_alone:,} draws per arm."
    )


def walkthrough(read: dict[str, Receipt], diff: str, plan: str, why: str) -> str:
    """``demo_files/walkthrough.txt`` filled in from each run's receipt by name, diff and plan.

    ``why`` is what sets the plan's draw count (:func:`plan_why`), shown beside it.
    """
    r1 = read["v1-run1"]
    first = r1.cases[0]
    arms = ("with_skill", "baseline")
    longest = max(
        (
            (c.id, a.replace("_", " "), len(getattr(c.arms, a).draws), name)
            for name, r in read.items()
            for c in r.cases
            for a in arms
        ),
        key=lambda x: x[2],
    )
    lost = next(
        (c.id, a.replace("_", " "), d.number, d.lost.reason)
        for c in read["v2-run1"].cases
        for a in arms
        for d in getattr(c.arms, a).draws
        if d.lost is not None
    )
    iv = lift_interval(lift_breakdown(r1))  # the seeded runs always give it a paired interval
    lift = (  # the receipt named, as items 1 to 4 name theirs
        f"The lift of receipts/v1-run1.json, with its paired interval as context: "
        f"{paired_interval(iv)}. Context only: it never decides a verdict. "
        f"{METHOD}#the-paired-interval-on-the-lift"
    )
    scores = ", ".join(
        "lost" if d.score is None else f"{d.score:.2f}" for d in first.arms.with_skill.draws
    )
    return (
        (DATA / "walkthrough.txt")
        .read_text(encoding="utf-8")
        .format(
            case=first.id,
            scores=scores,
            band=arm_band(first.arms.with_skill, "generation"),
            longest=longest,
            lost=lost,
            plan_head=plan.splitlines()[0],
            plan_why=why,
            lift=lift,
            reason=receipt_reading(r1).reason,
            diff=diff,
            method=METHOD,
            local_site=LOCAL_SITE,
        )
    )


_BODY = re.compile(rb"<body[^>]*>")
#: The walkthrough's names of files the site holds: its method page (named from the demo's
#: folder, with an anchor or none; group 1 is the name within the site), plan.txt and diff.txt.
_SITE_FILE = re.compile(r"site/(method\.html(?:#[A-Za-z0-9_-]+)?)|\b(?:plan|diff)\.txt\b")


def _local_links(text: Markup) -> Markup:
    """Escaped ``text`` with each name of a file the site holds a relative link to it."""
    return Markup(_SITE_FILE.sub(lambda m: f'<a href="{m[1] or m[0]}">{m[1] or m[0]}</a>', text))


def _with_banner(page: bytes) -> bytes:
    """``page`` with the banner first in its body: a landmark, so no content is outside one."""
    banner = (
        '<div class="simulated-banner" role="region" aria-label="Simulated data" '
        'style="background:#b00020;color:#fff;padding:.6em 1em;font-weight:bold">'
        f"{html.escape(BANNER)}</div>"
    ).encode()
    m = _BODY.search(page)
    return page[: m.end()] + banner + page[m.end() :] if m else banner + page


def write_site(
    out: Path,
    receipts: dict[str, Path],
    walk: tuple[str, str, str],
    plan: str,
    texts: dict[str, str],
) -> None:
    """Write the demo's local site into ``out``.

    The site is the generator's receipt sheets, results page and badges for the simulated
    receipts, the method and decisions pages, the text files ``texts`` (site path: text) and an
    index with the walkthrough, each file it names linked; every HTML page carries a banner.
    ``walk`` is the walkthrough as (text before the diff, the diff in Markdown, text after it);
    the index renders the diff's Markdown: its sentences wrap and its cases are a table (in a box
    that scrolls sideways only when the screen is too narrow).
    """
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
        # as mkdocs renders it on the public site (mkdocs.yml's extensions): headings keep their ids
        html_text = markdown.markdown(text, extensions=["toc", "tables", "attr_list"])
        pages[f"{page}.html"] = (text.splitlines()[0].lstrip("# "), Markup(wrap_tables(html_text)))
    intro = Markup(
        '<h1>Driftproof demo (simulated)</h1><p>The <a href="receipts/index.html">receipts</a> '
        'and <a href="results/index.html">results</a> of this demo; the '
        '<a href="method.html">method</a> has worked examples of every verdict word.</p>'
        "<h2>Walkthrough</h2><pre>{}</pre>"
        '<section class="diff" aria-label="The diff">{}</section>'
        "<pre>{}</pre><h2>Plan</h2><pre>{}</pre>"
    ).format(
        _local_links(escape(walk[0].rstrip("\n"))),  # the diff below follows, no blank line
        Markup(wrap_tables(markdown.markdown(walk[1], extensions=["tables"]))),
        _local_links(escape(walk[2])),
        escape(plan),
    )
    pages["index.html"] = ("Demo", intro)  # its title: "Demo · <name>", as the nav calls it
    files.update(prose_files(pages, nav=nav, site_name=name))
    # a byte-order mark: a browser reads the text as UTF-8 even when a server names no charset
    files.update({rel: text.encode("utf-8-sig") for rel, text in texts.items()})
    for rel, data in sorted(files.items()):
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(_with_banner(data) if rel.endswith(".html") else data)
    mark_built(out)  # `driftproof reports build` run here may replace it
