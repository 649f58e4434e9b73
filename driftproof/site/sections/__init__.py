"""Report section types: a small registry, one module per type.

A report's front matter lists ``sections``; each has a ``type`` naming a registered
section type, plus that type's parameters. Adding a type touches no other file:

1. Create ``driftproof/site/sections/<your_type>.py`` (every module here not starting
   with ``_`` is imported when the registry is first used).
2. In it, define a class with ``Params`` (a subclass of
   :class:`SectionParams`: a pydantic model of the parameters; unknown keys are refused),
   ``check(params, report_receipts) -> list[(pointer, message)]`` (cross-checks against
   the report, e.g. that the receipts it names are the report's) and
   ``render(params, ctx: SectionContext) -> SectionOutput``. Decorate it with
   ``@register_section(name="<your_type>", title="…")``: the name is the ``type:``
   string and the title the section's default heading. A type whose one parameter is
   ``receipts`` (some of the report's receipts, default all) subclasses
   :class:`ReceiptsSection`, which gives ``Params``, ``check``,
   :meth:`~ReceiptsSection.names` and :meth:`~ReceiptsSection.page` (its template rendered
   under its ``default_title``).
3. Put its template at ``templates/pages/sections/<your_type>.html`` and render it with
   ``ctx.render("sections/<your_type>.html", **page_model)``. Templates only display:
   format every number in Python (:mod:`driftproof.site._render`), and give every table
   as a :class:`Table`, so it is also published as CSV and listed in SHA256SUMS.
4. Per-case rows take their anchor from ``ctx.anchor("case-" + case_id)``, which keeps
   ids unique on the page (the first section to show a case owns ``#case-<id>``).

Section types shipped: ``token_savings``, ``comparison``, ``receipt_sheets``,
``source_figures``, ``skill_fired``, ``cross_family``, ``fidelity``.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar, Protocol

import jinja2
from markupsafe import Markup
from pydantic import BaseModel, ConfigDict, Field

from driftproof._anchor import slug, unique
from driftproof.receipt import Receipt
from driftproof.site._tables import Cell, Column, Row, Table

__all__ = [
    "receipt_name",
    "Cell",
    "Column",
    "ReceiptsParams",
    "ReceiptsSection",
    "Row",
    "SectionContext",
    "SectionOutput",
    "SectionParams",
    "SectionType",
    "Table",
    "receipts_check",
    "register_section",
    "section_types",
]


def receipt_name(ref: str) -> str:
    """A receipt reference as written in front matter, normalised: ``x.json`` → ``x``."""
    return ref[: -len(".json")] if ref.endswith(".json") else ref


class SectionParams(BaseModel):
    """Base of every section's parameter model: unknown keys are refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    title: str | None = Field(default=None, min_length=1, max_length=200)
    """Heading of the section; each type has its own default."""


@dataclass(frozen=True)
class SectionOutput:
    """What a section renders: its HTML, its tables (already inside the HTML) and extra files.

    ``files`` maps a path relative to the report's directory (e.g. ``chart-savings.svg``) to bytes.
    """

    html: Markup
    tables: tuple[Table, ...] = ()
    files: Mapping[str, bytes] = field(default_factory=dict)


@dataclass
class SectionContext:
    """Everything a section may use to render; sections do no I/O.

    Attributes:
        report: the :class:`~driftproof.site.report_source.Report` being built.
        receipts: the report's receipts by name, in front-matter order.
        env: the site's Jinja2 environment (autoescape on, StrictUndefined).
        root: relative URL from the report page to the site root (e.g. ``../..``).
        used_ids: element ids already used on the page (see :meth:`anchor`).
    """

    report: Any  # a driftproof.site.report_source.Report (which imports this module)
    receipts: Mapping[str, Receipt]
    env: jinja2.Environment
    root: str
    used_ids: set[str] = field(default_factory=set)
    _slugs: dict[str, dict[str, str]] = field(default_factory=dict)

    def anchor(self, base: str) -> str:
        """A page-unique element id from ``base`` (unsafe characters become ``-``)."""
        return unique(slug(base), self.used_ids)

    def receipt_url(self, name: str) -> str:
        """URL of the raw receipt file (stable: ``receipts/<name>.json``)."""
        return f"{self.root}/receipts/{name}.json"

    def case_url(self, name: str, case_id: str) -> str:
        """URL of a case's evidence page (``receipts/<name>/cases/<slug>/``,
        :mod:`driftproof.site.cases`)."""
        from driftproof.site.cases import case_slugs, case_url

        slugs = self._slugs.get(name)
        if slugs is None:
            slugs = self._slugs[name] = case_slugs(self.receipts[name])
        return f"{self.root}/{case_url(name, slugs[case_id])}"

    def sheet_url(self, name: str) -> str:
        """URL of the receipt's sheet page (``receipts/<name>/``)."""
        return f"{self.root}/receipts/{name}/index.html"

    def render(self, template: str, **model: Any) -> Markup:
        """Render a template of ``templates/pages`` with the page model ``model``."""
        return Markup(self.env.get_template(template).render(root=self.root, **model))


