"""The site's static search index, built with Pagefind (pinned; its wheel ships the binary)."""

from __future__ import annotations

import base64
import json
import os
import queue
import subprocess
import threading
from collections import deque
from pathlib import Path
from typing import IO, Any, cast

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

    Raises:
        SiteBuildError: as :meth:`SearchIndex.finish`.
    """
    index = SearchIndex(site, config_file)
    try:
        index.finish()
    finally:
        index.close()


class SearchIndex:
    """A Pagefind index of a site, fed page by page while the site is built.

    Deterministic on every file system: pages go to ``pagefind --service`` in the order they
    are :meth:`add`-ed (a build adds its generated pages in the order it makes them), then the
    rest in path order, never found by Pagefind's own directory walk; ``PAGEFIND_*`` variables
    are not passed on. The service handles its requests one at a time in the order they arrive:
    a thread sends them (reading each page from ``site``) and another reads the answers, so the
    indexing runs beside the build.
    """

    def __init__(self, site: Path, config_file: Path) -> None:
        """Start the service and its index; ``config_file`` is named in any failure.

        Raises:
            SiteBuildError: the service did not start its index.
        """
        from pagefind.service import get_executable

        self.site, self.config_file = Path(site), config_file
        self.added: set[str] = set()
        self.failed: list[BaseException] = []
        self.todo: queue.SimpleQueue[str | None] = queue.SimpleQueue()  # pages to send
        self.owed: queue.SimpleQueue[int | None] = queue.SimpleQueue()  # answers to read
        env = {k: v for k, v in os.environ.items() if not k.upper().startswith("PAGEFIND_")}
        self.proc = subprocess.Popen(
            [str(get_executable()), "--service"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=self.site,
        )
        self.answers = _Answers(cast(IO[bytes], self.proc.stdout).fileno())
        self.sent = 1
        try:
            self._send(1, {"type": "NewIndex", "config": {"keep_index_url": True}})
            self.index = self.answers.next(1)["index_id"]
        except (OSError, ValueError, KeyError) as exc:
            self.proc.kill()
            self.proc.wait()
            raise self._error(exc) from None
        self.sender = threading.Thread(target=self._send_pages, daemon=True)
        self.reader = threading.Thread(target=self._read_answers, daemon=True)
        self.sender.start()
        self.reader.start()

    def add(self, rel: str) -> None:
        """Send the page at site path ``rel`` (written already) if :func:`searchable`, once."""
        if searchable(rel) and rel not in self.added:
            self.added.add(rel)
            self.todo.put(rel)

    def finish(self) -> None:
        """Add the site's other searchable pages in path order; write ``site/pagefind``.

        Raises:
            SiteBuildError: Pagefind failed or refused a page (names the config file).
        """
        root = len(str(self.site)) + 1
        rest = []
        for dirpath, _dirs, filenames in os.walk(self.site):
            prefix = dirpath[root:].replace(os.sep, "/") + "/" if len(dirpath) >= root else ""
            rest += [prefix + n for n in filenames]
        for rel in sorted(rest):
            self.add(rel)
        self.todo.put(None)
        self.sender.join()
        self.reader.join()
        try:
            if self.failed:
                raise self.failed[0]
            self._send(self.sent + 1, {"type": "GetFiles", "index_id": self.index})
            files = self.answers.next(self.sent + 1)["files"]
            # written here, whole: the service answers WriteFiles before its files are complete
            for f in files:
                name = str(f["path"]).replace("\\", "/")
                if not stays_inside(name):
                    raise OSError(f"pagefind named a file outside its folder: {name}")
                dest = self.site / "pagefind" / name
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(base64.b64decode(f["content"]))
        except (OSError, ValueError, KeyError) as exc:
            raise self._error(exc) from None

    def close(self) -> None:
        """Stop the service and its threads (after :meth:`finish`, or when a build fails)."""
        self.proc.kill()
        self.todo.put(None)
        self.sender.join()
        self.reader.join()
        cast(IO[bytes], self.proc.stdin).close()
        cast(IO[bytes], self.proc.stdout).close()
        self.proc.wait()

    def _error(self, exc: BaseException) -> SiteBuildError:
        return SiteBuildError(
            f"the search index could not be built: {exc}",
            [Problem(str(self.config_file), "", f"pagefind failed: {exc}")],
        )

    def _send(self, message_id: int, payload: dict[str, object]) -> None:
        stdin = cast(IO[bytes], self.proc.stdin)
        request = {"message_id": message_id, "payload": payload}
        stdin.write(base64.b64encode(json.dumps(request).encode("utf-8")) + b",")
        stdin.flush()

    def _send_pages(self) -> None:
        """The sender thread: each page as it is added, until None; each owed answer noted."""
        try:
            while (rel := self.todo.get()) is not None:
                text = (self.site / rel).read_text(encoding="utf-8", errors="replace")
                add = {"type": "AddFile", "index_id": self.index, "file_path": rel, "url": None}
                self._send(self.sent + 1, {**add, "file_contents": text})
                self.sent += 1
                self.owed.put(self.sent)
        except BrokenPipeError:
            pass  # the service ended: the reader finds out and says so
        except BaseException as exc:  # noqa: BLE001 - reported by finish
            self.failed.append(exc)
            self.proc.kill()
        finally:
            self.owed.put(None)

    def _read_answers(self) -> None:
        """The reader thread: each owed answer in turn, until None."""
        try:
            while (message_id := self.owed.get()) is not None:
                self.answers.next(message_id)
        except BaseException as exc:  # noqa: BLE001 - reported by finish
            self.failed.append(exc)
            self.proc.kill()


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
