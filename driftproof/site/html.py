"""HTML of the site: one Jinja2 environment and one Markdown pipeline; untrusted text stays text.

The environment escapes, fails on a missing variable and shows control characters
(:func:`printable`); Markdown is rendered with raw HTML off. The pages of a receipt (its sheet
and case pages) and of the numbered reports (files, home page list) are made here.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, overload

import jinja2
from markdown_it import MarkdownIt
from markupsafe import Markup

from driftproof._anchor import slug, unique
from driftproof.errors import Problem, SiteBuildError
from driftproof.pages.case import case_pages, case_pages_about
from driftproof.pages.receipt_tables import receipt_tables
from driftproof.pages.report import Report, cited_receipts, downloads, report_json, report_listing
from driftproof.pages.results import (
    FOLD_FROM,
    NO_MEASURED_RUN,
    RESULTS_PAGE,
    ResultRow,
    named_originals,
    regrade_words,
    results_groups,
    runs_words,
)
from driftproof.pages.tables import csv_bytes, sums_of
from driftproof.pages.words import count_of
from driftproof.receipt import Receipt
from driftproof.site._paths import templates_dir
from driftproof.site.sections import SectionContext, SectionOutput, section_types

# C0 controls but tab, line feed and carriage return; DEL; C1 controls; bidirectional
# embeddings, overrides and isolates (they reverse the text after them: "Trojan Source");
# characters that draw nothing and join no script (zero-width space, word joiner, invisible
# operators, byte-order mark, tag characters: "cave\u200bman" would read as "caveman"); lone
# surrogates (which UTF-8 cannot encode) and the noncharacters HTML forbids. The zero-width
# joiner and non-joiner and the bidirectional marks stay: emoji, Persian, Indic, Arabic and
# Hebrew text need them.
_CONTROL = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ud800-\udfff\ufdd0-\ufdef\ufeff\ufff9-\ufffb\ufffe\uffff"
    "\U000e0001\U000e0020-\U000e007f]"
)


def _visible(m: re.Match[str]) -> str:
    c = ord(m.group())
    if c < 0x20:
        return chr(0x2400 + c)  # U+2400 CONTROL PICTURES: NUL shows as ␀
    if c == 0x7F:
        return "\u2421"  # ␡
    return f"\\u{c:04x}" if c <= 0xFFFF else f"\\U{c:08x}"


@overload
def printable(value: str) -> str: ...
@overload
def printable(value: object) -> object: ...
def printable(value: object) -> object:
    r"""``value`` with every control character shown (NUL as ␀, U+0085 as ``\\u0085``).

    Strings only (Markup stays Markup); other values are returned as they are.
    """
    # every character _CONTROL matches is one str.isprintable() refuses, so a printable
    # string (most of them; checked in C) holds none
    if not isinstance(value, str) or value.isprintable() or not _CONTROL.search(value):
        return value
    shown = _CONTROL.sub(_visible, str(value))
    return Markup(shown) if isinstance(value, Markup) else shown


#: CommonMark plus tables; raw HTML escaped.
_MD = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(
    "table"
)

#: What ``obj.name`` finds on a plain dict as an attribute (its methods).
_DICT_ATTRIBUTES = frozenset(dir(dict))


class _Environment(jinja2.Environment):
    """Jinja2's environment; ``d.name`` on a plain dict is ``d["name"]`` without raising first."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        """``obj.attribute`` as Jinja looks it up."""
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


def make_env(template_dirs: Sequence[Path]) -> jinja2.Environment:
    """A strict, escaping Jinja2 environment over ``template_dirs`` (searched in order)."""
    env = _Environment(
        loader=jinja2.FileSystemLoader([str(d) for d in template_dirs]),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,
        finalize=printable,
    )
    env.globals.update(table_box=table_box, fold_from=FOLD_FROM, no_measured_run=NO_MEASURED_RUN)
    env.filters["count_of"] = count_of
    return env


def page_env(
    templates: Path | None = None, site_name: str = "", nav: Sequence[Mapping[str, str]] = ()
) -> jinja2.Environment:
    """The environment of the site's pages (``pages``, then ``theme``), name and navigation set."""
    templates = templates or templates_dir()
    env = make_env([templates / "pages", templates / "theme"])
    env.globals.update(site_name=site_name, site_nav=list(nav))
    return env


#: A table of more body rows than this is long: its box has a bounded height and scrolls both
#: ways, its header row stays on screen (site.css, ``.table-wrap.long``).
LONG_TABLE_ROWS = 40


