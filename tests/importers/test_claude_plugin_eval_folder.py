"""claude plugin eval: a plugin's own folder is not a results directory; the refusal says where.

``claude plugin eval`` writes each run's document as ``evals/results/<timestamp>/
aggregate-result.json`` under the plugin (site_src/interop.md); the importer reads that file, its
results directory, or a directory of results directories, never the plugin folder above them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from driftproof.importers import ImportError_
from driftproof.importers.claude_plugin_eval import import_claude_plugin_eval


def _refusal(path: Path) -> str:
    with pytest.raises(ImportError_) as e:
        import_claude_plugin_eval(path)
    return str(e.value)


def test_a_plugin_folder_is_refused_naming_where_it_looked_and_its_results_folder(
    tmp_path: Path,
) -> None:
    # found: "expected aggregate-result.json in this directory or in its results directories
    # (evals/results/<timestamp>/); found none" for the plugin folder, its results unnamed
    results = tmp_path / "evals" / "results"
    (results / "2026-09-12T01-06-04").mkdir(parents=True)
    said = _refusal(tmp_path)
    assert "in this directory or in a directory directly inside it" in said
    assert said.endswith(f"found none; its results are in {results}: give that folder")
    # with no evals/results folder there, none is named
    assert _refusal(results.parent).endswith("found none")


def test_a_document_in_the_folder_given_that_is_a_broken_link_is_refused_naming_it(
    tmp_path: Path,
) -> None:
    # found: refused as "<folder>/aggregate-result.json/aggregate-result.json: cannot read",
    # a file that is not there, the link itself looked past for a results folder inside it
    (gone := tmp_path / "aggregate-result.json").symlink_to(tmp_path / "x")
    assert _refusal(tmp_path).startswith(f"{gone}: ")
