"""The cap on a reply body read by the API lanes' clients (attempts, and every batch call).

The clients ask for replies as sent, uncompressed (``Accept-Encoding: identity``, :data:`HEADERS`),
so that the bytes counted are the bytes read; a reply compressed all the same is refused unread,
as its size once expanded is not bounded by the bytes sent. A file's bytes (``Accept:
application/binary``: batch results and output files) are not capped whole, a large batch's
being legitimately larger: each of their lines is, as it is read.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2 as httpx  # the SDKs' HTTP client (anthropic 2.10+, openai 3.51+)

from driftproof.run.providers import cli

#: the per-call client's headers: a body that is not compressed
HEADERS = {"Accept-Encoding": "identity"}


class ReplyRefused(httpx.TransportError):
    """A reply body left unread: compressed, or longer than :data:`.cli.OUTPUT_MAX_BYTES`.

    An httpx2 request error, so that both SDKs raise it as the cause of their connection error.
    ``fatal``: the server would refuse every call so (it compresses though asked not to).
    """

    fatal = False


class _Capped(httpx.AsyncByteStream, httpx.SyncByteStream):
    """``stream`` (a body as sent, before any Content-Encoding is undone), counted as it is read.

    Raises :class:`ReplyRefused` past :data:`.cli.OUTPUT_MAX_BYTES` bytes.
    """

    def __init__(self, stream: Any) -> None:  # an async client's stream, or a sync one's
        self.stream, self.got = stream, 0

    def _counted(self, chunk: bytes) -> bytes:
        self.got += len(chunk)
        if self.got > cli.OUTPUT_MAX_BYTES:
            raise ReplyRefused(
                f"the reply is longer than {cli.cap_words()}, the most one call may read; "
                "the rest unread"
            )
        return chunk

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.stream:
            yield self._counted(chunk)

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.stream:
            yield self._counted(chunk)

    async def aclose(self) -> None:
        await self.stream.aclose()

    def close(self) -> None:
        self.stream.close()


async def capped(response: httpx.Response) -> None:
    """:func:`capped_sync`, as the async client's response hook."""
    capped_sync(response)


def capped_sync(response: httpx.Response) -> None:
    """An httpx response hook: ``response``'s body is read up to the cap (:class:`_Capped`).

    A file's bytes (``Accept: application/binary``) are not capped whole: their reader caps
    each line.

    Raises:
        ReplyRefused: the body is compressed (a Content-Encoding other than identity), unread;
            ``fatal``, as a server that compresses though asked not to does it every time.
    """
    coding = response.headers.get("content-encoding", "identity").strip()
    if coding.lower() not in ("", "identity"):
        refused = ReplyRefused(
            f"the reply is compressed ({coding[:100]}), though the call asked for it uncompressed;"
            " its size once expanded is not bounded, so it is not read; no call can succeed:"
            " check the base URL and any proxy in front of it"
        )
        refused.fatal = True
        raise refused
    if response.request.headers.get("accept") != "application/binary":
        response.stream = _Capped(response.stream)
