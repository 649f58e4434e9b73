"""NVIDIA files' paths in their repository (--repo-root) and a --skill the catalogue lacks.

The folder ``data/interop/nvidia`` mirrors the NVIDIA/skills checkout (its SOURCE.md: each file
copied from the same path, ``benchmarks.json`` at the root, ``skills/cuopt-install/BENCHMARK.md``
below it), so it serves as the checkout's root.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from driftproof.cli import cli
from driftproof.errors import ImportError_
from driftproof.importers import get_importer
from driftproof.importers.nvidia import NvidiaOptions

NV = "data/interop/nvidia"


@pytest.mark.parametrize(
    ("source", "path"),
    [
        ("skills/cuopt-install", "skills/cuopt-install/BENCHMARK.md"),
        ("benchmarks.json", "benchmarks.json"),
    ],
)
def test_a_path_below_the_repo_root_is_recorded_from_it(
    shared: Path, source: str, path: str
) -> None:
    options = NvidiaOptions(repo_root=shared / NV, skills=["cuopt-install"])
    got = get_importer("nvidia")([shared / NV / source], options)
    assert [f.path for i in got for f in i.body.source_figures.files] == [path]


def test_a_file_outside_the_repo_root_is_refused(shared: Path, tmp_path: Path) -> None:
    # it was recorded as skills/cuopt-install/BENCHMARK.md, a guess from its folder names
    card = shared / NV / "skills/cuopt-install/BENCHMARK.md"
    with pytest.raises(ImportError_) as e:
        get_importer("nvidia")([card], NvidiaOptions(repo_root=tmp_path))
    p = e.value.problems[0]
    assert (p.file, p.pointer) == (str(card), "")
    assert p.message.startswith(f"expected a file inside --repo-root {tmp_path}")


def test_a_file_reached_through_a_link_inside_the_repo_root_is_recorded_where_the_link_is(
    shared: Path, tmp_path: Path
) -> None:
    # Found: the link was followed out of --repo-root and the file refused as outside it
    for folder in ("skills", "x"):
        (tmp_path / folder).mkdir()
    (tmp_path / "skills" / "cuopt-install").symlink_to(shared / NV / "skills/cuopt-install")
    source = tmp_path / "x" / ".." / "skills" / "cuopt-install"  # `..` is taken away as written
    got = get_importer("nvidia")([source], NvidiaOptions(repo_root=tmp_path))
    assert [f.path for i in got for f in i.body.source_figures.files] == [
        "skills/cuopt-install/BENCHMARK.md"
    ]


def _recorded(source: Path, root: Path) -> list[str]:
    got = get_importer("nvidia")([source], NvidiaOptions(repo_root=root))
    return [f.path for i in got for f in i.body.source_figures.files]


def test_a_repo_root_and_a_file_named_through_links_are_inside(
    shared: Path, tmp_path: Path
) -> None:
    # Found: --repo-root given through a link, and the card named by its real path (or the
    # other way round), was refused as outside; a folder that is the root by its real path
    # counts as the root, and the path recorded is the one that follows it as named
    card = "skills/cuopt-install/BENCHMARK.md"
    (tmp_path / "root").symlink_to(shared / NV)
    assert _recorded(shared / NV / card, tmp_path / "root") == [card]
    assert _recorded(tmp_path / "root" / card, shared / NV) == [card]
    # a file whose own path is outside but whose real path is inside is recorded by that
    (tmp_path / "elsewhere").symlink_to(shared / NV / "skills/cuopt-install")
    assert _recorded(tmp_path / "elsewhere" / "BENCHMARK.md", tmp_path / "root") == [card]
    # and one truly outside stays refused, through a link or not
    (tmp_path / "other").mkdir()
    (tmp_path / "outside").symlink_to(tmp_path / "other")
    with pytest.raises(ImportError_, match="expected a file inside --repo-root"):
        _recorded(shared / NV / card, tmp_path / "outside")


def test_a_skill_the_catalogue_lacks_is_refused_and_nothing_written(
    shared: Path, tmp_path: Path
) -> None:
    out = tmp_path / "r"
    catalogue = str(shared / NV / "benchmarks.json")
    args = ["import", "nvidia", catalogue, "--skill", "cuopt-install", "--skill", "no-such"]
    result = CliRunner().invoke(cli, [*args, "--out-dir", str(out)])
    assert isinstance(result.exception, ImportError_) and not out.exists()
    assert str(result.exception) == f"{catalogue}: expected skills no-such in /skills; not found"


def test_a_dot_dot_after_a_link_goes_up_from_its_target(shared: Path, tmp_path: Path) -> None:
    # Found: repo/lnk/../skills/x was taken as repo/skills/x, inside --repo-root, though the
    # system opens the target's parent's skills/x, outside it (the root holds only the link)
    (tmp_path / "repo").mkdir()
    (tmp_path / "out" / "deep" / "target").mkdir(parents=True)
    (tmp_path / "out" / "deep" / "skills").symlink_to(shared / NV / "skills")
    (tmp_path / "repo" / "lnk").symlink_to(tmp_path / "out" / "deep" / "target")
    source = tmp_path / "repo" / "lnk" / ".." / "skills" / "cuopt-install"
    with pytest.raises(ImportError_) as e:
        _recorded(source, tmp_path / "repo")
    assert e.value.problems[0].message.startswith(
        f"expected a file inside --repo-root {tmp_path / 'repo'}"
    )
