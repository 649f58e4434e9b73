"""A killed import, badge or regrade: the next one finishes; a stop once written is no interrupt.

Found (round 23): an import killed while writing left 340 of its 343 receipts and temporary
files, and its rerun refused the 340 ("already exist and were not replaced") and kept the
temporary files; a killed badge left one of its three files the same way; badge and regrade
never removed a killed write's temporary files; and a stop after the last file was written said
"interrupted", exit status 130, which says nothing was written.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from day_one_helpers import run_args
from factories import case, make_receipt
from factories import run_main as run

from driftproof.receipt import read_receipt

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "run"))
from run_helpers import SKILL_TEXT, SUITE  # noqa: E402

BENCHMARKS = "data/interop/nvidia/benchmarks.json"  # 343 receipts (the breaker's source)
CARD = "data/interop/nvidia/skills/cuopt-install/BENCHMARK.md"
COMMIT = ["--commit", "7149a886d50da8db72cdc1f20ff01cefeadfe6a9"]


def _command(where: str, shared: Path, receipt: Path, out: Path) -> list[str]:
    """The badge of ``receipt`` (``where`` badge), else the import of NVIDIA's cuOpt card, into
    ``out``."""
    if where == "badge":
        return ["badge", str(receipt), "--out-dir", str(out)]
    return ["import", "nvidia", str(shared / CARD), *COMMIT, "--out-dir", str(out)]


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def _stop(*_args: object, **_kwargs: object) -> None:
    raise KeyboardInterrupt  # Ctrl-C or SIGTERM (main() raises it so) as the command reports


def test_a_killed_imports_rerun_finishes_the_set(
    shared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "o"
    args = ["import", "nvidia", str(shared / BENCHMARKS), "--out-dir", str(out)]
    assert run(args, capsys)[0] == 0
    whole = _files(out)
    assert len(whole) == 343
    for name in sorted(whole)[:3]:  # what the kill left: 340 receipts, 3 temporary files
        (out / name).unlink()
        (out / f".{name}.k1ll_3d0.tmp").write_text('{"sch', encoding="utf-8")
    code, said, err = run(args, capsys)
    assert (code, err) == (0, "")
    assert "340 of the 343 files were already there, the same bytes: kept as they were\n" in said
    assert _files(out) == whole  # the set finished, the temporary files gone
    other = out / sorted(whole)[5]
    other.write_bytes(other.read_bytes() + b"\n")  # a receipt this import would not write
    code, _, err = run(args, capsys)
    assert code == 2
    assert err == (
        f"error: --out-dir: 1 file already exists and was not replaced: {other}; choose "
        "another folder, or give --force to replace it\n"
    )
    assert _files(out) == {**whole, other.name: whole[other.name] + b"\n"}


def test_a_stop_once_the_import_is_written_says_it_is_complete(
    shared: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("driftproof.cli.import_formats.said_written", _stop)
    out = tmp_path / "o"
    code, _, err = run(_command("import", shared, out, out), capsys)
    receipt = out / "nvidia-7149a88-cuopt-install-card.json"
    assert (code, err) == (
        0,
        f"\nstopped: the command is complete and the receipt {receipt} is written; there is "
        "nothing to redo\n",  # the blank line is click's, as it passes on a Ctrl-C
    )
    assert read_receipt(receipt).verification_level == "DECLARED"


@pytest.fixture
def receipt(tmp_path: Path) -> Path:
    p = tmp_path / "demo.json"
    p.write_text(json.dumps(make_receipt([case("c1", [0.8, 0.85, 0.9], [0.5, 0.55, 0.6])])))
    return p


def test_a_killed_badges_rerun_finishes_and_removes_its_leftovers(
    receipt: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "b"
    args = ["badge", str(receipt), "--out-dir", str(out)]
    assert run(args, capsys)[0] == 0
    whole = _files(out)
    (out / "demo.svg").unlink()
    (out / "demo.details.json").unlink()
    (out / ".demo.svg.k1ll_3d0.tmp").write_text("<?xml", encoding="utf-8")
    (out / ".demo.details.json.k1ll_3d1.tmp").write_text("", encoding="utf-8")
    code, said, err = run(args, capsys)
    assert (code, err) == (0, "")
    assert "1 of the 3 files was already there, the same bytes: kept as it was\n" in said
    assert _files(out) == whole
    (out / "demo.svg").write_text("<svg/>", encoding="utf-8")  # not what this badge writes
    code, _, err = run(args, capsys)
    assert (code, _files(out)) == (2, {**whole, "demo.svg": b"<svg/>"})
    assert f"1 file already exists and was not replaced: {out / 'demo.svg'}" in err


def test_a_stop_once_the_badge_is_written_says_it_is_complete(
    receipt: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("driftproof.cli.badge._say_reading", _stop)
    out = tmp_path / "b"
    code, _, err = run(["badge", str(receipt), "--out-dir", str(out)], capsys)
    names = ", ".join(str(out / n) for n in ("demo.json", "demo.details.json", "demo.svg"))
    assert (code, err) == (
        0,
        f"\nstopped: the command is complete and the badge files {names} are written; there "
        "is nothing to redo\n",
    )
    assert sorted(_files(out)) == ["demo.details.json", "demo.json", "demo.svg"]


def test_badge_help_lists_the_interrupted_status() -> None:
    from driftproof.cli.badge import badge

    said = " ".join(CliRunner().invoke(badge, ["--help"]).output.split())
    assert "130 when interrupted by Ctrl-C or SIGTERM before the files are written" in said


@pytest.fixture
def original(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    suite, skill = tmp_path / "suite.json", tmp_path / "SKILL.md"
    suite.write_text(json.dumps(SUITE), encoding="utf-8")
    skill.write_text(SKILL_TEXT, encoding="utf-8")
    receipt = tmp_path / "run.json"
    assert run(run_args(suite, skill, receipt, "--keep-transcripts"), capsys)[0] == 0
    return receipt, suite


def test_a_regrade_removes_its_leftovers_and_a_stop_once_written_says_complete(
    original: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    receipt, suite = original
    out = tmp_path / "rgk.json"
    left = tmp_path / ".rgk.json.k1ll_3d0.tmp"  # a regrade killed while writing its receipt
    left.write_text('{"sch', encoding="utf-8")
    monkeypatch.setattr("driftproof.cli.regrade.summary", _stop)
    code, _, err = run(["regrade", str(receipt), "--rubric", str(suite), "--out", str(out)], capsys)
    assert (code, err) == (
        0,
        f"\nstopped: the command is complete and the receipt {out} is written; there is "
        "nothing to redo\n",
    )
    assert read_receipt(out).regrade is not None
    assert not left.exists()


@pytest.mark.parametrize("where", ["badge", "importers"])
def test_a_signal_as_the_last_file_lands_reads_complete_not_interrupted(
    where: str,
    shared: Path,
    receipt: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # SIGTERM once every file is in place, before the command counted them as written: it
    # said "interrupted" (exit status 130) with every file on disk, 1 kill in 10 for badge
    import signal

    from driftproof.outputs import write_all_or_none

    def then_termed(*args: object, **kwargs: object) -> list[Path]:
        placed = write_all_or_none(*args, **kwargs)  # type: ignore[arg-type]
        signal.raise_signal(signal.SIGTERM)
        return placed

    monkeypatch.setattr(
        f"driftproof.{'cli.' * (where == 'badge')}{where}.write_all_or_none", then_termed
    )
    out = tmp_path / "o"
    code, _, err = run(_command(where, shared, receipt, out), capsys)
    assert (code, err.startswith("\nstopped: the command is complete and the ")) == (0, True)
    assert len(list(out.iterdir())) == (3 if where == "badge" else 1)


@pytest.mark.parametrize("where", ["badge", "import"])
def test_a_signal_while_waiting_for_the_folders_lock_stops_the_command_there(
    where: str,
    shared: Path,
    receipt: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the shared lock on the folder waits for as long as another process holds it exclusively;
    # with SIGINT and SIGTERM held for the write, neither could stop a command waiting there
    import fcntl
    import signal

    flock = fcntl.flock

    def termed_while_waiting(fd: int, how: int) -> None:
        if how == fcntl.LOCK_SH:  # staging's wait: the stop arrives, then the lock is granted
            signal.raise_signal(signal.SIGTERM)
        flock(fd, how)

    monkeypatch.setattr(fcntl, "flock", termed_while_waiting)
    out = tmp_path / "o"
    code, said, err = run(_command(where, shared, receipt, out), capsys)
    assert (code, said, err) == (130, "", "\ninterrupted\n")
    assert not out.exists() or list(out.iterdir()) == []


@pytest.mark.parametrize("where", ["badge", "import"])
def test_a_signal_before_a_file_is_in_place_stops_the_command_nothing_written(
    where: str,
    shared: Path,
    receipt: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # SIGTERM as the first temporary file is made: the stop was held until every file was
    # written, and the command said it was complete (exit status 0)
    import signal

    from driftproof import outputs

    mode = outputs.open_mode

    def termed(fd: int) -> None:
        signal.raise_signal(signal.SIGTERM)
        mode(fd)

    monkeypatch.setattr(outputs, "open_mode", termed)
    out = tmp_path / "o"
    code, said, err = run(_command(where, shared, receipt, out), capsys)
    assert (code, said, err) == (130, "", "\ninterrupted\n")
    assert not out.exists() or list(out.iterdir()) == []
