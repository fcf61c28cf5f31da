"""4-D parallelism of a training job: layout, pipeline bubble, memory per GPU and bytes each collective moves.

A job on ``n`` GPUs is split into tensor (TP), context (CP), pipeline (PP) and data (DP) parallel groups with
``TP x CP x PP x DP = n`` (Narayanan et al. 2021 [1]; Llama 3 [4]). Rank order follows Megatron-LM: TP innermost
(inside one node), then CP, then DP, PP outermost — so TP traffic stays on NVLink, DP groups take one rank per TP
slot of every node, and adjacent pipeline stages sit on different nodes once a node is full.

Formulas (docs/domain-model.md section 11.1), all vectorised over offers:

* **Micro-batches** per pipeline and step ``m = B_seq / (DP b)`` for ``B_seq`` sequences per step and micro-batch
  size ``b`` [1].
* **Bubble**: with 1F1B and ``v`` interleaved virtual stages per GPU the idle share of a step is
  ``(p-1) / (v m + p - 1)`` (bubble time ``(p-1)/(v m)`` of the compute time [1] §2.2).
* **Memory per GPU**: training state ``16 N / (TP PP)`` bytes (weights, gradients, AdamW moments: Transformer Math
  101 [3]), divided further by ``DP CP`` when sharded (ZeRO-3/FSDP); activations of 1F1B hold one micro-batch per
  stage in flight on the first stage, i.e. all ``L`` layers' worth: ``c s b h L / (TP CP)`` bytes with
  ``c = 34`` (selective recomputation with sequence parallelism) or ``c = 2`` (full recomputation: only each
  layer's input is kept) — Korthikanti et al. [2] Table 2 (flash attention removes the ``5as/h`` term).
* **Communication volume per GPU and step** (bytes each rank sends; times in :mod:`engine.network`):

  - TP (sequence parallel): per layer and micro-batch 2 all-gathers + 2 reduce-scatters forward and the same
    backward, each of ``s b h`` activations: 4 all-reduce equivalents of ``(s/CP) b h x bytes`` [2];
    full recomputation repeats the forward ones (x 1.5);
  - CP (all-gather of K and V forward, reduce-scatter of their gradients backward, Llama 3 [4] s3.3.2; each TP rank
    moves only its own KV heads, 1/TP of them):
    ``2 (s/CP) b kv_dim x bytes`` per layer each way;
  - PP: activations ``(s/CP) b h x bytes / TP`` per micro-batch, forward and backward, ``v`` times (the
    scatter/gather optimisation of [1] §4.1 splits the tensor over the TP ranks);
  - DP: the gradients of the parameters one GPU holds, ``N / (TP PP) x grad_bytes``, all-reduced (or
    reduce-scattered + all-gathered, the same volume) over the ``DP x CP`` ranks of its group [1], [4].

References
----------
.. [1] D. Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM",
   SC'21, arXiv:2104.04473 (PTD-P, 1F1B interleaved bubble, scatter/gather, DP volume).
.. [2] V. Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models", arXiv:2205.05198
   (activation memory per layer, sequence parallelism, selective recomputation, HFU vs MFU).
.. [3] EleutherAI, "Transformer Math 101", https://blog.eleuther.ai/transformer-math/ (16 B/param training state).
.. [4] Llama Team, "The Llama 3 Herd of Models", arXiv:2407.21783 s3.3.2 (4-D parallelism, CP all-gather).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

RecomputeMode = Literal["auto", "none", "selective", "full"]
RECOMPUTE_MODES: tuple[str, ...] = ("auto", "none", "selective", "full")

#: Activation bytes per layer per (token x hidden unit), divided by TP x CP: 34 with sequence parallelism and
#: selective recomputation (flash attention removes the 5as/h term), 2 with full recomputation (Korthikanti et al.
#: arXiv 2205.05198 Table 2).
ACTIVATION_BYTES_SELECTIVE = 34.0
ACTIVATION_BYTES_FULL = 2.0

def micro_batches(global_batch_sequences: npt.ArrayLike, dp: npt.ArrayLike, micro_batch_sequences: float = 1.0
                  ) -> np.ndarray:
    """Micro-batches each pipeline runs per optimizer step, ``B_seq / (DP b)`` [-].

    Examples
    --------
    >>> float(micro_batches(2048, 128))  # Llama 3 405B on 16,384 GPUs: 16M tokens / 8192 = 2048 sequences
    16.0
    """
    return np.asarray(global_batch_sequences, dtype=float) / (np.asarray(dp, dtype=float) * micro_batch_sequences)


def pipeline_bubble_fraction(pp: npt.ArrayLike, micro_batches_per_step: npt.ArrayLike,
                             virtual_stages: npt.ArrayLike = 1.0) -> np.ndarray:
    """Idle share of a step in a 1F1B pipeline, ``(p-1) / (v m + p - 1)`` [-] (Narayanan et al. s2.2).

    Examples
    --------
    >>> float(pipeline_bubble_fraction(8, 8))  # 7 / 15
    0.4666666666666667
    >>> round(float(pipeline_bubble_fraction(8, 8, 12)), 4)  # interleaved, v = 12
    0.068
    >>> float(pipeline_bubble_fraction(1, 4))  # no pipeline, no bubble
    0.0
    """
    p = np.asarray(pp, dtype=float)
    vm = np.asarray(virtual_stages, dtype=float) * np.asarray(micro_batches_per_step, dtype=float)
    return (p - 1.0) / (vm + p - 1.0)


def recompute_flop_factor(mode_full: npt.ArrayLike, seq_tokens: float, d_model: float, n_params: float,
                          n_layers: float) -> np.ndarray:
    """Hardware FLOPs / model FLOPs of a training step (HFU / MFU) [-].

    Model FLOPs per token ``3 f`` with the forward ``f = 2N + 2 L h s`` (causal attention); full recomputation runs
    the forward again (``+f``), selective recomputation re-runs the attention part (``+2 L h s``) [2].

    Examples
    --------
    >>> round(float(recompute_flop_factor(True, 2048, 12288, 175e9, 96)), 4)  # full: ~4/3
    1.3333
    """
    attn = 2.0 * n_layers * d_model * seq_tokens
    fwd = 2.0 * n_params + attn
    full = np.asarray(mode_full, dtype=bool)
    return (3.0 * fwd + np.where(full, fwd, attn)) / (3.0 * fwd)


def model_flop_per_token(n_params: float, seq_tokens: float, d_model: float, n_layers: float) -> float:
    """Model FLOPs per trained token, ``6N + 6 L h s`` (forward + backward, causal attention; PaLM App. B counts
    ``12 L h s`` for non-causal attention) [FLOP/token].

    Examples
    --------
    >>> model_flop_per_token(8e9, 8192, 4096, 32) / 6e9 / 8  # attention adds ~13 % at 8K for an 8B model
    1.134217728
    """
    return 6.0 * n_params + 6.0 * n_layers * d_model * seq_tokens