class SectionType(Protocol):
    """The interface of a section type (see the module docstring)."""

    name: str
    Params: type[SectionParams]

    def check(self, params: Any, report_receipts: tuple[str, ...]) -> list[tuple[str, str]]: ...

    def render(self, params: Any, ctx: SectionContext) -> SectionOutput: ...


_REGISTRY: dict[str, SectionType] = {}


def register_section(
    cls: type | None = None, /, *, name: str | None = None, title: str | None = None
) -> Any:
    """Class decorator: register a section type under its ``name`` (names are unique).

    ``@register_section`` on a class that sets ``name``; or
    ``@register_section(name="…", title="…")``, which sets the class's ``name`` and
    ``default_title`` (the heading :meth:`ReceiptsSection.page` uses).

    Raises:
        ValueError: the name is missing or not lowercase ``[a-z][a-z0-9_]*``, or another
            class is registered under it.
    """

    def register(c: type) -> type:
        if name is not None:
            c.name = name  # type: ignore[attr-defined]
        if title is not None:
            c.default_title = title  # type: ignore[attr-defined]
        key = getattr(c, "name", None)
        if not isinstance(key, str) or not re.fullmatch(r"[a-z][a-z0-9_]*", key):
            raise ValueError(f"section type {c!r} needs a lowercase `name`")
        if key in _REGISTRY and type(_REGISTRY[key]) is not c:
            raise ValueError(f"section type {key!r} is registered twice")
        _REGISTRY[key] = c()
        return c

    return register(cls) if cls is not None else register


@cache
def _discover() -> None:
    for mod in pkgutil.iter_modules(__path__):
        if not mod.name.startswith("_"):
            importlib.import_module(f"{__name__}.{mod.name}")


def section_types() -> Mapping[str, SectionType]:
    """Every registered section type by name (built-in modules are imported on first use)."""
    _discover()
    return dict(_REGISTRY)


def receipts_check(
    names: list[str] | None, report_receipts: tuple[str, ...], key: str = "receipts"
) -> list[tuple[str, str]]:
    """Shared cross-check: every receipt a section names must be one the report lists.

    Returns:
        ``(pointer, message)`` per receipt that is not the report's, e.g.
        ``("/receipts/1", "expected one of the report's receipts (a, b), found 'c'")``.
    """
    return [
        (
            f"/{key}/{i}",
            f"expected one of the report's receipts ({', '.join(report_receipts)}), found {n!r}",
        )
        for i, n in enumerate(names or [])
        if receipt_name(n) not in report_receipts
    ]


class ReceiptsParams(SectionParams):
    """Parameters of a section over some of the report's receipts."""

    receipts: list[str] | None = None
    """Receipt names (paths under ``receipts/``, ``.json`` optional), each one of the
    report's; None: every receipt of the report, in front-matter order."""


class ReceiptsSection:
    """Base of the section types whose one parameter (besides ``title``) is ``receipts``:
    the parameter model, its cross-check and the names it selects, written once."""

    name: ClassVar[str]
    Params: ClassVar[type[SectionParams]] = ReceiptsParams
    default_title: ClassVar[str]
    """The section's heading when its ``title`` parameter gives none."""

    def check(
        self, params: ReceiptsParams, report_receipts: tuple[str, ...]
    ) -> list[tuple[str, str]]:
        return receipts_check(params.receipts, report_receipts)

    @staticmethod
    def names(params: ReceiptsParams, ctx: SectionContext) -> list[str]:
        """The receipts the section shows, in order: those ``params`` names, else the report's."""
        return [receipt_name(n) for n in params.receipts] if params.receipts else list(ctx.receipts)

    def page(self, params: ReceiptsParams, ctx: SectionContext, **model: Any) -> Markup:
        """The section's HTML: ``templates/pages/sections/<name>.html`` rendered with ``model``
        and ``title`` (the ``title`` parameter, else :attr:`default_title`)."""
        return ctx.render(
            f"sections/{self.name}.html", title=params.title or self.default_title, **model
        )
