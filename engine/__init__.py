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

Layout (README, "Map of the code")
----------------------------------
* Kernels by concept: :mod:`engine.tco` (inputs, horizon, timeline, result, uncertainty), :mod:`engine.workload`
  (data, inputs, offers, training, inference, results), :mod:`engine.scoring` (matrix, constraints, missing,
  kernels, sensitivity, ranking, presets), :mod:`engine.placement` (defaults, demand, commitment, venues,
  eligibility, milp, plan, portfolio); shared models: :mod:`engine.network`, :mod:`engine.parallelism`,
  :mod:`engine.goodput`, :mod:`engine.serving`, :mod:`engine.power`, :mod:`engine.money`, :mod:`engine.outliers`,
  :mod:`engine.scope`, :mod:`engine.group`; :mod:`engine.units` (hours per year and month, defined once).
* :mod:`engine.assumptions` -- the one ``Assumption`` type, the sourced-field helper, the missing-value predicate.
* :mod:`engine.adapters` -- the catalog boundary: frames and rows in, engine arrays out (no other engine module
  imports it).
* :mod:`engine.fast` -- speed tricks, each tested equal to its plain version.
* Each package re-exports its public names (``from engine.scoring import rank_alternatives``); no module passes
  ~600 lines; the import graph is checked by ``tests/test_import_graph.py``.
"""
