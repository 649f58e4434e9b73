"""What an incremental build's link check keeps of the last check (issue 19): the
:class:`LinkSummary` of a site found whole, and :class:`Since`, what
:func:`driftproof.site.links.check_links` compares the site now checked with.

Split from :mod:`driftproof.site.links` (which re-exports both) by responsibility.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["LinkSummary", "Since"]


@dataclass
class LinkSummary:
    """What the pages of a site link to, as far as another page's check depends on it:
    ``targets``, every file a link resolved to (a path under the site; a folder as its
    ``index.html``), and ``fragments``, for each HTML page, the ids that links on *other*
    pages name in it. An incremental build may keep more than the site holds now (what a
    changed page used to link to): that only sends a later build to check every page."""

    targets: set[str] = field(default_factory=set)
    fragments: dict[str, set[str]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """``{"targets": [path, ...], "fragments": {page: [id, ...]}}``, sorted."""
        return {
            "targets": sorted(self.targets),
            "fragments": {p: sorted(ids) for p, ids in sorted(self.fragments.items())},
        }

    @classmethod
    def from_json(cls, doc: Any) -> LinkSummary | None:
        """The summary :meth:`to_json` wrote; ``None`` for anything else (a damaged record)."""
        try:
            targets, fragments = doc["targets"], doc["fragments"]
            if not isinstance(targets, list) or not isinstance(fragments, dict):
                return None
            return cls(
                {str(t) for t in targets},
                {str(p): {str(i) for i in ids} for p, ids in fragments.items()},
            )
        except (KeyError, TypeError, AttributeError):
            return None

    def update(self, other: LinkSummary) -> None:
        self.targets |= other.targets
        for page, ids in other.fragments.items():
            self.fragments.setdefault(page, set()).update(ids)


@dataclass(frozen=True)
class Since:
    """An incremental build's link check (issue 19): the site the last build checked and
    found whole (``files``: ``{path: sha256 hex}`` of every file, and ``links``, its
    :class:`LinkSummary`), and the sha256 of every file of the site now checked (``now``; a
    page missing from it is checked)."""

    files: Mapping[str, str]
    links: LinkSummary
    now: Mapping[str, str]
