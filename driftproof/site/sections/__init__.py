"""Report section types: a registry; every module here not starting with ``_`` is one.

A type is a class with ``Params`` (a :class:`SectionParams` model), ``check(params,
report_receipts) -> [(pointer, message)]`` and ``render(params, ctx) -> SectionOutput``,
decorated ``@register_section(name=…, title=…)``; one over some of the report's receipts
subclasses :class:`ReceiptsSection`. Its template is ``templates/pages/sections/<type>.html``;
its figures come from ``driftproof.pages``, each table is a :class:`Table` (also published as
CSV) and element ids come from ``ctx.anchor(base)``.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar, Protocol

import jinja2
from markupsafe import Markup
from pydantic import BaseModel, ConfigDict, Field

from driftproof._anchor import slug, unique
from driftproof.errors import SiteBuildError
from driftproof.pages.case import case_slugs
from driftproof.pages.tables import Table
from driftproof.receipt import Receipt


def receipt_name(ref: str) -> str:
    """A receipt reference as written in front matter, normalised: ``x.json`` becomes ``x``."""
    return ref.removesuffix(".json")


class SectionParams(BaseModel):
    """Base of every section's parameters: unknown keys are refused; ``title`` is the heading.

    Strict: a value of another type (``!!binary`` bytes for a title) is refused, not converted.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    title: str | None = Field(default=None, min_length=1, max_length=200)


@dataclass(frozen=True)
class SectionOutput:
    """A rendered section: its HTML, its tables (in the HTML), its files by report-relative path."""

    html: Markup
    tables: tuple[Table, ...] = ()
    files: Mapping[str, bytes] = field(default_factory=dict)


@dataclass
class SectionContext:
    """What a section renders with (no I/O): the report's receipts, root URL and ids taken."""

    report: Any
    receipts: Mapping[str, Receipt]
    env: jinja2.Environment
    root: str
    used_ids: set[str] = field(default_factory=set)
    pointer: str = "/sections"
    """The JSON pointer of the section being rendered (``SectionSpec.pointer``)."""
    table_ids: set[str] = field(default_factory=set)
    """The ids of the page's tables so far (each its ``<id>.csv``), case-folded."""
    sheet_keys: set[str] = field(default_factory=set)
    """The keys of the receipt sheets shown so far (their tables' ids end with one), case-folded."""
    _slugs: dict[str, dict[str, str]] = field(default_factory=dict)

    def own(self, *tables: Table) -> tuple[Table, ...]:
        """``tables``, each with an id no other table of the page has (``<id>``, else ``<id>-2``).

        Two sections of one type give their tables the same id, and each is published as
        ``<id>.csv``: the second's file would replace the first's. Ids compare case-folded.
        """
        return tuple(
            dataclasses.replace(t, id=unique(t.id, self.table_ids, fold=True)) for t in tables
        )

    def sheet_key(self, name: str) -> str:
        """A key for receipt ``name``'s sheet no other sheet of the page has (``x/a``: ``x-a``)."""
        return unique(name.replace("/", "-"), self.sheet_keys, fold=True)

    def anchor(self, base: str) -> str:
        """A page-unique element id from ``base`` (unsafe characters become ``-``)."""
        return unique(slug(base), self.used_ids)

    def receipt_url(self, name: str) -> str:
        """URL of the receipt file ``receipts/<name>.json``."""
        return f"{self.root}/receipts/{name}.json"

    def case_url(self, name: str, case_id: str) -> str:
        """URL of a case's evidence page; KeyError when receipt ``name`` has no such case."""
        if name not in self._slugs:
            self._slugs[name] = case_slugs(self.receipts[name])
        return f"{self.root}/receipts/{name}/cases/{self._slugs[name][case_id]}/index.html"

    def sheet_url(self, name: str) -> str:
        """URL of the receipt's sheet page."""
        return f"{self.root}/receipts/{name}/index.html"

    def refusal(self, message: str) -> SiteBuildError:
        """The error that refuses the section rendered (at :attr:`pointer`) for ``message``."""
        return SiteBuildError.at(self.report.source, self.pointer, message)

    def render(self, template: str, **model: Any) -> Markup:
        """Render a template of ``templates/pages`` with the page model ``model``."""
        return Markup(self.env.get_template(template).render(root=self.root, **model))


