"""Training time and inference throughput of one workload on every offer, in one vectorised call.

Pages build an :class:`OfferArrays` once (shape ``(n_offers,)`` per field, see
:func:`offer_arrays_from_records`), describe the workload with a pydantic model
(:class:`TrainingJob` or :class:`InferenceService`, optionally from a :data:`MODEL_PRESETS` entry)
and call :func:`price_training` or :func:`price_inference`. The result holds one array per output
and the list of assumptions used, each with its source. Formulas are in ``docs/domain-model.md``; the published
figures they are checked against, split into calibration and validation, in ``docs/validation.md``.

Model (docs/domain-model.md sections 1-4, 7, 11)
------------------------------------------------
**Training** (section 11.1-11.4). The job's ``n`` GPUs are split into TP x CP x PP x DP (given, or per offer the
smallest TP x PP that fits in GPU memory, :mod:`engine.parallelism`). One optimizer step of ``B`` tokens takes

.. math::

    t_{step} = t_c + t_{bubble} + e_{TP} + e_{CP} + e_{PP} + e_{DP},\\qquad
    t_c = \\frac{B\\,(6N + 6Lhs)\\,r}{n\\,F\\,u}

with ``u`` the utilisation of the peak ``F`` while computing, ``r`` = hardware / model FLOPs (recomputation),
the 1F1B bubble ``t_c (p-1)/(v m)`` and each collective's *exposed* time: TP and CP collectives are on the critical
path unless overlap is enabled (then a stated fraction is hidden); pipeline send/recv are hidden when interleaved;
the DP gradient reduce-scatter/all-gather overlap the backward (and, sharded, the forward) pass of the last
micro-batch only, and at most a fraction ``phi`` of them: ``e_DP = max((1-phi) t_DP, t_DP - window)``. Bytes and
links per collective: :mod:`engine.parallelism` and :mod:`engine.network` (hierarchical bottleneck model).
Goodput ``G`` (failures, checkpoints, restarts; Young/Daly, :mod:`engine.goodput`) is separate from MFU:
wall-clock ``= (D/B) t_step / G``; GPU-hours ``= n x`` wall-clock = model FLOPs / (F x MFU x G).

**Inference** (section 11.6, :mod:`engine.serving`). Continuous batching on a replica of ``tp`` GPUs; decode steps
from the roofline with precision-dependent MBU, TP all-reduces per token, KV-cache capacity limiting concurrency,
MoE weights read vs FLOPs; throughput per GPU, TTFT/TPOT and latency percentiles at a request rate, cost per
million tokens; MIG slices for small models.

**Energy** (section 11.5, :mod:`engine.power`, shared with the TCO engine): GPU power at load + the server's
non-GPU share, x PUE, for busy GPU-hours; idle power for reserved-but-unused GPUs; optional embodied carbon.

Conventions: the package's (:mod:`engine`): units in names, NaN for "not known", and a NaN output always comes with
a reason — an excluded offer carries an integer :class:`ExclusionReason` code (text in :data:`EXCLUSION_REASONS`),
a priced offer with a missing price, TDP or grid intensity carries :class:`MissingInput` flags
(:meth:`WorkloadResult.missing_text`). Prices may be in any currency: :class:`OfferArrays` names it and every
money output is in that currency (``cost``, ``currency``; ``cost_eur`` only when it is EUR).

Performance (``bench/bench_workload.py``): the kernels use arithmetic instead of ``np.where``/masked assignment
where it matters, the catalog-only masks and the distinct (memory, GPUs per node) pairs are computed once in
:class:`OfferArrays`, and the float outputs of one call are rows of one contiguous block (views; copy one before
resizing it).

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
.. [9] D. Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM",
   arXiv:2104.04473, 2021.
.. [10] A. Chowdhery et al., "PaLM", arXiv:2204.02311, App. B (MFU, HFU).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum, IntFlag
from typing import Any, Literal, NamedTuple

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine import goodput as goodput_model
from engine import network, parallelism, power, serving
from engine.network import InterNodeKind, IntraNodeKind
from engine.parallelism import RecomputeMode

MissingFabricPolicy = Literal["exclude", "assume_default"]
MISSING_FABRIC_POLICIES: tuple[str, ...] = ("exclude", "assume_default")



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
    """Architecture of a published transformer (``n_params`` is the size in the model's name, as the published
    GPU-hour figures use it, except GPT-3 whose Table D.1 count is used; for a mixture of experts ``n_params`` is the
    parameters active per token and ``n_params_total`` all of them)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    n_params: float = Field(gt=0)
    n_params_total: float | None = Field(default=None, gt=0)
    n_layers: int = Field(ge=1)
    d_model: int = Field(ge=1)
    n_heads: int = Field(ge=1)
    n_kv_heads: int = Field(ge=1)
    head_dim_override: int | None = Field(default=None, ge=1)
    max_context_tokens: int = Field(ge=1)
    training_tokens_reported: float | None = Field(default=None, gt=0)
    source: str

    @property
    def head_dim(self) -> int:
        """Dimension per attention head [-]: d_model / n_heads unless the model states another."""
        return self.head_dim_override or self.d_model // self.n_heads


_LLAMA2 = (
    "Llama 2: arXiv 2307.09288 (sizes, 4k context, 2.0T tokens, GQA for 70B) and model card; 7B/13B "
    "dimensions from Llama 1 (arXiv 2302.13971 Table 2), which Llama 2 keeps; 70B: 80 layers, 8192, "
    "64 heads, 8 KV heads (meta-llama/Llama-2-70b-hf config.json; domain-model s2)"
)
_LLAMA3 = "Llama 3: arXiv 2407.21783 Table 3 (layers, model dimension, heads, 8 KV heads); 8k context and '15T+' tokens: Llama 3 model card"

#: Presets for well-known models. ``training_tokens_reported`` is the published pre-training token count (Llama 3
#: 8B/70B: "over 15T", stored as the lower bound 15e12).
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
        ModelPreset(name="qwen3-235b-a22b", n_params=22e9, n_params_total=235e9, n_layers=94, d_model=4096,
                    n_heads=64, n_kv_heads=4, head_dim_override=128, max_context_tokens=32768,
                    training_tokens_reported=36e12,
                    source="Qwen3 Technical Report arXiv 2505.09388 Table 2 (MoE: 235B total, 22B active, 94 layers, "
                           "64 query / 4 KV heads, 128 experts with 8 active, 32K context) and s3 (36T tokens); "
                           "hidden size 4096 and head dimension 128: Qwen/Qwen3-235B-A22B config.json"),
    )
}


def estimated_shape(n_params: float) -> tuple[int, int]:
    """(layers, d_model) of a dense transformer of ``n_params`` parameters when the user gives none.

    ``N = 12 L h^2`` (Kaplan et al. s2.1) with the aspect ratio ``h / L = 128`` of GPT-3 175B (12288 / 96; Llama 2
    7B: 4096 / 32): ``h = (128 N / 12)^(1/3)`` rounded to a multiple of 128.

    Examples
    --------
    >>> estimated_shape(175e9)
    (97, 12288)
    """
    h = (128.0 * n_params / 12.0) ** (1.0 / 3.0)
    h = max(128, int(round(h / 128.0)) * 128)
    return max(1, int(round(n_params / (12.0 * h * h)))), h


# --------------------------------------------------------------------------------------------------
# Inputs: workload and engine assumptions
# --------------------------------------------------------------------------------------------------


