"""What each published case of tests/engine/validation_cases.py measures, for the error bands of
:mod:`engine.workload.accuracy` (issue #36.6): the regime, the software stack the engine was given, the GPU, the
GPU count and the model's total parameters [billions].

Only cases whose figure is a job's throughput, time or GPU-hours count (the costs the pages show rest on them);
scaling ratios, energy and collective bandwidth cases measure parts of the model and are left out of the bands.
A case added to the validation table without a line here fails ``tests/engine/test_accuracy.py``, unless it is
listed in :data:`NOT_A_COST_RESULT`.
"""

from __future__ import annotations

from typing import NamedTuple


class CaseMeta(NamedTuple):
    regime: str  # engine.workload.accuracy.REGIMES
    stack: str
    gpu: str
    n_gpus: int
    params_b: float


_PT, _FT, _LORA, _SL, _ST = "pretraining", "full_finetune", "lora", "serve_latency", "serve_throughput"

META: dict[str, CaseMeta] = {
    "V1": CaseMeta(_PT, "megatron", "H100", 512, 175.0),
    "V2": CaseMeta(_PT, "megatron", "H100", 4096, 175.0),
    "V3": CaseMeta(_PT, "megatron", "H100", 10752, 175.0),
    "V5": CaseMeta(_PT, "generic", "H100", 8192, 405.0),
    "V6": CaseMeta(_PT, "generic", "H100", 16384, 405.0),
    "V7": CaseMeta(_PT, "generic", "H100", 16384, 405.0),
    "V9": CaseMeta(_PT, "generic", "H100", 2048, 8.0),
    "V10": CaseMeta(_PT, "generic", "H100", 4096, 70.0),
    "V11": CaseMeta(_PT, "generic", "A100", 384, 176.0),
    "V16": CaseMeta(_ST, "tensorrt_llm", "H100", 1, 8.0),
    "V17": CaseMeta(_ST, "tensorrt_llm", "H100", 1, 8.0),
    "V18": CaseMeta(_ST, "tensorrt_llm", "H100", 1, 8.0),
    "V19": CaseMeta(_ST, "tensorrt_llm", "H100", 2, 70.0),
    "V20": CaseMeta(_ST, "tensorrt_llm", "H100", 8, 405.0),
    "V21": CaseMeta(_ST, "tensorrt_llm", "H100", 8, 235.0),
    "V22": CaseMeta(_LORA, "megatron", "H100", 8, 70.0),
    "V23": CaseMeta(_LORA, "megatron", "H100", 64, 70.0),
    "V24": CaseMeta(_LORA, "megatron", "H200", 8, 70.0),
    "V25": CaseMeta(_LORA, "megatron", "H100", 8, 70.0),
    "V26": CaseMeta(_FT, "megatron", "H100", 16, 70.0),
    "V27": CaseMeta(_FT, "megatron", "H100", 8, 7.0),
    "V28": CaseMeta(_LORA, "megatron", "H100", 8, 13.0),
    "V29": CaseMeta(_PT, "pytorch_fsdp", "H100", 8, 8.0),
    "V30": CaseMeta(_FT, "deepspeed", "A100", 8, 8.0),
    "V31": CaseMeta(_FT, "hf_trainer", "A100", 16, 70.0),
    "V32": CaseMeta(_LORA, "pytorch_fsdp", "H100", 4, 70.0),
    "V33": CaseMeta(_SL, "tensorrt_llm", "H100", 2, 70.0),
    "V34": CaseMeta(_SL, "tensorrt_llm", "H100", 2, 70.0),
    "V35": CaseMeta(_ST, "tensorrt_llm", "H200", 1, 70.0),
    "V36": CaseMeta(_ST, "tensorrt_llm", "H100", 1, 8.0),
    "V37": CaseMeta(_ST, "tensorrt_llm", "H100", 2, 70.0),
}

#: Cases that measure a part of the model, not a job's cost: scaling ratios (V4, V8), IT energy (V12), all-reduce
#: bus bandwidth (V13-V15).
NOT_A_COST_RESULT: frozenset[str] = frozenset({"V4", "V8", "V12", "V13", "V14", "V15"})

#: Calibration rows predicted with their default fitted on the other rows of the same calibration (leave one out).
LEAVE_ONE_OUT_META: dict[str, CaseMeta] = {
    "C1 Llama 2 7B": CaseMeta(_PT, "generic", "A100", 2048, 7.0),
    "C1 Llama 2 13B": CaseMeta(_PT, "generic", "A100", 2048, 13.0),
    "C1 Llama 2 70B": CaseMeta(_PT, "generic", "A100", 2048, 70.0),
    "C10 Llama 2 7B": CaseMeta(_PT, "megatron", "H100", 8, 7.0),
    "C10 Llama 2 70B": CaseMeta(_PT, "megatron", "H100", 64, 70.0),
    "C12 1000/1000": CaseMeta(_ST, "tensorrt_llm", "H200", 1, 8.0),
    "C12 2048/2048": CaseMeta(_ST, "tensorrt_llm", "H200", 1, 8.0),
}