class SectionType(Protocol):
    """The interface of a section type (see the module docstring)."""

    name: str
    Params: type[SectionParams]

    def check(self, params: Any, report_receipts: tuple[str, ...]) -> list[tuple[str, str]]:
        """``(pointer, message)`` per parameter that does not fit the report."""

    def render(self, params: Any, ctx: SectionContext) -> SectionOutput:
        """The section's HTML, tables and files."""


_REGISTRY: dict[str, SectionType] = {}


def register_section(*, name: str, title: str | None = None) -> Callable[[type], type]:
    """Class decorator: register a section type under its unique ``name`` (and ``title``).

    Raises:
        ValueError: the name is not lowercase ``[a-z][a-z0-9_]*``, or is taken by another class.
    """

    def register(c: type) -> type:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
            raise ValueError(f"section type {c!r} needs a lowercase `name`")
        if name in _REGISTRY and type(_REGISTRY[name]) is not c:
            raise ValueError(f"section type {name!r} is registered twice")
        c.name = name  # type: ignore[attr-defined]
        if title is not None:
            c.default_title = title  # type: ignore[attr-defined]
        _REGISTRY[name] = c()
        return c

    return register


@cache
def _discover() -> None:
    for mod in pkgutil.iter_modules(__path__):
        if not mod.name.startswith("_"):
            importlib.import_module(f"{__name__}.{mod.name}")


def section_types() -> Mapping[str, SectionType]:
    """Every registered section type by name (the built-in modules imported on first use)."""
    _discover()
    return dict(_REGISTRY)


#: A section naming a receipt the report lacks is told the report's receipts up to this many.
_LISTED_MAX = 5


def receipts_check(
    names: list[str] | None, report_receipts: tuple[str, ...]
) -> list[tuple[str, str]]:
    """``(pointer, message)`` per receipt a section names that the report lacks, or names twice.

    A message lists the report's receipts when there are at most :data:`_LISTED_MAX`, else
    gives their count.
    """
    found: list[tuple[str, str]] = []
    seen: list[str] = []
    if len(report_receipts) <= _LISTED_MAX:
        listed = f"one of the report's receipts ({', '.join(report_receipts)})"
    else:  # a catalogue's hundreds of names would make one line of kilobytes
        listed = f"one of the {len(report_receipts)} receipts the report lists (/receipts)"
    for i, n in enumerate(names or []):
        if receipt_name(n) not in report_receipts:
            found.append((f"/receipts/{i}", f"expected {listed}, found {n!r}"))
        elif receipt_name(n) in seen:
            found.append((f"/receipts/{i}", f"receipt {receipt_name(n)!r} is listed twice"))
        seen.append(receipt_name(n))
    return found


class ReceiptsParams(SectionParams):
    """Parameters of a section over some of the report's receipts (None: all, in order)."""

    receipts: list[str] | None = None


class ReceiptsSection:
    """Base of the section types whose one parameter (besides ``title``) is ``receipts``."""

    name: ClassVar[str]
    Params: ClassVar[type[SectionParams]] = ReceiptsParams
    default_title: ClassVar[str]

    def check(
        self, params: ReceiptsParams, report_receipts: tuple[str, ...]
    ) -> list[tuple[str, str]]:
        """Every receipt named must be one of the report's (:func:`receipts_check`)."""
        return receipts_check(params.receipts, report_receipts)

    @staticmethod
    def names(params: ReceiptsParams, ctx: SectionContext) -> list[str]:
        """The receipts shown, in order: those ``params`` names, else the report's."""
        return [receipt_name(n) for n in params.receipts] if params.receipts else list(ctx.receipts)

    def page(self, params: ReceiptsParams, ctx: SectionContext, **model: Any) -> Markup:
        """Render ``sections/<name>.html`` with ``model`` and the title (else the default)."""
        title = params.title or self.default_title
        return ctx.render(f"sections/{self.name}.html", title=title, **model)
