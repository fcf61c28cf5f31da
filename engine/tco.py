"""Total cost of ownership: rent GPUs on demand, rent them reserved, or own them.

Three ways to get one GPU-hour of work are compared:

* **on demand** -- pay only the hours used, at ``price_on_demand_eur_per_gpu_hour``;
* **reserved** (dedicated / managed private cloud) -- pay *every* hour of a minimum term
  (``reserved_term_months``) at ``price_on_demand_eur_per_gpu_hour * (1 - reserved_discount_fraction)``;
* **owned** -- buy the hardware (server, networking and storage shares, installation), turn the capital
  into a cost per hour with an annuity, and pay power, colocation, maintenance and staff.

Two views, one set of inputs:

* the **per-hour view** (:func:`cost_per_useful_gpu_hour_eur`, :func:`owned_cost_breakdown_eur_per_gpu_hour`,
  :func:`break_even_utilisation`) prices one *useful* GPU-hour at today's prices; the owned cost includes
  the cost of capital through the capital recovery factor;
* the **cash view** (:func:`monthly_cost_eur`, :func:`cumulative_cost_eur`, :func:`break_even_month`)
  follows a cluster of ``cluster_gpus`` GPUs month by month: owned capex is paid in month 0 (and again
  at each end of life), the resale value is credited in the last month of each life, and rental prices
  fall by ``rental_price_decline_fraction_per_year``. Cash flows are *not* discounted (a payback view),
  so the break-even month and the break-even utilisation need not tell exactly the same story when the
  cost of capital is not zero.

Conventions (see :mod:`engine`)
-------------------------------
* Costs are positive EUR; a resale credit is the only negative amount (layer ``residual_credit``).
* Rates are per year; months are 730 h (8,760 h / 12); month index ``m`` starts at 0 for the first month.
* Utilisation ``u`` is the fraction of wall-clock hours the GPUs do useful work, ``0 < u <= 1``.
  Owned power grows linearly from idle to full load with ``u``; everything else owned is paid per
  wall-clock hour whatever ``u`` is.
* Zero cost of capital gives straight-line depreciation (capital recovery factor ``1/L``). Zero
  utilisation is rejected (a useful hour would cost infinitely much); a zero rental price gives a
  break-even utilisation of ``inf`` (owning never pays) or NaN (a tie at every utilisation).
* Every kernel takes keyword arrays named like the :class:`TcoInputs` fields and broadcasts them, so one
  code path serves a slider (scalars), a sweep, a tornado and a Monte Carlo (arrays of draws). Kernels
  do not check bounds; :class:`TcoInputs` (scalars) and :func:`validate_arrays` (arrays) do.
* ``TcoInputs().as_arrays()`` gives every field as a 0-d array, so ``kernel(**inputs.as_arrays())`` works
  for every kernel (fields a kernel does not use are ignored; names that are not fields raise ``TypeError``).

Every default describes one 8-GPU H100 SXM server in an EU data centre and names its source in the
field's ``source``; figures published in USD are converted once, here, with
:data:`engine.money.DEFAULT_USD_PER_EUR` (ECB reference rate of :data:`engine.money.DEFAULT_FX_AS_OF`).
Values marked *assumption* have no published source: the page must show them as user assumptions.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import annotated_types
import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from engine.money import DEFAULT_FX_AS_OF, DEFAULT_USD_PER_EUR

__all__ = [
    "HOURS_PER_YEAR",
    "HOURS_PER_MONTH",
    "LAYERS",
    "Option",
    "Pair",
    "TcoInputs",
    "Assumption",
    "OwnedCostBreakdown",
    "TcoResult",
    "MonteCarloResult",
    "TornadoBar",
    "TornadoResult",
    "capital_recovery_factor",
    "owned_cost_breakdown_eur_per_gpu_hour",
    "owned_cost_coefficients_eur_per_gpu_hour",
    "cost_per_useful_gpu_hour_eur",
    "break_even_utilisation",
    "compare_options_per_useful_gpu_hour",
    "mean_on_demand_price_eur_per_gpu_hour",
    "monthly_cost_eur",
    "cumulative_cost_eur",
    "break_even_month",
    "validate_arrays",
    "evaluate_tco",
    "default_monte_carlo_ranges",
    "monte_carlo",
    "tornado",
]

#: Hours in a (non-leap) year [h/yr].
HOURS_PER_YEAR = 8760.0
#: Months per year [month/yr].
MONTHS_PER_YEAR = 12
#: Hours in an average month [h/month] = 8,760 / 12 = 730.
HOURS_PER_MONTH = HOURS_PER_YEAR / MONTHS_PER_YEAR

# --------------------------------------------------------------------------------------------------
# Published figures behind the defaults (numbers exactly as published; EUR conversion below).
# --------------------------------------------------------------------------------------------------

#: H100 8-GPU server price [USD/server]: SemiAnalysis, 2025-08-20 ("~$190k").
H100_SERVER_PRICE_USD_PER_SERVER = 190_000.0
#: All-in upfront capex incl. storage and networking [USD/server]: SemiAnalysis, 2025-08-20 ("~$250k").
H100_ALL_IN_CAPEX_USD_PER_SERVER = 250_000.0
#: Networking share of total cluster cost [-]: amcompute.com/blog/gpu-cluster-networking ("~20%");
#: Epoch AI's model default is 19% (arXiv 2405.21015).
NETWORKING_SHARE_OF_CLUSTER_COST_FRACTION = 0.20
#: GPUs in one HGX/DGX H100 server [GPU/server]: DGX H100 User Guide.
GPUS_PER_H100_SERVER = 8
#: DGX H100 maximum system power [kW/server]: DGX H100 User Guide.
DGX_H100_MAX_POWER_KW_PER_SERVER = 10.2
#: Colocation, North America primary markets, 250-500 kW, H2-2024 [USD/kW-month]: CBRE North America
#: Data Center Trends H2-2024. No EU-metro EUR/kW-month figure was found (domain-model.md section 9).
CBRE_NA_COLOCATION_USD_PER_KW_MONTH = 184.06
#: Nebius (NL-headquartered, EU regions FI/FR) HGX H100 on-demand list price [USD/GPU-h], observed
#: 2026-10-10 by the gpu-price-index collector (catalog row nebius-h100-sxm-hgx-h100-global-list-price-on-demand).
NEBIUS_H100_ON_DEMAND_USD_PER_GPU_HOUR = 4.50
#: GPU price-performance improvement [orders of magnitude per year]: Epoch AI, training-cost-trends constants.py.
EPOCH_PRICE_PERFORMANCE_OOM_PER_YEAR = 0.14
#: Lambda 3-year commitment discount vs on demand [-]: Epoch AI constants.py DEFAULT_CUD.
LAMBDA_3YR_COMMITMENT_DISCOUNT_FRACTION = 0.56
#: Eurostat non-household electricity, H1-2024, band 500-2,000 MWh, excl. VAT [EUR/kWh]: lowest and highest
#: values reported (Finland, Ireland), Eurostat "Electricity price statistics" / nrg_pc_205.
EUROSTAT_ELECTRICITY_H1_2024_FINLAND_EUR_PER_KWH = 0.0928
EUROSTAT_ELECTRICITY_H1_2024_IRELAND_EUR_PER_KWH = 0.256
#: Eurostat hourly labour cost, whole economy, EU-27, 2024 [EUR/h]: lc_lci_lev.
EUROSTAT_LABOUR_COST_EU_2024_EUR_PER_HOUR = 33.5

_SEMIANALYSIS = "SemiAnalysis, 2025-08-20 (H100 server ~$190k; all-in ~$250k per server incl. storage, networking)"
_FX = f"converted at {DEFAULT_USD_PER_EUR} USD/EUR (ECB reference rate {DEFAULT_FX_AS_OF}, engine.money)"
_EPOCH_REPO = "https://github.com/epoch-research/training-cost-trends"
_DGX_GUIDE = "https://docs.nvidia.com/dgx/dgxh100-user-guide/"
_EUROSTAT_ELEC = "https://ec.europa.eu/eurostat/statistics-explained/index.php?title=Electricity_price_statistics"


def _eur_from_usd(amount_usd: float) -> float:
    """Convert a published USD default to EUR once, at import (rounded to the cent)."""
    return round(amount_usd / DEFAULT_USD_PER_EUR, 2)


_PER_GPU = 1.0 / GPUS_PER_H100_SERVER
_NETWORKING_USD_PER_SERVER = NETWORKING_SHARE_OF_CLUSTER_COST_FRACTION * H100_ALL_IN_CAPEX_USD_PER_SERVER  # 50,000
_STORAGE_USD_PER_SERVER = (
    H100_ALL_IN_CAPEX_USD_PER_SERVER - H100_SERVER_PRICE_USD_PER_SERVER - _NETWORKING_USD_PER_SERVER
)  # 10,000
_DEFAULT_DEPRECIATION_YEARS = 5.0


class Option(enum.StrEnum):
    """The three ways to get a GPU-hour."""

    ON_DEMAND = "on_demand"
    RESERVED = "reserved"
    OWNED = "owned"


class Pair(enum.StrEnum):
    """Pairs of options with a closed-form break-even utilisation (see :func:`break_even_utilisation`)."""

    ON_DEMAND_VS_OWNED = "on_demand_vs_owned"
    ON_DEMAND_VS_RESERVED = "on_demand_vs_reserved"
    RESERVED_VS_OWNED = "reserved_vs_owned"


#: Owned cost layers, in display order. ``residual_credit`` is negative (resale value), the others >= 0;
#: the layers add up to the owned cost.
LAYERS = ("hardware", "networking", "power_and_cooling", "facility", "staff", "maintenance", "residual_credit")


def _field(default: Any, *, unit: str, source: str, description: str, **bounds: Any) -> Any:
    return Field(default, description=description, json_schema_extra={"unit": unit, "source": source}, **bounds)


class TcoInputs(BaseModel):
    """Validated scalar inputs of one TCO scenario (one slider position).

    Units are in the field names; each field carries ``unit`` and ``source`` in its
    ``json_schema_extra`` and a ``description``; :meth:`assumptions` lists them for display.
    For arrays of scenarios (sweeps, Monte Carlo) use :func:`validate_arrays` instead of building one model
    per scenario.

    Examples
    --------
    >>> inputs = TcoInputs()
    >>> inputs.server_capex_eur_per_gpu
    22812.41
    >>> try:
    ...     TcoInputs(utilisation_fraction=0)
    ... except ValueError as err:  # pydantic.ValidationError is a ValueError
    ...     print(err.errors()[0]["loc"], err.errors()[0]["msg"])
    ('utilisation_fraction',) Input should be greater than 0
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    # -- usage ----------------------------------------------------------------------------------------
    utilisation_fraction: float = _field(
        0.7, gt=0, le=1, unit="-",
        description="Fraction of wall-clock hours the GPUs do useful work (0 < u <= 1).",
        source="assumption (user input): 70 %; published owning break-even claims are 50-65 % (TechnoLynx 2026).",
    )
    cluster_gpus: int = _field(
        GPUS_PER_H100_SERVER, ge=1, unit="GPU",
        description="GPUs in the cluster: staff cost is spread over them and the cash view is for all of them.",
        source=f"one 8-GPU DGX/HGX H100 server ({_DGX_GUIDE}).",
    )
    horizon_months: int = _field(
        int(_DEFAULT_DEPRECIATION_YEARS * MONTHS_PER_YEAR), ge=1, le=240, unit="month",
        description="Length of the monthly / cumulative cash view.",
        source="assumption: equal to the default depreciation life (5 years).",
    )
    # -- renting --------------------------------------------------------------------------------------
    price_on_demand_eur_per_gpu_hour: float = _field(
        _eur_from_usd(NEBIUS_H100_ON_DEMAND_USD_PER_GPU_HOUR), ge=0, unit="EUR/GPU-h",
        description="On-demand rental price per GPU-hour today (pages fill it from the catalog).",
        source=(
            "Nebius HGX H100 on-demand $4.50/GPU-h (nebius.com/prices via gpu-price-index, 2026-10-10; Nebius is "
            f"NL-headquartered with FI/FR regions), {_FX}. EU-native alternative in the catalog: OVHcloud "
            "h100-380 EUR 2.80/GPU-h (form factor not stated)."
        ),
    )
    reserved_discount_fraction: float = _field(
        LAMBDA_3YR_COMMITMENT_DISCOUNT_FRACTION, ge=0, lt=1, unit="-",
        description="Price reduction of reserved/dedicated capacity vs on demand; reserved price = p * (1 - d).",
        source=(
            f"Epoch AI DEFAULT_CUD, Lambda 3-year 56 % ({_EPOCH_REPO}, constants.py); "
            "AWS 64 %, GCP 56 %, Azure 49 % (3-year)."
        ),
    )
    reserved_term_months: int = _field(
        36, ge=1, le=120, unit="month",
        description="Minimum reserved term; every hour of the term is paid; renewed at the then-current price.",
        source="term of the Lambda 3-year commitment behind the default discount (Epoch AI DEFAULT_CUD).",
    )
    rental_price_decline_fraction_per_year: float = _field(
        0.0, ge=0, lt=1, unit="1/yr",
        description="Expected yearly fall of rental prices of this GPU generation; price(m) = p0 (1 - d)^(m/12).",
        source=(
            "user-set (default 0 = no market move). For scale: Epoch AI's 0.14 orders of magnitude/yr "
            "price-performance gain of new GPUs is 1 - 10^-0.14 = 27.6 %/yr."
        ),
    )
    # -- owning: capital --------------------------------------------------------------------------------
    server_capex_eur_per_gpu: float = _field(
        _eur_from_usd(H100_SERVER_PRICE_USD_PER_SERVER * _PER_GPU), ge=0, unit="EUR/GPU",
        description="Server purchase price per GPU (GPUs, CPUs, memory, chassis).",
        source=f"{_SEMIANALYSIS}: $190,000 / 8 GPUs = $23,750, {_FX}.",
    )
    networking_capex_eur_per_gpu: float = _field(
        _eur_from_usd(_NETWORKING_USD_PER_SERVER * _PER_GPU), ge=0, unit="EUR/GPU",
        description="Share of cluster networking (NICs, switches, optics, cables) per GPU.",
        source=(
            "~20 % of total cluster cost (amcompute.com/blog/gpu-cluster-networking; Epoch AI default 19 %) x "
            f"SemiAnalysis all-in $250,000/server = $50,000 / 8 = $6,250, {_FX} (derived)."
        ),
    )
    storage_capex_eur_per_gpu: float = _field(
        _eur_from_usd(_STORAGE_USD_PER_SERVER * _PER_GPU), ge=0, unit="EUR/GPU",
        description="Share of storage and other non-server capex per GPU.",
        source=f"remainder of {_SEMIANALYSIS}: 250,000 - 190,000 - 50,000 = $10,000 / 8 = $1,250, {_FX} (derived).",
    )
    installation_capex_eur_per_gpu: float = _field(
        0.0, ge=0, unit="EUR/GPU",
        description="One-off installation and integration per GPU (no resale value).",
        source="assumption: 0, taken as included in the SemiAnalysis all-in figure; add integrator quotes here.",
    )
    depreciation_years: float = _field(
        _DEFAULT_DEPRECIATION_YEARS, gt=0, le=30, unit="yr",
        description="Economic life over which the capital is recovered (annuity) and after which it is resold.",
        source=(
            "company filings: Amazon servers back to 5 yr from 2025-01-01 citing AI pace, Meta 5 yr (2022); "
            "Microsoft/Alphabet 6 yr; critics argue 2-3 yr economic life."
        ),
    )
    cost_of_capital_fraction_per_year: float = _field(
        0.08, ge=0, le=1, unit="1/yr",
        description="Interest / hurdle rate used in the capital recovery factor.",
        source="assumption (user input): 8 %/yr, no published source.",
    )
    residual_value_fraction: float = _field(
        round(10 ** (-EPOCH_PRICE_PERFORMANCE_OOM_PER_YEAR * _DEFAULT_DEPRECIATION_YEARS), 4), ge=0, le=1, unit="-",
        description="Resale value at end of life as a fraction of equipment capex (server, networking, storage).",
        source=(
            "assumption derived from Epoch AI's 0.14 orders of magnitude/yr price-performance decay "
            f"({_EPOCH_REPO}, constants.py): 10^(-0.14 x 5 yr) = 0.1995."
        ),
    )
    # -- owning: running ------------------------------------------------------------------------------
    power_at_load_kw_per_gpu: float = _field(
        DGX_H100_MAX_POWER_KW_PER_SERVER * _PER_GPU, ge=0, unit="kW/GPU",
        description="Server IT power per GPU at full load; also the contracted colocation power.",
        source=f"DGX H100 10.2 kW max / 8 GPUs = 1.275 kW ({_DGX_GUIDE}); SuperPOD guide: run at or near peak.",
    )
    idle_power_fraction: float = _field(
        0.30, ge=0, le=1, unit="-",
        description="Server power when idle as a fraction of full-load power; power = P (idle + (1 - idle) u).",
        source="assumption: 30 %, no published source found for an idle 8-GPU H100 server.",
    )
    pue: float = _field(
        1.56, ge=1, le=3, unit="-",
        description="Power usage effectiveness (facility power / IT power, >= 1): cooling and losses.",
        source=(
            "Uptime Institute 2024 survey industry average 1.56 (intelligence.uptimeinstitute.com); "
            "alternatives: Equinix 1.42 (2023), Epoch AI non-hyperscaler 1.25, new large sites <= 1.3."
        ),
    )
    electricity_eur_per_kwh: float = _field(
        round((EUROSTAT_ELECTRICITY_H1_2024_FINLAND_EUR_PER_KWH + EUROSTAT_ELECTRICITY_H1_2024_IRELAND_EUR_PER_KWH) / 2, 4),
        ge=0, unit="EUR/kWh",
        description="Electricity price paid for metered energy, excl. VAT.",
        source=(
            "midpoint of Eurostat non-household H1-2024, band 500-2,000 MWh, excl. VAT: Finland 0.0928 to "
            f"Ireland 0.256 EUR/kWh ({_EUROSTAT_ELEC}, nrg_pc_205); the EU average was not found."
        ),
    )
    colocation_eur_per_kw_month: float = _field(
        _eur_from_usd(CBRE_NA_COLOCATION_USD_PER_KW_MONTH), ge=0, unit="EUR/kW-month",
        description="Colocation fee per contracted IT kW and month (space, cooling capacity, security).",
        source=(
            "CBRE North America Data Center Trends H2-2024, primary markets 250-500 kW: $184.06/kW-month, "
            f"{_FX}. Known gap: no EU-metro figure found (CBRE Europe: 2025 rises >= 10 % in some markets)."
        ),
    )
    maintenance_fraction_of_capex_per_year: float = _field(
        0.05, ge=0, le=1, unit="1/yr",
        description="Hardware support, spares and repairs per year as a fraction of equipment capex.",
        source="assumption: 5 %/yr, no published source.",
    )
    staff_fte: float = _field(
        0.1, ge=0, unit="FTE",
        description="Operations staff for the whole cluster (full-time equivalents).",
        source="assumption: 0.1 FTE (about 4 h a week) for one 8-GPU server.",
    )
    labour_cost_eur_per_hour: float = _field(
        EUROSTAT_LABOUR_COST_EU_2024_EUR_PER_HOUR, ge=0, unit="EUR/h",
        description="Employer's labour cost per hour worked.",
        source=(
            "Eurostat lc_lci_lev, 2024, EU-27 whole economy: EUR 33.5/h (DE 43.4, FR 43.7, NL 45.2); "
            "ICT-specific cost not found."
        ),
    )
    working_hours_per_fte_year: float = _field(
        1720.0, gt=0, le=HOURS_PER_YEAR, unit="h/yr",
        description="Hours worked per FTE per year; cost per FTE = labour cost x hours.",
        source="assumption (user input): 1,720 h/yr (40 h x 43 weeks); no published source (domain-model gap).",
    )

    def as_arrays(self) -> dict[str, np.ndarray]:
        """Every field as a 0-d float array, ready for ``kernel(**inputs.as_arrays())``."""
        return {name: np.asarray(value, dtype=float) for name, value in self.model_dump().items()}

    def assumptions(self) -> tuple[Assumption, ...]:
        """The value, unit and source of every input, in field order, for display next to results."""
        out = []
        for name, info in type(self).model_fields.items():
            extra = info.json_schema_extra or {}
            out.append(
                Assumption(
                    name=name,
                    value=float(getattr(self, name)),
                    unit=str(extra.get("unit", "")),
                    source=str(extra.get("source", "")),
                    description=info.description or "",
                )
            )
        return tuple(out)


