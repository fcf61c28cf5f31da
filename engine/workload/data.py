"""Sourced data tables of the workload engine: grid carbon intensity by country, NVIDIA MIG profiles and
the architectures of published models (presets).

Part of :mod:`engine.workload`; the references [n] are in its docstring.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field

#: Carbon intensity of electricity generation by country, ISO 3166-1 alpha-2 -> [gCO2e/kWh], year 2021.
#: Source: CodeCarbon's ``codecarbon/data/private_infra/global_energy_mix.json`` (field
#: ``carbon_intensity``, built from the Our World in Data energy dataset), read at commit
#: 0963f17527d0a89262eb849946ca7af4d0f9434c of https://github.com/mlco2/codecarbon . Values are
#: copied, not rounded. They are annual national averages: users can override any of them
#: (``grid_intensity_by_country`` in :func:`engine.adapters.offer_arrays_from_records`) or supply a per-offer value.
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
#: Compute and memory slices of a MIG-capable 80 GB A100/H100 (MIG User Guide, "Supported MIG Profiles": SMs in
#: sevenths, memory in eighths, as in :data:`MIG_PROFILES`).
MIG_COMPUTE_SLICES = 7
MIG_MEMORY_SLICES = 8


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
    if sum(p.compute_slices for p in items) > MIG_COMPUTE_SLICES:
        return False

    def place(i: int, used: int) -> bool:
        if i == len(items):
            return True
        p = items[i]
        for start in p.placements:
            mask = ((1 << p.memory_slices) - 1) << start
            if start + p.memory_slices <= MIG_MEMORY_SLICES and not used & mask and place(i + 1, used | mask):
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
