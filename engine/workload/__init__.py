"""Training time and inference throughput of one workload on every offer, in one vectorised call.

Pages build an :class:`OfferArrays` once (shape ``(n_offers,)`` per field, see
:func:`engine.adapters.offer_arrays_from_records`), describe the workload with a pydantic model
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

from engine.assumptions import Assumption
from engine.workload.data import (
    GRID_INTENSITY_G_PER_KWH_BY_COUNTRY,
    GRID_INTENSITY_SOURCE,
    MIG_BALANCED_LAYOUT,
    MIG_PROFILE_BY_NAME,
    MIG_PROFILES,
    MODEL_PRESETS,
    MigProfile,
    ModelPreset,
    estimated_shape,
    mig_layout_fits,
    mig_max_instances,
)
from engine.workload.inference import (
    BATCH_SEARCH_SIZES,
    price_inference,
    price_inference_within_latency,
)
from engine.workload.inputs import (
    DEFAULT_ASSUMPTIONS,
    MISSING_FABRIC_POLICIES,
    EngineAssumptions,
    InferenceService,
    MissingFabricPolicy,
    TrainingJob,
)
from engine.workload.offers import (
    OfferArrays,
    OfferMasks,
    grid_intensity_g_per_kwh,
)
from engine.workload.results import (
    EMISSIONS_NOT_COMPUTED,
    EXCLUSION_REASONS,
    MISSING_INPUT_TEXT,
    Bound,
    ExclusionReason,
    InferenceResult,
    MissingInput,
    TrainingResult,
    WorkloadResult,
)
from engine.workload.training import (
    hfu_from_mfu,
    mfu_from_step_time,
    mfu_from_tokens_per_s,
    price_training,
    training_flop,
)

__all__ = [
    "GRID_INTENSITY_G_PER_KWH_BY_COUNTRY",
    "GRID_INTENSITY_SOURCE",
    "MigProfile",
    "MIG_PROFILES",
    "MIG_PROFILE_BY_NAME",
    "MIG_BALANCED_LAYOUT",
    "mig_layout_fits",
    "mig_max_instances",
    "ModelPreset",
    "MODEL_PRESETS",
    "estimated_shape",
    "MissingFabricPolicy",
    "MISSING_FABRIC_POLICIES",
    "TrainingJob",
    "InferenceService",
    "Assumption",
    "EngineAssumptions",
    "DEFAULT_ASSUMPTIONS",
    "OfferArrays",
    "OfferMasks",
    "grid_intensity_g_per_kwh",
    "ExclusionReason",
    "EXCLUSION_REASONS",
    "MissingInput",
    "MISSING_INPUT_TEXT",
    "EMISSIONS_NOT_COMPUTED",
    "Bound",
    "WorkloadResult",
    "TrainingResult",
    "InferenceResult",
    "training_flop",
    "mfu_from_tokens_per_s",
    "mfu_from_step_time",
    "hfu_from_mfu",
    "price_training",
    "price_inference",
    "price_inference_within_latency",
    "BATCH_SEARCH_SIZES",
]
