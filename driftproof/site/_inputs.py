"""The inputs of a site build: every receipt under ``receipts/`` and report under ``reports/``.

Each receipt file is read once (bounded, ``O_NOFOLLOW``); the bytes read are the bytes
validated, published and summed (issue 15). A symbolic link anywhere under either folder,
or the folder itself being one, is refused (it could lead out of the repository), and so is
a receipt path with a part that does not match :data:`SAFE_NAME`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from driftproof.errors import Problem, ReceiptError, SiteBuildError
from driftproof.site._loaded import LoadedReceipt
from driftproof.site.report_source import Report, load_reports

__all__ = [
    "SAFE_NAME",
    "Found",
    "Progress",
    "SiteInputs",
    "find_inputs",
    "load_inputs",
    "simulated_problem",
]

#: The one safe pattern for each part of a receipt's path under ``receipts/`` (folders and the
#: file name without ``.json``): it needs no encoding in a URL and is the same on every file
#: system, so every link to it works (issue 15). The same pattern as a suite's case ids.
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")

#: ``progress(phase, done, total)``: phase is ``read``, ``validate``, ``render`` or ``write``.
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class SiteInputs:
    """Checked inputs of a site: receipts by name and reports, newest first."""

    receipts: dict[str, LoadedReceipt]
    reports: list[Report]


@dataclass
class Found:
    """What :func:`find_inputs` found: each receipt's path by name (name order), the checked
    reports, and every problem so far (one per bad place)."""

    paths: dict[str, Path]
    reports: list[Report]
    problems: list[Problem] = field(default_factory=list)

    def receipts(self, progress: Progress | None = None) -> Iterator[LoadedReceipt]:
        """Each receipt read from its file, one at a time, in name order (not yet parsed);
        a file that cannot be read is added to :attr:`problems` instead."""
        for i, (name, p) in enumerate(self.paths.items()):
            try:
                yield LoadedReceipt(name, None, _read_bounded(p), p)
            except ReceiptError as exc:
                self.problems.extend(exc.problems or [Problem(str(p), "", str(exc))])
            if progress:
                progress("read", i + 1, len(self.paths))


def find_inputs(receipts_dir: Path, reports_dir: Path) -> Found:
    """The receipt files and checked reports under the two folders; nothing is parsed but the
    reports. Symbolic links and unsafe names are problems (:attr:`Found.problems`)."""
    receipts_dir, reports_dir = Path(receipts_dir), Path(reports_dir)
    problems: list[Problem] = []
    for d, what in ((receipts_dir, "receipts"), (reports_dir, "reports")):
        if d.is_symlink():
            problems.append(_link_problem(d))
        elif not d.is_dir():
            problems.append(Problem(str(d), "", f"expected a directory of {what}"))
        else:
            problems.extend(_symlinks(d))
    ok = receipts_dir.is_dir() and not receipts_dir.is_symlink()
    paths: dict[str, Path] = {}
    for p in _receipt_paths(receipts_dir) if ok else []:
        name = p.relative_to(receipts_dir).with_suffix("").as_posix()
        bad_parts = [part for part in name.split("/") if not SAFE_NAME.fullmatch(part)]
        if bad_parts:
            problems.append(
                Problem(
                    str(p),
                    "",
                    f"expected a file name matching {SAFE_NAME.pattern} (then .json), "
                    f"found {_quote(bad_parts[0])}: rename the file",
                )
            )
        else:
            paths[name] = p
    reports: list[Report] = []
    if reports_dir.is_dir() and not reports_dir.is_symlink():
        try:
            md = sorted(p for p in reports_dir.glob("*.md") if not p.is_symlink())
            reports = load_reports(md, paths)
        except SiteBuildError as exc:
            problems.extend(exc.problems)
    return Found(dict(sorted(paths.items())), reports, problems)


def load_inputs(receipts_dir: Path, reports_dir: Path) -> SiteInputs:
    """Load and check every ``receipts_dir/**/*.json`` and ``reports_dir/*.md`` (each receipt
    parsed and validated: bounds, schema, seal, model), as a small site is held whole; a
    simulated receipt is refused, as the public site refuses it (issue 16).

    Raises:
        SiteBuildError: every problem in every receipt and report, one per line, in path order.
    """
    found = find_inputs(receipts_dir, reports_dir)
    receipts: dict[str, LoadedReceipt] = {}
    for lr in found.receipts():
        try:
            lr.receipt  # noqa: B018 (parsed and validated here)
        except ReceiptError as exc:
            found.problems.extend(exc.problems or [Problem(str(lr.path), "", str(exc))])
            continue
        if lr.summary.simulated:
            found.problems.append(simulated_problem(lr))
            continue
        receipts[lr.name] = lr
    if found.problems:
        problems = sorted(found.problems, key=lambda p: p.file)
        raise SiteBuildError(f"{len(problems)} problem(s); the site was not built", problems)
    return SiteInputs(receipts, found.reports)


def simulated_problem(lr: LoadedReceipt) -> Problem:
    """The public site's refusal of a simulated receipt (the demo's; issue 16)."""
    return Problem(
        str(lr.path or lr.name),
        "/run/provider",
        "expected a receipt a model produced; this one is "
        "simulated (driftproof demo), and the public site refuses simulated receipts",
    )


def _quote(text: str) -> str:
    """A file name for a message: printable, at most 80 characters."""
    return repr(text if len(text) <= 80 else text[:80] + "…")


def _link_problem(p: Path) -> Problem:
    return Problem(
        str(p),
        "",
        "is a symbolic link, which the build refuses (it could lead out "
        "of the repository); commit the file itself",
    )


def _symlinks(root: Path) -> list[Problem]:
    """One problem per symbolic link under ``root`` (files and folders; never followed)."""
    out: list[Problem] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for n in sorted(dirnames + filenames):
            if (Path(dirpath) / n).is_symlink():
                out.append(_link_problem(Path(dirpath) / n))
    return out


def _receipt_paths(root: Path) -> list[Path]:
    """Every ``*.json`` entry under ``root``, not through a symbolic link, in path order.

    A folder named ``*.json`` is listed too: reading it fails, so it is refused as
    unreadable in path order rather than silently skipped.
    """
    found = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not (Path(dirpath) / d).is_symlink())
        found += [
            Path(dirpath) / n
            for n in filenames + dirnames
            if n.endswith(".json") and not (Path(dirpath) / n).is_symlink()
        ]
    return sorted(found)


def _read_bounded(p: Path) -> bytes:
    """The file's bytes, refusing one over the receipt size bound before it is read whole;
    opened with ``O_NOFOLLOW``: a file swapped for a symbolic link is refused (issue 15)."""
    from driftproof.receipt._load import read_bounded

    return read_bounded(p, regular_only=True)