def table_box(caption_id: str = "", label: str = "", rows: int = 0, listed: bool = False) -> Markup:
    """The opening ``<div>`` of the box every table of the site scrolls sideways in.

    Returns a region a keyboard can focus (and so scroll), named by the table's ``<caption>``
    with id ``caption_id`` or, when that is empty, by ``label``; both escaped. A table of
    ``rows`` body rows, more than :data:`LONG_TABLE_ROWS`, gets the class ``long``: a box no
    taller than the screen, so its sideways scroll bar is in reach. A ``listed`` table (one a
    phone reads as a list, ``table.stack``) gets the class ``listed``: on a phone its box is
    as tall as its list and scrolls with the page.
    """
    name = Markup('aria-labelledby="{}"' if caption_id else 'aria-label="{}"').format(
        caption_id or label
    )
    kind = "table-wrap" + " long" * (rows > LONG_TABLE_ROWS) + " listed" * listed
    return Markup('<div class="{}" tabindex="0" role="region" {}>').format(kind, name)


#: Where a long token in a table's text may break: before a dot inside a name (``run.model``,
#: ``receipt.schema.json``; not ``0.16`` nor ``e.g.``) and after the slashes of a path
#: (``evals/prompts``, ``https://driftproof``; not ``5/5`` nor ``A/A``); before an underscore
#: inside a name (``judge_samples``) too, but only on a narrow screen (site.css hides ``wbr.u``
#: elsewhere).
_BREAK = re.compile(
    r"(?:(?<=[\w\[\]]{2})|(?<=&gt;))(?=\.[A-Za-z_$&])|(?<=[\w.:/-]{2}/)(?=[A-Za-z_.<&])"
)
_BREAK_U = re.compile(r"(?<=[A-Za-z0-9])(?=_\w)")


def _breakable(table: str) -> str:
    """``table`` (HTML) with a ``<wbr>`` at each break point of its text (:data:`_BREAK`)."""

    def text(m: re.Match[str]) -> str:
        return ">" + _BREAK_U.sub('<wbr class="u">', _BREAK.sub("<wbr>", m[1])) + "<"

    return re.sub(r">([^<]+)<", text, table)


def _labelled(table: str) -> str:
    """``table`` (HTML of a Markdown table) with each body cell but a row's first labelled.

    The label (``data-label``, which site.css shows before the cell where a phone reads the
    table as a list) is its column's head, its words without markup. A table with no head is
    returned unchanged.
    """
    head, sep, body = table.partition("</thead>")
    heads = re.findall(r"<th(?:\s[^>]*)?>(.*?)</th>", head, re.S)
    labels = [re.sub(r"<[^>]+>", "", h).strip() for h in heads]

    def row(m: re.Match[str]) -> str:
        cells = iter(labels[1:])
        return re.sub(
            r"</td>(\s*)<td", lambda c: f'</td>{c[1]}<td data-label="{next(cells, "")}"', m[0]
        )

    return head + sep + re.sub(r"<tr>.*?</tr>", row, body, flags=re.S) if sep else table


def wrap_tables(html: str) -> str:
    """Each ``<table>`` of HTML this project rendered from Markdown inside a :func:`table_box`.

    Each becomes ``<table class="written">`` (site.css keeps its columns readable on a phone;
    on a hand-written page it reads as a list there, each cell after a row's first labelled by
    its column's head), and a long name or path in its text may break at its dots and slashes,
    on a phone at its underscores too (``<wbr>``, which adds no text). HTML outside the tables
    is unchanged.
    """
    first, *rest = html.split("<table>")
    out = [first]
    for i, part in enumerate(rest, 1):
        table, sep, after = part.partition("</table>")
        box = table_box(label=f"Table {i}, scrolls sideways when wider than the screen")
        end = f"{sep}</div>" if sep else ""
        out.append(f'{box}<table class="written">{_breakable(_labelled(table))}{end}{after}')
    return "".join(out)


def relative_root(page_path: str) -> str:
    """The relative URL from the page at ``page_path`` to the site root (``"."``, ``"../.."``)."""
    return "/".join([".."] * page_path.count("/")) or "."


def page(env: jinja2.Environment, template: str, path: str, **ctx: Any) -> bytes:
    """``template`` rendered for the page at site path ``path`` (its relative root set)."""
    root = relative_root(path)
    return env.get_template(template).render(base_url=root, root=root, **ctx).encode("utf-8")


def results_page_from_rows(rows: Sequence[ResultRow], env: jinja2.Environment) -> bytes:
    """``results/index.html`` of ``rows`` (in ``order_rows`` order) in the site's ``env``."""
    measured, other = results_groups(named_originals(rows))
    runs_heading, runs_captions = runs_words(measured)
    return page(
        env,
        "results.html",
        RESULTS_PAGE,
        nav_current="results/",
        measured=measured,
        other=other,
        runs_heading=runs_heading,
        runs_captions=runs_captions,
    )


