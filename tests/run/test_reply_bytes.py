"""A reply body as sent, byte for byte: a body that is not text in its encoding (UTF-8 when its
Content-Type names none; JSON is UTF-8) is a failed attempt naming the byte, never an answer whose
bytes were swapped for U+FFFD without a word. Before, the HTTP client's lenient decoding replaced
them and the altered answer was graded."""

from __future__ import annotations

import pytest
from shape_replies import _draws, _mini

from driftproof.errors import ProviderError
from driftproof.run.providers import make_provider

#: A Messages reply whose answer holds the Latin-1 byte of "é" where UTF-8 needs two.
NOT_UTF8 = (
    b'{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6", '
    b'"content": [{"type": "text", "text": "fix: caf\xe9 429"}], "stop_reason": "end_turn"}'
)  # no usage: both arms alike would read as a skill that never reached the model


@pytest.fixture
def raw_body(loopback):
    """Answers (not grades) are sent as the bytes ``raw_body.data`` with ``raw_body.type``."""

    def send(handler, code, obj, headers=None, gap=0.0):
        if obj != "raw":
            return sent(handler, code, obj, headers, gap)
        raw_body.asked.append(handler.headers.get("accept-encoding"))
        handler.send_response(code)
        handler.send_header("content-type", raw_body.type)
        for k, v in raw_body.headers.items():
            handler.send_header(k, v)
        handler.send_header("content-length", str(len(raw_body.data)))
        handler.end_headers()
        handler.wfile.write(raw_body.data)

    handler = loopback.server.RequestHandlerClass
    sent = handler._send
    handler._send = send
    loopback.script.shape = lambda path, req, is_judge, text: None if is_judge else (200, "raw", {})
    raw_body.data, raw_body.type = NOT_UTF8, "application/json"
    raw_body.headers, raw_body.asked = {}, []
    return raw_body


def test_a_body_that_is_not_utf8_is_a_failed_attempt_naming_the_byte(
    raw_body, suite_file, tmp_path
):
    r, _ = _mini(tmp_path, suite_file)
    at = NOT_UTF8.index(b"\xe9")
    for d in _draws(r):
        assert (d.score, d.lost.kind, d.lost.error_class, len(d.attempts)) == (
            None,
            "error",
            "transient",
            3,
        )
        assert d.lost.reason.startswith(
            f"the reply is not utf-8 text (an invalid byte at offset {at}: b'\\xe9 429\"}}], "
        ), d.lost.reason


def test_a_body_in_the_charset_its_content_type_names_is_read_in_it(raw_body, suite_file, tmp_path):
    raw_body.type = "application/json; charset=iso-8859-1"  # é is one byte in it
    r, _ = _mini(tmp_path, suite_file)
    for d in _draws(r):
        assert d.lost is None and d.answer_sha256 is not None
    skill, _ = _draws(r)
    assert skill.score == 0.5  # the scripted judge: "fix: café 429" holds no "(skill)"


def test_a_reply_cut_off_mid_body_is_a_failed_attempt_in_the_clients_words(
    raw_body, loopback, suite_file, tmp_path
):
    # the connection closed 60 bytes into a body announced as 500: the SDK said only
    # "Connection error.", never what broke
    handler = loopback.server.RequestHandlerClass
    sent = handler._send

    def cut(self, code, obj, headers=None, gap=0.0):
        if obj != "raw":
            return sent(self, code, obj, headers, gap)
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", "500")
        self.end_headers()
        self.wfile.write(NOT_UTF8[:60])
        self.close_connection = True

    handler._send = cut
    r, _ = _mini(tmp_path, suite_file)
    for d in _draws(r):
        assert (d.score, d.lost.kind, d.lost.error_class) == (None, "error", "transient")
        assert d.lost.reason.startswith(
            "connection failed: peer closed connection without sending complete message body "
            "(received 60 bytes, expected 500); transient, 3 attempts"
        ), d.lost.reason


