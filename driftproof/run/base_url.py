"""The base URLs a lane is given: checked as the SDKs read them, quoted without credentials."""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

#: Characters: the longest base URL taken; a receipt records its service cut at this length.
MAX_URL_CHARS = 2000


def _quoted(url: str, at_most: int | None = None) -> str:
    """``url`` quoted for a refusal, its user, password, query and fragment shown as "…".

    A key can ride in any of them; a refusal is printed to a terminal or a CI log. Everything before
    the last "@" after the scheme is taken as user and password. They are hidden before ``url`` is
    cut to its first ``at_most`` characters (a cut before the "@" would leave the key shown).
    """
    # up to the last "@" anywhere: a "#" or "/" inside a password ends the user part for a URL
    # parser, which would leave the rest of the password in sight
    shown = re.sub(r"^((?:[^/?#]*//)?).*@", r"\1…@", url, flags=re.DOTALL)
    return repr(re.sub(r"[?#].*", "?…", shown, flags=re.DOTALL)[:at_most])


def url_problem(url: str | None) -> str | None:
    """What is wrong with ``url`` as a base URL the SDKs can use, ``None`` when nothing is.

    Refused: not http or https, not printable ASCII, no host, port 0, over
    :data:`MAX_URL_CHARS` characters, or one the SDKs' HTTP client cannot parse (an IPv4
    address past 255, a bracketed host that is no IPv6 address, text after it). The words
    quote ``url`` without its user, password, query and fragment.
    """
    if url is None:
        return None
    import httpx  # deferred: start-up time of --help; the SDKs' httpx2 parses URLs as it does

    if len(url) > MAX_URL_CHARS:
        return (
            f"expected a base URL of at most {MAX_URL_CHARS} characters, found one of {len(url)} "
            f"beginning {_quoted(url, 60)}"
        )
    try:  # urlsplit and .port raise ValueError: an open "[", a port no number or past 65535
        parts = urlsplit(url)
        ok = url.isascii() and url.isprintable() and " " not in url and bool(parts.hostname)
        ok = ok and parts.scheme in ("http", "https") and parts.port != 0
        ok = ok and bool(httpx.URL(url).host)
    except (ValueError, httpx.InvalidURL):
        ok = False
    if ok:
        return None
    host = "" if url.isascii() else _ascii_host(url)
    return (
        f"expected an http or https URL such as http://localhost:8000/v1, found {_quoted(url)}"
        + (f" (spell its host in ASCII: {host})" if host else "")
    )


def _ascii_host(url: str) -> str:
    """The host of ``url`` in its ASCII (IDNA) spelling, ``""`` when it has none."""
    try:
        host = urlsplit(url).hostname or ""
        return host.encode("idna").decode("ascii") if host and not host.isascii() else ""
    except (ValueError, UnicodeError):
        return ""


def strip_credentials(url: str) -> str:
    """A base URL less user, password, query, fragment (a key can ride in any) and end slash."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host + (f":{port}" if port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", "")).rstrip("/")[:MAX_URL_CHARS]
