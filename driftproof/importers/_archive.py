"""Zip archives (Inspect ``.eval``: store, deflate, Zstandard) read with bounded memory.

Each member is streamed and the bytes actually inflated are capped per member and per
archive (a member lying about its size is refused at the cap); CRC-32 is checked; a Zstandard
member must be whole frames and nothing more. Errors name the archive and the member
(``a.eval, member samples/1_epoch_1.json: ...``).
"""

from __future__ import annotations

import os
import struct
import zipfile
import zlib
from collections import Counter
from pathlib import Path
from typing import BinaryIO

import zstandard

from driftproof.importers._common import Where

#: Members: the most an archive may list (checked on the central directory, before reading).
MAX_MEMBERS = 20_000
#: Bytes: the most one member may inflate to (counted as it inflates, not as declared).
MAX_MEMBER_BYTES = 64 * 1024 * 1024
#: Bytes: the most all members read from one archive may inflate to together.
MAX_INFLATED_BYTES = 256 * 1024 * 1024
_CHUNK = 256 * 1024
_STORED, _DEFLATED, _ZSTD = 0, 8, 93
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")


class _Limited:
    """A read-only view of the next ``remaining`` bytes of ``fh`` (one member's compressed data)."""

    def __init__(self, fh: BinaryIO, remaining: int) -> None:
        self.fh = fh
        self.remaining = remaining

    def read(self, n: int = -1) -> bytes:
        n = self.remaining if n < 0 else min(n, self.remaining)
        data = self.fh.read(n) if n else b""
        self.remaining -= len(data)
        return data


