"""Inputs that are not regular files: an endless device, a named pipe, a folder.

Each is refused by name or read only up to its bound, never waited on, and no file descriptor
is left open. Reproductions run in a child process with a timeout where the problem is a hang.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from factories import case, make_receipt
from receipt_docs import seal_document

from driftproof.errors import ReceiptError
from driftproof.receipt import read_receipt

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "run"))
from run_helpers import SUITE  # noqa: E402


def _child(code: str, what: str) -> subprocess.CompletedProcess[str]:
    """Python ``code`` in a child process, failing the test if ``what`` waits 30 s."""
    try:
        return subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=30
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{what} did not return")


def _main_returns(argv: list[str]) -> subprocess.CompletedProcess[str]:
    """``driftproof ARGV`` in a child process (:func:`_child`)."""
    return _child(f"from driftproof.cli import main\nmain({argv!r})\n", f"driftproof {argv[0]}")


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
@pytest.mark.parametrize(
    ("imports", "call", "printed", "expected"),
    [
        # a device is not a regular file: refused before a byte is read (it was read to the bound)
        (
            "from driftproof.errors import ReceiptError as Refused\n"
            "from driftproof.receipt import read_receipt",
            "read_receipt('/dev/zero')",
            "exc",
            "/dev/zero: expected a regular file",
        ),
        (
            "from pathlib import Path\nfrom driftproof.errors import ImportError_ as Refused\n"
            "from driftproof.importers._common import read_bytes",
            "read_bytes(Path('/dev/zero'))",
            "'bounded'",
            "bounded",
        ),
    ],
)
def test_a_read_of_an_endless_device_is_bounded(imports, call, printed, expected) -> None:
    code = (
        "import resource; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
        f"{imports}\ntry:\n    {call}\nexcept Refused as exc:\n    print({printed})\n"
    )
    res = _child(code, call)
    assert res.stdout.strip() == expected, res.stderr[-300:]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
@pytest.mark.parametrize("command", ["view", "validate"])
def test_a_command_reading_a_fifo_refuses_it_not_waits(command: str, tmp_path: Path) -> None:
    # Found: `driftproof view pipe.json` opened the FIFO for reading and waited for a writer
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    res = _main_returns([command, str(fifo)])
    assert res.returncode != 0
    assert f"{fifo}: expected a regular file" in res.stdout + res.stderr


#: A stub run's options after its suite and skill.
_STUB_RUN = ["--provider", "stub", "--model", "m", "--out", "{out}"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
@pytest.mark.parametrize(
    "args",
    [
        ["run", "{fifo}", "--skill", "{skill}", *_STUB_RUN],
        ["run", "{suite}", "--skill", "{fifo}", *_STUB_RUN],
        ["stale", "{receipt}", "--skill", "{fifo}"],
        ["import", "summary-json", "{summary}", "--skill-md", "{fifo}", "--out-dir", "{dir}"],
    ],
    ids=["run suite", "run --skill", "stale --skill", "import --skill-md"],
)
def test_a_fifo_given_as_any_input_is_refused_not_waited_on(
    args: list[str], tmp_path: Path
) -> None:
    # Found: run, stale and the importers opened a FIFO given as a suite or SKILL.md and waited
    # for a writer that never came; every input is now opened without waiting and refused
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps(SUITE), encoding="utf-8")
    skill = tmp_path / "SKILL.md"
    skill.write_text("Be brief.", encoding="utf-8")
    receipt = tmp_path / "r.json"
    receipt.write_text(json.dumps(seal_document(make_receipt([case("c1", [0.5] * 3, [0.4] * 3)]))))
    summary = tmp_path / "summary.json"
    sys.path.insert(0, str(ROOT / "tests" / "importers"))
    from test_summary_json import DOC  # a hand-written summary-json file

    summary.write_text(json.dumps(DOC), encoding="utf-8")
    names = {"fifo": fifo, "skill": skill, "suite": suite, "out": tmp_path / "o.json"}
    names |= {"receipt": receipt, "summary": summary, "dir": tmp_path / "imported"}
    argv = [a.format(**names) for a in args]
    res = _main_returns(argv)
    assert res.returncode != 0
    assert "expected a file, found a named pipe or socket" in res.stderr, res.stderr[-400:]


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="no /proc/self/fd")
def test_a_folder_given_as_a_receipt_or_input_is_refused_and_leaks_no_descriptor(
    tmp_path: Path,
) -> None:
    # Found: read_receipt of a folder said "cannot read: Is a directory" and left one file
    # descriptor open per call (the folder was opened, then fdopen refused it)
    from driftproof._json import open_file

    before = len(list(Path("/proc/self/fd").iterdir()))
    for _ in range(50):
        with pytest.raises(ReceiptError, match="expected a regular file"):
            read_receipt(tmp_path)
        with pytest.raises(IsADirectoryError):
            open_file(tmp_path)
    assert len(list(Path("/proc/self/fd").iterdir())) == before


def test_a_socket_given_as_a_receipt_or_input_is_named_as_one(tmp_path: Path) -> None:
    # Found: a socket in receipts/ (or given to view or import) read "cannot read: No such
    # device or address", the system's word for opening one, where a pipe read as not a file
    import socket

    from driftproof._json import open_file

    path = tmp_path / "r.json"
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(path))
        with pytest.raises(ReceiptError) as refused:
            read_receipt(path)
        assert str(refused.value) == f"{path}: expected a regular file"
        with pytest.raises(OSError) as not_a_file:
            open_file(path)
        assert not_a_file.value.strerror == "expected a file, found a named pipe or socket"


def test_a_results_folder_whose_document_is_a_broken_link_is_refused_not_skipped(
    shared: Path, tmp_path: Path
) -> None:
    # Found: `import claude-plugin-eval RESULTS` with one timestamp folder's aggregate-result.json
    # a link to a file not there imported the other folders alone, without a word
    from driftproof.errors import ImportError_
    from driftproof.importers.claude_plugin_eval import import_claude_plugin_eval

    src = shared / "data/interop/claude-plugin-eval/aggregate-result.two-arm.json"
    for name in ("2026-09-12T01-06-04", "2026-09-12T01-07-31"):
        (tmp_path / name).mkdir()
    (tmp_path / "2026-09-12T01-06-04/aggregate-result.json").write_bytes(src.read_bytes())
    (gone := tmp_path / "2026-09-12T01-07-31/aggregate-result.json").symlink_to(tmp_path / "x")
    with pytest.raises(ImportError_) as exc:
        import_claude_plugin_eval(tmp_path)
    assert str(exc.value).startswith(f"{gone}: ")


def test_a_results_folder_that_is_a_broken_link_is_refused_not_skipped(
    shared: Path, tmp_path: Path
) -> None:
    # Found: with one timestamp folder a link to a folder not there, the import read the other
    # folder alone and exited 0; that folder's document is read and refused, naming it
    from driftproof.errors import ImportError_
    from driftproof.importers.claude_plugin_eval import import_claude_plugin_eval

    src = shared / "data/interop/claude-plugin-eval/aggregate-result.two-arm.json"
    (tmp_path / "2026-09-12T01-06-04").mkdir()
    (tmp_path / "2026-09-12T01-06-04/aggregate-result.json").write_bytes(src.read_bytes())
    (tmp_path / "2026-09-12T01-07-31").symlink_to(tmp_path / "gone")
    with pytest.raises(ImportError_) as exc:
        import_claude_plugin_eval(tmp_path)
    assert str(exc.value).startswith(f"{tmp_path / '2026-09-12T01-07-31/aggregate-result.json'}: ")
