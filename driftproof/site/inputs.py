"""The inputs of a site build: every receipt under ``receipts/`` and report under ``reports/``.

Each receipt is read once (bounded, ``O_NOFOLLOW``): the bytes read are the bytes validated,
published and summed. Symbolic links (the folders included) and unsafe names are refused.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from driftproof.errors import Problem, ReceiptError, SiteBuildError
from driftproof.receipt import Receipt, parse_receipt
from driftproof.receipt._load import read_bounded
from driftproof.site.report_source import Report, load_reports

#: Each part of a receipt's path under ``receipts/`` (without ``.json``): safe in a URL and on
#: every file system, as a suite's case ids.
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")

#: A name part a receipt's folder cannot take: another file's name (a page, a receipt, the sums),
#: or a folder ``cases`` (its receipts' sheets would be read as another receipt's case pages).
_TAKEN = re.compile(r"[^/]\.(?:html|json)(?:/|$)|^SHA256SUMS(?:/|$)|(?:^|/)cases/")

#: ``progress(phase, done, total)``: phase ``render`` (receipts rendered of all).
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class SiteInputs:
    """Checked inputs: each receipt file's bytes by name (name order), and the reports."""

    receipts: dict[str, bytes]
    reports: list[Report]


@dataclass
class Found:
    """Each receipt's path by name (name order), the checked reports and every problem so far."""

    paths: dict[str, Path]
    reports: list[Report]
    problems: list[Problem] = field(default_factory=list)


def _folder(d: Path, what: str) -> tuple[list[Problem], list[Path]]:
    if d.is_symlink():
        return [_link_problem(d)], []
    if not d.is_dir():
        return [Problem(str(d), "", f"expected a directory of {what}")], []
    return _walk(d)


def find_inputs(receipts_dir: Path, reports_dir: Path) -> Found:
    """The receipt files and checked reports under the two folders (no receipt is parsed)."""
    receipts_dir, reports_dir = Path(receipts_dir), Path(reports_dir)
    problems, found = _folder(receipts_dir, "receipts")
    problems += _folder(reports_dir, "reports")[0]
    paths: dict[str, Path] = {}
    for p in found:
        name = p.relative_to(receipts_dir).with_suffix("").as_posix()
        bad = [part for part in name.split("/") if not SAFE_NAME.fullmatch(part)]
        if bad:
            why = f"a file name matching {SAFE_NAME.pattern} (then .json), found {_quote(bad[0])}"
        elif _TAKEN.search(name):  # its pages' folder would be another page's file
            why = f"a name whose pages no page of the site takes, found {_quote(name)}"
        else:
            paths[name] = p
            continue
        problems.append(Problem(str(p), "", f"expected {why}: rename the file"))
    reports: list[Report] = []
    if reports_dir.is_dir() and not reports_dir.is_symlink():
        try:
            md = sorted(p for p in reports_dir.glob("*.md") if not p.is_symlink())
            reports = load_reports(md, paths)
        except SiteBuildError as exc:
            problems.extend(exc.problems)
    return Found(dict(sorted(paths.items())), reports, problems)


def load_inputs(receipts_dir: Path, reports_dir: Path) -> SiteInputs:
    """Load and check every ``receipts_dir/**/*.json`` and ``reports_dir/*.md`` (simulated refused).

    Raises:
        SiteBuildError: every problem in every receipt and report, one each, in path order.
    """
    found = find_inputs(receipts_dir, reports_dir)
    receipts: dict[str, bytes] = {}
    for name, p in found.paths.items():
        try:
            raw = read_bounded(p, regular_only=True)
        except ReceiptError as exc:
            found.problems += exc.problems or [Problem(str(p), "", str(exc))]
            continue
        r, problems = checked_receipt(raw, str(p), public=True)
        found.problems += problems
        if r is not None:
            receipts[name] = raw
    if found.problems:
        problems = sorted(found.problems, key=lambda p: p.file)
        raise SiteBuildError(f"{len(problems)} problem(s); the site was not built", problems)
    return SiteInputs(receipts, found.reports)


def checked_receipt(raw: bytes, file: str, public: bool) -> tuple[Receipt | None, list[Problem]]:
    """The receipt in ``raw``, or None and why: not valid, or simulated on the ``public`` site."""
    try:
        r = parse_receipt(raw, file)
    except ReceiptError as exc:
        return None, exc.problems or [Problem(file, "", str(exc))]
    if public and r.is_simulated:
        return None, [
            Problem(
                file,
                "/run/provider",
                "expected a receipt a model produced; this one is simulated (driftproof demo), "
                "and the public site refuses simulated receipts",
            )
        ]
    return r, []


def _quote(text: str) -> str:
    """A file name for a message: printable, at most 80 characters."""
    return repr(text if len(text) <= 80 else text[:80] + "…")


def _link_problem(p: Path) -> Problem:
    why = "it could lead out of the repository"
    return Problem(
        str(p), "", f"is a symbolic link, which the build refuses ({why}); commit the file itself"
    )


def _walk(root: Path) -> tuple[list[Problem], list[Path]]:
    """A problem per symbolic link under ``root`` (not followed); its ``*.json``, folders too."""
    links: list[Problem] = []
    found: list[Path] = []

    def unread(exc: OSError) -> None:
        links.append(Problem(str(exc.filename), "", f"cannot read: {exc.strerror}"))

    for dirpath, dirnames, filenames in os.walk(root, followlinks=False, onerror=unread):
        for n in sorted(dirnames + filenames):
            p = Path(dirpath) / n
            if p.is_symlink():
                links.append(_link_problem(p))
            elif n.endswith(".json"):
                found.append(p)
    return links, sorted(found)
