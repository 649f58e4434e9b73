"""An --out whose name leaves no room for the files a run writes beside it (its temporary copy
".<name>.XXXXXXXX.tmp", and with --keep-transcripts ".<name>.transcripts-XXXXXXXX") is refused
before any call. Before, every draw was made and paid for, then the receipt could not be written
("File name too long"), at every resume alike: the journal, tied to that name, could never be
sealed."""

from __future__ import annotations

import json

import pytest
from factories import run_main
from run_helpers import SUITE, run_args


@pytest.mark.parametrize(
    ("length", "extra", "refused"),
    [(241, (), False), (242, (), True), (233, ("--keep-transcripts",), False)]
    + [(234, ("--keep-transcripts",), True)],
)
def test_an_out_name_too_long_for_its_siblings_is_refused_before_any_call(
    tmp_path, suite_file, skill_file, capsys, length, extra, refused
):
    # a folder takes names of 255 bytes: 14 more than the name for ".<name>.XXXXXXXX.tmp", 22 for
    # ".<name>.transcripts-XXXXXXXX"
    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:1]}))
    out = tmp_path / ("r" * (length - 5) + ".json")
    argv = [*run_args(suite_file, skill_file)[:7], "stub", "--out", str(out), *extra]
    code, _, err = run_main(argv, capsys)
    if not refused:
        assert code == 0, err
        return
    most = 241 if not extra else 233
    assert (code, err) == (
        2,
        f"error: --out {out}: the name is {length} bytes; the files written beside it need it "
        f"at most {most} bytes long (nothing was written)\n",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["SKILL.md", "suite.json"]