@dataclass(frozen=True)
class Assumption:
    """One input shown next to a result: name, value, unit and where the value comes from."""

    name: str
    value: float
    unit: str
    source: str
    description: str = ""


_FIELDS = tuple(TcoInputs.model_fields)
_INTEGER_SHAPE_FIELDS = ("horizon_months",)  # defines the month axis: must be a scalar


def _bounds(name: str) -> list[tuple[str, float]]:
    out = []
    for meta in TcoInputs.model_fields[name].metadata:
        for op in ("gt", "ge", "lt", "le"):
            if isinstance(meta, getattr(annotated_types, op.capitalize())):
                out.append((op, float(getattr(meta, op))))
    return out


_BOUNDS = {name: _bounds(name) for name in _FIELDS}
_OPS = {
    "gt": (np.greater, ">"),
    "ge": (np.greater_equal, ">="),
    "lt": (np.less, "<"),
    "le": (np.less_equal, "<="),
}

_OWNED_PARAMS = (
    "server_capex_eur_per_gpu",
    "networking_capex_eur_per_gpu",
    "storage_capex_eur_per_gpu",
    "installation_capex_eur_per_gpu",
    "depreciation_years",
    "cost_of_capital_fraction_per_year",
    "residual_value_fraction",
    "power_at_load_kw_per_gpu",
    "idle_power_fraction",
    "pue",
    "electricity_eur_per_kwh",
    "colocation_eur_per_kw_month",
    "maintenance_fraction_of_capex_per_year",
    "staff_fte",
    "labour_cost_eur_per_hour",
    "working_hours_per_fte_year",
    "cluster_gpus",
)


