"""``badge --out-dir`` names its files after the receipt's file name: a name holding a character
that cannot be shown (a control character) is refused, nothing written; given paths still work."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from factories import case, make_receipt

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
