"""Training time and inference throughput of one workload on every offer, in one vectorised call.

Pages build an :class:`OfferArrays` once (shape ``(n_offers,)`` per field, see
:func:`offer_arrays_from_records`), describe the workload with a pydantic model
(:class:`TrainingJob` or :class:`InferenceService`, optionally from a :data:`MODEL_PRESETS` entry)
and call :func:`price_training` or :func:`price_inference`. The result holds one array per output
and the list of assumptions used, each with its source.

Model (domain-model.md sections 1-4, 7)
---------------------------------------
* **Training.** Compute C = 6 N D (Kaplan et al. 2020, s2.1). Per optimizer step of ``B`` tokens,
  compute time ``t_c = 6 N B / (n_gpu F_peak MFU)``; the data-parallel gradient all-reduce
  (:mod:`engine.network`, hierarchical ring) takes ``t_comm``; at most the backward pass
  (4 of the 6 N D, Kaplan) can hide it and only the overlap fraction phi of it is hidden:
  ``exposed = max((1 - phi) t_comm, t_comm - t_backward)``. Scaling efficiency
  ``E = t_c / (t_c + exposed)``; wall-clock ``= C / (n_gpu F_peak MFU E)``. FP8 peak is used only
  when the GPU has one *and* the job says the software stack is FP8-ready.
* **Inference.** Static batches of ``B`` sequences on a tensor-parallel group of ``tp`` GPUs:
  prefill ``max(2 N P B / (tp F MFU), bytes / (tp BW MBU))``; each decode step
  ``max(2 N B / (tp F MFU), (W + B KV) / (tp BW MBU))`` (roofline, Williams et al. 2009).
  Request latency = TTFT + output_tokens x TPOT; throughput per GPU = B O / latency / tp.
* **Energy and emissions.** ``energy_kwh = gpu_hours x TDP x power_fraction x PUE``;
  ``emissions_kg = energy_kwh x grid_intensity / 1000``; NaN grid intensity gives NaN emissions
  (:data:`EMISSIONS_NOT_COMPUTED`).

Conventions: the package's (:mod:`engine`): positive EUR, units in names, NaN for "not known".
Excluded offers carry an integer :class:`ExclusionReason` code (text in :data:`EXCLUSION_REASONS`)
and NaN outputs. An offer without a price is *not* excluded: its cost is NaN.

Performance (``bench/bench_workload.py``: ~3-4 ms for 100,000 offers on a 2-core VM): the kernels use
arithmetic instead of ``np.where``/masked assignment (an unsorted mask costs ~10x a multiply), the
catalog-only masks are computed once in :class:`OfferArrays`, and the float outputs of one call are
rows of one contiguous block (views; copy one before resizing it).

References
----------
.. [1] J. Kaplan et al., "Scaling Laws for Neural Language Models", arXiv:2001.08361, 2020.
.. [2] EleutherAI, "Transformer Math 101", https://blog.eleuther.ai/transformer-math/
.. [3] H. Touvron et al., "Llama 2", arXiv:2307.09288, 2023; model card
   https://github.com/meta-llama/llama/blob/main/MODEL_CARD.md
.. [4] Llama Team, "The Llama 3 Herd of Models", arXiv:2407.21783, 2024.
.. [5] T. Brown et al., "Language Models are Few-Shot Learners", arXiv:2005.14165, 2020.
.. [6] S. Williams, A. Waterman, D. Patterson, "Roofline", CACM 52(4), 2009, doi:10.1145/1498765.1498785.
.. [7] NVIDIA Multi-Instance GPU User Guide, "Supported MIG Profiles",
   https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html
.. [8] V. Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models",
   arXiv:2205.05198, 2022.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, Literal, NamedTuple

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine import network
from engine.network import InterNodeKind, IntraNodeKind

MissingFabricPolicy = Literal["exclude", "assume_default"]
MISSING_FABRIC_POLICIES: tuple[str, ...] = ("exclude", "assume_default")

#: Text shown when an offer has no grid intensity (its ``emissions_kg`` is NaN).
EMISSIONS_NOT_COMPUTED = "emissions not computed (no grid intensity)"


# --------------------------------------------------------------------------------------------------
# Sourced default tables
# --------------------------------------------------------------------------------------------------

#: Carbon intensity of electricity generation by country, ISO 3166-1 alpha-2 -> [gCO2e/kWh], year 2021.
#: Source: CodeCarbon's ``codecarbon/data/private_infra/global_energy_mix.json`` (field
#: ``carbon_intensity``, built from the Our World in Data energy dataset), read at commit
#: 0963f17527d0a89262eb849946ca7af4d0f9434c of https://github.com/mlco2/codecarbon . Values are
#: copied, not rounded. They are annual national averages: users can override any of them
#: (``grid_intensity_by_country`` in :func:`offer_arrays_from_records`) or supply a per-offer value.
GRID_INTENSITY_G_PER_KWH_BY_COUNTRY: dict[str, float] = {
    # EU-27
    "AT": 147.573, "BE": 156.922, "BG": 354.334, "HR": 210.979, "CY": 599.609, "CZ": 405.589,
    "DK": 221.416, "EE": 481.224, "FI": 145.541, "FR": 67.39, "DE": 365.477, "GR": 353.339,
    "HU": 233.037, "IE": 363.608, "IT": 340.794, "LV": 223.932, "LT": 244.604, "LU": 186.992,
    "MT": 441.441, "NL": 388.702, "PL": 660.122, "PT": 219.053, "RO": 255.877, "SK": 169.589,
    "SI": 238.614, "ES": 193.863, "SE": 45.817,
    # EEA / Europe outside the EU
    "NO": 27.55, "IS": 28.557, "CH": 47.101, "GB": 268.329,
    # Other regions present in the catalog
    "US": 379.26, "CA": 128.461, "JP": 478.545,
}
GRID_INTENSITY_SOURCE = (
    "CodeCarbon global_energy_mix.json (Our World in Data energy data, year 2021), "
    "github.com/mlco2/codecarbon @ 0963f17527d0a89262eb849946ca7af4d0f9434c"
)


class MigProfile(NamedTuple):
    """One MIG GPU-instance profile of the 7-compute-slice / 8-memory-slice GPUs (A100/H100 80 GB)."""

    name: str
    compute_slices: int
    memory_slices: int
    placements: tuple[int, ...]


#: MIG GPU-instance profiles with their placements on the 8 memory slices, named as on an 80 GB
#: A100/H100. Placements are the ``nvidia-smi mig -lgipp`` output on H100 ({0..6}:1, {0,2,4,6}:2,
#: {0,2,4}:2, {0,4}:4, {0}:4, {0}:8) and the memory / SM fractions of the MIG User Guide
#: "Supported MIG Profiles" tables (1/8, 2/8, 2/8, 4/8, 4/8, full memory; 1/7, 1/7, 2/7, 3/7, 4/7,
#: 7/7 SMs). The ``+me`` media profile is omitted (same geometry as 1g.10gb, one per GPU).
MIG_PROFILES: tuple[MigProfile, ...] = (
    MigProfile("1g.10gb", 1, 1, (0, 1, 2, 3, 4, 5, 6)),
    MigProfile("1g.20gb", 1, 2, (0, 2, 4, 6)),
    MigProfile("2g.20gb", 2, 2, (0, 2, 4)),
    MigProfile("3g.40gb", 3, 4, (0, 4)),
    MigProfile("4g.40gb", 4, 4, (0,)),
    MigProfile("7g.80gb", 7, 8, (0,)),
)
MIG_PROFILE_BY_NAME: dict[str, MigProfile] = {p.name: p for p in MIG_PROFILES}
#: The "balanced" layout of NVIDIA mig-parted's default config (E7).
MIG_BALANCED_LAYOUT: tuple[str, ...] = ("1g.10gb", "1g.10gb", "2g.20gb", "3g.40gb")
_MIG_COMPUTE_SLICES = 7
_MIG_MEMORY_SLICES = 8


def mig_layout_fits(profiles: Sequence[str]) -> bool:
    """Whether the MIG profiles can be created together on one GPU.

    A layout fits when every instance gets one of its placements without overlapping memory slices
    and the compute slices add up to at most 7 (exhaustive search; layouts have at most 7 entries).

    Examples
    --------
    >>> mig_layout_fits(MIG_BALANCED_LAYOUT)
    True
    >>> mig_layout_fits(["3g.40gb", "3g.40gb", "1g.10gb"])
    False
    """
    items = sorted((MIG_PROFILE_BY_NAME[p] for p in profiles), key=lambda p: -p.memory_slices)
    if sum(p.compute_slices for p in items) > _MIG_COMPUTE_SLICES:
        return False

    def place(i: int, used: int) -> bool:
        if i == len(items):
            return True
        p = items[i]
        for start in p.placements:
            mask = ((1 << p.memory_slices) - 1) << start
            if start + p.memory_slices <= _MIG_MEMORY_SLICES and not used & mask and place(i + 1, used | mask):
                return True
        return False

    return place(0, 0)


def mig_max_instances(profile: str) -> int:
    """Most instances of one MIG profile that fit on one GPU (from :func:`mig_layout_fits`).

    Examples
    --------
    >>> [mig_max_instances(p.name) for p in MIG_PROFILES]
    [7, 4, 3, 2, 1, 1]
    """
    k = 0
    while mig_layout_fits([profile] * (k + 1)):
        k += 1
    return k


# Profiles the inference kernel considers, in order: the first whose memory holds the model wins
# (most instances per GPU). 4g.40gb and 7g.80gb give one instance: no gain over the whole GPU.
_MIG_CANDIDATES: tuple[MigProfile, ...] = (
    MIG_PROFILE_BY_NAME["1g.10gb"], MIG_PROFILE_BY_NAME["1g.20gb"], MIG_PROFILE_BY_NAME["3g.40gb"],
)
_MIG_CANDIDATE_INSTANCES = tuple(mig_max_instances(p.name) for p in _MIG_CANDIDATES)


# --------------------------------------------------------------------------------------------------
# Model presets
# --------------------------------------------------------------------------------------------------


class ModelPreset(BaseModel):
    """Architecture of a published dense transformer (``n_params`` is the size in the model's name,
    as the published GPU-hour figures use it, except GPT-3 whose Table D.1 count is used)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    n_params: float = Field(gt=0)
    n_layers: int = Field(ge=1)
    d_model: int = Field(ge=1)
    n_heads: int = Field(ge=1)
    n_kv_heads: int = Field(ge=1)
    max_context_tokens: int = Field(ge=1)
    training_tokens_reported: float | None = Field(default=None, gt=0)
    source: str

    @property
    def head_dim(self) -> int:
        """Dimension per attention head, d_model / n_heads [-]."""
        return self.d_model // self.n_heads


