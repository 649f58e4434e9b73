"""``driftproof demo [DIR]``: :func:`driftproof.demo.run_demo`, and what it wrote.

Exit status: 0 when the demo was written; 2 when DIR is a file, its parent folder does not
exist, or DIR is not empty and --force is not given (nothing is written).
"""

from __future__ import annotations

from pathlib import Path

import click

from driftproof.cli._options import GIVEN_PATH, path_option


@click.command()
@click.argument("folder", required=False, type=GIVEN_PATH, metavar="[DIR]")
@path_option(
    "--out-dir",
    "out_dir",
    help="The folder to write into (the same as DIR; default: driftproof-demo).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Write into a folder that is not empty, replacing the demo's files.",
)
def demo(folder: Path | None, out_dir: Path | None, force: bool) -> None:
    """Write a demo of the method on simulated data into DIR (default: driftproof-demo).

    The demo is an example suite, two versions of a skill, two simulated runs of each, a diff,
    a plan and a local site. Everything is SIMULATED: no model answers, no API key is needed,
    and no receipt gets a verdict.
    """
    from driftproof.demo import RUNS, run_demo  # deferred, with the next: start-up
    from driftproof.render.escape import terminal_safe

    if folder is not None and out_dir is not None and folder != out_dir:
        raise click.UsageError(
            f"DIR {folder} and --out-dir {out_dir} name two folders; give the folder once"
        )
    folder = folder or out_dir or Path("driftproof-demo")
    click.echo(run_demo(folder, force=force), nl=False)
    click.echo(
        f"Wrote {terminal_safe(str(folder))}/: suite.json, skill-v1/ and "
        f"skill-v2/SKILL.md, {len(RUNS)} receipts in receipts/, diff.txt, plan.txt, "
        "WALKTHROUGH.txt (the text above) and site/. Open "
        f"{terminal_safe(str(folder / 'site' / 'index.html'))}."
    )