#: Inputs of :func:`compare_options_per_useful_gpu_hour`, in the argument order of ``_compare_block``.
_COMPARE_PARAMS = (
    "utilisation_fraction", "price_on_demand_eur_per_gpu_hour", "reserved_discount_fraction", *_OWNED_PARAMS
)


def _take(params: Mapping[str, Any], names: Sequence[str], where: str) -> list[np.ndarray]:
    """Check the keyword names and return the requested ones as float arrays (no copy for float arrays)."""
    unknown = sorted(set(params) - set(_FIELDS))
    if unknown:
        raise TypeError(f"{where}() got unknown keyword argument(s) {unknown}; expected TcoInputs field names")
    missing = [n for n in names if n not in params]
    if missing:
        raise TypeError(f"{where}() missing keyword argument(s) {missing}")
    return [np.asarray(params[n], dtype=float) for n in names]


def validate_arrays(base: TcoInputs | None = None, /, **arrays: npt.ArrayLike) -> dict[str, np.ndarray]:
    """Check array inputs against the :class:`TcoInputs` bounds, vectorised, and fill the rest from ``base``.

    This is the entry check for sweeps and Monte Carlo draws: it costs a few comparisons per element,
    instead of building one pydantic model per scenario.

    Parameters
    ----------
    base : TcoInputs, optional
        Scenario supplying every field not given in ``arrays`` (default ``TcoInputs()``).
    **arrays : array_like
        Any :class:`TcoInputs` fields as scalars or arrays (broadcastable) [units as in the field names].
        ``horizon_months`` must be a scalar (it sets the length of the month axis).

    Returns
    -------
    dict of str to numpy.ndarray
        Every field, as a float array (0-d for those taken from ``base``).

    Raises
    ------
    ValueError
        Naming the field, the bound, how many values break it and the first one (NaN always fails).

    Examples
    --------
    >>> out = validate_arrays(utilisation_fraction=[0.5, 1.0])
    >>> out["utilisation_fraction"].tolist(), float(out["pue"])
    ([0.5, 1.0], 1.56)
    >>> validate_arrays(utilisation_fraction=[0.5, 1.5])
    Traceback (most recent call last):
    ...
    ValueError: utilisation_fraction must be <= 1.0 [-]; 1 of 2 values break this, e.g. 1.5
    """
    base = TcoInputs() if base is None else base
    unknown = sorted(set(arrays) - set(_FIELDS))
    if unknown:
        raise ValueError(f"unknown input(s) {unknown}; valid names are the TcoInputs fields")
    out = base.as_arrays()
    for name, value in arrays.items():
        arr = np.asarray(value, dtype=float)
        if name in _INTEGER_SHAPE_FIELDS and arr.ndim != 0:
            raise ValueError(f"{name} must be a scalar (it sets the length of the month axis)")
        unit = (TcoInputs.model_fields[name].json_schema_extra or {}).get("unit", "")
        nan = np.isnan(arr)
        if nan.any():
            raise ValueError(f"{name} contains NaN in {int(nan.sum())} of {arr.size} values")
        for op, bound in _BOUNDS[name]:
            func, symbol = _OPS[op]
            ok = func(arr, bound)
            if not ok.all():
                bad = arr[~ok] if arr.ndim else arr
                raise ValueError(
                    f"{name} must be {symbol} {bound} [{unit}]; {int((~ok).sum())} of {arr.size} values break "
                    f"this, e.g. {float(np.ravel(bad)[0])}"
                )
        out[name] = arr
    try:
        np.broadcast_shapes(*(a.shape for a in out.values()))
    except ValueError as err:
        shapes = {k: v.shape for k, v in out.items() if v.ndim}
        raise ValueError(f"input arrays do not broadcast together: {shapes}") from err
    return out


# --------------------------------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------------------------------


