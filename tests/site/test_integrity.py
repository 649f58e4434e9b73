"""Integrity of the build (issue 15, item 6), each with a planted input: read once (the bytes
validated are the bytes published and summed), symbolic links refused, one safe file-name
pattern, a broken internal link fails the build, control characters never written raw."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from receipt_docs import body_of
from site_fixtures import (
    REPO,
    docs_config,
    load_inputs,
    refused_build,
    scored_receipt,
    write_report,
)

from driftproof.errors import SiteBuildError
from driftproof.receipt import parse_receipt, write_receipt
from driftproof.site import build_site, build_site_files, receipt_jobs
from driftproof.site.inputs import SAFE_NAME

NAV = [{"title": "Reports", "url": ""}]


def _problems(exc: pytest.ExceptionInfo[SiteBuildError]) -> list[str]:
    return exc.value.lines()


def test_each_receipt_is_read_once_and_the_validated_bytes_are_published(
    tmp_path: Path, site_inputs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    receipts, reports = site_inputs
    path = receipts / "tested.json"
    original = path.read_bytes()
    opened: list[str] = []
    real_open = os.open

    def counting_open(p: object, *a: object, **kw: object) -> int:
        opened.append(str(p))
        return real_open(p, *a, **kw)  # type: ignore[arg-type]

    def parse_then_swap(data: bytes, file: str = "<receipt>", **kw: object) -> object:
        r = parse_receipt(data, file, **kw)  # type: ignore[arg-type]
        if file.endswith("tested.json"):  # the file changes on disk right after it was validated
            Path(file).write_bytes(original.replace(b'"an answer 0"', b'"EVIL answer"'))
        return r

    monkeypatch.setattr("driftproof.site.inputs.parse_receipt", parse_then_swap)
    monkeypatch.setattr(os, "open", counting_open)
    out = tmp_path / "site"
    build_site(receipts, reports, out, config_file=REPO / "mkdocs.yml", cache_dir=None)
    assert path.read_bytes() != original  # the swap happened
    assert opened.count(str(path)) == 1
    assert (out / "receipts" / "tested.json").read_bytes() == original
    sums = (out / "receipts" / "SHA256SUMS").read_text(encoding="utf-8")
    assert f"{hashlib.sha256(original).hexdigest()}  receipts/tested.json" in sums


@pytest.mark.parametrize("where", ["receipts", "reports"])
def test_a_symbolic_link_is_refused_in_one_line_naming_it(
    tmp_path: Path, site_inputs: tuple[Path, Path], where: str
) -> None:
    receipts, reports = site_inputs
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.json"
    secret.write_text('{"token": "s3cr3t-value"}', encoding="utf-8")  # invalid as a receipt
    link = (receipts / "linked.json") if where == "receipts" else (reports / "009-linked.md")
    link.symlink_to(secret)
    err = refused_build(receipts, reports, tmp_path / "site")
    lines = err.lines()
    assert len(lines) == 1 and lines[0].startswith(str(link)) and "symbolic link" in lines[0]
    # never read, never quoted
    assert "s3cr3t" not in str(err) and "s3cr3t" not in "\n".join(lines)


def test_a_linked_folder_is_refused_and_not_walked(
    tmp_path: Path, site_inputs: tuple[Path, Path]
) -> None:
    receipts, reports = site_inputs
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "x.json").write_text("{}", encoding="utf-8")
    (receipts / "more").symlink_to(outside, target_is_directory=True)
    lines = refused_build(receipts, reports, tmp_path / "site").lines()
    assert (
        len(lines) == 1
        and lines[0].startswith(str(receipts / "more"))
        and "symbolic link" in lines[0]
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_is_refused_not_waited_on(tmp_path: Path, site_inputs: tuple[Path, Path]) -> None:
    # opening a FIFO for reading blocks until a writer comes: the build must refuse it instead
    receipts, reports = site_inputs
    fifo = receipts / "pipe.json"
    os.mkfifo(fifo)
    err = refused_build(receipts, reports, tmp_path / "site")
    assert err.lines() == [f"{fifo}: expected a regular file"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_report_that_is_a_fifo_or_a_folder_is_refused_not_waited_on(
    tmp_path: Path, site_inputs: tuple[Path, Path]
) -> None:
    receipts, reports = site_inputs
    os.mkfifo(fifo := reports / "006-pipe.md")
    (folder := reports / "007-folder.md").mkdir()
    assert refused_build(receipts, reports, tmp_path / "site").lines() == [
        f"{fifo}: expected a regular file",
        f"{folder}: expected a regular file",
    ]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_unreadable_receipts_read_by_worker_processes_are_reported_in_path_order(
    tmp_path: Path, site_inputs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A large build reads its receipts in a pool of worker processes (issue 19): the pool is
    # taken here from 2 receipts on; the problems still come one line per file, in path order,
    # whichever worker read which file first.
    monkeypatch.setattr(receipt_jobs, "POOL_FROM", 2)
    receipts, reports = site_inputs
    fifos = [receipts / f"{n}.json" for n in ("zz-pipe", "aa-pipe", "mm-pipe")]
    for fifo in fifos:
        os.mkfifo(fifo)
    err = refused_build(receipts, reports, tmp_path / "site")
    assert err.lines() == [f"{f}: expected a regular file" for f in sorted(fifos)]


def test_receipt_file_names_must_match_the_safe_pattern(
    tmp_path: Path, site_inputs: tuple[Path, Path]
) -> None:
    receipts, reports = site_inputs
    names = ["why?.json", "c#1.json", "a b.json", ".hidden.json", "caf\u00e9.json", "x%41.json"]
    for name in names:
        (receipts / name).write_bytes((receipts / "tested.json").read_bytes())
    lines = refused_build(receipts, reports, tmp_path / "site").lines()
    assert len(lines) == len(names)  # one line a file, in path order
    for name, line in zip(sorted(names), lines, strict=True):
        assert name[:-5] in line and SAFE_NAME.pattern in line


def test_a_receipt_in_a_folder_named_cases_is_refused(
    tmp_path: Path, site_inputs: tuple[Path, Path]
) -> None:
    # receipts/team/cases/x.json's sheet, receipts/team/cases/x/index.html, is where receipt
    # team's case page x would be: the search index would take it for a case page
    receipts, reports = site_inputs
    (receipts / "team" / "cases").mkdir(parents=True)
    (receipts / "team" / "cases" / "x.json").write_bytes((receipts / "tested.json").read_bytes())
    (line,) = refused_build(receipts, reports, tmp_path / "site").lines()
    assert "x.json" in line and "found 'team/cases/x'" in line


def test_a_hand_written_page_may_link_to_a_case_page_and_its_broken_link_fails(
    tmp_path: Path, site_inputs: tuple[Path, Path]
) -> None:
    receipts, reports = site_inputs
    docs, config = docs_config(tmp_path)
    build_site(receipts, reports, tmp_path / "first", config_file=config, cache_dir=None)
    case = sorted((tmp_path / "first").glob("receipts/tested/cases/*/index.html"))[0]
    link = case.relative_to(tmp_path / "first").as_posix()
    (docs / "notes.md").write_text(f"# Notes\n\nSee [the case]({link}).\n", encoding="utf-8")
    build_site(receipts, reports, tmp_path / "site", config_file=config, cache_dir=None)
    assert f'href="{link}"' in (tmp_path / "site" / "notes.html").read_text(encoding="utf-8")
    (docs / "notes.md").write_text("# Notes\n\nSee [nothing](receipts/nowhere.html).\n")
    with pytest.raises(SiteBuildError) as exc:
        build_site(receipts, reports, tmp_path / "site", config_file=config, cache_dir=None)
    assert "notes.html: receipts/nowhere.html (no such file)" in "\n".join(_problems(exc))


def test_a_broken_internal_link_fails_the_build(
    tmp_path: Path, site_inputs: tuple[Path, Path]
) -> None:
    receipts, reports = site_inputs
    write_report(
        reports,
        "003-links.md",
        """
        number: 3
        slug: links
        title: Links
        date: 2026-03-04
        receipts: [tested]
        sections: []
        """,
        body="See [a page that is not there](../../nowhere/) and [a case](../002/#case-nope).\n",
    )
    out = tmp_path / "site"
    with pytest.raises(SiteBuildError) as exc:
        build_site(receipts, reports, out, config_file=REPO / "mkdocs.yml")
    # the file to edit is the report's source, not mkdocs.yml; the page and the link follow
    assert _problems(exc) == [
        f"{reports / '003-links.md'}: broken link: reports/003/index.html: {link}"
        for link in (
            "../../nowhere/ (no such file)",
            "../002/#case-nope (no element with id 'case-nope')",
        )
    ]
    assert not out.exists() and [p for p in tmp_path.iterdir() if p.name.startswith(".site.")] == []


def test_control_characters_are_shown_not_written_raw(tmp_path: Path) -> None:
    receipts, reports = tmp_path / "receipts", tmp_path / "reports"
    receipts.mkdir()
    write_receipt(
        body_of(
            scored_receipt(
                {"c1": ([0.9, 0.8, 0.85], [0.5, 0.55, 0.45])}, answer="NUL\x00here\x1b[31m\x85"
            )
        ),
        receipts / "ctl.json",
    )
    write_report(
        reports,
        "001-ctl.md",
        """
        number: 1
        slug: ctl
        title: Control
        date: 2026-01-01
        receipts: [ctl]
        sections:
          - type: receipt_sheets
        """,
    )
    inputs = load_inputs(receipts, reports)
    files = build_site_files(inputs.receipts, inputs.reports, nav=NAV)
    page = files["receipts/ctl/cases/c1/index.html"].decode("utf-8")
    assert "NUL\u2400here\u241b[31m\\u0085 0" in page  # NUL as ␀, ESC as ␛, U+0085 spelled out
    for path, data in files.items():
        if path.endswith((".html", ".svg", ".xml")):
            text = data.decode("utf-8")
            assert not any(ord(c) < 32 and c not in "\t\n\r" for c in text), path
    assert json.loads(files["receipts/ctl.json"])["cases"][0]["arms"]["with_skill"]["draws"][0][
        "answer"
    ].startswith("NUL\x00")  # the receipt itself is published byte for byte


def test_the_old_site_remover_holds_none_of_the_builds_streams(tmp_path: Path) -> None:
    # The remover outlives the build; holding its stdout or stderr kept a caller that reads them
    # to their end (a pipe, a CI log, the site benchmark) waiting until the old site was gone.
    import subprocess
    import sys
    import textwrap

    old = tmp_path / "old-site"
    old.mkdir()
    (old / "index.html").write_text("old", encoding="utf-8")
    child = textwrap.dedent(
        f"""
        import os
        from pathlib import Path
        from driftproof.site import publish
        real = os.posix_spawn
        def spy(path, argv, env, **kw):
            targets = {{fd: name for _, fd, name, *_ in kw.get("file_actions", [])}}
            print("streams", sorted(targets.items()), flush=True)
            return real(path, argv, env, **kw)
        os.posix_spawn = spy
        publish.discard(Path({str(old)!r}), Path({str(tmp_path / "trash")!r}))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", child], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    assert f"streams [(0, {os.devnull!r}), (1, {os.devnull!r}), (2, {os.devnull!r})]" in out
    assert not old.exists()


def test_a_full_disk_as_mkdocs_writes_a_page_names_the_site_folder(
    tmp_path: Path, site_inputs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found: `reports build` onto a full tmpfs said "error: (input or output): No space left on
    # device": mkdocs writes each page's bytes, and a failed write names no file
    import errno

    from mkdocs import utils

    def full(*_: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(utils, "write_file", full)
    receipts, reports = site_inputs
    out = tmp_path / "site"
    with pytest.raises(OSError) as exc:
        build_site(receipts, reports, out, config_file=REPO / "mkdocs.yml", cache_dir=None)
    assert (exc.value.errno, exc.value.filename) == (errno.ENOSPC, str(out))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["receipts", "reports"]
