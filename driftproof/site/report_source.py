"""Numbered reports: ``reports/NNN-slug.md`` files, YAML front matter plus Markdown prose.

Front matter (every key checked; unknown keys are refused)::

    ---
    number: 1                      # 1..999, equals NNN in the file name
    slug: caveman-terse-control    # equals the slug in the file name
    title: "Caveman's skills against a terse control"
    date: 2026-11-29               # the report's date (feed and listing; never the clock)
    summary: "One line for the home page and the feed."   # optional
    receipts: [caveman, caveman-cn]   # receipt names: paths under receipts/ without .json
    sections:                      # rendered in order after the prose
      - type: token_savings        # a registered section type (driftproof.site.sections)
        ...                        # that type's own parameters, checked by its model
    ---
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from driftproof.errors import Problem, SiteBuildError
from driftproof.pages.report import Report, SectionSpec
from driftproof.receipt._load import to_pointer
from driftproof.run.suite_read import SuiteLoader
from driftproof.site.sections import receipt_name, section_types

FILENAME_PATTERN = re.compile(r"^(?P<number>\d{3})-(?P<slug>[a-z0-9]+(?:-[a-z0-9]+)*)\.md$")
_FRONT = re.compile(r"\A---[ \t]*\r?\n(?P<yaml>.*?)\r?\n---[ \t]*(?:\r?\n(?P<body>.*))?\Z", re.S)
MAX_REPORT_BYTES = 1_000_000


class _Loader(SuiteLoader):
    """A suite's YAML (unique text keys, no aliases, bounded) without implicit timestamps."""


_Loader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class _FrontMatter(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=False)
    number: int = Field(ge=1, le=999)
    slug: str = Field(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$", max_length=80)
    title: str = Field(min_length=1, max_length=200)
    date: dt.date
    summary: str | None = Field(default=None, max_length=500)
    receipts: list[str] = Field(min_length=1, max_length=1000)
    sections: list[dict[str, Any]] = Field(default_factory=list, max_length=50)


def parse_report(
    data: bytes, file: str, known_receipts: Iterable[str]
) -> tuple[Report | None, list[Problem]]:
    """Parse one report file: the report (None when invalid) and every problem found.

    ``file`` names it in messages and its base name must match ``NNN-slug.md``; a report may
    cite only ``known_receipts``.
    """
    problems: list[Problem] = []

    def bad(pointer: str, message: str) -> None:
        problems.append(Problem(file, pointer, message))

    m_name = FILENAME_PATTERN.match(Path(file).name)
    if not m_name:
        bad("", "expected a file name NNN-slug.md (three digits, a dash, lowercase words joined "
            "by dashes)")  # fmt: skip
    parsed = _front_matter(data, bad)
    if parsed is None:
        return None, problems
    fm, body = parsed
    if m_name:
        number, slug = str(int(m_name["number"])), repr(m_name["slug"])
        for key, given, found in (
            ("number", number, str(fm.number)),
            ("slug", slug, repr(fm.slug)),
        ):
            if given != found:
                bad(f"/{key}", f"expected {given}, the {key} in the file name, found {found}")
    known = set(known_receipts)
    names = [receipt_name(r) for r in fm.receipts]
    for i, n in enumerate(names):
        if n not in known:
            bad(
                f"/receipts/{i}",
                f"expected the name of a receipt under receipts/ (without .json), found {n!r}",
            )
        elif names.index(n) != i:
            bad(f"/receipts/{i}", f"receipt {n!r} is listed twice")
    sections = _sections(fm.sections, tuple(names), bad)
    if problems:
        return None, problems
    fields = fm.model_dump(include={"number", "slug", "title", "date", "summary"})
    return Report(**fields, receipts=tuple(names), sections=sections, body=body, source=file), []


def _front_matter(data: bytes, bad: Callable[[str, str], None]) -> tuple[_FrontMatter, str] | None:
    """The checked front matter and the prose after it; None (problems given to ``bad``)."""
    if len(data) > MAX_REPORT_BYTES:
        bad("", f"report is {len(data)} bytes; the limit is {MAX_REPORT_BYTES}")
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad("", f"expected UTF-8 text, found an invalid byte at offset {exc.start}")
        return None
    m = _FRONT.match(text)
    if not m:
        bad("", "expected YAML front matter between a first line '---' and a closing '---'")
        return None
    try:
        raw = yaml.load(m.group("yaml"), Loader=_Loader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        bad("", f"front matter is not valid YAML{where}: {getattr(exc, 'problem', None) or exc}")
        return None
    if not isinstance(raw, dict):
        bad("", "expected the front matter to be a mapping of keys to values")
        return None
    try:
        return _FrontMatter.model_validate(raw), m.group("body") or ""
    except ValidationError as exc:
        for e in exc.errors():
            bad(to_pointer(e["loc"]), _pydantic_message(e))
        return None


def _sections(
    given: list[dict[str, Any]], names: tuple[str, ...], bad: Callable[[str, str], None]
) -> tuple[SectionSpec, ...]:
    """The sections, each checked by its type (problems given to ``bad``)."""
    types = section_types()
    sections: list[SectionSpec] = []
    for i, sec in enumerate(given):
        ptr = f"/sections/{i}"
        kind = sec.get("type")
        if not isinstance(kind, str) or kind not in types:  # a list or a mapping is no name
            bad(f"{ptr}/type", f"expected one of {', '.join(sorted(types))}, found {kind!r}")
            continue
        try:
            params = types[kind].Params.model_validate(
                {k: v for k, v in sec.items() if k != "type"}
            )
        except ValidationError as exc:
            for e in exc.errors():
                bad(ptr + to_pointer(e["loc"]), _pydantic_message(e))
            continue
        for sub_ptr, msg in types[kind].check(params, names):
            bad(ptr + sub_ptr, msg)
        sections.append(SectionSpec(kind, params, ptr))
    return tuple(sections)


def load_reports(paths: Iterable[Path], known_receipts: Iterable[str]) -> list[Report]:
    """Read and check every report; newest (highest number) first.

    Raises:
        SiteBuildError: one problem per bad place across all files (two reports with one
            number included).
    """
    known = tuple(known_receipts)
    reports: list[Report] = []
    problems: list[Problem] = []
    by_number: dict[int, str] = {}
    for p in sorted(paths):
        try:
            data = p.read_bytes()
        except OSError as exc:
            problems.append(Problem(str(p), "", f"cannot read: {exc.strerror}"))
            continue
        report, found = parse_report(data, str(p), known)
        problems.extend(found)
        if report is None:
            continue
        if (first := by_number.get(report.number)) is not None:
            used = f"report number {report.number} is already used by {first}"
            problems.append(Problem(str(p), "/number", used))
            continue
        by_number[report.number] = str(p)
        reports.append(report)
    if problems:
        raise SiteBuildError(f"{len(problems)} problem(s) in reports", problems)
    return sorted(reports, key=lambda r: r.number, reverse=True)


def _pydantic_message(e: Mapping[str, Any]) -> str:
    kind = e.get("type", "")
    if kind == "missing":
        return "required key is missing"
    if kind == "extra_forbidden":
        return "unknown key: not part of the report front matter"
    return f"{e.get('msg', 'invalid value')}, found {_short(e.get('input'))}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:80] + "…"
