"""One power model for every engine: GPU power at load + the server's non-GPU share + PUE.

Both :mod:`engine.workload` (energy of a job) and :mod:`engine.tco` (electricity of an owned server) take their
power per GPU from here, so a kWh means the same thing on every page (before issue #17 the workload engine
counted the GPU's TDP only and the TCO engine the whole server: the two disagreed by a factor of ~1.8).

Model (docs/domain-model.md section 11.5)
-----------------------------------------
Per GPU, at the wall of the data centre:

.. math::

    P_{IT}(u) = a \\cdot TDP \\cdot \\big(f_{load} + s_{server}\\big) \\cdot \\big(\\phi + (1-\\phi)\\,u\\big),
    \\qquad P_{facility} = P_{IT} \\cdot PUE

* ``f_load`` — GPU draw at the stated load as a fraction of its TDP (default 1.0: the Llama 2 / Llama 3.1 model
  cards count "peak power capacity per GPU device");
* ``s_server`` — the server's non-GPU power (CPUs, memory, NICs, fans, PSU losses) per GPU as a fraction of the
  GPU's TDP: DGX H100 10.2 kW for 8 × 700 W GPUs gives (10,200 / 8 − 700) / 700 = 0.821 (DGX H100 User Guide; the
  same ratio as Epoch AI's chip-to-server factor 1.82 for H100 in training-cost-trends ``energy.py``);
* ``a`` — the average draw of a busy system as a fraction of its rated (nameplate) power: 0.76, "even
  computationally intensive workloads operate at only 76% of the 10.2 kW TDP rating" of an 8x H100 node (Newkirk et
  al., "Empirically-Calibrated H100 Node Power Models", arXiv:2506.14551, 2025; Latif et al., arXiv:2412.08602:
  the maximum draw seen training on an HGX H100 node was ~8.4 kW, 18 % below the rating). Nameplate maxima
  (``a = 1``) overstate the energy of a job by about a third (issue #26); the rated figure stays available as
  :func:`rated_it_power_kw_per_gpu`;
* ``φ`` — idle power as a fraction of full-load power, for hours a reserved GPU sits unused (TCO's default 0.30 is an
  assumption; no published idle figure for an 8-GPU server was found);
* ``PUE`` — facility / IT energy, default 1.56 (Uptime Institute 2024 survey industry average).

With the defaults an H100 (700 W) is rated 1.275 kW IT (the DGX H100 figure) and draws on average 0.969 kW IT at
full load, 1.512 kW at the wall.

Outputs are in kW (power) and kWh (energy); embodied carbon, when given, is amortised per GPU-hour over the GPU's
service life. Every function broadcasts over numpy arrays (one value per offer).

References
----------
.. [1] NVIDIA DGX H100 User Guide, https://docs.nvidia.com/dgx/dgxh100-user-guide/ (10.2 kW max, 8× H100 700 W).
.. [2] Epoch AI, training-cost-trends ``energy.py`` (chip → server power 1.82 for H100, 2.03 for A100),
   https://github.com/epoch-research/training-cost-trends
.. [3] Uptime Institute Global Data Center Survey 2024: average PUE 1.56.
.. [4] Llama 2 / Llama 3.1 model cards (power = peak power capacity per GPU, adjusted for PUE).
.. [5] A. S. Luccioni, S. Viguier, A.-L. Ligozat, "Estimating the carbon footprint of BLOOM", arXiv:2211.02001
   (dynamic, idle/infrastructure and embodied emissions of one training run).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict

from engine.assumptions import Assumption, assumed, assumptions_of
from engine.units import HOURS_PER_YEAR

#: DGX H100 maximum system power [kW/server] (DGX H100 User Guide).
DGX_H100_MAX_POWER_KW_PER_SERVER = 10.2
#: GPUs in a DGX H100 and the H100 SXM TDP [W] (DGX H100 User Guide; H100 datasheet).
DGX_H100_GPUS_PER_SERVER = 8
H100_SXM_TDP_WATTS = 700.0
#: Non-GPU server power per GPU as a fraction of the GPU's TDP [-] (derived: (10,200 / 8 − 700) / 700 = 0.8214).
SERVER_NON_GPU_FRACTION_OF_TDP = round(
    (DGX_H100_MAX_POWER_KW_PER_SERVER * 1000.0 / DGX_H100_GPUS_PER_SERVER - H100_SXM_TDP_WATTS) / H100_SXM_TDP_WATTS, 4)
#: Industry-average PUE, Uptime Institute 2024 survey [-].
UPTIME_2024_AVERAGE_PUE = 1.56
#: Idle server power as a fraction of full-load power [-]: assumption (same value as the TCO engine), no published
#: idle figure for an 8-GPU server was found.
IDLE_POWER_FRACTION_ASSUMED = 0.30

_DGX = "https://docs.nvidia.com/dgx/dgxh100-user-guide/"
#: Average draw of a busy 8x H100 node / its 10.2 kW rating [-] (Newkirk et al., arXiv:2506.14551: 76 %).
AVERAGE_DRAW_FRACTION_OF_RATED = 0.76


class PowerModel(BaseModel):
    """Parameters of the shared power model, each with unit and source (pages may override).

    Examples
    --------
    >>> PowerModel().server_non_gpu_fraction_of_tdp
    0.8214
    >>> round(float(rated_it_power_kw_per_gpu(700.0)), 3)  # DGX H100: 10.2 kW / 8
    1.275
    >>> round(float(it_power_kw_per_gpu(700.0)), 3)  # average draw at full load: 76 % of the rating
    0.969
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    gpu_power_fraction_of_tdp: float = assumed(
        1.0, "-", "GPU draw at load as a fraction of TDP; 1.0 = the model cards' 'peak power capacity per GPU' "
        "(Llama 2 / Llama 3.1 model cards)", gt=0, le=1.5)
    server_non_gpu_fraction_of_tdp: float = assumed(
        SERVER_NON_GPU_FRACTION_OF_TDP, "-", f"CPU, memory, NICs, fans per GPU: DGX H100 10.2 kW / 8 GPUs - 700 W = "
        f"575 W = 0.821 x TDP ({_DGX}); Epoch AI chip-to-server factor 1.82 (training-cost-trends energy.py)",
        ge=0, le=5)
    idle_power_fraction: float = assumed(
        IDLE_POWER_FRACTION_ASSUMED, "-", "idle server power / full-load power; assumption (no published figure for "
        "an 8-GPU server), same as the TCO engine", ge=0, le=1)
    pue_ratio: float = assumed(
        UPTIME_2024_AVERAGE_PUE, "-", "Uptime Institute 2024 survey industry-average PUE 1.56 (1.55-1.59 since "
        "2020); hyperscalers ~1.1", ge=1, le=3)
    embodied_kg_co2e_per_gpu: float | None = assumed(
        None, "kgCO2e/GPU", "optional manufacturing emissions of one GPU with its server share; None = not included "
        "(no sourced default; Luccioni et al. arXiv 2211.02001 estimate BLOOM's embodied share per GPU-hour)", ge=0)
    average_draw_fraction_of_rated: float = assumed(
        AVERAGE_DRAW_FRACTION_OF_RATED, "-", "average draw of a busy GPU server / its rated power: 'even computationally "
        "intensive workloads operate at only 76% of the 10.2 kW TDP rating' of an 8x H100 node (Newkirk et al., arXiv "
        "2506.14551); applied to the GPU and the server share alike (assumption)", gt=0, le=1)
    service_life_hours: float = assumed(
        5 * HOURS_PER_YEAR, "h", "hours the embodied carbon is spread over: 5 years (Meta and Amazon server lives of "
        "5 years, docs/domain-model.md section 5)", gt=0)


