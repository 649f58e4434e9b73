"""The frame structure of Zstandard data (RFC 8878, section 3.1), walked without inflating it.

A Zstandard stream reader stops quietly where its input stops, even inside a frame; this walk
says whether the data is whole frames, one after another, and nothing else.
"""

from __future__ import annotations

from typing import BinaryIO

_FRAME_MAGIC = 0xFD2FB528
#: Skippable frames: magic numbers 0x184D2A50 to 0x184D2A5F, then a 4-byte size.
_SKIPPABLE_LOW, _SKIPPABLE_HIGH = 0x184D2A50, 0x184D2A5F
_DICT_ID_BYTES = (0, 1, 2, 4)
_CONTENT_SIZE_BYTES = (0, 2, 4, 8)  # flag 0 is 1 byte when the frame is a single segment


def frames_fault(fh: BinaryIO, size: int) -> str | None:
    """Whether the next ``size`` bytes of ``fh`` are whole Zstandard frames and nothing more.

    Args:
        fh: positioned at the data's first byte; left anywhere inside or just past it.
        size: bytes of compressed data.

    Returns:
        ``None`` when they are; else what is wrong, in plain words (for "the member ...").
    """
    at, frame = 0, 0
    while at < size:
        frame += 1
        first = at
        head = fh.read(min(4, size - at))
        if len(head) < 4:  # the first bytes of a frame's magic number, or bytes after the frames
            cut = _FRAME_MAGIC.to_bytes(4, "little").startswith(head)
            return _cut(frame, first, size) if cut else _after(first, size)
        magic = int.from_bytes(head, "little")
        at += 4
        if _SKIPPABLE_LOW <= magic <= _SKIPPABLE_HIGH:
            length = _int(fh, 4)
            if length is None or at + 4 + length > size:
                return _cut(frame, first, size)
            fh.seek(length, 1)
            at += 4 + length
            continue
        if magic != _FRAME_MAGIC:
            return _after(first, size)
        walked = _frame_body(fh, size - at)
        if walked is None:
            return _cut(frame, first, size)
        at += walked
    return None


def _frame_body(fh: BinaryIO, left: int) -> int | None:
    """The bytes of one frame after its magic number, or ``None`` when they pass ``left``."""
    descriptor = _int(fh, 1)
    if descriptor is None or left < 1:
        return None
    single = bool(descriptor & 0x20)
    header = 0 if single else 1  # the window descriptor
    header += _DICT_ID_BYTES[descriptor & 0x3]
    header += _CONTENT_SIZE_BYTES[descriptor >> 6] or (1 if single else 0)
    used = 1 + header
    if used > left:
        return None
    fh.seek(header, 1)
    while True:
        block = _int(fh, 3)
        if block is None or used + 3 > left:
            return None
        kind, length = (block >> 1) & 0x3, block >> 3
        body = 1 if kind == 1 else length  # an RLE block holds one byte
        used += 3 + body
        if used > left:
            return None
        fh.seek(body, 1)
        if block & 0x1:  # the frame's last block
            break
    if descriptor & 0x4:  # a content checksum follows
        used += 4
        if used > left:
            return None
        fh.seek(4, 1)
    return used


def _int(fh: BinaryIO, n: int) -> int | None:
    data = fh.read(n)
    return int.from_bytes(data, "little") if len(data) == n else None


def _cut(frame: int, first: int, size: int) -> str:
    return (
        f"ends inside its Zstandard frame {frame} (which starts at byte {first} of its "
        f"{size} bytes of compressed data); expected whole frames"
    )


def _after(first: int, size: int) -> str:
    return (
        f"holds {size - first} bytes after its Zstandard frames, at byte {first} of its "
        "compressed data; expected only whole frames"
    )
