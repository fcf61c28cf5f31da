"""Which offers a client's question is about: GPU class, memory per GPU, workload fit, residency.

Rankings and "cheapest" answers compare like with like only when they are restricted to offers that can
do the job: an L4 (24 GB) must not outrank an H100 for a 70B fine-tune it cannot hold. This module turns
a client's requirements into :class:`engine.scoring.Constraints`, so that the Scoring, Workload cost and
Placement pages filter with one implementation (:func:`engine.scoring.apply_constraints`) and every
excluded offer comes back with its reasons.

* :class:`WorkloadFit` derives the memory a model needs per GPU from its size and precision
  (:func:`memory_need_gb_per_gpu`, rule below).
* :class:`OfferScope`: GPU class (models), minimum memory per GPU, workload fit, and whether flagged
  price outliers (:mod:`engine.outliers`) may be used.
* :class:`Residency`: EU/EEA data centre, EU parent, EU/EEA legal seat, required certifications.
* :func:`engine.adapters.is_marketplace`: offers sold by third-party hosts (community cloud, marketplace), where no
  commitment can be bought.

Memory rule (:func:`memory_need_gb_per_gpu`)
--------------------------------------------
* **Training or full fine-tune**: weights, gradients and AdamW state take 16 bytes per parameter in mixed
  precision (2 B BF16 weights + 2 B gradients + 12 B FP32 master weights, momentum and variance:
  Rajbhandari et al., "ZeRO", SC 2020, section 3.1; EleutherAI "Transformer Math 101", 2023), sharded over
  every GPU of the cluster (ZeRO-3 / FSDP), in the 90 % of memory usable for training:
  need = 16 N / (n_gpus x 0.9). Both figures are the Workload cost page's own
  (``TrainingJob.training_state_bytes_per_param``, ``training_memory_usable_fraction``), which adds the
  activations to decide "does not fit": an offer this rule leaves out never fits there.
* **Serving**: the weights (2 B per parameter in BF16, 1 B in FP8, 0.5 B in INT4) split over a
  tensor-parallel group inside one node of at most 8 GPUs, of which 90 % of memory is usable (vLLM's
  default ``--gpu-memory-utilization 0.9``): need = N b / (min(n_gpus, 8) x 0.9). Both constants are
  :data:`engine.workload.DEFAULT_ASSUMPTIONS` (``max_tensor_parallel_degree``,
  ``inference_memory_usable_fraction``).

Both are lower bounds: activations (training) and the KV cache (serving) need more. A GPU below the
bound cannot run the job as specified; one above it may still need more GPUs than assumed.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from engine.scoring import Constraints
from engine.workload import DEFAULT_ASSUMPTIONS, TrainingJob

__all__ = [
    "BYTES_PER_PARAM",
    "FIT_USES",
    "WorkloadFit",
    "memory_need_gb_per_gpu",
    "OfferScope",
    "Residency",
    "scope_constraints",
]

#: Training state per parameter [B]: the Workload engine's own default (16: ZeRO section 3.1, Transformer
#: Math 101), so the two pages agree on what fits.
TRAINING_STATE_BYTES_PER_PARAM = float(TrainingJob.model_fields["training_state_bytes_per_param"].default)

#: Use of the model -> bytes per parameter held in GPU memory [B].
BYTES_PER_PARAM: dict[str, float] = {
    "training": TRAINING_STATE_BYTES_PER_PARAM,
    "serving-bf16": 2.0,
    "serving-fp8": 1.0,
    "serving-int4": 0.5,
}
#: Use -> how the page names it.
FIT_USES: dict[str, str] = {
    "training": "Training or full fine-tune (16 B per parameter, sharded over the cluster)",
    "serving-bf16": "Serving in BF16 (2 B per parameter)",
    "serving-fp8": "Serving in FP8 (1 B per parameter)",
    "serving-int4": "Serving in INT4 (0.5 B per parameter)",
}


def memory_need_gb_per_gpu(n_params: float | np.ndarray, use: str, n_gpus: int | np.ndarray) -> np.ndarray:
    """Memory one GPU needs at least to hold the model [GB] (rule in the module docstring).

    Parameters
    ----------
    n_params : float or array_like
        Parameters N [-] (dense; for a mixture of experts, all of them: every expert sits in memory).
    use : {"training", "serving-bf16", "serving-fp8", "serving-int4"}
    n_gpus : int or array_like
        GPUs the model is spread over: the whole cluster for training (state sharded), the replica's GPUs
        for serving (capped at 8, one node).

    Examples
    --------
    A 70B full fine-tune on 16 GPUs: 16 B x 70e9 / (16 x 0.9) = 77.8 GB per GPU (an 80 GB H100 holds its
    state, a 48 GB L40S does not). Serving it in BF16 on one 8-GPU node: 140 GB / (8 x 0.9) = 19.4 GB per GPU.

    >>> round(float(memory_need_gb_per_gpu(70e9, "training", 16)), 1)
    77.8
    >>> round(float(memory_need_gb_per_gpu(70e9, "serving-bf16", 16)), 1)
    19.4
    """
    bytes_per_param = BYTES_PER_PARAM[use]
    gpus = np.asarray(n_gpus, dtype=float)
    if use == "training":
        usable = DEFAULT_ASSUMPTIONS.training_memory_usable_fraction
        return np.asarray(n_params, dtype=float) * bytes_per_param / (gpus * usable) / 1e9
    a = DEFAULT_ASSUMPTIONS
    group = np.minimum(gpus, float(a.max_tensor_parallel_degree))
    return np.asarray(n_params, dtype=float) * bytes_per_param / (group * a.inference_memory_usable_fraction) / 1e9


class WorkloadFit(BaseModel):
    """A model the GPUs must hold: size, use (precision) and the GPUs it is spread over."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model_params_b: float = Field(default=70.0, gt=0, le=100_000, description="model size [billion parameters]")
    use: Literal["training", "serving-bf16", "serving-fp8", "serving-int4"] = "training"
    n_gpus: int = Field(default=16, ge=1, le=100_000, description="GPUs the model is spread over [-]")

    def need_gb_per_gpu(self) -> float:
        """Memory per GPU the model needs at least [GB] (:func:`memory_need_gb_per_gpu`)."""
        return float(memory_need_gb_per_gpu(self.model_params_b * 1e9, self.use, self.n_gpus))

    def describe(self) -> str:
        """'a 70B model, training or full fine-tune on 16 GPUs, needs at least 78 GB per GPU'."""
        use = FIT_USES[self.use].split(" (")[0].lower()
        spread = f"on {self.n_gpus} GPUs" if self.use == "training" else (
            f"on {min(self.n_gpus, DEFAULT_ASSUMPTIONS.max_tensor_parallel_degree)} GPUs per replica")
        return (f"a {self.model_params_b:g}B model, {use} {spread}, needs at least "
                f"{self.need_gb_per_gpu():.0f} GB per GPU")