_LLAMA2 = (
    "Llama 2: arXiv 2307.09288 (sizes, 4k context, 2.0T tokens, GQA for 70B) and model card; 7B/13B "
    "dimensions from Llama 1 (arXiv 2302.13971 Table 2), which Llama 2 keeps; 70B: 80 layers, 8192, "
    "64 heads, 8 KV heads (meta-llama/Llama-2-70b-hf config.json; domain-model s2)"
)
_LLAMA3 = "Llama 3: arXiv 2407.21783 Table 3 (layers, model dimension, heads, 8 KV heads); 8k context and '15T+' tokens: Llama 3 model card"

#: Presets for well-known dense models. ``training_tokens_reported`` is the published pre-training
#: token count (Llama 3 8B/70B: "over 15T", stored as the lower bound 15e12).
MODEL_PRESETS: dict[str, ModelPreset] = {
    p.name: p
    for p in (
        ModelPreset(name="llama-2-7b", n_params=7e9, n_layers=32, d_model=4096, n_heads=32, n_kv_heads=32,
                    max_context_tokens=4096, training_tokens_reported=2.0e12, source=_LLAMA2),
        ModelPreset(name="llama-2-13b", n_params=13e9, n_layers=40, d_model=5120, n_heads=40, n_kv_heads=40,
                    max_context_tokens=4096, training_tokens_reported=2.0e12, source=_LLAMA2),
        ModelPreset(name="llama-2-70b", n_params=70e9, n_layers=80, d_model=8192, n_heads=64, n_kv_heads=8,
                    max_context_tokens=4096, training_tokens_reported=2.0e12, source=_LLAMA2),
        ModelPreset(name="llama-3-8b", n_params=8e9, n_layers=32, d_model=4096, n_heads=32, n_kv_heads=8,
                    max_context_tokens=8192, training_tokens_reported=15e12, source=_LLAMA3),
        ModelPreset(name="llama-3-70b", n_params=70e9, n_layers=80, d_model=8192, n_heads=64, n_kv_heads=8,
                    max_context_tokens=8192, training_tokens_reported=15e12, source=_LLAMA3),
        ModelPreset(name="llama-3-405b", n_params=405e9, n_layers=126, d_model=16384, n_heads=128, n_kv_heads=8,
                    max_context_tokens=8192, training_tokens_reported=15.6e12,
                    source=_LLAMA3 + "; 405B trained on 15.6T tokens (arXiv 2407.21783 s1)"),
        ModelPreset(name="gpt-3-175b", n_params=174.6e9, n_layers=96, d_model=12288, n_heads=96, n_kv_heads=96,
                    max_context_tokens=2048, training_tokens_reported=300e9,
                    source="GPT-3: arXiv 2005.14165 Table 2.1 (96 layers, d_model 12288, 96 heads, context 2048) "
                           "and Table D.1 (174.6B parameters, 300B tokens)"),
    )
}


# --------------------------------------------------------------------------------------------------
# Inputs: workload and engine assumptions
# --------------------------------------------------------------------------------------------------


class TrainingJob(BaseModel):
    """A dense-transformer pre-training (or fine-tuning) run.

    Examples
    --------
    >>> job = TrainingJob.from_preset("llama-2-7b", n_gpus=256)
    >>> job.training_tokens, job.global_batch_tokens
    (2000000000000.0, 4000000.0)
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    model_name: str = "custom"
    n_params: float = Field(gt=0, le=1e14, description="parameters N (MoE: active per token) [-]")
    training_tokens: float = Field(gt=0, le=1e16, description="tokens D [-]")
    n_gpus: int = Field(ge=1, le=1_000_000, description="GPUs used [-]")
    global_batch_tokens: float = Field(
        default=4e6, gt=0, le=1e9,
        description="tokens per optimizer step [-]; default 4M = Llama 2 (arXiv 2307.09288, T1)",
    )
    is_fp8_ready: bool = Field(default=False, description="the software stack trains in FP8 (Transformer Engine)")
    tensor_parallel_degree: int = Field(default=1, ge=1, le=64, description="TP group, kept inside one node [-]")
    gradient_bytes_per_param: float = Field(
        default=2.0, gt=0, le=8,
        description="bytes per gradient element all-reduced [B]; 2 = BF16 (Transformer Math 101); Llama 3 reduced in FP32 (4)",
    )
    training_state_bytes_per_param: float = Field(
        default=16.0, gt=0, le=64,
        description="weights + grads + AdamW state [B/param]; 16 (Transformer Math 101), activations excluded",
    )
    is_state_sharded: bool = Field(
        default=True, description="ZeRO-3/FSDP: training state divided over all GPUs (else over the TP group only)"
    )

    @model_validator(mode="after")
    def _tp_divides_gpus(self) -> TrainingJob:
        if self.n_gpus % self.tensor_parallel_degree:
            raise ValueError("n_gpus must be a multiple of tensor_parallel_degree")
        return self

    @classmethod
    def from_preset(cls, preset: str, *, n_gpus: int, training_tokens: float | None = None, **kwargs: Any) -> TrainingJob:
        """Job for a :data:`MODEL_PRESETS` model; ``training_tokens`` defaults to the published count."""
        p = MODEL_PRESETS[preset]
        tokens = training_tokens if training_tokens is not None else p.training_tokens_reported
        return cls(model_name=p.name, n_params=p.n_params, training_tokens=tokens, n_gpus=n_gpus, **kwargs)


class InferenceService(BaseModel):
    """An LLM served with static batches of ``batch_size`` sequences per model replica.

    Examples
    --------
    >>> s = InferenceService.from_preset("llama-3-8b", prompt_tokens=512, output_tokens=256, batch_size=16)
    >>> s.kv_cache_bytes_per_token  # 2 x 32 layers x 8 KV heads x 128 x 2 B
    131072.0
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    model_name: str = "custom"
    n_params: float = Field(gt=0, le=1e14, description="parameters [-]")
    n_layers: int = Field(ge=1, le=1000)
    n_kv_heads: int = Field(ge=1, le=1024)
    head_dim: int = Field(ge=1, le=4096)
    weight_bytes_per_param: float = Field(default=2.0, gt=0, le=4, description="2 = BF16/FP16, 1 = FP8/INT8 [B]")
    kv_cache_bytes_per_element: float = Field(default=2.0, gt=0, le=4, description="[B]")
    prompt_tokens: int = Field(ge=1, le=10_000_000, description="input tokens per request [-]")
    output_tokens: int = Field(ge=1, le=10_000_000, description="generated tokens per request [-]")
    batch_size: int = Field(ge=1, le=65_536, description="sequences in flight per replica [-]")
    is_fp8_ready: bool = Field(default=False, description="the serving stack computes in FP8")
    tensor_parallel_degree: int | None = Field(
        default=None, ge=1, le=64, description="GPUs per replica; None = smallest power of two that holds the model"
    )
    target_utilisation_fraction: float = Field(
        default=1.0, gt=0, le=1,
        description="share of paid GPU time serving at the modelled throughput; 1.0 = upper bound (user assumption)",
    )
    output_tokens_total: float = Field(
        default=1e6, gt=0, description="generated tokens to price (default one million) [-]"
    )

    @property
    def kv_cache_bytes_per_token(self) -> float:
        """2 x layers x KV heads x head_dim x bytes (std; domain-model s2) [B/token]."""
        return 2.0 * self.n_layers * self.n_kv_heads * self.head_dim * self.kv_cache_bytes_per_element

    @classmethod
    def from_preset(cls, preset: str, **kwargs: Any) -> InferenceService:
        """Service for a :data:`MODEL_PRESETS` model."""
        p = MODEL_PRESETS[preset]
        return cls(model_name=p.name, n_params=p.n_params, n_layers=p.n_layers, n_kv_heads=p.n_kv_heads,
                   head_dim=p.head_dim, **kwargs)


