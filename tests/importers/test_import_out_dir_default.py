"""Without --out-dir an import writes into the current folder, never into receipts/, the folder
``make reports`` publishes (an import run from the repository's root landed there), and every
importer's --help says so."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from driftproof.cli import cli
from driftproof.cli.import_ import import_group

CARD = "data/interop/nvidia/skills/cuopt-install/BENCHMARK.md"


def test_an_import_without_out_dir_writes_into_the_current_folder(
    shared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "receipts").mkdir()  # as at the repository's root
    commit = ["--commit", "7149a886d50da8db72cdc1f20ff01cefeadfe6a9"]
    result = CliRunner().invoke(cli, ["import", "nvidia", str(shared / CARD), *commit])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("wrote nvidia-7149a88-cuopt-install-card.json")
    assert [p.name for p in tmp_path.glob("*.json")] == ["nvidia-7149a88-cuopt-install-card.json"]
    assert list((tmp_path / "receipts").iterdir()) == []


@pytest.mark.parametrize("tool", sorted(import_group.commands))
def test_each_importers_help_says_where_it_writes(tool: str) -> None:
    result = CliRunner().invoke(cli, ["import", tool, "--help"], terminal_width=400)
    said = " ".join(result.output.split())
    assert "(default: the current folder, not receipts/, the folder make reports publishes;" in said
