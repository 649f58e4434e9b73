"""The site's static search index, built with Pagefind (pinned; its wheel ships the binary)."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import threading
from collections import deque
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

    Deterministic on every file system: the pages go to ``pagefind --service`` in path order,
    never found by its directory walk; ``PAGEFIND_*`` variables are not passed on. The service
    handles its requests one at a time in the order they arrive, so they are sent by a thread
    of their own while the answers are read: reading and encoding the next pages overlaps the
    indexing of the ones before.

    Raises:
        SiteBuildError: Pagefind failed (names ``config_file``, the build's config).
    """
    from pagefind.service import get_executable

    site = Path(site)
    root = len(str(site)) + 1
    pages = []
    for dirpath, _dirs, filenames in os.walk(site):
        prefix = dirpath[root:].replace(os.sep, "/") + "/" if len(dirpath) >= root else ""
        pages += [prefix + n for n in filenames if searchable(prefix + n)]
    pages.sort()
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
    answers = _Answers(proc.stdout.fileno())

    def send(message_id: int, payload: dict[str, object]) -> None:
        assert proc.stdin is not None
        request = {"message_id": message_id, "payload": payload}
        proc.stdin.write(base64.b64encode(json.dumps(request).encode("utf-8")) + b",")
        proc.stdin.flush()

    failed: list[BaseException] = []

    def send_pages(index: int) -> None:
        try:
            for i, rel in enumerate(pages, 2):
                text = (site / rel).read_text(encoding="utf-8", errors="replace")
                add = {"type": "AddFile", "index_id": index, "file_path": rel, "url": None}
                send(i, {**add, "file_contents": text})
        except BrokenPipeError:
            pass  # the service ended: the reader finds out and says so
        except BaseException as exc:  # noqa: BLE001 - handed to the reader, which stops
            failed.append(exc)
            proc.kill()  # the reader then finds the service ended

    sender: threading.Thread | None = None
    try:
        send(1, {"type": "NewIndex", "config": {"keep_index_url": True}})
        index = answers.next(1)["index_id"]
        sender = threading.Thread(target=send_pages, args=(index,), daemon=True)
        sender.start()
        for i in range(2, len(pages) + 2):
            answers.next(i)
        sender.join()
        send(len(pages) + 2, {"type": "GetFiles", "index_id": index})
        files = answers.next(len(pages) + 2)["files"]
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
        why = failed[0] if failed else exc
        raise SiteBuildError(
            f"the search index could not be built: {why}",
            [Problem(str(config_file), "", f"pagefind failed: {why}")],
        ) from None
    finally:
        if sender is not None and sender.is_alive():
            proc.kill()  # the sender's next write fails: it ends
            sender.join()
        proc.stdin.close()
        proc.stdout.close()
        proc.wait()


class _Answers:
    """The service's answers read in order from the file descriptor ``fd``."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.chunks: list[bytes] = []
        self.ready: deque[bytes] = deque()

    def next(self, message_id: int) -> dict[str, Any]:
        """The payload of the next answer, which must answer ``message_id``.

        Raises:
            OSError: the service ended, answered another message or reported an error.
        """
        while not self.ready:
            chunk = os.read(self.fd, 1 << 20)
            if not chunk:
                raise OSError("pagefind ended without answering")
            *whole, rest = chunk.split(b",")
            if whole:
                whole[0] = b"".join([*self.chunks, whole[0]])
                self.chunks = []
                self.ready += whole
            self.chunks.append(rest)
        answer = json.loads(base64.b64decode(self.ready.popleft()))
        payload = answer["payload"]
        if payload.get("type") == "Error":
            raise OSError(payload.get("message", "pagefind refused a request"))
        if answer.get("message_id") != message_id:
            raise OSError(f"pagefind answered message {answer.get('message_id')}, not {message_id}")
        return cast(dict[str, Any], payload)