def _assumed(default: Any, unit: str, source: str, **bounds: Any) -> Any:
    return Field(default, description=source, json_schema_extra={"unit": unit}, **bounds)


class Assumption(NamedTuple):
    """One parameter the engine used: name, value, unit and where the value comes from."""

    name: str
    value: object
    unit: str
    source: str


class EngineAssumptions(BaseModel):
    """Every default the workload engine uses, each with its unit and source (pages may override).

    Examples
    --------
    >>> a = EngineAssumptions()
    >>> a.mfu_bf16_fraction, a.nic_efficiency_fraction
    (0.4, 0.96)
    >>> EngineAssumptions(pue_ratio=1.1).pue_ratio
    1.1
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    mfu_bf16_fraction: float = _assumed(
        0.40, "-", "domain-model T1 single default (Llama 2 implied 37.7-43.5 %); Epoch AI median 0.375 "
        "over 33 runs (epoch-research/training-cost-trends constants.py); end-to-end, so it already "
        "contains the communication those runs exposed", gt=0, le=1)
    mfu_fp8_fraction: float = _assumed(
        0.30, "-", "MFU against the FP8 peak: llm-foundry H100 FP8 14.4-30.3 % (mosaicml/llm-foundry "
        "benchmarking README); NeMo 29.5-39.5 % (SemiAnalysis 2025-08-20); 0.30 = top of the primary range",
        gt=0, le=1)
    overlap_fraction: float = _assumed(
        1.0, "-", "share of the gradient all-reduce hidden behind the backward pass; 'efficient overlap can "
        "almost entirely eliminate this increase' (Korthikanti et al., arXiv 2205.05198); DDP bucketing "
        "(pytorch/pytorch#118421). Never more than the backward time is hidden", ge=0, le=1)
    backward_share_of_compute_fraction: float = _assumed(
        4.0 / 6.0, "-", "backward = 4ND of 6ND (Kaplan et al., arXiv 2001.08361; Transformer Math 101)", gt=0, le=1)
    oversubscription_ratio: float = _assumed(
        1.0, "-", "R of an R:1 fabric; 1 = full bisection as in the Llama 3 3,072-GPU pods (arXiv 2407.21783 s3.3.1)",
        ge=1, le=64)
    use_nvls: bool = _assumed(
        False, "-", "NVLink SHARP all-reduce (480 GB/s busbw on 8x H100, nccl-tests#212); off = ring 370 GB/s")
    nic_efficiency_fraction: float = _assumed(
        network.NIC_EFFICIENCY_FRACTION, "-", "24 GB/s busbw from a 200 Gb/s NIC (NVIDIA/nccl#412, N3)", gt=0, le=1)
    pcie_busbw_gb_per_s: float = _assumed(
        network.PCIE_ALLREDUCE_BUSBW_GB_PER_S, "GB/s",
        "8 GPUs on PCIe Gen5, all-reduce busbw 28 GB/s (NVIDIA/nccl#1639)", gt=0)
    intra_node_latency_s: float = _assumed(
        network.INTRA_NODE_LATENCY_S, "s", "8-byte all-reduce, 8x H100 one node: 33 us (vpbenchmarking, N1)", ge=0)
    inter_node_latency_s: float = _assumed(
        network.INTER_NODE_LATENCY_S, "s", "8-byte all-reduce, 32x H100 over IB: 38 us (vpbenchmarking)", ge=0)
    gradient_bucket_bytes: float = _assumed(
        float(network.DDP_BUCKET_BYTES), "B", "PyTorch DDP bucket_cap_mb = 25 (pytorch/pytorch#118421)", gt=0)
    pue_ratio: float = _assumed(
        1.58, "-", "Uptime Institute industry-average PUE 2023 (1.55-1.59 since 2020); hyperscalers ~1.1", ge=1, le=3)
    gpu_power_fraction_of_tdp: float = _assumed(
        1.0, "-", "GPU drawing its TDP, the Llama 2 emissions method (peak power per GPU; model card)", gt=0, le=1.5)
    inference_mfu_fraction: float = _assumed(
        0.40, "-", "prefill/decode compute efficiency; I3 (TRT-LLM GPT-J, A100 FP16, BS 1, 128 tokens): 12.5 ms "
        "first token implies 0.39 (derived); same as the training default", gt=0, le=1)
    inference_mbu_fraction: float = _assumed(
        0.65, "-", "memory-bandwidth utilisation; I3 A100 FP16 BS 1 measured 111 of 170 tok/s ceiling = 0.65 "
        "(derived; H100 FP8 reached 0.33 in the same source)", gt=0, le=1)
    inference_memory_usable_fraction: float = _assumed(
        0.90, "-", "vLLM default --gpu-memory-utilization 0.9 (vLLM engine arguments)", gt=0, le=1)
    max_tensor_parallel_degree: int = _assumed(
        8, "-", "tensor parallelism kept inside one 8-GPU NVLink node (DGX/HGX H100: 8 GPUs)", ge=1, le=64)
    assumed_gpus_per_node: int = _assumed(
        8, "-", "used only with missing_fabric='assume_default': DGX/HGX H100 and A100 nodes hold 8 GPUs", ge=1)
    assumed_inter_link_gbps_per_gpu: float = _assumed(
        200.0, "Gbit/s", "used only with missing_fabric='assume_default': 200 Gb/s per GPU as in the Llama 2 "
        "clusters ('200 Gbps end-points', arXiv 2307.09288 s2.2.1) and the HDR NIC of N3", gt=0)
    assumed_intra_busbw_gb_per_s: float = _assumed(
        network.PCIE_ALLREDUCE_BUSBW_GB_PER_S, "GB/s",
        "used only with missing_fabric='assume_default': PCIe value (conservative, NVIDIA/nccl#1639)", gt=0)

    def table(self) -> tuple[Assumption, ...]:
        """All parameters as :class:`Assumption` rows, in declaration order."""
        rows = []
        for name, field in type(self).model_fields.items():
            extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
            rows.append(Assumption(name, getattr(self, name), str(extra.get("unit", "-")), field.description or ""))
        return tuple(rows)


DEFAULT_ASSUMPTIONS = EngineAssumptions()


# --------------------------------------------------------------------------------------------------
# Offers
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OfferArrays:
    """Per-offer inputs, each a float (or int code) array of shape ``(n_offers,)``; NaN = unknown.

    Build it once per catalog read (:func:`offer_arrays_from_records`). The engine reads these
    arrays only; it never converts currency or units.
    """

    price_eur_per_gpu_hour: np.ndarray
    bf16_tflops: np.ndarray
    fp8_tflops: np.ndarray  # NaN = no FP8 support
    memory_gb: np.ndarray
    memory_bandwidth_tbps: np.ndarray
    tdp_watts: np.ndarray
    gpus_per_node: np.ndarray  # NaN = not stated
    intra_node_kind: np.ndarray  # IntraNodeKind codes
    intra_bandwidth_gb_per_s: np.ndarray  # all-reduce bus bandwidth inside the node
    inter_node_kind: np.ndarray  # InterNodeKind codes
    inter_bandwidth_gbps_per_gpu: np.ndarray  # Gbit/s, NaN = not stated
    grid_intensity_g_per_kwh: np.ndarray  # gCO2e/kWh, NaN = unknown
    mig_max_instances: np.ndarray  # 0 or NaN = no MIG

    def __post_init__(self) -> None:
        shape = np.shape(self.price_eur_per_gpu_hour)
        for name in self.__dataclass_fields__:
            is_code = name.endswith("_kind")
            arr = np.asarray(getattr(self, name), dtype=np.int8 if is_code else float)
            if arr.ndim == 0:
                arr = np.full(shape, arr.item(), dtype=arr.dtype)
            if arr.shape != shape:
                raise ValueError(f"OfferArrays.{name} has shape {arr.shape}, expected {shape}")
            object.__setattr__(self, name, arr)
        # One meaning for "not stated": an unknown interconnect has no bandwidth.
        unknown = self.intra_node_kind == IntraNodeKind.UNKNOWN
        if np.any(unknown & ~np.isnan(self.intra_bandwidth_gb_per_s)):
            object.__setattr__(self, "intra_bandwidth_gb_per_s",
                               np.where(unknown, np.nan, self.intra_bandwidth_gb_per_s))
        # Catalog-only masks, computed once per catalog instead of once per priced workload.
        spec_missing = np.isnan(self.bf16_tflops) | np.isnan(self.memory_gb)
        object.__setattr__(self, "_masks", OfferMasks(
            spec_missing_training=spec_missing,
            spec_missing_inference=spec_missing | np.isnan(self.memory_bandwidth_tbps),
            gpus_per_node_missing=np.isnan(self.gpus_per_node),
            intra_missing=np.isnan(self.intra_bandwidth_gb_per_s),
            has_nvlink_bridge=bool(np.any(self.intra_node_kind == IntraNodeKind.NVLINK_BRIDGE)),
            inter_none=self.inter_node_kind == InterNodeKind.NONE,
            inter_kind_missing=self.inter_node_kind == InterNodeKind.UNKNOWN,
            inter_bandwidth_missing=np.isnan(self.inter_bandwidth_gbps_per_gpu),
        ))

    @property
    def n_offers(self) -> int:
        """Number of offers."""
        return int(np.size(self.price_eur_per_gpu_hour))

    @property
    def masks(self) -> OfferMasks:
        """Missing-value and fabric masks of this catalog (computed at construction)."""
        return self._masks  # type: ignore[attr-defined, no-any-return]

    def columns(self) -> dict[str, np.ndarray]:
        """The field arrays by name (for copies: ``OfferArrays(**{**o.columns(), "memory_gb": ...})``)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    def take(self, index: npt.ArrayLike | slice) -> OfferArrays:
        """The offers at ``index`` (a slice, integer or boolean array), as new arrays."""
        return OfferArrays(**{name: np.asarray(arr[index]) for name, arr in self.columns().items()})


