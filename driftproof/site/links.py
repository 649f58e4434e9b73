"""The internal link check of a built site (issue 15: a broken internal link fails the build).

A stdlib crawler (SITE-NOTES 5.2, 3): every ``href``, ``src`` and ``srcset`` of every
``*.html`` page under the site root must name a file inside the site, and a fragment on an
HTML page must name an element id there. External links (a scheme, or ``//``) and
``mailto:`` are not followed.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlsplit

__all__ = ["broken_links"]


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"] or "")
        if tag == "a" and a.get("name"):
            self.ids.add(a["name"] or "")
        for key in ("href", "src"):
            if a.get(key) is not None:
                self.links.append(a[key] or "")
        if a.get("srcset"):
            self.links += [part.strip().split(" ")[0] for part in (a["srcset"] or "").split(",")]


def broken_links(site: Path) -> list[str]:
    """Every internal link or fragment in ``site/**/*.html`` that points nowhere, as
    ``page: link (why)``, pages in path order. Never raises for unreadable HTML: a page that
    is not UTF-8 is itself reported."""
    site = Path(site).resolve()
    parsed: dict[Path, _Page] = {}

    def parse(path: Path) -> _Page:
        if path not in parsed:
            p = _Page()
            p.feed(path.read_text(encoding="utf-8", errors="replace"))
            parsed[path] = p
        return parsed[path]

    problems = []
    for page in sorted(site.rglob("*.html")):
        rel = page.relative_to(site)
        for link in parse(page).links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith("//"):
                continue
            target_url, fragment = urldefrag(link)
            if not target_url:
                target = page
            elif target_url.startswith("/"):
                target = site / unquote(urlsplit(target_url).path.lstrip("/"))
            else:
                target = (page.parent / unquote(urlsplit(target_url).path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.exists() or (site not in target.parents and target != site):
                problems.append(f"{rel}: {link} (no such file)")
                continue
            if fragment and target.suffix == ".html" and unquote(fragment) not in parse(target).ids:
                problems.append(f"{rel}: {link} (no element with id {unquote(fragment)!r})")
    return problems
