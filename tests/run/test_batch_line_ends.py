"""How batch result files are cut into lines and decoded: at the JSON Lines line end only
(``\\n``, or ``\\r\\n``), as UTF-8 (RFC 8259 §8.1), whatever characters the answers hold."""

from __future__ import annotations

import json

import pytest
from batch_runs import batched

from driftproof.receipt import read_receipt

#: characters a JSON string may hold unescaped that Python's str.splitlines ends a line at
UNESCAPED_BREAKS = "\u2028\u2029\u0085".encode()


def _patched(monkeypatch, provider: str, change) -> None:
    """Every result line of ``provider``'s batches passed through ``change`` (bytes → bytes)."""
    import batch_fake_state

    if provider == "anthropic":
        results = batch_fake_state.FakeState.anthropic_results

        def lines(self, b):
            return [change(x) for x in results(self, b)]

        monkeypatch.setattr(batch_fake_state.FakeState, "anthropic_results", lines)
        return
    files = batch_fake_state.FakeState._openai_files

    def changed(self, b):
        files(self, b)
        if b.output_file_id:
            out = self.files[b.output_file_id]
            self.files[b.output_file_id] = b"".join(
                change(x) for x in out.splitlines(keepends=True)
            )

    monkeypatch.setattr(batch_fake_state.FakeState, "_openai_files", changed)


def _run(tmp_path, provider: str):
    kw = {"api": "chat"} if provider == "openai" else {}
    return read_receipt(batched(tmp_path, provider, cases=1, **kw))


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_an_answer_holding_a_unicode_line_separator_is_read_whole(
    fake, tmp_path, monkeypatch, provider
):
    # Found: the lines were cut by the HTTP library's iter_lines, which ends a line wherever
    # str.splitlines does: at U+2028, U+2029 and U+0085 too, which JSON carries unescaped
    # inside a string. An answer holding one was cut in pieces, none of them JSON: the request
    # was left "without a result", retried, and its draw lost once the attempts were spent
    _patched(monkeypatch, provider, lambda x: x.replace(b"(skill)", b"(skill)" + UNESCAPED_BREAKS))
    r = _run(tmp_path, provider)
    # as with no such character: the shared suite's first case, every call answered at once
    # (6 answers and 5 judge samples each: 36 calls), with skill 0.9 and baseline 0.5
    assert [d.score for d in r.cases[0].arms.with_skill.draws] == pytest.approx([0.9] * 3)
    assert [d.score for d in r.cases[0].arms.baseline.draws] == pytest.approx([0.5] * 3)
    assert all(not d.attempts for d in r.cases[0].arms.with_skill.draws)
    assert r.run.endpoint_attempts == 36


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_crlf_line_ends_and_a_last_line_without_one_are_read(fake, tmp_path, monkeypatch, provider):
    _patched(monkeypatch, provider, lambda x: x.rstrip(b"\n") + b"\r\n")
    import batch_fake_state

    if provider == "anthropic":  # and the last line's end dropped
        results = batch_fake_state.FakeState.anthropic_results

        def unended(self, b):
            lines = results(self, b)
            return [*lines[:-1], lines[-1].rstrip(b"\r\n")]

        monkeypatch.setattr(batch_fake_state.FakeState, "anthropic_results", unended)
    r = _run(tmp_path, provider)
    assert [d.score for d in r.cases[0].arms.with_skill.draws] == pytest.approx([0.9] * 3)
    assert r.run.endpoint_attempts == 36


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_result_line_that_is_not_utf8_names_no_request(fake, tmp_path, monkeypatch, provider):
    # Found: the lines were decoded with replacement, so an answer holding a byte that is no
    # UTF-8 was graded with U+FFFD in its place, where the interactive lane, which reads the
    # reply's bytes as JSON, fails the call; it is now a line that names no request (its
    # request is retried in a follow-up batch, as for a line that is not JSON)
    seen: set[str] = set()

    def broken_once(x: bytes) -> bytes:
        cid = json.loads(x)["custom_id"]
        if cid == "a0-0-0" and cid not in seen:  # the first answer's first attempt only
            seen.add(cid)
            return x.replace(b"(skill)", b"(skill)\xff", 1)
        return x

    _patched(monkeypatch, provider, broken_once)
    r = _run(tmp_path, provider)
    first = r.cases[0].arms.with_skill.draws[0]
    assert first.score == pytest.approx(0.9)
    assert len(first.attempts) == 1
    assert first.attempts[0].error_class == "transient"
    assert first.attempts[0].error.endswith(" is not UTF-8 text (byte 0xff)")
    assert r.run.endpoint_attempts == 36 + 1


def test_lines_are_cut_at_newline_bytes_whatever_the_chunks():
    from driftproof.run.batch_lanes import jsonl_lines

    # a line across three chunks, a CR LF split between two, a UTF-8 U+2028 split between two
    chunks = [b'{"a"', b":1}\r", b'\n{"b":"\xe2\x80', b'\xa8"}\n\n{"c"', b":2}"]
    assert list(jsonl_lines(chunks)) == [
        b'{"a":1}\r',
        b'{"b":"\xe2\x80\xa8"}',
        b"",
        b'{"c":2}',
    ]


def test_a_line_past_one_replys_cap_is_refused_before_it_is_held_whole(monkeypatch):
    # Found: a results line was held however long (a broken or hostile server's endless line
    # filled memory); a line holds one reply, and a reply is capped at 64 MiB on every lane
    import driftproof.run.providers.cli as lane
    from driftproof.run.batch_lanes import jsonl_lines
    from driftproof.run.providers.base import AttemptError

    monkeypatch.setattr(lane, "OUTPUT_MAX_BYTES", 8)
    assert list(jsonl_lines([b"12345", b"678\n1234", b"5678"])) == [b"12345678", b"12345678"]
    lines = jsonl_lines([b'{"a":1}\n', b"12345", b"6789"])  # the second line: 9 bytes, no end
    assert next(lines) == b'{"a":1}'
    with pytest.raises(AttemptError) as refused:
        next(lines)
    assert refused.value.reason == (
        "a line of the batch's results is longer than 8 bytes (7.62939e-06 MiB), the most one "
        "reply may take; the rest unread"
    )
    with pytest.raises(AttemptError):  # a line longer than the cap inside one chunk
        list(jsonl_lines([b"123456789\n"]))
