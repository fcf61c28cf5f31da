r"""Total cost of each option over the chosen horizon, and every figure derived from that one total.

The page asks one question: *what does it cost to have ``cluster_gpus`` GPUs doing useful work for
``horizon_months`` months?* Every number answers it from the same totals:

* the **total over the horizon** per option (:func:`horizon_cost_eur_per_gpu`, times the GPU count);
* the **cost per useful GPU-hour** = that total / the useful GPU-hours in the horizon
  (:func:`cost_per_useful_gpu_hour_eur`); so per-hour figures times useful hours give the totals back;
* the **break-even utilisation** = the utilisation at which two totals are equal (closed form,
  :func:`break_even_utilisation`);
* the **net cost to date** curve (:func:`cumulative_cost_eur`) = the same total for a horizon of 1, 2, ...
  months, i.e. what each option has cost if you stop at that month; its last point is the total, and the
  **break-even month** (:func:`break_even_month`) is where the curves cross.

So the option called cheapest is, by construction, the one with the lowest net cost at the horizon end.

How each option is charged over a horizon of :math:`H` months (:math:`h = 730` h/month, per GPU):

* **on demand**: the useful hours only, :math:`u\,h\,\sum_{m<H} p_0 q^m` with the monthly price factor
  :math:`q = (1-\delta)^{1/12}` (rental price decline :math:`\delta` per year);
* **reserved** (a committed price :math:`p_r` for a term of :math:`T` months): every hour of every term
  started within the horizon, :math:`h\,T\,p_r \sum_{j < \lceil H/T \rceil} q^{jT}`; a term that runs past
  the horizon end is still owed and is included (the page says so). No committed price -> NaN (the option
  takes no part);
* **owned**: buy the equipment (:math:`K_e` = server + networking + storage) and installation :math:`I` at
  month 0 and again at the end of each life of :math:`M = \max(1, \mathrm{round}(12 L))` months; the
  equipment loses value in a straight line from :math:`K_e` to :math:`\rho K_e` over a life
  (:data:`engine.tco.inputs.RESIDUAL_VALUE_RULE`), is sold at :math:`\rho K_e` when replaced and at its
  then-current value :math:`K_e (1 - (1-\rho) a/M)` at the horizon end (age :math:`a` months); the cost of
  capital is charged each month at :math:`i_m = (1+i)^{1/12} - 1` on the capital still tied up (equipment
  value plus installation written off straight-line over the life); power, colocation, staff and
  maintenance are paid every month. Power follows the shared model of :mod:`engine.power` (full-load power per
  GPU incl. its server share, linear between the idle fraction and full load, times PUE).

With :math:`n_p = \lceil H/M \rceil` purchases and :math:`a = H - (n_p - 1) M` the net equipment cost is
:math:`n_p (K_e + I) - (n_p - 1)\rho K_e - K_e (1 - (1-\rho) a/M) = (1-\rho) K_e H / M + n_p I`: straight-line
depreciation, whatever the horizon.

Conventions (see :mod:`engine`): costs are positive EUR (the resale credit is the only negative layer);
rates are per year; cash is not discounted, the cost of capital enters as the monthly interest layer
``capital_cost``. Every kernel takes keyword arrays named like the :class:`~engine.tco.inputs.TcoInputs`
fields and broadcasts them; ``horizon_months`` may be an array too (one code path for a slider, a sweep, a
tornado, a Monte Carlo and the month-by-month curve).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from engine.fast import BlockKernel, evaluate_in_blocks
from engine.power import load_scaled_power_kw
from engine.tco.inputs import (
    TcoInputs,  # noqa: F401  (the worked examples build their inputs with it)
    take,
)
from engine.units import HOURS_PER_MONTH, MONTHS_PER_YEAR


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


#: Owned cost layers over the horizon, in display order. ``residual_credit`` (resale value) is negative,
#: the others >= 0; the layers add up to the owned total.
LAYERS = (
    "hardware", "networking", "capital_cost", "power_and_cooling", "facility", "staff", "maintenance",
    "residual_credit",
)

_OWNED_PARAMS = (
    "server_capex_eur_per_gpu",
    "networking_capex_eur_per_gpu",
    "storage_capex_eur_per_gpu",
    "installation_capex_eur_per_gpu",
    "depreciation_years",
    "cost_of_capital_fraction_per_year",
    "residual_value_fraction",
    "power_at_load_kw_per_gpu",
    "average_draw_fraction_of_rated",
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
_RENT_PARAMS = (
    "price_on_demand_eur_per_gpu_hour",
    "rental_price_decline_fraction_per_year",
    "price_reserved_eur_per_gpu_hour",
    "reserved_term_months",
)
#: Inputs of :func:`compare_options_per_useful_gpu_hour`, in the argument order of :func:`compare_block`.
COMPARE_PARAMS = ("utilisation_fraction", "horizon_months", *_RENT_PARAMS, *_OWNED_PARAMS)


# --------------------------------------------------------------------------------------------------
# Building blocks
# --------------------------------------------------------------------------------------------------


def mean_on_demand_price_eur_per_gpu_hour(
    price_on_demand_eur_per_gpu_hour: npt.ArrayLike,
    rental_price_decline_fraction_per_year: npt.ArrayLike,
    horizon_months: npt.ArrayLike,
) -> np.ndarray:
    r"""Average on-demand price over the horizon when prices fall by a constant fraction per year.

    Parameters
    ----------
    price_on_demand_eur_per_gpu_hour : array_like
        Price today :math:`p_0` [EUR/GPU-h].
    rental_price_decline_fraction_per_year : array_like
        :math:`\delta` [1/yr], 0 <= delta < 1.
    horizon_months : array_like
        :math:`H` [month], >= 1.

    Returns
    -------
    numpy.ndarray
        Mean of the monthly prices [EUR/GPU-h] (undiscounted), broadcast shape of the inputs.

    Notes
    -----
    With :math:`q = (1-\delta)^{1/12}` and :math:`p_m = p_0 q^m`, :math:`m = 0 \dots H-1`:

    .. math::

        \bar p = \frac{1}{H}\sum_{m=0}^{H-1} p_0 q^m = p_0 \frac{1 - q^H}{H (1 - q)} \quad (q < 1),
        \qquad \bar p = p_0 \quad (\delta = 0)

    Examples
    --------
    >>> float(mean_on_demand_price_eur_per_gpu_hour(4.0, 0.0, 36))
    4.0
    >>> round(float(mean_on_demand_price_eur_per_gpu_hour(4.0, 0.2, 24)), 4)
    3.2567
    """
    price = np.asarray(price_on_demand_eur_per_gpu_hour, dtype=float)
    decline = np.asarray(rental_price_decline_fraction_per_year, dtype=float)
    months = np.asarray(horizon_months, dtype=float)
    log_q = np.log1p(-decline) / MONTHS_PER_YEAR  # log of the monthly price factor q (exact for tiny declines)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        mean_factor = np.where(log_q < 0, np.expm1(months * log_q) / (months * np.expm1(log_q)), 1.0)
    return price * mean_factor


def life_months(depreciation_years: npt.ArrayLike) -> np.ndarray:
    """Life of one hardware generation in whole months, :math:`M = \\max(1, \\mathrm{round}(12 L))` [month]."""
    return np.maximum(1.0, np.rint(np.asarray(depreciation_years, dtype=float) * MONTHS_PER_YEAR))


def resale_value_fraction_at(
    age_months: npt.ArrayLike, depreciation_years: npt.ArrayLike, residual_value_fraction: npt.ArrayLike
) -> np.ndarray:
    r"""Resale value of equipment of a given age as a share of its purchase price [-].

    The residual-value rule (:data:`engine.tco.inputs.RESIDUAL_VALUE_RULE`): a straight line from 1 at
    purchase to :math:`\rho` at the end of the life :math:`M` months, :math:`v(a) = 1 - (1-\rho)\,a/M`,
    for :math:`0 \le a \le M`.

    Examples
    --------
    >>> round(float(resale_value_fraction_at(36, 5.0, 0.2)), 4)  # 1 - 0.8 * 36/60
    0.52
    >>> round(float(resale_value_fraction_at(60, 5.0, 0.2)), 6)
    0.2
    """
    months = life_months(depreciation_years)
    rho = np.asarray(residual_value_fraction, dtype=float)
    return 1.0 - (1.0 - rho) * np.asarray(age_months, dtype=float) / months


def purchases_and_age(horizon: np.ndarray, life: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Purchases :math:`n_p = \\lceil H/M \\rceil` and the age :math:`a = H - (n_p-1) M` at the horizon end."""
    purchases = np.ceil(horizon / life)
    return purchases, horizon - (purchases - 1.0) * life


