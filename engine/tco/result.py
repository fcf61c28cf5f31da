"""One TCO scenario evaluated with its assumptions (:func:`evaluate_tco`, :class:`TcoResult`).

Part of :mod:`engine.tco`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from engine.assumptions import Assumption
from engine.tco.horizon import (
    Option,
    Pair,
    break_even_utilisation,
    horizon_cost_eur_per_gpu,
    life_months,
    mean_on_demand_price_eur_per_gpu_hour,
    owned_breakdown_eur_per_gpu,
    purchases_and_age,
    resale_value_fraction_at,
    useful_gpu_hours_per_gpu,
)
from engine.tco.inputs import RESIDUAL_VALUE_RULE, TcoInputs
from engine.tco.timeline import cumulative_cost_eur


@dataclass(frozen=True)
class TcoResult:
    """Numbers for one scenario, all derived from the horizon totals, plus the assumptions behind them.

    Attributes
    ----------
    inputs : TcoInputs
    total_cost_eur : dict of str to float
        Per :class:`Option` value: the cluster's total over the horizon [EUR]; NaN for reserved without a
        committed price.
    useful_gpu_hours : float
        Useful GPU-hours of the cluster over the horizon [GPU-h].
    cost_per_useful_gpu_hour_eur : dict of str to float
        ``total_cost_eur / useful_gpu_hours`` per option [EUR per useful GPU-h].
    available_options : tuple of str
        Options that have a price (reserved only with a committed price).
    cheapest_option : str
        The available option with the lowest total (ties go to the one with less commitment).
    owned_breakdown_eur, owned_breakdown_eur_per_useful_gpu_hour : dict of str to float
        Owned layers (:data:`LAYERS`) for the cluster over the horizon [EUR] and per useful GPU-hour.
    break_even_utilisation_fraction : dict of str to float
        Per :class:`Pair` value over the horizon [-] (see :func:`break_even_utilisation`).
    mean_on_demand_price_over_horizon_eur_per_gpu_hour : float
    purchases : int
        Hardware generations bought within the horizon.
    hardware_age_at_horizon_end_months : float
    resale_value_at_horizon_end_fraction : float
        Resale value of the hardware held at the horizon end, share of equipment capex [-].
    reserved_paid_months : float
        Months of committed price paid (whole terms; >= the horizon); NaN without a committed price.
    months : numpy.ndarray
        Month numbers 1..H.
    cumulative_cost_eur : dict of str to numpy.ndarray
        Net cost to date per option [EUR], shape (H,); the last value is ``total_cost_eur``.
    break_even_month : dict of str to float
        Keys ``"owned_vs_on_demand"``, ``"owned_vs_reserved"``, ``"reserved_vs_on_demand"`` [month].
    assumptions : tuple of Assumption
    residual_value_rule : str
    """

    inputs: TcoInputs
    total_cost_eur: dict[str, float]
    useful_gpu_hours: float
    cost_per_useful_gpu_hour_eur: dict[str, float]
    available_options: tuple[str, ...]
    cheapest_option: str
    owned_breakdown_eur: dict[str, float]
    owned_breakdown_eur_per_useful_gpu_hour: dict[str, float]
    break_even_utilisation_fraction: dict[str, float]
    mean_on_demand_price_over_horizon_eur_per_gpu_hour: float
    purchases: int
    hardware_age_at_horizon_end_months: float
    resale_value_at_horizon_end_fraction: float
    reserved_paid_months: float
    months: np.ndarray
    cumulative_cost_eur: dict[str, np.ndarray]
    break_even_month: dict[str, float]
    assumptions: tuple[Assumption, ...] = field(default_factory=tuple)
    residual_value_rule: str = RESIDUAL_VALUE_RULE

    @property
    def runner_up_option(self) -> str | None:
        """The available option with the second-lowest total, if any."""
        others = [o for o in self.available_options if o != self.cheapest_option]
        return min(others, key=self.total_cost_eur.__getitem__) if others else None


def cheapest_of(totals: Mapping[str, float]) -> str:
    """The option with the lowest finite total; ties go to the earlier of on demand, reserved, owned."""
    finite = [o.value for o in Option if math.isfinite(totals.get(o.value, math.nan))]
    return min(finite, key=lambda o: (totals[o], [x.value for x in Option].index(o)))


def evaluate_tco(inputs: TcoInputs | None = None) -> TcoResult:
    """Evaluate one scenario: horizon totals, per useful GPU-hour, breakdown, break-evens, curves, assumptions.

    Examples
    --------
    >>> result = evaluate_tco(TcoInputs())
    >>> result.cheapest_option, result.available_options
    ('owned', ('on_demand', 'owned'))
    >>> bool(np.isclose(result.cumulative_cost_eur["owned"][-1], result.total_cost_eur["owned"]))
    True
    """
    inputs = TcoInputs() if inputs is None else inputs
    params = inputs.as_arrays()
    gpus = float(inputs.cluster_gpus)
    totals = {o.value: float(horizon_cost_eur_per_gpu(o, **params)) * gpus for o in Option}
    useful = float(useful_gpu_hours_per_gpu(inputs.utilisation_fraction, inputs.horizon_months)) * gpus
    available = tuple(o for o, v in totals.items() if math.isfinite(v))
    layers = {k: float(v) * gpus for k, v in owned_breakdown_eur_per_gpu(**params).items()}
    life = float(life_months(inputs.depreciation_years))
    purchases, age = (float(x) for x in purchases_and_age(np.asarray(float(inputs.horizon_months)), np.asarray(life)))
    cumulative = {o.value: cumulative_cost_eur(o, **params) for o in Option}

    def _first(a: str, b: str) -> float:
        cheaper = cumulative[a] <= cumulative[b]
        return float(np.argmax(cheaper) + 1) if cheaper.any() else math.nan

    term = inputs.reserved_term_months
    return TcoResult(
        inputs=inputs,
        total_cost_eur=totals,
        useful_gpu_hours=useful,
        cost_per_useful_gpu_hour_eur={k: v / useful for k, v in totals.items()},
        available_options=available,
        cheapest_option=cheapest_of(totals),
        owned_breakdown_eur=layers,
        owned_breakdown_eur_per_useful_gpu_hour={k: v / useful for k, v in layers.items()},
        break_even_utilisation_fraction={p.value: float(break_even_utilisation(p, **params)) for p in Pair},
        mean_on_demand_price_over_horizon_eur_per_gpu_hour=float(mean_on_demand_price_eur_per_gpu_hour(
            inputs.price_on_demand_eur_per_gpu_hour, inputs.rental_price_decline_fraction_per_year,
            inputs.horizon_months)),
        purchases=int(purchases),
        hardware_age_at_horizon_end_months=age,
        resale_value_at_horizon_end_fraction=float(resale_value_fraction_at(
            age, inputs.depreciation_years, inputs.residual_value_fraction)),
        reserved_paid_months=(math.nan if term is None else math.ceil(inputs.horizon_months / term) * term),
        months=np.arange(1, inputs.horizon_months + 1),
        cumulative_cost_eur=cumulative,
        break_even_month={
            "owned_vs_on_demand": _first("owned", "on_demand"),
            "owned_vs_reserved": _first("owned", "reserved"),
            "reserved_vs_on_demand": _first("reserved", "on_demand"),
        },
        assumptions=inputs.assumptions(),
    )
