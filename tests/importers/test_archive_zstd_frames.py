"""A Zstandard ``.eval`` member must be whole frames and nothing more.

A stream reader stops quietly where its input stops, even inside a frame: a member holding one
whole frame then the first bytes of a second inflates to the first frame's bytes, which agree
with the archive's CRC-32. Such a member, or one with bytes after its frames, is refused at it.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest
import zstandard

from driftproof.errors import ImportError_
from driftproof.importers._archive import Archive

_DATA = b'{"a": 1}'
_FRAME = zstandard.ZstdCompressor(level=3).compress(_DATA)
_SECOND = zstandard.ZstdCompressor(level=3).compress(b'{"b": 2}')
#: a skippable frame (magic 0x184D2A50 to 0x184D2A5F, a 4-byte size, that many bytes)
_SKIP = struct.pack("<LL", 0x184D2A5A, 3) + b"abc"


def _one_member(path: Path, comp: bytes, data: bytes = _DATA) -> Path:
    """An archive of one member, ``m.json``, of method 93 whose compressed bytes are ``comp``
    and whose CRC-32 and size are ``data``'s."""
    n, crc = b"m.json", zlib.crc32(data)
    local = struct.pack("<4s5H3L", b"PK\x03\x04", 63, 0, 93, 0, 0, crc, len(comp), len(data))
    local += struct.pack("<2H", len(n), 0) + n + comp
    central = struct.pack(
        "<4s6H3L5H2L", b"PK\x01\x02", 63, 63, 0, 93, 0, 0, crc, len(comp), len(data), len(n),
        0, 0, 0, 0, 0, 0,
    ) + n  # fmt: skip
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 1, 1, len(central), len(local), 0)
    path.write_bytes(local + central + end)
    return path


@pytest.mark.parametrize("cut", [2, 4, 6, len(_SECOND) - 1])  # 2: inside the magic number
def test_a_second_frame_cut_short_is_refused(tmp_path: Path, cut: int) -> None:
    # before: the member read as b'{"a": 1}' without complaint (the cut frame gave no bytes)
    arc = _one_member(tmp_path / "a.eval", _FRAME + _SECOND[:cut])
    with pytest.raises(ImportError_) as caught:
        Archive(arc).read("m.json")
    (problem,) = caught.value.problems
    assert (problem.file, problem.member, problem.pointer) == (str(arc), "m.json", "")
    assert problem.message == (
        f"the member ends inside its Zstandard frame 2 (which starts at byte {len(_FRAME)} of "
        f"its {len(_FRAME) + cut} bytes of compressed data); expected whole frames"
    )


@pytest.mark.parametrize("tail", [b"not a frame", b"\n\n"])
def test_bytes_after_the_frames_are_refused(tmp_path: Path, tail: bytes) -> None:
    # two newlines were said to end "inside its Zstandard frame 2": fewer than a magic number's
    # 4 bytes, and not its first bytes
    arc = _one_member(tmp_path / "a.eval", _FRAME + tail)
    with pytest.raises(ImportError_) as caught:
        Archive(arc).read("m.json")
    assert caught.value.problems[0].message == (
        f"the member holds {len(tail)} bytes after its Zstandard frames, at byte {len(_FRAME)} "
        "of its compressed data; expected only whole frames"
    )


def test_a_skippable_frame_cut_short_is_refused(tmp_path: Path) -> None:
    arc = _one_member(tmp_path / "a.eval", _FRAME + _SKIP[:-1])
    with pytest.raises(ImportError_, match="ends inside its Zstandard frame 2"):
        Archive(arc).read("m.json")


def test_whole_frames_and_skippable_frames_are_read(tmp_path: Path) -> None:
    both = _DATA + b'{"b": 2}'
    arc = _one_member(tmp_path / "a.eval", _SKIP + _FRAME + _SKIP + _SECOND, both)
    assert Archive(arc).read("m.json") == both


def test_a_declared_size_past_the_archive_is_refused_as_such(tmp_path: Path) -> None:
    # before: "the member holds 100 bytes after its Zstandard frames, at byte 17 …": bytes the
    # archive does not hold (the walk read on into the central directory)
    arc = _one_member(tmp_path / "a.eval", _FRAME)
    data = bytearray(arc.read_bytes())
    at = data.index(b"PK\x01\x02") + 20  # the central directory's compressed size
    data[at : at + 4] = (len(_FRAME) + 100).to_bytes(4, "little")
    arc.write_bytes(bytes(data))
    with pytest.raises(ImportError_) as caught:
        Archive(arc).read("m.json")
    assert caught.value.problems[0].message == "the member ends before its declared compressed size"