class TrainingJob(BaseModel):
    """A transformer pre-training (or fine-tuning) run and how it is parallelised.

    Parallel degrees: ``tensor_parallel_degree x context_parallel_degree x pipeline_parallel_degree x
    data_parallel_degree`` must equal ``n_gpus`` (a clear error otherwise). Leave TP / PP / DP at ``None`` to let the
    engine choose, per offer, the smallest TP x PP that fits in that GPU's memory (:mod:`engine.parallelism`).

    Examples
    --------
    >>> job = TrainingJob.from_preset("llama-2-7b", n_gpus=256)
    >>> job.training_tokens, job.global_batch_tokens, job.global_batch_sequences
    (2000000000000.0, 4000000.0, 976.5625)
    >>> TrainingJob.from_preset("llama-2-70b", n_gpus=64, tensor_parallel_degree=8, pipeline_parallel_degree=4,
    ...                         data_parallel_degree=2).data_parallel_degree
    2
    >>> TrainingJob.from_preset("llama-2-70b", n_gpus=64, tensor_parallel_degree=8, pipeline_parallel_degree=4,
    ...                         data_parallel_degree=2, context_parallel_degree=2)
    Traceback (most recent call last):
    ...
    pydantic_core._pydantic_core.ValidationError: 1 validation error for TrainingJob
      Value error, tensor (8) x context (2) x pipeline (4) x data (2) parallel degrees = 128, but n_gpus = 64; ...
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    model_name: str = "custom"
    n_params: float = Field(gt=0, le=1e14, description="parameters N (MoE: active per token) [-]")
    training_tokens: float = Field(gt=0, le=1e16, description="tokens D [-]")
    n_gpus: int = Field(ge=1, le=1_000_000, description="GPUs used [-]")
    global_batch_tokens: float = Field(
        default=4e6, gt=0, le=1e9,
        description="tokens per optimizer step [-]; default 4M = Llama 2 (arXiv 2307.09288, T1)",
    )
    sequence_length_tokens: int = Field(
        default=4096, ge=1, le=10_000_000, description="training sequence length [-]; default 4096 = Llama 2")
    micro_batch_sequences: int = Field(default=1, ge=1, le=4096, description="sequences per micro-batch [-]")
    n_layers: int | None = Field(default=None, ge=1, le=10_000, description="None = estimated from N (h/L = 128)")
    d_model: int | None = Field(default=None, ge=1, le=1_000_000, description="hidden size; None = estimated")
    kv_dim: int | None = Field(default=None, ge=1, le=1_000_000,
                               description="KV heads x head dimension (context-parallel traffic); None = d_model")
    is_fp8_ready: bool = Field(default=False, description="the software stack trains in FP8 (Transformer Engine)")
    tensor_parallel_degree: int | None = Field(default=None, ge=1, le=64,
                                               description="TP group, kept inside one node; None = chosen per offer")
    pipeline_parallel_degree: int | None = Field(default=None, ge=1, le=1024, description="None = chosen per offer")
    context_parallel_degree: int = Field(default=1, ge=1, le=1024, description="CP group (sequence split) [-]")
    data_parallel_degree: int | None = Field(default=None, ge=1, le=1_000_000,
                                             description="None = n_gpus / (TP x CP x PP)")
    virtual_pipeline_stages: int = Field(
        default=1, ge=1, le=128, description="interleaved 1F1B chunks per GPU v (Narayanan et al. s2.2.2); 1 = plain")
    recompute: RecomputeMode = Field(
        default="auto", description="activation recomputation: auto = selective if it fits, else full")
    is_tp_comm_overlapped: bool = Field(default=False, description="TP collectives overlapped with GEMMs (--tp-comm-overlap)")
    gradient_bytes_per_param: float = Field(
        default=2.0, gt=0, le=8,
        description="bytes per gradient element reduced [B]; 2 = BF16 (Transformer Math 101); Llama 3 reduced in FP32 (4)",
    )
    training_state_bytes_per_param: float = Field(
        default=16.0, gt=0, le=64,
        description="weights + grads + AdamW state [B/param]; 16 (Transformer Math 101), activations separate",
    )
    is_state_sharded: bool = Field(
        default=True, description="ZeRO-3/FSDP: training state divided over all GPUs (else over TP x PP only)"
    )
    n_gpus_reserved: int | None = Field(
        default=None, ge=1, le=1_000_000,
        description="GPUs paid and powered for the job (>= n_gpus; the rest idle, e.g. hot spares); None = n_gpus")
    checkpoint_interval_s: float | None = Field(
        default=None, gt=0, le=1e7, description="seconds of work between checkpoints; None = Daly's optimum")

    @model_validator(mode="after")
    def _degrees_multiply_to_gpus(self) -> TrainingJob:
        tp, pp, dp, cp = (self.tensor_parallel_degree, self.pipeline_parallel_degree, self.data_parallel_degree,
                          self.context_parallel_degree)
        given = [x for x in (tp, pp, dp) if x is not None]
        product = cp * math.prod(given)
        if None not in (tp, pp, dp):
            if product != self.n_gpus:
                raise ValueError(
                    f"tensor ({tp}) x context ({cp}) x pipeline ({pp}) x data ({dp}) parallel degrees = {product}, "
                    f"but n_gpus = {self.n_gpus}; their product must equal the GPUs")
        elif self.n_gpus % product:
            raise ValueError(f"the parallel degrees given (product {product}) must divide n_gpus = {self.n_gpus}")
        if tp is not None and pp is not None and dp is None and self.n_gpus % (tp * cp * pp):
            raise ValueError("n_gpus must be a multiple of TP x CP x PP")
        n_layers = self.layers_and_width[0]
        if pp is not None and pp > n_layers:
            raise ValueError(f"pipeline_parallel_degree ({pp}) exceeds the layers ({n_layers})")
        if self.n_gpus_reserved is not None and self.n_gpus_reserved < self.n_gpus:
            raise ValueError("n_gpus_reserved must be at least n_gpus")
        if self.sequence_length_tokens % cp:
            raise ValueError("sequence_length_tokens must be a multiple of context_parallel_degree")
        dp_fixed = self.fixed_data_parallel_degree
        if dp_fixed is not None and self.global_batch_sequences < dp_fixed * self.micro_batch_sequences:
            raise ValueError(
                f"the global batch ({self.global_batch_sequences:g} sequences) is smaller than data-parallel degree "
                f"({dp_fixed}) x micro-batch ({self.micro_batch_sequences}): every replica needs a micro-batch")
        return self

    @property
    def global_batch_sequences(self) -> float:
        """Sequences per optimizer step, ``global_batch_tokens / sequence_length_tokens`` [-]."""
        return self.global_batch_tokens / self.sequence_length_tokens

    @property
    def layers_and_width(self) -> tuple[int, int]:
        """(n_layers, d_model), estimated from N where not given (:func:`estimated_shape`)."""
        est_l, est_h = estimated_shape(self.n_params)
        return self.n_layers or est_l, self.d_model or est_h

    @property
    def fixed_data_parallel_degree(self) -> int | None:
        """DP when the layout is fixed by the job (given, or derived from TP, CP, PP), else None."""
        if self.data_parallel_degree is not None:
            return self.data_parallel_degree
        if self.tensor_parallel_degree is not None and self.pipeline_parallel_degree is not None:
            return self.n_gpus // (self.tensor_parallel_degree * self.context_parallel_degree
                                   * self.pipeline_parallel_degree)
        return None

    @classmethod
    def from_preset(cls, preset: str, *, n_gpus: int, training_tokens: float | None = None, **kwargs: Any) -> TrainingJob:
        """Job for a :data:`MODEL_PRESETS` model; ``training_tokens`` defaults to the published count, the sequence
        length to the model's context, the architecture to the preset's."""
        p = MODEL_PRESETS[preset]
        tokens = training_tokens if training_tokens is not None else p.training_tokens_reported
        kwargs.setdefault("sequence_length_tokens", p.max_context_tokens)
        kwargs.setdefault("n_layers", p.n_layers)
        kwargs.setdefault("d_model", p.d_model)
        kwargs.setdefault("kv_dim", p.n_kv_heads * p.head_dim)
        return cls(model_name=p.name, n_params=p.n_params, training_tokens=tokens, n_gpus=n_gpus, **kwargs)


class InferenceService(BaseModel):
    """An LLM served with continuous batching, up to ``batch_size`` sequences in flight per model replica.

    Examples
    --------
    >>> s = InferenceService.from_preset("llama-3-8b", prompt_tokens=512, output_tokens=256, batch_size=16)
    >>> s.kv_cache_bytes_per_token  # 2 x 32 layers x 8 KV heads x 128 x 2 B
    131072.0
    >>> InferenceService.from_preset("qwen3-235b-a22b", prompt_tokens=1, output_tokens=1, batch_size=1).active_fraction
    0.09361702127659574
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    model_name: str = "custom"
    n_params: float = Field(gt=0, le=1e14, description="parameters active per token (dense: all) [-]")
    n_params_total: float | None = Field(default=None, gt=0, le=1e14,
                                         description="MoE: all parameters held in memory; None = dense (= n_params)")
    n_layers: int = Field(ge=1, le=1000)
    n_kv_heads: int = Field(ge=1, le=1024)
    head_dim: int = Field(ge=1, le=4096)
    d_model: int | None = Field(default=None, ge=1, le=1_000_000, description="hidden size; None = estimated from N")
    weight_bytes_per_param: float = Field(default=2.0, gt=0, le=4, description="2 = BF16/FP16, 1 = FP8/INT8 [B]")
    kv_cache_bytes_per_element: float = Field(default=2.0, gt=0, le=4, description="[B]")
    prompt_tokens: int = Field(ge=1, le=10_000_000, description="input tokens per request [-]")
    output_tokens: int = Field(ge=1, le=10_000_000, description="generated tokens per request [-]")
    batch_size: int = Field(ge=1, le=65_536, description="most sequences in flight per replica (max_num_seqs) [-]")
    is_fp8_ready: bool = Field(default=False, description="the serving stack computes in FP8")
    tensor_parallel_degree: int | None = Field(
        default=None, ge=1, le=64, description="GPUs per replica; None = smallest power of two that holds the batch"
    )
    request_rate_per_s: float | None = Field(
        default=None, gt=0, le=1e7,
        description="requests per second to serve (all replicas); None = price the full-load throughput")
    target_utilisation_fraction: float = Field(
        default=1.0, gt=0, le=1,
        description="share of paid GPU time serving at the modelled throughput; 1.0 = upper bound (user assumption)",
    )
    output_tokens_total: float = Field(
        default=1e6, gt=0, description="generated tokens to price (default one million) [-]"
    )

    @model_validator(mode="after")
    def _total_at_least_active(self) -> InferenceService:
        if self.n_params_total is not None and self.n_params_total < self.n_params:
            raise ValueError("n_params_total (all experts) must be at least n_params (active per token)")
        return self

    @property
    def kv_cache_bytes_per_token(self) -> float:
        """2 x layers x KV heads x head_dim x bytes (std; domain-model s2) [B/token]."""
        return 2.0 * self.n_layers * self.n_kv_heads * self.head_dim * self.kv_cache_bytes_per_element

    @property
    def params_in_memory(self) -> float:
        """Parameters held in GPU memory (MoE: all experts) [-]."""
        return self.n_params_total or self.n_params

    @property
    def active_fraction(self) -> float:
        """Parameters used per token / parameters held [-] (1 for a dense model)."""
        return self.n_params / self.params_in_memory

    @property
    def width(self) -> int:
        """d_model, estimated from the (active) parameters when not given."""
        return self.d_model or estimated_shape(self.n_params)[1]

    @classmethod
    def from_preset(cls, preset: str, **kwargs: Any) -> InferenceService:
        """Service for a :data:`MODEL_PRESETS` model."""
        p = MODEL_PRESETS[preset]
        return cls(model_name=p.name, n_params=p.n_params, n_params_total=p.n_params_total, n_layers=p.n_layers,
                   n_kv_heads=p.n_kv_heads, head_dim=p.head_dim, d_model=p.d_model, **kwargs)


def _assumed(default: Any, unit: str, source: str, **bounds: Any) -> Any:
    return Field(default, description=source, json_schema_extra={"unit": unit}, **bounds)


class Assumption(NamedTuple):
    """One parameter the engine used: name, value, unit and where the value comes from."""

    name: str
    value: object
    unit: str
    source: str


