"""GPU Cloud Advisor numeric cost engine: pure numpy (and scipy), no Streamlit, no SQL.

Conventions (shared by every module in this package)
-----------------------------------------------------
* Costs are positive numbers in one currency per name (``*_eur_*`` or ``*_usd_*``); the engine never
  converts currency inside a formula: pages convert at the boundary with :mod:`engine.money`.
* Units live in names: ``price_eur_per_gpu_hour``, ``power_kw``, ``energy_kwh``, ``bandwidth_gbps``,
  ``horizon_months``. Ratios end in ``_fraction`` (0-1) or ``_pct`` (0-100), never bare.
* Rates are per year unless the name says otherwise (``cost_of_capital_fraction_per_year``).
* Every function accepts scalars or arrays and broadcasts them with numpy; special cases (zero
  interest rate, zero utilisation) are handled with ``np.where`` / masks, never Python loops.
  A scalar input gives a 0-d result, an array input an array of the broadcast shape.
* Every default value names its source in the docstring (see ``docs/sources.md`` for the list).
"""