def _owned_layers(horizon: np.ndarray, u: np.ndarray, owned: Sequence[np.ndarray]) -> dict[str, np.ndarray]:
    """Owned layers per GPU over the horizon [EUR/GPU] (formulas in the module docstring)."""
    (
        server, network, storage, install, life_years, rate, residual, power_kw, draw, idle, pue, price_kwh, colo,
        maintenance, fte, labour, hours, gpus,
    ) = owned
    life = life_months(life_years)
    purchases, age = purchases_and_age(horizon, life)
    equipment = server + network + storage
    monthly_rate = np.expm1(np.log1p(rate) / MONTHS_PER_YEAR)
    older = purchases - 1.0

    def tied_up_months(x: np.ndarray, lost_share: np.ndarray | float) -> np.ndarray:
        # sum over ages t = 0 .. x-1 of (1 - lost_share * t / M): capital-months of one generation
        return x - lost_share * x * (x - 1.0) / (2.0 * life)

    equipment_months = older * tied_up_months(life, 1.0 - residual) + tied_up_months(age, 1.0 - residual)
    install_months = older * tied_up_months(life, 1.0) + tied_up_months(age, 1.0)
    hours_in_horizon = HOURS_PER_MONTH * horizon
    return {
        "hardware": purchases * (server + storage + install),
        "networking": purchases * network,
        "capital_cost": monthly_rate * (equipment * equipment_months + install * install_months),
        "power_and_cooling": load_scaled_power_kw(power_kw * draw, u, idle) * pue * price_kwh * hours_in_horizon,
        "facility": colo * power_kw * horizon,
        "staff": fte * labour * hours * horizon / (MONTHS_PER_YEAR * gpus),
        "maintenance": maintenance * equipment * horizon / MONTHS_PER_YEAR,
        "residual_credit": -(older * residual * equipment + equipment * (1.0 - (1.0 - residual) * age / life)),
    }