_PM = power.PowerModel.model_fields


class EngineAssumptions(BaseModel):
    """Every default the workload engine uses, each with its unit and source (pages may override).

    Calibration: which published figure each default was fitted on is listed in docs/validation.md; those figures
    are never used to validate it.

    Examples
    --------
    >>> a = EngineAssumptions()
    >>> a.mfu_bf16_fraction, a.nic_efficiency_fraction, a.pue_ratio
    (0.49, 0.96, 1.56)
    >>> EngineAssumptions(pue_ratio=1.1).power_model().pue_ratio
    1.1
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    mfu_bf16_fraction: float = _assumed(
        0.49, "-", "utilisation of the BF16 peak while computing (bubbles, exposed communication and failures are "
        "modelled separately); calibration C1: fitted (mean log error 0) on the Llama 2 model card GPU-hours of "
        "7B/13B/70B on 2,048 A100-80GB (docs/validation.md); for comparison, end-to-end MFU: Epoch AI median 0.375 "
        "over 33 runs (epoch-research/training-cost-trends constants.py)", gt=0, le=1)
    mfu_fp8_fraction: float = _assumed(
        0.30, "-", "utilisation of the FP8 peak while computing; calibration C2: llm-foundry H100 FP8 14.4-30.3 % "
        "(mosaicml/llm-foundry benchmarking README); NeMo 29.5-39.5 % (SemiAnalysis 2025-08-20)", gt=0, le=1)
    overlap_fraction: float = _assumed(
        0.90, "-", "share of the DP gradient reduce-scatter/all-gather that can hide behind the backward (and, "
        "sharded, forward) pass of the last micro-batch; 'efficient overlap can almost entirely eliminate this "
        "increase' (Korthikanti et al., arXiv 2205.05198) read as 90 % (assumption)", ge=0, le=1)
    tp_overlap_fraction: float = _assumed(
        0.50, "-", "share of TP collectives hidden when the job enables TP comm overlap (Transformer Engine "
        "userbuffers, --tp-comm-overlap); assumption, no published fraction; without it TP is on the critical "
        "path (Narayanan et al. s3.2)", ge=0, le=1)
    pp_overlap_fraction: float = _assumed(
        1.0, "-", "share of pipeline send/recv hidden with interleaved schedules: 'pipeline-parallel communication "
        "(enabled by default)' overlap (Megatron-LM README); NeMo: overlap_p2p_comm valid only when v > 1; with v = 1 "
        "nothing is hidden", ge=0, le=1)
    cp_overlap_fraction: float = _assumed(
        0.0, "-", "share of context-parallel K/V all-gathers hidden: Llama 3 all-gathers K and V before attention, "
        "'exposed in the critical path' (arXiv 2407.21783 s3.3.2)", ge=0, le=1)
    backward_share_of_compute_fraction: float = _assumed(
        4.0 / 6.0, "-", "backward = 4ND of 6ND (Kaplan et al., arXiv 2001.08361; Transformer Math 101)", gt=0, le=1)
    training_memory_usable_fraction: float = _assumed(
        0.90, "-", "GPU memory usable for training state and activations (CUDA context, NCCL buffers, allocator "
        "fragmentation); assumption, same as vLLM's default --gpu-memory-utilization 0.9", gt=0, le=1)
    oversubscription_ratio: float = _assumed(
        1.0, "-", "R of an R:1 fabric; 1 = full bisection as in the Llama 3 3,072-GPU pods (arXiv 2407.21783 s3.3.1)",
        ge=1, le=64)
    use_nvls: bool = _assumed(
        False, "-", "NVLink SHARP all-reduce (480 GB/s busbw on 8x H100, nccl-tests#212); off = ring 370 GB/s")
    nic_efficiency_fraction: float = _assumed(
        network.NIC_EFFICIENCY_FRACTION, "-", "24 GB/s busbw from a 200 Gb/s NIC (NVIDIA/nccl#412, calibration C4)",
        gt=0, le=1)
    pcie_busbw_gb_per_s: float = _assumed(
        network.PCIE_ALLREDUCE_BUSBW_GB_PER_S, "GB/s",
        "8 GPUs on PCIe Gen5, all-reduce busbw 28 GB/s (NVIDIA/nccl#1639)", gt=0)
    intra_node_latency_s: float = _assumed(
        network.INTRA_NODE_LATENCY_S, "s", "8-byte all-reduce, 8x H100 one node: 33 us (vpbenchmarking, C5)", ge=0)
    inter_node_hop_latency_s: float = _assumed(
        network.INTER_NODE_HOP_LATENCY_S, "s", "per tree level across nodes: 38 us on 4 nodes = 33 us + 2 log2(4) x "
        "1.25 us (vpbenchmarking, C5)", ge=0)
    gradient_bucket_bytes: float = _assumed(
        float(network.DDP_BUCKET_BYTES), "B", "PyTorch DDP bucket_cap_mb = 25 (pytorch/pytorch#118421)", gt=0)
    failures_per_gpu_hour: float = _assumed(
        goodput_model.FAILURES_PER_GPU_HOUR, "1/GPU-h", "419 unexpected interruptions in 54 days on 16,384 H100 "
        "(Llama 3, arXiv 2407.21783 s3.3.4; calibration C7)", ge=0, le=1)
    checkpoint_write_gb_per_s_per_gpu: float = _assumed(
        round(goodput_model.CHECKPOINT_WRITE_GB_PER_S_PER_GPU, 4), "GB/s", "13.8 TB checkpoint at ~273 GB/s from "
        "3,072 GPUs (Narayanan et al. arXiv 2104.04473 s5.10; C9)", gt=0)
    restart_s: float = _assumed(
        goodput_model.RESTART_S, "s", "detect a failure, reschedule, reload the checkpoint: assumption (no published "
        "restart time for LLM jobs found)", ge=0)
    gpu_power_fraction_of_tdp: float = _assumed(
        power.DEFAULT_POWER_MODEL.gpu_power_fraction_of_tdp, "-", _PM["gpu_power_fraction_of_tdp"].description,
        gt=0, le=1.5)
    server_non_gpu_fraction_of_tdp: float = _assumed(
        power.DEFAULT_POWER_MODEL.server_non_gpu_fraction_of_tdp, "-",
        _PM["server_non_gpu_fraction_of_tdp"].description, ge=0, le=5)
    idle_power_fraction: float = _assumed(
        power.DEFAULT_POWER_MODEL.idle_power_fraction, "-", _PM["idle_power_fraction"].description, ge=0, le=1)
    pue_ratio: float = _assumed(power.DEFAULT_POWER_MODEL.pue_ratio, "-", _PM["pue_ratio"].description, ge=1, le=3)
    embodied_kg_co2e_per_gpu: float | None = _assumed(
        None, "kgCO2e/GPU", _PM["embodied_kg_co2e_per_gpu"].description, ge=0)
    inference_mfu_fraction: float = _assumed(
        0.40, "-", "prefill/decode compute efficiency; C6 (TRT-LLM GPT-J, A100 FP16, BS 1, 128 tokens): 12.5 ms "
        "first token implies 0.39 (derived); same as the training default", gt=0, le=1)
    inference_mbu_fraction: float = _assumed(
        0.65, "-", "memory-bandwidth utilisation with 16-bit weights; C6: A100 FP16 GPT-J BS 1 measured 111 of 170 "
        "tok/s ceiling = 0.65 (derived)", gt=0, le=1)
    inference_mbu_fp8_fraction: float = _assumed(
        0.33, "-", "memory-bandwidth utilisation with 8-bit (or smaller) weights: C6, H100 FP8 GPT-J BS 1 reached 185 "
        "of a 558 tok/s ceiling = 0.33 (derived): FP8 is not automatically faster per byte", gt=0, le=1)
    inference_memory_usable_fraction: float = _assumed(
        0.90, "-", "vLLM default --gpu-memory-utilization 0.9; TensorRT-LLM kv_cache_free_gpu_mem_fraction 0.9",
        gt=0, le=1)
    inference_max_load_fraction: float = _assumed(
        0.80, "-", "replicas are sized so each runs at most this share of its full-load request rate (queueing "
        "delay grows as 1/(1 - load)); assumption", gt=0, le=1)
    max_tensor_parallel_degree: int = _assumed(
        8, "-", "tensor parallelism kept inside one 8-GPU NVLink node (DGX/HGX H100: 8 GPUs)", ge=1, le=64)
    assumed_gpus_per_node: int = _assumed(
        8, "-", "used only with missing_fabric='assume_default': DGX/HGX H100 and A100 nodes hold 8 GPUs", ge=1)
    assumed_inter_link_gbit_per_s_per_gpu: float = _assumed(
        200.0, "Gbit/s", "used only with missing_fabric='assume_default': 200 Gb/s per GPU as in the Llama 2 "
        "clusters ('200 Gbps end-points', arXiv 2307.09288 s2.2.1) and the HDR NIC of C4", gt=0)
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

    def power_model(self) -> power.PowerModel:
        """The shared :class:`engine.power.PowerModel` with these values."""
        return power.PowerModel(
            gpu_power_fraction_of_tdp=self.gpu_power_fraction_of_tdp,
            server_non_gpu_fraction_of_tdp=self.server_non_gpu_fraction_of_tdp,
            idle_power_fraction=self.idle_power_fraction, pue_ratio=self.pue_ratio,
            embodied_kg_co2e_per_gpu=self.embodied_kg_co2e_per_gpu)


DEFAULT_ASSUMPTIONS = EngineAssumptions()

# --------------------------------------------------------------------------------------------------
# Offers
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OfferArrays:
    """Per-offer inputs, each a float (or int code) array of shape ``(n_offers,)``; NaN = unknown.

    Build it once per catalog read (:func:`offer_arrays_from_records`). The engine reads these
    arrays only; it never converts currency or units: prices are in ``currency`` (ISO 4217 code, default EUR) and
    every money output of a result is in the same currency.
    """

    price_per_gpu_hour: np.ndarray  # in `currency`; NaN = not stated
    bf16_tflops: np.ndarray
    fp8_tflops: np.ndarray  # NaN = no FP8 support
    memory_gb: np.ndarray
    memory_bandwidth_tbps: np.ndarray
    tdp_watts: np.ndarray
    gpus_per_node: np.ndarray  # NaN = not stated
    intra_node_kind: np.ndarray  # IntraNodeKind codes
    intra_bandwidth_gb_per_s: np.ndarray  # all-reduce bus bandwidth inside the node
    inter_node_kind: np.ndarray  # InterNodeKind codes
    inter_bandwidth_gbit_per_s_per_gpu: np.ndarray  # Gbit/s (node NIC bandwidth / GPUs per node), NaN = not stated
    grid_intensity_g_per_kwh: np.ndarray  # gCO2e/kWh, NaN = unknown
    mig_max_instances: np.ndarray  # 0 or NaN = no MIG
    currency: str = "EUR"

    def __post_init__(self) -> None:
        if not (isinstance(self.currency, str) and len(self.currency) == 3 and self.currency.isalpha()
                and self.currency.isupper()):
            raise ValueError(f"currency must be an ISO 4217 code such as 'EUR' or 'USD', got {self.currency!r}")
        shape = np.shape(self.price_per_gpu_hour)
        for name in self.__dataclass_fields__:
            if name == "currency":
                continue
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
            inter_bandwidth_missing=np.isnan(self.inter_bandwidth_gbit_per_s_per_gpu),
        ))
        # Distinct (memory, GPUs per node) pairs: the parallel layout depends on these only, so it is chosen once
        # per pair instead of once per offer (a catalog has a few dozen pairs for 100,000 offers).
        key = np.stack([np.nan_to_num(self.memory_gb, nan=-1.0), np.nan_to_num(self.gpus_per_node, nan=-1.0)])
        pairs, inverse = np.unique(key, axis=1, return_inverse=True) if key.shape[1] else (key, np.zeros(0, int))
        object.__setattr__(self, "_shape_pairs", (pairs, np.asarray(inverse).reshape(-1)))

    @property
    def n_offers(self) -> int:
        """Number of offers."""
        return int(np.size(self.price_per_gpu_hour))

    @property
    def price_eur_per_gpu_hour(self) -> np.ndarray:
        """The prices when they are in EUR (raises otherwise: the engine never converts currency)."""
        if self.currency != "EUR":
            raise ValueError(f"prices are in {self.currency}, not EUR; use price_per_gpu_hour")
        return self.price_per_gpu_hour

    @property
    def inter_bandwidth_gbps_per_gpu(self) -> np.ndarray:
        """Alias of :attr:`inter_bandwidth_gbit_per_s_per_gpu` [Gbit/s] (older name)."""
        return self.inter_bandwidth_gbit_per_s_per_gpu

    @property
    def shape_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Distinct (memory_gb, gpus_per_node) pairs (2 x k, NaN stored as -1) and each offer's pair index."""
        return self._shape_pairs  # type: ignore[attr-defined, no-any-return]

    @property
    def masks(self) -> OfferMasks:
        """Missing-value and fabric masks of this catalog (computed at construction)."""
        return self._masks  # type: ignore[attr-defined, no-any-return]

    def columns(self) -> dict[str, np.ndarray]:
        """The field arrays by name (for copies: ``OfferArrays(**{**o.columns(), "memory_gb": ...})``)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__ if name != "currency"}

    def take(self, index: npt.ArrayLike | slice) -> OfferArrays:
        """The offers at ``index`` (a slice, integer or boolean array), as new arrays."""
        return OfferArrays(**{name: np.asarray(arr[index]) for name, arr in self.columns().items()},
                           currency=self.currency)


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
    "inter_bw": ("inter_node_gbps_per_gpu", "inter_node_bandwidth_gbps_per_gpu", "inter_bandwidth_gbps_per_gpu",
                 "inter_bandwidth_gbit_per_s_per_gpu", "inter_node_gbit_per_s_per_gpu"),
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
    currency: str = "EUR",
) -> OfferArrays:
    nan = np.full(n, np.nan)

    def num(key: str) -> np.ndarray:
        col = _column(columns, key)
        return nan.copy() if col is None else _to_float(col)

    own = f"price_{currency.lower()}_per_gpu_hour"
    price_col = _column(columns, "price") if currency == "EUR" else columns.get(own)
    if price_col is not None:
        price = _to_float(price_col)
    elif "price_per_gpu_hour" in columns and "currency" in columns:
        # mixed currencies: rows in `currency` are taken as they are; EUR/USD rows are converted when a rate is
        # given; any other row has no price in `currency` (NaN, flagged as missing)
        amount = _to_float(columns["price_per_gpu_hour"])
        row_currency = np.asarray(columns["currency"], dtype=object)
        price = np.where(row_currency == currency, amount, np.nan)
        if usd_per_eur is not None and currency in ("EUR", "USD"):
            from engine.money import to_eur

            other = "USD" if currency == "EUR" else "EUR"
            is_other = row_currency == other
            eur = to_eur(amount, np.where(is_other, other, currency).astype(object), usd_per_eur)
            converted = eur if currency == "EUR" else eur * usd_per_eur
            price = np.where(is_other, converted, price)
    elif "price_per_gpu_hour" in columns:
        price = _to_float(columns["price_per_gpu_hour"])  # no currency column: taken to be in `currency`
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
        price_per_gpu_hour=price,
        bf16_tflops=num("bf16"),
        fp8_tflops=num("fp8"),
        memory_gb=num("memory"),
        memory_bandwidth_tbps=num("bandwidth"),
        tdp_watts=num("tdp"),
        gpus_per_node=num("gpn"),
        intra_node_kind=intra_kind,
        intra_bandwidth_gb_per_s=network.intra_node_busbw_gb_per_s(intra_kind, num("nvlink"), use_nvls),
        inter_node_kind=inter_kind,
        inter_bandwidth_gbit_per_s_per_gpu=num("inter_bw"),
        grid_intensity_g_per_kwh=grid,
        mig_max_instances=num("mig"),
        currency=currency,
    )


def offer_arrays_from_records(
    records: Sequence[Mapping[str, object]],
    *,
    usd_per_eur: float | None = None,
    grid_intensity_by_country: Mapping[str, float] | None = None,
    use_nvls: bool = False,
    currency: str = "EUR",
) -> OfferArrays:
    """Build :class:`OfferArrays` from offer rows already joined with their GPU spec.

    Columns read (first alias found; a missing column gives NaN / "not stated"):
    price in ``currency`` — for EUR ``price_eur_per_gpu_hour`` | ``best_selected_eur_per_gpu_hour`` |
    ``on_demand_eur_per_gpu_hour``, for another currency ``price_<cur>_per_gpu_hour`` — or ``price_per_gpu_hour`` +
    a per-row ``currency`` (rows in another currency converted EUR<->USD with :func:`engine.money.to_eur` when
    ``usd_per_eur`` is given, otherwise NaN); ``bf16_dense_tflops``;
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
                                      grid_intensity_by_country=grid_intensity_by_country, use_nvls=use_nvls,
                                      currency=currency)


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


