"""Helpers shared by the training and the inference kernels (policy check, exclusion codes, precision).

Part of :mod:`engine.workload`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.assumptions import Assumption
from engine.fast import flag_codes
from engine.workload.inputs import MISSING_FABRIC_POLICIES, EngineAssumptions
from engine.workload.offers import OfferArrays
from engine.workload.results import MissingInput


def _check_policy(missing_fabric: str) -> bool:
    if missing_fabric not in MISSING_FABRIC_POLICIES:
        raise ValueError(f"missing_fabric must be one of {MISSING_FABRIC_POLICIES}, got {missing_fabric!r}")
    return missing_fabric == "assume_default"


def _missing_code(excluded: np.ndarray, price: np.ndarray, tdp: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """:class:`MissingInput` flags of the priced offers (int8)."""
    return flag_codes([(np.isnan(price), MissingInput.PRICE), (np.isnan(tdp), MissingInput.TDP),
                       (np.isnan(grid), MissingInput.GRID_INTENSITY)], keep=~excluded)


def _effective_tflops(
    is_fp8_ready: bool, o: OfferArrays, mfu_bf16: float, mfu_fp8: float
) -> tuple[np.ndarray, np.ndarray]:
    """FP8 used per offer (supported *and* stack ready) and achieved TFLOP/s = peak x utilisation."""
    if not is_fp8_ready:
        return np.zeros(o.n_offers, dtype=bool), o.bf16_tflops * mfu_bf16
    fp8 = np.fmax(o.fp8_tflops, 0.0)  # NaN (unsupported) -> 0
    uses_fp8 = fp8 > 0
    bf16_eff = o.bf16_tflops * mfu_bf16
    return uses_fp8, bf16_eff + uses_fp8 * (fp8 * mfu_fp8 - bf16_eff)


def _peak_tflops(is_fp8_ready: bool, o: OfferArrays) -> tuple[np.ndarray, np.ndarray]:
    """FP8 used per offer and the peak TFLOP/s at the chosen precision."""
    uses_fp8, peak = _effective_tflops(is_fp8_ready, o, 1.0, 1.0)
    return uses_fp8, peak


def _context(policy: str, a: EngineAssumptions, extra: Sequence[Assumption]) -> tuple[Assumption, ...]:
    return (*a.table(), Assumption("missing_fabric", policy, "-", "caller's policy for values the catalog does not state"),
            *extra)