DEFAULT_POWER_MODEL = PowerModel()


def load_scaled_power_kw(
    full_load_power_kw: npt.ArrayLike, load_fraction: npt.ArrayLike, idle_power_fraction: npt.ArrayLike
) -> np.ndarray:
    """Power between idle and full load, linear in the load: ``P (φ + (1 − φ) u)`` [kW].

    The one load rule of the model, shared by :func:`it_power_kw_per_gpu` and the TCO engine's owned power.

    Examples
    --------
    >>> round(float(load_scaled_power_kw(1.0, 0.5, 0.3)), 4)
    0.65
    """
    phi = np.asarray(idle_power_fraction, dtype=float)
    return np.asarray(full_load_power_kw, dtype=float) * (phi + (1.0 - phi) * np.asarray(load_fraction, dtype=float))


def it_power_kw_per_gpu(
    tdp_watts: npt.ArrayLike,
    load_fraction: npt.ArrayLike = 1.0,
    model: PowerModel = DEFAULT_POWER_MODEL,
) -> np.ndarray:
    """IT power per GPU incl. its share of the server, at utilisation ``load_fraction`` [kW].

    ``TDP (f_load + s_server) (φ + (1 − φ) u)``: at ``u = 1`` the server draws its full-load power, at ``u = 0``
    the idle fraction φ of it.

    Parameters
    ----------
    tdp_watts : array_like
        GPU thermal design power [W]; NaN gives NaN.
    load_fraction : array_like, optional
        Share of the hour the GPU computes, 0..1 [-].
    model : PowerModel, optional
        Shared parameters.

    Examples
    --------
    >>> round(float(it_power_kw_per_gpu(700.0, 0.0)), 4)  # idle H100 server share, 30 % of 0.969 kW
    0.2907
    >>> it_power_kw_per_gpu([400.0, np.nan]).round(4).tolist()  # A100 400 W
    [0.5537, nan]
    """
    u = np.asarray(load_fraction, dtype=float)
    full = rated_it_power_kw_per_gpu(tdp_watts, model) * model.average_draw_fraction_of_rated
    return load_scaled_power_kw(full, u, model.idle_power_fraction)