class OfferMasks(NamedTuple):
    """Per-offer boolean masks that depend on the catalog only (see :attr:`OfferArrays.masks`)."""

    spec_missing_training: np.ndarray
    spec_missing_inference: np.ndarray
    gpus_per_node_missing: np.ndarray
    intra_missing: np.ndarray
    has_nvlink_bridge: bool
    inter_none: np.ndarray
    inter_kind_missing: np.ndarray
    inter_bandwidth_missing: np.ndarray


_ALIASES: dict[str, tuple[str, ...]] = {
    "price": ("price_eur_per_gpu_hour", "best_selected_eur_per_gpu_hour", "on_demand_eur_per_gpu_hour"),
    "bf16": ("bf16_dense_tflops", "bf16_tflops"),
    "fp8": ("fp8_dense_tflops", "fp8_tflops"),
    "memory": ("memory_gb",),
    "bandwidth": ("memory_bandwidth_tbps",),
    "tdp": ("tdp_watts",),
    "gpn": ("gpus_per_node",),
    "intra": ("intra_node",),
    "inter": ("inter_node",),
    "inter_bw": ("inter_node_gbps_per_gpu", "inter_node_bandwidth_gbps_per_gpu", "inter_bandwidth_gbps_per_gpu"),
    "nvlink": ("nvlink_gbps_bidirectional", "nvlink_bandwidth_gb_per_s_bidirectional"),
    "mig": ("mig_max_instances",),
    "grid": ("grid_intensity_g_per_kwh",),
    "country": ("datacenter_country", "country_code", "country"),
}


def _to_float(values: Iterable[object]) -> np.ndarray:
    out = []
    for v in values:
        try:
            out.append(float(v) if v is not None and v != "" else math.nan)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            out.append(math.nan)
    return np.array(out, dtype=float)


def _column(columns: Mapping[str, Sequence[object]], key: str) -> Sequence[object] | None:
    for alias in _ALIASES[key]:
        if alias in columns:
            return columns[alias]
    return None


def _offer_arrays_from_columns(
    columns: Mapping[str, Sequence[object]],
    n: int,
    *,
    usd_per_eur: float | None = None,
    grid_intensity_by_country: Mapping[str, float] | None = None,
    use_nvls: bool = False,
) -> OfferArrays:
    nan = np.full(n, np.nan)

    def num(key: str) -> np.ndarray:
        col = _column(columns, key)
        return nan.copy() if col is None else _to_float(col)

    price_col = _column(columns, "price")
    if price_col is not None:
        price = _to_float(price_col)
    elif "price_per_gpu_hour" in columns and "currency" in columns and usd_per_eur is not None:
        from engine.money import to_eur

        amount = _to_float(columns["price_per_gpu_hour"])
        currency = np.array([c if c in ("EUR", "USD") else "EUR" for c in columns["currency"]], dtype=object)
        known = np.isin(np.asarray(columns["currency"], dtype=object), ("EUR", "USD"))
        price = np.where(known, to_eur(amount, currency, usd_per_eur), np.nan)
    else:
        price = nan.copy()

    intra_col = _column(columns, "intra")
    inter_col = _column(columns, "inter")
    intra_kind = network.kind_codes(list(intra_col) if intra_col is not None else [None] * n,
                                    network.INTRA_NODE_KIND_BY_NAME)
    inter_kind = network.kind_codes(list(inter_col) if inter_col is not None else [None] * n,
                                    network.INTER_NODE_KIND_BY_NAME)

    grid = num("grid")
    country_col = _column(columns, "country")
    if country_col is not None:
        table = {**GRID_INTENSITY_G_PER_KWH_BY_COUNTRY, **(grid_intensity_by_country or {})}
        from_country = np.array([table.get(c, math.nan) if isinstance(c, str) else math.nan for c in country_col])
        grid = np.where(np.isnan(grid), from_country, grid)

    return OfferArrays(
        price_eur_per_gpu_hour=price,
        bf16_tflops=num("bf16"),
        fp8_tflops=num("fp8"),
        memory_gb=num("memory"),
        memory_bandwidth_tbps=num("bandwidth"),
        tdp_watts=num("tdp"),
        gpus_per_node=num("gpn"),
        intra_node_kind=intra_kind,
        intra_bandwidth_gb_per_s=network.intra_node_busbw_gb_per_s(intra_kind, num("nvlink"), use_nvls),
        inter_node_kind=inter_kind,
        inter_bandwidth_gbps_per_gpu=num("inter_bw"),
        grid_intensity_g_per_kwh=grid,
        mig_max_instances=num("mig"),
    )


def offer_arrays_from_records(
    records: Sequence[Mapping[str, object]],
    *,
    usd_per_eur: float | None = None,
    grid_intensity_by_country: Mapping[str, float] | None = None,
    use_nvls: bool = False,
) -> OfferArrays:
    """Build :class:`OfferArrays` from offer rows already joined with their GPU spec.

    Columns read (first alias found; a missing column gives NaN / "not stated"):
    price ``price_eur_per_gpu_hour`` | ``best_selected_eur_per_gpu_hour`` |
    ``on_demand_eur_per_gpu_hour`` (or ``price_per_gpu_hour`` + ``currency`` converted with
    :func:`engine.money.to_eur` when ``usd_per_eur`` is given); ``bf16_dense_tflops``;
    ``fp8_dense_tflops`` (empty = no FP8); ``memory_gb``; ``memory_bandwidth_tbps``; ``tdp_watts``;
    ``gpus_per_node``; ``intra_node``; ``inter_node``; ``inter_node_gbps_per_gpu`` |
    ``inter_node_bandwidth_gbps_per_gpu``; ``nvlink_gbps_bidirectional`` |
    ``nvlink_bandwidth_gb_per_s_bidirectional`` (GB/s); ``mig_max_instances``;
    ``grid_intensity_g_per_kwh``, else ``datacenter_country`` | ``country_code`` looked up in
    :data:`GRID_INTENSITY_G_PER_KWH_BY_COUNTRY` updated with ``grid_intensity_by_country``.

    Examples
    --------
    >>> o = offer_arrays_from_records([
    ...     {"price_eur_per_gpu_hour": 2.5, "bf16_dense_tflops": 989.5, "fp8_dense_tflops": 1979,
    ...      "memory_gb": 80, "memory_bandwidth_tbps": 3.35, "tdp_watts": 700, "gpus_per_node": 8,
    ...      "intra_node": "NVLink-NVSwitch", "inter_node": "InfiniBand-NDR", "inter_node_gbps_per_gpu": 400,
    ...      "nvlink_gbps_bidirectional": 900, "mig_max_instances": 7, "datacenter_country": "FI"},
    ...     {"price_eur_per_gpu_hour": "", "bf16_dense_tflops": 312, "fp8_dense_tflops": "", "memory_gb": 80,
    ...      "gpus_per_node": "", "intra_node": "", "inter_node": ""},
    ... ])
    >>> o.intra_bandwidth_gb_per_s.round(1).tolist(), o.grid_intensity_g_per_kwh.tolist()
    ([370.0, nan], [145.541, nan])
    """
    n = len(records)
    keys: set[str] = set()
    for r in records:
        keys.update(r.keys())
    columns = {k: [r.get(k) for r in records] for k in keys}
    return _offer_arrays_from_columns(columns, n, usd_per_eur=usd_per_eur,
                                      grid_intensity_by_country=grid_intensity_by_country, use_nvls=use_nvls)