#: The first lines of a gateway's web page, sent with status 200 and Content-Type text/html to
#: an API path (the page a proxy in front of the server serves, such as its sign-in page).
PAGE = (
    b'<!DOCTYPE html>\n<html lang="en">\n  <head>\n    <meta charset="UTF-8" />\n'
    b"    <title>Sign in \xe2\x80\x93 Gateway</title>\n" + b"  <script>x</script>\n" * 20
)


@pytest.mark.parametrize("api", [None, "chat", "responses"])
def test_a_200_whose_body_is_a_web_page_stops_the_run_at_once(
    raw_body, loopback, suite_file, tmp_path, api
):
    """A gateway that answers the API's path with its web page, status 200 (QuantumNous/new-api
    #817: the openai library's ``chat.completions.create`` gave back the page's HTML;
    xtekky/gpt4free#1049, a ``<!DOCTYPE html>`` page for a chat completion) answers every call
    so: the run stops at the first, quoting the page's first lines, as for LM Studio's 200."""
    raw_body.data, raw_body.type = PAGE, "text/html; charset=utf-8"
    lane = {} if api is None else {"lane": make_provider("openai", "api", api=api)}
    with pytest.raises(ProviderError) as stop:
        _mini(tmp_path, suite_file, "anthropic" if api is None else "openai", "api", **lane)
    assert (
        "the run stopped: the reply is a web page with status 200, not an answer: "
        '\'<!DOCTYPE html> <html lang="en"> <head> <meta charset="UTF-8" /> <title>Sign in – '
        "Gateway</title> <script>x</script> <script>x</script> <script>x</script> "
        "<script>x</script> <script>x</script> <script'; no call can succeed:"
        " check the base URL and any proxy in front of it"
    ) in str(stop.value)
    assert sum(loopback.script.requests.values()) == 1


@pytest.mark.parametrize(
    ("data", "kind", "quoted"),
    [
        # a page led by a comment, as framework templates print one (sent as text/plain: the
        # page is told by its start alone)
        (b"<!-- served by the gateway -->\n<!DOCTYPE html><html><body>Sign in</body></html>",
         "text/plain", "<!-- served by the gateway --> <!DOCTYPE html><html><body>Sign in</body>"
         "</html>"),
        # HTML may leave out <html> and the doctype: a page that starts at <head> or <body>
        (b"\n  <head><title>Sign in</title></head>", "application/octet-stream",
         "<head><title>Sign in</title></head>"),
        (b"<body>Service is down for maintenance</body>", "text/plain",
         "<body>Service is down for maintenance</body>"),
        # any markup its Content-Type calls a web page
        (b"<div id=app></div><script src=/app.js></script>", "text/html; charset=utf-8",
         "<div id=app></div><script src=/app.js></script>"),
    ],
)  # fmt: skip
def test_a_200_web_page_that_does_not_open_with_html_stops_the_run_too(
    raw_body, loopback, suite_file, tmp_path, data, kind, quoted
):
    # Found: only a body opening with <html or a doctype (after white space) was read as a web
    # page; these were retried draw by draw as bodies that are not JSON, through the whole run
    raw_body.data, raw_body.type = data, kind
    with pytest.raises(ProviderError) as stop:
        _mini(tmp_path, suite_file, "anthropic", "api")
    assert (
        f"the run stopped: the reply is a web page with status 200, not an answer: {quoted!r}; "
        "no call can succeed: check the base URL and any proxy in front of it"
    ) in str(stop.value)
    assert sum(loopback.script.requests.values()) == 1


def test_a_200_body_that_is_neither_json_nor_a_web_page_is_retried(
    raw_body, loopback, suite_file, tmp_path
):
    # "<headline>" is no HTML element that starts a page, and text/plain says no page
    raw_body.data, raw_body.type = b"<headline>busy</headline>", "text/plain"
    r, _ = _mini(tmp_path, suite_file, "anthropic", "api")
    for d in _draws(r):
        assert (d.score, d.lost.kind, d.lost.error_class, len(d.attempts)) == (
            None, "error", "transient", 3,
        )  # fmt: skip


