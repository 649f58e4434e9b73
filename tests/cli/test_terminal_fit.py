"""Lines the CLI prints fit the terminal they go to, and are unchanged when piped.

Found in an 80-column terminal: ``validate`` printed ``ok`` lines of 234 characters, ``badge``
its reading unwrapped, and an error line on stderr (``plan`` of a receipt with one answer per
arm) ran to 342. On a terminal (here a pseudo-terminal of ``COLUMNS`` 40 on one stream, the other
piped) each line is wrapped at spaces, continuing four in; piped, each is one line as before.
Every expected line is worked out by hand, its length counted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from factories import case, make_receipt

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")

_MAIN = "import sys; from driftproof.cli import main; sys.argv[0] = 'driftproof'; main()"


def _driftproof(
    args: list[str], cwd: Path, tty: str | None, columns: int = 40
) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of the CLI run in ``cwd``; ``tty`` names the stream that is
    a terminal of ``columns`` (``"stdout"`` or ``"stderr"``), the other piped; ``None``: both
    piped.
    """
    env = {**os.environ, "COLUMNS": str(columns)}
    if tty is None:
        done = subprocess.run(
            [sys.executable, "-c", _MAIN, *args], cwd=cwd, env=env, capture_output=True, text=True
        )
        return done.returncode, done.stdout, done.stderr
    main, terminal = os.openpty()
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, tty: terminal}
    with subprocess.Popen([sys.executable, "-c", _MAIN, *args], cwd=cwd, env=env, **streams) as p:
        os.close(terminal)
        chunks = []
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # EIO: the command has closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        piped = (p.stderr if tty == "stdout" else p.stdout).read()  # type: ignore[union-attr]
    os.close(main)
    shown = b"".join(chunks).decode("utf-8").replace("\r\n", "\n")
    other = piped.decode("utf-8")
    return (p.returncode, shown, other) if tty == "stdout" else (p.returncode, other, shown)


def _write(path: Path, level: str = "TESTED") -> dict:
    doc = make_receipt([case("c1", [0.80, 0.82, 0.84], [0.50, 0.52, 0.54])], level=level)
    path.write_text(json.dumps(doc), encoding="utf-8")
    return doc


def test_validate_fits_the_terminal(tmp_path: Path) -> None:
    doc = _write(tmp_path / "r.json")
    seal = doc["seal"]["sha256"][:12]
    line = f"r.json: ok: schema 0.16, seal {seal}…, level TESTED; can carry a verdict"
    assert _driftproof(["validate", "r.json"], tmp_path, None) == (0, line + "\n", "")
    # "r.json: ok: schema 0.16, seal" is 29, with the 15 of " <seal>…," 44; then 4 in,
    # "<seal>…, level TESTED; can" makes 37, with " carry" 43
    assert _driftproof(["validate", "r.json"], tmp_path, "stdout") == (
        0,
        f"r.json: ok: schema 0.16, seal\n    {seal}…, level TESTED; can\n    carry a verdict\n",
        "",
    )


def test_badge_fits_its_reading_to_the_terminal(tmp_path: Path) -> None:
    _write(tmp_path / "r.json", level="UNVERIFIED")
    args = ["badge", "r.json", "--out-dir", "o"]
    wrote = "wrote o/r.json\nwrote o/r.details.json\nwrote o/r.svg\n"
    embed = (  # then how to show it (shields.io's endpoint badge)
        "To show the badge, publish r.json at a public address and embed the image "
        "https://img.shields.io/endpoint?url=ADDRESS (ADDRESS URL-encoded): shields.io draws it "
        "from the file, so it follows each new file published there.\n"
    )
    reading = "no verdict: verification level UNVERIFIED is below TESTED"
    how = (
        "A driftproof run that finishes, without --quick, answered and judged by real models (not "
        "the simulated provider or the stub), gives a TESTED receipt.\n"
    )
    assert _driftproof(args, tmp_path, None) == (0, reading + "\n" + how + wrote + embed, "")
    # "no verdict: verification level" is 30, with " UNVERIFIED" 41
    args[-1] = "o2"
    code, out, err = _driftproof(args, tmp_path, "stdout")
    assert (code, err) == (0, "") and out.startswith(
        "no verdict: verification level\n    UNVERIFIED is below TESTED\n"
        "A driftproof run that finishes, without\n    --quick, answered and judged by real\n"
        "    models (not the simulated provider\n    or the stub), gives a TESTED\n"
        "    receipt.\n" + wrote.replace("o/", "o2/") + "To show the badge, publish r.json at a\n"
    )
    assert all(len(x) <= 40 or "img.shields.io" in x for x in out.splitlines())  # unbroken URL


def test_an_error_line_fits_a_terminal_on_stderr(tmp_path: Path) -> None:
    args = ["view", "no such receipt.json"]
    line = "error: no such receipt.json: cannot read: No such file or directory\n"
    assert _driftproof(args, tmp_path, None) == (2, "", line)
    # "error: no such receipt.json: cannot" is 35, with " read:" 41
    assert _driftproof(args, tmp_path, "stderr") == (
        2,
        "",
        "error: no such receipt.json: cannot\n    read: No such file or directory\n",
    )
    # stdout a terminal, stderr piped: the error line stays whole
    assert _driftproof(args, tmp_path, "stdout") == (2, "", line)


def test_a_usage_error_fits_a_terminal_on_stderr(tmp_path: Path) -> None:
    _write(tmp_path / "r.json")
    args = ["view", "--format", "bogus", "r.json"]
    head = "Usage: driftproof view [OPTIONS] RECEIPT\nTry 'driftproof view --help' for help.\n\n"
    line = "error: Invalid value for '--format': 'bogus' is not one of 'text', 'markdown', "
    line += "'json'.\n"
    assert _driftproof(args, tmp_path, None) == (2, "", head + line)
    # "error: Invalid value for '--format':" is 36, with " 'bogus'" 44; then 4 in,
    # "'bogus' is not one of 'text'," makes 33, with " 'markdown'," 45
    assert _driftproof(args, tmp_path, "stderr") == (
        2,
        "",
        head + "error: Invalid value for '--format':\n"
        "    'bogus' is not one of 'text',\n    'markdown', 'json'.\n",
    )


def test_view_on_a_terminal_fits_it(tmp_path: Path) -> None:
    """``view`` with its standard output a terminal 100 columns wide fits it."""
    (tmp_path / "t.json").write_text(
        json.dumps(make_receipt([case("c1", [0.8, 0.82, 0.84], [0.5, 0.52, 0.54])]))
    )
    code, out, _ = _driftproof(["view", "t.json"], tmp_path, "stdout", columns=100)
    assert code == 0
    lines = out.splitlines()
    assert "    with skill: 0.820 ± 0.020 (n = 3)" in lines
    # hashes of 64 characters stand alone, 4 in: every line fits 100 columns
    assert all(len(x) <= 100 for x in lines), max(lines, key=len)