def offer_arrays_from_frame(frame: Any, **kwargs: Any) -> OfferArrays:
    """:func:`offer_arrays_from_records` for a pandas DataFrame (pandas is used only here, by duck typing)."""
    columns = {str(c): frame[c].tolist() for c in frame.columns}
    return _offer_arrays_from_columns(columns, len(frame), **kwargs)


def grid_intensity_g_per_kwh(
    country_codes: Sequence[object], overrides: Mapping[str, float] | None = None
) -> np.ndarray:
    """Grid intensity for ISO alpha-2 codes from the sourced table plus user ``overrides`` [gCO2e/kWh].

    Examples
    --------
    >>> grid_intensity_g_per_kwh(["FR", "SE", "XX", None], overrides={"SE": 40.0}).tolist()
    [67.39, 40.0, nan, nan]
    """
    table = {**GRID_INTENSITY_G_PER_KWH_BY_COUNTRY, **(overrides or {})}
    return np.array([table.get(c, math.nan) if isinstance(c, str) else math.nan for c in country_codes])


# --------------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------------


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
    "does not fit in GPU memory",
    "not enough GPUs per node for the tensor-parallel group",
    "GPUs per node not stated in the catalog: multi-GPU job not priced",
    "no intra-node interconnect stated in the catalog: multi-GPU job not priced",
    "no inter-node fabric (single-node product): multi-node job not possible",
    "no inter-node fabric stated in the catalog: multi-node job not priced",
    "inter-node bandwidth per GPU not stated in the catalog: multi-node job not priced",
)


class Bound(IntEnum):
    """What limits the offer: compute (FLOP/s), memory bandwidth, or communication."""

    UNDETERMINED = -1
    COMPUTE = 0
    MEMORY = 1
    COMMUNICATION = 2


@dataclass(frozen=True)
class WorkloadResult:
    """Outputs per offer, each an array of shape ``(n_offers,)``; NaN where excluded."""

    time_hours: np.ndarray  # wall-clock [h]
    gpu_hours: np.ndarray  # [GPU-h]
    cost_eur: np.ndarray  # [EUR], NaN when the offer has no price
    energy_kwh: np.ndarray  # facility energy incl. PUE [kWh]
    emissions_kg: np.ndarray  # [kgCO2e], NaN without grid intensity
    bound: np.ndarray  # Bound codes (int8)
    communication_share_fraction: np.ndarray  # share of a step the network is busy [-]
    excluded: np.ndarray  # bool
    exclusion_code: np.ndarray  # ExclusionReason codes (int8)
    assumed_default: np.ndarray  # bool: a missing catalog value was replaced by a stated default
    uses_fp8: np.ndarray  # bool
    missing_fabric_policy: str
    assumptions: tuple[Assumption, ...]

    def exclusion_text(self) -> np.ndarray:
        """Reason text per offer ("" when priced), object array."""
        return np.asarray(EXCLUSION_REASONS, dtype=object)[self.exclusion_code]

    def bound_text(self) -> np.ndarray:
        """``"compute"`` / ``"memory"`` / ``"communication"`` / ``""`` per offer, object array."""
        names = np.array(["compute", "memory", "communication", ""], dtype=object)
        return names[self.bound]  # -1 indexes the last entry, ""


@dataclass(frozen=True)
class TrainingResult(WorkloadResult):
    """:class:`WorkloadResult` plus the per-step breakdown of a training run."""

    training_flop: float  # 6 N D [FLOP]
    scaling_efficiency_fraction: np.ndarray  # t_compute / t_step [-]
    exposed_communication_share_fraction: np.ndarray  # 1 - scaling efficiency [-]
    step_time_s: np.ndarray
    compute_time_per_step_s: np.ndarray
    communication_time_per_step_s: np.ndarray
    n_nodes: np.ndarray
    perfect_scaling_time_hours: np.ndarray  # C / (n_gpu F MFU) [h]


@dataclass(frozen=True)
class InferenceResult(WorkloadResult):
    """:class:`WorkloadResult` for ``output_tokens_total`` tokens plus throughput and latency."""

    tensor_parallel_degree: np.ndarray  # GPUs per replica
    tokens_per_s_per_gpu: np.ndarray  # generated tokens
    request_latency_s: np.ndarray  # TTFT + output_tokens x TPOT
    time_to_first_token_s: np.ndarray
    time_per_output_token_s: np.ndarray
    cost_eur_per_million_tokens: np.ndarray  # at the target utilisation
    energy_kwh_per_million_tokens: np.ndarray
    emissions_kg_per_million_tokens: np.ndarray
    tokens_per_joule: np.ndarray  # = tokens/s per W of GPU power (IT, without PUE)
    arithmetic_intensity_flop_per_byte: np.ndarray  # decode step
    machine_balance_flop_per_byte: np.ndarray  # peak FLOP/s / peak B/s
    mig_profile_code: np.ndarray  # index into MIG_PROFILES, -1 = none
    mig_instances_per_gpu: np.ndarray
    mig_tokens_per_s_per_gpu: np.ndarray  # all instances of one GPU together
    mig_cost_eur_per_million_tokens: np.ndarray

    def mig_profile_text(self) -> np.ndarray:
        """MIG profile name per offer ("" = none), object array."""
        names = np.array([p.name for p in MIG_PROFILES] + [""], dtype=object)
        return names[self.mig_profile_code]


# --------------------------------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------------------------------


def training_flop(n_params: npt.ArrayLike, training_tokens: npt.ArrayLike) -> np.ndarray:
    """Training compute C = 6 N D [FLOP] (Kaplan et al. 2020; Transformer Math 101).

    Examples
    --------
    >>> float(training_flop(174.6e9, 300e9))  # GPT-3 175B, T4 (published 3.14e23)
    3.1428e+23
    """
    return 6.0 * np.asarray(n_params, dtype=float) * np.asarray(training_tokens, dtype=float)


def _check_policy(missing_fabric: str) -> bool:
    if missing_fabric not in MISSING_FABRIC_POLICIES:
        raise ValueError(f"missing_fabric must be one of {MISSING_FABRIC_POLICIES}, got {missing_fabric!r}")
    return missing_fabric == "assume_default"


def _fill(values: np.ndarray, missing: np.ndarray, default: float) -> np.ndarray:
    """``values`` with NaN replaced by ``default`` (values >= 0; fmax ignores the NaN operand)."""
    return np.fmax(values, missing * default)


