"""Total cost of ownership: rent GPUs on demand, rent them on a committed (reserved) term, or own them.

Every figure answers one question, *what does it cost to have the cluster doing useful work over the chosen
horizon?*, from one set of totals (:mod:`engine.tco.horizon`): totals per option with the hardware's resale
value at the horizon end credited, cost per useful GPU-hour = total / useful GPU-hours, break-even
utilisation = where two totals meet, and the month-by-month net cost to date whose last point is the total.

* :mod:`engine.tco.inputs` -- published defaults, :class:`TcoInputs`, vectorised bound checks;
* :mod:`engine.tco.horizon` -- the kernels;
* :mod:`engine.tco.timeline` -- the same totals month by month (net cost to date, break-even month);
* :mod:`engine.tco.result` -- one scenario with its assumptions, :func:`evaluate_tco`;
* :mod:`engine.tco.uncertainty` -- Monte Carlo and tornado on the same kernel.

The reserved option takes part only with a committed price and its term (from the chosen offer or typed by
the user); no discount is ever borrowed from another provider.
"""

from engine.assumptions import Assumption
from engine.tco.horizon import (
    COMPARE_PARAMS,
    LAYERS,
    Option,
    Pair,
    break_even_utilisation,
    compare_options_per_useful_gpu_hour,
    cost_per_useful_gpu_hour_eur,
    horizon_cost_eur_per_gpu,
    life_months,
    mean_on_demand_price_eur_per_gpu_hour,
    owned_breakdown_eur_per_gpu,
    resale_value_fraction_at,
    useful_gpu_hours_per_gpu,
)
from engine.tco.inputs import (
    OPTIONAL_FIELDS,
    RESIDUAL_VALUE_RULE,
    TcoInputs,
    unit_of,
    validate_arrays,
)
from engine.tco.result import (
    TcoResult,
    cheapest_of,
    evaluate_tco,
)
from engine.tco.timeline import (
    break_even_month,
    cumulative_cost_eur,
)
from engine.tco.uncertainty import (
    DEFAULT_MONTE_CARLO_SPREADS,
    TORNADO_FIELDS,
    MonteCarloResult,
    TornadoBar,
    TornadoResult,
    default_monte_carlo_ranges,
    monte_carlo,
    tornado,
)
from engine.units import HOURS_PER_MONTH, HOURS_PER_YEAR, MONTHS_PER_YEAR

__all__ = [
    "COMPARE_PARAMS", "DEFAULT_MONTE_CARLO_SPREADS", "HOURS_PER_MONTH", "HOURS_PER_YEAR", "LAYERS",
    "MONTHS_PER_YEAR", "OPTIONAL_FIELDS", "RESIDUAL_VALUE_RULE", "TORNADO_FIELDS", "Assumption",
    "MonteCarloResult", "Option", "Pair", "TcoInputs", "TcoResult", "TornadoBar", "TornadoResult",
    "break_even_month", "break_even_utilisation", "cheapest_of", "compare_options_per_useful_gpu_hour",
    "cost_per_useful_gpu_hour_eur", "cumulative_cost_eur", "default_monte_carlo_ranges", "evaluate_tco",
    "horizon_cost_eur_per_gpu", "life_months", "mean_on_demand_price_eur_per_gpu_hour", "monte_carlo",
    "owned_breakdown_eur_per_gpu", "resale_value_fraction_at", "tornado", "unit_of", "useful_gpu_hours_per_gpu",
    "validate_arrays",
]