#: A Messages reply and a chat completion, in UTF-8, whose answer the scripted judge grades.
FINE = NOT_UTF8.replace(b"caf\xe9", b"cafe")
CHAT = (
    b'{"id": "c", "object": "chat.completion", "created": 0, "model": "gpt-5", "choices": '
    b'[{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": '
    b'"fix: cafe 429"}}]}'
)  # no usage, as NOT_UTF8


def _lost_at_once(raw_body, suite_file, tmp_path, provider, words):
    """Run ``provider``'s API lane on ``raw_body``: each arm's one call is lost for ``words``."""
    kw = {} if provider == "anthropic" else {"lane": make_provider("openai", "api", api="chat")}
    r, _ = _mini(tmp_path, suite_file, provider, "api", **kw)
    for d in _draws(r):
        assert (d.score, d.lost.kind, d.lost.error_class, len(d.attempts)) == (
            None, "error", "fatal", 1,
        )  # fmt: skip
        assert d.lost.reason.startswith(words), d.lost.reason


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_reply_past_the_cap_loses_the_call_naming_it_without_a_retry(
    raw_body, loopback, suite_file, tmp_path, monkeypatch, provider
):
    # Found: the API lanes read a reply's body however long (a hostile base URL's endless body
    # filled memory) and graded it; the CLI lanes stop at the same cap
    import driftproof.run.providers.cli as lane

    monkeypatch.setattr(lane, "OUTPUT_MAX_BYTES", 2**20)  # 1 MiB: the test stays small
    body = FINE if provider == "anthropic" else CHAT
    raw_body.data = body + b" " * (2**20 + 1 - len(body))  # JSON white space: one byte past
    words = "the reply is longer than 1,048,576 bytes (1 MiB), the most one call may read; the rest"
    _lost_at_once(raw_body, suite_file, tmp_path, provider, words + " unread")
    assert sum(loopback.script.requests.values()) == 2  # one call per arm: no retry, no judge


def test_a_reply_of_exactly_the_cap_is_read(raw_body, suite_file, tmp_path, monkeypatch):
    import driftproof.run.providers.cli as lane

    monkeypatch.setattr(lane, "OUTPUT_MAX_BYTES", 2**20)
    raw_body.data = FINE + b" " * (2**20 - len(FINE))
    skill, base = _draws(_mini(tmp_path, suite_file)[0])
    assert (skill.lost, base.lost, skill.score) == (None, None, 0.5)


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_compressed_reply_is_refused_unread_as_its_expanded_size_is_not_bounded(
    raw_body, loopback, suite_file, tmp_path, provider
):
    # Found: the cap counted a body's bytes as sent, so a gzip body under it (here 1,029 bytes)
    # expanded to a megabyte, and a hostile one to any size, before a byte was counted. A server
    # that compresses though asked not to (a gateway that always gzips) does so every time: each
    # answer would be paid for and lost, so the run stops at the first, as for a web page
    import gzip

    body = FINE if provider == "anthropic" else CHAT
    raw_body.data = gzip.compress(body + b" " * 2**20)
    raw_body.headers = {"content-encoding": "gzip"}
    kw = {} if provider == "anthropic" else {"lane": make_provider("openai", "api", api="chat")}
    with pytest.raises(ProviderError) as stop:
        _mini(tmp_path, suite_file, provider, "api", **kw)
    assert (
        "the run stopped: the reply is compressed (gzip), though the call asked for it "
        "uncompressed; its size once expanded is not bounded, so it is not read; no call can "
        "succeed: check the base URL and any proxy in front of it"
    ) in str(stop.value)
    assert raw_body.asked == ["identity"]  # the one call asked for none


def test_an_uncompressed_reply_names_its_encoding_identity_and_is_read(
    raw_body, suite_file, tmp_path
):
    raw_body.data, raw_body.headers = FINE, {"content-encoding": "identity"}
    skill, base = _draws(_mini(tmp_path, suite_file)[0])
    assert (skill.lost, base.lost, skill.score) == (None, None, 0.5)
