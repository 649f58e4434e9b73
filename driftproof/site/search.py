"""The site's static search index, built with Pagefind (pinned; its wheel ships the binary)."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, cast

from driftproof._anchor import stays_inside
from driftproof.errors import Problem, SiteBuildError
from driftproof.site.links import site_tree


def searchable(rel: str) -> bool:
    """Whether the index takes the page at ``rel``: every HTML page but receipts' case pages.

    A case page is ``receipts/<name>/cases/<slug>/index.html``; no receipt name has a folder
    ``cases`` (refused where inputs are found), so no sheet looks like one.
    """
    if not rel.endswith(".html") or rel.startswith("pagefind/"):
        return False
    parts = rel.split("/")
    return not (parts[0] == "receipts" and len(parts) >= 5 and parts[-3] == "cases")


def index_for_search(site: Path, config_file: Path, pages: list[str] | None = None) -> list[str]:
    """Write the search index of ``site``'s :func:`searchable` pages into ``site/pagefind``.

    ``pages``: those pages' site paths in order, when the caller knows them (else walked here).
    Returns the site paths of the files written.

    Deterministic on every file system: pages go to ``pagefind --service`` in path order (never
    its directory walk), ``PAGEFIND_*`` variables not passed on. It answers requests one at a
    time in arrival order, so a thread sends the pages while the answers are read.

    Raises:
        SiteBuildError: Pagefind failed or refused a page (names ``config_file``).
    """
    from pagefind.service import get_executable

    site = Path(site)
    if pages is None:
        pages = sorted(p for p in site_tree(site)[0] if searchable(p))
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("PAGEFIND_")}
    proc = subprocess.Popen(
        [str(get_executable()), "--service"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=site,
    )
    stdin = cast(IO[bytes], proc.stdin)
    answers = _answers(cast(IO[bytes], proc.stdout).fileno())
    failed: list[BaseException] = []

    def send(message_id: int, payload: dict[str, object]) -> None:
        request = {"message_id": message_id, "payload": payload}
        stdin.write(base64.b64encode(json.dumps(request).encode("utf-8")) + b",")
        stdin.flush()

    def send_pages(index: int) -> None:
        try:
            for i, rel in enumerate(pages, 2):
                text = (site / rel).read_text(encoding="utf-8", errors="replace")
                add = {"type": "AddFile", "index_id": index, "file_path": rel, "url": None}
                send(i, {**add, "file_contents": text})
        except BrokenPipeError:
            pass  # the service ended: the answers say so
        except BaseException as exc:  # noqa: BLE001 - reported below
            failed.append(exc)
            proc.kill()  # the reader then finds the service ended

    sender: threading.Thread | None = None
    try:
        send(1, {"type": "NewIndex", "config": {"keep_index_url": True}})
        index = _payload(next(answers), 1)["index_id"]
        sender = threading.Thread(target=send_pages, args=(index,), daemon=True)
        sender.start()
        for i in range(2, len(pages) + 2):
            _payload(next(answers), i)
        sender.join()
        send(len(pages) + 2, {"type": "GetFiles", "index_id": index})
        # written here, whole: the service answers WriteFiles before its files are complete
        return _write_index(site, _payload(next(answers), len(pages) + 2)["files"])
    except (OSError, ValueError, KeyError) as exc:
        why = failed[0] if failed else exc
        raise SiteBuildError(
            f"the search index could not be built: {why}",
            [Problem(str(config_file), "", f"pagefind failed: {why}")],
        ) from None
    finally:
        proc.kill()  # a sender still writing fails and ends
        if sender is not None:
            sender.join()
        stdin.close()
        cast(IO[bytes], proc.stdout).close()
        proc.wait()


def _write_index(site: Path, files: list[dict[str, str]]) -> list[str]:
    """Write Pagefind's ``files`` into ``site/pagefind``: their site paths (OSError: not all)."""
    written = []
    for f in files:
        name = str(f["path"]).replace("\\", "/")
        if not stays_inside(name):
            raise OSError(f"pagefind named a file outside its folder: {name}")
        dest = site / "pagefind" / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(base64.b64decode(f["content"]))
        written.append(f"pagefind/{name}")
    return written


def _answers(fd: int) -> Iterator[dict[str, Any]]:
    """The service's answers read from ``fd`` (base64 JSON, then a comma); OSError at its end."""
    held: list[bytes] = []
    while chunk := os.read(fd, 1 << 20):
        *whole, last = chunk.split(b",")
        if whole:
            whole[0] = b"".join([*held, whole[0]])
            held = []
        yield from (json.loads(base64.b64decode(raw)) for raw in whole)
        held.append(last)
    raise OSError("pagefind ended without answering")


def _payload(answer: dict[str, Any], message_id: int) -> dict[str, Any]:
    """The payload of ``answer`` to ``message_id``; OSError for an error or another message."""
    payload = cast(dict[str, Any], answer["payload"])
    if payload.get("type") == "Error":
        raise OSError(payload.get("message", "pagefind refused a request"))
    if answer.get("message_id") != message_id:
        raise OSError(f"pagefind answered message {answer.get('message_id')}, not {message_id}")
    return payload
