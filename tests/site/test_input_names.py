"""Inputs the site build must refuse by name, not by a failed write into its staging folder, and
a render cache entry that is not a file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from driftproof.site.inputs import find_inputs
from driftproof.site.receipt_jobs import RenderCache


@pytest.mark.parametrize(
    "name",
    [
        "SHA256SUMS",
        "index.html",
        "p1/index.html",
        "a.json",
        "p1/cases/x/index.html",
        # Found: accepted, though on macOS and Windows receipts/a.JSON/ is receipts/a.json,
        # receipts/Index.HTML/ the receipts page and P1/Cases/x/ p1's case page of x
        "a.JSON",
        "Index.HTML",
        "sha256sums",
        "P1/Cases/x",
    ],
)
def test_a_name_whose_pages_another_page_takes_is_refused_by_name(
    tmp_path: Path, name: str
) -> None:
    receipts, reports = tmp_path / "receipts", tmp_path / "reports"
    (receipts / name).parent.mkdir(parents=True)
    reports.mkdir()
    (receipts / f"{name}.json").write_text("{}", encoding="utf-8")
    (receipts / "p1.json").write_text("{}", encoding="utf-8")
    found = find_inputs(receipts, reports)
    assert list(found.paths) == ["p1"]
    [problem] = found.problems
    assert problem.file == str(receipts / f"{name}.json") and repr(name) in problem.message


def test_names_equal_ignoring_case_are_refused_by_name(tmp_path: Path) -> None:
    # Found: receipts/abc.json and receipts/ABC.json built pages in receipts/abc/ and
    # receipts/ABC/, one folder on macOS and Windows, where one receipt's pages replaced the
    # other's under its name; so did sub/X.json and SUB/x.json
    receipts, reports = tmp_path / "receipts", tmp_path / "reports"
    for folder in (receipts / "sub", receipts / "SUB"):
        folder.mkdir(parents=True)
    reports.mkdir()
    for name in ("ABC", "abc", "sub/X", "SUB/x", "p1"):
        (receipts / f"{name}.json").write_text("{}", encoding="utf-8")
    found = find_inputs(receipts, reports)
    assert list(found.paths) == ["ABC", "SUB/x", "p1"]  # the first of each in path order
    assert [(p.file, p.message) for p in found.problems] == [
        (
            str(receipts / "abc.json"),
            f"expected a name unique ignoring case, found 'abc' beside {receipts / 'ABC.json'}: "
            "rename the file",
        ),
        (
            str(receipts / "sub" / "X.json"),
            "expected a name unique ignoring case, found 'sub/X' beside "
            f"{receipts / 'SUB' / 'x.json'}: rename the file",
        ),
    ]


def test_a_file_the_build_does_not_read_is_refused_by_name(tmp_path: Path) -> None:
    # found: receipts/X.JSON and reports/006-x.txt were skipped without a word (the site built
    # without them), while reports/README.md was refused
    receipts, reports = tmp_path / "receipts", tmp_path / "reports"
    (receipts / "sub").mkdir(parents=True)
    (reports / "drafts").mkdir(parents=True)
    for path in (receipts / "p1.json", receipts / "X.JSON", receipts / "sub" / "notes.txt"):
        path.write_text("{}", encoding="utf-8")
    (reports / "006-x.txt").write_text("x", encoding="utf-8")
    found = find_inputs(receipts, reports)
    assert list(found.paths) == ["p1"]
    receipt = f"a receipt, a file named *.json; the build reads nothing else in {receipts}"
    report = f"a report, a file named NNN-slug.md; the build reads nothing else in {reports}"
    assert [(p.file, p.message) for p in found.problems] == [
        (str(receipts / "X.JSON"), f"expected {receipt}: rename or move it"),
        (str(receipts / "sub" / "notes.txt"), f"expected {receipt}: rename or move it"),
        (str(reports / "006-x.txt"), f"expected {report}: rename or move it"),
        (str(reports / "drafts"), f"expected {report}: rename or move it"),
    ]


def test_gitkeep_and_ds_store_are_passed_over_and_no_other_dotfile(tmp_path: Path) -> None:
    # an empty reports/ kept in git holds .gitkeep and macOS writes .DS_Store: both were refused
    receipts, reports = tmp_path / "receipts", tmp_path / "reports"
    (receipts / "sub").mkdir(parents=True)
    reports.mkdir()
    for folder in (receipts, receipts / "sub", reports):
        (folder / ".gitkeep").write_text("", encoding="utf-8")
        (folder / ".DS_Store").write_bytes(b"\0\0\0\1Bud1")
    for path in (receipts / "p1.json", receipts / ".hidden.json", reports / ".gitignore"):
        path.write_text("{}", encoding="utf-8")
    found = find_inputs(receipts, reports)
    assert list(found.paths) == ["p1"]
    assert sorted(p.file for p in found.problems) == [
        str(receipts / ".hidden.json"),
        str(reports / ".gitignore"),
    ]


def test_an_unreadable_folder_is_a_problem_not_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    receipts, reports = tmp_path / "receipts", tmp_path / "reports"
    (receipts / "sub").mkdir(parents=True)
    reports.mkdir()
    (receipts / "sub" / "q.json").write_text("{}", encoding="utf-8")
    real = os.scandir

    def scandir(path: object = ".") -> object:  # as without read permission (root has it)
        if str(path).endswith("sub"):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", scandir)
    found = find_inputs(receipts, reports)
    assert [(p.file, p.message) for p in found.problems] == [
        (str(receipts / "sub"), "cannot read: Permission denied")
    ]


def test_a_cache_entry_that_is_a_fifo_is_a_miss_not_a_wait(tmp_path: Path) -> None:
    cache = RenderCache(tmp_path)
    key = "ab" * 32
    cache.put(key, {"x.html": b"x"})
    entry = tmp_path / "render" / key[:2] / f"{key}.zip"
    assert cache.get(key) == {"x.html": b"x"}
    entry.unlink()
    os.mkfifo(entry)
    assert cache.get(key) is None  # opening it would wait for a writer


@pytest.mark.parametrize(
    ("name", "part"),
    [("CON", "CON"), ("nul.v2", "nul.v2"), ("Com1", "Com1"), ("lpt9/x", "lpt9"), ("a/aux", "aux")],
)
def test_a_windows_device_name_is_refused_by_name(tmp_path: Path, name: str, part: str) -> None:
    # Found: receipts/CON.json built its pages into receipts/CON/, a folder Windows cannot
    # create (CON, PRN, AUX, NUL, COM0-9 and LPT0-9 are devices in any letter case, with or
    # without an extension); the build passed, and the site could not be checked out there
    receipts, reports = tmp_path / "receipts", tmp_path / "reports"
    (receipts / name).parent.mkdir(parents=True)
    reports.mkdir()
    for each in (name, "console", "com10", "p1"):
        (receipts / f"{each}.json").write_text("{}", encoding="utf-8")
    found = find_inputs(receipts, reports)
    assert list(found.paths) == ["com10", "console", "p1"]
    assert [(p.file, p.message) for p in found.problems] == [
        (
            str(receipts / f"{name}.json"),
            f"expected a name Windows can hold as a folder, found a Windows device name, "
            f"'{part}': rename the file",
        )
    ]


def test_a_name_ending_in_a_dot_is_refused_by_name(tmp_path: Path) -> None:
    # receipts/abc..json built receipts/abc./, which Windows reads as receipts/abc/
    receipts, reports = tmp_path / "receipts", tmp_path / "reports"
    receipts.mkdir()
    reports.mkdir()
    (receipts / "abc..json").write_text("{}", encoding="utf-8")
    [problem] = find_inputs(receipts, reports).problems
    assert problem.message == (
        "expected a name Windows can hold as a folder, found a name ending in '.', 'abc.': "
        "rename the file"
    )


_KILLED_IMPORT = """
import functools, os, signal, sys
from pathlib import Path
from driftproof.outputs import write_all_or_none
from driftproof.receipt import write_receipt
from factories import case, make_receipt
from receipt_docs import body_of

