"""``driftproof reports build``: check every receipt and report, then build the site."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from driftproof.cli import written
from driftproof.cli._options import path_option


@click.group()
def reports() -> None:
    """Build the public site of numbered reports from committed receipts."""


@reports.command(short_help="Validate every receipt and report, then build the site.")
@path_option(
    "--receipts",
    "receipts_dir",
    default="receipts",
    help="Directory of committed receipts (every *.json below it).",
)
@path_option(
    "--reports",
    "reports_dir",
    default="reports",
    help="Directory of numbered reports (NNN-slug.md).",
)
@path_option(
    "--out-dir",
    "--out",
    "out",
    default="site",
    help="Site folder, replaced whole only when the build succeeds (--out is its older spelling).",
)
@path_option(
    "--config",
    "config_file",
    help="mkdocs config. Default: ./mkdocs.yml when there is one, else the one installed with "
    "Driftproof (its own pages, templates and theme).",
)
@click.option(
    "--no-cache",
    is_flag=True,
    help="Check and render everything again, ignoring and not writing the "
    "build cache (.driftproof-cache beside the --out-dir folder; it never changes an output byte).",
)
def build(
    receipts_dir: Path, reports_dir: Path, out: Path, config_file: Path | None, no_cache: bool
) -> None:
    """Validate every receipt (schema, seal, version) and report, then build the site with mkdocs.

    Any problem stops the build with one line per problem (file: JSON pointer: what was
    expected) and a non-zero exit; the --out-dir folder is left as it was. A standard output
    that cannot be written once the site is built exits 2, the error saying it is built. Works
    in any directory holding receipts/ and reports/: without a mkdocs.yml there, the installed
    default is used.
    """
    from driftproof.pages.words import count_of  # deferred, with the next three: start-up
    from driftproof.render.escape import terminal_safe
    from driftproof.site._paths import default_config
    from driftproof.site.publish import build_site

    if config_file is None:
        config_file = Path("mkdocs.yml") if Path("mkdocs.yml").is_file() else default_config()
    with build_progress() as progress:
        inputs = build_site(
            receipts_dir,
            reports_dir,
            out,
            config_file=config_file,
            cache_dir=None if no_cache else True,
            progress=progress,
        )
    written("site", [out])
    built = count_of(len(inputs.reports), "report"), count_of(len(inputs.receipts), "receipt")
    shown = terminal_safe(str(out))
    index = terminal_safe(str(out / "index.html"))
    click.echo(f"built the site in the folder {shown}: {', '.join(built)}; open {index} to read it")


@contextmanager
def build_progress() -> Iterator[Callable[[str, int, int], None]]:
    """A ``progress(phase, done, total)`` callback drawing the ``render`` bar on stderr.

    Nothing is drawn when stderr is not a terminal.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from driftproof.render.console import TextConsole

    console = TextConsole(stderr=True)
    with Progress(
        TextColumn("{task.description:>8}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=not console.is_terminal,
    ) as bar:
        task = bar.add_task("render", total=None, start=False)

        def progress(phase: str, done: int, total: int) -> None:
            bar.start_task(task)
            bar.update(task, completed=done, total=total)

        yield progress