def rated_it_power_kw_per_gpu(tdp_watts: npt.ArrayLike, model: PowerModel = DEFAULT_POWER_MODEL) -> np.ndarray:
    """Rated (nameplate) IT power per GPU incl. its server share, ``TDP (f_load + s_server)`` [kW]: what a rack and
    its power feed must be sized for, not what a job draws on average (:func:`it_power_kw_per_gpu`).

    Examples
    --------
    >>> round(float(rated_it_power_kw_per_gpu(700.0)), 3)
    1.275
    """
    tdp = np.asarray(tdp_watts, dtype=float)
    return tdp * ((model.gpu_power_fraction_of_tdp + model.server_non_gpu_fraction_of_tdp) / 1000.0)


def facility_power_kw_per_gpu(
    tdp_watts: npt.ArrayLike, load_fraction: npt.ArrayLike = 1.0, model: PowerModel = DEFAULT_POWER_MODEL
) -> np.ndarray:
    """Power per GPU at the data-centre wall, IT power × PUE [kW].

    This is the function the TCO engine calls for "power per GPU at the wall".

    Examples
    --------
    >>> round(float(facility_power_kw_per_gpu(700.0)), 3)  # 0.76 x 1.275 kW x 1.56
    1.512
    """
    return it_power_kw_per_gpu(tdp_watts, load_fraction, model) * model.pue_ratio


def gpu_only_power_kw(tdp_watts: npt.ArrayLike, model: PowerModel = DEFAULT_POWER_MODEL) -> np.ndarray:
    """The GPU's own average draw at load, without server share or PUE [kW] (the lower bound of every energy
    figure)."""
    return np.asarray(tdp_watts, dtype=float) * (
        model.gpu_power_fraction_of_tdp * model.average_draw_fraction_of_rated / 1000.0)


class Energy(NamedTuple):
    """Energy of a job per offer [kWh] and its emissions [kgCO2e]."""

    facility_kwh: np.ndarray  # busy + idle, incl. server share and PUE
    busy_kwh: np.ndarray  # GPUs computing (incl. server share and PUE)
    idle_kwh: np.ndarray  # reserved GPUs not used (idle power, incl. PUE)
    gpu_only_kwh: np.ndarray  # busy GPU-hours x GPU draw, no server share, no PUE (reference)
    operational_kg: np.ndarray  # facility_kwh x grid intensity
    embodied_kg: np.ndarray  # reserved GPU-hours x embodied per GPU-hour (0 when not included)
    total_kg: np.ndarray


def job_energy(
    busy_gpu_hours: npt.ArrayLike,
    tdp_watts: npt.ArrayLike,
    grid_intensity_g_per_kwh: npt.ArrayLike,
    idle_gpu_hours: npt.ArrayLike = 0.0,
    model: PowerModel = DEFAULT_POWER_MODEL,
) -> Energy:
    """All-in energy and emissions of a job.

    Parameters
    ----------
    busy_gpu_hours : array_like
        GPU-hours the job computes (incl. time lost to failures) [GPU-h].
    tdp_watts : array_like
        GPU TDP [W].
    grid_intensity_g_per_kwh : array_like
        Carbon intensity of the electricity [gCO2e/kWh]; NaN gives NaN emissions.
    idle_gpu_hours : array_like, optional
        GPU-hours reserved (paid, powered) but unused [GPU-h]; drawn at the idle fraction.
    model : PowerModel, optional

    Notes
    -----
    ``busy_kwh = h_busy P_facility(1)``, ``idle_kwh = h_idle P_facility(0)``; operational emissions = kWh × grid /
    1000; embodied = (busy + idle) GPU-hours × embodied per GPU / service life. Every term is ≥ the GPU-only energy
    ``h_busy TDP f_load``, because ``s_server ≥ 0`` and ``PUE ≥ 1``.

    Examples
    --------
    1,000 H100-hours at 300 g/kWh: 1,512 kWh at the wall (GPU alone: 532 kWh):

    >>> e = job_energy(1000.0, 700.0, 300.0)
    >>> round(float(e.facility_kwh)), round(float(e.gpu_only_kwh)), round(float(e.total_kg))
    (1512, 532, 453)
    """
    busy = np.asarray(busy_gpu_hours, dtype=float)
    idle_h = np.asarray(idle_gpu_hours, dtype=float)
    busy_kwh = busy * facility_power_kw_per_gpu(tdp_watts, 1.0, model)
    idle_kwh = idle_h * facility_power_kw_per_gpu(tdp_watts, 0.0, model)
    facility = busy_kwh + idle_kwh
    operational = facility * np.asarray(grid_intensity_g_per_kwh, dtype=float) / 1000.0
    if model.embodied_kg_co2e_per_gpu is None:
        embodied = np.zeros(np.broadcast(busy, idle_h).shape)
    else:
        embodied = (busy + idle_h) * (model.embodied_kg_co2e_per_gpu / model.service_life_hours)
    return Energy(facility, busy_kwh, idle_kwh, busy * gpu_only_power_kw(tdp_watts, model), operational, embodied,
                  operational + embodied)


def table(model: PowerModel = DEFAULT_POWER_MODEL) -> tuple[Assumption, ...]:
    """The parameters as :class:`~engine.assumptions.Assumption` rows (name, value, unit, source)."""
    return assumptions_of(model)
