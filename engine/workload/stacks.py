"""Software stacks: how close a job gets to the hardware's ceiling depends on the software that runs it.

"Hardware sets the ceiling. How close you actually get to it depends entirely on the software" (the seed text,
docs/domain-model.md section 11.7). One utilisation default for every stack cannot fit NVIDIA's Megatron/NeMo stack
(FP8 GEMMs from Transformer Engine, fused kernels, communication overlap) and a PyTorch-native FSDP run at once, so
the stack is an input of every training job and inference service, and each stack carries

* its **compute-phase utilisation** of the BF16 and FP8 peaks (bubbles, exposed communication and failures are
  modelled separately), calibrated on published runs *of that stack* (the calibration cases of
  docs/validation.md, never a validation case), and
* the **parallelism it offers** (tensor / pipeline parallel, interleaving, sharding of the training state):
  the layout search (:mod:`engine.workload.layout`) only tries what the stack can run.

A stack whose utilisation no published run of its own calibrates keeps the engine's generic defaults and says so
(``calibrated_on`` names the generic calibration).

References
----------
.. [1] NVIDIA NeMo 24.07 performance summary,
   github.com/NVIDIA/NeMo ``docs/source/performance/performance_summary.md`` at commit 8e3d65dcfe3504689bfc5b6e67d502780aacad41
   (2024-09-09): DGX-H100, FP8, pre-training rows (calibration C10).
.. [2] Megatron-LM, ``--use-distributed-optimizer`` (ZeRO-1 style sharding of the optimizer state over data-parallel
   ranks), ``--overlap-grad-reduce``, ``--overlap-param-gather``, interleaved 1F1B
   (github.com/NVIDIA/Megatron-LM README and docs/source/api-guide/dist_optimizer.md).
.. [3] PyTorch FSDP / torchtitan (github.com/pytorch/torchtitan docs): FSDP2 sharding of parameters, gradients and
   optimizer state (ZeRO-3), with tensor and pipeline parallelism as separate options.
.. [4] Hugging Face Transformers Trainer: data parallel (DDP) or FSDP/DeepSpeed ZeRO, no tensor or pipeline
   parallelism of its own (huggingface.co/docs/transformers/main/en/perf_train_gpu_many).
.. [5] DeepSpeed ZeRO stages 1-3 (Rajbhandari et al., arXiv:1910.02054) and its pipeline engine without
   interleaving (deepspeed.ai/tutorials/pipeline).
"""

from __future__ import annotations

from typing import Literal, NamedTuple

TrainingStack = Literal["generic", "megatron", "pytorch_fsdp", "deepspeed", "hf_trainer"]
TRAINING_STACKS: tuple[str, ...] = ("generic", "megatron", "pytorch_fsdp", "deepspeed", "hf_trainer")

#: State sharding modes: none (plain data parallel: every replica holds the whole state), optimizer (ZeRO-1 /
#: Megatron's distributed optimizer: optimizer moments and master weights sharded over DP), full (ZeRO-3 / FSDP:
#: weights, gradients and optimizer state sharded; weights all-gathered forward and backward).
SHARD_NONE, SHARD_OPTIMIZER, SHARD_FULL = 0, 1, 2
SHARD_NAMES: tuple[str, ...] = ("none", "optimizer (ZeRO-1)", "full (ZeRO-3/FSDP)")


class TrainingStackSpec(NamedTuple):
    """What a training stack reaches and which layouts it can run.

    Examples
    --------
    >>> TRAINING_STACK_SPECS["megatron"].mfu_fp8_fraction, TRAINING_STACK_SPECS["hf_trainer"].has_tensor_parallel
    (0.435, False)
    """

    label: str
    mfu_bf16_fraction: float | None  # None = the generic default (EngineAssumptions)
    mfu_fp8_fraction: float | None
    calibrated_on: str
    has_tensor_parallel: bool
    has_pipeline_parallel: bool
    has_interleaving: bool
    shard_modes: tuple[int, ...]  # tried when the job's training state is sharded


#: Calibration C10 (docs/validation.md): the FP8 compute-phase utilisation at which this engine reproduces NeMo
#: 24.07's DGX-H100 pre-training rows Llama 2 7B on 8 GPUs (16,934 tokens/s/GPU) and Llama 2 70B on 64 GPUs (TP 4,
#: PP 4, VP 20: 1,728 tokens/s/GPU); fitted with ``fit_stack_utilisation`` (tests/engine/validation_cases.py) (geometric
#: mean of the two per-row fits: 0.4353). The fine-tuning rows of the same page are validation cases, not used here.
MEGATRON_FP8_FRACTION = 0.435

#: Calibration C11 (docs/validation.md): the BF16 compute-phase utilisation at which this engine reproduces
#: torchtitan's Llama 3 8B on 64 A100-80GB with FSDP and selective activation checkpointing, 2,904 tokens/s/GPU
#: (github.com/pytorch/torchtitan docs/performance.md at commit 041336434916bdc0f88c1f89fda176fd3c2092e4; fit 0.532).
PYTORCH_FSDP_BF16_FRACTION = 0.53

TRAINING_STACK_SPECS: dict[str, TrainingStackSpec] = {
    "generic": TrainingStackSpec(
        "Generic (not stated)", None, None,
        "engine defaults: BF16 from the Llama 2 model card (C1), FP8 from llm-foundry (C2)",
        True, True, True, (SHARD_OPTIMIZER, SHARD_FULL)),
    "megatron": TrainingStackSpec(
        "Megatron-LM / NeMo", None, MEGATRON_FP8_FRACTION,
        "FP8: NeMo 24.07 DGX-H100 pre-training rows (C10); BF16: engine default (C1)",
        True, True, True, (SHARD_OPTIMIZER, SHARD_FULL)),
    "pytorch_fsdp": TrainingStackSpec(
        "PyTorch FSDP (torchtitan)", PYTORCH_FSDP_BF16_FRACTION, None,
        "BF16: torchtitan Llama 3 8B on 64 A100 (C11); FP8: engine default (C2, llm-foundry, also PyTorch FSDP)",
        True, True, True, (SHARD_FULL,)),
    "deepspeed": TrainingStackSpec(
        "DeepSpeed", None, None,
        "engine defaults (no calibration run of this stack recorded yet)",
        False, True, False, (SHARD_OPTIMIZER, SHARD_FULL)),
    "hf_trainer": TrainingStackSpec(
        "Hugging Face Trainer", None, None,
        "engine defaults (no calibration run of this stack recorded yet)",
        False, False, False, (SHARD_FULL,)),
}
