"""Per-offer reference of :func:`engine.workload.price_training`: the same layout search and step model, one offer
at a time (a Python loop over offers, each searching its own layouts).

This is what a competent engineer would write without grouping offers: for each offer, build its one-row
:class:`OfferArrays` and price the job on it. It does the same work as the vectorised call (every candidate layout
of every offer is evaluated) and must give the same outputs; ``bench/bench_workload.py`` times both, and
``tests/engine/test_workload.py`` checks they agree. The step-time formulas themselves are checked by hand-computed
cases in the tests, not by this loop.
"""

from __future__ import annotations

import numpy as np

from engine.workload import DEFAULT_ASSUMPTIONS, EngineAssumptions, OfferArrays, TrainingJob, price_training
from engine.workload.inputs import MissingFabricPolicy

KEYS = ("time_hours", "cost", "energy_kwh", "emissions_kg", "scaling_efficiency_fraction", "goodput_fraction",
        "exclusion_code")


def reference_price_training_loop(
    job: TrainingJob,
    offers: OfferArrays,
    assumptions: EngineAssumptions = DEFAULT_ASSUMPTIONS,
    missing_fabric: MissingFabricPolicy = "exclude",
) -> dict[str, list[float]]:
    """:func:`price_training` called once per offer; returns the :data:`KEYS` lists."""
    out: dict[str, list[float]] = {k: [] for k in KEYS}
    for i in range(offers.n_offers):
        r = price_training(job, offers.take(np.array([i])), assumptions, missing_fabric)
        for k in KEYS:
            out[k].append(float(np.asarray(getattr(r, k))[0]))
    return out