def capital_recovery_factor(rate_fraction_per_year: npt.ArrayLike, years: npt.ArrayLike) -> np.ndarray:
    r"""Capital recovery factor: the constant yearly payment that repays 1 EUR over ``years``.

    Parameters
    ----------
    rate_fraction_per_year : array_like
        Cost of capital ``i`` [1/yr], >= 0 (as a decimal: 8 % is 0.08).
    years : array_like
        Life ``L`` [yr], > 0; need not be an integer.

    Returns
    -------
    numpy.ndarray
        CRF [1/yr], broadcast shape of the inputs.

    Notes
    -----
    .. math::

        \mathrm{CRF}(i, L) = \frac{i (1+i)^L}{(1+i)^L - 1}, \qquad
        \lim_{i \to 0} \mathrm{CRF} = \frac{1}{L}

    The zero-rate case (straight-line depreciation) is taken with ``np.where``; ``(1+i)^L - 1`` is
    evaluated as ``expm1(L log1p(i))`` so small rates keep full precision.

    References
    ----------
    .. [1] T. Brown et al., PyPSA ``annuity`` (costs.py), https://github.com/PyPSA/PyPSA
    .. [2] "Capital recovery factor", https://en.wikipedia.org/wiki/Capital_recovery_factor

    Examples
    --------
    >>> float(capital_recovery_factor(0.0, 5))  # simple depreciation: 1/5
    0.2
    >>> round(float(capital_recovery_factor(0.08, 5)), 6)
    0.250456
    >>> capital_recovery_factor([0.0, 0.1], 1).tolist()
    [1.0, 1.1]
    """
    i = np.asarray(rate_fraction_per_year, dtype=float)
    life = np.asarray(years, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        growth_minus_one = np.expm1(life * np.log1p(i))  # (1 + i)^L - 1
        crf = i * (growth_minus_one + 1.0) / growth_minus_one
        return np.where(i == 0, 1.0 / life, crf)


def _owned_parts(params: Mapping[str, Any], where: str) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """Owned layers that do not depend on utilisation, energy cost at full load and the idle fraction."""
    (
        server, network, storage, install, life, rate, residual, power_kw, idle, pue, price_kwh, colo,
        maintenance, fte, labour, hours, gpus,
    ) = _take(params, _OWNED_PARAMS, where)
    crf = capital_recovery_factor(rate, life)
    equipment = server + network + storage  # resold and maintained; installation is not
    layers = {
        "hardware": (server + storage + install) * crf / HOURS_PER_YEAR,
        "networking": network * crf / HOURS_PER_YEAR,
        "facility": colo * power_kw * MONTHS_PER_YEAR / HOURS_PER_YEAR,
        "staff": fte * labour * hours / (HOURS_PER_YEAR * gpus),
        "maintenance": maintenance * equipment / HOURS_PER_YEAR,
        # sinking-fund factor CRF - i spreads the end-of-life resale value R over the life: R (CRF - i).
        "residual_credit": -(residual * equipment) * (crf - rate) / HOURS_PER_YEAR,
    }
    energy_at_load = power_kw * pue * price_kwh
    return layers, energy_at_load, idle


@dataclass(frozen=True)
class OwnedCostBreakdown:
    """Owned cost per GPU-hour by layer [EUR/GPU-h]; arrays of the broadcast input shape.

    The layers add up to :attr:`total`; ``residual_credit`` is negative. Divide by the utilisation
    (:meth:`per_useful_hour`) to get the cost per *useful* GPU-hour by layer.
    """

    hardware: np.ndarray
    networking: np.ndarray
    power_and_cooling: np.ndarray
    facility: np.ndarray
    staff: np.ndarray
    maintenance: np.ndarray
    residual_credit: np.ndarray

    @property
    def total(self) -> np.ndarray:
        """Sum of the layers [EUR/GPU-h]."""
        return sum((getattr(self, name) for name in LAYERS[1:]), start=getattr(self, LAYERS[0]))

    def as_dict(self) -> dict[str, np.ndarray]:
        """Layers in :data:`LAYERS` order."""
        return {name: getattr(self, name) for name in LAYERS}

    def per_useful_hour(self, utilisation_fraction: npt.ArrayLike) -> OwnedCostBreakdown:
        """Every layer divided by the utilisation [EUR per useful GPU-h]."""
        u = np.asarray(utilisation_fraction, dtype=float)
        return OwnedCostBreakdown(**{name: getattr(self, name) / u for name in LAYERS})


def owned_cost_breakdown_eur_per_gpu_hour(
    *, utilisation_fraction: npt.ArrayLike, **params: npt.ArrayLike
) -> OwnedCostBreakdown:
    r"""Cost of one owned GPU for one wall-clock hour, by layer, at utilisation ``u``.

    Every layer except power is paid per wall-clock hour (100 % availability) whatever the utilisation;
    power and cooling grow linearly from idle to full load with ``u``.

    Parameters
    ----------
    utilisation_fraction : array_like
        ``u`` [-], 0 < u <= 1 (keyword-only, so ``**inputs.as_arrays()`` can supply it).
    **params : array_like
        :class:`TcoInputs` fields (others are ignored): ``server_capex_eur_per_gpu``,
        ``networking_capex_eur_per_gpu``, ``storage_capex_eur_per_gpu``, ``installation_capex_eur_per_gpu``
        [EUR/GPU]; ``depreciation_years`` [yr]; ``cost_of_capital_fraction_per_year`` [1/yr];
        ``residual_value_fraction`` [-]; ``power_at_load_kw_per_gpu`` [kW/GPU]; ``idle_power_fraction`` [-];
        ``pue`` [-]; ``electricity_eur_per_kwh`` [EUR/kWh]; ``colocation_eur_per_kw_month``
        [EUR/kW-month]; ``maintenance_fraction_of_capex_per_year`` [1/yr]; ``staff_fte`` [FTE];
        ``labour_cost_eur_per_hour`` [EUR/h]; ``working_hours_per_fte_year`` [h/yr]; ``cluster_gpus`` [GPU].

    Returns
    -------
    OwnedCostBreakdown
        Layers [EUR/GPU-h] of the broadcast shape of all inputs.

    Notes
    -----
    With :math:`H = 8760` h/yr, CRF from :func:`capital_recovery_factor`, equipment capex
    :math:`K_e = K_{server} + K_{net} + K_{storage}` and total capex :math:`K = K_e + K_{install}`:

    .. math::

        c_{hardware} &= (K_{server} + K_{storage} + K_{install})\,\mathrm{CRF}/H \\
        c_{networking} &= K_{net}\,\mathrm{CRF}/H \\
        c_{residual} &= -\rho K_e\,(\mathrm{CRF} - i)/H \\
        c_{maintenance} &= m K_e / H \\
        c_{facility} &= f_{colo}\,P_{load}\cdot 12/H \\
        c_{staff} &= N_{FTE}\,w\,h_{FTE} / (H\,n_{GPU}) \\
        c_{power}(u) &= P_{load}\,(\phi + (1-\phi)\,u)\,\mathrm{PUE}\,p_{kWh}

    :math:`(\mathrm{CRF} - i)` is the sinking-fund factor, so hardware + networking + residual equals
    :math:`((K - \rho K_e)\,\mathrm{CRF} + \rho K_e\, i)/H`, the textbook annuity of a cost net of salvage.
    Colocation is charged on the contracted IT power, taken equal to the full-load power.
    At 100 % utilisation the total is the domain model's :math:`c_{own}` [1]_.

    References
    ----------
    .. [1] SemiAnalysis, "H100 TCO", 2025-08-20 (TCO $1.42/GPU-h excluding rental margin), as summarised in
       docs/domain-model.md section 5.
    .. [2] NVIDIA, DGX H100 User Guide, https://docs.nvidia.com/dgx/dgxh100-user-guide/

    Examples
    --------
    One GPU bought for 8,760 EUR and written off in one year at 0 %: hardware costs exactly 1 EUR/h.

    >>> simple = dict(TcoInputs().as_arrays(), server_capex_eur_per_gpu=8760.0, networking_capex_eur_per_gpu=0.0,
    ...               storage_capex_eur_per_gpu=0.0, depreciation_years=1.0, cost_of_capital_fraction_per_year=0.0,
    ...               residual_value_fraction=0.0)
    >>> float(owned_cost_breakdown_eur_per_gpu_hour(**simple).hardware)
    1.0
    >>> round(float(owned_cost_breakdown_eur_per_gpu_hour(**TcoInputs().as_arrays()).total), 4)
    1.578
    """
    layers, energy_at_load, idle = _owned_parts(params, "owned_cost_breakdown_eur_per_gpu_hour")
    u = np.asarray(utilisation_fraction, dtype=float)
    power = energy_at_load * (idle + (1.0 - idle) * u)
    shape = np.broadcast_shapes(u.shape, power.shape, *(a.shape for a in layers.values()))
    return OwnedCostBreakdown(
        power_and_cooling=np.broadcast_to(power, shape),
        **{name: np.broadcast_to(value, shape) for name, value in layers.items()},
    )


def owned_cost_coefficients_eur_per_gpu_hour(**params: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    r"""Fixed and utilisation-proportional parts of the owned cost per wall-clock GPU-hour.

    .. math::

        c_{own}(u) = F + V u,\quad
        F = c_{hardware} + c_{networking} + c_{residual} + c_{maintenance} + c_{facility} + c_{staff}
            + \phi\,P_{load}\,\mathrm{PUE}\,p_{kWh},\quad
        V = (1-\phi)\,P_{load}\,\mathrm{PUE}\,p_{kWh}

    Parameters
    ----------
    **params : array_like
        As :func:`owned_cost_breakdown_eur_per_gpu_hour` (without the utilisation).

    Returns
    -------
    fixed, variable : numpy.ndarray
        ``F`` [EUR/GPU-h] and ``V`` [EUR/GPU-h at u = 1].

    Examples
    --------
    >>> fixed, variable = owned_cost_coefficients_eur_per_gpu_hour(**TcoInputs().as_arrays())
    >>> round(float(fixed), 4), round(float(variable), 4)
    (1.4081, 0.2428)
    """
    return _coefficients(*_take(params, _OWNED_PARAMS, "owned_cost_coefficients_eur_per_gpu_hour"))


def _coefficients(
    server: np.ndarray, network: np.ndarray, storage: np.ndarray, install: np.ndarray, life: np.ndarray,
    rate: np.ndarray, residual: np.ndarray, power_kw: np.ndarray, idle: np.ndarray, pue: np.ndarray,
    price_kwh: np.ndarray, colo: np.ndarray, maintenance: np.ndarray, fte: np.ndarray, labour: np.ndarray,
    hours: np.ndarray, gpus: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """``F`` and ``V`` with the layers of :func:`_owned_parts` summed per year first (fewer array passes)."""
    crf = capital_recovery_factor(rate, life)
    equipment = server + network + storage
    per_year = (
        (equipment + install) * crf
        - residual * equipment * (crf - rate)
        + maintenance * equipment
        + colo * power_kw * MONTHS_PER_YEAR
        + fte * labour * hours / gpus
    )
    energy_at_load = power_kw * pue * price_kwh
    idle_energy = energy_at_load * idle
    return per_year / HOURS_PER_YEAR + idle_energy, energy_at_load - idle_energy


def cost_per_useful_gpu_hour_eur(
    option: Option | str, /, *, utilisation_fraction: npt.ArrayLike, **params: npt.ArrayLike
) -> np.ndarray:
    r"""Cost of one *useful* GPU-hour at utilisation ``u`` for one option, at today's prices.

    Parameters
    ----------
    option : Option or str
        ``"on_demand"``, ``"reserved"`` or ``"owned"``.
    utilisation_fraction : array_like
        ``u`` [-], 0 < u <= 1 (keyword-only, so ``**inputs.as_arrays()`` can supply it).
    **params : array_like
        :class:`TcoInputs` fields: ``price_on_demand_eur_per_gpu_hour`` [EUR/GPU-h] (on demand, reserved),
        ``reserved_discount_fraction`` [-] (reserved), the owned fields of
        :func:`owned_cost_breakdown_eur_per_gpu_hour` (owned). Others are ignored.

    Returns
    -------
    numpy.ndarray
        [EUR per useful GPU-h], broadcast shape of ``u`` and the parameters used.

    Notes
    -----
    With on-demand price :math:`p`, reserved discount :math:`d` and the owned coefficients
    :math:`F, V` of :func:`owned_cost_coefficients_eur_per_gpu_hour`:

    .. math::

        c_{on\text{-}demand}(u) = p, \qquad
        c_{reserved}(u) = \frac{p (1 - d)}{u}, \qquad
        c_{owned}(u) = \frac{F + V u}{u} = \frac{F}{u} + V

    Reserved and owned capacity is paid for every wall-clock hour, so idle hours are spread over the useful
    ones; both costs never rise with ``u``.

    Examples
    --------
    >>> inputs = TcoInputs().as_arrays()
    >>> float(cost_per_useful_gpu_hour_eur("on_demand", **inputs))
    4.32
    >>> round(float(cost_per_useful_gpu_hour_eur("reserved", **inputs)), 4)  # 4.32 * (1 - 0.56) / 0.7
    2.7154
    >>> cost_per_useful_gpu_hour_eur("owned", **dict(inputs, utilisation_fraction=[0.5, 1.0])).round(4).tolist()
    [3.0589, 1.6509]
    """
    option = Option(option)
    u = np.asarray(utilisation_fraction, dtype=float)
    where = "cost_per_useful_gpu_hour_eur"
    if option is Option.ON_DEMAND:
        (price,) = _take(params, ("price_on_demand_eur_per_gpu_hour",), where)
        return np.broadcast_to(price, np.broadcast_shapes(price.shape, u.shape)).copy()
    if option is Option.RESERVED:
        price, discount = _take(params, ("price_on_demand_eur_per_gpu_hour", "reserved_discount_fraction"), where)
        return price * (1.0 - discount) / u
    fixed, variable = owned_cost_coefficients_eur_per_gpu_hour(**params)
    return fixed / u + variable


def _break_even_from_coefficients(
    pair: Pair, price: np.ndarray, reserved_price: np.ndarray, fixed: np.ndarray, variable: np.ndarray
) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if pair is Pair.ON_DEMAND_VS_OWNED:
            margin = price - variable
            return np.where(margin > 0, fixed / margin, np.inf)
        if pair is Pair.ON_DEMAND_VS_RESERVED:
            return np.where(price > 0, reserved_price / price, np.nan)
        return (reserved_price - fixed) / variable  # RESERVED_VS_OWNED: +-inf when V = 0, NaN on an exact tie


def break_even_utilisation(pair: Pair | str, **params: npt.ArrayLike) -> np.ndarray:
    r"""Utilisation at which two options cost the same per useful GPU-hour (closed form, today's prices).

    Parameters
    ----------
    pair : Pair or str
        ``"on_demand_vs_owned"``, ``"on_demand_vs_reserved"`` or ``"reserved_vs_owned"``.
    **params : array_like
        :class:`TcoInputs` fields: ``price_on_demand_eur_per_gpu_hour`` [EUR/GPU-h],
        ``reserved_discount_fraction`` [-] (pairs with reserved), owned fields of
        :func:`owned_cost_breakdown_eur_per_gpu_hour` (pairs with owned). Others, including the
        utilisation, are ignored.

    Returns
    -------
    numpy.ndarray
        Break-even utilisation :math:`u^*` [-], broadcast shape of the parameters used. It is not clipped
        to (0, 1]: :math:`u^* > 1` means the break-even cannot be reached.

    Notes
    -----
    From the per-useful-hour costs of :func:`cost_per_useful_gpu_hour_eur`, with owned cost
    :math:`c_{own}(u) = F + V u` per wall-clock hour (:math:`V` = the utilisation-dependent power term):

    *On demand vs owned.* Owning is cheaper when :math:`F/u + V < p`:

    .. math::

        u^* = \frac{F}{p - V} \quad (p > V); \qquad u^* = +\infty \quad (p \le V)

    Owning is cheaper for :math:`u > u^*`. With :math:`V = 0` this is the domain model's
    :math:`c_{own}/p`; :math:`u^* = +\infty` means even the marginal energy of owning costs more than
    renting. :math:`u^*` falls as the rental price rises.

    *On demand vs reserved.* Reserving is cheaper when :math:`p(1-d)/u < p`:

    .. math::

        u^* = \frac{p (1-d)}{p} = 1 - d \quad (p > 0; \text{NaN, a tie at every } u, \text{ when } p = 0)

    Reserving is cheaper for :math:`u > u^*` (the critical fractile r = 1 - d of domain-model section 6).

    *Reserved vs owned.* Both are paid for every hour, so both scale as :math:`1/u` except owned power:
    owning is cheaper when :math:`F + V u < p(1-d)`:

    .. math::

        u^* = \frac{p(1-d) - F}{V}

    Here the direction is reversed: owning is cheaper for :math:`u < u^*`. :math:`u^* \ge 1`: owning is
    cheaper at every utilisation; :math:`u^* \le 0`: reserving is cheaper at every utilisation;
    with :math:`V = 0` the result is :math:`\pm\infty` (NaN on an exact tie).

    Examples
    --------
    >>> inputs = TcoInputs().as_arrays()
    >>> round(float(break_even_utilisation("on_demand_vs_owned", **inputs)), 4)  # 1.4081 / (4.32 - 0.2428)
    0.3454
    >>> round(float(break_even_utilisation("on_demand_vs_reserved", **inputs)), 2)
    0.44
    >>> round(float(break_even_utilisation("reserved_vs_owned", **inputs)), 3)  # (1.9008 - 1.4081) / 0.2428
    2.029
    """
    pair = Pair(pair)
    where = "break_even_utilisation"
    price, discount = _take(
        {"reserved_discount_fraction": 0.0, **params},  # discount unused for on-demand vs owned
        ("price_on_demand_eur_per_gpu_hour", "reserved_discount_fraction"),
        where,
    )
    if pair is Pair.ON_DEMAND_VS_RESERVED:
        _take(params, ("reserved_discount_fraction",), where)
        zero = np.zeros(())
        return _break_even_from_coefficients(pair, price, price * (1.0 - discount), zero, zero)
    if pair is Pair.RESERVED_VS_OWNED:
        _take(params, ("reserved_discount_fraction",), where)
    fixed, variable = owned_cost_coefficients_eur_per_gpu_hour(**params)
    return _break_even_from_coefficients(pair, price, price * (1.0 - discount), fixed, variable)


def compare_options_per_useful_gpu_hour(**params: npt.ArrayLike) -> dict[str, np.ndarray]:
    """All three costs per useful GPU-hour and all three break-even utilisations in one vectorised pass.

    This is the kernel behind sweeps, the tornado and the Monte Carlo: the owned coefficients are computed
    once and shared.

    Parameters
    ----------
    **params : array_like
        :class:`TcoInputs` fields; needs ``utilisation_fraction``, ``price_on_demand_eur_per_gpu_hour``,
        ``reserved_discount_fraction`` and the owned fields of :func:`owned_cost_breakdown_eur_per_gpu_hour`.

    Returns
    -------
    dict of str to numpy.ndarray
        Keys ``"on_demand"``, ``"reserved"``, ``"owned"`` [EUR per useful GPU-h] (as
        :func:`cost_per_useful_gpu_hour_eur`) and the :class:`Pair` values [-] (as
        :func:`break_even_utilisation`), all of the broadcast shape of the inputs.

    Examples
    --------
    >>> out = compare_options_per_useful_gpu_hour(**TcoInputs().as_arrays())
    >>> {k: round(float(v), 4) for k, v in out.items()}  # doctest: +NORMALIZE_WHITESPACE
    {'on_demand': 4.32, 'reserved': 2.7154, 'owned': 2.2543, 'on_demand_vs_owned': 0.3454,
     'on_demand_vs_reserved': 0.44, 'reserved_vs_owned': 2.0293}
    """
    arrays = _take(params, _COMPARE_PARAMS, "compare_options_per_useful_gpu_hour")
    return _evaluate_in_blocks(_compare_block, arrays)


def _compare_block(
    u: np.ndarray, price: np.ndarray, discount: np.ndarray, *owned: np.ndarray, costs_only: bool = False
) -> dict[str, np.ndarray]:
    fixed, variable = _coefficients(*owned)
    reserved_price = price * (1.0 - discount)
    out = {
        Option.ON_DEMAND.value: price,
        Option.RESERVED.value: reserved_price / u,
        Option.OWNED.value: fixed / u + variable,
    }
    if not costs_only:
        for pair in Pair:
            out[pair.value] = _break_even_from_coefficients(pair, price, reserved_price, fixed, variable)
    return out


#: Points per block in :func:`_evaluate_in_blocks` (256 KiB per float64 temporary; the fastest of the
#: block sizes 2k-64k tried on the 2-core reference machine).
_BLOCK_POINTS = 32_768
#: Draws per block in :func:`monte_carlo` (each block holds one row per ranged input).
_MONTE_CARLO_BLOCK_DRAWS = 8192


def _evaluate_in_blocks(fn: Any, arrays: Sequence[np.ndarray], block: int = _BLOCK_POINTS) -> dict[str, np.ndarray]:
    """Evaluate the elementwise ``fn(*arrays)`` over blocks of points; same result as one call.

    Running a long chain of numpy operations block by block keeps each temporary at ``block`` elements
    instead of the full size (peak memory of a 10^6-point call drops from ~30 full-size temporaries to
    the outputs), and is slightly faster because the temporaries stay in cache. Only used when every
    non-scalar input already has the full broadcast shape; otherwise ``fn`` runs once.
    """
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    size = math.prod(shape)
    if size <= 2 * block or any(a.ndim and a.shape != shape for a in arrays):
        out = fn(*arrays)
        return {key: _full(value, shape, copy=any(value is a for a in arrays)) for key, value in out.items()}
    flat = [a.reshape(-1) if a.ndim else a for a in arrays]
    result: dict[str, np.ndarray] = {}
    for start in range(0, size, block):
        stop = min(start + block, size)
        part = fn(*(a[start:stop] if a.ndim else a for a in flat))
        for key, value in part.items():
            if key not in result:
                result[key] = np.empty(size)
            result[key][start:stop] = value
    return {key: value.reshape(shape) for key, value in result.items()}


def _full(value: np.ndarray, shape: tuple[int, ...], copy: bool = False) -> np.ndarray:
    """``value`` as a writable array of ``shape`` (copied when it must broadcast or ``copy`` is set)."""
    if value.shape != shape:
        return np.broadcast_to(value, shape).copy()
    return value.copy() if copy else value


def mean_on_demand_price_eur_per_gpu_hour(
    price_on_demand_eur_per_gpu_hour: npt.ArrayLike,
    rental_price_decline_fraction_per_year: npt.ArrayLike,
    horizon_months: int,
) -> np.ndarray:
    r"""Average on-demand price over the horizon when prices fall by a constant fraction per year.

    Parameters
    ----------
    price_on_demand_eur_per_gpu_hour : array_like
        Price today :math:`p_0` [EUR/GPU-h].
    rental_price_decline_fraction_per_year : array_like
        :math:`d` [1/yr], 0 <= d < 1.
    horizon_months : int
        :math:`H` [month], >= 1.

    Returns
    -------
    numpy.ndarray
        Mean of the monthly prices [EUR/GPU-h] (undiscounted), broadcast shape of the inputs.

    Notes
    -----
    With the monthly factor :math:`q = (1-d)^{1/12}` and :math:`p_m = p_0 q^m`, :math:`m = 0 \dots H-1`:

    .. math::

        \bar p = \frac{1}{H}\sum_{m=0}^{H-1} p_0 q^m = p_0 \frac{1 - q^H}{H (1 - q)} \quad (q < 1),
        \qquad \bar p = p_0 \quad (d = 0)

    Examples
    --------
    >>> float(mean_on_demand_price_eur_per_gpu_hour(4.0, 0.0, 36))
    4.0
    >>> round(float(mean_on_demand_price_eur_per_gpu_hour(4.0, 0.2, 24)), 4)
    3.2567
    """
    price = np.asarray(price_on_demand_eur_per_gpu_hour, dtype=float)
    decline = np.asarray(rental_price_decline_fraction_per_year, dtype=float)
    months = float(horizon_months)
    q = (1.0 - decline) ** (1.0 / MONTHS_PER_YEAR)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        mean_factor = np.where(decline > 0, -np.expm1(months * np.log(q)) / (months * (1.0 - q)), 1.0)
    return price * mean_factor


def _horizon(params: Mapping[str, Any], where: str) -> int:
    (h,) = _take(params, ("horizon_months",), where)
    if h.ndim != 0 or h < 1 or h != np.floor(h):
        raise ValueError(f"{where}: horizon_months must be a scalar integer >= 1, got {h}")
    return int(h)


def monthly_cost_eur(option: Option | str, **params: npt.ArrayLike) -> np.ndarray:
    r"""Cash paid each month for a cluster of ``cluster_gpus`` GPUs under one option.

    Parameters
    ----------
    option : Option or str
        ``"on_demand"``, ``"reserved"`` or ``"owned"``.
    **params : array_like
        :class:`TcoInputs` fields. All options need ``horizon_months`` [month] (a scalar: it sets the
        length of the month axis), ``cluster_gpus`` [GPU]; on demand and reserved need
        ``price_on_demand_eur_per_gpu_hour`` [EUR/GPU-h] and ``rental_price_decline_fraction_per_year``
        [1/yr]; on demand and owned need ``utilisation_fraction`` [-]; reserved needs
        ``reserved_discount_fraction`` [-] and ``reserved_term_months`` [month]; owned needs the owned
        fields of :func:`owned_cost_breakdown_eur_per_gpu_hour`.

    Returns
    -------
    numpy.ndarray
        Cash out [EUR/month], shape ``S + (horizon_months,)`` where ``S`` is the broadcast shape of the
        parameters; the last axis is the month index ``m = 0 .. H-1``. Owned months with a resale can be
        negative.

    Notes
    -----
    With :math:`h = 730` h/month, :math:`n` GPUs, utilisation :math:`u`, monthly price factor
    :math:`(1-\delta)^{m/12}` (:math:`\delta` = ``rental_price_decline_fraction_per_year``):

    .. math::

        C^{od}_m &= n\,u\,h\,p_0 (1-\delta)^{m/12} \\
        C^{res}_m &= n\,h\,p_0 (1-d)\,(1-\delta)^{T \lfloor m/T \rfloor / 12} \\
        C^{own}_m &= n \left[ K\,[m \bmod M = 0] - \rho K_e\,[(m+1) \bmod M = 0]
                     + h\,(c_{power}(u) + c_{facility} + c_{staff} + c_{maintenance}) \right]

    Reserved capacity is paid for every hour of each term of :math:`T` months, renewed at the then-current
    price; when the horizon ends inside a term, the rest of that term is still owed but lies outside the
    curve. Owned capex :math:`K` (per GPU, incl. installation) is paid in month 0 and again after each life
    of :math:`M = \max(1, \mathrm{round}(12 L))` months (replacement at the same price); the resale value
    :math:`\rho K_e` is credited in the last month of each life. Cash is undiscounted: the cost of capital
    does not enter this view.

    Examples
    --------
    >>> inputs = dict(TcoInputs().as_arrays(), horizon_months=3)
    >>> monthly_cost_eur("on_demand", **inputs).round(2).tolist()  # 8 GPUs * 0.7 * 730 h * 4.32
    [17660.16, 17660.16, 17660.16]
    >>> monthly_cost_eur("owned", **inputs).shape
    (3,)
    """
    option = Option(option)
    where = "monthly_cost_eur"
    months_count = _horizon(params, where)
    m = np.arange(months_count, dtype=float)
    (gpus,) = _take(params, ("cluster_gpus",), where)
    if option is Option.ON_DEMAND:
        u, price, decline = _take(
            params, ("utilisation_fraction", "price_on_demand_eur_per_gpu_hour", "rental_price_decline_fraction_per_year"),
            where,
        )
        factor = (1.0 - decline)[..., None] ** (m / MONTHS_PER_YEAR)
        return (gpus * u * price * HOURS_PER_MONTH)[..., None] * factor
    if option is Option.RESERVED:
        price, discount, decline, term = _take(
            params,
            (
                "price_on_demand_eur_per_gpu_hour", "reserved_discount_fraction",
                "rental_price_decline_fraction_per_year", "reserved_term_months",
            ),
            where,
        )
        term = term[..., None]
        contract_start_month = term * np.floor(m / term)
        factor = (1.0 - decline)[..., None] ** (contract_start_month / MONTHS_PER_YEAR)
        return (gpus * price * (1.0 - discount) * HOURS_PER_MONTH)[..., None] * factor
    (u,) = _take(params, ("utilisation_fraction",), where)
    layers, energy_at_load, idle = _owned_parts(params, where)
    server, network, storage, install, life_years, residual = _take(
        params,
        (
            "server_capex_eur_per_gpu", "networking_capex_eur_per_gpu", "storage_capex_eur_per_gpu",
            "installation_capex_eur_per_gpu", "depreciation_years", "residual_value_fraction",
        ),
        where,
    )
    opex_per_gpu_hour = (
        energy_at_load * (idle + (1.0 - idle) * u) + layers["facility"] + layers["staff"] + layers["maintenance"]
    )
    equipment = server + network + storage
    life_months = np.maximum(1.0, np.rint(life_years * MONTHS_PER_YEAR))[..., None]
    purchase = (np.fmod(m, life_months) == 0).astype(float)
    resale = (np.fmod(m + 1.0, life_months) == 0).astype(float)
    return gpus[..., None] * (
        (equipment + install)[..., None] * purchase
        - (residual * equipment)[..., None] * resale
        + (opex_per_gpu_hour * HOURS_PER_MONTH)[..., None]
    )


def cumulative_cost_eur(option: Option | str, **params: npt.ArrayLike) -> np.ndarray:
    """Cumulative cash paid up to and including each month [EUR], shape ``S + (horizon_months,)``.

    The running sum over the last axis of :func:`monthly_cost_eur` (same parameters).

    Examples
    --------
    >>> inputs = dict(TcoInputs().as_arrays(), horizon_months=2)
    >>> cumulative_cost_eur("on_demand", **inputs).round(2).tolist()
    [17660.16, 35320.32]
    """
    return np.cumsum(monthly_cost_eur(option, **params), axis=-1)


def break_even_month(
    option: Option | str = Option.OWNED, versus: Option | str = Option.ON_DEMAND, **params: npt.ArrayLike
) -> np.ndarray:
    r"""First month after which ``option`` has cost no more cash in total than ``versus``.

    Parameters
    ----------
    option, versus : Option or str
        The commitment being judged (default owned) and the alternative (default on demand).
    **params : array_like
        As :func:`monthly_cost_eur` for both options.

    Returns
    -------
    numpy.ndarray
        Month count :math:`k \in \{1 \dots H\}` [month] (float), the smallest with
        :math:`\sum_{m<k} C^{option}_m \le \sum_{m<k} C^{versus}_m`; NaN when that never happens within
        ``horizon_months``. Shape ``S``, the broadcast shape of the parameters.

    Notes
    -----
    "First" is literal: with a replacement purchase later in the horizon the curves can cross back;
    :func:`cumulative_cost_eur` shows the whole story. With a rental price decline the rented curve flattens,
    so the break-even month moves later or disappears: the purchase stops paying back against renting at
    tomorrow's prices.

    Examples
    --------
    >>> inputs = TcoInputs().as_arrays()
    >>> float(break_even_month("owned", "on_demand", **inputs))
    19.0
    >>> float(break_even_month("owned", "on_demand", **dict(inputs, rental_price_decline_fraction_per_year=0.2)))
    26.0
    """
    cumulative_a = cumulative_cost_eur(option, **params)
    cumulative_b = cumulative_cost_eur(versus, **params)
    cheaper = cumulative_a <= cumulative_b
    first = np.argmax(cheaper, axis=-1).astype(float) + 1.0
    return np.where(cheaper.any(axis=-1), first, np.nan)


# --------------------------------------------------------------------------------------------------
# One scenario with its assumptions
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TcoResult:
    """Numbers for one scenario plus the assumptions behind them (for pages and exports).

    Attributes
    ----------
    inputs : TcoInputs
        The validated scenario.
    cost_per_useful_gpu_hour_eur : dict of str to float
        Per :class:`Option` value [EUR per useful GPU-h], today's prices.
    cheapest_option : str
        Option with the lowest cost per useful GPU-hour.
    owned_breakdown_eur_per_useful_gpu_hour : dict of str to float
        Owned layers (:data:`LAYERS`) divided by the utilisation; they add up to the owned cost.
    break_even_utilisation_fraction : dict of str to float
        Per :class:`Pair` value [-]; see :func:`break_even_utilisation` for the direction of each.
    mean_on_demand_price_over_horizon_eur_per_gpu_hour : float
        Average rental price over the horizon with the price decline [EUR/GPU-h].
    break_even_utilisation_on_demand_vs_owned_at_mean_price_fraction : float
        Owning vs renting at that average price ("tomorrow's prices") [-].
    months : numpy.ndarray
        Month numbers 1..H.
    monthly_cost_eur, cumulative_cost_eur : dict of str to numpy.ndarray
        Cash per month and running total per :class:`Option` value [EUR], shape (H,).
    break_even_month : dict of str to float
        Keys ``"owned_vs_on_demand"``, ``"owned_vs_reserved"``, ``"reserved_vs_on_demand"`` [month];
        NaN when the first option never catches up within the horizon.
    assumptions : tuple of Assumption
        Every input with value, unit and source.
    """

    inputs: TcoInputs
    cost_per_useful_gpu_hour_eur: dict[str, float]
    cheapest_option: str
    owned_breakdown_eur_per_useful_gpu_hour: dict[str, float]
    break_even_utilisation_fraction: dict[str, float]
    mean_on_demand_price_over_horizon_eur_per_gpu_hour: float
    break_even_utilisation_on_demand_vs_owned_at_mean_price_fraction: float
    months: np.ndarray
    monthly_cost_eur: dict[str, np.ndarray]
    cumulative_cost_eur: dict[str, np.ndarray]
    break_even_month: dict[str, float]
    assumptions: tuple[Assumption, ...] = field(default_factory=tuple)


def evaluate_tco(inputs: TcoInputs | None = None) -> TcoResult:
    """Evaluate one scenario: per-hour costs, breakdown, break-evens, cash curves and assumptions.

    Examples
    --------
    >>> result = evaluate_tco(TcoInputs())
    >>> result.cheapest_option, round(result.cost_per_useful_gpu_hour_eur["owned"], 2)
    ('owned', 2.25)
    >>> result.break_even_month["owned_vs_on_demand"]
    19.0
    """
    inputs = TcoInputs() if inputs is None else inputs
    params = inputs.as_arrays()
    per_hour = compare_options_per_useful_gpu_hour(**params)
    costs = {option.value: float(per_hour[option.value]) for option in Option}
    breakdown = owned_cost_breakdown_eur_per_gpu_hour(**params).per_useful_hour(inputs.utilisation_fraction)
    mean_price = mean_on_demand_price_eur_per_gpu_hour(
        inputs.price_on_demand_eur_per_gpu_hour, inputs.rental_price_decline_fraction_per_year, inputs.horizon_months
    )
    at_mean = break_even_utilisation(
        Pair.ON_DEMAND_VS_OWNED, **dict(params, price_on_demand_eur_per_gpu_hour=mean_price)
    )
    monthly = {option.value: monthly_cost_eur(option, **params) for option in Option}
    cumulative = {name: np.cumsum(values) for name, values in monthly.items()}

    def _first(a: str, b: str) -> float:
        cheaper = cumulative[a] <= cumulative[b]
        return float(np.argmax(cheaper) + 1) if cheaper.any() else math.nan

    return TcoResult(
        inputs=inputs,
        cost_per_useful_gpu_hour_eur=costs,
        cheapest_option=min(costs, key=costs.__getitem__),
        owned_breakdown_eur_per_useful_gpu_hour={k: float(v) for k, v in breakdown.as_dict().items()},
        break_even_utilisation_fraction={pair.value: float(per_hour[pair.value]) for pair in Pair},
        mean_on_demand_price_over_horizon_eur_per_gpu_hour=float(mean_price),
        break_even_utilisation_on_demand_vs_owned_at_mean_price_fraction=float(at_mean),
        months=np.arange(1, inputs.horizon_months + 1),
        monthly_cost_eur=monthly,
        cumulative_cost_eur=cumulative,
        break_even_month={
            "owned_vs_on_demand": _first("owned", "on_demand"),
            "owned_vs_reserved": _first("owned", "reserved"),
            "reserved_vs_on_demand": _first("reserved", "on_demand"),
        },
        assumptions=inputs.assumptions(),
    )


# --------------------------------------------------------------------------------------------------
# Uncertainty: Monte Carlo and tornado
# --------------------------------------------------------------------------------------------------

#: Default Monte Carlo spreads: field -> (low, high, how, source). ``how`` is ``"relative"`` (multipliers of
#: the base value) or ``"absolute"`` (a published range, widened to include the base value). The mode of the
#: triangular distribution is the base value. Users edit the ranges on the page.
DEFAULT_MONTE_CARLO_SPREADS: dict[str, tuple[float, float, str, str]] = {
    "price_on_demand_eur_per_gpu_hour": (0.8, 1.2, "relative", "assumption: +-20 %"),
    "server_capex_eur_per_gpu": (0.85, 1.15, "relative", "assumption: +-15 % on the SemiAnalysis ~$190k"),
    "networking_capex_eur_per_gpu": (0.8, 1.2, "relative", "assumption: +-20 %"),
    "storage_capex_eur_per_gpu": (0.8, 1.2, "relative", "assumption: +-20 %"),
    "depreciation_years": (3.0, 6.0, "absolute", "critics' 2-3 yr economic life to 6 yr book life (filings)"),
    "cost_of_capital_fraction_per_year": (0.5, 1.5, "relative", "assumption: +-50 %"),
    "residual_value_fraction": (0.5, 1.5, "relative", "assumption: +-50 %"),
    "idle_power_fraction": (0.5, 1.5, "relative", "assumption: +-50 %"),
    "pue": (1.1, 1.58, "absolute", "Google 1.10 (2021) to Uptime industry average 1.58 (2023)"),
    "electricity_eur_per_kwh": (
        EUROSTAT_ELECTRICITY_H1_2024_FINLAND_EUR_PER_KWH, EUROSTAT_ELECTRICITY_H1_2024_IRELAND_EUR_PER_KWH,
        "absolute", "Eurostat H1-2024, 500-2,000 MWh: Finland 0.0928 to Ireland 0.256 EUR/kWh",
    ),
    "colocation_eur_per_kw_month": (0.9, 1.2, "relative", "assumption: -10 %/+20 % (CBRE: +12.6 % y/y NA)"),
    "maintenance_fraction_of_capex_per_year": (0.5, 1.5, "relative", "assumption: +-50 %"),
    "staff_fte": (0.5, 2.0, "relative", "assumption: half to double"),
    "labour_cost_eur_per_hour": (0.8, 1.35, "relative", "about Eurostat EU 33.5 to NL 45.2 EUR/h at the default"),
}


def default_monte_carlo_ranges(base: TcoInputs | None = None) -> dict[str, tuple[float, float, float]]:
    """Default ``(low, mode, high)`` per uncertain input, built from :data:`DEFAULT_MONTE_CARLO_SPREADS`.

    Relative spreads multiply the base value; absolute (published) ranges are widened to contain it.
    Values are clipped to the field bounds. The mode is the base value.

    Examples
    --------
    >>> default_monte_carlo_ranges()["pue"]
    (1.1, 1.56, 1.58)
    """
    base = TcoInputs() if base is None else base
    out = {}
    for name, (low, high, how, _source) in DEFAULT_MONTE_CARLO_SPREADS.items():
        mode = float(getattr(base, name))
        if how == "relative":
            low, high = low * mode, high * mode
        low, high = min(low, mode), max(high, mode)
        low, high = _clip_to_bounds(name, np.array([low, high])).tolist()
        out[name] = (float(low), mode, float(high))
    return out


def _clip_to_bounds(name: str, values: np.ndarray) -> np.ndarray:
    """Clip into the closed bounds of a field; an open bound (gt/lt) is clipped to the next float inside."""
    for op, bound in _BOUNDS[name]:
        if op == "ge":
            values = np.maximum(values, bound)
        elif op == "le":
            values = np.minimum(values, bound)
        elif op == "gt":
            values = np.maximum(values, np.nextafter(bound, np.inf))
        else:
            values = np.minimum(values, np.nextafter(bound, -np.inf))
    return values


_UNIT_PER_UINT32 = 2.0**-32  # uint32 -> uniform on [0, 1)


class _BlockSampler:
    r"""Draws ``(k, width)`` blocks of independent inputs, reusing its buffers (no per-block temporaries).

    Triangular(a, c, b) uses the MINMAX method of Stein and Keblis [1]_: with independent uniforms U, V,

    .. math:: X = a + (b - c)\,\min(U, V) + (c - a)\,\max(U, V)

    (``(1 - c') min + c' max`` with ``c' = (c - a)/(b - a)``, scaled to [a, b]). Uniform(a, b) is
    ``a + (b - a) U``. Each 64-bit output of the generator gives two 32-bit uniforms (resolution 2^-32).

    References
    ----------
    .. [1] W. E. Stein and M. F. Keblis, "A new method to simulate the triangular distribution",
       Mathematical and Computer Modelling 49(5-6):1143-1147, 2009; explained in
       https://blogs.sas.com/content/iml/2015/07/22/sim-triangular-distrib.html
    """

    def __init__(self, low: np.ndarray, mode: np.ndarray, high: np.ndarray, triangular: bool, block: int):
        column = (slice(None), None)
        self.low = np.asarray(low, dtype=float)[column]
        self.triangular = triangular
        if triangular:
            self.scale_min = (np.asarray(high, dtype=float) - mode)[column] * _UNIT_PER_UINT32
            self.scale_max = (np.asarray(mode, dtype=float) - low)[column] * _UNIT_PER_UINT32
        else:
            self.scale_min = (np.asarray(high, dtype=float) - low)[column] * _UNIT_PER_UINT32
        k = self.low.shape[0]
        self.lower = np.empty((k, block), dtype=np.uint32)
        self.upper = np.empty((k, block), dtype=np.uint32)
        self.out = np.empty((k, block))
        self.scratch = np.empty((k, block))

    def draw(self, rng: np.random.Generator, width: int) -> np.ndarray:
        k = self.low.shape[0]
        bits = rng.integers(0, 2**64, size=(k, width), dtype=np.uint64).view(np.uint32)  # (k, 2 width)
        u, v = bits[:, :width], bits[:, width:]
        out = self.out[:, :width]
        if not self.triangular:
            np.multiply(u, self.scale_min, out=out)
        else:
            lower, upper, scratch = self.lower[:, :width], self.upper[:, :width], self.scratch[:, :width]
            np.minimum(u, v, out=lower)
            np.maximum(u, v, out=upper)
            np.multiply(lower, self.scale_min, out=out)
            np.multiply(upper, self.scale_max, out=scratch)
            out += scratch
        out += self.low
        return out


def _percentiles_linear(values: np.ndarray, percentiles_pct: Sequence[float]) -> list[float]:
    """Exact percentiles of a 1-d array, same definition as ``numpy.percentile`` (method "linear").

    Selection by bracketing (in the spirit of Floyd and Rivest's SELECT): a sorted subsample gives two
    values that very probably enclose the wanted order statistic; one counting pass and one small partition
    then give it exactly. If the bracket misses, a full ``numpy.partition`` is used, so the result is
    always exact. About 3x faster than ``numpy.percentile`` on 10^5 values.
    """
    n = values.size
    positions = [q / 100.0 * (n - 1) for q in percentiles_pct]
    ranks = sorted({r for pos in positions for r in (math.floor(pos), min(math.floor(pos) + 1, n - 1))})
    if n < 20_000:
        order = dict(zip(ranks, np.partition(values, ranks)[ranks].tolist(), strict=True))
    else:
        sample = np.sort(values[:: n // 4000])
        m = sample.size
        order = {}
        for rank in ranks:
            if rank in order:
                continue
            p = rank / (n - 1)
            centre = p * (m - 1)
            margin = 3.5 * math.sqrt(m * p * (1.0 - p)) + 3.0  # sample ranks: ~3.5 standard deviations
            low = sample[max(0, int(centre - margin))]
            high = sample[min(m - 1, int(centre + margin) + 1)]
            below = int(np.count_nonzero(values < low))
            inside = values[(values >= low) & (values <= high)]
            wanted = [r for r in ranks if below <= r < below + inside.size and r not in order]
            if rank not in wanted:  # the bracket missed (rare): exact fallback
                order[rank] = float(np.partition(values, rank)[rank])
                continue
            picked = np.partition(inside, [r - below for r in wanted])
            order.update({r: float(picked[r - below]) for r in wanted})
    out = []
    for pos in positions:
        lower_rank = math.floor(pos)
        t = pos - lower_rank
        a, b = order[lower_rank], order[min(lower_rank + 1, n - 1)]
        out.append(b - (b - a) * (1.0 - t) if t >= 0.5 else a + (b - a) * t)  # numpy's _lerp
    return out


@dataclass(frozen=True)
class MonteCarloResult:
    """Spread of the cost per useful GPU-hour under uncertain inputs.

    Attributes
    ----------
    n_draws, seed, distribution
        How the draws were made (``"triangular"`` or ``"uniform"``).
    ranges : dict of str to (low, mode, high)
        The ranges drawn from; other inputs are fixed at the base scenario.
    percentiles_eur_per_useful_gpu_hour : dict of str to dict of str to float
        Per option: ``{"p10": .., "p50": .., "p90": ..}`` [EUR per useful GPU-h].
    probability_owned_beats_on_demand, probability_owned_beats_reserved, probability_reserved_beats_on_demand
        Share of draws where the first option is strictly cheaper per useful GPU-hour [-].
    samples_eur_per_useful_gpu_hour : dict of str to numpy.ndarray
        Every draw per option, shape (n_draws,), for histograms.
    """

    n_draws: int
    seed: int | None
    distribution: str
    ranges: dict[str, tuple[float, float, float]]
    percentiles_eur_per_useful_gpu_hour: dict[str, dict[str, float]]
    probability_owned_beats_on_demand: float
    probability_owned_beats_reserved: float
    probability_reserved_beats_on_demand: float
    samples_eur_per_useful_gpu_hour: dict[str, np.ndarray]


def monte_carlo(
    base: TcoInputs | None = None,
    ranges: Mapping[str, Sequence[float]] | None = None,
    n_draws: int = 100_000,
    seed: int | None = 0,
    distribution: str = "triangular",
) -> MonteCarloResult:
    r"""Monte Carlo of the cost per useful GPU-hour of each option at the base utilisation.

    Each input in ``ranges`` is drawn independently; the draws go through the kernel of
    :func:`compare_options_per_useful_gpu_hour` in blocks of 8,192, no per-draw pydantic model. The ends
    of every range are bound-checked with :func:`validate_arrays`; as every field's bounds form an
    interval, that checks every draw.

    Parameters
    ----------
    base : TcoInputs, optional
        The scenario; its value of each ranged input is the default mode (default ``TcoInputs()``).
    ranges : mapping of str to (low, high) or (low, mode, high), optional
        Per input [units of the field]. ``(low, high)`` takes the base value as the mode (clipped into the
        range). ``low == high`` fixes the input. Default :func:`default_monte_carlo_ranges`.
        ``horizon_months`` cannot be ranged (it sets an array shape). Inputs that do not enter the
        per-hour costs (``horizon_months``, ``reserved_term_months``, ``rental_price_decline_fraction_per_year``)
        have no effect here.
    n_draws : int
        Number of draws, >= 1.
    seed : int or None
        Seed of ``numpy.random.default_rng``; the same seed gives the same result.
    distribution : {"triangular", "uniform"}
        Triangular(low, mode, high) or uniform(low, high) per input.

    Returns
    -------
    MonteCarloResult

    Notes
    -----
    Triangular draws use the MINMAX method [1]_, :math:`X = a + (b - c)\min(U, V) + (c - a)\max(U, V)`
    with 32-bit uniforms from ``numpy.random.default_rng(seed)`` (PCG64); same seed, same numpy, same
    result. Percentiles are exact and equal ``numpy.percentile`` (linear interpolation). The probability
    that owning beats renting on demand is the share of draws with :math:`F/u + V < p`.

    References
    ----------
    .. [1] W. E. Stein and M. F. Keblis, "A new method to simulate the triangular distribution",
       Mathematical and Computer Modelling 49(5-6):1143-1147, 2009; explained in
       https://blogs.sas.com/content/iml/2015/07/22/sim-triangular-distrib.html

    Examples
    --------
    >>> mc = monte_carlo(n_draws=2_000, seed=1)
    >>> p = mc.percentiles_eur_per_useful_gpu_hour["owned"]
    >>> p["p10"] <= p["p50"] <= p["p90"]
    True
    >>> 0.0 <= mc.probability_owned_beats_on_demand <= 1.0
    True
    """
    base = TcoInputs() if base is None else base
    if distribution not in ("triangular", "uniform"):
        raise ValueError(f"distribution must be 'triangular' or 'uniform', got {distribution!r}")
    if int(n_draws) < 1:
        raise ValueError(f"n_draws must be >= 1, got {n_draws}")
    n_draws = int(n_draws)
    chosen = default_monte_carlo_ranges(base) if ranges is None else ranges
    used: dict[str, tuple[float, float, float]] = {}
    for name, spec in chosen.items():
        if name not in _FIELDS:
            raise ValueError(f"unknown input {name!r} in Monte Carlo ranges")
        if name in _INTEGER_SHAPE_FIELDS:
            raise ValueError(f"{name} cannot be given a Monte Carlo range")
        spec = tuple(float(v) for v in spec)
        if len(spec) == 2:
            low, high = spec
            mode = min(max(float(getattr(base, name)), low), high)
        elif len(spec) == 3:
            low, mode, high = spec
        else:
            raise ValueError(f"range for {name} must be (low, high) or (low, mode, high), got {spec}")
        if not low <= mode <= high:
            raise ValueError(f"range for {name} must satisfy low <= mode <= high, got {(low, mode, high)}")
        used[name] = (low, mode, high)
    # The bounds of every field are intervals, so checking both ends of each range checks every draw.
    params = validate_arrays(base, **{name: [low, high] for name, (low, _mode, high) in used.items()})
    names = list(used)
    low, mode, high = (np.array([used[name][j] for name in names]) for j in range(3))
    sampler = _BlockSampler(low, mode, high, distribution == "triangular", _MONTE_CARLO_BLOCK_DRAWS)
    rng = np.random.default_rng(seed)
    samples = {option.value: np.empty(n_draws) for option in Option}
    arrays = [params[name] for name in _COMPARE_PARAMS]
    position = {name: k for k, name in enumerate(_COMPARE_PARAMS)}
    rows = [(row, position[name]) for row, name in enumerate(names) if name in position]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for start in range(0, n_draws, _MONTE_CARLO_BLOCK_DRAWS):
            stop = min(start + _MONTE_CARLO_BLOCK_DRAWS, n_draws)
            drawn = sampler.draw(rng, stop - start)
            for row, k in rows:
                arrays[k] = drawn[row]
            part = _compare_block(*arrays, costs_only=True)
            for key, values in samples.items():
                values[start:stop] = part[key]
    percentiles = {}
    for option in Option:
        p10, p50, p90 = _percentiles_linear(samples[option.value], (10, 50, 90))
        percentiles[option.value] = {"p10": p10, "p50": p50, "p90": p90}
    od, res, own = samples["on_demand"], samples["reserved"], samples["owned"]
    return MonteCarloResult(
        n_draws=n_draws,
        seed=seed,
        distribution=distribution,
        ranges=used,
        percentiles_eur_per_useful_gpu_hour=percentiles,
        probability_owned_beats_on_demand=float(np.mean(own < od)),
        probability_owned_beats_reserved=float(np.mean(own < res)),
        probability_reserved_beats_on_demand=float(np.mean(res < od)),
        samples_eur_per_useful_gpu_hour=samples,
    )


#: Inputs that move the on-demand-vs-owned break-even utilisation (tornado default).
TORNADO_FIELDS = ("price_on_demand_eur_per_gpu_hour", *_OWNED_PARAMS)


@dataclass(frozen=True)
class TornadoBar:
    """Effect of one input moved down and up by ``pct`` on the break-even utilisation (on demand vs owned)."""

    name: str
    unit: str
    base_value: float
    low_value: float
    high_value: float
    break_even_at_low: float
    break_even_at_high: float
    swing: float


@dataclass(frozen=True)
class TornadoResult:
    """Tornado of the on-demand-vs-owned break-even utilisation; ``bars`` sorted by swing, largest first."""

    base_break_even_utilisation_fraction: float
    pct: float
    bars: tuple[TornadoBar, ...]


def tornado(
    base: TcoInputs | None = None, pct: float = 0.2, fields: Sequence[str] | None = None
) -> TornadoResult:
    r"""Move each input by :math:`\pm` ``pct`` and report the break-even utilisation, on demand vs owned.

    All :math:`2k + 1` scenarios (base plus each of ``k`` inputs low and high) are stacked as arrays and go
    through :func:`break_even_utilisation` in one vectorised call.

    Parameters
    ----------
    base : TcoInputs, optional
        Base scenario (default ``TcoInputs()``).
    pct : float
        Relative change [-], 0 < pct < 1 (0.2 = +-20 %). Moved values are clipped to the field bounds.
    fields : sequence of str, optional
        Inputs to move (default :data:`TORNADO_FIELDS`, the inputs the break-even depends on). Inputs whose
        base value is 0 are skipped: a relative change of zero is zero.

    Returns
    -------
    TornadoResult
        Bars sorted by swing :math:`|u^*_{high} - u^*_{low}|` (largest first, ties by name); a swing is
        ``inf`` when one side cannot break even (:math:`u^* = \infty`).

    Examples
    --------
    >>> result = tornado(TcoInputs(), pct=0.2)
    >>> result.bars[0].name
    'price_on_demand_eur_per_gpu_hour'
    >>> round(result.base_break_even_utilisation_fraction, 4)
    0.3454
    """
    base = TcoInputs() if base is None else base
    if not 0 < pct < 1:
        raise ValueError(f"pct must be in (0, 1), got {pct}")
    names = list(TORNADO_FIELDS if fields is None else fields)
    unknown = sorted(set(names) - set(_FIELDS))
    if unknown:
        raise ValueError(f"unknown input(s) {unknown} for the tornado")
    names = [name for name in names if float(getattr(base, name)) != 0.0]
    n_scenarios = 2 * len(names) + 1
    base_values = base.as_arrays()
    arrays = {name: np.full(n_scenarios, float(base_values[name])) for name in names}
    moved: dict[str, tuple[float, float]] = {}
    for k, name in enumerate(names):
        value = float(base_values[name])
        low, high = _clip_to_bounds(name, np.array([value * (1 - pct), value * (1 + pct)])).tolist()
        arrays[name][1 + 2 * k] = low
        arrays[name][2 + 2 * k] = high
        moved[name] = (low, high)
    params = validate_arrays(base, **arrays)
    u_star = np.broadcast_to(break_even_utilisation(Pair.ON_DEMAND_VS_OWNED, **params), (n_scenarios,))
    bars = []
    for k, name in enumerate(names):
        at_low, at_high = float(u_star[1 + 2 * k]), float(u_star[2 + 2 * k])
        swing = 0.0 if at_low == at_high else abs(at_high - at_low)
        bars.append(
            TornadoBar(
                name=name,
                unit=str((TcoInputs.model_fields[name].json_schema_extra or {}).get("unit", "")),
                base_value=float(base_values[name]),
                low_value=moved[name][0],
                high_value=moved[name][1],
                break_even_at_low=at_low,
                break_even_at_high=at_high,
                swing=swing,
            )
        )
    bars.sort(key=lambda bar: (-bar.swing, bar.name))
    return TornadoResult(base_break_even_utilisation_fraction=float(u_star[0]), pct=float(pct), bars=tuple(bars))
