"""Inputs of the rent-or-own comparison: published defaults, the validated :class:`TcoInputs` model and the
vectorised bound check :func:`validate_arrays` used by sweeps and Monte Carlo draws.

Every default describes one 8-GPU H100 SXM server in an EU data centre and names its source in the
field's ``source``; figures published in USD are converted once, here, with
:data:`engine.money.DEFAULT_USD_PER_EUR` (ECB reference rate of :data:`engine.money.DEFAULT_FX_AS_OF`).
Values marked *assumption* have no published source: the page shows them as user assumptions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import annotated_types
import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, model_validator

from engine import power
from engine.assumptions import Assumption, assumed, assumptions_of
from engine.money import DEFAULT_FX_AS_OF, DEFAULT_USD_PER_EUR
from engine.units import HOURS_PER_YEAR, MONTHS_PER_YEAR

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
#: Data Center Trends H2-2024. No EU-metro EUR/kW-month figure was found (docs/domain-model.md section 9).
CBRE_NA_COLOCATION_USD_PER_KW_MONTH = 184.06
#: Nebius (NL-headquartered, EU regions FI/FR) HGX H100 on-demand list price [USD/GPU-h], observed
#: 2026-10-10 by the gpu-price-index collector (catalog row nebius-h100-sxm-hgx-h100-global-list-price-on-demand).
NEBIUS_H100_ON_DEMAND_USD_PER_GPU_HOUR = 4.50
#: GPU price-performance improvement [orders of magnitude per year]: Epoch AI, training-cost-trends constants.py.
EPOCH_PRICE_PERFORMANCE_OOM_PER_YEAR = 0.14
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
#: The residual-value rule (straight-line decline to the end-of-life resale value), stated to the user.
RESIDUAL_VALUE_RULE = (
    "Resale value is assumed to follow the book value: a straight line from the purchase price of the equipment "
    "(server, networking, storage) to the end-of-life resale share at the end of the depreciation life, after which "
    "the hardware is replaced at the same price; installation has no resale value. Straight-line to a residual "
    "value is IAS 16's equal-consumption method and the method US filers state for computer equipment "
    "(docs/domain-model.md section 5.1)."
)


def _eur_from_usd(amount_usd: float) -> float:
    """Convert a published USD default to EUR once, at import (rounded to the cent)."""
    return round(amount_usd / DEFAULT_USD_PER_EUR, 2)


_PER_GPU = 1.0 / GPUS_PER_H100_SERVER
_NETWORKING_USD_PER_SERVER = NETWORKING_SHARE_OF_CLUSTER_COST_FRACTION * H100_ALL_IN_CAPEX_USD_PER_SERVER  # 50,000
_STORAGE_USD_PER_SERVER = (
    H100_ALL_IN_CAPEX_USD_PER_SERVER - H100_SERVER_PRICE_USD_PER_SERVER - _NETWORKING_USD_PER_SERVER
)  # 10,000
_DEFAULT_DEPRECIATION_YEARS = 5.0


#: Largest cluster the Rent-or-own inputs (and the own-cluster venue priced from them) accept [GPU].
MAX_CLUSTER_GPUS = 1_000_000

class TcoInputs(BaseModel):
    """Validated scalar inputs of one rent-or-own scenario (one slider position).

    Units are in the field names; each field carries ``unit`` and ``source`` in its ``json_schema_extra``
    and a ``description``; :meth:`assumptions` lists them for display. For arrays of scenarios (sweeps,
    Monte Carlo) use :func:`validate_arrays` instead of building one model per scenario.

    The reserved option exists only when ``price_reserved_eur_per_gpu_hour`` and ``reserved_term_months``
    are both given: a committed price is never borrowed from another offer or estimated from a discount.

    Examples
    --------
    >>> inputs = TcoInputs()
    >>> inputs.server_capex_eur_per_gpu
    22812.41
    >>> inputs.price_reserved_eur_per_gpu_hour is None
    True
    >>> try:
    ...     TcoInputs(utilisation_fraction=0)
    ... except ValueError as err:  # pydantic.ValidationError is a ValueError
    ...     print(err.errors()[0]["loc"], err.errors()[0]["msg"])
    ('utilisation_fraction',) Input should be greater than 0
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    # -- usage ----------------------------------------------------------------------------------------
    utilisation_fraction: float = assumed(
        0.7, gt=0, le=1, unit="-",
        description="Fraction of wall-clock hours the GPUs do useful work (0 < u <= 1).",
        source="assumption (user input): 70 %; published owning break-even claims are 50-65 % (TechnoLynx 2026).",
    )
    cluster_gpus: int = assumed(
        GPUS_PER_H100_SERVER, ge=1, le=MAX_CLUSTER_GPUS, unit="GPU",
        description="GPUs in the cluster: every total is for all of them; staff cost is spread over them.",
        source=f"one 8-GPU DGX/HGX H100 server ({_DGX_GUIDE}).",
    )
    horizon_months: int = assumed(
        int(_DEFAULT_DEPRECIATION_YEARS * MONTHS_PER_YEAR), ge=1, le=240, unit="month",
        description="The period every total, per-hour figure, break-even and chart on the page covers.",
        source="assumption: equal to the default depreciation life (5 years).",
    )
    # -- renting --------------------------------------------------------------------------------------
    price_on_demand_eur_per_gpu_hour: float = assumed(
        _eur_from_usd(NEBIUS_H100_ON_DEMAND_USD_PER_GPU_HOUR), ge=0, le=1000, unit="EUR/GPU-h",
        description="On-demand rental price per GPU-hour today (pages fill it from a catalog offer).",
        source=(
            "Nebius HGX H100 on-demand $4.50/GPU-h (nebius.com/prices via gpu-price-index, 2026-10-10; Nebius is "
            f"NL-headquartered with FI/FR regions), {_FX}."
        ),
    )
    price_reserved_eur_per_gpu_hour: float | None = assumed(
        None, ge=0, le=1000, unit="EUR/GPU-h",
        description=(
            "Committed (reserved) price per GPU-hour for the term below, paid for every hour of the term; "
            "empty = no committed price, the reserved option is left out."
        ),
        source="the chosen offer's own committed price for a stated term, or the user's quote (never a default).",
    )
    reserved_term_months: int | None = assumed(
        None, ge=1, le=120, unit="month",
        description="Term of that committed price; every hour of a started term is paid, renewed at the then-current price.",
        source="the term stated with the committed price.",
    )
    rental_price_decline_fraction_per_year: float = assumed(
        0.0, ge=0, lt=1, unit="1/yr",
        description="Expected yearly fall of rental prices of this GPU generation; price(m) = p0 (1 - d)^(m/12).",
        source=(
            "user-set (default 0 = no market move). For scale: Epoch AI's 0.14 orders of magnitude/yr "
            "price-performance gain of new GPUs is 1 - 10^-0.14 = 27.6 %/yr."
        ),
    )
    # -- owning: capital --------------------------------------------------------------------------------
    server_capex_eur_per_gpu: float = assumed(
        _eur_from_usd(H100_SERVER_PRICE_USD_PER_SERVER * _PER_GPU), ge=0, le=10_000_000, unit="EUR/GPU",
        description="Server purchase price per GPU (GPUs, CPUs, memory, chassis).",
        source=f"{_SEMIANALYSIS}: $190,000 / 8 GPUs = $23,750, {_FX}.",
    )
    networking_capex_eur_per_gpu: float = assumed(
        _eur_from_usd(_NETWORKING_USD_PER_SERVER * _PER_GPU), ge=0, le=10_000_000, unit="EUR/GPU",
        description="Share of cluster networking (NICs, switches, optics, cables) per GPU.",
        source=(
            "~20 % of total cluster cost (amcompute.com/blog/gpu-cluster-networking; Epoch AI default 19 %) x "
            f"SemiAnalysis all-in $250,000/server = $50,000 / 8 = $6,250, {_FX} (derived)."
        ),
    )
    storage_capex_eur_per_gpu: float = assumed(
        _eur_from_usd(_STORAGE_USD_PER_SERVER * _PER_GPU), ge=0, le=10_000_000, unit="EUR/GPU",
        description="Share of storage and other non-server capex per GPU.",
        source=f"remainder of {_SEMIANALYSIS}: 250,000 - 190,000 - 50,000 = $10,000 / 8 = $1,250, {_FX} (derived).",
    )
    installation_capex_eur_per_gpu: float = assumed(
        0.0, ge=0, le=10_000_000, unit="EUR/GPU",
        description="One-off installation and integration per GPU (no resale value).",
        source="assumption: 0, taken as included in the SemiAnalysis all-in figure; add integrator quotes here.",
    )
    depreciation_years: float = assumed(
        _DEFAULT_DEPRECIATION_YEARS, gt=0, le=30, unit="yr",
        description="Economic life: the equipment loses value in a straight line to its resale value over it, then is replaced.",
        source=(
            "company filings: Amazon servers back to 5 yr from 2025-01-01 citing AI pace, Meta 5 yr (2022); "
            "Microsoft/Alphabet 6 yr; critics argue 2-3 yr economic life."
        ),
    )
    cost_of_capital_fraction_per_year: float = assumed(
        0.08, ge=0, le=1, unit="1/yr",
        description="Interest / hurdle rate, charged each month on the capital still tied up in the hardware.",
        source="assumption (user input): 8 %/yr, no published source.",
    )
    residual_value_fraction: float = assumed(
        round(10 ** (-EPOCH_PRICE_PERFORMANCE_OOM_PER_YEAR * _DEFAULT_DEPRECIATION_YEARS), 4), ge=0, le=1, unit="-",
        description="Resale value at the end of the depreciation life as a share of equipment capex (server, networking, storage).",
        source=(
            "assumption derived from Epoch AI's 0.14 orders of magnitude/yr price-performance decay "
            f"({_EPOCH_REPO}, constants.py): 10^(-0.14 x 5 yr) = 0.1995."
        ),
    )
    # -- owning: running ------------------------------------------------------------------------------
    power_at_load_kw_per_gpu: float = assumed(
        round(float(power.rated_it_power_kw_per_gpu(power.H100_SXM_TDP_WATTS)), 4), ge=0, le=100, unit="kW/GPU",
        description="Rated server IT power per GPU (the GPU plus its share of the server): the contracted colocation "
                    "power; the electricity drawn is this times the average-draw fraction below.",
        source=(f"shared power model (engine.power): H100 700 W x (1 + 0.821 server share) = 1.275 kW = DGX H100 "
                f"10.2 kW max / 8 GPUs ({_DGX_GUIDE}); colocation contracts are sold per provisioned kW."),
    )
    average_draw_fraction_of_rated: float = assumed(
        power.AVERAGE_DRAW_FRACTION_OF_RATED, gt=0, le=1, unit="-",
        description="Average draw of the busy servers as a share of their rated power (electricity only).",
        source="shared power model (engine.power): 'even computationally intensive workloads operate at only 76% of "
               "the 10.2 kW TDP rating' of an 8x H100 node (Newkirk et al., arXiv 2506.14551).",
    )
    idle_power_fraction: float = assumed(
        power.IDLE_POWER_FRACTION_ASSUMED, ge=0, le=1, unit="-",
        description="Server power when idle as a fraction of full-load power; power = P (idle + (1 - idle) u).",
        source="assumption (engine.power): 30 %, no published source found for an idle 8-GPU H100 server.",
    )
    pue: float = assumed(
        power.UPTIME_2024_AVERAGE_PUE, ge=1, le=3, unit="-",
        description="Power usage effectiveness (facility power / IT power, >= 1): cooling and losses.",
        source=(
            "Uptime Institute 2024 survey industry average 1.56 (intelligence.uptimeinstitute.com); "
            "alternatives: Equinix 1.42 (2023), Epoch AI non-hyperscaler 1.25, new large sites <= 1.3."
        ),
    )
    electricity_eur_per_kwh: float = assumed(
        round((EUROSTAT_ELECTRICITY_H1_2024_FINLAND_EUR_PER_KWH + EUROSTAT_ELECTRICITY_H1_2024_IRELAND_EUR_PER_KWH) / 2, 4),
        ge=0, le=10, unit="EUR/kWh",
        description="Electricity price paid for metered energy, excl. VAT.",
        source=(
            "midpoint of Eurostat non-household H1-2024, band 500-2,000 MWh, excl. VAT: Finland 0.0928 to "
            f"Ireland 0.256 EUR/kWh ({_EUROSTAT_ELEC}, nrg_pc_205); the EU average was not found."
        ),
    )
    colocation_eur_per_kw_month: float = assumed(
        _eur_from_usd(CBRE_NA_COLOCATION_USD_PER_KW_MONTH), ge=0, le=100_000, unit="EUR/kW-month",
        description="Colocation fee per contracted IT kW and month (space, cooling capacity, security).",
        source=(
            "CBRE North America Data Center Trends H2-2024, primary markets 250-500 kW: $184.06/kW-month, "
            f"{_FX}. Known gap: no EU-metro figure found (CBRE Europe: 2025 rises >= 10 % in some markets)."
        ),
    )
    maintenance_fraction_of_capex_per_year: float = assumed(
        0.05, ge=0, le=1, unit="1/yr",
        description="Hardware support, spares and repairs per year as a fraction of equipment capex.",
        source="assumption: 5 %/yr, no published source.",
    )
    staff_fte: float = assumed(
        0.1, ge=0, le=10_000, unit="FTE",
        description="Operations staff for the whole cluster (full-time equivalents).",
        source="assumption: 0.1 FTE (about 4 h a week) for one 8-GPU server.",
    )
    labour_cost_eur_per_hour: float = assumed(
        EUROSTAT_LABOUR_COST_EU_2024_EUR_PER_HOUR, ge=0, le=10_000, unit="EUR/h",
        description="Employer's labour cost per hour worked.",
        source=(
            "Eurostat lc_lci_lev, 2024, EU-27 whole economy: EUR 33.5/h (DE 43.4, FR 43.7, NL 45.2); "
            "ICT-specific cost not found."
        ),
    )
    working_hours_per_fte_year: float = assumed(
        1720.0, gt=0, le=HOURS_PER_YEAR, unit="h/yr",
        description="Hours worked per FTE per year; cost per FTE = labour cost x hours.",
        source="assumption (user input): 1,720 h/yr (40 h x 43 weeks); no published source (domain-model gap).",
    )

    @model_validator(mode="after")
    def _reserved_price_needs_its_term(self) -> TcoInputs:
        if (self.price_reserved_eur_per_gpu_hour is None) != (self.reserved_term_months is None):
            raise ValueError(
                "a committed price needs its term and a term needs its price: give both "
                "price_reserved_eur_per_gpu_hour and reserved_term_months, or neither"
            )
        return self

    @property
    def has_reserved_price(self) -> bool:
        """Whether the reserved option takes part (a committed price with its term was given)."""
        return self.price_reserved_eur_per_gpu_hour is not None

    def as_arrays(self) -> dict[str, np.ndarray]:
        """Every field as a 0-d float array, ready for ``kernel(**inputs.as_arrays())`` (missing = NaN)."""
        return {
            name: np.asarray(math.nan if value is None else value, dtype=float)
            for name, value in self.model_dump().items()
        }

    def assumptions(self) -> tuple[Assumption, ...]:
        """The value, unit and source of every input, in field order, for display next to results (values as
        floats, NaN when not given)."""
        return tuple(replace(a, value=math.nan if a.value is None else float(a.value))  # type: ignore[arg-type]
                     for a in assumptions_of(self))


