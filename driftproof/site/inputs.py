"""The inputs of a site build: every receipt under ``receipts/`` and report under ``reports/``.

Each receipt is read once (bounded, ``O_NOFOLLOW``): the bytes read are the bytes validated,
published and summed. Symbolic links (the folders included) and unsafe names are refused, and
so is any file the build would not read: ``receipts/`` holds ``*.json`` (in folders too),
``reports/`` only ``NNN-slug.md`` files. Files named exactly ``.gitkeep`` (git's placeholder for
an empty folder) or ``.DS_Store`` (macOS's folder settings) are passed over.

Reports are ``reports/NNN-slug.md`` files, YAML front matter plus Markdown prose.

Front matter (every key checked; unknown keys are refused)::

    ---
    number: 1                      # 1..999 (quotes allowed), equals NNN in the file name
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
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from driftproof._anchor import windows_device
from driftproof._json import json_kind
from driftproof._json import pointer as to_pointer
from driftproof.errors import Problem, ReceiptError
from driftproof.outputs import is_staged_name
from driftproof.pages.report import Report, SectionSpec
from driftproof.receipt import Receipt, parse_receipt
from driftproof.receipt._load import read_bounded
from driftproof.run.suite_read import SuiteLoader
from driftproof.site.sections import receipt_name, section_types
from driftproof.wording import is_blank

FILENAME_PATTERN = re.compile(r"^(?P<number>\d{3})-(?P<slug>[a-z0-9]+(?:-[a-z0-9]+)*)\.md$")
_FRONT = re.compile(r"\A---[ \t]*\r?\n(?P<yaml>.*?)\r?\n---[ \t]*(?:\r?\n(?P<body>.*))?\Z", re.S)
MAX_REPORT_BYTES = 1_000_000


class _Loader(SuiteLoader):
    """A suite's YAML (unique text keys, no aliases, bounded) without implicit timestamps."""

    what = "a report"


_Loader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _written(pattern: str, convert: Callable[[str], Any]) -> BeforeValidator:
    """Converts text matching ``pattern``; any other value is left for the model to refuse."""
    return BeforeValidator(
        lambda v: convert(v) if isinstance(v, str) and re.fullmatch(pattern, v) else v
    )


def _unblank(text: str) -> str:
    """``text`` unless it is blank (:func:`~driftproof.wording.is_blank`): a title of nothing."""
    if is_blank(text):
        raise ValueError("blank")
    return text