class Archive:
    """A zip archive opened for bounded reading.

    Raises:
        ImportError_: not a zip archive, more members than ``max_members``, a member name
            marked UTF-8 that is not, or a member name listed more than once.
    """

    def __init__(
        self,
        path: Path,
        *,
        max_members: int = MAX_MEMBERS,
        max_member_bytes: int = MAX_MEMBER_BYTES,
        max_inflated_bytes: int = MAX_INFLATED_BYTES,
    ) -> None:
        self.path = Path(path)
        self.shown = str(path)
        self.max_member_bytes = max_member_bytes
        self.max_inflated_bytes = max_inflated_bytes
        self.inflated = 0
        try:
            with zipfile.ZipFile(self.path) as z:
                infos = z.infolist()
        except (zipfile.BadZipFile, OSError, NotImplementedError) as exc:
            raise Where(self.shown).fail(
                f"expected a zip archive; the file is not a readable one ({exc})"
            ) from None
        except UnicodeDecodeError as exc:  # a name marked UTF-8 (flag bit 11) that is not
            raise Where(self.shown).fail(
                "expected each member's name in UTF-8, as the archive marks it; one holds an "
                f"invalid byte at offset {exc.start} of its name"
            ) from None
        if len(infos) > max_members:
            raise Where(self.shown).fail(
                f"the archive lists {len(infos)} members; at most {max_members} are read"
            )
        names = Counter(i.filename for i in infos if not i.is_dir())
        if twice := [n for n, count in names.items() if count > 1]:
            raise Where(self.shown, member=twice[0]).fail(
                "expected each member once; the archive lists this name more than once, "
                "so which copy is meant cannot be told"
            )
        #: member name -> its entry, as the central directory lists them
        self.infos = {i.filename: i for i in infos if not i.is_dir()}

    def read(self, name: str) -> bytes:
        """The inflated bytes of member ``name``, streamed and capped.

        Raises:
            ImportError_: the member is missing, encrypted, of an unknown method, shorter than
                its declared compressed size, corrupt (its CRC-32 differs), not whole Zstandard
                frames and nothing more (a Zstandard member), or inflates past the per-member or
                whole-archive cap.
        """
        info = self.infos.get(name)
        where = Where(self.shown, member=name)
        if info is None:
            raise where.fail("expected this member in the archive; found none")
        if info.flag_bits & 0x1:
            raise where.fail("the member is encrypted; expected a plain member")
        if info.compress_type not in (_STORED, _DEFLATED, _ZSTD):
            raise where.fail(
                f"compression method {info.compress_type} is not read; expected "
                "stored (0), deflate (8) or Zstandard (93)",
            )
        try:
            with self.path.open("rb") as fh:
                return self._inflate(fh, info, where)
        except OSError as exc:
            raise where.fail(f"cannot read the member: {exc.strerror or exc}") from None

    def _inflate(self, fh: BinaryIO, info: zipfile.ZipInfo, where: Where) -> bytes:
        fh.seek(info.header_offset)
        head = fh.read(_LOCAL_HEADER.size)
        if len(head) != _LOCAL_HEADER.size or head[:4] != b"PK\x03\x04":
            raise where.fail("the member's local header is missing or corrupt")
        fields = _LOCAL_HEADER.unpack(head)
        fh.seek(fields[-2] + fields[-1], 1)  # file name and extra field
        remaining = info.compress_size
        if fh.tell() + remaining > os.fstat(fh.fileno()).st_size:
            raise where.fail("the member ends before its declared compressed size")
        cap = min(self.max_member_bytes, self.max_inflated_bytes - self.inflated)
        # pieces of at most _CHUNK bytes, joined once at the end: no buffer is regrown (and copied)
        # while a member inflates, so a refused member never holds more than the cap
        out: list[bytes] = []
        size = 0
        crc = 0
        d = zlib.decompressobj(-15) if info.compress_type == _DEFLATED else None

        def take(piece: bytes) -> None:
            nonlocal crc, size
            if size + len(piece) > cap:
                what = (
                    f"the archive's members inflate past {self.max_inflated_bytes} bytes together"
                    if cap < self.max_member_bytes
                    else f"the member inflates past {self.max_member_bytes} bytes"
                )
                raise where.fail(
                    f"{what}, the limit (counted as inflated, not as declared); nothing was read"
                )
            out.append(piece)
            size += len(piece)
            crc = zlib.crc32(piece, crc)

        try:
            if info.compress_type == _ZSTD:
                start = fh.tell()
                if fault := frames_fault(fh, remaining):  # the reader stops quietly mid-frame
                    raise where.fail(f"the member {fault}")
                fh.seek(start)
                # a stream reader returns at most the size asked for: output is bounded per read
                raw = _Limited(fh, remaining)
                # zstandard reads any object with read(); its stub asks for IO[bytes]
                with zstandard.ZstdDecompressor().stream_reader(
                    raw,  # type: ignore[arg-type]
                    read_size=16 * 1024,
                    read_across_frames=True,
                    closefd=False,
                ) as reader:
                    while piece := reader.read(_CHUNK):
                        take(piece)
                if raw.remaining:
                    raise where.fail("the member holds bytes after its Zstandard frames")
                remaining = 0
            while remaining > 0:
                chunk = fh.read(min(_CHUNK, remaining))
                if not chunk:
                    raise where.fail("the member ends before its declared compressed size")
                remaining -= len(chunk)
                while chunk:  # a stored chunk is taken whole
                    # max_length bounds each step's output, so a bomb cannot inflate in one call
                    take(d.decompress(chunk, _CHUNK) if d else chunk)
                    chunk = d.unconsumed_tail if d else b""
            if d is not None:
                while not d.eof and (piece := d.decompress(b"", _CHUNK)):
                    take(piece)
                take(d.flush())
        except (zlib.error, zstandard.ZstdError) as exc:
            raise where.fail(f"the member cannot be inflated: {exc}") from None
        if crc != info.CRC:
            raise where.fail("the member's CRC-32 differs from the archive's: it is corrupt")
        self.inflated += size
        return b"".join(out)


_FRAME_MAGIC = 0xFD2FB528
#: Skippable frames: magic numbers 0x184D2A50 to 0x184D2A5F, then a 4-byte size.
_SKIPPABLE_LOW, _SKIPPABLE_HIGH = 0x184D2A50, 0x184D2A5F
_DICT_ID_BYTES = (0, 1, 2, 4)
_CONTENT_SIZE_BYTES = (0, 2, 4, 8)  # flag 0 is 1 byte when the frame is a single segment


def frames_fault(fh: BinaryIO, size: int) -> str | None:
    """Whether the next ``size`` bytes of ``fh`` are whole Zstandard frames and nothing more.

    The frames (RFC 8878, section 3.1) are walked without inflating them: a Zstandard stream
    reader stops quietly where its input stops, even inside a frame.

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