# --------------------------------------------------------------------------------------------------
# Library helpers: MFU from a measurement, per-token figures
# --------------------------------------------------------------------------------------------------


def training_flop(n_params: npt.ArrayLike, training_tokens: npt.ArrayLike) -> np.ndarray:
    """Training compute C = 6 N D [FLOP] (Kaplan et al. 2020; Transformer Math 101).

    Examples
    --------
    >>> float(training_flop(174.6e9, 300e9))  # GPT-3 175B, T4 (published 3.14e23)
    3.1428e+23
    """
    return 6.0 * np.asarray(n_params, dtype=float) * np.asarray(training_tokens, dtype=float)


def mfu_from_tokens_per_s(
    tokens_per_s_per_gpu: npt.ArrayLike, n_params: float, peak_tflops: npt.ArrayLike,
    seq_tokens: float = 0.0, d_model: float = 0.0, n_layers: float = 0.0,
) -> np.ndarray:
    """Model FLOPs utilisation from a measured training throughput [-].

    ``MFU = tokens/s/GPU x (6N + 6 L h s) / peak`` (PaLM App. B with causal attention; leave the shape at 0 to
    count ``6N`` only, as the Llama 2 model card figures do).

    Examples
    --------
    MLPerf v3.1 GPT-3 175B on 512 H100 (V1): 1,109 tokens/s/GPU is 59 % of the FP8 peak (6N only):

    >>> round(float(mfu_from_tokens_per_s(1109.0, 175e9, 1979.0)), 3)
    0.588
    """
    flop = parallelism.model_flop_per_token(n_params, seq_tokens, d_model, n_layers)
    return np.asarray(tokens_per_s_per_gpu, dtype=float) * flop / (np.asarray(peak_tflops, dtype=float) * 1e12)


def mfu_from_step_time(
    step_time_s: npt.ArrayLike, tokens_per_step: float, n_gpus: float, n_params: float, peak_tflops: npt.ArrayLike,
    seq_tokens: float = 0.0, d_model: float = 0.0, n_layers: float = 0.0,
) -> np.ndarray:
    """MFU from a measured optimizer-step time: tokens/s/GPU = tokens_per_step / step / GPUs [-].

    Examples
    --------
    >>> round(float(mfu_from_step_time(11.08, 3072 * 2048, 512, 175e9, 1979.0)), 3)
    0.588
    """
    tps = tokens_per_step / (np.asarray(step_time_s, dtype=float) * n_gpus)
    return mfu_from_tokens_per_s(tps, n_params, peak_tflops, seq_tokens, d_model, n_layers)


