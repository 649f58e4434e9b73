"""The site's static search index, built with Pagefind (pinned; its wheel ships the binary)."""

from __future__ import annotations

import base64
import json
import os
import subprocess
from pathlib import Path
from typing import Any, cast

from driftproof._anchor import stays_inside
from driftproof.errors import Problem, SiteBuildError


def searchable(rel: str) -> bool:
    """Whether the index takes the page at ``rel``: every HTML page but receipts' case pages."""
    if not rel.endswith(".html") or rel.startswith("pagefind/"):
        return False
    parts = rel.split("/")
    return not (parts[0] == "receipts" and len(parts) >= 5 and parts[-3] == "cases")


def index_for_search(site: Path, config_file: Path) -> None:
    """Write the search index of ``site``'s :func:`searchable` pages into ``site/pagefind``.

    Deterministic on every file system: the pages go to ``pagefind --service`` one by one in
    path order, never found by its directory walk; ``PAGEFIND_*`` variables are not passed on.

    Raises:
        SiteBuildError: Pagefind failed (names ``config_file``, the build's config).
    """
    from pagefind.service import get_executable

    site = Path(site)
    pages = []
    for dirpath, _dirs, filenames in os.walk(site):
        base = os.path.relpath(dirpath, site)
        prefix = "" if base == "." else base.replace(os.sep, "/") + "/"
        pages += [prefix + n for n in filenames if searchable(prefix + n)]
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("PAGEFIND_")}
    proc = subprocess.Popen(
        [str(get_executable()), "--service"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=site,
    )
    assert proc.stdin is not None and proc.stdout is not None
    messages = iter(range(1, 1 << 62))

    def ask(payload: dict[str, object]) -> dict[str, Any]:
        assert proc.stdin is not None and proc.stdout is not None
        request = {"message_id": next(messages), "payload": payload}
        proc.stdin.write(base64.b64encode(json.dumps(request).encode("utf-8")) + b",")
        proc.stdin.flush()
        reply = b""
        while not reply.endswith(b","):
            chunk = os.read(proc.stdout.fileno(), 1 << 20)
            if not chunk:
                raise OSError("pagefind ended without answering")
            reply += chunk
        answer = json.loads(base64.b64decode(reply[:-1]))["payload"]
        if answer.get("type") == "Error":
            raise OSError(answer.get("message", "pagefind refused a request"))
        return cast(dict[str, Any], answer)

    try:
        index = ask({"type": "NewIndex", "config": {"keep_index_url": True}})["index_id"]
        for rel in sorted(pages):
            text = (site / rel).read_text(encoding="utf-8", errors="replace")
            ask(
                {
                    "type": "AddFile",
                    "index_id": index,
                    "file_path": rel,
                    "url": None,
                    "file_contents": text,
                }
            )
        files = ask({"type": "GetFiles", "index_id": index})["files"]
        # written here, whole: the service answers WriteFiles before its files are complete
        for f in files:
            name = str(f["path"]).replace("\\", "/")
            if not stays_inside(name):
                raise OSError(f"pagefind named a file outside its folder: {name}")
            dest = site / "pagefind" / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(base64.b64decode(f["content"]))
    except (OSError, ValueError, KeyError) as exc:
        proc.kill()
        raise SiteBuildError(
            f"the search index could not be built: {exc}",
            [Problem(str(config_file), "", f"pagefind failed: {exc}")],
        ) from None
    finally:
        proc.stdin.close()
        proc.stdout.close()
        proc.wait()
