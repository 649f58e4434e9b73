"""``run --batch``: its creation, upload and results calls ask for the reply uncompressed
(``Accept-Encoding: identity``) and refuse one compressed all the same, and a creation reply
is read up to one reply's cap, as every call of the API lanes is (reference, "Errors and
retries"). Before, these calls went through a client that asked for gzip and read any size,
so a compressed reply could expand to any size in memory before it was read. A batch's results
stay uncapped as a whole (a large batch's are legitimately larger); each line is capped."""

from __future__ import annotations

import gzip
import json

import pytest
from batch_runs import batched

from driftproof.errors import ProviderError
from driftproof.receipt import read_receipt


def _asked(fake) -> list[tuple[str, str, str | None]]:
    """Every request's (method, path, Accept-Encoding), as the fake received it."""
    handler, seen = fake.server.RequestHandlerClass, []
    for method in ("do_GET", "do_POST"):
        served = getattr(handler, method)

        def record(self, served=served, method=method):
            seen.append((method[3:], self.path.split("?")[0], self.headers.get("accept-encoding")))
            served(self)

        setattr(handler, method, record)
    return seen


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_every_batch_call_asks_for_its_reply_uncompressed(fake, tmp_path, monkeypatch, provider):
    import driftproof.run.providers.cli as lane

    monkeypatch.setattr(lane, "OUTPUT_MAX_BYTES", 4096)  # each reply and results line under it
    seen = _asked(fake)
    r = read_receipt(batched(tmp_path, provider, cases=1))
    assert r.run.endpoint_attempts == 36  # 6 answers, 5 judge samples each: all answered
    st = fake.state
    read = [  # the results of each batch: the graders' past the cap as a whole, read all the same
        sum(map(len, st.anthropic_results(b)))
        if provider == "anthropic"
        else len(st.files[b.output_file_id])
        for b in st.batches.values()
    ]
    assert max(read) > 4096, read
    paths = {p for _, p, _ in seen}
    made = "/v1/messages/batches" if provider == "anthropic" else "/v1/batches"
    assert made in paths  # the creation, and the results read, among them
    assert any(p.endswith(("/results", "/content")) for p in paths)
    assert {coding for _, _, coding in seen} == {"identity"}, seen


def _on_create(fake, change) -> None:
    """The fake's creation replies (Anthropic's batch, OpenAI's) sent as ``change(self, obj)``."""
    handler = fake.server.RequestHandlerClass
    sent = handler._send

    def _send(self, code, obj, what=""):
        return change(self, obj) if what == "create" else sent(self, code, obj, what)

    handler._send = _send


def _gzipped(self, data: bytes, ctype: str) -> None:
    """``data`` sent gzip-compressed, saying so."""
    packed = gzip.compress(data)
    self.send_response(200)
    for k, v in (("content-type", ctype), ("content-encoding", "gzip")):
        self.send_header(k, v)
    self.send_header("content-length", str(len(packed)))
    self.end_headers()
    self.wfile.write(packed)


@pytest.mark.parametrize("what", ["create", "results"])
@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_compressed_batch_reply_stops_the_run_unread(fake, tmp_path, provider, what):
    if what == "create":
        _on_create(
            fake, lambda self, obj: _gzipped(self, json.dumps(obj).encode(), "application/json")
        )
    else:
        handler = fake.server.RequestHandlerClass
        handler._stream = lambda self, lines, ctype: _gzipped(self, b"".join(lines), ctype)
    with pytest.raises(ProviderError) as stopped:
        batched(tmp_path, provider, cases=1)
    assert "the reply is compressed (gzip), though the call asked for it uncompressed;" in str(
        stopped.value
    )
    assert "no call can succeed: check the base URL and any proxy in front of it" in str(
        stopped.value
    )


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_creation_reply_past_the_cap_is_not_read(fake, tmp_path, monkeypatch, provider):
    import driftproof.run.providers.cli as lane

    monkeypatch.setattr(lane, "OUTPUT_MAX_BYTES", 4096)  # each results line is under it
    sent = fake.server.RequestHandlerClass._send
    _on_create(fake, lambda self, obj: sent(self, 200, obj | {"pad": "x" * 5000}))
    with pytest.raises(ProviderError) as stopped:
        batched(tmp_path, provider, cases=1)
    assert "the reply is longer than 4,096 bytes" in str(stopped.value)
