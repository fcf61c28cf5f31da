r"""The client's own cluster as a placement venue: its cost per GPU-hour from the Rent-or-own engine.

Part of :mod:`engine.placement`. One formula path: the owned total over the usable months is
:func:`engine.tco.horizon_cost_eur_per_gpu` (capex, depreciation, cost of capital, power, colocation, staff,
maintenance, resale credit), the same kernel the Rent-or-own page uses, divided by every hour of those
months, because an owned GPU is paid whether it is busy or not:

.. math::

    r_{own} = \frac{C_{owned}(H - s,\ u = 1)}{730\,(H - s)}

with :math:`s` the months before the cluster is usable (its lead time, :data:`DEFAULT_OWN_LEAD_TIME_DAYS`).
Power is charged at the full-load draw (``u = 1``), an upper bound: the placement prices a GPU-hour of
capacity, not of work. Staff cost is spread over ``reference_gpus`` (the fixed size, or the size the cost is
quoted for when the plan chooses the size).

References
----------
.. [1] GPU Cloud Advisor seed guide, "GPU cloud computing guide" (the project brief's source document),
       section on access to capacity: "Lead times for dedicated GPU clusters can stretch to quarters rather
       than weeks."
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from engine.placement.venues import DAYS_PER_MONTH
from engine.tco import HOURS_PER_MONTH, TcoInputs, horizon_cost_eur_per_gpu
from engine.tco.inputs import MAX_CLUSTER_GPUS

#: Default lead time of an own (or dedicated) cluster [d]: two quarters, the smallest reading of the seed
#: guide's "lead times for dedicated GPU clusters can stretch to quarters rather than weeks" [1].
DEFAULT_OWN_LEAD_TIME_DAYS = 182.0
OWN_LEAD_TIME_SOURCE = ("docs/gpu-cloud-computing-guide.txt line 51: 'Lead times for dedicated GPU clusters can stretch "
                        "to quarters rather than weeks'; default two quarters = 182 days (user input)")
#: Venue id of the own cluster (no catalog offer id starts with ``own:``).
OWN_VENUE_ID = "own:cluster"


class OwnCluster(BaseModel):
    """The client's own cluster: hardware, where it stands, when it is ready, how large it may be.

    Examples
    --------
    >>> own = OwnCluster(country="DE")
    >>> round(own.cost_eur_per_gpu_hour(36), 2) > 0, own.usable_from_month(36)
    (True, 6)
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    tco: TcoInputs = Field(default_factory=TcoInputs, description="Rent-or-own inputs (owned fields are used).")
    lead_time_days: float = Field(DEFAULT_OWN_LEAD_TIME_DAYS, ge=0, le=3650,
                                  description="Days from order until the cluster is usable [d].")
    fixed_gpus: int | None = Field(None, ge=1, le=100_000,
                                   description="Size fixed by the user [GPU]; None = the plan chooses.")
    max_gpus: float | None = Field(None, ge=0, le=100_000,
                                   description="Most GPUs the plan may buy when it chooses the size [GPU].")
    reference_gpus: int = Field(8, ge=1, le=MAX_CLUSTER_GPUS,
                                description="Size the staff cost is spread over when the plan chooses [GPU]; "
                                            "the Rent-or-own cluster size, so the same bound (one definition).")
    country: str = Field("", max_length=60, description="Country of the client's data centre or colocation.")
    is_eu_datacenter: bool = Field(True, description="The client states the site is in the EU/EEA.")
    is_eu_client: bool = Field(True, description="The client (the 'parent') is an EU organisation.")
    gpu_model: str = Field("H100", max_length=40)
    memory_gb: float = Field(80.0, gt=0, le=10_000)
    has_infiniband: bool = True
    has_nvlink: bool = True

    @property
    def size_gpus(self) -> int:
        """GPUs the cost is computed for [GPU]."""
        return self.fixed_gpus or self.reference_gpus

    def usable_from_month(self, horizon_months: int) -> int:
        """First usable month (0-based) within the horizon, as :meth:`Venues.usable_from_month`."""
        return min(int(math.ceil(round(self.lead_time_days / DAYS_PER_MONTH, 9))), int(horizon_months))

    def cost_eur_per_gpu_hour(self, horizon_months: int) -> float:
        """Owned cost per GPU-hour of capacity over the usable months [EUR/GPU-h] (module docstring formula);
        NaN when the cluster is not usable within the horizon."""
        months = int(horizon_months) - self.usable_from_month(horizon_months)
        if months < 1:
            return math.nan
        params = dict(self.tco.as_arrays(), horizon_months=np.asarray(float(months)),
                      utilisation_fraction=np.asarray(1.0), cluster_gpus=np.asarray(float(self.size_gpus)))
        total = float(horizon_cost_eur_per_gpu("owned", **params))
        return total / (HOURS_PER_MONTH * months)

    def venue_record(self, horizon_months: int) -> dict[str, Any]:
        """The cluster as a :meth:`Venues.from_records` row: committed capacity only (never a burst venue),
        at :meth:`cost_eur_per_gpu_hour`, ``min_commitment="multi-year"`` (the hardware is bought)."""
        size = self.fixed_gpus
        cap = float(size) if size else (math.inf if self.max_gpus is None else float(self.max_gpus))
        return {
            "venue_id": OWN_VENUE_ID, "provider": "Own cluster", "gpu_model": self.gpu_model,
            "memory_gb": self.memory_gb, "has_infiniband": self.has_infiniband, "has_nvlink": self.has_nvlink,
            "is_eu_datacenter": self.is_eu_datacenter, "is_location_known": True,
            "jurisdiction": "EU" if self.is_eu_client else "other",
            "reserved_eur_per_gpu_hour": self.cost_eur_per_gpu_hour(horizon_months),
            "reserved_term_months": float(horizon_months), "capacity_gpus": cap, "min_commitment": "multi-year",
            "min_commit_gpus": float(size or 0), "lead_time_days": self.lead_time_days, "tenancy": "owned",
            "is_committable": True,
        }