def receipt_files(
    name: str,
    r: Receipt,
    raw: bytes,
    cited: Sequence[dict[str, str]],
    env: jinja2.Environment,
    original: str | None = None,
) -> dict[str, bytes]:
    """The receipt's sheet and case pages by site path; ``cited``: its reports' ident and title.

    ``original``: a regrade's original's receipt name on the site (linked), ``""`` when the
    site does not publish it, ``None`` when not known (see :func:`regrade_words`).
    """
    base = f"receipts/{name}/"
    used: set[str] = {"main", "answers"}
    # No chart on the standalone sheet: its table holds every band (reports draw charts).
    t = receipt_tables(name, r, raw, anchor=lambda b: unique(slug(b), used))
    nav = {"nav_current": "receipts/index.html", "cited": list(cited)}
    files = {
        base + "index.html": page(
            env,
            "receipt.html",
            base + "index.html",
            sheet=t,
            cases_about=case_pages_about(r),
            json_url=f"../{name.rsplit('/', 1)[-1]}.json",
            regrade=regrade_words(r, original),
            original=original or "",
            **nav,
        )
    }
    for row, model in zip(t.cases.rows, case_pages(r, t.model), strict=True):
        path = f"{base}{row.link}"  # cases/<slug>/index.html: the sheet's link to the case
        anchor = "" if t.figures else row.anchor or ""  # printed figures: no case table shown
        files[path] = page(env, "case.html", path, name=name, sheet_anchor=anchor, **model, **nav)
    return files


def report_files(
    r: Report, receipts: Mapping[str, Receipt], digests: Mapping[str, str], env: jinja2.Environment
) -> dict[str, bytes]:
    """Report ``r``'s page, tables (CSV, JSON), chart files and ``SHA256SUMS``, by site path.

    ``receipts`` holds at least its receipts and ``digests`` their files' sha256, by name.

    Raises:
        SiteBuildError: a section cannot be rendered (names the report and the section).
    """
    base = f"reports/{r.ident}/"
    root = relative_root(base + "index.html")
    outputs = _sections(r, receipts, env, root)
    tables = [t for o in outputs for t in o.tables]
    if len({t.id.casefold() for t in tables}) < len(tables):  # one CSV would replace another
        ids = ", ".join(sorted(t.id for t in tables))
        raise SiteBuildError.at(r.source, "/sections", f"expected unique table ids, found {ids}")
    extra = {base + rel: data for o in outputs for rel, data in o.files.items()}
    extra.update({base + f"{t.id}.csv": csv_bytes(t) for t in tables})
    extra[base + "report.json"] = report_json(r, tables, receipts, digests)
    sums = {p: hashlib.sha256(d).hexdigest() for p, d in extra.items()}
    sums.update({f"receipts/{n}.json": digests[n] for n in r.receipts})
    html = page(
        env,
        "report.html",
        base + "index.html",
        nav_current="",
        ident=r.ident,
        title=r.title,
        date=r.date.isoformat(),
        summary=r.summary or "",
        body=Markup(wrap_tables(printable(_MD.render(r.body)))),
        sections=[o.html for o in outputs],
        downloads=downloads(tables),
        receipts=cited_receipts(r, receipts, root),
    )
    return {base + "index.html": html, **extra, base + "SHA256SUMS": sums_of(sums)}


def _sections(
    r: Report, receipts: Mapping[str, Receipt], env: jinja2.Environment, root: str
) -> list[SectionOutput]:
    ctx = SectionContext(
        report=r,
        receipts={n: receipts[n] for n in r.receipts},
        env=env,
        root=root,
        used_ids={"main", f"report-{r.ident}"},
    )
    types = section_types()
    outputs: list[SectionOutput] = []
    problems: list[Problem] = []  # every section's, not the first one's alone
    for spec in r.sections:
        ctx.pointer = spec.pointer
        try:
            outputs.append(types[spec.type].render(spec.params, ctx))
        except SiteBuildError as exc:
            problems += exc.problems
        except (ValueError, KeyError, TypeError) as exc:
            why = f"section {spec.type!r} cannot be rendered: {exc}"
            problems.append(Problem(r.source, spec.pointer, why))
    if problems:
        raise SiteBuildError(f"{count_of(len(problems), 'section')} cannot be rendered", problems)
    return outputs


def home_listing(
    reports: Sequence[Report], env: jinja2.Environment, *, measured: bool = True
) -> Markup:
    """The home page's list of the numbered reports, newest first (HTML, root-relative).

    Without a ``measured`` run among the site's receipts, it says so first, in the results
    page's words (:data:`~driftproof.pages.results.NO_MEASURED_RUN`).
    """
    listed = report_listing(reports)
    template = env.get_template("report_list.html")
    return Markup(template.render(root=".", reports=listed, measured=measured))
