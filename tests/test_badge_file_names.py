"""``badge --out-dir`` names its files after the receipt's file name: a name holding a character
that cannot be shown (a control character) is refused, nothing written; given paths still work."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from factories import case, make_receipt, run_main

from driftproof.cli.badge import badge

CASES = [case("c1", [0.80, 0.85, 0.90], [0.50, 0.55, 0.60])]


def test_a_receipt_name_with_a_control_character_names_no_badge_file(tmp_path: Path) -> None:
    # found: "a\x1b[31mb.json" gave out/a\x1b[31mb.svg, an escape sequence in a file name
    src = tmp_path / "a\x1b[31mb.json"
    src.write_text(json.dumps(make_receipt(CASES)), encoding="utf-8")
    out = tmp_path / "out"
    res = CliRunner().invoke(badge, [str(src), "--out-dir", str(out)])
    assert res.exit_code == 2 and not out.exists()
    assert "the receipt's file name holds a character that cannot be shown" in res.output
    assert "\x1b" not in res.output
    # every file named by a path given: the receipt's name names none of them
    paths = [str(tmp_path / n) for n in ("b.json", "b.svg", "b.details.json")]
    args = ["--json", paths[0], "--svg", paths[1], "--details", paths[2]]
    res = CliRunner().invoke(badge, [str(src), "--out-dir", str(out), *args])
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [src.name, "b.json", "b.svg", "b.details.json"]
    )


def test_a_receipt_name_too_long_for_its_badge_files_is_refused_as_run_refuses_one(
    tmp_path: Path, capsys
) -> None:
    # found: a 245-byte receipt name gave a raw "File name too long" from the write of
    # <name>.details.json's temporary copy; run and regrade say the longest name it may have
    import os

    most = os.pathconf(tmp_path, "PC_NAME_MAX")  # 255 on most file systems
    src = tmp_path / f"{'b' * (most - 15)}.json"  # its .json badge alone: 14 bytes too long
    src.write_text(json.dumps(make_receipt(CASES)), encoding="utf-8")
    out = tmp_path / "out"
    code, _, err = run_main(["badge", str(src), "--out-dir", str(out)], capsys)
    first = out / src.name
    said = f"--out-dir {first}: the name is {most - 10} bytes; the files written beside it need it "
    said += f"at most {most - 14} bytes long (nothing was written)"
    assert (code, err, out.exists()) == (2, f"error: {said}\n", False)
