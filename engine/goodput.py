"""Goodput: the share of a training run's wall-clock time that advances the model (Young/Daly checkpointing).

A job of ``n`` GPUs fails at rate ``Λ = λ n`` (``λ`` failures per GPU-hour, cluster MTBF ``M = 1/Λ``). It writes a
checkpoint every ``τ`` seconds of work, each taking ``δ`` seconds; after a failure it spends ``R`` seconds to
restart and reload, then redoes the work since the last checkpoint. For exponentially distributed failures the
expected wall-clock time per unit of work is (Daly 2006 [2], eq. 20, exact for this model)

.. math::

    \\frac{T_{wall}}{T_{work}} = \\frac{M}{\\tau}\\, e^{R/M} \\left(e^{(\\tau+\\delta)/M} - 1\\right)

so goodput ``G = T_work / T_wall`` lies in (0, 1] (``e^x - 1 >= x``) and tends to 1 as ``M → ∞``. The checkpoint
interval defaults to Daly's higher-order optimum ``τ = sqrt(2δM) [1 + sqrt(δ/(2M))/3 + δ/(18M)] - δ`` for
``δ < 2M``, else ``τ = M`` ([2] eq. 37); its first-order form ``sqrt(2δM)`` is Young's [1]. The first-order
loss is ``δ/τ + (τ/2 + R)/M`` (docs/domain-model.md section 6).

Goodput is separate from MFU: training GPU-hours = model FLOPs / (peak × MFU × goodput) / 3600.

Defaults (docs/validation.md C7, C9): ``λ`` from the Llama 3 405B run (419 unexpected interruptions in a 54-day
snapshot on ~16,384 H100: 1.97e-5 per GPU-hour, arXiv 2407.21783 s3.3.4 — so Llama 3 goodput and the Llama 3.1
405B GPU-hours are calibration, not validation); checkpoint write bandwidth 0.0889 GB/s per GPU (13.8 TB
checkpoint of a 1T model written at ~273 GB/s by 3,072 GPUs, Narayanan et al. arXiv 2104.04473 s5.10); restart
600 s (assumption: no published restart time for LLM jobs was found).

References
----------
.. [1] J. W. Young, "A first order approximation to the optimum checkpoint interval", CACM 17(9), 1974.
.. [2] J. T. Daly, "A higher order estimate of the optimum checkpoint interval for restart dumps", Future
   Generation Computer Systems 22(3), 2006, doi:10.1016/j.future.2004.11.016.
.. [3] Llama Team, "The Llama 3 Herd of Models", arXiv:2407.21783 s3.3.4 (466 interruptions in 54 days,
   419 unexpected, > 90 % effective training time).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

#: Llama 3 405B pre-training snapshot (arXiv 2407.21783 s3.3.4): unexpected interruptions, days, GPUs.
LLAMA3_UNEXPECTED_INTERRUPTIONS = 419
LLAMA3_SNAPSHOT_DAYS = 54
LLAMA3_GPUS = 16_384
#: Failures per GPU-hour [1/GPU-h] (derived: 419 / (54 x 24 x 16,384) = 1.973e-5; calibration C7).
FAILURES_PER_GPU_HOUR = LLAMA3_UNEXPECTED_INTERRUPTIONS / (LLAMA3_SNAPSHOT_DAYS * 24.0 * LLAMA3_GPUS)
#: Checkpoint write bandwidth per GPU [GB/s] (derived: 273 GB/s / 3,072 GPUs; Narayanan et al. s5.10; C9).
CHECKPOINT_WRITE_GB_PER_S_PER_GPU = 273.0 / 3072.0
#: Time from a failure to training again (detect, reschedule, reload) [s]: assumption, no published figure found.
RESTART_S = 600.0


class Goodput(NamedTuple):
    """Goodput per offer and what it is made of."""

    fraction: np.ndarray  # T_work / T_wall, in (0, 1]
    mtbf_hours: np.ndarray  # M of the whole job [h]
    checkpoint_interval_s: np.ndarray  # tau [s]
    checkpoint_write_s: np.ndarray  # delta [s]


def daly_optimal_interval_s(checkpoint_write_s: npt.ArrayLike, mtbf_s: npt.ArrayLike) -> np.ndarray:
    """Daly's higher-order optimum checkpoint interval [s] (``M`` when ``δ >= 2M``).

    Examples
    --------
    >>> round(float(daly_optimal_interval_s(60.0, 3600.0)), 1)  # Young's first order sqrt(2 x 60 x 3600) - 60 = 597
    617.9
    """
    d = np.asarray(checkpoint_write_s, dtype=float)
    m = np.asarray(mtbf_s, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        x = d / (2.0 * m)
        tau = np.sqrt(2.0 * d * m) * (1.0 + np.sqrt(x) / 3.0 + x / 9.0) - d
    return np.where(d < 2.0 * m, tau, m)


def goodput(
    n_gpus: npt.ArrayLike,
    checkpoint_write_s: npt.ArrayLike,
    failures_per_gpu_hour: float = FAILURES_PER_GPU_HOUR,
    restart_s: float = RESTART_S,
    checkpoint_interval_s: float | None = None,
) -> Goodput:
    """Expected share of wall-clock time spent on useful work (Daly's exact model, module docstring).

    Parameters
    ----------
    n_gpus : array_like
        GPUs of the job (every one can fail) [-].
    checkpoint_write_s : array_like
        Time to write one checkpoint, δ [s].
    failures_per_gpu_hour : float, optional
        λ [1/GPU-h]; 0 means no failures (goodput 1 minus nothing).
    restart_s : float, optional
        R [s].
    checkpoint_interval_s : float, optional
        τ [s]; default Daly's optimum.

    Examples
    --------
    Llama 3 405B on 16,384 GPUs (M = 3.09 h), 4.4 s checkpoints, 10 min restarts: 92 % (published "> 90 %",
    calibration C7).

    >>> g = goodput(16384, 4.45)
    >>> round(float(g.fraction), 3), round(float(g.mtbf_hours), 2)
    (0.921, 3.09)
    >>> float(goodput(8, 1.0, failures_per_gpu_hour=0.0).fraction)
    1.0
    """
    n = np.asarray(n_gpus, dtype=float)
    d = np.asarray(checkpoint_write_s, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        m_s = 3600.0 / (failures_per_gpu_hour * n)  # +inf without failures
        tau = daly_optimal_interval_s(d, m_s) if checkpoint_interval_s is None else np.full(np.shape(m_s),
                                                                                           checkpoint_interval_s)
        ratio = (m_s / tau) * np.exp(restart_s / m_s) * np.expm1((tau + d) / m_s)
        # free checkpoints (δ = 0): τ → 0 and (M/τ)(e^{τ/M} - 1) → 1, only restarts are lost
        ratio = np.where(tau > 0, ratio, np.exp(restart_s / m_s))
        g = np.minimum(1.0 / ratio, 1.0)  # <= 1 exactly in theory; clip the last-bit rounding
    # no failures: nothing lost (no checkpoints needed either); a failure rate so small that the optimal interval
    # overflows to inf is the same limit (goodput -> 1), not the NaN of 0 x inf
    g = np.where(np.isinf(m_s) | (np.isinf(tau) & (m_s > 1e300)), 1.0, g)
    return Goodput(g, m_s / 3600.0, np.where(np.isinf(m_s), np.inf, tau), d * np.ones_like(g))