FIELDS = tuple(TcoInputs.model_fields)
#: Fields that may be missing (NaN in arrays): the reserved option's price and term.
OPTIONAL_FIELDS = ("price_reserved_eur_per_gpu_hour", "reserved_term_months")


def _bounds(name: str) -> list[tuple[str, float]]:
    out = []
    for meta in TcoInputs.model_fields[name].metadata:
        for op in ("gt", "ge", "lt", "le"):
            if isinstance(meta, getattr(annotated_types, op.capitalize())):
                out.append((op, float(getattr(meta, op))))
    return out


BOUNDS = {name: _bounds(name) for name in FIELDS}
_OPS = {
    "gt": (np.greater, ">"),
    "ge": (np.greater_equal, ">="),
    "lt": (np.less, "<"),
    "le": (np.less_equal, "<="),
}


def unit_of(name: str) -> str:
    """The unit of a :class:`TcoInputs` field (e.g. ``"EUR/GPU-h"``)."""
    extra = TcoInputs.model_fields[name].json_schema_extra
    return str(extra.get("unit", "")) if isinstance(extra, dict) else ""


def take(params: Mapping[str, Any], names: Sequence[str], where: str) -> list[np.ndarray]:
    """Check the keyword names and return the requested ones as float arrays (no copy for float arrays)."""
    unknown = sorted(set(params) - set(FIELDS))
    if unknown:
        raise TypeError(f"{where}() got unknown keyword argument(s) {unknown}; expected TcoInputs field names")
    missing = [n for n in names if n not in params]
    if missing:
        raise TypeError(f"{where}() missing keyword argument(s) {missing}")
    return [np.asarray(params[n], dtype=float) for n in names]


