"""``import --force`` never writes a receipt onto the file it reads (nor a link to it)."""

from __future__ import annotations

import json
import os

import pytest
from factories import run_main
from test_summary_json import DOC

#: The receipt summary-json's import of DOC writes: ``summary-<skill>-<8 hex>.json``.
NAME = "summary-commit-writer-656ffa8b.json"


@pytest.mark.parametrize("how", ["same name", "hard link", "symbolic link"])
def test_a_receipt_named_as_the_source_or_a_link_to_it_is_refused(tmp_path, capsys, how):
    # Found: `import summary-json X --out-dir . --force`, where X is the name of the receipt it
    # writes (or a link to the source is), replaced the source; run, regrade, export and badge
    # refuse an output on an input
    source = tmp_path / "in.json"
    source.write_text(json.dumps(DOC))
    out = tmp_path / NAME
    if how == "same name":
        source = source.rename(out)
    else:
        (os.link if how == "hard link" else os.symlink)(source, out)
    before = source.read_bytes()
    argv = ["import", "summary-json", str(source), "--out-dir", str(tmp_path), "--force"]
    code, _, err = run_main(argv, capsys)
    said = f"error: --out-dir {out} is the source it reads; choose another path (nothing was "
    said += "written)\n"
    assert (code, err) == (2, said)
    assert source.read_bytes() == before and out.read_bytes() == before
