"""A receipt page's "Context, beyond the method" panel names each figure, as ``view`` does
("paired interval", "exact paired test"). The page named the exact paired test only, so an A/A
calibration's panel opened on a bare "n/a, because the lift by case is unavailable", saying
n/a of nothing a reader could name."""

from __future__ import annotations

import json
import re

from factories import case, make_receipt
from receipt_docs import seal_document
from site_fixtures import REPO

from driftproof.receipt import Receipt, parse_receipt, read_receipt
from driftproof.site.html import page_env, receipt_files


def receipt_files_of(name: str, r: Receipt) -> str:
    """The receipt page of ``r`` published as ``name``."""
    return receipt_files(name, r, b"", [], page_env())[f"receipts/{name}/index.html"].decode()


def _context(page: str) -> list[str]:
    """The paragraphs of the page's context panel, tags left out."""
    panel = page.split("Context, beyond the method", 1)[1].split("</details>", 1)[0]
    return [re.sub(r"<[^>]+>", "", p) for p in re.findall(r"<p>(.*?)</p>", panel)]


def test_an_aa_calibrations_context_says_which_figure_is_not_available() -> None:
    # the same arm twice (an A/A calibration): no lift, so neither figure is worked out
    doc = make_receipt([case("c1", [0.60, 0.61, 0.62], [0.54, 0.55, 0.56])])
    doc["run"]["aa"] = True
    r = parse_receipt(json.dumps(seal_document(doc)).encode(), "aa.json")
    assert _context(receipt_files_of("aa", r)) == [
        "Paired interval: n/a, because the lift by case is unavailable",
        "Exact paired test: n/a, because the lift by case is unavailable",
    ]


def test_a_receipts_paired_interval_is_named_like_its_exact_test() -> None:
    # Report 004's receipt: one case, so no spread across cases for an interval (view prints
    # "paired interval: unavailable: one included case: no spread across cases")
    name = "claude-plugin-eval-probe-plugin-8955eb63"
    page = receipt_files_of(name, read_receipt(REPO / "receipts" / f"{name}.json"))
    assert _context(page)[0] == (
        "Paired interval: unavailable: one included case: no spread across cases"
    )