def _exclusions(
    n: int, masks: Sequence[tuple[ExclusionReason, np.ndarray | bool]]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lowest applicable :class:`ExclusionReason` per offer, the ``excluded`` flags, and an array
    that is 0 for priced offers and NaN for excluded ones (added to outputs to blank them).

    int8 arithmetic instead of masked assignment: ``min(code, 127 - (127 - c) * mask)``.
    """
    code = np.full(n, 127, dtype=np.int8)
    for reason, mask in masks:
        mask8 = np.asarray(mask, dtype=bool).view(np.int8)
        np.minimum(code, np.int8(127) - np.int8(127 - reason) * mask8, out=code)
    code *= (code != 127).view(np.int8)
    excluded = code != 0
    return code, excluded, 0.0 / ~excluded  # 0/1 = 0, 0/0 = NaN


def _effective_tflops(
    is_fp8_ready: bool, o: OfferArrays, mfu_bf16: float, mfu_fp8: float
) -> tuple[np.ndarray, np.ndarray]:
    """FP8 used per offer (supported *and* stack ready) and achieved TFLOP/s = peak x MFU."""
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


def price_training(
    job: TrainingJob,
    offers: OfferArrays,
    assumptions: EngineAssumptions = DEFAULT_ASSUMPTIONS,
    missing_fabric: MissingFabricPolicy = "exclude",
) -> TrainingResult:
    """Wall-clock time, GPU-hours, cost, energy and emissions of ``job`` on every offer.

    Parameters
    ----------
    job : TrainingJob
        The run (N, D, GPUs, batch, precision readiness).
    offers : OfferArrays
        Per-offer inputs, shape ``(n_offers,)``.
    assumptions : EngineAssumptions, optional
        Sourced defaults (MFU, overlap, fabric efficiency, PUE, ...).
    missing_fabric : {"exclude", "assume_default"}
        What to do when the catalog does not state GPUs per node, the intra-node interconnect or
        the inter-node fabric/bandwidth a job needs: exclude the offer with a reason, or price it
        with ``assumptions.assumed_*`` (flagged in ``assumed_default``). An explicit ``none``
        fabric always excludes multi-node jobs.

    Returns
    -------
    TrainingResult
        Arrays of shape ``(n_offers,)``; ``time_hours`` [h], ``gpu_hours`` [GPU-h], ``cost_eur``
        [EUR], ``energy_kwh`` [kWh], ``emissions_kg`` [kgCO2e], shares [-].

    Notes
    -----
    .. math::

        t_c = \\frac{6NB}{n F \\cdot MFU},\\quad
        e = \\max\\big((1-\\varphi) t_{comm},\\ t_{comm} - s_{bwd} t_c\\big),\\quad
        T = \\frac{D}{B}(t_c + e)

    Examples
    --------
    Llama 2 7B on 2,048 A100-80GB (T1: published 184,320 GPU-h):

    >>> a100 = offer_arrays_from_records([{"price_eur_per_gpu_hour": 2.0, "bf16_dense_tflops": 312,
    ...     "memory_gb": 80, "memory_bandwidth_tbps": 2.039, "tdp_watts": 400, "gpus_per_node": 8,
    ...     "intra_node": "NVLink-NVSwitch", "nvlink_gbps_bidirectional": 600,
    ...     "inter_node": "InfiniBand-HDR", "inter_node_gbps_per_gpu": 200}])
    >>> r = price_training(TrainingJob.from_preset("llama-2-7b", n_gpus=2048), a100)
    >>> round(float(r.gpu_hours[0])), float(r.scaling_efficiency_fraction[0])
    (186966, 1.0)
    """
    assume = _check_policy(missing_fabric)
    a = assumptions
    o = offers
    n_off = o.n_offers
    n = float(job.n_gpus)
    tp = float(job.tensor_parallel_degree)
    N = job.n_params
    batch = job.global_batch_tokens
    steps = job.training_tokens / batch
    grad_bytes = N * job.gradient_bytes_per_param / tp
    n_buckets = math.ceil(grad_bytes / a.gradient_bucket_bytes)
    state_per_gpu_bytes = job.training_state_bytes_per_param * N / (n if job.is_state_sharded else tp)
    # Hot path: arithmetic only (see engine.network for the branch-free selections); outputs are
    # written into one contiguous block, whose rows are returned.
    with np.errstate(divide="ignore", invalid="ignore"):
        uses_fp8, eff_tflops = _effective_tflops(job.is_fp8_ready, o, a.mfu_bf16_fraction, a.mfu_fp8_fraction)
        t_compute = (6.0 * N * batch / (n * 1e12)) / eff_tflops

        # Node shape, intra- and inter-node bandwidth, with the missing-value policy.
        mk = o.masks
        gpn_missing = mk.gpus_per_node_missing
        gpn = _fill(o.gpus_per_node, gpn_missing, a.assumed_gpus_per_node) if assume else o.gpus_per_node
        gpus_in_node = np.fmin(gpn, n)  # unknown node size: the job's own GPUs (excluded or assumed below)
        n_nodes = np.ceil(n / gpus_in_node)
        ranks_per_node = gpus_in_node / tp if tp != 1 else gpus_in_node
        intra_missing = mk.intra_missing
        intra_bw = o.intra_bandwidth_gb_per_s
        if mk.has_nvlink_bridge:
            intra_bw = network.effective_intra_busbw_gb_per_s(
                o.intra_node_kind, intra_bw, ranks_per_node, a.pcie_busbw_gb_per_s)
        if assume:
            intra_bw = _fill(intra_bw, intra_missing, a.assumed_intra_busbw_gb_per_s)
        inter_none = mk.inter_none
        inter_kind_missing = mk.inter_kind_missing
        inter_bw_missing = mk.inter_bandwidth_missing
        inter_bw = (_fill(o.inter_bandwidth_gbps_per_gpu, inter_bw_missing, a.assumed_inter_link_gbps_per_gpu)
                    if assume else o.inter_bandwidth_gbps_per_gpu)

        # One optimizer step: compute, gradient all-reduce, overlap with the backward pass.
        t_comm = network._data_parallel_allreduce_s(
            grad_bytes, ranks_per_node, n_nodes, intra_bw, inter_bw, a.oversubscription_ratio,
            a.nic_efficiency_fraction, a.intra_node_latency_s, a.inter_node_latency_s, float(n_buckets))
        hidden_max = a.backward_share_of_compute_fraction * t_compute
        exposed = np.maximum(t_comm - hidden_max, (1.0 - a.overlap_fraction) * t_comm)
        t_step = t_compute + exposed

        # Exclusions (priority order = code order).
        multi_gpu = n > 1
        multi_node = n_nodes > 1
        needs_inter = multi_node & ~inter_none
        masks = [
            (ExclusionReason.SPEC_MISSING, mk.spec_missing_training),
            (ExclusionReason.DOES_NOT_FIT, o.memory_gb < state_per_gpu_bytes / 1e9),
        ]
        if tp > 1:
            masks.append((ExclusionReason.NOT_ENOUGH_GPUS_PER_NODE, gpn < tp))
        if assume:
            assumed_default = (
                (gpn_missing & multi_gpu) | ((ranks_per_node * tp > 1) & intra_missing)
                | (needs_inter & (inter_kind_missing | inter_bw_missing)))
        else:
            if multi_gpu:
                masks.append((ExclusionReason.GPUS_PER_NODE_NOT_STATED, gpn_missing))
                masks.append((ExclusionReason.INTRA_NODE_NOT_STATED, (gpus_in_node > 1) & intra_missing))
            assumed_default = np.zeros(n_off, dtype=bool)
        if multi_gpu:
            masks.append((ExclusionReason.NO_INTER_NODE_FABRIC, multi_node & inter_none))
            if not assume:
                masks.append((ExclusionReason.INTER_NODE_NOT_STATED, needs_inter & inter_kind_missing))
                masks.append((ExclusionReason.INTER_BANDWIDTH_NOT_STATED, needs_inter & inter_bw_missing))
        code, excluded, nan_if_excluded = _exclusions(n_off, masks)

        out = np.empty((10, n_off))
        (time_hours, gpu_hours, cost, energy, emissions, comm_share, efficiency, exposed_share,
         nodes_out, perfect) = out
        np.multiply(t_step, steps / 3600.0, out=time_hours)
        time_hours += nan_if_excluded
        np.multiply(time_hours, n, out=gpu_hours)
        np.multiply(gpu_hours, o.price_eur_per_gpu_hour, out=cost)
        np.multiply(gpu_hours, o.tdp_watts, out=energy)
        energy *= a.gpu_power_fraction_of_tdp * a.pue_ratio / 1000.0
        np.multiply(energy, o.grid_intensity_g_per_kwh, out=emissions)
        emissions /= 1000.0
        np.divide(t_comm, t_step, out=comm_share)
        comm_share += nan_if_excluded
        np.divide(t_compute, t_step, out=efficiency)
        efficiency += nan_if_excluded
        np.subtract(1.0, efficiency, out=exposed_share)
        np.add(n_nodes, nan_if_excluded, out=nodes_out)
        np.multiply(t_compute, steps / 3600.0, out=perfect)
        perfect += nan_if_excluded
        bound = (t_comm > t_compute).view(np.int8) * np.int8(Bound.COMMUNICATION)
        bound -= (bound + 1) * excluded.view(np.int8)  # excluded -> -1 (UNDETERMINED)
        return TrainingResult(
            time_hours=time_hours,
            gpu_hours=gpu_hours,
            cost_eur=cost,
            energy_kwh=energy,
            emissions_kg=emissions,
            bound=bound,
            communication_share_fraction=comm_share,
            excluded=excluded,
            exclusion_code=code,
            assumed_default=assumed_default & ~excluded,
            uses_fp8=uses_fp8 & ~excluded,
            missing_fabric_policy=missing_fabric,
            assumptions=_context(missing_fabric, a, (
                Assumption("gradient_bytes_per_param", job.gradient_bytes_per_param, "B", "TrainingJob"),
                Assumption("n_gradient_buckets", n_buckets, "-", "gradient bytes / gradient_bucket_bytes"),
            )),
            training_flop=float(6.0 * N * job.training_tokens),
            scaling_efficiency_fraction=efficiency,
            exposed_communication_share_fraction=exposed_share,
            step_time_s=t_step + nan_if_excluded,
            compute_time_per_step_s=t_compute + nan_if_excluded,
            communication_time_per_step_s=t_comm + nan_if_excluded,
            n_nodes=nodes_out,
            perfect_scaling_time_hours=perfect,
        )


def _serve(
    n_params: float, weight_bytes: float, kv_step_bytes: float, kv_prefill_bytes: float,
    batch: float, prompt: float, output: float, flops: np.ndarray, bytes_per_s: np.ndarray,
) -> tuple[np.ndarray, ...]:
    """Prefill, decode step and request latency for one replica with ``flops`` and ``bytes_per_s``."""
    t_mem = (weight_bytes + kv_step_bytes) / bytes_per_s
    t_cmp = 2.0 * n_params * batch / flops
    t_step = np.maximum(t_mem, t_cmp)
    t_prefill = np.maximum(2.0 * n_params * prompt * batch / flops, (weight_bytes + kv_prefill_bytes) / bytes_per_s)
    latency = t_prefill + output * t_step
    return t_mem, t_cmp, t_step, t_prefill, latency


def price_inference(
    service: InferenceService,
    offers: OfferArrays,
    assumptions: EngineAssumptions = DEFAULT_ASSUMPTIONS,
    missing_fabric: MissingFabricPolicy = "exclude",
) -> InferenceResult:
    """Throughput, latency, cost per million tokens and energy of ``service`` on every offer.

    Parameters
    ----------
    service : InferenceService
        Model shape, request shape (prompt/output tokens), batch size, precision readiness.
    offers : OfferArrays
        Per-offer inputs, shape ``(n_offers,)``.
    assumptions : EngineAssumptions, optional
        Sourced defaults (MFU, MBU, usable memory, PUE, ...).
    missing_fabric : {"exclude", "assume_default"}
        Policy when a multi-GPU replica needs GPUs per node or the intra-node interconnect and the
        catalog does not state them (see :func:`price_training`).

    Returns
    -------
    InferenceResult
        ``time_hours`` / ``gpu_hours`` / ``cost_eur`` / ``energy_kwh`` / ``emissions_kg`` for
        ``service.output_tokens_total`` generated tokens on one replica, plus per-token figures.
        ``communication_share_fraction`` is NaN (tensor-parallel traffic is not modelled).

    Notes
    -----
    Memory per replica ``W + B KV (P + O)`` must fit in ``tp x memory x usable``; ``tp`` is the
    smallest power of two that holds it (at most ``max_tensor_parallel_degree``) unless the service
    fixes it. Decode step: ``max(2NB / (tp F MFU), (W + B KV (P + O/2)) / (tp BW MBU))``.

    Examples
    --------
    GPT-J-sized model at batch 1 on one A100-80GB (I3: measured 111 tok/s, ceiling 170):

    >>> a100 = offer_arrays_from_records([{"price_eur_per_gpu_hour": 2.0, "bf16_dense_tflops": 312,
    ...     "memory_gb": 80, "memory_bandwidth_tbps": 2.039, "tdp_watts": 400, "gpus_per_node": 1}])
    >>> s = InferenceService(n_params=6e9, n_layers=28, n_kv_heads=16, head_dim=256,
    ...                      prompt_tokens=128, output_tokens=128, batch_size=1)
    >>> r = price_inference(s, a100)
    >>> round(1 / float(r.time_per_output_token_s[0]), 1), r.bound_text()[0]
    (109.6, 'memory')
    """
    assume = _check_policy(missing_fabric)
    a = assumptions
    o = offers
    n_off = o.n_offers
    N = service.n_params
    B = float(service.batch_size)
    P = float(service.prompt_tokens)
    O = float(service.output_tokens)  # noqa: E741
    W = N * service.weight_bytes_per_param
    kv_tok = service.kv_cache_bytes_per_token
    need_bytes = W + B * kv_tok * (P + O)
    kv_step = B * kv_tok * (P + 0.5 * O)
    kv_prefill = B * kv_tok * P
    max_tp = a.max_tensor_parallel_degree
    util = service.target_utilisation_fraction
    with np.errstate(divide="ignore", invalid="ignore"):
        uses_fp8, peak_tflops = _peak_tflops(service.is_fp8_ready, o)
        usable_gb = o.memory_gb * a.inference_memory_usable_fraction
        replicas_needed = (need_bytes / 1e9) / usable_gb  # GPUs' worth of memory the replica needs
        if service.tensor_parallel_degree is None:
            # smallest power of two >= replicas_needed, capped at max_tp: 1 + sum of 2^j [need > 2^j]
            tp = np.ones(n_off)
            power = 1
            while power < max_tp:
                tp += (replicas_needed > power) * float(power)
                power *= 2
            no_fit = replicas_needed > tp
        else:
            tp = np.full(n_off, float(service.tensor_parallel_degree))
            no_fit = replicas_needed > tp
        flops = peak_tflops * (1e12 * a.inference_mfu_fraction)
        bytes_per_s = o.memory_bandwidth_tbps * (1e12 * a.inference_mbu_fraction)
        t_mem, t_cmp, t_step, t_prefill, latency = _serve(
            N, W, kv_step, kv_prefill, B, P, O, tp * flops, tp * bytes_per_s)
        tok_s_gpu = (B * O) / (latency * tp)
        power_w = o.tdp_watts * a.gpu_power_fraction_of_tdp

        # MIG: smallest slice that holds a single-GPU replica (the most instances per GPU):
        # 1g.10gb (1 of 8 memory slices, 7 per GPU), else 1g.20gb (2, 4 per GPU), else 3g.40gb (4, 2).
        slices_needed = replicas_needed * _MIG_MEMORY_SLICES
        has_mig = (o.mig_max_instances >= _MIG_COMPUTE_SLICES) & (replicas_needed <= 1.0)
        c1 = (slices_needed <= 1.0) & has_mig
        c2 = (slices_needed <= 2.0) & has_mig
        c4 = (slices_needed <= 4.0) & has_mig
        mig_code = np.int8(3) * c4.view(np.int8) - np.int8(2) * c2.view(np.int8) - c1.view(np.int8)
        mig_code -= (~c4).view(np.int8)  # -1 = none
        mig_inst = 2.0 * c4 + 2.0 * c2 + 3.0 * c1  # 2 / 4 / 7 instances
        mig_compute = (3.0 - 2.0 * c2) / _MIG_COMPUTE_SLICES  # 3/7 or 1/7 of the SMs
        mig_memory = (4.0 - 2.0 * c2 - c1) / _MIG_MEMORY_SLICES  # 4/8, 2/8 or 1/8 of memory bandwidth
        *_, mig_latency = _serve(N, W, kv_step, kv_prefill, B, P, O, flops * mig_compute, bytes_per_s * mig_memory)
        mig_tok_s_gpu = mig_inst * (B * O) / mig_latency

        # Exclusions.
        mk = o.masks
        gpn_missing = mk.gpus_per_node_missing
        multi_gpu = tp > 1
        intra_missing = mk.intra_missing
        gpn = _fill(o.gpus_per_node, gpn_missing, a.assumed_gpus_per_node) if assume else o.gpus_per_node
        masks: list[tuple[ExclusionReason, np.ndarray | bool]] = [
            (ExclusionReason.SPEC_MISSING, mk.spec_missing_inference),
            (ExclusionReason.DOES_NOT_FIT, no_fit),
            (ExclusionReason.NOT_ENOUGH_GPUS_PER_NODE, gpn < tp),
        ]
        if assume:
            assumed_default = multi_gpu & (gpn_missing | intra_missing)
        else:
            masks += [
                (ExclusionReason.GPUS_PER_NODE_NOT_STATED, multi_gpu & gpn_missing),
                (ExclusionReason.INTRA_NODE_NOT_STATED, multi_gpu & intra_missing),
            ]
            assumed_default = np.zeros(n_off, dtype=bool)
        code, excluded, nan_if_excluded = _exclusions(n_off, masks)

        out = np.empty((13, n_off))
        (gpu_hours, time_hours, cost, energy, emissions, cost_m, energy_m, emissions_m, tok_j,
         tok_out, mig_tok_out, mig_cost_out, ai_out) = out
        np.divide(service.output_tokens_total / (3600.0 * util), tok_s_gpu, out=gpu_hours)
        gpu_hours += nan_if_excluded
        np.divide(gpu_hours, tp, out=time_hours)
        np.multiply(gpu_hours, o.price_eur_per_gpu_hour, out=cost)
        np.multiply(gpu_hours, power_w, out=energy)
        energy *= a.pue_ratio / 1000.0
        np.multiply(energy, o.grid_intensity_g_per_kwh, out=emissions)
        emissions /= 1000.0
        per_million = 1e6 / service.output_tokens_total
        np.multiply(cost, per_million, out=cost_m)
        np.multiply(energy, per_million, out=energy_m)
        np.multiply(emissions, per_million, out=emissions_m)
        np.add(tok_s_gpu, nan_if_excluded, out=tok_out)
        np.divide(tok_out, power_w, out=tok_j)
        mig_ok = c4 & ~excluded
        nan_if_no_mig = 0.0 / mig_ok
        np.add(mig_tok_s_gpu, nan_if_no_mig, out=mig_tok_out)
        np.divide(o.price_eur_per_gpu_hour * (1e6 / (3600.0 * util)), mig_tok_out, out=mig_cost_out)
        ai_out.fill(2.0 * N * B / (W + kv_step))
        ai_out += nan_if_excluded
        bound = (t_mem >= t_cmp).view(np.int8) * np.int8(Bound.MEMORY)
        bound -= (bound + 1) * excluded.view(np.int8)
        mig_code = (mig_code + np.int8(1)) * mig_ok.view(np.int8) - np.int8(1)  # -1 unless usable
        return InferenceResult(
            time_hours=time_hours,
            gpu_hours=gpu_hours,
            cost_eur=cost,
            energy_kwh=energy,
            emissions_kg=emissions,
            bound=bound,
            communication_share_fraction=np.full(n_off, np.nan),
            excluded=excluded,
            exclusion_code=code,
            assumed_default=assumed_default & ~excluded,
            uses_fp8=uses_fp8 & ~excluded,
            missing_fabric_policy=missing_fabric,
            assumptions=_context(missing_fabric, a, (
                Assumption("target_utilisation_fraction", util, "-", "InferenceService (user assumption)"),
                Assumption("kv_cache_bytes_per_token", kv_tok, "B", "2 x layers x KV heads x head_dim x bytes (std)"),
            )),
            tensor_parallel_degree=tp + nan_if_excluded,
            tokens_per_s_per_gpu=tok_out,
            request_latency_s=latency + nan_if_excluded,
            time_to_first_token_s=t_prefill + nan_if_excluded,
            time_per_output_token_s=t_step + nan_if_excluded,
            cost_eur_per_million_tokens=cost_m,
            energy_kwh_per_million_tokens=energy_m,
            emissions_kg_per_million_tokens=emissions_m,
            tokens_per_joule=tok_j,
            arithmetic_intensity_flop_per_byte=ai_out,
            machine_balance_flop_per_byte=peak_tflops / o.memory_bandwidth_tbps + nan_if_excluded,
            mig_profile_code=mig_code,
            mig_instances_per_gpu=mig_inst * mig_ok,
            mig_tokens_per_s_per_gpu=mig_tok_out,
            mig_cost_eur_per_million_tokens=mig_cost_out,
        )


# --------------------------------------------------------------------------------------------------
# Per-offer reference (pure Python): the same formulas one offer at a time, for tests and the benchmark
# --------------------------------------------------------------------------------------------------


def reference_price_training_loop(
    job: TrainingJob,
    offers: OfferArrays,
    assumptions: EngineAssumptions = DEFAULT_ASSUMPTIONS,
    missing_fabric: MissingFabricPolicy = "exclude",
) -> dict[str, list[float]]:
    """:func:`price_training` written as a per-offer Python loop with :mod:`math` (slow on purpose).

    Returns ``time_hours``, ``cost_eur``, ``emissions_kg`` and ``exclusion_code`` lists; used to
    check the vectorised kernel and as the baseline of ``bench/bench_workload.py``.
    """
    assume = _check_policy(missing_fabric)
    a = assumptions
    n = float(job.n_gpus)
    tp = float(job.tensor_parallel_degree)
    N = job.n_params
    batch = job.global_batch_tokens
    grad_bytes = N * job.gradient_bytes_per_param / tp
    k = math.ceil(grad_bytes / a.gradient_bucket_bytes)
    state = job.training_state_bytes_per_param * N / (n if job.is_state_sharded else tp)
    steps = job.training_tokens / batch
    nan = math.nan
    out: dict[str, list[float]] = {"time_hours": [], "cost_eur": [], "emissions_kg": [], "exclusion_code": []}
    cols = [getattr(offers, f).tolist() for f in (
        "price_eur_per_gpu_hour", "bf16_tflops", "fp8_tflops", "memory_gb", "tdp_watts", "gpus_per_node",
        "intra_node_kind", "intra_bandwidth_gb_per_s", "inter_node_kind", "inter_bandwidth_gbps_per_gpu",
        "grid_intensity_g_per_kwh")]
    for price, bf16, fp8, mem, tdp, gpn, ikind, ibw, ekind, ebw, grid in zip(*cols, strict=True):
        fp8_used = job.is_fp8_ready and fp8 > 0
        f = (fp8 * a.mfu_fp8_fraction if fp8_used else bf16 * a.mfu_bf16_fraction) * 1e12
        gpn_missing = math.isnan(gpn)
        if gpn_missing and assume:
            gpn = float(a.assumed_gpus_per_node)
        in_node = n if math.isnan(gpn) else min(gpn, n)
        nodes = math.ceil(n / in_node)
        ranks = in_node / tp
        intra_missing = math.isnan(ibw)
        if ikind == IntraNodeKind.NVLINK_BRIDGE and ranks > 2:
            ibw = a.pcie_busbw_gb_per_s
        if assume and intra_missing:
            ibw = a.assumed_intra_busbw_gb_per_s
        e_none = ekind == InterNodeKind.NONE
        e_kind_missing = ekind == InterNodeKind.UNKNOWN
        e_bw_missing = math.isnan(ebw)
        if assume and e_bw_missing:
            ebw = a.assumed_inter_link_gbps_per_gpu
        # exclusions
        multi_node = nodes > 1
        needs_inter = multi_node and not e_none
        code = 0
        if math.isnan(bf16) or math.isnan(mem):
            code = 1
        elif mem < state / 1e9:
            code = 2
        elif gpn < tp:
            code = 3
        elif not assume and gpn_missing and n > 1:
            code = 4
        elif not assume and in_node > 1 and intra_missing:
            code = 5
        elif multi_node and e_none:
            code = 6
        elif not assume and needs_inter and e_kind_missing:
            code = 7
        elif not assume and needs_inter and e_bw_missing:
            code = 8
        out["exclusion_code"].append(code)
        if code:
            out["time_hours"].append(nan)
            out["cost_eur"].append(nan)
            out["emissions_kg"].append(nan)
            continue
        factor_g = 2 * (ranks - 1) / ranks
        t_intra = (factor_g * grad_bytes / (ibw * 1e9) + min(factor_g, 1.0) * k * a.intra_node_latency_s
                   if ranks > 1 else 0.0)
        if multi_node:
            nic = ebw / 8.0 * a.nic_efficiency_fraction
            bw = (min(nic, ibw) if ranks > 1 else nic) / a.oversubscription_ratio
            t_inter = 2 * (nodes - 1) / nodes * grad_bytes / ranks / (bw * 1e9) + k * a.inter_node_latency_s
        else:
            t_inter = 0.0
        t_comm = t_intra + t_inter
        t_c = 6.0 * N * batch / (n * f)
        exposed = max((1.0 - a.overlap_fraction) * t_comm, t_comm - a.backward_share_of_compute_fraction * t_c)
        hours = steps * (t_c + exposed) / 3600.0
        gpu_hours = n * hours
        energy = gpu_hours * tdp * a.gpu_power_fraction_of_tdp * a.pue_ratio / 1000.0
        out["time_hours"].append(hours)
        out["cost_eur"].append(gpu_hours * price)
        out["emissions_kg"].append(energy * grid / 1000.0)
    return out
