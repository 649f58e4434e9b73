"""The cap on a reply body read by the API lanes' per-call client (one attempt, poll or cancel).

The client asks for replies as sent, uncompressed (``Accept-Encoding: identity``, :data:`HEADERS`),
so that the bytes counted are the bytes read; a reply compressed all the same is refused unread,
as its size once expanded is not bounded by the bytes sent. Batch results and output files are
read on the other client, uncapped: a large batch's are legitimately larger.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

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


class _Capped(httpx.AsyncByteStream):
    """``stream`` (a body as sent, before any Content-Encoding is undone), counted as it is read.

    Raises :class:`ReplyRefused` past :data:`.cli.OUTPUT_MAX_BYTES` bytes.
    """

    def __init__(self, stream: httpx.AsyncByteStream) -> None:
        self.stream, self.got = stream, 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.stream:
            self.got += len(chunk)
            if self.got > cli.OUTPUT_MAX_BYTES:
                raise ReplyRefused(
                    f"the reply is longer than {cli.cap_words()}, the most one call may read; "
                    "the rest unread"
                )
            yield chunk

    async def aclose(self) -> None:
        await self.stream.aclose()


async def capped(response: httpx.Response) -> None:
    """An httpx response hook: ``response``'s body is read up to the cap (:class:`_Capped`).

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
    response.stream = _Capped(response.stream)  # type: ignore[arg-type]  # an async client's
