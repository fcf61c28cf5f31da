"""Results of the workload kernels: per-offer arrays, exclusion reasons and missing-input flags.

Part of :mod:`engine.workload`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, IntFlag

import numpy as np

from engine.assumptions import Assumption
from engine.workload.data import MIG_PROFILES


class ExclusionReason(IntEnum):
    """Why an offer is not priced; the first reason that applies (lowest code) is reported."""

    INCLUDED = 0
    SPEC_MISSING = 1
    DOES_NOT_FIT = 2
    NOT_ENOUGH_GPUS_PER_NODE = 3
    GPUS_PER_NODE_NOT_STATED = 4
    INTRA_NODE_NOT_STATED = 5
    NO_INTER_NODE_FABRIC = 6
    INTER_NODE_NOT_STATED = 7
    INTER_BANDWIDTH_NOT_STATED = 8


#: Human text per :class:`ExclusionReason` code (index = code).
EXCLUSION_REASONS: tuple[str, ...] = (
    "",
    "GPU specification incomplete in the catalog (peak TFLOP/s, memory or bandwidth missing)",
    "does not fit in GPU memory (no parallel layout holds the training state and activations, or the model and "
    "one sequence's KV cache)",
    "not enough GPUs per node for the tensor-parallel group",
    "GPUs per node not stated in the catalog: multi-GPU job not priced",
    "no intra-node interconnect stated in the catalog: multi-GPU job not priced",
    "no inter-node fabric (single-node product): multi-node job not possible",
    "no inter-node fabric stated in the catalog: multi-node job not priced",
    "inter-node bandwidth per GPU not stated in the catalog: multi-node job not priced",
)


class MissingInput(IntFlag):
    """Why an output of a *priced* offer is NaN (flags; an excluded offer has an :class:`ExclusionReason`)."""

    NONE = 0
    PRICE = 1  # cost outputs NaN
    TDP = 2  # energy outputs NaN
    GRID_INTENSITY = 4  # emissions NaN


MISSING_INPUT_TEXT: dict[MissingInput, str] = {
    MissingInput.PRICE: "cost not computed (no price stated in the catalog)",
    MissingInput.TDP: "energy not computed (no GPU TDP stated)",
    MissingInput.GRID_INTENSITY: "emissions not computed (no grid intensity)",
}
#: Text shown when an offer has no grid intensity (its ``emissions_kg`` is NaN).
EMISSIONS_NOT_COMPUTED = MISSING_INPUT_TEXT[MissingInput.GRID_INTENSITY]


class Bound(IntEnum):
    """What limits the offer: compute (FLOP/s), memory bandwidth, or communication."""

    UNDETERMINED = -1
    COMPUTE = 0
    MEMORY = 1
    COMMUNICATION = 2


@dataclass(frozen=True)
class WorkloadResult:
    """Outputs per offer, each an array of shape ``(n_offers,)``; NaN where excluded (with the reason in
    ``exclusion_code``) or where an input is missing (with the reason in ``missing_code``)."""

    time_hours: np.ndarray  # wall-clock [h]
    gpu_hours: np.ndarray  # [GPU-h]
    cost: np.ndarray  # in `currency`, NaN when the offer has no price
    currency: str
    energy_kwh: np.ndarray  # all-in facility energy: GPU + server share, x PUE, + idle reserved GPUs [kWh]
    emissions_kg: np.ndarray  # [kgCO2e] operational (+ embodied when given), NaN without grid intensity
    bound: np.ndarray  # Bound codes (int8)
    communication_share_fraction: np.ndarray  # share of a step the network is busy [-]
    excluded: np.ndarray  # bool
    exclusion_code: np.ndarray  # ExclusionReason codes (int8)
    missing_code: np.ndarray  # MissingInput flags (int8), 0 for excluded offers
    assumed_default: np.ndarray  # bool: a missing catalog value was replaced by a stated default
    uses_fp8: np.ndarray  # bool
    missing_fabric_policy: str
    assumptions: tuple[Assumption, ...]

    @property
    def cost_eur(self) -> np.ndarray:
        """``cost`` when the prices were in EUR (raises otherwise)."""
        if self.currency != "EUR":
            raise ValueError(f"costs are in {self.currency}, not EUR; use .cost")
        return self.cost

    def exclusion_text(self) -> np.ndarray:
        """Reason text per offer ("" when priced), object array."""
        return np.asarray(EXCLUSION_REASONS, dtype=object)[self.exclusion_code]

    def missing_text(self) -> np.ndarray:
        """Why a priced offer has NaN outputs ("" when none), object array; excluded offers give their exclusion."""
        out = self.exclusion_text().copy()
        for flag, text in MISSING_INPUT_TEXT.items():
            has = (self.missing_code & int(flag)) != 0
            out[has] = [f"{t}; {text}" if t else text for t in out[has]]
        return out

    def bound_text(self) -> np.ndarray:
        """``"compute"`` / ``"memory"`` / ``"communication"`` / ``""`` per offer, object array."""
        names = np.array(["compute", "memory", "communication", ""], dtype=object)
        return names[self.bound]  # -1 indexes the last entry, ""


@dataclass(frozen=True)
class LayoutChoice:
    """One layout per offer and its step-time breakdown (the chosen one or the runner-up), shape ``(n_offers,)``;
    NaN where the offer is excluded or (runner-up) no second layout fits."""

    tensor_parallel_degree: np.ndarray
    pipeline_parallel_degree: np.ndarray
    data_parallel_degree: np.ndarray
    virtual_pipeline_stages: np.ndarray
    shard_code: np.ndarray  # 0 none, 1 optimizer (ZeRO-1), 2 full (ZeRO-3/FSDP)
    recompute_share_fraction: np.ndarray  # share of layers fully recomputed [-]
    memory_per_gpu_gb: np.ndarray
    step_time_s: np.ndarray
    compute_time_s: np.ndarray  # incl. recomputation
    bubble_time_s: np.ndarray
    exposed_tp_s: np.ndarray
    exposed_cp_s: np.ndarray
    exposed_pp_s: np.ndarray
    exposed_dp_s: np.ndarray

    @classmethod
    def of(cls, model: object, nan_x: np.ndarray) -> LayoutChoice:
        """From a gathered :class:`engine.workload.layout.StepModel`; ``nan_x`` is NaN on excluded offers."""
        m = model
        return cls(*(np.asarray(x, dtype=float) + nan_x for x in (
            m.tp, m.pp, m.dp, m.v, m.shard, m.recompute_share, m.memory_bytes / 1e9, m.step_s,  # type: ignore[attr-defined]
            m.compute_s, m.bubble_s, m.e_tp, m.e_cp, m.e_pp, m.e_dp)))  # type: ignore[attr-defined]


@dataclass(frozen=True)
class TrainingResult(WorkloadResult):
    """:class:`WorkloadResult` plus the per-step breakdown, goodput and per-token figures of a training run."""

    training_flop: float  # 6 N D [FLOP] (headline compute)
    model_flop: float  # (6N + 6Lhs) D: incl. causal attention, the MFU numerator [FLOP]
    tensor_parallel_degree: np.ndarray
    pipeline_parallel_degree: np.ndarray
    context_parallel_degree: np.ndarray
    data_parallel_degree: np.ndarray
    full_recompute: np.ndarray  # bool
    micro_batches: np.ndarray  # per pipeline and step
    scaling_efficiency_fraction: np.ndarray  # t_compute / t_step [-]
    exposed_communication_share_fraction: np.ndarray  # exposed communication / t_step [-]
    bubble_fraction: np.ndarray  # pipeline bubble / t_step [-]
    step_time_s: np.ndarray
    compute_time_per_step_s: np.ndarray
    bubble_time_per_step_s: np.ndarray
    communication_time_per_step_s: np.ndarray  # all collectives, hidden or not
    exposed_tp_s: np.ndarray
    exposed_cp_s: np.ndarray
    exposed_pp_s: np.ndarray
    exposed_dp_s: np.ndarray
    data_parallel_bytes_per_gpu: np.ndarray  # gradient bytes each GPU sends per step, 2(k-1)/k N/(TP PP) x bytes
    n_nodes: np.ndarray
    perfect_scaling_time_hours: np.ndarray  # compute only, no bubble/communication/failures [h]
    mfu_fraction: np.ndarray  # model FLOPs / (peak x time), failures excluded
    hfu_fraction: np.ndarray  # hardware FLOPs (incl. recomputation) / (peak x time)
    goodput_fraction: np.ndarray  # useful / wall-clock time (failures, checkpoints, restarts)
    mtbf_hours: np.ndarray  # of the whole job
    checkpoint_interval_s: np.ndarray
    loss_compute_fraction: np.ndarray  # shares of wall-clock time; the four sum to 1
    loss_bubble_fraction: np.ndarray
    loss_communication_fraction: np.ndarray
    loss_failures_fraction: np.ndarray
    tokens_per_s_per_gpu: np.ndarray  # trained tokens per GPU-second, goodput included
    cost_per_million_tokens: np.ndarray  # in `currency`
    energy_j_per_token: np.ndarray  # all-in facility energy per trained token
    gpu_only_energy_kwh: np.ndarray  # busy GPU-hours x GPU draw (no server share, no PUE): a lower bound
    idle_energy_kwh: np.ndarray  # reserved GPUs not used
    embodied_kg: np.ndarray
    layout: LayoutChoice  # the fastest feasible layout (the one priced) with its step-time breakdown
    runner_up: LayoutChoice  # the second fastest feasible layout


@dataclass(frozen=True)
class InferenceResult(WorkloadResult):
    """:class:`WorkloadResult` for ``output_tokens_total`` tokens plus throughput, latency and capacity."""

    tensor_parallel_degree: np.ndarray  # GPUs per replica
    replicas: np.ndarray  # replicas needed for the request rate (1 without a rate)
    concurrency: np.ndarray  # sequences in flight per replica
    kv_capacity_sequences: np.ndarray  # sequences whose KV cache fits next to the weights
    tokens_per_s_per_gpu: np.ndarray  # generated tokens
    request_latency_s: np.ndarray  # mean: TTFT + output_tokens x TPOT
    time_to_first_token_s: np.ndarray
    time_per_output_token_s: np.ndarray
    ttft_p50_s: np.ndarray  # at the request rate (NaN without one)
    ttft_p90_s: np.ndarray
    ttft_p99_s: np.ndarray
    latency_p50_s: np.ndarray
    latency_p90_s: np.ndarray
    latency_p99_s: np.ndarray
    cost_per_million_tokens: np.ndarray  # in `currency`, at the target utilisation or the request rate
    energy_kwh_per_million_tokens: np.ndarray
    emissions_kg_per_million_tokens: np.ndarray
    energy_j_per_token: np.ndarray  # all-in (server share, PUE)
    tokens_per_joule: np.ndarray  # = 1 / energy_j_per_token
    arithmetic_intensity_flop_per_byte: np.ndarray  # decode step
    machine_balance_flop_per_byte: np.ndarray  # peak FLOP/s / peak B/s
    mig_profile_code: np.ndarray  # index into MIG_PROFILES, -1 = none
    mig_instances_per_gpu: np.ndarray
    mig_tokens_per_s_per_gpu: np.ndarray  # all instances of one GPU together
    mig_cost_per_million_tokens: np.ndarray

    @property
    def cost_eur_per_million_tokens(self) -> np.ndarray:
        """``cost_per_million_tokens`` when the prices were in EUR (raises otherwise)."""
        if self.currency != "EUR":
            raise ValueError(f"costs are in {self.currency}, not EUR; use .cost_per_million_tokens")
        return self.cost_per_million_tokens

    @property
    def mig_cost_eur_per_million_tokens(self) -> np.ndarray:
        """``mig_cost_per_million_tokens`` in EUR (raises for another currency)."""
        if self.currency != "EUR":
            raise ValueError(f"costs are in {self.currency}, not EUR")
        return self.mig_cost_per_million_tokens

    def mig_profile_text(self) -> np.ndarray:
        """MIG profile name per offer ("" = none), object array."""
        names = np.array([p.name for p in MIG_PROFILES] + [""], dtype=object)
        return names[self.mig_profile_code]
