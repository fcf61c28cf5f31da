"""Helpers shared by the training and the inference kernels (policy check, exclusion codes, precision).

Part of :mod:`engine.workload`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.assumptions import Assumption
from engine.units import HBM_BYTES_PER_GB
from engine.workload.inputs import MISSING_FABRIC_POLICIES, EngineAssumptions
from engine.workload.offers import OfferArrays
from engine.workload.results import MissingInput


def check_policy(missing_fabric: str) -> bool:
    """Whether the missing-fabric policy assumes the stated defaults; raises ValueError on an unknown policy."""
    if missing_fabric not in MISSING_FABRIC_POLICIES:
        raise ValueError(f"missing_fabric must be one of {MISSING_FABRIC_POLICIES}, got {missing_fabric!r}")
    return missing_fabric == "assume_default"


def missing_input_code(excluded: np.ndarray, price: np.ndarray, tdp: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """:class:`MissingInput` flags of the priced offers (int8): the sum of each missing input's bit, 0 where
    excluded."""
    code = (np.where(np.isnan(price), MissingInput.PRICE, 0) + np.where(np.isnan(tdp), MissingInput.TDP, 0)
            + np.where(np.isnan(grid), MissingInput.GRID_INTENSITY, 0))
    return np.where(excluded, 0, code).astype(np.int8)


def first_reason_codes(n: int, masks: Sequence[tuple[int, np.ndarray | bool]]
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The lowest applicable reason code per offer (0 = none, int8), the flags ``code != 0``, and an array that is
    NaN where a reason applies and 0 elsewhere (added to outputs to blank them)."""
    code = np.zeros(n, dtype=np.int8)
    for reason, mask in masks:
        code = np.where(mask & ((code == 0) | (reason < code)), np.int8(reason), code)
    flagged = code != 0
    return code, flagged, np.where(flagged, np.nan, 0.0)


def effective_tflops(
    is_fp8_ready: bool, o: OfferArrays, mfu_bf16: float, mfu_fp8: float
) -> tuple[np.ndarray, np.ndarray]:
    """FP8 used per offer (supported *and* stack ready) and achieved TFLOP/s = peak x utilisation."""
    if not is_fp8_ready:
        return np.zeros(o.n_offers, dtype=bool), o.bf16_tflops * mfu_bf16
    fp8 = np.fmax(o.fp8_tflops, 0.0)  # NaN (unsupported) -> 0
    uses_fp8 = fp8 > 0
    bf16_eff = o.bf16_tflops * mfu_bf16
    return uses_fp8, bf16_eff + uses_fp8 * (fp8 * mfu_fp8 - bf16_eff)


def peak_tflops_used(is_fp8_ready: bool, o: OfferArrays) -> tuple[np.ndarray, np.ndarray]:
    """FP8 used per offer and the peak TFLOP/s at the chosen precision."""
    uses_fp8, peak = effective_tflops(is_fp8_ready, o, 1.0, 1.0)
    return uses_fp8, peak


#: How an offer's stated memory becomes bytes (engine.adapters.hbm_bytes_factor), reported with every result.
MEMORY_READING = Assumption(
    "hbm_bytes_per_gb", HBM_BYTES_PER_GB, "B/GB",
    "HBM sizes are binary: CUDA deviceQuery reports 85,045,477,376 bytes for an H100 80GB HBM3 (github.com/thamada/"
    "nvidia-smi nvsim/H100SXMx8_deviceQuery.py); GDDR (with ECC about its nominal size) and an unstated memory type: "
    "1e9 bytes per GB")


def assumptions_with_policy(policy: str, a: EngineAssumptions, extra: Sequence[Assumption]) -> tuple[Assumption, ...]:
    """The assumptions a result reports: the engine's, the missing-fabric policy, then ``extra``."""
    return (*a.table(), Assumption("missing_fabric", policy, "-", "caller's policy for values the catalog does not state"),
            MEMORY_READING, *extra)