body = body_of(make_receipt([case("c1", [0.9] * 3, [0.5] * 3)]))
os.replace = lambda *args: os.kill(os.getpid(), signal.SIGKILL)  # killed as the receipt moves
write_all_or_none({Path(sys.argv[1]) / "p2.json": functools.partial(write_receipt, body)},
                  replace=False)
"""


def test_a_temporary_file_a_killed_write_left_is_named_as_one(tmp_path: Path) -> None:
    # Found: after kill -9 of an import, its temporary files were refused as "rename or move it"
    receipts, reports = tmp_path / "receipts", tmp_path / "reports"
    receipts.mkdir()
    reports.mkdir()
    (receipts / "p1.json").write_text("{}", encoding="utf-8")
    root = Path(__file__).parents[2]
    env = {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{root / 'tests'}"}
    done = subprocess.run([sys.executable, "-c", _KILLED_IMPORT, str(receipts)], env=env)
    assert done.returncode == -signal.SIGKILL
    left = sorted(p.name for p in receipts.iterdir())
    assert len(left) == 3 and left[2] == "p1.json"  # the import's file and the receipt's own
    found = find_inputs(receipts, reports)
    assert list(found.paths) == ["p1"]
    assert [(p.file, p.message) for p in found.problems] == [
        (
            str(receipts / name),
            "is a temporary file left by a write that was killed before it finished; "
            "it is safe to delete when no driftproof command is writing into this folder",
        )
        for name in left[:2]
    ]


def test_a_runs_journal_in_the_receipts_folder_is_named_as_one(tmp_path: Path) -> None:
    # Found: `run --out receipts/r.json` under way (or stopped) left receipts/r.json.journal,
    # which the build refused as "expected a receipt, a file named *.json ... rename or move it"
    receipts, reports = tmp_path / "receipts", tmp_path / "reports"
    receipts.mkdir()
    reports.mkdir()
    (receipts / "r.json.journal").write_text("{}\n", encoding="utf-8")
    found = find_inputs(receipts, reports)
    assert [(p.file, p.message) for p in found.problems] == [
        (
            str(receipts / "r.json.journal"),
            "is a run's journal: a run writing its receipt here may be in progress, or stopped "
            "before it finished (run the same command again to resume it); build once it has "
            "ended",
        )
    ]