def clip_to_bounds(name: str, values: np.ndarray) -> np.ndarray:
    """Clip into the closed bounds of a field; an open bound (gt/lt) is clipped to the next float inside."""
    for op, bound in BOUNDS[name]:
        if op == "ge":
            values = np.maximum(values, bound)
        elif op == "le":
            values = np.minimum(values, bound)
        elif op == "gt":
            values = np.maximum(values, np.nextafter(bound, np.inf))
        else:
            values = np.minimum(values, np.nextafter(bound, -np.inf))
    return values


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

    Returns
    -------
    dict of str to numpy.ndarray
        Every field, as a float array (0-d for those taken from ``base``).

    Raises
    ------
    ValueError
        Naming the field, the bound, how many values break it and the first one. NaN and infinity always
        fail, except NaN in :data:`OPTIONAL_FIELDS` (no committed price), which must then be NaN in both.
        ``horizon_months`` must hold whole months.

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
    unknown = sorted(set(arrays) - set(FIELDS))
    if unknown:
        raise ValueError(f"unknown input(s) {unknown}; valid names are the TcoInputs fields")
    out = base.as_arrays()
    for name, value in arrays.items():
        arr = np.asarray(value, dtype=float)
        unit = unit_of(name)
        nan = np.isnan(arr)
        if nan.any() and name not in OPTIONAL_FIELDS:
            raise ValueError(f"{name} contains NaN in {int(nan.sum())} of {arr.size} values")
        if np.isinf(arr).any():
            raise ValueError(f"{name} must be a finite number [{unit}]")
        if name == "horizon_months" and not np.all(arr == np.floor(arr)):
            raise ValueError("horizon_months must be whole months")
        for op, bound in BOUNDS[name]:
            func, symbol = _OPS[op]
            ok = func(arr, bound) | nan
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
    price_nan = np.isnan(out["price_reserved_eur_per_gpu_hour"])
    term_nan = np.isnan(out["reserved_term_months"])
    if np.any(price_nan != term_nan):
        raise ValueError("price_reserved_eur_per_gpu_hour and reserved_term_months must be given (or missing) together")
    if not np.all(np.isnan(out["reserved_term_months"]) | (out["reserved_term_months"] == np.floor(out["reserved_term_months"]))):
        raise ValueError("reserved_term_months must be whole months")
    return out
