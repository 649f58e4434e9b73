"""Bounded archive reading (issue 14): prints ratios, not pass/fail.

1. Speed: reading a 48 MiB Zstandard member through :class:`driftproof.importers._archive.Archive`
   (streamed, counted, CRC-checked) against one bare ``zstandard`` decompress of the same bytes.
2. Memory: the peak resident set (VmHWM) of a fresh process that refuses a member declaring
   10 bytes and inflating to 1 GiB, as a ratio of the per-member cap (64 MiB).

Run: .venv/bin/python benchmarks/archive_inflate.py
"""

from __future__ import annotations

import struct
import subprocess
import sys
import tempfile
import timeit
import zlib
from pathlib import Path

import zstandard

from driftproof.importers._archive import MAX_MEMBER_BYTES, Archive


def zip_member(
    path: Path, name: str, data_chunks: list[bytes], declared: int | None = None
) -> None:
    """One Zstandard member (zip method 93) written byte by byte, its size declared as given."""
    c = zstandard.ZstdCompressor(level=1).compressobj()
    comp, crc, size = bytearray(), 0, 0
    for chunk in data_chunks:
        comp += c.compress(chunk)
        crc, size = zlib.crc32(chunk, crc), size + len(chunk)
    comp += c.flush()
    n = name.encode()
    size = size if declared is None else declared
    local = (
        struct.pack("<4s5H3L2H", b"PK\x03\x04", 63, 0, 93, 0, 0, crc, len(comp), size, len(n), 0)
        + n
        + comp
    )
    central = (
        struct.pack(
            "<4s6H3L5H2L",
            b"PK\x01\x02",
            63,
            63,
            0,
            93,
            0,
            0,
            crc,
            len(comp),
            size,
            len(n),
            0,
            0,
            0,
            0,
            0,
            0,
        )
        + n
    )
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 1, 1, len(central), len(local), 0)
    path.write_bytes(bytes(local + central + end))


_REFUSE = """
import sys
from driftproof.errors import ImportError_
from driftproof.importers._archive import Archive
try:
    Archive(sys.argv[1]).read("m")
except ImportError_:
    pass
with open("/proc/self/status") as fh:
    print(next(int(x.split()[1]) for x in fh if x.startswith("VmHWM:")))
"""


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "a.eval"
        data = [bytes(range(256)) * 4096] * 48  # 48 MiB, compressible
        zip_member(path, "m", data)
        raw = path.read_bytes()
        comp = raw[30 + 1 : raw.rindex(b"PK\x01\x02")]  # after the local header and the 1-byte name
        ours = min(timeit.repeat(lambda: Archive(path).read("m"), number=1, repeat=3))
        bare = min(
            timeit.repeat(
                lambda: zstandard.ZstdDecompressor().decompress(comp, max_output_size=49 << 20),
                number=1,
                repeat=3,
            )
        )
        print(
            f"48 MiB Zstandard member: streamed and capped read {ours:.3f} s, "
            f"{ours / bare:.1f}x one bare zstandard decompress ({bare:.3f} s)"
        )
        bomb = Path(d) / "bomb.eval"
        zip_member(bomb, "m", [b" " * (1 << 20)] * 1024, declared=10)
        peak = int(
            subprocess.run(
                [sys.executable, "-c", _REFUSE, str(bomb)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        print(
            f"member declaring 10 bytes, inflating to 1 GiB: refused; "
            f"peak resident {peak / 1024:.0f} MiB, "
            f"{peak * 1024 / MAX_MEMBER_BYTES:.2f}x the "
            f"{MAX_MEMBER_BYTES >> 20} MiB per-member cap "
            "(the interpreter and libraries included)"
        )


if __name__ == "__main__":
    main()