def _owned_coefficients(horizon: np.ndarray, owned: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    r"""Owned total per GPU over the horizon as :math:`A + B u` [EUR/GPU]: ``(A, B)``.

    The layers of :func:`_owned_layers` summed in closed form, with two identities that leave fewer operations per
    point (the kernel behind sweeps and Monte Carlo; :func:`owned_breakdown_eur_per_gpu` keeps the layers apart):

    * net equipment (purchases - resale) :math:`= (1-\rho) K_e H / M + n_p I` (module docstring);
    * capital-months: with :math:`n_p - 1` full generations and the last of age :math:`a`,
      :math:`(n_p-1) M + a = H`, so the equipment is tied up for :math:`H - (1-\rho) S` and the installation for
      :math:`H - S` capital-months, :math:`S = \tfrac12\big((n_p-1)(M-1) + a(a-1)/M\big)` being
      :math:`\sum_t t/M` over every month's age :math:`t` (straight-line write-off, :data:`RESIDUAL_VALUE_RULE`).
    """
    (
        server, network, storage, install, life_years, rate, residual, power_kw, draw, idle, pue, price_kwh, colo,
        maintenance, fte, labour, hours, gpus,
    ) = owned
    life = life_months(life_years)
    purchases, age = purchases_and_age(horizon, life)
    equipment = server + network + storage
    written_off = (1.0 - residual) * equipment  # the share of the equipment a generation loses over its life
    monthly_rate = np.expm1(np.log1p(rate) * (1.0 / MONTHS_PER_YEAR))
    write_off_months = 0.5 * ((purchases - 1.0) * (life - 1.0) + age * (age - 1.0) / life)
    energy_per_month = power_kw * draw * pue * price_kwh * HOURS_PER_MONTH
    fixed = (
        written_off * horizon / life + purchases * install
        + monthly_rate * (horizon * (equipment + install) - write_off_months * (written_off + install))
        + horizon * (energy_per_month * idle + colo * power_kw + fte * labour * hours / (MONTHS_PER_YEAR * gpus)
                     + maintenance * equipment * (1.0 / MONTHS_PER_YEAR))
    )
    return fixed, energy_per_month * (1.0 - idle) * horizon


def _keep_else(values: np.ndarray, keep: np.ndarray, fill: npt.ArrayLike) -> np.ndarray:
    """``np.where(keep, values, fill)``, written in place into ``values`` and skipped where ``keep`` holds everywhere
    (the usual case: a masked write per block instead of a select per point)."""
    if values.ndim == 0:
        return values if bool(keep) else np.asarray(fill, dtype=float)
    if not keep.all():
        np.copyto(values, fill, where=~keep)
    return values


def _rent_totals(
    horizon: np.ndarray, price: np.ndarray, decline: np.ndarray, reserved_price: np.ndarray, term: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """On-demand total per useful-hour-fraction, reserved total, both per GPU [EUR/GPU]; and the mean price.

    Returns ``(on_demand_per_unit_u, reserved, mean_price)``: the on-demand total is ``u * on_demand_per_unit_u``.
    One ``log1p(-decline)`` serves the mean price and the reserved series (:func:`mean_on_demand_price_eur_per_gpu_hour`
    has the formula; the term-to-term factor is :math:`q^T`).
    """
    log_q = np.log1p(-decline) * (1.0 / MONTHS_PER_YEAR)  # log of the monthly price factor q
    terms = np.ceil(horizon / term)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        mean_factor = _keep_else(np.expm1(horizon * log_q) / (horizon * np.expm1(log_q)), log_q < 0, 1.0)
        log_ratio = log_q * term  # log of the price factor from term to term
        series = _keep_else(np.expm1(terms * log_ratio) / np.expm1(log_ratio), log_ratio < 0, terms)
    mean_price = price * mean_factor
    reserved = (HOURS_PER_MONTH * term) * reserved_price * series
    return (HOURS_PER_MONTH * horizon) * mean_price, reserved, mean_price


def _break_even(
    pair: Pair, on_demand_per_unit_u: np.ndarray, reserved: np.ndarray, fixed: np.ndarray, variable: np.ndarray
) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if pair is Pair.ON_DEMAND_VS_OWNED:
            margin = on_demand_per_unit_u - variable
            return _keep_else(fixed / margin, margin > 0, np.inf)
        if pair is Pair.ON_DEMAND_VS_RESERVED:
            return _keep_else(reserved / on_demand_per_unit_u, on_demand_per_unit_u > 0, np.nan)
        return (reserved - fixed) / variable  # RESERVED_VS_OWNED: +-inf when B = 0, NaN on an exact tie


# --------------------------------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------------------------------


def horizon_cost_eur_per_gpu(option: Option | str, /, **params: npt.ArrayLike) -> np.ndarray:
    r"""Total cost of one GPU over the horizon for one option [EUR/GPU] (module docstring has the formulas).

    Parameters
    ----------
    option : Option or str
        ``"on_demand"``, ``"reserved"`` or ``"owned"``.
    **params : array_like
        :class:`~engine.tco.inputs.TcoInputs` fields, broadcast together; all options need
        ``horizon_months`` [month] and ``utilisation_fraction`` [-]; renting needs the price fields; owning
        the owned fields.

    Returns
    -------
    numpy.ndarray
        [EUR/GPU]; NaN for ``"reserved"`` where no committed price is given.

    Examples
    --------
    One GPU bought for 8,760 EUR with a one-year life and no resale value, nothing else owned: over 24
    months two generations are bought, 17,520 EUR.

    >>> simple = dict(TcoInputs().as_arrays(), server_capex_eur_per_gpu=8760.0, networking_capex_eur_per_gpu=0.0,
    ...               storage_capex_eur_per_gpu=0.0, depreciation_years=1.0, cost_of_capital_fraction_per_year=0.0,
    ...               residual_value_fraction=0.0, power_at_load_kw_per_gpu=0.0, maintenance_fraction_of_capex_per_year=0.0,
    ...               staff_fte=0.0, horizon_months=24)
    >>> float(horizon_cost_eur_per_gpu("owned", **simple))
    17520.0
    >>> round(float(horizon_cost_eur_per_gpu("on_demand", **dict(simple, utilisation_fraction=0.5))), 2)  # 0.5 x 730 h x 24 x 4.32
    37843.2
    """
    option = Option(option)
    where = "horizon_cost_eur_per_gpu"
    u, horizon = take(params, ("utilisation_fraction", "horizon_months"), where)
    if option is Option.OWNED:
        fixed, variable = _owned_coefficients(horizon, take(params, _OWNED_PARAMS, where))
        return fixed + variable * u
    per_u, reserved, _mean = _rent_totals(horizon, *take(params, _RENT_PARAMS, where))
    if option is Option.ON_DEMAND:
        return np.broadcast_to(per_u * u, np.broadcast_shapes(per_u.shape, u.shape)).copy()
    return np.broadcast_to(reserved, np.broadcast_shapes(reserved.shape, u.shape)).copy()


def useful_gpu_hours_per_gpu(utilisation_fraction: npt.ArrayLike, horizon_months: npt.ArrayLike) -> np.ndarray:
    """Useful GPU-hours of one GPU over the horizon, :math:`u\\,h\\,H` [GPU-h/GPU]."""
    return np.asarray(utilisation_fraction, dtype=float) * HOURS_PER_MONTH * np.asarray(horizon_months, dtype=float)


def cost_per_useful_gpu_hour_eur(option: Option | str, /, **params: npt.ArrayLike) -> np.ndarray:
    r"""Total over the horizon divided by the useful GPU-hours in it [EUR per useful GPU-h].

    .. math:: c = \frac{C_{option}(H, u)}{u\,h\,H}

    so ``cost_per_useful_gpu_hour_eur * useful GPU-hours`` gives the horizon total back.

    Examples
    --------
    >>> inputs = TcoInputs().as_arrays()
    >>> float(cost_per_useful_gpu_hour_eur("on_demand", **inputs))
    4.32
    >>> bool(np.isnan(cost_per_useful_gpu_hour_eur("reserved", **inputs)))  # no committed price given
    True
    """
    (u, horizon) = take(params, ("utilisation_fraction", "horizon_months"), "cost_per_useful_gpu_hour_eur")
    return horizon_cost_eur_per_gpu(option, **params) / useful_gpu_hours_per_gpu(u, horizon)


def owned_breakdown_eur_per_gpu(**params: npt.ArrayLike) -> dict[str, np.ndarray]:
    """Owned layers (:data:`LAYERS`) per GPU over the horizon [EUR/GPU]; they add up to the owned total.

    Examples
    --------
    >>> layers = owned_breakdown_eur_per_gpu(**TcoInputs().as_arrays())
    >>> total = sum(layers.values())
    >>> bool(np.isclose(total, horizon_cost_eur_per_gpu("owned", **TcoInputs().as_arrays())))
    True
    """
    where = "owned_breakdown_eur_per_gpu"
    u, horizon = take(params, ("utilisation_fraction", "horizon_months"), where)
    layers = _owned_layers(horizon, u, take(params, _OWNED_PARAMS, where))
    shape = np.broadcast_shapes(*(v.shape for v in layers.values()))
    return {name: np.broadcast_to(layers[name], shape) for name in LAYERS}


def break_even_utilisation(pair: Pair | str, **params: npt.ArrayLike) -> np.ndarray:
    r"""Utilisation at which two options cost the same in total over the horizon (closed form).

    Parameters
    ----------
    pair : Pair or str
        ``"on_demand_vs_owned"``, ``"on_demand_vs_reserved"`` or ``"reserved_vs_owned"``.
    **params : array_like
        :class:`~engine.tco.inputs.TcoInputs` fields (the utilisation is ignored).

    Returns
    -------
    numpy.ndarray
        :math:`u^*` [-], not clipped to (0, 1]: :math:`u^* > 1` means the break-even cannot be reached.
        NaN for pairs with reserved when no committed price is given.

    Notes
    -----
    With the owned total :math:`A + B u` (:math:`B` = the utilisation-dependent power), the reserved total
    :math:`R` and the on-demand total :math:`u\,h\,H\,\bar p`:

    * on demand vs owned: :math:`u^* = A / (h H \bar p - B)` (:math:`+\infty` when :math:`h H \bar p \le B`);
      owning is cheaper for :math:`u > u^*`;
    * on demand vs reserved: :math:`u^* = R / (h H \bar p)`; reserving is cheaper for :math:`u > u^*`
      (with :math:`H` a whole number of terms and no price decline this is :math:`p_r/p_0`, the critical
      fractile of docs/domain-model.md section 6);
    * reserved vs owned: :math:`u^* = (R - A)/B`; here owning is cheaper for :math:`u < u^*`.

    Examples
    --------
    >>> inputs = dict(TcoInputs().as_arrays(), price_reserved_eur_per_gpu_hour=2.0, reserved_term_months=12.0)
    >>> round(float(break_even_utilisation("on_demand_vs_reserved", **inputs)), 4)  # 2.0 / 4.32
    0.463
    """
    pair = Pair(pair)
    where = "break_even_utilisation"
    (horizon,) = take(params, ("horizon_months",), where)
    per_u, reserved, _mean = _rent_totals(horizon, *take(params, _RENT_PARAMS, where))
    zero = np.zeros(())
    if pair is Pair.ON_DEMAND_VS_RESERVED:
        return _break_even(pair, per_u, reserved, zero, zero)
    fixed, variable = _owned_coefficients(horizon, take(params, _OWNED_PARAMS, where))
    return _break_even(pair, per_u, reserved, fixed, variable)


def compare_options_per_useful_gpu_hour(**params: npt.ArrayLike) -> dict[str, np.ndarray]:
    """All three costs per useful GPU-hour and all three break-even utilisations in one vectorised pass.

    The kernel behind sweeps, the tornado and the Monte Carlo: the owned coefficients are computed once
    and shared. Large inputs are evaluated in blocks (same result, less memory).

    Returns
    -------
    dict of str to numpy.ndarray
        Keys ``"on_demand"``, ``"reserved"``, ``"owned"`` [EUR per useful GPU-h] (as
        :func:`cost_per_useful_gpu_hour_eur`) and the :class:`Pair` values [-] (as
        :func:`break_even_utilisation`), all of the broadcast shape of the inputs.

    Examples
    --------
    >>> out = compare_options_per_useful_gpu_hour(**TcoInputs().as_arrays())
    >>> round(float(out["on_demand"]), 2), bool(np.isnan(out["reserved"]))
    (4.32, True)
    """
    arrays = take(params, COMPARE_PARAMS, "compare_options_per_useful_gpu_hour")
    return evaluate_in_blocks(compare_block, arrays, into=COMPARE_INTO)


def compare_block(
    u: np.ndarray, horizon: np.ndarray, price: np.ndarray, decline: np.ndarray, reserved_price: np.ndarray,
    term: np.ndarray, *owned: np.ndarray, costs_only: bool = False
) -> dict[str, np.ndarray]:
    """Cost per useful GPU-hour of each option at utilisation ``u`` (and, unless ``costs_only``, the break-even
    utilisation of each pair), for a block of horizons."""
    per_u, reserved, mean_price = _rent_totals(horizon, price, decline, reserved_price, term)
    fixed, variable = _owned_coefficients(horizon, owned)
    useful = u * HOURS_PER_MONTH * horizon
    # Each output is computed from the inputs it depends on only (on demand per useful hour is the mean price:
    # u h H p / (u h H)), so in a sweep it has the shape of those inputs and is broadcast once, at the end.
    out = {
        Option.ON_DEMAND.value: mean_price,
        Option.RESERVED.value: reserved / useful,
        Option.OWNED.value: (fixed + variable * u) / useful,
    }
    if not costs_only:
        for pair in Pair:
            out[pair.value] = _break_even(pair, per_u, reserved, fixed, variable)
    return out


def compare_into(
    out: dict[str, np.ndarray], scratch: Sequence[np.ndarray], u: np.ndarray, horizon: np.ndarray, price: np.ndarray,
    decline: np.ndarray, reserved_price: np.ndarray, term: np.ndarray, *owned: np.ndarray, costs_only: bool = False,
) -> None:
    """:func:`compare_block` written into ``out``'s arrays for one block of points, with every intermediate in the
    eight ``scratch`` buffers (issue #37: a block allocates nothing, so no page is faulted in again per block).

    Same formulas, in the same order of operations where it matters, as :func:`_rent_totals`,
    :func:`_owned_coefficients` and :func:`_break_even`; ``tests/engine/test_tco.py`` checks it equals
    :func:`compare_block` (the plain version, bench/fast_plain.py's rule) on random and edge-case inputs. Inputs
    are 1-d arrays of the block's length or 0-d; ``out`` holds 1-d arrays of that length.
    """
    (server, network, storage, install, life_years, rate, residual, power_kw, draw, idle, pue, price_kwh, colo,
     maintenance, fte, labour, hours, gpus) = owned
    a, b, c, e, f, g, h, k = scratch
    per_month = 1.0 / MONTHS_PER_YEAR
    # renting: a = log q, mean price into out["on_demand"], g = reserved total
    np.log1p(np.negative(decline, out=a), out=a)
    a *= per_month
    np.expm1(np.multiply(horizon, a, out=b), out=b)
    np.multiply(np.expm1(a, out=c), horizon, out=c)
    mean_price = np.divide(b, c, out=out[Option.ON_DEMAND.value])
    _keep_else(mean_price, a < 0, 1.0)
    mean_price *= price
    np.ceil(np.divide(horizon, term, out=e), out=e)  # terms started within the horizon
    np.multiply(a, term, out=f)  # log of the term-to-term price factor
    np.expm1(np.multiply(e, f, out=g), out=g)
    g /= np.expm1(f, out=b)
    _keep_else(g, f < 0, e)
    g *= term
    g *= HOURS_PER_MONTH
    g *= reserved_price
    # owning: a = life M, b = purchases, c = age, e = write-off months S, f = equipment, h = its written-off share
    np.maximum(np.rint(np.multiply(life_years, float(MONTHS_PER_YEAR), out=a), out=a), 1.0, out=a)
    np.ceil(np.divide(horizon, a, out=b), out=b)
    np.subtract(horizon, np.multiply(np.subtract(b, 1.0, out=c), a, out=c), out=c)
    np.subtract(c, 1.0, out=e)
    e *= c
    e /= a
    np.subtract(b, 1.0, out=h)
    e += np.multiply(np.subtract(a, 1.0, out=f), h, out=f)
    e *= 0.5
    np.add(np.add(server, network, out=f), storage, out=f)
    np.multiply(np.subtract(1.0, residual, out=h), f, out=h)
    np.multiply(h, horizon, out=k)  # k = fixed: net equipment, capital, running costs
    k /= a
    k += np.multiply(b, install, out=b)
    np.expm1(np.multiply(np.log1p(rate, out=a), per_month, out=a), out=a)  # monthly cost of capital
    np.multiply(np.add(f, install, out=c), horizon, out=c)
    c -= np.multiply(np.add(h, install, out=b), e, out=b)
    k += np.multiply(c, a, out=c)
    np.multiply(np.multiply(np.multiply(np.multiply(power_kw, draw, out=a), pue, out=a), price_kwh, out=a),
                HOURS_PER_MONTH, out=a)  # energy per month at full load
    np.multiply(a, idle, out=b)
    b += np.multiply(colo, power_kw, out=c)
    np.multiply(np.multiply(fte, labour, out=c), hours, out=c)
    b += np.divide(c, np.multiply(gpus, float(MONTHS_PER_YEAR), out=e), out=c)
    b += np.multiply(np.multiply(maintenance, f, out=c), per_month, out=c)
    k += np.multiply(b, horizon, out=b)
    np.multiply(np.multiply(np.subtract(1.0, idle, out=e), a, out=e), horizon, out=e)  # e = variable
    # per useful GPU-hour: a = useful hours
    np.multiply(np.multiply(u, HOURS_PER_MONTH, out=a), horizon, out=a)
    np.divide(g, a, out=out[Option.RESERVED.value])
    owned_cost = np.multiply(e, u, out=out[Option.OWNED.value])
    owned_cost += k
    owned_cost /= a
    if costs_only:
        return
    np.multiply(np.multiply(mean_price, HOURS_PER_MONTH, out=c), horizon, out=c)  # on demand per unit u
    np.subtract(c, e, out=b)
    _keep_else(np.divide(k, b, out=out[Pair.ON_DEMAND_VS_OWNED.value]), b > 0, np.inf)
    _keep_else(np.divide(g, c, out=out[Pair.ON_DEMAND_VS_RESERVED.value]), c > 0, np.nan)
    np.divide(np.subtract(g, k, out=out[Pair.RESERVED_VS_OWNED.value]), e, out=out[Pair.RESERVED_VS_OWNED.value])


#: :func:`compare_into` as a block kernel of :func:`engine.fast.evaluate_in_blocks`.
COMPARE_INTO = BlockKernel(compare_into, (*(o.value for o in Option), *(p.value for p in Pair)), 8)
