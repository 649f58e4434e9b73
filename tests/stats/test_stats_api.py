"""The public API of driftproof.stats: ``__all__`` lists exactly the public names (httpx's test)."""

from __future__ import annotations

import types

import driftproof.stats as stats


def test_all_is_the_sorted_public_names() -> None:
    """Every public name of the package (submodules aside) is in ``__all__``, and nothing else."""
    public = sorted(
        n
        for n, v in vars(stats).items()
        if not n.startswith("_") and n != "annotations" and not isinstance(v, types.ModuleType)
    )
    assert sorted(stats.__all__) == public


def test_shared_contract_names_are_exported() -> None:
    from driftproof.pages.comparison import Comparison, compare_receipts  # noqa: F401
    from driftproof.stats import (  # noqa: F401
        Band,
        CaseVerdict,
        Reading,
        ReceiptBand,
        arm_band,
        band_of_scores,
        case_verdict,
        receipt_band,
        receipt_reading,
        suite_lift,
        value_per_1k,
        verdict_refusal,
    )
