"""The committed site against the site as it was before issue 35 (its files' sha256 in
``data/site-baseline.sha256``, search index left out): byte-identical but for the pages
listed here, each with why it changed."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from site_fixtures import REPO

from driftproof.site import build_site

pytestmark = pytest.mark.slow

BASELINE = Path(__file__).parent / "data" / "site-baseline.sha256"

#: Pages that differ from the baseline, and why.
CHANGED = {
    # receipt schema 0.16 (a new version, listed and served)
    "receipt-spec/index.html": "schema 0.16",
    "spec/0.16/receipt.schema.json": "schema 0.16",
    "spec/SHA256SUMS": "schema 0.16",
    "spec/index.json": "schema 0.16",
    "spec/receipt.schema.json": "schema 0.16",
    "spec/versions/index.html": "schema 0.16",
}


def test_the_committed_site_differs_from_the_baseline_only_where_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764374400")  # as `make reports` sets it
    out = tmp_path / "site"
    build_site(REPO / "receipts", REPO / "reports", out, config_file=REPO / "mkdocs.yml")
    before = {}
    for line in BASELINE.read_text(encoding="utf-8").splitlines():
        digest, path = line.split("  ", 1)
        before[path] = digest
    now = {
        p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in out.rglob("*")
        if p.is_file() and not p.relative_to(out).as_posix().startswith("pagefind/")
    }
    differ = {p for p in before.keys() | now.keys() if before.get(p) != now.get(p)}
    assert sorted(differ) == sorted(CHANGED)