class _FrontMatter(BaseModel):
    # strict: true, 1.0 or !!binary bytes are no number or title (nothing is converted)
    model_config = ConfigDict(extra="forbid", strict=True)
    number: Annotated[int, _written(r"[0-9]{1,3}", int)] = Field(ge=1, le=999)
    slug: str = Field(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$", max_length=80)
    title: Annotated[str, AfterValidator(_unblank)] = Field(min_length=1, max_length=200)
    date: Annotated[dt.date, _written(r"\d{4}-\d{2}-\d{2}", dt.date.fromisoformat)]
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

    m_name = FILENAME_PATTERN.fullmatch(Path(file).name)
    if not m_name:
        bad("", "expected a file name NNN-slug.md (three digits, a dash, lowercase words joined "
            "by dashes)")  # fmt: skip
    parsed = _front_matter(data, bad)
    if parsed is None:
        return None, problems
    fm, body = parsed
    if m_name:
        for key, given, found in (
            ("number", str(int(m_name["number"])), str(fm.number)),
            ("slug", repr(m_name["slug"]), repr(fm.slug)),
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
    if not m and text.startswith("\ufeff"):
        bad(
            "",
            "expected '---' first, found a byte-order mark (U+FEFF): save the file as UTF-8 "
            "without one",
        )
        return None
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
        found = "nothing" if raw is None else json_kind(raw)
        bad("", f"expected the front matter to be a mapping of keys to values, found {found}")
        return None
    try:
        return _FrontMatter.model_validate(raw), m.group("body") or ""
    except ValidationError as exc:
        for e in exc.errors():
            bad(to_pointer(e["loc"]), _pydantic_message(e, front=True))
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
                bad(ptr + to_pointer(e["loc"]), _pydantic_message(e, section=kind))
            continue
        for sub_ptr, msg in types[kind].check(params, names):
            bad(ptr + sub_ptr, msg)
        sections.append(SectionSpec(kind, params, ptr))
    return tuple(sections)


def _load_reports(
    paths: Iterable[Path], known: Iterable[str], problems: list[Problem]
) -> list[Report]:
    """Every report read and checked, newest first; none if one has a problem (in ``problems``)."""
    known = tuple(known)
    found: list[Problem] = []
    by_number: dict[int, Report] = {}
    for p in sorted(paths):
        try:
            data = read_bounded(p, regular_only=True)  # a FIFO refused, never waited on
        except ReceiptError as exc:
            found.extend(exc.problems)
            continue
        report, bad = parse_report(data, str(p), known)
        found.extend(bad)
        if (
            report is not None
            and (first := by_number.setdefault(report.number, report)) is not report
        ):
            used = f"report number {report.number} is already used by {first.source}"
            found.append(Problem(str(p), "/number", used))
    problems += found
    return [] if found else sorted(by_number.values(), key=lambda r: r.number, reverse=True)


#: What each front-matter key takes, in words: (the key's value, an item of its list).
_FRONT_EXPECTED = {
    "number": ("the report's number: a whole number from 1 to 999, as the NNN of its file name",
               ""),
    "slug": ("the slug of the file name: lowercase letters and digits, words joined by single "
             "dashes, at most 80 characters", ""),
    "title": ("the title: text of 1 to 200 characters, not blank", ""),
    "date": ("the report's date: a day of the calendar written YYYY-MM-DD", ""),
    "summary": ("the summary: text of at most 500 characters", ""),
    "receipts": ("a list of 1 to 1000 receipt names", "a receipt name: text, a path under "
                 "receipts/ without .json"),
    "sections": ("a list of at most 50 sections", "a section: a mapping of its type and its "
                 "parameters"),
}  # fmt: skip

#: What a section's parameter takes, by the kind of problem found, in words.
_KIND_EXPECTED = {
    "string_type": "text",
    "string_too_short": "text of at least {min_length} character(s)",
    "string_too_long": "text of at most {max_length} characters",
    "list_type": "a list",
}


def _pydantic_message(e: Mapping[str, Any], *, front: bool = False, section: str = "") -> str:
    """What a front-matter key (``front``) or a parameter of a ``section`` type expected, found."""
    kind, loc = e.get("type", ""), e.get("loc", ())
    if kind == "missing":
        return "required key is missing"
    if kind == "string_unicode":  # YAML's "\uD800": half of a character, in no UTF-8 text
        return "expected valid Unicode text, found a lone surrogate escape"
    if kind == "extra_forbidden" and section:
        keys = ", ".join(["type", *sorted(section_types()[section].Params.model_fields)])
        return f"unknown key: not a parameter of a {section} section, which takes {keys}"
    if kind == "extra_forbidden":
        return "unknown key: not part of the report front matter"
    if front and loc and loc[0] in _FRONT_EXPECTED:
        expected = _FRONT_EXPECTED[loc[0]][len(loc) > 1]
    else:
        expected = _KIND_EXPECTED.get(kind, "").format(**e.get("ctx", {}))
    if not expected:
        return f"{e.get('msg', 'invalid value')}, found {_short(e.get('input'))}"
    return f"expected {expected}, found {_short(e.get('input'))}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:80] + "…"


#: Each part of a receipt's path under ``receipts/`` (without ``.json``): safe in a URL and on
#: every file system, as a suite's case ids.
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")

#: A name part a receipt's folder cannot take: another file's name (a page, a receipt, the sums),
#: or a folder ``cases`` (its receipts' sheets would be read as another receipt's case pages);
#: in any letter case, as macOS and Windows read names.
_TAKEN = re.compile(r"[^/]\.(?:html|json)(?:/|$)|^SHA256SUMS(?:/|$)|(?:^|/)cases/", re.IGNORECASE)

#: ``progress(phase, done, total)``: phase ``render`` (receipts rendered of all).
Progress = Callable[[str, int, int], None]


@dataclass
class Found:
    """Each receipt's path by name (name order), the checked reports and every problem so far."""

    paths: dict[str, Path]
    reports: list[Report]
    problems: list[Problem] = field(default_factory=list)


def _folder(d: Path, what: str, suffix: str, nested: bool) -> tuple[list[Problem], list[Path]]:
    if d.is_symlink():
        return [_link_problem(d)], []
    if not d.is_dir():
        return [Problem(str(d), "", f"expected a directory of {what}")], []
    return _walk(d, suffix, nested)


def find_inputs(receipts_dir: Path, reports_dir: Path) -> Found:
    """The receipt files and checked reports under the two folders (no receipt is parsed)."""
    receipts_dir, reports_dir = Path(receipts_dir), Path(reports_dir)
    problems, found = _folder(receipts_dir, "receipts", ".json", nested=True)  # folders too
    more, md = _folder(reports_dir, "reports", ".md", nested=False)
    problems += more
    paths: dict[str, Path] = {}
    lowered: dict[str, Path] = {}  # a name in lower case to the file that took it first
    for p in found:
        name = p.relative_to(receipts_dir).with_suffix("").as_posix()
        bad = [part for part in name.split("/") if not SAFE_NAME.fullmatch(part)]
        if bad:
            why = f"a file name matching {SAFE_NAME.pattern} (then .json), found {_quote(bad[0])}"
        elif device := next(filter(None, map(windows_device, name.split("/"))), None):
            why = f"a name Windows can hold as a folder, found {device}"
        elif _TAKEN.search(name):  # its pages' folder would be another page's file
            why = f"a name whose pages no page of the site takes, found {_quote(name)}"
        elif (first := lowered.get(name.lower())) is not None:  # one folder on macOS, Windows
            why = f"a name unique ignoring case, found {_quote(name)} beside {first}"
        else:
            paths[name] = lowered[name.lower()] = p
            continue
        problems.append(Problem(str(p), "", f"expected {why}: rename the file"))
    reports = _load_reports(md, paths, problems)
    return Found(dict(sorted(paths.items())), reports, problems)


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
                "expected a receipt a model produced; this one is simulated (made by driftproof "
                "demo or by driftproof run --provider simulated), and the public site refuses "
                "simulated receipts",
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


#: File names the build passes over in any input folder; any other dotfile is refused by name.
_PASSED_OVER = frozenset({".gitkeep", ".DS_Store"})


def _walk(root: Path, suffix: str, nested: bool) -> tuple[list[Problem], list[Path]]:
    """The ``*suffix`` files under ``root`` (in its folders too when ``nested``).

    Returns:
        a problem per symbolic link (not followed) and per file or folder not read, and the files.
    """
    problems: list[Problem] = []
    found: list[Path] = []
    what = "a receipt, a file named *.json" if nested else "a report, a file named NNN-slug.md"

    def unread(exc: OSError) -> None:
        problems.append(Problem(str(exc.filename), "", f"cannot read: {exc.strerror}"))

    for dirpath, dirnames, filenames in os.walk(root, followlinks=False, onerror=unread):
        for n in sorted(dirnames + filenames):
            p = Path(dirpath) / n
            if p.is_symlink():
                problems.append(_link_problem(p))
            elif n in _PASSED_OVER and n in filenames:
                continue
            elif is_staged_name(n) and n in filenames:
                why = (
                    "is a temporary file left by a write that was killed before it finished; "
                    "it is safe to delete when no driftproof command is writing into this folder"
                )
                problems.append(Problem(str(p), "", why))
            elif n.endswith(".journal") and n in filenames:
                why = (
                    "is a run's journal: a run writing its receipt here may be in progress, or "
                    "stopped before it finished (run the same command again to resume it); build "
                    "once it has ended"
                )
                problems.append(Problem(str(p), "", why))
            elif n.endswith(suffix):  # a folder too: refused by name when read
                found.append(p)
            elif not (nested and n in dirnames):
                why = f"expected {what}; the build reads nothing else in {root}: rename or move it"
                problems.append(Problem(str(p), "", why))
        dirnames[:] = dirnames if nested else []
    return problems, sorted(found)
