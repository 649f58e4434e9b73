"""``driftproof reports build``: check every receipt and report, then build the site."""

from __future__ import annotations

from pathlib import Path

import click


@click.group()
def reports() -> None:
    """Build the public site of numbered reports from committed receipts."""


@reports.command()
@click.option("--receipts", "receipts_dir", type=click.Path(path_type=Path), default=Path("receipts"), show_default=True,
              help="Directory of committed receipts (every *.json below it).")
@click.option("--reports", "reports_dir", type=click.Path(path_type=Path), default=Path("reports"), show_default=True,
              help="Directory of numbered reports (NNN-slug.md).")
@click.option("--out-dir", "--out", "out", type=click.Path(path_type=Path), default=Path("site"), show_default=True,
              help="Site folder, replaced whole only when the build succeeds (--out is its older spelling).")
@click.option("--config", "config_file", type=click.Path(path_type=Path), default=Path("mkdocs.yml"), show_default=True)
def build(receipts_dir: Path, reports_dir: Path, out: Path, config_file: Path) -> None:
    """Validate every receipt (schema, seal, version) and report, then build OUT with mkdocs.

    Any problem stops the build with one line per problem (file: JSON pointer: what was
    expected) and a non-zero exit; OUT is left as it was.
    """
    from driftproof.site.publish import build_site

    inputs = build_site(receipts_dir, reports_dir, out, config_file=config_file)
    click.echo(f"built {out}: {len(inputs.reports)} report(s), {len(inputs.receipts)} receipt(s)")