def hfu_from_mfu(mfu: npt.ArrayLike, full_recompute: bool, seq_tokens: float, d_model: float, n_params: float,
                 n_layers: float) -> np.ndarray:
    """Hardware FLOPs utilisation: MFU x hardware/model FLOPs (recomputation counted) [-].

    Examples
    --------
    >>> round(float(hfu_from_mfu(0.40, True, 2048, 12288, 175e9, 96)), 4)  # full recomputation: x 4/3
    0.5333
    """
    return np.asarray(mfu, dtype=float) * parallelism.recompute_flop_factor(full_recompute, seq_tokens, d_model,
                                                                            n_params, n_layers)


# --------------------------------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------------------------------


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


def _missing_code(excluded: np.ndarray, price: np.ndarray, tdp: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """:class:`MissingInput` flags of the priced offers (int8)."""
    code = (np.isnan(price).view(np.int8) * np.int8(MissingInput.PRICE)
            + np.isnan(tdp).view(np.int8) * np.int8(MissingInput.TDP)
            + np.isnan(grid).view(np.int8) * np.int8(MissingInput.GRID_INTENSITY))
    return code * (~excluded).view(np.int8)


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


def _training_layout(job: TrainingJob, o: OfferArrays, a: EngineAssumptions, assume: bool
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """TP, PP, full-recomputation flag and "fits" flag per offer, chosen once per distinct (memory, GPUs/node)."""
    n_layers, d_model = job.layers_and_width
    pairs, inverse = o.shape_pairs
    k = pairs.shape[1]
    tp_k = np.ones(k)
    pp_k = np.ones(k)
    full_k = np.zeros(k, dtype=bool)
    fits_k = np.zeros(k, dtype=bool)
    gpn_default = float(a.assumed_gpus_per_node) if assume else -1.0
    for i in range(k):
        mem, gpn = pairs[0, i], pairs[1, i]
        choice = parallelism.choose_layout(
            job.n_gpus, mem * 1e9 * a.training_memory_usable_fraction if mem >= 0 else -1.0,
            gpn if gpn >= 0 else gpn_default, job.n_params, job.training_state_bytes_per_param, job.is_state_sharded,
            job.sequence_length_tokens, job.micro_batch_sequences, d_model, n_layers, job.global_batch_sequences,
            job.context_parallel_degree, job.tensor_parallel_degree, job.pipeline_parallel_degree,
            job.data_parallel_degree, job.recompute)
        if choice is not None:
            tp_k[i], pp_k[i], full_k[i] = choice
            fits_k[i] = True
        elif job.tensor_parallel_degree is not None and job.pipeline_parallel_degree is not None:
            tp_k[i], pp_k[i] = job.tensor_parallel_degree, job.pipeline_parallel_degree  # fixed layout, reported
    return tp_k[inverse], pp_k[inverse], full_k[inverse], fits_k[inverse]


def price_training(
    job: TrainingJob,
    offers: OfferArrays,
    assumptions: EngineAssumptions = DEFAULT_ASSUMPTIONS,
    missing_fabric: MissingFabricPolicy = "exclude",
) -> TrainingResult:
    """Wall-clock time, GPU-hours, cost, energy, emissions and the scaling-loss breakdown of ``job`` on every offer.

    Parameters
    ----------
    job : TrainingJob
        The run: model, tokens, GPUs, batch, parallel layout (or None to choose per offer), precision readiness.
    offers : OfferArrays
        Per-offer inputs, shape ``(n_offers,)``.
    assumptions : EngineAssumptions, optional
        Sourced defaults (utilisation, overlap, fabric efficiency, failures, power, ...).
    missing_fabric : {"exclude", "assume_default"}
        What to do when the catalog does not state GPUs per node, the intra-node interconnect or
        the inter-node fabric/bandwidth a job needs: exclude the offer with a reason, or price it
        with ``assumptions.assumed_*`` (flagged in ``assumed_default``). An explicit ``none``
        fabric always excludes multi-node jobs.

    Returns
    -------
    TrainingResult
        Arrays of shape ``(n_offers,)``; ``time_hours`` [h], ``gpu_hours`` [GPU-h], ``cost`` [offer currency],
        ``energy_kwh`` [kWh], ``emissions_kg`` [kgCO2e], shares [-], the step breakdown [s], goodput, MFU/HFU.

    Notes
    -----
    .. math::

        t_{step} = t_c\\left(1 + \\frac{p-1}{v m}\\right) + e_{TP} + e_{CP} + e_{PP} + e_{DP},\\quad
        e_{DP} = \\max\\big((1-\\varphi) t_{DP},\\ t_{DP} - w\\big),\\quad
        T = \\frac{D}{B}\\,\\frac{t_{step}}{G}

    with ``w`` the backward (and, sharded, forward) time of the last micro-batch and ``G`` the goodput.

    Examples
    --------
    Llama 2 7B on 2,048 A100-80GB (C1, calibration: published 184,320 GPU-h; 976 sequences per step are too few
    for 2,048 data-parallel replicas, so the engine picks TP 4):

    >>> a100 = offer_arrays_from_records([{"price_eur_per_gpu_hour": 2.0, "bf16_dense_tflops": 312,
    ...     "memory_gb": 80, "memory_bandwidth_tbps": 2.039, "tdp_watts": 400, "gpus_per_node": 8,
    ...     "intra_node": "NVLink-NVSwitch", "nvlink_gbps_bidirectional": 600,
    ...     "inter_node": "InfiniBand-HDR", "inter_node_gbps_per_gpu": 200}])
    >>> r = price_training(TrainingJob.from_preset("llama-2-7b", n_gpus=2048), a100)
    >>> round(float(r.gpu_hours[0]), -3), float(r.tensor_parallel_degree[0]), round(float(r.goodput_fraction[0]), 3)
    (193000.0, 4.0, 0.99)
    """
    assume = _check_policy(missing_fabric)
    a = assumptions
    o = offers
    n_off = o.n_offers
    n = float(job.n_gpus)
    N = job.n_params
    n_layers, h = (float(x) for x in job.layers_and_width)
    kvd = float(job.kv_dim or h)
    s = float(job.sequence_length_tokens)
    b = float(job.micro_batch_sequences)
    cp = float(job.context_parallel_degree)
    v = float(job.virtual_pipeline_stages)
    batch = job.global_batch_tokens
    batch_seq = job.global_batch_sequences
    steps = job.training_tokens / batch
    flop_tok = parallelism.model_flop_per_token(N, s, h, n_layers)
    attn_fwd = 2.0 * n_layers * h * s
    fwd = 2.0 * N + attn_fwd
    r_sel = 1.0 if job.recompute == "none" else (3.0 * fwd + attn_fwd) / (3.0 * fwd)
    r_full = 4.0 / 3.0
    s_b = a.backward_share_of_compute_fraction
    act_el = 2.0  # BF16 activations in TP / CP / PP traffic
    with np.errstate(divide="ignore", invalid="ignore"):
        tp, pp, full, fits = _training_layout(job, o, a, assume)
        dp = n / (tp * cp * pp)
        uses_fp8, eff_tflops = _effective_tflops(job.is_fp8_ready, o, a.mfu_bf16_fraction, a.mfu_fp8_fraction)
        _, peak_tflops = _peak_tflops(job.is_fp8_ready, o)
        r = r_sel + full * (r_full - r_sel)
        t_comp = (flop_tok * batch / (n * 1e12)) * r / eff_tflops
        m = batch_seq / (dp * b)
        t_mb = t_comp / m
        t_bubble = t_comp * (pp - 1.0) / (v * m)

        # Node shape, intra- and inter-node bandwidth, with the missing-value policy.
        mk = o.masks
        gpn_missing = mk.gpus_per_node_missing
        gpn = _fill(o.gpus_per_node, gpn_missing, a.assumed_gpus_per_node) if assume else o.gpus_per_node
        gpus_in_node = np.fmin(gpn, n)  # unknown node size: the job's own GPUs (excluded or assumed below)
        n_nodes = np.ceil(n / gpus_in_node)
        intra_missing = mk.intra_missing
        intra_bw = o.intra_bandwidth_gb_per_s
        if assume:
            intra_bw = _fill(intra_bw, intra_missing, a.assumed_intra_busbw_gb_per_s)
        inter_bw_missing = mk.inter_bandwidth_missing
        link = (_fill(o.inter_bandwidth_gbit_per_s_per_gpu, inter_bw_missing, a.assumed_inter_link_gbit_per_s_per_gpu)
                if assume else o.inter_bandwidth_gbit_per_s_per_gpu)
        tiny = 1e-30  # stands in for a NaN bandwidth that is not needed: 0 bytes / tiny = 0
        nic = np.fmax(link * (a.nic_efficiency_fraction / 8.0 / a.oversubscription_ratio), tiny)  # GB/s per GPU
        ranks_in_node = gpus_in_node / tp  # DP x CP ranks of one TP slot in a node

        def intra_for(ranks: np.ndarray | float) -> np.ndarray:
            bw = intra_bw
            if mk.has_nvlink_bridge:
                bw = network.effective_intra_busbw_gb_per_s(o.intra_node_kind, bw, ranks, a.pcie_busbw_gb_per_s)
            return np.fmax(bw, tiny)

        # Tensor parallelism (sequence parallel): 4 all-reduce equivalents per layer and micro-batch, x1.5 with
        # full recomputation (the forward ones run twice).
        redo = 1.0 + 0.5 * full
        tp_volume = 2.0 * (tp - 1.0) / tp * (4.0 * (s / cp) * b * h * act_el) * (n_layers / pp) * m * redo
        t_tp = tp_volume / (intra_for(tp) * 1e9) + (tp > 1) * (8.0 * (n_layers / pp) * m * redo * a.intra_node_latency_s)
        e_tp = t_tp * (1.0 - (a.tp_overlap_fraction if job.is_tp_comm_overlapped else 0.0))

        # Context parallelism: all-gather of K and V forward, reduce-scatter of their gradients backward.
        if cp > 1:
            g_cp = np.clip(ranks_in_node, 1.0, cp)
            bw_cp = np.where(cp / g_cp > 1, np.minimum(np.where(g_cp > 1, intra_for(g_cp), np.inf), g_cp * nic),
                             intra_for(g_cp))
            cp_volume = 2.0 * (cp - 1.0) / cp * (s * b * 2.0 * kvd * act_el) * (n_layers / pp) * m
            t_cp = cp_volume / (bw_cp * 1e9) + 2.0 * (n_layers / pp) * m * a.intra_node_latency_s
        else:
            t_cp = np.zeros(n_off)
        e_cp = t_cp * (1.0 - a.cp_overlap_fraction)

        # Pipeline send/recv: NVLink when the next stage is in the same node, else the GPU's own NIC.
        same_node = gpus_in_node >= 2.0 * tp * cp * dp
        pp_link = same_node * intra_for(2.0) + ~same_node * nic
        t_pp = (pp > 1) * (2.0 * m * v * (s / cp) * b * h * act_el / tp) / (pp_link * 1e9)
        e_pp = t_pp * (1.0 - (a.pp_overlap_fraction if v > 1 else 0.0))

        # Data parallelism: gradients of the parameters this GPU holds, over the DP x CP ranks of its group.
        k = dp * cp
        r_node = np.clip(ranks_in_node, 1.0, k)
        m_dp = k / r_node
        grad_bytes = N / (tp * pp) * job.gradient_bytes_per_param
        buckets = np.ceil(grad_bytes / a.gradient_bucket_bytes)
        bw_intra_dp = intra_for(r_node)
        bw_dp = np.where(m_dp > 1, np.minimum(np.where(r_node > 1, bw_intra_dp, np.inf), r_node * nic), bw_intra_dp)
        latency = network.collective_latency_s(r_node, m_dp, a.intra_node_latency_s, a.inter_node_hop_latency_s)
        t_dp = 2.0 * (k - 1.0) / k * grad_bytes / (bw_dp * 1e9) + buckets * latency
        window = t_mb * ((s_b + r - 1.0) + (1.0 - s_b) * float(job.is_state_sharded)) / r
        e_dp = np.maximum((1.0 - a.overlap_fraction) * t_dp, t_dp - window)

        e_comm = e_tp + e_cp + e_pp + e_dp
        t_comm = t_tp + t_cp + t_pp + t_dp
        t_step = t_comp + t_bubble + e_comm

        # Goodput: checkpoints of this GPU's training state, failures of all GPUs (Young/Daly).
        shard = tp * pp * (dp * cp if job.is_state_sharded else 1.0)
        ckpt_s = job.training_state_bytes_per_param * N / shard / (a.checkpoint_write_gb_per_s_per_gpu * 1e9)
        gp = goodput_model.goodput(n, ckpt_s, a.failures_per_gpu_hour, a.restart_s, job.checkpoint_interval_s)

        # Exclusions (priority order = code order).
        multi_gpu = n > 1
        multi_node = n_nodes > 1
        inter_none = mk.inter_none
        needs_inter = multi_node & ~inter_none
        masks: list[tuple[ExclusionReason, np.ndarray | bool]] = [
            (ExclusionReason.SPEC_MISSING, mk.spec_missing_training),
            (ExclusionReason.DOES_NOT_FIT, ~fits),
            (ExclusionReason.NOT_ENOUGH_GPUS_PER_NODE, gpn < tp),
        ]
        if assume:
            assumed_default = (
                (gpn_missing & multi_gpu) | ((gpus_in_node > 1) & intra_missing)
                | (needs_inter & (mk.inter_kind_missing | inter_bw_missing)))
        else:
            if multi_gpu:
                masks.append((ExclusionReason.GPUS_PER_NODE_NOT_STATED, gpn_missing))
                masks.append((ExclusionReason.INTRA_NODE_NOT_STATED, (gpus_in_node > 1) & intra_missing))
            assumed_default = np.zeros(n_off, dtype=bool)
        if multi_gpu:
            masks.append((ExclusionReason.NO_INTER_NODE_FABRIC, multi_node & inter_none))
            if not assume:
                masks.append((ExclusionReason.INTER_NODE_NOT_STATED, needs_inter & mk.inter_kind_missing))
                masks.append((ExclusionReason.INTER_BANDWIDTH_NOT_STATED, needs_inter & inter_bw_missing))
        code, excluded, nan_x = _exclusions(n_off, masks)

        time_hours = steps * t_step / (3600.0 * gp.fraction) + nan_x
        gpu_hours = time_hours * n
        cost = gpu_hours * o.price_per_gpu_hour
        reserved = float(job.n_gpus_reserved or job.n_gpus)
        e = power.job_energy(gpu_hours, o.tdp_watts, o.grid_intensity_g_per_kwh, (reserved - n) * time_hours,
                             a.power_model())
        eff = t_comp / t_step + nan_x
        mfu = flop_tok * batch / (t_step * n * peak_tflops * 1e12) + nan_x
        g = gp.fraction + nan_x
        bound = (t_comm > t_comp).view(np.int8) * np.int8(Bound.COMMUNICATION)
        bound -= (bound + 1) * excluded.view(np.int8)  # excluded -> -1 (UNDETERMINED)
        tokens = job.training_tokens
        layers = (tp + nan_x, pp + nan_x, np.full(n_off, cp) + nan_x, dp + nan_x)
        return TrainingResult(
            time_hours=time_hours,
            gpu_hours=gpu_hours,
            cost=cost,
            currency=o.currency,
            energy_kwh=e.facility_kwh,
            emissions_kg=e.total_kg,
            bound=bound,
            communication_share_fraction=t_comm / t_step + nan_x,
            excluded=excluded,
            exclusion_code=code,
            missing_code=_missing_code(excluded, o.price_per_gpu_hour, o.tdp_watts, o.grid_intensity_g_per_kwh),
            assumed_default=assumed_default & ~excluded,
            uses_fp8=uses_fp8 & ~excluded,
            missing_fabric_policy=missing_fabric,
            assumptions=_context(missing_fabric, a, (
                Assumption("gradient_bytes_per_param", job.gradient_bytes_per_param, "B", "TrainingJob"),
                Assumption("n_layers, d_model", f"{n_layers:g}, {h:g}", "-",
                           "TrainingJob" if job.n_layers and job.d_model else "estimated from N (h/L = 128)"),
                Assumption("virtual_pipeline_stages", job.virtual_pipeline_stages, "-", "TrainingJob"),
            )),
            training_flop=float(6.0 * N * tokens),
            model_flop=float(flop_tok * tokens),
            tensor_parallel_degree=layers[0],
            pipeline_parallel_degree=layers[1],
            context_parallel_degree=layers[2],
            data_parallel_degree=layers[3],
            full_recompute=full & ~excluded,
            micro_batches=m + nan_x,
            scaling_efficiency_fraction=eff,
            exposed_communication_share_fraction=e_comm / t_step + nan_x,
            bubble_fraction=t_bubble / t_step + nan_x,
            step_time_s=t_step + nan_x,
            compute_time_per_step_s=t_comp + nan_x,
            bubble_time_per_step_s=t_bubble + nan_x,
            communication_time_per_step_s=t_comm + nan_x,
            exposed_tp_s=e_tp + nan_x,
            exposed_cp_s=e_cp + nan_x,
            exposed_pp_s=e_pp + nan_x,
            exposed_dp_s=e_dp + nan_x,
            data_parallel_bytes_per_gpu=2.0 * (k - 1.0) / k * grad_bytes + nan_x,
            n_nodes=n_nodes + nan_x,
            perfect_scaling_time_hours=steps * t_comp / 3600.0 + nan_x,
            mfu_fraction=mfu,
            hfu_fraction=mfu * r,
            goodput_fraction=g,
            mtbf_hours=gp.mtbf_hours + nan_x,
            checkpoint_interval_s=gp.checkpoint_interval_s + nan_x,
            loss_compute_fraction=g * eff,
            loss_bubble_fraction=g * t_bubble / t_step,
            loss_communication_fraction=g * e_comm / t_step,
            loss_failures_fraction=1.0 - g,
            tokens_per_s_per_gpu=tokens / (gpu_hours * 3600.0),
            cost_per_million_tokens=cost * (1e6 / tokens),
            energy_j_per_token=e.facility_kwh * (3.6e6 / tokens),
            gpu_only_energy_kwh=e.gpu_only_kwh,
            idle_energy_kwh=e.idle_kwh,
            embodied_kg=e.embodied_kg + nan_x,
        )


def _replica_tp(need_bytes: float, usable_gb: np.ndarray, max_tp: int, fixed: int | None) -> np.ndarray:
    """Smallest power of two of GPUs whose usable memory holds ``need_bytes`` (capped at ``max_tp``), or the fixed TP."""
    if fixed is not None:
        return np.full(usable_gb.shape, float(fixed))
    replicas_needed = (need_bytes / 1e9) / usable_gb
    tp = np.ones(usable_gb.shape)
    power_ = 1
    while power_ < max_tp:  # 1 + sum of 2^j [need > 2^j]
        tp += (replicas_needed > power_) * float(power_)
        power_ *= 2
    return tp


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
        Model shape (dense or MoE), request shape (prompt/output tokens), concurrency cap, precision readiness,
        optional request rate.
    offers : OfferArrays
        Per-offer inputs, shape ``(n_offers,)``.
    assumptions : EngineAssumptions, optional
        Sourced defaults (MFU, MBU per precision, usable memory, load ceiling, power, ...).
    missing_fabric : {"exclude", "assume_default"}
        Policy when a multi-GPU replica needs GPUs per node or the intra-node interconnect and the
        catalog does not state them (see :func:`price_training`).

    Returns
    -------
    InferenceResult
        ``time_hours`` / ``gpu_hours`` / ``cost`` / ``energy_kwh`` / ``emissions_kg`` for
        ``service.output_tokens_total`` generated tokens, plus per-token figures, latency (percentiles at the
        request rate) and the KV-cache capacity.

    Notes
    -----
    Continuous batching (:mod:`engine.serving`): concurrency ``b = min(batch_size, KV capacity)``; without a
    request rate the replica runs at full load ``X(b) = 1 / (t_pf + O t_step(b) / b)`` for the target
    utilisation; with a rate ``λ`` the engine sizes ``R = ceil(λ / (ρ_max X(b)))`` replicas and reports the
    latency percentiles at ``λ / R`` each.

    Examples
    --------
    GPT-J-sized model at batch 1 on one A100-80GB (C6: measured 111 tok/s, ceiling 170):

    >>> a100 = offer_arrays_from_records([{"price_eur_per_gpu_hour": 2.0, "bf16_dense_tflops": 312,
    ...     "memory_gb": 80, "memory_bandwidth_tbps": 2.039, "tdp_watts": 400, "gpus_per_node": 1}])
    >>> s = InferenceService(n_params=6e9, n_layers=28, n_kv_heads=16, head_dim=256, d_model=4096,
    ...                      prompt_tokens=128, output_tokens=128, batch_size=1)
    >>> r = price_inference(s, a100)
    >>> round(1 / float(r.time_per_output_token_s[0]), 1), r.bound_text()[0]
    (108.5, 'memory')
    """
    assume = _check_policy(missing_fabric)
    a = assumptions
    o = offers
    n_off = o.n_offers
    svc = service
    P = float(svc.prompt_tokens)
    O = float(svc.output_tokens)  # noqa: E741
    d = float(svc.width)
    L = float(svc.n_layers)
    W = svc.params_in_memory * svc.weight_bytes_per_param
    kv_tok = svc.kv_cache_bytes_per_token
    kv_seq = kv_tok * (P + 0.5 * O)
    wl = serving.Workload(
        weight_bytes_total=W, active_fraction=svc.active_fraction, kv_bytes_per_seq=kv_seq,
        decode_flop_per_token=2.0 * svc.n_params + 4.0 * L * d * (P + 0.5 * O),
        prefill_flop_per_request=P * (2.0 * svc.n_params + 2.0 * L * d * P),
        prompt_tokens=P, output_tokens=O, n_layers=L, d_model=d, activation_bytes=2.0)
    mbu = a.inference_mbu_fp8_fraction if svc.weight_bytes_per_param <= 1.0 else a.inference_mbu_fraction
    util = svc.target_utilisation_fraction
    batch = float(svc.batch_size)
    pm = a.power_model()
    with np.errstate(divide="ignore", invalid="ignore"):
        uses_fp8, peak_tflops = _peak_tflops(svc.is_fp8_ready, o)
        usable_gb = o.memory_gb * a.inference_memory_usable_fraction
        tp = _replica_tp(W + batch * kv_seq, usable_gb, a.max_tensor_parallel_degree, svc.tensor_parallel_degree)
        kv_cap = serving.kv_capacity_sequences(o.memory_gb, tp, a.inference_memory_usable_fraction, wl)
        no_fit = ~(kv_cap >= 1.0)
        conc = np.clip(np.fmin(kv_cap, batch), 1.0, None)

        mk = o.masks
        gpn_missing = mk.gpus_per_node_missing
        multi_gpu = tp > 1
        intra_missing = mk.intra_missing
        gpn = _fill(o.gpus_per_node, gpn_missing, a.assumed_gpus_per_node) if assume else o.gpus_per_node
        intra = o.intra_bandwidth_gb_per_s
        if assume:
            intra = _fill(intra, intra_missing, a.assumed_intra_busbw_gb_per_s)
        if mk.has_nvlink_bridge:
            intra = network.effective_intra_busbw_gb_per_s(o.intra_node_kind, intra, tp, a.pcie_busbw_gb_per_s)
        spec = serving.ReplicaSpec(tp, peak_tflops * (1e12 * a.inference_mfu_fraction),
                                   o.memory_bandwidth_tbps * (1e12 * mbu), np.fmax(intra, 1e-30),
                                   a.intra_node_latency_s)
        full_load = serving.full_load(conc, wl, spec)
        t_tp = serving.tp_allreduce_s(conc, wl, spec)

        rate = svc.request_rate_per_s
        if rate is None:
            replicas = np.ones(n_off)
            tok_s_gpu = full_load.requests_per_s * O / tp
            ttft, tpot = full_load.ttft_s, full_load.tpot_s
            latency = ttft + O * tpot
            pct = [np.full(n_off, np.nan)] * 6
            paid_share, load = util, np.ones(n_off)
        else:
            replicas = np.ceil(rate / (a.inference_max_load_fraction * full_load.requests_per_s))
            lp = serving.at_rate(rate / replicas, conc, wl, spec)
            tok_s_gpu = rate * O / (replicas * tp)
            ttft, tpot, latency = lp.ttft_mean_s, lp.tpot_s, lp.latency_mean_s
            pct = [lp.ttft_p50_s, lp.ttft_p90_s, lp.ttft_p99_s, lp.latency_p50_s, lp.latency_p90_s, lp.latency_p99_s]
            paid_share, load = 1.0, (rate / replicas) / full_load.requests_per_s

        # MIG: smallest slice that holds a single-GPU replica with its batch (the most instances per GPU):
        # 1g.10gb (1 of 8 memory slices, 7 per GPU), else 1g.20gb (2, 4 per GPU), else 3g.40gb (4, 2).
        replicas_needed = ((W + batch * kv_seq) / 1e9) / usable_gb
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
        mig_spec = serving.ReplicaSpec(np.ones(n_off), spec.flops * mig_compute, spec.bytes_per_s * mig_memory,
                                       spec.intra_busbw_gb_per_s, 0.0)
        mig_tok_s_gpu = mig_inst * serving.full_load(batch, wl, mig_spec).requests_per_s * O

        # Exclusions.
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
        code, excluded, nan_x = _exclusions(n_off, masks)

        total = svc.output_tokens_total
        tok_out = tok_s_gpu + nan_x
        gpu_hours = total / (3600.0 * paid_share * tok_out)
        time_hours = gpu_hours / (tp * replicas)
        cost = gpu_hours * o.price_per_gpu_hour
        kw = (paid_share * power.facility_power_kw_per_gpu(o.tdp_watts, load, pm)
              + (1.0 - paid_share) * power.facility_power_kw_per_gpu(o.tdp_watts, 0.0, pm))
        energy = gpu_hours * kw
        emissions = energy * o.grid_intensity_g_per_kwh / 1000.0
        if pm.embodied_kg_co2e_per_gpu is not None:
            emissions = emissions + gpu_hours * (pm.embodied_kg_co2e_per_gpu / pm.service_life_hours)
        per_million = 1e6 / total
        j_per_token = energy * (3.6e6 / total)
        mig_ok = c4 & ~excluded
        mig_tok_out = mig_tok_s_gpu + 0.0 / mig_ok
        t_step = full_load.step_s
        bound = (full_load.step_memory_s >= full_load.step_compute_s).view(np.int8) * np.int8(Bound.MEMORY)
        comm_bound = t_tp > np.maximum(full_load.step_memory_s, full_load.step_compute_s)
        bound = bound + comm_bound.view(np.int8) * (np.int8(Bound.COMMUNICATION) - bound)
        bound -= (bound + 1) * excluded.view(np.int8)
        mig_code = (mig_code + np.int8(1)) * mig_ok.view(np.int8) - np.int8(1)  # -1 unless usable
        ai = conc * wl.decode_flop_per_token / (
            serving.weights_read_bytes(conc, W, svc.active_fraction) + conc * kv_seq)
        return InferenceResult(
            time_hours=time_hours,
            gpu_hours=gpu_hours,
            cost=cost,
            currency=o.currency,
            energy_kwh=energy,
            emissions_kg=emissions,
            bound=bound,
            communication_share_fraction=t_tp / t_step + nan_x,
            excluded=excluded,
            exclusion_code=code,
            missing_code=_missing_code(excluded, o.price_per_gpu_hour, o.tdp_watts, o.grid_intensity_g_per_kwh),
            assumed_default=assumed_default & ~excluded,
            uses_fp8=uses_fp8 & ~excluded,
            missing_fabric_policy=missing_fabric,
            assumptions=_context(missing_fabric, a, (
                Assumption("target_utilisation_fraction", util, "-", "InferenceService (user assumption)"),
                Assumption("kv_cache_bytes_per_token", kv_tok, "B", "2 x layers x KV heads x head_dim x bytes (std)"),
                Assumption("memory_bandwidth_utilisation", mbu, "-",
                           "inference_mbu_fp8_fraction (8-bit weights)" if svc.weight_bytes_per_param <= 1.0
                           else "inference_mbu_fraction (16-bit weights)"),
            )),
            tensor_parallel_degree=tp + nan_x,
            replicas=replicas + nan_x,
            concurrency=(conc if rate is None else lp.concurrency) + nan_x,
            kv_capacity_sequences=kv_cap + nan_x,
            tokens_per_s_per_gpu=tok_out,
            request_latency_s=latency + nan_x,
            time_to_first_token_s=ttft + nan_x,
            time_per_output_token_s=tpot + nan_x,
            ttft_p50_s=pct[0] + nan_x, ttft_p90_s=pct[1] + nan_x, ttft_p99_s=pct[2] + nan_x,
            latency_p50_s=pct[3] + nan_x, latency_p90_s=pct[4] + nan_x, latency_p99_s=pct[5] + nan_x,
            cost_per_million_tokens=cost * per_million,
            energy_kwh_per_million_tokens=energy * per_million,
            emissions_kg_per_million_tokens=emissions * per_million,
            energy_j_per_token=j_per_token,
            tokens_per_joule=1.0 / j_per_token,
            arithmetic_intensity_flop_per_byte=ai + nan_x,
            machine_balance_flop_per_byte=peak_tflops / o.memory_bandwidth_tbps + nan_x,
            mig_profile_code=mig_code,
            mig_instances_per_gpu=mig_inst * mig_ok,
            mig_tokens_per_s_per_gpu=mig_tok_out,
            mig_cost_per_million_tokens=o.price_per_gpu_hour * (1e6 / (3600.0 * util)) / mig_tok_out,
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

    Returns ``time_hours``, ``cost``, ``energy_kwh``, ``emissions_kg``, ``scaling_efficiency_fraction``,
    ``goodput_fraction`` and ``exclusion_code`` lists; used to check the vectorised kernel and as the baseline of
    ``bench/bench_workload.py``. The layout choice calls :func:`engine.parallelism.choose_layout` per offer.
    """
    assume = _check_policy(missing_fabric)
    a = assumptions
    n = float(job.n_gpus)
    N = job.n_params
    n_layers, h = (float(x) for x in job.layers_and_width)
    kvd = float(job.kv_dim or h)
    s = float(job.sequence_length_tokens)
    b = float(job.micro_batch_sequences)
    cp = float(job.context_parallel_degree)
    v = float(job.virtual_pipeline_stages)
    batch = job.global_batch_tokens
    batch_seq = job.global_batch_sequences
    steps = job.training_tokens / batch
    flop_tok = 6.0 * N + 6.0 * n_layers * h * s
    attn_fwd = 2.0 * n_layers * h * s
    fwd = 2.0 * N + attn_fwd
    r_sel = 1.0 if job.recompute == "none" else (3.0 * fwd + attn_fwd) / (3.0 * fwd)
    s_b = a.backward_share_of_compute_fraction
    pm = a.power_model()
    reserved = float(job.n_gpus_reserved or job.n_gpus)
    nan = math.nan
    keys = ("time_hours", "cost", "energy_kwh", "emissions_kg", "scaling_efficiency_fraction", "goodput_fraction",
            "exclusion_code")
    out: dict[str, list[float]] = {k: [] for k in keys}
    cols = [getattr(offers, f).tolist() for f in (
        "price_per_gpu_hour", "bf16_tflops", "fp8_tflops", "memory_gb", "tdp_watts", "gpus_per_node",
        "intra_node_kind", "intra_bandwidth_gb_per_s", "inter_node_kind", "inter_bandwidth_gbit_per_s_per_gpu",
        "grid_intensity_g_per_kwh")]
    for price, bf16, fp8, mem, tdp, gpn, ikind, ibw, ekind, ebw, grid in zip(*cols, strict=True):
        fp8_used = job.is_fp8_ready and fp8 > 0
        f = (fp8 * a.mfu_fp8_fraction if fp8_used else bf16 * a.mfu_bf16_fraction) * 1e12
        gpn_missing = math.isnan(gpn)
        if gpn_missing and assume:
            gpn = float(a.assumed_gpus_per_node)
        choice = parallelism.choose_layout(
            job.n_gpus, mem * 1e9 * a.training_memory_usable_fraction if not math.isnan(mem) else -1.0,
            gpn if not math.isnan(gpn) else -1.0, N, job.training_state_bytes_per_param, job.is_state_sharded,
            s, b, h, n_layers, batch_seq, job.context_parallel_degree, job.tensor_parallel_degree,
            job.pipeline_parallel_degree, job.data_parallel_degree, job.recompute)
        if choice is not None:
            tp, pp, full = float(choice[0]), float(choice[1]), choice[2]
        elif job.tensor_parallel_degree is not None and job.pipeline_parallel_degree is not None:
            tp, pp, full = float(job.tensor_parallel_degree), float(job.pipeline_parallel_degree), False
        else:
            tp, pp, full = 1.0, 1.0, False
        dp = n / (tp * cp * pp)
        in_node = n if math.isnan(gpn) else min(gpn, n)
        nodes = math.ceil(n / in_node)
        intra_missing = math.isnan(ibw)
        if assume and intra_missing:
            ibw = a.assumed_intra_busbw_gb_per_s
        e_none = ekind == InterNodeKind.NONE
        e_kind_missing = ekind == InterNodeKind.UNKNOWN
        e_bw_missing = math.isnan(ebw)
        if assume and e_bw_missing:
            ebw = a.assumed_inter_link_gbit_per_s_per_gpu
        # exclusions
        multi_node = nodes > 1
        needs_inter = multi_node and not e_none
        code = 0
        if math.isnan(bf16) or math.isnan(mem):
            code = 1
        elif choice is None:
            code = 2
        elif gpn < tp:
            code = 3
        elif not assume and gpn_missing and n > 1:
            code = 4
        elif not assume and in_node > 1 and intra_missing:
            code = 5
        elif n > 1 and multi_node and e_none:
            code = 6
        elif not assume and n > 1 and needs_inter and e_kind_missing:
            code = 7
        elif not assume and n > 1 and needs_inter and e_bw_missing:
            code = 8
        out["exclusion_code"].append(code)
        if code:
            for k in keys[:-1]:
                out[k].append(nan)
            continue

        def intra_for(ranks: float, bw: float = ibw, kind: int = ikind) -> float:
            return a.pcie_busbw_gb_per_s if kind == IntraNodeKind.NVLINK_BRIDGE and ranks > 2 else bw

        nic = ebw * a.nic_efficiency_fraction / 8.0 / a.oversubscription_ratio
        r = 4.0 / 3.0
        if not full:
            r = r_sel
        t_comp = flop_tok * batch / n * r / f
        m = batch_seq / (dp * b)
        t_mb = t_comp / m
        t_bubble = t_comp * (pp - 1.0) / (v * m)
        redo = 1.5 if full else 1.0
        if tp > 1:
            t_tp = (2.0 * (tp - 1.0) / tp * 4.0 * (s / cp) * b * h * 2.0 * (n_layers / pp) * m * redo
                    / (intra_for(tp) * 1e9) + 8.0 * (n_layers / pp) * m * redo * a.intra_node_latency_s)
        else:
            t_tp = 0.0
        e_tp = t_tp * (1.0 - (a.tp_overlap_fraction if job.is_tp_comm_overlapped else 0.0))
        ranks_in_node = in_node / tp
        if cp > 1:
            g_cp = min(max(ranks_in_node, 1.0), cp)
            bw_cp = (min(intra_for(g_cp) if g_cp > 1 else math.inf, g_cp * nic) if cp / g_cp > 1
                     else intra_for(g_cp))
            t_cp = (2.0 * (cp - 1.0) / cp * s * b * 2.0 * kvd * 2.0 * (n_layers / pp) * m / (bw_cp * 1e9)
                    + 2.0 * (n_layers / pp) * m * a.intra_node_latency_s)
        else:
            t_cp = 0.0
        e_cp = t_cp * (1.0 - a.cp_overlap_fraction)
        if pp > 1:
            link = intra_for(2.0) if in_node >= 2.0 * tp * cp * dp else nic
            t_pp = 2.0 * m * v * (s / cp) * b * h * 2.0 / tp / (link * 1e9)
        else:
            t_pp = 0.0
        e_pp = t_pp * (1.0 - (a.pp_overlap_fraction if v > 1 else 0.0))
        k = dp * cp
        r_node = min(max(ranks_in_node, 1.0), k)
        m_dp = k / r_node
        grad = N / (tp * pp) * job.gradient_bytes_per_param
        buckets = math.ceil(grad / a.gradient_bucket_bytes)
        if m_dp > 1:
            bw_dp = min(intra_for(r_node) if r_node > 1 else math.inf, r_node * nic)
        else:
            bw_dp = intra_for(r_node)
        lat = 0.0
        if k > 1:
            lat = a.intra_node_latency_s + 2.0 * math.ceil(math.log2(max(m_dp, 1.0))) * a.inter_node_hop_latency_s
        t_dp = (2.0 * (k - 1.0) / k * grad / (bw_dp * 1e9) if k > 1 else 0.0) + buckets * lat
        window = t_mb * ((s_b + r - 1.0) + (1.0 - s_b) * float(job.is_state_sharded)) / r
        e_dp = max((1.0 - a.overlap_fraction) * t_dp, t_dp - window)
        t_step = t_comp + t_bubble + e_tp + e_cp + e_pp + e_dp
        shard = tp * pp * (dp * cp if job.is_state_sharded else 1.0)
        delta = job.training_state_bytes_per_param * N / shard / (a.checkpoint_write_gb_per_s_per_gpu * 1e9)
        lam = a.failures_per_gpu_hour * n
        if lam > 0:
            mtbf = 3600.0 / lam
            if job.checkpoint_interval_s is not None:
                tau = job.checkpoint_interval_s
            elif delta < 2.0 * mtbf:
                x = delta / (2.0 * mtbf)
                tau = math.sqrt(2.0 * delta * mtbf) * (1.0 + math.sqrt(x) / 3.0 + x / 9.0) - delta
            else:
                tau = mtbf
            if tau > 0:
                g = min(tau / (mtbf * math.exp(a.restart_s / mtbf) * math.expm1((tau + delta) / mtbf)), 1.0)
            else:
                g = math.exp(-a.restart_s / mtbf)
        else:
            g = 1.0
        hours = steps * t_step / 3600.0 / g
        gpu_hours = n * hours
        full_kw = tdp * (pm.gpu_power_fraction_of_tdp + pm.server_non_gpu_fraction_of_tdp) / 1000.0 * pm.pue_ratio
        energy = gpu_hours * full_kw + (reserved - n) * hours * full_kw * pm.idle_power_fraction
        emissions = energy * grid / 1000.0
        if pm.embodied_kg_co2e_per_gpu is not None:
            emissions += (gpu_hours + (reserved - n) * hours) * pm.embodied_kg_co2e_per_gpu / pm.service_life_hours
        out["time_hours"].append(hours)
        out["cost"].append(gpu_hours * price)
        out["energy_kwh"].append(energy)
        out["emissions_kg"].append(emissions)
        out["scaling_efficiency_fraction"].append(t_comp / t_step)
        out["goodput_fraction"].append(g)
    return out