class OfferScope(BaseModel):
    """The offers a question is about. Empty/None fields do not narrow anything."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    gpu_models: tuple[str, ...] = Field(default=(), description="GPU class: catalog gpu_model values; () = any")
    min_memory_gb_per_gpu: float | None = Field(default=None, gt=0, le=10_000, description="[GB]")
    fit: WorkloadFit | None = None  # the model the GPUs must hold; sets a memory floor
    include_price_outliers: bool = False  # use prices flagged by engine.outliers

    def memory_floor_gb(self) -> float | None:
        """The stricter of the typed minimum and the workload fit's need [GB]; None when neither is set."""
        floors = [v for v in (self.min_memory_gb_per_gpu, self.fit.need_gb_per_gpu() if self.fit else None)
                  if v is not None]
        return max(floors) if floors else None


class Residency(BaseModel):
    """Where the data may be and who may control it. Field names follow :class:`Constraints`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    eu_resident_only: bool = False
    eu_jurisdiction_only: bool = False
    eu_legal_seat_only: bool = False
    required_certifications: tuple[str, ...] = ()

    @classmethod
    def of(cls, constraints: Constraints) -> Residency:
        """The residency part of scoring constraints."""
        return cls(**{name: getattr(constraints, name) for name in cls.model_fields})


def scope_constraints(scope: OfferScope | None = None, residency: Residency | None = None,
                      base: Constraints | None = None) -> Constraints:
    """``base`` (default: none) narrowed by the scope and the residency, as one :class:`Constraints`.

    >>> c = scope_constraints(OfferScope(gpu_models=("H100",), fit=WorkloadFit()), Residency(eu_resident_only=True))
    >>> c.gpu_models, round(c.min_memory_gb_per_gpu, 1), c.exclude_price_outliers, c.eu_resident_only
    (('H100',), 77.8, True, True)
    """
    update: dict[str, object] = {}
    if scope is not None:
        update.update(gpu_models=scope.gpu_models, min_memory_gb_per_gpu=scope.memory_floor_gb(),
                      exclude_price_outliers=not scope.include_price_outliers)
    if residency is not None:
        update.update(residency.model_dump())
    return (base or Constraints()).model_copy(update=update)


