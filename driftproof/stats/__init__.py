"""The statistical core (method, "The drift verdict rule"; D-1 to D-10, D-14).

Pure functions of plain data or the receipt model, returning frozen dataclasses; no file,
network or clock access. One module per concept; ``planning`` serves ``driftproof plan``.
"""

from driftproof.stats.band import (
    Band,
    arm_band,
    band_of_scores,
    band_source_of,
    case_bands,
    judge_scale,
    mean_delta,
)
from driftproof.stats.codes import Refusal, Status, VerdictCode
from driftproof.stats.lift import suite_lift, value_per_1k
from driftproof.stats.moments import mean_of, mean_sd, mean_var
from driftproof.stats.reading import (
    Reading,
    lift_refusal,
    no_verdict,
    receipt_reading,
    unrecorded_arms,
    verdict_refusal,
)
from driftproof.stats.receipt_band import ReceiptBand, receipt_band, receipt_band_of
from driftproof.stats.underpowered import draws_needed, resolution, se_diff
from driftproof.stats.unmeasured import arms_measured_nothing, lost_causes
from driftproof.stats.verdict import CaseVerdict, case_verdict, verdict_words

__all__ = [
    "Band",
    "CaseVerdict",
    "Reading",
    "ReceiptBand",
    "Refusal",
    "Status",
    "VerdictCode",
    "arm_band",
    "arms_measured_nothing",
    "band_of_scores",
    "band_source_of",
    "case_bands",
    "case_verdict",
    "draws_needed",
    "judge_scale",
    "lift_refusal",
    "lost_causes",
    "mean_delta",
    "mean_of",
    "mean_sd",
    "mean_var",
    "no_verdict",
    "receipt_band",
    "receipt_band_of",
    "receipt_reading",
    "resolution",
    "se_diff",
    "suite_lift",
    "unrecorded_arms",
    "value_per_1k",
    "verdict_refusal",
    "verdict_words",
]
